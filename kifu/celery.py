"""The Celery application: Redis broker on the real stack, eager (in-process) in embedded mode."""

import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kifu.settings")

app = Celery("kifu")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


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
