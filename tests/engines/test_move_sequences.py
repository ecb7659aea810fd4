"""The ``legal_moves`` contract for a lazy sequence (``games/engines/base.py``): ``SubsetMoves``."""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations

import pytest

from games.engines.base import SubsetMoves
from games.engines.twenty_two import ENGINE as TWENTY_TWO

from .test_twenty_two import three_player_deal


def listed(items, most):
    """What ``legal_moves`` listed before it was lazy: every subset, by size, as a fresh dict."""
    return [{"type": "exchange", "cards": list(c)} for k in range(most + 1) for c in combinations(items, k)]


@pytest.mark.parametrize(("count", "most"), [(0, 0), (1, 1), (5, 2), (7, 7), (7, 3), (11, 11), (6, 9)])
def test_same_moves_in_the_same_order_as_the_list(count, most):
    items = [f"{rank}S" for rank in "23456789TJQKA"[:count]]
    moves, expected = SubsetMoves("exchange", "cards", items, most), listed(items, min(most, count))
    assert isinstance(moves, Sequence) and len(moves) == len(expected) and bool(moves) == bool(expected)
    assert list(moves) == expected and list(reversed(moves)) == expected[::-1]
    assert [moves[i] for i in range(len(expected))] == expected
    assert [moves[-i - 1] for i in range(len(expected))] == expected[::-1]
    for position, move in enumerate(expected):
        assert move in moves and moves.index(move) == position and moves.count(move) == 1
    for outside in (len(expected), -len(expected) - 1):
        with pytest.raises(IndexError):
            moves[outside]


def test_2048_subsets_counted_not_built():
    moves = SubsetMoves("exchange", "cards", [f"{r}H" for r in "23456789TJQ"], 11)
    assert len(moves) == 2048 and moves[-1]["cards"] == [f"{r}H" for r in "23456789TJQ"]
    assert random.Random(3).choice(moves) == list(moves)[random.Random(3).randrange(2048)]


def test_every_access_builds_a_fresh_move():
    moves = SubsetMoves("exchange", "cards", ["2S", "3S", "4S"], 2)
    first = moves[4]
    first["cards"].append("AS")
    first["extra"] = 1
    assert moves[4] == {"type": "exchange", "cards": ["2S", "3S"]}
    assert next(iter(moves)) is not next(iter(moves))


@pytest.mark.parametrize(
    "other",
    [
        {"type": "exchange", "cards": ["3S", "2S"]},  # out of order: the list holds hand order only
        {"type": "exchange", "cards": ["2S", "2S"]},
        {"type": "exchange", "cards": ["2S", "3S", "4S"]},  # more than ``most``
        {"type": "exchange", "cards": ("2S",)},  # a tuple is not equal to a list
        {"type": "exchange", "cards": [["2S"]]},  # an unhashable item
        {"type": "exchange", "cards": ["AS"]},
        {"type": "exchange", "cards": ["2S"], "reason": "timeout"},  # a field the moves do not have
        {"type": "lead", "cards": ["2S"]},
        {"cards": ["2S"]},
        "2S",
        None,
    ],
)
def test_in_refuses_what_the_list_does_not_hold(other):
    moves = SubsetMoves("exchange", "cards", ["2S", "3S", "4S"], 2)
    assert (other in moves) is (other in list(moves)) is False
    assert moves.count(other) == 0
    with pytest.raises(ValueError):
        moves.index(other)


def test_twenty_two_exchange_is_lazy_and_the_referee_agrees():
    state = three_player_deal()
    moves = TWENTY_TWO.legal_moves(state, 0)
    assert isinstance(moves, SubsetMoves) and len(moves) == 2**7
    for move in (moves[0], moves[37], moves[-1]):
        TWENTY_TWO.apply(state, {"kind": "move", "seat": 0, "data": move})
    hand = state.hands[0]
    assert {"type": "exchange", "cards": [hand[1], hand[0]]} not in moves
