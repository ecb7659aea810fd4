"""Chaos (issue 15, standing suite): the worker is SIGKILLed three times mid-load, the test's own
Redis and its own PostgreSQL are restarted once each; nothing accepted is lost or applied twice.

The test runs its own PostgreSQL cluster (initdb in a temporary directory) and redis-server on free
ports (own_services.py; the shared 5432/6379 are never touched), and its own gunicorn, Celery worker
and beat against them. Client threads play Nine Card games without pause while the chaos runs, each
move with an idempotency key, retrying with the SAME key on 503, a 202 (still pending) or a dropped
connection - the client contract. Afterwards, in the database: every verdict a client was told
``accepted`` is one move event at the seq it was told (0 lost), there is one move event per accepted
submission (0 double-applied), the sequences are gapless, one key gave one submission, no submission
is still pending a bounded time after the chaos, and ``manage.py kifu verify --all`` passes for every
game. Bounded: 25-60 s here.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter, defaultdict

import psycopg
import pytest
import requests

from kifu.devstack import ROOT, Stack, wait_until

from ..conftest import Player
from .own_services import OwnPostgres, OwnRedis, require

pytestmark = [pytest.mark.stack]

GAMES_AT_ONCE = 3
SETTLE_SECONDS = 30  # every submission is terminal this long after the chaos ends, at the latest


@pytest.fixture
def chaos_stack(tmp_path):
    require("a redis-server binary", shutil.which("redis-server") is not None)
    require("PostgreSQL's initdb and pg_ctl (/usr/lib/postgresql/15/bin)", OwnPostgres.available())
    own_redis, own_pg = OwnRedis(tmp_path), OwnPostgres()
    stack = None
    try:
        own_redis.start()
        own_pg.init()
        env = {
            **os.environ,
            "DATABASE_URL": own_pg.url,
            "REDIS_URL": own_redis.url,
            "KIFU_QUEUE": f"kifu-chaos-{uuid.uuid4().hex[:6]}",
            "KIFU_SUBMISSION_REQUEUE_SECONDS": "1",
            "PYTHONUNBUFFERED": "1",
        }
        own_pg.migrate(env)
        stack = Stack(env, tmp_path, f"kifu-chaos-{uuid.uuid4().hex[:6]}@%h", web_workers=2, concurrency=2)
        stack.web.start()
        wait_until(lambda: requests.get(f"{stack.base_url}/api/engines", timeout=2).ok, 60, "gunicorn")
        start_worker(stack)
        stack.beat.start()
        yield stack, own_redis, own_pg
    except BaseException:
        if stack is not None:
            print(stack.logs(), file=sys.stderr)
        raise
    finally:
        if stack is not None:
            stack.stop()
        own_redis.stop()
        own_pg.destroy()


def start_worker(stack: Stack) -> None:
    """Start the worker; ready when its log says so once more (a ping would go to the shared Redis)."""
    ready = stack.worker.log.read_text(errors="replace").count(" ready.") if stack.worker.log.exists() else 0
    stack.worker.start()
    wait_until(lambda: stack.worker.log.read_text(errors="replace").count(" ready.") > ready, 60, "the worker")


class Load:
    """Client threads playing Nine Card games back to back until told to stop, with the client contract."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.accepted: list[tuple[str, str, int]] = []  # (game, submission id, event seq) as the client was told
        self.by_key: dict[tuple[str, str], set[str]] = defaultdict(set)
        self.statuses: Counter = Counter()
        self.errors: list[str] = []

    def call(self, method, *args, **kwargs):
        """One request, retried on 503 and dropped connections (never on anything else)."""
        for _ in range(600):
            try:
                response = method(*args, timeout=10, **kwargs)
            except requests.RequestException:
                with self.lock:
                    self.statuses["connection"] += 1
                time.sleep(0.2)
                continue
            with self.lock:
                self.statuses[response.status_code] += 1
            if response.status_code != 503:
                return response
            time.sleep(0.2)
        raise AssertionError("no answer for two minutes")

    def submit(self, player: Player, game_id: str, move: dict, key: str) -> dict:
        """Submit until the verdict is terminal, always with the same key."""
        url = f"{self.base_url}/api/games/{game_id}/moves"
        for _ in range(300):
            body = {"move": move, "idempotency_key": key}
            response = self.call(player.http.post, url, json=body, params={"wait": 3})
            assert response.status_code in (200, 202, 422), (response.status_code, response.text)
            answer = response.json()
            submission = answer.get("submission", answer)
            with self.lock:
                self.by_key[(player.name, key)].add(submission["id"])
            if response.status_code == 200:
                with self.lock:
                    self.accepted.append((game_id, answer["id"], answer["event_seq"]))
                return answer
            if response.status_code == 422:
                return answer
        raise AssertionError(f"submission {key} never decided")

    def play(self, pair: list[Player]) -> None:
        try:
            while not self.stop.is_set():
                self.play_one(pair)
        except BaseException as error:  # reported by the test, not lost in the thread
            self.errors.append(repr(error))

    def play_one(self, pair: list[Player]) -> None:
        body = {"engine": "nine-card", "seats": [p.name for p in pair], "config": {}}
        created = self.call(pair[0].http.post, f"{self.base_url}/api/games", json=body)
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
        accept = self.call(pair[1].http.post, f"{self.base_url}/api/games/{game_id}/accept")
        if accept.status_code == 409 and accept.json().get("code") == "game_not_open":
            # A retry after a dropped connection whose first try was accepted and started the game
            # (once started, accepting again is refused): the client checks the game instead.
            started = self.call(pair[1].http.get, f"{self.base_url}/api/games/{game_id}")
            assert started.status_code == 200 and started.json()["status"] != "open", started.text
        else:
            assert accept.status_code == 200, accept.text
        turns = [0, 0]
        for _ in range(60):
            game = self.call(pair[0].http.get, f"{self.base_url}/api/games/{game_id}")
            assert game.status_code == 200, (game.status_code, game.text[:300])
            if game.json()["status"] == "finished":
                return
            for seat, player in enumerate(pair):
                legal = self.call(player.http.get, f"{self.base_url}/api/games/{game_id}/legal-moves")
                assert legal.status_code == 200, (legal.status_code, legal.text[:300])
                if legal.json()["moves"]:
                    self.submit(player, game_id, legal.json()["moves"][-1], f"{game_id[:8]}-{seat}-{turns[seat]}")
                    turns[seat] += 1
        raise AssertionError(f"game {game_id} did not end")


def test_nothing_accepted_is_lost_or_applied_twice_through_kills_and_restarts(chaos_stack):
    stack, own_redis, own_pg = chaos_stack
    load = Load(stack.base_url)
    pairs = [[Player(stack.base_url), Player(stack.base_url)] for _ in range(GAMES_AT_ONCE)]
    threads = [threading.Thread(target=load.play, args=(pair,), daemon=True) for pair in pairs]
    for thread in threads:
        thread.start()

    progress = []

    def moves_go_on(what: str) -> None:
        """Wait until the load has moves accepted after ``what`` (so each blow lands mid-load)."""
        count = len(load.accepted)
        wait_until(lambda: len(load.accepted) >= count + 4 or load.errors, 45, f"moves accepted after {what}")
        assert not load.errors, load.errors
        progress.append((what, count, len(load.accepted)))

    def kill_worker() -> None:
        stack.worker.stop(signal.SIGKILL)
        time.sleep(0.5)
        start_worker(stack)

    moves_go_on("the start")
    kill_worker()
    moves_go_on("the first worker kill")
    own_redis.stop()
    time.sleep(2)
    own_redis.start()
    moves_go_on("the Redis restart")
    kill_worker()
    moves_go_on("the second worker kill")
    own_pg.restart()
    moves_go_on("the PostgreSQL restart")
    kill_worker()
    moves_go_on("the third worker kill")
    load.stop.set()
    chaos_over = time.monotonic()
    for thread in threads:
        thread.join(90)
    assert not any(t.is_alive() for t in threads) and not load.errors, load.errors

    with psycopg.connect(own_pg.url, autocommit=True) as db:
        pending = "SELECT count(*) FROM games_submission WHERE status = 'pending'"
        wait_until(lambda: db.execute(pending).fetchone()[0] == 0, SETTLE_SECONDS, "every submission to be terminal")
        settled = time.monotonic() - chaos_over
        (games,) = db.execute("SELECT count(*) FROM games_game").fetchone()
        events = db.execute("SELECT game_id::text, seq, kind, seat FROM games_event ORDER BY game_id, seq").fetchall()
        submissions = db.execute(
            "SELECT public_id::text, game_id::text, seat, status, event_seq FROM games_submission"
        ).fetchall()

    seqs, moves = defaultdict(list), {}
    for game, seq, kind, seat in events:
        seqs[game].append(seq)
        if kind == "move":
            moves[(game, seq)] = seat
    assert all(found == list(range(1, len(found) + 1)) for found in seqs.values()), "gapless sequences"
    decided = {public_id: (game, seat, status, seq) for public_id, game, seat, status, seq in submissions}
    lost = [a for a in load.accepted if decided.get(a[1], (None,) * 4)[2:] != ("accepted", a[2])]
    assert lost == [], f"accepted verdicts missing from the database: {lost}"
    accepted_seqs = sorted((g, seq) for g, _seat, status, seq in decided.values() if status == "accepted")
    assert accepted_seqs == sorted(moves), "one move event per accepted submission, and no other"
    assert all(moves[(g, seq)] == seat for g, seat, status, seq in decided.values() if status == "accepted")
    assert all(len(ids) == 1 for ids in load.by_key.values()), "one key must give one submission"
    assert load.statuses[500] == 0, load.statuses

    verify = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "kifu", "verify", "--all"],
        cwd=ROOT,
        env=stack.env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert f"{games} of {games} games verified" in verify.stdout, verify.stdout
    print(
        f"chaos: {games} games, {len(load.accepted)} accepted moves, {len(submissions)} submissions,"
        f" settled {settled:.1f} s after the chaos; answers {dict(load.statuses)}; progress {progress}"
    )
