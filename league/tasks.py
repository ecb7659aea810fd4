"""Celery tasks of the league: they take ids, call a service and own the retries (the tournament
tasks are in ``league.tournaments.tasks``)."""

from __future__ import annotations

from celery import shared_task

from kifu.celery import retrying_task

from . import services


@retrying_task
def league_game_finished_task(game_id: str) -> bool:
    """Record a finished league game in its match, challenge or ladder (idempotent)."""
    return services.league_game_finished(game_id=game_id)


@shared_task
def ladders_sweep() -> int:
    """Beat: forfeits at acceptance and play deadlines, and inactivity drops, on every ladder."""
    return services.ladders_sweep()
