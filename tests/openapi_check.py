"""The OpenAPI schema as ``manage.py spectacular`` writes it, and a check that an answer is one it documents.

The stack tests' HTTP players (``tests/conftest.py``: ``Player``) and the generated client
(``tests/e2e/test_generated_clients.py``) pass every answer they get through ``SchemaCheck``: its
status is documented for its operation, and its body (JSON, JSON Lines, text) is what the schema
says for that status and media type - schemathesis's response checks (``validate_response``), not
a validator of our own. Event streams (``/stream``, read as they arrive) are checked by tests/live.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from urllib.parse import urlsplit

import schemathesis

# Answers not described by the schema on purpose: the schema itself and its viewers.
UNDESCRIBED = ("/api/schema", "/api/docs", "/api/redoc")


def write_schema(path: Path) -> Path:
    """``manage.py spectacular --format openapi-json --file path`` (the schema generators are given)."""
    from django.core.management import call_command

    call_command("spectacular", "--format", "openapi-json", "--file", str(path))
    return path


def schema_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


class SchemaCheck:
    """``check(response)`` for a ``requests`` or ``httpx`` response: fails (``AssertionError`` or
    schemathesis's failure) when the schema does not document it. Counts what it checked."""

    total = 0  # answers checked in this pytest process (the run's closing summary says how many)

    def __init__(self, schema: dict) -> None:
        self.schema = schemathesis.openapi.from_dict(schema)
        self.checked = 0
        # One check at a time: the path lookup compiles werkzeug routing rules with ast.parse, which
        # CPython 3.11.7 does not make safe across threads ("AST constructor recursion depth mismatch",
        # python/cpython#106905, fixed in 3.11.8), and games are played from several threads.
        self.lock = threading.Lock()

    @classmethod
    def from_file(cls, path: Path) -> SchemaCheck:
        return cls(json.loads(path.read_text()))

    def __call__(self, response) -> None:
        request = response.request
        path = urlsplit(str(request.url)).path
        if not path.startswith("/api/") or path.startswith(UNDESCRIBED) or path.endswith("/stream"):
            return
        with self.lock:
            operation = self.schema.find_operation_by_path(request.method, path)
            if operation is None and response.status_code in (404, 405):
                return  # a route that does not exist (tests/e2e/test_stack_nine_card.py asks for some)
            assert operation is not None, (
                f"{request.method} {path} answered {response.status_code} but is not in the schema"
            )
            status = response.status_code
            assert operation.responses.find_by_status_code(status) is not None, (
                f"{request.method} {path} answered {status}, which its operation does not document: "
                f"{response.content[:300]!r}"
            )
            operation.validate_response(response)
            self.checked += 1
            SchemaCheck.total += 1
