"""Regression tests for what the fuzz runs found (issue 15, "Bad input": tests/robustness/
test_fuzz_schema.py, test_fuzz_streams.py and bin/fuzz): each one failed on the code before its fix.

(The account stream resumed past the year 9999 is in test_fuzz_streams.py.)
"""

from __future__ import annotations

import json
import re

import pytest
from django.core.management import call_command

from kifu.http.openapi import NOT_PYTHON_SPACE

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def schema(tmp_path_factory, django_db_blocker):
    path = tmp_path_factory.mktemp("schema") / "schema.json"
    with django_db_blocker.unblock():
        call_command("spectacular", "--format", "openapi-json", "--file", str(path))
    return json.loads(path.read_text())


def body_schema(schema: dict, method: str, path: str) -> dict:
    ref = schema["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    return schema["components"]["schemas"][ref.rsplit("/", 1)[1]]


@pytest.mark.parametrize(("method", "path"), [("post", "/api/clubs/{slug}/leagues"), ("patch", "/api/leagues/{id}")])
def test_a_leagues_points_are_declared_as_the_service_takes_them(schema, method, path):
    """Found: ``{"points": {"win": 101, "draw": 0, "loss": 0}}`` (or a fourth key) was valid for
    the schema and refused ``400 invalid_points``: the range and the keys are now declared."""
    points = body_schema(schema, method, path)["properties"]["points"]
    assert points.get("additionalProperties") is False
    for name in ("win", "draw", "loss"):
        assert (points["properties"][name]["minimum"], points["properties"][name]["maximum"]) == (-100, 100)


def test_a_pairing_reports_ranking_names_are_declared_more_than_white_space(schema):
    """Found: ``{"ranking": [[" "]]}`` was valid for the schema and refused as blank."""
    ranking = body_schema(schema, "post", "/api/pairings/{kind}/{id}/report")["properties"]["ranking"]
    assert ranking["items"]["items"]["pattern"] == NOT_PYTHON_SPACE


@pytest.fixture
def organiser():
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    user = get_user_model().objects.create_user("oya")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


@pytest.fixture
def ladder(organiser):
    assert organiser.post("/api/clubs", {"name": "Club", "slug": "club"}, format="json").status_code == 201
    response = organiser.post("/api/clubs/club/ladders", {"engine": "nine-card", "name": "L"}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def refused(response, code: str = "bad_parameter") -> dict:
    assert response.status_code == 400, (response.status_code, response.content[:300])
    assert response.json()["code"] == code, response.json()
    return response.json()


@pytest.mark.parametrize(
    "body",
    [{"name": 3.036316533918263e16}, {"name": "Club", "slug": 12}, {"name": "Club", "description": -1e-271}],
    ids=["name", "slug", "description"],
)
def test_a_number_is_no_text(organiser, body):
    """Found: ``POST /api/clubs {"name": 3.036316533918263e16}`` made a club named
    ``"3.036316533918263e+16"``: a JSON number for a string field is refused, and nothing stored."""
    from league.models import Club

    (field,) = set(body) - {"name"} or {"name"}
    assert refused(organiser.post("/api/clubs", body, format="json"), "invalid")["fields"][field]
    assert not Club.objects.exists()


def test_an_empty_limit_is_no_number(organiser):
    """Found: ``GET /api/me/invitations?limit=`` answered the default page; the schema says integer."""
    assert "limit" in refused(organiser.get("/api/me/invitations?limit="))["message"]
    assert organiser.get("/api/me/invitations?limit=5").status_code == 200


def test_a_standings_all_is_true_or_false(organiser, ladder):
    """Found: ``?all=0.5494677770027208`` read as false; it is true or false."""
    assert "all" in refused(organiser.get(f"/api/ladders/{ladder}/standings?all=0.5"))["message"]
    for value in ("true", "false"):
        assert organiser.get(f"/api/ladders/{ladder}/standings?all={value}").status_code == 200


def test_a_challenge_status_is_one_of_the_statuses(organiser, ladder):
    """Found: an unknown ``?status=`` filtered everything out and answered ``[]``."""
    from league.models import Challenge

    assert "status" in refused(organiser.get(f"/api/ladders/{ladder}/challenges?status=nope"))["message"]
    for value in Challenge.Status.values:
        assert organiser.get(f"/api/ladders/{ladder}/challenges?status={value}").status_code == 200


def test_a_tournaments_settings_are_declared_as_the_service_takes_them(schema):
    """Found: ``{"settings": {"<any name>": 1653}}`` was valid for the schema (a free object) and
    refused ``400 invalid_settings``: the settings, their types and ranges are now declared."""
    from league.tournaments.settings import SETTINGS

    settings = body_schema(schema, "post", "/api/clubs/{slug}/tournaments")["properties"]["settings"]
    assert settings["additionalProperties"] is False and set(settings["properties"]) == set(SETTINGS)
    assert settings["properties"]["round_deadline_seconds"]["minimum"] == 10


def test_a_clubs_name_is_declared_more_than_white_space(schema):
    """Found (bin/fuzz, seed 20): ``POST /api/clubs {"name": "\\t"}`` was valid for the schema and
    refused as blank."""
    for method, path in (("post", "/api/clubs"), ("patch", "/api/clubs/{slug}")):
        assert body_schema(schema, method, path)["properties"]["name"]["pattern"] == NOT_PYTHON_SPACE


def test_reminder_preferences_declare_that_other_keys_are_refused(schema):
    """Found (bin/fuzz, seed 20): ``PATCH /api/me/reminders`` with another key was valid for the
    schema and refused ``400 bad_reminder_preferences``: the body is declared closed."""
    assert body_schema(schema, "patch", "/api/me/reminders")["additionalProperties"] is False


def test_a_webhooks_events_are_declared_at_least_one(schema, organiser):
    """Found (bin/fuzz, seed 20): ``{"events": []}`` was valid for the schema and refused
    ``400 bad_webhook_events``, which stays its refusal."""
    assert body_schema(schema, "post", "/api/webhooks")["properties"]["events"]["minItems"] == 1
    response = organiser.post("/api/webhooks", {"url": "https://example.org/k", "events": []}, format="json")
    assert refused(response, "bad_webhook_events")


def test_more_than_white_space_means_what_a_charfield_keeps():
    """Found (bin/fuzz, seed 21): the pattern was ``\\S``, but a CharField trims with Python's
    ``str.strip``, which also takes U+001C-U+001F and U+0085 (and keeps U+FEFF, which ``\\s`` calls
    space): a name of "\\x1f" was valid for the schema and refused as blank. Every code point agrees now."""
    pattern = re.compile(NOT_PYTHON_SPACE)
    disagree = [hex(c) for c in range(0x110000) if (chr(c).strip() == "") != (pattern.search(chr(c)) is None)]
    assert disagree == []


def test_seats_and_division_names_are_declared_more_than_white_space(schema):
    """Found (bin/fuzz, seed 21): ``POST /api/games`` with a seat of " " and ``POST
    /api/leagues/{id}/seasons`` with a division name of " " were valid for the schema (minLength 1)
    and refused as blank."""
    seats = body_schema(schema, "post", "/api/games")["properties"]["seats"]["items"]
    assert seats["pattern"] == NOT_PYTHON_SPACE and seats["nullable"] is True
    divisions = body_schema(schema, "post", "/api/leagues/{id}/seasons")["properties"]["divisions"]
    assert divisions["items"]["items"]["pattern"] == NOT_PYTHON_SPACE


def test_an_empty_record_format_is_refused(organiser):
    """Found (bin/fuzz, seed 21): ``GET /api/games/{id}/record?format=`` (not one of bin, json,
    jsonl) was read as absent and answered 200."""
    response = organiser.get("/api/games/00000000-0000-0000-0000-000000000000/record?format=")
    assert refused(response, "bad_parameter") and "format" in response.json()["message"]
    assert organiser.get("/api/games/00000000-0000-0000-0000-000000000000/record?format=json").status_code == 404


@pytest.mark.parametrize("url", ["http://example.org*/hook", "http://exa_mple.org/", "http://[::1]:8080/hook"])
def test_a_webhook_host_is_a_host_name(organiser, url):
    """Found (bin/fuzz, seed 21): ``http://example.org*`` was stored with ``*`` in its host name."""
    assert refused(organiser.post("/api/webhooks", {"url": url}, format="json"), "bad_webhook_url")


@pytest.mark.parametrize(
    ("url", "stored"),
    [
        ("http://Example.org:65535/k", "http://example.org:65535/k"),
        ("http://例え.jp/😀#x", "http://xn--r8jz45g.jp/%F0%9F%98%80"),
    ],
)
def test_a_webhook_url_taken_in_another_shape_is_stored_in_the_declared_one(organiser, url, stored):
    """What the service normalises (a port above 9999, an internationalised host, a character to encode, a
    fragment) is stored in the shape the schema declares, which the fuzz suite relies on."""
    from hooks.api import WEBHOOK_URL

    response = organiser.post("/api/webhooks", {"url": url}, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["url"] == stored and re.fullmatch(WEBHOOK_URL["pattern"], stored)


def test_a_regex_field_keeps_its_own_pattern(schema):
    """Found in CI: the kit's "more than white space" pattern replaced the username's own, so the
    fuzz suite sent usernames the RegexField refuses as valid ones."""
    username = body_schema(schema, "post", "/api/accounts")["properties"]["username"]
    assert username["pattern"] == r"^[A-Za-z0-9_.-]{2,40}$"
