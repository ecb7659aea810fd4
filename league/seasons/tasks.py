"""Celery tasks of the seasonal leagues: they take ids, call a service and own the retries."""

from __future__ import annotations

from celery import shared_task

from kifu.celery import retrying_task

from . import services


@retrying_task
def season_game_finished_task(game_id: str) -> bool:
    """Record a finished fixture game in its season (idempotent); the last one closes the season."""
    return services.season_game_finished(game_id=game_id)


@shared_task
def seasons_sweep() -> int:
    """Beat: forfeit fixtures not finished by their play-by date, on every running season."""
    return services.seasons_sweep()
