"""GET /api/me/turns: an account's turns across its running games, and waiting for one."""

from __future__ import annotations

import threading
import time

import pytest

from games import notices, streams

from .test_games_api import account, ko, oya, submit  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db


def new_game(first, second_name, second):
    response = first.post("/api/games", {"engine": "nine-card", "seats": ["oya", second_name]}, format="json")
    assert response.status_code == 201, response.json()
    assert second.post(f"/api/games/{response.json()['id']}/accept", format="json").status_code == 200
    return response.json()["id"]


def test_turns_list_where_the_seat_may_act_with_its_moves(oya, ko):  # noqa: F811
    game = new_game(oya, "ko", ko)
    for client in (oya, ko):
        turns = client.get("/api/me/turns").json()
        legal = client.get(f"/api/games/{game}/legal-moves").json()
        if legal["moves"]:
            assert turns["waiting"] == []
            [turn] = turns["turns"]
            expected = {"game": game, "engine": "nine-card", "seat": legal["seat"], "head_seq": 1}
            assert turn == {**expected, "moves": legal["moves"]}
        else:
            assert turns["turns"] == []
            assert turns["waiting"] == [{"game": game, "engine": "nine-card", "seat": legal["seat"], "head_seq": 1}]
    assert account("nobody").get("/api/me/turns").json() == {"turns": [], "waiting": []}


def test_a_game_with_a_pending_move_is_waiting_and_a_finished_one_is_gone(submit, oya, ko):  # noqa: F811
    game = new_game(oya, "ko", ko)
    [turn] = oya.get("/api/me/turns").json()["turns"]
    posted = oya.post(f"/api/games/{game}/moves", {"move": turn["moves"][0], "idempotency_key": "k1"}, format="json")
    assert posted.status_code == 202  # no worker ran: pending
    after = oya.get("/api/me/turns").json()
    assert after["turns"] == [] and [item["game"] for item in after["waiting"]] == [game]
    assert submit(ko, game, {"type": "resign"}, "k2")["status"] == "accepted"
    assert oya.get("/api/me/turns").json() == {"turns": [], "waiting": []}


def test_wait_returns_at_its_end_without_news(oya, ko):  # noqa: F811
    game = new_game(oya, "ko", ko)
    [turn] = oya.get("/api/me/turns").json()["turns"]
    oya.post(f"/api/games/{game}/moves", {"move": turn["moves"][0], "idempotency_key": "k1"}, format="json")
    started = time.monotonic()
    answer = oya.get("/api/me/turns", {"wait": 0.5})  # the move is pending: nothing to do meanwhile
    assert answer.status_code == 200 and answer.json()["turns"] == []
    assert 0.45 <= time.monotonic() - started < 5
    bad = oya.get("/api/me/turns", {"wait": 31})
    assert (bad.status_code, bad.json()["code"]) == (400, "bad_parameter")


def test_notice_wait_reads_again_on_a_notice_and_answers_when_ready(monkeypatch):
    """The long poll wakes on the channel's notice, not at its timeout nor at its periodic re-read."""
    monkeypatch.setattr(streams, "LONG_POLL_REREAD_SECONDS", 30.0)
    name = notices.account_channel(987654)
    reads = []
    ready_at = []

    def read():
        reads.append(time.monotonic())
        return bool(ready_at)

    def announce():
        time.sleep(0.3)
        ready_at.append(time.monotonic())
        notices.BUS.deliver(name, {"game": "x", "seq": 2})

    threading.Thread(target=announce, daemon=True).start()
    started = time.monotonic()
    assert streams.notice_wait(name, read, bool, 10) is True
    assert time.monotonic() - started < 5  # woken by the notice, long before 10 s (or a re-read at 30 s)
    assert len(reads) >= 3  # first read, after subscribing, after the notice


def test_the_submission_json_is_the_serializers(submit, oya, ko):  # noqa: F811
    """The move endpoint builds its answer without the ModelSerializer; both must agree field by field."""
    from rest_framework.test import APIRequestFactory

    from api.serializers import SubmissionSerializer, submission_json
    from games.models import Submission

    game, other = new_game(oya, "ko", ko), new_game(oya, "ko", ko)
    submit(ko, game, {"type": "commit", "card": "XX"}, "r")  # a rejected one
    submit(ko, game, {"type": "resign"}, "a")  # an accepted one
    [turn] = oya.get("/api/me/turns").json()["turns"]
    oya.post(f"/api/games/{other}/moves", {"move": turn["moves"][0], "idempotency_key": "p"}, format="json")
    request = APIRequestFactory().get("/")
    stored = list(Submission.objects.all())
    assert {item.status for item in stored} == {"pending", "accepted", "rejected"}
    for submission in stored:
        expected = SubmissionSerializer(submission, context={"request": request}).data
        assert submission_json(submission, request) == expected
