"""Every write to the event store: creating and joining games, submitting and applying moves.

The order inside a write is always: lock the game row, run the engine, append events, update the
head projection, and queue what leaves the process (timers, stream messages) with
``transaction.on_commit`` - so nothing outside the database ever sees an uncommitted event.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from . import clocks
from .engines import get_engine
from .engines.base import Engine, RuleError
from .engines.chance import ChanceStream
from .models import Event, Game, MatureConsent, Seat, Submission
from .records import canonical_json

log = logging.getLogger("kifu.games")


class ServiceError(Exception):
    """A request the service refuses: ``status`` is the HTTP status the API answers with."""

    def __init__(self, code: str, message: str, *, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def event_hash(previous: str, seq: int, event: dict) -> str:
    return hashlib.sha256((previous + canonical_json({"seq": seq, **event})).encode()).hexdigest()


# ---- creating and joining ---------------------------------------------------------------------
@transaction.atomic
def game_create(
    *,
    engine_slug: str,
    config: dict | None,
    seats: list[AbstractBaseUser | None],
    created_by: AbstractBaseUser | None,
    names: list[str] | None = None,
    time_control: dict | None = None,
    spectator_delay_seconds: int = 0,
) -> Game:
    """A new server game; it starts (and deals) as soon as every seat has a player.

    ``time_control`` (``games.clocks``: per move, a Fischer bank, or days per move) and
    ``spectator_delay_seconds`` are game settings kept in ``meta``, not engine config: the
    engine's rules and record stay the same, the service keeps the clock (see ``_clock_window``)
    and the selectors hold spectators back (``selectors.game_sight``).
    """
    try:
        engine = get_engine(engine_slug)
        engine.check_seats(len(seats))
        full_config = engine.validate_config(config)
    except RuleError as error:
        raise ServiceError(error.code, error.message) from None
    try:
        clock = clocks.parse_time_control(time_control, engine.slug)
    except clocks.TimeControlError as error:
        raise ServiceError("bad_time_control", error.message) from None
    meta = {"time_control": clock} if clock else {}
    delay = _spectator_delay_check(spectator_delay_seconds)
    if delay:
        meta["spectator_delay_seconds"] = delay
    users = [user for user in seats if user is not None]
    if len({user.pk for user in users}) != len(users):
        raise ServiceError("duplicate_player", "a player can hold only one seat of a game")
    if engine.mature:
        _require_consent([created_by, *users])
    seed = secrets.token_hex(32)
    game = Game.objects.create(
        engine=engine.slug,
        rules_version=engine.rules_version,
        config=full_config,
        seed=seed,
        seed_sha256=hashlib.sha256(bytes.fromhex(seed)).hexdigest(),
        created_by=created_by,
        meta=meta,
    )
    now = timezone.now()
    for index, user in enumerate(seats):
        name = (names[index] if names else "") or (user.get_username() if user else "")
        # In a mature game each player accepts for themselves; the creator's own seat is accepted.
        accepted = user is not None and (not engine.mature or user == created_by)
        Seat.objects.create(game=game, index=index, user=user, name=name, accepted_at=now if accepted else None)
    _start_if_ready(game, engine)
    return game


CLOCK_PREFIX = "clock-"
CLOCK_STATE = "clock_state"  # meta key of a bank clock's projection (games.clocks.Bank)
FORFEIT_REASON_LENGTH = 100


def _spectator_delay_check(seconds) -> int:
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, int)
        or not (0 <= seconds <= clocks.MAX_SPECTATOR_DELAY_SECONDS)
    ):
        raise ServiceError(
            "bad_spectator_delay",
            f"spectator_delay_seconds is a whole number of seconds from 0 to {clocks.MAX_SPECTATOR_DELAY_SECONDS}",
        )
    return seconds


@transaction.atomic
def game_spectator_delay_set(*, game_id, seconds: int) -> Game:
    """Set the spectator delay of a game that has not ended (a tournament sets it on the games it
    creates). Spectators - anyone not seated, not staff and not the game's creator - then see
    the game as it was ``seconds`` ago (``selectors.game_sight``); 0 shows it live."""
    game = _lock(game_id)
    delay = _spectator_delay_check(seconds)
    if game.is_finished:
        raise ServiceError("game_over", "the game is over; its spectator delay can no longer change", status=409)
    meta = {key: value for key, value in (game.meta or {}).items() if key != "spectator_delay_seconds"}
    if delay:
        meta["spectator_delay_seconds"] = delay
    game.meta = meta
    game.save(update_fields=["meta"])
    return game


def _require_consent(users) -> None:
    missing = sorted(
        user.get_username()
        for user in users
        if user is not None and not MatureConsent.objects.filter(user=user).exists()
    )
    if missing:
        raise ServiceError(
            "mature_consent_required",
            f"this game is for adults who opted in; no mature-content consent from: {', '.join(missing)} "
            "(each player confirms it at POST /api/me/mature-consent)",
            status=403,
        )


def _start_if_ready(game: Game, engine: Engine) -> None:
    seats = list(game.seats.all())
    if all(seat.user_id is not None and seat.accepted_at is not None for seat in seats):
        _start(game, engine)


def mature_consent_confirm(*, user: AbstractBaseUser, adult: bool, consent: bool) -> MatureConsent:
    """Record the standing confirmation; both statements must be made explicitly."""
    if adult is not True or consent is not True:
        raise ServiceError(
            "consent_incomplete", 'confirm both "adult": true and "consent": true to see and play mature games'
        )
    record, _ = MatureConsent.objects.get_or_create(user=user)
    return record


def mature_consent_withdraw(*, user: AbstractBaseUser) -> None:
    """Withdraw consent: mature games disappear for the player (their seats stay in the record)."""
    MatureConsent.objects.filter(user=user).delete()


@transaction.atomic
def game_accept(*, game_id, user: AbstractBaseUser) -> Game:
    """A player accepts the seat someone else gave them in a mature game; the last one starts it."""
    game = _lock(game_id)
    seat = game.seats.filter(user=user).first()
    if seat is None:
        raise ServiceError("not_a_player", "you hold no seat in this game", status=403)
    if game.status != Game.Status.OPEN:
        raise ServiceError("game_not_open", "this game has already started", status=409)
    engine = get_engine(game.engine)
    if engine.mature:
        _require_consent([user])
    if seat.accepted_at is None:
        seat.accepted_at = timezone.now()
        seat.save(update_fields=["accepted_at"])
    _start_if_ready(game, engine)
    return game


@transaction.atomic
def game_join(*, game_id, user: AbstractBaseUser, seat: int | None = None) -> Game:
    """Take an open seat (the first one, or ``seat``); the last seat taken starts the game."""
    game = _lock(game_id)
    if game.status != Game.Status.OPEN:
        raise ServiceError("game_not_open", "this game is not waiting for players", status=409)
    seats = list(game.seats.order_by("index"))
    if any(s.user_id == user.pk for s in seats):
        raise ServiceError("already_seated", "you already hold a seat in this game", status=409)
    open_seats = [s for s in seats if s.user_id is None]
    if seat is not None:
        open_seats = [s for s in open_seats if s.index == seat]
        if not open_seats:
            raise ServiceError("seat_taken", f"seat {seat} is not open", status=409)
    if not open_seats:
        raise ServiceError("game_full", "every seat is taken", status=409)
    engine = get_engine(game.engine)
    if engine.mature:
        _require_consent([user])
    chosen = open_seats[0]
    chosen.user = user
    chosen.name = chosen.name or user.get_username()
    chosen.accepted_at = timezone.now()  # taking a seat yourself is accepting the game
    chosen.save(update_fields=["user", "name", "accepted_at"])
    _start_if_ready(game, engine)
    return game


def _start(game: Game, engine: Engine) -> None:
    state = engine.setup(game.config, game.seats.count())
    game.status = Game.Status.RUNNING
    game.started_at = timezone.now()
    clock = (game.meta or {}).get("time_control")
    if clock and clocks.kind(clock) == "bank":
        bank = clocks.Bank.start(clock, game.seats.count(), game.started_at, _running(engine, state))
        game.meta = {**game.meta, CLOCK_STATE: bank.to_json()}
    state = _settle(game, engine, state)
    _save_head(game, engine, state)


# ---- moves ------------------------------------------------------------------------------------
@dataclass
class SubmitResult:
    submission: Submission
    created: bool


def move_submit(*, game_id, user: AbstractBaseUser, move: dict, idempotency_key: str) -> SubmitResult:
    """Store a pending submission and queue its validation; the same key returns the first one.

    The game row is locked for the insert so that submission ids - the receipt order that decides
    "first caller wins" - are handed out in commit order: a worker can never see a later-numbered
    submission before an earlier one. The lock is held only for the insert. ``received_at`` is the
    arrival time, taken before waiting for the lock; deadlines are judged by it.
    """
    arrived = timezone.now()
    if not isinstance(move, dict) or not isinstance(move.get("type"), str):
        raise ServiceError("malformed_move", 'a move is a JSON object with a "type" string')
    if not idempotency_key or len(idempotency_key) > 100:
        raise ServiceError("bad_idempotency_key", "the idempotency key must be 1-100 characters")
    existing = _existing_submission(game_id, user, idempotency_key, move)
    if existing:
        return SubmitResult(existing, False)
    seat = Seat.objects.filter(game_id=game_id, user=user).values_list("index", flat=True).first()
    if seat is None:
        raise ServiceError("not_a_player", "you hold no seat in this game", status=403)
    try:
        with transaction.atomic():
            _lock(game_id)
            submission = Submission.objects.create(
                game_id=game_id,
                user=user,
                seat=seat,
                idempotency_key=idempotency_key,
                payload=move,
                received_at=arrived,
            )
            transaction.on_commit(lambda: _queue_advance(game_id))
    except IntegrityError:
        # Two requests with one key raced; the other one won and its submission is the answer.
        existing = _existing_submission(game_id, user, idempotency_key, move)
        if existing is None:
            raise
        return SubmitResult(existing, False)
    return SubmitResult(submission, True)


def _existing_submission(game_id, user, key: str, move: dict) -> Submission | None:
    existing = Submission.objects.filter(game_id=game_id, user=user, idempotency_key=key).first()
    if existing and canonical_json(existing.payload) != canonical_json(move):
        raise ServiceError(
            "idempotency_conflict",
            "this idempotency key was already used for a different move; use a new key",
            status=409,
        )
    return existing


def _queue_advance(game_id) -> None:
    from .tasks import game_advance_task

    game_advance_task.delay(str(game_id))


@transaction.atomic
def game_advance(*, game_id, received_before: datetime | None = None) -> int:
    """Apply the game's pending submissions in receipt order, then close an overdue window.

    Locks the game row first, so two workers never apply moves to one game at once, and every
    verdict, event and the head projection commit together. A submission received after the open
    window's deadline is judged after that window closes: fairness follows the recorded deadline
    and the receipt time, not the moment a worker gets to it. Returns the number of decisions.

    ``received_before``: apply only the submissions received before this moment, and close only
    the windows overdue by then (a league judging a game at its play-by date asks what the game
    looked like at that date); later submissions stay pending for the next advance.
    """
    game = _lock(game_id)
    pending = game.submissions.filter(status=Submission.Status.PENDING)
    if received_before is not None:
        pending = pending.filter(received_at__lt=received_before)
    pending = list(pending.order_by("id"))
    if game.status == Game.Status.OPEN and not pending:
        return 0
    engine = get_engine(game.engine)
    state = engine.load_state(game.state) if game.state is not None else None
    state = _apply_pending(game, engine, state, pending)
    if state is not None:
        state = _close_if_overdue(game, engine, state, _judged_at(received_before))
        _save_head(game, engine, state)
    return len(pending)


def _apply_pending(game: Game, engine: Engine, state, pending: list[Submission]):
    """Decide ``pending`` (receipt order), closing each window that was overdue at a receipt."""
    for submission in pending:
        if state is not None:
            state = _close_if_overdue(game, engine, state, submission.received_at)
        verdict = _decide(game, engine, state, submission)
        if verdict is not None:
            state = verdict
    return state


def _judged_at(moment: datetime | None) -> datetime:
    """The moment overdue windows are closed at: ``moment``, but never later than now - a window
    whose deadline is still ahead in real time is not closed by a caller's simulated clock."""
    now = timezone.now()
    return now if moment is None else min(moment, now)


@transaction.atomic
def game_forfeit(*, game_id, seats: Sequence[int], reason: str, now: datetime | None = None) -> Game:
    """End a running game for an outside reason (a league's round deadline, a withdrawal, a
    re-pairing): the given seats resign as system events marked ``"reason": reason`` - never a
    submission on the players' behalf, so the record says who ended the game and why.

    Locks the game row (as every append does). Pending submissions received before ``now`` are
    applied first, and a window overdue by ``now`` is closed (a move made before the deadline
    counts; a clock that ran out first is a timeout). Then each seat in ``seats``, in seat order,
    resigns through the same path as a clock's timeout (``_resign_marked``) until the game is over;
    a seat the engine no longer has in the game (it already left) is skipped. The head projection,
    the live stream, timers and ``game_finished`` follow on commit as after any append. A game
    already over is returned unchanged; one not started is refused (409 ``game_not_started``).
    """
    if not isinstance(reason, str) or not reason.strip() or len(reason) > FORFEIT_REASON_LENGTH:
        raise ServiceError("bad_forfeit_reason", f"a forfeit's reason is 1-{FORFEIT_REASON_LENGTH} characters")
    now = now or timezone.now()
    game = _lock(game_id)
    if game.is_finished:
        return game
    if game.status != Game.Status.RUNNING:
        raise ServiceError("game_not_started", "the game has not started: seats are still open", status=409)
    count = game.seats.count()
    if any(isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < count for seat in seats):
        raise ServiceError("bad_seat", f"forfeited seats are numbers from 0 to {count - 1}, not {list(seats)!r}")
    engine = get_engine(game.engine)
    state = engine.load_state(game.state)
    pending = game.submissions.filter(status=Submission.Status.PENDING, received_at__lt=now).order_by("id")
    state = _apply_pending(game, engine, state, list(pending))
    state = _close_if_overdue(game, engine, state, _judged_at(now))
    for seat in sorted(set(seats)):
        if game.is_finished:
            break
        resigned = _resign_marked(game, engine, state, seat, reason)
        if resigned is None:
            log.info("game %s: seat %s has already left; nothing to forfeit (%s)", game.pk, seat, reason)
        else:
            state = resigned
    _save_head(game, engine, state)
    return game


def _decide(game: Game, engine: Engine, state, submission: Submission):
    """Accept or reject one submission; returns the new state if it was accepted."""
    submission.decided_at = timezone.now()
    try:
        if game.status == Game.Status.OPEN:
            raise ServiceError("game_not_started", "the game has not started: seats are still open")
        if game.status == Game.Status.FINISHED:
            raise ServiceError("game_over", "the game is over; no more moves are accepted")
        if submission.payload.get("type") == "resign":
            event = {"kind": "system", "data": {"type": "resign", "seat": submission.seat}}
        else:
            event = {"kind": "move", "seat": submission.seat, "data": submission.payload}
        state = _append(game, engine, state, event, received_at=submission.received_at)
        state = _settle(game, engine, state)
    except (RuleError, ServiceError) as error:
        submission.status = Submission.Status.REJECTED
        submission.code, submission.message = error.code, error.message
        submission.save(update_fields=["status", "code", "message", "decided_at"])
        return None
    submission.status = Submission.Status.ACCEPTED
    submission.event_seq = game.head_seq
    submission.save(update_fields=["status", "event_seq", "decided_at"])
    return state


def _close_if_overdue(game: Game, engine: Engine, state, moment):
    if game.status != Game.Status.RUNNING or not game.window or game.deadline_at is None:
        return state
    if moment < game.deadline_at:
        return state
    if game.window.startswith(CLOCK_PREFIX):
        return _clock_expire(game, engine, state, game.deadline_at)
    event = {"kind": "system", "data": {"type": "close_window", "window": game.window}}
    state = _append(game, engine, state, event)
    return _settle(game, engine, state)


# ---- the append path --------------------------------------------------------------------------
def _append(game: Game, engine: Engine, state, event: dict, *, received_at=None):
    """Run the engine and append the event; the caller holds the game row lock.

    ``received_at``: the receipt time of the submission the event comes from - the boundary a
    bank clock charges up to (``games.clocks``); other events count from their ``created_at``.
    """
    new_state = engine.apply(state, event)
    seq = game.head_seq + 1
    digest = event_hash(game.head_hash, seq, event)
    row = Event.objects.create(
        game=game, seq=seq, kind=event["kind"], seat=event.get("seat"), payload=event["data"], hash=digest
    )
    game.head_seq, game.head_hash = seq, digest
    if CLOCK_STATE in (game.meta or {}):
        bank = clocks.Bank.from_json(game.meta[CLOCK_STATE]).step(
            boundary=received_at or row.created_at,
            mover=event.get("seat") if event["kind"] == "move" else None,
            running=_running(engine, new_state),
            increment_ms=int(game.meta["time_control"]["increment_seconds"] * 1000),
        )
        game.meta = {**game.meta, CLOCK_STATE: bank.to_json()}
    return new_state


def _running(engine: Engine, state) -> tuple[int, ...]:
    """The seats a bank charges after this state: those to act, unless the game is over or an
    engine window is open (its own deadline takes precedence and pauses the bank)."""
    if engine.outcome(state) is not None or engine.chance_due(state) or engine.deadline(state) is not None:
        return ()
    return tuple(sorted(engine.actors(state)))


def _settle(game: Game, engine: Engine, state):
    """Append the chance events now due (drawn from the seed), then note outcome and deadline."""
    while engine.chance_due(state):
        rng = ChanceStream(bytes.fromhex(game.seed), game.head_seq + 1)
        state = _append(game, engine, state, {"kind": "chance", "data": engine.sample_chance(state, rng)})
    outcome = engine.outcome(state)
    if outcome is not None:
        game.status = Game.Status.FINISHED
        game.finished_at = timezone.now()
        game.outcome = outcome.to_json()
    deadline = None if outcome is not None else engine.deadline(state)
    if deadline is not None:
        if deadline.window != game.window:
            now = timezone.now()
            game.window, game.window_opened_at = deadline.window, now
            game.deadline_at = now + timedelta(seconds=deadline.seconds)
        return state
    window = None if outcome is not None else _clock_window(game, engine, state)
    if window is None:
        game.window, game.window_opened_at, game.deadline_at = "", None, None
    elif window[0] != game.window:
        game.window, game.window_opened_at, game.deadline_at = window
    return state


def _clock_window(game: Game, engine: Engine, state):
    """The clock of a game with a time control, as a window ``(id, opened_at, deadline_at)``.

    Per-move and correspondence clocks give the seats to act a fresh allowance with every recorded
    event; a bank clock's deadline is when the first running seat's bank runs out. An engine's own
    window takes precedence and pauses the clock (``_settle`` asks the engine first). The clock
    reuses the window machinery (timer task, beat sweep, receipt-time fairness) under a window id
    no engine uses."""
    clock = (game.meta or {}).get("time_control")
    if not clock or game.status != Game.Status.RUNNING:
        return None
    window_id = f"{CLOCK_PREFIX}{game.head_seq}"
    if clocks.kind(clock) == "bank":
        bank = clocks.Bank.from_json(game.meta[CLOCK_STATE])
        deadline = bank.deadline()
        return None if deadline is None else (window_id, bank.mark, deadline)
    if not engine.actors(state):
        return None
    now = timezone.now()
    return window_id, now, now + timedelta(seconds=clocks.move_seconds(clock))


def _clock_expire(game: Game, engine: Engine, state, deadline):
    """The clock ran out at ``deadline``: each seat out of time (every seat to act of a per-move
    clock; the running seats whose bank is empty) gets the game's ``on_timeout``: a resign marked
    ``"reason": "timeout"`` ("loss"), or the engine's pass or first ordinary legal move, marked the
    same way (engines read only the move's own fields). Seats go in seat order until the game is
    over, so several seats out of time together lose in seat order - the engines have no "all
    flagged" event to do better."""
    clock = game.meta["time_control"]
    if clocks.kind(clock) == "bank":
        out = clocks.Bank.from_json(game.meta[CLOCK_STATE]).out_of_time(deadline)
    else:
        out = sorted(engine.actors(state))
    for seat in out:
        if engine.outcome(state) is not None or seat not in engine.actors(state):
            continue
        move = clocks.timeout_move(game.engine, clock.get("on_timeout", "loss"), engine.legal_moves(state, seat))
        timed_out = _resign_marked(game, engine, state, seat, "timeout", move=move)
        if timed_out is None:
            log.warning("game %s: the engine refused every timeout event of seat %s", game.pk, seat)
        else:
            state = timed_out
    return _settle(game, engine, state)


def _resign_marked(game: Game, engine: Engine, state, seat: int, reason: str, *, move: dict | None = None):
    """Append ``{"type": "resign", "seat": seat, "reason": reason}`` as a system event - or first
    ``move`` marked the same way, falling back to the resign if the engine refuses it - and settle.
    The caller holds the game row lock. Returns the new state, or None when the engine refused
    every event (the seat has already left the game); nothing is appended then."""
    events = [{"kind": "system", "data": {"type": "resign", "seat": seat, "reason": reason}}]
    if move is not None:
        events.insert(0, {"kind": "move", "seat": seat, "data": {**move, "reason": reason}})
    for event in events:
        try:
            return _settle(game, engine, _append(game, engine, state, event))
        except RuleError as error:
            # A refused move (it was among the legal moves) is a surprise; a refused resign means the
            # seat had already left, which a forfeit of every seat meets in the normal course.
            level = logging.WARNING if event["kind"] == "move" else logging.DEBUG
            log.log(level, "game %s: the engine refused %s of seat %s: %s", game.pk, event, seat, error.code)
    return None


def _save_head(game: Game, engine: Engine, state) -> None:
    game.state = engine.dump_state(state)
    game.actors = [] if game.status == Game.Status.FINISHED else sorted(engine.actors(state))
    game.save()
    seq, window, deadline, finished = game.head_seq, game.window, game.deadline_at, game.is_finished
    transaction.on_commit(lambda: _after_commit(game.pk, seq, window, deadline, finished))


def _after_commit(game_id, seq: int, window: str, deadline, finished: bool) -> None:
    from . import streams
    from .signals import game_changed, game_finished
    from .tasks import schedule_window_close

    streams.publish(game_id, {"seq": seq, "window": window or None, "finished": finished})
    for receiver, error in game_changed.send_robust(sender=Game, game_id=game_id, seq=seq, finished=finished):
        if isinstance(error, Exception):
            log.error("game_changed receiver %r failed for %s: %r", receiver, game_id, error)
    if window and deadline is not None:
        schedule_window_close(game_id, window, deadline)
    if finished:
        outcome = Game.objects.filter(pk=game_id).values_list("outcome", flat=True).first()
        # Robust: the game is committed whatever a listener does; a failing follow-up is logged (and
        # the listener's own sweeper can catch up), never turned into an error of the move.
        for receiver, error in game_finished.send_robust(sender=Game, game_id=game_id, outcome=outcome):
            if isinstance(error, Exception):
                log.error("game_finished receiver %r failed for %s: %r", receiver, game_id, error)


def _lock(game_id) -> Game:
    try:
        return Game.objects.select_for_update().get(pk=game_id)
    except (Game.DoesNotExist, ValueError):
        raise ServiceError("not_found", "no such game", status=404) from None


# ---- timers -----------------------------------------------------------------------------------
def deadlines_sweep() -> int:
    """Advance every running game whose open window is overdue; returns how many were due."""
    due = list(
        Game.objects.filter(status=Game.Status.RUNNING, deadline_at__lte=timezone.now()).values_list("pk", flat=True)
    )
    for game_id in due:
        game_advance(game_id=game_id)
    return len(due)


def submissions_sweep(*, older_than: float) -> int:
    """Queue again the games whose submissions have waited too long (a lost task or worker)."""
    cutoff = timezone.now() - timedelta(seconds=older_than)
    stale = set(
        Submission.objects.filter(status=Submission.Status.PENDING, received_at__lte=cutoff).values_list(
            "game_id", flat=True
        )
    )
    for game_id in stale:
        _queue_advance(game_id)
    return len(stale)
