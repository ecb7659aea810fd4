"""Django's Redis cache, with its clients kept instead of built anew for every call.

``django.core.cache.backends.redis.RedisCacheClient.get_client`` makes a new ``redis.Redis`` on the
(kept) connection pool at every cache call, and a new ``redis.Redis`` fills a table of some 200
response callbacks: ~0.5 ms of CPU each time on the loaded 2-core machine (cProfile of
bench/pipeline.py's in-process moves: 1.2 per move, from the webhook listeners' check after every
commit; the throttle kept a client of its own for the same reason). A ``redis.Redis`` is safe to
share between threads (each command takes a connection from the pool), and a pool notices a fork
and starts afresh, so one client per pool is kept here. Everything else is Django's backend.
"""

from __future__ import annotations

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient


class KeptRedisCacheClient(RedisCacheClient):
    """``RedisCacheClient`` that makes one ``redis.Redis`` per connection pool and reuses it."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, object] = {}

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            client = self._clients[index] = self._client(connection_pool=self._get_connection_pool(write))
        return client


class RedisCache(DjangoRedisCache):
    """``CACHES[...]["BACKEND"] = "kifu.cache.RedisCache"``: Django's Redis cache with kept clients."""

    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._class = KeptRedisCacheClient
