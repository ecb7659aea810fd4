"""Game records (kifu files): JSON Lines, a header line then one line per event; parse and replay.

Plain Python that needs no database or settings, so records can be replayed offline and in engine
tests. What the store can hold is checked by ``kifu.storable`` (standard library), the same checks as
the HTTP kit's input guards; importing it loads the ``kifu`` package and so its Celery app. The format is
``shared/rules/README.md``: ``{"kifu": 1, "game", "rules_version", "config", "seats",
["seed_sha256"], ["seed"], ["meta"]}`` then ``{"kind", ["seat"], "data", ["seq"]}`` lines.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from kifu.storable import MAX_DEPTH, value_problem

from .engines import get_engine
from .engines.base import Engine, RuleError
from .engines.chance import ChanceStream

FORMAT_VERSION = 1
HEADER_KEYS = {"kifu", "game", "rules_version", "config", "seats", "seed_sha256", "seed", "meta"}
EVENT_KEYS = {"kind", "seat", "data", "seq", "at"}
MAX_SEAT_NAME = 80  # games.models.Seat.name is a varchar(80)


class RecordError(Exception):
    """The first bad line of a record: ``line`` is 1-based (1 is the header)."""

    def __init__(self, line: int, code: str, message: str) -> None:
        super().__init__(f"line {line}: {code}: {message}")
        self.line = line
        self.code = code
        self.message = message

    def to_json(self) -> dict:
        return {"line": self.line, "code": self.code, "message": self.message}


@dataclass
class Record:
    header: dict
    events: list[dict] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)  # the file line of each event

    @property
    def engine(self) -> Engine:
        return get_engine(self.header["game"])


@dataclass
class Replay:
    record: Record
    state: object
    events: int

    @property
    def engine(self) -> Engine:
        return self.record.engine

    def outcome_json(self) -> dict | None:
        outcome = self.engine.outcome(self.state)
        return None if outcome is None else outcome.to_json()


def canonical_json(obj) -> str:
    """The one serialisation that hashes and records use: sorted keys, no spaces, UTF-8."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def seed_commitment(seed_hex: str) -> str:
    return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()


def _load_line(number: int, text: str) -> dict:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError(number, "bad_json", f"not valid JSON: {error.msg} at column {error.colno}") from None
    except RecursionError:
        raise RecordError(number, "bad_json", f"the JSON nests too deeply (at most {MAX_DEPTH} levels)") from None
    except ValueError as error:  # e.g. an integer of more than 4300 digits
        raise RecordError(number, "bad_json", f"not valid JSON: {error}") from None
    if not isinstance(obj, dict):
        raise RecordError(number, "bad_json", "each line must be a JSON object")
    problem = value_problem(obj)
    if problem:
        raise RecordError(number, *problem)
    return obj


def check_header(header: dict) -> dict:
    """Validate a header; returns it with the config delta normalised. Raises RecordError(1, ...)."""

    def fail(code: str, message: str):
        raise RecordError(1, code, message)

    unknown = sorted(set(header) - HEADER_KEYS)
    if unknown:
        fail("bad_header", f"unknown header field(s): {', '.join(unknown)}")
    if type(header.get("kifu")) is not int or header["kifu"] != FORMAT_VERSION:  # not true, not 1.0
        fail("bad_header", f'the header must say "kifu": {FORMAT_VERSION}')
    try:
        engine = get_engine(header.get("game"))
    except RuleError as error:
        fail(error.code, error.message)
    version = header.get("rules_version", engine.rules_version)
    if str(version) != engine.rules_version:
        fail(
            "rules_version_mismatch",
            f"{engine.slug} rules version {version!r} is not supported; this server plays {engine.rules_version!r}",
        )
    seats = header.get("seats")
    if not isinstance(seats, list) or not all(isinstance(s, str) and s.strip() for s in seats):
        fail("bad_header", '"seats" must be a list of player names, seat 0 first')
    if any(len(s) > MAX_SEAT_NAME for s in seats):
        fail("bad_header", f"seat names are at most {MAX_SEAT_NAME} characters")
    try:
        engine.check_seats(len(seats))
        config = engine.config_delta(header.get("config") or {})
    except RuleError as error:
        fail(error.code, error.message)
    commitment, seed = header.get("seed_sha256"), header.get("seed")
    for name, value in (("seed_sha256", commitment), ("seed", seed)):
        if value is not None and not _is_hex(value):
            fail("bad_header", f'"{name}" must be a hex string')
    if seed is not None and commitment is not None and seed_commitment(seed) != commitment:
        fail("seed_mismatch", "the revealed seed does not hash to seed_sha256")
    if "meta" in header and not isinstance(header["meta"], dict):
        fail("bad_header", '"meta" must be an object')
    return {**header, "rules_version": engine.rules_version, "config": config}


def _is_hex(value) -> bool:
    if not isinstance(value, str) or len(value) % 2:
        return False
    try:
        bytes.fromhex(value)
    except ValueError:
        return False
    return True


def parse_record(lines: Iterable[str]) -> Record:
    """Parse a record's lines (blank lines are skipped but counted). Raises RecordError."""
    record = None
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        obj = _load_line(number, text)
        if record is None:
            record = Record(header=check_header(obj))
            continue
        unknown = sorted(set(obj) - EVENT_KEYS)
        if unknown:
            raise RecordError(number, "malformed_event", f"unknown event field(s): {', '.join(unknown)}")
        position = len(record.events) + 1
        if "seq" in obj and obj["seq"] != position:
            raise RecordError(number, "bad_seq", f"seq is {obj['seq']!r} but this is event {position}")
        record.events.append({key: obj[key] for key in ("kind", "seat", "data") if key in obj})
        record.lines.append(number)
    if record is None:
        raise RecordError(1, "empty_record", "the record is empty: the first line must be the header")
    return record


def replay_record(lines: Iterable[str], *, upto: int | None = None) -> Replay:
    """Parse and replay a record, up to event ``upto`` if given; the first bad line raises."""
    record = parse_record(lines)
    engine = record.engine
    seats = len(record.header["seats"])
    try:
        state = engine.setup(record.header["config"], seats)
    except RuleError as error:  # a rule about the whole game (e.g. a config-dependent player count)
        raise RecordError(1, error.code, error.message) from None
    count = 0
    for line, event in zip(record.lines, record.events, strict=True):
        if upto is not None and count >= upto:
            break
        if engine.outcome(state) is not None:
            raise RecordError(line, "game_over", "the game is already over; no further events are allowed")
        try:
            state = engine.apply(state, event)
        except RuleError as error:
            raise RecordError(line, error.code, error.message) from None
        count += 1
    return Replay(record=record, state=state, events=count)


def verify_chance(record: Record) -> list[int]:
    """Seqs of chance events that do not follow from the revealed seed (empty list: all do)."""
    seed = record.header.get("seed")
    if seed is None:
        raise ValueError("the record has no revealed seed")
    engine = record.engine
    state = engine.setup(record.header["config"], len(record.header["seats"]))
    bad = []
    for seq, event in enumerate(record.events, start=1):
        if event["kind"] == "chance":
            expected = engine.sample_chance(state, ChanceStream(bytes.fromhex(seed), seq))
            if canonical_json(expected) != canonical_json(event["data"]):
                bad.append(seq)
        state = engine.apply(state, event)
    return bad


def dump_record(header: dict, events: Iterable[dict]) -> str:
    lines = [canonical_json(header)]
    lines.extend(canonical_json(event) for event in events)
    return "\n".join(lines) + "\n"
