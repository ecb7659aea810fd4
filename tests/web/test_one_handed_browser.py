"""One-handed phone use (issue 19 item 7), measured in a real headless Chromium at 390x844: on the
play page of every game and on the table recorder, every primary control (the move buttons, the
playable cards and tiles, the recorder's next-line controls and Record) can be brought into the
lower part of the screen - where a thumb reaches - with the page scrolled, not sideways; it is at
least 44x44 CSS px (WCAG 2.5.5); and it is there without hovering (Playwright never hovers).

Uses the Chromium fixtures of ``test_browser.py``.
"""

from __future__ import annotations

import json

import pytest

from games.engines import REGISTRY

from ..conftest import Player
from .test_accessibility import running_game
from .test_browser import browser, log_in, new_page, shots  # noqa: F401 - fixtures used by name

pytestmark = [pytest.mark.stack, pytest.mark.django_db]

WIDTH, HEIGHT = 390, 844
TAP = 44  # CSS px: WCAG 2.5.5's target size
THUMB = 0.4  # the lower 60 % of the screen: where one hand holding the phone reaches with its thumb

# For each control: scroll the page so that the control would sit at 70 % of the screen's height
# (the browser stops at the page's ends), then let an inner box that scrolls (a long move list)
# bring it into view; report its box where it ends up, and whether the page scrolls sideways.
MEASURE = """([selector, thumb]) => {
  const out = [];
  for (const control of document.querySelectorAll(selector)) {
    if (!control.getClientRects().length) continue;  // not shown (a folded panel)
    const before = control.getBoundingClientRect();
    window.scrollTo(0, window.scrollY + before.top + before.height / 2 - innerHeight * 0.7);
    control.scrollIntoView({block: "nearest", inline: "nearest"});
    const box = control.getBoundingClientRect();
    const name = (control.getAttribute("aria-label") || control.textContent || "").trim().slice(0, 30);
    out.push({name, id: control.id || control.className, top: Math.round(box.top), bottom: Math.round(box.bottom),
      left: Math.round(box.left), right: Math.round(box.right), width: box.width, height: box.height});
  }
  return {controls: out, pageWidth: document.documentElement.scrollWidth};
}"""


def unreachable(page, selector: str) -> tuple[int, list[dict]]:
    """How many controls ``selector`` finds, and those that fail: too small, or out of the thumb's reach."""
    measured = page.evaluate(MEASURE, [selector, THUMB])
    assert measured["pageWidth"] <= WIDTH, f"the page scrolls sideways: {measured['pageWidth']} px"
    bad = [
        box
        for box in measured["controls"]
        if box["width"] < TAP
        or box["height"] < TAP
        or box["top"] < HEIGHT * THUMB
        or box["bottom"] > HEIGHT
        or box["left"] < 0
        or box["right"] > WIDTH
    ]
    return len(measured["controls"]), bad


def phone(browser, stack, locale: str = "en-US"):  # noqa: F811 - the fixture's value
    page = new_page(browser, stack, locale=locale, width=WIDTH)
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    return page


# The play page's primary controls: the move buttons, and the cards and tiles played by a tap.
PLAY_CONTROLS = "#moves button, #board .playable"


def test_every_games_play_page_is_usable_with_one_hand(stack, browser, shots):  # noqa: F811
    me = Player(stack.base_url)
    games = {slug: running_game(me, slug, my_turn=True) for slug in sorted(REGISTRY)}
    page = phone(browser, stack)
    log_in(page, me.name)
    found, counted = {}, {}
    for slug, game in games.items():
        page.goto(f"/games/{game}/play")
        page.wait_for_selector(f"#play[data-head-seq] #board [data-board='{slug}']")
        counted[slug], bad = unreachable(page, PLAY_CONTROLS)
        if bad:
            found[slug] = bad[:6]
        shots(page, f"phone-play-{slug}")
    assert found == {}, json.dumps(found, indent=1, ensure_ascii=False)
    # Every game offered its first seat something to tap (the check above measured real controls).
    assert all(counted.values()), counted
    assert page.js_errors == []


# The recorder's: the pack to deal from, "The rest", Record; then each seat's moves and the system lines.
DEAL_CONTROLS = "#chance .pool .card, #chance button.zone-title, #chance button.rest, #record-chance"
LINE_CONTROLS = "#choices button.move, #choices button.system"
SPADES = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S"]
HEARTS = ["5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH"]


def test_the_table_recorder_is_usable_with_one_hand(stack, browser, shots):  # noqa: F811
    keeper = Player(stack.base_url)
    recorded = {"engine": "nine-card", "seats": [keeper.name, "ben"], "keeper_seat": 0}
    answer = keeper.post("/api/table-games", recorded)
    assert answer.status_code == 201, answer.text
    game = answer.json()["game"]
    page = phone(browser, stack)
    log_in(page, keeper.name)
    page.goto(f"/games/{game}/table")
    page.wait_for_selector("#chance .pool .card")
    count, bad = unreachable(page, DEAL_CONTROLS)
    assert count >= 20 and bad == [], json.dumps(bad[:6], indent=1)
    shots(page, "phone-recorder-deal")

    deal = {"kind": "chance", "seq": 1, "data": {"type": "deal", "hands": [SPADES, HEARTS]}}
    entered = keeper.post(f"/api/table-games/{game}/entries", {"entry": deal, "idempotency_key": "deal-1"})
    assert entered.status_code == 201, entered.text
    page.reload()
    page.wait_for_selector("#choices button.move")
    count, bad = unreachable(page, LINE_CONTROLS)
    assert count >= 9 + 2 and bad == [], json.dumps(bad[:6], indent=1)
    shots(page, "phone-recorder-moves")
    assert page.js_errors == []
