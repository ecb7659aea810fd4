"""Bidi-safe names (issue 23): text-direction controls are refused in names (API 400 with a stable
code, a form error on the pages), and the pages isolate each name from the text around it."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from league import services
from league.models import Club, PlayerProfile
from league.names import BIDI_CONTROLS
from tests.web.accounts import client_of, user

pytestmark = pytest.mark.django_db
SPOOF = "\u202eexe.gnp"  # reads "png.exe"


def api_of(someone) -> APIClient:
    client = APIClient()
    client.force_authenticate(someone)
    return client


@pytest.mark.parametrize("control", sorted(BIDI_CONTROLS))
def test_every_bidi_control_is_refused_in_a_display_name(control):
    api = api_of(user("aki"))
    response = api.patch("/api/profile", {"display_name": f"ana{control}da"}, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "bidi_control_characters"
    assert f"U+{ord(control):04X}" in response.json()["message"]


def test_club_ladder_and_display_names_refuse_them_and_keep_other_scripts():
    aki = user("aki")
    api = api_of(aki)
    refused = api.post("/api/clubs", {"name": "Go \u2067Club", "slug": "go"}, format="json")
    assert (refused.status_code, refused.json()["code"]) == (400, "bidi_control_characters")
    assert not Club.objects.exists()
    # Right-to-left letters are names like any other: only the controls are refused.
    assert api.post("/api/clubs", {"name": "نادي الورق", "slug": "cards"}, format="json").status_code == 201
    assert api.patch("/api/profile", {"display_name": "אנה"}, format="json").status_code == 200
    renamed = api.patch("/api/clubs/cards", {"name": SPOOF}, format="json")
    assert (renamed.status_code, renamed.json()["code"]) == (400, "bidi_control_characters")
    with pytest.raises(services.ServiceError) as error:
        services.ladder_create(club_id=Club.objects.get().pk, by=aki, engine="nine-card", kind="rating", name=SPOOF)
    assert error.value.code == "bidi_control_characters"


def test_the_new_league_form_refuses_them_with_a_form_error():
    organiser = user("org")
    club = services.club_create(name="Go Club", slug="go-club", by=organiser)
    client = client_of(organiser)
    form = {"name": "Winter\u202e League", "engine": "1234", "divisions": "1", "days_per_round": "7"}
    response = client.post(f"/clubs/{club.slug}/leagues/new", form)
    assert response.status_code == 302
    page = client.get(f"/clubs/{club.slug}/").content.decode()
    assert "invalid_name: name: Names may not contain text-direction control characters (U+202E)." in page
    japanese = client_of(organiser, "ja")
    japanese.post(f"/clubs/{club.slug}/leagues/new", form)
    page = japanese.get(f"/clubs/{club.slug}/").content.decode()
    assert "名前に文字方向の制御文字（U+202E）は使えません。" in page


def test_names_stored_before_the_rule_are_isolated_on_the_pages():
    """A display name or club name saved before the refusal (or in the admin) cannot reorder the
    username or the text beside it: each is in its own <bdi>."""
    ana = user("ana")
    PlayerProfile.objects.create(user=ana, display_name=SPOOF)
    page = Client().get("/players/ana/").content.decode()
    assert f"<h1><bdi>{SPOOF}</bdi> <small>(<bdi>ana</bdi>)</small></h1>" in page
    Club.objects.create(slug="spoof", name=SPOOF, created_by=ana, created_at=timezone.now())
    clubs = Client().get("/clubs/").content.decode()
    assert f"<bdi>{SPOOF}</bdi></a>" in clubs
