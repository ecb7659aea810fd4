"""Swiss pairing for two-player games by maximum-weight matching (FIDE C.04.1 basic rules).

The absolute rules (FIDE Handbook C.04.1) are hard constraints: two players meet at most once
(a), a player gets at most one bye (d: the pairing-allocated bye), and the bye goes to the
lowest-ranked player who may take it. The other criteria are weights of one maximum-weight
perfect matching (Edmonds' blossom algorithm), in strict priority order - each tier's
largest possible total is smaller than one unit of the tier above:

1. pair players of equal score (C.04.1 b/c): the penalty is the squared score gap, so one player
   floating two groups costs more than two floating one;
2. colours (first seat) (C.04.1 e/f): avoid pairing two players who both need the same seat;
3. inside a score group, the top half meets the bottom half (the Dutch system's S1 v S2,
   C.04.3): a penalty for how far an opponent is from the ideal half-group distance.

The matching is solved on a sparse candidate graph (each player's group-mates nearest the ideal
opponent, with and without a colour clash, and the boards across each group border) together
with its LP dual, and the dual then proves it optimal on the complete graph of allowed pairs
(see ``_certified``): the result weighs exactly what networkx finds on the complete graph, in a
fraction of the time (``bench/pairing.py``). The absolute colour rule (no third game in a row,
or a colour difference beyond 2, in the same seat) is relaxed only when no pairing of the
complete graph keeps it. Everything is deterministic: the same players, history and ``seed``
give the same pairing (the seed only draws the first round's colours, FIDE C.04.3 "by lot").
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

import networkx as nx

from .matching import Certificate, perfect_matching
from .roundrobin import Pairing

NEAR = 8  # candidate opponents nearest the ideal one in a score group (and as many without a clash)
FLOAT = 8  # bottom players of a group linked to the top players of the next one
PRICING_ROUNDS = 4  # re-solves with the pairs the dual did not cover, before the complete graph


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
    """A maximum-weight perfect matching of ``ordered`` (even length), or None if none exists.

    First with the absolute colour rule, then (only if no pairing keeps it) without. The default
    path is :func:`_certified`; ``full_graph`` runs networkx on the complete graph instead (the
    reference the tests and ``bench/pairing.py`` compare against)."""
    if not ordered:
        return []
    field = _Field(ordered)
    for strict in (True, False):
        pairs = field.complete_graph(strict) if full_graph else _certified(field, strict)
        if pairs is not None:
            return [(ordered[i], ordered[j]) for i, j in pairs]
    return None


def _certified(field: _Field, strict: bool) -> list[tuple[int, int]] | None:
    """The optimum over every allowed pair, computed on a sparse graph and proven by its dual.

    The candidate graph links each player to the ``NEAR`` allowed opponents closest to the ideal one
    in their score group plus the ``NEAR`` closest without a colour clash, and the ``FLOAT`` bottom
    players of a group to the top of the next. It is solved with its LP dual (:mod:`.matching`); the
    dual is checked on the candidate graph, then every allowed pair left out is priced: if
    ``y_i + y_j + 2 * sum(z_B) >= 4 * w_ij`` holds for all of them, the dual is feasible for the complete
    graph, and by weak duality no perfect matching of the complete graph weighs more than the one
    found - it *is* the full-graph optimum, not an approximation (when the optimum is unique, the
    very boards networkx finds on the complete graph; between equally good pairings the two may
    choose differently, each deterministically). Pairs that fail the test are added and the graph is
    solved again (a few rounds at most, then the complete graph). A candidate graph without a
    perfect matching proves nothing, so the windows are widened (four times) and then the complete
    graph is used; only that decides "impossible". Should the solver ever return a dual that does
    not check out, networkx decides instead. Pricing skips whole blocks cheaply: a pair whose score
    gap is ``g`` weighs at most ``top - g*g*score_unit``, so only pairs with low duals on both sides
    are looked at one by one.
    """
    windows = [(NEAR, FLOAT), (4 * NEAR, 4 * FLOAT)]
    edges = field.candidates(strict, *windows.pop(0))
    rounds = 0
    while True:
        complete = edges is None
        if complete:
            edges = field.all_pairs(strict)
        weighted = [(i, j, field.weight(i, j)) for i, j in sorted(edges)]
        try:
            solution = perfect_matching(field.n, weighted)
        except RecursionError:  # blossoms nested beyond Python's stack: let networkx decide
            return field.complete_graph(strict)
        if solution is None:
            if complete:
                return None
            edges = field.candidates(strict, *windows.pop(0)) if windows else None
            continue
        if not solution.verify(weighted):
            return field.complete_graph(strict)
        missing = [] if complete else field.price(solution, strict, edges)
        if not missing:
            return [(v, u) for v, u in enumerate(solution.mate) if v < u]
        rounds += 1
        edges = None if rounds > PRICING_ROUNDS else edges | set(missing)


class _Field:
    """The players of one pairing as arrays: score groups, places, colour needs and weights.

    Weights are one integer per pair, in strict priority tiers (each tier's largest possible
    total over n/2 boards stays below one unit of the tier above): the squared score gap, then a
    colour clash, then the distance from the ideal top-half v bottom-half opponent."""

    def __init__(self, ordered: list[SwissPlayer]) -> None:
        self.ordered = ordered
        n = self.n = len(ordered)
        groups: dict[float, list[int]] = {}
        for index, player in enumerate(ordered):
            groups.setdefault(player.score, []).append(index)
        self.scores = sorted(groups, reverse=True)
        self.groups = [groups[score] for score in self.scores]
        self.group_of = [0] * n
        self.place = [0] * n
        for g, members in enumerate(self.groups):
            for k, i in enumerate(members):
                self.group_of[i], self.place[i] = g, k
        self.size = [len(self.groups[self.group_of[i]]) for i in range(n)]
        need = [colour_preference(p.colours) for p in ordered]
        self.side = [side for side, _ in need]
        self.strength = [strength for _, strength in need]
        index = {p.id: i for i, p in enumerate(ordered)}
        self.met = [set() for _ in range(n)]
        for i, player in enumerate(ordered):
            for other in player.opponents:
                if other in index:
                    self.met[i].add(index[other])
                    self.met[index[other]].add(i)
        self.half_unit = 1
        self.colour_unit = self.half_unit * (n * n + 1)
        self.score_unit = self.colour_unit * (3 * n + 1)
        widest = round(2 * (self.scores[0] - self.scores[-1]))
        self.top = self.score_unit * (widest * widest + 4) + 1  # every weight stays positive

    def clash(self, i: int, j: int) -> int:
        if self.side[i] == self.side[j] and self.strength[i] and self.strength[j]:
            return min(self.strength[i], self.strength[j])
        return 0

    def weight(self, i: int, j: int) -> int:
        gap = round(2 * abs(self.ordered[i].score - self.ordered[j].score))
        gi, gj = self.group_of[i], self.group_of[j]
        if gi == gj:
            spread = abs(abs(self.place[j] - self.place[i]) - self.size[i] // 2)
        else:  # a floater: the lowest of the higher group meets the highest of the lower one
            upper, lower = (i, j) if gi < gj else (j, i)
            spread = self.size[upper] - 1 - self.place[upper] + self.place[lower]
        return self.top - gap * gap * self.score_unit - self.clash(i, j) * self.colour_unit - spread * self.half_unit

    def allowed(self, i: int, j: int, strict: bool) -> bool:
        if j in self.met[i]:
            return False
        # C.04.1 f: no two players who both absolutely need the same seat
        return not (strict and self.side[i] == self.side[j] and self.strength[i] == self.strength[j] == 3)

    def all_pairs(self, strict: bool) -> set[tuple[int, int]]:
        n = self.n
        return {(i, j) for i in range(n) for j in range(i + 1, n) if self.allowed(i, j, strict)}

    def candidates(self, strict: bool, near: int, float_: int) -> set[tuple[int, int]]:
        """Each player's ``near`` allowed group-mates closest to the ideal opponent, ``near`` more
        without a colour clash, and the ``float_`` x ``float_`` boards across each group border."""
        edges: set[tuple[int, int]] = set()
        for g, members in enumerate(self.groups):
            size, half = len(members), len(members) // 2
            for k, i in enumerate(members):
                closest = clean = 0
                for d in range(size):
                    for q in sorted({k + half + d, k + half - d, k - half + d, k - half - d}):
                        if not 0 <= q < size or q == k:
                            continue
                        j = members[q]
                        if not self.allowed(i, j, strict):
                            continue
                        if closest < near or (clean < near and not self.clash(i, j)):
                            edges.add((min(i, j), max(i, j)))
                        closest += 1
                        clean += not self.clash(i, j)
                    if closest >= near and clean >= near:
                        break
            if g + 1 < len(self.groups):
                for i in members[-float_:]:
                    for j in self.groups[g + 1][:float_]:
                        if self.allowed(i, j, strict):
                            edges.add((i, j))
        return edges

    def price(self, solution: Certificate, strict: bool, edges: set[tuple[int, int]]) -> list[tuple[int, int]]:
        """Allowed pairs outside ``edges`` whose weight the dual does not cover.

        Players are split into blocks by score group and colour need, so the score gap, the clash
        and the odd sets holding both blocks whole are fixed for a block of pairs; with both sides
        sorted by dual, only pairs whose duals fall short of the block's heaviest weight are looked
        at, and of those only the ones short of their exact spread get the full check."""
        y = solution.duals
        blocks: dict[tuple[int, int, int], list[int]] = {}
        for g, members in enumerate(self.groups):
            for i in members:
                blocks.setdefault((g, self.side[i], self.strength[i]), []).append(i)
        keys = sorted(blocks)
        common = {}  # the odd sets (with a dual) holding a whole block: they cover its pairs too
        for key in keys:
            blocks[key].sort(key=y.__getitem__)
            common[key] = set(solution.member[blocks[key][0]]).intersection(*(solution.member[i] for i in blocks[key]))
        duals = {key: [y[i] for i in blocks[key]] for key in keys}
        place, found = self.place, set()
        for a, key_a in enumerate(keys):
            ga, side_a, strength_a = key_a
            for key_b in keys[a:]:
                gb, side_b, strength_b = key_b
                gap = round(2 * abs(self.scores[ga] - self.scores[gb]))
                clash = min(strength_a, strength_b) if side_a == side_b and strength_a and strength_b else 0
                bound = 4 * (self.top - gap * gap * self.score_unit - clash * self.colour_unit)
                bound -= 2 * sum(solution.blossoms[b][1] for b in common[key_a] & common[key_b])
                lower, lower_duals = blocks[key_b], duals[key_b]
                half, offset = len(self.groups[ga]) // 2, len(self.groups[ga]) - 1
                for i in blocks[key_a]:
                    threshold = bound - y[i]
                    if lower_duals[0] >= threshold:
                        break  # duals ascend: nobody later in this block is short either
                    k, p = bisect.bisect_left(lower_duals, threshold), place[i]
                    if ga == gb:  # 4 * weight = threshold + y_i - 4 * spread
                        short = [j for j in lower[:k] if y[j] < threshold - 4 * abs(abs(place[j] - p) - half)]
                    else:
                        short = [j for j in lower[:k] if y[j] < threshold - 4 * (offset - p + place[j])]
                    for j in short:
                        pair = (min(i, j), max(i, j))
                        if i != j and pair not in edges and self.allowed(i, j, strict):
                            if solution.slack(i, j, self.weight(i, j)) < 0:
                                found.add(pair)
        return sorted(found)

    def complete_graph(self, strict: bool) -> list[tuple[int, int]] | None:
        """networkx's maximum-weight matching on every allowed pair (the reference solution)."""
        graph = nx.Graph()
        graph.add_nodes_from(range(self.n))
        graph.add_weighted_edges_from((i, j, self.weight(i, j)) for i, j in self.all_pairs(strict))
        matching = nx.max_weight_matching(graph, maxcardinality=True)
        if 2 * len(matching) != self.n:
            return None
        return sorted((min(i, j), max(i, j)) for i, j in matching)
