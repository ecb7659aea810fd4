"""Random self-play speed of every engine, against a replay baseline measured in the same run.

    .venv/bin/python bench/selfplay.py [--games N] [--engine SLUG]

Self-play does what a bot or the referee does per event (actors, legal-move enumeration, apply,
outcome); the baseline replays the same events through ``apply`` alone. Both print events/second;
the ratio says what enumeration and outcome checks cost on top of the rules themselves, and "most
moves" is the largest legal-move list seen in one position.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engines import REGISTRY
from games.engines.chance import ChanceStream


def self_play(engine, seats: int, seed: int, widest: list[int], avoid: frozenset[str] = frozenset()) -> list[dict]:
    chooser = random.Random(seed)
    state = engine.setup(None, seats)
    events = []
    while engine.outcome(state) is None:
        if engine.chance_due(state):
            event = {
                "kind": "chance",
                "data": engine.sample_chance(state, ChanceStream(seed.to_bytes(8, "big"), len(events) + 1)),
            }
        else:
            offers = {seat: engine.legal_moves(state, seat) for seat in sorted(engine.actors(state))}
            for moves in offers.values():
                widest[0] = max(widest[0], len(moves))
            # The random player avoids some actions (e.g. tie proposals) whenever it has another move.
            preferred = {seat: [m for m in moves if m["type"] not in avoid] for seat, moves in offers.items()}
            preferred = {seat: moves for seat, moves in preferred.items() if moves} or offers
            if not preferred:
                deadline = engine.deadline(state)
                event = {"kind": "system", "data": {"type": "close_window", "window": deadline.window}}
            else:
                seat = chooser.choice(sorted(preferred))
                event = {"kind": "move", "seat": seat, "data": chooser.choice(preferred[seat])}
        state = engine.apply(state, event)
        events.append(event)
    return events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--engine", choices=sorted(REGISTRY))
    parser.add_argument("--avoid", action="append", default=[], help="an action the random player avoids")
    args = parser.parse_args()
    print(
        f"{'engine':16} {'seats':>5} {'games':>6} {'events':>8} {'self-play ev/s':>15} {'replay ev/s':>12} {'ratio':>6}"
    )
    for slug, engine in REGISTRY.items():
        if args.engine and slug != args.engine:
            continue
        seats = engine.min_seats
        start = time.perf_counter()
        widest = [0]
        games = [self_play(engine, seats, seed, widest, frozenset(args.avoid)) for seed in range(args.games)]
        played = time.perf_counter() - start
        total = sum(len(events) for events in games)
        start = time.perf_counter()
        for events in games:
            engine.replay(None, seats, events)
        replayed = time.perf_counter() - start
        print(
            f"{slug:16} {seats:>5} {args.games:>6} {total:>8} {total / played:>15,.0f} {total / replayed:>12,.0f}"
            f" {(total / played) / (total / replayed):>6.2f} {widest[0]:>10}"
        )


if __name__ == "__main__":
    main()
