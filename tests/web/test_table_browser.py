"""The table recorder in a real headless Chromium on a phone-sized screen (390 px), against the real
stack: a keeper records a Nine Card game by tapping the offered choices, loses the connection
mid-game and types lines meanwhile, and sees them sent once when it returns - also a line whose
answer was lost on the way back, which the page sends again under the same idempotency key."""

from __future__ import annotations

import json
import re

import pytest

from ..conftest import Player
from .test_accessibility import axe_violations
from .test_browser import browser, log_in, new_page, shots  # noqa: F401 - fixtures

pytestmark = [pytest.mark.stack, pytest.mark.django_db]

PHONE = 390
SPADES = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S"]
HEARTS = ["5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH"]


def phone_page(browser, stack, locale: str = "en-US"):  # noqa: F811 - the fixture's value
    page = new_page(browser, stack, locale=locale, width=PHONE)
    page.set_viewport_size({"width": PHONE, "height": 844})
    return page


def head_seq(keeper: Player, game_id: str) -> int:
    return keeper.get(f"/api/table-games/{game_id}").json()["head_seq"]


def tap_a_turn(page) -> None:
    """Each seat commits the first card it is offered (the Oya first)."""
    for seat in (0, 1):
        before = page.locator("#line").inner_text()
        page.locator(f'.seat-moves[data-seat="{seat}"] button.move').first.click()
        page.wait_for_function(
            "(before) => document.querySelector('#line').innerText !== before"
            " && document.querySelector('#recorder').dataset.queued === '0'",
            arg=before,
        )


def test_a_keeper_records_a_nine_card_game_on_a_phone(stack, browser, shots):  # noqa: F811
    from playwright.sync_api import expect

    keeper = Player(stack.base_url)
    page = phone_page(browser, stack)
    log_in(page, keeper.name)

    # Start recording from the home page's link: the game, the players in seat order, my seat.
    page.goto("/")
    page.click("#table-new-link")
    assert axe_violations(page) == []
    page.select_option("#table-new select[name=engine]", "nine-card")
    page.fill("#table-new textarea[name=seats]", f"{keeper.name}\nben")
    page.fill("#table-new input[name=keeper_seat]", "1")
    page.click("#table-new button[type=submit]")
    expect(page).to_have_url(re.compile(r"/games/[0-9a-f-]+/table$"))
    game_id = page.url.rstrip("/").split("/")[-2]
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE  # no sideways scrolling

    # The deal: tap each player's nine cards from the pack; the set-aside cards are completed.
    expect(page.locator("#chance")).to_be_visible()
    expect(page.locator("#chance .completed")).to_have_count(1)
    for card in SPADES + HEARTS:
        page.locator(f'#chance .pool [data-card="{card}"]').click()
    expect(page.locator('#chance .zone[data-seat="1"] .card')).to_have_count(9)
    shots(page, "table-deal-entered")
    assert axe_violations(page) == []
    page.click("#record-chance")
    expect(page.locator("#message")).to_have_text("Recorded.")
    expect(page.locator('.seat-moves[data-seat="0"] button.move')).to_have_count(9)
    expect(page.locator('.seat-moves[data-seat="1"] button.move')).to_have_count(9)
    assert head_seq(keeper, game_id) == 1

    # The first turn by tapping; then a typed line the rules refuse stops the queue until discarded.
    tap_a_turn(page)
    assert head_seq(keeper, game_id) == 3
    page.click("#typed-panel summary")
    page.select_option("#typed-seat", "0")
    page.fill("#typed-param-card", "KH")
    page.click("#typed-add")
    expect(page.locator("#queue li.refused")).to_contain_text("card_not_in_hand")
    shots(page, "table-refused")
    page.click("#queue li.refused button.discard")
    expect(page.locator("#queue li")).to_have_count(0)

    # Offline mid-game: two lines typed are kept on the phone, nothing reaches the server.
    sheet = keeper.get(f"/api/table-games/{game_id}").json()
    oya_card, ko_card = sheet["seats"][0]["moves"][0]["card"], sheet["seats"][1]["moves"][0]["card"]
    page.context.set_offline(True)
    for seat, card in ((0, oya_card), (1, ko_card)):
        page.select_option("#typed-seat", str(seat))
        page.fill("#typed-param-card", card)
        page.click("#typed-add")
    expect(page.locator("#recorder")).to_have_attribute("data-online", "0")
    expect(page.locator("#recorder")).to_have_attribute("data-queued", "2")
    stored = json.loads(page.evaluate(f"localStorage.getItem('kifu-table-queue:{game_id}')"))
    assert [item["entry"]["seq"] for item in stored] == [4, 5]
    shots(page, "table-offline-queued")
    assert axe_violations(page) == []  # the queue, the refusal-free choices and the typed form
    assert head_seq(keeper, game_id) == 3
    # Back online: the queue is sent, in order, once.
    page.context.set_offline(False)
    expect(page.locator("#recorder")).to_have_attribute("data-queued", "0")
    expect(page.locator("#recorder")).to_have_attribute("data-online", "1")
    assert head_seq(keeper, game_id) == 5
    events = keeper.get(f"/api/games/{game_id}/events").json()
    assert [(e["seat"], e["data"]["card"]) for e in events[3:]] == [(0, oya_card), (1, ko_card)]

    # A line whose answer is lost on the way back: stored by the server, sent again by the page
    # under the same key, answered with the first verdict - one event.
    lost = []

    def lose_the_answer(route):
        if not lost:
            lost.append(route.request.post_data_json["idempotency_key"])
            route.fetch()  # the server stores it ...
            route.abort("connectionreset")  # ... and the answer never arrives
        else:
            route.continue_()

    page.route("**/entries", lose_the_answer)
    page.locator('.seat-moves[data-seat="0"] button.move').first.click()
    expect(page.locator("#message")).to_have_text("Already recorded (sent again after a lost answer).")
    expect(page.locator("#recorder")).to_have_attribute("data-queued", "0")
    page.unroute("**/entries")
    assert head_seq(keeper, game_id) == 6
    page.locator('.seat-moves[data-seat="1"] button.move').first.click()
    expect(page.locator("#recorder")).to_have_attribute("data-queued", "0")
    page.wait_for_function("document.querySelector('#line').innerText.includes('8')")

    # The rest of the game by tapping, until the result shows.
    for _ in range(9):
        if page.locator("#result").is_visible():
            break
        tap_a_turn(page)
    expect(page.locator("#result")).to_contain_text("The game is over")
    shots(page, "table-finished")
    game = keeper.get(f"/api/games/{game_id}").json()
    assert game["source"] == "table" and game["status"] == "finished" and not game["seed"]
    verification = keeper.get(f"/api/games/{game_id}/verification").json()
    assert verification["ok"] and verification["events"] == game["head_seq"]
    record = keeper.get(f"/api/games/{game_id}/record").text.splitlines()
    assert "seed" not in json.loads(record[0]) and len(record) == 1 + game["head_seq"]
    assert page.js_errors == []

    # The same page in Japanese.
    japanese = phone_page(browser, stack, locale="ja-JP")
    log_in(japanese, keeper.name)
    japanese.goto(f"/games/{game_id}/table")
    expect(japanese.locator("#connection")).to_have_text("オンライン")
    shots(japanese, "table-finished-ja")
    assert axe_violations(japanese) == []
