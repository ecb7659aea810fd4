"""Rate limits counted atomically in one Redis round trip, and a per-account back-off on failed log-ins.

DRF's ``SimpleRateThrottle`` keeps a list of timestamps per client and writes it back after reading
it: two requests at once both read the same list and both pass, so under concurrency it
undercounts (8 threads sent ~1,450 requests with no 429). Here each request is one atomic
``INCR`` of a per-window counter, sent with its ``EXPIRE`` and a read of the previous window's
counter in one pipeline - one round trip, and every request counted (``window_hit``: a sliding
window estimated from the two, so a burst at a window's edge does not double the rate). Without
Redis (embedded mode, or a test's local-memory cache) the same counters live in Django's cache,
whose ``add`` + ``incr`` are atomic there too.

The client's address comes from ``REMOTE_ADDR`` unless ``KIFU_TRUSTED_PROXIES`` (DRF's
``NUM_PROXIES``) says how many proxies of ours stand in front: then from that many places from the
right of ``X-Forwarded-For`` - never from what the client itself put there.
"""

from __future__ import annotations

import hashlib
import time

from django.conf import settings
from django.core.cache import cache
from rest_framework import exceptions, throttling

LOGIN_BACKOFF_MAX_SECONDS = 3600  # the longest a username is locked (the first period is a setting)
FAILURE_MEMORY_SECONDS = 24 * 3600  # a username's failures are forgotten a day after the last one


def _now() -> float:
    return time.time()  # one place for tests to move the clock


def _redis_client(key: str):
    """The cache's Redis client for writes (None when the cache is not Redis): the counters are
    written with a script of ours, on the same server and keys as the cache's own."""
    from django.core.cache.backends.redis import RedisCacheClient

    backend = getattr(cache, "_cache", None)
    if not isinstance(backend, RedisCacheClient):
        return None
    client = getattr(backend, "_kifu_write_client", None)
    if client is None:  # Django's own client class makes a new redis.Redis at every call: keep one
        client = backend._kifu_write_client = backend.get_client(key, write=True)
    return client


# INCR of this window's counter, its EXPIRE and a read of the previous window's, atomically: one
# command and one reply (a MULTI pipeline of the three is five of each, and parsing them was ~9% of
# a web process's CPU under bench/pipeline.py, py-spy). redis-py sends it by its SHA (EVALSHA) and
# loads it again if the server lost it.
_HIT_LUA = """
local count = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[1])
return {count, tonumber(redis.call('GET', KEYS[2]) or '0')}
"""


def _hit_script(client):
    """The hit script registered on ``client`` (once per client)."""
    script = getattr(client, "_kifu_hit_script", None)
    if script is None:
        script = client._kifu_hit_script = client.register_script(_HIT_LUA)
    return script


def window_hit(name: str, window: int, limit: int, *, now: float | None = None) -> float | None:
    """Count one hit on counter ``name``; None if it is within ``limit`` per ``window`` seconds,
    else the seconds to wait. One atomic round trip on Redis.

    A sliding-window counter: hits are counted per fixed window (``INCR``, with its ``EXPIRE``,
    in one pipeline that also reads the previous window's count), and the rate is this window's
    count plus the previous one's weighted by how much of it still lies within the last
    ``window`` seconds. So a client cannot double its rate by bursting at a window's edge, and a
    check stays one round trip with no list."""
    now = _now() if now is None else now
    start = int(now // window) * window
    current, previous = f"rate:{name}:{start}", f"rate:{name}:{start - window}"
    current_key = cache.make_and_validate_key(current)
    client = _redis_client(current_key)
    if client is not None:
        keys = [current_key, cache.make_and_validate_key(previous)]
        count, before = _hit_script(client)(keys=keys, args=[2 * window + 1])
    else:  # embedded: Django's cache (local memory: add and incr are each atomic under its lock)
        cache.add(current, 0, 2 * window + 1)
        try:
            count = cache.incr(current)
        except ValueError:  # expired between add and incr: this hit opens the window
            cache.add(current, 1, 2 * window + 1)
            count = 1
        before = cache.get(previous)
    count, before = int(count), int(before or 0)
    elapsed = (now - start) / window  # 0..1 through the current window
    if count + before * (1 - elapsed) <= limit:
        return None
    # How long until one more hit (the retry itself counts) fits - at most a window, as DRF promises
    # (a client still hammering then gets a new answer): ...
    if count >= limit:  # ... this window alone is full: the next one, once enough of this has faded
        wait = start + window - now + window * (1 - (limit - 1) / count)
    else:  # ... the previous window fades
        wait = (count + 1 + before * (1 - elapsed) - limit) / before * window
    return min(wait, window)


class AtomicRateThrottle(throttling.SimpleRateThrottle):
    """DRF's rate throttle with the counting replaced (``allow_request``); rates, scopes, cache
    keys and the 429's ``Retry-After`` stay DRF's."""

    def allow_request(self, request, view):
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.left = window_hit(self.key, self.duration, self.num_requests)
        return self.left is None

    def wait(self):
        return max(1.0, self.left)


class AnonThrottle(AtomicRateThrottle):
    """Per address, for requests without an account (scope ``anon``, ``KIFU_THROTTLE_ANON``)."""

    scope = "anon"

    def get_cache_key(self, request, view):
        if request.user and request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class UserThrottle(AtomicRateThrottle):
    """Per account, or per address without one (scope ``user``, ``KIFU_THROTTLE_USER``)."""

    scope = "user"

    def get_cache_key(self, request, view):
        ident = request.user.pk if request.user and request.user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


class LoginThrottle(AtomicRateThrottle):
    """Log-in attempts per address, account or not (scope ``login``, ``KIFU_THROTTLE_LOGIN``):
    each password check costs real CPU, so guessing is slowed before it reaches one."""

    scope = "login"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


def client_address(request) -> str:
    """The address the throttles count a request under (``KIFU_TRUSTED_PROXIES`` decides)."""
    return throttling.BaseThrottle().get_ident(request)


def login_address_hit(request) -> float | None:
    """Count a log-in attempt from the request's address: None if allowed, else seconds to wait.
    For views outside DRF (the web log-in form)."""
    throttle = LoginThrottle()
    if throttle.rate is None:
        return None
    key = throttle.cache_format % {"scope": "login", "ident": client_address(request)}
    left = window_hit(key, throttle.duration, throttle.num_requests)
    return None if left is None else max(1.0, left)


# ---- per-account back-off -------------------------------------------------------------------
class LoginLocked(exceptions.Throttled):
    """429 ``login_locked``: too many failed log-ins for this username; try again after ``wait``."""

    stable_code = "login_locked"

    def __init__(self, wait: float) -> None:
        super().__init__(
            wait=wait, detail=f"too many failed log-ins for this account; try again in {int(wait + 0.999)} s"
        )


def _account(username: str) -> str:
    return hashlib.sha256(username.strip().lower().encode()).hexdigest()[:32]


def login_locked_for(username: str) -> float | None:
    """Seconds this username is still locked after repeated failures, or None."""
    until = cache.get(f"login-lock:{_account(username)}")
    left = None if until is None else until - _now()
    return left if left and left > 0 else None


def login_failed(username: str) -> None:
    """Record a failed log-in: after ``KIFU_LOGIN_FAILURES`` of them the account is locked for
    ``KIFU_LOGIN_BACKOFF_SECONDS``, doubling with each further failure (at most an hour). The
    count is forgotten a day after the last failure, or at the next successful log-in."""
    account = _account(username)
    key = f"login-fail:{account}"
    cache.add(key, 0, FAILURE_MEMORY_SECONDS)
    try:
        failures = cache.incr(key)
    except ValueError:
        cache.add(key, 1, FAILURE_MEMORY_SECONDS)
        failures = 1
    cache.touch(key, FAILURE_MEMORY_SECONDS)
    allowed = settings.KIFU_LOGIN_FAILURES
    if failures >= allowed:
        period = min(settings.KIFU_LOGIN_BACKOFF_SECONDS * 2 ** min(failures - allowed, 20), LOGIN_BACKOFF_MAX_SECONDS)
        cache.set(f"login-lock:{account}", _now() + period, int(period) + 1)


def login_succeeded(username: str) -> None:
    account = _account(username)
    cache.delete_many([f"login-fail:{account}", f"login-lock:{account}"])
