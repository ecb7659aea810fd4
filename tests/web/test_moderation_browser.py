"""Moderation buttons on the web for a storytelling game (issue 18), in a real headless Chromium on
the real stack: two players write the same line, one reports the first, the game's moderator hides
it with a reason on the play page and shows it again on the game page - and only that line changes.

Uses the Chromium fixtures of ``test_browser.py``.
"""

from __future__ import annotations

import pytest

from ..conftest import Player
from .test_accessibility import axe_violations
from .test_browser import browser, log_in, new_page, shots  # noqa: F401 - fixtures used by name

pytestmark = [pytest.mark.stack, pytest.mark.django_db]


def test_hiding_one_of_two_identical_lines_on_the_play_page(stack, browser, shots):  # noqa: F811
    from playwright.sync_api import expect

    aki, ben = Player(stack.base_url), Player(stack.base_url)  # aki created the game and plays: a moderator
    game_id = aki.create_game("believers", [aki.name, ben.name])["id"]
    for player in (aki, ben):  # event 1 is aki's, event 2 ben's: the same words
        response = player.move(game_id, {"type": "contribute", "text": "yes"})
        assert response.status_code == 200, response.text

    moderator, player = new_page(browser, stack), new_page(browser, stack, locale="ja-JP")
    log_in(moderator, aki.name)
    log_in(player, ben.name)
    for page in (moderator, player):
        page.goto(f"/games/{game_id}/play")
        expect(page.locator("#events li")).to_have_count(2)
        for seq in (1, 2):
            expect(page.locator(f"#event-{seq}")).to_contain_text("yes")
    # A player reports; only a moderator is offered Hide.
    expect(player.locator("#events details.hide")).to_have_count(0)
    expect(moderator.locator("#events details.hide")).to_have_count(2)
    player.locator("#event-1 details.report summary").click()
    player.fill("#event-1 details.report input[name=reason]", "a real place")
    player.locator("#event-1 details.report button").click()
    expect(player.locator("#messages")).to_contain_text("イベント1をこのゲームのモデレーターに報告しました。")
    reports = aki.get(f"/api/games/{game_id}/reports").json()["reports"]
    assert [(r["seq"], r["reporter"], r["reason"]) for r in reports] == [(1, ben.name, "a real place")]

    # The moderator hides line 1 with a reason; line 2, the same words, stays.
    moderator.locator("#event-1 details.hide summary").click()
    moderator.fill("#event-1 details.hide input[name=reason]", "spoiler")
    moderator.locator("#event-1 details.hide button").click()
    expect(moderator.locator("#messages")).to_contain_text("Event 1 is hidden.")
    expect(moderator.locator("#event-1")).to_contain_text("hidden by a moderator: spoiler")
    expect(moderator.locator("#event-1")).not_to_contain_text("yes")
    expect(moderator.locator("#event-2")).to_contain_text("yes")
    expect(moderator.locator("#event-1 form.show button")).to_have_text("Show again")
    assert aki.get(f"/api/games/{game_id}/reports").json()["hidden"] == [1]
    shots(moderator, "moderation-hidden-play")
    assert axe_violations(moderator) == []

    # The other player's page, in Japanese: the list and the story board, line 1 only.
    player.reload()
    expect(player.locator("#event-1")).to_contain_text("モデレーターにより非表示: spoiler")
    expect(player.locator("#event-2")).to_contain_text("yes")
    story = player.locator("#board .story li")
    expect(story).to_have_count(2)
    expect(story.nth(0)).to_contain_text("モデレーターにより非表示: spoiler")
    expect(story.nth(1)).to_contain_text("yes")
    assert axe_violations(player) == []

    # A refusal comes back as the service's code and message: hiding it twice.
    moderator.goto(f"/games/{game_id}")
    expect(moderator.locator("#contributions li")).to_have_count(2)
    expect(moderator.locator("#event-2 details.hide")).to_have_count(1)
    moderator.locator("#event-1 form.show button").click()
    expect(moderator.locator("#messages")).to_contain_text("Event 1 is shown again.")
    expect(moderator.locator("#event-1")).to_contain_text("yes")
    expect(moderator.locator("#event-1 details.hide")).to_have_count(1)
    decisions = aki.get(f"/api/games/{game_id}/reports").json()["decisions"]
    decided = [(d["seq"], d["action"], d["reason"]) for d in decisions]
    assert decided == [(1, "hide", "spoiler"), (1, "unhide", "shown again")]
    shots(moderator, "moderation-shown-game")
    assert axe_violations(moderator) == []
    assert moderator.js_errors == [] and player.js_errors == []
