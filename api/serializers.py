"""Request and response shapes of the API (they also make the OpenAPI schema)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.reverse import reverse

from games import clocks
from games.models import Submission
from games.serializers import (
    CONFIG_VALUE,
    FREE_OBJECT,
    ConfigField,
    EngineSlugField,
    FreeObjectField,
    TimeControlSerializer,
)
from kifu.http.openapi import NotBlankCharField, declared

from .openapi import ref

User = get_user_model()


USERNAME_TAKEN = "that username is taken"


class AccountCreateSerializer(serializers.Serializer):
    username = serializers.RegexField(r"^[A-Za-z0-9_.-]{2,40}$", help_text="2-40 letters, digits, _ . -")
    # A password is taken as typed, spaces too (as Django's own forms do): trimming would make a
    # password of spaces blank where the schema allows it, and change a password that ends in one.
    password = serializers.CharField(
        write_only=True, min_length=8, trim_whitespace=False, style={"input_type": "password"}
    )
    bot = serializers.BooleanField(
        required=False, default=False, help_text="A bot account (a program playing through the API); fixed for good."
    )

    def validate_username(self, value):
        if User.objects.filter(username__iexact=value).exists():
            raise serializers.ValidationError(USERNAME_TAKEN)
        return value

    def validate_password(self, value):
        try:
            validate_password(value)
        except DjangoValidationError as error:
            raise serializers.ValidationError(list(error.messages)) from None
        return value


@extend_schema_field({"type": "boolean", "enum": [True]})
class AffirmationField(serializers.BooleanField):
    """Only true is a consent; declared so, and false stays the view's ``consent_incomplete``."""


class MatureConsentSerializer(serializers.Serializer):
    adult = AffirmationField(help_text="I am an adult.")
    consent = AffirmationField(help_text="I consent to mature content.")
    confirmed_at = serializers.DateTimeField(read_only=True)


# An address the service takes as sent (games.accounts.account_email_set checks it with Django's
# validator, and says what to fix for the rest: ``bad_email``), or "" to remove it (allow_blank).
AccountEmailField = declared(
    serializers.CharField,
    {
        "type": "string",
        "maxLength": 254,
        # "" is the other branch drf-spectacular adds for allow_blank (oneOf: the two must not overlap)
        "pattern": r"^[A-Za-z0-9_%+-]+(\.[A-Za-z0-9_%+-]+)*@"
        r"([A-Za-z0-9]([A-Za-z0-9-]{0,20}[A-Za-z0-9])?\.)+[A-Za-z]{2,20}$",
    },
    "AccountEmailField",
)


class AccountEmailSerializer(serializers.Serializer):
    email = AccountEmailField(
        allow_blank=True,
        max_length=1000,
        help_text='Where password reset links and deadline reminders are mailed; "" removes it.',
    )


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField()
    password = serializers.CharField(write_only=True, trim_whitespace=False, style={"input_type": "password"})


class TokenSerializer(serializers.Serializer):
    username = serializers.CharField()
    token = serializers.CharField()


class AccountSerializer(TokenSerializer):
    bot = serializers.BooleanField(help_text="A bot account; ladders admit bots only with allow_bots.")


class MeSerializer(AccountSerializer):
    token = serializers.CharField(
        allow_null=True, help_text="The account's full token; null when asked with a personal token."
    )
    scopes = serializers.ListField(
        child=serializers.CharField(),
        help_text="What the credentials used may do: a personal token's scopes, or all of them.",
    )


class PersonalTokenSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(max_length=100, help_text="What the token is for, e.g. the bot's name.")
    scopes = serializers.ListField(
        child=serializers.ChoiceField(choices=["read", "play", "organise"]),
        max_length=3,
        help_text="read: safe methods only (every token has it; [] gives a read-only token); "
        "play: read and game actions; organise: read and league writes.",
    )
    prefix = serializers.CharField(read_only=True, help_text="The key's first characters.")
    created_at = serializers.DateTimeField(read_only=True)
    last_used_at = serializers.DateTimeField(read_only=True, allow_null=True, help_text="To the minute.")

    def to_representation(self, instance):
        return {**super().to_representation(instance), "scopes": sorted(instance.scope_set)}


class PersonalTokenCreatedSerializer(PersonalTokenSerializer):
    key = serializers.CharField(read_only=True, help_text="Shown once, now: only its hash is kept.")


@extend_schema_field(CONFIG_VALUE)
class ConfigValueField(serializers.JSONField):
    """A config flag's value."""


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
    rules_url = serializers.URLField(help_text="The game's rules for players, in English and Japanese (a web page).")


@extend_schema_field(TimeControlSerializer(allow_null=True))
class TimeControlField(serializers.JSONField):
    """The service parses the clock itself (``bad_time_control`` with what is allowed)."""


@extend_schema_field({"type": "integer", "minimum": 0, "maximum": clocks.MAX_SPECTATOR_DELAY_SECONDS})
class WholeSecondsField(serializers.JSONField):
    """Passed through: the service checks it and answers ``bad_spectator_delay``, whatever was sent."""


class GameCreateSerializer(serializers.Serializer):
    engine = EngineSlugField(help_text="A game slug from /api/engines.")
    config = ConfigField(required=False, default=dict, help_text="Flags that differ from the defaults.")
    seats = serializers.ListField(
        child=NotBlankCharField(allow_null=True),
        min_length=1,
        max_length=16,
        help_text="One entry per seat, seat 0 first: a username, or null for an open seat.",
    )
    time_control = TimeControlField(
        required=False,
        allow_null=True,  # null: no clock (the schema's nullable TimeControl)
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


@extend_schema_field(
    {
        "type": "object",
        "properties": {"type": {"type": "string"}},
        "required": ["type"],
        "additionalProperties": True,
        "description": "The move as it was sent: its verdict (status, code) says whether it was legal.",
    }
)
class SentMoveField(serializers.JSONField):
    """A submission's move as sent: any object with a ``type``, legal or not (the verdict says)."""


class SubmissionSerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id")
    game = serializers.UUIDField(source="game_id")
    move = SentMoveField(source="payload")
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


def submission_json(submission: Submission, request) -> dict:
    """``SubmissionSerializer(submission, context={"request": request}).data``, built directly: the
    move endpoint answers every move with it, and a ModelSerializer builds its fields anew for each
    answer (~5% of a web process's CPU under bench/pipeline.py, py-spy). The serializer stays the
    schema; tests/api/test_turns.py checks that both give the same JSON."""
    return {
        "id": str(submission.public_id),
        "game": str(submission.game_id),
        "seat": submission.seat,
        "move": submission.payload,
        "idempotency_key": submission.idempotency_key,
        "status": submission.status,
        "code": submission.code,
        "message": submission.message,
        "event_seq": submission.event_seq,
        "received_at": _iso_time(submission.received_at),
        "decided_at": _iso_time(submission.decided_at),
        "url": reverse(
            "api:submission-detail", kwargs={"pk": submission.game_id, "sid": submission.public_id}, request=request
        ),
    }


def _iso_time(value) -> str | None:
    """A time as DRF's DateTimeField writes it (ISO 8601 in the current time zone, UTC as ``Z``)."""
    if not value or isinstance(value, str):
        return value or None
    text = timezone.localtime(value).isoformat() if timezone.is_aware(value) else value.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


class WaitingGameSerializer(serializers.Serializer):
    game = serializers.UUIDField()
    engine = EngineSlugField()
    seat = serializers.IntegerField(help_text="Your seat.")
    head_seq = serializers.IntegerField(help_text="The seq of the game's last event.")


@extend_schema_field(
    {
        "type": "array",
        "items": FREE_OBJECT,
        "description": "Your legal moves now, as GET .../legal-moves lists them (typed there by engine).",
    }
)
class LegalMoveListField(serializers.JSONField):
    """The seat's legal moves: objects whose fields the game's action table names."""


class TurnSerializer(WaitingGameSerializer):
    moves = LegalMoveListField()


class TurnsSerializer(serializers.Serializer):
    turns = TurnSerializer(many=True, help_text="Running games in which your seat may act now, oldest first.")
    waiting = WaitingGameSerializer(many=True, help_text="Your other running games (not your turn, or a move pending).")


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
