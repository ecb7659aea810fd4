"""Live play on the real stack: streams, the Python client and the random bots, over HTTP only."""

from __future__ import annotations

import io
import json
import queue
import threading
import uuid

import pytest
import requests

from bots import arena
from bots.random_bot import RandomBot
from games.engines import get_engine
from games.records import replay_record
from kifu_client import KifuClient, KifuError, StreamMessage

# django_db makes pytest-django create the test database the stack processes use. Not
# transaction=True: its flush would TRUNCATE the append-only event table.
pytestmark = [pytest.mark.stack, pytest.mark.django_db]

PASSWORD = "a-long-pass-1"


def account(stack) -> KifuClient:
    return KifuClient.create_account(stack.base_url, f"live{uuid.uuid4().hex[:10]}", PASSWORD)


def in_thread(target, *args) -> tuple[threading.Thread, list]:
    """Run ``target(*args)`` in a thread; its result (or exception) lands in the returned list."""
    out: list = []

    def run():
        try:
            out.append(target(*args))
        except BaseException as error:  # re-raised by the test through the list
            out.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def joined(thread: threading.Thread, out: list, timeout: float = 120):
    thread.join(timeout)
    assert not thread.is_alive(), "the thread did not finish"
    if isinstance(out[0], BaseException):
        raise out[0]
    return out[0]


def collect(messages, sink: queue.Queue, until=lambda message: False) -> list[StreamMessage]:
    """Drain a stream into a list (up to a message ``until`` accepts), handing each to ``sink`` too."""
    seen = []
    for message in messages:
        seen.append(message)
        sink.put(message)
        if until(message):
            break
    return seen


def requests_of(client: KifuClient) -> list[tuple[str, str]]:
    log: list[tuple[str, str]] = []
    client.http.hooks["response"].append(lambda r, *a, **k: log.append((r.request.method, r.request.path_url)))
    return log


def available(stack, engine: str) -> bool:
    return any(info["slug"] == engine for info in KifuClient(stack.base_url).engines())


@pytest.mark.parametrize("engine", ["nine-card", "satori"])
def test_random_bots_play_a_whole_game_from_the_streams_alone(stack, engine):
    if not available(stack, engine):
        pytest.skip(f"{engine} is not registered")
    oya, ko = account(stack), account(stack)
    game = oya.create_game(engine, [oya.username, ko.username])
    ko.accept(game["id"])  # a seat named by someone else is an invitation (issue 15 part 6)
    logs = [requests_of(oya), requests_of(ko)]
    bots = [in_thread(RandomBot(client, seed=seed).play, game["id"]) for seed, client in enumerate((oya, ko))]
    results = [joined(*bot) for bot in bots]
    bot_requests = [list(log) for log in logs]

    final = oya.game(game["id"])
    assert final["status"] == "finished"
    assert all(r.finished and r.outcome == final["outcome"] for r in results)
    assert [r.seat for r in results] == [0, 1]
    moves = [e for e in oya.events(game["id"]) if e["kind"] == "move"]
    accepted, pending = sum(r.accepted for r in results), sum(r.pending for r in results)
    assert 0 < accepted <= len(moves) <= accepted + pending  # pending: no verdict within the bot's wait
    assert {e["seat"] for e in moves} == {0, 1}
    assert oya.verification(game["id"])["ok"]
    # From the streams alone: the bots only read their game stream and submitted moves.
    for log in bot_requests:
        paths = {(method, path.split("?")[0].removeprefix(f"/api/games/{game['id']}")) for method, path in log}
        assert paths <= {("GET", "/stream"), ("POST", "/moves")}, paths


@pytest.mark.parametrize("engine", ["nine-card", "satori"])
def test_a_spectator_stream_never_shows_a_seats_hidden_cards(stack, engine):
    if not available(stack, engine):
        pytest.skip(f"{engine} is not registered")
    oya, ko, spectator = account(stack), account(stack), KifuClient(stack.base_url)
    game = oya.create_game(engine, [oya.username, None])
    arrived: queue.Queue = queue.Queue()
    watching = in_thread(lambda: collect(spectator.stream_game(game["id"], timeout=120), arrived))
    first = arrived.get(timeout=30)  # connected before the deal, so the deal comes live
    assert first.type == "head" and first.data["status"] == "open" and first.data["seat"] is None
    ko.join(game["id"])
    bots = [in_thread(RandomBot(client, seed=seed).play, game["id"]) for seed, client in enumerate((oya, ko))]
    for bot in bots:
        joined(*bot)
    messages = joined(*watching)

    record = oya.record(game["id"]).splitlines()
    rules = get_engine(engine)
    batch: list[StreamMessage] = []
    checked = 0
    for message in messages:
        if message.type == "event":
            batch.append(message)
            continue
        if message.type == "head" and message.data["status"] == "running":
            # Every event of this batch was redacted with the state at this head: nothing hidden
            # from a spectator at that point may appear in it.
            hidden = rules.hidden_from(replay_record(record, upto=message.data["head_seq"]).state, None)
            text = json.dumps([m.data for m in batch] + [message.data])
            leaked = sorted(card for card in hidden if f'"{card}"' in text)
            assert not leaked, (message.data["head_seq"], leaked)
            checked += len(hidden) > 0 and len(batch)
        batch = []
    assert checked, "the spectator saw no running batch with hidden cards: the check proved nothing"
    seqs = [m.data["seq"] for m in messages if m.type == "event"]
    assert seqs == list(range(1, len(seqs) + 1)) and messages[-1].type == "end"


def test_resuming_with_last_event_id_gives_exactly_the_missing_events(stack):
    oya, ko = account(stack), account(stack)
    game_id = oya.create_game("nine-card", [oya.username, ko.username])["id"]
    ko.accept(game_id)
    for _turn in range(2):
        for client in (oya, ko):
            assert client.submit_move(game_id, client.legal_moves(game_id)[0], wait=10)["status"] == "accepted"
    head = oya.game(game_id)["head_seq"]
    assert head >= 5

    def resumed(last_id: int, **params) -> list[dict]:
        response = oya.http.get(
            f"{stack.base_url}/api/games/{game_id}/stream",
            params={"after": 0, **params},  # the header wins: an EventSource reconnects to the same URL
            headers={"Last-Event-ID": str(last_id)},
            timeout=30,
        )
        assert response.status_code == 200, response.text
        if params.get("format") == "ndjson":
            return [json.loads(line) for line in response.text.splitlines() if line]
        return _parse_sse(response.text)

    for last, fmt in ((2, "sse"), (head - 1, "ndjson"), (head, "sse")):
        messages = resumed(last, timeout=0.5, format=fmt)
        events = [m["data"] for m in messages if m["type"] == "event"]
        assert [e["seq"] for e in events] == list(range(last + 1, head + 1))
        assert [m["id"] for m in messages if m["type"] == "event"] == [str(s) for s in range(last + 1, head + 1)]
        assert events == oya.events(game_id, after=last), "the stream and the events endpoint disagree"
        assert messages[-1]["type"] == "end" and messages[-1]["data"]["reason"] == "timeout"

    # The client resumes a stream cut by its timeout: every event exactly once, to the end.
    arrived: queue.Queue = queue.Queue()
    watching = in_thread(lambda: collect(ko.stream_game(game_id, timeout=0.4), arrived))
    bots = [in_thread(RandomBot(client, seed=seed).play, game_id) for seed, client in enumerate((oya, ko))]
    for bot in bots:
        joined(*bot)
    messages = joined(*watching)
    seqs = [m.data["seq"] for m in messages if m.type == "event"]
    final = oya.game(game_id)
    assert seqs == list(range(1, final["head_seq"] + 1))
    assert [m.type for m in messages if m.type == "end"] == ["end"] and messages[-1].data["reason"] == "finished"


def _parse_sse(text: str) -> list[dict]:
    from kifu_client.wire import parse_sse

    return [{"type": m.type, "id": m.id, "data": m.data} for m in parse_sse([text.encode()]) if m is not None]


def test_the_account_stream_announces_your_turn(stack):
    oya, ko = account(stack), account(stack)
    arrived: queue.Queue = queue.Queue()
    stream = ko.stream_account(timeout=60, reconnect=False)
    listening = in_thread(lambda: collect(stream, arrived, until=lambda m: m.type == "game_ended"))

    def next_of(kind: str, game_id: str, **match) -> StreamMessage:
        while True:
            message = arrived.get(timeout=30)
            data = message.data
            if message.type == kind and data.get("game") == game_id and all(data.get(k) == v for k, v in match.items()):
                return message

    game_id = oya.create_game("nine-card", [oya.username, ko.username], {"commit_seconds": 120})["id"]
    # The seat oya named ko for is an invitation: announced on ko's stream; the game waits for it.
    invitation = next_of("invitation", game_id)
    assert invitation.data["invited_by"] == oya.username and invitation.data["seat"] == 1
    assert [g["game"]["id"] for g in ko.invitations()] == [game_id] and oya.game(game_id)["status"] == "open"
    ko.accept(game_id)
    started = next_of("game_started", game_id)
    assert started.data["seat"] == 1 and started.data["engine"] == "nine-card" and started.id
    window = next_of("window_opened", game_id)
    assert window.data["window"]["id"] == "turn-1" and window.data["window"]["deadline_at"]
    turn = next_of("your_turn", game_id)
    assert turn.data["head_seq"] == 1 and 1 in turn.data["actors"] and turn.data["window"]["id"] == "turn-1"
    # Both commit; the next turn opens and it is ko's turn again.
    assert ko.submit_move(game_id, ko.legal_moves(game_id)[0], wait=10)["status"] == "accepted"
    assert oya.submit_move(game_id, oya.legal_moves(game_id)[0], wait=10)["status"] == "accepted"
    later = next_of("your_turn", game_id)
    assert later.data["head_seq"] > 2
    assert oya.resign(game_id)["status"] == "accepted"
    ended = next_of("game_ended", game_id)
    assert ended.data["outcome"]["ranking"][0] == [1]
    joined(*listening)
    stream.close()  # hang up: the server notices within a second and frees its thread

    # Resuming from the last id repeats the recent ending, for a client that missed it.
    again = list(ko.stream_account(after=turn.id, timeout=0.5, reconnect=False))
    assert any(m.type == "game_ended" and m.data["game"] == game_id for m in again)


def test_the_client_raises_kifu_errors(stack):
    oya, ko = account(stack), account(stack)
    with pytest.raises(KifuError) as missing:
        oya.game(str(uuid.uuid4()))
    assert (missing.value.code, missing.value.status) == ("not_found", 404)
    with pytest.raises(KifuError) as wrong:
        KifuClient.login(stack.base_url, oya.username, "not-the-password")
    assert (wrong.value.code, wrong.value.status) == ("bad_credentials", 401)
    assert KifuClient.login(stack.base_url, oya.username, PASSWORD).me()["username"] == oya.username
    game_id = oya.create_game("nine-card", [oya.username, ko.username])["id"]
    with pytest.raises(KifuError) as early:
        oya.submit_move(game_id, {"type": "resign"}, wait=10)  # ko has not accepted: nothing runs yet
    assert early.value.status == 422 and early.value.submission["status"] == "rejected"
    ko.accept(game_id)
    with pytest.raises(KifuError) as illegal:
        oya.submit_move(game_id, {"type": "commit_card", "card": "XX"}, wait=10)
    assert illegal.value.status == 422 and illegal.value.submission["status"] == "rejected"
    outsider = account(stack)
    with pytest.raises(KifuError) as refused:
        outsider.submit_move(game_id, {"type": "resign"})
    assert (refused.value.code, refused.value.status) == ("not_a_player", 403)
    with pytest.raises(KifuError) as bad:
        list(oya.stream_game(game_id, format="xml"))
    assert bad.value.code == "bad_parameter"
    assert requests.get(f"{stack.base_url}/api/me/stream", timeout=10).json()["code"] == "not_authenticated"


def test_the_arena_plays_and_reports(stack):
    out = io.StringIO()
    summary = arena.run(
        base_url=stack.base_url, engine="nine-card", games=2, parallel=2, seed=7, bots=["heuristic", "random"], out=out
    )
    assert summary["finished"] == 2 and summary["moves"] > 0
    assert summary["bots"] == ["heuristic", "random"]
    assert sum(summary["wins"].values()) + summary["draws"] == 2
    assert sum(summary["wins_by_kind"].values()) == sum(summary["wins"].values())
    assert "games/min" in out.getvalue() and "moves/s" in out.getvalue()
    checker = KifuClient(stack.base_url)
    games = [checker.game(game_id) for game_id in summary["game_ids"]]
    assert all(game["status"] == "finished" for game in games)
    assert all(seat["bot"] for game in games for seat in game["seats"]), "the arena plays with bot accounts"
    # seats rotate: each bot played each seat once
    assert [game["seats"][0]["player"] for game in games] == [game["seats"][1]["player"] for game in games][::-1]


def test_the_arena_refuses_bad_bot_lists(stack):
    with pytest.raises(ValueError, match="one per seat"):
        arena.run(base_url=stack.base_url, engine="satori", games=1, players=2, bots=["heuristic"] * 3, out=None)
    with pytest.raises(ValueError, match="played by 2-2 players, not 3"):
        arena.run(base_url=stack.base_url, engine="nine-card", games=1, bots=["heuristic"] * 3, out=None)
    with pytest.raises(ValueError, match="no bot kind"):
        arena.run(base_url=stack.base_url, engine="nine-card", games=1, bots=["clever"], out=None)
    assert arena.main(["--games", "1", "--engine", "nine-card", "--base-url", stack.base_url, "--bots", "x,y"]) == 2


def test_my_turns_waits_for_a_turn_and_wakes_on_the_opponent_s_move(stack):
    """``GET /api/me/turns?wait=`` over the real stack: answered at once when a turn is there,
    held while the account may act nowhere, and woken by the opponent's verdict notice."""
    import time

    oya, ko = account(stack), account(stack)
    game = oya.create_game("nine-card", [oya.username, ko.username])
    ko.accept(game["id"])
    [turn] = oya.my_turns(wait=10)["turns"]  # Nine Card: both seats commit a card first
    assert turn["game"] == game["id"] and turn["moves"]
    assert oya.submit_move(game["id"], turn["moves"][0], wait=10)["status"] == "accepted"
    thread, out = in_thread(lambda: (oya.my_turns(wait=25), time.monotonic()))
    time.sleep(1.0)  # oya waits: its card is in, ko's is not
    assert thread.is_alive()
    [ko_turn] = ko.my_turns()["turns"]
    assert ko.submit_move(game["id"], ko_turn["moves"][0], wait=10)["status"] == "accepted"
    moved = time.monotonic()
    answer, answered = joined(thread, out, timeout=30)
    assert answered - moved < 5  # woken by the notice, not by the end of its 25 s
    assert [item["game"] for item in answer["turns"] + answer["waiting"]] == [game["id"]]
