"""When a move counts as received: the receipt stamp, and the gate that keeps a window open for it.

A submission is judged by its *receipt time*: a call received before a window's deadline counts,
however late a worker gets to it. Two things make that true under load:

- **The stamp is taken as early as the server can** (``ReceiptMiddleware``, the first middleware):
  the moment the web process takes the request in, before authentication and body parsing. When a
  trusted proxy in front of it stamps the request itself (``KIFU_RECEIPT_HEADER``, e.g. nginx's
  ``proxy_set_header X-Request-Start "t=${msec}"``; a client's own header of that name is replaced
  by the proxy), that earlier time is used, but never earlier than ``KIFU_RECEIPT_GRACE_SECONDS``
  before the web process saw the request, and never later than it. Nothing a client sends is
  trusted unless that setting names the header.
- **No window closes while a call stamped before its deadline is still on its way in.** A request
  to ``POST /api/games/{id}/moves`` *enters the gate* of its game (a shared PostgreSQL advisory
  lock, held on its connection) before it is stamped, and leaves it once its submission is
  committed. The worker closes a window only under the game row lock, only once it may take the
  same advisory lock exclusively (``pg_try_advisory_xact_lock``: it never waits while holding the
  row lock, so it cannot deadlock with a request waiting for that row), and only
  ``KIFU_RECEIPT_GRACE_SECONDS`` after the deadline. A request stamped before the deadline entered
  the gate before the close was attempted, so its submission is pending before the window closes
  and is applied against the open window. When the gate is busy the close waits for the next
  advance (the request queues one when it commits) or the close timer's short retry.

Why advisory locks and not a Redis set of in-flight requests: a lock dies with the connection of a
crashed web process (a Redis entry would need a TTL that delays closes), and PostgreSQL already
serialises the appends. Embedded mode (SQLite, one process) counts in-flight requests in memory.
"""

from __future__ import annotations

import logging
import re
import threading
import time
import zlib
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection
from django.utils import timezone

log = logging.getLogger("kifu.games")

GATE_NAMESPACE = 0x4B494655  # "KIFU": the advisory lock class id of the move gates
MOVES_PATH = re.compile(r"^/api/games/(?P<game>[0-9a-fA-F-]{32,36})/moves/?$")


def gate_key(game_id) -> int:
    """The advisory lock object id of a game's gate (a signed 32-bit number; a collision between
    two games only makes one wait for the other's in-flight requests)."""
    return zlib.crc32(str(game_id).lower().encode()) - 2**31


def grace() -> timedelta:
    return timedelta(seconds=settings.KIFU_RECEIPT_GRACE_SECONDS)


# ---- the gate ------------------------------------------------------------------------------------
class _LocalGate:
    """Embedded mode: one process, so in-flight requests are counted in memory."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._inflight: dict[str, int] = {}

    def enter(self, game_id) -> None:
        with self._lock:
            key = str(game_id).lower()
            self._inflight[key] = self._inflight.get(key, 0) + 1

    def leave(self, game_id) -> None:
        with self._lock:
            key = str(game_id).lower()
            count = self._inflight.get(key, 0) - 1
            if count > 0:
                self._inflight[key] = count
            else:
                self._inflight.pop(key, None)
            self._lock.notify_all()

    def try_close(self, game_id) -> bool:
        with self._lock:
            return not self._inflight.get(str(game_id).lower())

    def wait_close(self, game_id, timeout: float = 5.0) -> None:
        with self._lock:
            self._lock.wait_for(lambda: not self._inflight.get(str(game_id).lower()), timeout)


LOCAL = _LocalGate()


def _postgres() -> bool:
    return connection.vendor == "postgresql"


def gate_enter(game_id) -> None:
    """A move request for ``game_id`` is on its way in (taken before its receipt is stamped)."""
    if _postgres():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock_shared(%s, %s)", [GATE_NAMESPACE, gate_key(game_id)])
    else:
        LOCAL.enter(game_id)


def gate_leave(game_id) -> None:
    """The request's submission is committed (or the request failed): it no longer holds a close."""
    if _postgres():
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock_shared(%s, %s)", [GATE_NAMESPACE, gate_key(game_id)])
        except Exception:
            # A connection that cannot unlock must not go back to the pool holding the lock.
            log.warning("could not leave the move gate of %s; closing the connection", game_id, exc_info=True)
            connection.close()
    else:
        LOCAL.leave(game_id)


def gate_try_close(game_id) -> bool:
    """May a window of ``game_id`` close now? True when no move request is in flight for it. The
    caller holds the game row lock and is in a transaction: on PostgreSQL the exclusive advisory
    lock taken here is held until that transaction ends, so no request enters meanwhile."""
    if _postgres():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_xact_lock(%s, %s)", [GATE_NAMESPACE, gate_key(game_id)])
            return bool(cursor.fetchone()[0])
    return LOCAL.try_close(game_id)


def gate_close_wait(game_id) -> None:
    """Wait until no move request is in flight for ``game_id`` and keep new ones out until the
    transaction ends. Only before taking the game row lock (a request in the gate may be waiting
    for that row)."""
    if _postgres():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [GATE_NAMESPACE, gate_key(game_id)])
    else:
        LOCAL.wait_close(game_id)


# ---- the stamp -----------------------------------------------------------------------------------
def proxy_time(value: str | None) -> datetime | None:
    """A proxy's request-start header: ``t=1700000000.123`` (nginx ``$msec``), a bare number of
    seconds, or microseconds (16 digits, as some proxies send). None when absent or unreadable."""
    if not value:
        return None
    raw = value.strip()
    if raw.startswith("t="):
        raw = raw[2:]
    try:
        number = float(raw)
    except ValueError:
        return None
    if number != number or number <= 0:
        return None
    if number > 1e14:  # microseconds
        number /= 1e6
    elif number > 1e11:  # milliseconds
        number /= 1e3
    try:
        return datetime.fromtimestamp(number, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


def stamp(seen: datetime, header: str | None) -> datetime:
    """The receipt time of a request the web process saw at ``seen``: the trusted proxy's time
    when configured and sane (clamped to ``[seen - grace, seen]``), else ``seen``."""
    if not settings.KIFU_RECEIPT_HEADER:
        return seen
    proxied = proxy_time(header)
    if proxied is None:
        return seen
    return max(min(proxied, seen), seen - grace())


class ReceiptMiddleware:
    """First middleware: a move request enters its game's gate and is stamped, before anything else
    runs. ``request.kifu_receipt`` is ``(game_id, received_at)``; the view hands the time to
    ``move_submit`` and calls ``receipt_done`` as soon as the submission is committed; whatever
    happens, the gate is left when the response is ready."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        match = MOVES_PATH.match(request.path_info) if request.method == "POST" else None
        if match is None:
            return self.get_response(request)
        game_id = match["game"]
        started = time.monotonic()
        try:
            gate_enter(game_id)
        except (OperationalError, InterfaceError) as error:  # PostgreSQL restarting: retry, not a 500
            from kifu.http.errors import unavailable_response

            log.warning("service unavailable at %s: %r", request.path_info, error)
            return unavailable_response()
        seen = timezone.now()
        header = settings.KIFU_RECEIPT_HEADER
        proxied = request.META.get("HTTP_" + header.upper().replace("-", "_")) if header else None
        request.kifu_receipt = (game_id, stamp(seen, proxied))
        request.kifu_gate_wait_ms = (time.monotonic() - started) * 1000
        try:
            return self.get_response(request)
        finally:
            receipt_done(request)


def received_at(request) -> datetime:
    """The stamped receipt time of a move request (now, if it did not pass the middleware)."""
    receipt = getattr(request, "kifu_receipt", None)
    return receipt[1] if receipt else timezone.now()


def receipt_done(request, *, left: bool = False) -> None:
    """Leave the gate (once): the submission is committed, or the request failed. ``left``: the
    statement that stored the submission already left it (``move_submit(leave_gate=True)``)."""
    request = getattr(request, "_request", request)  # a DRF request wraps the one the middleware saw
    receipt = getattr(request, "kifu_receipt", None)
    if receipt and not getattr(request, "kifu_gate_left", False):
        request.kifu_gate_left = True
        if not left:
            gate_leave(receipt[0])


def in_gate(request) -> bool:
    """Does this request hold its game's move gate now?"""
    request = getattr(request, "_request", request)
    return getattr(request, "kifu_receipt", None) is not None and not getattr(request, "kifu_gate_left", False)
