"""A bounded schemathesis run in-process, on real objects: no operation of the OpenAPI schema
answers a 5xx, every answer matches its documented schema, and a schema-valid request is not
refused for its shape.

Every path parameter is the id or slug of something that exists (``fuzz_world.World``: a club, a
ladder and a challenge, a league and its season's fixture, a started tournament, a game in play
with a submission, a finished imported game, a match, a webhook), so the generated bodies and
query strings reach the views' own checks rather than a 404. Schema-valid (positive) and
schema-violating (negative) cases both run; the long run against a live server is in the README
("Bad input"). Skipped where schemathesis is not installed.
"""

from __future__ import annotations

import json
import os
import re

import pytest

schemathesis = pytest.importorskip("schemathesis")
from django.core.wsgi import get_wsgi_application  # noqa: E402
from hypothesis import HealthCheck, Phase, settings  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.core.parameters import ParameterLocation  # noqa: E402
from schemathesis.generation import GenerationMode  # noqa: E402
from schemathesis.specs.openapi.checks import negative_data_rejection, response_schema_conformance  # noqa: E402

from hooks.api import WEBHOOK_URL  # noqa: E402

from .fuzz_report import record_case  # noqa: E402
from .fuzz_world import World  # noqa: E402

# Django's own WSGI handler, not kifu.wsgi (which would start the embedded timer thread here).
schema = schemathesis.openapi.from_wsgi("/api/schema?format=json", get_wsgi_application())
schema = schema.exclude(path_regex="stream")  # streams hold the request open by design

# What a schema-valid request may still be refused for: what the database holds (a name that is no
# player, a game that has no such thing, a state that does not allow it), or what the guards refuse
# before any view (kifu/http/guards.py: NUL and lone surrogates, overflowing numbers), none of which
# a JSON Schema can say. Any other 400 for a schema-valid request is a declaration to fix.
STATE_CODES = {
    "no_such_player",
    "unknown_player",
    "not_a_storytelling_game",
    "check_in_off",
    "bad_json",  # a record's text is JSON Lines
    "too_many_webhooks",
    "bad_text",
    "bad_number",
    # a combination of valid values the game does not allow (OpenAPI 3.0 has no if/then): a mature
    # game on a ladder, a game for four in a two-player format, another game's config flag
    "mature_not_supported",
    "no_session_rules",  # a match played as a session, for a game without a match_games flag
    "bad_seat_count",
    "unknown_config_flag",
    "invalid_config",
}
# The same, for one operation: a tournament's cycles are 1 or 2, and 2 only for a round robin;
# its rounds are set only for a Swiss tournament; a rating ladder takes only some of the settings,
# and a challenge ladder only a two-player game.
# A club without a slug gets one from its name, which needs letters or digits then.
CROSS_FIELD_CODES = {
    # ... and a setting applies to some formats only, seats run min <= preferred <= max and placement
    # points fall and cover the largest table, late entry points need the late entry round, and
    # groups x advance send two players on at least.
    ("POST", "/api/clubs/{slug}/tournaments"): {
        "invalid_cycles",
        "invalid_rounds",
        "invalid_seats",
        "invalid_placement_points",
        "invalid_settings: .* applies to .* tournaments, not ",
        "invalid_settings: groups x advance must",
        "invalid_settings: late_entry_points needs",
    },
    ("POST", "/api/clubs"): {"bad_club_slug"},
    ("POST", "/api/clubs/{slug}/ladders"): {"invalid_ladder_settings", "not_two_player"},
    # A lobby table's clock is one of three shapes, and its rating range runs low to high.
    ("POST", "/api/lobby/seeks"): {"bad_time_control", "bad_rating_range"},
    ("POST", "/api/lobby/quick"): {"bad_time_control"},
    ("POST", "/api/table-games"): {"bad_seat"},  # the keeper's seat is one of the seats listed
    # A league's tables: seats min <= preferred <= max within the game's counts, placement points
    # for every seat and never rising; "mature" is for (and required by) a mature game. Its points
    # run win >= draw >= loss, with a win above a loss (each is declared -100 to 100).
    ("POST", "/api/clubs/{slug}/leagues"): {
        "invalid_seats",
        "invalid_placement_points",
        "invalid_settings",
        "mature_opt_in_required",
        "invalid_points: points must satisfy",
    },
    ("PATCH", "/api/leagues/{id}"): {
        "invalid_seats",
        "invalid_placement_points",
        "invalid_points: points must satisfy",
    },
    # a two-player fixture takes no ranking and no "placed"; a multiplayer one ranks its own players
    ("POST", "/api/fixtures/{id}/correction"): {"invalid_result"},
}
# What a refusal may still store, by design: a table entry refused by the rules keeps its verdict
# with its idempotency key (games/table.py), so a resend answers it again; it leaves no event.
STORED_ON_REFUSAL = {("POST", "/api/table-games/{id}/entries"): {"games_tableentry"}}
# The same for a field's own refusal (code ``invalid``): these messages are about the database too.
STATE_MESSAGES = ("no such player", "that username is taken", "This password is too common.")


@pytest.fixture
def token(db):
    """A token, and the WSGI app kept from closing the test transaction's connection after each
    request (what Django's test client does too)."""
    from django.contrib.auth import get_user_model
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections
    from rest_framework.authtoken.models import Token

    user = get_user_model().objects.create_user("fuzzer")  # no password: no hashing per test
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield Token.objects.create(user=user).key
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.fixture
def world(token):
    return World(token)


def stored_state() -> dict:
    """What the database holds, table by table: its row count and its newest row version (``xmin``:
    a row written or rewritten by a request gets a newer transaction id; a row written in a rolled
    back savepoint is not seen). Equal before and after a request: it stored nothing."""
    from django.db import connection

    tables = [table for table in connection.introspection.table_names() if not table.startswith("django_")]
    query = " UNION ALL ".join(
        f"SELECT '{table}', count(*), coalesce(max(xmin::text::bigint), 0) FROM {connection.ops.quote_name(table)}"
        for table in tables
    )
    with connection.cursor() as cursor:
        cursor.execute(query)
        return {table: (count, newest) for table, count, newest in cursor.fetchall()}


def changed(before: dict, after: dict) -> list[str]:
    return sorted(table for table in after if before.get(table) != after[table])


def still_negative(case) -> bool:
    """Whether a schema-violating case still violates the schema once the world's real ids took
    the place of its path parameters (a negated path is undone by that): its path is marked valid
    again, so schemathesis judges the rest (an unknown query parameter alone is no violation)."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_negative:
        return False
    path = meta.components.get(ParameterLocation.PATH)
    if path is not None:
        path.mode = GenerationMode.POSITIVE
    data = meta.phase.data
    if getattr(data, "mutations", None):
        data.mutations = tuple(m for m in data.mutations if m.parameter_location != ParameterLocation.PATH)
    return any(component.mode.is_negative for component in meta.components.values())


def refusal_code(response) -> str | None:
    """A 4xx answer's stable code (``{"code": "snake_case", "message": "..."}``); None if it has none."""
    try:
        body = json.loads(response.text)
    except ValueError:
        return None
    if not isinstance(body, dict) or not isinstance(body.get("message"), str) or not body["message"]:
        return None
    code = body.get("code")
    return code if isinstance(code, str) and re.fullmatch(r"[a-z][a-z0-9_]*", code) else None


def refused_for_its_shape(case, response) -> str | None:
    """The code of a 400 that refused a schema-valid request, unless the refusal is about state."""
    if case.meta is None or not case.meta.generation.mode.is_positive or response.status_code != 400:
        return None
    try:
        body = json.loads(response.text)
        code = body["code"]
    except (ValueError, KeyError, TypeError):
        return "(no code)"
    if code == "invalid":
        messages = [message for messages in body.get("fields", {}).values() for message in messages]
        return None if messages and all(message.startswith(STATE_MESSAGES) for message in messages) else code
    if code in STATE_CODES:
        return None
    # A cross-field code, alone or "code: a pattern its message starts with" when only that one is.
    for allowed in CROSS_FIELD_CODES.get((case.method, case.operation.path), set()):
        name, _, message = allowed.partition(": ")
        if code == name and re.match(message, str(body.get("message", ""))):
            return None
    return code


def normalised_into_the_schema(case, response) -> bool:
    """A webhook URL is the one value the API takes in more shapes than its schema declares, on
    purpose (hooks.services.webhook_url_normalise: an internationalised host, characters to
    percent-encode, a fragment): such a URL is accepted only if what is stored has the declared shape."""
    if (case.method, case.operation.path) != ("POST", "/api/webhooks") or response.status_code != 201:
        return False
    return re.fullmatch(WEBHOOK_URL["pattern"], response.json()["url"]) is not None


@pytest.mark.django_db
@schema.parametrize()
# The suite's run is the same every time (derandomize: examples from a fixed seed), so a red run is a
# change's doing, not the draw's. Explore more, and afresh: KIFU_FUZZ_EXAMPLES=20 KIFU_FUZZ_RANDOM=1.
@settings(
    max_examples=int(os.environ.get("KIFU_FUZZ_EXAMPLES", "3")),
    derandomize=os.environ.get("KIFU_FUZZ_RANDOM", "") != "1",
    deadline=None,
    suppress_health_check=list(HealthCheck),
    phases=[Phase.generate],
)
def test_no_operation_fails_on_real_objects(case, token, world):
    case.path_parameters = {**(case.path_parameters or {}), **world.path_parameters(case.operation.path)}
    headers = {"Authorization": f"Token {token}"}
    before = stored_state()
    response = case.call(headers=headers)
    mode = "positive" if case.meta is None or case.meta.generation.mode.is_positive else "negative"
    record_case(f"{case.method} {case.operation.path}", mode, response.status_code)
    what = (case.method, case.formatted_path, case.query, case.body, response.status_code, response.text[:300])
    # A schema-violating request is refused (a 4xx: schemathesis's negative_data_rejection), never a 5xx.
    checks = [not_a_server_error, response_schema_conformance]
    if still_negative(case) and not normalised_into_the_schema(case, response):
        checks.append(negative_data_rejection)
    case.validate_response(response, checks=checks, headers=headers)
    if 400 <= response.status_code < 500:
        assert refusal_code(response) is not None, what  # a refusal says why, with a stable code
        stored = set(changed(before, stored_state())) - STORED_ON_REFUSAL.get((case.method, case.operation.path), set())
        assert not stored, (stored, what)  # and stores nothing
    refused = refused_for_its_shape(case, response)
    assert refused is None, what


def test_every_path_parameter_gets_a_real_value(db, token):
    """The world knows every path parameter of every operation (a new route needs its object there)."""
    world = World(token)
    for operation in schema.get_all_operations():
        operation = operation.ok()
        names = {parameter.name for parameter in operation.path_parameters}
        assert set(world.path_parameters(operation.path)) >= names, operation.path
