"""Every game's board in a real headless Chromium: the replay of a finished game of each engine.

The games are records from the engines' own random self-play, imported through the API. Uses the
Chromium fixtures of ``test_browser.py``; the screenshots are saved under pytest's tmp dir.
"""

from __future__ import annotations

import pytest

from games.engines import REGISTRY

from ..conftest import Player
from .games import random_record, seats_for
from .test_browser import browser, log_in, new_page, shots  # noqa: F401 - fixtures used by name

pytestmark = [pytest.mark.stack, pytest.mark.django_db]


def test_the_board_of_every_game_in_the_replay(stack, browser, shots):  # noqa: F811 - fixtures
    from playwright.sync_api import expect

    viewer = Player(stack.base_url)
    assert viewer.post("/api/me/mature-consent", {"adult": True, "consent": True}).status_code == 200
    page = new_page(browser, stack)
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text) if message.type == "error" else None)
    log_in(page, viewer.name)
    for slug in sorted(REGISTRY):
        names = ["Ann", "Ben", "Cho", "Dai", "Eve"][: seats_for(slug)]
        answer = viewer.post("/api/records", {"record": random_record(slug, names, seed=4)})
        assert answer.status_code == 201, answer.text
        game = answer.json()
        for at in (game["head_seq"] // 2, game["head_seq"]):
            page.goto(f"/games/{game['id']}/replay?at={at}&as=all")
            expect(page.locator("#replay")).to_have_attribute("data-at", str(at))
            board = page.locator(f'#board [data-board="{slug}"]')
            expect(board).to_have_count(1)
            assert len(board.inner_text()) > 40, f"{slug}: the board is almost empty"
            if slug not in ("kazekami-kyoko", "believers"):  # card and tile games draw cards or tiles
                assert board.locator(".card:not(.back), .tile").count() > 0, f"{slug}: no card on the board"
            shots(page, f"board-{slug}-{at}")
    assert page.js_errors == [] and console == []
