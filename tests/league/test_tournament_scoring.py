"""Tournament maths: Berger tables, Swiss pairing, elimination seeding and tiebreaks (no database)."""

from __future__ import annotations

import itertools
import random

import pytest

from league.scoring.elimination import bracket_size, first_round, next_round, seeding_order
from league.scoring.roundrobin import Pairing, berger_numbers, round_robin
from league.scoring.standings import Result, standings
from league.scoring.swiss import PairingImpossible, SwissPlayer, colour_preference, pair_round

# The published FIDE Berger tables (Handbook C.05, Annex 1), white first.
FIDE_BERGER = {
    4: ["1-4 2-3", "4-3 1-2", "2-4 3-1"],
    6: ["1-6 2-5 3-4", "6-4 5-3 1-2", "2-6 3-1 4-5", "6-5 1-4 2-3", "3-6 4-2 5-1"],
    8: [
        "1-8 2-7 3-6 4-5",
        "8-5 6-4 7-3 1-2",
        "2-8 3-1 4-7 5-6",
        "8-6 7-5 1-4 2-3",
        "3-8 4-2 5-1 6-7",
        "8-7 1-6 2-5 3-4",
        "4-8 5-3 6-2 7-1",
    ],
}


def parse(table: list[str]) -> list[list[tuple[int, int]]]:
    return [[tuple(int(x) for x in board.split("-")) for board in line.split()] for line in table]


@pytest.mark.parametrize("n", [4, 6, 8])
def test_berger_tables_match_the_published_fide_tables(n):
    assert berger_numbers(n) == parse(FIDE_BERGER[n])


def test_five_players_use_the_six_table_with_six_as_the_bye():
    rounds = round_robin(["a", "b", "c", "d", "e"])
    names = dict(zip(range(1, 6), "abcde", strict=True))
    for played, published in zip(rounds, parse(FIDE_BERGER[6]), strict=True):
        expected = []
        for a, b in published:
            expected.append(Pairing(names[a if b == 6 else b], None) if 6 in (a, b) else Pairing(names[a], names[b]))
        assert played == expected
    byes = [p.first for r in rounds for p in r if p.is_bye]
    assert sorted(byes) == list("abcde")  # everyone sits out exactly once


@pytest.mark.parametrize("n", [2, 3, 4, 7, 10])
def test_double_round_robin_meets_everyone_once_in_each_seat(n):
    players = list(range(n))
    rounds = round_robin(players, cycles=2)
    games = [(p.first, p.second) for r in rounds for p in r if not p.is_bye]
    assert sorted(games) == sorted(itertools.permutations(players, 2))
    for r in rounds:  # nobody plays twice in a round
        seen = [x for p in r for x in (p.first, p.second) if x is not None]
        assert len(seen) == len(set(seen)) == n


def test_round_robin_refuses_bad_fields():
    for bad in ([], ["a"], ["a", "a"]):
        with pytest.raises(ValueError):
            round_robin(bad)
    with pytest.raises(ValueError):
        round_robin(["a", "b"], cycles=3)


# ---- elimination --------------------------------------------------------------------------------
def test_standard_seeding_orders():
    assert seeding_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert seeding_order(16) == [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]
    assert bracket_size(6) == 8 and bracket_size(8) == 8 and bracket_size(9) == 16


def test_six_entrants_give_byes_to_the_top_two_seeds():
    assert first_round([1, 2, 3, 4, 5, 6]) == [(1, None), (4, 5), (2, None), (3, 6)]
    # if the seeds win, 1 meets 4 and 2 meets 3 in the semi-finals, and 1 meets 2 in the final
    assert next_round([1, 4, 2, 3]) == [(1, 4), (2, 3)]
    assert next_round([1, 2]) == [(1, 2)]


# ---- Swiss --------------------------------------------------------------------------------------
def simulate(n: int, rounds: int, seed: int):
    """Play a Swiss event where the higher seed always wins; returns players and all boards."""
    state = {i: {"score": 0.0, "opp": set(), "col": [], "bye": False} for i in range(1, n + 1)}
    history = []
    for number in range(rounds):
        players = [
            SwissPlayer(i, s["score"], i, frozenset(s["opp"]), tuple(s["col"]), s["bye"]) for i, s in state.items()
        ]
        boards = pair_round(players, seed=seed + number)
        history.append(boards)
        for board in boards:
            if board.is_bye:
                state[board.first]["score"] += 1
                state[board.first]["bye"] = True
                continue
            a, b = board.first, board.second
            state[a]["opp"].add(b), state[b]["opp"].add(a)
            state[a]["col"].append(1), state[b]["col"].append(-1)
            state[min(a, b)]["score"] += 1
    return state, history


@pytest.mark.parametrize("n", [8, 9, 16, 21])
def test_swiss_has_no_rematches_one_bye_each_and_balanced_colours(n):
    state, history = simulate(n, rounds=5, seed=3)
    games = [frozenset((b.first, b.second)) for r in history for b in r if not b.is_bye]
    assert len(games) == len(set(games))
    byes = [b.first for r in history for b in r if b.is_bye]
    assert len(byes) == len(set(byes)) == (5 if n % 2 else 0)
    for s in state.values():
        assert abs(sum(s["col"])) <= 2
        assert not any(s["col"][k] == s["col"][k + 1] == s["col"][k + 2] for k in range(len(s["col"]) - 2))


def test_swiss_round_one_is_top_half_against_bottom_half_with_colours_by_lot():
    boards = pair_round([SwissPlayer(i, 0, i) for i in range(1, 9)], seed=0)
    assert [frozenset((b.first, b.second)) for b in boards] == [{1, 5}, {2, 6}, {3, 7}, {4, 8}]
    firsts = [b.first <= 4 for b in boards]
    assert firsts in ([True, False, True, False], [False, True, False, True])  # alternating down the boards
    other = pair_round([SwissPlayer(i, 0, i) for i in range(1, 9)], seed=1)
    assert {b.first <= 4 for b in boards[:1]} != {b.first <= 4 for b in other[:1]}  # seeds 0 and 1 draw differently


def test_swiss_pairs_within_score_groups_and_floats_the_odd_one_down():
    players = [SwissPlayer(i, 1.0 if i <= 5 else 0.0, i) for i in range(1, 11)]
    boards = pair_round(players, seed=0)
    cross = [b for b in boards if (b.first <= 5) != (b.second <= 5)]
    assert len(cross) == 1  # five winners: exactly one of them meets a loser
    assert 5 in (cross[0].first, cross[0].second) and 6 in (cross[0].first, cross[0].second)


def test_bye_goes_to_the_lowest_ranked_player_without_one():
    players = [SwissPlayer(i, 1.0 if i <= 2 else 0.0, i, had_bye=i == 5) for i in range(1, 6)]
    boards = pair_round(players, seed=0)
    assert boards[-1] == Pairing(4, None)


def test_swiss_is_reproducible_and_refuses_when_everyone_has_met():
    rng = random.Random(7)
    players = [
        SwissPlayer(i, rng.choice([0, 0.5, 1, 1.5, 2]), i, colours=tuple(rng.choice([1, -1]) for _ in range(2)))
        for i in range(1, 40)
    ]
    assert pair_round(players, seed=11) == pair_round(list(reversed(players)), seed=11)
    with pytest.raises(PairingImpossible):
        pair_round([SwissPlayer(1, 0, 1, frozenset({2})), SwissPlayer(2, 0, 2, frozenset({1}))])


def test_colour_preferences():
    assert colour_preference(()) == (0, 0)
    assert colour_preference((1,)) == (-1, 2)
    assert colour_preference((1, -1)) == (1, 1)
    assert colour_preference((1, 1)) == (-1, 3)
    assert colour_preference((-1, 1, -1)) == (1, 2)


# ---- standings and tiebreaks --------------------------------------------------------------------
def test_tiebreaks_on_a_worked_example():
    # a beats b, b beats c, c beats a, a draws d, b beats d, c loses to d  => a 1.5, b 2, c 1, d 1.5
    results = [
        Result("a", "b", 1),
        Result("b", "c", 1),
        Result("c", "a", 1),
        Result("a", "d", 0.5),
        Result("b", "d", 1),
        Result("c", "d", 0),
    ]
    rows = standings(
        ["a", "b", "c", "d"],
        results,
        tiebreaks=["direct_encounter", "buchholz", "buchholz_cut1", "buchholz_median", "sonneborn_berger", "omw"],
    )
    by = {row.player: row for row in rows}
    assert [(r.player, r.points, r.rank) for r in rows] == [("b", 2, 1), ("a", 1.5, 2), ("d", 1.5, 3), ("c", 1, 4)]
    # a and d drew: DE does not separate them; Buchholz: a met b(2), c(1), d(1.5) = 4.5; d met a, b, c = 4.5
    assert by["a"].tiebreaks["direct_encounter"] == by["d"].tiebreaks["direct_encounter"] == 0.5
    assert by["a"].tiebreaks["buchholz"] == 4.5 and by["a"].tiebreaks["buchholz_cut1"] == 3.5
    assert by["a"].tiebreaks["buchholz_median"] == 1.5
    # SB a: beat b (2) + drew d (0.75) = 2.75; d: drew a (0.75) + beat c (1) = 1.75 -> a ahead
    assert by["a"].tiebreaks["sonneborn_berger"] == 2.75 and by["d"].tiebreaks["sonneborn_berger"] == 1.75
    # OMW% of c: opponents b 2/3, a 1.5/3, d 1.5/3
    assert by["c"].tiebreaks["omw"] == pytest.approx((2 / 3 + 0.5 + 0.5) / 3, abs=1e-6)


def test_omw_floor_byes_and_shared_ranks():
    # x beats y, y has a bye; z did nothing: y's MW% is 1/2, z's would be 0 -> floored at 1/3
    rows = standings(
        ["x", "y", "z", "w"], [Result("x", "y", 1), Result("w", "z", 1)], byes=["y"], tiebreaks=["omw", "buchholz"]
    )
    by = {row.player: row for row in rows}
    assert by["x"].tiebreaks["omw"] == 0.5 and by["w"].tiebreaks["omw"] == pytest.approx(1 / 3, abs=1e-6)
    # y's bye counts as a virtual opponent on y's own score (1): Buchholz = x (1) + 1
    assert by["y"].tiebreaks["buchholz"] == 2 and by["y"].byes == 1
    tied = standings(["p", "q"], [Result("p", "q", 0.5)], tiebreaks=["buchholz"])
    assert [row.rank for row in tied] == [1, 1]


def test_direct_encounter_and_game_points():
    rows = standings(
        ["p", "q", "r"],
        [Result("p", "q", 0, 1, 2), Result("r", "p", 0), Result("q", "r", 0)],
        tiebreaks=["direct_encounter", "game_points"],
    )
    assert {row.player: row.tiebreaks["game_points"] for row in rows} == {"p": 1, "q": 2, "r": 0}
    with pytest.raises(ValueError):
        standings(["p"], [], tiebreaks=["coin_toss"])
