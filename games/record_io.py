"""Game records in and out of the store: import a table game, export, verify a stored game."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from . import checkpoints
from .clocks import CLOCK_STATE
from .engines import get_engine
from .engines.base import RuleError
from .eventlog import chain_check, event_hash
from .meta import MetaError, meta_check, meta_readable
from .models import GENESIS_HASH, Event, Game, Seat
from .records import RecordError, canonical_json, dump_record, parse_record, replay_record, verify_chance


def record_header(game: Game) -> dict:
    engine = get_engine(game.engine)
    header = {
        "kifu": 1,
        "game": game.engine,
        "rules_version": game.rules_version,
        "config": engine.config_delta(game.config),
        "seats": [seat.name or f"seat {seat.index}" for seat in game.seats.order_by("index")],
    }
    if game.source == Game.Source.SERVER:
        header["seed_sha256"] = game.seed_sha256
        if game.is_finished:
            header["seed"] = game.seed
    # The bank clock's projection is server working state, rebuilt from the log: not part of a record.
    meta = meta_readable(game.meta, engine_slug=game.engine, game_id=game.pk)
    meta = {key: value for key, value in meta.items() if key != CLOCK_STATE}
    meta.setdefault("kifu_game_id", str(game.pk))
    header["meta"] = meta
    return header


def record_export(*, game: Game) -> str:
    """The game's record as JSON Lines (the caller decides whether it may be seen)."""
    events = (event.as_record() for event in game.events.order_by("seq"))
    return dump_record(record_header(game), events)


@transaction.atomic
def record_import(*, lines: Iterable[str], created_by=None) -> Game:
    """Store a game played at a real table after replaying it; raises RecordError at the bad line.

    Every header field is checked before anything is stored, ``meta`` with the validators game
    creation uses (``games.meta.meta_check``: ``bad_time_control``, ``bad_spectator_delay``,
    ``unknown_meta_key``, ``bad_meta``), so an import cannot store what readers would fail on."""
    replay = replay_record(lines)
    record, engine = replay.record, replay.engine
    if replay.events != len(record.events):
        raise RecordError(1, "bad_record", "the record has events that were not replayed")
    try:
        meta = meta_check(record.header.get("meta", {}), engine_slug=engine.slug)
        config = engine.validate_config(record.header["config"])
    except (MetaError, RuleError) as error:
        raise RecordError(1, error.code, error.message) from None
    outcome = engine.outcome(replay.state)
    game = Game.objects.create(
        engine=engine.slug,
        rules_version=engine.rules_version,
        config=config,
        status=Game.Status.FINISHED if outcome else Game.Status.RUNNING,
        source=Game.Source.IMPORTED,
        meta=meta,
        created_by=created_by,
        started_at=timezone.now(),
        finished_at=timezone.now() if outcome else None,
        outcome=outcome.to_json() if outcome else None,
        state=engine.dump_state(replay.state),
        actors=[] if outcome else sorted(engine.actors(replay.state)),
    )
    for index, name in enumerate(record.header["seats"]):
        Seat.objects.create(game=game, index=index, name=name)
    previous = GENESIS_HASH
    rows = []
    for seq, event in enumerate(record.events, start=1):
        previous = event_hash(previous, seq, event)
        rows.append(
            Event(game=game, seq=seq, kind=event["kind"], seat=event.get("seat"), payload=event["data"], hash=previous)
        )
    Event.objects.bulk_create(rows)
    game.head_seq, game.head_hash = len(rows), previous
    game.save(update_fields=["head_seq", "head_hash"])
    return game


@dataclass
class Verification:
    game_id: str
    ok: bool = True
    problems: list[str] = field(default_factory=list)
    events: int = 0
    chain_ok: bool = True
    replay_ok: bool = True
    projection_ok: bool = True
    chance_ok: bool | None = None  # None: not checkable (running, or an imported game)
    seed_ok: bool | None = None
    checkpoint_ok: bool | None = None  # None: not in a signed checkpoint yet (games/checkpoints.py)

    def fail(self, problem: str) -> None:
        self.ok = False
        self.problems.append(problem)

    def to_json(self) -> dict:
        return {
            "game": self.game_id,
            "ok": self.ok,
            "events": self.events,
            "chain_ok": self.chain_ok,
            "replay_ok": self.replay_ok,
            "projection_ok": self.projection_ok,
            "chance_ok": self.chance_ok,
            "seed_ok": self.seed_ok,
            "checkpoint_ok": self.checkpoint_ok,
            "problems": self.problems,
        }


def game_verify(*, game: Game) -> Verification:
    """Recompute the hash chain, replay every event, compare with the head projection and, for
    finished server games, check the seed commitment and that every chance event follows from it.
    Once the game is in the signed checkpoint log, also check its head against the checkpoint
    (signature, chain, inclusion proof): a rewrite that recomputed every hash fails there."""
    report = Verification(game_id=str(game.pk))
    events = list(game.events.order_by("seq"))
    report.events = len(events)
    links, previous = [], GENESIS_HASH
    for row in events:
        links.append((row.seq, event_hash(previous, row.seq, row.as_record()), row.hash))
        previous = row.hash
    for problem in chain_check(links, game.head_hash):
        report.chain_ok = False
        report.fail(problem)
    report.checkpoint_ok, problems = checkpoints.game_checkpoint_check(game=game)
    for problem in problems:
        report.fail(problem)
    engine = get_engine(game.engine)
    header = record_header(game)
    lines = [canonical_json(header)] + [canonical_json(row.as_record()) for row in events]
    try:
        replay = replay_record(lines)
    except RecordError as error:
        report.replay_ok = False
        report.fail(f"event {error.line - 1} does not replay: {error.code}: {error.message}")
        return report
    if game.state is not None and engine.dump_state(replay.state) != game.state:
        report.projection_ok = False
        report.fail("the stored head state differs from the replayed state")
    if game.source == Game.Source.SERVER and game.is_finished:
        record = parse_record(lines)
        report.seed_ok = bool(game.seed) and header.get("seed") is not None
        if not report.seed_ok:
            report.fail("the seed was not revealed")
        else:
            bad = verify_chance(record)
            report.chance_ok = not bad
            if bad:
                report.fail(f"chance events {bad} do not follow from the revealed seed")
    return report
