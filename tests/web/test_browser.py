"""The pages in a real headless Chromium against the real stack: play, replay, languages.

Chromium is Debian's (/usr/bin/chromium, installed by bin/test); Playwright only drives it, so
``playwright install`` is never needed. Without Chromium these tests skip on a laptop and fail in
CI (CI=true). Screenshots are written under pytest's tmp dir; their paths are printed at the end.
"""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path

import pytest

from ..conftest import Player

pytestmark = [pytest.mark.stack, pytest.mark.django_db]

CHROMIUM = Path(os.environ.get("KIFU_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PASSWORD = "a-long-pass-1"
TIMEOUT_MS = 30_000  # how long a page may take to show something before the test fails


def _unavailable(reason: str):
    if os.environ.get("CI") == "true":
        pytest.fail(f"browser tests cannot run in CI: {reason} (bin/test installs chromium)")
    pytest.skip(reason)


@pytest.fixture
def browser():
    """One Chromium per test, started after the test database is set up: Playwright's sync API
    runs an event loop in this thread, and Django refuses database calls while one runs."""
    if not CHROMIUM.exists():
        _unavailable(f"{CHROMIUM} is missing: apt-get install chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is missing: pip install -r requirements-dev.txt")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        chromium.csp_violations = []  # every page's (new_page): the test fails on any
        yield chromium
        chromium.close()
    assert chromium.csp_violations == [], "the pages broke the Content-Security-Policy (kifu/security.py)"


@pytest.fixture(scope="module")
def shots(tmp_path_factory, request):
    """``shot(page, name)`` saves a full-page screenshot; the paths are printed when the module ends."""
    folder = tmp_path_factory.mktemp("screenshots")
    saved: list[Path] = []

    def shot(page, name: str) -> Path:
        path = folder / f"{len(saved) + 1:02d}-{name}.png"
        page.screenshot(path=str(path), full_page=True)
        saved.append(path)
        print(f"screenshot: {path}")
        return path

    yield shot
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is not None and capture is not None:
        with capture.global_and_fixture_disabled():
            reporter.write_line("")
            for path in saved:
                reporter.write_line(f"screenshot: {path}")


def new_page(browser, stack, locale: str = "en-US", width: int = 1280):
    context = browser.new_context(base_url=stack.base_url, locale=locale, viewport={"width": width, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.js_errors = errors
    # Chromium reports each blocked script, style, image or connection on the console. axe-core
    # (test_accessibility.axe_violations) copies a stylesheet's @import into a <style> of its own to
    # read it (Django admin's forms.css): that one is the test tool's, not the page's.
    violations = browser.csp_violations
    page.axe_running = False

    def console(message) -> None:
        if "Content Security Policy" not in message.text:
            return
        if page.axe_running and message.text.startswith("Applying inline style"):
            return
        violations.append(f"{page.url}: {message.text}")

    page.on("console", console)
    # The play page's reads of the state, and the streams it opened (Playwright request events).
    page.state_reads, page.stream_opens = [], []
    page.on("request", lambda r: page.state_reads.append(r.url) if r.url.split("?")[0].endswith("/state") else None)
    page.on("request", lambda r: page.stream_opens.append(r.url) if "/stream" in r.url else None)
    return page


def log_in(page, username: str) -> None:
    page.goto("/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("#login-form button[type=submit]")
    page.wait_for_selector("#whoami")


def finish_via_api(game_id: str, oya: Player, ko: Player) -> dict:
    """Both seats commit their lowest legal card, the Oya first, until the game ends."""
    for _ in range(20):
        game = oya.get(f"/api/games/{game_id}").json()
        if game["status"] == "finished":
            return game
        for player in (oya, ko):
            moves = player.get(f"/api/games/{game_id}/legal-moves").json()["moves"]
            if moves:
                response = player.move(game_id, moves[0])
                assert response.status_code == 200, response.text
    raise AssertionError("the game did not end")


def started_knockout(owner: Player, slug: str, members: list[Player], name: str) -> int:
    """The ``members`` join ``owner``'s club ``slug`` and enter a double elimination that starts."""
    for member in members:
        assert owner.post(f"/api/clubs/{slug}/members", {"username": member.name}).status_code == 201
        assert member.post(f"/api/clubs/{slug}/join").status_code == 200
    knockout = {"name": name, "engine": "nine-card", "format": "double_elimination"}
    tournament = owner.post(f"/api/clubs/{slug}/tournaments", knockout).json()["id"]
    for member in members:
        assert member.post(f"/api/tournaments/{tournament}/entries").status_code == 201
    assert owner.post(f"/api/tournaments/{tournament}/start").status_code == 200
    return tournament


def visit(page, pages: dict[str, str]):
    """Open each page of ``{name: path}`` in turn and yield its name once it has drawn itself (a
    replay's position loaded, a play page's hands drawn)."""
    for name, path in pages.items():
        page.goto(path)
        if "replay" in name:
            page.wait_for_selector("#replay[data-ready='1']")
        if "play" in name.split("-"):
            page.wait_for_selector(".nc-hand")
        page.wait_for_load_state("load")
        yield name


def test_two_browsers_play_a_nine_card_game(stack, browser, shots):
    from playwright.sync_api import expect

    oya = Player(stack.base_url)
    ko_name = f"ko-{uuid.uuid4().hex[:8]}"
    oya_page = new_page(browser, stack)
    ko_page = new_page(browser, stack)

    # The Ko signs up in the browser; the Oya logs in with an account made through the API.
    ko_page.goto("/accounts/signup/")
    ko_page.fill("input[name=username]", ko_name)
    ko_page.fill("input[name=password1]", PASSWORD)
    ko_page.fill("input[name=password2]", PASSWORD)
    ko_page.click("#signup-form button[type=submit]")
    expect(ko_page.locator("#whoami")).to_contain_text(ko_name)
    log_in(oya_page, oya.name)

    game = oya.create_game("nine-card", [oya.name, ko_name], {"commit_seconds": 600})
    game_id = game["id"]
    # The seat the Oya named the Ko for is an invitation: the Ko accepts it on the home page.
    ko_page.goto("/")
    ko_page.click(f'#invitations li[data-game="{game_id}"] button.accept')
    expect(ko_page).to_have_url(re.compile(f"/games/{game_id}/play$"))
    oya_page.goto(f"/games/{game_id}/play")

    for page, seat in ((oya_page, 0), (ko_page, 1)):
        expect(page.locator("#play")).to_have_attribute("data-live", "stream")
        # The EventSource sends the session cookie: the stream's head names this page's seat.
        expect(page.locator("#play")).to_have_attribute("data-stream-seat", str(seat))
        # The stream's first head repeats what the page's own read showed: the state is read once.
        assert len(page.state_reads) == 1, page.state_reads
        expect(page.locator("#who")).to_contain_text(f"seat {seat}")
        expect(page.locator("#turn-status")).to_have_text("Your turn")
        expect(page.locator("#countdown")).to_contain_text(re.compile(r"\d+ s left"))
        expect(page.locator(".nc-hand .card.playable")).to_have_count(9)
        expect(page.locator(f'.nc-player[data-seat="{1 - seat}"] .nc-hand .card.back')).to_have_count(9)

    # A move the rules refuse shows the engine's code and message.
    oya_page.evaluate("KifuPlay.submit({type: 'commit_card', card: 'KH'})")
    expect(oya_page.locator("#message")).to_contain_text("card_not_in_hand")
    expect(oya_page.locator("#message")).to_contain_text("KH is not in your hand")
    shots(oya_page, "play-rejected")

    # The Oya commits; the Ko's page shows a face-down card from the stream, not the card itself.
    first = oya_page.locator(".nc-hand .card.playable").first.get_attribute("data-card")
    oya_page.locator(f'.nc-hand .card.playable[data-card="{first}"]').click()
    expect(oya_page.locator("#message")).to_have_text("Accepted.")
    expect(ko_page.locator('.nc-player[data-seat="0"] .slot.now .card.back')).to_have_count(1)
    expect(ko_page.locator("#events li").last).to_have_text(f"{oya.name} played a card face down")
    expect(ko_page.locator(f'[data-card="{first}"]')).to_have_count(0)
    shots(ko_page, "play-opponent-committed")
    # Nothing happens for a while: a polling page would read the state twice a second or so.
    before = len(ko_page.state_reads)
    ko_page.wait_for_timeout(2500)
    assert ko_page.state_reads[before:] == []

    # The rest of the game: each page clicks a card whenever it has one to play.
    for turn in range(1, 10):
        for page in (oya_page, ko_page):
            if turn > 1 or page is ko_page:
                card = page.locator(".nc-hand .card.playable").first
                card.wait_for()
                card.click()
                expect(page.locator("#message")).to_have_text("Accepted.")
        status = oya.get(f"/api/games/{game_id}").json()
        if status["status"] == "finished":
            break
        if turn == 4:
            shots(oya_page, "play-round-two")
        # Both pages see the new turn before the next clicks.
        for page in (oya_page, ko_page):
            expect(page.locator("#play")).to_have_attribute("data-head-seq", str(status["head_seq"]))
    finished = oya.get(f"/api/games/{game_id}").json()
    assert finished["status"] == "finished"
    for page in (oya_page, ko_page):
        expect(page.locator("#result")).to_contain_text(re.compile(r"wins\.|drawn\."))
        expect(page.locator("#replay-link")).to_be_visible()
        expect(page.locator("#countdown")).to_be_hidden()
    shots(oya_page, "play-finished-oya")
    shots(ko_page, "play-finished-ko")
    assert oya_page.js_errors == [] and ko_page.js_errors == []
    # The stream was used: one read of the state at load and at most one per head message, never polling.
    for page in (oya_page, ko_page):
        assert any(url.endswith(f"/api/games/{game_id}/stream") for url in page.stream_opens)
        heads = int(page.locator("#play").get_attribute("data-heads"))
        assert heads >= 9 and len(page.state_reads) <= heads + 1, (heads, len(page.state_reads))


def expect_committed(item, name: str, card: str) -> None:
    """An event line "<name> committed <card>", the card drawn as a small card."""
    from playwright.sync_api import expect

    expect(item).to_contain_text(f"{name} committed")
    expect(item.locator(f'.card.small[data-card="{card}"]')).to_have_count(1)


def test_step_through_a_replay_in_each_perspective(stack, browser, shots):
    from playwright.sync_api import expect

    oya, ko = Player(stack.base_url), Player(stack.base_url)
    game_id = oya.create_game("nine-card", [oya.name, ko.name])["id"]
    finished = finish_via_api(game_id, oya, ko)
    events = oya.get(f"/api/games/{game_id}/events").json()
    oya_first = events[1]["data"]["card"]

    page = new_page(browser, stack)
    page.goto(f"/games/{game_id}/replay")
    root = page.locator("#replay")
    expect(root).to_have_attribute("data-at", "0")
    expect(page.locator("#position")).to_contain_text(f"(0 / {finished['head_seq']})")
    page.keyboard.press("ArrowRight")
    expect(root).to_have_attribute("data-at", "1")
    page.click("#next")
    expect(root).to_have_attribute("data-at", "2")
    expect(page).to_have_url(re.compile(r"\?at=2&as=all$"))

    # Everything: both hands, and the Oya's committed card in its slot.
    expect(page.locator('.nc-player[data-seat="0"] .nc-hand .card:not(.back)')).to_have_count(8)
    expect(page.locator('.nc-player[data-seat="1"] .nc-hand .card:not(.back)')).to_have_count(9)
    expect(page.locator(f'.nc-player[data-seat="0"] .slot.now [data-card="{oya_first}"]')).to_have_count(1)
    expect_committed(page.locator("#events li").last, oya.name, oya_first)
    shots(page, "replay-everything")

    # As the Ko: the Oya's hand and card are face down, the Ko's own hand is open.
    page.select_option("#perspective", "1")
    expect(root).to_have_attribute("data-as", "1")
    expect(page.locator('.nc-player[data-seat="0"] .nc-hand .card.back')).to_have_count(8)
    expect(page.locator('.nc-player[data-seat="0"] .slot.now .card.back')).to_have_count(1)
    expect(page.locator('.nc-player[data-seat="1"] .nc-hand .card:not(.back)')).to_have_count(9)
    expect(page.locator("#events li").last).to_have_text(f"{oya.name} played a card face down")
    expect(page.locator(f'[data-card="{oya_first}"]')).to_have_count(0)
    shots(page, "replay-as-ko")

    # As the Oya: its own card is shown, the Ko's hand is not.
    page.select_option("#perspective", "0")
    expect(root).to_have_attribute("data-as", "0")
    expect(page.locator('.nc-player[data-seat="1"] .nc-hand .card.back')).to_have_count(9)
    expect_committed(page.locator("#events li").last, oya.name, oya_first)

    # A shared link opens the same position and perspective.
    page.select_option("#perspective", "1")
    expect(root).to_have_attribute("data-as", "1")
    link = page.locator("#share").get_attribute("href")
    assert link.endswith("?at=2&as=1")
    other = new_page(browser, stack)
    other.goto(link)
    expect(other.locator("#replay")).to_have_attribute("data-at", "2")
    expect(other.locator("#perspective")).to_have_value("1")
    expect(other.locator("#events li").last).to_have_text(f"{oya.name} played a card face down")

    # The end: the outcome, every event, the slider at the end, and the verification.
    page.keyboard.press("End")
    expect(root).to_have_attribute("data-at", str(finished["head_seq"]))
    expect(page.locator("#outcome")).to_be_visible()
    expect(page.locator("#events li")).to_have_count(finished["head_seq"])
    expect(page.locator("#slider")).to_have_value(str(finished["head_seq"]))
    expect(page.locator("#next")).to_be_disabled()
    expect(page.locator("#verified")).to_have_attribute("data-ok", "true")
    expect(page.locator("#seed")).to_have_text(finished["seed"])
    page.keyboard.press("Home")
    expect(root).to_have_attribute("data-at", "0")
    page.keyboard.press("End")
    shots(page, "replay-end")
    assert page.js_errors == [] and other.js_errors == []


SPOKEN = {  # what a screen reader says for a card, written out here rather than taken from web/strings.py
    "en": ("{rank} of {suit}", {"A": "A (Ace)", "J": "J (Jack)", "Q": "Q (Queen)", "K": "K (King)"},
           {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}, "hidden card"),
    "ja": ("{suit}の{rank}", {"A": "A(エース)", "J": "J(ジャック)", "Q": "Q(クイーン)", "K": "K(キング)"},
           {"S": "スペード", "H": "ハート", "D": "ダイヤ", "C": "クラブ"}, "伏せ札"),
}  # fmt: skip


def spoken(card: str, language: str) -> str:
    name, ranks, suits, _ = SPOKEN[language]
    return name.format(rank=ranks.get(card[:-1], card[:-1]), suit=suits[card[-1]])


def test_cards_are_named_in_words_for_screen_readers(stack, browser):
    """Issue 23 item 6: a card drawn "2♠" is "2 of spades" / "スペードの2" to assistive technology (not
    "2S"): an image, or a button when it can be played; a face-down card is an image named "hidden
    card" (an aria-label needs a role on a span). Read from Chromium's accessibility tree."""
    from playwright.sync_api import expect

    oya, ko = Player(stack.base_url), Player(stack.base_url)
    game_id = oya.create_game("nine-card", [oya.name, ko.name], {"commit_seconds": 600})["id"]
    assert oya.move(game_id, oya.get(f"/api/games/{game_id}/legal-moves").json()["moves"][0]).status_code == 200
    hand = [move["card"] for move in ko.get(f"/api/games/{game_id}/legal-moves").json()["moves"]]
    assert len(hand) == 9
    for locale in ("en-US", "ja-JP"):
        language = locale[:2]
        page = new_page(browser, stack, locale=locale)
        log_in(page, ko.name)
        page.goto(f"/games/{game_id}/play")
        expect(page.locator(".nc-hand .card.playable")).to_have_count(9)
        for card in hand:  # the Ko's own hand: buttons
            expect(page.get_by_role("button", name=spoken(card, language), exact=True)).to_have_count(1)
        # The Oya's committed card and its hand of 8, face down.
        hidden = page.locator('.nc-player[data-seat="0"]').get_by_role("img", name=SPOKEN[language][3], exact=True)
        expect(hidden).to_have_count(9)
        # The deal in the event list: the Ko's hand as small card images.
        dealt = page.locator("#events li").first
        expect(dealt.get_by_role("img", name=spoken(hand[0], language), exact=True)).to_have_count(1)
        assert page.get_by_role("img", name=hand[0], exact=True).count() == 0  # never the id
        assert page.js_errors == []


def test_language_follows_the_browser_and_the_switch(stack, browser, shots):
    from playwright.sync_api import expect

    oya, ko = Player(stack.base_url), Player(stack.base_url)
    game_id = oya.create_game("nine-card", [oya.name, ko.name])["id"]
    finish_via_api(game_id, oya, ko)

    japanese = new_page(browser, stack, locale="ja-JP")
    japanese.goto("/")
    expect(japanese.locator("html")).to_have_attribute("lang", "ja")
    expect(japanese.locator("h2").last).to_have_text("最近のゲーム")
    expect(japanese.locator(f'tr[data-game="{game_id}"]')).to_contain_text("9(ナイン)カード")
    shots(japanese, "home-ja")

    page = new_page(browser, stack, locale="en-US")
    page.goto(f"/games/{game_id}/replay?at=2&as=1")
    expect(page.locator("#events li").last).to_have_text(f"{oya.name} played a card face down")
    page.select_option("#language-select", "ja")
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    expect(page).to_have_url(re.compile(r"/replay\?at=2&as=1$"))
    expect(page.locator("#events li").last).to_have_text(f"{oya.name}がカードを伏せて出しました")
    expect(page.locator("h1")).to_contain_text("リプレイ")
    shots(page, "replay-ja")
    page.goto("/")
    expect(page.locator("h2").last).to_have_text("最近のゲーム")
    page.select_option("#language-select", "en")
    expect(page.locator("h2").last).to_have_text("Recent games")
    assert japanese.js_errors == [] and page.js_errors == []


def test_the_language_choice_survives_a_browser_restart(stack, browser):
    """Issue 23 item 7: the switch's cookie is persistent (a year), so a browser that is closed and
    opened again - which keeps persistent cookies and drops session cookies - still shows Japanese,
    although it asks for English."""
    import time

    from playwright.sync_api import expect

    page = new_page(browser, stack, locale="en-US")
    page.goto("/")
    page.select_option("#language-select", "ja")
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    (cookie,) = [c for c in page.context.cookies() if c["name"] == "django_language"]
    assert cookie["value"] == "ja"
    assert cookie["expires"] > time.time() + 364 * 24 * 3600, cookie  # -1 would be a session cookie
    # The restart: a new browser profile with what the old one kept on disk (persistent cookies only).
    kept = [c for c in page.context.cookies() if c["expires"] != -1]
    page.context.close()
    context = browser.new_context(base_url=stack.base_url, locale="en-US")
    context.add_cookies(kept)
    again = context.new_page()
    again.goto("/")
    expect(again.locator("html")).to_have_attribute("lang", "ja")
    expect(again.locator("h2").last).to_have_text("最近のゲーム")
    # HEAD / is answered like GET (issue 23 item 7), in the remembered language too.
    head = again.request.head("/")
    assert head.status == 200 and head.headers["content-language"] == "ja"
    context.close()


def test_the_api_docs_and_the_admin_keep_to_the_content_security_policy(stack, browser):
    """Third-party pages too: Swagger UI (its setup script a file), Redoc (no Google Fonts) and the
    admin's log-in render with no CSP violation (the ``browser`` fixture fails the test on any)."""
    from playwright.sync_api import expect

    page = new_page(browser, stack)
    page.goto("/api/docs")
    expect(page.locator(".swagger-ui .info")).to_contain_text("Kifu API", timeout=TIMEOUT_MS)
    page.goto("/api/redoc")
    redoc_title = "() => [...document.querySelectorAll('h1')].some((h) => h.textContent.includes('Kifu API'))"
    page.wait_for_function(redoc_title, timeout=2 * TIMEOUT_MS)
    page.goto("/admin/login/")
    expect(page.locator("#login-form")).to_be_visible()
    assert page.js_errors == []


def test_the_pages_fit_a_phone_screen_even_with_300_letter_words(stack, browser, shots):
    """Issue 23: at 390 px nothing widens the page - user text wraps inside a word if it must, and a
    table too wide for the screen scrolls inside its own box. Issue 19: the same for the tournament,
    league and season pages and a card game's replay and play pages, and no page opens scrolled
    down (the replay kept its event list in view by scrolling the whole page to it)."""
    word = "Kifu" + "x" * 296  # one 300-letter word
    owner, other = Player(stack.base_url), Player(stack.base_url)
    slug = f"c{uuid.uuid4().hex[:8]}"
    assert owner.http.patch(f"{stack.base_url}/api/profile", json={"display_name": word[:80]}).status_code == 200
    assert owner.post("/api/clubs", {"name": word[:100], "slug": slug, "description": word}).status_code == 201
    ladder = owner.post(f"/api/clubs/{slug}/ladders", {"engine": "nine-card", "name": word[:100]})
    assert ladder.status_code == 201, ladder.text
    game_id = owner.create_game("believers", [owner.name, other.name])["id"]
    for player, move in [
        (owner, {"type": "contribute", "text": word}),
        (other, {"type": "contribute", "text": f"{word} {word}"}),
        (owner, {"type": "propose_final_ritual"}),
        (other, {"type": "agree_final_ritual"}),
        (owner, {"type": "commit_choice", "choice": "stay"}),
        (other, {"type": "commit_choice", "choice": "depart"}),
    ]:
        assert player.move(game_id, move).status_code == 200
    # Issue 19 item 7: the tournament and season pages, and a card game's replay, with members whose
    # display names are long words too (they fill the standings, pairings and the bracket).
    members = [Player(stack.base_url) for _ in range(4)]
    for number, member in enumerate(members):
        display = {"display_name": f"{number}{word[:79]}"}
        assert member.http.patch(f"{stack.base_url}/api/profile", json=display).status_code == 200
    tournament = started_knockout(owner, slug, members, word[:100])
    league = owner.post(f"/api/clubs/{slug}/leagues", {"name": word[:100], "engine": "nine-card"}).json()["id"]
    for member in members:
        assert owner.post(f"/api/leagues/{league}/players", {"username": member.name}).status_code == 201
    season = owner.post(f"/api/leagues/{league}/seasons")
    assert season.status_code == 201, season.text
    cards = owner.create_game("nine-card", [owner.name, other.name])["id"]
    finish_via_api(cards, owner, Player.by_name[other.name])

    page = new_page(browser, stack, width=390)
    log_in(page, owner.name)
    pages = {
        "home": "/",
        "clubs": "/clubs/",
        "club": f"/clubs/{slug}/",
        "ladder": f"/ladders/{ladder.json()['id']}/",
        "player": f"/players/{owner.name}/",
        "member": f"/players/{members[0].name}/",
        "tournament": f"/tournaments/{tournament}/",
        "league": f"/leagues/{league}/",
        "season": f"/seasons/{season.json()['id']}/",
        "game": f"/games/{game_id}",
        "replay": f"/games/{game_id}/replay?at=6&as=all",
        "cards-replay": f"/games/{cards}/replay?at=4&as=all",
        "cards-replay-end": f"/games/{cards}/replay?at=999&as=all",
        "cards-play": f"/games/{cards}/play",
    }
    widths, scrolled = {}, {}
    for name in visit(page, pages):
        widths[name] = page.evaluate("document.documentElement.scrollWidth")
        scrolled[name] = page.evaluate("window.scrollY")
        shots(page, f"phone-{name}")
    assert {name: width for name, width in widths.items() if width > 390} == {}
    # Opening a page leaves it at its top: the replay does not jump down to its event list.
    assert {name: y for name, y in scrolled.items() if y} == {}
    assert page.js_errors == []
