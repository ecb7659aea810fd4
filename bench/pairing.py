"""Time to pair one round of a 1,000-player Swiss event, against a greedy baseline in the same run.

    .venv/bin/python bench/pairing.py [--players 1000] [--rounds 5] [--seed 1]

Plays ``--rounds`` rounds first (the higher seed wins, one draw in five) so the timed round has
score groups, rematch bans and colour histories like a real event, then times
``league.scoring.swiss.pair_round`` (maximum-weight matching) and a greedy top-down pairing
(each player in score order takes the next one it has not met) on the same input. The greedy
pairing ignores colours and can strand players at the bottom; the printout counts its rematches
and cross-group boards so the two are compared on quality as well as seconds.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

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


if __name__ == "__main__":
    main()
