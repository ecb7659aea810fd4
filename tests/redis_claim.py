"""Which Redis database a test run may wipe: only one it made its own.

The stack tests start from an empty Redis database (``FLUSHDB``: no stale verdicts, queues or
cache entries from an earlier run). On a machine whose Redis is shared, the database that
``REDIS_URL`` names (``bin/test``: 15, and 14 for the stack half) may hold someone else's data, so a
run wipes a database only if it claimed it: the database was empty when the run first looked,
and the run then wrote the marker key ``CLAIM_KEY``; a later run finds the marker and may wipe it
again. A database holding keys but no marker is somebody else's: the stack tests refuse to run
on it and say how to choose another (``KIFU_TEST_REDIS_URL``, ``KIFU_TEST_STACK_REDIS_URL``).
"""

from __future__ import annotations

import redis

CLAIM_KEY = "kifu:test-run:claimed"
# The databases this process claimed at its start: a test's own ``cache.clear()`` (a FLUSHDB on the
# Redis cache: tests/live/test_throttling.py) takes the marker with everything else, and the database
# stays this run's all the same.
_CLAIMED: set[str] = set()
CLAIM_NOTE = "a Kifu test run may FLUSHDB this database (tests/redis_claim.py)"


class NotOurs(RuntimeError):
    """The database holds keys that no Kifu test run wrote."""


def claim(url: str) -> bool:
    """Make the database ours if it is empty (write the marker); True if it is ours now.

    ``SET NX`` on an empty database and the count are not one step, but a run that loses the race
    to another writer only fails to claim (the marker is set, and the foreign keys stay): ``wipe``
    checks again before it flushes.
    """
    client = redis.Redis.from_url(url)
    if client.exists(CLAIM_KEY) or client.dbsize() == 0:
        client.set(CLAIM_KEY, CLAIM_NOTE)
        _CLAIMED.add(url)
        return True
    return False


def wipe(url: str) -> None:
    """FLUSHDB the database if this process or an earlier test run claimed it, and claim it again;
    else raise ``NotOurs``."""
    client = redis.Redis.from_url(url)
    if url not in _CLAIMED and not client.exists(CLAIM_KEY):
        database = client.connection_pool.connection_kwargs.get("db", 0)
        raise NotOurs(
            f"Redis database {database} of {url} holds {client.dbsize()} keys that no Kifu test run "
            "wrote, so the stack tests will not wipe it. Point the tests at a free database "
            "(KIFU_TEST_REDIS_URL, and KIFU_TEST_STACK_REDIS_URL for bin/test's stack half; or "
            f"REDIS_URL for pytest), or empty it yourself if it is yours (redis-cli -n {database} flushdb)."
        )
    client.flushdb()
    client.set(CLAIM_KEY, CLAIM_NOTE)
