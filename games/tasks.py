"""Celery tasks: they take ids, call a service and own the retries; no rules live here."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from kifu.celery import retrying_task

from . import checkpoints, receipts, services
from .models import Game
from .notices import redis_client

log = logging.getLogger("kifu.games")


@retrying_task
def game_advance_task(game_id: str) -> int:
    """Validate and apply a game's pending submissions (and close an overdue window)."""
    advance_queue_release(game_id)  # before reading: a submission stored from now on queues again
    return services.game_advance(game_id=game_id)


# One queued advance per game is enough: it drains every submission stored before it starts. A
# submission stored while one is queued (not yet started) only adds itself to what it will drain;
# once the task starts it drops the mark, so a later submission queues a new task. The mark
# expires, so a lost task costs at most this long (and the sweeper re-queues stale submissions).
ADVANCE_MARK_MS = 10_000


def _advance_mark(game_id) -> str:
    return f"kifu:advance-queued:{game_id}"


def advance_queue_claim(game_id) -> bool:
    """True when the caller should queue an advance of ``game_id`` (none is waiting to start)."""
    if settings.EMBEDDED or not settings.REDIS_URL:
        return True
    try:
        return bool(redis_client().set(_advance_mark(game_id), 1, nx=True, px=ADVANCE_MARK_MS))
    except Exception:
        return True  # no Redis: queueing fails the same way and says so


def advance_queue_release(game_id) -> None:
    if settings.EMBEDDED or not settings.REDIS_URL:
        return
    try:
        redis_client().delete(_advance_mark(game_id))
    except Exception:
        log.warning("could not drop the advance mark of %s", game_id, exc_info=True)


def on_advance_due(sender, *, game_id, force: bool = False, **kwargs) -> None:
    """Receiver of ``games.signals.advance_due`` (a service stored a submission, or the sweeper
    found some left pending): queue an advance unless one is already waiting to start."""
    if advance_queue_claim(game_id) or force:
        game_advance_task.delay(str(game_id))


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=200)
def window_close_task(self, game_id: str, window: str) -> bool:
    """Close ``window`` once its deadline (plus the receipt grace) has passed; a stale or repeated
    timer changes nothing. Still open afterwards: the timer fired a little early, or a move request
    stamped before the deadline was still on its way in (``games.receipts``) - try again shortly."""
    services.game_advance(game_id=game_id)
    game = Game.objects.filter(pk=game_id).values("window", "deadline_at").first()
    if game and game["window"] == window and game["deadline_at"] is not None:
        due = game["deadline_at"] + receipts.grace()
        raise self.retry(countdown=max((due - timezone.now()).total_seconds(), 0.02))
    return True


@shared_task
def deadlines_sweep() -> int:
    """Beat: close every overdue window, including those whose timer task was lost."""
    return services.deadlines_sweep()


@shared_task
def submissions_sweep() -> int:
    """Beat: queue again games whose submissions were left pending (a worker died mid-task)."""
    return services.submissions_sweep(older_than=settings.KIFU_SUBMISSION_REQUEUE_SECONDS)


@shared_task
def checkpoint_task() -> int:
    """Beat: sign the finished games not yet in the checkpoint log (one checkpoint per tick, one
    batch each); returns how many games it covered."""
    checkpoint = checkpoints.checkpoint_create()
    return checkpoint.size if checkpoint else 0


# A deadline further away than this gets no ETA task: beat's deadlines sweep closes it. A broker
# holds an ETA task in a worker's memory until it is due (and Redis redelivers unacked ones after
# its visibility timeout), which is wrong for a correspondence game's days.
ETA_HORIZON_SECONDS = 3600


def schedule_window_close(game_id, window: str, deadline) -> None:
    """Set the timer for an open window. Embedded mode has no broker that can wait, so its
    scheduler thread (games.scheduler) sweeps overdue windows instead."""
    if settings.EMBEDDED or (deadline - timezone.now()).total_seconds() > ETA_HORIZON_SECONDS:
        return
    window_close_task.apply_async((str(game_id), window), eta=deadline)


def on_window_timer_due(sender, *, game_id, window: str, deadline, **kwargs) -> None:
    """Receiver of ``games.signals.window_timer_due`` (``games.eventlog.Notice``)."""
    schedule_window_close(game_id, window, deadline)
