"""The fast verdict path and fair deadlines on the real stack (issues 14 and 25).

- a waiting request gets its verdict over Redis (``kifu:verdict:<submission>``), also when the
  worker decided before anybody waited, and a request whose worker died answers 202 and the
  verdict comes once a worker is back;
- calls fired within +-20 ms of a window's deadline: every one stamped before the deadline is
  accepted and every one stamped after it is refused - however the close timer and the requests
  interleave.
"""

from __future__ import annotations

import random
import signal
import threading
import time
from datetime import datetime

import pytest
import redis
from django.conf import settings

from games.models import Submission
from kifu.devstack import wait_until

pytestmark = [pytest.mark.stack, pytest.mark.django_db]


def nine_card(players, config=None) -> tuple[str, dict]:
    game = players[0].create_game("nine-card", [p.name for p in players], config or {})
    return game["id"], game


def hand(player, game_id: str) -> list[str]:
    return [move["card"] for move in player.get(f"/api/games/{game_id}/legal-moves").json()["moves"]]


def test_a_waiting_request_gets_its_verdict_over_redis(stack, players):
    oya, ko = players(2)
    game_id, _ = nine_card([oya, ko])
    started = time.monotonic()
    response = oya.move(game_id, {"type": "commit_card", "card": hand(oya, game_id)[0]}, key="a", wait=5)
    assert response.status_code == 200, response.text
    assert time.monotonic() - started < 3
    body = response.json()
    assert body["status"] == "accepted" and body["event_seq"] == 2
    raw = redis.Redis.from_url(settings.REDIS_URL).lrange(f"kifu:verdict:{body['id']}", 0, -1)
    assert len(raw) == 1 and b'"accepted"' in raw[0]
    refused = oya.move(game_id, {"type": "commit_card", "card": "ZZ"}, key="b", wait=5)
    assert refused.status_code == 422 and refused.json()["submission"]["status"] == "rejected"


def test_a_verdict_published_while_nobody_waits_is_still_found(stack, players):
    oya, ko = players(2)
    game_id, _ = nine_card([oya, ko])
    move = {"type": "commit_card", "card": hand(oya, game_id)[0]}
    first = oya.move(game_id, move, key="k", wait=0)
    assert first.status_code in (200, 202)
    sid = first.json()["id"]
    wait_until(lambda: Submission.objects.get(public_id=sid).status != "pending", 10, "the worker's verdict")
    started = time.monotonic()
    detail = oya.get(f"/api/games/{game_id}/submissions/{sid}", wait=10)
    again = oya.move(game_id, move, key="k", wait=10)  # the same key: the first verdict
    assert time.monotonic() - started < 2
    assert detail.json()["status"] == again.json()["status"] == "accepted"
    assert again.json()["id"] == sid


def test_a_request_whose_worker_died_answers_pending_and_the_verdict_comes_later(stack, players):
    oya, ko = players(2)
    game_id, _ = nine_card([oya, ko])
    stack.worker.stop(signal.SIGKILL)
    try:
        started = time.monotonic()
        response = oya.move(game_id, {"type": "commit_card", "card": hand(oya, game_id)[0]}, key="x", wait=1.5)
        assert response.status_code == 202 and response.json()["status"] == "pending"
        assert time.monotonic() - started >= 1.4
    finally:
        stack.start_worker()
    sid = response.json()["id"]
    late = oya.get(f"/api/games/{game_id}/submissions/{sid}", wait=20)  # the sweeper queues it again
    assert late.json()["status"] == "accepted"


def test_calls_within_20_ms_of_the_deadline_are_judged_by_their_stamp(stack, players):
    """Each game's window closes 8 s after the deal; seat 0 commits at deadline + offset, offsets
    spread over -20..+20 ms, while the other seat plays in other games to keep the stack busy."""
    oya, ko = players(2)
    rng = random.Random(25)
    games = [nine_card([oya, ko], {"commit_seconds": 8})[0] for _ in range(16)]
    cards = {game_id: hand(oya, game_id)[0] for game_id in games}
    deadlines = {
        game_id: datetime.fromisoformat(oya.get(f"/api/games/{game_id}").json()["window"]["deadline_at"])
        for game_id in games
    }
    answers: dict[str, int] = {}
    busy = threading.Event()

    def fire(game_id: str, offset: float) -> None:
        target = deadlines[game_id].timestamp() + offset
        time.sleep(max(0.0, target - time.time() - 0.002))
        while time.time() < target:
            pass
        move = {"type": "commit_card", "card": cards[game_id]}
        answers[game_id] = oya.move(game_id, move, key="edge", wait=10).status_code

    def load() -> None:
        while not busy.is_set():  # reads and refused moves: web and worker stay busy
            game_id = rng.choice(games)
            ko.get(f"/api/games/{game_id}/state")
            ko.move(game_id, {"type": "commit_card", "card": "ZZ"}, wait=2)

    threads = [
        threading.Thread(target=fire, args=(game_id, -0.020 + 0.040 * index / (len(games) - 1)))
        for index, game_id in enumerate(games)
    ]
    loader = threading.Thread(target=load)
    loader.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    busy.set()
    loader.join(30)
    judged = {"early accepted": 0, "late refused": 0}
    for game_id in games:
        submission = Submission.objects.get(game_id=game_id, idempotency_key="edge")
        early = submission.received_at < deadlines[game_id]
        assert submission.status == ("accepted" if early else "rejected"), (
            f"{game_id}: received {submission.received_at.isoformat()} deadline {deadlines[game_id].isoformat()} "
            f"-> {submission.status} {submission.code}"
        )
        assert answers[game_id] == (200 if early else 422)
        judged["early accepted" if early else "late refused"] += 1
    assert judged["early accepted"] and judged["late refused"], judged  # both sides were exercised
