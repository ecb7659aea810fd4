"""Regression tests for what the fuzz runs found (issue 15, "Bad input": tests/robustness/
test_fuzz_schema.py, test_fuzz_streams.py and bin/fuzz): each one failed on the code before its fix.

(The account stream resumed past the year 9999 is in test_fuzz_streams.py.)
"""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

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
