"""The rules pages in-process (issue 19 item 6): every engine's page in both languages, every config flag
explained in both, the links from the game list, play, replay and game pages, 404s and the mature rule."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from rest_framework.test import APIClient

from games import services
from games.engines import REGISTRY
from games.models import MatureConsent
from web.rules_views import LANGUAGES, rules_source

from .accounts import client_of, user

pytestmark = pytest.mark.django_db

# The six sections every rules page has, in this order, in each language.
SECTIONS = {
    "en": ["Goal", "Components", "Setup", "A turn", "Scoring and end", "Options"],
    "ja": ["目的", "用具", "準備", "手番", "得点と終了", "オプション"],
}
MATURE = sorted(slug for slug, engine in REGISTRY.items() if engine.mature)
ALL = sorted(REGISTRY)


def consenting(name: str):
    someone = user(name)
    MatureConsent.objects.create(user=someone)
    return someone


def options_section(text: str, language: str) -> str:
    """The Markdown of the "Options" section: from its heading to the end of the file (the last section)."""
    heading = f"## {SECTIONS[language][-1]}\n"
    assert text.count(heading) == 1, f"one {heading!r} heading"
    return text.split(heading, 1)[1]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("slug", ALL)
def test_every_engine_has_a_rules_file_with_the_six_sections(slug, language):
    text = rules_source(slug, language).read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, flags=re.MULTILINE)
    assert headings == SECTIONS[language], f"{slug}.{language}.md"
    if language == "ja":  # written in Japanese, not a copy of the English file
        assert len(re.findall(r"[\u3040-\u30ff\u4e00-\u9fff]", text)) > len(text) // 4


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("slug", ALL)
def test_every_config_flag_is_explained_in_the_options_of_both_languages(slug, language):
    """The pages cannot drift from the engines: a flag added to an engine fails here until it is explained."""
    options = options_section(rules_source(slug, language).read_text(encoding="utf-8"), language)
    explained = dict(re.findall(r"^- `([a-z_0-9]+)`(.+(?:\n  .+)*)", options, flags=re.MULTILINE))
    declared = [flag.name for flag in REGISTRY[slug].flags]
    assert [name for name in declared if name not in explained] == [], f"{slug}.{language}.md: flags not explained"
    assert sorted(set(explained) - set(declared)) == [], f"{slug}.{language}.md: options the engine does not have"
    assert all(len(explanation.strip()) > 12 for explanation in explained.values())


def default_words(value, language: str) -> tuple[str, ...] | None:
    """How an option's default is written at the start of its explanation (None: not checked)."""
    if isinstance(value, bool):
        words = {"en": ("default {}", "only value {}"), "ja": ("既定は{}", "値は{}のみ")}[language]
        state = {"en": ("off", "on"), "ja": ("オフ", "オン")}[language][value]
        return tuple(word.format(state) for word in words)
    if value is None:
        return {"en": ("default none",), "ja": ("既定はなし",)}[language]
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return (str(value),) if isinstance(value, int | str) else None


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("slug", ALL)
def test_every_option_states_the_engines_default(slug, language):
    """The default a page states (before the explanation's colon) is the engine's: a changed default
    fails here until the page follows."""
    options = options_section(rules_source(slug, language).read_text(encoding="utf-8"), language)
    explained = dict(re.findall(r"^- `([a-z_0-9]+)`(.+(?:\n  .+)*)", options, flags=re.MULTILINE))
    wrong = {}
    for flag in REGISTRY[slug].flags:
        words, head = default_words(flag.default, language), re.split("[:：]", explained[flag.name], maxsplit=1)[0]
        if words is not None and not any(word in head for word in words):
            wrong[flag.name] = (flag.default, head)
    assert wrong == {}, f"{slug}.{language}.md"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("slug", ALL)
def test_every_rules_page_renders_in_its_language(slug, language):
    client = client_of(consenting(f"reader-{language}"), language)
    page = client.get(f"/rules/{slug}/")
    assert page.status_code == 200
    html = page.content.decode()
    for heading in SECTIONS[language]:
        assert f"<h2>{heading}</h2>" in html
    for flag in REGISTRY[slug].flags:
        assert f"<code>{flag.name}</code>" in html
    assert f'<html lang="{language}">' in html
    article = html.split('<article class="rules"', 1)[1].split("</article>", 1)[0]
    assert "<script" not in article
    # A line break of the source between Japanese words would show as a space: none is left.
    wide = "\u3040-\u30ff\u4e00-\u9fff\uff00-\uffef"
    assert not re.search(rf"[{wide}]\n[{wide}]|[{wide}]\n<(strong|code)>|</(strong|code)>\n[{wide}]", article)


def test_the_index_lists_every_game_with_a_link():
    html = client_of(consenting("lister")).get("/rules/").content.decode()
    for slug in ALL:
        assert f'href="/rules/{slug}/"' in html


def test_an_unknown_game_has_no_rules_page():
    assert Client().get("/rules/chess/").status_code == 404
    assert Client().get("/rules/nine-card").status_code in (301, 404)  # without the slash: not a page either


def test_mature_rules_are_hidden_without_consent():
    """As every list (games.selectors.engine_list): no link, no listing and a 404 without consent."""
    assert MATURE, "a mature engine exists"
    stranger, refuser = Client(), client_of(user("refuser"))
    reader = client_of(consenting("adult"))
    for client, sees in ((stranger, False), (refuser, False), (reader, True)):
        index, home = client.get("/rules/").content.decode(), client.get("/").content.decode()
        for slug in MATURE:
            assert (f'href="/rules/{slug}/"' in index) == sees
            assert (f'href="/rules/{slug}/"' in home) == sees
            assert client.get(f"/rules/{slug}/").status_code == (200 if sees else 404)
        assert 'href="/rules/nine-card/"' in index and 'href="/rules/nine-card/"' in home


def test_the_home_page_links_each_game_to_its_rules():
    html = Client().get("/").content.decode()
    assert 'href="/rules/"' in html  # the header
    for slug in ALL:
        assert (f'href="/rules/{slug}/"' in html) == (slug not in MATURE)


def test_play_replay_and_game_pages_link_to_the_rules():
    oya, ko = user("oya"), user("ko")
    game = services.game_create(consent=True, engine_slug="satori", config={}, seats=[oya, ko], created_by=oya)
    client = client_of(oya, "ja")
    for path in (f"/games/{game.pk}/play", f"/games/{game.pk}/replay", f"/games/{game.pk}"):
        page = client.get(path)
        assert page.status_code == 200, path
        assert re.search(r'<a href="/rules/satori/" id="rules-link">ザ・悟りのルール</a>', page.content.decode()), path


def test_the_api_gives_each_engine_its_rules_url():
    api = APIClient()
    detail = api.get("/api/engines/necropolis").json()
    assert detail["rules_url"] == "http://testserver/rules/necropolis/"
    listed = {engine["slug"]: engine["rules_url"] for engine in api.get("/api/engines").json()}
    assert listed["1234"] == "http://testserver/rules/1234/" and not set(listed) & set(MATURE)
    assert api.get(listed["1234"]).status_code == 200
