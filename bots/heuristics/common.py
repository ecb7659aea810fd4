"""Small helpers the heuristics share: card ranks and suits, and picking among legal moves."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

Move = dict[str, Any]

# Moves a heuristic never picks while anything else is legal: they end or stall a game by choice.
GIVE_UP = frozenset({"resign", "withdraw", "propose_tie", "accept_tie"})


def sensible(moves: list[Move]) -> list[Move]:
    """The legal moves without giving up or offering a tie (all of them if nothing else is left)."""
    kept = [move for move in moves if move.get("type") not in GIVE_UP]
    return kept or moves


def of_type(moves: Iterable[Move], *types: str) -> list[Move]:
    return [move for move in moves if move.get("type") in types]


def first_of(moves: Iterable[Move], *types: str) -> Move | None:
    """The first listed move of the first of ``types`` that is legal now."""
    moves = list(moves)
    for kind in types:
        for move in moves:
            if move.get("type") == kind:
                return move
    return None


def face(card: str) -> str:
    """``"10H#2"`` -> ``"10H"``: two-pack games tag the second copy of a card."""
    return card.split("#", 1)[0]


def rank(card: str) -> str:
    """The rank part of a card id (``"10H"`` -> ``"10"``, ``"AS"`` -> ``"A"``)."""
    return face(card)[:-1]


def suit(card: str) -> str:
    return face(card)[-1]


# A = 1 and J, Q, K = 11, 12, 13: the value in Nine Card, 1234 and Turn Thief.
LOW_ACE = {"A": 1, **{str(n): n for n in range(2, 11)}, "J": 11, "Q": 12, "K": 13}


def value(card: str) -> int:
    """The ace-low value of a card (jokers 0)."""
    return LOW_ACE.get(rank(card), 0)


def tile_pips(tile: str) -> int:
    """A domino ``"a-b"``: its pip count a + b."""
    low, high = tile.split("-")
    return int(low) + int(high)
