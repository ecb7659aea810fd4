"""Tournament standings and tiebreaks as pure functions over the results of a two-player event.

Points are 1 for a win, 1/2 for a draw, 0 for a loss; a bye scores ``bye_points`` (default 1, FIDE
C.04.1 d). Each tiebreak cites the rule it follows; names are those of the FIDE Tie-Break
Regulations (Handbook C.07, 2023): BH (Buchholz), BH-C1 (cut 1), BH-M1 (median 1),
SB (Sonneborn-Berger), DE (direct encounter), plus game points and the opponents' match-win
percentage with its 33% floor from the Magic: The Gathering Tournament Rules (Appendix C).

Unplayed rounds follow C.07's dummy-opponent rule for BH and SB: each round a player has no game
- a bye, a double forfeit, a round missed before a late entry - counts as a game against a virtual
opponent with the player's own final score (the points the round gave as the result: 0 for a
double forfeit), so it neither lifts nor sinks a player's Buchholz compared to the field. Every
point a player has, late-entry points included, is in their score before any opponent's BH or SB
is computed.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

TIEBREAKS = (
    "buchholz",
    "buchholz_cut1",
    "buchholz_median",
    "sonneborn_berger",
    "direct_encounter",
    "game_points",
    "omw",
)
OMW_FLOOR = 1 / 3


@dataclass(frozen=True)
class Result:
    """One finished board: ``score_a`` is a's points (1, 0.5 or 0); b gets 1 - score_a.
    ``games_a``/``games_b``: game points (games won in a match, or the engine's scores)."""

    a: Hashable
    b: Hashable
    score_a: float
    games_a: float = 0.0
    games_b: float = 0.0


@dataclass
class Row:
    player: Hashable
    rank: int = 0
    points: float = 0.0
    played: int = 0
    byes: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    tiebreaks: dict = field(default_factory=dict)


def buchholz(terms: Sequence[tuple[float, float]], cut_lowest: int = 0, cut_highest: int = 0) -> float:
    """BH (C.07 2023): the sum of the opponents' scores. BH-C1 cuts the lowest one, BH-M1 (median)
    cuts the highest and the lowest. Cuts never remove more contributions than there are."""
    values = sorted(score for score, _ in terms)
    values = values[cut_lowest : len(values) - cut_highest if cut_highest else None]
    return float(sum(values))


def sonneborn_berger(terms: Sequence[tuple[float, float]]) -> float:
    """SB (C.07 2023): the sum over games of the opponent's score times the points taken from them
    (all of it for a win, half for a draw, none for a loss)."""
    return float(sum(score * result for score, result in terms))


def encounter_points(
    group: Iterable[Hashable], encounters: Iterable[tuple[Hashable, Hashable, float]]
) -> dict[Hashable, float] | None:
    """DE (C.07 2023), the one rule every table uses: among players tied on points, the points each
    took from the others of the group - ``encounters`` are ``(player, opponent, points the player
    took)`` in result order - used only when every pair of the group has met; otherwise None (the
    tiebreak does not separate them: C.07 Art. 6 adds the points of games among the tied "if all
    the tied participants have met each other"). A two-player event (``direct_encounter``),
    multiplayer tables (``placements.direct_encounter``) and a league's head-to-head on its own
    points (``league.seasons.scoring.head_to_head``) differ only in what they count as points."""
    group = list(group)
    members = set(group)
    points = dict.fromkeys(group, 0.0)
    met = set()
    for player, opponent, value in encounters:
        if player in members and opponent in members and player != opponent:
            points[player] += value
            met.add(frozenset((player, opponent)))
    return points if len(met) == len(members) * (len(members) - 1) // 2 else None


def fill_direct_encounter(
    rows: dict[Hashable, Row],
    tiebreaks: Sequence[str],
    encounters: Callable[[Sequence[Hashable]], Iterable[tuple[Hashable, Hashable, float]]],
) -> None:
    """Set each row's ``direct_encounter`` among the players STILL tied when DE is reached: equal
    on points and on every tiebreak listed before it (C.07 2023 Art. 4.2: each tiebreak separates
    only a persisting tie), so sorting by points and the tiebreaks in order ranks like applying them
    one after another to the remaining ties. ``encounters(group)`` yields the group's results as
    ``(player, opponent, points the player took)``. A player alone in their group gets 0, as does
    a group not all of whose pairs have met (DE does not separate it)."""
    if "direct_encounter" not in tiebreaks:
        return
    before = tiebreaks[: list(tiebreaks).index("direct_encounter")]
    groups: dict[tuple, list] = {}
    for player, row in rows.items():
        row.tiebreaks["direct_encounter"] = 0.0
        groups.setdefault((row.points, *(row.tiebreaks[name] for name in before)), []).append(player)
    for group in groups.values():
        if len(group) > 1:
            de = encounter_points(group, encounters(group))
            for player in group if de else ():
                rows[player].tiebreaks["direct_encounter"] = de[player]


def direct_encounter(group: Sequence[Hashable], results: Sequence[Result]) -> dict[Hashable, float] | None:
    """DE (C.07 2023) of a two-player event: the points scored in games between the tied players."""
    return encounter_points(group, ((p, q, s) for r in results for p, q, s in _both_sides(r)))


def _both_sides(r: Result) -> tuple[tuple[Hashable, Hashable, float], tuple[Hashable, Hashable, float]]:
    return (r.a, r.b, r.score_a), (r.b, r.a, 1 - r.score_a)


def _value(name: str, terms: list, opponents: list, game_points: float, points: dict, rounds: dict) -> float:
    """One player's tiebreak ``name`` from their (opponent score, own result) terms."""
    if name == "buchholz":
        return buchholz(terms)
    if name == "buchholz_cut1":
        return buchholz(terms, cut_lowest=1)
    if name == "buchholz_median":
        return buchholz(terms, cut_lowest=1, cut_highest=1)
    if name == "sonneborn_berger":
        return sonneborn_berger(terms)
    if name == "game_points":
        return game_points
    if name == "omw":
        return opponents_match_win(opponents, points, rounds)
    return 0.0  # direct_encounter: set per group of the players still tied (fill_direct_encounter)


def match_win_percentage(points: float, rounds: int) -> float:
    """MW% (MTG Tournament Rules, App. C): points over rounds played (byes count as wins), at
    least 1/3."""
    return max(OMW_FLOOR, points / rounds) if rounds else OMW_FLOOR


def standings(
    players: Sequence[Hashable],
    results: Sequence[Result],
    byes: Sequence[Hashable] = (),
    *,
    tiebreaks: Sequence[str] = ("buchholz_cut1", "buchholz", "sonneborn_berger", "direct_encounter"),
    bye_points: float = 1.0,
    double_forfeits: Sequence[Hashable] = (),
    missed: Mapping[Hashable, Sequence[float]] | None = None,
) -> list[Row]:
    """Rows best first: by points, then each tiebreak in order, then the order of ``players``
    (the initial ranking). Players equal on points and every tiebreak share a rank.
    ``double_forfeits``: a player once per board both sides lost by forfeit (a lost round, no
    game); ``missed``: the points given for each round a late entrant was not paired in."""
    unknown = [name for name in tiebreaks if name not in TIEBREAKS]
    if unknown:
        raise ValueError(f"unknown tiebreak(s) {', '.join(unknown)}; known: {', '.join(TIEBREAKS)}")
    rows = {p: Row(player=p) for p in players}
    bye_map: dict[Hashable, list[float]] = {}
    for p in byes:
        rows[p].points += bye_points
        rows[p].byes += 1
        bye_map.setdefault(p, []).append(bye_points)
    for p in double_forfeits:
        rows[p].played += 1
        rows[p].losses += 1
        bye_map.setdefault(p, []).append(0.0)
    for p, values in (missed or {}).items():
        rows[p].points += sum(values)
        bye_map.setdefault(p, []).extend(values)
    games: dict[Hashable, float] = dict.fromkeys(players, 0.0)
    # each player's games, indexed once: (opponent, own result) - so a player's tiebreaks read
    # their own games, not every result of the event (n log n overall, the sorts of BH cuts)
    games_of: dict[Hashable, list[tuple[Hashable, float]]] = {p: [] for p in players}
    for r in results:
        for player, score in ((r.a, r.score_a), (r.b, 1 - r.score_a)):
            row = rows[player]
            row.points += score
            row.played += 1
            row.wins += score == 1
            row.draws += score == 0.5
            row.losses += score == 0
        games[r.a] += r.games_a
        games[r.b] += r.games_b
        games_of[r.a].append((r.b, r.score_a))
        games_of[r.b].append((r.a, 1 - r.score_a))
    points = {p: row.points for p, row in rows.items()}
    rounds = {p: row.played + row.byes for p, row in rows.items()}
    for p, row in rows.items():
        # (opponent score, own result) per round, an unplayed round against a virtual opponent
        terms = [(points[o], score) for o, score in games_of[p]] + [(points[p], v) for v in bye_map.get(p, ())]
        opponents = [o for o, _ in games_of[p]]
        row.tiebreaks = {name: _value(name, terms, opponents, games[p], points, rounds) for name in tiebreaks}
    fill_direct_encounter(rows, tiebreaks, lambda group: ((p, o, s) for p in group for o, s in games_of[p]))
    initial = {p: i for i, p in enumerate(players)}

    def key(row: Row):
        return (-row.points, *(-row.tiebreaks[name] for name in tiebreaks))

    ordered = sorted(rows.values(), key=lambda row: (key(row), initial[row.player]))
    for index, row in enumerate(ordered):
        same = index and key(ordered[index - 1]) == key(row)
        row.rank = ordered[index - 1].rank if same else index + 1
    return ordered


def opponents_match_win(opponents: Sequence[Hashable], points: dict, rounds: dict) -> float:
    """OMW% (MTG Tournament Rules, App. C): the mean of the opponents' match-win percentages, each
    floored at 1/3; byes are not opponents. Rounded to 6 places so equal values compare equal."""
    if not opponents:
        return OMW_FLOOR
    return round(sum(match_win_percentage(points[o], rounds[o]) for o in opponents) / len(opponents), 6)
