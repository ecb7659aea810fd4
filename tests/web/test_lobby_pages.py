"""The lobby's web pages in-process (issue 19): open, join, quick-pair and leave from the forms,
refusals shown with their codes, a rematch from a finished game's page, and the site rating on the
player page - in English and Japanese."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from games import services as game_services
from games.models import Game
from lobby import services
from lobby.models import Seek

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser_of():
    def make(name: str) -> Client:
        account = get_user_model().objects.create_user(username=name, password="a-long-pass-1")
        client = Client()
        client.force_login(account)
        client.account = account
        return client

    return make


TABLE = {"engine": "nine-card", "seats": "2", "rated": "on"}


def test_a_table_opened_and_joined_from_the_forms_goes_to_the_play_page(browser_of):
    ann, ben = browser_of("ann"), browser_of("ben")
    opened = ann.post("/lobby/seek", {**TABLE, "per_move_seconds": "120", "rating_max": "30"})
    assert opened.status_code == 302 and opened.url == "/lobby/"
    seek = Seek.objects.get(created_by=ann.account)
    assert seek.time_control["per_move_seconds"] == 120 and seek.rating_max == 30 and seek.rated
    page = ann.get("/lobby/").content.decode()
    assert f'data-seek="{seek.pk}"' in page and 'id="own-seek"' in page and 'id="leave"' in page
    listed = ben.get("/lobby/").content.decode()
    assert f'<li data-seek="{seek.pk}">' in listed and "1 / 2" in listed and "<bdi>ann</bdi> (0.0)" in listed
    joined = ben.post(f"/lobby/seeks/{seek.pk}/join")
    seek.refresh_from_db()
    assert joined.status_code == 302 and joined.url == f"/games/{seek.game_id}/play"
    assert Game.objects.get(pk=seek.game_id).status == Game.Status.RUNNING


def test_refusals_come_back_on_the_lobby_page_with_their_codes(browser_of):
    ann = browser_of("ann")
    wrong = ann.post("/lobby/seek", {**TABLE, "seats": "5"})
    assert wrong.status_code == 400 and "bad_seat_count" in wrong.content.decode()
    bad = ann.post("/lobby/seek", {**TABLE, "rating_min": "abc"})
    assert bad.status_code == 400 and "bad_rating_range" in bad.content.decode()
    ann.post("/lobby/seek", TABLE)
    again = ann.post("/lobby/quick", TABLE)
    assert again.status_code == 409 and "already_seeking" in again.content.decode()
    assert ann.post(f"/lobby/seeks/{uuid.uuid4()}/join").status_code == 404
    assert ann.post(f"/lobby/seeks/{uuid.uuid4()}/dance").status_code == 404
    assert Client().post("/lobby/seek", TABLE).status_code == 302  # to the log-in page
    assert "lobby" in Client().get("/lobby/").content.decode().lower()


def test_quick_pairing_seats_the_second_player_and_leaving_cancels(browser_of):
    ann, ben, cid = browser_of("ann"), browser_of("ben"), browser_of("cid")
    assert ann.post("/lobby/quick", TABLE).url == "/lobby/"
    paired = ben.post("/lobby/quick", TABLE)
    assert paired.url.endswith("/play")
    cid.post("/lobby/seek", {**TABLE, "engine": "satori", "seats": "3"})
    seek = Seek.objects.get(created_by=cid.account)
    assert cid.post(f"/lobby/seeks/{seek.pk}/leave").url == "/lobby/"
    seek.refresh_from_db()
    assert seek.status == Seek.Status.CANCELLED


def test_a_rematch_from_the_game_page_and_the_site_rating_on_the_player_page(browser_of):
    ann, ben = browser_of("ann"), browser_of("ben")
    seek = services.seek_create(user=ann.account, engine_slug="nine-card", seats=2)
    services.seek_join(seek_id=seek.pk, user=ben.account)
    game = Seek.objects.get(pk=seek.pk).game
    game_services.game_forfeit(game_id=game.pk, seats=[1], reason="test")
    services.lobby_game_rate(game_id=game.pk)
    assert 'id="rematch"' in ann.get(f"/games/{game.pk}").content.decode()
    offered = ann.post(f"/games/{game.pk}/rematch")
    rematch = Game.objects.get(lobby__rematch_of=game)
    assert offered.url == f"/games/{rematch.pk}" and rematch.status == Game.Status.OPEN
    accepted = ben.post(f"/games/{game.pk}/rematch")
    assert accepted.url == f"/games/{rematch.pk}/play"
    page = Client().get("/players/ann/").content.decode()
    assert 'id="site-ratings"' in page and 'data-engine="nine-card"' in page
    japanese = Client(headers={"accept-language": "ja"}).get("/players/ann/").content.decode()
    assert "サイトレーティング" in japanese
    assert "ロビー" in Client(headers={"accept-language": "ja"}).get("/lobby/").content.decode()
