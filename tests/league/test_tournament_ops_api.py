"""The new tournament endpoints in-process: who may do what (403 with a stable code) and bad input
(400 with a stable code) for settings, seeding, check-in, drops, manual pairings, corrections and
round records."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def client_for(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def refused(response, status: int, code: str) -> None:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["code"] == code and body["message"], body


def test_settings_and_seeding_are_validated(club_with):
    club, organiser, members = club_with(3)
    org = client_for(organiser)
    base = f"/api/clubs/{club.slug}/tournaments"
    body = {"name": "Cup", "engine": "nine-card", "format": "single_elimination"}
    refused(org.post(base, {**body, "settings": {"groups": 2}}, format="json"), 400, "invalid_settings")
    refused(org.post(base, {**body, "settings": "fast"}, format="json"), 400, "invalid_settings")
    refused(org.post(base, {**body, "settings": {"round_deadline_seconds": 1}}, format="json"), 400, "invalid_settings")
    refused(org.post(base, {**body, "format": "multi_swiss"}, format="json"), 400, "bad_seat_count")
    multi = {"name": "M", "engine": "satori", "format": "multi_swiss", "settings": {"seats": {"preferred": 9}}}
    refused(org.post(base, multi, format="json"), 400, "invalid_seats")
    created = org.post(base, {**body, "settings": {"third_place": True}}, format="json")
    assert created.status_code == 201 and created.json()["settings"]["third_place"] is True
    tid = created.json()["id"]
    for member in members:
        assert client_for(member).post(f"/api/tournaments/{tid}/entries", {}, format="json").status_code == 201
    names = [m.username for m in members]
    refused(org.post(f"/api/tournaments/{tid}/start", {"seeding": names[:2]}, format="json"), 400, "invalid_seeding")
    refused(
        org.post(f"/api/tournaments/{tid}/start", {"seeding": [*names, "ghost"]}, format="json"), 400, "unknown_player"
    )
    refused(org.post(f"/api/tournaments/{tid}/pairings", {"round": 1, "tables": [names]}, format="json"), 400,
            "manual_pairing_not_supported")  # fmt: skip
    started = org.post(f"/api/tournaments/{tid}/start", {"seeding": names[::-1]}, format="json")
    assert started.status_code == 200
    assert [e["username"] for e in started.json()["entries"]] == names[::-1]  # numbers follow the seeding
    record = org.get(f"/api/tournaments/{tid}/rounds/1").json()
    assert record["pairing_input"]["seeds"] and [b["bracket_match"] for b in record["boards"]] == [
        "W1-2"
    ]  # seed 1 has a bye
    refused(org.get(f"/api/tournaments/{tid}/rounds/5"), 404, "not_found")


def test_check_in_drop_pairings_and_corrections_over_the_api(club_with, make_user):
    club, organiser, members = club_with(4)
    org, mem = client_for(organiser), client_for(members[0])
    outsider = client_for(make_user("outsider"))
    base = f"/api/clubs/{club.slug}/tournaments"
    tid = org.post(
        base, {"name": "S", "engine": "nine-card", "format": "swiss", "settings": {"check_in": True}}, format="json"
    ).json()["id"]
    for member in members:
        assert client_for(member).post(f"/api/tournaments/{tid}/entries", {}, format="json").status_code == 201
    refused(APIClient().post(f"/api/tournaments/{tid}/check-in", {}, format="json"), 401, "not_authenticated")
    refused(outsider.post(f"/api/tournaments/{tid}/check-in", {}, format="json"), 404, "not_entered")
    refused(mem.post(f"/api/tournaments/{tid}/check-in", {"username": members[1].username}, format="json"), 403,
            "not_organiser")  # fmt: skip
    assert mem.post(f"/api/tournaments/{tid}/check-in", {}, format="json").status_code == 200
    for member in members[1:]:
        checked = org.post(f"/api/tournaments/{tid}/check-in", {"username": member.username}, format="json")
        assert checked.status_code == 200
    assert all(e["checked_in"] for e in checked.json()["entries"])
    assert org.post(f"/api/tournaments/{tid}/start", {}, format="json").status_code == 200
    refused(mem.post(f"/api/tournaments/{tid}/check-in", {}, format="json"), 409, "tournament_started")

    a, b, c, d = (m.username for m in members)
    pairings = f"/api/tournaments/{tid}/pairings"
    refused(mem.post(pairings, {"round": 2, "tables": [[a, b], [c, d]]}, format="json"), 403, "not_organiser")
    refused(org.post(pairings, {"round": 2, "tables": [[a, b], [c, "ghost"]]}, format="json"), 400, "unknown_player")
    refused(org.post(pairings, {"round": 2, "tables": [[a, b], [c, c]]}, format="json"), 400, "invalid_pairing")
    refused(org.post(pairings, {"round": 2, "tables": "ab"}, format="json"), 400, "invalid")
    refused(org.post(pairings, {"round": 7, "tables": [[a, b], [c, d]]}, format="json"), 409, "round_not_pairable")
    planned = org.post(pairings, {"round": 2, "tables": [[a, b], [c, d]]}, format="json")
    assert planned.status_code == 200 and planned.json() == {"round": 2, "planned": True}

    results = f"/api/tournaments/{tid}/results"
    refused(mem.post(results, {"round": 1, "board": 1, "ranking": [[a], [b]]}, format="json"), 403, "not_organiser")
    refused(org.post(results, {"round": 1, "board": 9, "ranking": [[a], [b]]}, format="json"), 404, "board_not_found")
    board = org.get(f"/api/tournaments/{tid}/rounds", {"round": 1}).json()[0]
    refused(org.post(results, {"round": 1, "board": 1, "ranking": [[board["first"]]]}, format="json"), 400,
            "invalid_ranking")  # fmt: skip
    corrected = org.post(
        results, {"round": 1, "board": 1, "ranking": [[board["second"]], [board["first"]]]}, format="json"
    )
    assert corrected.status_code == 200
    assert corrected.json()["result"] == "0-1" and corrected.json()["decided_by"] == "correction"
    assert corrected.json()["points"] == {board["second"]: 1.0, board["first"]: 0.0}

    refused(mem.post(f"/api/tournaments/{tid}/drop", {"username": b}, format="json"), 403, "not_organiser")
    dropped = mem.post(f"/api/tournaments/{tid}/drop", {}, format="json")
    assert dropped.status_code == 200
    assert {e["username"]: e["status"] for e in dropped.json()["entries"]}[a] == "dropped"
    refused(mem.post(f"/api/tournaments/{tid}/drop", {}, format="json"), 409, "already_dropped")
    standings = org.get(f"/api/tournaments/{tid}/standings").json()["standings"]
    assert {row["username"]: row["status"] for row in standings}[a] == "dropped"


def test_the_schema_lists_the_new_routes(client):
    schema = client.get("/api/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    for path in ("pairings", "results", "drop", "check-in", "rounds/{number}"):
        assert f"/api/tournaments/{{id}}/{path}" in schema["paths"], path
