"""Every write of the webhooks: registering URLs, turning game changes into deliveries, and sending them.

A delivery is a JSON POST signed with HMAC-SHA256 of its body under the webhook's secret
(``X-Kifu-Signature: sha256=<hex>``). A connection error or a 5xx answer is retried with
exponential backoff; any other answer is final. Every attempt is logged.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import secrets
import time
from datetime import timedelta
from urllib.parse import quote, urlsplit, urlunsplit

import requests
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import cache
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone

from games import selectors as games_selectors
from games.errors import ServiceError
from games.models import Game
from kifu.locking import lock_by_id

from . import selectors
from .models import Delivery, DeliveryAttempt, GameCursor, Webhook
from .signals import deliveries_created

log = logging.getLogger("kifu.hooks")

# ``reminder``: a deadline is near (reminders/), sent only if the account's reminder preferences say so.
EVENTS = ("game_started", "window_opened", "your_turn", "game_ended", "reminder")
MAX_WEBHOOKS_PER_ACCOUNT = 10
USER_AGENT = "Kifu-Webhooks/1"


# ---- registering --------------------------------------------------------------------------------
# A host as called: ASCII labels (an internationalised name arrives here as IDNA) or an IPv4 address.
HOST_NAME = re.compile(r"[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*")


def webhook_url_normalise(url: str) -> str:
    """The URL as stored and called: ASCII only (IDNA host, percent-encoded path and query), so it
    is a valid URI for every client; raises ServiceError ``bad_webhook_url`` saying what to fix."""

    def refuse(message: str):
        raise ServiceError("bad_webhook_url", message)

    url = (url or "").strip()
    if any(char.isspace() or ord(char) < 32 or ord(char) == 127 for char in url):
        refuse("a webhook URL may not contain spaces or control characters; percent-encode them")
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        refuse("a webhook URL must be an absolute http:// or https:// URL")
    if parts.username or parts.password:
        refuse("a webhook URL must not carry a user name or password")
    try:
        port = parts.port
        host = parts.hostname.encode("idna").decode("ascii") if not parts.hostname.isascii() else parts.hostname
    except (ValueError, UnicodeError):
        refuse("a webhook URL needs a valid host name and a port from 1 to 65535")
    if port == 0:
        refuse("a webhook URL needs a port from 1 to 65535")
    if not HOST_NAME.fullmatch(host):  # "example.org*", "a..b", an IPv6 literal
        refuse(f"a webhook URL needs a host name of letters, digits and hyphens (or an IPv4 address), not {host!r}")
    netloc = host if port is None else f"{host}:{port}"
    safe = "/%:@!$&'()*+,;=-._~?"
    url = urlunsplit((parts.scheme.lower(), netloc, quote(parts.path, safe=safe), quote(parts.query, safe=safe), ""))
    if len(url) > 500:
        refuse("a webhook URL may be at most 500 characters")
    return url


def webhook_create(*, user: AbstractBaseUser, url: str, events: list[str] | None = None) -> Webhook:
    """Register ``url`` for the account's game events (all four unless ``events`` narrows them)."""
    url = webhook_url_normalise(url)
    chosen = list(EVENTS) if events is None else list(dict.fromkeys(events))
    unknown = [kind for kind in chosen if kind not in EVENTS]
    if unknown or not chosen:
        raise ServiceError(
            "bad_webhook_events", f"events must be a non-empty list of {', '.join(EVENTS)}; unknown: {unknown}"
        )
    with transaction.atomic():
        # Lock the account row so two concurrent requests cannot both pass the limit.
        lock_by_id(type(user), user.pk)
        if Webhook.objects.filter(user=user).count() >= MAX_WEBHOOKS_PER_ACCOUNT:
            raise ServiceError(
                "too_many_webhooks", f"an account may register at most {MAX_WEBHOOKS_PER_ACCOUNT} webhooks; delete one"
            )
        return Webhook.objects.create(user=user, url=url, events=chosen, secret=secrets.token_hex(32))


def webhook_delete(*, user: AbstractBaseUser, webhook_id) -> None:
    deleted, _ = Webhook.objects.filter(user=user, pk=webhook_id).delete()
    if not deleted:
        raise ServiceError("not_found", "no such webhook", status=404)


def webhook_listeners_changed() -> None:
    """Make every cached answer of ``selectors.listening_seats`` stale: a webhook was created,
    changed or deleted (``receivers`` calls this on every save and delete of a ``Webhook``, so the
    admin and an account's deletion count too, not only the services above).

    A new listeners version is set now - so that this transaction's own later reads see the
    change - and again once the transaction commits, which is what makes it safe: a reader that
    read the database before the commit filed its answer under an older version
    (``selectors.listening_seats`` says why). Setting it now may fail the write (the cache is the
    broker's Redis; without it nothing moves anyway); after the commit a failure is only logged,
    and the cached answers expire within ``selectors.LISTENERS_SECONDS``.
    """
    if not selectors.listeners_cached():
        return
    _listeners_version_set()
    transaction.on_commit(_listeners_version_set, robust=True)


def _listeners_version_set() -> None:
    cache.set(selectors.LISTENERS_VERSION_KEY, selectors.new_listeners_version(), timeout=None)


# ---- turning game changes into deliveries ---------------------------------------------------------
def _window_json(game: Game) -> dict | None:
    if not game.window:
        return None
    return {"id": game.window, "opened_at": game.window_opened_at, "deadline_at": game.deadline_at}


def _changes(game: Game, seat: int, cursor: GameCursor, fresh: bool) -> list[tuple[str, dict]]:
    """The account stream's four kinds (games/streams.py ``_account_changes``), as edges against the
    cursor: each start, opened window, turn and ending is announced once."""
    running, finished = game.status == Game.Status.RUNNING, game.status == Game.Status.FINISHED
    on_turn = running and seat in game.actors
    base = {"game": str(game.pk), "engine": game.engine, "seat": seat, "head_seq": game.head_seq}
    out: list[tuple[str, dict]] = []
    if (running or finished) and cursor.status in ("", Game.Status.OPEN):
        out.append(("game_started", {**base, "started_at": game.started_at}))
    if on_turn and game.window and (fresh or cursor.window != game.window):
        out.append(("window_opened", {**base, "window": _window_json(game)}))
    if on_turn and (fresh or not cursor.on_turn or cursor.head_seq != game.head_seq):
        out.append(("your_turn", {**base, "actors": game.actors, "window": _window_json(game)}))
    if finished and cursor.status != Game.Status.FINISHED:
        # As the account stream: a contribution a moderator hid stays hidden (games.moderation).
        outcome = games_selectors.outcome_for(game=game)
        out.append(("game_ended", {**base, "outcome": outcome, "finished_at": game.finished_at}))
    return out


def game_changes_deliver_many(*, game_ids) -> int:
    """``game_changes_deliver`` of many games changed at once (a season's start): which of them
    anyone listens to is one cache read and at most one query per batch, not one per game; only
    those listened to are delivered (each as ``game_changes_deliver``). Returns how many."""
    listened = [game_id for game_id, seats in selectors.listening_seats_many(game_ids).items() if seats]
    return sum(game_changes_deliver(game_id=game_id) for game_id in listened)


def game_changes_deliver(*, game_id) -> int:
    """Queue the deliveries a committed change of a game calls for; returns how many.

    A game none of whose players has a webhook costs no query (``selectors.listening_seats``).
    Runs after the game's transaction committed (the ``game_changed`` signal). The cursor rows are
    locked before the game is read, so of two concurrent calls the later one reads a game at least
    as new as the first: no edge is announced twice, and none is lost.
    """
    seats = selectors.listening_seats(game_id=game_id)  # usually nobody, and from the cache
    if not seats:
        return 0
    created: list[Delivery] = []
    with transaction.atomic():
        GameCursor.objects.bulk_create(
            [GameCursor(user_id=user_id, game_id=game_id) for user_id, _ in seats], ignore_conflicts=True
        )
        cursors = {
            cursor.user_id: cursor
            for cursor in GameCursor.objects.select_for_update().filter(
                game_id=game_id, user_id__in=[user_id for user_id, _ in seats]
            )
        }
        game = Game.objects.defer("state", "config").get(pk=game_id)
        hooks = list(Webhook.objects.filter(user_id__in=cursors))
        for user_id, index in seats:
            cursor = cursors[user_id]
            for kind, data in _changes(game, index, cursor, fresh=not cursor.status):
                for hook in hooks:
                    if hook.user_id != user_id or kind not in hook.events:
                        continue
                    if kind == "game_started" and game.started_at and game.started_at < hook.created_at:
                        continue  # registered mid-game: its start is old news
                    created.append(_delivery(hook, kind, data))
            cursor.status, cursor.head_seq, cursor.window = game.status, game.head_seq, game.window
            cursor.on_turn = game.status == Game.Status.RUNNING and index in game.actors
            cursor.save()
        Delivery.objects.bulk_create(created)
        ids = [str(delivery.pk) for delivery in created]
        transaction.on_commit(lambda: deliveries_created.send(sender=Delivery, delivery_ids=ids))
    return len(created)


def _delivery(hook: Webhook, kind: str, data: dict) -> Delivery:
    delivery = Delivery(webhook=hook, event=kind, next_attempt_at=timezone.now())
    body = {"id": str(delivery.pk), "event": kind, "created_at": timezone.now(), "data": data}
    delivery.body = json.dumps(body, cls=DjangoJSONEncoder, separators=(",", ":"), sort_keys=True)
    return delivery


def account_event_deliver(*, user_id: int, event: str, data: dict) -> int:
    """Queue ``event`` for every webhook of the account that receives it (an event not about one
    game's change, such as a ``reminder``); returns how many. Call it inside the caller's
    transaction: the deliveries are sent once it commits."""
    hooks = [hook for hook in Webhook.objects.filter(user_id=user_id) if event in hook.events]
    created = Delivery.objects.bulk_create([_delivery(hook, event, data) for hook in hooks])
    if created:
        ids = [str(delivery.pk) for delivery in created]
        transaction.on_commit(lambda: deliveries_created.send(sender=Delivery, delivery_ids=ids))
    return len(created)


# ---- sending ------------------------------------------------------------------------------------
def signature(secret: str, body: bytes) -> str:
    """The X-Kifu-Signature value: a receiver recomputes it over the raw body and compares."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def backoff_seconds(attempts: int) -> float:
    """Wait after the ``attempts``-th failed attempt: base, 2 x base, 4 x base ... capped at an hour."""
    return min(float(settings.KIFU_WEBHOOK_BACKOFF_SECONDS) * 2 ** (attempts - 1), 3600.0)


def delivery_attempt(*, delivery_id) -> float | None:
    """Make one attempt of a pending, due delivery; returns the seconds until the next attempt, or
    None when there is nothing more to do (delivered, failed for good, not due, or being sent).

    The delivery is claimed (its next attempt pushed past the request timeout) in a short
    transaction, so no transaction is open while the receiver takes its time, and a duplicate
    task or a sweep finds it not due and leaves it alone.
    """
    timeout = float(settings.KIFU_WEBHOOK_TIMEOUT_SECONDS)
    with transaction.atomic():
        delivery = (
            # of=self: locking the joined webhook row too would make concurrent deliveries of one
            # webhook skip each other.
            Delivery.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("webhook")
            .filter(pk=delivery_id, status=Delivery.Status.PENDING, next_attempt_at__lte=timezone.now())
            .first()
        )
        if delivery is None:
            return _early(delivery_id)
        delivery.attempts += 1
        delivery.next_attempt_at = timezone.now() + timedelta(seconds=timeout + 30)
        delivery.save(update_fields=["attempts", "next_attempt_at"])
    body = delivery.body.encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-Kifu-Event": delivery.event,
        "X-Kifu-Delivery": str(delivery.pk),
        "X-Kifu-Signature": signature(delivery.webhook.secret, body),
    }
    at, started = timezone.now(), time.monotonic()
    status_code, error = None, ""
    try:
        response = requests.post(
            delivery.webhook.url, data=body, headers=headers, timeout=timeout, allow_redirects=False
        )
        status_code = response.status_code
        response.close()
    except requests.RequestException as exc:
        error = f"{type(exc).__name__}: {exc}"[:300]
    duration_ms = int((time.monotonic() - started) * 1000)
    retry = status_code is None or status_code >= 500
    with transaction.atomic():
        DeliveryAttempt.objects.create(
            delivery=delivery,
            number=delivery.attempts,
            at=at,
            status_code=status_code,
            error=error,
            duration_ms=duration_ms,
        )
        delay = None
        if status_code is not None and 200 <= status_code < 300:
            delivery.status, delivery.next_attempt_at = Delivery.Status.DELIVERED, None
        elif retry and delivery.attempts < int(settings.KIFU_WEBHOOK_MAX_ATTEMPTS):
            delay = backoff_seconds(delivery.attempts)
            delivery.next_attempt_at = timezone.now() + timedelta(seconds=delay)
        else:  # a 4xx (or 3xx) is the receiver's final word; or the attempts are used up
            delivery.status, delivery.next_attempt_at = Delivery.Status.FAILED, None
        delivery.save(update_fields=["status", "next_attempt_at"])
    return delay


def _early(delivery_id) -> float | None:
    """A retry task that fired a little before its attempt is due waits the rest; anything else
    (done, claimed by another attempt, or far from due) is left to its own task or the sweep."""
    due = (
        Delivery.objects.filter(pk=delivery_id, status=Delivery.Status.PENDING)
        .values_list("next_attempt_at", flat=True)
        .first()
    )
    if due is None:
        return None
    remaining = (due - timezone.now()).total_seconds()
    return remaining if 0 < remaining <= 1.0 else None


def deliveries_due(*, grace: float) -> list[str]:
    """Pending deliveries overdue by more than ``grace`` seconds: their task was lost (or, embedded,
    there is no task that can wait)."""
    cutoff = timezone.now() - timedelta(seconds=grace)
    return [
        str(pk)
        for pk in Delivery.objects.filter(status=Delivery.Status.PENDING, next_attempt_at__lte=cutoff)
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:500]
    ]
