"""django-prometheus's query-counting PostgreSQL backend with the quiet-socket health check."""

from django_prometheus.db.backends.postgresql import base

from kifu.db.health import QuietSocketHealthCheck


class DatabaseWrapper(QuietSocketHealthCheck, base.DatabaseWrapper):
    pass
