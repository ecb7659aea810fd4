"""League test helpers: players, a club, a simulated clock, and finishing games through services."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth import get_user_model

from games import services as game_services
from games.models import Game
from league import services

START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


class Clock:
    """The league's simulated time: services get ``now=clock.now``."""

    def __init__(self) -> None:
        self.now = START

    def advance(self, **delta) -> datetime:
        self.now += timedelta(**delta)
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def make_user(db):
    def make(name: str | None = None):
        # No password: hashing one costs a third of a second, and these users log in by token.
        return get_user_model().objects.create_user(username=name or f"u{uuid.uuid4().hex[:8]}")

    return make


@pytest.fixture
def club_with(make_user, clock):
    """``club_with(n)``: an organiser and n active members (by invitation, then acceptance)."""

    def make(count: int, slug: str = "go-club"):
        organiser = make_user("org")
        club = services.club_create(name=slug.replace("-", " ").title(), slug=slug, by=organiser, now=clock.now)
        members = []
        for index in range(count):
            user = make_user(f"m{index}")
            services.membership_invite(club_id=club.pk, by=organiser, user=user, now=clock.now)
            services.membership_join(club_id=club.pk, by=user, now=clock.now)
            members.append(user)
        return club, organiser, members

    return make


def finish_game(game_id, *, loser, now=None) -> Game:
    """End a game through the game services (``loser`` resigns) and record it in the league as the
    game_finished task would (in a test transaction nothing is committed, so no task runs)."""
    game = Game.objects.get(pk=game_id)
    game_services.move_submit(game_id=game_id, user=loser, move={"type": "resign"}, idempotency_key=uuid.uuid4().hex)
    game_services.game_advance(game_id=game_id)
    game.refresh_from_db()
    assert game.is_finished, game.outcome
    services.league_game_finished(game_id=game_id, now=now)
    return game
