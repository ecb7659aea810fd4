"""The game an event is played with (a tournament, a season's league), checked once, the same way
for every kind of event: a game Kifu knows, and a config its setup takes for the seats the event's
pairings have."""

from __future__ import annotations

from games.engines import UnknownGame, get_engine
from games.engines.base import Engine, RuleError
from games.errors import ServiceError


def event_game(engine: str, config, *, seats: int | None, what: str) -> tuple[Engine, dict]:
    """``engine``'s rules and ``config`` with its defaults filled in. With ``seats``, everything the
    game's setup would refuse for that many players is refused now, not when the first pairing is
    made; with None (seat counts vary: multiplayer Swiss), the config alone is checked. Refusals keep
    the engine's code (``unknown_game``, the config's own), the message led by ``what``."""
    try:
        game = get_engine(engine)
        full_config = game.validate_config(config) if seats is None else game.validate_setup(config, seats)
    except UnknownGame as error:
        raise ServiceError(error.code, error.message) from None
    except RuleError as error:
        raise ServiceError(error.code, f"{what}: {error.message}") from None
    return game, full_config
