"""Elimination brackets (league/scoring/elimination.py): single and double elimination as match graphs,
the fold of results over them, snake groups and playoff seeding."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from league.scoring.elimination import (
    BracketMatch,
    Source,
    bracket_size,
    bracket_state,
    double_elimination,
    group_assignment,
    playoff_seeding,
    seeding_order,
    single_elimination,
)


def play(matches, seeds, pick):
    """Run a bracket to the end, ``pick(match_id, a, b)`` giving the winning slot; check the invariants
    that hold at every step and return (final state, played matches, losses per player, meetings)."""
    results: dict[str, int] = {}
    losses: Counter = Counter()
    met: set[frozenset] = set()
    by_id = {m.id: m for m in matches}
    played = []
    for _ in range(4 * len(matches) + 4):
        state = bracket_state(matches, seeds, results)
        # nobody stands in the losers bracket without a real loss: a bye never costs a life
        for match_id, *players in state.ready + state.byes:
            if by_id[match_id].bracket == "losers":
                assert all(losses[p] >= 1 for p in players), (match_id, players)
        if state.finished:
            assert not state.ready
            return state, played, losses, met
        assert state.ready, "an unfinished bracket always has a match to play"
        for match_id, a, b in state.ready:
            assert a in seeds and b in seeds and a != b
            slot = pick(match_id, a, b)
            results[match_id] = slot
            losses[(b, a)[slot]] += 1
            played.append((match_id, a, b))
            met.add(frozenset((a, b)))
    raise AssertionError("the bracket did not finish")


def seeds_of(n: int) -> list[str]:
    return [f"p{i}" for i in range(1, n + 1)]


# ---- single elimination --------------------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(st.integers(2, 40), st.booleans(), st.randoms(use_true_random=False))
def test_single_elimination_terminates_with_a_complete_ranking(n, third_place, rng):
    seeds = seeds_of(n)
    state, played, losses, _ = play(single_elimination(n, third_place=third_place), seeds, lambda *_: rng.randint(0, 1))
    assert len(played) == n - 1 + (1 if third_place and n >= 4 else 0)
    assert sorted(p for group in state.placements for p in group) == sorted(seeds)
    champion = state.placements[0]
    assert len(champion) == 1 and losses[champion[0]] == 0
    assert all(losses[p] >= 1 for p in seeds if p != champion[0])
    if third_place and n >= 4:
        assert [len(g) for g in state.placements[:4]] == [1, 1, 1, 1]


@pytest.mark.parametrize("n", [2, 3, 5, 8, 13, 16])
def test_single_elimination_favourites_finish_in_seed_order(n):
    seeds = seeds_of(n)
    state, *_ = play(
        single_elimination(n, third_place=True), seeds, lambda _, a, b: int(seeds.index(b) < seeds.index(a))
    )
    flat = [p for group in state.placements for p in group]
    assert flat == seeds
    if n == 16:  # the losers of each round share a place: 1, 2, 3, 4, 5-8, 9-16
        assert [len(g) for g in state.placements] == [1, 1, 1, 1, 4, 8]


def test_single_elimination_structure():
    matches = single_elimination(6, third_place=True)
    assert [m.id for m in matches] == ["W1-1", "W1-2", "W1-3", "W1-4", "W2-1", "W2-2", "W3-1", "3P"]
    assert matches[0].sources == (Source("seed", 1), Source("seed", 8))
    assert matches[-1] == BracketMatch("3P", "third_place", 3, (Source("loser", "W2-1"), Source("loser", "W2-2")))
    state = bracket_state(matches, list("abcdef"), {})
    assert state.byes == [("W1-1", "a"), ("W1-3", "b")]  # the top two seeds, against empty seeds 8 and 7
    assert state.ready == [("W1-2", "d", "e"), ("W1-4", "c", "f")]
    assert not state.finished and state.placements == []
    assert [m.id for m in single_elimination(2, third_place=True)] == ["W1-1"]  # no semi-finals, no 3P


# ---- double elimination --------------------------------------------------------------------------
@settings(max_examples=300, deadline=None)
@given(st.integers(2, 40), st.booleans(), st.randoms(use_true_random=False))
def test_double_elimination_terminates_and_eliminates_only_after_two_losses(n, reset, rng):
    seeds = seeds_of(n)
    matches = double_elimination(n, grand_final_reset=reset)
    state, played, losses, _ = play(matches, seeds, lambda *_: rng.randint(0, 1))
    ids = [match_id for match_id, *_ in played]
    assert len(played) == 2 * n - 2 + ("GF2" in ids)
    assert sorted(p for group in state.placements for p in group) == sorted(seeds)
    (champion,), (runner_up,) = state.placements[:2]
    assert losses[champion] <= 1
    assert all(losses[p] == 2 for p in seeds if p not in (champion, runner_up))  # out after exactly two losses
    # without a reset the winners-bracket champion can lose the one grand final and finish second
    assert losses[runner_up] == 2 or (not reset and losses[runner_up] == 1 and losses[champion] == 1)
    assert reset or "GF2" not in ids


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 40), st.randoms(use_true_random=False))
def test_a_player_dropping_from_the_winners_bracket_meets_someone_new(n, rng):
    """The pair-flip drop order: a drop-in match (a winners-bracket loser against a losers-bracket
    survivor) is never a rematch, except in the losers-bracket final."""
    matches = double_elimination(n)
    by_id = {m.id: m for m in matches}
    last_losers_round = max((m.round for m in matches if m.bracket == "losers"), default=0)
    results: dict[str, int] = {}
    met: set[frozenset] = set()
    seeds = seeds_of(n)
    while not (state := bracket_state(matches, seeds, results)).finished:
        for match_id, a, b in state.ready:
            match = by_id[match_id]
            drop_in = match.bracket == "losers" and match.sources[0].kind == "loser" and match.sources[0].ref[0] == "W"
            if drop_in and match.round != last_losers_round:
                assert frozenset((a, b)) not in met, (n, match_id, a, b)
            met.add(frozenset((a, b)))
            results[match_id] = rng.randint(0, 1)


def test_double_elimination_of_eight():
    matches = {m.id: m for m in double_elimination(8)}
    assert list(matches)[7:] == ["L1-1", "L1-2", "L2-1", "L2-2", "L3-1", "L4-1", "GF", "GF2"]
    assert matches["L2-1"].sources == (Source("loser", "W2-2"), Source("winner", "L1-1"))  # pair flip
    assert matches["L2-2"].sources == (Source("loser", "W2-1"), Source("winner", "L1-2"))
    assert matches["L4-1"].sources == (Source("loser", "W3-1"), Source("winner", "L3-1"))
    assert [matches[i].round for i in ("W3-1", "L1-1", "L2-1", "L3-1", "L4-1", "GF", "GF2")] == [3, 2, 3, 4, 5, 6, 7]
    assert matches["GF2"].optional and matches["GF2"].sources == (Source("loser", "GF"), Source("winner", "GF"))
    seeds = seeds_of(8)
    state, *_ = play(list(matches.values()), seeds, lambda _, a, b: int(seeds.index(b) < seeds.index(a)))
    # favourites win: GF2 is not needed; 3rd is the losers-bracket final's loser, then 4th, 5-6, 7-8
    assert state.placements == [["p1"], ["p2"], ["p3"], ["p4"], ["p5", "p6"], ["p7", "p8"]]


def test_grand_final_reset_only_when_the_losers_bracket_champion_wins():
    matches = double_elimination(2)
    assert [m.id for m in matches] == ["W1-1", "GF", "GF2"]
    state = bracket_state(matches, ["a", "b"], {"W1-1": 0})
    assert state.ready == [("GF", "a", "b")]
    won = bracket_state(matches, ["a", "b"], {"W1-1": 0, "GF": 0})
    assert won.finished and won.placements == [["a"], ["b"]]
    reset = bracket_state(matches, ["a", "b"], {"W1-1": 0, "GF": 1})
    assert not reset.finished and reset.ready == [("GF2", "a", "b")]
    done = bracket_state(matches, ["a", "b"], {"W1-1": 0, "GF": 1, "GF2": 1})
    assert done.finished and done.placements == [["b"], ["a"]]
    without = double_elimination(2, grand_final_reset=False)
    assert bracket_state(without, ["a", "b"], {"W1-1": 0, "GF": 1}).placements == [["b"], ["a"]]


def test_byes_in_double_elimination_drop_nobody():
    # 5 entrants in 8 lines: seeds 1-3 have byes; their empty opponents "lose" into the losers
    # bracket and hand the real losers byes there
    seeds = list("abcde")
    state = bracket_state(double_elimination(5), seeds, {"W1-2": 0})  # d beats e
    assert ("W1-1", "a") in state.byes and ("W1-3", "b") in state.byes and ("W1-4", "c") in state.byes
    assert ("L1-1", "e") in state.byes  # e's first loss, then a bye; nobody else is in the losers bracket
    assert all(match_id[0] == "W" for match_id, *_ in state.ready)


def test_bracket_state_refuses_bad_results():
    matches = double_elimination(4)
    seeds = list("abcd")
    for bad in ({"X": 0}, {"W1-1": 2}, {"W2-1": 0}, {"GF2": 0}):
        with pytest.raises(ValueError):
            bracket_state(matches, seeds, bad)
    with pytest.raises(ValueError):  # a bye takes no result
        bracket_state(single_elimination(3), list("abc"), {"W1-1": 0})
    with pytest.raises(ValueError):  # GF2 is not played when the winners-bracket champion wins GF
        bracket_state(double_elimination(2), ["a", "b"], {"W1-1": 0, "GF": 0, "GF2": 1})
    with pytest.raises(ValueError):
        bracket_state(matches, ["a", "a", "b"], {})
    with pytest.raises(ValueError):
        single_elimination(1)


# ---- groups and playoffs -------------------------------------------------------------------------
def test_snake_groups():
    assert group_assignment(list(range(1, 13)), 4) == [[1, 8, 9], [2, 7, 10], [3, 6, 11], [4, 5, 12]]
    assert group_assignment(list(range(1, 9)), 2) == [[1, 4, 5, 8], [2, 3, 6, 7]]
    assert group_assignment(list(range(1, 8)), 3) == [[1, 6, 7], [2, 5], [3, 4]]
    with pytest.raises(ValueError):
        group_assignment([1, 2, 3], 2)
    with pytest.raises(ValueError):
        group_assignment([1, 2, 3], 0)


def first_meeting(seeds: list, groups: list[list]) -> int:
    """The earliest round in which two players of one group can meet in single_elimination(seeds)."""
    size = bracket_size(len(seeds))
    line = {seeds[s - 1]: i for i, s in enumerate(seeding_order(size)) if s <= len(seeds)}
    rounds = [(line[a] ^ line[b]).bit_length() for group in groups for a, b in itertools.combinations(group, 2)]
    return min(rounds, default=math.inf)


@pytest.mark.parametrize(("groups", "advance"), [(2, 2), (4, 2), (8, 2), (2, 4), (4, 4), (8, 4), (4, 1), (16, 2)])
def test_playoff_seeding_keeps_group_mates_apart_as_long_as_possible(groups, advance):
    rankings = [[f"{chr(65 + g)}{place}" for place in range(1, advance + 2)] for g in range(groups)]
    seeds = playoff_seeding(rankings, advance)
    assert seeds[:groups] == [r[0] for r in rankings]  # group winners first, in group order
    assert sorted(seeds) == sorted(p for r in rankings for p in r[:advance])
    rounds = bracket_size(len(seeds)).bit_length() - 1
    # k players of a group can be kept apart until the last log2(k) rounds, and no longer
    best = rounds - math.ceil(math.log2(advance)) + 1 if advance > 1 else math.inf
    assert first_meeting(seeds, [[p for p in seeds if p[0] == chr(65 + g)] for g in range(groups)]) == best


def test_playoff_seeding_with_uneven_groups():
    rankings = [["A1", "A2"], ["B1", "B2"], ["C1", "C2"]]
    seeds = playoff_seeding(rankings, 2)
    assert seeds[:3] == ["A1", "B1", "C1"]
    assert first_meeting(seeds, [[f"{g}1", f"{g}2"] for g in "ABC"]) == 3  # only in the final
    assert playoff_seeding([["A1", "A2", "A3"], ["B1"]], 3)[:2] == ["A1", "B1"]
    with pytest.raises(ValueError):
        playoff_seeding([["A1"]], 1)
    with pytest.raises(ValueError):
        playoff_seeding([["A1", "B1"], ["B1"]], 2)
