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
    return listening_seats_many([game_id])[game_id]


LISTENERS_BATCH = 2000  # games per cache read and per query of ``listening_seats_many``


def listening_seats_many(game_ids) -> dict:
    """``listening_seats`` of many games at once (a season's start makes thousands): one cache read
    and at most one query per ``LISTENERS_BATCH`` games, whatever the number - not one of each per
    game (issue 14: that was 16 of the 27 s of a 1,300-game season start)."""
    game_ids = list(dict.fromkeys(game_ids))
    found: dict = {}
    for start in range(0, len(game_ids), LISTENERS_BATCH):
        found.update(_listening_seats_batch(game_ids[start : start + LISTENERS_BATCH]))
    return found


def _listening_seats_batch(game_ids: list) -> dict:
    if not listeners_cached():
        return {game_id: seats for game_id, (seats, _) in _listening_seats_read(game_ids).items()}
    keys = {game_id: LISTENERS_KEY.format(game_id=game_id) for game_id in game_ids}
    try:
        found = cache.get_many([LISTENERS_VERSION_KEY, *keys.values()])
        version = found.get(LISTENERS_VERSION_KEY)
        if version is None:  # never set, or evicted: set one before reading (see above)
            cache.add(LISTENERS_VERSION_KEY, new_listeners_version(), timeout=None)
            version = cache.get(LISTENERS_VERSION_KEY)
    except Exception:  # the cache only saves work; the database always knows
        log.warning("could not read the webhook listeners of %d games from the cache", len(game_ids), exc_info=True)
        return {game_id: seats for game_id, (seats, _) in _listening_seats_read(game_ids).items()}
    answers, unknown = {}, []
    for game_id, key in keys.items():
        cached = found.get(key)
        if version is not None and cached is not None and cached[0] == version:
            answers[game_id] = [tuple(seat) for seat in cached[1]]
        else:
            unknown.append(game_id)
    if not unknown:
        return answers
    read = _listening_seats_read(unknown)
    answers.update((game_id, seats) for game_id, (seats, _) in read.items())
    complete = {keys[game_id]: (version, seats) for game_id, (seats, full) in read.items() if full}
    if version is not None and complete:
        try:
            cache.set_many(complete, LISTENERS_SECONDS)
        except Exception:
            log.warning("could not cache the webhook listeners of %d games", len(complete), exc_info=True)
    return answers


def _listening_seats_read(game_ids: list) -> dict:
    """Per game: the listening seats, and whether every seat of the game is taken (so the answer
    can only change with a webhook write). One query."""
    rows: dict = {game_id: [] for game_id in game_ids}
    by_text = {str(game_id): game_id for game_id in game_ids}  # answers under the caller's own ids
    for game_id, user_id, index, listens in (
        Seat.objects.filter(game_id__in=game_ids)
        .annotate(listens=Exists(Webhook.objects.filter(user_id=OuterRef("user_id"))))
        .order_by("game_id", "index")
        .values_list("game_id", "user_id", "index", "listens")
    ):
        rows[by_text[str(game_id)]].append((user_id, index, listens))
    return {
        game_id: (
            [(user_id, index) for user_id, index, listens in seats if listens],
            bool(seats) and all(user_id is not None for user_id, _, _ in seats),
        )
        for game_id, seats in rows.items()
    }


def new_listeners_version() -> str:
    return uuid.uuid4().hex
