"""Metrics for operators in the Prometheus text format: ``GET /metrics``.

What is measured, and by what:

- requests (count, latency, status, by view): django-prometheus's middleware (``django_http_*``);
  database queries (count, errors): its database backend (``django_db_*``), with
  ``KIFU_METRICS_QUERIES=true`` only (it costs about as much as a short query);
- Celery tasks run by a worker: ``kifu_task_duration_seconds{task,state}`` (a histogram, observed
  from Celery's ``task_prerun``/``task_postrun`` signals in the worker);
- open live streams: ``kifu_streams_open`` (a gauge around every streaming response, per process);
- verdict latency: ``kifu_verdict_latency_seconds{status}``, receipt to verdict, for the verdicts
  that ``POST .../moves`` returns (clients that wait; a verdict only polled for is not counted, a
  repeated POST of the same move counts again);
- read at scrape time from the stores, so every web process reports the same numbers:
  ``kifu_celery_queue_length{queue}`` (Redis ``LLEN`` of the queue and its priority lists),
  ``kifu_submissions_pending`` and ``kifu_submission_oldest_pending_age_seconds`` (one query, the
  same scan the pending-submission sweeper makes every 5 s), ``kifu_webhook_deliveries{status}``
  for ``pending`` and ``failed`` (failed: every attempt used up; the ``delivery_due`` index).
  A store that does not answer is skipped and counted in ``kifu_metrics_source_errors_total``.

Several processes (gunicorn workers, the streams pool, Celery workers): set
``PROMETHEUS_MULTIPROC_DIR`` to one empty directory per host for all of them (prometheus_client's
multiprocess mode); a scrape of any web process then sums the whole host (deploy/README.md).

Who may read it: a request from an address in ``KIFU_METRICS_ALLOWED_ADDRESSES`` (networks,
default the loopback) or with ``Authorization: Bearer <KIFU_METRICS_TOKEN>``. The address is
``REMOTE_ADDR`` (never X-Forwarded-For): behind nginx everything comes from 127.0.0.1, so
deploy/nginx.conf keeps /metrics to the operators' network itself.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import os
import time
from datetime import datetime

from django.apps import apps
from django.conf import settings
from django.db.models import Count, Min
from django.http import HttpResponse, JsonResponse
from django.utils import timezone
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, generate_latest, multiprocess
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

log = logging.getLogger("kifu.metrics")

STREAMS_OPEN = Gauge("kifu_streams_open", "Live streams open now (per process).", multiprocess_mode="livesum")
TASK_DURATION = Histogram(
    "kifu_task_duration_seconds",
    "Run time of Celery tasks in a worker, by task and end state.",
    ["task", "state"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
)
VERDICT_LATENCY = Histogram(
    "kifu_verdict_latency_seconds",
    "From a move's receipt to its verdict, for the verdicts POST .../moves?wait= returned, by status.",
    ["status"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
SOURCE_ERRORS = Counter(
    "kifu_metrics_source_errors_total", "Scrapes that could not read a store (redis, database).", ["source"]
)
# kombu's Redis transport keeps a queue's priorities 3, 6 and 9 in lists of their own.
PRIORITY_SUFFIXES = ("", "\x06\x163", "\x06\x166", "\x06\x169")


class StoreCollector(Collector):
    """The numbers read from PostgreSQL and Redis at scrape time (they are the same for every
    process, so they are not kept in the multiprocess files)."""

    def collect(self):
        yield from self._read("redis", self._queue)
        yield from self._read("database", self._submissions)
        yield from self._read("database", self._deliveries)

    def _read(self, source, read):
        try:
            yield from read()
        except Exception as error:
            SOURCE_ERRORS.labels(source).inc()
            log.warning("metrics: could not read %s: %s", source, error)

    def _queue(self):
        url = settings.CELERY_BROKER_URL
        if not url.startswith(("redis://", "rediss://", "unix://")):
            return
        import redis

        queue = settings.CELERY_TASK_DEFAULT_QUEUE
        client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)
        try:
            with client.pipeline(transaction=False) as pipe:
                for suffix in PRIORITY_SUFFIXES:
                    pipe.llen(queue + suffix)
                length = sum(pipe.execute())
        finally:
            client.close()
        family = GaugeMetricFamily("kifu_celery_queue_length", "Tasks waiting in the Celery queue.", labels=["queue"])
        family.add_metric([queue], length)
        yield family

    def _submissions(self):
        submission = apps.get_model("games", "Submission")
        pending = submission.objects.filter(status="pending").aggregate(count=Count("id"), oldest=Min("received_at"))
        age = (timezone.now() - pending["oldest"]).total_seconds() if pending["oldest"] else 0.0
        yield GaugeMetricFamily("kifu_submissions_pending", "Moves stored and not yet decided.", value=pending["count"])
        yield GaugeMetricFamily(
            "kifu_submission_oldest_pending_age_seconds",
            "How long the oldest undecided move has waited (0 when none waits).",
            value=max(age, 0.0),
        )

    def _deliveries(self):
        delivery = apps.get_model("hooks", "Delivery")
        counts = dict(
            delivery.objects.filter(status__in=("pending", "failed"))
            .order_by()
            .values_list("status")
            .annotate(n=Count("id"))
        )
        family = GaugeMetricFamily(
            "kifu_webhook_deliveries",
            "Webhook deliveries still being tried (pending) and given up after every attempt (failed).",
            labels=["status"],
        )
        for status in ("pending", "failed"):
            family.add_metric([status], counts.get(status, 0))
        yield family


STORES = StoreCollector()


def exposition() -> bytes:
    """The text a scrape gets: this process's metrics (or every process's, in multiprocess mode)
    and the stores' numbers."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    else:
        registry = CollectorRegistry()
        registry.register(_Process())
    registry.register(STORES)
    return generate_latest(registry)


class _Process(Collector):
    """This process's default registry (django-prometheus's and ours) inside a scrape registry."""

    def collect(self):
        return REGISTRY.collect()


def allowed(request) -> bool:
    token = settings.KIFU_METRICS_TOKEN
    if token:
        given = request.META.get("HTTP_AUTHORIZATION", "")
        if given.startswith("Bearer ") and hmac.compare_digest(given[7:].encode(), token.encode()):
            return True
    try:
        address = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(address in network for network in settings.KIFU_METRICS_ALLOWED_ADDRESSES)


def metrics_view(request) -> HttpResponse:
    if not allowed(request):
        return JsonResponse(
            {
                "code": "metrics_forbidden",
                "message": "metrics are for operators: scrape from an address in KIFU_METRICS_ALLOWED_ADDRESSES "
                "or send Authorization: Bearer <KIFU_METRICS_TOKEN>",
            },
            status=403,
        )
    from prometheus_client import CONTENT_TYPE_LATEST

    return HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST, headers={"Cache-Control": "no-store"})


class ResponseMetricsMiddleware:
    """What the responses themselves show: the live streams open in this process
    (``kifu_streams_open``), and the verdicts a ``POST .../moves`` returns (``kifu_verdict_latency_seconds``,
    from the submission's ``received_at`` to its ``decided_at``, as the response already carries them)."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.streaming:
            if request.path_info.endswith("/stream"):  # not whitenoise's files
                response.streaming_content = _counted(response.streaming_content)
        elif response.status_code in (200, 422) and request.method == "POST":
            match = request.resolver_match
            if match is not None and match.url_name == "game-moves":
                _observe_verdict(getattr(response, "data", None))
        return response


def _observe_verdict(data) -> None:
    submission = data.get("submission", data) if isinstance(data, dict) else None
    try:
        received = datetime.fromisoformat(submission["received_at"])
        decided = datetime.fromisoformat(submission["decided_at"])
    except (TypeError, KeyError, ValueError):
        return  # not a decided submission
    VERDICT_LATENCY.labels(submission.get("status", "")).observe(max((decided - received).total_seconds(), 0.0))


def _counted(content):
    STREAMS_OPEN.inc()
    try:
        yield from content
    finally:
        STREAMS_OPEN.dec()


# ---- Celery (connected by kifu/celery.py, so they run in the worker) -------------------------------
def task_started(task_id=None, task=None, **kwargs) -> None:
    if task is not None:
        task.request.kifu_started = time.perf_counter()


def task_finished(task_id=None, task=None, state=None, **kwargs) -> None:
    started = getattr(getattr(task, "request", None), "kifu_started", None)
    if started is not None:
        TASK_DURATION.labels(task.name, state or "UNKNOWN").observe(time.perf_counter() - started)
