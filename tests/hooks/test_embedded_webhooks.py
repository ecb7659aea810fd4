"""Webhooks in embedded mode (no DATABASE_URL, no REDIS_URL): the timer thread sends and retries them."""

from __future__ import annotations

import os
import subprocess
import sys

import requests

from kifu.devstack import BIN, ROOT, Process, free_port, wait_until

from ..conftest import Player


def test_embedded_mode_delivers_and_retries_webhooks(tmp_path, receiver):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "KIFU_QUEUE")}
    env.update(KIFU_VAR_DIR=str(tmp_path), PYTHONUNBUFFERED="1", KIFU_WEBHOOK_BACKOFF_SECONDS="0.5")
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
        target = receiver([503])
        hook = ko.post("/api/webhooks", {"url": target.url, "events": ["game_started"]}).json()
        target.secret = hook["secret"]
        game_id = oya.create_game("nine-card", [oya.name, ko.name])["id"]
        received = target.wait_for(lambda got: any(r.answered == 200 for r in got), timeout=30)
        assert [r.answered for r in received] == [503, 200] and all(r.signed for r in received)
        assert received[0].json["data"]["game"] == game_id and received[0].body == received[1].body
    finally:
        web.stop()
        print(web.tail())
