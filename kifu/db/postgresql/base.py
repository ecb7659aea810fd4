"""Django's PostgreSQL backend with the quiet-socket health check (``kifu.db.health``)."""

from django.db.backends.postgresql import base

from kifu.db.health import QuietSocketHealthCheck


class DatabaseWrapper(QuietSocketHealthCheck, base.DatabaseWrapper):
    pass
