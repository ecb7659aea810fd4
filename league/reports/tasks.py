"""Celery tasks of reported results: they take ids, call a service and own the retries."""

from __future__ import annotations

from celery import shared_task

from kifu.celery import retrying_task


@retrying_task
def table_game_finished_task(game_id: str) -> bool:
    """A finished table game of a pairing becomes its keeper's report (idempotent)."""
    from .services import table_game_finished

    return table_game_finished(game_id=game_id) is not None


@shared_task
def reports_sweep() -> int:
    """Beat: a pending report whose time ran out counts as confirmed and decides its pairing."""
    from .services import reports_sweep as sweep

    return sweep()
