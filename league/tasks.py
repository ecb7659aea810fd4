"""Celery tasks of the league: they take ids, call a service and own the retries."""

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


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError,),
    retry_backoff=0.2,
    max_retries=8,
)
def tournament_game_finished_task(game_id: str) -> bool:
    """Record a finished tournament game on its board, or in its board's match (idempotent); the
    last one of a round queues ``tournament_advance_task``."""
    return services.tournament_game_finished(game_id=game_id)


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError,),
    retry_backoff=0.2,
    max_retries=8,
)
def tournament_advance_task(tournament_id: int) -> int:
    """Pair the next round of a tournament whose round is complete, or finish it (idempotent)."""
    return services.tournament_advance(tournament_id=tournament_id).current_round


@shared_task
def tournaments_sweep() -> int:
    """Beat: forfeit the unfinished boards of tournament rounds whose deadline has passed."""
    return services.tournaments_sweep()
