"""Structured logs: KIFU_LOG_FORMAT=json, and the game and submission on the move path's lines."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from kifu import logcontext

ROOT = Path(__file__).resolve().parents[2]
LOG_A_LINE = """
import logging, os, django
os.environ["DJANGO_SETTINGS_MODULE"] = "kifu.settings"
django.setup()
from kifu import logcontext
logcontext.bind(game_id="g-1", submission_id="s-2")
logging.getLogger("kifu.games").warning("could not publish to %s", "kifu:game:g-1")
logcontext.clear()
logging.getLogger("kifu.games").warning("no context here")
"""


def run_logging(log_format: str | None) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "KIFU_LOG_FORMAT"}
    if log_format is not None:
        env["KIFU_LOG_FORMAT"] = log_format
    return subprocess.run([sys.executable, "-c", LOG_A_LINE], env=env, cwd=ROOT, capture_output=True, text=True)


def test_json_lines_carry_the_bound_ids():
    result = run_logging("json")
    assert result.returncode == 0, result.stderr
    first, second = (json.loads(line) for line in result.stderr.splitlines())
    assert first["message"] == "could not publish to kifu:game:g-1"
    assert (first["level"], first["logger"]) == ("WARNING", "kifu.games")
    assert (first["game_id"], first["submission_id"]) == ("g-1", "s-2")
    assert first["time"].startswith("20") and first["time"].endswith("+00:00")
    assert "game_id" not in second and second["message"] == "no context here"


def test_text_stays_the_default():
    result = run_logging(None)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == ["could not publish to kifu:game:g-1", "no context here"]


def test_a_bad_format_is_named():
    result = run_logging("xml")
    assert result.returncode != 0
    assert "KIFU_LOG_FORMAT='xml'" in result.stderr and "TEXT, JSON" in result.stderr


class Kept(logging.Handler):
    """Keeps the records that pass the context filter, as the console handler's would."""

    def __init__(self) -> None:
        super().__init__()
        self.addFilter(logcontext.ContextFilter())
        self.records: list[logging.LogRecord] = []

    def emit(self, record) -> None:
        self.records.append(record)


@pytest.fixture
def kept():
    handler = Kept()
    logger = logging.getLogger("kifu.test-move-path")
    logger.addHandler(handler)
    yield logger, handler.records
    logger.removeHandler(handler)


def account(name: str) -> APIClient:
    client = APIClient()
    response = client.post("/api/accounts", {"username": name, "password": "a-long-pass-1"}, format="json")
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    return client


@pytest.mark.django_db
def test_the_move_view_lines_name_the_game_and_the_submission(kept, monkeypatch):
    """A line logged while the move request waits for its verdict (games/streams.py logs there when
    Redis fails) carries both ids; the next request starts without them."""
    logger, records = kept
    from api import views

    original = views.wait_for_verdict

    def waiting(submission, wait):
        logger.warning("waiting for the verdict")
        return original(submission, wait)

    monkeypatch.setattr(views, "wait_for_verdict", waiting)
    oya = account("log-oya")
    account("log-ko")  # the second seat
    game = oya.post("/api/games", {"engine": "nine-card", "seats": ["log-oya", "log-ko"]}, format="json").json()
    response = oya.post(f"/api/games/{game['id']}/moves", {"move": {"type": "resign"}, "idempotency_key": "k"})
    assert response.status_code == 202, response.content
    (record,) = records
    assert record.game_id == game["id"]
    assert record.submission_id == response.json()["url"].rstrip("/").rsplit("/", 1)[1]
    assert logcontext.game_id.get() is None and logcontext.submission_id.get() is None


@pytest.mark.django_db
def test_a_worker_task_lines_name_its_game(kept, monkeypatch):
    logger, records = kept
    from games import services, tasks

    monkeypatch.setattr(services, "game_advance", lambda *, game_id: logger.warning("advancing") or 0)
    tasks.game_advance_task.apply(args=["6f1c2a52-9d1e-4c55-8f07-2f8e61b8f0aa"])
    tasks.window_close_task.apply(kwargs={"game_id": "0b7f0a8e-3a51-4f3e-9a43-1d5b7c0e2f11", "window": "w"})
    assert [record.game_id for record in records[:2]] == [
        "6f1c2a52-9d1e-4c55-8f07-2f8e61b8f0aa",
        "0b7f0a8e-3a51-4f3e-9a43-1d5b7c0e2f11",
    ]
    assert logcontext.game_id.get() is None  # cleared when the task ended


def test_a_task_without_a_game_binds_nothing():
    def sweep():
        return 0

    class Task:
        run = staticmethod(sweep)

    logcontext.bind(game_id="stale")
    logcontext.task_context(task=Task(), args=(), kwargs={})
    assert logcontext.game_id.get() is None
