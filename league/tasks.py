"""Celery tasks of the league: they take ids, call a service and own the retries (the tournament
tasks are in ``league.tournaments.tasks``)."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from . import services


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError,),
    retry_backoff=0.2,
    max_retries=8,
)
def league_game_finished_task(game_id: str) -> bool:
    """Record a finished league game in its match, challenge or ladder (idempotent)."""
    return services.league_game_finished(game_id=game_id)


@shared_task
def ladders_sweep() -> int:
    """Beat: forfeits at acceptance and play deadlines, and inactivity drops, on every ladder."""
    return services.ladders_sweep()
