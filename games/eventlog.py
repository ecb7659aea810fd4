"""The event log: the hash chain, and the one path every append takes - a move, end to end.

A game is an append-only log of events. Every write to it goes, in one transaction:

1. **lock** the game row (``lock``): appends to one game are serialised by this lock;
2. **append** (``Appender.append``): run the pure engine, chain the event's hash to the head, step
   the bank clock; then **settle** (``Appender.settle``): append the chance events now due, drawn
   from the game's seed, and note the outcome, the open window and its deadline;
3. **judge** pending submissions in receipt order (``Appender.decide``), closing a window only when
   the move gate allows (``games.receipts``: no call stamped before its deadline is still on its
   way in);
4. **write** (``Appender.write``): every new event in one INSERT, every verdict in one UPDATE, the
   head projection in one UPDATE - a constant number of statements however many moves a worker
   drains at once;
5. **after commit** (``after_commit``): one Redis round trip carries every verdict to the requests
   waiting for it and the change notice to the game's and its players' channels; then timers for a
   window that just opened, and ``game_changed``/``game_finished`` for the listeners that exist.

Nothing outside the database ever sees an uncommitted event. ``event_hash`` and ``chain_hash`` are
the chain itself; ``chain_check`` verifies one, and the ladder log uses the same code.
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cache

from django.db import connection, transaction
from django.utils import timezone

from . import clocks, notices, receipts
from .clocks import CLOCK_PREFIX, CLOCK_STATE
from .engines.base import Engine, RuleError
from .engines.chance import ChanceStream
from .errors import ServiceError, not_found
from .models import GENESIS_HASH, Event, Game, Submission
from .records import canonical_json
from .signals import game_changed, game_finished, games_changed, window_timer_due

log = logging.getLogger("kifu.games")


# ---- the chain -----------------------------------------------------------------------------------
def chain_hash(previous: str, body: dict) -> str:
    """``sha256(previous hash + canonical JSON of the body)``: one link of a hash chain."""
    return hashlib.sha256((previous + canonical_json(body)).encode()).hexdigest()


def event_hash(previous: str, seq: int, event: dict) -> str:
    """The hash of a game event ``{"kind", "seat"?, "data"}`` at position ``seq``."""
    return chain_hash(previous, {"seq": seq, **event})


def chain_check(links: Iterable[tuple[int, str, str]], head_hash: str, *, owner: str = "game") -> list[str]:
    """Problems of a chain given as ``(seq, recomputed hash, stored hash)`` in seq order (the
    recomputation chains from the *stored* predecessor's hash, so one edit is reported once);
    ``owner`` names the row whose head hash closes the chain (a game, a ladder)."""
    problems: list[str] = []
    last = GENESIS_HASH
    for expected, (seq, computed, stored) in enumerate(links, start=1):
        if seq != expected:
            return [f"event seq {seq} found where {expected} was expected (a gap)"]
        if computed != stored:
            return [f"event {seq}: hash does not match its content and predecessor (edited?)"]
        last = stored
    if last != head_hash:
        problems.append(f"the {owner}'s head hash does not match its last event")
    return problems


# ---- the lock ------------------------------------------------------------------------------------
def lock(game_id) -> Game:
    """The game row, locked (``SELECT ... FOR UPDATE``); the caller is in a transaction.

    Fixed SQL, read as ``kifu.locking.lock_by_id`` reads it: every move takes this lock, and
    compiling the ORM query was ~19% of the worker's CPU under the move benchmark (issue 14)."""
    try:
        key = Game._meta.pk.get_db_prep_value(uuid.UUID(str(game_id)), connection)  # SQLite keeps hex text
    except (ValueError, TypeError, AttributeError):
        raise not_found("game") from None
    rows = list(Game.objects.raw(_lock_sql(connection.features.has_select_for_update), [key]))
    if not rows:
        raise not_found("game")
    return rows[0]


@cache
def _lock_sql(for_update: bool) -> str:
    return f'SELECT * FROM "{Game._meta.db_table}" WHERE "{Game._meta.pk.column}" = %s' + (
        " FOR UPDATE" if for_update else ""
    )


def pending(game_id, *, received_before: datetime | None = None) -> list[Submission]:
    """The game's pending submissions in receipt order (``id``), those received before
    ``received_before`` only if given - in fixed SQL, for the reason ``lock`` gives."""
    key = Game._meta.pk.get_db_prep_value(game_id, connection)
    params = [key, Submission.Status.PENDING]
    if received_before is not None:
        params.append(connection.ops.adapt_datetimefield_value(received_before))  # as the ORM binds it
    return list(Submission.objects.raw(_pending_sql(received_before is not None), params))


@cache
def _pending_sql(before: bool) -> str:
    field = Submission._meta.get_field
    return (
        f'SELECT * FROM "{Submission._meta.db_table}" WHERE "{field("game").column}" = %s '
        f'AND "{field("status").column}" = %s'
        + (f' AND "{field("received_at").column}" < %s' if before else "")
        + f' ORDER BY "{field("id").column}"'
    )


# ---- appending ------------------------------------------------------------------------------------
_HEAD_FIELDS = (
    "head_seq",
    "head_hash",
    "meta",
    "status",
    "finished_at",
    "outcome",
    "window",
    "window_opened_at",
    "deadline_at",
)


_SAVED_FIELDS = (*_HEAD_FIELDS, "started_at", "state", "actors")
_VERDICT_FIELDS = ("status", "code", "message", "event_seq", "decided_at")


@dataclass
class Appender:
    """Appends to one locked game and writes everything at the end (``write``).

    Events are kept in memory until ``write`` inserts them in one statement; a decision that the
    engine refuses halfway (a move accepted, then a chance event it cannot settle) is undone in
    memory, so a rejected submission never leaves an event behind.
    """

    game: Game
    engine: Engine
    state: object = None
    rows: list[Event] = field(default_factory=list)
    decided: list[Submission] = field(default_factory=list)
    window_opened: bool = False
    close_blocked: bool = False  # a close was due but a move request was still in flight
    _may_close: bool = False

    @classmethod
    def open(cls, game: Game, engine: Engine) -> Appender:
        state = engine.load_state(game.state) if game.state is not None else None
        return cls(game=game, engine=engine, state=state)

    # -- one event
    def append(self, event: dict, *, received_at: datetime | None = None) -> int:
        """Run the engine on ``event`` and chain it; returns its seq. ``received_at``: the receipt
        time of the submission it comes from, the boundary a bank clock charges up to
        (``games.clocks``); other events count from their creation."""
        game = self.game
        new_state = self.engine.apply(self.state, event)
        seq = game.head_seq + 1
        digest = event_hash(game.head_hash, seq, event)
        now = timezone.now()
        self.rows.append(
            Event(
                game=game,
                seq=seq,
                kind=event["kind"],
                seat=event.get("seat"),
                payload=event["data"],
                hash=digest,
                created_at=now,
            )
        )
        game.head_seq, game.head_hash = seq, digest
        if CLOCK_STATE in (game.meta or {}):
            bank = clocks.Bank.from_json(game.meta[CLOCK_STATE]).step(
                boundary=received_at or now,
                mover=event.get("seat") if event["kind"] == "move" else None,
                running=running_seats(self.engine, new_state),
                increment_ms=int(game.meta["time_control"]["increment_seconds"] * 1000),
            )
            game.meta = {**game.meta, CLOCK_STATE: bank.to_json()}
        self.state = new_state
        return seq

    def settle(self) -> None:
        """Append the chance events now due (drawn from the seed), then note outcome and window."""
        game, engine = self.game, self.engine
        # A table game has no seed: its keeper enters each chance outcome (games.table), also after a
        # forfeit or a timeout appended here.
        while game.source != Game.Source.TABLE and engine.chance_due(self.state):
            rng = ChanceStream(bytes.fromhex(game.seed), game.head_seq + 1)
            self.append({"kind": "chance", "data": engine.sample_chance(self.state, rng)})
        outcome = engine.outcome(self.state)
        if outcome is not None:
            game.status = Game.Status.FINISHED
            game.finished_at = timezone.now()
            game.outcome = outcome.to_json()
        deadline = None if outcome is not None else engine.deadline(self.state)
        if deadline is not None:
            if deadline.window != game.window:
                now = timezone.now()
                self._open_window(deadline.window, now, now + timedelta(seconds=deadline.seconds))
            return
        window = None if outcome is not None else self._clock_window()
        if window is None:
            game.window, game.window_opened_at, game.deadline_at = "", None, None
        elif window[0] != game.window:
            self._open_window(*window)

    def _open_window(self, window: str, opened_at, deadline_at) -> None:
        self.game.window, self.game.window_opened_at, self.game.deadline_at = window, opened_at, deadline_at
        self.window_opened = True

    def _clock_window(self):
        """The clock of a game with a time control, as a window ``(id, opened_at, deadline_at)``.

        Per-move and correspondence clocks give the seats to act a fresh allowance with every
        recorded event; a bank clock's deadline is when the first running seat's bank runs out. An
        engine's own window takes precedence and pauses the clock (``settle`` asks the engine
        first). The clock reuses the window machinery (timer task, beat sweep, receipt-time
        fairness) under a window id no engine uses."""
        game = self.game
        clock = (game.meta or {}).get("time_control")
        if not clock or game.status != Game.Status.RUNNING:
            return None
        window_id = f"{CLOCK_PREFIX}{game.head_seq}"
        if clocks.kind(clock) == "bank":
            bank = clocks.Bank.from_json(game.meta[CLOCK_STATE])
            deadline = bank.deadline()
            return None if deadline is None else (window_id, bank.mark, deadline)
        if not self.engine.actors(self.state):
            return None
        now = timezone.now()
        return window_id, now, now + timedelta(seconds=clocks.move_seconds(clock))

    # -- all-or-nothing groups of appends
    def _mark(self):
        return (
            len(self.rows),
            self.state,
            self.window_opened,
            {name: getattr(self.game, name) for name in _HEAD_FIELDS},
        )

    def _undo(self, mark) -> None:
        count, self.state, self.window_opened, fields = mark
        del self.rows[count:]
        for name, value in fields.items():
            setattr(self.game, name, value)

    def attempt(self, events: list[dict], *, received_at=None) -> int | None:
        """Append ``events`` and settle, or nothing at all if the engine refuses one; returns the
        seq of the first event appended (None when refused)."""
        mark = self._mark()
        try:
            first = None
            for event in events:
                seq = self.append(event, received_at=received_at)
                first = first or seq
            self.settle()
        except RuleError:
            self._undo(mark)
            raise
        return first

    # -- submissions
    def decide(self, submission: Submission) -> None:
        """Accept or reject one submission. ``event_seq`` of an accepted one is the move's own
        event (not a chance event that followed it)."""
        game = self.game
        submission.decided_at = timezone.now()
        try:
            if game.status == Game.Status.OPEN:
                raise ServiceError("game_not_started", "the game has not started: seats are still open")
            if game.status == Game.Status.CANCELLED:
                raise ServiceError("game_cancelled", "the game was cancelled: an invited player declined")
            if game.status == Game.Status.FINISHED:
                raise ServiceError("game_over", "the game is over; no more moves are accepted")
            if game.source == Game.Source.TABLE:
                raise ServiceError("table_game", "this game is recorded at a table: its keeper enters every line")
            if submission.payload.get("type") == "resign":
                event = {"kind": "system", "data": {"type": "resign", "seat": submission.seat}}
            else:
                event = {"kind": "move", "seat": submission.seat, "data": submission.payload}
            seq = self.attempt([event], received_at=submission.received_at)
        except (RuleError, ServiceError) as error:
            submission.status = Submission.Status.REJECTED
            submission.code, submission.message = error.code, error.message
        else:
            submission.status = Submission.Status.ACCEPTED
            submission.event_seq = seq
        self.decided.append(submission)

    def drain(self, pending: list[Submission], *, judged_at: datetime) -> int:
        """Decide ``pending`` (in the order they were stored), closing each window that was
        overdue at a submission's receipt, then close one overdue at ``judged_at``.

        Before a window closes, every pending submission stamped before its deadline is decided
        against the open window, even one stored after a later-stamped one (stamps are taken when
        a request arrives, the storing order is set by the row lock a little later). A window that
        may not close yet (a move request stamped before the deadline is still in flight) stops
        the drain: the rest stay pending for the next advance. Returns the number decided."""
        remaining = list(pending)
        while remaining:
            submission = remaining[0]
            if self._overdue(submission.received_at):
                deadline = self.game.deadline_at
                early = [other for other in remaining if other.received_at < deadline]
                if early:
                    for other in early:
                        self.decide(other)
                        remaining.remove(other)
                    continue
                before = (self.game.window, self.game.deadline_at)
                if not self.close_overdue(submission.received_at):
                    return len(self.decided)
                if (self.game.window, self.game.deadline_at) != before:
                    continue  # closed: look at the same submission against what is open now
            self.decide(submission)
            remaining.pop(0)
        self.close_overdue(judged_at)
        return len(self.decided)

    def _overdue(self, moment: datetime) -> bool:
        game = self.game
        return (
            self.state is not None
            and game.status == Game.Status.RUNNING
            and bool(game.window)
            and game.deadline_at is not None
            and moment >= game.deadline_at
        )

    # -- windows
    def close_overdue(self, moment: datetime) -> bool:
        """Close the open window if it was overdue at ``moment``. False when it was, but may not be
        closed yet: a move request is still in the gate, or the receipt grace has not passed."""
        game = self.game
        if not self._overdue(moment):
            return True
        if not self._may_close:
            if timezone.now() < game.deadline_at + receipts.grace() or not receipts.gate_try_close(game.pk):
                self.close_blocked = True
                return False
            self._may_close = True  # the exclusive gate lock is held until this transaction ends
        if game.window.startswith(CLOCK_PREFIX):
            self._clock_expire(game.deadline_at)
        else:
            self.attempt([{"kind": "system", "data": {"type": "close_window", "window": game.window}}])
        return True

    def allow_close(self) -> None:
        """The caller already holds the gate exclusively (``receipts.gate_close_wait``)."""
        self._may_close = True

    def _clock_expire(self, deadline) -> None:
        """The clock ran out at ``deadline``: each seat out of time (every seat to act of a per-move
        clock; the running seats whose bank is empty) gets the game's ``on_timeout``: a resign
        marked ``"reason": "timeout"`` ("loss"), or the engine's pass or first ordinary legal move,
        marked the same way (engines read only the move's own fields). Seats go in seat order until
        the game is over, so several seats out of time together lose in seat order - the engines
        have no "all flagged" event to do better."""
        game, engine = self.game, self.engine
        clock = game.meta["time_control"]
        if clocks.kind(clock) == "bank":
            out = clocks.Bank.from_json(game.meta[CLOCK_STATE]).out_of_time(deadline)
        else:
            out = sorted(engine.actors(self.state))
        for seat in out:
            if engine.outcome(self.state) is not None or seat not in engine.actors(self.state):
                continue
            move = clocks.timeout_move(
                game.engine, clock.get("on_timeout", "loss"), engine.legal_moves(self.state, seat)
            )
            if not self.resign_marked(seat, "timeout", move=move):
                log.warning("game %s: the engine refused every timeout event of seat %s", game.pk, seat)
        self.settle()

    def resign_marked(self, seat: int, reason: str, *, move: dict | None = None) -> bool:
        """Append ``{"type": "resign", "seat": seat, "reason": reason}`` as a system event - or
        first ``move`` marked the same way, falling back to the resign if the engine refuses it -
        and settle. False when the engine refused every event (the seat has already left)."""
        events = [{"kind": "system", "data": {"type": "resign", "seat": seat, "reason": reason}}]
        if move is not None:
            events.insert(0, {"kind": "move", "seat": seat, "data": {**move, "reason": reason}})
        for event in events:
            try:
                self.attempt([event])
                return True
            except RuleError as error:
                # A refused move (it was among the legal moves) is a surprise; a refused resign means
                # the seat had already left, which a forfeit of every seat meets in the normal course.
                level = logging.WARNING if event["kind"] == "move" else logging.DEBUG
                log.log(level, "game %s: the engine refused %s of seat %s: %s", self.game.pk, event, seat, error.code)
        return False

    # -- the write
    def write(self) -> None:
        """Insert the new events, record the verdicts and save the head projection - on PostgreSQL
        in one statement (``_WRITE``), elsewhere in three - and queue the after-commit notices."""
        game, engine = self.game, self.engine
        if self.state is not None:
            game.state = engine.dump_state(self.state)
            game.actors = [] if game.status == Game.Status.FINISHED else sorted(engine.actors(self.state))
        if connection.vendor == "postgresql":
            self._write_statement()
        else:
            self._write_orm()
        transaction.on_commit(self.notice().send)

    def notice(self) -> Notice:
        """What leaves the process about this write once it is committed."""
        game = self.game
        return Notice(
            game_id=game.pk,
            seq=game.head_seq,
            window=game.window,
            deadline=game.deadline_at,
            finished=game.is_finished,
            window_opened=self.window_opened,
            retry_close=self.close_blocked,
            verdicts=[verdict_json(submission) for submission in self.decided],
            outcome=game.outcome if game.is_finished else None,
        )

    def _write_orm(self) -> None:
        if self.rows:
            Event.objects.bulk_create(self.rows)
        if self.decided:
            Submission.objects.bulk_update(self.decided, _VERDICT_FIELDS)
        self.game.save(update_fields=_SAVED_FIELDS)

    def _write_statement(self) -> None:
        """One round trip, and no ORM compilation: the events and verdicts travel as two JSON
        arrays that PostgreSQL unpacks (``jsonb_to_recordset``) in data-modifying CTEs."""
        game = self.game
        events = [
            {
                "seq": row.seq,
                "kind": row.kind,
                "seat": row.seat,
                "payload": row.payload,
                "hash": row.hash,
                "created_at": row.created_at.isoformat(),
            }
            for row in self.rows
        ]
        verdicts = [
            {
                "id": submission.pk,
                "status": submission.status,
                "code": submission.code,
                "message": submission.message,
                "event_seq": submission.event_seq,
                "decided_at": submission.decided_at.isoformat() if submission.decided_at else None,
            }
            for submission in self.decided
        ]
        params = [
            game.pk,
            json.dumps(events),
            json.dumps(verdicts),
            game.head_seq,
            game.head_hash,
            json.dumps(game.meta),
            game.status,
            game.started_at,
            game.finished_at,
            None if game.outcome is None else json.dumps(game.outcome),
            game.window,
            game.window_opened_at,
            game.deadline_at,
            None if game.state is None else json.dumps(game.state),
            json.dumps(game.actors),
            game.pk,
        ]
        with connection.cursor() as cursor:
            cursor.execute(_WRITE, params)


# The whole write of a drain as one statement (PostgreSQL). Every data-modifying CTE runs to
# completion whether or not its result is read; the event table's append-only triggers still apply.
_WRITE = """
WITH new_events AS (
    INSERT INTO games_event (game_id, seq, kind, seat, payload, hash, created_at)
    SELECT %s, e.seq, e.kind, e.seat, e.payload, e.hash, e.created_at
    FROM jsonb_to_recordset(%s::jsonb)
        AS e(seq integer, kind text, seat integer, payload jsonb, hash text, created_at timestamptz)
    RETURNING 1
), verdicts AS (
    UPDATE games_submission AS s
    SET status = v.status, code = v.code, message = v.message, event_seq = v.event_seq,
        decided_at = v.decided_at
    FROM jsonb_to_recordset(%s::jsonb)
        AS v(id bigint, status text, code text, message text, event_seq integer, decided_at timestamptz)
    WHERE s.id = v.id
    RETURNING 1
)
UPDATE games_game
SET head_seq = %s, head_hash = %s, meta = %s::jsonb, status = %s, started_at = %s, finished_at = %s,
    outcome = %s::jsonb, "window" = %s, window_opened_at = %s, deadline_at = %s, state = %s::jsonb,
    actors = %s::jsonb
WHERE id = %s
"""


def running_seats(engine: Engine, state) -> tuple[int, ...]:
    """The seats a bank charges after this state: those to act, unless the game is over or an
    engine window is open (its own deadline takes precedence and pauses the bank)."""
    if engine.outcome(state) is not None or engine.chance_due(state) or engine.deadline(state) is not None:
        return ()
    return tuple(sorted(engine.actors(state)))


def verdict_json(submission: Submission) -> dict:
    return {
        "id": str(submission.public_id),
        "status": submission.status,
        "code": submission.code,
        "message": submission.message,
        "event_seq": submission.event_seq,
        "decided_at": submission.decided_at.isoformat() if submission.decided_at else None,
    }


# ---- after commit --------------------------------------------------------------------------------
@dataclass
class Notice:
    """What leaves the process once a write is committed."""

    game_id: object
    seq: int
    window: str
    deadline: datetime | None
    finished: bool
    window_opened: bool
    retry_close: bool
    verdicts: list[dict]
    accounts: list[int] | None = None  # the seated accounts, when the writer knows them
    outcome: dict | None = None  # a finished game's outcome as committed (else read after commit)

    def send(self) -> None:
        notices.publish(self.game_id, self._message(), verdicts=self.verdicts, accounts=self.accounts)
        for receiver, error in game_changed.send_robust(
            sender=Game, game_id=self.game_id, seq=self.seq, finished=self.finished
        ):
            if isinstance(error, Exception):
                log.error("game_changed receiver %r failed for %s: %r", receiver, self.game_id, error)
        self._follow_up()

    def _message(self) -> dict:
        return {"seq": self.seq, "window": self.window or None, "finished": self.finished}

    def _follow_up(self) -> None:
        if self.window and self.deadline is not None and (self.window_opened or self.retry_close):
            # A close that had to wait for a move request in flight is tried again shortly.
            due = max(self.deadline + receipts.grace(), timezone.now() + timedelta(milliseconds=20))
            window_timer_due.send(
                sender=Game,
                game_id=self.game_id,
                window=self.window,
                deadline=due if self.retry_close else self.deadline,
            )
        if self.finished:
            outcome = self.outcome
            if outcome is None:
                outcome = Game.objects.filter(pk=self.game_id).values_list("outcome", flat=True).first()
            # Robust: the game is committed whatever a listener does; a failing follow-up is logged
            # (and the listener's own sweeper can catch up), never turned into an error of the move.
            for receiver, error in game_finished.send_robust(sender=Game, game_id=self.game_id, outcome=outcome):
                if isinstance(error, Exception):
                    log.error("game_finished receiver %r failed for %s: %r", receiver, self.game_id, error)


def send_notices(notes: list[Notice]) -> None:
    """``Notice.send`` of many games' writes committed together (a season's start): one Redis round
    trip for all their publishes and one ``games_changed`` signal for all of them, so that after
    commit the cost does not grow with a round trip or a query per game."""
    if not notes:
        return
    notices.publish_many([(note.game_id, note._message(), note.verdicts, note.accounts) for note in notes])
    changes = [{"game_id": note.game_id, "seq": note.seq, "finished": note.finished} for note in notes]
    for receiver, error in games_changed.send_robust(sender=Game, changes=changes):
        if isinstance(error, Exception):
            log.error("games_changed receiver %r failed for %d games: %r", receiver, len(changes), error)
    for note in notes:
        note._follow_up()
