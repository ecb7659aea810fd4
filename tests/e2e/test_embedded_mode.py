"""The embedded default (no DATABASE_URL, no REDIS_URL): SQLite, eager tasks and a timer thread."""

from __future__ import annotations

import os
import subprocess
import sys

import requests

from kifu.devstack import BIN, ROOT, Process, free_port, wait_until

from ..conftest import Player


def test_embedded_service_plays_and_closes_windows_on_time(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "KIFU_QUEUE")}
    env.update(KIFU_VAR_DIR=str(tmp_path), PYTHONUNBUFFERED="1")
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    port = free_port()
    web = Process(
        "embedded", [str(BIN / "gunicorn"), "kifu.wsgi:application", "-b", f"127.0.0.1:{port}"], env, tmp_path
    )
    web.start()
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until(lambda: requests.get(f"{base}/api/engines", timeout=2).ok, 30, "web")
        oya, ko = Player(base), Player(base)
        game_id = oya.create_game("nine-card", [oya.name, ko.name], {"commit_seconds": 0.5})["id"]
        card = oya.get(f"/api/games/{game_id}/legal-moves").json()["moves"][0]
        accepted = oya.move(game_id, card, wait=0)
        assert accepted.status_code == 200, accepted.text  # eager: decided within the request
        finished = wait_until(
            lambda: (g := oya.get(f"/api/games/{game_id}").json())["status"] == "finished" and g, 10, "the timer"
        )
        assert finished["outcome"]["detail"]["reason"] == "timeout"
        assert finished["outcome"]["ranking"] == [[0], [1]]
    finally:
        web.stop()
        print(web.tail())
