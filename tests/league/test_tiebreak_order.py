"""Tiebreaks: applied in order to the players still tied (FIDE C.07 2023 Art. 4.2), checked against an
independent, deliberately naive implementation over every five-player round robin; unplayed rounds
(double forfeits, a late entrant's missed rounds) in BH and SB (no database)."""

from __future__ import annotations

import itertools
import random

import pytest

from league.scoring import placements
from league.scoring.standings import Result, standings

SWISS_ORDER = ("buchholz_cut1", "buchholz", "sonneborn_berger", "direct_encounter")
ROUND_ROBIN_ORDER = ("direct_encounter", "sonneborn_berger", "buchholz")
PLAYERS = (1, 2, 3, 4, 5)
PAIRS = list(itertools.combinations(PLAYERS, 2))  # 1-2, 1-3, ..., 4-5: the issue's order


def reference_ranks(scores: dict[tuple[int, int], float], order: tuple[str, ...]) -> dict[int, int]:
    """The rule as written: rank by points; then, for each group still tied, apply the next
    tiebreak to that group only - DE over the games among its members - and recurse; a tie
    left when the list is exhausted shares the place."""
    got = {p: {} for p in PLAYERS}  # got[p][q]: p's points against q
    for (a, b), s in scores.items():
        got[a][b], got[b][a] = s, 1 - s
    points = {p: sum(got[p].values()) for p in PLAYERS}

    def value(name: str, p: int, group: list[int]) -> float:
        opp = sorted(points[q] for q in got[p])
        if name == "buchholz":
            return sum(opp)
        if name == "buchholz_cut1":
            return sum(opp[1:])
        if name == "sonneborn_berger":
            return sum(points[q] * got[p][q] for q in got[p])
        assert name == "direct_encounter"
        return sum(got[p][q] for q in group if q != p)

    ranks: dict[int, int] = {}

    def place(group: list[int], rest: tuple[str, ...], start: int) -> None:
        if len(group) == 1 or not rest:
            ranks.update(dict.fromkeys(group, start))
            return
        values = {p: value(rest[0], p, group) for p in group}
        for v in sorted(set(values.values()), reverse=True):
            sub = [p for p in group if values[p] == v]
            place(sub, rest[1:], start)
            start += len(sub)

    start = 1
    for v in sorted(set(points.values()), reverse=True):
        group = [p for p in PLAYERS if points[p] == v]
        place(group, order, start)
        start += len(group)
    return ranks


def kifu_ranks(scores: dict[tuple[int, int], float], order: tuple[str, ...]) -> dict[int, int]:
    results = [Result(a, b, s) for (a, b), s in scores.items()]
    return {row.player: row.rank for row in standings(list(PLAYERS), results, tiebreaks=order)}


def test_the_issue_repro_ranks_3_above_2_who_beat_each_other_in_a_cycle():
    # 1-2 0, 1-3 0, 1-4 0, 1-5 1/2, 2-3 0, 2-4 0, 2-5 1, 3-4 0, 3-5 0, 4-5 1/2 (scores of the first named)
    scores = dict(zip(PAIRS, (0, 0, 0, 0.5, 0, 0, 1, 0, 0, 0.5), strict=True))
    rows = standings(list(PLAYERS), [Result(a, b, s) for (a, b), s in scores.items()], tiebreaks=SWISS_ORDER)
    by_player = {row.player: row for row in rows}
    assert [by_player[p].points for p in (2, 3, 5)] == [2.0, 2.0, 2.0]
    # SB takes 5 out of the three; 2 and 3 are still tied on BH-C1, BH and SB, and 3 beat 2.
    assert [row.player for row in rows] == [4, 5, 3, 2, 1]
    assert {p: by_player[p].rank for p in PLAYERS} == {4: 1, 5: 2, 3: 3, 2: 4, 1: 5}
    assert by_player[3].tiebreaks["direct_encounter"] == 1.0
    assert by_player[2].tiebreaks["direct_encounter"] == 0.0
    assert kifu_ranks(scores, SWISS_ORDER) == reference_ranks(scores, SWISS_ORDER)


ALL_OUTCOMES = list(itertools.product((0.0, 0.5, 1.0), repeat=len(PAIRS)))  # 3^10 = 59,049


@pytest.mark.parametrize(
    ("order", "outcomes"),
    [(SWISS_ORDER, ALL_OUTCOMES), (ROUND_ROBIN_ORDER, random.Random(18).sample(ALL_OUTCOMES, 5000))],
    ids=["swiss-order-exhaustive", "round-robin-order-sample"],
)
def test_five_player_round_robins_agree_with_the_reference(order, outcomes):
    mismatches = []
    for outcome in outcomes:
        scores = dict(zip(PAIRS, outcome, strict=True))
        if kifu_ranks(scores, order) != reference_ranks(scores, order):
            mismatches.append(outcome)
    assert mismatches == []


def test_direct_encounter_does_not_separate_a_tie_whose_players_have_not_all_met():
    # C.07 Art. 6: DE sums the games among the tied "if all the tied participants have met each
    # other". a and b both beat someone and never met: DE leaves them tied (shared first place).
    rows = standings(["a", "b", "c", "d"], [Result("a", "c", 1), Result("b", "d", 1)], tiebreaks=("direct_encounter",))
    assert [(row.player, row.rank, row.tiebreaks["direct_encounter"]) for row in rows] == [
        ("a", 1, 0.0),
        ("b", 1, 0.0),
        ("c", 3, 0.0),
        ("d", 3, 0.0),
    ]


def test_direct_encounter_applies_when_the_players_still_tied_have_all_met():
    # x > y > w > x in a cycle and z beat v: four on one point, z never met the others, so DE over
    # the whole points group would not apply. Game points leave only x and y tied; they met, x won.
    results = [
        Result("x", "y", 1, 1.0, 0.0),
        Result("y", "w", 1, 1.0, 0.0),
        Result("w", "x", 1, 0.5, 0.0),
        Result("z", "v", 1, 3.0, 0.0),
    ]
    rows = standings(["w", "v", "y", "x", "z"], results, tiebreaks=("game_points", "direct_encounter"))
    assert [(row.player, row.rank) for row in rows] == [("z", 1), ("x", 2), ("y", 3), ("w", 4), ("v", 5)]
    assert [row.tiebreaks["direct_encounter"] for row in rows] == [0.0, 1.0, 0.0, 0.0, 0.0]


def test_multiplayer_tables_use_the_still_tied_group_too():
    # A two-seat table reads as a two-player game (above 1, tied 1/2, below 0), so the same
    # reference holds for placements.standings; a fixed sample of 3,000 result sets.
    sample = random.Random(22).sample(ALL_OUTCOMES, 3000)
    for outcome in sample:
        scores = dict(zip(PAIRS, outcome, strict=True))
        tables = [
            placements.Table(((a, b),) if s == 0.5 else ((a,), (b,)) if s else ((b,), (a,)), {a: s, b: 1 - s})
            for (a, b), s in scores.items()
        ]
        rows = placements.standings(list(PLAYERS), tables, tiebreaks=SWISS_ORDER)
        assert {row.player: row.rank for row in rows} == reference_ranks(scores, SWISS_ORDER), outcome


def test_a_double_forfeit_is_an_unplayed_round_against_a_virtual_opponent():
    # C.07 2023: a round without a game counts for BH and SB as a game against a virtual opponent
    # on the player's own final score, with the round's result (a double forfeit: 0).
    # Round 1: a beat b, c-d lost by both; round 2: c beat a, d beat b.
    results = [Result("a", "b", 1), Result("c", "a", 1), Result("d", "b", 1)]
    rows = standings(
        ["a", "b", "c", "d"], results, double_forfeits=["c", "d"], tiebreaks=("buchholz", "sonneborn_berger")
    )
    by = {row.player: row for row in rows}
    assert (by["c"].points, by["c"].played, by["c"].losses) == (1.0, 2, 1)
    assert by["c"].tiebreaks == {"buchholz": 1.0 + 1.0, "sonneborn_berger": 1.0}  # a, and c's own score
    assert by["d"].tiebreaks == {"buchholz": 0.0 + 1.0, "sonneborn_berger": 0.0}  # b, and d's own score
    assert by["a"].tiebreaks["buchholz"] == 0.0 + 1.0  # opponents b and c: nothing virtual
    assert [row.player for row in rows] == ["c", "a", "d", "b"]


def test_late_entry_points_count_before_opponents_tiebreaks():
    # A late entrant's points for the rounds they missed are part of their score, so an opponent's
    # BH and SB see them; each missed round is an unplayed round (a virtual opponent, result 1/2).
    rows = standings(
        ["a", "b", "late"],
        [Result("a", "b", 1), Result("a", "late", 1)],
        missed={"late": [0.5]},
        tiebreaks=("buchholz", "sonneborn_berger"),
    )
    by = {row.player: row for row in rows}
    assert (by["late"].points, by["late"].played) == (0.5, 1)
    assert by["a"].tiebreaks == {"buchholz": 0.0 + 0.5, "sonneborn_berger": 0.5}
    assert by["late"].tiebreaks == {"buchholz": 2.0 + 0.5, "sonneborn_berger": 0.5 * 0.5}
    assert [row.player for row in rows] == ["a", "late", "b"]


def test_multiplayer_double_forfeit_and_missed_rounds_are_virtual_rounds_too():
    tables = [
        placements.Table((("a",), ("b",), ("c",)), {"a": 1.0, "b": 0.5, "c": 0.0}),
        placements.Table((("b", "c"),), {"b": 0.0, "c": 0.0}, counted=False),  # both forfeited
    ]
    rows = placements.standings(["a", "b", "c", "d"], tables, missed={"d": [0.5, 0.5]}, tiebreaks=("buchholz",))
    by = {row.player: row.tiebreaks["buchholz"] for row in rows}
    assert by == {"a": (0.5 + 0.0) / 2, "b": (1.0 + 0.0) / 2 + 0.5, "c": (1.0 + 0.5) / 2 + 0.0, "d": 1.0 + 1.0}
