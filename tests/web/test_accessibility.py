"""axe-core on the pages in a real headless Chromium, in English and Japanese (issue 23 item 6): no
serious or critical violation.

axe-core is vendored under ``tests/web/vendor`` (never served); Playwright evaluates it in the page, which
the Content-Security-Policy does not govern. Uses the Chromium fixtures of ``test_browser.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from games.engines import REGISTRY

from ..conftest import Player
from .games import SHORT, random_record, seats_for
from .test_browser import browser, finish_via_api, log_in, new_page, started_knockout, visit  # noqa: F401 - fixtures

pytestmark = [pytest.mark.stack, pytest.mark.django_db]

AXE = Path(__file__).with_name("vendor") / "axe.min.js"
SEVERE = ("serious", "critical")


def axe_violations(page) -> list[dict]:
    """axe-core's serious and critical violations on the page as it is now: rule, impact, nodes."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE.read_text(encoding="utf-8"))
    page.axe_running = True  # its own <style> for a stylesheet's @import is no CSP violation (new_page)
    try:
        results = page.evaluate("async () => JSON.stringify((await axe.run(document)).violations)")
    finally:
        page.axe_running = False
    return [
        {"rule": v["id"], "impact": v["impact"], "nodes": [[n["target"], n["failureSummary"]] for n in v["nodes"]][:5]}
        for v in json.loads(results)
        if v["impact"] in SEVERE
    ]


def ok(response, status: int = 200) -> dict:
    assert response.status_code == status, response.text
    return response.json() if response.content else {}


@pytest.mark.parametrize("locale", ["en-US", "ja-JP"])
def test_the_pages_have_no_serious_accessibility_violation(stack, browser, locale):  # noqa: F811 - fixtures
    owner, members = Player(stack.base_url), [Player(stack.base_url) for _ in range(4)]
    slug = f"a11y-{owner.name}"
    ok(owner.post("/api/clubs", {"name": f"Club {owner.name}", "slug": slug}), 201)
    tournament = started_knockout(owner, slug, members, "Knockout")
    finished = owner.create_game("nine-card", [owner.name, members[0].name])["id"]
    finish_via_api(finished, owner, members[0])
    running = owner.create_game("nine-card", [owner.name, members[1].name], {"commit_seconds": 600})["id"]

    page = new_page(browser, stack, locale=locale)
    log_in(page, owner.name)
    pages = {"home": "/", "clubs": "/clubs/", "club": f"/clubs/{slug}/", "player": f"/players/{owner.name}/"}
    pages |= {"tournament": f"/tournaments/{tournament}/", "game": f"/games/{finished}"}
    pages |= {"replay": f"/games/{finished}/replay?at=4&as=1", "replay-end": f"/games/{finished}/replay?at=999&as=all"}
    pages["play"] = f"/games/{running}/play"
    pages["lobby"] = "/lobby/"  # issue 19: its forms and the open tables
    found = {}
    for name in visit(page, pages):
        if name.startswith("replay"):
            page.wait_for_selector("#verified")  # the verification drawn too
        violations = axe_violations(page)
        if violations:
            found[name] = violations
    assert found == {}, json.dumps(found, indent=1, ensure_ascii=False)
    assert page.js_errors == []


def test_every_games_board_has_no_serious_accessibility_violation(stack, browser):  # noqa: F811 - fixtures
    """Each engine's board (boards.js, table.js) in the replay, halfway and at the end, everything shown."""
    viewer = Player(stack.base_url)
    assert viewer.post("/api/me/mature-consent", {"adult": True, "consent": True}).status_code == 200
    page = new_page(browser, stack)
    log_in(page, viewer.name)
    found = {}
    for slug in sorted(REGISTRY):
        names = ["Ann", "Ben", "Cho", "Dai", "Eve"][: seats_for(slug)]
        game = ok(viewer.post("/api/records", {"record": random_record(slug, names, seed=4)}), 201)
        for at in (game["head_seq"] // 2, game["head_seq"]):
            page.goto(f"/games/{game['id']}/replay?at={at}&as=all")
            page.wait_for_selector(f"#replay[data-at='{at}'] #board [data-board='{slug}']")
            violations = axe_violations(page)
            if violations:
                found[f"{slug}@{at}"] = violations
    assert found == {}, json.dumps(found, indent=1, ensure_ascii=False)
    assert page.js_errors == []


def make_staff(stack, username: str) -> None:
    """Make ``username`` staff and superuser in the stack's database (the admin's pages): the test's
    own connection is inside a transaction the stack cannot see, so this commits on a connection of its own."""
    import psycopg

    with psycopg.connect(stack.env["DATABASE_URL"], autocommit=True) as connection:
        connection.execute("UPDATE auth_user SET is_staff = true, is_superuser = true WHERE username = %s", [username])


# Timed windows long enough (or untimed) that a page still shows the moves it was opened for.
LONG_WINDOWS = {
    "satori": {"katsu_window_seconds": 300},
    "turn-thief": {"reaction_window_seconds": 0},
    "nine-card": {"commit_seconds": 600},
}


def moves_of(player: Player, game_id: str) -> list[dict]:
    """The player's legal moves now, resigning aside."""
    offered = player.get(f"/api/games/{game_id}/legal-moves").json()["moves"]
    return [move for move in offered if move["type"] != "resign"]


def one_move(players, game_id: str) -> None:
    """The first of ``players`` who has a move makes its first one."""
    for player in players:
        moves = moves_of(player, game_id)
        if moves and player.move(game_id, moves[0]).status_code == 200:
            return


def running_game(me: Player, slug: str, *, my_turn: bool = False) -> str:
    """A running game of ``slug`` in which ``me`` holds seat 0: three moves into it (the board and the
    events show some play; a story has a line), or with ``my_turn`` as soon as ``me`` has a move."""
    others = [Player(me.base_url) for _ in range(seats_for(slug) - 1)]
    if REGISTRY[slug].mature:
        for player in (me, *others):
            assert player.post("/api/me/mature-consent", {"adult": True, "consent": True}).status_code == 200
    config = SHORT.get(slug, {}) | LONG_WINDOWS.get(slug, {})
    game_id = me.create_game(slug, [me.name, *(other.name for other in others)], config)["id"]
    if not my_turn:
        for _ in range(3):
            one_move((me, *others), game_id)
        return game_id
    for _ in range(30):
        if moves_of(me, game_id):
            return game_id
        one_move(others, game_id)
    raise AssertionError(f"{slug}: never my turn: {me.get(f'/api/games/{game_id}/state').json()}")


@pytest.mark.parametrize("locale", ["en-US", "ja-JP"])
def test_every_games_play_page_has_no_serious_accessibility_violation(stack, browser, locale):  # noqa: F811
    """Issue 23 item 6: the play page of a running game of each of the nine engines, as its first seat."""
    me = Player(stack.base_url)
    games = {slug: running_game(me, slug) for slug in sorted(REGISTRY)}
    page = new_page(browser, stack, locale=locale)
    log_in(page, me.name)
    found = {}
    for slug, game in games.items():
        page.goto(f"/games/{game}/play")
        page.wait_for_selector(f"#play[data-head-seq] #board [data-board='{slug}']")
        if page.locator("#play").get_attribute("data-head-seq") != "0":
            page.wait_for_selector("#events li", state="attached")
        violations = axe_violations(page)
        if violations:
            found[slug] = violations
    assert found == {}, json.dumps(found, indent=1, ensure_ascii=False)
    assert page.js_errors == []


@pytest.mark.parametrize("locale", ["en-US", "ja-JP"])
def test_the_league_lobby_recorder_and_admin_pages_have_no_serious_violation(stack, browser, locale):  # noqa: F811
    """Issue 23 item 6: a challenge ladder and a rating ladder, a league and its running season, the
    lobby with an open table, the table recorder (new and mid-deal), and the admin as staff."""
    owner, members = Player(stack.base_url), [Player(stack.base_url) for _ in range(4)]
    slug = f"a11y-{owner.name}"
    ok(owner.post("/api/clubs", {"name": f"Club {owner.name}", "slug": slug}), 201)
    for member in members:
        ok(owner.post(f"/api/clubs/{slug}/members", {"username": member.name}), 201)
        ok(member.post(f"/api/clubs/{slug}/join"))
    ladder = ok(owner.post(f"/api/clubs/{slug}/ladders", {"engine": "nine-card"}), 201)["id"]
    for member in members:
        ok(member.post(f"/api/ladders/{ladder}/join"))
    ok(members[3].post(f"/api/ladders/{ladder}/challenges", {"defender": members[2].name}), 201)
    league = ok(owner.post(f"/api/clubs/{slug}/leagues", {"name": "Winter", "engine": "nine-card"}), 201)["id"]
    for member in members:
        ok(owner.post(f"/api/leagues/{league}/players", {"username": member.name}), 201)
    season = ok(owner.post(f"/api/leagues/{league}/seasons"), 201)["id"]
    ok(members[0].post("/api/lobby/seeks", {"engine": "satori", "seats": 3}), 201)
    recorded = {"engine": "nine-card", "seats": [owner.name, "ben"], "keeper_seat": 0}
    table = ok(owner.post("/api/table-games", recorded), 201)
    make_staff(stack, owner.name)

    page = new_page(browser, stack, locale=locale)
    log_in(page, owner.name)
    pages = {"ladder": f"/ladders/{ladder}/", "league": f"/leagues/{league}/", "season": f"/seasons/{season}/"}
    pages |= {"lobby": "/lobby/", "table-new": "/table/new", "table": f"/games/{table['game']}/table"}
    admin = ["/admin/", "/admin/games/game/", f"/admin/games/game/{table['game']}/change/", "/admin/auth/user/"]
    admin += ["/admin/league/club/", "/admin/auth/user/add/"]
    pages |= {path: path for path in admin}
    found = {}
    for name, path in pages.items():
        page.goto(path)
        page.wait_for_load_state("load")
        if name == "table":
            page.wait_for_selector("#chance .pool .card")
        violations = axe_violations(page)
        if violations:
            found[name] = violations
    assert found == {}, json.dumps(found, indent=1, ensure_ascii=False)
    assert page.js_errors == []
