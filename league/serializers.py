"""Request and response shapes of the league API (they also make its OpenAPI schema).

Players appear by username; the log stores user ids (stable across renames), and each logged
event is shown with a ``names`` map from those ids to usernames.
"""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.accounts import is_bot
from games.serializers import CONFIG, FREE_OBJECT, ConfigField, EngineSlugField, FreeObjectField
from kifu.http.openapi import NotBlankCharField, declared

from .models import Challenge, Club, Ladder, LadderEntry, LadderEvent, Match, Membership, PlayerProfile, RatingPoint
from .scoring import ladder as rules
from .scoring import matches as match_rules
from .selectors import usernames


def _display_name(user) -> str:
    profile = getattr(user, "player_profile", None)
    return (profile.display_name if profile else "") or user.get_username()


class ProfileSerializer(serializers.ModelSerializer):
    username = serializers.CharField(source="user.username", read_only=True)
    bot = serializers.SerializerMethodField()

    class Meta:
        model = PlayerProfile
        fields = ["username", "display_name", "language", "bot"]

    def get_bot(self, profile) -> bool:
        return is_bot(profile.user)


@extend_schema_field({"type": "string", "enum": [code for code, _name in settings.LANGUAGES]})
class LanguageField(serializers.CharField):
    """A language code; declared as the enum of settings.LANGUAGES, still checked by the profile
    service (``bad_language``, which names the codes)."""


class ProfileUpdateSerializer(serializers.Serializer):
    display_name = serializers.CharField(required=False, allow_blank=True, max_length=80)
    language = LanguageField(required=False, max_length=10, help_text="A code such as en or ja.")


class ClubSerializer(serializers.ModelSerializer):
    members = serializers.SerializerMethodField()

    class Meta:
        model = Club
        fields = ["slug", "name", "description", "created_at", "members"]

    def get_members(self, club) -> int:
        return club.memberships.filter(status=Membership.Status.ACTIVE).count()


class ClubCreateSerializer(serializers.Serializer):
    name = NotBlankCharField(max_length=100)
    slug = declared(serializers.CharField, {"type": "string", "pattern": "[A-Za-z0-9]", "maxLength": 50}, "ClubSlug")(
        required=False, max_length=50, help_text="Its name in URLs (default: from the name); letters or digits."
    )
    description = serializers.CharField(required=False, allow_blank=True, default="")


class ClubUpdateSerializer(serializers.Serializer):
    name = NotBlankCharField(required=False, max_length=100)
    description = serializers.CharField(required=False, allow_blank=True)


class MembershipSerializer(serializers.ModelSerializer):
    username = serializers.CharField(source="user.username")
    display_name = serializers.SerializerMethodField()
    bot = serializers.SerializerMethodField()

    class Meta:
        model = Membership
        fields = ["username", "display_name", "bot", "role", "status", "created_at", "joined_at"]

    def get_display_name(self, membership) -> str:
        return _display_name(membership.user)

    def get_bot(self, membership) -> bool:
        return is_bot(membership.user)


class InviteSerializer(serializers.Serializer):
    username = NotBlankCharField()
    role = serializers.ChoiceField(choices=Membership.Role.choices, default=Membership.Role.MEMBER)


class RoleSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=Membership.Role.choices)


class LadderSerializer(serializers.ModelSerializer):
    club = serializers.CharField(source="club.slug")
    game_config = ConfigField(read_only=True, help_text="The validated config of every game.")
    settings = FreeObjectField(
        read_only=True, help_text="Current settings, defaults included (the log has every change)."
    )

    class Meta:
        model = Ladder
        fields = ["id", "club", "name", "kind", "engine", "game_config", "settings", "head_seq", "created_at"]


def _number(minimum, maximum, whole=False) -> dict:
    return {"type": "integer" if whole else "number", "minimum": minimum, "maximum": maximum}


# A ladder's settings (rules.validate_settings; a rating ladder takes only match and
# allow_bots, and says so - invalid_ladder_settings - for the others). The schema is the plain forms:
# challenge_range as a number of places (bands are also taken), a match as best_of/first_to/session
# of at most 20 games counted in wins (first_to also takes more, and "scores").
LADDER_SETTINGS = {
    "type": "object",
    "properties": {
        "challenge_range": _number(1, 1000, whole=True),
        "max_open_challenges": _number(1, 20, whole=True),
        "accept_days": _number(0.001, 365),
        "play_days": _number(0.001, 365),
        "on_challenger_win": {"type": "string", "enum": ["swap", "leapfrog"]},
        "rematch_cooldown_days": _number(0, 365),
        "new_player_free_challenges": _number(0, 100, whole=True),
        "inactivity_days": _number(0, 3650),
        "inactivity_drop_places": _number(1, 1000, whole=True),
        "match": {
            "type": "object",
            "nullable": True,
            "properties": {
                "format": {"type": "string", "enum": list(match_rules.FORMATS)},
                "target": _number(1, 20, whole=True),
                "points": {"type": "string", "enum": ["wins"]},
            },
            "required": ["format", "target"],
            "additionalProperties": False,
        },
        "allow_bots": {"type": "boolean"},
    },
    "additionalProperties": False,
}
LadderSettingsField = declared(serializers.DictField, LADDER_SETTINGS, "LadderSettingsField")
# Game flags as a request gives them: an object (refused otherwise), each flag's value as Config says.
ConfigDictField = declared(serializers.DictField, CONFIG, "ConfigDictField")


class LadderCreateSerializer(serializers.Serializer):
    engine = EngineSlugField(help_text="A game slug from /api/engines.")
    kind = serializers.ChoiceField(choices=rules.KINDS, default=rules.CHALLENGE)
    name = serializers.CharField(required=False, allow_blank=True, max_length=100)
    settings = LadderSettingsField(
        required=False,
        default=dict,
        help_text="Ladder rules that differ from the defaults: challenge_range, max_open_challenges, accept_days, "
        "play_days, on_challenger_win, rematch_cooldown_days, new_player_free_challenges, inactivity_days, "
        'inactivity_drop_places, match (e.g. {"format": "best_of", "target": 3}), allow_bots (default false: '
        "bot accounts may not join or challenge).",
    )
    game_config = ConfigDictField(required=False, default=dict, help_text="Game flags for every ladder game.")


class LadderUpdateSerializer(serializers.Serializer):
    name = serializers.CharField(required=False, max_length=100)
    settings = LadderSettingsField(required=False, help_text="Only the settings to change.")


class EntrySerializer(serializers.ModelSerializer):
    username = serializers.CharField(source="user.username")
    display_name = serializers.SerializerMethodField()
    bot = serializers.SerializerMethodField()

    class Meta:
        model = LadderEntry
        fields = [
            "position",
            "username",
            "display_name",
            "bot",
            "active",
            "mu",
            "sigma",
            "ordinal",
            "played",
            "won",
            "lost",
            "drawn",
            "forfeits_won",
            "forfeits_lost",
            "drops",
            "free_challenges_left",
            "joined_at",
            "last_active_at",
        ]

    def get_display_name(self, entry) -> str:
        return _display_name(entry.user)

    def get_bot(self, entry) -> bool:
        return is_bot(entry.user)


class LadderEventSerializer(serializers.ModelSerializer):
    names = serializers.SerializerMethodField()
    actor = serializers.CharField(source="actor.username", allow_null=True, default=None)
    payload = FreeObjectField(read_only=True, help_text="What happened; its fields depend on `kind`.")

    class Meta:
        model = LadderEvent
        fields = ["seq", "kind", "at", "actor", "payload", "names", "hash"]

    @extend_schema_field(serializers.DictField(child=serializers.CharField()))
    def get_names(self, event) -> dict:
        from .selectors import payload_players

        names = self.context.get("names") or {}
        return {str(pk): names.get(pk, "") for pk in sorted(payload_players(event.payload))}


class RatingPointSerializer(serializers.ModelSerializer):
    class Meta:
        model = RatingPoint
        fields = ["seq", "at", "mu_before", "sigma_before", "mu", "sigma", "ordinal", "game", "match"]


# How a decided challenge went (null until then): the winner's user id (null: no winner) and why.
CHALLENGE_OUTCOME = {
    "type": "object",
    "properties": {"winner": {"type": "integer", "nullable": True}, "reason": {"type": "string"}},
    "additionalProperties": True,
}


class ChallengeSerializer(serializers.ModelSerializer):
    challenger = serializers.CharField(source="challenger.username")
    defender = serializers.CharField(source="defender.username")
    ladder = serializers.IntegerField(source="ladder_id")
    game = serializers.UUIDField(source="game_id", allow_null=True)
    match = serializers.UUIDField(source="match_id", allow_null=True)
    winner = serializers.SerializerMethodField()
    outcome = declared(serializers.JSONField, CHALLENGE_OUTCOME, "ChallengeOutcomeField")(
        read_only=True, allow_null=True
    )

    class Meta:
        model = Challenge
        fields = [
            "id",
            "ladder",
            "challenger",
            "defender",
            "status",
            "free",
            "issued_at",
            "accept_by",
            "accepted_at",
            "play_by",
            "decided_at",
            "game",
            "match",
            "winner",
            "outcome",
            "issued_seq",
            "decided_seq",
        ]

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_winner(self, challenge) -> str | None:
        winner = (challenge.outcome or {}).get("winner")
        if winner is None:
            return None
        return challenge.challenger.username if winner == challenge.challenger_id else challenge.defender.username


class ChallengeCreateSerializer(serializers.Serializer):
    defender = NotBlankCharField(help_text="The username of the player you challenge.")


class ResultSerializer(serializers.Serializer):
    winner = NotBlankCharField(allow_null=True, help_text="The winner's username, or null for a draw.")


class WithdrawSerializer(serializers.Serializer):
    username = NotBlankCharField(required=False, help_text="Organisers: the player to withdraw (default: you).")
    reason = serializers.CharField(required=False, allow_blank=True, default="")


class RatedGameSerializer(serializers.Serializer):
    players = serializers.ListField(
        child=serializers.CharField(min_length=1, trim_whitespace=False),
        min_length=2,
        max_length=16,
        help_text="Usernames in seat order.",
    )


class CorrectionSerializer(serializers.Serializer):
    event = serializers.IntegerField(min_value=1, help_text="The seq of the logged event to correct.")
    changes = declared(serializers.DictField, FREE_OBJECT, "LadderChangesField")(
        help_text='What to change: {"ranking": [["winner"], ["loser"]]} for a result (usernames), {"winner": '
        '"name"} for a forfeit, {"places": n} for an inactivity drop, or {"void": true}.'
    )
    reason = serializers.CharField(required=False, allow_blank=True, default="")


class CalendarFeedSerializer(serializers.Serializer):
    url = serializers.URLField(help_text="Your calendar feed, its key included: keep it private.")


class MatchGameSerializer(serializers.Serializer):
    number = serializers.IntegerField(help_text="1 for the match's first game.")
    game = serializers.UUIDField()
    status = serializers.CharField()


# A match's format (league.scoring.matches): best of / first to / a session of ``target`` games.
MATCH_SPEC = {
    "type": "object",
    "properties": {
        "format": {"type": "string", "enum": list(match_rules.FORMATS)},
        "target": {"type": "integer"},
        "points": {"type": "string", "enum": list(match_rules.POINTS)},
    },
    "required": ["format", "target"],
}


class MatchSerializer(serializers.ModelSerializer):
    players = serializers.SerializerMethodField()
    totals = serializers.SerializerMethodField()
    result = serializers.SerializerMethodField()
    games = serializers.SerializerMethodField()
    ladder = serializers.IntegerField(source="ladder_id", allow_null=True)
    config = ConfigField(read_only=True)
    spec = declared(serializers.JSONField, MATCH_SPEC, "MatchSpecField")(read_only=True)

    class Meta:
        model = Match
        fields = ["id", "ladder", "engine", "config", "spec", "players", "status", "totals", "result", "games"]

    def _names(self, match) -> dict:
        if not hasattr(match, "_names"):
            match._names = usernames(match.players)
        return match._names

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_players(self, match) -> list:
        return [self._names(match).get(pk, "") for pk in match.players]

    @extend_schema_field(serializers.DictField(child=serializers.FloatField()))
    def get_totals(self, match) -> dict:
        return {self._names(match).get(int(pk), pk): points for pk, points in match.totals.items()}

    @extend_schema_field(
        serializers.ListField(child=serializers.ListField(child=serializers.CharField()), allow_null=True)
    )
    def get_result(self, match) -> list | None:
        if match.result is None:
            return None
        return [[self._names(match).get(pk, "") for pk in group] for group in match.result]

    @extend_schema_field(MatchGameSerializer(many=True))
    def get_games(self, match) -> list:
        from .selectors import match_games

        return [
            {"number": link.number, "game": str(link.game_id), "status": link.game.status}
            for link in match_games(match=match)
        ]


class MatchCreateSerializer(serializers.Serializer):
    engine = EngineSlugField()
    players = serializers.ListField(child=serializers.CharField(), min_length=2, max_length=16)
    format = serializers.ChoiceField(choices=match_rules.FORMATS)
    target = serializers.IntegerField(help_text="N of best of N, first to N points, or games in a session.")
    points = serializers.ChoiceField(choices=match_rules.POINTS, default="wins")
    config = ConfigDictField(required=False, default=dict)


class RatedGameResultSerializer(serializers.Serializer):
    game = serializers.UUIDField(allow_null=True, required=False)
    match = serializers.UUIDField(allow_null=True, required=False)


class LadderVerificationSerializer(serializers.Serializer):
    ladder = serializers.IntegerField()
    ok = serializers.BooleanField()
    events = serializers.IntegerField()
    problems = serializers.ListField(child=serializers.CharField())
