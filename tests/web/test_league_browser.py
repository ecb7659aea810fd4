"""The ladder page in a real headless Chromium on the real stack: a member challenges by clicking.

Uses the Chromium fixtures of ``test_browser.py`` (Debian's /usr/bin/chromium driven by Playwright).
"""

from __future__ import annotations

from datetime import datetime

import pytest

from ..conftest import Player
from .test_browser import browser, log_in, new_page, shots  # noqa: F401 - fixtures used by name

pytestmark = [pytest.mark.stack, pytest.mark.django_db]


def ok(response, status: int = 200) -> dict:
    assert response.status_code == status, response.text
    return response.json() if response.content else {}


def test_a_member_challenges_from_the_ladder_page(stack, browser, shots):  # noqa: F811 - fixtures
    from playwright.sync_api import expect

    organiser, top, middle, bottom = (Player(stack.base_url) for _ in range(4))
    slug = f"club-{organiser.name}"
    ok(organiser.post("/api/clubs", {"name": f"Club {organiser.name}", "slug": slug}), 201)
    settings = {"challenge_range": 1, "new_player_free_challenges": 0}
    ladder = ok(organiser.post(f"/api/clubs/{slug}/ladders", {"engine": "nine-card", "settings": settings}), 201)
    for player in (top, middle, bottom):
        ok(organiser.post(f"/api/clubs/{slug}/members", {"username": player.name}), 201)
        ok(player.post(f"/api/clubs/{slug}/join"))
        ok(player.post(f"/api/ladders/{ladder['id']}/join"))

    page = new_page(browser, stack)
    log_in(page, bottom.name)
    page.goto(f"/clubs/{slug}/")
    page.click(f"#ladders a[href='/ladders/{ladder['id']}/']")
    rows = page.locator("#standings tbody tr")
    expect(rows).to_have_count(3)
    # Range 1: the bottom player may challenge the one just above, and nobody else.
    expect(page.locator("button.challenge")).to_have_count(1)
    expect(page.locator(f'tr[data-player="{top.name}"] button.challenge')).to_have_count(0)
    page.click(f'tr[data-player="{middle.name}"] button.challenge')

    expect(page.locator("#messages")).to_contain_text(f"You challenged {middle.name}.")
    row = page.locator("#challenges tbody tr").first
    expect(row).to_contain_text(bottom.name)
    expect(row).to_contain_text(middle.name)
    expect(row).to_contain_text("waiting for the defender")
    expect(page.locator("button.challenge")).to_have_count(0)
    shots(page, "ladder-challenge-issued")
    assert page.js_errors == []

    (challenge,) = ok(bottom.get(f"/api/ladders/{ladder['id']}/challenges", status="issued"))
    assert (challenge["challenger"], challenge["defender"]) == (bottom.name, middle.name)
    shown = datetime.fromisoformat(row.locator("time").first.get_attribute("datetime"))
    assert shown == datetime.fromisoformat(challenge["accept_by"])  # the accept-by deadline
