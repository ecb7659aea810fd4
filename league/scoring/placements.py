"""Multiplayer tables as pure functions: placements to points, and standings with tiebreaks.

A table of n players ends in a ranking (best first, ties grouped). Points per place come from a
table such as ``[3, 1, 0, 0]`` (the first n values are used for a table of n) or, by default,
fall linearly from 1 for first to 0 for last, ``(n - 1 - place) / (n - 1)``, so a two-player
table scores the usual 1 / 1/2 / 0. Tied players share the mean of the places they cover (a
two-way tie for first on ``[3, 1, 0, 0]`` gives each 2) - the usual rule for shared places in
multiplayer card-game events.

The tiebreaks keep their two-player names and meanings (FIDE C.07 2023) by reading a table as
one "round" against several opponents: a player's result against a table-mate is 1 if placed
above them, 1/2 if tied, 0 below (the pairwise decomposition used by multiplayer rating systems),
and each round contributes the mean over the table-mates, so the scale matches a two-player
event. An unplayed round - a bye, a double-forfeited table, a round missed before a late entry -
counts as a round against a virtual opponent on the player's own final score (C.07 2023; see
``standings``), with the round's points as the result.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

from .standings import OMW_FLOOR, TIEBREAKS, Row, buchholz, encounter_points, fill_direct_encounter

Ranking = Sequence[Sequence[Hashable]]


def place_points(size: int, table: Sequence[float] | None = None) -> list[float]:
    """The points of places 1..size: the first ``size`` values of ``table``, or linear 1 -> 0."""
    if size < 1:
        raise ValueError("a table has at least one player")
    if table is not None:
        if len(table) < size:
            raise ValueError(f"placement points list {len(table)} places; a table of {size} needs {size}")
        return [float(value) for value in table[:size]]
    if size == 1:
        return [1.0]
    return [(size - 1 - place) / (size - 1) for place in range(size)]


def placement_points(ranking: Ranking, table: Sequence[float] | None = None) -> dict[Hashable, float]:
    """Points by player for one table's ranking; tied players share the mean of their places."""
    size = sum(len(group) for group in ranking)
    values = place_points(size, table)
    points: dict[Hashable, float] = {}
    place = 0
    for group in ranking:
        share = sum(values[place : place + len(group)]) / len(group)
        points.update(dict.fromkeys(group, share))
        place += len(group)
    return points


def pairwise(ranking: Ranking) -> dict[tuple[Hashable, Hashable], float]:
    """(a, b) -> a's result against b at this table: 1 above, 1/2 tied, 0 below."""
    place = {player: index for index, group in enumerate(ranking) for player in group}
    return {
        (a, b): 1.0 if place[a] < place[b] else 0.5 if place[a] == place[b] else 0.0
        for a in place
        for b in place
        if a != b
    }


@dataclass(frozen=True)
class Table:
    """One decided table: its ranking, each player's points, and the engine's game scores."""

    ranking: tuple[tuple[Hashable, ...], ...]
    points: Mapping[Hashable, float]
    game_scores: Mapping[Hashable, float] = field(default_factory=dict)
    counted: bool = True  # False: a double forfeit - points count, but it is no game for tiebreaks


def standings(
    players: Sequence[Hashable],
    tables: Sequence[Table],
    byes: Mapping[Hashable, Sequence[float]] | None = None,
    *,
    tiebreaks: Sequence[str] = ("buchholz", "sonneborn_berger", "game_points"),
    missed: Mapping[Hashable, Sequence[float]] | None = None,
    max_points: float = 1.0,
) -> list[Row]:
    """Rows best first: by points, then each tiebreak, then the order of ``players``. ``byes``
    maps a player to the points of each bye; ``missed`` to the points of each round a late entrant
    was not paired in; ``max_points`` is a first place's points (for SB's share and the OMW %)."""
    unknown = [name for name in tiebreaks if name not in TIEBREAKS]
    if unknown:
        raise ValueError(f"unknown tiebreak(s) {', '.join(unknown)}; known: {', '.join(TIEBREAKS)}")
    byes = byes or {}
    rows = {p: Row(player=p) for p in players}
    games = dict.fromkeys(players, 0.0)
    for player, values in byes.items():
        rows[player].points += sum(values)
        rows[player].byes += len(values)
    unplayed: dict[Hashable, list[float]] = {player: list(values) for player, values in byes.items()}
    for player, values in (missed or {}).items():
        rows[player].points += sum(values)
        unplayed.setdefault(player, []).extend(values)
    results: list[dict] = []  # per counted table: pairwise results
    tables_of: dict[Hashable, list[dict]] = {p: [] for p in players}  # each player's counted tables
    for table in tables:
        for player, value in table.points.items():
            rows[player].points += value
            rows[player].played += 1
            top = table.ranking[0]
            if table.counted and player in top:
                rows[player].wins += len(top) == 1
                rows[player].draws += len(top) > 1
            else:
                rows[player].losses += 1
        for player, value in table.game_scores.items():
            games[player] += value
        if table.counted:
            results.append(pairwise(table.ranking))
            for group in table.ranking:
                for player in group:
                    tables_of[player].append(results[-1])
        else:
            for player, value in table.points.items():
                unplayed.setdefault(player, []).append(value)
    points = {p: row.points for p, row in rows.items()}
    rounds = {p: row.played + row.byes for p, row in rows.items()}
    for p, row in rows.items():
        bh_terms, sb, opponents = [], 0.0, []
        for result in tables_of[p]:
            mates = [b for (a, b) in result if a == p]
            bh_terms.append((sum(points[m] for m in mates) / len(mates), 0.0))
            sb += sum(points[m] * result[(p, m)] for m in mates) / len(mates)
            opponents += mates
        for value in unplayed.get(p, ()):
            bh_terms.append((points[p], 0.0))
            sb += points[p] * (value / max_points if max_points else 0.0)
        computed = {
            "buchholz": buchholz(bh_terms),
            "buchholz_cut1": buchholz(bh_terms, cut_lowest=1),
            "buchholz_median": buchholz(bh_terms, cut_lowest=1, cut_highest=1),
            "sonneborn_berger": round(sb, 9),
            "direct_encounter": 0.0,
            "game_points": games[p],
            "omw": _omw(opponents, points, rounds, max_points),
        }
        row.tiebreaks = {name: computed[name] for name in tiebreaks}
    fill_direct_encounter(rows, tiebreaks, lambda group: _group_results(group, tables_of))
    return rank_rows(list(rows.values()), tiebreaks, players)


def direct_encounter(group: Sequence[Hashable], results: Sequence[dict]) -> dict[Hashable, float] | None:
    """DE (C.07 2023) at tables: the pairwise points among the tied players, used only when every
    tied pair has shared a table; otherwise None."""
    return encounter_points(group, _pair_results(results))


def _group_results(group: Sequence[Hashable], tables_of: Mapping[Hashable, Sequence[dict]]):
    """The pairwise results of ``group``'s players at their own tables (each from their side)."""
    for player in group:
        for result in tables_of[player]:
            yield from ((player, b, value) for (a, b), value in result.items() if a == player)


def _pair_results(results: Sequence[dict]):
    return ((a, b, value) for result in results for (a, b), value in result.items())


def _omw(opponents: Sequence[Hashable], points: dict, rounds: dict, max_points: float) -> float:
    """OMW% (MTG rules, App. C): opponents' points over the most they could have had, floored at 1/3."""
    if not opponents or not max_points:
        return OMW_FLOOR
    shares = [max(OMW_FLOOR, points[o] / (rounds[o] * max_points)) if rounds[o] else OMW_FLOOR for o in opponents]
    return round(sum(shares) / len(shares), 6)


def rank_rows(rows: list[Row], tiebreaks: Sequence[str], players: Sequence[Hashable]) -> list[Row]:
    """Sort rows by points then tiebreaks (then the initial order) and number the ranks; rows equal
    on points and every tiebreak share a rank."""
    initial = {p: i for i, p in enumerate(players)}

    def key(row: Row):
        return (-row.points, *(-row.tiebreaks.get(name, 0.0) for name in tiebreaks))

    ordered = sorted(rows, key=lambda row: (key(row), initial[row.player]))
    for index, row in enumerate(ordered):
        same = index and key(ordered[index - 1]) == key(row)
        row.rank = ordered[index - 1].rank if same else index + 1
    return ordered
