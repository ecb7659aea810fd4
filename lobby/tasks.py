"""Celery tasks of the lobby: they take ids, call a service and own the retries."""

from __future__ import annotations

from celery import shared_task

from kifu.celery import retrying_task

from . import services


@retrying_task
def lobby_game_rate_task(game_id: str) -> bool:
    """Move the site ratings of a finished rated lobby game's players (idempotent)."""
    return services.lobby_game_rate(game_id=game_id)


@shared_task
def seeks_sweep() -> int:
    """Beat (and the embedded timer thread): expire open seeks past their time."""
    return services.seeks_expire()
