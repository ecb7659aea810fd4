"""What the store can hold: checks of text and parsed JSON that PostgreSQL would refuse.

Standard library only, and no app: the HTTP kit's guards (``kifu/http/guards.py``) apply them to
request bodies and URLs, and ``games.records`` to record files, so both refuse the same input with
the same codes.
"""

from __future__ import annotations

import math
import re

MAX_DEPTH = 64  # nesting of a JSON value (a request body, a record's line); real events nest a handful of levels
# What the store cannot hold: PostgreSQL refuses NUL in text and jsonb, and a lone UTF-16
# surrogate cannot be encoded as UTF-8 (json.loads accepts both as "\u0000" and "\ud800").
BAD_TEXT = re.compile("[\x00\ud800-\udfff]")


def text_problem(value: str) -> str | None:
    """What is wrong with a string the store could not hold, or None if it is fine."""
    match = BAD_TEXT.search(value)
    if match is None:
        return None
    if match.group() == "\x00":
        return "text may not contain the NUL character (\\u0000)"
    return f"text may not contain a lone surrogate (\\u{ord(match.group()):04x}); use valid UTF-8"


def value_problem(value) -> tuple[str, str] | None:
    """``(code, message)`` for the first thing in a parsed JSON value the store could not hold -
    ``bad_text`` (NUL, lone surrogate), ``bad_number`` (not finite), ``too_deep`` (nesting past
    MAX_DEPTH) - with its JSON path in the message; None if it is fine. Walks iteratively: the
    input may be hostile."""
    stack = [(value, "$", 0)]
    while stack:
        item, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            return "too_deep", f"{path}: nested deeper than {MAX_DEPTH} levels"
        if isinstance(item, str):
            problem = text_problem(item)
            if problem:
                return "bad_text", f"{path}: {problem}"
        elif isinstance(item, float) and not math.isfinite(item):
            return "bad_number", f"{path}: numbers must be finite (this one overflows a float)"
        elif isinstance(item, dict):
            for key, child in item.items():
                problem = text_problem(key)
                if problem:
                    return "bad_text", f"{path}: a key: {problem}"
                stack.append((child, f"{path}.{key}", depth + 1))
        elif isinstance(item, list):
            stack.extend((child, f"{path}[{index}]", depth + 1) for index, child in enumerate(item))
    return None
