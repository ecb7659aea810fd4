"""The stream-driven bot loop against a scripted client (no server): when it acts, what it reads,
how it answers a rejection, a dropped connection and a strategy that waits."""

from __future__ import annotations

import pytest

from bots import random_bot
from bots.random_bot import Bot
from kifu_client import KifuError, StreamMessage

COMMITS = [{"type": "commit_card", "card": card} for card in ("AH", "5H", "KH")]


class ScriptedClient:
    """Serves a fixed game stream; records every call; fails submissions as told."""

    def __init__(self, heads: list[dict], failures: list[KifuError] | None = None) -> None:
        self.heads = heads
        self.failures = list(failures or [])
        self.calls: list[tuple] = []
        self.seq = 0

    def stream_game(self, game_id, *, timeout=None):
        for head in self.heads:
            yield StreamMessage("head", {"game": game_id, "seat": 1, "outcome": None, **head})
        yield StreamMessage("end", {"game": game_id, "reason": "finished"})

    def state(self, game_id):
        self.calls.append(("state", game_id))
        return {"view": {"me": "seat 1 only"}, "legal_moves": COMMITS[1:]}

    def submit_move(self, game_id, move, *, idempotency_key, wait):
        self.calls.append(("move", move["card"], idempotency_key))
        if self.failures:
            raise self.failures.pop(0)
        self.seq += 1
        return {"status": "accepted", "event_seq": self.seq}


def test_random_bot_acts_once_per_head_from_the_head_alone():
    client = ScriptedClient([{"head_seq": 1, "legal_moves": COMMITS}, {"head_seq": 1, "legal_moves": COMMITS}])
    result = Bot(client, seed=3).play("g")
    assert [call[0] for call in client.calls] == ["move"]  # no state read, one move for the one head
    assert result.accepted == 1 and result.finished and result.seat == 1 and result.views == 0


def test_heuristic_kind_reads_the_seat_state_once_per_decision():
    seen = []

    def strategy(view, moves, rng, seat):
        seen.append((view, moves, seat))
        return moves[-1]

    client = ScriptedClient([{"head_seq": 1, "legal_moves": COMMITS}, {"head_seq": 3, "legal_moves": COMMITS}])
    result = Bot(client, strategy=strategy, needs_view=True).play("g")
    assert seen == [({"me": "seat 1 only"}, COMMITS[1:], 1)] * 2  # the state's view and moves, not the head's
    assert [call[:2] for call in client.calls] == [("state", "g"), ("move", "KH")] * 2
    assert result.views == 2 and result.accepted == 2


def test_a_rejected_move_is_answered_with_another():
    rejected = KifuError("window_closed", "too late", 422)
    client = ScriptedClient([{"head_seq": 1, "legal_moves": COMMITS}], failures=[rejected])
    result = Bot(client, strategy=lambda view, moves, rng, seat: moves[0]).play("g")
    assert [call[1:] for call in client.calls] == [("AH", "g:1:1:0"), ("5H", "g:1:1:1")]
    assert result.rejections == {"window_closed": 1} and result.accepted == 1


def test_a_dropped_connection_resends_the_same_submission(monkeypatch):
    monkeypatch.setattr(random_bot.time, "sleep", lambda seconds: None)
    dropped = KifuError("connection_error", "reset by peer", 0)
    client = ScriptedClient([{"head_seq": 1, "legal_moves": COMMITS}], failures=[dropped, dropped])
    result = Bot(client, strategy=lambda view, moves, rng, seat: moves[0]).play("g")
    assert [call[1:] for call in client.calls] == [("AH", "g:1:1:0")] * 3  # same idempotency key each time
    assert result.accepted == 1

    client = ScriptedClient([{"head_seq": 1, "legal_moves": COMMITS}], failures=[dropped] * 4)
    with pytest.raises(KifuError, match="reset by peer"):
        Bot(client).play("g")


def test_a_strategy_may_let_a_head_pass():
    client = ScriptedClient([{"head_seq": 1, "legal_moves": [{"type": "propose_tie"}]}])
    result = Bot(client, strategy=lambda view, moves, rng, seat: None).play("g")
    assert client.calls == [] and result.waited == 1 and result.submitted == 0
