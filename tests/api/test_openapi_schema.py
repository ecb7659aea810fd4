"""The rules that keep the OpenAPI schema usable by client generators (issue 24), for every view,
including ones added later: the schema file is the one ``manage.py spectacular`` writes.

- A request body is JSON only: one body schema per operation (the parser default in settings).
- Every value the schema describes has a type: no property, array item or map value is ``{}``
  (a generator makes that ``Any``). A free-form object is still an object.
- Every answer with a body says what the body is.
- An operation anyone may call (``AllowAny``) asks for no credentials; one that reads with or
  without them (``IsAuthenticatedOrReadOnly`` reads) lists ``{}`` beside the token, so a generator
  that attaches credentials per operation still sends them there.

And the check every stack-test answer goes through (``tests/openapi_check.py``) passes what the
schema says and fails what it does not.
"""

from __future__ import annotations

import json

import pytest

COMPOSED = ("$ref", "type", "enum", "oneOf", "anyOf", "allOf")


@pytest.fixture(scope="module")
def schema(api_schema_file) -> dict:
    return json.loads(api_schema_file.read_text())


def operations(schema: dict):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if isinstance(operation, dict) and "responses" in operation:
                yield method.upper(), path, operation


def untyped(schema: dict, where: str):
    """Where ``schema`` describes a value without saying what it is."""
    if not any(key in schema for key in COMPOSED):
        yield where
        return
    for name, value in (schema.get("properties") or {}).items():
        yield from untyped(value, f"{where}.{name}")
    if isinstance(schema.get("items"), dict):
        yield from untyped(schema["items"], f"{where}[]")
    if isinstance(schema.get("additionalProperties"), dict):
        yield from untyped(schema["additionalProperties"], f"{where}{{}}")
    for key in ("oneOf", "anyOf", "allOf"):
        for number, member in enumerate(schema.get(key, [])):
            yield from untyped(member, f"{where}/{key}[{number}]")


def test_request_bodies_are_json_only(schema):
    kinds = {
        (method, path): sorted(operation["requestBody"]["content"])
        for method, path, operation in operations(schema)
        if "requestBody" in operation
    }
    assert kinds, "no operation takes a body?"
    assert {where: media for where, media in kinds.items() if media != ["application/json"]} == {}


def test_every_value_has_a_type(schema):
    places = [
        place for name, component in schema["components"]["schemas"].items() for place in untyped(component, name)
    ]
    for method, path, operation in operations(schema):
        bodies = {"request": operation.get("requestBody", {"content": {}})}
        bodies.update(operation["responses"])
        for status, body in bodies.items():
            for media, content in body.get("content", {}).items():
                places.extend(untyped(content.get("schema", {}), f"{method} {path} {status} {media}"))
    assert places == []


def test_every_answer_with_a_body_says_what_it_is(schema):
    bare = [
        (method, path, status)
        for method, path, operation in operations(schema)
        for status, answer in operation["responses"].items()
        if status.startswith("2") and status != "204" and not answer.get("content")
    ]
    assert bare == []


def test_security_says_who_may_call(schema):
    security = {operation["operationId"]: operation.get("security") for _, _, operation in operations(schema)}
    # Anyone, and the credentials change nothing: no security requirement (a plain client).
    for anonymous in ("accounts_create", "token_create", "engines_list", "players_retrieve", "checkpoints_list"):
        assert security[anonymous] is None, anonymous
    # Anyone, and the credentials change the answer (your seat's view): optional, token first.
    for optional in ("games_state_retrieve", "games_legal_moves_retrieve", "games_events_retrieve", "games_list"):
        assert security[optional][-1] == {} and {"tokenAuth": []} in security[optional], optional
    # Members only.
    for member in ("games_create", "games_moves_create", "me_retrieve"):
        assert security[member] and {} not in security[member], member


def test_the_record_is_a_download(schema):
    answer = schema["paths"]["/api/games/{id}/record"]["get"]["responses"]["200"]["content"]
    assert list(answer) == ["application/x-ndjson", "application/octet-stream"]
    assert all(body["schema"]["format"] == "binary" for body in answer.values())  # generators keep a file


# ---- the check every stack-test answer goes through (tests/openapi_check.py) ----------------------
def answer(method: str, path: str, status: int, body, content_type: str = "application/json"):
    import requests
    import schemathesis

    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return schemathesis.Response(
        status_code=status,
        headers={"content-type": [content_type]},
        content=content,
        request=requests.Request(method, f"http://127.0.0.1:8000{path}").prepare(),
        elapsed=0.0,
        verify=True,
    )


@pytest.fixture(scope="module")
def check(schema):
    from ..openapi_check import SchemaCheck

    return SchemaCheck(schema)


def test_the_answer_check_passes_what_the_schema_says(client, check):
    for path in ("/api/engines/nine-card", "/api/engines/nowhere"):
        response = client.get(path)
        check(answer("GET", path, response.status_code, response.json()))
    check(answer("GET", "/api/nothing-here", 404, {"code": "not_found", "message": "no such page"}))
    check(answer("GET", "/api/schema", 200, b"openapi: 3.0.3", "application/vnd.oai.openapi"))  # not described
    assert check.checked == 2


def test_the_answer_check_fails_what_the_schema_does_not_say(client, check):
    from schemathesis.openapi.checks import JsonSchemaError

    engine = client.get("/api/engines/nine-card").json()
    with pytest.raises(JsonSchemaError):
        check(answer("GET", "/api/engines/nine-card", 200, {**engine, "min_players": "two"}))
    with pytest.raises(AssertionError, match="does not document"):
        check(answer("GET", "/api/engines/nine-card", 418, {"code": "teapot", "message": "no"}))
    with pytest.raises(AssertionError, match="not in the schema"):
        check(answer("GET", "/api/nothing-here", 200, {}))
