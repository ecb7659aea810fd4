"""Bad input anywhere in the API is a 4xx with the error shape - never a 500, and nothing half-stored.

Each case here was a 500 on PostgreSQL (found by hand-probing a live server; see the README's
"Bad input" section): deep JSON nesting, NUL and lone surrogates in JSON or URLs, infinities from
``1e999``, a 20-digit ``?limit=``, webhook URLs that are not ASCII or have a bad port.
"""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from games.models import Game, Submission
from hooks.models import Webhook

pytestmark = pytest.mark.django_db

DEEP = "[" * 50_000 + "]" * 50_000


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
def game(oya):
    ko = account("ko")
    response = oya.post("/api/games", {"engine": "nine-card", "seats": ["oya", "ko"]}, format="json")
    assert response.status_code == 201, response.json()
    assert ko.post(f"/api/games/{response.json()['id']}/accept", format="json").status_code == 200
    return response.json()["id"]


def refused(response, status: int, code: str) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:300])
    body = response.json()
    assert body["code"] == code and body["message"], body
    return body


def post_raw(client, path: str, body: str):
    return client.generic("POST", path, body.encode("utf-8", "surrogatepass"), content_type="application/json")


@pytest.mark.parametrize(
    "path",
    ["/api/games", "/api/records", "/api/clubs", "/api/webhooks", "/api/accounts", "/api/token", "/api/matches"]
    + ["{game}/moves", "{game}/join", "/api/me/mature-consent"],
)
def test_a_deeply_nested_body_is_too_deep_not_a_recursion_error(oya, game, path):
    refused(post_raw(oya, path.format(game=f"/api/games/{game}"), DEEP), 400, "too_deep")


def test_nul_in_a_move_is_refused_and_nothing_is_stored(oya, game):
    before = Submission.objects.count()
    body = {"move": {"type": "commit_card", "card": "7S", "note": "a\u0000b"}, "idempotency_key": "nul"}
    error = refused(oya.post(f"/api/games/{game}/moves", body, format="json"), 400, "bad_text")
    assert "$.move.note" in error["message"] and "NUL" in error["message"]
    assert Submission.objects.count() == before


@pytest.mark.parametrize(
    "body, code",
    [
        ('{"engine": "nine-card", "seats": ["oya", null], "meta": {"x": "\\u0000"}}', "bad_text"),
        ('{"engine": "nine-card", "seats": ["oya", null], "config": {"\\u0000": 1}}', "bad_text"),
        ('{"engine": "nine-card", "seats": ["oya", null], "meta": {"x": "\\ud800"}}', "bad_text"),
        ('{"engine": "nine-card", "seats": ["oya", null], "meta": {"x": 1e999}}', "bad_number"),
        ('{"engine": "nine-card", "seats": ["oya", null], "meta": ' + "[" * 70 + "]" * 70 + "}", "too_deep"),
    ],
)
def test_text_and_numbers_postgres_cannot_store_are_a_400(oya, body, code):
    refused(post_raw(oya, "/api/games", body), 400, code)
    assert not Game.objects.exists()


def test_nul_escapes_inside_an_imported_record_are_refused_at_their_line(oya):
    header = '{"kifu": 1, "game": "nine-card", "seats": ["a\\u0000b", "ko"]}'
    body = refused(oya.post("/api/records", {"record": header}, format="json"), 400, "bad_text")
    assert body["line"] == 1
    long_name = json.dumps({"kifu": 1, "game": "nine-card", "seats": ["x" * 81, "ko"]})
    refused(oya.post("/api/records", {"record": long_name}, format="json"), 400, "bad_header")
    assert not Game.objects.exists()


@pytest.mark.parametrize(
    "url",
    ["/api/players/%00", "/api/games?engine=%00", "/api/games?%00=1", "/api/clubs/x%00y", "/api/games/x/state%00"],
)
def test_a_nul_in_the_url_is_a_400_before_any_lookup(oya, url):
    refused(oya.get(url), 400, "bad_text")


def test_a_nul_in_a_page_url_is_a_plain_400(client):
    response = client.get("/players/%00/")
    assert response.status_code == 400


def test_a_huge_limit_is_capped_not_a_database_overflow(oya, game):
    response = oya.get("/api/games", {"limit": "99999999999999999999", "offset": "99999999999999999999"})
    assert response.status_code == 200, response.content[:300]
    assert response.json()["results"] == []
    assert len(oya.get("/api/games", {"limit": "99999999999999999999"}).json()["results"]) == 1


@pytest.mark.parametrize(
    "path, params",
    [
        ("{game}/events", {"after": "abc"}),
        ("{game}/events", {"after": "-1"}),
        ("{game}/events", {"after": "99999999999999999999999"}),
        ("{game}/events", {"after": "1e99"}),
        ("/api/games", {"status": "zzz"}),
        ("/api/games", {"limit": "-1", "offset": "-5"}),
        ("{game}/state", {"as": "abc"}),
    ],
)
def test_query_parameters_of_the_wrong_type_are_refused_or_ignored(oya, game, path, params):
    response = oya.get(path.format(game=f"/api/games/{game}"), params)
    assert response.status_code < 500, response.content[:300]
    if response.status_code >= 400:
        assert set(response.json()) >= {"code", "message"}


@pytest.mark.parametrize("wait", ["-1", "abc", "1e99", "nan", "inf", "99999999999999999999"])
def test_a_bad_wait_on_a_move_is_refused_or_bounded(oya, game, wait):
    body = {"move": {"type": "commit_card", "card": "7S"}, "idempotency_key": f"w{wait}"}
    response = oya.post(f"/api/games/{game}/moves?wait={wait}", body, format="json")
    assert response.status_code in (200, 202, 400, 422), response.content[:300]
    assert response.status_code == 202 or "code" in response.json()


@pytest.mark.parametrize(
    "body, content_type",
    [
        ("{not json", "application/json"),
        ("", "application/json"),
        ("\udcff\udcfe", "application/json"),
        ("<move/>", "application/xml"),
        ("[]", "application/json"),
        ('"a string"', "application/json"),
        ("null", "application/json"),
    ],
)
def test_malformed_and_mistyped_move_bodies(oya, game, body, content_type):
    data = body.encode("utf-8", "surrogateescape")
    response = oya.generic("POST", f"/api/games/{game}/moves", data, content_type=content_type)
    assert 400 <= response.status_code < 500, response.content[:300]
    assert set(response.json()) >= {"code", "message"}


def test_a_used_idempotency_key_with_another_move_is_a_conflict(oya, game):
    url = f"/api/games/{game}/moves"
    first = oya.post(url, {"move": {"type": "commit_card", "card": "7S"}, "idempotency_key": "k1"}, format="json")
    assert first.status_code == 202
    second = oya.post(url, {"move": {"type": "resign"}, "idempotency_key": "k1"}, format="json")
    refused(second, 409, "idempotency_conflict")
    assert Submission.objects.filter(idempotency_key="k1").count() == 1


@pytest.mark.parametrize(
    "url, stored",
    [
        ("http://例え.jp/😀", "http://xn--r8jz45g.jp/%F0%9F%98%80"),
        ("HTTPS://Example.org/kifu#part", "https://example.org/kifu"),
    ],
)
def test_a_webhook_url_is_stored_as_ascii(oya, url, stored):
    response = oya.post("/api/webhooks", {"url": url}, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["url"] == stored == Webhook.objects.get().url


@pytest.mark.parametrize("url", ["http://x:99999/", "http://x:abc/", "http://x/a b", "http://x:0/", "ftp://x/"])
def test_a_bad_webhook_url_is_a_400(oya, url):
    refused(oya.post("/api/webhooks", {"url": url}, format="json"), 400, "bad_webhook_url")
    assert not Webhook.objects.exists()


def test_every_operation_documents_the_error_shape():
    schema = APIClient().get("/api/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    missing = [
        (method, path, status)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        for status in ("400", "401", "403", "404", "409", "429")
        if operation["responses"].get(status, {}).get("content", {}).get("application/json", {}).get("schema")
        != {"$ref": "#/components/schemas/Error"}
    ]
    assert missing == []


def test_a_running_match_has_no_result_and_the_schema_allows_it(oya):
    """Schemathesis (response_schema_conformance): GET /api/matches/{id} answered "result": null
    while the schema said an array."""
    account("ko")
    match = {"engine": "nine-card", "players": ["oya", "ko"], "format": "best_of", "target": 3}
    response = oya.post("/api/matches", match, format="json")
    assert response.status_code == 201, response.json()
    assert oya.get(f"/api/matches/{response.json()['id']}").json()["result"] is None
    schema = APIClient().get("/api/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    assert schema["components"]["schemas"]["Match"]["properties"]["result"].get("nullable") is True


@pytest.mark.parametrize("kind", ["form", "multipart"])
def test_a_form_or_multipart_body_is_refused_and_nothing_is_stored(oya, game, kind):
    """The API reads JSON only (one body schema per operation; a form cannot carry a nested move):
    a form or multipart body is a 415 whatever it holds - here a JSON field jsonb would refuse."""
    before = Submission.objects.count()
    data = {"move": '{"type": "commit_card", "card": "7S", "x": 1e999}', "idempotency_key": f"form-{kind}"}
    if kind == "form":
        from urllib.parse import urlencode

        response = oya.generic(
            "POST", f"/api/games/{game}/moves", urlencode(data), content_type="application/x-www-form-urlencoded"
        )
    else:
        response = oya.post(f"/api/games/{game}/moves", data, format="multipart")
    refused(response, 415, "unsupported_media_type")
    assert Submission.objects.count() == before
    assert oya.get(f"/api/games/{game}").status_code == 200  # the connection is usable afterwards


def test_what_the_schema_declares_valid_is_taken(oya):
    """Found by the schemathesis run (test_fuzz_schema): requests the schema called valid were
    refused. A null time control (the schema's nullable TimeControl) is a game without a clock; a
    blank or white-space seat name is no player (no_such_player), not "may not be blank"."""
    account("ko")
    game = oya.post("/api/games", {"engine": "nine-card", "seats": ["oya", "ko"], "time_control": None}, format="json")
    assert game.status_code == 201, game.json()
    assert "time_control" not in game.json()["meta"] and game.json()["clock"] is None
    club = oya.post("/api/clubs", {"name": "Input Club", "slug": "input"}, format="json")
    assert club.status_code == 201, club.json()
    ladder = oya.post("/api/clubs/input/ladders", {"engine": "nine-card"}, format="json").json()
    answer = oya.post(f"/api/ladders/{ladder['id']}/games", {"players": ["oya", " "]}, format="json")
    refused(answer, 400, "no_such_player")
