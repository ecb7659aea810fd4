"""Issue 18: the standings-by-round chart on a tournament's and a season's page, on a 390 px phone, in a
real headless Chromium on the real stack, English and Japanese: it fits the screen, a marker's
``<title>`` is its hover value, and axe-core finds no serious violation.

Uses the Chromium fixtures of ``test_browser.py`` and ``axe_violations`` of ``test_accessibility.py``.
"""

from __future__ import annotations

import pytest

from ..conftest import Player
from .test_accessibility import axe_violations, ok
from .test_browser import browser, log_in, new_page, shots  # noqa: F401 - fixtures used by name

pytestmark = [pytest.mark.stack, pytest.mark.django_db]


WIDE = (
    "[...document.querySelectorAll('body *')]"
    ".filter(e => e.getBoundingClientRect().right > 391 && !e.closest('.table-scroll'))"
    ".slice(0, 8).map(e => e.tagName + '.' + e.className + '#' + e.id + ' ' + e.getBoundingClientRect().right)"
)


def test_the_round_charts_fit_a_phone_and_read_out(stack, browser, shots):  # noqa: F811 - fixtures
    organiser = Player(stack.base_url)
    members = [Player(stack.base_url) for _ in range(4)]
    slug = f"charts-{organiser.name}"
    ok(organiser.post("/api/clubs", {"name": f"Club {organiser.name}", "slug": slug}), 201)
    for member in members:
        ok(organiser.post(f"/api/clubs/{slug}/members", {"username": member.name}), 201)
        ok(member.post(f"/api/clubs/{slug}/join"))

    # a round robin of four: round 1 decided by the organiser
    body = {"name": "Chart Cup", "engine": "nine-card", "format": "round_robin"}
    tournament = ok(organiser.post(f"/api/clubs/{slug}/tournaments", body), 201)["id"]
    for member in members:
        ok(member.post(f"/api/tournaments/{tournament}/entries"), 201)
    ok(organiser.post(f"/api/tournaments/{tournament}/start"))
    for board in ok(organiser.get(f"/api/tournaments/{tournament}/rounds", round=1)):
        ranking = [[board["players"][0]], [board["players"][1]]]
        ok(organiser.post(f"/api/tournaments/{tournament}/results", {"round": 1, "board": board["number"],
                                                                     "ranking": ranking}))  # fmt: skip

    # a multiplayer season of Satori, closed at once: every fixture decided at the close
    league = ok(organiser.post(f"/api/clubs/{slug}/leagues", {"name": "Chart League", "engine": "satori",
                                                             "tables": {"seats": {"preferred": 4}}}), 201)  # fmt: skip
    for member in members:
        ok(organiser.post(f"/api/leagues/{league['id']}/players", {"username": member.name}), 201)
    season = ok(organiser.post(f"/api/leagues/{league['id']}/seasons", {}), 201)["id"]
    ok(organiser.post(f"/api/seasons/{season}/close"))

    for locale in ("en-US", "ja-JP"):
        page = new_page(browser, stack, locale=locale, width=390)
        log_in(page, organiser.name)
        for path, chart in ((f"/tournaments/{tournament}/", "#round-chart"), (f"/seasons/{season}/", "#round-chart-1")):
            page.goto(path)
            figure = page.locator(chart)
            assert figure.count() == 1, path
            assert figure.locator("svg[role=img]").get_attribute("aria-label")
            titles = figure.locator("circle title").all_text_contents()
            assert titles and all(title.strip() for title in titles)
            assert figure.locator(".x-axis text").first.text_content() in ("R1", "第1R")
            wide = page.evaluate(WIDE)  # what sticks out, to say so if the page is too wide
            assert page.evaluate("document.documentElement.scrollWidth") <= 390, (path, wide)
            box = figure.locator("svg").bounding_box()
            assert box["width"] <= 390 and box["height"] > 100
            assert axe_violations(page) == [], (locale, path)
            shots(page, f"phone-round-chart-{locale}-{path.strip('/').replace('/', '-')}")
        assert page.js_errors == []
