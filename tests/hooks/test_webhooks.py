"""Webhooks in process: the API, edge detection against the cursor, signing, retries and backoff."""

from __future__ import annotations

import json
import socket
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from games import moderation
from games import services as game_services
from games.models import Game
from hooks import services
from hooks.models import Delivery, Webhook

pytestmark = pytest.mark.django_db


def make_user(name: str):
    return get_user_model().objects.create_user(username=name, password="a-long-pass-1")


def client_of(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_register_list_and_delete_a_webhook_the_secret_shown_once():
    oya, other = make_user("oya"), make_user("other")
    api = client_of(oya)
    created = api.post("/api/webhooks", {"url": "https://example.org/kifu"}, format="json")
    assert created.status_code == 201, created.json()
    hook = created.json()
    assert len(hook["secret"]) == 64 and hook["events"] == list(services.EVENTS)
    listed = api.get("/api/webhooks").json()
    assert [h["id"] for h in listed] == [hook["id"]] and "secret" not in listed[0]
    assert "secret" not in api.get(f"/api/webhooks/{hook['id']}").json()
    # Another account neither sees nor deletes it.
    assert client_of(other).get(f"/api/webhooks/{hook['id']}").status_code == 404
    assert client_of(other).delete(f"/api/webhooks/{hook['id']}").json()["code"] == "not_found"
    assert client_of(other).get(f"/api/webhooks/{hook['id']}/deliveries").status_code == 404
    assert api.get(f"/api/webhooks/{hook['id']}/deliveries").json() == []
    assert api.delete(f"/api/webhooks/{hook['id']}").status_code == 204
    assert api.get("/api/webhooks").json() == [] and not Webhook.objects.filter(user=oya).exists()
    assert APIClient().get("/api/webhooks").json()["code"] == "not_authenticated"


@pytest.mark.parametrize(
    "url", ["ftp://example.org/x", "file:///etc/passwd", "javascript:alert(1)", "example.org/x", "http://", ""]
)
def test_only_http_and_https_urls_are_accepted(url):
    oya = make_user("oya")
    response = client_of(oya).post("/api/webhooks", {"url": url}, format="json")
    assert response.status_code == 400
    assert response.json()["code"] in ("bad_webhook_url", "invalid")
    assert not Webhook.objects.filter(user=oya).exists()


def test_bad_event_names_and_too_many_webhooks_are_refused():
    api = client_of(make_user("oya"))
    bad = api.post("/api/webhooks", {"url": "http://example.org/", "events": ["your_turn", "tea"]}, format="json")
    assert (bad.status_code, bad.json()["code"]) == (400, "bad_webhook_events") and "tea" in bad.json()["message"]
    for _ in range(services.MAX_WEBHOOKS_PER_ACCOUNT):
        assert api.post("/api/webhooks", {"url": "http://example.org/"}, format="json").status_code == 201
    over = api.post("/api/webhooks", {"url": "http://example.org/"}, format="json")
    assert (over.status_code, over.json()["code"]) == (400, "too_many_webhooks")


def kinds(hook: Webhook) -> list[str]:
    return [d.event for d in Delivery.objects.filter(webhook=hook).order_by("created_at")]


def test_game_changes_become_each_edge_once():
    oya, ko = make_user("oya"), make_user("ko")
    hook = services.webhook_create(user=ko, url="http://127.0.0.1:9/")
    turns_only = services.webhook_create(user=ko, url="http://127.0.0.1:9/turns", events=["your_turn"])
    game = game_services.game_create(
        consent=True, engine_slug="nine-card", config={"commit_seconds": 120}, seats=[oya, ko], created_by=oya
    )
    assert services.game_changes_deliver(game_id=game.pk) == 4
    assert kinds(hook) == ["game_started", "window_opened", "your_turn"]
    assert kinds(turns_only) == ["your_turn"]
    assert services.game_changes_deliver(game_id=game.pk) == 0, "a repeated change signal announced something again"

    body = json.loads(Delivery.objects.get(webhook=hook, event="your_turn").body)
    assert body["event"] == "your_turn" and body["data"]["game"] == str(game.pk) and body["data"]["seat"] == 1
    assert body["data"]["window"]["id"] == "turn-1" and body["id"] == str(
        Delivery.objects.get(webhook=hook, event="your_turn").pk
    )

    game_services.move_submit(game_id=game.pk, user=oya, move={"type": "resign"}, idempotency_key="r")
    game_services.game_advance(game_id=game.pk)
    assert Game.objects.get(pk=game.pk).is_finished
    services.game_changes_deliver(game_id=game.pk)
    assert kinds(hook) == ["game_started", "window_opened", "your_turn", "game_ended"]
    ended = json.loads(Delivery.objects.get(webhook=hook, event="game_ended").body)
    assert ended["data"]["outcome"]["ranking"][0] == [1]
    assert not Delivery.objects.filter(webhook__user=oya).exists(), "oya has no webhook"


def test_a_game_ended_delivery_keeps_a_hidden_contribution_hidden():
    """The outcome of a storytelling game quotes its lines: one a moderator hid stays hidden in the
    webhook's game_ended as in the API (issue 23), and only that one, not the same words of another."""
    oya, ko, org = make_user("oya"), make_user("ko"), make_user("org")
    hook = services.webhook_create(user=ko, url="http://127.0.0.1:9/", events=["game_ended"])
    game = game_services.game_create(consent=True, engine_slug="believers", config={}, seats=[oya, ko], created_by=org)
    moves = [
        (oya, {"type": "contribute", "text": "yes"}),
        (ko, {"type": "contribute", "text": "yes"}),
        (oya, {"type": "propose_final_ritual"}),
        (ko, {"type": "agree_final_ritual"}),
        (oya, {"type": "commit_choice", "choice": "stay"}),
        (ko, {"type": "commit_choice", "choice": "stay"}),
    ]
    for index, (user, move) in enumerate(moves):
        game_services.move_submit(game_id=game.pk, user=user, move=move, idempotency_key=str(index))
        game_services.game_advance(game_id=game.pk)
        if index == 0:
            moderation.contribution_hide(game=Game.objects.get(pk=game.pk), seq=1, user=org, reason="off topic")
    services.game_changes_deliver(game_id=game.pk)
    ended = json.loads(Delivery.objects.get(webhook=hook, event="game_ended").body)
    assert ended["data"]["outcome"]["detail"]["log"] == [
        {"seat": 0, "text": {"hidden": True, "reason": "off topic"}},
        {"seat": 1, "text": "yes"},
    ]


def test_a_webhook_registered_mid_game_is_not_told_the_game_started():
    oya, ko = make_user("oya"), make_user("ko")
    game = game_services.game_create(
        consent=True, engine_slug="nine-card", config={"commit_seconds": 120}, seats=[oya, ko], created_by=oya
    )
    hook = services.webhook_create(user=ko, url="http://127.0.0.1:9/")
    services.game_changes_deliver(game_id=game.pk)
    assert kinds(hook) == ["window_opened", "your_turn"]


def pending_delivery(url: str, target=None) -> tuple[Webhook, Delivery]:
    """A webhook (whose secret ``target`` learns) with one due delivery."""
    hook = services.webhook_create(user=make_user("ko"), url=url)
    if target is not None:
        target.secret = hook.secret
    delivery = services._delivery(hook, "your_turn", {"game": "g", "seat": 0})
    delivery.save()
    return hook, delivery


def make_due(delivery: Delivery) -> None:
    Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now() - timedelta(seconds=1))


def test_a_delivery_is_signed_and_retried_with_backoff_on_5xx(receiver, settings):
    settings.KIFU_WEBHOOK_BACKOFF_SECONDS = 3
    target = receiver([500, 503])
    hook, delivery = pending_delivery(target.url, target)

    assert services.delivery_attempt(delivery_id=delivery.pk) == 3
    assert services.delivery_attempt(delivery_id=delivery.pk) is None, "sent again before its backoff was over"
    make_due(delivery)
    assert services.delivery_attempt(delivery_id=delivery.pk) == 6  # the wait doubles
    make_due(delivery)
    assert services.delivery_attempt(delivery_id=delivery.pk) is None

    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.next_attempt_at) == ("delivered", 3, None)
    assert [a.status_code for a in delivery.attempt_log.all()] == [500, 503, 200]
    assert all(a.duration_ms >= 0 and not a.error for a in delivery.attempt_log.all())
    assert len(target.received) == 3 and all(r.signed for r in target.received)
    assert {r.body for r in target.received} == {delivery.body.encode()}, "a retry changed the signed body"
    assert {r.headers["X-Kifu-Delivery"] for r in target.received} == {str(delivery.pk)}
    assert {r.headers["X-Kifu-Event"] for r in target.received} == {"your_turn"}
    # A wrong secret would not verify: the receiver's check can fail.
    assert (
        services.signature("another-secret", delivery.body.encode()) != target.received[0].headers["X-Kifu-Signature"]
    )


def test_a_connection_error_is_retried_and_logged_then_gives_up(settings):
    settings.KIFU_WEBHOOK_MAX_ATTEMPTS = 2
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    _, delivery = pending_delivery(f"http://127.0.0.1:{port}/")
    assert services.delivery_attempt(delivery_id=delivery.pk) == settings.KIFU_WEBHOOK_BACKOFF_SECONDS
    make_due(delivery)
    assert services.delivery_attempt(delivery_id=delivery.pk) is None
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == ("failed", 2)
    attempts = list(delivery.attempt_log.all())
    assert [a.status_code for a in attempts] == [None, None] and all("ConnectionError" in a.error for a in attempts)


def test_a_4xx_answer_is_final(receiver):
    target = receiver([410])
    _, delivery = pending_delivery(target.url, target)
    assert services.delivery_attempt(delivery_id=delivery.pk) is None
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == ("failed", 1)
    assert len(target.received) == 1 and target.received[0].signed


def test_the_deliveries_endpoint_shows_each_attempt(receiver):
    target = receiver([502])
    hook, delivery = pending_delivery(target.url)
    services.delivery_attempt(delivery_id=delivery.pk)
    make_due(delivery)
    services.delivery_attempt(delivery_id=delivery.pk)
    shown = client_of(hook.user).get(f"/api/webhooks/{hook.pk}/deliveries").json()
    assert [d["id"] for d in shown] == [str(delivery.pk)]
    assert shown[0]["status"] == "delivered" and shown[0]["body"]["event"] == "your_turn"
    assert [(a["number"], a["status_code"]) for a in shown[0]["attempt_log"]] == [(1, 502), (2, 200)]
    assert {"at", "error", "duration_ms"} <= set(shown[0]["attempt_log"][0])


def test_the_sweep_finds_only_overdue_pending_deliveries():
    _, delivery = pending_delivery("http://127.0.0.1:9/")
    make_due(delivery)
    assert str(delivery.pk) in services.deliveries_due(grace=0)
    assert str(delivery.pk) not in services.deliveries_due(grace=60)
    Delivery.objects.filter(pk=delivery.pk).update(status=Delivery.Status.DELIVERED)
    assert str(delivery.pk) not in services.deliveries_due(grace=0)
