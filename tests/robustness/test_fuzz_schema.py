"""A bounded schemathesis run in-process: no operation of the OpenAPI schema answers a 5xx.

A few generated requests per operation (schema-valid and schema-violating bodies, query strings
and path parameters) through the WSGI app on the test database; the long run against a live
server is in the README ("Bad input"). Skipped where schemathesis is not installed.
"""

from __future__ import annotations

import pytest

schemathesis = pytest.importorskip("schemathesis")
from django.core.wsgi import get_wsgi_application  # noqa: E402
from hypothesis import HealthCheck, Phase, settings  # noqa: E402

# Django's own WSGI handler, not kifu.wsgi (which would start the embedded timer thread here).
schema = schemathesis.openapi.from_wsgi("/api/schema?format=json", get_wsgi_application())
schema = schema.exclude(path_regex="stream")  # streams hold the request open by design


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


@pytest.mark.django_db
@schema.parametrize()
@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck), phases=[Phase.generate])
def test_no_operation_answers_a_server_error(case, token):
    response = case.call(headers={"Authorization": f"Token {token}"})
    assert response.status_code < 500, (case.method, case.formatted_path, response.status_code, response.text[:300])
