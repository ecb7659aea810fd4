"""The account's e-mail address through the API (issue 19): set, changed, removed; refused with a
stable code when it is not an address or another account has it; only the account's own
credentials (full token or session) may change it - a personal token never, whatever its scopes,
since whoever sets the address receives the password reset links."""

from __future__ import annotations

import pytest
from django.core import mail
from rest_framework.test import APIClient

from games import accounts

pytestmark = pytest.mark.django_db


def client_of(username: str) -> tuple[object, APIClient]:
    user, token = accounts.account_create(username=username, password="a-long-pass-1")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return user, client


def put(client: APIClient, email):
    return client.put("/api/me/email", {"email": email}, format="json")


def test_set_change_and_remove_the_address():
    user, client = client_of("aki")
    answer = put(client, "  Aki@Example.ORG ")
    assert answer.status_code == 200 and answer.json() == {"email": "Aki@example.org"}
    user.refresh_from_db()
    assert user.email == "Aki@example.org"
    assert put(client, "aki@example.org").status_code == 200  # the same address again, other case: still yours
    assert put(client, "").json() == {"email": ""}
    user.refresh_from_db()
    assert user.email == ""


@pytest.mark.parametrize(
    "email", ["not an address", "aki@", "@example.org", "a" * 250 + "@example.org", "aki@exa mple.org"]
)
def test_a_bad_address_is_400_bad_email(email):
    user, client = client_of("aki")
    answer = put(client, email)
    assert answer.status_code == 400 and answer.json()["code"] == "bad_email", answer.content
    assert "example.org" in answer.json()["message"]  # says what an address looks like
    user.refresh_from_db()
    assert user.email == ""


def test_wrong_shapes_are_400_not_500():
    _, client = client_of("aki")
    assert client.put("/api/me/email", {}, format="json").json()["code"] == "invalid"
    assert client.put("/api/me/email", {"email": None}, format="json").status_code == 400
    assert client.put("/api/me/email", [1, 2], format="json").status_code == 400


def test_an_address_another_account_has_is_400_email_taken():
    _, first = client_of("aki")
    second_user, second = client_of("bea")
    assert put(first, "shared@example.org").status_code == 200
    taken = put(second, "SHARED@example.org")
    assert taken.status_code == 400 and taken.json()["code"] == "email_taken"
    second_user.refresh_from_db()
    assert second_user.email == ""


@pytest.mark.parametrize("scopes", [["read"], ["play"], ["play", "organise"]])
def test_a_personal_token_may_not_change_the_address(scopes):
    user, full = client_of("aki")
    key = full.post("/api/me/tokens", {"name": "bot", "scopes": scopes}, format="json").json()["key"]
    token = APIClient()
    token.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    refused = put(token, "thief@example.org")
    assert refused.status_code == 403 and refused.json()["code"] == "token_scope"
    user.refresh_from_db()
    assert user.email == ""


def test_password_reset_mails_the_address_the_api_set(client):
    _, api = client_of("aki")
    put(api, "aki@example.org")
    client.post("/accounts/password-reset/", {"email": "aki@example.org"})
    assert [message.to for message in mail.outbox] == [["aki@example.org"]]


def test_the_web_forms_refuse_a_taken_address(client):
    _, api = client_of("aki")
    put(api, "aki@example.org")
    signup = client.post(
        "/accounts/signup/",
        {"username": "bea", "email": "AKI@example.org", "password1": "a-long-pass-1", "password2": "a-long-pass-1"},
    )
    assert "Another account uses this e-mail address" in signup.content.decode()
    assert not accounts.User.objects.filter(username="bea").exists()
    bea, _ = client_of("bea")
    client.force_login(bea)
    page = client.post("/accounts/email/", {"email": "aki@example.org"})
    assert page.status_code == 400 and "Another account uses this e-mail address" in page.content.decode()
