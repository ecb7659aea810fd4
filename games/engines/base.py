"""The engine contract every game module implements, its typed rule errors and config flags.

Engines are pure: no Django, no database, no clock, no global random. A game is a fold of events
over a state: ``state = engine.apply(state, event)``. An event is a plain JSON object::

    {"kind": "chance", "data": {"type": "deal", ...}}          # outcome of a chance node
    {"kind": "move", "seat": 0, "data": {"type": "commit_card", "card": "7H"}}
    {"kind": "system", "data": {"type": "close_window", "window": "turn-3"}}

Every engine understands two system events: ``close_window`` (a reaction window or simultaneous
choice reached its deadline; it names the window so that a late or repeated close changes nothing
once the window has moved on) and ``resign`` (``{"type": "resign", "seat": s}``).

``Engine.apply`` is the envelope every game shares (game over, chance / move / system, resign,
close_window, unknown kinds, in one order); a game supplies hooks (``apply_chance``,
``apply_move``, ``apply_resign``, ``apply_close_window``, ``apply_system``) and a table of
``actions``, each declaring its parameters, which the base checks before the game's code runs.

``legal_moves(state, seat)`` returns a ``collections.abc.Sequence`` of moves (the shape of
python-chess's ``LegalMoveGenerator``), not necessarily a list: a seat that may not act gets an
empty one. What every caller may rely on:

- ``len(moves)``, ``moves[i]`` (negative ``i`` too), iteration, ``reversed``, ``bool``;
- a stable order: two calls on one state list the same moves in the same order, and ``moves[i]``
  is the ``i``-th move iteration yields;
- every access builds fresh data: a move got by indexing or iteration is the caller's to keep and
  change (its lists included), and changing it changes nothing the engine or a later access sees;
- ``move in moves`` (and ``moves.index(move)``, ``moves.count(move)``) compares by value, as a
  list would; a lazy sequence checks the move directly, without listing the others.

Nothing else: no slicing, no ``==`` with a list, no JSON encoding, no ``+``. A caller that needs a
list (a JSON response, a comparison with a list, filtering it many times) calls ``list(moves)``.
``random.choice(moves)`` and ``rng.sample(moves, k)`` pick by index. An engine whose phase offers
very many moves (Twenty-Two's exchange: every subset of the hand of at most k cards, up to 2,048)
returns a lazy read-only sequence (``SubsetMoves``) whose length is arithmetic and whose indexing
builds the one move asked for, so a random or sampling bot pays for one move, not for 2,048; the
referee never enumerates (``apply`` checks a move directly).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain, combinations, repeat
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


# The one code for a move field the action does not declare, in every game; ``reason`` is the one
# field every move may carry besides its own (the server marks a timeout's move ``"reason": "timeout"``).
UNEXPECTED_PARAMETER = "unexpected_parameter"
# The one code for a value over its declared size cap (a string's characters, a list's items).
PARAMETER_TOO_LARGE = "parameter_too_large"
ID_LENGTH = 16  # card ids (``10H``, ``JK1``), tile ids (``2-5``), choice names
MOVE_REASON_LENGTH = 32

_JSON_TYPES = {"string": "string", "text": "string", "integer": "integer", "boolean": "boolean", "list": "array"}


@dataclass(frozen=True)
class Param:
    """One parameter of an action: its JSON type, allowed values and size cap.

    ``kind`` is ``string`` (an id or a name, at most ``max_length`` characters), ``text`` (a
    player's free text; a non-string is ``text_not_string``), ``integer``, ``boolean`` or
    ``list`` (of strings of at most ``ID_LENGTH`` characters, at most ``max_length`` items).
    ``type_code`` / ``choice_code`` / ``item_code`` are the stable codes the game has always used
    for a value of the wrong type / not among ``choices`` / a list item that is not a string, so
    moving a check into the schema changes no code. ``required`` is documentation: the game still
    refuses a missing parameter with its own code.
    """

    kind: str
    description: str = ""
    required: bool = True
    choices: tuple[Any, ...] | None = None
    max_length: int | None = None
    nullable: bool = False
    type_code: str = "malformed_event"
    choice_code: str = "illegal_move"
    item_code: str = "malformed_event"

    def __post_init__(self) -> None:
        if self.kind not in _JSON_TYPES:
            raise ValueError(f"unknown parameter kind {self.kind!r}")
        if self.kind in ("string", "text", "list") and self.max_length is None:
            raise ValueError(f"a {self.kind} parameter needs a size cap (max_length)")

    def passes(self) -> Any:
        """A predicate true of the values ``check`` accepts without a word, for the common case:
        a value it is false of goes through ``check`` (which raises, or finds it acceptable after all:
        the predicate may be stricter, e.g. a ``dict`` subclass or ``None``)."""
        choices, most = self.choices, self.max_length
        if self.kind in ("string", "text"):
            if choices is not None:
                allowed = frozenset(c for c in choices if isinstance(c, str))
                return lambda v: type(v) is str and v in allowed and len(v) <= most
            return lambda v: type(v) is str and len(v) <= most
        if self.kind == "integer" and choices is None:
            return lambda v: type(v) is int
        if self.kind == "boolean" and choices is None:
            return lambda v: v is True or v is False
        if self.kind == "list" and choices is None:
            # Item types and lengths read by map (in C): a generator per move costs more than the rest.
            # A one-item list (one card played, the commonest move of the card games) is read directly.
            return lambda v: (
                type(v) is list
                and len(v) <= most
                and (
                    (type(v[0]) is str and len(v[0]) <= ID_LENGTH)
                    if len(v) == 1
                    else (not v or (_STR_TYPE.issuperset(map(type, v)) and max(map(len, v)) <= ID_LENGTH))
                )
            )
        return lambda v: False

    def check(self, action: str, name: str, value: Any) -> None:
        where = f'{action} "{name}"'
        if value is None:
            if self.nullable:
                return
            raise self._type_error(where)
        if self.kind in ("string", "text"):
            if not isinstance(value, str):
                raise self._type_error(where)
            if len(value) > self.max_length:
                raise MalformedEvent(
                    f"{where} is {len(value)} characters long; the most this game accepts is {self.max_length}",
                    code=PARAMETER_TOO_LARGE,
                )
        elif self.kind == "integer":
            if isinstance(value, bool) or not isinstance(value, int):
                raise self._type_error(where)
        elif self.kind == "boolean":
            if not isinstance(value, bool):
                raise self._type_error(where)
        elif self.kind == "list":
            if not isinstance(value, list):
                raise self._type_error(where)
            if len(value) > self.max_length:
                raise MalformedEvent(
                    f"{where} lists {len(value)} items; the most this game accepts is {self.max_length}",
                    code=PARAMETER_TOO_LARGE,
                )
            for item in value:
                if not isinstance(item, str):
                    raise MalformedEvent(f"{where} must be a list of ids (strings), not {item!r}", code=self.item_code)
                if len(item) > ID_LENGTH:
                    raise MalformedEvent(
                        f"{where} has an item of {len(item)} characters; ids are at most {ID_LENGTH}",
                        code=PARAMETER_TOO_LARGE,
                    )
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(repr(c) for c in self.choices)
            raise IllegalMove(f"{where} must be one of {allowed}, not {value!r}", code=self.choice_code)

    def _type_error(self, where: str) -> RuleError:
        if self.kind == "text":
            return IllegalMove(f"{where} must be text (a JSON string)", code=TEXT_NOT_STRING)
        wanted = {"string": "a string", "integer": "a whole number", "boolean": "true or false", "list": "a list"}
        message = f"{where} must be {wanted[self.kind]}" + (" or null" if self.nullable else "")
        if self.type_code == "malformed_event":
            return MalformedEvent(message)
        return IllegalMove(message, code=self.type_code)

    def schema(self) -> dict:
        """The parameter as a JSON-schema-like dict (what ``/api/engines`` publishes)."""
        json_type = _JSON_TYPES[self.kind]
        out: dict[str, Any] = {"type": [json_type, "null"] if self.nullable else json_type}
        if self.kind in ("string", "text"):
            out["maxLength"] = self.max_length
        if self.kind == "text":
            out["format"] = "text"
        if self.kind == "list":
            out["items"] = {"type": "string", "maxLength": ID_LENGTH}
            out["maxItems"] = self.max_length
        if self.choices is not None:
            out["enum"] = list(self.choices)
        if self.description:
            out["description"] = self.description
        return out


_UNKNOWN = object()  # a move field no parameter declares
_STR_TYPE = frozenset((str,))

# The shared code for a free-text parameter that is not a string (was text_not_string in The
# Believers and part_not_text in Kazekami Kyoko).
TEXT_NOT_STRING = "text_not_string"
REASON = Param(
    "string", "set by the server on a move it plays for a seat", required=False, max_length=MOVE_REASON_LENGTH
)


@dataclass(frozen=True)
class Action:
    """One action of a game: its name and declared parameters (``type`` and ``reason`` implied)."""

    name: str
    params: dict[str, Param] = field(default_factory=dict)
    description: str = ""

    def check(self, data: dict) -> None:
        """Refuse unknown fields, wrong types, values not allowed and oversized values.

        Every field of a move the engines listed passes its parameter's ``passes`` predicate, which
        is all that is run then; anything else goes through ``check_fully`` for its error."""
        for name, value in data.items():
            test = self.passes.get(name, _UNKNOWN)
            if test is not None and (test is _UNKNOWN or not test(value)):
                self.check_fully(data)
                return

    @property
    def passes(self) -> dict[str, Any]:
        """Each field's ``Param.passes`` predicate (None for ``type``), made once per action."""
        fast = self.__dict__.get("_passes")
        if fast is None:
            fast = self.__dict__["_passes"] = {
                "type": None,
                "reason": REASON.passes(),
                **{name: param.passes() for name, param in self.params.items()},
            }
        return fast

    def check_fully(self, data: dict) -> None:
        """``check`` field by field, with the first error's code and message."""
        fields = self.__dict__.get("_fields")
        if fields is None:
            fields = self.__dict__["_fields"] = frozenset(("type", "reason", *self.params))
        unknown = [] if data.keys() <= fields else [key for key in data if key not in fields]
        if unknown:
            takes = ", ".join(f'"{name}"' for name in self.params) or "no parameters"
            shown = ", ".join(repr(key)[:40] for key in unknown[:5])
            raise MalformedEvent(f"{self.name} takes {takes}; unexpected: {shown}", code=UNEXPECTED_PARAMETER)
        for name, value in data.items():
            if name == "type":
                continue
            (REASON if name == "reason" else self.params[name]).check(self.name, name, value)

    def schema(self) -> dict:
        properties = {"type": {"const": self.name}}
        properties.update({name: param.schema() for name, param in self.params.items()})
        properties["reason"] = REASON.schema()
        required = ["type", *(name for name, param in self.params.items() if param.required)]
        out = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
        if self.description:
            out["description"] = self.description
        return out


class SubsetMoves(Sequence):
    """Every move ``{"type": action, param: [...]}`` whose list is a subset of ``items`` of at most
    ``most`` items, lazily: a read-only ``Sequence`` as the engine contract describes.

    The order is what ``itertools.combinations`` gives, size by size from the empty subset: by
    size, then lexicographically by position in ``items`` (whose entries must be distinct and
    hashable). ``len`` is a sum of binomial coefficients; ``moves[i]`` unranks the ``i``-th subset
    and builds that one move (a fresh dict and list on every access); iteration builds them one
    by one in the same order; ``move in moves`` and ``moves.index(move)`` look the move's items up
    in ``items`` without listing any other move.
    """

    __slots__ = ("_action", "_param", "_items", "_most", "_starts", "_where")

    def __init__(self, action: str, param: str, items: Sequence[str], most: int) -> None:
        self._action, self._param, self._items = action, param, tuple(items)
        self._most = most = max(0, min(most, len(self._items)))
        key = (len(self._items), most)
        starts = _SUBSET_STARTS.get(key)
        if starts is None:  # starts[k]: the index of the first subset of k items; starts[-1]: the length
            starts = [0]
            for k in range(most + 1):
                starts.append(starts[-1] + math.comb(key[0], k))
            starts = _SUBSET_STARTS[key] = tuple(starts)
        self._starts = starts
        self._where: dict[str, int] | None = None  # item -> position, built by the first ``in``

    def __len__(self) -> int:
        return self._starts[-1]

    def __getitem__(self, index):
        if type(index) is not int:
            if isinstance(index, slice):  # not in the contract; a list, as a list's slice would be
                return [self[i] for i in range(*index.indices(self._starts[-1]))]
            index = operator.index(index)  # a TypeError for what is not an integer, as a list raises
        starts = self._starts
        total = starts[-1]
        if index < 0:
            index += total
        if not 0 <= index < total:
            raise IndexError("move index out of range")
        size = 0
        while starts[size + 1] <= index:
            size += 1
        rank, items, n = index - starts[size], self._items, len(self._items)
        chosen, at, comb = [], 0, math.comb
        for left in range(size - 1, -1, -1):  # the items still to choose after this one
            while True:
                count = comb(n - at - 1, left)  # subsets whose next item is items[at]
                if rank < count:
                    break
                rank -= count
                at += 1
            chosen.append(items[at])
            at += 1
        return {"type": self._action, self._param: chosen}

    def __iter__(self) -> Iterator[dict]:
        action, param = self._action, self._param
        subsets = chain.from_iterable(map(combinations, repeat(self._items, self._most + 1), range(self._most + 1)))
        for subset in subsets:
            yield {"type": action, param: [*subset]}

    def _positions(self, move: Any) -> list[int] | None:
        """The positions in ``items`` of a move of this family, ascending; None for any other value."""
        if not isinstance(move, dict) or len(move) != 2 or move.get("type", _UNKNOWN) != self._action:
            return None
        chosen = move.get(self._param)
        if not isinstance(chosen, list) or len(chosen) > self._most:
            return None
        where = self._where
        if where is None:
            where = self._where = {item: at for at, item in enumerate(self._items)}
        positions, last = [], -1
        for item in chosen:
            try:
                at = where.get(item, -1)
            except TypeError:  # an unhashable item equals no item
                return None
            if at <= last:  # not an item, or out of order, or twice
                return None
            positions.append(at)
            last = at
        return positions

    def __contains__(self, move: Any) -> bool:
        return self._positions(move) is not None

    def index(self, move: Any, start: int = 0, stop: int | None = None) -> int:
        positions = self._positions(move)
        if positions is None:
            raise ValueError("not a legal move")
        n, size, comb = len(self._items), len(positions), math.comb
        index, at = self._starts[size], 0
        for number, position in enumerate(positions):
            left = size - number - 1
            index += sum(comb(n - skipped - 1, left) for skipped in range(at, position))
            at = position + 1
        start, stop, _ = slice(start, stop).indices(self._starts[-1])
        if not start <= index < stop:
            raise ValueError("not a legal move in that range")
        return index

    def count(self, move: Any) -> int:
        return 0 if self._positions(move) is None else 1

    def __repr__(self) -> str:
        family = f"{self._param} of at most {self._most} of {len(self._items)}"
        return f"<SubsetMoves {self._action}: {family}, {len(self)} moves>"


_SUBSET_STARTS: dict[tuple[int, int], tuple[int, ...]] = {}  # (items, most): where each size starts


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
    # The game's moves, each with its declared parameters; the base validates every move against
    # its action before the game's code runs.
    actions: ClassVar[tuple[Action, ...]] = ()
    # System events of this game besides resign and close_window (handled by ``apply_system``).
    system_events: ClassVar[tuple[str, ...]] = ()
    # Actions a seat may take while a chance outcome is due (a safety exit such as withdraw).
    moves_while_chance_due: ClassVar[frozenset[str]] = frozenset()
    # System events that still record something after the game is over (1234's drop_out line).
    system_events_after_over: ClassVar[tuple[str, ...]] = ()

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
            "actions": {action.name: action.schema() for action in self.actions},
        }

    _action_table: dict[str, tuple[Action, dict]] | None = None  # name: (action, its passes)

    def action(self, data: dict) -> Action:
        """The declared action of a move's ``data``, its parameters checked; or a RuleError."""
        table = self._action_table
        if table is None:
            table = self._action_table = {action.name: (action, action.passes) for action in self.actions}
        found = table.get(data["type"])
        if found is not None:
            # Action.check, inlined: it runs for every move and every refused one.
            action, passes = found
            for name, value in data.items():
                test = passes.get(name, _UNKNOWN)
                if test is not None and (test is _UNKNOWN or not test(value)):
                    action.check_fully(data)
                    break
            return action
        names = ", ".join(action.name for action in self.actions)
        raise IllegalMove(f"{self.name} has no action {data['type']!r}; the actions are {names}", code="unknown_action")

    def validate_config(self, config: dict | None) -> dict:
        """Full config with defaults filled in; unknown keys and bad values raise ConfigError."""
        if config is None or config == {}:
            # Most games use the defaults: check them once per engine, hand out a copy each time.
            defaults = self.__dict__.get("_default_config")
            if defaults is None:
                defaults = self.__dict__["_default_config"] = self._validate_config({})
            return dict(defaults)
        return self._validate_config(config)

    def _validate_config(self, config: dict) -> dict:
        """``validate_config`` itself, every time."""
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

    def legal_moves(self, state: State, seat: int) -> Sequence[dict]:
        """The moves ``seat`` may make now, a read-only Sequence (see the module docstring)."""
        raise NotImplementedError

    def apply(self, state: State, event: dict) -> State:
        """The envelope every game shares, in one order, so a stray event gets one code everywhere:

        1. the event's shape (``malformed_event``), then game over (``game_over``);
        2. a chance event when none is due (``unexpected_chance``), else ``apply_chance``;
        3. system events: ``resign`` (its seat checked) to ``apply_resign``; ``close_window`` for
           the ``open_window`` only (``window_closed``) to ``apply_close_window``; the game's own
           ``system_events`` to ``apply_system``; any other is ``malformed_event``;
        4. a move: its action declared (``unknown_action``) and its parameters valid
           (``unexpected_parameter``, ``parameter_too_large``, ...), then ``chance_expected`` while
           a chance outcome is due, then ``apply_move``.
        ``after_event`` sees every accepted event (counters, settling).
        """
        kind, seat, data = split_event(event, self.seat_count(state))
        if self.is_over(state) and not (kind == "system" and data["type"] in self.system_events_after_over):
            raise GameOver("the game is over; no more events are accepted")
        if kind == "chance":
            if self.chance_due(state) is None:
                raise UnexpectedChance("no chance event is due now; the next event must be a move")
            new = self.apply_chance(state, data)
        elif kind == "system":
            new = self._apply_system_event(state, data)
        else:
            action = self.action(data)
            due = self.chance_due(state)
            if due is not None and action.name not in self.moves_while_chance_due:
                raise ChanceExpected(f"no move yet: the {due} must be recorded first")
            new = self.apply_move(state, seat, data)
        return self.after_event(state, new, kind, data)

    def _apply_system_event(self, state: State, data: dict) -> State:
        action = data["type"]
        if action == "resign":
            return self.apply_resign(state, resign_seat(data, self.seat_count(state)), data)
        if action == "close_window":
            if data.get("window") is None or data.get("window") != self.open_window(state):
                raise WindowClosed(f"window {data.get('window')!r} is not open")
            return self.apply_close_window(state, data)
        if action in self.system_events:
            return self.apply_system(state, data)
        raise MalformedEvent(f"{self.name} has no system event {action!r}")

    # ---- hooks of the envelope --------------------------------------------------------------
    def seat_count(self, state: State) -> int:
        return state.seats

    def is_over(self, state: State) -> bool:
        return state.phase == "over"

    def apply_chance(self, state: State, data: dict) -> State:
        raise NotImplementedError

    def apply_move(self, state: State, seat: int, data: dict) -> State:
        """A move whose action is declared and whose parameters passed its schema."""
        raise NotImplementedError

    def apply_resign(self, state: State, seat: int, data: dict) -> State:
        raise NotImplementedError

    def open_window(self, state: State) -> str | None:
        """The id of the window ``close_window`` may close now (by default the deadline's)."""
        current = self.deadline(state)
        return None if current is None else current.window

    def apply_close_window(self, state: State, data: dict) -> State:
        """The open window (``data["window"]``) reached its end."""
        raise NotImplementedError

    def apply_system(self, state: State, data: dict) -> State:
        """One of the game's own ``system_events``."""
        raise NotImplementedError

    def after_event(self, before: State, after: State, kind: str, data: dict) -> State:
        return after

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


def evolve(state: Any, **changes: Any) -> Any:
    """A copy of a frozen dataclass ``state`` with ``changes``: ``dataclasses.replace`` without its cost.

    ``replace`` rebuilds the object through ``__init__`` field by field; a game's hot path copies its
    state several times per event, so this copies the instance dict (one ``dict.copy``) instead.
    Values a ``functools.cached_property`` of the class keeps in that dict are left out of the copy
    (they would be stale; the copy computes them afresh when asked). It runs no ``__post_init__``
    and does not check the names in ``changes`` (the engines' tests do).
    """
    cls = type(state)
    fields = state.__dict__.copy()
    derived = _DERIVED.get(cls)
    if derived is None:
        derived = _DERIVED[cls] = tuple(
            name for klass in cls.__mro__ for name, value in vars(klass).items() if isinstance(value, cached_property)
        )
    for name in derived:
        fields.pop(name, None)
    fields.update(changes)
    new = object.__new__(cls)
    _set_attribute(new, "__dict__", fields)
    return new


_DERIVED: dict[type, tuple[str, ...]] = {}  # a class's cached_property names, found once per class
_set_attribute = object.__setattr__  # a frozen dataclass refuses its own __setattr__


def split_event(event: Any, seats: int) -> tuple[str, int | None, dict]:
    """Check the envelope of an event and return ``(kind, seat, data)``."""
    # The common case first, by exact types (a JSON object decodes to a dict, a number to an int);
    # anything else, subclasses included, goes through the checks below for its verdict or error.
    if type(event) is dict:
        data = event.get("data")
        if type(data) is dict and type(data.get("type")) is str:
            kind = event.get("kind")
            seat = event.get("seat")
            if kind == "move":
                if type(seat) is int and 0 <= seat < seats:
                    return kind, seat, data
            elif seat is None and (kind == "chance" or kind == "system"):
                return kind, seat, data
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
