"""A web process remembers a token's account for a moment (api/authentication.py, issue 14): the
next request with it costs no query, each request gets its own user object, and a token deleted or
an account saved in this process is read again at once."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games import accounts

pytestmark = pytest.mark.django_db


@pytest.fixture
def someone():
    user, token = accounts.account_create(username="kaito", password="a-long-pass-1")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return user, token, client


def queries_of(client, path="/api/me") -> tuple[int, int]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path)
    return response.status_code, len(queries)


def test_the_second_request_with_a_token_reads_no_account(someone):
    _, _, client = someone
    first, second = queries_of(client), queries_of(client)
    assert first[0] == second[0] == 200
    assert second[1] == first[1] - 1


def test_with_the_setting_at_zero_every_request_reads_the_token(someone, settings):
    settings.KIFU_TOKEN_CACHE_SECONDS = 0
    _, _, client = someone
    first, second = queries_of(client), queries_of(client)
    assert first == second and first[0] == 200


def test_each_request_gets_its_own_user_object(someone):
    from api.authentication import RawTokenAuthentication

    user, token, _ = someone
    auth = RawTokenAuthentication()
    (one, _), (two, _) = auth.authenticate_credentials(token.key), auth.authenticate_credentials(token.key)
    assert one is not two and one.pk == two.pk == user.pk
    one.username = "changed"
    assert two.username == "kaito"


def test_a_deleted_token_is_refused_at_once(someone):
    _, token, client = someone
    assert queries_of(client)[0] == 200
    Token.objects.filter(key=token.key).get().delete()
    response = client.get("/api/me")
    assert response.status_code == 401 and response.json()["message"] == "Invalid token."


def test_a_deactivated_account_is_refused_at_once(someone):
    user, _, client = someone
    assert queries_of(client)[0] == 200
    user.is_active = False
    user.save(update_fields=["is_active"])
    response = client.get("/api/me")
    assert response.status_code == 401 and response.json()["message"] == "User inactive or deleted."


def test_a_deleted_account_is_refused_at_once(someone):
    user, _, client = someone
    assert queries_of(client)[0] == 200
    user.delete()
    assert client.get("/api/me").status_code == 401
