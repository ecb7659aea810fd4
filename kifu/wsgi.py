"""WSGI entry point; in embedded mode it also starts the in-process timer thread."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kifu.settings")
application = get_wsgi_application()

from games.scheduler import start_embedded_scheduler  # noqa: E402  (needs the app registry)

start_embedded_scheduler()
