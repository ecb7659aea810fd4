"""A per-request connection health check without a round trip to the server (issue 14).

``CONN_HEALTH_CHECKS`` makes Django send ``SELECT 1`` before the first query of every request that
reuses a pooled connection, so that a connection the server closed meanwhile (a PostgreSQL restart,
an idle timeout, an administrator's ``pg_terminate_backend``) is replaced instead of failing the
request. Under the move benchmark that ``SELECT 1`` was ~10% of the web processes' request time: a
whole round trip on a saturated machine, paid by every request to learn what is almost always yes.

A server that ends a session says so: it sends an error message (``57P01 admin_shutdown``, ``57P05
idle_session_timeout``, ...) and closes the socket. A healthy idle connection has nothing to read,
since Kifu never ``LISTEN``s on its Django connections. So the socket is polled first (no wait, no
round trip): nothing to read on a connection that is idle and not broken means healthy; anything
else - readable, hung up, an error, not idle - falls back to Django's own ``SELECT 1`` check, which
closes the connection if it fails. A connection that dies without a word (a cut network) is not
seen by either check until a query times out; the TCP keepalives in ``settings`` cover that case.
"""

from __future__ import annotations

import select

from psycopg import Error as PsycopgError
from psycopg.pq import TransactionStatus

_POLL_MASK = select.POLLIN | select.POLLPRI | select.POLLERR | select.POLLHUP | select.POLLNVAL


def plainly_alive(connection) -> bool:
    """True when a psycopg connection is idle, not broken, and its socket has nothing to say."""
    try:
        if connection.closed or connection.broken:
            return False
        if connection.info.transaction_status != TransactionStatus.IDLE:
            return False
        poller = select.poll()
        poller.register(connection.fileno(), _POLL_MASK)
        return not poller.poll(0)
    except (OSError, ValueError, PsycopgError):
        return False


class QuietSocketHealthCheck:
    """Mixin for a PostgreSQL ``DatabaseWrapper``: Django's health check, skipped when the socket
    shows the connection plainly alive."""

    def close_if_health_check_failed(self):
        if (
            self.connection is not None
            and self.health_check_enabled
            and not self.health_check_done
            and plainly_alive(self.connection)
        ):
            self.health_check_done = True
            return
        super().close_if_health_check_failed()
