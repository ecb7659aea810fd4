"""The Celery application: Redis broker on the real stack, eager (in-process) in embedded mode."""

import os

from celery import Celery, shared_task, signals
from django.db import OperationalError

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kifu.settings")

app = Celery("kifu")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


# ---- the retry policy of tasks that follow a committed write -----------------------------------
def retrying_task(func=None, **options):
    """``shared_task`` with the house retry policy, for a task that records what a committed write
    left to do (a finished game's league follow-up, the next move batch): acks late and requeued
    when its worker is lost, so a crash re-runs it (the task must be idempotent), and retried with
    exponential backoff from 0.2 s, up to 8 times, when the database blinks (``OperationalError``).
    Use as ``@retrying_task`` or ``@retrying_task(name=...)``; ``options`` override the policy."""
    policy = {
        "acks_late": True,
        "reject_on_worker_lost": True,
        "autoretry_for": (OperationalError,),
        "retry_backoff": 0.2,
        "max_retries": 8,
        **options,
    }
    if func is None:
        return shared_task(**policy)
    return shared_task(**policy)(func)


# ---- database connections in workers ------------------------------------------------------------
# Celery's Django fixup closes every database connection before and after each task unless
# ``db_reuse_max`` is set; reconnecting cost ~7% of worker time at the pipeline's pace. Connections
# are kept instead: after each task, one that failed is closed (Django's own check), and the next
# task skips the ``SELECT 1`` health check that CONN_HEALTH_CHECKS would send first (another ~5%):
# a connection that broke meanwhile fails the task with an OperationalError, which retries it.
app.conf["CELERY_DB_REUSE_MAX"] = 1_000_000  # the fixup reads this exact key


def _retire_broken_connections(task=None, **kwargs) -> None:
    if task is None or getattr(task.request, "is_eager", False):
        return  # an eager task runs inside the caller's transaction (embedded mode, tests)
    from django.db import connections

    for conn in connections.all(initialized_only=True):
        conn.close_if_unusable_or_obsolete()
        conn.health_check_done = True


signals.task_postrun.connect(_retire_broken_connections, weak=False)


# ---- metrics (kifu/metrics.py): how long each task ran, by task and end state -------------------
def _task_started(**kwargs) -> None:
    from kifu import metrics

    metrics.task_started(**kwargs)


def _task_finished(**kwargs) -> None:
    from kifu import metrics

    metrics.task_finished(**kwargs)


signals.task_prerun.connect(_task_started, weak=False)
signals.task_postrun.connect(_task_finished, weak=False)


# ---- logs (kifu/logcontext.py): the game a task works on is on its log lines ---------------------
def _task_log_context(**kwargs) -> None:
    from kifu import logcontext

    logcontext.task_context(**kwargs)


def _task_log_context_clear(**kwargs) -> None:
    from kifu import logcontext

    logcontext.clear()


signals.task_prerun.connect(_task_log_context, weak=False)
signals.task_postrun.connect(_task_log_context_clear, weak=False)


def _django_logging(**kwargs) -> None:
    """With a receiver here Celery leaves logging alone: the worker logs through settings.LOGGING,
    JSON lines like the web processes' (Celery's own format is not JSON)."""
    import logging.config

    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)


# Read from the environment (this module is imported before the settings are), as settings reads it.
if os.environ.get("KIFU_LOG_FORMAT", "").strip().lower() == "json":
    signals.setup_logging.connect(_django_logging, weak=False)


# ---- a broker restart while a task is unacked ---------------------------------------------------
# kombu 5.7's Redis transport, when the broker connection drops, closes the channel and restores its
# unacknowledged messages - and later acks a task that finished meanwhile - through the old channel,
# whose connection is already released (``connection`` or its ``client`` is None): an AttributeError,
# not a connection error, so the worker logs "Unrecoverable error" and hangs instead of reconnecting
# (found by tests/robustness/test_chaos.py). Raising the connection error it stands for lets kombu
# ignore it as it does any other on a dead channel; nothing is lost: the message stays in the
# broker's unacked set (redelivered after the visibility timeout), the beat sweeper requeues its
# pending submission within KIFU_SUBMISSION_REQUEUE_SECONDS, and every task is idempotent.
def _patch_kombu_closed_channel() -> None:
    from kombu.transport import redis as kombu_redis
    from redis.exceptions import ConnectionError as RedisConnectionError

    connparams = kombu_redis.Channel._connparams

    def _connparams(self, asynchronous=False):
        if self.connection is None or self.connection.client is None:
            raise RedisConnectionError("the broker connection of this channel is closed")
        return connparams(self, asynchronous)

    kombu_redis.Channel._connparams = _connparams


_patch_kombu_closed_channel()
