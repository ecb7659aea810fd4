"""The real stack end to end: gunicorn, a Celery worker, beat, PostgreSQL and Redis, over HTTP."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections import Counter

import pytest
import redis
from django.conf import settings

from games.records import replay_record, verify_chance
from kifu.devstack import wait_until

from ..conftest import Player

# django_db makes pytest-django create the test database the stack processes use. Not
# transaction=True: its flush would TRUNCATE the append-only event table.
pytestmark = [pytest.mark.stack, pytest.mark.django_db]


def play_out(game_id: str, seats: list[Player]) -> dict:
    """Both players commit a legal card every turn until the game ends; returns the game."""
    for _ in range(40):
        game = seats[0].get(f"/api/games/{game_id}").json()
        if game["status"] == "finished":
            return game
        for player in seats:
            moves = player.get(f"/api/games/{game_id}/legal-moves").json()["moves"]
            if moves:
                response = player.move(game_id, moves[-1])
                assert response.status_code == 200, response.text
                assert response.json()["status"] == "accepted"
    raise AssertionError("the game did not end")


def test_two_api_clients_play_a_whole_game(stack, players):
    oya, ko = players(2)
    game = oya.create_game("nine-card", [oya.name, None])
    assert game["status"] == "open" and game["head_seq"] == 0
    joined = ko.post(f"/api/games/{game['id']}/join")
    assert joined.status_code == 200, joined.text
    assert joined.json()["status"] == "running" and joined.json()["actors"] == [0, 1]
    game_id = game["id"]

    # Each player sees its own hand only; the deal event is redacted per seat.
    oya_hand = oya.get(f"/api/games/{game_id}/state").json()["view"]["players"][0]["hand"]
    ko_state = ko.get(f"/api/games/{game_id}/state").json()
    assert ko_state["seat"] == 1 and ko_state["view"]["players"][0]["hand"] is None
    deal = ko.get(f"/api/games/{game_id}/events").json()[0]
    assert deal["seq"] == 1 and deal["data"]["hands"][0] is None and "hash" not in deal
    # A committed card stays hidden from the opponent until both have committed.
    committed = oya.move(game_id, {"type": "commit_card", "card": oya_hand[0]})
    assert committed.status_code == 200 and committed.json()["event_seq"] == 2
    ko_text = json.dumps([ko.get(f"/api/games/{game_id}/state").json(), ko.get(f"/api/games/{game_id}/events").json()])
    assert not any(f'"{card}"' in ko_text for card in oya_hand)
    spectator_text = json.dumps(Player(stack.base_url).get(f"/api/games/{game_id}/state").json())
    assert not any(f'"{card}"' in spectator_text for card in oya_hand)
    assert ko.get(f"/api/games/{game_id}/record").status_code == 409

    final = play_out(game_id, [oya, ko])
    assert final["outcome"]["ranking"] and final["seed"] and final["head_hash"]

    record = oya.get(f"/api/games/{game_id}/record")
    assert record.status_code == 200
    replay = replay_record(record.text.splitlines())
    assert replay.outcome_json() == final["outcome"]
    assert verify_chance(replay.record) == []
    check = ko.get(f"/api/games/{game_id}/verification").json()
    assert check["ok"] and check["chain_ok"] and check["chance_ok"] and check["seed_ok"], check
    late = oya.move(game_id, {"type": "commit_card", "card": "AS"})
    assert late.status_code == 422 and late.json()["code"] == "game_over"


def test_racing_submissions_keep_the_log_consistent(stack, players):
    """Many threads submit at once: gapless seqs, one verdict per key, nothing applied twice."""
    oya, ko = players(2)
    game_id = oya.create_game("nine-card", [oya.name, ko.name])["id"]
    answers: list[tuple[str, str, int, dict]] = []
    lock = threading.Lock()

    def submit(player: Player, move: dict, key: str) -> None:
        response = player.move(game_id, move, key=key, wait=15)
        with lock:
            answers.append((player.name, key, response.status_code, response.json()))

    for burst in range(12):
        if oya.get(f"/api/games/{game_id}").json()["status"] == "finished":
            break
        threads = []
        for player in (oya, ko):
            state = player.get(f"/api/games/{game_id}/state").json()
            seat = state["seat"]
            hand = state["view"]["players"][seat]["hand"]
            if not hand:  # committed its last card; the other player has not yet
                continue
            for card in hand:  # every card at once: only one commit per turn may stand
                move = {"type": "commit_card", "card": card}
                threads.append(threading.Thread(target=submit, args=(player, move, f"{burst}-{card}")))
            first = {"type": "commit_card", "card": hand[0]}
            for _ in range(3):  # the same key three more times: one submission, one verdict
                threads.append(threading.Thread(target=submit, args=(player, first, f"{burst}-{hand[0]}")))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    assert oya.get(f"/api/games/{game_id}").json()["status"] == "finished"
    events = oya.get(f"/api/games/{game_id}/events").json()
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    by_key: dict[tuple[str, str], set[str]] = {}
    for name, key, status, body in answers:
        submission = body.get("submission", body)
        assert status in (200, 422), body
        by_key.setdefault((name, key), set()).add(submission["id"])
    assert all(len(ids) == 1 for ids in by_key.values()), "one key must give one submission"
    accepted = {}
    for _name, _key, status, body in answers:
        if status == 200:
            accepted[body["id"]] = body["event_seq"]
    moves = [e for e in events if e["kind"] == "move"]
    assert sorted(accepted.values()) == [e["seq"] for e in moves], "each accepted move is exactly one event"
    codes = Counter(body["code"] for _n, _k, status, body in answers if status == 422)
    assert set(codes) <= {"already_committed", "card_not_in_hand", "game_over"}, codes
    assert oya.get(f"/api/games/{game_id}/verification").json()["ok"]


def test_commit_window_closes_by_timer(stack, players):
    oya, ko = players(2)
    game_id = oya.create_game("nine-card", [oya.name, ko.name], {"commit_seconds": 0.8})["id"]
    game = oya.get(f"/api/games/{game_id}").json()
    assert game["window"]["id"] == "turn-1" and game["window"]["deadline_at"]
    card = oya.get(f"/api/games/{game_id}/legal-moves").json()["moves"][0]
    assert oya.move(game_id, card).status_code == 200
    finished = wait_until(
        lambda: (g := oya.get(f"/api/games/{game_id}").json())["status"] == "finished" and g, 10, "the timer"
    )
    assert finished["outcome"]["ranking"] == [[0], [1]]
    assert finished["outcome"]["detail"] == {"reason": "timeout", "rounds": [], "forfeits": [1]}
    last = oya.get(f"/api/games/{game_id}/events").json()[-1]
    assert last["kind"] == "system" and last["data"] == {"type": "close_window", "window": "turn-1"}
    late = ko.move(game_id, {"type": "commit_card", "card": "AH"})
    assert late.status_code == 422 and late.json()["code"] == "game_over"


def test_moves_wait_for_a_stopped_worker(stack, players):
    """With the worker down a move stays pending (202); a new worker picks the queued task up."""
    oya, ko = players(2)
    game_id = oya.create_game("nine-card", [oya.name, ko.name])["id"]
    move = oya.get(f"/api/games/{game_id}/legal-moves").json()["moves"][0]
    stack.worker.stop()
    try:
        pending = oya.move(game_id, move, key="k1", wait=1)
        assert pending.status_code == 202, pending.text
        assert pending.json()["status"] == "pending" and pending.headers["Location"] == pending.json()["url"]
    finally:
        stack.start_worker()
    url = pending.json()["url"]
    decided = oya.http.get(url, params={"wait": 20}, timeout=30).json()
    assert decided["status"] == "accepted" and decided["event_seq"] == 2
    again = oya.move(game_id, move, key="k1")
    assert again.json()["id"] == pending.json()["id"]


def test_stream_announces_new_events(stack, players):
    oya, ko = players(2)
    game_id = oya.create_game("nine-card", [oya.name, ko.name])["id"]
    pubsub = redis.Redis.from_url(settings.REDIS_URL).pubsub()
    pubsub.subscribe(f"kifu:game:{game_id}")
    pubsub.get_message(timeout=1)  # the subscribe confirmation
    move = oya.get(f"/api/games/{game_id}/legal-moves").json()["moves"][0]
    assert oya.move(game_id, move).status_code == 200
    message = wait_until(lambda: pubsub.get_message(timeout=0.5), 10, "a stream message")
    notice = json.loads(message["data"])
    assert notice == {"game": game_id, "seq": 2, "window": None, "finished": False}
    pubsub.close()


def test_unknown_routes_and_bad_ids_are_json_404s(stack):
    visitor = Player(stack.base_url)
    for path in ("/api/nothing", f"/api/games/{uuid.uuid4()}", "/api/games/not-a-uuid/state"):
        response = visitor.get(path)
        assert response.status_code == 404
        assert response.json()["code"] == "not_found"


def test_worker_timing_does_not_decide_fairness(stack, players):
    """Moves received before the deadline count even if the worker gets to them after it."""
    oya, ko = players(2)
    stack.worker.stop()  # before the game exists, so stopping it cannot eat into the window
    try:
        game_id = oya.create_game("nine-card", [oya.name, ko.name], {"commit_seconds": 2})["id"]
        game = oya.get(f"/api/games/{game_id}").json()
        moves = [p.get(f"/api/games/{game_id}/legal-moves").json()["moves"][0] for p in (oya, ko)]
        first = oya.move(game_id, moves[0], wait=0)
        second = ko.move(game_id, moves[1], wait=0)
        assert first.status_code == second.status_code == 202
        received = [first.json()["received_at"], second.json()["received_at"]]
        assert all(at < game["window"]["deadline_at"] for at in received), (received, game["window"])
        time.sleep(2.5)  # the deadline passes while nobody can process the moves
    finally:
        stack.start_worker()
    verdicts = [
        p.http.get(r.json()["url"], params={"wait": 20}, timeout=30).json() for p, r in ((oya, first), (ko, second))
    ]
    assert [(v["status"], v["event_seq"]) for v in verdicts] == [("accepted", 2), ("accepted", 3)], verdicts
    events = oya.get(f"/api/games/{game_id}/events").json()
    closes = [e["data"]["window"] for e in events if e["kind"] == "system"]
    assert "turn-1" not in closes  # (turn 2 may time out later on a slow machine; that is fair too)
