"""Swiss pairing for two-player games by maximum-weight matching (FIDE C.04.1 basic rules).

The absolute rules (FIDE Handbook C.04.1) are hard constraints: two players meet at most once
(a), a player gets at most one bye (d: the pairing-allocated bye), and the bye goes to the
lowest-ranked player who may take it. The other criteria are weights of one maximum-weight
perfect matching (Edmonds' blossom algorithm, networkx), in strict priority order - each tier's
largest possible total is smaller than one unit of the tier above:

1. pair players of equal score (C.04.1 b/c): the penalty is the squared score gap, so one player
   floating two groups costs more than two floating one;
2. colours (first seat) (C.04.1 e/f): avoid pairing two players who both need the same seat;
3. inside a score group, the top half meets the bottom half (the Dutch system's S1 v S2,
   C.04.3): a penalty for how far an opponent is from the ideal half-group distance.

Only candidate edges enter the graph (same group near the ideal distance, or the edges of
neighbouring groups), which keeps a 1,000-player round to a few seconds; when those admit no
complete pairing the full graph of allowed pairs is tried, and only then is the absolute colour
rule (no third game in a row, or a colour difference beyond 2, in the same seat) relaxed. Everything is
deterministic: the same players, history and ``seed`` give the same pairing (the seed only draws
the first round's colours, FIDE C.04.3 "by lot").
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

import networkx as nx

from .roundrobin import Pairing

NEAR = 8  # candidate opponents either side of the ideal one in a score group
FLOAT = 8  # bottom players of a group linked to the top players of the next one


class PairingImpossible(ValueError):
    code = "pairing_impossible"


@dataclass(frozen=True)
class SwissPlayer:
    """One entrant as the pairing sees them.

    ``rank`` is the initial ranking (1 = strongest seed); ``colours`` the seats of their games so
    far, +1 first seat and -1 second seat, in round order (byes are not games).
    """

    id: Hashable
    score: float
    rank: int
    opponents: frozenset = field(default_factory=frozenset)
    colours: tuple[int, ...] = ()
    had_bye: bool = False


def colour_preference(colours: Sequence[int]) -> tuple[int, int]:
    """(side, strength): the seat a player should get next and how much it matters (FIDE C.04.1 f,
    C.04.3 A.6). Absolute (3): the colour difference is beyond +-1 or the last two games had the same
    seat; strong (2): difference +-1; mild (1): difference 0, alternate from the last game; none (0)."""
    if not colours:
        return 0, 0
    diff = sum(colours)
    if abs(diff) > 1 or (len(colours) >= 2 and colours[-1] == colours[-2]):
        return (-1 if diff > 0 or (diff == 0 and colours[-1] > 0) else 1), 3
    if diff:
        return -diff, 2
    return -colours[-1], 1


def _order(players: Sequence[SwissPlayer]) -> list[SwissPlayer]:
    return sorted(players, key=lambda p: (-p.score, p.rank))


def pair_round(players: Sequence[SwissPlayer], *, seed: int = 0, full_graph: bool = False) -> list[Pairing]:
    """The next round: boards ordered by the better player's score and rank, then the bye.

    Raises PairingImpossible when no pairing satisfies the absolute rules (e.g. everybody has met).
    """
    ids = [p.id for p in players]
    if len(set(ids)) != len(ids):
        raise ValueError("each player may appear only once")
    if len(players) < 2:
        raise PairingImpossible("a round needs at least two players")
    ordered = _order(players)
    bye = None
    pairs = None
    if len(ordered) % 2:
        # The lowest-ranked player who has not had a bye and whose absence leaves a legal pairing.
        for candidate in reversed(ordered):
            if candidate.had_bye:
                continue
            rest = [p for p in ordered if p is not candidate]
            pairs = _match(rest, full_graph=full_graph)
            if pairs is not None:
                bye = candidate
                break
        if bye is None:
            raise PairingImpossible("no player can take the bye and leave a pairing without rematches")
    else:
        pairs = _match(ordered, full_graph=full_graph)
        if pairs is None:
            raise PairingImpossible("every pairing would repeat a game already played")
    draw = random.Random(seed).choice((1, -1))  # the top board's first seat in round 1, by lot
    position = {p.id: i for i, p in enumerate(ordered)}
    boards = sorted(pairs, key=lambda pair: min(position[pair[0].id], position[pair[1].id]))
    result = [_seat(a, b, board, draw) for board, (a, b) in enumerate(boards)]
    if bye is not None:
        result.append(Pairing(bye.id, None))
    return result


def _seat(a: SwissPlayer, b: SwissPlayer, board: int, draw: int) -> Pairing:
    """Who takes the first seat (FIDE C.04.3 A.7 simplified): grant the stronger preference; on a
    tie, the higher-ranked player's preference; with no history, alternate from the drawn colour."""
    if (a.score, -a.rank) < (b.score, -b.rank):
        a, b = b, a
    side_a, strength_a = colour_preference(a.colours)
    side_b, strength_b = colour_preference(b.colours)
    if strength_a == strength_b == 0:
        first_a = (draw if board % 2 == 0 else -draw) == 1
    elif strength_b > strength_a:
        first_a = side_b == -1
    elif strength_a > strength_b or side_a != side_b:
        first_a = side_a == 1
    else:
        first_a = side_a == 1  # same side, same strength: the higher-ranked player gets it
    return Pairing(a.id, b.id) if first_a else Pairing(b.id, a.id)


def _match(ordered: list[SwissPlayer], *, full_graph: bool) -> list[tuple[SwissPlayer, SwissPlayer]] | None:
    """A maximum-weight perfect matching of ``ordered`` (even length), or None if none exists."""
    if not ordered:
        return []
    n = len(ordered)
    groups: dict[float, list[int]] = {}
    for index, player in enumerate(ordered):
        groups.setdefault(player.score, []).append(index)
    scores = sorted(groups, reverse=True)
    group_of = {i: g for g, score in enumerate(scores) for i in groups[score]}
    place = {i: k for score in scores for k, i in enumerate(groups[score])}
    # tier units: every lower tier's total over n/2 boards stays below one unit of the tier above
    half_unit = 1
    colour_unit = half_unit * (n * n + 1)
    score_unit = colour_unit * (3 * n + 1)
    widest = round(2 * (scores[0] - scores[-1]))
    top = score_unit * (widest * widest + 4) + 1  # every weight stays positive

    def weight(i: int, j: int) -> int:
        a, b = ordered[i], ordered[j]
        gap = round(2 * abs(a.score - b.score))
        side_a, strength_a = colour_preference(a.colours)
        side_b, strength_b = colour_preference(b.colours)
        clash = min(strength_a, strength_b) if side_a == side_b and strength_a and strength_b else 0
        if group_of[i] == group_of[j]:
            size = len(groups[scores[group_of[i]]])
            spread = abs(abs(place[j] - place[i]) - size // 2)
        else:  # a floater: the lowest of the higher group meets the highest of the lower one
            upper, lower = (i, j) if group_of[i] < group_of[j] else (j, i)
            spread = len(groups[scores[group_of[upper]]]) - 1 - place[upper] + place[lower]
        return top - gap * gap * score_unit - clash * colour_unit - spread * half_unit

    def allowed(i: int, j: int, strict: bool) -> bool:
        if ordered[j].id in ordered[i].opponents or ordered[i].id in ordered[j].opponents:
            return False
        if strict:  # C.04.1 f: no two players who both absolutely need the same seat
            side_a, strength_a = colour_preference(ordered[i].colours)
            side_b, strength_b = colour_preference(ordered[j].colours)
            return not (side_a == side_b and strength_a == strength_b == 3)
        return True

    def candidates():
        for g, score in enumerate(scores):
            members = groups[score]
            size, half = len(members), len(members) // 2
            for k, i in enumerate(members):
                for other in range(k + 1, size):
                    if size <= 2 * NEAR + 2 or abs(other - k - half) <= NEAR:
                        yield i, members[other]
            if g + 1 < len(scores):
                below = groups[scores[g + 1]]
                for i in members[-FLOAT:]:
                    for j in below[:FLOAT]:
                        yield i, j

    # sparse then full graph, first keeping the absolute colour rule; dropping it is the last resort
    attempts = [(False, True), (True, True), (True, False)] if not full_graph else [(True, True), (True, False)]
    for full, strict in attempts:
        graph = nx.Graph()
        graph.add_nodes_from(range(n))
        if full:
            edges = ((i, j) for i in range(n) for j in range(i + 1, n))
        else:
            edges = candidates()
        graph.add_weighted_edges_from((i, j, weight(i, j)) for i, j in edges if allowed(i, j, strict))
        matching = nx.max_weight_matching(graph, maxcardinality=True)
        if 2 * len(matching) == n:
            return [(ordered[min(i, j)], ordered[max(i, j)]) for i, j in matching]
    return None
