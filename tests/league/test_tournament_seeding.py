"""Seeding at the start, for every format: by the club's rating ladder (the unrated after the rated,
in entry order), by a reproducible draw, or in entry order; refused without a rating ladder; the
organiser's own list still wins."""

from __future__ import annotations

import random

import pytest
from rest_framework.test import APIClient

from league import services
from league.models import LadderEntry, TournamentEntry
from league.tournaments import lifecycle
from league.tournaments.seeding import rating_order

from .conftest import finish_game
from .test_tournament_elimination import run

pytestmark = pytest.mark.django_db

FORMATS = ("swiss", "round_robin", "multi_swiss", "single_elimination", "double_elimination", "groups_playoff")


def rate(club, organiser, engine: str, results: list[tuple], clock):
    """The club's rating ladder for ``engine``, with a rated game for each (winner, loser)."""
    ladder = services.ladder_create(club_id=club.pk, by=organiser, engine=engine, kind="rating", now=clock.now)
    for player in dict.fromkeys(user for pair in results for user in pair):
        services.ladder_join(ladder_id=ladder.pk, by=player, now=clock.now)
    for winner, loser in results:
        link = services.rated_game_create(ladder_id=ladder.pk, by=organiser, players=[winner, loser], now=clock.now)
        finish_game(link.game_id, loser=loser, now=clock.advance(minutes=5))
    return ladder


def open_tournament(club, organiser, members, clock, format, engine="satori", **settings):
    tournament = lifecycle.tournament_create(
        club_id=club.pk, by=organiser, name=format, engine=engine, format=format, settings=settings, now=clock.now
    )
    for member in members:
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=member, now=clock.now)
    return tournament


def numbered(tournament) -> list[int]:
    return list(TournamentEntry.objects.filter(tournament=tournament).order_by("number").values_list("user", flat=True))


def test_rating_order_puts_the_unrated_last_in_entry_order():
    assert rating_order([5, 4, 3, 2, 1], {3: 10.0, 1: 12.5, 4: 10.0}) == [1, 4, 3, 5, 2]
    assert rating_order([2, 1], {}) == [2, 1]


@pytest.mark.parametrize("format", FORMATS)
def test_every_format_seeds_the_highest_rated_first(club_with, clock, format):
    club, organiser, members = club_with(6)
    m0, m1, m2, m3, m4, m5 = members
    ladder = rate(club, organiser, "satori", [(m4, m3), (m4, m1), (m3, m1), (m4, m1)], clock)
    ordinals = dict(LadderEntry.objects.filter(ladder=ladder).values_list("user", "ordinal"))
    assert ordinals[m4.pk] > ordinals[m3.pk] > ordinals[m1.pk]  # the games made this order
    extra = {"groups": 2, "advance": 2} if format == "groups_playoff" else {}
    tournament = open_tournament(club, organiser, members, clock, format, seeding="rating", **extra)
    assert numbered(tournament) == [m.pk for m in members]  # entry order until the start
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    expected = [m4.pk, m3.pk, m1.pk, m0.pk, m2.pk, m5.pk]  # the unrated follow, in entry order
    assert numbered(tournament) == expected
    tournament.refresh_from_db()
    if format in ("single_elimination", "double_elimination", "groups_playoff"):
        assert tournament.bracket["seeds"] == expected
    if format == "groups_playoff":  # snake seeding: the two best seeds lead different groups
        groups = dict(TournamentEntry.objects.filter(tournament=tournament).values_list("user", "group"))
        assert groups[m4.pk] != groups[m3.pk]


def test_rating_seeds_one_and_two_meet_only_in_the_final(club_with, clock, django_capture_on_commit_callbacks):
    club, organiser, members = club_with(8)
    # Entry order is the reverse of strength: by entry, the two best would share a half.
    results = [(members[7], members[6]), (members[7], members[5]), (members[6], members[5])]
    results += [(members[6], members[4]), (members[5], members[4]), (members[4], members[3])]
    rate(club, organiser, "nine-card", results, clock)
    tournament = open_tournament(
        club, organiser, members, clock, "single_elimination", engine="nine-card", seeding="rating"
    )
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    seeds = numbered(tournament)
    assert seeds[:5] == [m.pk for m in (members[7], members[6], members[5], members[4], members[3])]
    assert seeds[5:] == [m.pk for m in members[:3]]
    first_round = {frozenset((b.first_id, b.second_id)) for b in tournament.boards.filter(round=1)}
    assert frozenset((seeds[0], seeds[7])) in first_round and frozenset((seeds[1], seeds[6])) in first_round
    strength = {pk: index for index, pk in enumerate(seeds)}
    run(tournament, strength, clock, django_capture_on_commit_callbacks)
    final = tournament.boards.get(bracket_match="W3-1")
    assert {final.first_id, final.second_id} == {seeds[0], seeds[1]}
    assert [row["username"] for row in tournament.final_standings[:2]] == ["m7", "m6"]


def test_seeding_by_rating_needs_the_clubs_rating_ladder_for_that_game(club_with, clock):
    club, organiser, members = club_with(2)
    with pytest.raises(services.ServiceError) as refused:
        open_tournament(club, organiser, [], clock, "swiss", engine="nine-card", seeding="rating")
    assert refused.value.code == "no_rating_ladder" and refused.value.status == 400
    services.ladder_create(club_id=club.pk, by=organiser, engine="nine-card", now=clock.now)  # a challenge ladder
    rate(club, organiser, "satori", [], clock)  # a rating ladder of another game
    with pytest.raises(services.ServiceError) as still:
        open_tournament(club, organiser, [], clock, "swiss", engine="nine-card", seeding="rating")
    assert still.value.code == "no_rating_ladder"
    with pytest.raises(services.ServiceError) as unknown:
        open_tournament(club, organiser, [], clock, "swiss", engine="nine-card", seeding="best")
    assert unknown.value.code == "invalid_settings" and '"rating"' in unknown.value.message


def test_the_api_refuses_and_then_shows_the_rating_seeds(club_with, clock):
    club, organiser, members = club_with(4)
    client = APIClient()
    client.force_authenticate(organiser)
    body = {"name": "Rated", "engine": "satori", "format": "swiss", "settings": {"seeding": "rating"}}
    refused = client.post(f"/api/clubs/{club.slug}/tournaments", body, format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "no_rating_ladder", refused.json()
    rate(club, organiser, "satori", [(members[3], members[2])], clock)
    made = client.post(f"/api/clubs/{club.slug}/tournaments", body, format="json")
    assert made.status_code == 201 and made.json()["settings"]["seeding"] == "rating"
    pk = made.json()["id"]
    for member in members:
        lifecycle.tournament_enter(tournament_id=pk, by=member, now=clock.now)
    started = client.post(f"/api/tournaments/{pk}/start", {}, format="json")
    assert started.status_code == 200, started.json()
    entries = started.json()["entries"]
    assert [(e["number"], e["username"]) for e in entries] == [(1, "m3"), (2, "m2"), (3, "m0"), (4, "m1")]


def test_a_random_draw_is_reproducible_and_the_organisers_list_wins(club_with, clock):
    club, organiser, members = club_with(8)
    drawn = []
    for _ in range(2):
        tournament = lifecycle.tournament_create(
            club_id=club.pk, by=organiser, name="Draw", engine="nine-card", format="swiss", seed=7,
            settings={"seeding": "random"}, now=clock.now,
        )  # fmt: skip
        for member in members:
            lifecycle.tournament_enter(tournament_id=tournament.pk, by=member, now=clock.now)
        lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
        drawn.append(numbered(tournament))
    expected = [m.pk for m in members]
    random.Random(7).shuffle(expected)
    assert drawn[0] == drawn[1] == expected != [m.pk for m in members]
    listed = list(reversed(members))
    tournament = open_tournament(club, organiser, members, clock, "swiss", engine="nine-card", seeding="random")
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, seeding=listed, now=clock.now)
    assert numbered(tournament) == [m.pk for m in listed]


def test_renumbering_costs_the_same_few_statements_for_any_number_of_entrants(
    club_with, clock, django_assert_max_num_queries
):
    from league.tournaments.seeding import seeds_fix

    club, organiser, members = club_with(24)
    rate(club, organiser, "nine-card", [(members[5], members[9])], clock)
    tournament = open_tournament(club, organiser, members, clock, "swiss", engine="nine-card", seeding="rating")
    with django_assert_max_num_queries(7):  # entrants, ladder, ratings, entries, top number, two updates
        seeds_fix(tournament, None)
    assert numbered(tournament)[:2] == [members[5].pk, members[9].pk]
    assert numbered(tournament)[2:] == [m.pk for m in members if m not in (members[5], members[9])]
