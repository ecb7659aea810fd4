"""A test's own Redis and PostgreSQL servers, restartable, on free ports (never the shared 6379/5432).

Used by the robustness tests that stop and restart the services under a running stack
(test_redis_restart.py, test_chaos.py).
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import redis

from kifu.devstack import ROOT, free_port, wait_until

PG_BIN = Path("/usr/lib/postgresql/15/bin")


def require(what: str, present: bool) -> None:
    """Skip the test when a binary it needs is missing; under CI=true fail instead (like tests/web)."""
    if present:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"this test cannot run in CI: {what} is missing")
    pytest.skip(f"needs {what}")


class OwnRedis:
    """A redis-server of this test's own, without persistence, restartable on the same port."""

    def __init__(self, logdir: Path) -> None:
        self.port, self.logdir = free_port(), logdir
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = None

    def start(self) -> None:
        argv = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(
            [*argv, "--dir", str(self.logdir)],
            stdout=(self.logdir / "redis.log").open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_until(lambda: redis.Redis.from_url(self.url).ping(), 10, "the test's redis-server")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)


class OwnPostgres:
    """A scratch PostgreSQL cluster (initdb in a temporary directory, trust auth, fsync off) on a
    free port, with one database ``kifu``. Its data directory outlives ``restart``, so a restart
    keeps what was committed. PostgreSQL refuses to run as root: then the cluster runs as the
    ``postgres`` system user."""

    def __init__(self) -> None:
        self.port = free_port()
        self.user = "postgres" if os.geteuid() == 0 else None
        self.dir = Path(tempfile.mkdtemp(prefix="kifu-own-pg-"))
        self.data, self.log = self.dir / "data", self.dir / "postgres.log"
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/kifu"

    @staticmethod
    def available() -> bool:
        return (PG_BIN / "initdb").exists() and (PG_BIN / "pg_ctl").exists()

    def _run(self, *argv: str) -> None:
        prefix = ["runuser", "-u", self.user, "--"] if self.user else []
        subprocess.run([*prefix, *argv], check=True, capture_output=True, timeout=120)

    def init(self) -> None:
        if self.user:
            entry = pwd.getpwnam(self.user)
            os.chown(self.dir, entry.pw_uid, entry.pw_gid)
        self._run(str(PG_BIN / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8")
        self.start()
        self._run(str(PG_BIN / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "kifu")

    def _ctl(self, action: str, *extra: str) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.dir} -c fsync=off -c full_page_writes=off"
        argv = [str(PG_BIN / "pg_ctl"), action, "-D", str(self.data), "-l", str(self.log), "-w", "-o", options]
        self._run(*argv, *extra)

    def start(self) -> None:
        self._ctl("start")

    def restart(self) -> None:
        """A fast restart: open connections are cut, committed data stays."""
        self._ctl("restart", "-m", "fast")

    def migrate(self, env: dict) -> None:
        manage = [sys.executable, str(ROOT / "manage.py"), "migrate", "--no-input", "-v", "0"]
        subprocess.run(manage, cwd=ROOT, env={**env, "DATABASE_URL": self.url}, check=True, timeout=300)

    def destroy(self) -> None:
        if self.data.exists():
            try:
                self._run(str(PG_BIN / "pg_ctl"), "stop", "-D", str(self.data), "-m", "immediate", "-w")
            except subprocess.CalledProcessError:
                pass  # not running
        shutil.rmtree(self.dir, ignore_errors=True)
