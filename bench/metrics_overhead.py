"""What django-prometheus costs on the request path: CPU per request and per query, metrics on and off.

    .venv/bin/python bench/metrics_overhead.py [--requests 2000] [--queries 5000] [--rounds 5]
                                               [--database-url postgres://postgres@127.0.0.1:5432/postgres]

Each round starts two fresh processes, one with ``KIFU_METRICS`` and ``KIFU_METRICS_QUERIES`` true
and one with both ``false``
(alternating which goes first), and in each: ``--requests`` GETs of ``/api/engines`` through the
whole middleware stack with Django's test client (no database), then ``--queries`` ``SELECT 1``
on the database (django-prometheus's backend counts each). CPU time (``time.process_time``), so
the other load on the machine counts less; min and median of the rounds are printed, with the
difference per request and per query. Needs only a PostgreSQL it can connect to (no migrations).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import json, os, sys, time
import django
os.environ["DJANGO_SETTINGS_MODULE"] = "kifu.settings"
django.setup()
from django.db import connection
from django.test import Client
requests, queries = int(sys.argv[1]), int(sys.argv[2])
client = Client()
for _ in range(50):
    assert client.get("/api/engines").status_code == 200
started = time.process_time()
for _ in range(requests):
    client.get("/api/engines")
per_request = (time.process_time() - started) / requests
with connection.cursor() as cursor:
    for _ in range(200):
        cursor.execute("SELECT 1")
    started = time.process_time()
    for _ in range(queries):
        cursor.execute("SELECT 1")
        cursor.fetchone()
    per_query = (time.process_time() - started) / queries
print(json.dumps({"request": per_request, "query": per_query, "engine": connection.settings_dict["ENGINE"]}))
"""


def run(metrics: bool, args) -> dict:
    env = {
        **os.environ,
        "KIFU_METRICS": "true" if metrics else "false",
        "KIFU_METRICS_QUERIES": "true" if metrics else "false",
        "DATABASE_URL": args.database_url,
        "REDIS_URL": "",
        "KIFU_DEBUG": "true",  # no secret key needed for a scratch process
        "KIFU_THROTTLE_ANON": "100000000/day",  # the loop is one client: no 429s
    }
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(args.requests), str(args.queries)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args()
    results = {True: [], False: []}
    for round_ in range(args.rounds):
        for metrics in (True, False) if round_ % 2 == 0 else (False, True):
            results[metrics].append(run(metrics, args))
    print(f"engines: on={results[True][0]['engine']} off={results[False][0]['engine']}")
    for what, unit in (("request", "request"), ("query", "query")):
        on = [r[what] * 1e6 for r in results[True]]
        off = [r[what] * 1e6 for r in results[False]]
        print(
            f"CPU us per {unit}: metrics on min {min(on):.1f} median {statistics.median(on):.1f} | "
            f"off min {min(off):.1f} median {statistics.median(off):.1f} | "
            f"cost min {min(on) - min(off):+.1f} median {statistics.median(on) - statistics.median(off):+.1f}"
        )


if __name__ == "__main__":
    main()
