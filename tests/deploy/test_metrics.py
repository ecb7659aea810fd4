"""GET /metrics: the Prometheus text format, who may read it, and Kifu's own numbers in it."""

from __future__ import annotations

import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from games import services
from hooks.models import Delivery, Webhook
from kifu import metrics
from tests.deploy.test_health import closed_port_url

pytestmark = pytest.mark.django_db


def scrape(client, **extra) -> dict[str, float]:
    """name{labels} -> value, parsed with prometheus_client's own parser (so the text is valid)."""
    response = client.get("/metrics", **extra)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=")
    samples = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            labels = ",".join(f"{key}={value}" for key, value in sorted(sample.labels.items()))
            samples[f"{sample.name}{{{labels}}}"] = sample.value
    return samples


@pytest.fixture
def players():
    users = get_user_model().objects
    return users.create_user("metrics-a", password="a-long-pass-1"), users.create_user("metrics-b", password="x" * 12)


def test_requests_and_queries_are_counted(client):
    before = scrape(client)
    client.get("/api/engines")
    after = scrape(client)
    key = "django_http_requests_total_by_view_transport_method_total{method=GET,transport=http,view=api:engine-list}"
    assert after[key] == before.get(key, 0) + 1
    assert after["django_http_responses_total_by_status_view_method_total{method=GET,status=200,view=api:engine-list}"]


def test_pending_submissions_and_the_oldest_age(client, players):
    oya, ko = players
    game = services.game_create(engine_slug="nine-card", config={}, seats=[oya, ko], created_by=oya)
    services.game_accept(game_id=game.id, user=ko)
    assert scrape(client)["kifu_submissions_pending{}"] == 0
    assert scrape(client)["kifu_submission_oldest_pending_age_seconds{}"] == 0
    # In the test transaction nothing queued on commit runs: the submission stays pending.
    services.move_submit(
        game_id=game.id,
        user=oya,
        move={"type": "resign"},
        idempotency_key="k1",
        received_at=timezone.now() - timedelta(seconds=30),
    )
    services.move_submit(game_id=game.id, user=ko, move={"type": "resign"}, idempotency_key="k2")
    samples = scrape(client)
    assert samples["kifu_submissions_pending{}"] == 2
    assert 30 <= samples["kifu_submission_oldest_pending_age_seconds{}"] < 60


def test_webhook_deliveries_pending_and_failed(client, players):
    hook = Webhook.objects.create(user=players[0], url="https://example.org/hook", secret="s", events=["game.move"])
    for status in ("failed", "failed", "pending", "delivered"):
        Delivery.objects.create(webhook=hook, event="game.move", body="{}", status=status)
    samples = scrape(client)
    assert samples["kifu_webhook_deliveries{status=failed}"] == 2
    assert samples["kifu_webhook_deliveries{status=pending}"] == 1


def test_celery_queue_length_is_read_from_redis(client, settings):
    if not settings.REDIS_URL:
        pytest.skip("needs REDIS_URL (bin/test sets it)")
    import redis

    from kifu.celery import app

    queue = settings.CELERY_TASK_DEFAULT_QUEUE = f"kifu-metrics-{uuid.uuid4().hex[:8]}"
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    try:
        for priority in (None, 6, None):  # priority 6 lands in a list of its own (kombu's Redis transport)
            app.send_task("kifu.metrics.test_never_runs", queue=queue, priority=priority)
        assert scrape(client)[f"kifu_celery_queue_length{{queue={queue}}}"] == 3
    finally:
        broker.delete(*(queue + suffix for suffix in metrics.PRIORITY_SUFFIXES))


def test_a_store_that_does_not_answer_is_skipped_and_counted(client, settings):
    settings.CELERY_BROKER_URL = closed_port_url()
    before = scrape(client).get("kifu_metrics_source_errors_total{source=redis}", 0)
    samples = scrape(client)
    assert not any(name.startswith("kifu_celery_queue_length") for name in samples)
    assert samples["kifu_metrics_source_errors_total{source=redis}"] == before + 1
    assert "kifu_submissions_pending{}" in samples  # the rest still answers


def test_only_operators_may_read_metrics(client, settings):
    settings.KIFU_METRICS_TOKEN = "t0ken-for-prometheus"
    outside = {"REMOTE_ADDR": "203.0.113.9"}
    refused = client.get("/metrics", **outside)
    assert refused.status_code == 403
    assert refused.json()["code"] == "metrics_forbidden"
    assert "KIFU_METRICS_TOKEN" in refused.json()["message"]
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong", **outside).status_code == 403
    assert scrape(client, HTTP_AUTHORIZATION="Bearer t0ken-for-prometheus", **outside)
    # X-Forwarded-For is not believed: the address that counts is the one that connected.
    forwarded = client.get("/metrics", HTTP_X_FORWARDED_FOR="127.0.0.1", **outside)
    assert forwarded.status_code == 403
    settings.KIFU_METRICS_ALLOWED_ADDRESSES = metrics_networks("203.0.113.0/24")
    assert scrape(client, **outside)


def test_no_token_means_addresses_only(client, settings):
    settings.KIFU_METRICS_TOKEN = ""
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer ", REMOTE_ADDR="203.0.113.9").status_code == 403


def test_open_streams_are_counted_while_they_are_read(client):
    def gauge():
        return metrics.STREAMS_OPEN._value.get()

    from django.http import StreamingHttpResponse
    from django.test import RequestFactory

    middleware = metrics.ResponseMetricsMiddleware(lambda request: StreamingHttpResponse(iter([b"a", b"b"])))
    response = middleware(RequestFactory().get("/api/games/x/stream"))
    before = gauge()
    body = iter(response.streaming_content)
    next(body)
    assert gauge() == before + 1
    list(body)
    assert gauge() == before
    static = middleware(RequestFactory().get("/static/web/app.js"))  # whitenoise's files stream too
    next(iter(static.streaming_content))
    assert gauge() == before


def test_celery_task_durations_are_observed():
    class Request:
        pass

    class Task:
        name = "games.tasks.example"
        request = Request()

    key = {"task": "games.tasks.example", "state": "SUCCESS"}
    before = metrics.REGISTRY.get_sample_value("kifu_task_duration_seconds_count", key) or 0
    metrics.task_started(task=Task())
    metrics.task_finished(task=Task(), state="SUCCESS")
    assert metrics.REGISTRY.get_sample_value("kifu_task_duration_seconds_count", key) == before + 1


def metrics_networks(text):
    from kifu.env import Env

    return Env({"X": text}).networks("X", "")


def test_multiprocess_mode_sums_every_process(client, monkeypatch, tmp_path):
    """With PROMETHEUS_MULTIPROC_DIR, a scrape of one process reports what others observed
    (gunicorn workers, the streams pool, Celery workers on the host)."""
    import subprocess
    import sys

    child = (
        "from kifu import metrics\n"
        "class R: pass\n"
        "class T:\n    name = 'games.tasks.game_advance_task'\n    request = R()\n"
        "metrics.task_started(task=T()); metrics.task_finished(task=T(), state='SUCCESS')\n"
    )
    env = {**__import__("os").environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    for _ in range(2):
        subprocess.run([sys.executable, "-c", child], env=env, check=True, cwd=str(Path(__file__).parents[2]))
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    samples = scrape(client)
    assert samples["kifu_task_duration_seconds_count{state=SUCCESS,task=games.tasks.game_advance_task}"] == 2
    assert "kifu_submissions_pending{}" in samples  # the stores are read by the scraped process


@pytest.mark.parametrize("queries, engine", [("", "kifu.db.postgresql"), ("true", "kifu.db.postgresql_metrics")])
def test_query_counting_is_opt_in(queries, engine):
    import os
    import subprocess
    import sys

    env = {**os.environ, "KIFU_METRICS_QUERIES": queries, "DATABASE_URL": "postgres://u@127.0.0.1:5432/kifu"}
    code = "from django.conf import settings; print(settings.DATABASES['default']['ENGINE'])"
    out = subprocess.run(
        [sys.executable, "-c", code], env={**env, "DJANGO_SETTINGS_MODULE": "kifu.settings"}, capture_output=True
    )
    assert out.stdout.decode().strip() == engine, out.stderr.decode()


def test_verdict_latency_is_observed_from_the_move_answer(client, players, django_capture_on_commit_callbacks):
    """A decided verdict in a POST .../moves answer is observed with its receipt-to-verdict time:
    here the repeat of a move (same idempotency key) after the worker decided it in-process."""
    from rest_framework.test import APIClient

    from kifu.celery import app

    oya, ko = players
    game = services.game_create(engine_slug="nine-card", config={}, seats=[oya, ko], created_by=oya)
    services.game_accept(game_id=game.id, user=ko)  # an invited seat accepts; the game starts
    api = APIClient()
    api.force_authenticate(oya)
    key = {"status": "accepted"}
    before = metrics.REGISTRY.get_sample_value("kifu_verdict_latency_seconds_count", key) or 0
    body = {"move": {"type": "resign"}, "idempotency_key": "v"}
    app.conf.task_always_eager = True
    try:
        with django_capture_on_commit_callbacks(execute=True):
            assert api.post(f"/api/games/{game.id}/moves", body, format="json").status_code == 202
    finally:
        app.conf.task_always_eager = False
    assert (metrics.REGISTRY.get_sample_value("kifu_verdict_latency_seconds_count", key) or 0) == before  # pending
    response = api.post(f"/api/games/{game.id}/moves", body, format="json")
    assert response.status_code == 200, response.content
    assert metrics.REGISTRY.get_sample_value("kifu_verdict_latency_seconds_count", key) == before + 1
    api.get(response.json()["url"])  # reading it elsewhere observes nothing more
    assert metrics.REGISTRY.get_sample_value("kifu_verdict_latency_seconds_count", key) == before + 1
