"""Shared fixtures: the real stack as separate processes, and HTTP players.

The ``stack`` fixture runs gunicorn, a Celery worker and Celery beat against pytest-django's test
database (PostgreSQL) and a Redis database, as separate processes - exactly what deploy/ runs. The
tests talk to it over HTTP only, so nothing is wrapped in a test transaction there.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until(check, timeout: float, what: str, interval: float = 0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            result = check()
        except Exception:
            result = None
        if result:
            return result
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


class Process:
    def __init__(self, name: str, argv: list[str], env: dict, logdir: Path) -> None:
        self.name, self.argv, self.env = name, argv, env
        self.log = logdir / f"{name}.log"
        self.popen: subprocess.Popen | None = None

    def start(self) -> None:
        handle = self.log.open("ab")
        self.popen = subprocess.Popen(
            self.argv, cwd=ROOT, env=self.env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True
        )

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15) -> None:
        if self.popen is None or self.popen.poll() is not None:
            return
        os.killpg(self.popen.pid, sig)
        try:
            self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait(timeout)

    def tail(self, lines: int = 40) -> str:
        if not self.log.exists():
            return ""
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


class Stack:
    def __init__(self, base_url: str, env: dict, logdir: Path, worker_name: str) -> None:
        self.base_url, self.env, self.logdir, self.worker_name = base_url, env, logdir, worker_name
        port = base_url.rsplit(":", 1)[1]
        self.web = Process(
            "web",
            [str(BIN / "gunicorn"), "kifu.wsgi:application", "-b", f"127.0.0.1:{port}", "-w", "2", "--threads", "8"],
            env,
            logdir,
        )
        self.worker = Process(
            "worker",
            [str(BIN / "celery"), "-A", "kifu", "worker", "-Q", env["KIFU_QUEUE"], "-n", worker_name]
            + ["--concurrency", "2", "--loglevel", "INFO", "--without-gossip", "--without-mingle"],
            env,
            logdir,
        )
        self.beat = Process(
            "beat",
            [str(BIN / "celery"), "-A", "kifu", "beat", "--loglevel", "INFO", "-s", str(logdir / "beat-schedule")],
            env,
            logdir,
        )

    def start_worker(self) -> None:
        from kifu.celery import app

        self.worker.start()
        wait_until(
            lambda: any(
                name.startswith(self.worker_name.split("@")[0])
                for reply in app.control.ping(timeout=0.5)
                for name in reply
            ),
            60,
            "the Celery worker to answer a ping",
        )

    def logs(self) -> str:
        return "\n".join(f"--- {p.name} ---\n{p.tail()}" for p in (self.web, self.worker, self.beat))


@pytest.fixture(scope="session")
def stack(django_db_setup, django_db_blocker, tmp_path_factory):
    from django.conf import settings
    from django.db import connection

    if connection.vendor != "postgresql" or not settings.REDIS_URL:
        raise RuntimeError("the stack tests need DATABASE_URL (PostgreSQL) and REDIS_URL: run bin/test")
    import redis

    redis.Redis.from_url(settings.REDIS_URL).flushdb()
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute("SELECT current_database()")  # the test database pytest-django made
        (name,) = cursor.fetchone()
    db = connection.settings_dict
    database_url = f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{name}"
    assert name.startswith("test_"), f"refusing to run the stack against a non-test database {name!r}"
    logdir = tmp_path_factory.mktemp("stack")
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": settings.REDIS_URL,
        "KIFU_QUEUE": settings.CELERY_TASK_DEFAULT_QUEUE,
        "KIFU_SUBMISSION_REQUEUE_SECONDS": "2",
        "PYTHONUNBUFFERED": "1",
    }
    stack = Stack(f"http://127.0.0.1:{free_port()}", env, logdir, f"kifu-test-{uuid.uuid4().hex[:8]}@%h")
    try:
        stack.web.start()
        wait_until(lambda: requests.get(f"{stack.base_url}/api/engines", timeout=2).ok, 60, "gunicorn")
        stack.start_worker()
        stack.beat.start()
        yield stack
    except BaseException:
        print(stack.logs(), file=sys.stderr)
        raise
    finally:
        for process in (stack.beat, stack.worker, stack.web):
            process.stop()


class Player:
    """An API client with its own account and token."""

    def __init__(self, base_url: str, name: str | None = None) -> None:
        self.base_url = base_url
        self.name = name or f"p{uuid.uuid4().hex[:10]}"
        self.http = requests.Session()
        response = self.http.post(f"{base_url}/api/accounts", json={"username": self.name, "password": "a-long-pass-1"})
        assert response.status_code == 201, response.text
        self.http.headers["Authorization"] = f"Token {response.json()['token']}"

    def get(self, path: str, **params):
        return self.http.get(f"{self.base_url}{path}", params=params, timeout=30)

    def post(self, path: str, body: dict | None = None, **params):
        return self.http.post(f"{self.base_url}{path}", json=body or {}, params=params, timeout=30)

    def create_game(self, engine: str, seats: list, config: dict | None = None) -> dict:
        response = self.post("/api/games", {"engine": engine, "seats": seats, "config": config or {}})
        assert response.status_code == 201, response.text
        return response.json()

    def move(self, game_id: str, move: dict, key: str | None = None, wait: float = 10):
        body = {"move": move, "idempotency_key": key or uuid.uuid4().hex}
        return self.post(f"/api/games/{game_id}/moves", body, wait=wait)


@pytest.fixture
def players(stack):
    def make(count: int) -> list[Player]:
        return [Player(stack.base_url) for _ in range(count)]

    return make
