"""Run the arena against a scratch real stack: PostgreSQL + Redis + gunicorn + Celery worker + beat.

    python -m bots.arena_stack [--database-url postgres://postgres@127.0.0.1:5432/kifu_arena]
                               [--redis-url redis://127.0.0.1:6379/4]
                               --run "--engine nine-card --games 20 --bots heuristic,random" [--run ...]

It starts the stack the way the tests and bench/api_moves.py do (kifu.devstack.Stack: gunicorn
2 processes x 8 threads, a Celery worker of concurrency 2, beat) on a freshly created database
(dropped at the end; the Redis database is flushed), with the API rate limits lifted so the
bots measure the stack rather than the throttle. Then it runs ``python -m bots.arena`` once per
``--run`` (each gets ``--base-url`` of the stack added) and prints each summary as one JSON line.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shlex
import sys
import tempfile
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit


def _admin_sql(database_url: str, sql: str) -> None:
    import psycopg

    parts = urlsplit(database_url)
    with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as conn:
        conn.execute(sql)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots.arena_stack", description=__doc__.split("\n")[0])
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/kifu_arena")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/4")
    parser.add_argument("--run", action="append", required=True, help="arena arguments (quoted), repeatable")
    args = parser.parse_args(argv)
    name = urlsplit(args.database_url).path.lstrip("/")
    _admin_sql(args.database_url, f'DROP DATABASE IF EXISTS "{name}"')
    _admin_sql(args.database_url, f'CREATE DATABASE "{name}"')
    env = {**os.environ, "DATABASE_URL": args.database_url, "REDIS_URL": args.redis_url}
    env["KIFU_QUEUE"] = f"kifu-arena-{uuid.uuid4().hex[:6]}"
    env["KIFU_THROTTLE_USER"] = env["KIFU_THROTTLE_ANON"] = "1000000/minute"
    env["KIFU_SECRET_KEY"] = env.get("KIFU_SECRET_KEY") or secrets.token_urlsafe(50)  # a scratch stack's own
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kifu.settings")
    import django

    django.setup()
    import redis
    from django.core.management import call_command

    from kifu.devstack import Stack

    from . import arena

    call_command("migrate", verbosity=0)
    redis.Redis.from_url(args.redis_url).flushdb()
    logdir = Path(tempfile.mkdtemp(prefix="kifu-arena-"))
    stack = Stack(env, logdir, f"{env['KIFU_QUEUE']}@%h")
    failures = 0
    try:
        stack.start()
        for run in args.run:
            arena_args = [*shlex.split(run), "--base-url", stack.base_url, "--json"]
            print(f"$ python -m bots.arena {run}", flush=True)
            failures += arena.main(arena_args) != 0
    except BaseException:
        print(stack.logs(), file=sys.stderr)
        raise
    finally:
        stack.stop()
        from django.db import connections

        connections.close_all()
        _admin_sql(args.database_url, f'DROP DATABASE IF EXISTS "{name}"')
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
