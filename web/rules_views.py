"""The rules pages: ``/rules/`` lists the games and ``/rules/<engine>/`` explains one, in English or Japanese.

Each game's rules are written for players in Markdown, one file per language beside the page templates
(``web/templates/web/rules/<slug>.en.md`` and ``<slug>.ja.md``), and rendered by markdown-it-py (CommonMark
with tables). Markdown rather than template strings in ``django.po`` because a rules page is prose a
translator writes as a whole, not sentence by sentence: natural Japanese reorders and merges sentences, which
a catalogue of msgids cannot express. Raw HTML in the files is off, so the text cannot inject markup.
``tests/web/test_rules_pages.py`` checks that every config flag of every engine is explained in both files.

Mature games follow the consent rule of every other page (``games.selectors.engine_list`` / ``game_get``):
they are missing from the index and their page answers 404 to a visitor who has not consented.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from django.shortcuts import render
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from django.views.decorators.http import require_safe
from markdown_it import MarkdownIt

from games import selectors
from games.engines import REGISTRY

from .names import game_name

RULES_DIR = Path(__file__).with_name("templates") / "web" / "rules"
LANGUAGES = ("en", "ja")


def rules_source(slug: str, language: str) -> Path:
    """The Markdown file of ``slug``'s rules in ``language`` (``en`` or ``ja``)."""
    return RULES_DIR / f"{slug}.{language}.md"


def _language() -> str:
    language = (get_language() or "en").split("-")[0]
    return language if language in LANGUAGES else "en"


# A line break in the source next to Japanese text (kana, kanji, full-width punctuation and forms,
# arrows), possibly just inside or outside an inline tag. CommonMark keeps a soft break as a newline,
# which a browser shows as a space: right between English words, wrong between Japanese characters.
_WIDE = "\u2190-\u21ff\u3000-\u30ff\u3400-\u9fff\uff00-\uffef"
_SOFT_BREAK = re.compile(
    rf"(?<=[{_WIDE}])((?:</[a-z]+>)?)\n((?:<[a-z]+>)?)|((?:</[a-z]+>)?)\n((?:<[a-z]+>)?)(?=[{_WIDE}])"
)


def _join_wide_lines(html: str) -> str:
    """Drop the soft line breaks of the source where Japanese text meets them (see ``_SOFT_BREAK``)."""
    return _SOFT_BREAK.sub(lambda match: "".join(part or "" for part in match.groups()), html)


@lru_cache(maxsize=len(REGISTRY) * len(LANGUAGES))
def rules_html(slug: str, language: str) -> SafeString:
    """The rules of ``slug`` in ``language`` as HTML (the files ship with the code, so render once)."""
    markdown = MarkdownIt("commonmark", {"html": False}).enable("table")
    html = markdown.render(rules_source(slug, language).read_text(encoding="utf-8"))
    return mark_safe(_join_wide_lines(html))


def _visible_engine(request, slug: str):
    """The engine if this visitor may see it: a mature game only with consent (else None, as a game page)."""
    engine = REGISTRY.get(slug)
    if engine is None or (engine.mature and not selectors.may_see_mature(request.user)):
        return None
    return engine


@require_safe
def rules_index(request):
    engines = [
        {"slug": engine.slug, "name": game_name(engine.slug), "engine": engine}
        for engine in selectors.engine_list(viewer=request.user)
    ]
    return render(request, "web/rules/index.html", {"engines": engines})


@require_safe
def rules_page(request, slug: str):
    engine = _visible_engine(request, slug)
    if engine is None:
        return render(request, "web/not_found.html", status=404)
    context = {"engine": engine, "name": game_name(slug), "rules": rules_html(slug, _language())}
    return render(request, "web/rules/page.html", context)
