"""Reads of the webhooks: an account's webhooks and a webhook's recent deliveries."""

from __future__ import annotations

import json

from .models import Delivery, Webhook

DELIVERY_LIST_LIMIT = 100


def webhooks_of(*, user) -> list[Webhook]:
    return list(Webhook.objects.filter(user=user))


def webhook_get(*, user, webhook_id) -> Webhook | None:
    return Webhook.objects.filter(user=user, pk=webhook_id).first()


def deliveries_of(*, webhook: Webhook, limit: int = DELIVERY_LIST_LIMIT) -> list[Delivery]:
    """The newest deliveries with their attempts; ``payload`` is the body as JSON."""
    deliveries = list(
        Delivery.objects.filter(webhook=webhook).prefetch_related("attempt_log").order_by("-created_at")[:limit]
    )
    for delivery in deliveries:
        delivery.payload = json.loads(delivery.body)
    return deliveries
