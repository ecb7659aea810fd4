"""Reaction windows on the real stack (issue 3): katsu races, timers, a killed worker, leaks.

The test process is the omniscient referee: it reads the hidden state from the database (committed
rows are visible to it) to decide when a katsu will succeed or fail, and to know which card ids each
seat must not see. The players only ever use the HTTP API.
"""

from __future__ import annotations

import json
import random
import signal
import threading
import time

import pytest

from games.engines import get_engine
from games.models import Event, Game, Submission
from games.records import replay_record
from kifu.devstack import wait_until

from ..conftest import Player

pytestmark = [pytest.mark.stack, pytest.mark.django_db]


class Table:
    """One game seen from every seat, plus the referee's view from the database."""

    def __init__(self, players: list[Player], engine: str, config: dict) -> None:
        self.players = players
        self.engine = get_engine(engine)
        self.id = players[0].create_game(engine, [p.name for p in players], config)["id"]

    def game(self) -> dict:
        return self.players[0].get(f"/api/games/{self.id}").json()

    def referee(self):
        return self.engine.load_state(Game.objects.get(pk=self.id).state)

    def legal(self, seat: int) -> list[dict]:
        return self.players[seat].get(f"/api/games/{self.id}/legal-moves").json()["moves"]

    def move(self, seat: int, move: dict, **kwargs):
        return self.players[seat].move(self.id, move, **kwargs)

    def window_closed(self, window: str) -> dict:
        """Wait until ``window`` is no longer the open window; returns the game then."""

        def moved_on():
            game = self.game()
            return game if game["window"] is None or game["window"]["id"] != window else None

        return wait_until(moved_on, 15, f"window {window} to close")

    def check_no_leaks(self) -> None:
        """Every seat's state and events hold none of the ids the rules hide from it now."""
        before = self.game()["head_seq"]
        answers = [
            json.dumps([p.get(f"/api/games/{self.id}/state").json(), p.get(f"/api/games/{self.id}/events").json()])
            for p in self.players
        ]
        state = self.referee()
        if Game.objects.get(pk=self.id).head_seq != before:
            return  # the game moved while we looked (a timer fired): judge the next stable moment
        for seat, text in enumerate(answers):
            leaked = [card for card in self.engine.hidden_from(state, seat) if f'"{card}"' in text]
            assert not leaked, f"seat {seat} was shown {leaked}"


def test_satori_full_game_with_a_successful_and_a_failed_katsu(stack, players):
    table = Table(players(3), "satori", {"katsu_window_seconds": 0.9})
    chooser = random.Random(7)
    outcomes: set[str] = set()
    for _ in range(200):
        game = table.game()
        if game["status"] == "finished":
            break
        table.check_no_leaks()
        window = game["window"]
        if window is None:
            seat = game["actors"][0]
            moves = table.legal(seat)
            if moves:
                table.move(seat, chooser.choice(moves))
            continue
        state = table.referee()
        card = state.piles[state.last_player][0]
        kind = "success" if card[:-1] in "A 2 3 4 5 6 7 8 9 10".split() else "failure"
        caller = next((s for s in window_seats(table) if s != state.last_player), None)
        if kind not in outcomes and caller is not None:
            verdict = table.move(caller, {"type": "katsu"})
            if verdict.status_code == 200:
                outcomes.add(kind)
                continue
            assert verdict.json()["code"] == "window_closed"  # too late on a slow machine: try again later
        table.window_closed(window["id"])
    final = table.game()
    assert final["status"] == "finished" and outcomes == {"success", "failure"}, (final["status"], outcomes)
    log = final["outcome"]["detail"]
    assert log["reason"] in ("declare", "empty_hands", "last_survivor"), log
    record = table.players[1].get(f"/api/games/{table.id}/record").text
    assert replay_record(record.splitlines()).outcome_json() == final["outcome"]
    assert table.players[2].get(f"/api/games/{table.id}/verification").json()["ok"]


def window_seats(table: Table) -> list[int]:
    return [seat for seat in range(len(table.players)) if {"type": "katsu"} in table.legal(seat)]


def test_racing_challengers_exactly_one_katsu_takes_effect(stack, players):
    table = Table(players(4), "satori", {"katsu_window_seconds": 5})
    first = table.game()["actors"][0]
    assert table.move(first, table.legal(first)[0]).status_code == 200
    challengers = [seat for seat in range(4) if seat != first]
    answers: dict[int, object] = {}
    barrier = threading.Barrier(len(challengers))

    def call(seat: int) -> None:
        barrier.wait()
        answers[seat] = table.move(seat, {"type": "katsu"}, wait=15)

    threads = [threading.Thread(target=call, args=(seat,)) for seat in challengers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    accepted = [seat for seat, r in answers.items() if r.status_code == 200]
    assert len(accepted) == 1, {seat: r.json() for seat, r in answers.items()}
    for seat, response in answers.items():
        if seat not in accepted:
            assert response.status_code == 422 and response.json()["code"] == "window_closed", response.json()
    # The winner is the first katsu the server received, not the first the worker happened to see.
    katsus = Submission.objects.filter(game_id=table.id, payload={"type": "katsu"}).order_by("id")
    assert katsus.first().status == "accepted" and katsus.first().seat == accepted[0]
    assert Event.objects.filter(game_id=table.id, kind="move", payload={"type": "katsu"}).count() == 1


def test_a_window_nobody_answers_closes_by_its_timer(stack, players):
    table = Table(players(3), "satori", {"katsu_window_seconds": 0.6})
    first = table.game()["actors"][0]
    assert table.move(first, table.legal(first)[0]).status_code == 200
    opened = table.game()
    assert opened["window"]["id"] == "katsu-1" and opened["window"]["deadline_at"]
    assert sorted(opened["actors"]) == sorted(s for s in range(3) if s != first)
    after = table.window_closed("katsu-1")
    assert after["actors"] == [(first + 1) % 3]
    events = table.players[0].get(f"/api/games/{table.id}/events").json()
    assert events[-1]["kind"] == "system" and events[-1]["data"] == {"type": "close_window", "window": "katsu-1"}
    late = table.move((first + 1) % 3, {"type": "katsu"})
    assert late.status_code == 422 and late.json()["code"] == "window_closed"


def test_a_killed_worker_does_not_lose_the_window_close(stack, players):
    table = Table(players(3), "satori", {"katsu_window_seconds": 1.0})
    first = table.game()["actors"][0]
    assert table.move(first, table.legal(first)[0]).status_code == 200
    stack.worker.stop(signal.SIGKILL)  # its timer task for katsu-1 dies with it
    try:
        time.sleep(1.5)
        assert table.game()["window"]["id"] == "katsu-1"  # nobody could close it
    finally:
        stack.start_worker()
    table.window_closed("katsu-1")  # beat's sweeper finds the overdue window
    closes = Event.objects.filter(game_id=table.id, kind="system", payload__type="close_window")
    assert [e.payload["window"] for e in closes] == ["katsu-1"]  # closed exactly once


# ---- Turn Thief: get and doubt ---------------------------------------------------------------------


def discard(table: Table, *, lie: bool) -> tuple[int, dict]:
    """The seat on turn discards, lying about the card or not; returns (seat, move)."""
    seat = table.game()["actors"][0]
    moves = table.legal(seat)
    move = next(m for m in moves if (m["card"] == f"{m['declared_rank']}{m['declared_suit']}") != lie)
    assert table.move(seat, move).status_code == 200
    return seat, move


def test_turn_thief_doubt_duel(stack, players):
    table = Table(players(4), "turn-thief", {"reaction_window_seconds": 10})
    discarder, move = discard(table, lie=True)
    doubter, *others = [(discarder + k) % 4 for k in (1, 2, 3)]
    assert table.move(doubter, {"type": "call_doubt"}).status_code == 200
    for seat in others:
        assert table.move(seat, {"type": "call_none"}).status_code == 200
    game = table.game()  # everyone answered: the window closed early, no timer involved
    assert game["window"] is None or game["window"]["id"] != "reaction-1"
    assert game["actors"] == [doubter]  # the lie was caught: the doubter takes the turn
    events = table.players[0].get(f"/api/games/{table.id}/events").json()
    assert not [e for e in events if e["kind"] == "system"]
    for player in table.players:  # the doubted card was turned face up for everyone
        assert f'"{move["card"]}"' in json.dumps(player.get(f"/api/games/{table.id}/state").json())
    assert move["card"] in table.referee().hands[discarder]  # and the liar took it back


def test_turn_thief_first_received_get_wins_in_receipt_order(stack, players):
    config = {"reaction_window_seconds": 10, "reaction_mode": "open", "multi_call_priority": "first_received"}
    table = Table(players(4), "turn-thief", config)
    discarder, move = discard(table, lie=False)
    getters = [(discarder + k) % 4 for k in (1, 2, 3)]
    barrier = threading.Barrier(len(getters))

    def get(seat: int) -> None:
        barrier.wait()
        table.move(seat, {"type": "call_get"}, wait=15)

    threads = [threading.Thread(target=get, args=(seat,)) for seat in getters]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    table.window_closed("reaction-1")
    first = Submission.objects.filter(game_id=table.id, payload={"type": "call_get"}).order_by("id").first()
    result = table.referee().history[-1]
    assert (result.result, result.caller) == ("get", first.seat)
    assert move["card"] in table.referee().hands[first.seat]


def test_turn_thief_sealed_calls_stay_sealed_until_the_window_closes(stack, players):
    table = Table(players(4), "turn-thief", {"reaction_window_seconds": 10})
    discarder, _ = discard(table, lie=False)
    caller, watcher = (discarder + 1) % 4, (discarder + 2) % 4
    assert table.move(caller, {"type": "call_doubt"}).status_code == 200
    seen = json.dumps(table.players[watcher].get(f"/api/games/{table.id}/events").json())
    assert "call_doubt" not in seen
    assert "call_doubt" in json.dumps(table.players[caller].get(f"/api/games/{table.id}/events").json())
