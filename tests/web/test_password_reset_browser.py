"""The password reset pages in headless Chromium at phone size (390 px), both languages: axe-core finds
no serious or critical violation and nothing runs off the right edge; the log-in page's link leads there.

Uses the Chromium fixtures of ``test_browser.py`` and the vendored axe-core of ``test_accessibility.py``.
"""

from __future__ import annotations

import json

import pytest

from .test_accessibility import axe_violations
from .test_browser import browser, new_page  # noqa: F401 - fixtures

pytestmark = [pytest.mark.stack, pytest.mark.django_db]
PHONE = 390


@pytest.mark.parametrize("locale", ["en-US", "ja-JP"])
def test_the_password_reset_pages_on_a_phone(stack, browser, locale):  # noqa: F811 - fixtures
    page = new_page(browser, stack, locale=locale, width=PHONE)
    page.goto("/accounts/login/")
    page.click("#forgot-password")
    page.wait_for_selector("#password-reset-form")
    found = {"form": axe_violations(page)}
    widths = {"form": page.evaluate("document.documentElement.scrollWidth")}
    page.fill("input[name=email]", "nobody@example.org")
    page.click("#password-reset-form button[type=submit]")
    page.wait_for_selector("#password-reset-sent")
    found["sent"], widths["sent"] = axe_violations(page), page.evaluate("document.documentElement.scrollWidth")
    page.goto("/accounts/reset/MQ/not-a-token/")
    page.wait_for_selector("#password-reset-invalid")
    found["invalid"], widths["invalid"] = axe_violations(page), page.evaluate("document.documentElement.scrollWidth")
    assert {name: v for name, v in found.items() if v} == {}, json.dumps(found, indent=1, ensure_ascii=False)
    assert {name: width for name, width in widths.items() if width > PHONE} == {}
    assert page.js_errors == []
