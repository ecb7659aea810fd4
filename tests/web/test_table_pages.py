"""The table recorder's pages in-process: starting a recording, who may open the keeper's page, and
both languages (the browser half is tests/web/test_table_browser.py)."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from games.models import Game

from .accounts import client_of, user

pytestmark = pytest.mark.django_db


def test_starting_a_recording_opens_the_keepers_page():
    aki = user("aki")
    client = client_of(aki)
    assert 'id="table-new-link"' in client.get("/").content.decode()
    form = client.get("/table/new")
    assert form.status_code == 200 and 'name="seats"' in form.content.decode()
    made = client.post("/table/new", {"engine": "nine-card", "seats": "aki\nben", "keeper_seat": "1", "place": "club"})
    game = Game.objects.get(source="table")
    assert made.status_code == 302 and made["Location"] == f"/games/{game.pk}/table"
    assert [(s.name, s.user) for s in game.seats.order_by("index")] == [("aki", aki), ("ben", None)]
    assert game.meta == {"place": "club"}
    page = client.get(made["Location"])
    assert page.status_code == 200
    data = json.loads(page.content.decode().split('id="kifu-page" type="application/json">')[1].split("</script>")[0])
    assert data["engine"] == "nine-card" and data["names"] == ["aki", "ben"] and "commit_card" in data["actions"]
    assert 'id="record-at-table"' in client.get(f"/games/{game.pk}").content.decode()
    # Nobody else keeps it: not a stranger, not an anonymous visitor (sent to log in).
    assert client_of(user("chie")).get(f"/games/{game.pk}/table").status_code == 404
    assert 'id="record-at-table"' not in client_of(user("dan")).get(f"/games/{game.pk}").content.decode()
    assert Client().get(f"/games/{game.pk}/table").status_code == 302


def test_refusals_come_back_to_the_form():
    client = client_of(user("aki"))
    one = client.post("/table/new", {"engine": "nine-card", "seats": "aki"})
    assert one.status_code == 400 and "bad_seat_count" in one.content.decode()
    bad_seat = client.post("/table/new", {"engine": "nine-card", "seats": "aki, ben", "keeper_seat": "x"})
    assert bad_seat.status_code == 400 and "bad_seat" in bad_seat.content.decode()
    assert not Game.objects.exists()


def test_the_recorder_speaks_japanese():
    aki = user("aki")
    client = client_of(aki, "ja")
    assert "卓での対局を記録する" in client.get("/table/new").content.decode()
    client.post("/table/new", {"engine": "nine-card", "seats": "aki\nben"})
    page = client.get(f"/games/{Game.objects.get().pk}/table").content.decode()
    strings = json.loads(page.split('id="kifu-strings" type="application/json">')[1].split("</script>")[0])
    assert strings["rec_online"] == "オンライン" and strings["rec_record"] == "記録する"
    assert "卓で対局" in page
