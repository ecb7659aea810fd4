"""Issue 18: an organiser changes a ladder's and a club's settings on a 390 px phone, in a real headless
Chromium on the real stack; the pages fit the screen and axe-core finds no serious violation.

Uses the Chromium fixtures of ``test_browser.py`` and ``axe_violations`` of ``test_accessibility.py``.
"""

from __future__ import annotations

import pytest

from ..conftest import Player
from .test_accessibility import axe_violations
from .test_browser import browser, log_in, new_page, shots  # noqa: F401 - fixtures used by name

pytestmark = [pytest.mark.stack, pytest.mark.django_db]


def ok(response, status: int = 200) -> dict:
    assert response.status_code == status, response.text
    return response.json() if response.content else {}


def test_an_organiser_changes_the_settings_on_a_phone(stack, browser, shots):  # noqa: F811 - fixtures
    from playwright.sync_api import expect

    organiser = Player(stack.base_url)
    slug = f"settings-{organiser.name}"
    ok(organiser.post("/api/clubs", {"name": f"Club {organiser.name}", "slug": slug}), 201)
    ladder = ok(organiser.post(f"/api/clubs/{slug}/ladders", {"engine": "nine-card"}), 201)

    page = new_page(browser, stack, width=390)
    log_in(page, organiser.name)
    page.goto(f"/ladders/{ladder['id']}/")
    form = page.locator("#ladder-settings")
    expect(form).to_be_visible()
    assert page.locator("#reporting").count() == 1  # the results form stays, once
    page.fill("#setting-challenge_range", "2")
    page.fill("#setting-play_days", "10")
    page.select_option("#setting-on_challenger_win", "leapfrog")
    page.select_option("#setting-match_format", "best_of")
    page.fill("#setting-match_target", "3")
    form.get_by_role("button", name="Save").click()
    expect(page.locator("#messages")).to_contain_text("Saved: the ladder's settings.")
    expect(page.locator("#setting-play_days")).to_have_value("10")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert axe_violations(page) == []
    shots(page, "phone-ladder-settings")

    saved = ok(organiser.get(f"/api/ladders/{ladder['id']}"))["settings"]
    assert (saved["challenge_range"], saved["play_days"], saved["on_challenger_win"]) == (2, 10, "leapfrog")
    assert saved["match"] == {"format": "best_of", "target": 3, "points": "wins"}

    # A value the service refuses comes back as its message, and nothing changes.
    page.fill("#setting-max_open_challenges", "50")
    form.get_by_role("button", name="Save").click()
    expect(page.locator("#messages .error")).to_contain_text("invalid_ladder_settings")
    assert ok(organiser.get(f"/api/ladders/{ladder['id']}"))["settings"]["max_open_challenges"] == 1

    page.goto(f"/clubs/{slug}/")
    page.fill("#club-settings input[name=name]", "Tuesday Club")
    page.fill("#club-settings textarea[name=description]", "We meet on Tuesdays.")
    page.locator("#club-settings").get_by_role("button", name="Save").click()
    expect(page.locator("h1")).to_have_text("Tuesday Club")
    expect(page.locator(".lead")).to_have_text("We meet on Tuesdays.")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert axe_violations(page) == []
    shots(page, "phone-club-settings")
    assert page.js_errors == []
