"""The lobby in the embedded default (no DATABASE_URL, no REDIS_URL: SQLite, eager tasks and the
timer thread): a table fills into a game, the finished rated game moves the site rating (an eager
task), and the timer thread expires a seek past its time - there is no beat here."""

from __future__ import annotations

import sqlite3

from kifu.devstack import embedded, wait_until
from kifu_client import KifuClient

from ..conftest import Player


def test_the_embedded_service_pairs_rates_and_expires(tmp_path):
    with embedded(tmp_path) as base:
        # Through the Python client, as a bot would: one opens a table, the other quick-pairs into it.
        ann, ben = (KifuClient.create_account(base, name, "a-long-pass-1") for name in ("ann", "ben"))
        seek = ann.open_seek("nine-card", 2, time_control={"per_move_seconds": 600})
        assert [s["id"] for s in ben.seeks("nine-card")] == [seek["id"]]
        paired = ben.quick_pair("nine-card", 2, time_control={"per_move_seconds": 600})
        assert paired["joined"] and paired["seek"]["id"] == seek["id"] and paired["seek"]["status"] == "filled"
        game_id = paired["seek"]["game"]
        assert ben.resign(game_id)["status"] == "accepted"
        ratings = wait_until(lambda: ann.site_ratings("ann"), 10, "the rating")
        assert ratings[0]["engine"] == "nine-card" and ratings[0]["games"] == 1 and ratings[0]["rating"] > 0
        rematch = ben.rematch(game_id)
        assert rematch["status"] == "open" and ann.rematch(game_id)["status"] == "running"

        cid = Player(base)

        waiting = cid.post("/api/lobby/seeks", {"engine": "satori", "seats": 3}).json()
        with sqlite3.connect(tmp_path / "kifu.sqlite3") as db:  # its time is up now
            db.execute(
                "UPDATE lobby_seek SET expires_at = '2000-01-01 00:00:00' WHERE id = ?",
                [waiting["id"].replace("-", "")],
            )
        expired = wait_until(
            lambda: cid.get(f"/api/lobby/seeks/{waiting['id']}").json()["status"] == "expired", 15, "the timer thread"
        )
        assert expired
