"""The tournament admin: organisers see their club's tournaments (entries, rounds, boards) read-only,
and its action pairs the next round through the same service as the API."""

from __future__ import annotations

import uuid

import pytest
from django.test import Client

from games import services as game_services
from league import services
from league.models import TournamentBoard
from league.tournaments import lifecycle

pytestmark = pytest.mark.django_db


def test_organisers_see_their_tournaments_and_pair_through_the_service(club_with, make_user, clock):
    club, organiser, members = club_with(2)
    rival = make_user("rival")
    other = services.club_create(name="Other Club", slug="other", by=rival, now=clock.now)
    mine = lifecycle.tournament_create(
        club_id=club.pk, by=organiser, name="Mine", engine="nine-card", format="swiss", rounds=1, now=clock.now
    )
    lifecycle.tournament_create(
        club_id=other.pk, by=rival, name="Theirs", engine="nine-card", format="swiss", now=clock.now
    )
    for member in members:
        lifecycle.tournament_enter(tournament_id=mine.pk, by=member, now=clock.now)
    lifecycle.tournament_start(tournament_id=mine.pk, by=organiser, now=clock.now)
    organiser.refresh_from_db()
    browser = Client()
    browser.force_login(organiser)
    listing = browser.get("/admin/league/tournament/")
    assert listing.status_code == 200 and "Mine" in listing.text and "Theirs" not in listing.text
    page = browser.get(f"/admin/league/tournament/{mine.pk}/change/")
    assert page.status_code == 200 and members[0].username in page.text
    assert browser.get("/admin/league/tournamentboard/").status_code == 200
    action = {"action": "advance", "_selected_action": [mine.pk], "index": 0}
    busy = browser.post("/admin/league/tournament/", action, follow=True)
    assert [m.message.split(":")[0] for m in busy.context["messages"]] == ["round_running"]  # refused, shown
    board = TournamentBoard.objects.get(tournament=mine, round=1)
    game_services.move_submit(
        game_id=board.game_id, user=board.second, move={"type": "resign"}, idempotency_key=uuid.uuid4().hex
    )
    game_services.game_advance(game_id=board.game_id)
    lifecycle.tournament_game_finished(game_id=board.game_id)
    done = browser.post("/admin/league/tournament/", action, follow=True)
    assert done.status_code == 200
    mine.refresh_from_db()
    assert mine.status == "finished"
