"""Request and response shapes of the API (they also make the OpenAPI schema)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.reverse import reverse

from games import clocks, moderation, selectors
from games.accounts import is_bot
from games.meta import meta_readable
from games.models import Game, Submission

from .openapi import ref

User = get_user_model()


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="A stable machine-readable error code.")
    message = serializers.CharField(help_text="What was wrong and how to fix it.")
    fields = serializers.DictField(child=serializers.ListField(child=serializers.CharField()), required=False)


class AccountCreateSerializer(serializers.Serializer):
    username = serializers.RegexField(r"^[A-Za-z0-9_.-]{2,40}$", help_text="2-40 letters, digits, _ . -")
    password = serializers.CharField(write_only=True, style={"input_type": "password"})
    bot = serializers.BooleanField(
        required=False, default=False, help_text="A bot account (a program playing through the API); fixed for good."
    )

    def validate_username(self, value):
        if User.objects.filter(username__iexact=value).exists():
            raise serializers.ValidationError("that username is taken")
        return value

    def validate_password(self, value):
        try:
            validate_password(value)
        except DjangoValidationError as error:
            raise serializers.ValidationError(list(error.messages)) from None
        return value


class MatureConsentSerializer(serializers.Serializer):
    adult = serializers.BooleanField(help_text="I am an adult.")
    consent = serializers.BooleanField(help_text="I consent to mature content.")
    confirmed_at = serializers.DateTimeField(read_only=True)


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField()
    password = serializers.CharField(write_only=True, style={"input_type": "password"})


class TokenSerializer(serializers.Serializer):
    username = serializers.CharField()
    token = serializers.CharField()


class AccountSerializer(TokenSerializer):
    bot = serializers.BooleanField(help_text="A bot account; ladders admit bots only with allow_bots.")


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


@extend_schema_field(CONFIG_VALUE)
class ConfigValueField(serializers.JSONField):
    """A config flag's value."""


@extend_schema_field(CONFIG)
class ConfigField(serializers.JSONField):
    """Config flags by name; the engine checks them (``invalid_config``, ``unknown_config_flag``)."""


class FlagSerializer(serializers.Serializer):
    name = serializers.CharField()
    type = serializers.ChoiceField(choices=["bool", "int", "float", "str", "object"])
    default = ConfigValueField()
    description = serializers.CharField()
    choices = serializers.ListField(child=ConfigValueField(), required=False)
    minimum = serializers.FloatField(required=False)
    maximum = serializers.FloatField(required=False)


class ActionSchemaSerializer(serializers.Serializer):
    """The JSON Schema of one action's move (``games.engines.base.Action.schema``)."""

    type = serializers.ChoiceField(choices=["object"])
    properties = serializers.DictField(child=FreeObjectField(), help_text="Each field of the move: its JSON Schema.")
    required = serializers.ListField(child=serializers.CharField())
    additionalProperties = serializers.BooleanField()
    description = serializers.CharField(required=False)


class EngineSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    rules_version = serializers.CharField()
    min_players = serializers.IntegerField()
    max_players = serializers.IntegerField()
    mature = serializers.BooleanField()
    flags = FlagSerializer(many=True)
    actions = serializers.DictField(
        child=ActionSchemaSerializer(),
        help_text="Each action by name: the JSON Schema of its move (the OpenAPI schema has the same as "
        "components, e.g. NineCardMove).",
    )


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


@extend_schema_field(TimeControlSerializer(allow_null=True))
class TimeControlField(serializers.JSONField):
    """The service parses the clock itself (``bad_time_control`` with what is allowed)."""


@extend_schema_field({"type": "integer", "minimum": 0, "maximum": clocks.MAX_SPECTATOR_DELAY_SECONDS})
class WholeSecondsField(serializers.JSONField):
    """Passed through: the service checks it and answers ``bad_spectator_delay``, whatever was sent."""


class GameCreateSerializer(serializers.Serializer):
    engine = serializers.CharField(help_text="A game slug from /api/engines.")
    config = ConfigField(required=False, default=dict, help_text="Flags that differ from the defaults.")
    seats = serializers.ListField(
        child=serializers.CharField(allow_null=True),
        min_length=1,
        max_length=16,
        help_text="One entry per seat, seat 0 first: a username, or null for an open seat.",
    )
    time_control = TimeControlField(
        required=False,
        default=None,
        help_text='A clock: {"per_move_seconds": N}, {"bank_seconds": B, "increment_seconds": I} or '
        '{"days_per_move": D}, optionally with "on_timeout": "loss" | "pass" | "default_move" (README, Clocks).',
    )
    spectator_delay_seconds = WholeSecondsField(
        required=False,
        default=0,
        help_text="Spectators see the game as it was this many seconds ago (0-3600; seated players see it live).",
    )

    def validate_seats(self, value):
        names = [name for name in value if name is not None]
        users = {user.username: user for user in User.objects.filter(username__in=names)}
        missing = sorted(set(names) - set(users))
        if missing:
            raise serializers.ValidationError(f"no such player: {', '.join(missing)}")
        return [users[name] if name is not None else None for name in value]


class JoinSerializer(serializers.Serializer):
    seat = serializers.IntegerField(required=False, min_value=0, help_text="A particular open seat.")


@extend_schema_field(ref("SubmittedMove"))
class MoveField(serializers.JSONField):
    """A move of the game's engine (api/openapi.py types them from the action tables), or resign."""


class MoveSerializer(serializers.Serializer):
    move = MoveField(help_text='The move: {"type": <action>, ...parameters} as in the game\'s rules.')
    idempotency_key = serializers.CharField(
        required=False,
        max_length=100,
        help_text="Resubmitting with the same key returns the first verdict (the Idempotency-Key header works too).",
    )

    def validate_move(self, value):
        if not isinstance(value, dict) or not isinstance(value.get("type"), str):
            raise serializers.ValidationError('a move is a JSON object with a "type" string')
        return value


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


class SubmissionSerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id")
    game = serializers.UUIDField(source="game_id")
    move = MoveField(source="payload")
    url = serializers.SerializerMethodField()

    class Meta:
        model = Submission
        fields = [
            "id",
            "game",
            "seat",
            "move",
            "idempotency_key",
            "status",
            "code",
            "message",
            "event_seq",
            "received_at",
            "decided_at",
            "url",
        ]

    def get_url(self, submission) -> str:
        return reverse(
            "api:submission-detail",
            kwargs={"pk": submission.game_id, "sid": submission.public_id},
            request=self.context.get("request"),
        )


# An event of the log as the caller may see it; "Event" is a oneOf on ``kind`` (api/openapi.py).
EVENTS = {"type": "array", "items": ref("Event")}


class RecordImportSerializer(serializers.Serializer):
    record = serializers.CharField(help_text="The whole record, JSON Lines.", trim_whitespace=False)


class VerificationSerializer(serializers.Serializer):
    game = serializers.CharField()
    ok = serializers.BooleanField()
    events = serializers.IntegerField()
    chain_ok = serializers.BooleanField()
    replay_ok = serializers.BooleanField()
    projection_ok = serializers.BooleanField()
    chance_ok = serializers.BooleanField(allow_null=True)
    seed_ok = serializers.BooleanField(allow_null=True)
    checkpoint_ok = serializers.BooleanField(allow_null=True, help_text="null: in no signed checkpoint yet")
    problems = serializers.ListField(child=serializers.CharField())
