"""Do this tree's engines behave exactly like an older commit's? Random positions, compared move by move.

    .venv/bin/python bench/engines_equal.py --baseline REV [--engine SLUG ...] [--games N]

For a speed change that must not change behaviour. The engines of commit REV are imported from a
git worktree under /tmp as a second package. Random games are played (seeded; the default config
and one flag changed at a time), and at every position both engines must agree on the state dump,
actors, chance step, legal moves (the same list in the same order), outcome and every seat's view;
then every offered move, a few corrupted moves (a card swapped for another, a card dropped, an
unknown field) and the chance event are applied by both, and the dumps after them, or the error
classes and codes, must be equal. The old engine starts each position from this tree's dump (so
``load_state`` of the old code reads the new dumps). Prints one line per engine and the first
differences; exits 1 on any.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games.engines import REGISTRY  # noqa: E402
from games.engines.chance import ChanceStream  # noqa: E402


def _old_registry(rev: str, tree: Path):
    """REV's ``games/engines`` as the package ``baseline_engines`` (its imports are relative)."""
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--force", str(tree), rev], check=True)
    package = tree.parent / "baseline_pkg"
    shutil.copytree(tree / "games" / "engines", package / "baseline_engines")
    sys.path.insert(0, str(package))
    return importlib.import_module("baseline_engines")


def configs(engine) -> list[dict]:
    out: list[dict] = [{}]
    for flag in engine.flags:
        if flag.choices is not None:
            values = list(flag.choices)
        elif flag.kind == "bool":
            values = [not flag.default]
        elif flag.kind == "int":
            values = [v for v in (flag.minimum, flag.maximum) if v is not None and v <= 1000]
        else:
            values = []
        out += [{flag.name: value} for value in values if value != flag.default]
    return out


def outcome(engine, state):
    result = engine.outcome(state)
    return None if result is None else result.to_json()


def attempt(engine, state, event):
    RuleError = sys.modules[type(engine).__module__.rsplit(".", 1)[0] + ".base"].RuleError
    try:
        return "ok", engine.dump_state(engine.apply(state, event))
    except Exception as error:  # the old engine's RuleError is another class; a crash must match too
        return "error", type(error).__name__, getattr(error, "code", None), isinstance(error, RuleError)


def attempt_setup(engine, config, seats):
    """``(what happened, state or None)``: the dump after setup, or the error's class and code."""
    try:
        state = engine.setup(config, seats)
    except Exception as error:
        return (type(error).__name__, getattr(error, "code", None)), None
    return engine.dump_state(state), state


def corrupted(event: dict, chooser: random.Random) -> list[dict]:
    """Moves near a legal one that should fail: a card swapped, a card dropped, a stray field."""
    data = event["data"]
    out = [{**event, "data": {**data, "extra": 1}}]
    for key in ("cards", "card"):
        value = data.get(key)
        if isinstance(value, list) and value:
            out.append({**event, "data": {**data, key: value[1:]}})
            out.append({**event, "data": {**data, key: [*value[:-1], chooser.choice(["AS", "2H", "JK1", "10D"])]}})
        elif isinstance(value, str):
            out.append({**event, "data": {**data, key: chooser.choice(["AS", "2H", "JK1", "10D", "3C"])}})
    return out


def compare(new, old, games: int, moves_per_position: int, avoid: frozenset[str]) -> tuple[int, list[str]]:
    positions, problems = 0, []

    def check(what, a, b, where):
        if a != b and len(problems) < 10:
            problems.append(f"{where}: {what} differ\n   now:  {str(a)[:300]}\n   base: {str(b)[:300]}")
        return a == b

    for index, config in enumerate(configs(new) * max(1, games // len(configs(new)))):
        if index >= games:
            break
        seats = new.min_seats + index % (new.max_seats - new.min_seats + 1)
        chooser = random.Random(index)
        made = attempt_setup(new, config, seats)
        if not check(
            "setup", made[0], attempt_setup(old, config, seats)[0], f"{new.slug} config {config} seats {seats}"
        ):
            continue
        if made[1] is None:
            continue  # a config this seat count refuses (both engines refused it with the same code)
        state = made[1]
        step = 0
        while new.outcome(state) is None and step < new.max_events:
            where = f"{new.slug} game {index} config {json.dumps(config)} seats {seats} step {step}"
            dump = new.dump_state(state)
            json.dumps(dump)
            before = old.load_state(json.loads(json.dumps(dump)))
            positions += 1
            ok = check("dump_state", dump, old.dump_state(before), where)
            ok &= check("actors", new.actors(state), old.actors(before), where)
            ok &= check("chance_due", new.chance_due(state), old.chance_due(before), where)
            ok &= check("outcome", outcome(new, state), outcome(old, before), where)
            for seat in [None, *range(seats)]:
                ok &= check(f"view {seat}", new.view(state, seat), old.view(before, seat), where)
                if seat is not None:
                    ok &= check(
                        f"legal_moves {seat}",
                        list(new.legal_moves(state, seat)),
                        list(old.legal_moves(before, seat)),
                        where,
                    )
            if not ok:
                break
            if new.chance_due(state):
                event = {"kind": "chance", "data": new.sample_chance(state, ChanceStream(b"equal", step + 1))}
                candidates = [event]
            else:
                offers = [
                    {"kind": "move", "seat": seat, "data": move}
                    for seat in sorted(new.actors(state))
                    for move in new.legal_moves(state, seat)
                ]
                if not offers:
                    deadline = new.deadline(state)
                    offers = [{"kind": "system", "data": {"type": "close_window", "window": deadline.window}}]
                event = chooser.choice([o for o in offers if o["data"]["type"] not in avoid] or offers)
                sample = chooser.sample(offers, min(len(offers), moves_per_position))
                candidates = sample + [bad for good in sample for bad in corrupted(good, chooser)]
                candidates += [{"kind": "system", "data": {"type": "resign", "seat": chooser.randrange(seats)}}]
            for candidate in candidates:
                ok &= check(
                    f"apply {json.dumps(candidate)}",
                    attempt(new, state, candidate),
                    attempt(old, before, candidate),
                    where,
                )
            if not ok:
                break
            state = new.apply(state, event)
            step += 1
    return positions, problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, metavar="REV")
    parser.add_argument("--engine", action="append", default=[], help="an engine slug (default: every engine)")
    parser.add_argument("--games", type=int, default=60, help="games per engine (configs in turn)")
    parser.add_argument(
        "--avoid", action="append", default=[], help="an action the game is not advanced by when there is another"
    )
    parser.add_argument("--moves", type=int, default=6, help="offered moves applied per position")
    args = parser.parse_args()
    tree = Path(tempfile.mkdtemp(prefix="kifu-equal-")) / "tree"
    try:
        old_registry = _old_registry(args.baseline, tree).REGISTRY
        failed = False
        for slug in args.engine or sorted(REGISTRY):
            positions, problems = compare(
                REGISTRY[slug], old_registry[slug], args.games, args.moves, frozenset(args.avoid)
            )
            print(f"{slug:16} {positions:>7} positions  {'same' if not problems else 'DIFFERENT'}")
            for problem in problems:
                print("  " + problem)
            failed |= bool(problems)
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)
        shutil.rmtree(tree.parent, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
