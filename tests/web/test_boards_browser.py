"""Every game's board in a real headless Chromium: the replay of a finished game of each engine.

The games are records from the engines' own random self-play, imported through the API. Uses the
Chromium fixtures of ``test_browser.py``; the screenshots are saved under pytest's tmp dir.
"""

from __future__ import annotations

import re

import pytest

from games.engines import REGISTRY

from ..conftest import Player
from .games import random_record, seats_for
from .test_browser import browser, log_in, new_page, shots  # noqa: F401 - fixtures used by name

pytestmark = [pytest.mark.stack, pytest.mark.django_db]


def test_the_board_of_every_game_in_the_replay(stack, browser, shots):  # noqa: F811 - fixtures
    from playwright.sync_api import expect

    viewer = Player(stack.base_url)
    assert viewer.post("/api/me/mature-consent", {"adult": True, "consent": True}).status_code == 200
    page = new_page(browser, stack)
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text) if message.type == "error" else None)
    log_in(page, viewer.name)
    for slug in sorted(REGISTRY):
        names = ["Ann", "Ben", "Cho", "Dai", "Eve"][: seats_for(slug)]
        answer = viewer.post("/api/records", {"record": random_record(slug, names, seed=4)})
        assert answer.status_code == 201, answer.text
        game = answer.json()
        for at in (game["head_seq"] // 2, game["head_seq"]):
            page.goto(f"/games/{game['id']}/replay?at={at}&as=all")
            expect(page.locator("#replay")).to_have_attribute("data-at", str(at))
            board = page.locator(f'#board [data-board="{slug}"]')
            expect(board).to_have_count(1)
            assert len(board.inner_text()) > 40, f"{slug}: the board is almost empty"
            if slug not in ("kazekami-kyoko", "believers"):  # card and tile games draw cards or tiles
                assert board.locator(".card:not(.back), .tile").count() > 0, f"{slug}: no card on the board"
            shots(page, f"board-{slug}-{at}")
    # The gambling variant of Twenty-Two shows its chips, pot and ledger; in Japanese.
    record = random_record("twenty-two", ["Ann", "Ben", "Cho"], seed=2, config={"variant": "gambling_cucumber"})
    game = viewer.post("/api/records", {"record": record}).json()
    page.goto("/")
    page.select_option("#language-select", "ja")
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    page.goto(f"/games/{game['id']}/replay?at={game['head_seq'] // 2}&as=all")
    board = page.locator('#board [data-board="twenty-two"]')
    expect(board.locator('[data-key="ledger"] tbody tr').first).to_be_visible()
    expect(board.locator('[data-key="pot"]')).to_contain_text("ポット")
    expect(board.locator('[data-key="balance"]')).to_have_count(3)
    shots(page, "board-twenty-two-cucumber-ja")
    assert page.js_errors == [] and console == []


def test_a_satori_card_is_played_by_clicking_it(stack, browser, shots):  # noqa: F811 - fixtures
    """The board of a game other than Nine Card offers the hand's playable cards as buttons: a click
    plays the card, the stream brings the katsu window, and the other seat's page sees the card
    face down on the pile."""
    from playwright.sync_api import expect

    me, other = Player(stack.base_url), Player(stack.base_url)
    clock = {"bank_seconds": 900, "increment_seconds": 5}
    game_id = me.create_game("satori", [me.name, other.name], {"katsu_window_seconds": 300}, time_control=clock)["id"]
    # Whoever starts, the other seat plays until it is my turn to play a card.
    for _ in range(10):
        state = me.get(f"/api/games/{game_id}/state").json()
        if any(move["type"] == "play_card" for move in state["legal_moves"]):
            break
        if {"type": "decline_katsu"} in state["legal_moves"]:  # the other seat's card: let it pass
            assert me.move(game_id, {"type": "decline_katsu"}).status_code == 200
            continue
        moves = other.get(f"/api/games/{game_id}/legal-moves").json()["moves"]
        move = next(m for m in moves if m["type"] in ("play_card", "decline_katsu"))
        assert other.move(game_id, move).status_code == 200
    else:
        raise AssertionError("never my turn")
    page = new_page(browser, stack)
    watcher = new_page(browser, stack)
    log_in(page, me.name)
    log_in(watcher, other.name)
    page.goto(f"/games/{game_id}/play")
    watcher.goto(f"/games/{game_id}/play")
    mine = page.locator('.board-satori .seat-board[data-seat="0"] .hand .card.playable')
    expect(mine).to_have_count(len(state["view"]["players"][0]["hand"]))
    expect(page.locator("#play")).to_have_attribute("data-live", "stream")
    # The bank clocks: mine runs down while it is my turn, the other's stands.
    expect(page.locator("#clocks .clock")).to_have_count(2)
    expect(page.locator('#clocks .clock.running[data-seat="0"]')).to_have_count(1)
    expect(page.locator('#clocks .clock[data-seat="1"]')).not_to_have_class(re.compile("running"))
    shown = page.locator('#clocks .clock[data-seat="0"]').inner_text()
    expect(page.locator('#clocks .clock[data-seat="0"]')).not_to_have_text(shown)  # it ticks
    shots(page, "satori-play-my-turn")
    card = mine.first.get_attribute("data-card")
    mine.first.click()
    expect(page.locator("#message")).to_have_text("Accepted.")
    expect(page.locator('.board-satori .seat-board[data-seat="0"] .pile .card').first).to_have_attribute(
        "data-card", card
    )
    # The other seat sees the card face down on top of my pile and the katsu window open to them.
    expect(watcher.locator('.board-satori .seat-board[data-seat="0"] .pile .card.top.back')).to_have_count(1)
    expect(watcher.locator(f'[data-card="{card}"]')).to_have_count(0)
    expect(watcher.locator(".board-satori .window-box")).to_be_visible()
    expect(watcher.locator("#countdown")).to_contain_text(re.compile(r"\d+ s left"))
    expect(watcher.locator("#clocks .clock.running")).to_have_count(0)  # a katsu window pauses the clocks
    expect(watcher.locator("#events li").last).to_have_text(f"{me.name} played a card face down")
    shots(watcher, "satori-play-katsu-window")
    assert page.js_errors == [] and watcher.js_errors == []


def test_without_a_stream_the_play_page_polls(stack, browser):  # noqa: F811 - fixtures
    """A browser without EventSource (or a stream that keeps failing) still sees the game change:
    the page falls back to reading the state every second."""
    from playwright.sync_api import expect

    oya, ko = Player(stack.base_url), Player(stack.base_url)
    game_id = oya.create_game("nine-card", [oya.name, ko.name], {"commit_seconds": 600})["id"]
    page = new_page(browser, stack)
    page.add_init_script("delete window.EventSource")
    log_in(page, ko.name)
    page.goto(f"/games/{game_id}/play")
    expect(page.locator("#play")).to_have_attribute("data-live", "polling")
    expect(page.locator(".nc-hand .card.playable")).to_have_count(9)
    card = oya.get(f"/api/games/{game_id}/legal-moves").json()["moves"][0]
    assert oya.move(game_id, card).status_code == 200
    expect(page.locator('.nc-player[data-seat="0"] .slot.now .card.back')).to_have_count(1)
    assert page.stream_opens == [] and len(page.state_reads) >= 2
    assert page.js_errors == []


def test_a_hidden_line_reads_hidden_by_a_moderator_in_both_languages(stack, browser, shots):  # noqa: F811
    """Issue 23: the story board and the event list say "hidden by a moderator: <reason>" - never
    [object Object] - and the same words of the other player stay on the board."""
    from playwright.sync_api import expect

    aki, ben, viewer = Player(stack.base_url), Player(stack.base_url), Player(stack.base_url)
    game_id = aki.create_game("believers", [aki.name, ben.name])["id"]  # aki set the table: a moderator
    for player, move in [
        (aki, {"type": "contribute", "text": "yes"}),
        (ben, {"type": "contribute", "text": "yes"}),
        (aki, {"type": "propose_final_ritual"}),
        (ben, {"type": "agree_final_ritual"}),
        (aki, {"type": "commit_choice", "choice": "stay"}),
        (ben, {"type": "commit_choice", "choice": "depart"}),
    ]:
        assert player.move(game_id, move).status_code == 200
    hidden = aki.post(f"/api/games/{game_id}/events/1/hide", {"reason": "a real address"})
    assert hidden.status_code == 201, hidden.text
    page = new_page(browser, stack)
    log_in(page, viewer.name)
    page.goto(f"/games/{game_id}/replay?at=6&as=all")
    story = page.locator('#board [data-key="story"] li')
    expect(story).to_have_count(2)
    expect(story.nth(0).locator(".moderated")).to_have_text("hidden by a moderator: a real address")
    expect(story.nth(1)).to_contain_text("yes")
    expect(page.locator("#events li").first).to_have_text(f"{aki.name}: hidden by a moderator: a real address")
    expect(page.locator("#events li").nth(1)).to_have_text(f"{ben.name}: yes")
    shots(page, "story-hidden-line")
    page.select_option("#language-select", "ja")
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    expect(story.nth(0).locator(".moderated")).to_have_text("モデレーターにより非表示: a real address")
    expect(page.locator("#events li").first).to_have_text(f"{aki.name}: モデレーターにより非表示: a real address")
    assert "[object Object]" not in page.content() and "'hidden'" not in page.content()
    shots(page, "story-hidden-line-ja")
    # A link past the last event opens at the end, not on an empty board (issue 23, item 7).
    page.goto(f"/games/{game_id}/replay?at=99&as=all")
    expect(page.locator("#replay")).to_have_attribute("data-at", "6")
    expect(story).to_have_count(2)
    assert page.js_errors == []
