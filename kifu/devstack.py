"""Run Kifu's real stack as local processes (gunicorn, Celery worker, beat) for tests and benchmarks,
or the embedded default as one gunicorn process (``embedded``)."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kifu.env import derived_checkpoint_key

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
# The deployed gunicorn settings (keep-alive, logs, metrics), so the tests run what operators run.
GUNICORN = [str(BIN / "gunicorn"), "-c", str(ROOT / "deploy" / "gunicorn.conf.py"), "kifu.wsgi:application"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until(check, timeout: float, what: str, interval: float = 0.1):
    """Call ``check`` until it returns something true (exceptions count as false) or time runs out."""
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
    """A child process in its own session (so a stop takes its children too), logging to a file."""

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
    """gunicorn + a Celery worker + beat sharing ``env`` (DATABASE_URL, REDIS_URL, KIFU_QUEUE)."""

    def __init__(self, env: dict, logdir: Path, worker_name: str, *, web_workers: int = 2, concurrency: int = 2):
        # The real stack refuses to start without a secret key of its own (kifu/env.py); a scratch
        # stack gets a random one unless the caller set it.
        env = {**env, "KIFU_SECRET_KEY": env.get("KIFU_SECRET_KEY") or secrets.token_urlsafe(50)}
        # Likewise the checkpoint signing key (games/checkpoints.py): the caller's, else the one a
        # process with the same KIFU_SECRET_KEY derives, so the caller can check what the stack signed.
        if not env.get("KIFU_CHECKPOINT_KEY_FILE"):
            env["KIFU_CHECKPOINT_KEY"] = env.get("KIFU_CHECKPOINT_KEY") or derived_checkpoint_key(
                env["KIFU_SECRET_KEY"]
            )
        self.env, self.logdir, self.worker_name = env, logdir, worker_name
        port = free_port()
        self.base_url = f"http://127.0.0.1:{port}"
        gunicorn = [*GUNICORN, "-b", f"127.0.0.1:{port}"]
        # --timeout: on a loaded machine (CI beside other work) a worker's heartbeat can lag past
        # gunicorn's 30 s default, and the arbiter would kill it mid-request.
        web_args = ["-w", str(web_workers), "--threads", "8", "--timeout", "120"]
        self.web = Process("web", [*gunicorn, *web_args], env, logdir)
        celery = [str(BIN / "celery"), "-A", "kifu"]
        worker_args = ["-Q", env["KIFU_QUEUE"], "-n", worker_name, "--concurrency", str(concurrency)]
        quiet = ["--loglevel", "INFO", "--without-gossip", "--without-mingle"]
        self.worker = Process("worker", [*celery, "worker", *worker_args, *quiet], env, logdir)
        beat_args = ["--loglevel", "INFO", "-s", str(logdir / "beat-schedule")]
        self.beat = Process("beat", [*celery, "beat", *beat_args], env, logdir)

    def start(self) -> None:
        import requests

        self.web.start()
        wait_until(lambda: requests.get(f"{self.base_url}/api/engines", timeout=2).ok, 60, "gunicorn")
        self.start_worker()
        self.beat.start()

    def start_worker(self) -> None:
        from kifu.celery import app

        prefix = self.worker_name.split("@")[0]
        self.worker.start()
        wait_until(
            lambda: any(name.startswith(prefix) for reply in app.control.ping(timeout=0.5) for name in reply),
            60,
            "the Celery worker to answer a ping",
        )

    def stop(self) -> None:
        for process in (self.beat, self.worker, self.web):
            process.stop()

    def logs(self) -> str:
        return "\n".join(f"--- {p.name} ---\n{p.tail()}" for p in (self.web, self.worker, self.beat))


@contextmanager
def embedded(var_dir: Path, **settings: str) -> Iterator[str]:
    """The embedded default as a real process: no DATABASE_URL or REDIS_URL, so SQLite under
    ``var_dir``, eager tasks and the timer thread; ``settings`` are extra environment variables.
    Migrates, starts gunicorn on a free port, yields its base URL once it answers, then stops it
    (printing the end of its log)."""
    import requests

    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "KIFU_QUEUE")}
    env.update(KIFU_VAR_DIR=str(var_dir), PYTHONUNBUFFERED="1", **settings)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    port = free_port()
    web = Process("embedded", [*GUNICORN, "-b", f"127.0.0.1:{port}"], env, var_dir)
    web.start()
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until(lambda: requests.get(f"{base}/api/engines", timeout=2).ok, 30, "web")
        yield base
    finally:
        web.stop()
        print(web.tail())
