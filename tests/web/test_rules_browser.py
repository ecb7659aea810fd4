"""The rules pages in headless Chromium at phone size (390 px): axe-core finds no serious or critical
violation, nothing runs off the right edge, and the game list's link opens the page.

Uses the Chromium fixtures of ``test_browser.py`` and the vendored axe-core of ``test_accessibility.py``.
"""

from __future__ import annotations

import json

import pytest

from ..conftest import Player
from .test_accessibility import axe_violations
from .test_browser import browser, log_in, new_page, shots  # noqa: F401 - fixtures

pytestmark = [pytest.mark.stack, pytest.mark.django_db]
PHONE = 390


@pytest.mark.parametrize("locale", ["en-US", "ja-JP"])
def test_a_rules_page_on_a_phone_is_accessible_and_fits(stack, browser, shots, locale):  # noqa: F811 - fixtures
    player = Player(stack.base_url)
    page = new_page(browser, stack, locale=locale, width=PHONE)
    log_in(page, player.name)
    page.goto("/")
    page.click("a[href='/rules/twenty-two/']")  # the game list links each game to its rules
    page.wait_for_selector("#rules[data-engine='twenty-two'] h2")
    shots(page, f"rules-twenty-two-{locale}")
    # Twenty-Two has the most options, with the longest names (reveal_exchange_discards_at_deal_end).
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE
    found = {"/rules/twenty-two/": axe_violations(page)}
    page.goto("/rules/")
    found["/rules/"] = axe_violations(page)
    assert {path: v for path, v in found.items() if v} == {}, json.dumps(found, indent=1, ensure_ascii=False)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE
    assert page.js_errors == []
