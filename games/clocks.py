"""Game clocks as pure data: time controls, the Fischer bank fold and the moves a timeout makes.

No Django, no database and no clock of its own: every moment is passed in, so the arithmetic is
tested with made-up times. The service (``games.services``) keeps a bank's projection on the game
row; ``games.selectors.game_replay`` derives the same bank from the event log with ``Bank.step``.

Which moments count (the bank's timeline). Each event ``k`` has a *boundary* ``b_k``:
- a move or resign that came from a player's submission: the submission's ``received_at`` - the
  moment the server received it, so worker lag is never charged to the player who moved, and
  fairness follows the stored receipt time exactly as reaction windows do;
- any other event (a chance deal, a window close, a timeout): its ``created_at``.
Between ``b_k`` and ``b_k+1`` every seat that was to act after event ``k`` is charged the time
(``running``), unless an engine window (a katsu window, a timed Nine Card commit) was open after
event ``k``: the engine's own deadline takes precedence and pauses every bank. A charge never runs
past the moment the bank ran out (the clock's deadline): a timeout event recorded late by a sweeper
charges only up to the deadline. The next segment starts at ``max(previous mark, b_k+1)``, so a
receipt older than the previous boundary charges nothing. After each ``move`` event of a seat (a
timeout's automatic move included) that seat gets ``increment_seconds``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

MAX_PER_MOVE_SECONDS = 7 * 24 * 3600
MAX_BANK_SECONDS = 24 * 3600
MAX_INCREMENT_SECONDS = 3600
MAX_DAYS_PER_MOVE = 60
ON_TIMEOUT = ("loss", "pass", "default_move")
MAX_SPECTATOR_DELAY_SECONDS = 3600
CLOCK_PREFIX = "clock-"  # the id of a window a game clock opened (its deadline is a bank running out)
CLOCK_STATE = "clock_state"  # meta key of a bank clock's projection (``Bank``): server working state

# What a timeout plays instead of resigning, per engine: the first legal move whose type comes
# first in this preference list. Only games where such a move is an ordinary, harmless play are
# listed; a setting for any other game is refused. With no such move legal at that moment the
# seat resigns as under "loss".
TIMEOUT_MOVES: dict[str, dict[str, tuple[str, ...]]] = {
    # Mekuri Hinmin has a real pass: pass_and_draw (respond) and end_pass (after drawing).
    "mekuri-hinmin": {
        "pass": ("end_pass", "pass_and_draw", "reject_tie"),
        "default_move": (
            "end_pass",
            "pass_and_draw",
            "reject_tie",
            "play",
            "choose_first_player",
            "choose_initial_upcard_handling",
        ),
    },
    "nine-card": {"default_move": ("commit_card",)},  # the lowest card
    "turn-thief": {"default_move": ("discard",)},
    "twenty-two": {"default_move": ("follow", "lead", "exchange", "decline_buy_back")},
    "satori": {"default_move": ("play_card", "pass_turn", "hand_over")},
    "1234": {"default_move": ("play", "pass_combo", "drop_out")},
    "necropolis": {"default_move": ("decline_end", "draw", "entomb_drawn")},
}

USAGE = (
    'time_control is one of {"per_move_seconds": N} (N from 1 to 604800), '
    '{"bank_seconds": B, "increment_seconds": I} (B from 1 to 86400, I from 0 to 3600) or '
    '{"days_per_move": D} (D a whole number from 1 to 60), each optionally with '
    '"on_timeout": "loss" (the default), "pass" or "default_move"'
)


class TimeControlError(ValueError):
    """A time control that is not allowed; ``message`` says what is."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _number(value, low: float, high: float, *, whole: bool = False) -> bool:
    if isinstance(value, bool) or not isinstance(value, int if whole else int | float):
        return False
    return low <= value <= high


def parse_time_control(raw, engine_slug: str) -> dict | None:
    """The normalised time control (``on_timeout`` filled in), or None; TimeControlError if bad."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise TimeControlError(USAGE)
    on_timeout = raw.get("on_timeout", "loss")
    keys = set(raw) - {"on_timeout"}
    if keys == {"per_move_seconds"} and _number(raw["per_move_seconds"], 1, MAX_PER_MOVE_SECONDS):
        clock = {"per_move_seconds": raw["per_move_seconds"]}
    elif (
        keys == {"bank_seconds", "increment_seconds"}
        and _number(raw["bank_seconds"], 1, MAX_BANK_SECONDS)
        and _number(raw["increment_seconds"], 0, MAX_INCREMENT_SECONDS)
    ):
        clock = {"bank_seconds": raw["bank_seconds"], "increment_seconds": raw["increment_seconds"]}
    elif keys == {"days_per_move"} and _number(raw["days_per_move"], 1, MAX_DAYS_PER_MOVE, whole=True):
        clock = {"days_per_move": raw["days_per_move"]}
    else:
        raise TimeControlError(USAGE)
    if on_timeout not in ON_TIMEOUT:
        raise TimeControlError(f'on_timeout must be "loss", "pass" or "default_move", not {on_timeout!r}')
    if on_timeout != "loss" and on_timeout not in TIMEOUT_MOVES.get(engine_slug, {}):
        games = sorted(slug for slug, modes in TIMEOUT_MOVES.items() if on_timeout in modes)
        raise TimeControlError(
            f'on_timeout "{on_timeout}" is not available for {engine_slug} (it has no such move); '
            f'it is available for: {", ".join(games)}; "loss" works for every game'
        )
    return {**clock, "on_timeout": on_timeout}


def kind(time_control: dict) -> str:
    """``bank``, ``correspondence`` or ``per_move``."""
    if "bank_seconds" in time_control:
        return "bank"
    return "correspondence" if "days_per_move" in time_control else "per_move"


def move_seconds(time_control: dict) -> float | None:
    """The fresh allowance per event of a per-move or correspondence clock (None for a bank)."""
    if "days_per_move" in time_control:
        return time_control["days_per_move"] * 86400
    return time_control.get("per_move_seconds")


def timeout_move(engine_slug: str, on_timeout: str, legal: Sequence[dict]) -> dict | None:
    """The move a timeout makes for a seat with these legal moves; None: the seat resigns."""
    preference = TIMEOUT_MOVES.get(engine_slug, {}).get(on_timeout)
    if not preference:
        return None
    for wanted in preference:
        for move in legal:
            if move.get("type") == wanted:
                return move
    return None


def _ms(delta: timedelta) -> int:
    return int(delta / timedelta(milliseconds=1))


@dataclass(frozen=True)
class Bank:
    """Each seat's remaining time as of ``mark``; the seats in ``running`` are charged since then."""

    remaining_ms: tuple[int, ...]
    mark: datetime
    running: tuple[int, ...] = ()

    @classmethod
    def start(cls, time_control: dict, seats: int, at: datetime, running=()) -> Bank:
        return cls((int(time_control["bank_seconds"] * 1000),) * seats, at, tuple(sorted(running)))

    def deadline(self) -> datetime | None:
        """When the first running seat runs out (None while nobody's time runs)."""
        if not self.running:
            return None
        return self.mark + timedelta(milliseconds=min(self.remaining_ms[s] for s in self.running))

    def step(self, *, boundary: datetime, mover: int | None, running, increment_ms: int) -> Bank:
        """The bank after an event with this boundary, made by ``mover`` (a move; None otherwise),
        after which ``running`` seats are to act (empty while an engine window is open)."""
        deadline = self.deadline()
        until = boundary if deadline is None else min(boundary, deadline)
        elapsed = max(0, _ms(until - self.mark))
        remaining = [max(0, r - elapsed) if s in self.running else r for s, r in enumerate(self.remaining_ms)]
        if mover is not None:
            remaining[mover] += increment_ms
        return Bank(tuple(remaining), max(self.mark, boundary), tuple(sorted(running)))

    def at(self, moment: datetime) -> list[int]:
        """Every seat's remaining time at ``moment`` (not before ``mark``; never below 0)."""
        elapsed = max(0, _ms(moment - self.mark))
        return [max(0, r - elapsed) if s in self.running else r for s, r in enumerate(self.remaining_ms)]

    def out_of_time(self, moment: datetime) -> list[int]:
        """The running seats whose time is up at ``moment``."""
        left = self.at(moment)
        return [s for s in self.running if left[s] <= 0]

    def to_json(self) -> dict:
        return {"remaining_ms": list(self.remaining_ms), "mark": self.mark.isoformat(), "running": list(self.running)}

    @classmethod
    def from_json(cls, data: dict) -> Bank:
        return cls(tuple(data["remaining_ms"]), datetime.fromisoformat(data["mark"]), tuple(data["running"]))
