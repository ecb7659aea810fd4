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
# are kept instead (CONN_MAX_AGE still retires old ones), and Django's own check closes one that
# failed or grew too old before each task, exactly as it does around each web request.
app.conf["CELERY_DB_REUSE_MAX"] = 1_000_000  # the fixup reads this exact key


def _close_old_connections(task=None, **kwargs) -> None:
    if task is None or getattr(task.request, "is_eager", False):
        return  # an eager task runs inside the caller's transaction (embedded mode, tests)
    from django.db import close_old_connections

    close_old_connections()


signals.task_prerun.connect(_close_old_connections, weak=False)
signals.task_postrun.connect(_close_old_connections, weak=False)
