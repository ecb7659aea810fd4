"""Names people choose (display names, club, ladder, league and tournament names): no bidi controls.

A right-to-left override (U+202E) in a display name makes "\u202eexe.gnp" read "png.exe" and turns
the username printed beside it around too. Names need no explicit direction formatting - letters of
any script carry their own direction, and the pages isolate each name (``<bdi>``, ``unicode-bidi:
isolate``) - so the embedding, override and isolate controls and the directional marks are refused.
"""

from __future__ import annotations

from games.errors import ServiceError

# U+202A-U+202E embeddings and overrides, U+2066-U+2069 isolates, U+200E/U+200F LRM/RLM, U+061C ALM.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
BIDI_CODE = "bidi_control_characters"


def bidi_controls_in(value: str) -> list[str]:
    """The bidi controls in ``value`` as ``U+XXXX``, each once, in order."""
    return list(dict.fromkeys(f"U+{ord(char):04X}" for char in value if char in BIDI_CONTROLS))


def name_check(value: str, *, what: str) -> str:
    """``value`` when it holds no bidi control; else a 400 ``bidi_control_characters``."""
    found = bidi_controls_in(value)
    if found:
        raise ServiceError(
            BIDI_CODE,
            f"{what} contains the text-direction control {', '.join(found)}; a name may not reorder the text around it",
        )
    return value
