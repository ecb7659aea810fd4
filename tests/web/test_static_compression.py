"""The pages' scripts and styles over HTTP from a real gunicorn, as bin/serve and the Docker image run it:
where collectstatic has run (KIFU_STATIC_COLLECTED=1) a browser that accepts gzip gets the gzip copy;
without it (the test stack, a fresh checkout) the files come straight from the apps' folders.

Each case is its own embedded Kifu (SQLite and STATIC_ROOT in a temporary folder): whitenoise reads its
settings once, when the process starts, so a setting changed in this process would test nothing.
"""

from __future__ import annotations

import gzip
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]
ASSETS = ["web/table.js", "web/boards.js", "web/play.js", "web/replay.js", "web/kifu.css"]


def embedded_env(var_dir: Path, collected: bool) -> dict[str, str]:
    """The test run's environment without the real stack's URLs: an embedded Kifu of its own."""
    env = {key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "REDIS_URL")}
    env.update(KIFU_VAR_DIR=str(var_dir), KIFU_STATIC_ROOT=str(var_dir / "static"))
    env.update(DJANGO_SETTINGS_MODULE="kifu.settings", KIFU_STATIC_COLLECTED="1" if collected else "0")
    return env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def serve(tmp_path):
    """``serve(collected)``: the base URL of a gunicorn on an embedded Kifu, after collectstatic if
    ``collected`` (as bin/serve does)."""
    started: list[subprocess.Popen] = []

    def start(collected: bool) -> str:
        env = embedded_env(tmp_path / ("collected" if collected else "fresh"), collected)
        if collected:
            collect = [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"]
            subprocess.run(collect, cwd=ROOT, env=env, check=True)
        port = free_port()
        gunicorn = Path(sys.executable).with_name("gunicorn")
        command = [str(gunicorn), "kifu.wsgi:application", "--bind", f"127.0.0.1:{port}", "--workers", "1"]
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        started.append(process)
        base = f"http://127.0.0.1:{port}"
        # A first request can wait while the worker still imports (a loaded machine): a read timeout
        # is "not yet", like a refused connection.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise AssertionError(f"gunicorn stopped: {process.stderr.read().decode()[-2000:]}")
            try:
                requests.get(f"{base}/healthz", timeout=5)
                return base
            except (requests.ConnectionError, requests.Timeout):
                time.sleep(0.2)
        raise AssertionError("gunicorn did not answer within 60 s")

    yield start
    for process in started:
        process.terminate()
        process.wait(timeout=10)


def fetch(base: str, asset: str, encoding: str) -> requests.Response:
    # stream=True and .raw: the body as sent, not as requests would decompress it
    response = requests.get(f"{base}/static/{asset}", headers={"Accept-Encoding": encoding}, stream=True, timeout=10)
    response.body = response.raw.read()
    return response


def test_collected_scripts_and_styles_are_served_gzipped(serve):
    base = serve(collected=True)
    for asset in ASSETS:
        source = (ROOT / "web" / "static" / asset).read_bytes()
        zipped = fetch(base, asset, "gzip, deflate, br")
        assert zipped.status_code == 200, asset
        assert zipped.headers.get("Content-Encoding") == "gzip", (asset, dict(zipped.headers))
        assert "Accept-Encoding" in zipped.headers.get("Vary", "")
        assert gzip.decompress(zipped.body) == source and len(zipped.body) < len(source) / 2, asset
        plain = fetch(base, asset, "identity")  # a client that does not accept gzip gets the file
        assert "Content-Encoding" not in plain.headers and plain.body == source, asset


def test_without_collectstatic_the_apps_files_are_served_as_they_are(serve):
    base = serve(collected=False)
    for asset in ASSETS:
        response = fetch(base, asset, "gzip")
        assert response.status_code == 200, asset
        assert "Content-Encoding" not in response.headers
        assert response.body == (ROOT / "web" / "static" / asset).read_bytes()
