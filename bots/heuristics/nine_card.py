"""Nine Card: the card most likely to win this round's column, by sampling what is still unseen.

The opponent's cards still to come are drawn from the ranks of their suit not yet on the table
(their hand and their four set-aside cards look alike from here), our own from our hand. Each
candidate is scored by wins minus losses of the round over those samples, paradigm shifts and the
mode included; a small charge for spending a strong card makes a lost cause cost the weakest one.
"""

from __future__ import annotations

import random

from .common import Move, value

SAMPLES = 24


def _consecutive(values: list[int]) -> bool:
    low = min(values)
    return sorted(values) == [low, low + 1, low + 2]


def _round_result(mine: list[int], theirs: list[int], high: bool) -> int:
    """+1 if ``mine`` wins the column, -1 if it loses, 0 for a draw (Nine Card rules, section 4)."""
    flips = _consecutive(mine) + _consecutive(theirs)
    if flips % 2:
        high = not high
    if sum(mine) == sum(theirs):
        return 0
    return 1 if (sum(mine) > sum(theirs)) == high else -1


def choose(view: dict, moves: list[Move], rng: random.Random, seat: int) -> Move:
    commits = [move for move in moves if move.get("type") == "commit_card"]
    if not commits:
        return rng.choice(moves)
    me, them = view["players"][seat], view["players"][1 - seat]
    column = view["round"] - 1
    high = view["mode"] == "HIGH"
    mine = [value(card) for card in me["grid"][column]]
    theirs = [value(card) for card in them["grid"][column]]
    seen = {value(card) for col in them["grid"] for card in col}
    unseen = [v for v in range(1, 14) if v not in seen]
    hand = [value(move["card"]) for move in commits]

    def score(move: Move) -> float:
        card = value(move["card"])
        rest = list(hand)
        rest.remove(card)
        total = 0
        for _ in range(SAMPLES):
            my_column = mine + [card] + rng.sample(rest, min(len(rest), 2 - len(mine)))
            their_column = theirs + rng.sample(unseen, min(len(unseen), 3 - len(theirs)))
            if len(my_column) == 3 and len(their_column) == 3:
                total += _round_result(my_column, their_column, high)
        strength = card if high else 14 - card
        return total / SAMPLES - 0.02 * strength

    return max(commits, key=score)
