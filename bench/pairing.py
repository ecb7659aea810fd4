"""Time to pair one round of a 1,000-player Swiss event, against a greedy baseline in the same run.

    .venv/bin/python bench/pairing.py [--players 1000] [--rounds 5] [--seed 1]
                                      [--seats 4] [--table-players 1000] [--event-players 200] [--event-rounds 7]

Plays ``--rounds`` rounds first (the higher seed wins, one draw in five) so the timed round has
score groups, rematch bans and colour histories like a real event, then times
``league.scoring.swiss.pair_round`` (maximum-weight matching) and a greedy top-down pairing
(each player in score order takes the next one it has not met) on the same input. The greedy
pairing ignores colours and can strand players at the bottom; the printout counts its rematches
and cross-group boards so the two are compared on quality as well as seconds.

Then the multiplayer Swiss (``league.scoring.multiswiss``, tables of ``--seats`` with one seat fewer
allowed): a ``--table-players`` field plays ``--rounds`` rounds (random finishing orders scored
3/2/1/0, a bye scores 2) and the next round is timed with ``pair_round`` (local search) and
``greedy_round`` (tables filled top-down) on the same input; then each method runs its own
``--event-players`` x ``--event-rounds`` event and the repeat meetings (pairs seated together who had
already met) and mean score spread at a table (best minus worst score) are printed. Figures only.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from league.scoring import multiswiss
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5, help="rounds played before the timed one")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seats", type=int, default=4, help="multiplayer table size (one fewer allowed)")
    parser.add_argument("--table-players", type=int, default=1000, help="field of the timed multiplayer round")
    parser.add_argument("--event-players", type=int, default=200, help="field of the multiplayer event")
    parser.add_argument("--event-rounds", type=int, default=7)
    args = parser.parse_args()
    started = time.perf_counter()
    players = field(args.players, args.rounds, args.seed)
    print(f"{args.players} players after {args.rounds} rounds (set up in {time.perf_counter() - started:.1f}s)")

    started = time.perf_counter()
    boards = pair_round(players, seed=args.seed)
    matching = time.perf_counter() - started
    by_id = {p.id: p for p in players}
    cross = sum(1 for b in boards if not b.is_bye and by_id[b.first].score != by_id[b.second].score)
    print(f"max-weight matching: {matching:.3f}s  boards={len(boards)} cross-group={cross} rematches=0")

    started = time.perf_counter()
    pairs = greedy(players)
    baseline = time.perf_counter() - started
    rematches = sum(1 for a, b in pairs if b.id in a.opponents)
    cross = sum(1 for a, b in pairs if a.score != b.score)
    print(f"greedy baseline:     {baseline:.3f}s  boards={len(pairs)} cross-group={cross} rematches={rematches}")
    print(f"ratio: {matching / baseline:.0f}x the greedy time")
    multiplayer(args)


def table_event(method, *, players: int, rounds: int, seats: int, seed: int, timed: bool = False) -> dict:
    """Play ``rounds`` rounds of a multiplayer Swiss with ``method``; the repeat meetings and table
    spreads over them, and (``timed``) the state after them for one more round."""
    bounds = {"preferred": seats, "min_seats": seats - 1, "max_seats": seats}
    rng = random.Random(seed)
    score = dict.fromkeys(range(players), 0.0)
    byes = dict.fromkeys(range(players), 0)
    seat_counts = {i: [0] * seats for i in range(players)}
    met: dict[frozenset, int] = {}
    repeats, spreads = 0, []

    def field() -> list:
        order = sorted(score, key=lambda i: (-score[i], i))
        return [
            multiswiss.TablePlayer(i, score[i], rank, byes[i], tuple(seat_counts[i]))
            for rank, i in enumerate(order, start=1)
        ]

    for number in range(rounds):
        result = method(field(), met=met, seed=seed + number, **bounds)
        repeats += multiswiss.repeat_meetings(result.tables, met)
        for player in result.byes:
            byes[player] += 1
            score[player] += 2
        for table in result.tables:
            spreads.append(max(score[p] for p in table) - min(score[p] for p in table))
            for seat, player in enumerate(table):
                seat_counts[player][seat] += 1
            finish = list(table)
            rng.shuffle(finish)
            for place, player in enumerate(finish):
                score[player] += max(0, 3 - place)
            for a in table:
                for b in table:
                    if a < b:
                        met[frozenset((a, b))] = met.get(frozenset((a, b)), 0) + 1
    return {"repeats": repeats, "spread": sum(spreads) / max(1, len(spreads)), "field": field(), "met": met}


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
