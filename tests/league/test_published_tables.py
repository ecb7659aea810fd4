"""The tournament maths against tables published elsewhere, typed in by hand (never derived from the code).

Berger tables: FIDE Handbook C.05 (General Regulations for Competitions), Annex 1 "Berger Tables for
Round-Robin Tournaments". handbook.fide.com itself was not reachable from here; the tables below are
typed from its reproduction at http://c.w.fox.tripod.com/chess/berger.html ("Berger Tables", "3 or 4
Players", "5 or 6 Players", ...), checked line by line against a second copy (the "Crenshaw-Berger
Tables" sheet, scribd document 381712253) and, for 10 players, against the table printed in the Vega
manual 2016, appendix C (p. 49). In each board the first number has white (the first seat); for an odd
field the highest number is the bye.

Bracket seeding: the line order of a standard single-elimination bracket (1 v 8, 4 v 5, 2 v 7, 3 v 6;
the top two seeds can meet only in the final, the top four only in the semi-finals), as the tennis
draw prints it; and, as a check of the same structure drawn in another order, the layouts at
https://tournamentbracketmaker.com/how-bracket-seeding-works ("Standard Seeding Layouts").
"""

from __future__ import annotations

import pytest

from league.scoring.elimination import first_round, seeding_order
from league.scoring.roundrobin import Pairing, berger_numbers, round_robin

# FIDE C.05 Annex 1, one string per round, boards white-black
BERGER = {
    4: [
        "1-4 2-3",
        "4-3 1-2",
        "2-4 3-1",
    ],
    6: [
        "1-6 2-5 3-4",
        "6-4 5-3 1-2",
        "2-6 3-1 4-5",
        "6-5 1-4 2-3",
        "3-6 4-2 5-1",
    ],
    8: [
        "1-8 2-7 3-6 4-5",
        "8-5 6-4 7-3 1-2",
        "2-8 3-1 4-7 5-6",
        "8-6 7-5 1-4 2-3",
        "3-8 4-2 5-1 6-7",
        "8-7 1-6 2-5 3-4",
        "4-8 5-3 6-2 7-1",
    ],
    10: [
        "1-10 2-9 3-8 4-7 5-6",
        "10-6 7-5 8-4 9-3 1-2",
        "2-10 3-1 4-9 5-8 6-7",
        "10-7 8-6 9-5 1-4 2-3",
        "3-10 4-2 5-1 6-9 7-8",
        "10-8 9-7 1-6 2-5 3-4",
        "4-10 5-3 6-2 7-1 8-9",
        "10-9 1-8 2-7 3-6 4-5",
        "5-10 6-4 7-3 8-2 9-1",
    ],
}


def boards(table: list[str]) -> list[list[tuple[int, int]]]:
    return [[tuple(int(x) for x in board.split("-")) for board in line.split()] for line in table]


@pytest.mark.parametrize("n", sorted(BERGER))
def test_berger_numbers_are_the_published_tables(n):
    assert berger_numbers(n) == boards(BERGER[n])


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7, 8, 9, 10])
def test_round_robin_follows_the_published_table_round_by_round(players):
    """Each round, each board and who has the first seat; the odd field's bye is the board with n+1."""
    names = [f"p{i}" for i in range(1, players + 1)]
    table = boards(BERGER[players + players % 2])
    rounds = round_robin(names)
    assert len(rounds) == len(table)
    for played, published in zip(rounds, table, strict=True):
        expected = []
        for white, black in published:
            if black > players:
                expected.append(Pairing(names[white - 1], None))
            elif white > players:
                expected.append(Pairing(names[black - 1], None))
            else:
                expected.append(Pairing(names[white - 1], names[black - 1]))
        assert played == expected


@pytest.mark.parametrize("players", [4, 6, 8, 10])
def test_double_round_robin_second_cycle_reverses_the_published_colours(players):
    names = [f"p{i}" for i in range(1, players + 1)]
    table = boards(BERGER[players])
    second = round_robin(names, cycles=2)[len(table) :]
    assert second == [[Pairing(names[b - 1], names[a - 1]) for a, b in line] for line in table]


# ---- bracket seeding ------------------------------------------------------------------------------
PUBLISHED_ORDER = {
    8: [1, 8, 4, 5, 2, 7, 3, 6],
    16: [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11],
}

# tournamentbracketmaker.com draws the same brackets in another vertical order: first-round pairs, and
# for 16 the four quarters ("Top quarter: 1, 16, 8, 9. Second quarter: 5, 12, 4, 13. ...")
PUBLISHED_PAIRS = {
    8: [(1, 8), (4, 5), (3, 6), (2, 7)],
    16: [(1, 16), (8, 9), (5, 12), (4, 13), (6, 11), (3, 14), (7, 10), (2, 15)],
}
PUBLISHED_QUARTERS_16 = [{1, 16, 8, 9}, {5, 12, 4, 13}, {6, 11, 3, 14}, {7, 10, 2, 15}]
PUBLISHED_HALVES_8 = [{1, 8, 4, 5}, {3, 6, 2, 7}]
# its 32-team layout starts "1 vs 32, 16 vs 17, 8 vs 25, 9 vs 24, 5 vs 28, 12 vs 21, 4 vs 29, 13 vs 20"
PUBLISHED_32_START = [(1, 32), (16, 17), (8, 25), (9, 24), (5, 28), (12, 21), (4, 29), (13, 20)]


@pytest.mark.parametrize("size", sorted(PUBLISHED_ORDER))
def test_seeding_order_is_the_published_line_order(size):
    assert seeding_order(size) == PUBLISHED_ORDER[size]


def blocks(order: list[int], width: int) -> set[frozenset]:
    return {frozenset(order[i : i + width]) for i in range(0, len(order), width)}


@pytest.mark.parametrize("size", sorted(PUBLISHED_PAIRS))
def test_seeding_order_has_the_published_first_round_pairs(size):
    assert blocks(seeding_order(size), 2) == {frozenset(p) for p in PUBLISHED_PAIRS[size]}


def test_seeding_order_has_the_published_quarters_and_halves():
    assert blocks(seeding_order(16), 4) == {frozenset(q) for q in PUBLISHED_QUARTERS_16}
    assert blocks(seeding_order(8), 4) == {frozenset(h) for h in PUBLISHED_HALVES_8}
    order = seeding_order(32)
    assert {frozenset(p) for p in PUBLISHED_32_START} <= blocks(order, 2)
    # the eight pairs form the top quarter and the second quarter, as published
    top = frozenset(s for p in PUBLISHED_32_START[:4] for s in p)
    second = frozenset(s for p in PUBLISHED_32_START[4:] for s in p)
    assert {top, second} <= blocks(order, 8)


def test_byes_go_to_the_top_seeds_as_published():
    # 6 entrants in an 8 bracket: seeds 7 and 8 are empty, so seeds 1 and 2 (who would meet them) get byes
    assert first_round([1, 2, 3, 4, 5, 6]) == [(1, None), (4, 5), (2, None), (3, 6)]
