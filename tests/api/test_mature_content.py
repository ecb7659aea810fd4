"""Mature games: standing consent, per-game acceptance, and invisibility to everyone else."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from games.engines import REGISTRY
from games.engines.nine_card import NineCard

pytestmark = pytest.mark.django_db


class MatureNineCard(NineCard):
    """A stand-in mature engine, so these tests do not depend on any one storytelling game."""

    slug = "test-mature"
    mature = True


@pytest.fixture(autouse=True)
def mature_engine(monkeypatch):
    monkeypatch.setitem(REGISTRY, MatureNineCard.slug, MatureNineCard())


def account(name: str, *, consent: bool = False) -> APIClient:
    client = APIClient()
    token = client.post("/api/accounts", {"username": name, "password": "a-long-pass-1"}, format="json").json()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token['token']}")
    if consent:
        assert client.post("/api/me/mature-consent", {"adult": True, "consent": True}, format="json").status_code == 200
    return client


def test_consent_needs_both_statements():
    client = account("aki")
    half = client.post("/api/me/mature-consent", {"adult": True, "consent": False}, format="json")
    assert (half.status_code, half.json()["code"]) == (400, "consent_incomplete")
    missing = client.post("/api/me/mature-consent", {"adult": True}, format="json")
    assert missing.status_code == 400 and missing.json()["code"] == "invalid"
    assert APIClient().post("/api/me/mature-consent", {"adult": True, "consent": True}).status_code == 401


def test_players_without_consent_cannot_be_seated():
    aki, _ben = account("aki", consent=True), account("ben")
    refused = aki.post("/api/games", {"engine": "test-mature", "seats": ["aki", "ben"]}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "mature_consent_required"
    assert "ben" in refused.json()["message"]
    open_game = aki.post("/api/games", {"engine": "test-mature", "seats": ["aki", None]}, format="json").json()
    join = account("chie").post(f"/api/games/{open_game['id']}/join", {}, format="json")
    assert join.status_code == 404  # chie cannot even see the game


def test_a_seat_given_by_someone_else_waits_for_acceptance():
    aki, ben = account("aki", consent=True), account("ben", consent=True)
    game = aki.post("/api/games", {"engine": "test-mature", "seats": ["aki", "ben"]}, format="json").json()
    assert game["status"] == "open" and [s["accepted"] for s in game["seats"]] == [True, False]
    started = ben.post(f"/api/games/{game['id']}/accept", format="json")
    assert started.status_code == 200 and started.json()["status"] == "running"
    again = ben.post(f"/api/games/{game['id']}/accept", format="json")
    assert (again.status_code, again.json()["code"]) == (409, "game_not_open")


def test_mature_games_are_invisible_without_consent():
    aki, ben = account("aki", consent=True), account("ben", consent=True)
    game = aki.post("/api/games", {"engine": "test-mature", "seats": ["aki", "ben"]}, format="json").json()
    ben.post(f"/api/games/{game['id']}/accept", format="json")
    normal = aki.post("/api/games", {"engine": "nine-card", "seats": ["aki", "ben"]}, format="json").json()
    for viewer in (APIClient(), account("chie")):
        listed = [g["id"] for g in viewer.get("/api/games").json()["results"]]
        assert normal["id"] in listed and game["id"] not in listed
        for path in ("", "/state", "/events", "/legal-moves", "/record", "/verification"):
            assert viewer.get(f"/api/games/{game['id']}{path}").status_code == 404, path
    assert game["id"] in [g["id"] for g in aki.get("/api/games").json()["results"]]
    assert aki.get(f"/api/games/{game['id']}/state").status_code == 200
    # Withdrawing consent hides it again, even from a seated player.
    assert aki.delete("/api/me/mature-consent").status_code == 204
    assert aki.get(f"/api/games/{game['id']}/state").status_code == 404
