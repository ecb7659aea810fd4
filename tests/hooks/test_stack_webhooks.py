"""Webhooks on the real stack: a game's events reach a local receiver signed, and a 5xx is retried."""

from __future__ import annotations

import pytest

from kifu.devstack import wait_until

from ..conftest import Player

# django_db makes pytest-django create the test database the stack processes use. Not
# transaction=True: its flush would TRUNCATE the append-only event table.
pytestmark = [pytest.mark.stack, pytest.mark.django_db]


def register(player: Player, target, **extra) -> dict:
    response = player.post("/api/webhooks", {"url": target.url, **extra})
    assert response.status_code == 201, response.text
    hook = response.json()
    target.secret = hook["secret"]
    return hook


def of_game(received, game_id: str) -> list:
    return [r for r in received if r.json["data"]["game"] == game_id]


def test_a_games_events_arrive_signed(stack, players, receiver):
    oya, ko = players(2)
    target = receiver()
    hook = register(ko, target)
    game_id = oya.create_game("nine-card", [oya.name, ko.name], {"commit_seconds": 120})["id"]

    def kinds(received) -> list[str]:
        return [r.headers["X-Kifu-Event"] for r in of_game(received, game_id)]

    # Three deliveries to one webhook at once: each is sent (none waits for the sweep).
    target.wait_for(lambda got: {"game_started", "window_opened", "your_turn"} <= set(kinds(got)), timeout=20)
    assert oya.move(game_id, {"type": "resign"}).json()["status"] == "accepted"
    received = of_game(target.wait_for(lambda got: "game_ended" in kinds(got)), game_id)

    assert all(r.signed for r in received), "a delivery's signature did not verify with the secret"
    assert sorted(kinds(received)) == ["game_ended", "game_started", "window_opened", "your_turn"]
    for r in received:
        assert r.headers["X-Kifu-Event"] == r.json["event"] and r.headers["X-Kifu-Delivery"] == r.json["id"]
        assert r.headers["Content-Type"] == "application/json" and r.json["data"]["seat"] == 1
    ended = next(r.json for r in received if r.json["event"] == "game_ended")
    assert ended["data"]["outcome"]["ranking"][0] == [1]
    turn = next(r.json for r in received if r.json["event"] == "your_turn")
    assert turn["data"]["window"]["id"] == "turn-1" and 1 in turn["data"]["actors"]

    # The log shows every delivery with its one successful attempt (the log is written just after
    # the receiver answered, so wait for it).
    def logged():
        shown = ko.get(f"/api/webhooks/{hook['id']}/deliveries").json()
        return shown if all(d["status"] == "delivered" for d in shown) and len(shown) == 4 else None

    shown = wait_until(logged, 30, "the delivery log")
    assert {d["id"] for d in shown} == {r.json["id"] for r in received}
    assert all([a["status_code"] for a in d["attempt_log"]] == [200] for d in shown)
    assert oya.get("/api/webhooks").json() == [], "oya registered nothing"


def test_a_receiver_answering_500_gets_the_same_delivery_again_until_it_succeeds(stack, players, receiver):
    oya, ko = players(2)
    target = receiver([500, 500])
    hook = register(ko, target, events=["game_started"])
    game_id = oya.create_game("nine-card", [oya.name, ko.name])["id"]

    received = target.wait_for(lambda got: any(r.answered == 200 for r in got))
    assert [r.answered for r in received] == [500, 500, 200]
    assert all(r.signed for r in received) and {r.json["data"]["game"] for r in received} == {game_id}
    assert len({r.headers["X-Kifu-Delivery"] for r in received}) == 1, "a retry was sent as a new delivery"
    assert len({r.body for r in received}) == 1

    def logged():
        shown = ko.get(f"/api/webhooks/{hook['id']}/deliveries").json()
        return shown if shown and shown[0]["status"] == "delivered" else None

    (delivery,) = wait_until(logged, 30, "the delivery log")
    assert delivery["attempts"] == 3
    assert [(a["number"], a["status_code"]) for a in delivery["attempt_log"]] == [(1, 500), (2, 500), (3, 200)]
