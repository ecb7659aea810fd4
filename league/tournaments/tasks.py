"""Celery tasks of tournaments: they take ids, call a service and own the retries.

Each task imports the service it calls inside its body (the HackSoft habit), so no service ever
imports this module: the services sit on lower floors. The one way a service asks for a task is
the ``boards.round_complete`` signal, sent on commit; ``queue_advance`` is its receiver, connected
in ``LeagueConfig.ready`` - which also imports this module in every process that sets up Django
(web, worker), so the tasks are registered although Celery's autodiscovery only looks at
``<app>.tasks``.

The tasks were defined in ``league/tasks.py``; their registered names are pinned to the old ones
(``name=``) so messages already queued, and beat's schedule, still find them.
"""

from __future__ import annotations

from celery import shared_task

from kifu.celery import retrying_task


@retrying_task(name="league.tasks.tournament_game_finished_task")
def tournament_game_finished_task(game_id: str) -> bool:
    """Record a finished tournament game on its board, or in its board's match (idempotent); the
    last one of a round queues ``tournament_advance_task``."""
    from .lifecycle import tournament_game_finished

    return tournament_game_finished(game_id=game_id)


@retrying_task(name="league.tasks.tournament_advance_task")
def tournament_advance_task(tournament_id: int) -> int:
    """Pair the next round of a tournament whose round is complete, or finish it (idempotent)."""
    from .lifecycle import tournament_advance

    return tournament_advance(tournament_id=tournament_id).current_round


@shared_task(name="league.tasks.tournaments_sweep")
def tournaments_sweep() -> int:
    """Beat: forfeit the unfinished boards of tournament rounds whose deadline has passed."""
    from . import ops

    return ops.tournaments_sweep()


def queue_advance(sender, tournament_id: int, **kwargs) -> None:
    """Receiver of ``boards.round_complete``: queue the task that pairs the next round."""
    tournament_advance_task.delay(tournament_id)
