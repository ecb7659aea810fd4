"""The API tokens page (issue 19 item 3): a player makes a scoped token, sees its key once, uses it
through the API, and revokes it; in English and Japanese."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from rest_framework.test import APIClient

from games.models import PersonalToken

from .accounts import client_of, user

pytestmark = pytest.mark.django_db


def key_on(page: str) -> str:
    found = re.search(r'<code id="new-token-key">(kifu_pt_[^<]+)</code>', page)
    assert found, "the new key is not on the page"
    return found.group(1)


def test_a_player_makes_a_play_token_sees_the_key_once_and_revokes_it():
    assert Client().get("/accounts/tokens/").status_code == 302  # log in first
    client = client_of(user("mei"))
    assert 'href="/accounts/tokens/"' in client.get("/").content.decode()
    made = client.post("/accounts/tokens/", {"name": "my bot", "scopes": ["play"]})
    assert made.status_code == 200
    key = key_on(made.content.decode())
    listed = client.get("/accounts/tokens/").content.decode()
    assert "my bot" in listed and "play read" in listed and key not in listed and "new-token-key" not in listed

    bot = APIClient()
    bot.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert bot.post("/api/games", {"engine": "nine-card", "seats": ["mei", None]}).status_code == 201
    assert bot.post("/api/clubs", {"name": "Mei's", "slug": "meis"}).json()["code"] == "token_scope"

    token = PersonalToken.objects.get(user__username="mei")
    revoked = client.post(f"/accounts/tokens/{token.pk}/revoke", follow=True)
    assert revoked.status_code == 200 and "no longer works" in revoked.content.decode()
    assert bot.get("/api/me").status_code == 401


def test_a_token_without_a_name_is_a_400_and_another_player_s_token_is_not_revoked():
    client = client_of(user("mei"))
    refused = client.post("/accounts/tokens/", {"name": "", "scopes": ["play"]})
    assert refused.status_code == 400 and not PersonalToken.objects.exists()
    assert client.post("/accounts/tokens/", {"name": "x", "scopes": ["admin"]}).status_code == 400
    theirs = client_of(user("ren"))
    theirs.post("/accounts/tokens/", {"name": "ren's", "scopes": []})
    token = PersonalToken.objects.get(user__username="ren")
    assert token.scopes == "read"
    answer = client.post(f"/accounts/tokens/{token.pk}/revoke", follow=True)
    assert "You have no such token." in answer.content.decode() and PersonalToken.objects.filter(pk=token.pk).exists()
    assert client.get(f"/accounts/tokens/{token.pk}/revoke").status_code == 405


def test_the_page_speaks_japanese():
    page = client_of(user("mei"), "ja").post("/accounts/tokens/", {"name": "bot", "scopes": ["play"]})
    text = page.content.decode()
    assert "APIトークン" in text and "一度だけ" in text
    key_on(text)
