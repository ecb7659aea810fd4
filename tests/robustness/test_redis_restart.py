"""Redis goes away and comes back (issue 15, part 2): the API answers 503, the worker rides it out.

The test runs its own redis-server on a free port (the shared one on 6379 is never touched) and its
own gunicorn, Celery worker and beat against the test database. While Redis is down, requests that
need it - a move (its task is queued on commit), anything the throttle counts - answer
``503 service_unavailable`` with ``Retry-After``, never 500. After Redis is back the same worker
process (never restarted by hand) decides moves again, and a move refused during the outage is
accepted when the client retries it with the same idempotency key. Bounded: about 30 s.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
import uuid

import pytest
import requests

from kifu.devstack import Process, Stack, wait_until

from ..conftest import Player
from .own_services import OwnRedis, require

pytestmark = [pytest.mark.stack, pytest.mark.django_db]


@pytest.fixture
def restartable(django_db_setup, django_db_blocker, tmp_path):
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL")
    require("a redis-server binary", shutil.which("redis-server") is not None)
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute("SELECT current_database()")
        (name,) = cursor.fetchone()
    assert name.startswith("test_")
    db = connection.settings_dict
    own = OwnRedis(tmp_path)
    own.start()
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{name}",
        "REDIS_URL": own.url,
        "KIFU_QUEUE": f"kifu-redis-restart-{uuid.uuid4().hex[:6]}",
        "KIFU_SUBMISSION_REQUEUE_SECONDS": "1",
        "PYTHONUNBUFFERED": "1",
    }
    stack = Stack(env, tmp_path, f"kifu-restart-{uuid.uuid4().hex[:6]}@%h", web_workers=1, concurrency=1)
    try:
        stack.web.start()
        wait_until(lambda: requests.get(f"{stack.base_url}/api/engines", timeout=2).ok, 60, "gunicorn")
        stack.worker.start()  # ready when its log says so (a ping would go to the shared Redis)
        wait_until(lambda: " ready." in stack.worker.log.read_text(errors="replace"), 60, "the worker")
        stack.beat.start()
        yield stack, own
    except BaseException:
        print(stack.logs(), file=sys.stderr)
        raise
    finally:
        stack.stop()
        own.stop()


def alive(process: Process) -> bool:
    return process.popen is not None and process.popen.poll() is None


def test_the_api_answers_503_while_redis_is_down_and_the_worker_rides_out_a_restart(restartable):
    stack, own = restartable
    oya, ko = Player(stack.base_url), Player(stack.base_url)
    game = oya.create_game("nine-card", [oya.name, ko.name])
    game_id = game["id"]
    hand = oya.get(f"/api/games/{game_id}/state").json()["view"]["players"][0]["hand"]
    first = oya.move(game_id, {"type": "commit_card", "card": hand[0]})
    assert first.status_code == 200 and first.json()["status"] == "accepted", first.text

    own.stop()
    ko_hand = ko.get(f"/api/games/{game_id}/state")
    assert ko_hand.status_code == 503  # the throttle cannot count it
    move = {"type": "commit_card", "card": None}
    down = ko.move(game_id, move, key="during-the-outage", wait=2)
    assert down.status_code == 503, down.text
    assert down.json()["code"] == "service_unavailable" and int(down.headers["Retry-After"]) >= 1
    anonymous = requests.get(f"{stack.base_url}/api/games", timeout=30)
    assert anonymous.status_code == 503 and anonymous.json()["code"] == "service_unavailable"
    time.sleep(3)  # the worker and beat notice the broker is gone and keep trying

    own.start()
    state = wait_until(lambda: ko.get(f"/api/games/{game_id}/state").json(), 20, "the API to answer again")
    move["card"] = state["view"]["players"][1]["hand"][0]
    deadline = time.monotonic() + 25
    while True:  # the client retries with the same key until the worker decides it
        retried = ko.move(game_id, move, key="during-the-outage", wait=5)
        if retried.status_code == 200 or time.monotonic() > deadline:
            break
        assert retried.status_code in (202, 503), retried.text
        time.sleep(0.5)
    assert retried.status_code == 200 and retried.json()["status"] == "accepted", (retried.text, stack.logs())
    assert alive(stack.worker) and alive(stack.beat) and alive(stack.web), stack.logs()
    assert "Unrecoverable error" not in stack.worker.log.read_text(errors="replace"), stack.logs()
    check = oya.get(f"/api/games/{game_id}/verification").json()
    assert check["ok"] and check["chain_ok"], check
