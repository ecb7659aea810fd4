"""The registry of rule engines: one pure-Python module per game, looked up by slug."""

from __future__ import annotations

import pkgutil
from importlib import import_module

from .base import Engine, RuleError

# Shared modules that are not games; every other module in this package is one game and
# exposes ``ENGINE``. Adding a game is adding its module.
_NOT_GAMES = {"base", "cards", "chance", "text"}


def _load() -> dict[str, Engine]:
    registry: dict[str, Engine] = {}
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if module.name in _NOT_GAMES or module.name.startswith("_"):
            continue
        engine = import_module(f"{__name__}.{module.name}").ENGINE
        if engine.slug in registry:
            raise RuntimeError(f"two engine modules claim the slug {engine.slug!r}")
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
