"""/healthz and /readyz: what a load balancer, systemd and Docker ask before sending traffic."""

from __future__ import annotations

import socket
import time

import pytest
from django.db import connection

from kifu import health


def closed_port_url(scheme: str = "redis") -> str:
    """A URL on a local port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"{scheme}://127.0.0.1:{port}/0"


@pytest.fixture(autouse=True)
def forget_migrations(monkeypatch):
    monkeypatch.setattr(health, "_migrations_applied", False)


def test_healthz_answers_without_the_database(client):
    """No django_db mark: a query here would fail the test."""
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert response["Cache-Control"] == "no-store"


@pytest.mark.django_db
def test_readyz_ready_on_the_real_stack(client, settings):
    if not settings.REDIS_URL:
        pytest.skip("needs REDIS_URL (bin/test sets it)")
    response = client.get("/readyz")
    assert response.status_code == 200, response.content
    assert response.json() == {
        "status": "ready",
        "checks": {"database": "ok", "migrations": "ok", "redis": "ok", "broker": "ok"},
    }


@pytest.mark.django_db
def test_probes_ignore_allowed_hosts_and_the_https_redirect(client, settings):
    """A probe from the machine itself (Host: 127.0.0.1, plain http) is answered, not refused."""
    settings.ALLOWED_HOSTS = ["kifu.example.org"]
    settings.SECURE_SSL_REDIRECT = True
    assert client.get("/healthz", HTTP_HOST="127.0.0.1:8000").status_code == 200
    assert client.get("/readyz", HTTP_HOST="127.0.0.1:8000").status_code in (200, 503)
    assert client.get("/api/engines", HTTP_HOST="127.0.0.1:8000").status_code == 400  # the rest still checks


@pytest.mark.django_db
def test_readyz_503_when_redis_is_unreachable(client, settings, caplog):
    settings.REDIS_URL = closed_port_url()
    settings.CELERY_BROKER_URL = settings.REDIS_URL
    started = time.monotonic()
    response = client.get("/readyz")
    assert time.monotonic() - started < 3 * health.PROBE_TIMEOUT_SECONDS
    assert response.status_code == 503
    body = response.json()
    assert body["code"] == "redis_unreachable"
    assert body["checks"] == {
        "database": "ok",
        "migrations": "ok",
        "redis": "redis_unreachable",
        "broker": "broker_unreachable",
    }
    assert "REDIS_URL" in body["message"] and "broker" in body["message"]
    # One warning that says what failed, not a Django ERROR per probe on top of it.
    assert [(r.name, r.levelname) for r in caplog.records] == [("kifu.health", "WARNING")]


@pytest.mark.django_db
def test_readyz_503_when_only_the_broker_is_unreachable(client, settings):
    if not settings.REDIS_URL:
        pytest.skip("needs REDIS_URL (bin/test sets it)")
    settings.CELERY_BROKER_URL = closed_port_url()
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["code"] == "broker_unreachable"
    assert response.json()["checks"]["redis"] == "ok"


@pytest.mark.django_db
def test_readyz_503_while_a_migration_is_not_applied(client):
    """The test database is migrated; forgetting the newest games migration (rolled back after the
    test) is what a process of a newer release sees before `migrate` ran."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM django_migrations WHERE app = 'games' ORDER BY name DESC LIMIT 1")
        (newest,) = cursor.fetchone()
        cursor.execute("DELETE FROM django_migrations WHERE app = 'games' AND name = %s", [newest])
    response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["code"] == "migrations_pending"
    assert f"games.{newest}" in body["message"] and "manage.py migrate" in body["message"]
    assert body["checks"]["database"] == "ok"


def test_readyz_embedded_has_no_redis_to_check(settings):
    settings.REDIS_URL = ""
    settings.CELERY_BROKER_URL = "memory://localhost/"
    assert health.check_redis() == "embedded"
    assert health.check_broker() == "embedded"


def test_other_methods_fall_through(client):
    assert client.post("/healthz").status_code == 404


@pytest.mark.django_db
def test_sessions_ask_for_keepalives_so_a_vanished_host_gives_its_locks_back():
    """bin/multihost: a host cut off mid-transaction held its game's row lock until PostgreSQL
    noticed; every Kifu session asks the server for keepalive probes (and may cap idle transactions)."""
    from django.conf import settings

    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only")
    with connection.cursor() as cursor:
        cursor.execute("SHOW tcp_keepalives_idle")
        assert cursor.fetchone()[0] in (
            str(settings.KIFU_DB_KEEPALIVE_SECONDS),
            f"{settings.KIFU_DB_KEEPALIVE_SECONDS}s",
        )
        cursor.execute("SHOW tcp_keepalives_count")
        assert cursor.fetchone()[0] == "3"


def test_idle_transactions_can_be_capped():
    import os
    import subprocess
    import sys

    env = {
        **os.environ,
        "KIFU_DB_IDLE_TRANSACTION_SECONDS": "45",
        "KIFU_DB_KEEPALIVE_SECONDS": "0",
        "DATABASE_URL": "postgres://u@127.0.0.1:5432/kifu",
        "DJANGO_SETTINGS_MODULE": "kifu.settings",
    }
    code = "from django.conf import settings; print(settings.DATABASES['default']['OPTIONS']['options'])"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "-c idle_in_transaction_session_timeout=45000", out.stderr
