"""Celery tasks of the webhooks: send a delivery (retrying with backoff) and sweep up lost ones."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings
from django.db import OperationalError

from . import services


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def delivery_send_task(self, delivery_id: str) -> None:
    """One attempt; the service decides whether and when to try again (it counts the attempts)."""
    try:
        delay = services.delivery_attempt(delivery_id=delivery_id)
    except OperationalError:
        delay = 1.0  # the database blinked; the claim (if any) lapses and the sweep also covers it
    if delay is not None:
        raise self.retry(countdown=delay)


@shared_task
def deliveries_sweep() -> int:
    """Beat (and the embedded timer thread): send or queue again the deliveries whose time has come
    and whose task is gone. Embedded mode has no broker that can wait, so it sends them here."""
    if settings.EMBEDDED:
        due = services.deliveries_due(grace=0)
        for delivery_id in due:
            services.delivery_attempt(delivery_id=delivery_id)
        return len(due)
    due = services.deliveries_due(grace=60)
    for delivery_id in due:
        delivery_send_task.delay(delivery_id)
    return len(due)


def on_deliveries_created(sender, *, delivery_ids: list[str], **kwargs) -> None:
    """Receiver of ``hooks.signals.deliveries_created``: send each new delivery - a task on the real
    stack; embedded, the timer thread's next sweep."""
    if not settings.EMBEDDED:
        for delivery_id in delivery_ids:
            delivery_send_task.delay(delivery_id)
