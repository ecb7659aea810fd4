"""Kifu's engines beside two peers in one run: OpenSpiel's crazy_eights (C++) and RLCard's UNO (Python).

    .venv/bin/pip install -r requirements-bench.txt     # optional: the peers
    .venv/bin/python bench/peers.py [--games N] [--engine SLUG ...] [--repeat N]

Every figure is random self-play on one core: at each decision a seeded random player picks one
of the legal moves, and chance outcomes are drawn as each library draws them. "moves/s" counts
the players' decisions per second of self-play, "events/s" counts chance outcomes too (Kifu's
deals and reshuffles, OpenSpiel's chance nodes; RLCard draws inside its steps, so there the two are
equal). "replay" applies the recorded events (Kifu: ``replay``, a fold of ``apply``) or actions
(OpenSpiel: ``apply_action`` from a new state; RLCard: ``step`` after re-seeding the deck) again.

Kifu's self-play is ``bench/selfplay.py``'s: legal moves of every actor, apply, outcome per event.
RLCard UNO is measured twice: ``game`` is its rules object alone (``UnoGame.step`` and the legal
actions in its state), the closest match to a Kifu engine; ``env`` is what its agents use
(``rlcard.make("uno")``, observations encoded as numpy arrays). A peer that is not installed is
named and skipped. With ``--repeat N`` figures are the best (min time) and median of N runs.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from selfplay import self_play  # noqa: E402

from games.engines import REGISTRY  # noqa: E402
from games.engines.chance import ChanceStream  # noqa: E402

DEFAULT_ENGINES = ("mekuri-hinmin", "1234", "twenty-two", "turn-thief")
STEP_GUARD = 20_000  # a peer's game longer than this is cut (none is expected to be)


class Missing(Exception):
    """A peer library is not installed."""


def kifu(slug: str, games: int) -> dict:
    engine = REGISTRY[slug]
    seats = engine.min_seats
    start = time.process_time()
    played = [self_play(engine, seats, seed, [0], frozenset(), ChanceStream) for seed in range(games)]
    play_s = time.process_time() - start
    start = time.process_time()
    for events in played:
        engine.replay(None, seats, events)
    replay_s = time.process_time() - start
    moves = sum(1 for events in played for event in events if event["kind"] == "move")
    return {"moves": moves, "events": sum(map(len, played)), "play_s": play_s, "replay_s": replay_s}


def open_spiel_crazy_eights(games: int) -> dict:
    try:
        import pyspiel
    except ImportError as error:
        raise Missing("open_spiel (pyspiel)") from error
    game = pyspiel.load_game("crazy_eights")
    records, moves, events = [], 0, 0
    start = time.process_time()
    for seed in range(games):
        chooser = random.Random(seed)
        state = game.new_initial_state()
        actions = []
        while not state.is_terminal() and len(actions) < STEP_GUARD:
            if state.is_chance_node():
                outcomes, weights = zip(*state.chance_outcomes(), strict=True)
                action = chooser.choices(outcomes, weights)[0]
            else:
                action = chooser.choice(state.legal_actions())
                moves += 1
            state.apply_action(action)
            actions.append(action)
        records.append(actions)
        events += len(actions)
    play_s = time.process_time() - start
    start = time.process_time()
    for actions in records:
        state = game.new_initial_state()
        for action in actions:
            state.apply_action(action)
    replay_s = time.process_time() - start
    return {"moves": moves, "events": events, "play_s": play_s, "replay_s": replay_s}


def rlcard_uno_game(games: int) -> dict:
    try:
        import numpy as np
        from rlcard.games.uno.game import UnoGame
    except ImportError as error:
        raise Missing("rlcard") from error
    game = UnoGame()
    records, moves = [], 0
    start = time.process_time()
    for seed in range(games):
        chooser = random.Random(seed)
        game.np_random = np.random.RandomState(seed)
        state, _player = game.init_game()
        actions = []
        while not game.is_over() and len(actions) < STEP_GUARD:
            action = chooser.choice(state["legal_actions"])
            state, _player = game.step(action)
            actions.append(action)
        records.append((seed, actions))
        moves += len(actions)
    play_s = time.process_time() - start
    start = time.process_time()
    for seed, actions in records:
        game.np_random = np.random.RandomState(seed)
        game.init_game()
        for action in actions:
            game.step(action)
    replay_s = time.process_time() - start
    return {"moves": moves, "events": moves, "play_s": play_s, "replay_s": replay_s}


def rlcard_uno_env(games: int) -> dict:
    try:
        import rlcard
    except ImportError as error:
        raise Missing("rlcard") from error
    env = rlcard.make("uno", config={"seed": 0})
    moves = 0
    start = time.process_time()
    for seed in range(games):
        chooser = random.Random(seed)
        env.seed(seed)
        state, _player = env.reset()
        steps = 0
        while not env.is_over() and steps < STEP_GUARD:
            state, _player = env.step(chooser.choice(list(state["legal_actions"])))
            steps += 1
        moves += steps
    play_s = time.process_time() - start
    return {"moves": moves, "events": moves, "play_s": play_s, "replay_s": None}


def _best_median(runs: list[dict], count: str, key: str) -> tuple[float, float] | None:
    times = [run[key] for run in runs]
    if None in times:
        return None
    return runs[0][count] / min(times), runs[0][count] / statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--engine", action="append", default=[], help=f"a Kifu engine (default: {DEFAULT_ENGINES})")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each; figures are best and median")
    args = parser.parse_args()
    subjects = {f"kifu {slug}": (lambda n, slug=slug: kifu(slug, n)) for slug in args.engine or DEFAULT_ENGINES}
    subjects["openspiel crazy_eights"] = open_spiel_crazy_eights
    subjects["rlcard uno (game)"] = rlcard_uno_game
    subjects["rlcard uno (env)"] = rlcard_uno_env
    print(f"python {sys.version.split()[0]}, {args.games} games each, {args.repeat} run(s), best / median")
    print(
        f"{'subject':24} {'moves':>7} {'events':>7} {'moves/s best':>13} {'median':>8}"
        f" {'events/s best':>14} {'replay ev/s best':>17} {'median':>8}"
    )
    for name, run in subjects.items():
        try:
            runs = [run(args.games) for _ in range(args.repeat)]
        except Missing as missing:
            print(f"{name:24} not installed ({missing}): skipped - pip install -r requirements-bench.txt")
            continue
        moves = _best_median(runs, "moves", "play_s")
        events = _best_median(runs, "events", "play_s")
        replay = _best_median(runs, "events", "replay_s")
        shown_replay = f"{replay[0]:>17,.0f} {replay[1]:>8,.0f}" if replay else f"{'-':>17} {'-':>8}"
        print(
            f"{name:24} {runs[0]['moves']:>7} {runs[0]['events']:>7} {moves[0]:>13,.0f} {moves[1]:>8,.0f}"
            f" {events[0]:>14,.0f} {shown_replay}"
        )


if __name__ == "__main__":
    main()
