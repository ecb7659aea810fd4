"""axe-core on the pages in a real headless Chromium, in English and Japanese (issue 23 item 6): no
serious or critical violation.

axe-core is vendored under ``tests/web/vendor`` (never served); Playwright evaluates it in the page, which
the Content-Security-Policy does not govern. Uses the Chromium fixtures of ``test_browser.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from games.engines import REGISTRY

from ..conftest import Player
from .games import random_record, seats_for
from .test_browser import browser, finish_via_api, log_in, new_page, started_knockout, visit  # noqa: F401 - fixtures

pytestmark = [pytest.mark.stack, pytest.mark.django_db]

AXE = Path(__file__).with_name("vendor") / "axe.min.js"
SEVERE = ("serious", "critical")


def axe_violations(page) -> list[dict]:
    """axe-core's serious and critical violations on the page as it is now: rule, impact, nodes."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE.read_text(encoding="utf-8"))
    results = page.evaluate("async () => JSON.stringify((await axe.run(document)).violations)")
    return [
        {"rule": v["id"], "impact": v["impact"], "nodes": [[n["target"], n["failureSummary"]] for n in v["nodes"]][:5]}
        for v in json.loads(results)
        if v["impact"] in SEVERE
    ]


def ok(response, status: int = 200) -> dict:
    assert response.status_code == status, response.text
    return response.json() if response.content else {}


@pytest.mark.parametrize("locale", ["en-US", "ja-JP"])
def test_the_pages_have_no_serious_accessibility_violation(stack, browser, locale):  # noqa: F811 - fixtures
    owner, members = Player(stack.base_url), [Player(stack.base_url) for _ in range(4)]
    slug = f"a11y-{owner.name}"
    ok(owner.post("/api/clubs", {"name": f"Club {owner.name}", "slug": slug}), 201)
    tournament = started_knockout(owner, slug, members, "Knockout")
    finished = owner.create_game("nine-card", [owner.name, members[0].name])["id"]
    finish_via_api(finished, owner, members[0])
    running = owner.create_game("nine-card", [owner.name, members[1].name], {"commit_seconds": 600})["id"]

    page = new_page(browser, stack, locale=locale)
    log_in(page, owner.name)
    pages = {"home": "/", "clubs": "/clubs/", "club": f"/clubs/{slug}/", "player": f"/players/{owner.name}/"}
    pages |= {"tournament": f"/tournaments/{tournament}/", "game": f"/games/{finished}"}
    pages |= {"replay": f"/games/{finished}/replay?at=4&as=1", "replay-end": f"/games/{finished}/replay?at=999&as=all"}
    pages["play"] = f"/games/{running}/play"
    pages["lobby"] = "/lobby/"  # issue 19: its forms and the open tables
    found = {}
    for name in visit(page, pages):
        if name.startswith("replay"):
            page.wait_for_selector("#verified")  # the verification drawn too
        violations = axe_violations(page)
        if violations:
            found[name] = violations
    assert found == {}, json.dumps(found, indent=1, ensure_ascii=False)
    assert page.js_errors == []


def test_every_games_board_has_no_serious_accessibility_violation(stack, browser):  # noqa: F811 - fixtures
    """Each engine's board (boards.js, table.js) in the replay, halfway and at the end, everything shown."""
    viewer = Player(stack.base_url)
    assert viewer.post("/api/me/mature-consent", {"adult": True, "consent": True}).status_code == 200
    page = new_page(browser, stack)
    log_in(page, viewer.name)
    found = {}
    for slug in sorted(REGISTRY):
        names = ["Ann", "Ben", "Cho", "Dai", "Eve"][: seats_for(slug)]
        game = ok(viewer.post("/api/records", {"record": random_record(slug, names, seed=4)}), 201)
        for at in (game["head_seq"] // 2, game["head_seq"]):
            page.goto(f"/games/{game['id']}/replay?at={at}&as=all")
            page.wait_for_selector(f"#replay[data-at='{at}'] #board [data-board='{slug}']")
            violations = axe_violations(page)
            if violations:
                found[f"{slug}@{at}"] = violations
    assert found == {}, json.dumps(found, indent=1, ensure_ascii=False)
    assert page.js_errors == []
