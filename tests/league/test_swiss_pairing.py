"""Swiss pairing on a sparse graph is the full-graph optimum: random events against networkx on the
complete graph, the pricing and widening fallbacks forced with tiny windows, and the matching
certificate itself (no database)."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from league.scoring import swiss
from league.scoring.matching import Certificate, perfect_matching
from league.scoring.swiss import PairingImpossible, SwissPlayer, pair_round


def total(players: list[SwissPlayer], pairs) -> int:
    field = swiss._Field(players)
    index = {p.id: k for k, p in enumerate(players)}
    return sum(field.weight(index[a.id], index[b.id]) for a, b in pairs)


def events(seed: int, *, rounds: int):
    """Yield the field before each round of a random event: 2..60 players, random results (draws
    too), a random earlier bye or two; each round is paired with ``pair_round`` as in a real event."""
    rng = random.Random(seed)
    n = rng.randint(2, 60)
    state = {i: {"score": 0.0, "opp": set(), "col": [], "bye": rng.random() < 0.05} for i in range(1, n + 1)}
    for number in range(rounds):
        players = [
            SwissPlayer(i, s["score"], i, frozenset(s["opp"]), tuple(s["col"]), s["bye"]) for i, s in state.items()
        ]
        yield players
        try:
            boards = pair_round(players, seed=seed + number)
        except PairingImpossible:
            return
        for board in boards:
            if board.is_bye:
                state[board.first]["score"] += 1
                state[board.first]["bye"] = True
                continue
            a, b = board.first, board.second
            state[a]["opp"].add(b), state[b]["opp"].add(a)
            state[a]["col"].append(1), state[b]["col"].append(-1)
            result = rng.choice((0.0, 0.5, 1.0, 1.0))
            state[a]["score"] += result
            state[b]["score"] += 1 - result


def check_same_optimum(players: list[SwissPlayer]) -> None:
    """The certified sparse pairing and networkx's complete-graph pairing weigh the same. Both are
    perfect matchings of allowed pairs, so whenever the optimum is unique they are the same boards
    (they may differ only between equally good pairings)."""
    ordered = swiss._order(players)
    if len(ordered) % 2:
        ordered = ordered[:-1]  # the pairing behind the lowest-ranked player's bye
    fast = swiss._match(ordered, full_graph=False)
    full = swiss._match(ordered, full_graph=True)
    assert (fast is None) == (full is None)
    if fast is None:
        return 0
    for a, b in fast:
        assert b.id not in a.opponents
    assert total(ordered, fast) == total(ordered, full)


@pytest.mark.parametrize("seed", range(30))
def test_fast_pairing_weighs_the_same_as_the_complete_graph(seed):
    for players in events(seed, rounds=7):
        check_same_optimum(players)
        outcomes = []
        for full_graph in (False, True):
            try:
                boards = pair_round(players, seed=seed, full_graph=full_graph)
            except PairingImpossible:
                boards = None
            outcomes.append(boards)
        fast, full = outcomes
        assert (fast is None) == (full is None)
        if fast is not None:  # the same bye (the lowest-ranked player who can take it), if any
            assert [b for b in fast if b.is_bye] == [b for b in full if b.is_bye]


@pytest.mark.parametrize("seed", range(30, 45))
def test_tiny_windows_force_pricing_and_widening_and_stay_optimal(seed, monkeypatch):
    """With one candidate per player the sparse graph misses most optimal boards: the pricing step
    must find them (or the windows widen) and the answer must still be the full optimum."""
    monkeypatch.setattr(swiss, "NEAR", 1)
    monkeypatch.setattr(swiss, "FLOAT", 1)
    solves, calls = [], []
    solve, certified = swiss.perfect_matching, swiss._certified
    monkeypatch.setattr(swiss, "perfect_matching", lambda n, edges: solves.append(n) or solve(n, edges))
    monkeypatch.setattr(swiss, "_certified", lambda field, strict: calls.append(1) or certified(field, strict))
    for players in events(seed, rounds=6):
        check_same_optimum(players)
    assert len(solves) > len(calls)  # the first sparse solve was not enough somewhere


def test_perfect_matching_agrees_with_networkx_and_its_certificate_checks_out():
    rng = random.Random(5)
    for _ in range(300):
        n = rng.choice([2, 4, 6, 10, 16, 24])
        edges = [(i, j, rng.randint(1, 50)) for i in range(n) for j in range(i + 1, n) if rng.random() < 0.4]
        graph = nx.Graph()
        graph.add_nodes_from(range(n))
        graph.add_weighted_edges_from(edges)
        reference = nx.max_weight_matching(graph, maxcardinality=True)
        solution = perfect_matching(n, edges)
        if 2 * len(reference) != n:
            assert solution is None
            continue
        weight = {(i, j): w for i, j, w in edges}
        assert sum(weight[min(v, u), max(v, u)] for v, u in enumerate(solution.mate) if v < u) == sum(
            weight[min(i, j), max(i, j)] for i, j in reference
        )
        assert solution.verify(edges)


def test_a_certificate_that_does_not_cover_an_edge_is_refused():
    edges = [(0, 1, 5), (2, 3, 5), (0, 2, 1), (1, 3, 1)]
    solution = perfect_matching(4, edges)
    assert solution.mate == [1, 0, 3, 2] and solution.verify(edges)
    heavier = [*edges, (0, 3, 20)]  # an edge the dual never saw: the matching is no longer optimal
    assert not solution.verify(heavier)
    assert solution.slack(0, 3, 20) < 0
    lowered = Certificate(solution.mate, [solution.duals[0] - 4, *solution.duals[1:]], [], solution.member)
    assert not lowered.verify(edges)  # infeasible on (0, 1), and the objectives disagree


def test_a_candidate_graph_without_a_pairing_widens_instead_of_giving_up(monkeypatch):
    """1 and 2 have met, so both must float down; with one floater per border the candidate graph
    links them only to 3 and has no perfect matching - the wider window (then the complete graph)
    must be tried before anything is called impossible."""
    monkeypatch.setattr(swiss, "NEAR", 1)
    monkeypatch.setattr(swiss, "FLOAT", 1)
    results = []
    solve = swiss.perfect_matching
    monkeypatch.setattr(swiss, "perfect_matching", lambda n, edges: results.append(solve(n, edges)) or results[-1])
    met = {1: {2}, 2: {1}}
    players = [SwissPlayer(i, 2.0 if i <= 3 else 1.0, i, frozenset(met.get(i, ()))) for i in range(1, 9)]
    boards = pair_round(players, seed=0)
    assert results[0] is None and results[-1] is not None
    partners = {b.first: b.second for b in boards} | {b.second: b.first for b in boards}
    assert partners[1] != 2 and {partners[1], partners[2]} & {3, 4, 5}
    assert total(players, [(players[b.first - 1], players[b.second - 1]) for b in boards]) == total(
        players, [(players[b.first - 1], players[b.second - 1]) for b in pair_round(players, seed=0, full_graph=True)]
    )
