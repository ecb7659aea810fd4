"""The lobby's notices on the account stream (issue 19): a seek's creator hears that a player
joined, then that the table filled - with its game, which the stream then announces as started."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from kifu_client.wire import parse_sse
from lobby import services

pytestmark = pytest.mark.django_db

# Embedded mode (no Redis): a notice is handed to the stream in this process; short keep-alives.
EMBEDDED = override_settings(REDIS_URL="", KIFU_STREAM_KEEPALIVE_SECONDS=0.2, KIFU_STREAM_POLL_SECONDS=0.05)


def player(name: str):
    user = get_user_model().objects.create_user(username=name)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return user, client


@EMBEDDED
def test_the_creator_hears_joins_and_the_game_on_the_account_stream(django_capture_on_commit_callbacks):
    (ann, ann_client), (ben, _), (cid, _) = player("ann"), player("ben"), player("cid")
    seek = services.seek_create(user=ann, engine_slug="satori", seats=3)
    stream = parse_sse(ann_client.get("/api/me/stream", {"timeout": 30}).streaming_content)
    assert next(stream) is None  # a keep-alive: the stream listens now, and had nothing to say
    with django_capture_on_commit_callbacks(execute=True):
        services.seek_join(seek_id=seek.pk, user=ben)
    joined = next(m for m in stream if m is not None)
    assert joined.type == "seek_joined"
    assert joined.data == {"seek": str(seek.pk), "status": "open", "taken": 2, "seats": 3}
    with django_capture_on_commit_callbacks(execute=True):
        services.seek_join(seek_id=seek.pk, user=cid)
    seek.refresh_from_db()
    seen = {}
    for message in stream:  # the game's own start notice and the seek's, in either order
        if message is not None:
            seen[message.type] = message.data
            if {"seek_filled", "game_started"} <= set(seen):
                break
    assert seen["seek_filled"] == {"seek": str(seek.pk), "status": "filled", "game": str(seek.game_id)}
    assert seen["game_started"]["game"] == str(seek.game_id)
    stream.close()
