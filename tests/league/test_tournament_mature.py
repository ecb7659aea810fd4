"""Tournaments of a mature game: the organiser opts in, only players who consented enter, the event
says it is mature and is missing from lists (and answers 404) for everyone else; a player who
withdraws consent before a round is paired forfeits that board."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from games import services as game_services
from games.models import Game
from league import services
from league.models import TournamentBoard
from league.tournaments import lifecycle

pytestmark = pytest.mark.django_db
MATURE = "kazekami-kyoko"


def consent(*users) -> None:
    for user in users:
        game_services.mature_consent_confirm(user=user, adult=True, consent=True)


def open_mature(club, organiser, clock, **settings):
    return lifecycle.tournament_create(
        club_id=club.pk, by=organiser, name="Late Night", engine=MATURE, format="round_robin",
        settings={"mature": True, **settings}, now=clock.now,
    )  # fmt: skip


def test_an_organiser_opts_in_and_consents(club_with, clock):
    club, organiser, _ = club_with(0)
    for settings, code in (
        ({}, "mature_opt_in_required"),
        ({"mature": False}, "mature_opt_in_required"),
        ({"mature": True}, "mature_consent_required"),
        ({"mature": "yes"}, "invalid_settings"),
    ):
        with pytest.raises(services.ServiceError) as refused:
            lifecycle.tournament_create(
                club_id=club.pk, by=organiser, name="x", engine=MATURE, format="swiss", settings=settings
            )
        assert refused.value.code == code, settings
    consent(organiser)
    with pytest.raises(services.ServiceError) as matches:
        open_mature(club, organiser, clock, match={"format": "best_of", "target": 3})
    assert matches.value.code == "invalid_settings" and "single games" in matches.value.message
    with pytest.raises(services.ServiceError) as not_mature:
        lifecycle.tournament_create(
            club_id=club.pk, by=organiser, name="x", engine="nine-card", format="swiss", settings={"mature": True}
        )
    assert not_mature.value.code == "invalid_settings"
    assert open_mature(club, organiser, clock).settings["mature"] is True


def test_only_players_who_consented_enter_and_see_it(club_with, clock):
    club, organiser, (ann, bob, cy) = club_with(3)
    consent(organiser, ann, bob)
    tournament = open_mature(club, organiser, clock)
    with pytest.raises(services.ServiceError) as refused:
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=cy, now=clock.now)
    assert (refused.value.code, refused.value.status) == ("mature_consent_required", 403)
    with pytest.raises(services.ServiceError) as by_organiser:
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=organiser, player=cy, now=clock.now)
    assert by_organiser.value.code == "mature_consent_required"
    clients = {}
    for name, user in (("ann", ann), ("cy", cy), ("anonymous", None)):
        clients[name] = APIClient()
        if user is not None:
            clients[name].force_authenticate(user)
    entered = clients["ann"].post(f"/api/tournaments/{tournament.pk}/entries", {}, format="json")
    assert entered.status_code == 201 and entered.json()["settings"]["mature"] is True
    assert [t["id"] for t in clients["ann"].get(f"/api/clubs/{club.slug}/tournaments").json()] == [tournament.pk]
    for name in ("cy", "anonymous"):
        assert clients[name].get(f"/api/clubs/{club.slug}/tournaments").json() == []
        for path in ("", "/standings", "/standings.csv", "/rounds"):
            assert clients[name].get(f"/api/tournaments/{tournament.pk}{path}").status_code == 404, (name, path)
    assert clients["cy"].post(f"/api/tournaments/{tournament.pk}/entries", {}, format="json").status_code == 404
    web = {name: Client() for name in ("ann", "cy", "anonymous")}
    web["ann"].force_login(ann)
    web["cy"].force_login(cy)
    page = web["ann"].get(f"/tournaments/{tournament.pk}/").content.decode()
    assert 'id="mature"' in page
    assert "Late Night" in web["ann"].get(f"/clubs/{club.slug}/").content.decode()
    assert "Late Night" in web["ann"].get(f"/players/{ann.username}/").content.decode()  # her entries
    for name in ("cy", "anonymous"):
        assert web[name].get(f"/tournaments/{tournament.pk}/").status_code == 404
        assert "Late Night" not in web[name].get(f"/clubs/{club.slug}/").content.decode()
        assert "Late Night" not in web[name].get(f"/players/{ann.username}/").content.decode()


def test_games_ask_each_player_and_a_withdrawn_consent_forfeits(club_with, clock):
    club, organiser, members = club_with(4)
    ann, bob, cy, dee = members
    consent(organiser, *members)
    tournament = open_mature(club, organiser, clock)
    for member in members:
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=member, now=clock.now)
    game_services.mature_consent_withdraw(user=dee)  # after entering, before the start
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    boards = {frozenset(b.seat_ids): b for b in TournamentBoard.objects.filter(tournament=tournament, round=1)}
    forfeit = next(b for seats, b in boards.items() if dee.pk in seats)
    assert forfeit.game_id is None and forfeit.finished_at is not None and forfeit.decided_by == "forfeit"
    assert forfeit.placements[0] != [dee.pk]  # dee lost it
    played = next(b for seats, b in boards.items() if dee.pk not in seats)
    game = Game.objects.get(pk=played.game_id)
    assert game.status == Game.Status.OPEN  # a mature game: each player accepts their own seat
    for user in (played.first, played.second):
        game = game_services.game_accept(game_id=game.pk, user=user)
    assert game.status == Game.Status.RUNNING


def test_the_round_deadline_forfeits_a_seat_never_accepted(club_with, clock):
    from league.tournaments.ops import tournament_deadline

    club, organiser, (ann, bob) = club_with(2)
    consent(organiser, ann, bob)
    tournament = open_mature(club, organiser, clock, round_deadline_seconds=3600)
    for member in (ann, bob):
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=member, now=clock.now)
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    board = TournamentBoard.objects.get(tournament=tournament, round=1)
    assert game_services.game_accept(game_id=board.game_id, user=ann).status == Game.Status.OPEN  # bob never does
    assert tournament_deadline(tournament_id=tournament.pk, now=clock.advance(hours=2)) == 1
    board.refresh_from_db()
    assert board.decided_by == "forfeit" and board.placements == [[ann.pk], [bob.pk]]
    assert Game.objects.get(pk=board.game_id).status == Game.Status.OPEN  # never started: nothing to end
