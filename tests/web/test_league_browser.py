"""The ladder page in a real headless Chromium on the real stack: a member challenges by clicking.

Uses the Chromium fixtures of ``test_browser.py`` (Debian's /usr/bin/chromium driven by Playwright).
"""

from __future__ import annotations

from datetime import datetime

import pytest

from ..conftest import Player
from .test_browser import browser, log_in, new_page, shots  # noqa: F401 - fixtures used by name

pytestmark = [pytest.mark.stack, pytest.mark.django_db]


def ok(response, status: int = 200) -> dict:
    assert response.status_code == status, response.text
    return response.json() if response.content else {}


def test_a_member_challenges_from_the_ladder_page(stack, browser, shots):  # noqa: F811 - fixtures
    from playwright.sync_api import expect

    organiser, top, middle, bottom = (Player(stack.base_url) for _ in range(4))
    slug = f"club-{organiser.name}"
    ok(organiser.post("/api/clubs", {"name": f"Club {organiser.name}", "slug": slug}), 201)
    settings = {"challenge_range": 1, "new_player_free_challenges": 0}
    ladder = ok(organiser.post(f"/api/clubs/{slug}/ladders", {"engine": "nine-card", "settings": settings}), 201)
    for player in (top, middle, bottom):
        ok(organiser.post(f"/api/clubs/{slug}/members", {"username": player.name}), 201)
        ok(player.post(f"/api/clubs/{slug}/join"))
        ok(player.post(f"/api/ladders/{ladder['id']}/join"))

    page = new_page(browser, stack)
    log_in(page, bottom.name)
    page.goto(f"/clubs/{slug}/")
    page.click(f"#ladders a[href='/ladders/{ladder['id']}/']")
    rows = page.locator("#standings tbody tr")
    expect(rows).to_have_count(3)
    # Range 1: the bottom player may challenge the one just above, and nobody else.
    expect(page.locator("button.challenge")).to_have_count(1)
    expect(page.locator(f'tr[data-player="{top.name}"] button.challenge')).to_have_count(0)
    page.click(f'tr[data-player="{middle.name}"] button.challenge')

    expect(page.locator("#messages")).to_contain_text(f"You challenged {middle.name}.")
    row = page.locator("#challenges tbody tr").first
    expect(row).to_contain_text(bottom.name)
    expect(row).to_contain_text(middle.name)
    expect(row).to_contain_text("waiting for the defender")
    expect(page.locator("button.challenge")).to_have_count(0)
    shots(page, "ladder-challenge-issued")
    assert page.js_errors == []

    (challenge,) = ok(bottom.get(f"/api/ladders/{ladder['id']}/challenges", status="issued"))
    assert (challenge["challenger"], challenge["defender"]) == (bottom.name, middle.name)
    shown = datetime.fromisoformat(row.locator("time").first.get_attribute("datetime"))
    assert shown == datetime.fromisoformat(challenge["accept_by"])  # the accept-by deadline


def club_of(stack, count: int) -> tuple[Player, list[Player], str]:
    """An organiser (made through the API, who logs in with the test password) and ``count`` members."""
    organiser, members = Player(stack.base_url), [Player(stack.base_url) for _ in range(count)]
    slug = f"club-{organiser.name}"
    ok(organiser.post("/api/clubs", {"name": f"Club {organiser.name}", "slug": slug}), 201)
    for player in members:
        ok(organiser.post(f"/api/clubs/{slug}/members", {"username": player.name}), 201)
        ok(player.post(f"/api/clubs/{slug}/join"))
    return organiser, members, slug


def test_an_organiser_starts_a_double_elimination_and_the_bracket_fills_in(stack, browser, shots):  # noqa: F811
    from playwright.sync_api import expect

    organiser, members, slug = club_of(stack, 6)
    body = {"name": "Autumn Knockout", "engine": "nine-card", "format": "double_elimination"}
    tournament = ok(organiser.post(f"/api/clubs/{slug}/tournaments", body), 201)
    for player in members:
        ok(player.post(f"/api/tournaments/{tournament['id']}/entries"), 201)

    page = new_page(browser, stack)
    log_in(page, organiser.name)
    page.goto(f"/clubs/{slug}/")
    page.click(f"#tournaments a[href='/tournaments/{tournament['id']}/']")
    expect(page.locator("#entries tbody tr")).to_have_count(6)
    page.click("#start button")
    expect(page.locator("#messages")).to_contain_text("round 1 is paired")
    bracket = page.locator("svg.bracket")
    expect(bracket.locator("g.match")).to_have_count(15)  # 8 lines: 7 winners, 6 losers, GF, GF2
    expect(bracket.locator("g.match.playing")).to_have_count(2)  # seeds 1 and 2 have byes
    shots(page, "double-elimination-round-1")

    # The two games of round 1 end (the second seat resigns); the next round is paired by the
    # game_finished and advance tasks on the real stack, and the page shows the winners moving on.
    by_name = {player.name: player for player in members}
    for board in ok(organiser.get(f"/api/tournaments/{tournament['id']}/rounds", round=1)):
        if board["game"] and board["second"]:
            ok(by_name[board["second"]].move(board["game"], {"type": "resign"}))
    for _ in range(60):
        if ok(organiser.get(f"/api/tournaments/{tournament['id']}"))["current_round"] == 2:
            break
        page.wait_for_timeout(500)
    page.reload()
    expect(bracket.locator("g.match.done")).to_have_count(2)
    # Seeds 1 and 2 meet the winners in the semi-finals; the losers of round 1 have byes in the
    # losers bracket (their opponents would have been the byes' losers), so nothing else is playable.
    expect(bracket.locator("g.match.playing")).to_have_count(2)
    expect(bracket.locator('g.match.bye[data-match^="L1-"]')).to_have_count(2)
    expect(bracket.locator("text.slot.won")).to_have_count(2)
    expect(page.locator('#rounds details[data-round="2"]')).to_have_attribute("open", "")
    expect(page.locator("#standings tbody tr")).to_have_count(6)
    full = shots(page, "double-elimination-round-2")
    page.locator("#bracket").screenshot(path=str(full.with_name(f"{full.stem}-bracket.png")))  # at full size
    assert page.js_errors == []

    # A member sees the bracket, but no organiser forms; a game's box links to its game.
    viewer = new_page(browser, stack, locale="ja-JP")
    viewer.goto(f"/tournaments/{tournament['id']}/")
    expect(viewer.locator("#organise")).to_have_count(0)
    expect(viewer.locator("h2").first).to_have_text("トーナメント表")
    href = viewer.locator("svg.bracket g.match.playing a").first.get_attribute("href")
    assert href.startswith("/games/") and href.endswith("/play")
    shots(viewer, "double-elimination-japanese")


def test_an_organiser_starts_a_season_and_reads_its_tables(stack, browser, shots):  # noqa: F811
    from playwright.sync_api import expect

    organiser, members, slug = club_of(stack, 6)
    body = {"name": "Winter League", "engine": "nine-card", "divisions": 2, "promote": 1, "relegate": 1}
    league = ok(organiser.post(f"/api/clubs/{slug}/leagues", body), 201)
    for player in members[:5]:
        ok(organiser.post(f"/api/leagues/{league['id']}/players", {"username": player.name}), 201)

    page = new_page(browser, stack)
    log_in(page, organiser.name)
    page.goto(f"/clubs/{slug}/")
    page.click(f"#leagues a[href='/leagues/{league['id']}/']")
    page.fill("#add-player input[name=username]", members[5].name)
    page.click("#add-player button")
    expect(page.locator("#messages")).to_contain_text(f"{members[5].name} plays from the next season.")
    expect(page.locator("#plan h4")).to_have_count(2)
    page.click("#start-season button")
    expect(page.locator("#messages")).to_contain_text("Season 1 has started")
    page.click("#seasons a")

    expect(page.locator("section.division")).to_have_count(2)
    expect(page.locator("tr.zone-relegated")).to_have_count(1)  # the last of division 1
    expect(page.locator("tr.zone-promoted")).to_have_count(1)  # the first of division 2
    expect(page.locator("#fixtures details")).to_have_count(3)
    expect(page.locator("#fixtures tr[data-fixture]")).to_have_count(6)  # two divisions of three: 3 games each

    # One game is played; its fixture shows the result and links to the replay.
    season = page.url.rstrip("/").rsplit("/", 1)[1]
    fixtures = ok(organiser.get(f"/api/seasons/{season}/fixtures"))
    first = fixtures[0]
    by_name = {player.name: player for player in members}
    ok(by_name[first["away"]].move(first["game"], {"type": "resign"}))
    row = page.locator(f'tr[data-fixture="{first["id"]}"]')
    for _ in range(60):
        page.reload()
        if "1–0" in row.inner_text():
            break
        page.wait_for_timeout(500)
    expect(row).to_contain_text("1–0")
    expect(row.locator("a:not(.report-link)")).to_have_attribute("href", f"/games/{first['game']}/replay")
    expect(row.locator("a.report-link")).to_have_attribute("href", f"/pairings/fixture/{first['id']}/report")
    shots(page, "season-after-one-result")
    assert page.js_errors == []


def test_groups_then_a_playoff_page(stack, browser, shots):  # noqa: F811
    from playwright.sync_api import expect

    organiser, members, slug = club_of(stack, 8)
    body = {
        "name": "Spring Cup",
        "engine": "nine-card",
        "format": "groups_playoff",
        "settings": {"groups": 2, "advance": 2, "third_place": True},
    }
    tournament = ok(organiser.post(f"/api/clubs/{slug}/tournaments", body), 201)
    for player in members:
        ok(player.post(f"/api/tournaments/{tournament['id']}/entries"), 201)
    ok(organiser.post(f"/api/tournaments/{tournament['id']}/start"))

    page = new_page(browser, stack)
    page.goto(f"/tournaments/{tournament['id']}/")
    expect(page.locator("#groups table.group")).to_have_count(2)
    expect(page.locator("#groups tr.advances")).to_have_count(4)
    bracket = page.locator("svg.bracket")
    expect(bracket.locator("g.match")).to_have_count(4)  # two semi-finals, the final, third place
    expect(bracket.locator('g.match[data-match="W1-1"]')).to_contain_text("Group A #1")
    expect(bracket.locator('g.match[data-match="W1-1"]')).to_contain_text("Group B #2")
    expect(page.locator('#rounds details[data-round="1"] tbody tr')).to_have_count(4)  # 2 boards a group
    full = shots(page, "groups-and-playoff")
    page.locator("#bracket").screenshot(path=str(full.with_name(f"{full.stem}-bracket.png")))
    assert page.js_errors == []
