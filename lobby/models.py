"""The lobby's tables: open seeks and their seats, the games the lobby made, and the site rating."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from games.models import Game


class Seek(models.Model):
    """An open table: an engine, a number of seats, a config and clock, rated or casual, and an
    optional rating range for who may join. Its creator holds the first seat; the player who takes
    the last one makes the game (``services.seek_join``)."""

    class Status(models.TextChoices):
        OPEN = "open", "waiting for players"
        FILLED = "filled", "full: the game was made"
        CANCELLED = "cancelled", "cancelled by its creator"
        EXPIRED = "expired", "expired before it filled"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    engine = models.CharField(max_length=40)
    seats = models.PositiveSmallIntegerField()
    config = models.JSONField(default=dict, help_text="The full validated config, defaults included.")
    time_control = models.JSONField(null=True, blank=True, help_text="The normalised clock, or null.")
    rated = models.BooleanField(default=True)
    rating_min = models.FloatField(null=True, blank=True)
    rating_max = models.FloatField(null=True, blank=True)
    # sha256 of (engine, seats, config, clock, rated): seeks quick pairing may match share it.
    pool = models.CharField(max_length=64)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="seeks", on_delete=models.CASCADE)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    closed_at = models.DateTimeField(null=True, blank=True)
    game = models.OneToOneField(Game, null=True, blank=True, related_name="seek", on_delete=models.SET_NULL)

    class Meta:
        ordering = ["created_at"]
        indexes = [
            models.Index(fields=["pool", "created_at"], name="seek_open_pool", condition=models.Q(status="open")),
            models.Index(fields=["expires_at"], name="seek_open_expiry", condition=models.Q(status="open")),
        ]

    def __str__(self) -> str:
        return f"seek {self.id}: {self.engine} x{self.seats} ({self.status})"


class SeekSeat(models.Model):
    """A player's place in a seek. ``active`` while the seek is open: a player sits in at most one
    open seek at a time, which the database enforces (two quick pairings at once cannot seat one
    player at two tables that then both start)."""

    seek = models.ForeignKey(Seek, related_name="entries", on_delete=models.CASCADE)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="seek_seats", on_delete=models.CASCADE)
    joined_at = models.DateTimeField(auto_now_add=True)
    active = models.BooleanField(default=True)

    class Meta:
        ordering = ["joined_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["seek", "user"], name="seek_seat_once"),
            models.UniqueConstraint(fields=["user"], condition=models.Q(active=True), name="seek_seat_one_open"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in seek {self.seek_id}"


class LobbyGame(models.Model):
    """A game the lobby made: from a filled seek, or a rematch of a finished game. ``rated`` games
    move the site rating once, when they finish (``rated_at`` marks it done; ``changes`` keeps each
    player's rating before and after, by user id)."""

    game = models.OneToOneField(Game, primary_key=True, related_name="lobby", on_delete=models.CASCADE)
    seek = models.ForeignKey(Seek, null=True, blank=True, related_name="+", on_delete=models.SET_NULL)
    rematch_of = models.OneToOneField(
        Game, null=True, blank=True, related_name="rematch", on_delete=models.SET_NULL, help_text="One rematch a game."
    )
    rated = models.BooleanField(default=False)
    rated_at = models.DateTimeField(null=True, blank=True)
    changes = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return f"lobby game {self.game_id} ({'rated' if self.rated else 'casual'})"


class SiteRating(models.Model):
    """A player's rating in one game across the site's rated lobby games: OpenSkill (Plackett-Luce),
    as the rating ladders (``league.scoring.ratings``). Shown as the ordinal mu - 3 sigma."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="site_ratings", on_delete=models.CASCADE)
    engine = models.CharField(max_length=40)
    mu = models.FloatField()
    sigma = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["engine"]
        constraints = [models.UniqueConstraint(fields=["user", "engine"], name="site_rating_once")]

    def __str__(self) -> str:
        return f"{self.user} in {self.engine}: {self.ordinal:.1f}"

    @property
    def ordinal(self) -> float:
        return self.mu - 3.0 * self.sigma
