"""Twenty-Two (and its gambling Cucumber variant): whoever holds the highest card in the final
trick takes the penalty, so shed high cards and keep low ones for the end. Exchange away the high
cards, lead the highest rank (all its copies), follow with the highest legal cards, and buy back
in when the chips allow."""

from __future__ import annotations

import random

from .common import Move, first_of, rank

STRENGTH = {**{str(n): n for n in range(2, 11)}, "J": 11, "Q": 12, "K": 13, "A": 14}
EXCHANGE_FROM = 10  # tens and above go back to the stock


def _strength(card: str) -> int:
    return STRENGTH[rank(card)]


def _high_first(cards: list[str]) -> list[int]:
    return sorted((_strength(card) for card in cards), reverse=True)


def choose(view: dict, moves: list[Move], rng: random.Random, seat: int) -> Move:
    exchanges = [move for move in moves if move["type"] == "exchange"]
    if exchanges:
        wanted = {c for c in (view["players"][seat].get("hand") or []) if _strength(c) >= EXCHANGE_FROM}
        fitting = [m for m in exchanges if set(m["cards"]) <= wanted]
        return max(fitting or exchanges, key=lambda m: (len(m["cards"]), _high_first(m["cards"])))
    plays = [move for move in moves if move["type"] in ("lead", "follow")]
    if plays:
        return max(plays, key=lambda m: (_high_first(m["cards"]), len(m["cards"])))
    return first_of(moves, "buy_back", "decline_buy_back") or rng.choice(moves)
