"""The spectator delay on the real stack: a spectator's stream and events lag by the delay, a
seated player's do not, and a spectator never sees an event younger than the delay."""

from __future__ import annotations

import json
import threading
import time
from datetime import datetime

import pytest
import requests

from kifu.devstack import wait_until

pytestmark = [pytest.mark.stack, pytest.mark.django_db]
DELAY = 3


def moment(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def watch(session: requests.Session, url: str, sink: list) -> threading.Thread:
    """Read a game stream (NDJSON) in a thread, noting when each message arrived."""

    def run():
        with session.get(url, params={"format": "ndjson", "timeout": 90}, stream=True, timeout=120) as response:
            assert response.status_code == 200, response.text
            for line in response.iter_lines():
                if line:
                    message = json.loads(line)
                    sink.append((time.time(), message))
                    if message["type"] == "end":
                        return

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_a_spectator_lags_by_the_delay_and_a_seated_player_does_not(stack, players):
    oya, ko, fan = players(3)
    game_id = oya.create_game("nine-card", [oya.name, ko.name], spectator_delay_seconds=DELAY)["id"]
    url = f"{stack.base_url}/api/games/{game_id}/stream"
    streams = {"oya": [], "fan": [], "anonymous": []}
    threads = [
        watch(oya.http, url, streams["oya"]),
        watch(fan.http, url, streams["fan"]),
        watch(requests.Session(), url, streams["anonymous"]),
    ]
    seen_by_fan = []
    for _trick in range(2):
        for player in (oya, ko):
            card = player.get(f"/api/games/{game_id}/legal-moves").json()["moves"][0]
            assert player.move(game_id, card).json()["status"] == "accepted"
            asked = time.time()
            events = fan.get(f"/api/games/{game_id}/events").json()
            head = oya.get(f"/api/games/{game_id}").json()["head_seq"]
            assert not events or events[-1]["seq"] < head, "the spectator saw the move at once"
            assert all(moment(e["created_at"]) <= asked - DELAY for e in events), "an event younger than the delay"
            assert fan.get(f"/api/games/{game_id}/state").json()["head_seq"] < head
            seen_by_fan.append(len(events))
            time.sleep(1.0)  # so that the deal and the first moves pass the delay during the game
    assert ko.move(game_id, {"type": "resign"}).json()["status"] == "accepted"
    final = oya.get(f"/api/games/{game_id}").json()
    assert final["status"] == "finished"
    assert fan.get(f"/api/games/{game_id}").json()["status"] == "running"  # the end is not public yet
    for thread in threads:
        thread.join(60)
        assert not thread.is_alive(), "a stream did not end"

    created = {e["seq"]: moment(e["created_at"]) for e in oya.get(f"/api/games/{game_id}/events").json()}
    assert max(seen_by_fan) > 0, "the spectator saw nothing during the game: the delay proved nothing"
    for name, messages in streams.items():
        events = [(at, m["data"]) for at, m in messages if m["type"] == "event"]
        assert [e["seq"] for _, e in events] == list(range(1, final["head_seq"] + 1)), name
        lags = [at - created[e["seq"]] for at, e in events]
        end_at, end = messages[-1]
        assert end["type"] == "end" and end["data"]["reason"] == "finished", name
        if name == "oya":
            assert max(lags) < 2, lags
            assert end_at - moment(final["finished_at"]) < 2
        else:
            # never younger than the delay, and sent as each event passes it (not at a keep-alive)
            assert min(lags) >= DELAY, (name, lags)
            assert max(lags) < DELAY + 2, (name, lags)
            assert end_at - moment(final["finished_at"]) >= DELAY
            heads = [m["data"] for _, m in messages if m["type"] == "head"]
            assert all(h["seat"] is None and "legal_moves" not in h for h in heads)
            deal = events[0][1]
            assert deal["data"]["type"] == "deal" and deal["data"]["hands"] == [None, None], "a hidden hand"
    assert wait_until(lambda: fan.get(f"/api/games/{game_id}").json()["status"] == "finished", 10, "public")
