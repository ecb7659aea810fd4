"""Game names in English and Japanese, keyed by engine slug (the engines keep one English name)."""

from __future__ import annotations

from django.utils.translation import get_language

from games.engines import get_engine

# Japanese names follow the titles of the source articles in shared/rules/<game>.md.
GAME_NAMES: dict[str, dict[str, str]] = {
    "nine-card": {"en": "Nine Card", "ja": "9(ナイン)カード"},
    "satori": {"en": "The Satori", "ja": "ザ・悟り"},
    "necropolis": {"en": "Necropolis", "ja": "ネクロポリス"},
    "turn-thief": {"en": "Turn Thief", "ja": "ターン泥棒"},
    "twenty-two": {"en": "Twenty-Two", "ja": "22(トゥエンティ・ツー)"},
    "1234": {"en": "1234", "ja": "1234(ヌン・ソーン・サーム・シィー)"},
    "mekuri-hinmin": {"en": "Mekuri Hinmin", "ja": "めくり貧民"},
    "believers": {"en": "The Believers", "ja": "ビリーバーズ"},
    "kazekami-kyoko": {"en": "Kazekami Kyoko Kills Kublai Khan", "ja": "風神キョーコは忽必烈汗を殺す"},
}


def game_name(slug: str, language: str | None = None) -> str:
    """The game's name in ``language`` (default: the active one); the engine's own name otherwise."""
    language = (language or get_language() or "en").split("-")[0]
    names = GAME_NAMES.get(slug)
    if names:
        return names.get(language) or names["en"]
    try:
        return get_engine(slug).name
    except Exception:  # an engine removed since the game was stored still gets a label
        return slug
