"""Seasonal-league maths as pure functions: a division's table and promotion/relegation between seasons.

Rules, each where it is implemented:
- ``Points``: points per result, default 3/1/0 ("three points for a win", FIFA since 1994): it
  rewards playing for a win. A forfeit is a win for the side that was ready and a loss for the
  side the game waited on; a double forfeit is a loss for both.
- ``head_to_head``: league points in the games among the players tied on points, only once every
  tied pair has met (FIDE C.07 2023 "direct encounter"; UEFA's head-to-head criterion).
- ``wins``: the number of wins (FIDE C.07 2023 WIN).
- ``sonneborn_berger`` (FIDE C.07 SB) and ``game_points`` (the engines' game scores): from
  ``league.scoring.standings``. SB is on the chess scale (1, 1/2, 0) whatever the league's points,
  as C.07 defines it; a double forfeit enters no tiebreak (it has no winner to weigh).
- A tie through every tiebreak goes to the better seed (last season's placing): positions are strict,
  because promotion and relegation need a cut.
- Multiplayer divisions (``multi_division_table``): placement points per table
  (``league.scoring.placements``, the multiplayer Swiss rules: tied places share the mean of their
  points); the same tiebreak names read a table as a round against each table-mate
  (``head_to_head`` = direct encounter among the tied players, ``sonneborn_berger``, ``wins`` =
  tables won outright or shared first, ``game_points``); a double forfeit (everyone lost) scores 0
  for all and enters no tiebreak. ``table_schedule`` seats the rounds (see there).
- ``next_divisions``: the first ``promote`` of each division but the top go up, the last
  ``relegate`` of each but the bottom go down; leavers are taken out first, newcomers join the bottom.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from league.scoring import multiswiss, placements
from league.scoring import standings as chess

HOME, AWAY, DRAW, DOUBLE_FORFEIT = "home", "away", "draw", "double_forfeit"
PLACED = "placed"  # a multiplayer fixture's result: its placements say who came where
RESULTS = (HOME, AWAY, DRAW, DOUBLE_FORFEIT)
TIEBREAKS = ("head_to_head", "wins", "sonneborn_berger", "game_points")
DEFAULT_TIEBREAKS = TIEBREAKS
NEW, STAYED, PROMOTED, RELEGATED = "new", "stayed", "promoted", "relegated"


@dataclass(frozen=True)
class Points:
    """League points for a win, a draw and a loss (a forfeit loss and a double forfeit score ``loss``)."""

    win: float = 3.0
    draw: float = 1.0
    loss: float = 0.0

    def of(self, result: str, *, home: bool) -> float:
        if result == DRAW:
            return self.draw
        if result == DOUBLE_FORFEIT:
            return self.loss
        return self.win if (result == HOME) == home else self.loss


@dataclass(frozen=True)
class Outcome:
    """One decided fixture: ``home`` held the first seat. ``result`` is one of ``RESULTS``."""

    home: Hashable
    away: Hashable
    result: str
    games_home: float = 0.0
    games_away: float = 0.0


@dataclass
class Line(chess.Row):
    """One player's line of a division table: the standings ``Row`` of ``league.scoring.standings``
    (a division has no byes), whose rank is strict - ``position``, 1 = top - because promotion and
    relegation need a cut."""

    @property
    def position(self) -> int:
        return self.rank


def strict_order(lines: Mapping[Hashable, Line], players: Sequence[Hashable], tiebreaks: Sequence[str]) -> list[Line]:
    """Lines best first by points, then each tiebreak, then the seed (``players`` order), numbered
    1, 2, ... with no shared positions: promotion and relegation need a cut."""
    seed = {p: i for i, p in enumerate(players)}
    ordered = sorted(
        lines.values(),
        key=lambda line: (-line.points, *(-line.tiebreaks[name] for name in tiebreaks), seed[line.player]),
    )
    for position, line in enumerate(ordered, start=1):
        line.rank = position
    return ordered


def head_to_head(group: Iterable[Hashable], outcomes: Sequence[Outcome], points: Points) -> dict | None:
    """League points each of ``group`` took from the others in the group, or None unless every
    pair of the group has a decided fixture between them (then the tiebreak does not apply): the
    direct encounter of ``league.scoring.standings.encounter_points`` on the league's own points."""
    sides = (
        (side, other, points.of(o.result, home=home))
        for o in outcomes
        for side, other, home in ((o.home, o.away, True), (o.away, o.home, False))
    )
    return chess.encounter_points(group, sides)


def division_table(
    players: Sequence[Hashable],
    outcomes: Sequence[Outcome],
    *,
    points: Points = Points(),
    tiebreaks: Sequence[str] = DEFAULT_TIEBREAKS,
) -> list[Line]:
    """The table of one division, best first. ``players`` in seeding order (the last tiebreak);
    ``outcomes`` are its decided fixtures (undecided ones are simply absent)."""
    unknown = [name for name in tiebreaks if name not in TIEBREAKS]
    if unknown:
        raise ValueError(f"unknown tiebreak(s) {', '.join(map(str, unknown))}; known: {', '.join(TIEBREAKS)}")
    bad = [o.result for o in outcomes if o.result not in RESULTS]
    if bad:
        raise ValueError(f"unknown result(s) {', '.join(map(str, bad))}; known: {', '.join(RESULTS)}")
    played = [o for o in outcomes if o.result != DOUBLE_FORFEIT]
    score = {HOME: 1.0, DRAW: 0.5, AWAY: 0.0}
    results = [chess.Result(o.home, o.away, score[o.result], o.games_home, o.games_away) for o in played]
    rows = {row.player: row for row in chess.standings(players, results, tiebreaks=("sonneborn_berger", "game_points"))}
    lines = {p: Line(player=p) for p in players}
    for p, line in lines.items():
        row = rows[p]
        line.played, line.wins, line.draws, line.losses = row.played, row.wins, row.draws, row.losses
        line.tiebreaks = {name: row.tiebreaks[name] for name in ("sonneborn_berger", "game_points")}
    for o in outcomes:
        if o.result == DOUBLE_FORFEIT:
            for p in (o.home, o.away):
                lines[p].played += 1
                lines[p].losses += 1
    for line in lines.values():
        line.points = line.wins * points.win + line.draws * points.draw + line.losses * points.loss
        line.tiebreaks["wins"] = float(line.wins)
        line.tiebreaks["head_to_head"] = 0.0
    by_points: dict[float, list] = {}
    for p in players:
        by_points.setdefault(lines[p].points, []).append(p)
    for group in by_points.values():
        if len(group) > 1:
            taken = head_to_head(group, outcomes, points)
            for p in group:
                lines[p].tiebreaks["head_to_head"] = taken[p] if taken else 0.0
    for line in lines.values():
        line.tiebreaks = {name: line.tiebreaks[name] for name in tiebreaks}
    return strict_order(lines, players, tiebreaks)


# ---- multiplayer divisions ---------------------------------------------------------------------
MULTI_TIEBREAKS = {"head_to_head": "direct_encounter", "sonneborn_berger": "sonneborn_berger"}


@dataclass(frozen=True)
class TableOutcome:
    """One decided multiplayer fixture: ``placements`` best first, ties grouped (players);
    ``double_forfeit``: everyone lost (no points, no tiebreak)."""

    placements: tuple[tuple[Hashable, ...], ...]
    game_scores: Mapping[Hashable, float]
    double_forfeit: bool = False


def table_points(
    placements_: Sequence[Sequence[Hashable]], table: Sequence[float] | None, *, double_forfeit: bool = False
) -> dict[Hashable, float]:
    """League points of one multiplayer fixture: the multiplayer Swiss placement points
    (``league.scoring.placements.placement_points``); a double forfeit scores nothing."""
    if double_forfeit:
        return {p: 0.0 for group in placements_ for p in group}
    return placements.placement_points(placements_, table)


def multi_division_table(
    players: Sequence[Hashable],
    outcomes: Sequence[TableOutcome],
    *,
    placement_points: Sequence[float] | None = None,
    tiebreaks: Sequence[str] = DEFAULT_TIEBREAKS,
) -> list[Line]:
    """The table of a multiplayer division, best first, strict (the seed, ``players`` order, last)."""
    unknown = [name for name in tiebreaks if name not in TIEBREAKS]
    if unknown:
        raise ValueError(f"unknown tiebreak(s) {', '.join(map(str, unknown))}; known: {', '.join(TIEBREAKS)}")
    tables = [
        placements.Table(
            tuple(tuple(group) for group in o.placements),
            table_points(o.placements, placement_points, double_forfeit=o.double_forfeit),
            dict(o.game_scores),
            counted=not o.double_forfeit,
        )
        for o in outcomes
    ]
    sizes = [sum(len(group) for group in o.placements) for o in outcomes] or [2]
    top = placements.place_points(max(sizes), placement_points)[0]
    used = ["direct_encounter", "sonneborn_berger", "game_points"]
    rows = {row.player: row for row in placements.standings(players, tables, tiebreaks=used, max_points=top)}
    lines = {}
    for p in players:
        row = rows[p]
        line = Line(p, 0, row.points, row.played, 0, row.wins, row.draws, row.losses)
        values = {name: row.tiebreaks[MULTI_TIEBREAKS.get(name, name)] for name in tiebreaks if name != "wins"}
        values["wins"] = float(row.wins)
        line.tiebreaks = {name: values[name] for name in tiebreaks}
        lines[p] = line
    return strict_order(lines, players, tiebreaks)


def schedule_rounds(players: int, sizes: Sequence[int], *, cycles: int = 1) -> int:
    """Rounds of a multiplayer division: enough for each player to meet every other ``cycles``
    times if the tables allowed a perfect design - ``cycles * (n - 1)`` meetings a player, at the
    mean of ``sum(s * (s - 1)) / n`` a round (10 players at 4+3+3: 2.4 a round, 4 rounds)."""
    per_round = sum(s * (s - 1) for s in sizes) / players
    return max(1, math.ceil(cycles * (players - 1) / per_round - 1e-9))


REPEAT_BASE = 16.0  # a pair's next meeting costs REPEAT_BASE ** (meetings so far): see table_schedule
SCHEDULE_ATTEMPTS = 12  # seeded starting orders per round; the cheapest seating wins


def table_schedule(
    players: Sequence[Hashable], *, seats: Mapping[str, int], cycles: int = 1, seed: int = 0
) -> list[list[list[Hashable]]]:
    """Every round of a multiplayer division: round -> tables -> players in seat order.

    Table sizes are ``league.scoring.multiswiss.table_sizes`` with no byes (ValueError if the
    division does not split into tables of ``seats["min"]``..``seats["max"]``); the number of
    rounds is ``schedule_rounds``. Rounds are seated one after another; a round's seating
    minimises the sum, over the pairs it seats together, of ``REPEAT_BASE ** m`` (``m``: how often
    the pair met before). With a base of 16, one pair meeting for the (m + 1)-th time outweighs
    fifteen meeting for the m-th, so the search first avoids the highest repeats, then the next
    ones - so the meeting counts stay as even as this round-by-round (greedy) search
    finds: from 7 to 30 players at 3-6 seats, any two pairs' counts differ by at most 2 (one
    cycle: every pair meets 0-2 times, most of them once). The search: ``SCHEDULE_ATTEMPTS``
    seeded random seatings, each improved by swapping two players of different tables while a
    swap lowers the cost (a division has at most 30 players, so every swap is tried; a 30-player
    double cycle takes about 1.5 s of CPU, a 12-player one 0.06 s, on the shared machine).
    ``tests/league/test_seasons_multi.py`` checks the spread of meetings. Inside a table the seat
    order is multiplayer Swiss's exact one (``multiswiss.seat_order``), so seat histories even out. The
    same players, seats and seed give the same schedule. A graph library (networkx) would not serve:
    this is a resolvable-design search (the social golfer problem), not a matching or flow, and the
    local search is twenty lines.
    """
    sizes, _ = multiswiss.table_sizes(
        len(players), preferred=seats["preferred"], min_seats=seats["min"], max_seats=seats["max"], allow_byes=False
    )
    rounds = schedule_rounds(len(players), sizes, cycles=cycles)
    rng = random.Random(seed)
    met: dict[frozenset, int] = {}
    seat_counts = {p: [0] * max(sizes) for p in players}
    schedule = []
    for _ in range(rounds):
        tables = _seat_round(list(players), sizes, met, rng)
        seated = []
        for table in tables:
            entrants = [multiswiss.TablePlayer(p, 0.0, 0, seats=tuple(seat_counts[p])) for p in table]
            order = multiswiss.seat_order(entrants, rng)
            for index, p in enumerate(order):
                seat_counts[p][index] += 1
            for a, b in itertools.combinations(order, 2):
                met[frozenset((a, b))] = met.get(frozenset((a, b)), 0) + 1
            seated.append(order)
        schedule.append(seated)
    return schedule


def _seat_round(players: list, sizes: Sequence[int], met: Mapping[frozenset, int], rng: random.Random) -> list[list]:
    def cost_with(p, table, leaving=None) -> float:
        return sum(REPEAT_BASE ** met.get(frozenset((p, q)), 0) for q in table if q is not p and q is not leaving)

    best = None
    for _ in range(SCHEDULE_ATTEMPTS):
        rng.shuffle(players)
        tables, start = [], 0
        for size in sizes:
            tables.append(players[start : start + size])
            start += size
        improved = True
        while improved:
            improved = False
            for i, j in itertools.combinations(range(len(tables)), 2):
                for x, a in enumerate(tables[i]):
                    for y, b in enumerate(tables[j]):
                        before = cost_with(a, tables[i]) + cost_with(b, tables[j])
                        after = cost_with(b, tables[i], leaving=a) + cost_with(a, tables[j], leaving=b)
                        if after < before - 1e-9:
                            tables[i][x], tables[j][y] = b, a
                            a = b
                            improved = True
        cost = sum(REPEAT_BASE ** met.get(frozenset(pair), 0) for t in tables for pair in itertools.combinations(t, 2))
        if best is None or cost < best[0] - 1e-9:
            best = (cost, [list(t) for t in tables])
    return best[1]


@dataclass(frozen=True)
class Placement:
    """A player's place in next season's divisions and how they got there (``NEW``, ``STAYED``,
    ``PROMOTED``, ``RELEGATED``)."""

    player: Hashable
    movement: str


def next_divisions(
    final: Sequence[Sequence[Hashable]],
    *,
    promote: int,
    relegate: int,
    leaving: Iterable[Hashable] = (),
    joining: Sequence[Hashable] = (),
) -> list[list[Placement]]:
    """Next season's divisions (top first, each in seeding order) from this season's final tables
    (``final``: each division's players best first, top division first).

    1. Leavers are taken out first, so the next player in the table takes a promotion place a
       leaver would have had.
    2. In every division but the top, the first ``promote`` go up one division; in every division
       but the bottom, the last ``relegate`` of those not promoted go down one division (a small
       division never sends a player both ways).
    3. A new division is seeded: relegated players first (they come from above), then those who
       stayed in finishing order, then the promoted ones; newcomers join the bottom division last.
    """
    if promote < 0 or relegate < 0:
        raise ValueError("promote and relegate are whole numbers from 0")
    leaving = set(leaving)
    seen = [p for division in final for p in division]
    if len(set(seen)) != len(seen):
        raise ValueError("a player may be in only one division")
    clash = set(joining) & (set(seen) - leaving)
    if clash or len(set(joining)) != len(joining):
        raise ValueError("a newcomer must not be in a division already, nor be listed twice")
    if not final:
        return [[Placement(p, NEW) for p in joining]] if joining else []
    divisions = [[p for p in division if p not in leaving] for division in final]
    last = len(divisions) - 1
    up, stay, down = [], [], []
    for tier, division in enumerate(divisions):
        going_up = division[: min(promote, len(division))] if tier > 0 else []
        rest = division[len(going_up) :]
        going_down = rest[len(rest) - min(relegate, len(rest)) :] if tier < last else []
        up.append(going_up)
        down.append(going_down)
        stay.append(rest[: len(rest) - len(going_down)])
    result = []
    for tier in range(len(divisions)):
        placed = [Placement(p, RELEGATED) for p in (down[tier - 1] if tier > 0 else [])]
        placed += [Placement(p, STAYED) for p in stay[tier]]
        placed += [Placement(p, PROMOTED) for p in (up[tier + 1] if tier < last else [])]
        result.append(placed)
    result[-1] += [Placement(p, NEW) for p in joining]
    return result


def split_evenly(players: Sequence[Hashable], divisions: int) -> list[list[Hashable]]:
    """A first season: ``players`` in seeding order cut into ``divisions`` tiers as even as
    possible, the higher tiers taking the extra players (so the top is never the short one)."""
    if divisions < 1:
        raise ValueError("a league has at least one division")
    size, extra = divmod(len(players), divisions)
    result, start = [], 0
    for tier in range(divisions):
        end = start + size + (1 if tier < extra else 0)
        result.append(list(players[start:end]))
        start = end
    return result


def zone(position: int, size: int, *, tier: int, tiers: int, promote: int, relegate: int) -> str | None:
    """``PROMOTED`` or ``RELEGATED`` if ``position`` (1 = top) of a division of ``size`` players in
    tier ``tier`` of ``tiers`` is in that zone - the same cut as ``next_divisions`` before leavers."""
    up = min(promote, size) if tier > 1 else 0
    if position <= up:
        return PROMOTED
    down = min(relegate, size - up) if tier < tiers else 0
    if position > size - down:
        return RELEGATED
    return None
