"""Change notices on Redis pub/sub: the channels, publishing a committed change (with the verdicts
waiting requests want), and each web process's listener that hands notices to its streams.

After a game's events commit, a notice ``{"game", "seq", "window", "finished"}`` goes to the game's
channel ``kifu:game:<id>`` and to ``kifu:account:<user id>`` of every seated account
(``publish``, called by ``games.eventlog.Notice``). A notice carries no game content, so it can
leak nothing: whoever hears it re-reads the store with its own viewer's rights (``games.streams``).
This module reads no game and imports no other games module but the models: the write path
(``eventlog``) and the read path (``streams``) both stand on it.

Each web process runs at most one listener thread (``BUS``), subscribed to the two channel
patterns; it hands notices to the stream threads waiting in that process. Redis pub/sub is
fire-and-forget, so the feeds never trust it alone (``games.streams``).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import deque
from functools import cache

from django.conf import settings

from .models import Seat

log = logging.getLogger("kifu.streams")

GAME_PATTERN = "kifu:game:*"
ACCOUNT_PATTERN = "kifu:account:*"


def channel(game_id) -> str:
    return f"kifu:game:{game_id}"


def account_channel(user_id) -> str:
    return f"kifu:account:{user_id}"


# ---- publishing ---------------------------------------------------------------------------------
@cache
def redis_client():
    """This process's Redis client (the live-stream bus, verdicts, advance marks)."""
    import redis

    return redis.Redis.from_url(settings.REDIS_URL)


# Seats never change once a game has started, and notices are only sent from then on, so the
# accounts of a game are read once per process (bounded: the oldest entries go first).
_ACCOUNTS: dict[str, list[int]] = {}
_ACCOUNTS_MAX = 4096
# A verdict waits this long in Redis for a request that asks for it after the worker decided.
VERDICT_TTL_SECONDS = 120


def verdict_key(public_id) -> str:
    return f"kifu:verdict:{public_id}"


def _accounts(game_id) -> list[int]:
    key = str(game_id)
    accounts = _ACCOUNTS.get(key)
    if accounts is None:
        accounts = list(
            Seat.objects.filter(game_id=game_id, user__isnull=False).values_list("user_id", flat=True).distinct()
        )
        if len(_ACCOUNTS) >= _ACCOUNTS_MAX:
            _ACCOUNTS.pop(next(iter(_ACCOUNTS)))
        _ACCOUNTS[key] = accounts
    return accounts


def publish(game_id, notice: dict, *, verdicts: list[dict] = (), accounts: list[int] | None = None) -> None:
    """Announce a committed change of a game to its channel and to its seated accounts' channels,
    and hand each decided submission's verdict to the request waiting for it - all in one Redis
    round trip (``accounts``: the seated accounts, when the caller knows them). A verdict is a
    list ``kifu:verdict:<submission>`` that lives for a while, so a request that starts waiting
    after the worker decided still finds it."""
    publish_many([(game_id, notice, verdicts, accounts)])


PUBLISH_BATCH = 1000  # games per Redis round trip of ``publish_many``


def publish_many(changes) -> None:
    """``publish`` of many games' changes, ``(game_id, notice, verdicts, accounts)`` each, in one
    Redis round trip per ``PUBLISH_BATCH`` games (a season's start announces thousands at once)."""
    outgoing = []
    for game_id, notice, verdicts, accounts in changes:
        message = {"game": str(game_id), **notice}
        try:
            accounts = _accounts(game_id) if accounts is None else accounts
        except Exception:
            log.warning("could not list the accounts of game %s", game_id, exc_info=True)
            accounts = []
        channels = [channel(game_id), *(account_channel(user_id) for user_id in accounts)]
        outgoing.append((game_id, message, verdicts, channels))
    if not settings.REDIS_URL:
        for _, message, _, channels in outgoing:
            for name in channels:  # embedded: one process, so hand it over directly (polling also runs)
                BUS.deliver(name, message)
        return
    for start in range(0, len(outgoing), PUBLISH_BATCH):
        batch = outgoing[start : start + PUBLISH_BATCH]
        try:
            pipe = redis_client().pipeline(transaction=False)
            for _, message, verdicts, channels in batch:
                for verdict in verdicts:
                    key = verdict_key(verdict["id"])
                    pipe.rpush(key, json.dumps(verdict))
                    pipe.expire(key, VERDICT_TTL_SECONDS)
                body = json.dumps(message)
                for name in channels:
                    pipe.publish(name, body)
            pipe.execute()
        except Exception:  # the stream is a hint; the event log is the truth and clients can poll it
            log.warning("could not publish to %s", ", ".join(channel(item[0]) for item in batch[:3]), exc_info=True)


def account_notice(user_ids, notice: dict) -> None:
    """Tell these accounts (their ``kifu:account:<id>`` channels) that a game waiting on them
    changed: an invitation, an acceptance, a cancellation (``services.game_create`` / ``game_accept``
    / ``game_decline``). Like ``publish`` it carries no game content; unlike it, it never reads
    (or caches) a game's accounts, since seats may still change before a game starts."""
    channels = [account_channel(user_id) for user_id in user_ids]
    if not settings.REDIS_URL:
        for name in channels:
            BUS.deliver(name, notice)
        return
    try:
        pipe = redis_client().pipeline(transaction=False)
        body = json.dumps(notice)
        for name in channels:
            pipe.publish(name, body)
        pipe.execute()
    except Exception:  # a hint only: the invitation list and the feed's rescans are the truth
        log.warning("could not publish an invitation notice", exc_info=True)


# ---- the per-process listener -------------------------------------------------------------------
class Waiter:
    """One stream's mailbox: notices for its channel, and a flag that says "look again"."""

    def __init__(self, name: str) -> None:
        self.channel = name
        self._flag = threading.Event()
        self._notices: deque[dict] = deque(maxlen=1000)

    def deliver(self, notice: dict | None) -> None:
        if notice is not None:
            self._notices.append(notice)
        self._flag.set()

    def wait(self, timeout: float) -> tuple[bool, list[dict]]:
        """Block up to ``timeout`` s; returns (woken, notices). Woken without notices: re-read all."""
        woken = self._flag.wait(max(timeout, 0))
        self._flag.clear()
        notices = []
        while self._notices:
            notices.append(self._notices.popleft())
        return woken, notices


class Bus:
    """Fan-out of Redis notices to the stream threads of this process (one Redis connection)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiters: dict[str, set[Waiter]] = {}
        self._thread: threading.Thread | None = None
        self._connected = threading.Event()

    @property
    def live(self) -> bool:
        """True while notices arrive from Redis; otherwise the feeds poll the database."""
        return bool(settings.REDIS_URL) and self._connected.is_set()

    def listen(self, name: str) -> Waiter:
        """Register a waiter; with Redis, returns once the listener is subscribed (or gave up)."""
        waiter = Waiter(name)
        with self._lock:
            self._waiters.setdefault(name, set()).add(waiter)
            if settings.REDIS_URL and (self._thread is None or not self._thread.is_alive()):
                self._thread = threading.Thread(target=self._run, name="kifu-stream-bus", daemon=True)
                self._thread.start()
        if settings.REDIS_URL:
            # A notice published before the subscription is active would be missed; after this,
            # anything the feed reads next is at least as new as what it could miss.
            self._connected.wait(2.0)
        return waiter

    def leave(self, waiter: Waiter) -> None:
        with self._lock:
            waiters = self._waiters.get(waiter.channel)
            if waiters is not None:
                waiters.discard(waiter)
                if not waiters:
                    del self._waiters[waiter.channel]

    def deliver(self, name: str, notice: dict | None) -> None:
        with self._lock:
            waiters = list(self._waiters.get(name, ()))
        for waiter in waiters:
            waiter.deliver(notice)

    def _wake_all(self) -> None:
        with self._lock:
            waiters = [waiter for group in self._waiters.values() for waiter in group]
        for waiter in waiters:
            waiter.deliver(None)

    def _run(self) -> None:
        import redis

        while True:
            pubsub = None
            try:
                client = redis.Redis.from_url(settings.REDIS_URL, health_check_interval=30)
                pubsub = client.pubsub()
                pubsub.psubscribe(GAME_PATTERN, ACCOUNT_PATTERN)
                confirmed = 0
                while True:
                    message = pubsub.get_message(timeout=5.0)
                    if message is None:
                        continue
                    if message["type"] == "psubscribe":
                        confirmed += 1
                        if confirmed == 2:
                            self._connected.set()
                            self._wake_all()  # anything published while we were away: look again
                    elif message["type"] == "pmessage":
                        self._dispatch(message["channel"], message["data"])
            except Exception:
                log.warning("stream listener lost Redis; streams poll until it is back", exc_info=True)
            finally:
                self._connected.clear()
                if pubsub is not None:
                    try:
                        pubsub.close()
                    except Exception:  # already broken; nothing to release
                        pass
            self._wake_all()
            time.sleep(0.5)

    def _dispatch(self, name, data) -> None:
        name = name.decode() if isinstance(name, bytes) else name
        try:
            notice = json.loads(data)
        except (TypeError, ValueError):
            notice = None
        self.deliver(name, notice if isinstance(notice, dict) else None)


BUS = Bus()
