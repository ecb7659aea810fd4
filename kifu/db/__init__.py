"""Kifu's PostgreSQL database backends: Django's (``postgresql``) or django-prometheus's query-counting
one (``postgresql_metrics``, with ``KIFU_METRICS_QUERIES``), each with a health check that costs no
round trip when the connection is plainly alive (``health.QuietSocketHealthCheck``)."""
