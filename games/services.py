"""Game lifecycle and moves: creating, joining and starting games, submitting moves, advancing and
forfeiting games, and the timers' sweeps.

Every append goes through the event log (``games.eventlog``): lock the game row, run the engine,
append events, update the head projection, and queue what leaves the process (timers, stream
messages, verdicts) with ``transaction.on_commit`` - so nothing outside the database ever sees an
uncommitted event.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import uuid
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from . import clocks, receipts
from .accounts import bot_ids
from .clocks import CLOCK_STATE
from .engines import get_engine
from .engines.base import Engine, RuleError
from .errors import ServiceError
from .eventlog import Appender, running_seats, send_notices
from .eventlog import lock as _lock
from .eventlog import pending as eventlog_pending
from .meta import MetaError, spectator_delay_check
from .models import Event, Game, MatureConsent, Seat, Submission
from .notices import account_notice
from .records import canonical_json
from .signals import advance_due

log = logging.getLogger("kifu.games")


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
    consent: bool = False,
) -> Game:
    """A new server game; it starts (and deals) as soon as every seat has a player who accepted it.

    Nobody is seated without consent (issue 15 part 6): the creator's own seat and a bot account's
    are accepted at once; a seat named for anyone else is an invitation until that player accepts
    (``game_accept``) or declines it (``game_decline``, which cancels the game). ``consent``: the
    caller is an event (ladder, season, tournament) pairing its own players - joining the event was
    their consent, so their seats are accepted, and ``created_by`` (the event's organiser) moderates
    the game (``games.moderation``). In a mature game every other player still accepts for
    themselves.

    ``time_control`` (``games.clocks``: per move, a Fischer bank, or days per move) and
    ``spectator_delay_seconds`` are game settings kept in ``meta``, not engine config: the
    engine's rules and record stay the same, the service keeps the clock (see ``_clock_window``)
    and the selectors hold spectators back (``selectors.game_sight``).
    """
    try:
        engine = get_engine(engine_slug)
        full_config = engine.validate_setup(config, len(seats))  # seats, config and the limits joining them
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
        organised=consent,
        meta=meta,
    )
    now = timezone.now()
    bots = bot_ids(user.pk for user in users)
    invited = []
    for index, user in enumerate(seats):
        name = (names[index] if names else "") or (user.get_username() if user else "")
        mine = user is not None and created_by is not None and user.pk == created_by.pk
        accepted = user is not None and (mine or (not engine.mature and (consent or user.pk in bots)))
        Seat.objects.create(game=game, index=index, user=user, name=name, accepted_at=now if accepted else None)
        if user is not None and not accepted:
            invited.append(user.pk)
    if invited:
        game_id = game.pk
        transaction.on_commit(lambda: account_notice(invited, {"game": str(game_id), "invitation": True}))
    _start_if_ready(game, engine)
    return game


def games_create_many(
    *, engine_slug: str, config: dict | None, seatings: Sequence[Sequence[AbstractBaseUser]], created_by
) -> list[Game]:
    """Many server games of one engine and config at once, for an event pairing its own players
    (a season's fixtures): each is made as ``game_create(..., consent=True)`` makes it (seats
    accepted, the organiser moderates) and started as it starts (setup, the deal from its own seed,
    the head projection), in a constant number of statements whatever the number of games: the
    games, their seats and their first events are one bulk insert each. No time controls or seat
    names (``game_create`` has them).

    In a mature game only the creator's seat is accepted (the others are invited and accept for
    themselves, and the game waits); every player must have consented, checked in one query. The
    notices each new game gets leave after commit, as ``game_create``'s do.
    """
    if not seatings:
        return []
    try:
        engine = get_engine(engine_slug)
        configs = {size: engine.validate_setup(config, size) for size in {len(seats) for seats in seatings}}
    except RuleError as error:
        raise ServiceError(error.code, error.message) from None
    for seats in seatings:
        if len({user.pk for user in seats}) != len(seats):
            raise ServiceError("duplicate_player", "a player can hold only one seat of a game")
    if engine.mature:
        users = {user.pk: user for seats in seatings for user in seats} | {created_by.pk: created_by}
        consented = set(MatureConsent.objects.filter(user_id__in=list(users)).values_list("user_id", flat=True))
        if len(consented) < len(users):
            _require_consent([users[pk] for pk in users if pk not in consented])
    now = timezone.now()
    games, seats_rows, events, notes, invitations = [], [], [], [], []
    for seats in seatings:
        seed = secrets.token_hex(32)
        game = Game(
            engine=engine.slug,
            rules_version=engine.rules_version,
            config=configs[len(seats)],
            seed=seed,
            seed_sha256=hashlib.sha256(bytes.fromhex(seed)).hexdigest(),
            created_by=created_by,
            organised=True,
            meta={},
        )
        accepted = [not engine.mature or user == created_by for user in seats]
        invited = [user.pk for user, ok in zip(seats, accepted, strict=True) if not ok]
        if invited:
            invitations.append((invited, {"game": str(game.pk), "invitation": True}))
        for index, user in enumerate(seats):
            seats_rows.append(
                Seat(
                    game=game,
                    index=index,
                    user=user,
                    name=user.get_username(),
                    accepted_at=now if accepted[index] else None,
                )
            )
        if all(accepted):
            game.status, game.started_at = Game.Status.RUNNING, now
            appender = Appender(game=game, engine=engine, state=engine.setup(game.config, len(seats)))
            appender.settle()
            game.state = engine.dump_state(appender.state)
            game.actors = [] if game.status == Game.Status.FINISHED else sorted(engine.actors(appender.state))
            events.extend(appender.rows)
            note = appender.notice()
            note.accounts = [user.pk for user in seats]
            notes.append(note)
        games.append(game)
    Game.objects.bulk_create(games)
    Seat.objects.bulk_create(seats_rows)
    Event.objects.bulk_create(events)
    transaction.on_commit(lambda: send_notices(notes))
    for invited, notice in invitations:
        transaction.on_commit(lambda users=invited, notice=notice: account_notice(users, notice))
    return games


FORFEIT_REASON_LENGTH = 100


def _spectator_delay_check(seconds) -> int:
    try:
        return spectator_delay_check(seconds)
    except MetaError as error:
        raise ServiceError(error.code, error.message) from None


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
    """A player accepts the seat someone else gave them; the last acceptance starts the game.

    Accepting a seat already accepted, while the game waits, changes nothing (a retry is safe).
    Refusals: 403 ``not_invited`` (no seat here), 409 ``game_cancelled`` (someone declined),
    409 ``game_not_open`` (it has started), 403 ``mature_consent_required``.
    """
    game = _lock(game_id)
    seat = _invited_seat(game, user)
    if game.status != Game.Status.OPEN:
        raise ServiceError("game_not_open", "this game has already started", status=409)
    engine = get_engine(game.engine)
    if engine.mature:
        _require_consent([user])
    if seat.accepted_at is None:
        seat.accepted_at = timezone.now()
        seat.save(update_fields=["accepted_at"])
    _start_if_ready(game, engine)
    if game.status == Game.Status.OPEN:  # still waiting: the others' lists and streams show it
        _notice_seated(game, {"invitation": True})
    return game


@transaction.atomic
def game_decline(*, game_id, user: AbstractBaseUser) -> Game:
    """A player declines the seat someone else gave them: the game is cancelled for good (status
    ``cancelled``; it never deals or runs a clock) and its seated players are told on their
    account streams.

    Refusals: 403 ``not_invited`` (no seat here), 409 ``game_cancelled`` (already cancelled),
    409 ``already_answered`` (the seat was accepted: your own, or accepted before, or the game
    started), 409 ``event_game`` (an event's pairing: leave the event instead).
    """
    game = _lock(game_id)
    seat = _invited_seat(game, user)
    if seat.accepted_at is not None or game.status != Game.Status.OPEN:
        raise ServiceError(
            "already_answered", "you have already accepted this seat; resign in the game instead", status=409
        )
    if game.organised:
        raise ServiceError(
            "event_game",
            "this game is a pairing of an event you joined; withdraw from the event rather than decline it",
            status=409,
        )
    now = timezone.now()
    seat.declined_at = now
    seat.save(update_fields=["declined_at"])
    game.status = Game.Status.CANCELLED
    game.save(update_fields=["status"])
    _notice_seated(game, {"cancelled": True})
    return game


def _invited_seat(game: Game, user) -> Seat:
    """``user``'s seat in the locked ``game`` for an answer to an invitation, or the refusal."""
    seat = game.seats.filter(user=user).first()
    if seat is None:
        raise ServiceError("not_invited", "you hold no seat in this game, so there is nothing to answer", status=403)
    if game.status == Game.Status.CANCELLED:
        raise ServiceError("game_cancelled", "this game was cancelled: an invited player declined", status=409)
    return seat


def _notice_seated(game: Game, notice: dict) -> None:
    """After commit, tell every seated account that the game's invitations changed."""
    users = [user_id for user_id in game.seats.values_list("user_id", flat=True) if user_id is not None]
    game_id = str(game.pk)
    transaction.on_commit(lambda: account_notice(users, {"game": game_id, **notice}))


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
        bank = clocks.Bank.start(clock, game.seats.count(), game.started_at, running_seats(engine, state))
        game.meta = {**game.meta, CLOCK_STATE: bank.to_json()}
    appender = Appender(game=game, engine=engine, state=state)
    appender.settle()
    appender.write()


# ---- moves ------------------------------------------------------------------------------------
@dataclass
class SubmitResult:
    submission: Submission
    created: bool
    gate_left: bool = False


def move_submit(
    *,
    game_id,
    user: AbstractBaseUser,
    move: dict,
    idempotency_key: str,
    received_at: datetime | None = None,
    seat: int | None = None,
    leave_gate: bool = False,
) -> SubmitResult:
    """Store a pending submission and queue its validation; the same key returns the first one.

    ``received_at``: the receipt time (``games.receipts``: the API stamps it when the request
    arrives, before authentication); deadlines are judged by it. ``seat``: the caller's seat when
    the caller already read it (the API does, with the game); otherwise it is looked up.
    ``leave_gate``: the caller holds the game's move gate (``games.receipts``); on PostgreSQL it
    is left by the statement that stores the submission (``SubmitResult.gate_left`` says so).

    The game row is locked for the insert so that submission ids - the receipt order that decides
    "first caller wins" - are handed out in commit order: a worker can never see a later-numbered
    submission before an earlier one. The lock is held only for the insert. A repeated key is found
    by the unique constraint, so the usual path costs the lock and the insert only.
    """
    arrived = received_at or timezone.now()
    if not isinstance(move, dict) or not isinstance(move.get("type"), str):
        raise ServiceError("malformed_move", 'a move is a JSON object with a "type" string')
    if not idempotency_key or len(idempotency_key) > 100:
        raise ServiceError("bad_idempotency_key", "the idempotency key must be 1-100 characters")
    if seat is None:
        seat = Seat.objects.filter(game_id=game_id, user=user).values_list("index", flat=True).first()
    if seat is None:
        existing = _existing_submission(game_id, user, idempotency_key, move)
        if existing:
            return SubmitResult(existing, False)
        raise ServiceError("not_a_player", "you hold no seat in this game", status=403)
    gate_left = False
    try:
        submission = Submission(
            public_id=uuid.uuid4(),
            game_id=game_id,
            user=user,
            seat=seat,
            idempotency_key=idempotency_key,
            payload=move,
            received_at=arrived,
        )
        if connection.vendor == "postgresql":
            _store_locked(submission, leave_gate)
            gate_left = leave_gate
        else:
            with transaction.atomic():
                _lock(game_id)
                submission.save(force_insert=True)
        transaction.on_commit(lambda: _queue_advance(game_id))
    except IntegrityError:
        # The key was used before (a retry), or two requests with one key raced: the first
        # submission is the answer.
        existing = _existing_submission(game_id, user, idempotency_key, move)
        if existing is None:
            raise
        return SubmitResult(existing, False)
    return SubmitResult(submission, True, gate_left)


# One statement that locks the game row and inserts the submission: outside a transaction it
# commits at once, so the row lock that orders submission ids is held for one round trip instead of
# BEGIN, SELECT ... FOR UPDATE, INSERT and COMMIT (four).
_STORE_LOCKED = """
WITH locked AS (SELECT id FROM games_game WHERE id = %s FOR UPDATE),
stored AS (
    INSERT INTO games_submission
        (public_id, game_id, user_id, seat, idempotency_key, payload, status, code, message, received_at)
    SELECT %s, locked.id, %s, %s, %s, %s::jsonb, 'pending', '', '', %s FROM locked
    RETURNING id
)
SELECT id, {leave} FROM stored
"""
# Leaving the move gate (games.receipts) in the same statement is safe although it happens just
# before the commit: a worker takes the game row lock, held by this statement until it commits,
# before it may close a window, so it always sees this submission.
_LEAVE_GATE = "pg_advisory_unlock_shared(%s, %s)"


def _store_locked(submission: Submission, leave_gate: bool) -> None:
    """Insert ``submission`` with ``_STORE_LOCKED`` (setting its id); 404 if the game is gone.
    Inside a caller's transaction a savepoint keeps a refused insert from aborting it."""
    with transaction.atomic() if connection.in_atomic_block else nullcontext():
        s = submission
        params = [s.game_id, s.public_id, s.user.pk, s.seat, s.idempotency_key, json.dumps(s.payload), s.received_at]
        if leave_gate:
            params += [receipts.GATE_NAMESPACE, receipts.gate_key(s.game_id)]
        with connection.cursor() as cursor:
            cursor.execute(_STORE_LOCKED.format(leave=_LEAVE_GATE if leave_gate else "NULL"), params)
            row = cursor.fetchone()
    if row is None:
        raise ServiceError("not_found", "no such game", status=404)
    submission.id = row[0]
    submission._state.adding = False


def _existing_submission(game_id, user, key: str, move: dict) -> Submission | None:
    existing = Submission.objects.filter(game_id=game_id, user=user, idempotency_key=key).first()
    if existing and canonical_json(existing.payload) != canonical_json(move):
        raise ServiceError(
            "idempotency_conflict",
            "this idempotency key was already used for a different move; use a new key",
            status=409,
        )
    return existing


def _queue_advance(game_id, *, force: bool = False) -> None:
    """Queue an advance of the game unless one is already waiting to start (``force``: queue it
    anyway - the sweeper's re-queue of submissions a lost task left behind). Services never import
    the tasks (the tasks import the services): ``games.tasks.on_advance_due`` receives this."""
    advance_due.send(sender=Game, game_id=game_id, force=force)


@transaction.atomic
def game_advance(*, game_id, received_before: datetime | None = None) -> int:
    """Apply the game's pending submissions in receipt order, then close an overdue window.

    Locks the game row first, so two workers never apply moves to one game at once, and every
    verdict, event and the head projection commit together - in a constant number of statements
    however many submissions are pending (``eventlog.Appender.write``). A submission received after
    the open window's deadline is judged after that window closes: fairness follows the recorded
    deadline and the receipt time, not the moment a worker gets to it. A window closes only when no
    move request stamped before its deadline is still on its way in (``games.receipts``); until
    then the submissions after it stay pending. Returns the number of decisions.

    ``received_before``: apply only the submissions received before this moment, and close only
    the windows overdue by then (a league judging a game at its play-by date asks what the game
    looked like at that date); later submissions stay pending for the next advance.
    """
    game = _lock(game_id)
    pending = eventlog_pending(game.pk, received_before=received_before)
    if game.status == Game.Status.OPEN and not pending:
        return 0
    appender = Appender.open(game, get_engine(game.engine))
    if appender.state is None:
        for submission in pending:
            appender.decide(submission)  # refused: the game has not started
    else:
        appender.drain(pending, judged_at=_judged_at(received_before))
    if appender.rows or appender.decided or appender.close_blocked:
        appender.write()
    return len(appender.decided)


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

    Waits for the game's move requests in flight (``receipts.gate_close_wait``), then locks the
    game row (as every append does). Pending submissions received before ``now`` are applied
    first, and a window overdue by ``now`` is closed (a move made before the deadline counts; a
    clock that ran out first is a timeout). Then each seat in ``seats``, in seat order, resigns
    through the same path as a clock's timeout (``Appender.resign_marked``) until the game is over;
    a seat the engine no longer has in the game (it already left) is skipped. The head projection,
    the live stream, timers and ``game_finished`` follow on commit as after any append. A game
    already over is returned unchanged; one not started is refused (409 ``game_not_started``).
    """
    if not isinstance(reason, str) or not reason.strip() or len(reason) > FORFEIT_REASON_LENGTH:
        raise ServiceError("bad_forfeit_reason", f"a forfeit's reason is 1-{FORFEIT_REASON_LENGTH} characters")
    now = now or timezone.now()
    receipts.gate_close_wait(game_id)
    game = _lock(game_id)
    if game.is_finished:
        return game
    if game.status != Game.Status.RUNNING:
        raise ServiceError("game_not_started", "the game has not started: seats are still open", status=409)
    count = game.seats.count()
    if any(isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < count for seat in seats):
        raise ServiceError("bad_seat", f"forfeited seats are numbers from 0 to {count - 1}, not {list(seats)!r}")
    appender = Appender.open(game, get_engine(game.engine))
    appender.allow_close()
    pending = Submission.objects.filter(game_id=game.pk, status=Submission.Status.PENDING, received_at__lt=now)
    appender.drain(list(pending.order_by("id")), judged_at=_judged_at(now))
    for seat in sorted(set(seats)):
        if game.is_finished:
            break
        if not appender.resign_marked(seat, reason):
            log.info("game %s: seat %s has already left; nothing to forfeit (%s)", game.pk, seat, reason)
    appender.write()
    return game


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
        _queue_advance(game_id, force=True)
    return len(stale)
