"""The seasonal-league API in-process: who may write (403 ``not_organiser``), bad input (400 with a
stable code), divisions and fixtures, tables as JSON and CSV, corrections, closing, the next season."""

from __future__ import annotations

import csv
import io
from datetime import datetime, timedelta

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games import services as game_services
from league.seasons import services
from league.seasons.models import Fixture

pytestmark = pytest.mark.django_db


def client_for(user) -> APIClient:
    client = APIClient()
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["code"] == code and body["message"], body
    return body


BODY = {"name": "Tuesday Nine Card League", "engine": "nine-card", "divisions": 2, "days_per_round": 7}


def test_league_creation_and_roster_permissions_and_errors(club_with, make_user):
    club, organiser, members = club_with(3)
    org, mem, anon = client_for(organiser), client_for(members[0]), APIClient()
    base = f"/api/clubs/{club.slug}/leagues"
    error(anon.post(base, BODY, format="json"), 401, "not_authenticated")
    error(mem.post(base, BODY, format="json"), 403, "not_organiser")
    error(org.post("/api/clubs/nowhere/leagues", BODY, format="json"), 404, "not_found")
    for changes, code in [
        ({"engine": "turn-thief", "tables": {}}, None),  # two-player fixtures of a four-player game: its code
        ({"engine": "satori", "tables": {"seats": {"preferred": 7}}}, "invalid_seats"),
        ({"engine": "satori", "tables": {"seats": {"min": 4, "max": 3}}}, "invalid_seats"),
        ({"engine": "satori", "tables": {"placement_points": [1, 2, 3, 4]}}, "invalid_placement_points"),
        ({"engine": "satori", "tables": {"table": 4}}, "invalid_tables"),
        ({"engine": "nine-card", "tables": {"seats": {}}}, "bad_seat_count"),
        ({"engine": "chess"}, None),
        ({"cycles": 3}, "invalid_cycles"),
        ({"days_per_round": 0}, "invalid_days_per_round"),
        ({"divisions": 21}, "invalid_divisions"),
        ({"promote": -1}, "invalid_promotion"),
        ({"points": {"win": 1, "draw": 2, "loss": 0}}, "invalid_points"),
        ({"points": {"win": "x"}}, "invalid_points"),
        ({"points": [3, 1, 0]}, "invalid_points"),
        ({"tiebreaks": ["coin_toss"]}, "invalid"),
        ({"name": "  "}, "invalid"),
        ({"config": {"no_such_flag": 1}}, None),
        ({"days_per_round": "soon"}, "invalid"),
    ]:
        response = org.post(base, {**BODY, **changes}, format="json")
        assert response.status_code == 400, (changes, response.content)
        body = response.json()
        assert set(body) >= {"code", "message"} and (code is None or body["code"] == code), (changes, body)
    created = org.post(base, {**BODY, "points": {"win": 2, "draw": 1, "loss": 0}}, format="json")
    assert created.status_code == 201, created.content
    league = created.json()
    assert league["points"] == {"win": 2, "draw": 1, "loss": 0} and league["promote"] == league["relegate"] == 2
    assert league["tiebreaks"] == ["head_to_head", "wins", "sonneborn_berger", "game_points"]
    error(org.post(base, BODY, format="json"), 409, "league_exists")
    assert [x["id"] for x in anon.get(base).json()] == [league["id"]]

    players = f"/api/leagues/{league['id']}/players"
    error(mem.post(players, {"username": members[1].username}, format="json"), 403, "not_organiser")
    error(org.post(players, {"username": make_user("outsider").username}, format="json"), 400, "not_a_club_member")
    error(org.post(players, {"username": "nobody"}, format="json"), 400, "no_such_player")
    error(org.post(players, {}, format="json"), 400, "invalid")
    for member in members:
        assert org.post(players, {"username": member.username}, format="json").status_code == 201
    error(org.post(players, {"username": members[0].username}, format="json"), 409, "already_in_league")
    error(mem.delete(f"{players}/{members[2].username}"), 403, "not_organiser")
    removed = org.delete(f"{players}/{members[2].username}")
    assert removed.status_code == 200
    assert [(p["username"], p["active"]) for p in removed.json()["roster"]] == [
        (members[0].username, True),
        (members[1].username, True),
        (members[2].username, False),
    ]
    error(org.delete(f"{players}/{members[2].username}"), 404, "not_in_league")
    detail = f"/api/leagues/{league['id']}"
    error(mem.patch(detail, {"promote": 1}, format="json"), 403, "not_organiser")
    error(org.patch(detail, {"relegate": 99}, format="json"), 400, "invalid_promotion")
    error(org.patch(detail, {"points": {"win": 0, "loss": 0}}, format="json"), 400, "invalid_points")
    changed = org.patch(detail, {"promote": 1, "points": {"win": 1, "draw": 0.5, "loss": 0}}, format="json")
    assert changed.status_code == 200, changed.content
    assert changed.json()["promote"] == 1 and changed.json()["relegate"] == 2
    assert changed.json()["points"] == {"win": 1, "draw": 0.5, "loss": 0}
    error(anon.get("/api/leagues/999999"), 404, "not_found")


def test_a_season_over_the_api(club_with):
    club, organiser, members = club_with(7)
    org, mem, anon = client_for(organiser), client_for(members[0]), APIClient()
    league = org.post(f"/api/clubs/{club.slug}/leagues", BODY, format="json").json()
    lid = league["id"]
    for member in members:
        org.post(f"/api/leagues/{lid}/players", {"username": member.username}, format="json")
    preview = anon.get(f"/api/leagues/{lid}/next-season").json()
    assert preview["number"] == 1 and [len(d["players"]) for d in preview["divisions"]] == [4, 3]

    seasons = f"/api/leagues/{lid}/seasons"
    error(mem.post(seasons, {}, format="json"), 403, "not_organiser")
    error(org.post(seasons, {"divisions": [["nobody", "x"]]}, format="json"), 400, "no_such_player")
    error(org.post(seasons, {"divisions": "abc"}, format="json"), 400, "invalid")
    started = org.post(seasons, {}, format="json")
    assert started.status_code == 201, started.content
    season = started.json()
    sid = season["id"]
    assert season["number"] == 1 and season["status"] == "running" and season["rounds"] == 3
    assert [[p["username"] for p in d["players"]] for d in season["divisions"]] == [
        [m.username for m in members[:4]],
        [m.username for m in members[4:]],
    ]
    error(org.post(seasons, {}, format="json"), 409, "season_running")
    # settings changed now apply from the next season: this one keeps its copy
    org.patch(f"/api/leagues/{lid}", {"points": {"win": 1, "draw": 0.5, "loss": 0}, "promote": 0}, format="json")
    error(anon.get(f"/api/leagues/{lid}/next-season"), 409, "season_running")
    assert anon.get(f"/api/leagues/{lid}").json()["seasons"] == [{"id": sid, "number": 1, "status": "running"}]

    fixtures = anon.get(f"/api/seasons/{sid}/fixtures").json()
    assert len(fixtures) == 6 + 3
    round1 = anon.get(f"/api/seasons/{sid}/fixtures", {"round": 1}).json()
    assert [(f["division"], f["board"]) for f in round1] == [(1, 1), (1, 2), (2, 1)]
    assert len(anon.get(f"/api/seasons/{sid}/fixtures", {"division": 2}).json()) == 3
    error(anon.get(f"/api/seasons/{sid}/fixtures", {"round": "one"}), 400, "invalid_round")
    error(anon.get(f"/api/seasons/{sid}/fixtures", {"division": "\u00b2"}), 400, "invalid_division")  # was a 500
    error(anon.get(f"/api/seasons/{sid}/fixtures", {"division": "-1"}), 400, "invalid_division")
    started_at = datetime.fromisoformat(season["started_at"])
    for f in fixtures:
        assert datetime.fromisoformat(f["play_by"]) == started_at + timedelta(days=7 * f["round"])
        assert f["result"] == "" and f["score"] is None

    # division 1, round 1: members[0] v members[3]; the away player resigns
    first = round1[0]
    assert (first["home"], first["away"]) == (members[0].username, members[3].username)
    game_services.move_submit(game_id=first["game"], user=members[3], move={"type": "resign"}, idempotency_key="k")
    game_services.game_advance(game_id=first["game"])
    services.season_game_finished(game_id=first["game"])
    done = anon.get(f"/api/fixtures/{first['id']}").json()
    assert (done["result"], done["score"], done["method"]) == ("home", "1-0", "played")
    table = anon.get(f"/api/seasons/{sid}/standings").json()
    assert table["status"] == "running" and table["points"] == {"win": 3.0, "draw": 1.0, "loss": 0.0}
    top = table["divisions"][0]["standings"]
    assert (top[0]["username"], top[0]["points"], top[0]["wins"]) == (members[0].username, 3, 1)
    assert [row["zone"] for row in top] == [None, None, "relegated", "relegated"]
    assert [row["zone"] for row in table["divisions"][1]["standings"]] == ["promoted", "promoted", None]
    sheet = anon.get(f"/api/seasons/{sid}/standings.csv")
    assert sheet.status_code == 200 and sheet["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(sheet.content.decode("utf-8-sig"))))
    assert rows[0] == [
        "division", "position", "username", "points", "played", "wins", "draws", "losses", "zone",
        "head_to_head", "wins", "sonneborn_berger", "game_points",
    ]  # fmt: skip
    assert rows[1][:5] == ["1", "1", members[0].username, "3.0", "1"] and len(rows) == 1 + 7

    correction = f"/api/fixtures/{first['id']}/correction"
    error(mem.post(correction, {"result": "draw", "reason": "sheet"}, format="json"), 403, "not_organiser")
    error(anon.post(correction, {"result": "draw", "reason": "sheet"}, format="json"), 401, "not_authenticated")
    error(org.post(correction, {"result": "won", "reason": "sheet"}, format="json"), 400, "invalid")
    error(org.post(correction, {"result": "draw"}, format="json"), 400, "invalid")
    undecided = round1[1]["id"]
    error(org.post(f"/api/fixtures/{undecided}/correction", {"result": "draw", "reason": "r"}, format="json"), 409,
          "fixture_undecided")  # fmt: skip
    fixed = org.post(correction, {"result": "away", "reason": "the score sheet says so"}, format="json")
    assert fixed.status_code == 200 and fixed.json()["method"] == "correction" and fixed.json()["score"] == "0-1"
    top = anon.get(f"/api/seasons/{sid}/standings").json()["divisions"][0]["standings"]
    assert (top[0]["username"], top[0]["points"]) == (members[3].username, 3)

    error(mem.post(f"/api/seasons/{sid}/close"), 403, "not_organiser")
    closed = org.post(f"/api/seasons/{sid}/close")
    assert closed.status_code == 200 and closed.json()["status"] == "closed"
    assert not Fixture.objects.filter(season_id=sid, result="").exists()
    error(org.post(f"/api/seasons/{sid}/close"), 409, "season_closed")
    final = anon.get(f"/api/seasons/{sid}/standings").json()
    assert final["status"] == "closed"
    top = [row["username"] for row in final["divisions"][0]["standings"]]
    bottom = [row["username"] for row in final["divisions"][1]["standings"]]
    plan = anon.get(f"/api/leagues/{lid}/next-season").json()
    assert plan["number"] == 2 and plan["leaving"] == []
    expected = [top[:2] + bottom[:2], top[2:] + bottom[2:]]
    assert [[p["username"] for p in d["players"]] for d in plan["divisions"]] == expected
    second = org.post(seasons, {}, format="json")
    assert second.status_code == 201 and second.json()["number"] == 2
    assert [[p["username"] for p in d["players"]] for d in second.json()["divisions"]] == expected
    assert [p["came"] for p in second.json()["divisions"][0]["players"]] == ["stayed", "stayed", "promoted", "promoted"]
    error(org.post(correction, {"result": "home", "reason": "late"}, format="json"), 409, "season_superseded")
    assert len(anon.get(f"/api/leagues/{lid}/seasons").json()) == 2
    error(anon.get("/api/seasons/0"), 404, "not_found")
    error(anon.get("/api/fixtures/0"), 404, "not_found")


def test_the_schema_documents_the_league_routes(club_with):
    schema = APIClient().get("/api/schema", {"format": "json"}).json()
    for path in (
        "/api/clubs/{slug}/leagues",
        "/api/leagues/{id}/seasons",
        "/api/seasons/{id}/standings.csv",
        "/api/fixtures/{id}/correction",
    ):
        assert path in schema["paths"], path


def test_bots_join_a_league_only_when_its_organiser_allows_them(club_with, clock):
    from games.accounts import account_create
    from league import services as league_services

    club, organiser, (person,) = club_with(1)
    bot, _token = account_create(username="robo", password="a-long-pass-1", bot=True)
    league_services.membership_invite(club_id=club.pk, by=organiser, user=bot, now=clock.now)
    league_services.membership_join(club_id=club.pk, by=bot, now=clock.now)
    org, mem = client_for(organiser), client_for(person)
    created = org.post(f"/api/clubs/{club.slug}/leagues", {**BODY, "divisions": 1}, format="json")
    assert created.status_code == 201 and created.json()["allow_bots"] is False
    detail = f"/api/leagues/{created.json()['id']}"
    players = f"{detail}/players"
    error(org.post(players, {"username": "robo"}, format="json"), 403, "bots_not_allowed")
    assert org.post(players, {"username": person.username}, format="json").status_code == 201

    error(mem.patch(detail, {"allow_bots": True}, format="json"), 403, "not_organiser")
    error(org.patch(detail, {"allow_bots": "maybe"}, format="json"), 400, "invalid")
    allowed = org.patch(detail, {"allow_bots": True}, format="json")
    assert allowed.status_code == 200 and allowed.json()["allow_bots"] is True
    assert org.patch(detail, {"promote": 1}, format="json").json()["allow_bots"] is True
    added = org.post(players, {"username": "robo"}, format="json")
    assert added.status_code == 201, added.content
    assert [(p["username"], p["bot"]) for p in added.json()["roster"]] == [(person.username, False), ("robo", True)]

    off = org.patch(detail, {"allow_bots": False}, format="json")
    assert off.status_code == 200 and off.json()["allow_bots"] is False
    error(org.post(f"{detail}/seasons", {}, format="json"), 403, "bots_not_allowed")
    assert org.patch(detail, {"allow_bots": True}, format="json").status_code == 200
    started = org.post(f"{detail}/seasons", {}, format="json")
    assert started.status_code == 201, started.content
    assert {p["username"] for p in started.json()["divisions"][0]["players"]} == {person.username, "robo"}
