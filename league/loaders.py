"""Load-or-404 for the league's API modules (``league.api``, ``league.tournaments.api``,
``league.seasons.api``), which do not import each other: an object a URL or a body names, or a
refusal in the one error shape."""

from __future__ import annotations

from kifu.http.errors import ApiError, found
from kifu.http.params import IntParam

from . import selectors

# The round and division filters of tournament boards and season fixtures: their codes were public
# before the kit's parser, so they keep them.
ROUND_FILTER = IntParam("round", None, 0, 10**9, "Only this round.", code="invalid_round")
DIVISION_FILTER = IntParam("division", None, 0, 10**9, "Only this division (tier, 1 = top).", code="invalid_division")


def load_club(slug: str):
    return found(selectors.club_get(slug=slug), f"no club called {slug!r}")


def load_ladder(pk):
    return found(selectors.ladder_get(ladder_id=pk), "no such ladder")


def load_challenge(pk):
    return found(selectors.challenge_get(challenge_id=pk), "no such challenge")


def load_user(username: str, *, field: str = "username"):
    user = selectors.user_by_name(username)
    if user is None:
        raise ApiError("no_such_player", f"{field}: no player called {username!r}")
    return user
