"""A game as every API shows it: its seats, head, clock, outcome and links, as the request's user may
see it (a spectator held back by the spectator delay sees the delayed head), with the shapes of its
parts (config, time control, clock, window, outcome, meta) for the OpenAPI schema.

Here, in games' read layer beside ``selectors``, rather than in the games API app (``api``), because
more than one app's API answers with a game: ``api`` for its game endpoints and ``league`` for a
match's current game (``GET /api/matches/{id}/current-game``), and no app imports another app's API
module. A league-owned summary would have changed that endpoint's answer and schema (``Game``); one
serializer keeps the shape one. The links it gives are the games API's (``api:game-*`` routes).
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.reverse import reverse

from . import clocks, moderation, selectors
from .accounts import is_bot
from .engines import all_engines
from .meta import meta_readable
from .models import Game

# A config flag's value: true/false, a number, a string or an object (Flag.kind), or null for "not set".
CONFIG_VALUE = {
    "oneOf": [
        {"type": "boolean"},
        {"type": "number"},
        {"type": "string"},
        {"type": "object", "additionalProperties": True},
    ],
    "nullable": True,
}
FREE_OBJECT = {"type": "object", "additionalProperties": True}
CONFIG = {
    "type": "object",
    "additionalProperties": CONFIG_VALUE,
    "description": "Config flags by name (GET /api/engines lists each game's flags).",
}


@extend_schema_field(FREE_OBJECT)
class FreeObjectField(serializers.JSONField):
    """An object whose fields the game (its rules document) or JSON Schema names, not this API."""


@extend_schema_field({"type": "string", "enum": sorted(engine.slug for engine in all_engines())})
class EngineSlugField(serializers.CharField):
    """A game's slug. Declared as the enum of the slugs so a schema-valid request names a real game;
    still a CharField, so an unknown one stays the services' ``unknown_game`` (with the known list),
    and what the game may not do there (a league's two players) their own code."""


@extend_schema_field(CONFIG)
class ConfigField(serializers.JSONField):
    """Config flags by name; the engine checks them (``invalid_config``, ``unknown_config_flag``)."""


class SeatSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    name = serializers.CharField()
    player = serializers.CharField(source="user.username", allow_null=True, default=None)
    bot = serializers.SerializerMethodField()
    accepted = serializers.SerializerMethodField()

    def get_accepted(self, seat) -> bool:
        return seat.accepted_at is not None

    def get_bot(self, seat) -> bool:
        return is_bot(seat.user)


class TimeControlSerializer(serializers.Serializer):
    """A clock (``games.clocks``): one of per move, a bank with an increment, or days per move."""

    per_move_seconds = serializers.FloatField(required=False, min_value=1, max_value=clocks.MAX_PER_MOVE_SECONDS)
    bank_seconds = serializers.FloatField(required=False, min_value=1, max_value=clocks.MAX_BANK_SECONDS)
    increment_seconds = serializers.FloatField(required=False, min_value=0, max_value=clocks.MAX_INCREMENT_SECONDS)
    days_per_move = serializers.IntegerField(required=False, min_value=1, max_value=clocks.MAX_DAYS_PER_MOVE)
    on_timeout = serializers.ChoiceField(choices=clocks.ON_TIMEOUT, required=False, default="loss")


class WindowSerializer(serializers.Serializer):
    """An open reaction window or simultaneous choice (or a running per-move clock) and its deadline."""

    id = serializers.CharField()
    opened_at = serializers.DateTimeField(allow_null=True)
    deadline_at = serializers.DateTimeField(allow_null=True)


class OutcomeSerializer(serializers.Serializer):
    """A finished game's result (``games.engines.base.Outcome``)."""

    ranking = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()), help_text="Groups of tied seats, best first."
    )
    scores = serializers.DictField(child=serializers.FloatField(), help_text="Each seat's score, by seat number.")
    detail = FreeObjectField(help_text="The game's own account of the result (its rules document).")


class ClockSeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    remaining_ms = serializers.IntegerField()
    running = serializers.BooleanField()


class ClockSerializer(serializers.Serializer):
    """Every seat's remaining time (``selectors.clock_for``)."""

    kind = serializers.ChoiceField(choices=["bank", "correspondence", "per_move"])
    on_timeout = serializers.ChoiceField(choices=clocks.ON_TIMEOUT)
    paused = serializers.BooleanField(help_text="A reaction window is open: no seat's clock runs.")
    seats = ClockSeatSerializer(many=True)


class GameMetaSerializer(serializers.Serializer):
    """Game settings that are not engine config, and an imported record's descriptive header fields."""

    time_control = TimeControlSerializer(required=False)
    spectator_delay_seconds = serializers.IntegerField(required=False)
    event = serializers.CharField(required=False)
    date = serializers.CharField(required=False)
    place = serializers.CharField(required=False)
    notes = serializers.CharField(required=False)
    kifu_game_id = serializers.CharField(required=False, help_text="The game an imported record was exported from.")
    demo = serializers.BooleanField(required=False)


class GameSerializer(serializers.ModelSerializer):
    """A game as the request's user may see it: a spectator held back by the spectator delay
    gets the head of the delayed view (``selectors.game_sight``/``game_head``)."""

    seats = SeatSerializer(many=True, read_only=True)
    config = ConfigField(read_only=True, help_text="The full validated config, defaults included.")
    actors = serializers.ListField(
        child=serializers.IntegerField(), read_only=True, help_text="The seats that may act now."
    )
    meta = GameMetaSerializer(read_only=True)
    clock = serializers.SerializerMethodField()
    seed = serializers.SerializerMethodField()
    head_hash = serializers.SerializerMethodField()
    window = serializers.SerializerMethodField()
    urls = serializers.SerializerMethodField()
    outcome = serializers.SerializerMethodField()

    class Meta:
        model = Game
        fields = [
            "id",
            "engine",
            "rules_version",
            "config",
            "status",
            "source",
            "seats",
            "actors",
            "window",
            "head_seq",
            "head_hash",
            "seed_sha256",
            "seed",
            "outcome",
            "clock",
            "meta",
            "created_at",
            "started_at",
            "finished_at",
            "urls",
        ]

    def _sight(self, game) -> selectors.Sight:
        sights = self.__dict__.setdefault("_sights", {})
        if game.pk not in sights:
            request = self.context.get("request")
            sights[game.pk] = selectors.game_sight(game=game, user=getattr(request, "user", None))
        return sights[game.pk]

    def to_representation(self, game):
        # Read through games.meta: a setting stored bad (an old import, a hand edit) is left out
        # rather than failing the request - and with it every list the game is on.
        game.meta = meta_readable(game.meta, engine_slug=game.engine, game_id=game.pk)
        data = super().to_representation(game)
        sight = self._sight(game)
        # The clock projection is the server's bookkeeping; "clock" shows it as the viewer may.
        data["meta"] = {key: value for key, value in (game.meta or {}).items() if key != "clock_state"}
        if sight.delayed:
            request = self.context.get("request")
            moderator = moderation.is_moderator(game=game, user=getattr(request, "user", None))
            head = selectors.game_head(game=game, sight=sight, moderator=moderator)
            data.update({key: head[key] for key in ("head_seq", "status", "actors", "window", "outcome", "clock")})
            data.update(finished_at=None, seed=None, head_hash=None)
        return data

    @extend_schema_field(ClockSerializer(allow_null=True))
    def get_clock(self, game) -> dict | None:
        """Every seat's remaining time and whether it runs (None without a time control)."""
        sight = self._sight(game)
        return None if sight.delayed else selectors.clock_for(game=game, sight=sight)

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_seed(self, game) -> str | None:
        return game.seed if game.is_finished else None

    @extend_schema_field(OutcomeSerializer(allow_null=True))
    def get_outcome(self, game) -> dict | None:
        """A storytelling outcome may quote contributions; hidden ones are replaced (games.moderation)."""
        request = self.context.get("request")
        moderator = moderation.is_moderator(game=game, user=getattr(request, "user", None))
        return selectors.outcome_for(game=game, moderator=moderator)

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_head_hash(self, game) -> str | None:
        return game.head_hash if game.is_finished else None

    @extend_schema_field(WindowSerializer(allow_null=True))
    def get_window(self, game) -> dict | None:
        if not game.window:
            return None
        return {"id": game.window, "opened_at": game.window_opened_at, "deadline_at": game.deadline_at}

    @extend_schema_field(serializers.DictField(child=serializers.URLField()))
    def get_urls(self, game) -> dict:
        request = self.context.get("request")
        names = ["state", "events", "legal-moves", "moves", "record", "verification", "join"]
        if game.is_finished and not self._sight(game).delayed:
            names.append("checkpoint")  # the signed head and its proof (404 not_checkpointed for a few seconds)
        return {
            name.replace("-", "_"): reverse(f"api:game-{name}", kwargs={"pk": game.pk}, request=request)
            for name in names
        }
