"""Bots playing an engine in-process, without a server: each seat's strategy sees only
``engine.view(state, seat)`` and ``engine.legal_moves(state, seat)``.

    python -m bots.inprocess --games 200 [--engine nine-card] [--seed 1]

prints, for every game (or one), how often a heuristic bot beats random bots, seat by seat
rotated. Used by tests/bots and to measure the heuristics; the numbers are in the README.
"""

from __future__ import annotations

import argparse
import copy
import json
import marshal
import random
import sys
from dataclasses import dataclass

from games.engines import REGISTRY, get_engine
from games.engines.chance import ChanceStream

from .heuristics import Strategy, random_strategy, strategy_for


@dataclass
class Played:
    outcome: dict
    moves: int
    events: int


def play(engine_slug: str, strategies: list[Strategy], seed: int, config: dict | None = None) -> Played:
    """One game with one strategy per seat; chance is drawn from ``seed`` as the server would.

    The seats that may act are asked in a random order (as concurrent bots would race) until one
    moves; a window is closed only when nobody may or will act any more. A strategy gets a deep copy of its view and
    moves, so it cannot reach into the state. Raises AssertionError on an illegal choice or a
    game that does not end within the engine's ``max_events``.
    """
    engine = get_engine(engine_slug)
    rng = random.Random(seed)
    secret = seed.to_bytes(8, "big", signed=False)
    state = engine.setup(config, len(strategies))
    events = moves = 0
    while engine.outcome(state) is None:
        assert events < engine.max_events, f"{engine_slug}: no end after {events} events (seed {seed})"
        if engine.chance_due(state):
            event = {"kind": "chance", "data": engine.sample_chance(state, ChanceStream(secret, events + 1))}
        else:
            actors = sorted(engine.actors(state))
            rng.shuffle(actors)
            event = None
            for seat in actors:
                legal = engine.legal_moves(state, seat)
                # A list is copied; another Sequence (a lazy one) builds fresh moves on every access.
                moves_given = _fresh(legal) if isinstance(legal, list) else legal
                move = strategies[seat](_fresh(engine.view(state, seat)), moves_given, rng, seat)
                if move is not None:  # None: the seat may act but chooses to wait
                    event = {"kind": "move", "seat": seat, "data": move}
                    moves += 1
                    break
            if event is None:
                deadline = engine.deadline(state)
                assert deadline is not None, f"{engine_slug}: nobody acts and no window is open (seed {seed})"
                event = {"kind": "system", "data": {"type": "close_window", "window": deadline.window}}
        state = engine.apply(state, event)  # a RuleError here is an illegal choice: let it fail the caller
        events += 1
    return Played(engine.outcome(state).to_json(), moves, events)


def _fresh(data):
    """A deep copy of a view or move list: built-in data (dicts, lists, tuples, sets, strings,
    numbers) through ``marshal``, which copies it in C some seven times faster than
    ``copy.deepcopy`` and keeps every type (JSON would turn tuples into lists and int keys into
    strings); anything else through ``deepcopy``."""
    try:
        return marshal.loads(marshal.dumps(data))
    except ValueError:  # an object marshal does not know (a dataclass, a dict subclass)
        return copy.deepcopy(data)


def win_rate(engine_slug: str, games: int, *, seed: int = 0, players: int | None = None, config=None) -> dict:
    """A heuristic bot against random bots, the heuristic's seat rotating from game to game.

    ``wins`` counts games where the heuristic alone ranks first; ``shared`` where it shares first.
    ``baseline`` is what a random bot in its place would win alone on average in a game that
    always has one winner (1 / players).
    """
    engine = get_engine(engine_slug)
    players = players or engine.min_seats
    heuristic = strategy_for("heuristic", engine_slug)
    wins = shared = 0
    for number in range(games):
        seat = number % players
        strategies: list[Strategy] = [random_strategy] * players
        strategies[seat] = heuristic
        first = play(engine_slug, strategies, seed * 100_003 + number, config).outcome["ranking"][0]
        if seat in first:
            wins += len(first) == 1
            shared += len(first) > 1
    return {
        "engine": engine_slug,
        "players": players,
        "games": games,
        "wins": wins,
        "shared": shared,
        "win_rate": round(wins / games, 3),
        "baseline": round(1 / players, 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots.inprocess", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--engine", help="one game slug (default: every game with a winner)")
    parser.add_argument("--players", type=int)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--config", type=json.loads, default=None)
    args = parser.parse_args(argv)
    slugs = [args.engine] if args.engine else [s for s in REGISTRY if s not in ("believers", "kazekami-kyoko")]
    for slug in slugs:
        rate = win_rate(slug, args.games, seed=args.seed, players=args.players, config=args.config)
        print(json.dumps(rate), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
