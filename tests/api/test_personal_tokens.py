"""Scoped personal tokens (issue 19 item 3): made, listed and revoked through the API, stored as a
hash, shown once, each call checked against the token's scopes; an account's full token keeps
every scope."""

from __future__ import annotations

import hashlib

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from games import accounts
from games.models import PersonalToken

pytestmark = pytest.mark.django_db

GAME = {"engine": "nine-card", "seats": ["kaito", None]}


def client_with(key: str, keyword: str = "Token") -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"{keyword} {key}")
    return client


@pytest.fixture
def owner():
    user, token = accounts.account_create(username="kaito", password="a-long-pass-1")
    return user, client_with(token.key)


def make(full: APIClient, *scopes: str, name: str = "my bot") -> dict:
    response = full.post("/api/me/tokens", {"name": name, "scopes": list(scopes)})
    assert response.status_code == 201, response.content
    return response.json()


def club(n: int) -> dict:
    return {"name": f"Club {n}", "slug": f"club-{n}"}


def test_the_key_is_shown_once_and_stored_as_its_sha256(owner):
    user, full = owner
    made = make(full, "play")
    assert made["key"].startswith("kifu_pt_") and made["scopes"] == ["play", "read"]
    row = PersonalToken.objects.get(pk=made["id"])
    assert row.key_hash == hashlib.sha256(made["key"].encode()).hexdigest()
    assert made["key"] not in {row.key_hash, row.prefix, row.name} and made["key"].startswith(row.prefix)
    listed = full.get("/api/me/tokens").json()
    assert [t["id"] for t in listed] == [made["id"]] and "key" not in listed[0]
    assert listed[0]["prefix"] == row.prefix and listed[0]["last_used_at"] is None


def test_a_read_token_reads_and_is_refused_a_move_naming_the_scope(owner):
    _, full = owner
    read = client_with(make(full, "read")["key"])
    me = read.get("/api/me")
    assert me.status_code == 200 and me.json()["scopes"] == ["read"] and me.json()["token"] is None
    assert read.get("/api/games").status_code == 200
    refused = read.post("/api/games", GAME)
    assert refused.status_code == 403 and refused.json()["code"] == "token_scope"
    assert "play" in refused.json()["message"]
    assert read.post("/api/clubs", club(1)).json()["code"] == "token_scope"
    assert read.post("/api/lobby/quick", {"engine": "nine-card"}).json()["code"] == "token_scope"


def test_a_play_token_plays_and_may_not_organise(owner):
    _, full = owner
    play = client_with(make(full, "play")["key"])
    created = play.post("/api/games", GAME)
    assert created.status_code == 201, created.content
    refused = play.post("/api/clubs", club(2))
    assert refused.status_code == 403 and refused.json()["code"] == "token_scope"
    assert "organise" in refused.json()["message"]


def test_an_organise_token_organises_and_may_not_play(owner):
    _, full = owner
    organise = client_with(make(full, "organise")["key"])
    assert organise.post("/api/clubs", club(3)).status_code == 201
    refused = organise.post("/api/games", GAME)
    assert refused.status_code == 403 and "play" in refused.json()["message"]


def test_a_player_s_own_league_act_needs_play_not_organise(owner):
    _, full = owner
    assert full.post("/api/clubs", club(4)).status_code == 201
    other, other_token = accounts.account_create(username="aki", password="a-long-pass-1")
    aki = make(client_with(other_token.key), "play")
    joined = client_with(aki["key"]).post("/api/clubs/club-4/join", {})
    assert joined.status_code in (200, 201), joined.content


def test_a_personal_token_cannot_make_tokens_or_change_the_account(owner):
    _, full = owner
    everything = client_with(make(full, "read", "play", "organise")["key"])
    for method, path in (("post", "/api/me/tokens"), ("post", "/api/me/mature-consent")):
        refused = getattr(everything, method)(path, {"name": "wider", "scopes": ["play"]})
        assert refused.status_code == 403 and refused.json()["code"] == "token_scope", path
        assert "full token" in refused.json()["message"]
    assert everything.get("/api/me/tokens").status_code == 200


def test_bearer_is_accepted_as_well(owner):
    _, full = owner
    key = make(full, "play")["key"]
    assert client_with(key, "Bearer").post("/api/games", GAME).status_code == 201
    assert client_with(key, "Bearer").get("/api/me").json()["username"] == "kaito"


def test_revoking_takes_effect_at_once_even_when_the_token_was_kept(owner):
    _, full = owner
    made = make(full, "play")
    bot = client_with(made["key"])
    assert bot.get("/api/me").status_code == 200  # now kept by this process (api/authentication.py)
    assert full.delete(f"/api/me/tokens/{made['id']}").status_code == 204
    refused = bot.get("/api/me")
    assert refused.status_code == 401 and refused.json()["message"] == "Invalid token."
    assert full.get("/api/me/tokens").json() == []


def test_one_cannot_revoke_another_account_s_token(owner):
    _, full = owner
    _, other_token = accounts.account_create(username="aki", password="a-long-pass-1")
    theirs = make(client_with(other_token.key), "read")
    missing = full.delete(f"/api/me/tokens/{theirs['id']}")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    assert PersonalToken.objects.filter(pk=theirs["id"]).exists()


def test_the_account_s_full_token_keeps_every_scope(owner):
    _, full = owner
    me = full.get("/api/me").json()
    assert me["scopes"] == ["read", "play", "organise"] and me["token"]
    assert full.post("/api/games", GAME).status_code == 201
    assert full.post("/api/clubs", club(5)).status_code == 201


def test_last_used_is_written_once_a_minute_at_most(owner, settings):
    settings.KIFU_TOKEN_CACHE_SECONDS = 0  # every request reads the row
    _, full = owner
    made = make(full, "read")
    bot = client_with(made["key"])
    assert bot.get("/api/me").status_code == 200
    first = PersonalToken.objects.get(pk=made["id"]).last_used_at
    assert first is not None
    assert bot.get("/api/me").status_code == 200
    assert PersonalToken.objects.get(pk=made["id"]).last_used_at == first


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "x", "scopes": ["admin"]}, "scopes"),
        ({"name": "x", "scopes": "play"}, "scopes"),
        ({"name": "", "scopes": ["read"]}, "name"),
        ({"name": "x" * 101, "scopes": ["read"]}, "name"),
        ({"scopes": ["read"]}, "name"),
    ],
)
def test_a_bad_token_request_is_a_400_naming_the_field(owner, body, field):
    _, full = owner
    response = full.post("/api/me/tokens", body)
    assert response.status_code == 400 and field in response.content.decode()


def test_no_scopes_is_a_read_only_token(owner):
    _, full = owner
    made = make(full)
    assert made["scopes"] == ["read"]
    assert client_with(made["key"]).post("/api/games", GAME).json()["code"] == "token_scope"


def test_an_unknown_personal_key_is_refused(owner):
    response = client_with("kifu_pt_" + "x" * 43).get("/api/me")
    assert response.status_code == 401 and response.json()["message"] == "Invalid token."


def test_a_kept_personal_token_costs_no_query(owner):
    _, full = owner
    bot = client_with(make(full, "read")["key"])
    counts = []
    for _ in range(2):
        with CaptureQueriesContext(connection) as queries:
            assert bot.get("/api/me").status_code == 200
        counts.append(len(queries))
    assert counts[1] == counts[0] - 2  # neither the token's row nor its last_used_at again


def test_a_play_token_enters_its_own_account_and_needs_organise_to_enter_another(owner):
    _, full = owner
    assert full.post("/api/clubs", club(6)).status_code == 201
    _, aki_token = accounts.account_create(username="aki", password="a-long-pass-1")
    assert full.post("/api/clubs/club-6/members", {"username": "aki"}).status_code == 201
    assert client_with(aki_token.key).post("/api/clubs/club-6/join", {}).status_code == 200
    body = {"name": "Cup", "engine": "nine-card", "format": "swiss"}
    tournament = full.post("/api/clubs/club-6/tournaments", body).json()["id"]
    play = client_with(make(full, "play")["key"])
    assert play.post(f"/api/tournaments/{tournament}/entries", {}).status_code == 201
    refused = play.post(f"/api/tournaments/{tournament}/entries", {"username": "aki"})
    assert refused.status_code == 403 and refused.json()["code"] == "token_scope"
    assert "organise" in refused.json()["message"]
    both = client_with(make(full, "play", "organise")["key"])
    assert both.post(f"/api/tournaments/{tournament}/entries", {"username": "aki"}).status_code == 201
    assert play.post(f"/api/tournaments/{tournament}/drop", {"username": "kaito"}).status_code == 200


def test_the_admin_lists_and_revokes_tokens_and_never_shows_the_key_hash(owner):
    """Issue 19: staff list personal tokens and revoke them; nobody adds or edits one there, and
    the stored hash of a key appears nowhere in the pages (nor is it searchable)."""
    from django.test import Client

    _, full = owner
    made = make(full, "play", name="night bot")
    kept = make(full, "read", name="stats")
    row = PersonalToken.objects.get(pk=made["id"])
    admin_user = accounts.User.objects.create_superuser("root", "root@example.org", "a-long-pass-1")
    browser = Client()
    browser.force_login(admin_user)
    listing = browser.get("/admin/games/personaltoken/")
    assert listing.status_code == 200
    page = listing.content.decode()
    assert "night bot" in page and "stats" in page and row.prefix in page
    assert row.key_hash not in page
    assert browser.get("/admin/games/personaltoken/", {"q": row.key_hash}).content.decode().count("night bot") == 0
    detail = browser.get(f"/admin/games/personaltoken/{row.pk}/change/")
    assert detail.status_code == 200 and row.key_hash not in detail.content.decode()
    assert 'name="name"' not in detail.content.decode()  # read-only: no input to change it
    assert browser.get("/admin/games/personaltoken/add/").status_code == 403
    client_with(made["key"]).get("/api/me")  # the key works (and is cached) until revoked
    revoked = browser.post(
        "/admin/games/personaltoken/",
        {"action": "delete_selected", "_selected_action": [row.pk], "post": "yes"},
    )
    assert revoked.status_code == 302
    assert client_with(made["key"]).get("/api/me").status_code == 401
    assert list(PersonalToken.objects.values_list("pk", flat=True)) == [kept["id"]]
