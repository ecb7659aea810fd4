"""The stream endpoints in-process: embedded polling, keep-alives, formats, redaction and refusals.

The stream generators run in the test thread, inside the test transaction, so a test can write
(through the services) between two messages and see the stream pick the change up by polling.
"""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games import checkpoints, services
from games.engines import get_engine
from games.models import Game
from kifu_client.wire import parse_ndjson, parse_sse

pytestmark = pytest.mark.django_db

# Embedded mode (no Redis): the streams poll the database; short keep-alives to see them.
EMBEDDED = override_settings(REDIS_URL="", KIFU_STREAM_KEEPALIVE_SECONDS=0.2, KIFU_STREAM_POLL_SECONDS=0.05)


def player(name: str):
    user = get_user_model().objects.create_user(username=name)  # no password: no slow hashing
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return user, client


@pytest.fixture
def table():
    (oya, oya_client), (ko, ko_client) = player("oya"), player("ko")
    game = services.game_create(consent=True, engine_slug="nine-card", config={}, seats=[oya, ko], created_by=oya)
    return game, {"oya": (oya, oya_client), "ko": (ko, ko_client)}


def play(game: Game, user, move: dict, key: str) -> None:
    """A move applied in-process: the submission, then the worker's advance (same transaction)."""
    services.move_submit(game_id=game.pk, user=user, move=move, idempotency_key=key)
    services.game_advance(game_id=game.pk)


def messages_of(response) -> list:
    assert response.status_code == 200, response.content
    parse = parse_ndjson if response["Content-Type"].startswith("application/x-ndjson") else parse_sse
    return list(parse(response.streaming_content))


@EMBEDDED
def test_an_embedded_stream_polls_for_new_events(table):
    game, people = table
    (oya, oya_client), ko_client = people["oya"], people["ko"][1]
    response = ko_client.get(f"/api/games/{game.pk}/stream", {"timeout": 30})
    assert response["Content-Type"] == "text/event-stream; charset=utf-8" and response["Cache-Control"] == "no-cache"
    stream = parse_sse(response.streaming_content)
    deal = next(stream)
    assert (deal.type, deal.id, deal.data["seq"]) == ("event", "1", 1)
    assert deal.data["data"]["hands"][0] is None and deal.data["data"]["hands"][1]  # ko sees only its own hand
    head = next(stream)
    assert head.type == "head" and head.data["seat"] == 1 and head.data["head_seq"] == 1
    assert head.data["legal_moves"] == ko_client.get(f"/api/games/{game.pk}/legal-moves").json()["moves"]
    # No notice is published (nothing commits in a test transaction): only polling can see this.
    oya_move = oya_client.get(f"/api/games/{game.pk}/legal-moves").json()["moves"][0]
    play(game, oya, oya_move, "k1")
    message = next(m for m in stream if m is not None)
    assert message.type == "event" and message.data["seq"] == 2 and message.data["seat"] == 0
    assert message.data["data"].get("card") != oya_move["card"], "ko must not see oya's committed card"
    assert [m.data for m in (message,)] == ko_client.get(f"/api/games/{game.pk}/events", {"after": 1}).json()
    after_move = next(m for m in stream if m is not None)
    assert after_move.type == "head" and after_move.data["head_seq"] == 2
    stream.close()


@EMBEDDED
def test_a_stream_sends_keep_alives_and_ends_at_its_timeout(table):
    game, people = table
    response = people["ko"][1].get(f"/api/games/{game.pk}/stream", {"timeout": 0.7})
    messages = messages_of(response)
    assert None in messages, "no keep-alive comment in 0.7 s with keep-alives every 0.2 s"
    assert [m.type for m in messages if m is not None] == ["event", "head", "end"]
    assert messages[-1].data == {"game": str(game.pk), "reason": "timeout", "head_seq": 1}
    ndjson = people["ko"][1].get(f"/api/games/{game.pk}/stream", {"timeout": 0.5, "format": "ndjson"})
    raw = b"".join(ndjson.streaming_content).decode()
    assert "\n\n" in raw, "an NDJSON keep-alive is an empty line"


def test_a_spectator_stream_hides_the_hands(table):
    game, people = table
    spectator = APIClient()
    hidden = get_engine("nine-card").hidden_from(get_engine("nine-card").load_state(game.state), None)
    assert hidden
    seen = messages_of(spectator.get(f"/api/games/{game.pk}/stream", {"timeout": 0.1}))
    text = json.dumps([m.data for m in seen if m is not None])
    assert not [card for card in hidden if f'"{card}"' in text]
    assert [m.data["seat"] for m in seen if m is not None and m.type == "head"] == [None]
    own = messages_of(people["oya"][1].get(f"/api/games/{game.pk}/stream", {"timeout": 0.1}))
    assert any(f'"{card}"' in json.dumps(own[0].data) for card in hidden), "a seat sees its own hand"


def test_a_finished_game_streams_its_whole_record_and_ends(table):
    game, people = table
    play(game, people["oya"][0], {"type": "resign"}, "r")
    response = people["ko"][1].get(f"/api/games/{game.pk}/stream", HTTP_ACCEPT="application/x-ndjson")
    assert response["Content-Type"] == "application/x-ndjson; charset=utf-8"
    messages = messages_of(response)
    assert [m.type for m in messages] == ["event", "event", "head", "end"]
    assert all("hash" in m.data for m in messages[:2]), "a finished game's events are public, hashes too"
    assert messages[2].data["status"] == "finished" and "legal_moves" not in messages[2].data
    assert messages[3].data["reason"] == "finished"
    game.refresh_from_db()
    signed = messages[3].data["signed_head"]  # the players get the signed head with the game's end
    assert (signed["head_seq"], signed["head_hash"]) == (game.head_seq, game.head_hash)
    assert checkpoints.head_signed_problems(signed, game=game) == []
    resumed = messages_of(people["ko"][1].get(f"/api/games/{game.pk}/stream", {"after": 2, "format": "sse"}))
    assert [m.type for m in resumed] == ["head", "end"]


@EMBEDDED
def test_the_account_stream_follows_the_accounts_games(table):
    game, people = table
    oya, ko_client = people["oya"][0], people["ko"][1]
    stream = parse_sse(ko_client.get("/api/me/stream", {"timeout": 30}).streaming_content)
    started, turn = next(stream), next(stream)
    assert (started.type, started.data["game"], started.data["seat"]) == ("game_started", str(game.pk), 1)
    assert (turn.type, turn.data["head_seq"]) == ("your_turn", 1)
    assert started.id and started.id.isdigit()
    play(game, oya, {"type": "resign"}, "r")
    ended = next(m for m in stream if m is not None)
    assert ended.type == "game_ended" and ended.data["outcome"]["ranking"][0] == [1]
    game.refresh_from_db()
    assert checkpoints.head_signed_problems(ended.data["signed_head"], game=game) == []
    stream.close()


def test_stream_refusals_are_json_errors(table):
    game, people = table
    client = people["ko"][1]
    cases = [
        ("/api/games/00000000-0000-0000-0000-000000000000/stream", {}, {}, 404, "not_found"),
        (f"/api/games/{game.pk}/stream", {"after": "x"}, {}, 400, "bad_parameter"),
        (f"/api/games/{game.pk}/stream", {}, {"HTTP_LAST_EVENT_ID": "-3"}, 400, "bad_parameter"),
        (f"/api/games/{game.pk}/stream", {"format": "xml"}, {}, 400, "bad_parameter"),
        (f"/api/games/{game.pk}/stream", {"timeout": 0}, {}, 400, "bad_parameter"),
        (f"/api/games/{game.pk}/stream", {"timeout": 100000}, {}, 400, "bad_parameter"),
    ]
    for path, params, headers, status, code in cases:
        response = client.get(path, params, **headers)
        assert response.status_code == status, (path, params, response.content)
        assert response["Content-Type"] == "application/json" and response.json()["code"] == code
    anonymous = APIClient().get("/api/me/stream", HTTP_ACCEPT="text/event-stream")
    assert anonymous.status_code == 401 and anonymous.json()["code"] == "not_authenticated"
