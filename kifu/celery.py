"""The Celery application: Redis broker on the real stack, eager (in-process) in embedded mode."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kifu.settings")

app = Celery("kifu")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
