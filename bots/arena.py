"""Bots play each other over HTTP: results, and throughput as a benchmark.

    python -m bots.arena --games 20 --engine nine-card --base-url http://127.0.0.1:8000
                         [--bots heuristic,random] [--players N] [--parallel 2]
                         [--config '{"commit_seconds": 30}'] [--seed 1] [--json]

It makes one bot account per seat (``"bot": true``), then plays ``--games`` games, ``--parallel``
at a time; in every game each bot follows its own game stream and answers with the move of its
kind: ``random`` or ``heuristic`` (``--bots``: one kind per bot, comma-separated; a single kind
is used for every seat; default all random). Seats rotate from game to game, so each bot plays
every seat. Account set-up is outside the timed part. It prints one line per game and a summary
with wins per bot and games/min and moves/s: numbers to compare between runs on one machine, not
a pass mark.

Every bot holds one open stream, and each open stream holds one web thread (gunicorn gthread):
keep ``parallel x players`` well below the server's ``workers x threads`` (bin/serve: 1 x 8), or
streams starve the move requests they wait for.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from kifu_client import KifuClient, KifuError

from .heuristics import KINDS, strategy_for
from .random_bot import Bot, BotResult


@dataclass
class GameResult:
    game_id: str
    names: list[str]  # seat order
    bots: list[BotResult]
    seconds: float

    @property
    def outcome(self) -> dict | None:
        return next((bot.outcome for bot in self.bots if bot.outcome), None)

    @property
    def finished(self) -> bool:
        return all(bot.finished for bot in self.bots)

    @property
    def moves(self) -> int:
        return sum(bot.accepted for bot in self.bots)

    def winners(self) -> list[str]:
        outcome = self.outcome
        if not outcome or not outcome["ranking"] or len(outcome["ranking"][0]) != 1:
            return []  # unfinished, or a tie for first
        return [self.names[outcome["ranking"][0][0]]]


def make_bots(base_url: str, players: int, *, mature: bool, kinds: list[str] | None = None) -> list[tuple]:
    """One new bot account per seat, named after its kind: ``(name, client, index, kind)``. For a
    mature game the operator has vouched for the bot accounts (``--mature-consent``), and each
    one confirms it as the API asks of every player. Each then plays with a play-only personal token."""
    tag = secrets.token_hex(3)
    kinds = kinds or ["random"] * players
    bots = []
    for index in range(players):
        name = f"arena-{tag}-{index}-{kinds[index]}"
        client = KifuClient.create_account(base_url, name, secrets.token_urlsafe(12), bot=True)
        if mature:
            client.mature_consent(adult=True, consent=True)
        client.play_only(name)  # a bot holds a play-only token (issue 19 item 3), not its account's
        bots.append((name, client, index, kinds[index]))
    return bots


def play_game(
    number: int, engine: str, config: dict, bots, seed: int | None, wait: float, mature: bool = False
) -> GameResult:
    shift = number % len(bots)
    seated = bots[shift:] + bots[:shift]  # rotate the seats from game to game
    names = [name for name, *_ in seated]
    started = time.perf_counter()
    game = seated[0][1].create_game(engine, names, config)
    if mature:  # each player accepts the seat given to them; the last acceptance starts the game
        for _, client, *_ in seated[1:]:
            client.accept(game["id"])
    results: list[BotResult | None] = [None] * len(seated)

    def run(position: int, client: KifuClient, index: int, kind: str) -> None:
        bot_seed = None if seed is None else seed * 1000 + number * 10 + index
        bot = Bot.of_kind(kind, client, engine, seed=bot_seed, wait=wait)
        try:
            results[position] = bot.play(game["id"])
        except KifuError as error:
            # The seat resigns so that the game ends and the other bots are not left waiting for it.
            results[position] = bot.result
            bot.result.error = str(error)
            try:
                client.resign(game["id"])
            except KifuError:
                pass  # the game may be over already; the summary reports the error either way

    threads = [
        threading.Thread(target=run, args=(position, client, index, kind), name=f"bot-{number}-{position}")
        for position, (_, client, index, kind) in enumerate(seated)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    bot_results = [r if r is not None else BotResult(game["id"]) for r in results]
    return GameResult(game["id"], names, bot_results, time.perf_counter() - started)


def run(
    *,
    base_url: str,
    engine: str,
    games: int,
    players: int | None = None,
    parallel: int = 2,
    config: dict | None = None,
    seed: int | None = None,
    wait: float = 10.0,
    mature_consent: bool = False,
    bots: list[str] | None = None,
    out=sys.stdout,
) -> dict:
    """Play the games and return the summary (also printed to ``out`` unless it is None).

    ``bots`` is one kind per seat (or one kind for all); the default is all random."""
    info = KifuClient(base_url).engine(engine)
    if info["mature"] and not mature_consent:
        raise ValueError(f"{engine} is a mature game: its players must consent; pass --mature-consent to let the bots")
    kinds = list(bots or ["random"])
    players = players or (len(kinds) if len(kinds) > 1 else info["min_players"])
    if len(kinds) == 1:
        kinds *= players
    if not info["min_players"] <= players <= info["max_players"]:
        raise ValueError(f"{engine} is played by {info['min_players']}-{info['max_players']} players, not {players}")
    if len(kinds) != players:
        raise ValueError(f"--bots names {len(kinds)} bots for {players} players; name one per seat or one for all")
    for kind in set(kinds):
        strategy_for(kind, engine)  # an unknown kind or game fails before any account is made
    seated_bots = make_bots(base_url, players, mature=info["mature"], kinds=kinds)
    say = (lambda line: print(line, file=out, flush=True)) if out is not None else (lambda line: None)
    say(f"arena: {games} {engine} games, bots {','.join(kinds)}, {parallel} at a time, at {base_url}")

    started = time.perf_counter()
    results: list[GameResult] = []
    with ThreadPoolExecutor(max_workers=parallel) as pool:
        futures = [
            pool.submit(play_game, n, engine, config or {}, seated_bots, seed, wait, info["mature"])
            for n in range(games)
        ]
        for future in futures:
            result = future.result()
            results.append(result)
            winners = ", ".join(result.winners()) or ("draw" if result.finished else "unfinished")
            say(f"  {result.game_id}  {winners:<22} {result.moves:4d} moves  {result.seconds:6.2f} s")
    elapsed = time.perf_counter() - started

    wins = Counter(name for result in results for name in result.winners())
    moves = sum(result.moves for result in results)
    rejected = Counter()
    for result in results:
        for bot in result.bots:
            rejected.update(bot.rejections)
    summary = {
        "engine": engine,
        "games": games,
        "finished": sum(result.finished for result in results),
        "players": players,
        "bots": kinds,
        "parallel": parallel,
        "wins": {name: wins.get(name, 0) for name, *_ in seated_bots},
        "wins_by_kind": {kind: sum(wins.get(name, 0) for name, *_, k in seated_bots if k == kind) for kind in kinds},
        "draws": sum(1 for result in results if result.finished and not result.winners()),
        "moves": moves,
        "rejected": dict(rejected),
        "bot_errors": [bot.error for result in results for bot in result.bots if bot.error],
        "seconds": round(elapsed, 3),
        "games_per_minute": round(games / elapsed * 60, 2) if elapsed else None,
        "moves_per_second": round(moves / elapsed, 2) if elapsed else None,
        "game_ids": [result.game_id for result in results],
    }
    say(f"finished {summary['finished']}/{games}; wins {summary['wins']}; draws {summary['draws']}")
    say(f"moves {moves} (rejected {sum(rejected.values())}: {dict(rejected) or 'none'})")
    for error in summary["bot_errors"]:
        say(f"a bot stopped and resigned: {error}")
    say(
        f"throughput: {summary['games_per_minute']} games/min, {summary['moves_per_second']} moves/s "
        f"over {elapsed:.2f} s"
    )
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots.arena", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, required=True, help="how many games to play")
    parser.add_argument("--engine", required=True, help="a game slug from /api/engines")
    parser.add_argument("--base-url", default="http://127.0.0.1:8000", help="the Kifu server")
    parser.add_argument(
        "--bots",
        type=lambda text: [kind.strip() for kind in text.split(",")],
        default=["random"],
        help=f"bot kinds, one per seat or one for all, comma-separated: {', '.join(KINDS)} (default random)",
    )
    parser.add_argument("--players", type=int, help="players per game (default: one per --bots, else the minimum)")
    parser.add_argument("--parallel", type=int, default=2, help="games at a time (each bot holds a stream)")
    parser.add_argument("--config", type=json.loads, default={}, help="game config flags as a JSON object")
    parser.add_argument("--seed", type=int, help="seed the bots' choices")
    parser.add_argument("--wait", type=float, default=10.0, help="seconds a bot waits for each verdict")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON at the end")
    parser.add_argument(
        "--mature-consent", action="store_true", help="confirm mature-content consent for the arena's bot accounts"
    )
    args = parser.parse_args(argv)
    if args.games < 1 or args.parallel < 1:
        parser.error("--games and --parallel must be at least 1")
    try:
        summary = run(
            base_url=args.base_url,
            engine=args.engine,
            games=args.games,
            players=args.players,
            parallel=args.parallel,
            config=args.config,
            seed=args.seed,
            wait=args.wait,
            mature_consent=args.mature_consent,
            bots=args.bots,
        )
    except (KifuError, ValueError) as error:
        print(f"arena: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(summary, indent=2))
    return 0 if summary["finished"] == args.games else 1


if __name__ == "__main__":
    sys.exit(main())
