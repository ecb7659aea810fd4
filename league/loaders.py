"""Load-or-404 for the league's API modules (``league.api``, ``league.tournaments.api``,
``league.seasons.api``), which do not import each other: an object a URL or a body names, or a
refusal in the one error shape."""

from __future__ import annotations

from rest_framework import status

from kifu.http.errors import ApiError

from . import selectors


def load_club(slug: str):
    club = selectors.club_get(slug=slug)
    if club is None:
        raise ApiError("not_found", f"no club called {slug!r}", status.HTTP_404_NOT_FOUND)
    return club


def load_ladder(pk):
    ladder = selectors.ladder_get(ladder_id=pk)
    if ladder is None:
        raise ApiError("not_found", "no such ladder", status.HTTP_404_NOT_FOUND)
    return ladder


def load_challenge(pk):
    challenge = selectors.challenge_get(challenge_id=pk)
    if challenge is None:
        raise ApiError("not_found", "no such challenge", status.HTTP_404_NOT_FOUND)
    return challenge


def load_user(username: str, *, field: str = "username"):
    user = selectors.user_by_name(username)
    if user is None:
        raise ApiError("no_such_player", f"{field}: no player called {username!r}")
    return user
