"""Elimination tournaments in-process: single (third place), double (grand-final reset), groups to a
playoff; organiser seeding, withdrawals in a bracket, final placements in the standings."""

from __future__ import annotations

import uuid

import pytest

from games import services as game_services
from league import services
from league.models import TournamentBoard, TournamentEntry
from league.scoring.elimination import group_assignment
from league.tournaments import lifecycle, ops

pytestmark = pytest.mark.django_db


def play_round(tournament, strength: dict, *, capture, upset: set | None = None) -> list[TournamentBoard]:
    """Every playing board of the current round: the weaker player (higher ``strength`` number)
    resigns, unless the board's bracket id is in ``upset``."""
    boards = list(tournament.boards.filter(round=tournament.current_round, finished_at__isnull=True))
    for board in boards:
        a, b = board.first, board.second
        loser = max(a, b, key=lambda u: strength[u.pk])
        if upset and board.bracket_match in upset:
            loser = a if loser == b else b
        with capture(execute=False):
            game_services.move_submit(
                game_id=board.game_id, user=loser, move={"type": "resign"}, idempotency_key=uuid.uuid4().hex
            )
            game_services.game_advance(game_id=board.game_id)
            assert lifecycle.tournament_game_finished(game_id=board.game_id)
    return boards


def run(tournament, strength, clock, capture, *, upset=None, limit=20) -> list[list[str]]:
    """Play rounds to the end; returns the bracket ids of each round."""
    rounds = []
    for _ in range(limit):
        tournament.refresh_from_db()
        if tournament.status == "finished":
            return rounds
        rounds.append(sorted(b.bracket_match for b in tournament.boards.filter(round=tournament.current_round)))
        play_round(tournament, strength, capture=capture, upset=upset)
        lifecycle.tournament_advance(tournament_id=tournament.pk, now=clock.advance(hours=1))
    raise AssertionError("the tournament did not finish")


def create(club, organiser, members, clock, format, **settings):
    tournament = lifecycle.tournament_create(
        club_id=club.pk, by=organiser, name=format, engine="nine-card", format=format, settings=settings, now=clock.now
    )
    for member in members:
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=member, now=clock.now)
    return tournament


def test_single_elimination_with_organiser_seeding_and_a_third_place_match(
    club_with, clock, django_capture_on_commit_callbacks
):
    club, organiser, members = club_with(6)
    tournament = create(club, organiser, members, clock, "single_elimination", third_place=True)
    seeding = list(reversed(members))  # the last to enter is the top seed
    with pytest.raises(services.ServiceError) as refused:
        lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, seeding=seeding[:5], now=clock.now)
    assert refused.value.code == "invalid_seeding"
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, seeding=seeding, now=clock.now)
    tournament.refresh_from_db()
    strength = {user.pk: index for index, user in enumerate(seeding, start=1)}
    assert tournament.bracket["seeds"] == [user.pk for user in seeding]
    first = list(tournament.boards.filter(round=1))
    assert {frozenset((strength[b.first_id], strength[b.second_id])) for b in first} == {
        frozenset((4, 5)),
        frozenset((3, 6)),
    }  # seeds 1 and 2 have byes
    rounds = run(tournament, strength, clock, django_capture_on_commit_callbacks)
    assert len(rounds) == 3 and "3P" in rounds[-1]
    final = tournament.final_standings
    assert [row["username"] for row in final[:4]] == [u.username for u in seeding[:4]]
    assert [row["rank"] for row in final[:4]] == [1, 2, 3, 4]
    assert {row["rank"] for row in final[4:]} == {5}  # the two first-round losers share fifth


def test_double_elimination_with_a_grand_final_reset(club_with, clock, django_capture_on_commit_callbacks):
    club, organiser, members = club_with(4)
    tournament = create(club, organiser, members, clock, "double_elimination")
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    tournament.refresh_from_db()
    strength = {user.pk: index for index, user in enumerate(members, start=1)}
    # the losers-bracket finalist wins the grand final, so the reset is played
    rounds = run(tournament, strength, clock, django_capture_on_commit_callbacks, upset={"GF"})
    played = [match for round_ in rounds for match in round_]
    assert "GF" in played and "GF2" in played
    assert len(played) == len(set(played))
    final = tournament.final_standings
    assert final[0]["username"] == members[0].username and final[0]["rank"] == 1
    assert final[1]["username"] == members[1].username
    losses = {row["username"]: row["losses"] for row in final}
    assert losses[members[0].username] == 1  # lost the grand final once, won the reset
    assert all(value >= 1 for value in losses.values())


def test_groups_feed_a_playoff_seeded_across_groups(club_with, clock, django_capture_on_commit_callbacks):
    club, organiser, members = club_with(8)
    tournament = create(club, organiser, members, clock, "groups_playoff", groups=2, advance=2)
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    tournament.refresh_from_db()
    ids = [m.pk for m in members]
    assert tournament.bracket["groups"] == [list(g) for g in group_assignment(ids, 2)]
    groups = dict(TournamentEntry.objects.filter(tournament=tournament).values_list("user_id", "group"))
    assert all(groups[pk] == index for index, group in enumerate(tournament.bracket["groups"]) for pk in group)
    strength = {pk: index for index, pk in enumerate(ids, start=1)}
    rounds = run(tournament, strength, clock, django_capture_on_commit_callbacks)
    assert rounds[:3] == [["", "", "", ""]] * 3  # three rounds of two groups of four, then the playoff
    assert rounds[3:] == [["W1-1", "W1-2"], ["W2-1"]]
    for board in tournament.boards.filter(round__lte=3):  # group games stay inside a group
        assert groups[board.first_id] == groups[board.second_id]
    semis = list(tournament.boards.filter(round=4))
    assert all(groups[b.first_id] != groups[b.second_id] for b in semis)  # group-mates meet in the final only
    final = tournament.final_standings
    assert [row["username"] for row in final[:2]] == [members[0].username, members[1].username]
    assert [row["rank"] for row in final] == [1, 2, 3, 3, 5, 6, 7, 8]
    assert {row["username"] for row in final[4:6]} == {members[4].username, members[5].username}  # third in groups


def test_a_withdrawn_player_forfeits_their_next_bracket_match(club_with, clock, django_capture_on_commit_callbacks):
    club, organiser, members = club_with(4)
    tournament = create(club, organiser, members, clock, "single_elimination")
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    tournament.refresh_from_db()
    strength = {user.pk: index for index, user in enumerate(members, start=1)}
    play_round(tournament, strength, capture=django_capture_on_commit_callbacks)
    ops.tournament_drop(tournament_id=tournament.pk, by=members[1], now=clock.now)  # seed 2 won, then left
    with django_capture_on_commit_callbacks() as queued:
        lifecycle.tournament_advance(tournament_id=tournament.pk, now=clock.advance(hours=1))
    final_board = TournamentBoard.objects.get(tournament=tournament, bracket_match="W2-1")
    assert final_board.decided_by == "forfeit" and final_board.game_id is None
    assert final_board.placements == [[members[0].pk], [members[1].pk]]
    assert len(queued) == 1  # nothing to play: the advance task is queued at once
    lifecycle.tournament_advance(tournament_id=tournament.pk, now=clock.now)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    assert [(row["username"], row["status"]) for row in tournament.final_standings[:2]] == [
        (members[0].username, "active"),
        (members[1].username, "dropped"),
    ]
