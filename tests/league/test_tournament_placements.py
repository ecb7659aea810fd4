"""Multiplayer standings maths (league/scoring/placements.py), worked by hand: tables read as rounds
against each table-mate, byes as virtual opponents, double forfeits as lost rounds (no database)."""

from __future__ import annotations

import pytest

from league.scoring.placements import Table, pairwise, placement_points, standings


def table(*ranking, scale=None, counted=True) -> Table:
    ranking = tuple(tuple(group) for group in ranking)
    return Table(ranking, placement_points(ranking, scale), counted=counted)


def test_pairwise_results_of_a_table():
    assert pairwise([["a"], ["b", "c"]]) == {
        ("a", "b"): 1.0, ("a", "c"): 1.0, ("b", "a"): 0.0, ("b", "c"): 0.5, ("c", "a"): 0.0, ("c", "b"): 0.5,
    }  # fmt: skip


def test_two_rounds_of_three_worked_by_hand():
    # round 1: a > b > c (1, 1/2, 0); round 2: c > a > b. Totals a 1.5, c 1.0, b 0.5.
    rows = standings(
        ["a", "b", "c"],
        [table(["a"], ["b"], ["c"]), table(["c"], ["a"], ["b"])],
        tiebreaks=["buchholz", "sonneborn_berger", "direct_encounter"],
    )
    assert [(r.player, r.rank, r.points) for r in rows] == [("a", 1, 1.5), ("c", 2, 1.0), ("b", 3, 0.5)]
    by = {r.player: r for r in rows}
    # Buchholz: per table, the mean of the table-mates' totals; a meets (b, c) twice: 0.75 + 0.75
    assert by["a"].tiebreaks["buchholz"] == pytest.approx(1.5)
    assert by["b"].tiebreaks["buchholz"] == pytest.approx(2.5)
    assert by["c"].tiebreaks["buchholz"] == pytest.approx(2.0)
    # SB: per table, the mean of mate's total x result against them: a: (0.5 + 1)/2 + (0 + 0.5)/2
    assert by["a"].tiebreaks["sonneborn_berger"] == pytest.approx(1.0)
    assert (by["a"].wins, by["a"].losses, by["c"].wins, by["b"].wins) == (1, 1, 1, 0)


def test_direct_encounter_splits_a_tie_only_when_every_tied_pair_met():
    # a and b both reach 3 on [2, 1, 0]; they met once, where a finished above b
    scale = [2, 1, 0]
    tables = [
        table(["a"], ["b"], ["c"], scale=scale),
        table(["b"], ["d"], ["e"], scale=scale),
        table(["f"], ["a"], ["g"], scale=scale),
    ]
    players = ["b", "a", "c", "d", "e", "f", "g"]  # b is the better initial seed
    plain = standings(players, tables, tiebreaks=[])
    assert [(r.player, r.rank) for r in plain[:2]] == [("b", 1), ("a", 1)]
    split = standings(players, tables, tiebreaks=["direct_encounter"])
    assert [(r.player, r.rank, r.tiebreaks["direct_encounter"]) for r in split[:2]] == [("a", 1, 1.0), ("b", 2, 0.0)]
    # c, e and g (no points) never all met each other: DE does not separate them, they share a rank
    by = {r.player: r for r in split}
    assert by["c"].rank == by["e"].rank == by["g"].rank and by["c"].tiebreaks["direct_encounter"] == 0.0


def test_byes_and_double_forfeits_and_extra_points():
    forfeited = Table((("b", "d"),), {"b": 0.0, "d": 0.0}, counted=False)  # a double forfeit: no points
    rows = standings(
        ["a", "b", "c", "d"],
        [table(["a"], ["b"], ["c"]), forfeited],
        {"d": [0.5]},
        tiebreaks=["buchholz"],
        missed={"c": [0.25]},
    )
    by = {r.player: r for r in rows}
    assert (by["d"].points, by["d"].byes, by["d"].played, by["d"].losses) == (0.5, 1, 1, 1)
    # the bye and the double forfeit: unplayed rounds, each a virtual opponent on d's own score
    assert by["d"].tiebreaks["buchholz"] == pytest.approx(0.5 + 0.5)
    assert (by["b"].points, by["b"].played, by["b"].losses) == (0.5, 2, 2)
    assert by["b"].tiebreaks["buchholz"] == pytest.approx((1 + 0.25) / 2 + 0.5)  # c's late point counts
    assert by["c"].points == 0.25


def test_unknown_tiebreaks_are_refused():
    with pytest.raises(ValueError):
        standings(["a"], [], tiebreaks=["coin_toss"])
