"""The embedded-mode timer: a daemon thread that closes overdue windows and retries lost moves.

Eager Celery runs a task at once and ignores countdowns, so without a broker nothing would wait
for a deadline. In embedded mode the web process runs this thread instead; on the real stack
Celery ETA tasks and beat do the same work.
"""

from __future__ import annotations

import logging
import os
import threading
import time

from django.conf import settings
from django.db import close_old_connections
from django.utils.module_loading import import_string

from . import services

log = logging.getLogger("kifu.scheduler")
_started = threading.Event()


def tick() -> None:
    services.deadlines_sweep()
    services.submissions_sweep(older_than=settings.KIFU_SUBMISSION_REQUEUE_SECONDS)


def run_periodic(last_run: dict[str, float], now: float) -> None:
    """Other apps' sweeps (settings.KIFU_EMBEDDED_PERIODIC: dotted path, seconds), which beat runs
    on the real stack; a Celery task called directly runs in this thread."""
    for path, every in settings.KIFU_EMBEDDED_PERIODIC:
        if now - last_run.get(path, 0.0) >= every:
            last_run[path] = now
            import_string(path)()


def _run(interval: float) -> None:
    last_run: dict[str, float] = {}
    while True:
        try:
            close_old_connections()
            tick()
            run_periodic(last_run, time.monotonic())
        except Exception:  # keep the timer alive; the next tick retries
            log.exception("embedded scheduler tick failed")
        time.sleep(interval)


def start_embedded_scheduler() -> bool:
    """Start the thread once per process, in embedded mode only. Returns whether it runs."""
    if not settings.EMBEDDED or os.environ.get("KIFU_EMBEDDED_SCHEDULER", "1") == "0":
        return False
    if _started.is_set():
        return True
    _started.set()
    thread = threading.Thread(target=_run, args=(settings.KIFU_EMBEDDED_TICK_SECONDS,), name="kifu-timers", daemon=True)
    thread.start()
    return True
