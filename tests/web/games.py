"""Finished games of every engine for the page tests: played in-process through ``games.services``
with random legal moves, or made as a record (pure engine self-play) for the stack tests."""

from __future__ import annotations

import random
from datetime import timedelta

from django.utils import timezone

from games import selectors, services
from games.engines import REGISTRY
from games.models import Game
from games.records import dump_record
from tests.engines.harness import random_playthrough

# Keep the long games short (caps), as the every-engine stack test does.
SHORT = {
    "turn-thief": {"max_discards": 12},
    "necropolis": {"turn_limit": 20},
    "1234": {"match_games": 1},
    "mekuri-hinmin": {"auto_tie_after_events": 150},
}


def seats_for(slug: str) -> int:
    engine = REGISTRY[slug]
    return engine.min_seats if engine.min_seats > 2 else min(3, engine.max_seats)


def play_random(slug: str, users, seed: int = 1) -> Game:
    """A whole game with random legal moves; an open window nobody answers is closed as its timer
    would (its deadline moved into the past), and now and then closed early the same way."""
    engine = REGISTRY[slug]
    users = users[: seats_for(slug)]
    if engine.mature:
        for user in users:
            services.mature_consent_confirm(user=user, adult=True, consent=True)
    game = services.game_create(
        consent=True, engine_slug=slug, config=SHORT.get(slug, {}), seats=users, created_by=users[0]
    )
    for user in users[1:] if engine.mature else []:
        services.game_accept(game_id=game.pk, user=user)
    chooser = random.Random(seed)
    for step in range(engine.max_events):
        game.refresh_from_db()
        if game.is_finished:
            return game
        offers = [(seat, selectors.legal_moves(game=game, seat=seat)) for seat in game.actors]
        offers = [(seat, moves) for seat, moves in offers if moves]
        if game.deadline_at is not None and (not offers or chooser.random() < 0.1):
            Game.objects.filter(pk=game.pk).update(deadline_at=timezone.now() - timedelta(seconds=1))
            services.game_advance(game_id=game.pk)
            continue
        assert offers, f"{slug}: nobody can move and no window is open"
        seat, moves = chooser.choice(offers)
        services.move_submit(game_id=game.pk, user=users[seat], move=chooser.choice(moves), idempotency_key=f"k{step}")
        services.game_advance(game_id=game.pk)
    raise AssertionError(f"{slug} did not finish")


def random_record(slug: str, names: list[str], seed: int = 1, config: dict | None = None) -> str:
    """A finished game as a record (JSON Lines) to import, from the engine's own random self-play."""
    engine = REGISTRY[slug]
    config = SHORT.get(slug, {}) if config is None else config
    events, _states = random_playthrough(engine, len(names), seed, config, checks=False)
    header = {"kifu": 1, "game": slug, "rules_version": engine.rules_version, "config": config, "seats": names}
    return dump_record(header, events)
