"""Shared pieces of the benchmarks that run the real stack (bench/pipeline.py, bench/api_moves.py).

Scratch PostgreSQL databases, the stack's environment, a ``Stack`` with the web and worker options
set, accounts over HTTP, percentiles, and a cleanup list that runs on normal exit, on an exception,
on Ctrl-C and on SIGTERM/SIGHUP (each started process lives in its own session and is killed with
its children; each scratch database is dropped).
"""

from __future__ import annotations

import os
import signal
import sys
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PASSWORD = "a-long-pass-1"


# ---- scratch databases ------------------------------------------------------------------------
def with_database(database_url: str, name: str) -> str:
    """``database_url`` pointing at database ``name``."""
    return urlunsplit(urlsplit(database_url)._replace(path=f"/{name}"))


def database_name(database_url: str) -> str:
    return urlsplit(database_url).path.lstrip("/")


def admin_sql(database_url: str, sql: str) -> None:
    """Run ``sql`` (autocommit) on the server of ``database_url``, connected to ``postgres``."""
    import psycopg

    with psycopg.connect(with_database(database_url, "postgres"), autocommit=True) as conn:
        conn.execute(sql)


def create_database(database_url: str) -> None:
    name = database_name(database_url)
    admin_sql(database_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin_sql(database_url, f'CREATE DATABASE "{name}"')


def drop_database(database_url: str) -> None:
    admin_sql(database_url, f'DROP DATABASE IF EXISTS "{database_name(database_url)}" WITH (FORCE)')


def scratch_url(server_url: str, prefix: str) -> str:
    """A fresh database name on the server of ``server_url`` (not created yet)."""
    return with_database(server_url, f"{prefix}_{uuid.uuid4().hex[:8]}")


# ---- cleanup ------------------------------------------------------------------------------------
class Cleanup:
    """Callbacks run once, last added first; SIGTERM and SIGHUP become KeyboardInterrupt so a
    ``try/finally`` around the run also covers a kill."""

    def __init__(self) -> None:
        self.callbacks: list[tuple[str, object]] = []
        self.done = False
        self.stack = None  # a kifu.devstack.Stack, set by the benchmark once it has one

    def add(self, what: str, callback) -> None:
        self.callbacks.append((what, callback))

    def install_signals(self) -> None:
        def interrupt(signum, frame):
            raise KeyboardInterrupt(f"signal {signum}")

        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, interrupt)

    def run(self) -> None:
        if self.done:
            return
        self.done = True
        # A second Ctrl-C while cleaning up must not leave processes or databases behind.
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            while self.callbacks:
                what, callback = self.callbacks.pop()
                try:
                    callback()
                except Exception as error:  # keep going: the other resources still need it
                    print(f"cleanup: {what} failed: {error!r}", file=sys.stderr)
        finally:
            signal.signal(signal.SIGINT, previous)


# ---- the stack ----------------------------------------------------------------------------------
def stack_env(database_url: str, redis_url: str, queue: str, **extra: str) -> dict:
    """The environment of the stack's processes (and of this process, for Django)."""
    env = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": redis_url, "KIFU_QUEUE": queue}
    env["KIFU_SECRET_KEY"] = f"bench-{uuid.uuid4().hex}"
    env["DJANGO_SETTINGS_MODULE"] = "kifu.settings"
    # A benchmark client makes far more requests than a person; the throttle must not answer 429.
    env["KIFU_THROTTLE_USER"] = env["KIFU_THROTTLE_ANON"] = "1000000/minute"
    env.update(extra)
    return env


def django_setup(env: dict) -> None:
    """Set up Django in this process against the same database and Redis as the stack."""
    os.environ.update(env)
    import django

    django.setup()


def set_flag(argv: list[str], flag: str, value) -> None:
    """Set ``flag value`` in an argv: replace the value if the flag is there, else append both."""
    if value is None:
        return
    if flag in argv:
        argv[argv.index(flag) + 1] = str(value)
    else:
        argv.extend([flag, str(value)])


def make_stack(
    env: dict,
    logdir: Path,
    *,
    web_workers: int = 2,
    web_threads: int = 8,
    pool: str | None = None,
    concurrency: int | None = None,
    prefetch: int | None = None,
):
    """A ``kifu.devstack.Stack`` (not started) with these gunicorn and Celery worker options;
    None leaves the setting's (or Celery's) default."""
    from kifu.devstack import Stack

    worker_name = f"{env['KIFU_QUEUE']}-{uuid.uuid4().hex[:6]}@%h"
    stack = Stack(env, logdir, worker_name, web_workers=web_workers, concurrency=concurrency or os.cpu_count() or 2)
    set_flag(stack.web.argv, "--threads", web_threads)
    worker_options(stack, pool=pool, concurrency=concurrency, prefetch=prefetch)
    return stack


def worker_options(stack, *, pool: str | None = None, concurrency: int | None = None, prefetch: int | None = None):
    """Change the worker's command line (takes effect at its next start)."""
    set_flag(stack.worker.argv, "--pool", pool)
    set_flag(stack.worker.argv, "--concurrency", concurrency)
    set_flag(stack.worker.argv, "--prefetch-multiplier", prefetch)


def restart_worker(stack, **options) -> None:
    stack.worker.stop()
    worker_options(stack, **options)
    stack.start_worker()


# ---- HTTP ---------------------------------------------------------------------------------------
def account(base_url: str, prefix: str = "b", session=None) -> tuple[str, str]:
    """A new account over HTTP: ``(username, token)``. Slow (password hashing): before the clock."""
    import requests

    session = session or requests.Session()
    name = f"{prefix}{uuid.uuid4().hex[:10]}"
    response = session.post(f"{base_url}/api/accounts", json={"username": name, "password": PASSWORD}, timeout=60)
    response.raise_for_status()
    return name, response.json()["token"]


def accounts(base_url: str, count: int, prefix: str = "b", parallel: int = 4) -> list[tuple[str, str]]:
    """``count`` accounts, a few at a time (the web processes hash passwords on both cores)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(parallel) as pool:
        return list(pool.map(lambda _: account(base_url, prefix), range(count)))


def auth(token: str) -> dict:
    return {"Authorization": f"Token {token}"}


# ---- figures ------------------------------------------------------------------------------------
def percentile(values, q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of ``values``; NaN when there are none."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(1, -(-len(ordered) * q // 100))  # ceil(n * q / 100), at least 1
    return ordered[min(int(rank), len(ordered)) - 1]


def median(values) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
