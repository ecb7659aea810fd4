"""What ``/api/engines`` says about each game is written for players: no spec markers left in it."""

from __future__ import annotations

import pytest

from games.engines import all_engines
from games.engines.believers import ENGINE as BELIEVERS


def strings(value):
    """Every string anywhere in a described engine (flags, actions, their parameters)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from strings(item)


@pytest.mark.parametrize("engine", all_engines(), ids=lambda engine: engine.slug)
def test_no_description_is_a_spec_placeholder(engine):
    described = engine.describe()
    leftovers = [text for text in strings(described) if "PLACEHOLDER" in text.upper()]
    assert leftovers == []
    assert all(flag["description"].strip() for flag in described["flags"])


def test_the_believers_say_what_the_source_leaves_open():
    flags = {flag["name"]: flag for flag in BELIEVERS.describe()["flags"]}
    for name in ("min_players", "max_players", "turn_order", "ritual_trigger", "epilogue_enabled", "private_notes"):
        assert "Kifu chose" in flags[name]["description"] and "source" in flags[name]["description"], name
