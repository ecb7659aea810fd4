"""Printable rounds and check-in by QR in a real headless Chromium on the real stack: the print page
under print media (no toolbar, a page break before each slip) and Chromium's own print to PDF, one
slip a page; the door poster's QR code, read by a decoder from a screenshot, opens the check-in page
where an entrant on a phone checks in with one tap.

Uses the Chromium fixtures of ``test_browser.py`` (Debian's /usr/bin/chromium driven by Playwright).
"""

from __future__ import annotations

import io
import re

import pytest
import zxingcpp
from django.urls import reverse
from PIL import Image
from pypdf import PdfReader

from .test_browser import browser, log_in, new_page, shots  # noqa: F401 - fixtures used by name
from .test_league_browser import club_of, ok

pytestmark = [pytest.mark.stack, pytest.mark.django_db]


def decode(png: bytes) -> str:
    (found,) = zxingcpp.read_barcodes(Image.open(io.BytesIO(png)))
    return found.text


def swiss(stack, entrants: int, **settings) -> tuple:
    organiser, members, slug = club_of(stack, entrants)
    body = {"name": "Venue Cup", "engine": "nine-card", "format": "swiss", "settings": settings}
    tournament = ok(organiser.post(f"/api/clubs/{slug}/tournaments", body), 201)
    for player in members:
        ok(player.post(f"/api/tournaments/{tournament['id']}/entries"), 201)
    return organiser, members, tournament["id"]


def test_the_print_page_prints_one_slip_a_page(stack, browser, shots):  # noqa: F811 - fixtures
    from playwright.sync_api import expect

    organiser, members, tournament = swiss(stack, 6)
    ok(organiser.post(f"/api/tournaments/{tournament}/start"))
    page = new_page(browser, stack)
    page.goto(f"/tournaments/{tournament}/")
    page.click("details.round[data-round='1'] .print-link a")
    expect(page.locator("#overview tbody tr")).to_have_count(3)
    expect(page.locator("section.slip")).to_have_count(3)
    expect(page.locator("#print-toolbar")).to_be_visible()
    shots(page, "print-round-screen")

    page.emulate_media(media="print")
    expect(page.locator("#print-toolbar")).to_be_hidden()
    assert page.locator("header.site").count() == 0
    breaks = page.eval_on_selector_all("section.slip", "slips => slips.map(s => getComputedStyle(s).breakBefore)")
    assert breaks == ["page", "page", "page"]
    shots(page, "print-round-print-media")

    # Chromium's own print to PDF: the overview, then each slip on a page of its own, in table order.
    reader = PdfReader(io.BytesIO(page.pdf(format="A4", prefer_css_page_size=True)))
    assert len(reader.pages) == 4
    width, height = float(reader.pages[0].mediabox.width), float(reader.pages[0].mediabox.height)
    assert (round(width), round(height)) == (595, 842)  # A4 in points
    assert "Venue Cup" in reader.pages[0].extract_text()
    for number, sheet in enumerate(reader.pages[1:], start=1):
        text = sheet.extract_text()
        assert re.findall(r"Table \d+", text) == [f"Table {number}"], text
    assert page.js_errors == []


def test_a_slips_qr_code_read_from_the_screen_opens_its_report_page(stack, browser):  # noqa: F811 - fixtures
    organiser, members, tournament = swiss(stack, 4)
    ok(organiser.post(f"/api/tournaments/{tournament}/start"))
    page = new_page(browser, stack)
    page.goto(f"/tournaments/{tournament}/rounds/1/print")
    for slip in page.locator("section.slip").all():
        pk = int(slip.get_attribute("data-pk"))
        expected = stack.base_url + reverse("web:pairing-report", kwargs={"kind": "board", "pk": pk})
        assert decode(slip.locator("svg.qr").screenshot()) == expected


def test_an_entrant_scans_the_door_poster_and_checks_in_with_one_tap(stack, browser, shots):  # noqa: F811
    from playwright.sync_api import expect

    organiser, members, tournament = swiss(stack, 3, check_in=True)
    door = new_page(browser, stack)
    door.goto(f"/tournaments/{tournament}/check-in/poster")
    expect(door.locator("#poster svg.qr")).to_be_visible()
    shots(door, "check-in-poster")
    address = decode(door.locator("#poster svg.qr").screenshot())
    assert address == f"{stack.base_url}/tournaments/{tournament}/check-in/here"

    phone = new_page(browser, stack, width=390)
    phone.goto(address)
    expect(phone.locator("#log-in-first")).to_be_visible()
    log_in(phone, members[0].name)
    phone.goto(address)
    phone.click("#check-in-form button")
    expect(phone.locator("#checked-in")).to_contain_text(f"{members[0].name}, you are checked in.")
    shots(phone, "check-in-done")
    entries = ok(organiser.get(f"/api/tournaments/{tournament}"))["entries"]
    checked = {entry["username"]: entry["checked_in"] for entry in entries}
    assert checked == {members[0].name: True, members[1].name: False, members[2].name: False}
    assert phone.js_errors == [] and door.js_errors == []
