"""Live stream bus: after a game's events commit, a notice goes to its Redis pub/sub channel.

The notice carries no game content (only the new head seq), so it can leak nothing: a client
that hears it fetches ``events?after=N`` with its own credentials and gets its own redacted view.
"""

from __future__ import annotations

import json
import logging
from functools import cache

from django.conf import settings

log = logging.getLogger("kifu.streams")


def channel(game_id) -> str:
    return f"kifu:game:{game_id}"


@cache
def _client():
    import redis

    return redis.Redis.from_url(settings.REDIS_URL)


def publish(game_id, notice: dict) -> None:
    if not settings.REDIS_URL:
        return
    try:
        _client().publish(channel(game_id), json.dumps({"game": str(game_id), **notice}))
    except Exception:  # the stream is a hint; the event log is the truth and clients can poll it
        log.warning("could not publish to %s", channel(game_id), exc_info=True)
