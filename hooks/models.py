"""Webhooks an account registered, what the hooks last told an account about a game, and deliveries."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models


class Webhook(models.Model):
    """A URL that receives an account's game events as signed JSON POSTs.

    The secret is kept in clear because every delivery is signed with it; the API shows it only in
    the answer that creates the webhook.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="webhooks", on_delete=models.CASCADE)
    url = models.URLField(max_length=500)
    secret = models.CharField(max_length=100)
    events = models.JSONField(default=list, help_text="The event kinds this URL receives.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]

    def __str__(self) -> str:
        return f"webhook {self.id} of {self.user_id}: {self.url}"


class GameCursor(models.Model):
    """What the webhooks last announced to one account about one game.

    Events are edges (a game started, a turn came round), but the games app only says "this game
    changed"; comparing the game with this cursor turns changes into edges exactly once, whatever
    order or number of change signals arrives.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE)
    status = models.CharField(max_length=10, blank=True)
    head_seq = models.PositiveIntegerField(default=0)
    window = models.CharField(max_length=60, blank=True)
    on_turn = models.BooleanField(default=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "game"], name="hook_cursor_unique")]

    def __str__(self) -> str:
        return f"hooks cursor of {self.user_id} in {self.game_id} at {self.head_seq}"


class Delivery(models.Model):
    """One event for one webhook; its id is the X-Kifu-Delivery header, the same on every retry."""

    class Status(models.TextChoices):
        PENDING = "pending"
        DELIVERED = "delivered"
        FAILED = "failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    webhook = models.ForeignKey(Webhook, related_name="deliveries", on_delete=models.CASCADE)
    event = models.CharField(max_length=30)
    body = models.TextField(help_text="The exact JSON bytes sent and signed, the same on every attempt.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    # When the next attempt is due; while an attempt is under way, when its claim lapses.
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="delivery_due")]

    def __str__(self) -> str:
        return f"delivery {self.id} ({self.event}, {self.status})"


class DeliveryAttempt(models.Model):
    """One POST of a delivery: the answer's status code, or the error, and how long it took."""

    delivery = models.ForeignKey(Delivery, related_name="attempt_log", on_delete=models.CASCADE)
    number = models.PositiveSmallIntegerField()
    at = models.DateTimeField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)
    duration_ms = models.PositiveIntegerField()

    class Meta:
        ordering = ["delivery", "number"]

    def __str__(self) -> str:
        return f"attempt {self.number} of {self.delivery_id}: {self.status_code or self.error}"
