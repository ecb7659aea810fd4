"""Celery task of the reminders: beat's (and the embedded timer thread's) sweep."""

from __future__ import annotations

from celery import shared_task

from . import services


@shared_task
def reminders_sweep() -> int:
    """Send the reminders whose time has come; each at most once, however many sweeps run."""
    return services.reminders_send()
