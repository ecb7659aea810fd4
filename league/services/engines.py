"""The game an event is played with (a tournament, a season's league), checked once, the same way
for every kind of event: a game Kifu knows, a config its setup takes for the seats the event's
pairings have, and - for a mature game - the event's opt-in and its people's consent."""

from __future__ import annotations

from games.engines import UnknownGame, get_engine
from games.engines.base import Engine, RuleError
from games.errors import ServiceError
from games.selectors import may_see_mature


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


def event_mature_check(game: Engine, mature: bool, by, *, what: str, opt_in: str) -> None:
    """An event (``what``: "tournament", "league") of a mature game says so (``mature`` true, shown
    in its settings and on its page; ``opt_in`` says how to set it), and is run by an organiser
    who consented to mature content (403 ``mature_consent_required``); ``mature`` on a game that
    is not mature is refused (400 ``invalid_settings``)."""
    if not game.mature:
        if mature:
            raise ServiceError("invalid_settings", f"mature is only for a mature game; {game.name} is not one")
        return
    if not mature:
        raise ServiceError(
            "mature_opt_in_required",
            f"{game.name} is a mature game: a {what} of it sets {opt_in}, and only players who consented to "
            "mature content may play in it",
        )
    require_mature_consent(by, what=what)


def require_mature_consent(user, *, what: str) -> None:
    """403 ``mature_consent_required`` unless ``user`` consented to mature content (entering a
    mature tournament, joining a mature league's roster, organising either)."""
    if not may_see_mature(user):
        raise ServiceError(
            "mature_consent_required",
            f"{user.get_username()} has not consented to mature content; a mature {what} is for adults "
            "who opted in (POST /api/me/mature-consent)",
            status=403,
        )
