"""Swiss pairing for multiplayer games: tables of 3-6 players, similar scores, few repeat meetings.

No published system pairs multiplayer Swiss rounds (FIDE C.04 is for two players), so this module
defines its own method, in four steps:

1. **Table sizes** (``table_sizes``). For ``n`` players and ``k`` tables every size lies in
   [min_seats, max_seats], so ``k`` is feasible iff ``k*min_seats <= n <= k*max_seats``. Among the
   feasible ``k`` the sizes are spread as evenly as possible (they differ by at most one) and the
   ``k`` whose split has the smallest sum of squared deviations from ``preferred`` wins; on a tie,
   more (smaller) tables. A 4-seat game with 3..4 seats: 10 players -> 4+3+3, 11 -> 4+4+3. Byes only
   when no ``k`` is feasible (e.g. exactly 4 seats and 10 players): the fewest byes that leave a
   feasible field, or ValueError when ``allow_byes`` is false.
2. **Byes** go to the lowest-ranked players among those with the fewest byes so far (so nobody gets
   a second bye while someone ranked below them has none).
3. **Tables.** The rest, in standings order (score, then ``rank``), with the order inside each score
   group shuffled by ``seed``, are cut into tables top-down (largest tables first). A local search
   then swaps players between tables, always taking the best improving swap for a player, until no
   swap improves (or ``MAX_PASSES`` passes). It minimises

       cost = sum over tables T, over pairs {a, b} seated at T, of
              repeat_weight * met(a, b) + ((score(a) - score(b)) / unit) ** 2 / (len(T) - 1)

   where ``met`` counts earlier shared tables and ``unit`` is one "score group" in points, read
   from the field (``field_unit``): the mean points a player took per round played (tables and
   byes), 1.5 with places scored 3/2/1/0 at four seats, 1/2 with linear points at any table size.
   So the score distance is measured in rounds' worth of the field's own points, the same for
   any points scheme and table-size mix (scaling every point by k pairs alike) - not in the
   smallest gap between two scores, which shrinks to 1/12 with linear points at mixed 4- and
   5-seat tables, so that one place at a 5-seat table counted as three "groups" and repeats won
   (115 repeat meetings per 48-player 7-round event against 45 with integer points; see
   ``bench/pairing.py``). Dividing the spread by ``len(T) - 1`` makes it each player's mean
   squared distance to their tablemates, whatever the
   table size: exchanging two players one score group apart costs 2, two groups apart 8. With the
   default ``repeat_weight`` of 4 the search floats a player one group to avoid a repeat meeting,
   never two. Only players in a repeat meeting start a swap, and only with tables within
   ``window`` tables of their own (tables further away differ in score anyway), which keeps a
   1,000-player round well under a
   second. The search runs from ``attempts``
   seeded starting orders and keeps the cheapest result.
4. **Seats.** Inside a table the seat order minimises the sum, over players, of the squared
   excess of the seat given over the player's least-used seat (``seats`` history), exactly (a
   dynamic programme over subsets of the table); ties are broken by the seeded order. Over 8
   rounds of 4-player tables no player's seat counts differ by more than 2.

The same players, history and seed give the same round. ``greedy_round`` is the baseline the
search is measured against: the same sizes, byes and seat rule, tables filled top-down by rank.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

REPEAT_WEIGHT = 4.0  # one earlier meeting costs as much as two score groups of spread
WINDOW = 4  # tables either side of a player's own that a swap may reach
MAX_PASSES = 20
MAX_SEATS = 12  # the seat order is exact over 2**size subsets
ATTEMPTS = 4  # seeded starting orders searched; the cheapest result wins


@dataclass(frozen=True)
class TablePlayer:
    """One entrant: ``rank`` is the current standings order (1 = best); ``seats[j]`` is how often the
    player has sat at seat ``j`` (seat 0 first) so far."""

    id: Hashable
    score: float
    rank: int
    byes: int = 0
    seats: tuple[int, ...] = ()


@dataclass(frozen=True)
class TableRound:
    """One round: each table in seat order (seat 0 first), tables best first, then the byes."""

    tables: list[list[Hashable]]
    byes: list[Hashable]


def table_sizes(
    players: int, *, preferred: int, min_seats: int, max_seats: int, allow_byes: bool = True
) -> tuple[list[int], int]:
    """(table sizes largest first, number of byes) for ``players``; ValueError if impossible."""
    _check_sizes(preferred=preferred, min_seats=min_seats, max_seats=max_seats)
    if players < min_seats:
        raise ValueError(f"{players} players cannot fill one table of at least {min_seats}")
    for byes in range(players - min_seats + 1):
        seated = players - byes
        best = None
        for tables in range(-(-seated // max_seats), seated // min_seats + 1):
            base, extra = divmod(seated, tables)
            sizes = [base + 1] * extra + [base] * (tables - extra)
            key = (sum((s - preferred) ** 2 for s in sizes), -tables)
            if best is None or key < best[0]:
                best = (key, sizes)
        if best is not None:
            if byes and not allow_byes:
                raise ValueError(f"{players} players do not split into tables of {min_seats}-{max_seats} without byes")
            return best[1], byes
    raise ValueError(f"{players} players cannot be seated at tables of {min_seats}-{max_seats}")  # pragma: no cover


def pair_round(
    players: Sequence[TablePlayer],
    *,
    met: Mapping[frozenset, int],
    preferred: int,
    min_seats: int,
    max_seats: int,
    seed: int,
    allow_byes: bool = True,
    repeat_weight: float = REPEAT_WEIGHT,
    window: int = WINDOW,
    attempts: int = ATTEMPTS,
    score_unit: float | None = None,
) -> TableRound:
    """The next round by the local search of the module docstring (similar scores, few repeats).
    ``score_unit``: one score group in points (default ``field_unit``; a round paired before it
    existed is reproduced with ``smallest_gap``)."""
    ordered, byes, sizes = _prepare(players, preferred, min_seats, max_seats, allow_byes)
    if attempts < 1:
        raise ValueError("attempts must be at least 1")
    unit = field_unit(players) if score_unit is None else score_unit
    if not unit > 0:
        raise ValueError(f"score_unit must be positive (got {unit})")
    rng = random.Random(seed)
    best = None
    for _ in range(attempts):
        shuffled: list[TablePlayer] = []
        for _, group in itertools.groupby(ordered, key=lambda p: p.score):
            members = list(group)
            rng.shuffle(members)
            shuffled += members
        tables = _cut(list(range(len(shuffled))), sizes)
        cost = _improve(tables, shuffled, met, unit=unit, repeat_weight=repeat_weight, window=window)
        if best is None or cost < best[0] - 1e-9:
            best = (cost, [[shuffled[i] for i in t] for t in tables])
    return TableRound([seat_order(table, rng) for table in best[1]], byes)


def greedy_round(
    players: Sequence[TablePlayer],
    *,
    met: Mapping[frozenset, int],
    preferred: int,
    min_seats: int,
    max_seats: int,
    seed: int,
    allow_byes: bool = True,
) -> TableRound:
    """The baseline: the same sizes, byes and seat rule, tables filled top-down by standings; ``met``
    is ignored."""
    ordered, byes, sizes = _prepare(players, preferred, min_seats, max_seats, allow_byes)
    rng = random.Random(seed)
    tables = _cut(list(range(len(ordered))), sizes)
    return TableRound([seat_order([ordered[i] for i in t], rng) for t in tables], byes)


def field_unit(players: Sequence[TablePlayer]) -> float:
    """One score group in points: the field's mean points per round played (rounds counted from
    ``seats`` and ``byes``). A field with no rounds recorded falls back to ``smallest_gap``."""
    rounds = sum(sum(p.seats) + p.byes for p in players)
    total = sum(p.score for p in players)
    if rounds <= 0 or total <= 0:
        return smallest_gap(players)
    return total / rounds


def smallest_gap(players: Sequence[TablePlayer]) -> float:
    """The smallest gap between two distinct scores of the field (1 if all are equal): the score
    group of rounds paired before ``field_unit``."""
    distinct = sorted({p.score for p in players})
    gaps = [b - a for a, b in itertools.pairwise(distinct) if b - a > 1e-9]
    return min(gaps) if gaps else 1.0


def repeat_meetings(tables: Sequence[Sequence[Hashable]], met: Mapping[frozenset, int]) -> int:
    """How many pairs seated together at ``tables`` had already shared a table (per ``met``)."""
    return sum(1 for table in tables for a, b in itertools.combinations(table, 2) if met.get(frozenset((a, b)), 0) > 0)


def _check_sizes(*, preferred: int, min_seats: int, max_seats: int) -> None:
    if not 2 <= min_seats <= preferred <= max_seats <= MAX_SEATS:
        raise ValueError(
            f"table sizes need 2 <= min_seats <= preferred <= max_seats <= {MAX_SEATS}"
            f" (got {min_seats}, {preferred}, {max_seats})"
        )


def _prepare(
    players: Sequence[TablePlayer], preferred: int, min_seats: int, max_seats: int, allow_byes: bool
) -> tuple[list[TablePlayer], list[Hashable], list[int]]:
    """(the seated players in standings order, the bye ids, the table sizes)."""
    ids = [p.id for p in players]
    if len(set(ids)) != len(ids):
        raise ValueError("each player may appear only once")
    sizes, bye_count = table_sizes(
        len(players), preferred=preferred, min_seats=min_seats, max_seats=max_seats, allow_byes=allow_byes
    )
    standings = sorted(players, key=lambda p: (-p.score, p.rank))
    # fewest byes first, then the lowest-ranked (a stable sort keeps the input order on equal ranks)
    bye_order = sorted(reversed(standings), key=lambda p: p.byes)
    out = {id(p) for p in bye_order[:bye_count]}
    byes = [p.id for p in standings if id(p) in out]
    return [p for p in standings if id(p) not in out], byes, sizes


def _cut(indices: list[int], sizes: list[int]) -> list[list[int]]:
    tables, start = [], 0
    for size in sizes:
        tables.append(indices[start : start + size])
        start += size
    return tables


def _improve(
    tables: list[list[int]],
    players: list[TablePlayer],
    met: Mapping[frozenset, int],
    *,
    unit: float,
    repeat_weight: float,
    window: int,
) -> float:
    """Swap players between nearby tables while a swap lowers the cost (in place); the final cost."""
    index = {p.id: i for i, p in enumerate(players)}
    met_of: list[dict[int, int]] = [{} for _ in players]
    for pair, count in met.items():
        if count > 0 and len(pair) == 2:
            a, b = pair
            if a in index and b in index:
                met_of[index[a]][index[b]] = count
                met_of[index[b]][index[a]] = count
    score = [p.score / unit for p in players]

    def pair_cost(a: int, b: int, spread: float) -> float:
        return repeat_weight * met_of[a].get(b, 0) + spread * (score[a] - score[b]) ** 2

    def share(x: int, table: list[int], leaving: int) -> float:
        """x's cost with the players of ``table`` other than ``leaving`` (and x itself)."""
        spread = 1 / (len(table) - 1)
        return sum(pair_cost(x, q, spread) for q in table if q != leaving and q != x)

    where = {i: t for t, table in enumerate(tables) for i in table}
    count = len(tables)
    for _ in range(MAX_PASSES):
        improved = False
        for a in range(len(players)):
            t = where[a]
            home = tables[t]
            if not any(q in met_of[a] for q in home if q != a):
                continue
            best, swap = -1e-9, None
            for u in range(max(0, t - window), min(count, t + window + 1)):
                if u == t:
                    continue
                away = tables[u]
                out_a = share(a, home, a)
                for b in away:
                    delta = share(b, home, a) - out_a + share(a, away, b) - share(b, away, b)
                    if delta < best:
                        best, swap = delta, (u, b)
            if swap is not None:
                u, b = swap
                home[home.index(a)] = b
                tables[u][tables[u].index(b)] = a
                where[a], where[b] = u, t
                improved = True
        if not improved:
            break
    return sum(pair_cost(a, b, 1 / (len(table) - 1)) for table in tables for a, b in itertools.combinations(table, 2))


def seat_order(table: list[TablePlayer], rng: random.Random) -> list[Hashable]:
    """The seat order with the least squared excess over each player's least-used seat: an exact
    assignment by dynamic programming over the subsets of seated players (2**size states); among
    optimal orders the first in the seeded order of the players wins."""
    rng.shuffle(table)
    size = len(table)
    cost = []
    for player in table:
        counts = player.seats[:size] + (0,) * (size - len(player.seats))
        low = min(counts)
        cost.append([(c - low) ** 2 for c in counts])
    full = (1 << size) - 1
    rest = [0] * (full + 1)  # rest[mask]: the least cost of seating everyone outside mask in the seats left
    for mask in range(full - 1, -1, -1):
        seat = mask.bit_count()
        rest[mask] = min(cost[i][seat] + rest[mask | 1 << i] for i in range(size) if not mask >> i & 1)
    order, mask = [], 0
    for seat in range(size):
        pick = next(i for i in range(size) if not mask >> i & 1 and cost[i][seat] + rest[mask | 1 << i] == rest[mask])
        order.append(table[pick].id)
        mask |= 1 << pick
    return order
