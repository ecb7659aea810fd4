"""Every registered game plays a whole game through the HTTP API on the real stack.

Random clients pick among the legal moves their own seat is offered; open reaction windows are left
to the server's timers. Config keeps the long games short (caps and sub-second windows).
"""

from __future__ import annotations

import random
import time

import pytest

from games.engines import REGISTRY
from games.records import replay_record

pytestmark = [pytest.mark.stack, pytest.mark.django_db]

SHORT = {
    "satori": {"katsu_window_seconds": 0.5},
    "turn-thief": {"reaction_window_seconds": 0.5, "max_discards": 12},
    "necropolis": {"turn_limit": 20},
    "1234": {"match_games": 1},
    "mekuri-hinmin": {"auto_tie_after_events": 150},
}


@pytest.mark.parametrize("slug", sorted(REGISTRY))
def test_a_whole_game_over_http(stack, players, slug):
    engine = REGISTRY[slug]
    seats = players(engine.min_seats if engine.min_seats > 2 else min(3, engine.max_seats))
    if engine.mature:  # adults who opted in
        for player in seats:
            assert player.post("/api/me/mature-consent", {"adult": True, "consent": True}).status_code == 200
    # create_game has each other player accept the seat the creator named them for
    game_id = seats[0].create_game(slug, [p.name for p in seats], SHORT.get(slug, {}))["id"]
    chooser = random.Random(slug)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        game = seats[0].get(f"/api/games/{game_id}").json()
        if game["status"] == "finished":
            break
        offers = [(s, seats[s].get(f"/api/games/{game_id}/legal-moves").json()["moves"]) for s in game["actors"]]
        offers = [(s, moves) for s, moves in offers if moves]
        if not offers:
            time.sleep(0.1)  # a window that only the server's timer can close
            continue
        seat, moves = chooser.choice(offers)
        response = seats[seat].move(game_id, chooser.choice(moves))
        # A legal move can still lose a race with a timer or another seat; never a 5xx or a 4xx shape error.
        assert response.status_code in (200, 422), response.text
        if response.status_code == 422:
            assert response.json()["code"] in ("window_closed", "game_over", "not_your_turn"), response.json()
    final = seats[0].get(f"/api/games/{game_id}").json()
    assert final["status"] == "finished", f"{slug} did not finish in time"
    record = seats[-1].get(f"/api/games/{game_id}/record")
    assert replay_record(record.text.splitlines()).outcome_json() == final["outcome"]
    assert seats[0].get(f"/api/games/{game_id}/verification").json()["ok"]
