"""Demo data for the embedded default: three players with API tokens, a finished and a running game."""

from __future__ import annotations

import random

from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token

from . import selectors, services
from .models import Game

DEMO_PASSWORD = "kifu-demo-password"
DEMO_PLAYERS = ("aki", "ben", "chie")


def _play(game: Game, users: dict[int, object], moves: int, chooser: random.Random) -> None:
    """Submit random legal moves through the real pipeline (eager in embedded mode)."""
    for number in range(moves):
        game.refresh_from_db()
        if game.is_finished or not game.actors:
            return
        seat = chooser.choice(game.actors)
        move = chooser.choice(selectors.legal_moves(game=game, seat=seat))
        services.move_submit(game_id=game.pk, user=users[seat], move=move, idempotency_key=f"demo-{number}")
        services.game_advance(game_id=game.pk)


def demo_load() -> dict[str, str]:
    """Create the demo once (running it again changes nothing); returns username -> token."""
    User = get_user_model()
    users = {}
    for name in DEMO_PLAYERS:
        user, created = User.objects.get_or_create(username=name)
        if created:
            user.set_password(DEMO_PASSWORD)
            user.save()
        users[name] = user
    tokens = {name: Token.objects.get_or_create(user=user)[0].key for name, user in users.items()}
    if not Game.objects.filter(meta__demo=True).exists():
        chooser = random.Random(2026)
        # The demo's own accounts agreed to be seated: consent=True, as an event's pairing does.
        finished = services.game_create(
            engine_slug="nine-card",
            config={},
            seats=[users["aki"], users["ben"]],
            created_by=users["aki"],
            consent=True,
        )
        _play(finished, {0: users["aki"], 1: users["ben"]}, 100, chooser)
        running = services.game_create(
            engine_slug="nine-card",
            config={},
            seats=[users["ben"], users["chie"]],
            created_by=users["ben"],
            consent=True,
        )
        _play(running, {0: users["ben"], 1: users["chie"]}, 5, chooser)
        Game.objects.filter(pk__in=[finished.pk, running.pk]).update(meta={"demo": True})
    return tokens


def demo_games() -> tuple[Game | None, Game | None]:
    """The demo's finished and running game (None for one that is not there, e.g. finished since)."""
    games = list(Game.objects.filter(meta__demo=True).order_by("created_at"))
    finished = next((game for game in games if game.is_finished), None)
    running = next((game for game in games if not game.is_finished), None)
    return finished, running
