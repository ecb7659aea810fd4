"""The engine contract every game module implements, its typed rule errors and config flags.

Engines are pure: no Django, no database, no clock, no global random. A game is a fold of events
over a state: ``state = engine.apply(state, event)``. An event is a plain JSON object::

    {"kind": "chance", "data": {"type": "deal", ...}}          # outcome of a chance node
    {"kind": "move", "seat": 0, "data": {"type": "commit_card", "card": "7H"}}
    {"kind": "system", "data": {"type": "close_window", "window": "turn-3"}}

Every engine understands two system events: ``close_window`` (a reaction window or simultaneous
choice reached its deadline; it names the window so that a late or repeated close changes nothing
once the window has moved on) and ``resign`` (``{"type": "resign", "seat": s}``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

JSON = Any
State = Any


class RuleError(Exception):
    """A rule was broken. ``code`` is a stable machine string; ``message`` is for the player."""

    code: str = "illegal_move"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class ConfigError(RuleError):
    code = "invalid_config"


class MalformedEvent(RuleError):
    """The event is not shaped like an event of this game (missing fields, wrong types)."""

    code = "malformed_event"


class IllegalMove(RuleError):
    code = "illegal_move"


class NotYourTurn(RuleError):
    code = "not_your_turn"


class GameOver(RuleError):
    code = "game_over"


class ChanceExpected(RuleError):
    """A move or system event arrived while the rules need a chance outcome first."""

    code = "chance_expected"


class UnexpectedChance(RuleError):
    code = "unexpected_chance"


class WindowClosed(RuleError):
    """A reaction arrived after its window closed (or for a window that is not open)."""

    code = "window_closed"


_MISSING = object()


@dataclass(frozen=True)
class Flag:
    """One config flag of a game: its default, its type and what values it accepts."""

    name: str
    default: Any
    description: str
    kind: str = "bool"  # bool | int | float | str | object
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None

    def validate(self, value: Any) -> Any:
        where = f"config flag {self.name!r}"
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise ConfigError(f"{where} must be true or false, not {value!r}")
        elif self.kind in ("int", "float"):
            ok_types = (int,) if self.kind == "int" else (int, float)
            if isinstance(value, bool) or not isinstance(value, ok_types):
                raise ConfigError(f"{where} must be a number ({self.kind}), not {value!r}")
            if isinstance(value, float) and not math.isfinite(value):  # NaN passes every comparison below
                raise ConfigError(f"{where} must be a finite number, not {value!r}")
            if self.minimum is not None and value < self.minimum:
                raise ConfigError(f"{where} must be at least {self.minimum}, not {value!r}")
            if self.maximum is not None and value > self.maximum:
                raise ConfigError(f"{where} must be at most {self.maximum}, not {value!r}")
        elif self.kind == "str":
            if not isinstance(value, str):
                raise ConfigError(f"{where} must be a string, not {value!r}")
        elif self.kind == "object":
            if not isinstance(value, dict):
                raise ConfigError(f"{where} must be an object, not {value!r}")
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(repr(c) for c in self.choices)
            raise ConfigError(f"{where} must be one of {allowed}, not {value!r}")
        return value

    def describe(self) -> dict:
        out = {"name": self.name, "type": self.kind, "default": self.default}
        out["description"] = self.description
        if self.choices is not None:
            out["choices"] = list(self.choices)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        return out


@dataclass(frozen=True)
class Deadline:
    """An open reaction window or simultaneous choice, and how long the rules keep it open.

    ``window`` is a stable id unique within the game (e.g. ``"turn-3"``); the service appends
    ``{"type": "close_window", "window": window}`` when ``seconds`` have passed since the event
    that opened it. ``seats`` are the seats that may still answer.
    """

    window: str
    seconds: float
    seats: tuple[int, ...]


@dataclass(frozen=True)
class Outcome:
    """The result of a finished game: ``ranking`` lists groups of tied seats, best first."""

    ranking: tuple[tuple[int, ...], ...]
    scores: dict[int, float]
    detail: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "ranking": [list(group) for group in self.ranking],
            "scores": {str(seat): score for seat, score in sorted(self.scores.items())},
            "detail": self.detail,
        }


class Engine:
    """Base class of a game engine. Subclasses fill in the class attributes and the methods."""

    slug: ClassVar[str]
    name: ClassVar[str]
    rules_version: ClassVar[str] = "1"
    min_seats: ClassVar[int]
    max_seats: ClassVar[int]
    mature: ClassVar[bool] = False
    flags: ClassVar[tuple[Flag, ...]] = ()
    # An upper bound on the number of events of any game; the harness checks termination by it.
    max_events: ClassVar[int] = 10_000

    # ---- metadata and config -------------------------------------------------------------
    def describe(self) -> dict:
        return {
            "slug": self.slug,
            "name": self.name,
            "rules_version": self.rules_version,
            "min_players": self.min_seats,
            "max_players": self.max_seats,
            "mature": self.mature,
            "flags": [flag.describe() for flag in self.flags],
        }

    def validate_config(self, config: dict | None) -> dict:
        """Full config with defaults filled in; unknown keys and bad values raise ConfigError."""
        config = {} if config is None else config
        if not isinstance(config, dict):
            raise ConfigError(f"config must be a JSON object, not {type(config).__name__}")
        known = {flag.name: flag for flag in self.flags}
        not_names = [key for key in config if not isinstance(key, str)]
        if not_names:  # only a Python caller can send these (JSON keys are strings); sorted() would fail
            raise ConfigError(
                f"config flag names are strings, not {not_names[0]!r}; flags of {self.slug}: "
                + (", ".join(sorted(known)) or "none"),
                code="unknown_config_flag",
            )
        unknown = sorted(set(config) - set(known))
        if unknown:
            allowed = ", ".join(sorted(known)) or "none"
            raise ConfigError(
                f"unknown config flag(s) {', '.join(unknown)} for {self.slug}; allowed: {allowed}",
                code="unknown_config_flag",
            )
        return {name: flag.validate(config.get(name, flag.default)) for name, flag in known.items()}

    def config_delta(self, config: dict) -> dict:
        """Only the flags that differ from their defaults (what a record header stores)."""
        full = self.validate_config(config)
        return {flag.name: full[flag.name] for flag in self.flags if full[flag.name] != flag.default}

    def check_seats(self, seats: int) -> None:
        if isinstance(seats, bool) or not isinstance(seats, int):
            raise ConfigError("the number of seats must be a whole number")
        if not self.min_seats <= seats <= self.max_seats:
            raise ConfigError(
                f"{self.name} is played by {self.min_seats}-{self.max_seats} players, not {seats}",
                code="bad_seat_count",
            )

    def check_config_seats(self, config: dict, seats: int) -> None:
        """Limits that join a validated config and the seat count (e.g. a variant for 3-7 players).

        Engines with such limits override this and raise ConfigError; ``validate_setup`` calls it,
        so ``setup`` and game creation refuse the same configs.
        """

    def validate_setup(self, config: dict | None, seats: int) -> dict:
        """Everything ``setup`` would refuse, checked without building a state; the full config.

        The service calls this when a game is created (its seats may still be empty), so that a
        config accepted then cannot fail when the last seat fills and ``setup`` runs.
        """
        self.check_seats(seats)
        full = self.validate_config(config)
        self.check_config_seats(full, seats)
        return full

    # ---- the contract ---------------------------------------------------------------------
    def setup(self, config: dict | None, seats: int) -> State:
        raise NotImplementedError

    def chance_due(self, state: State) -> str | None:
        """The name of the chance step the rules need next (``"deal"``), or None."""
        raise NotImplementedError

    def sample_chance(self, state: State, rng) -> dict:
        """Draw the outcome of the due chance step from ``rng`` (a ChanceStream)."""
        raise NotImplementedError

    def actors(self, state: State) -> frozenset[int]:
        raise NotImplementedError

    def legal_moves(self, state: State, seat: int) -> list[dict]:
        raise NotImplementedError

    def apply(self, state: State, event: dict) -> State:
        raise NotImplementedError

    def view(self, state: State, seat: int | None) -> dict:
        raise NotImplementedError

    def event_view(self, state: State, event: dict, seat: int | None) -> dict:
        """``event`` as ``seat`` may see it, given the current ``state`` (what is public now)."""
        raise NotImplementedError

    def outcome(self, state: State) -> Outcome | None:
        raise NotImplementedError

    def deadline(self, state: State) -> Deadline | None:
        return None

    def hidden_from(self, state: State, seat: int | None) -> frozenset[str]:
        """Card/tile ids that ``seat`` may not see now; the leak tests scan views for them."""
        raise NotImplementedError

    def dump_state(self, state: State) -> JSON:
        raise NotImplementedError

    def load_state(self, data: JSON) -> State:
        raise NotImplementedError

    # ---- shared helpers -----------------------------------------------------------------
    def replay(self, config: dict | None, seats: int, events: list[dict]) -> State:
        """Replay is a fold; raises the RuleError of the first bad event."""
        state = self.setup(config, seats)
        for event in events:
            state = self.apply(state, event)
        return state


def split_event(event: Any, seats: int) -> tuple[str, int | None, dict]:
    """Check the envelope of an event and return ``(kind, seat, data)``."""
    if not isinstance(event, dict):
        raise MalformedEvent("an event must be a JSON object")
    kind = event.get("kind")
    data = event.get("data")
    if kind not in ("chance", "move", "system"):
        raise MalformedEvent(f"event kind must be chance, move or system, not {kind!r}")
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise MalformedEvent('event data must be an object with a "type" string')
    seat = event.get("seat")
    if kind == "move":
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < seats:
            raise MalformedEvent(f"a move needs a seat from 0 to {seats - 1}, not {seat!r}")
    elif seat is not None:
        raise MalformedEvent(f"a {kind} event has no seat")
    return kind, seat, data


def resign_seat(data: dict, seats: int) -> int:
    seat = data.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < seats:
        raise MalformedEvent(f"resign needs a seat from 0 to {seats - 1}, not {seat!r}")
    return seat


def require_param(data: dict, name: str, kind: type, what: str) -> Any:
    """A move parameter of the right JSON type, or MalformedEvent naming what is expected."""
    value = data.get(name)
    if isinstance(value, bool) and kind is not bool or not isinstance(value, kind):
        raise MalformedEvent(f'{data.get("type")} needs "{name}": {what}')
    return value
