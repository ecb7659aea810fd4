"""A bot that plays any Kifu game with uniformly random legal moves, driven by the game stream.

It never polls: the game stream's ``head`` messages say when its seat may act and carry that
seat's legal moves, so the bot only reads its own stream and submits moves. It knows nothing of
any game's rules, which makes it a bot for every registered engine.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from kifu_client import KifuClient, KifuError, Move


@dataclass
class BotResult:
    game_id: str
    seat: int | None = None
    submitted: int = 0
    accepted: int = 0
    rejected: int = 0
    rejections: Counter = field(default_factory=Counter)
    messages: int = 0
    outcome: dict | None = None
    finished: bool = False


class RandomBot:
    """Plays one seat of a game: at each head where it may act, one random legal move.

    A move is submitted with an idempotency key made of the game, seat and head seq, and the
    verdict is awaited (``wait``) so that a rejection (the state moved on in between, such as a
    window closing) can be answered with another move; the next head brings fresh moves anyway.
    """

    def __init__(
        self,
        client: KifuClient,
        *,
        seed: int | None = None,
        wait: float = 10.0,
        retries: int = 2,
        stream_timeout: float | None = None,
    ) -> None:
        self.client = client
        self.rng = random.Random(seed)
        self.wait = wait
        self.retries = retries
        self.stream_timeout = stream_timeout

    def choose(self, moves: list[Move]) -> Move:
        """The bot's policy; a subclass may do better than chance."""
        return self.rng.choice(moves)

    def play(self, game_id: str) -> BotResult:
        """Play until the game ends (or the stream gives up); returns what happened."""
        result = BotResult(game_id)
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
                    fresh_from = self._act(game_id, head["head_seq"], list(moves), result) or fresh_from
            elif message.type == "end":
                result.finished = message.data.get("reason") == "finished"
        return result

    def _act(self, game_id: str, head_seq: int, moves: list[Move], result: BotResult) -> int | None:
        """Submit one move for this head; returns the seq of the event it became, if accepted."""
        for attempt in range(self.retries + 1):
            move = self.choose(moves)
            key = f"{game_id}:{result.seat}:{head_seq}:{attempt}"
            result.submitted += 1
            try:
                submission = self.client.submit_move(game_id, move, idempotency_key=key, wait=self.wait)
            except KifuError as error:
                if error.status != 422:
                    raise
                result.rejected += 1
                result.rejections[error.code] += 1
                moves.remove(move)
                if error.code == "game_over" or not moves:
                    return None
                continue
            if submission["status"] == "accepted":
                result.accepted += 1
                return submission["event_seq"]
            return None  # still pending: the stream tells what happened next
        return None
