"""A pairing played at a real table (issue 17, parts 1 and 2 together): a player moves the pairing to
the table, records the game with the table recorder's API, and the finished record is that keeper's
report; the opponent confirms it and the ladder moves as after an online game."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from games import services as game_services
from games.models import Game
from league import services
from league.models import ResultReport

from .test_reports import order

pytestmark = pytest.mark.django_db


def api(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def accepted_challenge(club_with, results: str):
    club, organiser, (top, middle, bottom) = club_with(3)
    ladder = services.ladder_create(
        club_id=club.pk, by=organiser, engine="nine-card", settings={"results": results, "report_confirm_hours": 24}
    )
    for member in (top, middle, bottom):
        services.ladder_join(ladder_id=ladder.pk, by=member)
    challenge = services.challenge_create(ladder_id=ladder.pk, by=bottom, defender=middle)
    services.challenge_accept(challenge_id=challenge.pk, by=middle)
    challenge.refresh_from_db()
    return ladder, organiser, (top, middle, bottom), challenge


@pytest.fixture
def eager_celery():
    """The league hears of a finished game through a task sent after commit: run it at once."""
    from kifu.celery import app as celery_app

    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = False


def test_a_challenge_recorded_at_the_table_and_confirmed_moves_the_ladder(
    club_with, eager_celery, django_capture_on_commit_callbacks
):
    ladder, organiser, (top, middle, bottom), challenge = accepted_challenge(club_with, "either")
    server_game = challenge.game
    base = f"/api/pairings/challenge/{challenge.pk}"
    assert api().post(f"{base}/table").status_code == 401
    outsider = api(top).post(f"{base}/table")
    assert outsider.status_code == 403 and outsider.json()["code"] == "not_in_pairing"

    moved = api(bottom).post(f"{base}/table")
    assert moved.status_code == 201, moved.json()
    body = moved.json()
    table = Game.objects.get(pk=body["game"])
    assert table.source == Game.Source.TABLE and not table.seed and body["id"] == str(challenge.pk)
    assert body["recorder"].endswith(f"/games/{table.pk}/table") and body["sheet"].endswith(f"/table-games/{table.pk}")
    challenge.refresh_from_db()
    server_game.refresh_from_db()
    assert challenge.game_id == table.pk and server_game.status == Game.Status.CANCELLED
    assert api(bottom).post(f"{base}/table").json()["game"] == str(table.pk)  # again: the same table game

    # The keeper (the challenger) records the deal and the defender resigning at the table.
    sheet = api(bottom).get(body["sheet"]).json()
    assert sheet["chance"] is not None, sheet
    deal = sheet["chance"]["example"]
    recorded = api(bottom).post(f"{body['sheet']}/entries", {"entry": {"kind": "chance", "data": deal}}, format="json")
    assert recorded.status_code in (200, 201), recorded.json()
    seat = table.seats.get(user=middle).index
    resign = {"entry": {"kind": "system", "data": {"type": "resign", "seat": seat}}}
    with django_capture_on_commit_callbacks(execute=True):
        assert api(bottom).post(f"{body['sheet']}/entries", resign, format="json").status_code in (200, 201)
    table.refresh_from_db()
    assert table.status == Game.Status.FINISHED

    # Its finish is the keeper's report (already confirmed by the keeper, a player); the defender confirms.
    report = ResultReport.objects.get(game=table)
    assert report.status == "pending" and report.reported_by == bottom
    assert report.ranking == [[bottom.pk], [middle.pk]]
    challenge.refresh_from_db()
    assert challenge.status == "accepted" and order(ladder) == ["m0", "m1", "m2"]
    confirmed = api(middle).post(f"{base}/confirm", {}, format="json")
    assert confirmed.status_code == 200 and confirmed.json()["decided"] is True
    challenge.refresh_from_db()
    assert challenge.status == "decided" and order(ladder) == ["m0", "m2", "m1"]
    late = api(bottom).post(f"{base}/table")
    assert late.status_code == 409 and late.json()["code"] == "pairing_decided"


def test_online_only_pairings_and_games_in_play_stay_on_the_server(club_with):
    ladder, organiser, (top, middle, bottom), challenge = accepted_challenge(club_with, "online")
    base = f"/api/pairings/challenge/{challenge.pk}"
    refused = api(bottom).post(f"{base}/table")
    assert refused.status_code == 409 and refused.json()["code"] == "reports_not_allowed"
    assert (
        api(organiser).put(f"/api/ladders/{ladder.pk}/reporting", {"results": "either"}, format="json").status_code
        == 200
    )
    game = challenge.game
    mover = game.seats.get(index=game.actors[0]).user
    card = game.state["hands"][game.actors[0]][0]
    game_services.move_submit(
        game_id=game.pk, user=mover, move={"type": "commit_card", "card": card}, idempotency_key="1"
    )
    game_services.game_advance(game_id=game.pk)
    in_play = api(organiser).post(f"{base}/table")  # an organiser may move it, but not once a move was made
    assert in_play.status_code == 409 and in_play.json()["code"] == "game_in_play"
    challenge.refresh_from_db()
    assert challenge.game_id == game.pk and Game.objects.get(pk=game.pk).status == Game.Status.RUNNING


def test_an_organiser_without_a_seat_keeps_the_table_game(club_with):
    ladder, organiser, (top, middle, bottom), challenge = accepted_challenge(club_with, "table")
    moved = api(organiser).post(f"/api/pairings/challenge/{challenge.pk}/table")
    assert moved.status_code == 201, moved.json()
    table = Game.objects.get(pk=moved.json()["game"])
    assert table.created_by == organiser and api(organiser).get(moved.json()["sheet"]).status_code == 200


def test_the_report_page_moves_the_pairing_to_the_recorder(club_with, client):
    ladder, organiser, (top, middle, bottom), challenge = accepted_challenge(club_with, "table")
    client.force_login(middle)
    page = client.get(f"/pairings/challenge/{challenge.pk}/report")
    assert page.status_code == 200 and b'id="record-at-table"' in page.content
    answer = client.post(f"/pairings/challenge/{challenge.pk}/report", {"step": "table"})
    challenge.refresh_from_db()
    assert challenge.game.source == Game.Source.TABLE
    assert answer.status_code == 302 and answer["Location"] == f"/games/{challenge.game_id}/table"
    assert client.get(answer["Location"]).status_code == 200
