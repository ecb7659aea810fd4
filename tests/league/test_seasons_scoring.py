"""Seasonal-league maths without a database: division tables, points, tiebreaks, promotion and relegation."""

from __future__ import annotations

import itertools

import pytest

from league.seasons import scoring
from league.seasons.scoring import AWAY, DOUBLE_FORFEIT, DRAW, HOME, NEW, PROMOTED, RELEGATED, STAYED, Outcome


def order(lines) -> list:
    return [line.player for line in lines]


def test_a_table_with_three_one_zero_points_and_its_record_columns():
    # a beats everyone; b and c draw, both beat d; d draws nobody
    outcomes = [
        Outcome("a", "b", HOME),
        Outcome("a", "c", HOME),
        Outcome("d", "a", AWAY),
        Outcome("b", "c", DRAW),
        Outcome("b", "d", HOME),
        Outcome("c", "d", HOME),
    ]
    table = scoring.division_table(["d", "c", "b", "a"], outcomes)
    assert order(table) == ["a", "c", "b", "d"]  # b and c tie on points, h2h drawn, wins equal, SB equal: seed
    by = {line.player: line for line in table}
    assert (by["a"].points, by["a"].wins, by["a"].played) == (9, 3, 3)
    assert (by["b"].points, by["b"].wins, by["b"].draws, by["b"].losses) == (4, 1, 1, 1)
    assert by["d"].points == 0 and by["d"].losses == 3
    assert [line.position for line in table] == [1, 2, 3, 4]
    assert list(by["a"].tiebreaks) == list(scoring.DEFAULT_TIEBREAKS)


def test_points_are_configurable_and_change_the_order():
    # x: one win, one loss; y: two draws. 3/1/0 puts x above y, 1/0.5/0 ties them (then seed: y first)
    outcomes = [Outcome("x", "z", HOME), Outcome("w", "x", HOME), Outcome("y", "z", DRAW), Outcome("y", "w", DRAW)]
    players = ["y", "x", "z", "w"]
    football = scoring.division_table(players, outcomes, tiebreaks=())
    chess = scoring.division_table(players, outcomes, points=scoring.Points(1, 0.5, 0), tiebreaks=())
    assert order(football) == ["w", "x", "y", "z"]  # 4, 3, 2, 1
    assert {line.player: line.points for line in chess}["x"] == {line.player: line.points for line in chess}["y"] == 1
    assert order(chess).index("y") < order(chess).index("x")  # equal on everything: the better seed


def test_head_to_head_separates_a_tie_only_when_every_tied_pair_has_met():
    # p and q both 3 points; q beat p
    outcomes = [Outcome("p", "r", HOME), Outcome("q", "p", HOME), Outcome("r", "q", HOME), Outcome("s", "p", AWAY)]
    # points: p 6 (beat r, beat s), q 3, r 3, s 0 -> q and r tied, r beat q
    table = scoring.division_table(["q", "r", "p", "s"], outcomes, tiebreaks=("head_to_head",))
    assert order(table) == ["p", "r", "q", "s"]
    assert {line.player: line.tiebreaks["head_to_head"] for line in table} == {"p": 0, "q": 0, "r": 3, "s": 0}
    # without the r-q game the tie cannot use head-to-head: seed order decides
    unfinished = outcomes[:2] + outcomes[3:]  # r and s now tie on 0 without having met
    assert scoring.head_to_head(["r", "s"], unfinished, scoring.Points()) is None
    table = scoring.division_table(["q", "s", "p", "r"], unfinished, tiebreaks=("head_to_head",))
    assert order(table) == ["p", "q", "s", "r"]


def test_a_double_forfeit_is_a_loss_for_both_and_in_no_tiebreak():
    outcomes = [Outcome("a", "b", DOUBLE_FORFEIT), Outcome("a", "c", HOME), Outcome("b", "c", HOME)]
    table = {line.player: line for line in scoring.division_table(["a", "b", "c"], outcomes)}
    assert (table["a"].played, table["a"].losses, table["a"].wins, table["a"].points) == (2, 1, 1, 3)
    assert (table["b"].played, table["b"].losses) == (2, 1)
    # SB: a beat c (c scored 0 in played games) -> 0; b beat c -> 0; c lost both -> 0
    assert table["a"].tiebreaks["sonneborn_berger"] == 0
    # head-to-head between a and b (tied on 3): they "met" in a double forfeit, each took the loss points
    assert table["a"].tiebreaks["head_to_head"] == table["b"].tiebreaks["head_to_head"] == 0


def test_sonneborn_berger_and_game_points_come_from_the_chess_scale():
    outcomes = [
        Outcome("a", "b", HOME, 5, 1),
        Outcome("c", "a", HOME, 4, 2),
        Outcome("b", "c", HOME, 3, 0),
    ]  # a cyclic triangle: everyone 3 points, 1 win; SB equal (each beat a 1-point player)
    table = scoring.division_table(["a", "b", "c"], outcomes, tiebreaks=("sonneborn_berger", "game_points"))
    assert order(table) == ["a", "b", "c"]  # game points 7, 4, 4; b and c equal: b is the better seed
    by = {line.player: line.tiebreaks for line in table}
    assert by["a"]["game_points"] == 7 and by["b"]["game_points"] == 4 and by["c"]["game_points"] == 4
    assert by["a"]["sonneborn_berger"] == 1.0


def test_bad_names_are_refused():
    with pytest.raises(ValueError, match="unknown tiebreak"):
        scoring.division_table(["a", "b"], [], tiebreaks=("coin",))
    with pytest.raises(ValueError, match="unknown result"):
        scoring.division_table(["a", "b"], [Outcome("a", "b", "won")])


def names(divisions) -> list[list[str]]:
    return [[p.player for p in division] for division in divisions]


def test_promotion_and_relegation_between_three_divisions_of_four():
    final = [["a1", "a2", "a3", "a4"], ["b1", "b2", "b3", "b4"], ["c1", "c2", "c3", "c4"]]
    placed = scoring.next_divisions(final, promote=2, relegate=2)
    assert names(placed) == [
        ["a1", "a2", "b1", "b2"],
        ["a3", "a4", "c1", "c2"],
        ["b3", "b4", "c3", "c4"],
    ]
    moves = {p.player: p.movement for division in placed for p in division}
    assert moves["b1"] == PROMOTED and moves["a3"] == RELEGATED and moves["a1"] == STAYED and moves["c4"] == STAYED
    assert moves["b3"] == RELEGATED and moves["c1"] == PROMOTED
    # relegated players are seeded first in their new division, the promoted ones last
    assert names(placed)[1] == ["a3", "a4", "c1", "c2"]


def test_the_top_never_promotes_and_the_bottom_never_relegates_even_with_one_division():
    assert names(scoring.next_divisions([["a", "b", "c"]], promote=2, relegate=2)) == [["a", "b", "c"]]
    placed = scoring.next_divisions([["a", "b", "c"], ["d", "e", "f"]], promote=1, relegate=2)
    assert names(placed) == [["a", "d"], ["b", "c", "e", "f"]]  # unequal numbers change the sizes


def test_leavers_go_first_so_the_next_player_takes_their_place_and_newcomers_join_the_bottom():
    final = [["a1", "a2", "a3"], ["b1", "b2", "b3"]]
    placed = scoring.next_divisions(final, promote=1, relegate=1, leaving={"b1", "a2"}, joining=["n1", "n2"])
    assert names(placed) == [["a1", "b2"], ["a3", "b3", "n1", "n2"]]
    assert [p.movement for p in placed[1]] == [RELEGATED, STAYED, NEW, NEW]


def test_a_small_middle_division_sends_nobody_both_ways():
    final = [["a1", "a2"], ["b1", "b2", "b3"], ["c1", "c2"]]
    placed = scoring.next_divisions(final, promote=2, relegate=2)
    # b: b1, b2 go up; of the rest (b3) one goes down; c1, c2 go up; a1, a2 go down
    assert names(placed) == [["b1", "b2"], ["a1", "a2", "c1", "c2"], ["b3"]]


def test_bad_inputs_to_next_divisions():
    with pytest.raises(ValueError):
        scoring.next_divisions([["a", "b"]], promote=-1, relegate=0)
    with pytest.raises(ValueError):
        scoring.next_divisions([["a", "b"], ["b", "c"]], promote=1, relegate=1)
    with pytest.raises(ValueError):
        scoring.next_divisions([["a", "b"]], promote=1, relegate=1, joining=["a"])
    assert names(scoring.next_divisions([], promote=1, relegate=1, joining=["x", "y"])) == [["x", "y"]]


def test_the_zone_shown_in_a_table_is_the_cut_next_divisions_makes():
    for sizes in itertools.product([1, 2, 3, 4, 5], repeat=3):
        for promote, relegate in itertools.product(range(4), repeat=2):
            final = [[f"{tier}-{i}" for i in range(size)] for tier, size in enumerate(sizes)]
            moved = {p.player: p.movement for d in scoring.next_divisions(final, promote=promote, relegate=relegate)
                     for p in d}  # fmt: skip
            for tier, division in enumerate(final, start=1):
                for position, player in enumerate(division, start=1):
                    zone = scoring.zone(position, len(division), tier=tier, tiers=3, promote=promote, relegate=relegate)
                    assert zone == (None if moved[player] == STAYED else moved[player]), (sizes, player)


def test_a_first_season_is_split_evenly_top_divisions_taking_the_extra():
    assert scoring.split_evenly(list("abcdefg"), 2) == [list("abcd"), list("efg")]
    assert scoring.split_evenly(list("abcdefghij"), 3) == [list("abcd"), list("efg"), list("hij")]
    assert scoring.split_evenly(list("ab"), 1) == [["a", "b"]]
    with pytest.raises(ValueError):
        scoring.split_evenly(["a"], 0)
