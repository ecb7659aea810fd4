"""The registry of rule engines: one pure-Python module per game, looked up by slug."""

from __future__ import annotations

from importlib import import_module

from .base import Engine, RuleError

# Module names under games/engines, in listing order. A module exposes ``ENGINE``.
_MODULES = ("nine_card",)


def _load() -> dict[str, Engine]:
    registry: dict[str, Engine] = {}
    for name in _MODULES:
        engine = import_module(f"{__name__}.{name}").ENGINE
        registry[engine.slug] = engine
    return registry


REGISTRY: dict[str, Engine] = _load()


class UnknownGame(RuleError):
    code = "unknown_game"


def get_engine(slug: str) -> Engine:
    try:
        return REGISTRY[slug]
    except (KeyError, TypeError):
        known = ", ".join(sorted(REGISTRY))
        raise UnknownGame(f"no game called {slug!r}; known games: {known}") from None


def all_engines() -> list[Engine]:
    return list(REGISTRY.values())
