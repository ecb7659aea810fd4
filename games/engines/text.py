"""Validation of players' free text in the storytelling engines."""

from __future__ import annotations

import unicodedata

from .base import TEXT_NOT_STRING, IllegalMove


def check_text(
    value,
    name: str,
    limit: int,
    *,
    empty_code: str,
    not_string_code: str = TEXT_NOT_STRING,
    allow_empty: bool = False,
) -> str:
    """A player's text: a string, non-empty, at most ``limit`` characters, no control characters."""
    if not isinstance(value, str):
        raise IllegalMove(f'"{name}" must be text (a JSON string), not {type(value).__name__}', code=not_string_code)
    if not value.strip() and not allow_empty:
        raise IllegalMove(f'"{name}" is empty; write something', code=empty_code)
    if len(value) > limit:
        raise IllegalMove(f'"{name}" is {len(value)} characters long; the limit is {limit}', code="text_too_long")
    for char in value:
        category = unicodedata.category(char)
        if category == "Cc" and char not in "\n\t":
            raise IllegalMove(
                f'"{name}" contains the control character U+{ord(char):04X}; only newline and tab are allowed',
                code="control_characters",
            )
        if category == "Cs":
            raise IllegalMove(
                f'"{name}" contains an unpaired surrogate U+{ord(char):04X}; send valid Unicode text',
                code="invalid_characters",
            )
    return value
