"""Live streams: the per-game and per-account feeds, and waiting for a submission's verdict.

The change notices themselves (``games.notices``: channels, publishing, the per-process listener)
carry no game content, so they can leak nothing: whoever hears one re-reads the store with its own
viewer's rights. The feeds below do exactly that for the stream endpoints (``api/streams.py``):
they wait on a notice (or, in embedded mode without Redis, poll the database every
``KIFU_STREAM_POLL_SECONDS``), then re-read events through ``selectors.events_for`` - the same
redaction as the events endpoint.

Redis pub/sub is fire-and-forget, so the feeds never trust it alone: they also re-read on every
keep-alive and whenever the listener reconnects, and a lost notice only delays a message, it never
loses one.
"""

from __future__ import annotations

import json
import logging
import select
import socket
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TypeVar

from django.conf import settings
from django.db import connection
from django.db.models import Q

from . import checkpoints, moderation, selectors
from .models import Game, Seat
from .notices import BUS, Waiter, account_channel, channel, redis_client, verdict_key

log = logging.getLogger("kifu.streams")

T = TypeVar("T")

# A resumed account stream repeats what happened this long before its cursor: commit lag and
# clock skew between processes must not lose a "game ended". Clients dedupe on (game, head_seq).
ACCOUNT_RESUME_SLACK_MS = 10_000
# The latest resume id an account stream takes: the last millisecond a datetime can hold (9999-12-31).
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
ACCOUNT_MAX_RESUME_MS = (datetime.max.replace(tzinfo=UTC) - EPOCH) // timedelta(milliseconds=1)
# The most games an account stream announces when it (re)connects.
ACCOUNT_SNAPSHOT_LIMIT = 500
# Events read per database round trip; a longer backlog is read in several batches.
EVENT_BATCH = 500
# While a stream waits this long without news it gives its database connection back.
DB_IDLE_RELEASE_SECONDS = 1.0


# ---- verdicts -----------------------------------------------------------------------------------
def verdict_wait(public_id, timeout: float) -> dict | None:
    """Block up to ``timeout`` s for the verdict of a submission (``notices.publish``); None if none came
    (no worker got to it yet, or Redis is away: the caller reads the database then). The verdict
    stays in its list (``BLMOVE`` rotates it onto itself), so two requests waiting on one
    submission - a retry with the same idempotency key - both get it."""
    if not settings.REDIS_URL or timeout <= 0:
        return None
    key = verdict_key(public_id)
    try:
        raw = redis_client().blmove(key, key, timeout, "LEFT", "RIGHT")
    except Exception:
        log.warning("could not wait for the verdict of %s", public_id, exc_info=True)
        return None
    return json.loads(raw) if raw else None


# ---- long polls --------------------------------------------------------------------------------
LONG_POLL_REREAD_SECONDS = 1.0  # a long poll reads again this often without a notice (a lost one)


def notice_wait(name: str, read: Callable[[], T], ready: Callable[[T], bool], timeout: float) -> T:
    """``read()`` as soon as ``ready`` says so, waiting up to ``timeout`` s for it: the answer of a
    long poll (``GET /api/me/turns?wait=``). Reads once; if not ready, listens on the notice
    channel ``name`` and reads again after subscribing (a notice sent before that would be
    missed) and after every notice. Notices are fire-and-forget, so it also reads again every
    ``KIFU_STREAM_POLL_SECONDS`` while the listener is away from Redis, and at least every
    ``LONG_POLL_REREAD_SECONDS``.
    Returns the last read, ready or not."""
    result = read()
    if timeout <= 0 or ready(result):
        return result
    deadline = time.monotonic() + timeout
    waiter = BUS.listen(name)
    try:
        result = read()
        while not ready(result):
            left = deadline - time.monotonic()
            if left <= 0:
                break
            pause = LONG_POLL_REREAD_SECONDS if BUS.live else float(settings.KIFU_STREAM_POLL_SECONDS)
            waiter.wait(min(left, pause))
            result = read()
    finally:
        BUS.leave(waiter)
    return result


# ---- feeds --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Message:
    """One stream message: ``type`` (SSE event name), its JSON ``data`` and an optional resume ``id``."""

    type: str
    data: dict
    id: str | None = None


def _release_db() -> None:
    """Give the database connection back while a stream idles (a stream may stay open for an hour).

    Not inside a transaction: the in-process tests run a stream within their test transaction.
    """
    if not connection.in_atomic_block:
        connection.close()


def client_gone(sock) -> Callable[[], bool]:
    """A check that the client behind ``sock`` (gunicorn's ``environ["gunicorn.socket"]``) hung up.

    A WSGI app otherwise learns of a closed connection only when a write fails, which can take
    two keep-alives; meanwhile the stream holds a web thread. A readable socket that reads as
    empty (peeked, not consumed) is closed. Without a plain socket it never says gone.
    """
    if sock is None or not hasattr(sock, "recv"):
        return lambda: False

    def gone() -> bool:
        try:
            readable, _, _ = select.select([sock], [], [], 0)
            return bool(readable) and sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
        except (BlockingIOError, InterruptedError, ValueError):  # no data; or a TLS socket
            return False
        except OSError:
            return True

    return gone


class _Clock:
    """Deadlines of one stream: its end, its keep-alives, and how long to wait for the next notice."""

    # What ``wait`` reports: send a keep-alive; the stream's time is up; the client hung up;
    # or look again (with the notices that arrived, if any).
    KEEPALIVE, TIMEOUT, GONE, NEWS = "keepalive", "timeout", "gone", "news"

    def __init__(self, duration: float, gone: Callable[[], bool]) -> None:
        self.end = time.monotonic() + duration
        # Look again at this monotonic time even without a notice (a delayed spectator's next event).
        self.wake_at: float | None = None
        self.keepalive = float(settings.KIFU_STREAM_KEEPALIVE_SECONDS)
        self.poll = float(settings.KIFU_STREAM_POLL_SECONDS)
        self.gone = gone
        self.last_output = time.monotonic()

    def sent(self) -> None:
        self.last_output = time.monotonic()

    def wait(self, waiter: Waiter) -> Iterator[tuple[str, list[dict]]]:
        """Yield KEEPALIVE for each keep-alive due, until TIMEOUT, GONE or NEWS (time to re-read)."""
        idle_from = time.monotonic()
        while True:
            now = time.monotonic()
            if now >= self.end:
                yield self.TIMEOUT, []
                return
            if self.gone():
                yield self.GONE, []
                return
            if now - self.last_output >= self.keepalive:
                yield self.KEEPALIVE, []
                self.last_output = time.monotonic()
                yield self.NEWS, []  # re-read on every keep-alive: a lost notice only delays news
                return
            if self.wake_at is not None and now >= self.wake_at:
                self.wake_at = None
                yield self.NEWS, []
                return
            live = BUS.live
            # Wake at least every second to notice a client that hung up.
            step = min(self.end - now, self.keepalive - (now - self.last_output), 1.0)
            if self.wake_at is not None:
                step = min(step, self.wake_at - now)
            if not live:
                step = min(step, self.poll)
            idle = now - idle_from
            if idle >= DB_IDLE_RELEASE_SECONDS:
                _release_db()
            else:
                step = min(step, DB_IDLE_RELEASE_SECONDS - idle)
            woken, notices = waiter.wait(step)
            if woken or not live:
                yield self.NEWS, notices
                return


def _window_json(game: Game) -> dict | None:
    if not game.window:
        return None
    return {"id": game.window, "opened_at": game.window_opened_at, "deadline_at": game.deadline_at}


def _head_json(game: Game, seat: int | None, sight: selectors.Sight, replay: selectors.Replay | None) -> dict:
    head = selectors.game_head(game=game, sight=sight, replay=replay)  # hidden contributions replaced
    data = {
        "game": str(game.pk),
        "head_seq": head["head_seq"],
        "status": head["status"],
        "seat": seat,
        "actors": head["actors"],
        "window": head["window"],
        "outcome": head["outcome"],
        "clock": head["clock"],
    }
    if seat is not None and seat in game.actors and not game.is_finished:
        data["legal_moves"] = selectors.legal_moves(game=game, seat=seat)
    return data


def game_feed(
    *, game_id, user, after: int, duration: float, gone: Callable[[], bool] = lambda: False
) -> Iterator[Message | None]:
    """A game's events after ``after`` as ``user`` may see them, live, until the game ends.

    Yields ``event`` messages (id = seq), a ``head`` message after each batch (status, actors,
    window, clock and - for a seat that may act - its legal moves), None when a keep-alive is due,
    and a final ``end`` (``reason``: ``finished`` or ``timeout``). Events are read only up to the
    head seq of the game row read just before them: the redaction state and the events then agree
    even if more events commit in between. A spectator held back by the game's spectator delay
    (``selectors.game_sight``) gets each event once it is that old: the feed wakes itself when
    the next one passes the delay, and ends only once the game's end has.
    """
    waiter = BUS.listen(channel(game_id))
    clock = _Clock(duration, gone)
    cursor, announced, seat, seat_known, privileged = after, None, None, False, None
    replay: selectors.Replay | None = None
    try:
        while True:
            game = Game.objects.filter(pk=game_id).first()
            if game is None:
                return
            if not seat_known:
                seat = selectors.seat_of(game=game, user=user)
                seat_known = game.status != Game.Status.OPEN  # seats change only while open
            if privileged is None:
                privileged = moderation.is_moderator(game=game, user=user)
            sight = selectors.sight_for_seat(game=game, seat=seat, privileged=privileged)
            if sight.delayed:
                replay = selectors.sight_replay(game=game, sight=sight, replay=replay)
                clock.wake_at = _monotonic_at(sight.next_at)
            else:
                replay, clock.wake_at = None, None
            while cursor < sight.seq:
                limit = min(EVENT_BATCH, sight.seq - cursor)
                events = selectors.events_for(
                    game=game, seat=seat, after=cursor, limit=limit, sight=sight, replay=replay
                )
                if not events:
                    break
                for event in events:
                    yield Message("event", event, str(event["seq"]))
                    cursor = event["seq"]
                clock.sent()
            if announced != (sight.seq, seat, sight.public, game.status):
                yield Message("head", _head_json(game, seat, sight, replay))
                announced = (sight.seq, seat, sight.public, game.status)
                clock.sent()
            if game.is_finished and not sight.delayed and cursor >= game.head_seq:
                end = {"game": str(game.pk), "reason": "finished", "head_seq": game.head_seq}
                yield Message("end", {**end, "signed_head": checkpoints.head_signed(game)})
                return
            for what, _notices in clock.wait(waiter):
                if what == clock.KEEPALIVE:
                    yield None
                elif what == clock.TIMEOUT:
                    yield Message("end", {"game": str(game.pk), "reason": "timeout", "head_seq": cursor})
                    return
                elif what == clock.GONE:
                    return
    finally:
        BUS.leave(waiter)


def _monotonic_at(moment) -> float | None:
    """``moment`` (a wall-clock datetime) on the monotonic clock the stream waits on."""
    if moment is None:
        return None
    return time.monotonic() + max(0.0, moment.timestamp() - time.time()) + 0.01


@dataclass(frozen=True)
class _Seen:
    status: str
    head_seq: int
    window: str
    on_turn: bool


def _account_seats(user, *, hidden: list[str], game_ids=None, since_ms: int | None = None):
    """The account's seats with their games: running and open ones, plus those that started or
    ended after ``since_ms``; or exactly the games ``game_ids``. Never games of ``hidden`` engines."""
    seats = Seat.objects.filter(user=user).exclude(game__engine__in=hidden)
    seats = seats.select_related("game", "game__created_by").defer("game__state", "game__config")
    if game_ids is not None:
        return list(seats.filter(game_id__in=game_ids))
    active = Q(game__status__in=[Game.Status.OPEN, Game.Status.RUNNING])
    if since_ms is not None:
        moment = _from_ms(since_ms)
        active |= Q(game__started_at__gt=moment) | Q(game__finished_at__gt=moment)
    return list(seats.filter(active).order_by("-game__created_at")[:ACCOUNT_SNAPSHOT_LIMIT])


def _from_ms(ms: int):
    return EPOCH + timedelta(milliseconds=ms)  # exact (a float timestamp can round into the year 10000)


def _now_ms() -> int:
    return int(time.time() * 1000)


def _to_ms(moment) -> int | None:
    return None if moment is None else int(moment.timestamp() * 1000)


def _account_changes(seat: Seat, prev: _Seen | None, *, since_ms: int | None) -> list[tuple[str, dict]]:
    """What changed for this account in this game since ``prev`` (None: not seen on this stream).

    ``since_ms`` is the cutoff for a game this stream has not seen: it was started or ended after
    it (None: only what is true now counts - a first connection does not replay old endings).
    """
    game = seat.game
    running, finished = game.status == Game.Status.RUNNING, game.status == Game.Status.FINISHED
    on_turn = running and seat.index in game.actors
    base = {"game": str(game.pk), "engine": game.engine, "seat": seat.index, "head_seq": game.head_seq}
    out: list[tuple[str, dict]] = []
    started_ms, finished_ms = _to_ms(game.started_at), _to_ms(game.finished_at)
    if prev is None:
        new_start = running if since_ms is None else (started_ms or 0) > since_ms
        new_end = finished and since_ms is not None and (finished_ms or 0) > since_ms
    else:
        new_start = (running or finished) and prev.status == Game.Status.OPEN
        new_end = finished and prev.status != Game.Status.FINISHED
    waiting = game.status == Game.Status.OPEN and seat.accepted_at is None and seat.declined_at is None
    if waiting and prev is None:  # a seat someone else named this account for (issue 15 part 6)
        invited_by = None if game.created_by is None else game.created_by.get_username()
        out.append(("invitation", {**base, "invited_by": invited_by}))
    if game.status == Game.Status.CANCELLED and prev is not None and prev.status != Game.Status.CANCELLED:
        out.append(("game_cancelled", base))
    if new_start:
        out.append(("game_started", {**base, "started_at": game.started_at}))
    if on_turn and game.window and (prev is None or prev.window != game.window):
        out.append(("window_opened", {**base, "window": _window_json(game)}))
    if on_turn and (prev is None or not prev.on_turn or prev.head_seq != game.head_seq):
        out.append(("your_turn", {**base, "actors": game.actors, "window": _window_json(game)}))
    if new_end:
        outcome = selectors.outcome_for(game=game)  # hidden contributions replaced (games.moderation)
        signed = checkpoints.head_signed(game)
        out.append(("game_ended", {**base, "outcome": outcome, "finished_at": game.finished_at, "signed_head": signed}))
    return out


def account_feed(
    *, user, after_ms: int | None, duration: float, gone: Callable[[], bool] = lambda: False
) -> Iterator[Message | None]:
    """What needs the account's attention across its games: ``invitation`` (a seat to accept or
    decline), ``game_cancelled``, ``game_started``, ``window_opened``, ``your_turn`` and
    ``game_ended``, other apps' named notices as they come (the lobby's ``seek_joined``,
    ``seek_left``, ``seek_filled``, ``seek_cancelled``, ``seek_expired``; the reminders'
    ``reminder``: edge-triggered hints, not repeated on reconnect); then ``end`` (``reason:
    timeout``) when ``duration`` is over.

    Level-triggered: every connection first announces the running games and those waiting on the
    account, so a reconnect never misses a turn. A resume cursor (the last message id, a server
    time in ms) also repeats the games started or ended since shortly before it. Messages carry
    the game and its head seq; a client dedupes on them.
    """
    waiter = BUS.listen(account_channel(user.pk))
    clock = _Clock(duration, gone)
    since = None if after_ms is None else after_ms - ACCOUNT_RESUME_SLACK_MS
    seen: dict[str, _Seen] = {}
    # Mature games stay out of sight for an account that has not (or no longer) consented.
    hidden = [] if selectors.may_see_mature(user) else selectors.mature_engines()
    try:
        scan_from = _now_ms()
        seats = _account_seats(user, hidden=hidden, since_ms=since)
        while True:
            stamp = str(_now_ms())
            for seat in reversed(seats):  # oldest game first
                key = str(seat.game_id)
                for kind, data in _account_changes(seat, seen.get(key), since_ms=since):
                    yield Message(kind, data, stamp)
                    clock.sent()
                game = seat.game
                seen[key] = _Seen(game.status, game.head_seq, game.window, seat.index in game.actors)
            # From now on a game this stream has not seen is news if it started or ended after
            # (shortly before) the last full scan.
            since = scan_from - ACCOUNT_RESUME_SLACK_MS
            seats = []
            for what, notices in clock.wait(waiter):
                if what == clock.KEEPALIVE:
                    yield None
                    continue
                if what == clock.TIMEOUT:
                    yield Message("end", {"reason": "timeout"}, str(_now_ms()))
                    return
                if what == clock.GONE:
                    return
                # Another app's named account notice (the lobby's seeks: ``{"event": "seek_joined",
                # ...}``) is passed on as it came; like every notice it holds no game content.
                for notice in notices:
                    if isinstance(notice.get("event"), str) and notice["event"].isidentifier():
                        yield Message(
                            notice["event"], {k: v for k, v in notice.items() if k != "event"}, str(_now_ms())
                        )
                        clock.sent()
                ids = {_uuid(notice.get("game")) for notice in notices} - {None}
                if ids and BUS.live:
                    seats = _account_seats(user, hidden=hidden, game_ids=ids)
                else:  # polling, or woken by a reconnect or a keep-alive: rescan what can have changed
                    cutoff = _now_ms()
                    seats = _account_seats(user, hidden=hidden, since_ms=since)
                    scan_from = cutoff
    finally:
        BUS.leave(waiter)


def _uuid(value) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None
