"""Bots that play any Kifu game driven by the game stream: random, or a heuristic per game.

A bot never polls: the game stream's ``head`` messages say when its seat may act and carry that
seat's legal moves. The random bot answers from the head alone, knowing nothing of any game's
rules, which makes it a bot for every registered engine. A heuristic bot (``bots/heuristics``)
also needs its seat's view: at each head where it may act it reads the state once (``GET
/api/games/{id}/state``: the seat's view and legal moves at one head) and asks its strategy.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass, field

from kifu_client import KifuClient, KifuError, Move

from .heuristics import Strategy, random_strategy, storytelling, strategy_for

CONNECTION_RETRIES = 3


@dataclass
class BotResult:
    game_id: str
    seat: int | None = None
    submitted: int = 0
    accepted: int = 0
    rejected: int = 0
    pending: int = 0  # no verdict within ``wait``: the move may still have been accepted later
    rejections: Counter = field(default_factory=Counter)
    messages: int = 0
    views: int = 0  # state reads (heuristic bots: one per decision)
    waited: int = 0  # heads where the strategy chose not to move
    outcome: dict | None = None
    finished: bool = False
    error: str | None = None  # what stopped the bot, if something did (set by its runner)


class Bot:
    """Plays one seat of a game: at each head where it may act, the move its strategy picks.

    A move is submitted with an idempotency key made of the game, seat and head seq, and the
    verdict is awaited (``wait``) so that a rejection (the state moved on in between, such as a
    window closing) can be answered with another move; the next head brings fresh moves anyway.
    A strategy that answers None (only moves it never makes are legal, such as offering a tie)
    lets the head pass.
    """

    def __init__(
        self,
        client: KifuClient,
        *,
        strategy: Strategy = random_strategy,
        needs_view: bool = False,
        seed: int | None = None,
        wait: float = 10.0,
        retries: int = 2,
        stream_timeout: float | None = None,
    ) -> None:
        self.client = client
        self.strategy = strategy
        self.needs_view = needs_view
        self.rng = random.Random(seed)
        self.wait = wait
        self.retries = retries
        self.stream_timeout = stream_timeout

    @classmethod
    def of_kind(cls, kind: str, client: KifuClient, engine: str, **options) -> Bot:
        """A ``random`` or ``heuristic`` bot for the game ``engine``."""
        return cls(client, strategy=strategy_for(kind, engine), needs_view=kind != "random", **options)

    def choose(self, view: dict, moves: list[Move], seat: int) -> Move | None:
        return self.strategy(view, moves, self.rng, seat)

    def play(self, game_id: str) -> BotResult:
        """Play until the game ends (or the stream gives up); returns what happened."""
        result = self.result = BotResult(game_id)  # also readable by a runner if play() raises
        acted: set[int] = set()
        fresh_from = 0  # heads before our own last accepted move are stale: they predate it
        for message in self.client.stream_game(game_id, timeout=self.stream_timeout):
            result.messages += 1
            if message.type == "head":
                head = message.data
                result.seat = head.get("seat")
                result.outcome = head.get("outcome")
                moves = head.get("legal_moves") or []
                if moves and head["head_seq"] not in acted and head["head_seq"] >= fresh_from:
                    acted.add(head["head_seq"])
                    view: dict = {}
                    if self.needs_view:  # the seat's view and moves at one head, read once per decision
                        state = self._resilient(self.client.state, game_id)
                        view, moves = state.get("view") or {}, state.get("legal_moves") or []
                        result.views += 1
                    if moves:
                        fresh_from = self._act(game_id, head["head_seq"], view, list(moves), result) or fresh_from
            elif message.type == "end":
                result.finished = message.data.get("reason") == "finished"
        return result

    def _resilient(self, call, *args, **kwargs):
        """``call(*args, **kwargs)``, tried again after a dropped connection (a web worker restarting, say): safe,
        since a state read changes nothing and a submission carries its idempotency key."""
        for attempt in range(CONNECTION_RETRIES + 1):
            try:
                return call(*args, **kwargs)
            except KifuError as error:
                if error.code != "connection_error" or attempt == CONNECTION_RETRIES:
                    raise
                time.sleep(0.5 * (attempt + 1))
        raise AssertionError("unreachable")

    def _act(self, game_id: str, head_seq: int, view: dict, moves: list[Move], result: BotResult) -> int | None:
        """Submit one move for this head; returns the seq of the event it became, if accepted."""
        for attempt in range(self.retries + 1):
            move = self.choose(view, moves, result.seat)
            if move is None:
                result.waited += 1
                return None
            key = f"{game_id}:{result.seat}:{head_seq}:{attempt}"
            result.submitted += 1
            try:
                submission = self._resilient(
                    self.client.submit_move, game_id, move, idempotency_key=key, wait=self.wait
                )
            except KifuError as error:
                if error.status != 422:
                    raise
                result.rejected += 1
                result.rejections[error.code] += 1
                moves = [m for m in moves if m != move and not storytelling.is_filled(m, move)]
                if error.code == "game_over" or not moves:
                    return None
                continue
            if submission["status"] == "accepted":
                result.accepted += 1
                return submission["event_seq"]
            result.pending += 1
            return None  # still pending: the stream tells what happened next
        return None


class RandomBot(Bot):
    """Uniformly random legal moves from the head alone: a bot for every registered engine."""

    def __init__(self, client: KifuClient, **options) -> None:
        super().__init__(client, strategy=random_strategy, needs_view=False, **options)
