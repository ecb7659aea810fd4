"""Clocks (a game's time_control): per-move windows, resigning on time, and a Fischer bank on the stack."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from games import services
from games.models import Game
from games.selectors import legal_moves
from kifu.devstack import wait_until

from ..conftest import Player


def make_user(name: str):
    return get_user_model().objects.create_user(username=name, password="a-long-pass-1")


def clocked(oya, ko, config=None, seconds=60) -> Game:
    return services.game_create(
        consent=True,
        engine_slug="nine-card",
        config=config or {},
        seats=[oya, ko],
        created_by=oya,
        time_control={"per_move_seconds": seconds},
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    "time_control",
    [{}, {"per_move_seconds": 0}, {"per_move_seconds": "60"}, {"per_move_seconds": True}, {"per_move": 5}, [60], 60],
)
def test_a_bad_time_control_is_refused(time_control):
    oya = make_user("oya")
    api = APIClient()
    api.force_authenticate(oya)
    body = {"engine": "nine-card", "seats": ["oya", None], "time_control": time_control}
    response = api.post("/api/games", body, format="json")
    assert (response.status_code, response.json()["code"]) == (400, "bad_time_control"), response.json()
    assert "per_move_seconds" in response.json()["message"] and not Game.objects.filter(created_by=oya).exists()


@pytest.mark.django_db
def test_the_clock_is_a_window_that_restarts_with_every_event():
    oya, ko = make_user("oya"), make_user("ko")
    game = clocked(oya, ko)
    assert game.meta == {"time_control": {"per_move_seconds": 60, "on_timeout": "loss"}}
    assert game.window == f"clock-{game.head_seq}" and game.deadline_at - game.window_opened_at == timedelta(seconds=60)
    first = game.window
    card = legal_moves(game=game, seat=0)[0]
    services.move_submit(game_id=game.pk, user=oya, move=card, idempotency_key="a")
    services.game_advance(game_id=game.pk)
    game.refresh_from_db()
    assert game.window == f"clock-{game.head_seq}" != first and game.actors == [1]


@pytest.mark.django_db
def test_an_engine_window_takes_precedence_over_the_clock():
    game = clocked(make_user("oya"), make_user("ko"), config={"commit_seconds": 120})
    assert game.window == "turn-1" and game.deadline_at - game.window_opened_at == timedelta(seconds=120)


@pytest.mark.django_db
def test_the_seat_that_lets_the_clock_run_out_resigns():
    oya, ko = make_user("oya"), make_user("ko")
    game = clocked(oya, ko)
    services.move_submit(game_id=game.pk, user=oya, move=legal_moves(game=game, seat=0)[0], idempotency_key="a")
    services.game_advance(game_id=game.pk)
    services.deadlines_sweep()
    assert not Game.objects.get(pk=game.pk).is_finished, "ended before the clock ran out"
    Game.objects.filter(pk=game.pk).update(deadline_at=timezone.now() - timedelta(seconds=1))
    assert services.deadlines_sweep() >= 1
    game.refresh_from_db()
    assert game.is_finished and game.window == "" and game.deadline_at is None
    assert game.outcome["ranking"] == [[0], [1]]
    last = game.events.order_by("-seq").first()
    assert (last.kind, last.payload) == ("system", {"type": "resign", "seat": 1, "reason": "timeout"})


@pytest.mark.stack
@pytest.mark.django_db
def test_a_clocked_nine_card_game_ends_on_time_on_the_stack(stack, players):
    oya, ko = players(2)
    game = oya.create_game("nine-card", [oya.name, ko.name], time_control={"per_move_seconds": 1})
    assert game["meta"]["time_control"] == {"per_move_seconds": 1, "on_timeout": "loss"}
    assert game["window"]["id"].startswith("clock-")
    card = oya.get(f"/api/games/{game['id']}/legal-moves").json()["moves"][0]
    assert oya.move(game["id"], card).json()["status"] == "accepted"
    # ko never moves: the clock runs out and ko resigns on time.
    finished = wait_until(
        lambda: (g := oya.get(f"/api/games/{game['id']}").json())["status"] == "finished" and g, 30, "the clock"
    )
    assert finished["outcome"]["ranking"] == [[0], [1]] and finished["window"] is None
    last = oya.get(f"/api/games/{game['id']}/events").json()[-1]
    assert last["kind"] == "system" and last["data"] == {"type": "resign", "seat": 1, "reason": "timeout"}
    assert Player(stack.base_url).get(f"/api/games/{game['id']}/verification").json()["ok"]


@pytest.mark.stack
@pytest.mark.django_db
def test_a_bank_with_increment_runs_out_on_the_stack(stack, players):
    oya, ko = players(2)
    control = {"bank_seconds": 2, "increment_seconds": 1}
    game = oya.create_game("nine-card", [oya.name, ko.name], time_control=control)
    game_id, clock = game["id"], game["clock"]
    assert clock["kind"] == "bank" and [s["running"] for s in clock["seats"]] == [True, True]
    assert all(0 < s["remaining_ms"] <= 2000 for s in clock["seats"])

    def commit(player):
        card = player.get(f"/api/games/{game_id}/legal-moves").json()["moves"][0]
        assert player.move(game_id, card).json()["status"] == "accepted"

    commit(oya)  # both play the first trick quickly: each gets the 1 s increment
    commit(ko)
    commit(oya)  # the second trick: ko never answers and its bank runs out
    mid = oya.get(f"/api/games/{game_id}").json()["clock"]["seats"]
    assert mid[1]["running"] and not mid[0]["running"] and mid[0]["remaining_ms"] > 2000  # two increments
    finished = wait_until(
        lambda: (g := oya.get(f"/api/games/{game_id}").json())["status"] == "finished" and g, 30, "the bank"
    )
    assert finished["outcome"]["ranking"] == [[0], [1]] and finished["window"] is None
    seats = finished["clock"]["seats"]
    assert seats[1] == {"seat": 1, "remaining_ms": 0, "running": False} and seats[0]["remaining_ms"] > 2000
    events = oya.get(f"/api/games/{game_id}/events").json()
    assert events[-1]["kind"] == "system" and events[-1]["data"] == {"type": "resign", "seat": 1, "reason": "timeout"}
    # ko had at most 2 + 1 s in all: the timeout came about then, not at a per-move pace
    started = datetime.fromisoformat(finished["started_at"].replace("Z", "+00:00"))
    ended = datetime.fromisoformat(events[-1]["created_at"].replace("Z", "+00:00"))
    assert timedelta(seconds=2) <= ended - started < timedelta(seconds=15)
    assert Player(stack.base_url).get(f"/api/games/{game_id}/verification").json()["ok"]
