"""Validated moves per second through the API with a real worker, against an in-process baseline.

    .venv/bin/python bench/api_moves.py [--games 8] [--database-url postgres://postgres@127.0.0.1:5432/kifu_bench]
                                        [--redis-url redis://127.0.0.1:6379/14]

It makes a scratch PostgreSQL database, starts gunicorn (2 processes) + a Celery worker
(concurrency 2) + beat as separate processes, and has 2 client threads per game play Nine Card over
HTTP with ``?wait=`` (submit, validate in the worker, verdict). The baseline, in the same run and on
the same database, applies the same number of moves in-process through the services (no HTTP, no
queue). The database is dropped at the end.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.stackbench import account, admin_sql, stack_env


def http_setup(base_url: str):
    """Two accounts and a started game; done before the clock starts (password hashing is slow)."""
    import requests

    sessions = []
    for _ in range(2):
        session = requests.Session()
        name, token = account(base_url, session=session)
        session.headers["Authorization"] = f"Token {token}"
        sessions.append((name, session))
    seats = [name for name, _ in sessions]
    game = sessions[0][1].post(f"{base_url}/api/games", json={"engine": "nine-card", "seats": seats}).json()["id"]
    accepted = sessions[1][1].post(f"{base_url}/api/games/{game}/accept")  # the second seat was an invitation
    assert accepted.status_code == 200, accepted.text
    return game, [session for _, session in sessions]


def http_play(base_url: str, game: str, sessions, count: list[int], lock: threading.Lock) -> None:
    def play(session):
        while True:
            moves = session.get(f"{base_url}/api/games/{game}/legal-moves").json()["moves"]
            if not moves:
                status = session.get(f"{base_url}/api/games/{game}").json()["status"]
                if status == "finished":
                    return
                time.sleep(0.005)
                continue
            body = {"move": moves[0], "idempotency_key": uuid.uuid4().hex}
            verdict = session.post(f"{base_url}/api/games/{game}/moves", json=body, params={"wait": 10})
            if verdict.status_code == 200:
                with lock:
                    count[0] += 1

    threads = [threading.Thread(target=play, args=(s,)) for s in sessions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def in_process_moves(target: int) -> tuple[int, float]:
    from django.contrib.auth import get_user_model

    from games import selectors, services
    from kifu.celery import app

    User = get_user_model()
    app.conf.task_always_eager = True  # the commit hook validates in-process, as embedded mode does
    done, elapsed = 0, 0.0
    while done < target:
        users = [User.objects.create_user(username=f"i{uuid.uuid4().hex[:10]}") for _ in range(2)]
        game = services.game_create(engine_slug="nine-card", config={}, seats=users, created_by=users[0], consent=True)
        start = time.perf_counter()
        while done < target:
            game.refresh_from_db()
            if game.is_finished:
                break
            seat = game.actors[0]
            move = selectors.legal_moves(game=game, seat=seat)[0]
            services.move_submit(game_id=game.pk, user=users[seat], move=move, idempotency_key=uuid.uuid4().hex)
            done += 1
        elapsed += time.perf_counter() - start
    return done, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8, help="games played at once over HTTP")
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/kifu_bench")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/14")
    args = parser.parse_args()

    name = urlsplit(args.database_url).path.lstrip("/")
    admin_sql(args.database_url, f'DROP DATABASE IF EXISTS "{name}"')
    admin_sql(args.database_url, f'CREATE DATABASE "{name}"')
    # Its own KIFU_SECRET_KEY (the real stack refuses to start without one) and no throttling.
    env = stack_env(args.database_url, args.redis_url, "kifu-bench")
    os.environ.update(env)
    import django

    django.setup()
    import redis
    from django.core.management import call_command

    from kifu.devstack import Stack

    call_command("migrate", verbosity=0)
    redis.Redis.from_url(args.redis_url).flushdb()
    stack = Stack(env, Path(tempfile.mkdtemp(prefix="kifu-bench-")), f"kifu-bench-{uuid.uuid4().hex[:6]}@%h")
    try:
        stack.start()
        count, lock = [0], threading.Lock()
        games = [http_setup(stack.base_url) for _ in range(args.games)]
        start = time.perf_counter()
        threads = [threading.Thread(target=http_play, args=(stack.base_url, *g, count, lock)) for g in games]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        http_seconds = time.perf_counter() - start
        baseline_moves, baseline_seconds = in_process_moves(count[0])
    finally:
        stack.stop()
        from django.db import connections

        connections.close_all()
        admin_sql(args.database_url, f'DROP DATABASE IF EXISTS "{name}"')
    api_rate, base_rate = count[0] / http_seconds, baseline_moves / baseline_seconds
    print(f"API + worker : {count[0]} validated moves in {http_seconds:.2f} s = {api_rate:,.0f} moves/s", end="")
    print(f" ({args.games} games at once)")
    print(f"in-process   : {baseline_moves} moves in {baseline_seconds:.2f} s = {base_rate:,.0f} moves/s", end="")
    print(" (services, one thread)")
    print(f"ratio API/in-process: {api_rate / base_rate:.2f}")


if __name__ == "__main__":
    main()
