"""Rate limits: a throttled request answers 429 with Retry-After and the API's error body.

DRF binds ``SimpleRateThrottle.THROTTLE_RATES`` to the settings once, at import, so
override_settings alone cannot change a rate; the test patches that class attribute (and uses a
private in-memory cache, so no other test's counters interfere).
"""

from __future__ import annotations

from unittest import mock

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import override_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

pytestmark = pytest.mark.django_db

TINY = {"anon": "2/minute", "user": "3/minute"}


@pytest.fixture
def tiny_rates():
    locmem = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "throttle-test"}}
    with override_settings(CACHES=locmem), mock.patch.object(SimpleRateThrottle, "THROTTLE_RATES", TINY):
        cache.clear()
        yield
        cache.clear()


def assert_throttled(response) -> None:
    assert response.status_code == 429, response.content
    assert response["Content-Type"] == "application/json"
    retry_after = int(response["Retry-After"])
    assert 0 < retry_after <= 60
    body = response.json()
    assert body["code"] == "throttled" and "throttled" in body["message"].lower()
    assert set(body) == {"code", "message"}


def test_anonymous_requests_over_the_rate_get_429(tiny_rates):
    visitor = APIClient()
    assert [visitor.get("/api/engines").status_code for _ in range(2)] == [200, 200]
    assert_throttled(visitor.get("/api/engines"))


def test_an_account_over_its_rate_gets_429_on_every_endpoint_streams_too(tiny_rates):
    user = get_user_model().objects.create_user(username="busy")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    assert [client.get("/api/me").status_code for _ in range(3)] == [200, 200, 200]
    assert_throttled(client.get("/api/me"))
    assert_throttled(client.get("/api/me/stream", HTTP_ACCEPT="text/event-stream"))
    # Another account has its own budget.
    other = get_user_model().objects.create_user(username="calm")
    fresh = APIClient()
    fresh.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=other).key}")
    assert fresh.get("/api/me").status_code == 200
