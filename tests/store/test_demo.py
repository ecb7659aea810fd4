"""``kifu demo`` (run by bin/serve) prints links to its games and a first command that works."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import call_command
from django.test import Client

pytestmark = pytest.mark.django_db


def test_the_demo_prints_its_games_and_a_first_command_that_works():
    out = io.StringIO()
    call_command("kifu", "demo", "--base-url", "http://127.0.0.1:8123/", stdout=out)
    text = out.getvalue()
    replay = re.search(r"http://127\.0\.0\.1:8123(/games/[0-9a-f-]+/replay)", text)
    play = re.search(r"http://127\.0\.0\.1:8123(/games/[0-9a-f-]+/play)", text)
    curl = re.search(r'curl -s -H "Authorization: (Token \w+)" http://127\.0\.0\.1:8123(/api/games/\S+/state)', text)
    assert replay and play and curl, text
    assert Client().get(replay.group(1)).status_code == 200
    ben = Client()
    assert ben.login(username="ben", password="kifu-demo-password")
    assert ben.get(play.group(1)).status_code == 200
    state = Client().get(curl.group(2), HTTP_AUTHORIZATION=curl.group(1))
    assert state.status_code == 200 and state.json()["seat"] == 0
    again = io.StringIO()
    call_command("kifu", "demo", "--base-url", "http://127.0.0.1:8123", stdout=again)
    assert again.getvalue() == text  # running it again changes nothing
