"""Reported results in a real headless Chromium on the real stack, on a phone-sized (390 px) page:
a Nine Card challenge reported by one player and confirmed by the other from their own session
moves the ladder; a disputed tournament result is settled by the organiser.

Uses the Chromium fixtures of ``test_browser.py`` (Debian's /usr/bin/chromium driven by Playwright).
"""

from __future__ import annotations

import re

import pytest

from .test_accessibility import axe_violations
from .test_browser import browser, log_in, new_page, shots  # noqa: F401 - fixtures used by name
from .test_league_browser import club_of, ok

pytestmark = [pytest.mark.stack, pytest.mark.django_db]
PHONE = 390


def fits(page) -> None:
    """Nothing sticks out sideways on a phone: the page is no wider than the screen."""
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE


def test_a_nine_card_challenge_reported_at_the_table_and_confirmed_moves_the_ladder(stack, browser, shots):  # noqa: F811
    from playwright.sync_api import expect

    organiser, (top, middle, bottom), slug = club_of(stack, 3)
    settings = {"challenge_range": 1, "new_player_free_challenges": 0, "results": "table"}
    ladder = ok(organiser.post(f"/api/clubs/{slug}/ladders", {"engine": "nine-card", "settings": settings}), 201)
    for player in (top, middle, bottom):
        ok(player.post(f"/api/ladders/{ladder['id']}/join"))
    challenge = ok(bottom.post(f"/api/ladders/{ladder['id']}/challenges", {"defender": middle.name}), 201)

    page = new_page(browser, stack, width=PHONE)
    log_in(page, bottom.name)
    page.goto(f"/ladders/{ladder['id']}/")
    page.click(f"tr[data-challenge='{challenge['id']}'] a.report-link")
    expect(page.locator("h1")).to_contain_text(middle.name)
    page.select_option(f"#place-{bottom.name}", "1")
    page.select_option(f"#place-{middle.name}", "2")
    page.fill(f"#score-{bottom.name}", "5")
    page.fill(f"#score-{middle.name}", "4")
    fits(page)
    assert axe_violations(page) == []
    shots(page, "report-filled-in")
    page.click("#report")
    expect(page.locator("#messages")).to_contain_text("Result reported")
    expect(page.locator("#open-report")).to_have_attribute("data-status", "pending")
    expect(page.locator("#confirm")).to_have_count(0)  # the reporter does not confirm their own report
    assert page.js_errors == []

    other = new_page(browser, stack, width=PHONE)  # the opponent, on their own phone
    log_in(other, middle.name)
    other.goto(f"/players/{middle.name}/")
    other.click("#waiting-reports a")
    expect(other.locator("#open-report .ranking")).to_contain_text(bottom.name)
    fits(other)
    assert axe_violations(other) == []
    shots(other, "report-to-confirm")
    other.click("#confirm")
    expect(other.locator("#messages")).to_contain_text("You confirmed the result.")
    expect(other.locator("#pairing-status")).to_have_attribute("data-decided", "true")
    other.goto(f"/ladders/{ladder['id']}/")
    places = other.locator("#standings tbody tr")
    expect(places.nth(1)).to_have_attribute("data-player", bottom.name)  # the challenger's win swaps them
    expect(places.nth(2)).to_have_attribute("data-player", middle.name)
    assert other.js_errors == []
    rows = ok(organiser.get(f"/api/ladders/{ladder['id']}/standings"))
    assert [row["username"] for row in rows] == [top.name, bottom.name, middle.name]


def test_a_disputed_tournament_result_is_settled_by_the_organiser(stack, browser, shots):  # noqa: F811
    from playwright.sync_api import expect

    organiser, members, slug = club_of(stack, 4)
    body = {
        "name": "Club Night",
        "engine": "nine-card",
        "format": "swiss",
        "rounds": 2,
        "settings": {"results": "table"},
    }
    tournament = ok(organiser.post(f"/api/clubs/{slug}/tournaments", body), 201)
    for player in members:
        ok(player.post(f"/api/tournaments/{tournament['id']}/entries"), 201)
    ok(organiser.post(f"/api/tournaments/{tournament['id']}/start"))
    board = ok(organiser.get(f"/api/tournaments/{tournament['id']}/rounds/1"))["boards"][0]
    first, second = board["first"], board["second"]

    reporter = new_page(browser, stack, width=PHONE)
    log_in(reporter, first)
    reporter.goto(f"/tournaments/{tournament['id']}/")
    reporter.locator("tr[data-board='1'] a.report-link").click()
    reporter.select_option(f"#place-{first}", "1")
    reporter.select_option(f"#place-{second}", "2")
    reporter.click("#report")
    expect(reporter.locator("#open-report")).to_have_attribute("data-status", "pending")

    disputer = new_page(browser, stack, width=PHONE)
    log_in(disputer, second)
    disputer.goto(reporter.url)
    disputer.fill("#dispute-reason", "I took the last round")
    disputer.click("#dispute")
    expect(disputer.locator("#open-report")).to_have_attribute("data-status", "disputed")

    referee = new_page(browser, stack, locale="ja-JP", width=PHONE)
    log_in(referee, organiser.name)
    referee.goto(reporter.url)
    expect(referee.locator("#pairing-status")).to_contain_text("異議あり")
    referee.select_option(f"#place-{first}", "2")
    referee.select_option(f"#place-{second}", "1")
    referee.fill("#settle-reason", "score sheet")
    fits(referee)
    assert axe_violations(referee) == []
    shots(referee, "report-settle-ja")
    referee.click("#settle")
    expect(referee.locator("#pairing-status")).to_have_attribute("data-decided", "true")
    for page in (reporter, disputer, referee):
        assert page.js_errors == []
    decided = ok(organiser.get(f"/api/tournaments/{tournament['id']}/rounds/1"))["boards"][0]
    assert decided["decided_by"] == "report" and decided["placements"] == [[second], [first]]
    pairing = ok(organiser.get("/api" + reporter.url.split(stack.base_url, 1)[1].removesuffix("/report")))
    assert [step["kind"] for step in pairing["reports"][0]["steps"]] == ["reported", "disputed", "settled"]
    assert [step["actor"] for step in pairing["reports"][0]["steps"]] == [first, second, organiser.name]


def test_a_challenge_recorded_at_the_table_on_a_phone_and_confirmed_moves_the_ladder(stack, browser, shots):  # noqa: F811
    """Issue 17's whole path: the challenger moves the accepted challenge to the table from its report
    page, records the Nine Card game on the recorder by tapping (deal, then every turn), and the
    finished record waits as their report until the defender confirms it from their own session;
    then the ladder shows the result."""
    from playwright.sync_api import expect

    from .test_table_browser import HEARTS, SPADES, tap_a_turn

    organiser, (top, middle, bottom), slug = club_of(stack, 3)
    settings = {"challenge_range": 1, "new_player_free_challenges": 0, "results": "table"}
    ladder = ok(organiser.post(f"/api/clubs/{slug}/ladders", {"engine": "nine-card", "settings": settings}), 201)
    for player in (top, middle, bottom):
        ok(player.post(f"/api/ladders/{ladder['id']}/join"))
    challenge = ok(bottom.post(f"/api/ladders/{ladder['id']}/challenges", {"defender": middle.name}), 201)
    ok(middle.post(f"/api/challenges/{challenge['id']}/accept"))

    page = new_page(browser, stack, width=PHONE)
    page.set_viewport_size({"width": PHONE, "height": 844})
    log_in(page, bottom.name)
    page.goto(f"/pairings/challenge/{challenge['id']}/report")
    page.click("#record-at-table")
    expect(page).to_have_url(re.compile(r"/games/[0-9a-f-]+/table$"))
    game_id = page.url.rstrip("/").split("/")[-2]
    fits(page)
    seats = [seat["name"] for seat in ok(bottom.get(f"/api/table-games/{game_id}"))["seats"]]
    assert sorted(seats) == sorted([bottom.name, middle.name])
    for card in SPADES + HEARTS:  # each seat's nine cards from the pack; the set-aside is completed
        page.locator(f'#chance .pool [data-card="{card}"]').click()
    page.click("#record-chance")
    expect(page.locator("#message")).to_have_text("Recorded.")
    for _ in range(9):
        if page.locator("#result").is_visible():
            break
        tap_a_turn(page)
    expect(page.locator("#result")).to_contain_text("The game is over")
    shots(page, "table-pairing-finished")
    assert page.js_errors == []
    game = ok(bottom.get(f"/api/games/{game_id}"))
    winner = seats[game["outcome"]["ranking"][0][0]]

    def reported():
        return ok(bottom.get(f"/api/pairings/challenge/{challenge['id']}"))["open_report"]

    from kifu.devstack import wait_until

    report = wait_until(reported, 30, "the table game's report")  # game_finished -> the league, after commit
    assert report["game"] == game_id and report["reported_by"] == bottom.name
    assert report["waiting_for"] == [middle.name]

    other = new_page(browser, stack, width=PHONE)  # the defender confirms on their own phone
    log_in(other, middle.name)
    other.goto(f"/pairings/challenge/{challenge['id']}/report")
    expect(other.locator("#open-report .ranking")).to_contain_text(winner)
    fits(other)
    assert axe_violations(other) == []
    other.click("#confirm")
    expect(other.locator("#pairing-status")).to_have_attribute("data-decided", "true")
    expected = [top.name, bottom.name, middle.name] if winner == bottom.name else [top.name, middle.name, bottom.name]
    other.goto(f"/ladders/{ladder['id']}/")
    places = other.locator("#standings tbody tr")
    for index, name in enumerate(expected):
        expect(places.nth(index)).to_have_attribute("data-player", name)
    assert other.js_errors == []
    assert [row["username"] for row in ok(organiser.get(f"/api/ladders/{ladder['id']}/standings"))] == expected
