"""Quick pairing's cost on PostgreSQL (issue 19): players quick-pair into 3-seat Satori tables.

    .venv/bin/python bench/lobby.py                    # 300 players in turn, then 300 on 6 threads
    .venv/bin/python bench/lobby.py --players 90 --threads 3 \\
        --server-url postgres://postgres@127.0.0.1:5432/postgres

Makes a scratch database on the server of ``--server-url`` (trust auth), migrates it, measures in
this process (services only, no HTTP), and drops it at exit. Figures: wall time per call (median,
p95) and queries per call when players come one after another; then calls per second, and how many
tables opened, filled and were left open, when ``--threads`` threads pair at once (every table
full and none left open shows the pool's advisory lock at work). Nothing here is a test; the machine
is noisy, so compare runs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def measure(players: int, threads: int) -> None:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from lobby import services
    from lobby.models import Seek

    make = get_user_model().objects.create_user
    tag = uuid.uuid4().hex[:6]
    users = [make(username=f"b{tag}{i}") for i in range(2 * players)]

    def pair(user, clock):
        services.quick_pair(user=user, engine_slug="satori", seats=3, rated=False, time_control=clock)

    clock = {"per_move_seconds": 101}
    times, queries = [], []
    for user in users[:players]:
        with CaptureQueriesContext(connection) as seen:
            start = time.perf_counter()
            pair(user, clock)
            times.append(time.perf_counter() - start)
        queries.append(len(seen))
    times.sort()
    print(
        f"one after another: {players} calls, median {1000 * times[players // 2]:.1f} ms, "
        f"p95 {1000 * times[int(players * 0.95)]:.1f} ms; queries per call {min(queries)}-{max(queries)} "
        f"(mean {sum(queries) / players:.1f})"
    )

    rest, clock = users[players:], {"per_move_seconds": 102}

    def run(chunk):
        for user in chunk:
            pair(user, clock)
        connection.close()

    workers = [threading.Thread(target=run, args=(rest[i::threads],)) for i in range(threads)]
    start = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    elapsed = time.perf_counter() - start
    seeks = Seek.objects.filter(entries__user__in=rest).distinct()
    print(
        f"{threads} threads at once: {players} calls in {elapsed:.2f} s ({players / elapsed:.0f}/s); "
        f"tables {seeks.count()}, filled {seeks.filter(status='filled').count()}, "
        f"left open {seeks.filter(status='open').count()}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=300)
    parser.add_argument("--threads", type=int, default=6)
    parser.add_argument("--server-url", default="postgres://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args()
    server, name = args.server_url.rsplit("/", 1)[0], f"kifu_bench_lobby_{uuid.uuid4().hex[:8]}"
    psql = ["psql", args.server_url, "-q", "-c"]
    subprocess.run([*psql, f"CREATE DATABASE {name}"], check=True)
    try:
        os.environ.update(
            DATABASE_URL=f"{server}/{name}",
            DJANGO_SETTINGS_MODULE="kifu.settings",
            KIFU_SECRET_KEY=os.environ.get("KIFU_SECRET_KEY") or f"bench-{uuid.uuid4().hex}{uuid.uuid4().hex}",
            KIFU_TEST_FAST_PASSWORD_HASHER="1",
        )
        os.environ.pop("REDIS_URL", None)
        sys.path.insert(0, str(ROOT))
        import django
        from django.core.management import call_command

        django.setup()
        call_command("migrate", verbosity=0)
        measure(args.players, args.threads)
        from django.db import connections

        connections.close_all()
    finally:
        subprocess.run([*psql, f"DROP DATABASE IF EXISTS {name}"], check=False)


if __name__ == "__main__":
    main()
