"""The per-request database health check costs no round trip on a quiet connection, and still
replaces a connection the server ended (``kifu.db.health``; the chaos suite restarts the server)."""

from __future__ import annotations

import select

import pytest
from django.db import connections

from kifu.db.health import plainly_alive

pytestmark = pytest.mark.django_db


@pytest.fixture
def pooled():
    """A connection of its own (outside the test's transaction), in the state a pooled connection
    is in when the next request's first query comes."""
    db = connections.create_connection("default")
    db.ensure_connection()
    db.health_check_enabled = True
    db.health_check_done = False
    yield db
    db.close()


def _server_ends(pid: int) -> None:
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    finally:
        other.close()


def test_a_quiet_idle_connection_is_kept_without_asking_the_server(pooled, monkeypatch):
    raw = pooled.connection
    asked = []
    monkeypatch.setattr(type(pooled), "is_usable", lambda self: asked.append(True) or True)
    pooled.close_if_health_check_failed()
    assert asked == []  # Django's own check sends SELECT 1 here
    assert pooled.connection is raw and pooled.health_check_done


def test_a_connection_inside_a_transaction_is_checked_the_usual_way(pooled):
    assert plainly_alive(pooled.connection)
    with pooled.connection.cursor() as cursor:
        cursor.execute("BEGIN")
    try:
        assert not plainly_alive(pooled.connection)
    finally:
        pooled.connection.rollback()


def test_a_connection_the_server_ended_is_replaced_before_the_request_uses_it(pooled):
    raw = pooled.connection
    _server_ends(raw.info.backend_pid)
    poller = select.poll()
    poller.register(raw.fileno(), select.POLLIN)
    assert poller.poll(5000)  # the server's goodbye has arrived (at most 5 s: a wait, not a timing)
    assert not plainly_alive(raw)
    pooled.close_if_health_check_failed()
    assert pooled.connection is None  # closed; the next query opens a new one
    with pooled.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)
    assert pooled.connection is not raw
