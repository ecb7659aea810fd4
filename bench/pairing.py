"""Time to pair one round of a 1,000-player Swiss event: certified sparse matching, the complete graph, greedy.

    .venv/bin/python bench/pairing.py [--players 1000] [--rounds 5] [--seed 1] [--no-full] [--no-tables]
                                      [--seats 4] [--table-players 1000] [--event-players 200] [--event-rounds 7]

Plays ``--rounds`` rounds first (the higher seed wins, one draw in five) so the timed round has
score groups, rematch bans and colour histories like a real event, then pairs that round with
``league.scoring.swiss.pair_round`` (a sparse graph whose LP dual proves it optimal on the
complete graph), with ``pair_round(full_graph=True)`` (networkx on the complete graph: the
reference, skipped with ``--no-full``), with the previous default (networkx on the window graph
alone, no proof) and with a greedy top-down pairing (each player in score order takes the next
one it has not met). Wall and CPU seconds are both printed (the CPU figure does not move when
other work shares the machine), and each pairing's total weight is compared with the certified
one (equal weight: equally good by every priority; the boards may still differ between tied
pairings). The greedy pairing ignores colours and can strand players at the
bottom; the printout counts its rematches and cross-group boards.

Then (unless ``--no-tables``) the multiplayer Swiss (``league.scoring.multiswiss``, tables of
``--seats`` with one seat fewer allowed): a ``--table-players`` field plays ``--rounds`` rounds
(random finishing orders scored 3/2/1/0, a bye scores 2) and the next round is timed with
``pair_round`` (local search) and ``greedy_round`` (tables filled top-down) on the same input; then
each method runs its own ``--event-players`` x ``--event-rounds`` event and the repeat meetings
(pairs seated together who had already met) and mean score spread at a table (best minus worst
score) are printed. Last, repeat meetings per event for 48 and 200 players x tables of 3-4
(preferring 4) and 3-6 (preferring 5) x places scored 3/2/1/0 or linearly 1..0, the score unit of
before issue 22 (the smallest score gap; ``--repeats-only`` prints just this table, ``--seeds``
events a cell) against the field-normalised one and greedy, all in one run. Figures only.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import networkx as nx

from league.scoring import multiswiss, swiss
from league.scoring.swiss import SwissPlayer, pair_round


def greedy(players: list[SwissPlayer]) -> list[tuple]:
    """Top-down: the best unpaired player meets the next unpaired one they have not met (or, failing
    that, the next one at all - a rematch)."""
    order = sorted(players, key=lambda p: (-p.score, p.rank))
    free = list(order)
    boards = []
    while len(free) > 1:
        top = free.pop(0)
        pick = next((k for k, p in enumerate(free) if p.id not in top.opponents), 0)
        boards.append((top, free.pop(pick)))
    return boards


def field(count: int, rounds: int, seed: int) -> list[SwissPlayer]:
    rng = random.Random(seed)
    state = {i: [0.0, set(), [], False] for i in range(1, count + 1)}
    for number in range(rounds):
        players = [SwissPlayer(i, s[0], i, frozenset(s[1]), tuple(s[2]), s[3]) for i, s in state.items()]
        for board in pair_round(players, seed=seed + number):
            if board.is_bye:
                state[board.first][0] += 1
                state[board.first][3] = True
                continue
            a, b = board.first, board.second
            state[a][1].add(b), state[b][1].add(a)
            state[a][2].append(1), state[b][2].append(-1)
            if rng.random() < 0.2:
                state[a][0] += 0.5
                state[b][0] += 0.5
            else:
                state[min(a, b)][0] += 1
    return [SwissPlayer(i, s[0], i, frozenset(s[1]), tuple(s[2]), s[3]) for i, s in state.items()]


def previous_default(players: list[SwissPlayer]) -> list[tuple[SwissPlayer, SwissPlayer]]:
    """The pairing ``pair_round`` made before the certificate (even fields): networkx on the
    window graph (``NEAR`` either side of the ideal opponent, ``FLOAT`` x ``FLOAT`` across each
    group border), the complete graph only if the window graph had no perfect matching."""
    ordered = swiss._order(players)
    field = swiss._Field(ordered)
    near, float_ = 8, 8

    def window():
        for g, members in enumerate(field.groups):
            size, half = len(members), len(members) // 2
            for k, i in enumerate(members):
                for other in range(k + 1, size):
                    if size <= 2 * near + 2 or abs(other - k - half) <= near:
                        yield i, members[other]
            if g + 1 < len(field.groups):
                for i in members[-float_:]:
                    for j in field.groups[g + 1][:float_]:
                        yield i, j

    for complete, strict in ((False, True), (True, True), (True, False)):
        graph = nx.Graph()
        graph.add_nodes_from(range(field.n))
        edges = field.all_pairs(strict) if complete else (e for e in window() if field.allowed(*e, strict))
        graph.add_weighted_edges_from((i, j, field.weight(i, j)) for i, j in edges)
        matching = nx.max_weight_matching(graph, maxcardinality=True)
        if 2 * len(matching) == field.n:
            return [(ordered[i], ordered[j]) for i, j in matching]
    raise swiss.PairingImpossible("no pairing")


def timed(function, *args, **kwargs):
    wall, cpu = time.perf_counter(), time.process_time()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - wall, time.process_time() - cpu


def weight(players: list[SwissPlayer], pairs) -> int:
    """Total matching weight of ``pairs`` (boards or player pairs) in pair_round's own units."""
    ordered = swiss._order(players)
    field = swiss._Field(ordered)
    index = {p.id: k for k, p in enumerate(ordered)}
    by_id = {p.id: p for p in players}
    pairs = [(by_id[b.first], by_id[b.second]) if hasattr(b, "first") else b for b in pairs]
    return sum(field.weight(index[a.id], index[b.id]) for a, b in pairs if b is not None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5, help="rounds played before the timed one")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-full", action="store_true", help="skip networkx on the complete graph (slow)")
    parser.add_argument("--no-tables", action="store_true", help="skip the multiplayer Swiss part")
    parser.add_argument("--seats", type=int, default=4, help="multiplayer table size (one fewer allowed)")
    parser.add_argument("--table-players", type=int, default=1000, help="field of the timed multiplayer round")
    parser.add_argument("--event-players", type=int, default=200, help="field of the multiplayer event")
    parser.add_argument("--event-rounds", type=int, default=7)
    parser.add_argument("--repeats-only", action="store_true", help="only the repeats-per-event table")
    parser.add_argument("--seeds", type=int, default=3, help="events per cell of the repeats table")
    args = parser.parse_args()
    if args.repeats_only:
        repeats_per_event(args)
        return
    if args.players % 2:
        parser.error("--players must be even (the bye search would time several matchings)")
    started = time.perf_counter()
    players = field(args.players, args.rounds, args.seed)
    print(f"{args.players} players after {args.rounds} rounds (set up in {time.perf_counter() - started:.1f}s)")
    by_id = {p.id: p for p in players}

    boards, wall, cpu = timed(pair_round, players, seed=args.seed)
    best = weight(players, boards)
    cross = sum(1 for b in boards if not b.is_bye and by_id[b.first].score != by_id[b.second].score)
    print(f"certified sparse:    {wall:7.3f}s wall {cpu:7.3f}s cpu  boards={len(boards)} cross-group={cross}")
    if not args.no_full:
        full, full_wall, full_cpu = timed(pair_round, players, seed=args.seed, full_graph=True)
        same = "the same weight" if weight(players, full) == best else "A DIFFERENT WEIGHT"
        print(f"complete graph (nx): {full_wall:7.3f}s wall {full_cpu:7.3f}s cpu  {same}, same boards {full == boards}")
        print(f"ratio: the complete graph takes {full_wall / wall:.0f}x the wall, {full_cpu / cpu:.0f}x the cpu time")
    pairs, old_wall, old_cpu = timed(previous_default, players)
    loss = best - weight(players, pairs)
    verdict = "the same weight" if not loss else f"{loss} weight units short of the certified pairing"
    print(f"previous default:    {old_wall:7.3f}s wall {old_cpu:7.3f}s cpu  (networkx on the window graph) {verdict}")
    print(f"ratio: the previous default takes {old_wall / wall:.1f}x the wall, {old_cpu / cpu:.1f}x the cpu time")

    pairs, baseline, _ = timed(greedy, players)
    rematches = sum(1 for a, b in pairs if b.id in a.opponents)
    cross = sum(1 for a, b in pairs if a.score != b.score)
    print(f"greedy baseline:     {baseline:7.3f}s wall  boards={len(pairs)} cross-group={cross} rematches={rematches}")
    if not args.no_tables:
        multiplayer(args)
        repeats_per_event(args)


def table_event(
    method,
    *,
    players: int,
    rounds: int,
    seats: int,
    seed: int,
    timed: bool = False,
    bounds: dict | None = None,
    linear: bool = False,
    unit=None,
) -> dict:
    """Play ``rounds`` rounds of a multiplayer Swiss with ``method``; the repeat meetings and table
    spreads over them, and (``timed``) the state after them for one more round. Tables of
    ``seats - 1``..``seats`` unless ``bounds`` are given; places score 3/2/1/0 (a bye 2), or with
    ``linear`` 1 for first to 0 for last (a bye 1/2). ``unit(field)`` overrides the score unit."""
    bounds = bounds or {"preferred": seats, "min_seats": seats - 1, "max_seats": seats}
    rng = random.Random(seed)
    score = dict.fromkeys(range(players), 0.0)
    byes = dict.fromkeys(range(players), 0)
    seat_counts = {i: [0] * bounds["max_seats"] for i in range(players)}
    met: dict[frozenset, int] = {}
    repeats, spreads = 0, []

    def field() -> list:
        order = sorted(score, key=lambda i: (-score[i], i))
        return [
            multiswiss.TablePlayer(i, score[i], rank, byes[i], tuple(seat_counts[i]))
            for rank, i in enumerate(order, start=1)
        ]

    for number in range(rounds):
        players_now = field()
        extra = {"score_unit": unit(players_now)} if unit else {}
        result = method(players_now, met=met, seed=seed + number, **bounds, **extra)
        repeats += multiswiss.repeat_meetings(result.tables, met)
        for player in result.byes:
            byes[player] += 1
            score[player] += 0.5 if linear else 2
        for table in result.tables:
            spreads.append(max(score[p] for p in table) - min(score[p] for p in table))
            for seat, player in enumerate(table):
                seat_counts[player][seat] += 1
            finish = list(table)
            rng.shuffle(finish)
            for place, player in enumerate(finish):
                score[player] += (len(table) - 1 - place) / (len(table) - 1) if linear else max(0, 3 - place)
            for a in table:
                for b in table:
                    if a < b:
                        met[frozenset((a, b))] = met.get(frozenset((a, b)), 0) + 1
    return {"repeats": repeats, "spread": sum(spreads) / max(1, len(spreads)), "field": field(), "met": met}


def repeats_per_event(args: argparse.Namespace) -> None:
    """Repeat meetings per 7-round event, the score unit of before issue 22 (the smallest score gap)
    against the field-normalised one, for each field size x table-size range x points scheme."""
    seeds = f"{args.seed}..{args.seed + args.seeds - 1}"
    print(f"\nrepeat meetings per {args.event_rounds}-round event (mean of seeds {seeds}):")
    print("(and the mean score spread at a table, best minus worst, in points)")
    head = f"{'players':>7} {'seats':>9} {'points':>8} {'old unit':>9} {'new unit':>9} {'greedy':>7}"
    print(f"{head} {'spread old':>10} {'spread new':>10}")
    ranges = {
        "3-4 (4)": {"preferred": 4, "min_seats": 3, "max_seats": 4},
        "3-6 (5)": {"preferred": 5, "min_seats": 3, "max_seats": 6},
    }
    for count in (48, 200):
        for label, bounds in ranges.items():
            for linear in (False, True):
                totals = {"old": 0, "new": 0, "greedy": 0}
                spread = {"old": 0.0, "new": 0.0}
                for seed in range(args.seed, args.seed + args.seeds):
                    common = {
                        "players": count,
                        "rounds": args.event_rounds,
                        "seats": 0,
                        "seed": seed,
                        "bounds": bounds,
                        "linear": linear,
                    }
                    old = table_event(multiswiss.pair_round, unit=multiswiss.smallest_gap, **common)
                    new = table_event(multiswiss.pair_round, **common)
                    for key, event in (("old", old), ("new", new)):
                        totals[key] += event["repeats"]
                        spread[key] += event["spread"] / args.seeds
                    totals["greedy"] += table_event(multiswiss.greedy_round, **common)["repeats"]
                mean = {k: v / args.seeds for k, v in totals.items()}
                points = "linear" if linear else "integer"
                print(
                    f"{count:>7} {label:>9} {points:>8} {mean['old']:>9.1f} {mean['new']:>9.1f} {mean['greedy']:>7.1f}"
                    f" {spread['old']:>10.2f} {spread['new']:>10.2f}"
                )


def multiplayer(args: argparse.Namespace) -> None:
    seats = args.seats
    bounds = {"preferred": seats, "min_seats": seats - 1, "max_seats": seats}
    started = time.perf_counter()
    state = table_event(
        multiswiss.pair_round, players=args.table_players, rounds=args.rounds, seats=seats, seed=args.seed
    )
    setup = time.perf_counter() - started
    print(
        f"\n{args.table_players} players at tables of {seats - 1}-{seats} after {args.rounds} rounds"
        f" (set up in {setup:.1f}s)"
    )
    players, met = state["field"], state["met"]
    timings = {}
    for name, method in (("local search", multiswiss.pair_round), ("greedy", multiswiss.greedy_round)):
        started = time.perf_counter()
        result = method(players, met=met, seed=args.seed, **bounds)
        timings[name] = time.perf_counter() - started
        repeats = multiswiss.repeat_meetings(result.tables, met)
        print(
            f"{name:<13} {timings[name]:.3f}s  tables={len(result.tables)} byes={len(result.byes)} "
            f"repeat meetings={repeats}"
        )
    print(f"ratio: {timings['local search'] / timings['greedy']:.0f}x the greedy time")

    print(f"\nevent of {args.event_players} players, tables of {seats - 1}-{seats}, {args.event_rounds} rounds:")
    totals = {}
    for name, method in (("local search", multiswiss.pair_round), ("greedy", multiswiss.greedy_round)):
        started = time.perf_counter()
        event = table_event(method, players=args.event_players, rounds=args.event_rounds, seats=seats, seed=args.seed)
        totals[name] = event["repeats"]
        print(
            f"{name:<13} repeat meetings={event['repeats']:<5} mean table spread={event['spread']:.2f} points "
            f"({time.perf_counter() - started:.2f}s for the event)"
        )
    if totals["local search"]:
        print(f"ratio: greedy has {totals['greedy'] / totals['local search']:.1f}x the repeat meetings")
    else:
        print(f"ratio: no repeat meetings with the local search, {totals['greedy']} with greedy")


if __name__ == "__main__":
    main()
