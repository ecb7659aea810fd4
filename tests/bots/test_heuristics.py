"""Heuristic bots, in-process against the pure engines: legal moves only, games end, and the
heuristics beat random play where they clearly should. No database, no server."""

from __future__ import annotations

import random

import pytest

from bots.heuristics import HEURISTICS, random_strategy, storytelling, strategy_for
from bots.inprocess import play, win_rate
from games.engines import REGISTRY, get_engine
from games.engines.chance import ChanceStream

# (slug, players, config): every engine at its smallest table and one larger, and both Twenty-Two variants.
TABLES = [
    ("nine-card", 2, None),
    ("satori", 2, None),
    ("satori", 4, None),
    ("turn-thief", 4, None),
    ("1234", 2, None),
    ("1234", 4, None),
    ("necropolis", 2, None),
    ("mekuri-hinmin", 2, None),
    ("twenty-two", 2, None),
    ("twenty-two", 5, None),
    ("twenty-two", 4, {"variant": "gambling_cucumber"}),
    ("kazekami-kyoko", 2, None),
    ("believers", 2, None),
    ("believers", 4, None),
]


def test_every_registered_engine_has_a_heuristic():
    assert set(HEURISTICS) == set(REGISTRY)


def checked(slug: str, seen: list):
    """The heuristic, asserting that each answer is a listed move (or a listed storytelling
    template with its texts filled in) and that it saw nothing but its seat's view."""
    heuristic = strategy_for("heuristic", slug)
    engine = get_engine(slug)

    def choose(view, moves, rng, seat):
        move = heuristic(view, moves, rng, seat)
        if move is not None:
            assert move in moves or any(storytelling.is_filled(m, move) for m in moves), (slug, move, moves)
            seen.append(move)
        assert engine.max_seats >= seat >= 0
        return move

    return choose


@pytest.mark.parametrize(("slug", "players", "config"), TABLES)
def test_heuristic_plays_legally_to_the_end(slug, players, config):
    for seed in range(8):
        seen: list = []
        mine = checked(slug, seen)
        # all heuristic, then heuristic and random on alternating seats (both ways round)
        lineups = [[mine] * players, [mine, random_strategy] * players, [random_strategy, mine] * players]
        for lineup in lineups:
            played = play(slug, lineup[:players], seed, config)
            ranked = sorted(seat for group in played.outcome["ranking"] for seat in group)
            assert ranked == list(range(players))
        assert seen, f"{slug}: the heuristic never moved"


def test_heuristic_sees_only_its_own_view():
    """A heuristic given a seat's view of a Nine Card deal never plays a card of the other hand."""
    engine = get_engine("nine-card")
    state = engine.setup(None, 2)
    state = engine.apply(state, {"kind": "chance", "data": engine.sample_chance(state, ChanceStream(b"8bytes!!", 1))})
    view = engine.view(state, 1)
    assert view["players"][0]["hand"] is None  # the opponent's hand is not in the view
    move = strategy_for("heuristic", "nine-card")(view, engine.legal_moves(state, 1), random.Random(1), 1)
    assert move["card"] in view["players"][1]["hand"]


def test_story_texts_are_valid_and_filled():
    rng = random.Random(3)
    parts = {"confirmation": "…", "declaration": "…", "open_question": "…?"}
    template = {"type": "respond", "form": "kublai_normal", **parts}
    move = storytelling.filled(template, rng, storytelling.KAZEKAMI_PARTS, "x")
    assert move["open_question"].endswith("?") and not move["confirmation"].endswith("?")
    assert "…" not in move.values() and storytelling.is_filled(template, move)
    assert not storytelling.is_filled(template, {**move, "confirmation": "  "})


def test_unknown_bot_kind_and_game():
    with pytest.raises(ValueError, match="random, heuristic"):
        strategy_for("clever", "nine-card")
    with pytest.raises(ValueError, match="no heuristic bot"):
        strategy_for("heuristic", "chess")


# Measured with fixed seeds (python -m bots.inprocess --games 200 --seed 0|1): the heuristic's
# win rate alone in first place against random bots, seat rotating. Asserted only where the margin
# over the baseline is large on every seed tried; 1234 (0.56-0.63) is reported, not asserted.
CLEARLY_BETTER = {
    "nine-card": 0.65,  # measured 0.79, 0.82
    "satori": 0.65,  # 0.88, 0.79
    "necropolis": 0.75,  # 0.955, 0.99
    "mekuri-hinmin": 0.7,  # 0.90, 0.865
    "twenty-two": 0.85,  # 0.995, 0.98
    "turn-thief": 0.6,  # 1.0, 0.995 (four players: random wins 0.25)
}


@pytest.mark.parametrize("slug", sorted(CLEARLY_BETTER))
def test_heuristic_beats_random(slug):
    rate = win_rate(slug, 200, seed=0)
    assert rate["win_rate"] >= CLEARLY_BETTER[slug], rate
