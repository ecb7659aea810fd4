"""Tournament standings growth: a 7-round Swiss of 125 -> 2,000 players, old vs new in one run.

    .venv/bin/python bench/standings.py [--rounds 7] [--repeat 5] [--largest 2000] [--old PATH]

Builds each field with ``swiss_event`` (Swiss pairings by ``league.scoring.swiss.pair_round``, the
lower number wins, one board in five drawn, a bye when the field is odd), then times
``league.scoring.standings.standings(players, results, byes)`` with the default Swiss tiebreaks -
the call ``league.tournaments.standings.standings_rows`` makes - and the same call on the code
of before issue 18 (``git show 119556d:league/scoring/standings.py``, or ``--old``), in the same
run. CPU seconds, min and median of ``--repeat``; the growth ratio per doubling and for 8x.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from league.scoring import standings as current  # noqa: E402
from league.scoring.swiss import SwissPlayer, pair_round  # noqa: E402

BASE = "119556d"  # main before issues 18 and 22


def swiss_event(players: int, rounds: int = 7, seed: int = 1) -> tuple[list, list, list]:
    """(players, results, byes) of a simulated Swiss: ``standings``' inputs."""
    rng = random.Random(seed)
    state = {i: [0.0, set(), [], False] for i in range(1, players + 1)}
    results, byes = [], []
    for number in range(rounds):
        field = [SwissPlayer(i, s[0], i, frozenset(s[1]), tuple(s[2]), s[3]) for i, s in state.items()]
        for board in pair_round(field, seed=seed + number):
            if board.is_bye:
                state[board.first][0] += 1
                state[board.first][3] = True
                byes.append(board.first)
                continue
            a, b = board.first, board.second
            score = 0.5 if rng.random() < 0.2 else 1.0 if a < b else 0.0
            results.append(current.Result(a, b, score))
            state[a][0] += score
            state[b][0] += 1 - score
            state[a][1].add(b), state[b][1].add(a)
            state[a][2].append(1), state[b][2].append(-1)
    return list(state), results, byes


def old_module(path: str | None):
    """The standings module of ``BASE`` (or the file at ``path``), loaded under another name."""
    if path is None:
        source = subprocess.run(
            ["git", "show", f"{BASE}:league/scoring/standings.py"], cwd=ROOT, check=True, capture_output=True, text=True
        ).stdout
        path = str(Path(tempfile.mkdtemp()) / "old_standings.py")
        Path(path).write_text(source)
    spec = importlib.util.spec_from_file_location("old_standings", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def cpu(function, *args, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        started = time.process_time()
        function(*args)
        times.append(time.process_time() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--largest", type=int, default=2000)
    parser.add_argument("--old", help="a standings.py to compare with (default: git show 119556d)")
    args = parser.parse_args()
    old = old_module(args.old)
    sizes = [125]
    while sizes[-1] * 2 <= args.largest:
        sizes.append(sizes[-1] * 2)
    print(f"standings of a {args.rounds}-round Swiss, CPU ms (min / median of {args.repeat})")
    print(f"{'players':>7} {'old min':>9} {'old med':>9} {'new min':>9} {'new med':>9} {'old/new':>8}")
    mins: dict[str, list[float]] = {"old": [], "new": []}
    for count in sizes:
        players, results, byes = swiss_event(count, args.rounds)
        old_rows = old.standings(players, results, byes)
        new_rows = current.standings(players, results, byes)
        # the tiebreak values agree; the order may differ only where DE now counts the still-tied
        assert [(r.player, r.points, r.tiebreaks["buchholz"]) for r in sorted(old_rows, key=lambda r: r.player)] == [
            (r.player, r.points, r.tiebreaks["buchholz"]) for r in sorted(new_rows, key=lambda r: r.player)
        ]
        old_times = cpu(old.standings, players, results, byes, repeat=max(1, args.repeat if count <= 500 else 2))
        new_times = cpu(current.standings, players, results, byes, repeat=args.repeat)
        mins["old"].append(min(old_times))
        mins["new"].append(min(new_times))
        print(
            f"{count:>7} {min(old_times) * 1e3:>9.1f} {statistics.median(old_times) * 1e3:>9.1f}"
            f" {min(new_times) * 1e3:>9.1f} {statistics.median(new_times) * 1e3:>9.1f}"
            f" {min(old_times) / min(new_times):>7.0f}x"
        )
    if len(sizes) >= 4:
        for name in ("old", "new"):
            ratio = mins[name][-1] / mins[name][-4]
            print(f"{name}: {sizes[-1]} players cost {ratio:.1f}x {sizes[-4]} players (8x the players)")


if __name__ == "__main__":
    main()
