"""The lobby's API shapes: a seek, the requests that open one or pair quickly, a site rating."""

from __future__ import annotations

from rest_framework import serializers

from games.serializers import ConfigField, EngineSlugField, TimeControlSerializer

from . import services
from .models import Seek, SiteRating


class SeekSerializer(serializers.ModelSerializer):
    """An open (or closed) seek: its table, who sits at it, and its game once it filled."""

    created_by = serializers.CharField(source="created_by.username")
    players = serializers.SerializerMethodField()
    taken = serializers.SerializerMethodField()
    config = ConfigField(read_only=True)
    time_control = TimeControlSerializer(read_only=True, allow_null=True)
    game = serializers.UUIDField(source="game_id", read_only=True, allow_null=True)

    class Meta:
        model = Seek
        fields = [
            "id",
            "engine",
            "seats",
            "taken",
            "players",
            "config",
            "time_control",
            "rated",
            "rating_min",
            "rating_max",
            "created_by",
            "status",
            "created_at",
            "expires_at",
            "game",
        ]

    def get_players(self, seek) -> list[str]:
        return [entry.user.get_username() for entry in seek.entries.all()]

    def get_taken(self, seek) -> int:
        return len(seek.entries.all())


class PairingSerializer(serializers.Serializer):
    """What table to play: a game, its number of seats, and optionally its config and clock."""

    engine = EngineSlugField(help_text="A game slug from /api/engines.")
    # No bounds here: the service answers a count the lobby or the game does not take with its own
    # code, bad_seat_count, and says which counts the game takes.
    seats = serializers.IntegerField(help_text="Players at the table: 2-6, and a count the game takes.")
    config = ConfigField(required=False, default=dict, help_text="Flags that differ from the defaults.")
    time_control = TimeControlSerializer(required=False, allow_null=True, default=None, help_text="A clock, or null.")
    rated = serializers.BooleanField(required=False, default=True, help_text="Rated games move the site rating.")


class SeekCreateSerializer(PairingSerializer):
    rating_min = serializers.FloatField(
        required=False, allow_null=True, default=None, help_text="Only players rated at least this (the ordinal)."
    )
    rating_max = serializers.FloatField(
        required=False, allow_null=True, default=None, help_text="Only players rated at most this."
    )
    expires_in_seconds = serializers.IntegerField(
        required=False,
        default=services.DEFAULT_EXPIRY_SECONDS,
        min_value=services.MIN_EXPIRY_SECONDS,
        max_value=services.MAX_EXPIRY_SECONDS,
        help_text="The seek closes if it has not filled by then (30 s to a day; 10 minutes by default).",
    )


class QuickPairingSerializer(serializers.Serializer):
    joined = serializers.BooleanField(help_text="True: you joined an open seek; false: you opened a new one.")
    seek = SeekSerializer()


class SiteRatingSerializer(serializers.ModelSerializer):
    """A player's site rating in one game: OpenSkill mu and sigma, shown as the ordinal mu - 3 sigma."""

    rating = serializers.SerializerMethodField()

    class Meta:
        model = SiteRating
        fields = ["engine", "rating", "mu", "sigma", "games", "updated_at"]

    def get_rating(self, row) -> float:
        return round(row.ordinal, 1)
