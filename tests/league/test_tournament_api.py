"""The tournament API in-process: who may do what, error shapes, rounds, standings as JSON and CSV."""

from __future__ import annotations

import csv
import io
import uuid

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games import services as game_services
from league.tournaments import lifecycle

pytestmark = pytest.mark.django_db


def client_for(user) -> APIClient:
    client = APIClient()
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def test_a_round_robin_over_the_api(club_with, make_user):
    club, organiser, members = club_with(4)
    org, mem, other, anon = client_for(organiser), client_for(members[0]), client_for(make_user("x")), APIClient()
    base = f"/api/clubs/{club.slug}/tournaments"
    body = {"name": "Cup", "engine": "nine-card", "format": "round_robin", "config": {"commit_seconds": 60}}
    assert anon.post(base, body, format="json").status_code == 401
    refused = mem.post(base, body, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "not_organiser"
    bad = org.post(base, {**body, "engine": "turn-thief", "config": {}}, format="json")
    assert bad.status_code == 400 and set(bad.json()) >= {"code", "message"}
    bad = org.post(base, {**body, "tiebreaks": ["coin_toss"]}, format="json")
    assert bad.status_code == 400 and "tiebreaks" in bad.json().get("fields", {})
    created = org.post(base, body, format="json")
    assert created.status_code == 201, created.content
    tid = created.json()["id"]
    assert created.json()["tiebreaks"] == ["direct_encounter", "sonneborn_berger", "game_points"]
    assert [t["id"] for t in anon.get(base).json()] == [tid]

    assert mem.post(f"/api/tournaments/{tid}/entries", {}, format="json").status_code == 201
    refused = other.post(f"/api/tournaments/{tid}/entries", {}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "not_member"
    for member in members[1:]:
        entered = org.post(f"/api/tournaments/{tid}/entries", {"username": member.username}, format="json")
        assert entered.status_code == 201
    assert [e["username"] for e in entered.json()["entries"]] == [m.username for m in members]
    assert mem.post(f"/api/tournaments/{tid}/start").status_code == 403
    started = org.post(f"/api/tournaments/{tid}/start")
    assert started.status_code == 200 and started.json()["status"] == "running" and started.json()["rounds"] == 3
    assert org.post(f"/api/tournaments/{tid}/start").json()["code"] == "tournament_started"

    boards = anon.get(f"/api/tournaments/{tid}/rounds", {"round": 1}).json()
    assert [(b["first"], b["second"]) for b in boards] == [
        (members[0].username, members[3].username),
        (members[1].username, members[2].username),
    ]
    assert all(b["game"] and b["result"] is None for b in boards)
    busy = org.post(f"/api/tournaments/{tid}/rounds")
    assert busy.status_code == 409 and busy.json()["code"] == "round_running"
    assert anon.get(f"/api/tournaments/{tid}/rounds", {"round": "x"}).json()["code"] == "invalid_round"
    superscript = anon.get(f"/api/tournaments/{tid}/rounds", {"round": "\u00b2"})  # "²".isdigit(): was a 500
    assert (superscript.status_code, superscript.json()["code"]) == (400, "invalid_round")

    by_name = {m.username: m for m in members}
    for board in boards:  # first seat wins both games
        loser = by_name[board["second"]]
        game_services.move_submit(
            game_id=board["game"], user=loser, move={"type": "resign"}, idempotency_key=uuid.uuid4().hex
        )
        game_services.game_advance(game_id=board["game"])
        lifecycle.tournament_game_finished(game_id=board["game"])
    assert {b["result"] for b in anon.get(f"/api/tournaments/{tid}/rounds").json()} == {"1-0"}
    paired = org.post(f"/api/tournaments/{tid}/rounds")  # what the task does, by hand
    assert paired.status_code == 200 and paired.json()["current_round"] == 2

    table = anon.get(f"/api/tournaments/{tid}/standings").json()
    assert table["round"] == 2 and table["status"] == "running"
    assert [(r["username"], r["points"]) for r in table["standings"][:2]] == [
        (members[0].username, 1),
        (members[1].username, 1),
    ]
    response = anon.get(f"/api/tournaments/{tid}/standings.csv")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0] == [
        "rank", "username", "number", "points", "played", "wins", "draws", "losses", "byes",
        "direct_encounter", "sonneborn_berger", "game_points", "status",
    ]  # fmt: skip
    assert rows[1][1] == members[0].username and len(rows) == 5
    assert anon.get("/api/tournaments/999999/standings").status_code == 404
    assert anon.get("/api/tournaments/999999/standings.csv").status_code == 404


def test_the_schema_lists_the_tournament_routes(client):
    schema = client.get("/api/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    assert "/api/tournaments/{id}/standings" in schema["paths"]
    assert "/api/clubs/{slug}/tournaments" in schema["paths"]
