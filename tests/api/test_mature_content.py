"""Mature games: standing consent, per-game acceptance, and invisibility to everyone else."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from games.engines import REGISTRY
from games.engines.nine_card import NineCard
from games.models import Game

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


def viewers():
    """(label, API client, browser client) for an anonymous visitor, a player without consent and one with."""
    out = [("anonymous", APIClient(), Client())]
    for name, consent in (("dai", False), ("emi", True)):
        browser = Client()
        account(name, consent=consent)
        assert browser.login(username=name, password="a-long-pass-1")
        api = APIClient()
        api.force_authenticate(User.objects.get(username=name))
        out.append((name, api, browser))
    return out


def test_mature_games_are_missing_from_every_list_without_consent():
    mature = {slug for slug, engine in REGISTRY.items() if engine.mature}
    assert {"kazekami-kyoko", "test-mature"} <= mature
    aki, ben = account("aki", consent=True), account("ben", consent=True)
    game = aki.post("/api/games", {"engine": "test-mature", "seats": ["aki", "ben"]}, format="json").json()
    ben.post(f"/api/games/{game['id']}/accept", format="json")
    normal = aki.post("/api/games", {"engine": "nine-card", "seats": ["aki", "ben"]}, format="json").json()
    for label, api, browser in viewers():
        sees = label == "emi"
        engines = {engine["slug"] for engine in api.get("/api/engines").json()}
        assert "nine-card" in engines and (mature <= engines) == sees and bool(mature & engines) == sees, label
        games = [g["id"] for g in api.get("/api/games").json()["results"]]
        assert normal["id"] in games and (game["id"] in games) == sees, label
        home = browser.get("/")
        engines_on_page = {engine["slug"] for engine in home.context["engines"]}
        assert "nine-card" in engines_on_page and bool(mature & engines_on_page) == sees, label
        html = home.content.decode()
        assert ("kazekami-kyoko" in html) == sees and (f'data-game="{game["id"]}"' in html) == sees, label
        assert f'data-game="{normal["id"]}"' in html, label
        if label != "anonymous":  # the new-game form offers only the games the player may see
            choices = {slug for slug, _name in home.context["form"].fields["engine"].choices}
            assert "nine-card" in choices and bool(mature & choices) == sees, label
        player = browser.get("/players/aki/").content.decode()
        assert (f'data-game="{game["id"]}"' in player) == sees and f'data-game="{normal["id"]}"' in player, label


def test_the_new_game_form_refuses_a_mature_game_without_consent():
    account("dai")
    browser = Client()
    assert browser.login(username="dai", password="a-long-pass-1")
    refused = browser.post("/games/new", {"engine": "kazekami-kyoko", "players": 2, "opponents": ""})
    assert refused.status_code == 400 and "engine" in refused.context["form"].errors
    assert not Game.objects.filter(engine="kazekami-kyoko").exists()


def test_a_named_engine_still_describes_itself():
    """Not a list: a bot asks for one game by name to learn it is mature before it consents."""
    assert APIClient().get("/api/engines/kazekami-kyoko").json()["mature"] is True
