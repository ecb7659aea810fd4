"""Reads of the webhooks: an account's webhooks, a webhook's recent deliveries, and which seats of
a game have an account that listens (cached, so a game nobody listens to costs no query)."""

from __future__ import annotations

import json
import logging
import uuid

from django.conf import settings
from django.core.cache import cache
from django.db.models import Exists, OuterRef

from games.models import Seat

from .models import Delivery, Webhook

log = logging.getLogger("kifu.hooks")

DELIVERY_LIST_LIMIT = 100


def webhooks_of(*, user) -> list[Webhook]:
    return list(Webhook.objects.filter(user=user))


def webhook_get(*, user, webhook_id) -> Webhook | None:
    return Webhook.objects.filter(user=user, pk=webhook_id).first()


def deliveries_of(*, webhook: Webhook, limit: int = DELIVERY_LIST_LIMIT) -> list[Delivery]:
    """The newest deliveries with their attempts; ``payload`` is the body as JSON."""
    deliveries = list(
        Delivery.objects.filter(webhook=webhook).prefetch_related("attempt_log").order_by("-created_at")[:limit]
    )
    for delivery in deliveries:
        delivery.payload = json.loads(delivery.body)
    return deliveries


# ---- who listens ----------------------------------------------------------------------------------
# Every committed change of every game asks "does a seated account have a webhook?", and almost
# always the answer is no (issue 14: that lookup was a quarter of the worker's time). The answer
# for a game changes only when its seats do - a seat is taken once and never changes hands after -
# or when a webhook is created, changed or deleted anywhere. So the answer is cached per game under
# a *listeners version*, and every webhook write sets a new version (``services.
# webhook_listeners_changed``), which makes every cached answer stale at once.
#
# Why this is safe against a webhook created while a game's answer is being read: the reader
# reads the version *before* the database and files its answer under that version; the writer
# sets a new version *after* its commit. A reader whose database read missed the new webhook
# therefore read the version before the writer's new one, and its answer is never used.
LISTENERS_VERSION_KEY = "kifu:hooks:listeners-version"
LISTENERS_KEY = "kifu:hooks:listeners:{game_id}"
LISTENERS_SECONDS = 3600  # a game's answer; also bounds any staleness the cache itself might cause


def listeners_cached() -> bool:
    """The cache is shared by every process only on the real stack (Redis); the embedded default's
    in-process cache could not be told about a webhook another process created."""
    return not settings.EMBEDDED


def listening_seats(*, game_id) -> list[tuple[int, int]]:
    """``(user_id, seat index)`` of the seats of the game whose accounts have a webhook.

    From the cache when its answer is of the current listeners version (no query; the common case
    is an empty list), else one query, cached once every seat is taken (until then a join may
    still seat a listener)."""
    if not listeners_cached():
        return _listening_seats_read(game_id)[0]
    key = LISTENERS_KEY.format(game_id=game_id)
    try:
        found = cache.get_many([LISTENERS_VERSION_KEY, key])
        version = found.get(LISTENERS_VERSION_KEY)
        if version is None:  # never set, or evicted: set one before reading (see above)
            cache.add(LISTENERS_VERSION_KEY, new_listeners_version(), timeout=None)
            version = cache.get(LISTENERS_VERSION_KEY)
    except Exception:  # the cache only saves work; the database always knows
        log.warning("could not read the webhook listeners of %s from the cache", game_id, exc_info=True)
        return _listening_seats_read(game_id)[0]
    cached = found.get(key)
    if version is not None and cached is not None and cached[0] == version:
        return [tuple(seat) for seat in cached[1]]
    seats, complete = _listening_seats_read(game_id)
    if version is not None and complete:
        try:
            cache.set(key, (version, seats), LISTENERS_SECONDS)
        except Exception:
            log.warning("could not cache the webhook listeners of %s", game_id, exc_info=True)
    return seats


def _listening_seats_read(game_id) -> tuple[list[tuple[int, int]], bool]:
    """The listening seats, and whether every seat of the game is taken (so the answer can only
    change with a webhook write)."""
    rows = list(
        Seat.objects.filter(game_id=game_id)
        .annotate(listens=Exists(Webhook.objects.filter(user_id=OuterRef("user_id"))))
        .order_by("index")
        .values_list("user_id", "index", "listens")
    )
    seats = [(user_id, index) for user_id, index, listens in rows if listens]
    return seats, bool(rows) and all(user_id is not None for user_id, _, _ in rows)


def new_listeners_version() -> str:
    return uuid.uuid4().hex
