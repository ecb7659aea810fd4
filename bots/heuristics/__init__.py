"""Bot strategies for every game: ``strategy(view, legal_moves, rng, seat) -> move``.

A strategy sees what its seat may see and nothing else: the seat's ``view`` (``GET
/api/games/{id}/state``, or ``engine.view(state, seat)`` in-process), the seat's legal moves and
its own seat number. It returns one of the legal moves - for a storytelling contribution, the
listed template with its placeholder texts filled in. The random strategy ignores the view (and
sends the placeholders as they are, which are valid texts); each heuristic is one small function
in ``bots/heuristics/<game>.py``, and one table maps game slugs to them. A heuristic answers None
when its only legal moves are ones it never makes (offering a tie, resigning, withdrawing): it
waits for the game to move on, as a player may act but need not.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from . import mekuri_hinmin, necropolis, nine_card, one_two_three_four, satori, storytelling, turn_thief, twenty_two
from .common import GIVE_UP, Move, sensible

Strategy = Callable[[dict, list[Move], random.Random, int], Move | None]


def random_strategy(view: dict, moves: list[Move], rng: random.Random, seat: int) -> Move:
    """A uniformly random legal move: the baseline every heuristic is measured against."""
    return rng.choice(moves)


HEURISTICS: dict[str, Strategy] = {
    "nine-card": nine_card.choose,
    "satori": satori.choose,
    "turn-thief": turn_thief.choose,
    "1234": one_two_three_four.choose,
    "necropolis": necropolis.choose,
    "mekuri-hinmin": mekuri_hinmin.choose,
    "twenty-two": twenty_two.choose,  # both variants (twenty_two, gambling_cucumber)
    "kazekami-kyoko": storytelling.choose_kazekami,
    "believers": storytelling.choose_believers,
}

KINDS = ("random", "heuristic")


def strategy_for(kind: str, engine: str) -> Strategy:
    """The strategy of a bot kind (``random`` or ``heuristic``) for a game slug."""
    if kind == "random":
        return random_strategy
    if kind != "heuristic":
        raise ValueError(f"no bot kind {kind!r}; choose one of {', '.join(KINDS)}")
    try:
        heuristic = HEURISTICS[engine]
    except KeyError:
        raise ValueError(f"no heuristic bot for {engine!r}; games with one: {', '.join(sorted(HEURISTICS))}") from None
    return _guarded(heuristic)


def _guarded(heuristic: Strategy) -> Strategy:
    """A heuristic whose answer is always a listed move: anything else falls back to a sensible
    random move (a view shaped in a way the heuristic did not foresee must not stop a bot)."""

    def choose(view: dict, moves: list[Move], rng: random.Random, seat: int) -> Move | None:
        if all(move.get("type") in GIVE_UP for move in moves):
            return None
        move = heuristic(view, moves, rng, seat)
        if move in moves or any(storytelling.is_filled(listed, move) for listed in moves):
            return move
        return rng.choice(sensible(moves))

    choose.__name__ = choose.__qualname__ = getattr(heuristic, "__name__", "heuristic")
    choose.__wrapped__ = heuristic
    return choose


__all__ = ["HEURISTICS", "KINDS", "Strategy", "random_strategy", "strategy_for"]
