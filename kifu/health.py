"""Liveness and readiness probes: ``/healthz`` (the process answers) and ``/readyz`` (it can work).

They are answered by a middleware placed first, before host validation, the https redirect and
the session: a probe comes from a load balancer, systemd or Docker on the machine itself, with a
``Host`` of ``127.0.0.1`` that ``KIFU_ALLOWED_HOSTS`` would refuse and over plain http that
``KIFU_SSL_REDIRECT`` would redirect; neither says anything about the process's health.

``/readyz`` checks, each at call time (a setting overridden in a test counts):

- ``database``: a ``SELECT 1`` on the default connection;
- ``migrations``: Django's ``MigrationExecutor`` plans nothing to apply (a process of a newer
  release must not serve on a schema that is behind it). Once applied, that is remembered for the
  life of the process: migrations are not unapplied under a running release, and loading the
  migration graph costs ~50 ms;
- ``redis``: a ``PING`` to ``REDIS_URL`` (streams, throttles, the verdict wait);
- ``broker``: a connection to ``CELERY_BROKER_URL`` (moves are queued there).

It answers ``200 {"status": "ready", "checks": {...}}`` or ``503`` in the one error shape,
``{"code": <the first failing check's code>, "message": ..., "checks": {...}}``; codes are stable:
``database_unreachable``, ``migrations_pending``, ``redis_unreachable``, ``broker_unreachable``.
Embedded Kifu (no ``REDIS_URL``) has no Redis and an in-memory broker: those checks say so and pass.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.http import JsonResponse

log = logging.getLogger("kifu.health")

PROBE_TIMEOUT_SECONDS = 2.0
_migrations_applied = False


class Unready(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def check_database() -> str:
    try:
        with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as error:
        raise Unready("database_unreachable", f"the database did not answer: {error}") from error
    return "ok"


def check_migrations() -> str:
    global _migrations_applied
    if _migrations_applied:
        return "ok"
    from django.db.migrations.executor import MigrationExecutor

    try:
        executor = MigrationExecutor(connections[DEFAULT_DB_ALIAS])
        plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except Exception as error:
        raise Unready("database_unreachable", f"could not read the applied migrations: {error}") from error
    if plan:
        names = ", ".join(f"{migration.app_label}.{migration.name}" for migration, _backwards in plan[:5])
        more = f" and {len(plan) - 5} more" if len(plan) > 5 else ""
        raise Unready(
            "migrations_pending", f"{len(plan)} migration(s) not applied: {names}{more}; run manage.py migrate"
        )
    _migrations_applied = True
    return "ok"


def check_redis() -> str:
    url = settings.REDIS_URL
    if not url:
        return "embedded"
    import redis

    client = redis.Redis.from_url(
        url, socket_connect_timeout=PROBE_TIMEOUT_SECONDS, socket_timeout=PROBE_TIMEOUT_SECONDS
    )
    try:
        client.ping()
    except Exception as error:
        raise Unready("redis_unreachable", f"Redis at REDIS_URL did not answer PING: {error}") from error
    finally:
        client.close()
    return "ok"


def check_broker() -> str:
    url = settings.CELERY_BROKER_URL
    if url.startswith("memory://"):
        return "embedded"
    from kombu import Connection

    try:
        with Connection(url, connect_timeout=PROBE_TIMEOUT_SECONDS) as connection:
            connection.ensure_connection(
                max_retries=1, interval_start=0, interval_step=0, timeout=PROBE_TIMEOUT_SECONDS
            )
    except Exception as error:
        raise Unready("broker_unreachable", f"the Celery broker did not answer: {error}") from error
    return "ok"


# In this order: a failing database makes the migration check fail too, but says less.
CHECKS = (
    ("database", check_database),
    ("migrations", check_migrations),
    ("redis", check_redis),
    ("broker", check_broker),
)


def readiness() -> tuple[int, dict]:
    """Run every check (all of them, so one answer names everything that is wrong)."""
    checks, failures = {}, []
    for name, check in CHECKS:
        started = time.perf_counter()
        try:
            checks[name] = check()
        except Unready as unready:
            checks[name] = unready.code
            failures.append(unready)
        log.debug("readyz %s took %.1f ms", name, (time.perf_counter() - started) * 1000)
    if not failures:
        return 200, {"status": "ready", "checks": checks}
    message = "; ".join(failure.message for failure in failures)
    log.warning("not ready: %s", message)
    return 503, {"code": failures[0].code, "message": message, "checks": checks}


def _answer(status: int, body: dict) -> JsonResponse:
    response = JsonResponse(body, status=status, json_dumps_params={"ensure_ascii": False})
    response["Cache-Control"] = "no-store"
    # A 503 here is logged once, by readiness() (a warning naming what failed), not again by Django
    # as an ERROR "Service Unavailable" on every probe (django.utils.log.log_response reads this).
    response._has_been_logged = True
    return response


class ProbeMiddleware:
    """First in MIDDLEWARE: ``GET``/``HEAD`` of ``/healthz``, ``/readyz`` and ``/metrics``
    (kifu/metrics.py, which checks who asks) end here."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        path = request.path_info
        if path == "/healthz" and request.method in ("GET", "HEAD"):
            return _answer(200, {"status": "ok"})
        if path == "/readyz" and request.method in ("GET", "HEAD"):
            return _answer(*readiness())
        if path == "/metrics" and request.method in ("GET", "HEAD") and settings.KIFU_METRICS:
            from kifu.metrics import metrics_view

            return metrics_view(request)
        return self.get_response(request)


# ---- container health checks: python -m kifu.health http PORT | beat SCHEDULE ------------------------
def probe_http(port: int) -> str | None:
    """None when ``/readyz`` on this machine's ``port`` answers 200, else what it said."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=PROBE_TIMEOUT_SECONDS * 3) as answer:
            return None if answer.status == 200 else f"/readyz answered {answer.status}"
    except urllib.error.HTTPError as error:
        return f"/readyz answered {error.code}: {error.read()[:300].decode(errors='replace')}"
    except OSError as error:
        return f"/readyz did not answer: {error}"


BEAT_STALE_SECONDS = 600  # beat writes its schedule file every 3 minutes (Celery's beat_sync_every default)


def probe_beat(schedule: str, now: float | None = None) -> str | None:
    """None when beat wrote its schedule file (any of the dbm's files) lately and Redis answers."""
    import glob
    import os

    files = glob.glob(glob.escape(schedule) + "*")
    if not files:
        return f"no schedule file {schedule}* yet"
    age = (time.time() if now is None else now) - max(os.path.getmtime(path) for path in files)
    if age > BEAT_STALE_SECONDS:
        return f"the schedule file was last written {age:.0f} s ago (beat writes it every 180 s)"
    url = os.environ.get("REDIS_URL", "")
    if url:
        import redis

        try:
            redis.Redis.from_url(url, socket_connect_timeout=PROBE_TIMEOUT_SECONDS).ping()
        except Exception as error:
            return f"Redis at REDIS_URL did not answer PING: {error}"
    return None


def main(argv: list[str]) -> int:
    usage = "usage: python -m kifu.health http PORT | beat SCHEDULE_FILE"
    if len(argv) != 2 or argv[0] not in ("http", "beat") or (argv[0] == "http" and not argv[1].isdigit()):
        print(usage)
        return 2
    problem = probe_http(int(argv[1])) if argv[0] == "http" else probe_beat(argv[1])
    print(problem or "ok")
    return 1 if problem else 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
