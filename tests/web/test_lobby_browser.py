"""The lobby in a real headless Chromium on the real stack, at phone size (390 px): one player opens
a table, another joins it from the list, and both land on the game's play page - the joiner by the
join's redirect, the waiting creator by the account stream (issue 19 item 1).

Uses the Chromium fixtures of ``test_browser.py`` (Debian's /usr/bin/chromium driven by Playwright).
"""

from __future__ import annotations

import re

import pytest

from ..conftest import Player
from .test_browser import browser, log_in, new_page, shots  # noqa: F401 - fixtures used by name

pytestmark = [pytest.mark.stack, pytest.mark.django_db]

PHONE = 390


def test_two_players_meet_in_the_lobby_and_land_on_the_play_page(stack, browser, shots):  # noqa: F811 - fixtures
    from playwright.sync_api import expect

    host, guest = Player(stack.base_url), Player(stack.base_url)
    host_page = new_page(browser, stack, width=PHONE)
    guest_page = new_page(browser, stack, width=PHONE)
    log_in(host_page, host.name)
    log_in(guest_page, guest.name)

    # The host opens a two-seat Nine Card table with a clock from the form.
    host_page.goto("/lobby/")
    form = host_page.locator("#new-seek form")
    form.locator("select[name=engine]").select_option("nine-card")
    form.locator("input[name=seats]").fill("2")
    form.locator("input[name=per_move_seconds]").fill("600")
    form.locator("button[type=submit]").click()
    expect(host_page.locator("#own-seek")).to_be_visible()
    seek_id = host_page.locator("#lobby").get_attribute("data-seek")
    assert seek_id
    expect(host_page.locator("#lobby")).to_have_attribute("data-live", "waiting")
    shots(host_page, "lobby-waiting")

    # The guest sees the table in the list and takes the other seat.
    guest_page.goto("/lobby/")
    table = guest_page.locator(f'#seeks li[data-seek="{seek_id}"]')
    expect(table).to_contain_text("1 / 2")
    expect(table).to_contain_text(host.name)
    shots(guest_page, "lobby-open-tables")
    assert guest_page.evaluate("document.documentElement.scrollWidth") <= PHONE  # the forms fit a phone
    table.locator("button.join").click()

    # Both are on the game's play page: the guest by the redirect, the host by its stream.
    seek = guest.get(f"/api/lobby/seeks/{seek_id}").json()
    assert seek["status"] == "filled" and seek["game"], seek
    play = re.compile(f"/games/{seek['game']}/play$")
    for page in (guest_page, host_page):
        expect(page).to_have_url(play)
        page.wait_for_selector(".nc-hand")
        expect(page.locator(".nc-hand .card.playable")).to_have_count(9)
    game = host.get(f"/api/games/{seek['game']}").json()
    assert game["status"] == "running" and all(seat["accepted"] for seat in game["seats"])
    assert sorted(seat["player"] for seat in game["seats"]) == sorted([host.name, guest.name])
    shots(host_page, "lobby-host-plays")
    for page in (host_page, guest_page):
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE

    # The guest resigns; both play pages offer a rematch. The host offers it and waits on the new
    # game's page; the guest's click accepts it and opens its play page.
    expect(host_page.locator("#rematch")).to_be_hidden()
    assert guest.move(seek["game"], {"type": "resign"}).status_code == 200
    for page in (host_page, guest_page):
        expect(page.locator("#rematch")).to_be_visible()
    host_page.click("#rematch")
    expect(host_page).to_have_url(re.compile(r"/games/[0-9a-f-]{36}$"))
    rematch = host_page.url.rsplit("/", 1)[1]
    assert rematch != seek["game"]
    guest_page.click("#rematch")
    expect(guest_page).to_have_url(re.compile(f"/games/{rematch}/play$"))
    guest_page.wait_for_selector(".nc-hand")
    assert host.get(f"/api/games/{rematch}").json()["status"] == "running"
    shots(guest_page, "lobby-rematch")
    assert host_page.js_errors == [] and guest_page.js_errors == []
