"""The REST API in-process on PostgreSQL: accounts, engines, games, moves and every error shape."""

from __future__ import annotations

import os
import uuid

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from kifu.celery import app as celery_app

pytestmark = pytest.mark.django_db


@pytest.fixture
def submit(django_capture_on_commit_callbacks):
    """POST a move and run what its commit queues in-process (eager Celery, as embedded mode does).

    Inside a test transaction commit callbacks only run when the capture block ends, so the verdict
    is read afterwards; the real-stack tests exercise ``?wait=`` itself.
    """

    def post(client, game_id, move, key):
        celery_app.conf.task_always_eager = True
        try:
            with django_capture_on_commit_callbacks(execute=True):
                response = client.post(
                    f"/api/games/{game_id}/moves", {"move": move, "idempotency_key": key}, format="json"
                )
        finally:
            celery_app.conf.task_always_eager = False
        assert response.status_code == 202, response.json()
        return client.get(response.json()["url"]).json()

    return post


def account(name: str) -> APIClient:
    client = APIClient()
    response = client.post("/api/accounts", {"username": name, "password": "a-long-pass-1"}, format="json")
    assert response.status_code == 201, response.json()
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    return client


@pytest.fixture
def oya():
    return account("oya")


@pytest.fixture
def ko():
    return account("ko")


@pytest.fixture
def game(oya, ko):
    response = oya.post("/api/games", {"engine": "nine-card", "seats": ["oya", "ko"]}, format="json")
    assert response.status_code == 201, response.json()
    accepted = ko.post(f"/api/games/{response.json()['id']}/accept", format="json")  # ko's seat was an invitation
    assert accepted.status_code == 200, accepted.json()
    return accepted.json()


def test_an_account_made_twice_at_once_is_one_account_and_one_400(monkeypatch):
    """Two requests for one new name both pass the name check; the second to store it hits the unique
    index - and answers as the check would have, not 500 (found under load by bin/multihost)."""
    from api import serializers as api_serializers

    client, body = APIClient(), {"username": "aki", "password": "a-long-pass-1"}
    assert client.post("/api/accounts", body, format="json").status_code == 201
    monkeypatch.setattr(api_serializers.AccountCreateSerializer, "validate_username", lambda self, value: value)
    raced = client.post("/api/accounts", body, format="json")
    assert raced.status_code == 400, raced.content
    assert raced.json()["code"] == "invalid" and raced.json()["fields"]["username"] == ["that username is taken"]
    assert get_user_model().objects.filter(username="aki").count() == 1


def test_accounts_and_tokens():
    client = APIClient()
    assert (
        client.post("/api/accounts", {"username": "aki", "password": "a-long-pass-1"}, format="json").status_code == 201
    )
    taken = client.post("/api/accounts", {"username": "AKI", "password": "a-long-pass-1"}, format="json")
    assert taken.status_code == 400 and taken.json()["fields"]["username"] == ["that username is taken"]
    weak = client.post("/api/accounts", {"username": "bob", "password": "short"}, format="json")
    assert weak.status_code == 400 and weak.json()["code"] == "invalid" and "password" in weak.json()["fields"]
    token = client.post("/api/token", {"username": "aki", "password": "a-long-pass-1"}, format="json")
    assert token.status_code == 200 and len(token.json()["token"]) == 40
    wrong = client.post("/api/token", {"username": "aki", "password": "nope"}, format="json")
    assert (wrong.status_code, wrong.json()["code"]) == (401, "bad_credentials")


def test_engines_are_listed_with_their_flags():
    engines = APIClient().get("/api/engines").json()
    nine = next(e for e in engines if e["slug"] == "nine-card")
    assert (nine["min_players"], nine["max_players"], nine["mature"]) == (2, 2, False)
    assert {f["name"] for f in nine["flags"]} >= {"horizontal_ps", "suits", "commit_seconds"}
    missing = APIClient().get("/api/engines/chess")
    assert (missing.status_code, missing.json()["code"]) == (400, "unknown_game")


@pytest.mark.parametrize(
    "body, code",
    [
        ({"engine": "chess", "seats": ["oya", "ko"]}, "unknown_game"),
        ({"engine": "nine-card", "seats": ["oya"]}, "bad_seat_count"),
        ({"engine": "nine-card", "seats": ["oya", "ko"], "config": {"turbo": True}}, "unknown_config_flag"),
        ({"engine": "nine-card", "seats": ["oya", "ko"], "config": {"horizontal_ps": "yes"}}, "invalid_config"),
        ({"engine": "nine-card", "seats": ["oya", "ghost"]}, "invalid"),
        ({"engine": "nine-card", "seats": ["oya", "oya"]}, "duplicate_player"),
        ({"engine": "nine-card"}, "invalid"),
    ],
)
def test_bad_game_creation_is_a_400_with_a_code(oya, ko, body, code):
    response = oya.post("/api/games", body, format="json")
    assert response.status_code == 400 and response.json()["code"] == code, response.json()
    assert response.json()["message"]


def test_anonymous_visitors_can_read_but_not_write(game):
    visitor = APIClient()
    assert visitor.get(f"/api/games/{game['id']}").status_code == 200
    state = visitor.get(f"/api/games/{game['id']}/state").json()
    assert state["seat"] is None and state["legal_moves"] == []
    assert all(p["hand"] is None for p in state["view"]["players"])
    refused = visitor.post(f"/api/games/{game['id']}/moves", {"move": {"type": "resign"}}, format="json")
    assert (refused.status_code, refused.json()["code"]) == (401, "not_authenticated")


def test_join_errors(oya, ko):
    open_game = oya.post("/api/games", {"engine": "nine-card", "seats": ["oya", None]}, format="json").json()
    assert open_game["status"] == "open"
    again = oya.post(f"/api/games/{open_game['id']}/join", {}, format="json")
    assert (again.status_code, again.json()["code"]) == (409, "already_seated")
    assert ko.post(f"/api/games/{open_game['id']}/join", {}, format="json").json()["status"] == "running"
    third = account("third").post(f"/api/games/{open_game['id']}/join", {}, format="json")
    assert (third.status_code, third.json()["code"]) == (409, "game_not_open")


def test_moves_get_verdicts(submit, game, oya, ko):
    card = oya.get(f"/api/games/{game['id']}/legal-moves").json()["moves"][0]
    accepted = submit(oya, game["id"], card, "1")
    assert accepted["status"] == "accepted" and accepted["event_seq"] == 2
    rejected = submit(oya, game["id"], card, "2")
    assert (rejected["status"], rejected["code"]) == ("rejected", "already_committed")
    assert "already committed" in rejected["message"]
    assert ko.get(rejected["url"]).status_code == 404  # not yours
    resigned = submit(ko, game["id"], {"type": "resign"}, "3")
    assert resigned["status"] == "accepted"
    assert oya.get(f"/api/games/{game['id']}").json()["outcome"]["ranking"] == [[0], [1]]


@pytest.mark.parametrize(
    "body, params, code",
    [
        ({"move": "commit"}, "", "invalid"),
        ({"move": {"card": "AS"}}, "", "invalid"),
        ({}, "", "invalid"),
        ({"move": {"type": "resign"}}, "?wait=abc", "bad_parameter"),
        ({"move": {"type": "resign"}}, "?wait=99", "bad_parameter"),
        ({"move": {"type": "resign"}, "idempotency_key": "k" * 101}, "", "invalid"),
    ],
)
def test_bad_move_requests(game, oya, body, params, code):
    response = oya.post(f"/api/games/{game['id']}/moves{params}", body, format="json")
    assert response.status_code == 400 and response.json()["code"] == code, response.json()


def test_malformed_json_body(game, oya):
    response = oya.post(f"/api/games/{game['id']}/moves", "{not json", content_type="application/json")
    assert (response.status_code, response.json()["code"]) == (400, "bad_json")


def test_bad_query_parameters_and_unknown_games(game, oya):
    assert oya.get(f"/api/games/{game['id']}/events?after=-1").json()["code"] == "bad_parameter"
    assert oya.get(f"/api/games/{game['id']}/events?limit=x").status_code == 400
    missing = oya.get(f"/api/games/{uuid.uuid4()}/state")
    assert (missing.status_code, missing.json()["code"]) == (404, "not_found")
    running = oya.get(f"/api/games/{game['id']}/record")
    assert (running.status_code, running.json()["code"]) == (409, "game_running")


def test_game_list_filters(game, oya):
    assert oya.get("/api/games?engine=nine-card&player=oya").json()["count"] == 1
    assert oya.get("/api/games?player=nobody").json()["count"] == 0
    bad = oya.get("/api/games?status=sleeping")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid"


def test_record_import_over_the_api(oya):
    header = '{"kifu":1,"game":"nine-card","rules_version":"1","config":{},"seats":["a","b"]}'
    bad = oya.post("/api/records", {"record": header + "\n{oops\n"}, format="json")
    assert bad.status_code == 400 and bad.json()["code"] == "bad_json" and bad.json()["line"] == 2
    good = oya.post("/api/records", {"record": header + "\n"}, format="json")
    assert good.status_code == 201 and good.json()["source"] == "imported"


def test_openapi_schema_and_docs():
    client = APIClient()
    schema = client.get("/api/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    assert "/api/games/{id}/moves" in schema["paths"] or "/api/games/{pk}/moves" in schema["paths"]
    assert client.get("/api/docs").status_code == 200


def test_openapi_schema_generates_without_warnings_or_errors():
    """drf-spectacular's own check (as `manage.py spectacular --validate --fail-on-warn`): a warning
    means a view whose schema it had to guess, so clients generated from the schema would be wrong."""
    from django.core.management import call_command

    call_command("spectacular", "--validate", "--fail-on-warn", "--file", os.devnull)
