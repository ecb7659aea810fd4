"""The lobby in the embedded default (no DATABASE_URL, no REDIS_URL: SQLite, eager tasks and the
timer thread): a table fills into a game, the finished rated game moves the site rating (an eager
task), and the timer thread expires a seek past its time - there is no beat here."""

from __future__ import annotations

import sqlite3

from kifu.devstack import embedded, wait_until

from ..conftest import Player


def test_the_embedded_service_pairs_rates_and_expires(tmp_path):
    with embedded(tmp_path) as base:
        ann, ben, cid = Player(base), Player(base), Player(base)
        seek = ann.post("/api/lobby/seeks", {"engine": "nine-card", "seats": 2}).json()
        paired = ben.post("/api/lobby/quick", {"engine": "nine-card", "seats": 2})
        assert paired.status_code == 200 and paired.json()["seek"]["id"] == seek["id"], paired.text
        game_id = paired.json()["seek"]["game"]
        assert ben.move(game_id, {"type": "resign"}).status_code == 200
        ratings = wait_until(lambda: ann.get(f"/api/players/{ann.name}/ratings").json(), 10, "the rating")
        assert ratings[0]["engine"] == "nine-card" and ratings[0]["games"] == 1 and ratings[0]["rating"] > 0

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
