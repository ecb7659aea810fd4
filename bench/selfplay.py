"""Random self-play and replay speed of every engine, optionally against an older commit in the same run.

    .venv/bin/python bench/selfplay.py [--games N] [--engine SLUG ...] [--repeat N] [--baseline REV] [--gc]

Self-play does what a bot or the referee does per event (actors, legal-move enumeration, apply,
outcome); replay folds the same events through ``apply`` alone. Both print events/second; "most
moves" is the largest legal-move list seen in one position.

``--baseline REV`` measures the engines of commit REV too: a git worktree of REV is made under
/tmp, and this same script (same driver, seeds, games and events) runs once per side and repeat in
a subprocess whose ``games.engines`` is imported from that tree (or from this one), the two sides
alternating. Both sides must play the very same games: a digest of every event is compared and a
mismatch is printed (the comparison would not be of the same work). With ``--repeat N`` the
figures are the best (min time) and the median of N runs; the ratio is now / baseline. Times are
process CPU time with the cyclic garbage collector off (``--gc`` keeps it on; see ``measure``).
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _import_engines(code_root: Path):
    sys.path.insert(0, str(code_root))
    from games.engines import REGISTRY
    from games.engines.chance import ChanceStream

    return REGISTRY, ChanceStream


def self_play(
    engine, seats: int, seed: int, widest: list[int], avoid: frozenset[str] = frozenset(), stream=None
) -> list[dict]:
    if stream is None:
        from games.engines.chance import ChanceStream as stream
    chooser = random.Random(seed)
    state = engine.setup(None, seats)
    events = []
    while engine.outcome(state) is None:
        if engine.chance_due(state):
            event = {
                "kind": "chance",
                "data": engine.sample_chance(state, stream(seed.to_bytes(8, "big"), len(events) + 1)),
            }
        else:
            offers = {seat: engine.legal_moves(state, seat) for seat in sorted(engine.actors(state))}
            for moves in offers.values():
                widest[0] = max(widest[0], len(moves))
            # The random player avoids some actions (e.g. tie proposals) whenever it has another move.
            # Without --avoid the Sequences are used as they are: ``choice`` picks by index
            # (``moves[randbelow(len(moves))]``), as a bot does, so a lazy Sequence (Twenty-Two's
            # exchange: up to 2,048 moves) builds the one move picked. --avoid filters them into lists.
            preferred = offers
            if avoid:
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


def measure(registry, stream, slug: str, games: int, avoid: frozenset[str], collect: bool = False) -> dict:
    """One timed self-play of ``games`` games (seeds 0..games-1) and one timed replay of them.

    The cyclic garbage collector is off while timing, as ``timeit`` does: its full collections walk
    every event kept so far, a cost of the benchmark's growing list (some 40% of Twenty-Two's
    self-play), not of the engine; reference counting still frees every dead object. ``collect``
    (``--gc``) keeps it on."""
    engine = registry[slug]
    seats = engine.min_seats
    widest = [0]
    gc.collect()
    if not collect:
        gc.disable()
    try:
        start = time.process_time()
        played = [self_play(engine, seats, seed, widest, avoid, stream) for seed in range(games)]
        play_s = time.process_time() - start
        start = time.process_time()
        for events in played:
            engine.replay(None, seats, events)
        replay_s = time.process_time() - start
    finally:
        gc.enable()
    digest = hashlib.sha256(json.dumps(played, sort_keys=True).encode()).hexdigest()[:16]
    events = sum(len(g) for g in played)
    return {"events": events, "play_s": play_s, "replay_s": replay_s, "widest": widest[0], "digest": digest}


def _runs_here(args, slugs: list[str]) -> dict[str, list[dict]]:
    registry, stream = _import_engines(Path(args.code) if args.code else ROOT)
    avoid = frozenset(args.avoid)
    return {
        slug: [measure(registry, stream, slug, args.games, avoid, args.gc) for _ in range(args.repeat)]
        for slug in slugs
    }


def _run_side(code_root: Path, args, slug: str) -> dict:
    command = [sys.executable, str(Path(__file__).resolve()), "--json", "--code", str(code_root)]
    command += ["--games", str(args.games), "--engine", slug, *(f"--avoid={a}" for a in args.avoid)]
    command += ["--gc"] if args.gc else []
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads(out)[slug][0]


def _speeds(runs: list[dict], key: str) -> tuple[float, float]:
    """Events/s of the best run (min time) and of the median time."""
    times = [run[key] for run in runs]
    events = runs[0]["events"]
    return events / min(times), events / statistics.median(times)


def _baseline(args, slugs: list[str]) -> None:
    rev = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", args.baseline], check=True, capture_output=True, text=True
    ).stdout.strip()
    tree = Path(tempfile.mkdtemp(prefix=f"kifu-baseline-{rev}-"))
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "--force", str(tree), rev],
        check=True,
        capture_output=True,
    )
    try:
        print(f"now: {ROOT} (working tree); baseline: {rev} at {tree}; {args.repeat} run(s) per side, alternating")
        print(
            f"{'engine':14} {'events':>7} {'':9} {'self-play ev/s best':>20} {'median':>8}"
            f" {'replay ev/s best':>17} {'median':>8}  same games"
        )
        for slug in slugs:
            runs: dict[str, list[dict]] = {"now": [], "base": []}
            for index in range(args.repeat):
                order = (("now", ROOT), ("base", tree)) if index % 2 == 0 else (("base", tree), ("now", ROOT))
                for side, code in order:
                    runs[side].append(_run_side(code, args, slug))
            same = runs["now"][0]["digest"] == runs["base"][0]["digest"]
            figures = {}
            for side in ("base", "now"):
                play, replay = _speeds(runs[side], "play_s"), _speeds(runs[side], "replay_s")
                figures[side] = (play, replay)
                label = rev if side == "base" else "now"
                print(
                    f"{slug:14} {runs[side][0]['events']:>7} {label:9} {play[0]:>20,.0f} {play[1]:>8,.0f}"
                    f" {replay[0]:>17,.0f} {replay[1]:>8,.0f}  {'yes' if same else 'NO: different events'}"
                )
            (play_now, replay_now), (play_base, replay_base) = figures["now"], figures["base"]
            print(
                f"{slug:14} {'':7} {'ratio':9} {play_now[0] / play_base[0]:>19.2f}x {play_now[1] / play_base[1]:>7.2f}x"
                f" {replay_now[0] / replay_base[0]:>16.2f}x {replay_now[1] / replay_base[1]:>7.2f}x"
            )
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--engine", action="append", default=[], help="an engine slug (default: every engine)")
    parser.add_argument("--avoid", action="append", default=[], help="an action the random player avoids")
    parser.add_argument("--repeat", type=int, default=1, help="runs per side; figures are best and median")
    parser.add_argument("--baseline", metavar="REV", help="also measure the engines of this commit")
    parser.add_argument("--gc", action="store_true", help="keep the cyclic garbage collector on while timing")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # one side of --baseline
    parser.add_argument("--code", help=argparse.SUPPRESS)  # the tree whose games.engines to import
    args = parser.parse_args()
    if args.json:
        print(json.dumps(_runs_here(args, args.engine)))
        return
    registry, _stream = _import_engines(ROOT)
    unknown = sorted(set(args.engine) - set(registry))
    if unknown:
        parser.error(f"unknown engine(s) {', '.join(unknown)}; known: {', '.join(sorted(registry))}")
    slugs = args.engine or sorted(registry)
    if args.baseline:
        _baseline(args, slugs)
        return
    print(
        f"{'engine':16} {'seats':>5} {'games':>6} {'events':>8} {'self-play ev/s':>15} {'median':>8}"
        f" {'replay ev/s':>12} {'median':>8} {'most moves':>10}"
    )
    for slug, runs in _runs_here(args, slugs).items():
        play, replay = _speeds(runs, "play_s"), _speeds(runs, "replay_s")
        print(
            f"{slug:16} {registry[slug].min_seats:>5} {args.games:>6} {runs[0]['events']:>8} {play[0]:>15,.0f}"
            f" {play[1]:>8,.0f} {replay[0]:>12,.0f} {replay[1]:>8,.0f} {runs[0]['widest']:>10}"
        )


if __name__ == "__main__":
    main()
