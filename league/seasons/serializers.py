"""Serializers of the seasonal-league API: leagues, rosters, seasons, fixtures and their inputs."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.accounts import is_bot
from games.serializers import ConfigField, EngineSlugField, FreeObjectField
from kifu.http.openapi import NotBlankCharField, declared

from . import scoring, services
from .models import Fixture, League, Season

User = get_user_model()

# Distinct names (services: invalid_tiebreaks).
TIEBREAKS = {"type": "array", "items": {"type": "string", "enum": list(scoring.TIEBREAKS)}, "uniqueItems": True}

# The points of a win, a draw and a loss, each from -100 to 100, and nothing else (services:
# invalid_points; also refused there: an order other than win >= draw >= loss with a win above a loss).
POINTS = {
    "type": "object",
    "properties": {name: {"type": "number", "minimum": -100, "maximum": 100} for name in ("win", "draw", "loss")},
    "required": ["win", "draw", "loss"],
    "additionalProperties": False,
}
PointsField = declared(serializers.JSONField, POINTS, "PointsField")

# Multiplayer fixtures (services: invalid_tables, invalid_seats, invalid_placement_points).
SEAT_RANGE = {"type": "integer", "minimum": 3, "maximum": 6}
TABLES = {
    "type": "object",
    "properties": {
        "seats": {
            "type": "object",
            "properties": {"preferred": SEAT_RANGE, "min": SEAT_RANGE, "max": SEAT_RANGE},
            "additionalProperties": False,
        },
        "placement_points": {"type": "array", "items": {"type": "number", "minimum": 0}},
    },
    "additionalProperties": False,
}
TablesField = declared(serializers.JSONField, TABLES, "SeasonTablesField")
# A multiplayer fixture's ranking: usernames best first, ties grouped.
RANKING = {"type": "array", "items": {"type": "array", "items": {"type": "string"}, "minItems": 1}}
RankingField = declared(serializers.JSONField, {**RANKING, "nullable": True}, "SeasonRankingField")


class LeagueRosterEntrySerializer(serializers.Serializer):
    username = serializers.CharField()
    bot = serializers.BooleanField()
    active = serializers.BooleanField()
    added_at = serializers.DateTimeField()


class SeasonSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    status = serializers.CharField()


# How a player came to a division, and the zone of a place (settings: ENUM_NAME_OVERRIDES names them).
MOVEMENTS = [scoring.NEW, scoring.STAYED, scoring.PROMOTED, scoring.RELEGATED]
ZONES = [scoring.PROMOTED, scoring.RELEGATED]
MOVEMENT = {"type": "string", "enum": MOVEMENTS}
MovementField = declared(serializers.CharField, MOVEMENT, "MovementField")


class SeasonDivisionPlayerSerializer(serializers.Serializer):
    username = serializers.CharField()
    seed = serializers.IntegerField()
    came = MovementField(help_text="How the player came to this division.")


class SeasonDivisionSerializer(serializers.Serializer):
    tier = serializers.IntegerField(help_text="1 is the top division.")
    players = SeasonDivisionPlayerSerializer(many=True)


class NextSeasonPlayerSerializer(serializers.Serializer):
    username = serializers.CharField()
    came = MovementField(help_text="How the player comes to this division.")


class NextSeasonDivisionSerializer(serializers.Serializer):
    tier = serializers.IntegerField()
    players = NextSeasonPlayerSerializer(many=True, help_text="In seeding order.")


class NextSeasonSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    divisions = NextSeasonDivisionSerializer(many=True, help_text="Top first.")
    leaving = serializers.ListField(child=serializers.CharField(), help_text="Usernames that will not play it.")


class SeasonStandingsLineSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    username = serializers.CharField()
    seed = serializers.IntegerField()
    came = MovementField()
    points = serializers.FloatField()
    played = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    tiebreaks = serializers.DictField(child=serializers.FloatField(), help_text="Each tiebreak's value by name.")
    zone = declared(serializers.CharField, {"type": "string", "enum": ZONES}, "SeasonZoneField")(
        allow_null=True, help_text="null: neither zone."
    )


class SeasonDivisionStandingsSerializer(serializers.Serializer):
    tier = serializers.IntegerField()
    standings = SeasonStandingsLineSerializer(many=True, help_text="Best first.")


class SeasonStandingsSerializer(serializers.Serializer):
    season = serializers.IntegerField(help_text="The season's number in its league.")
    status = serializers.CharField()
    points = PointsField()
    tiebreaks = declared(serializers.ListField, TIEBREAKS, "StandingsTiebreaksField")()
    divisions = SeasonDivisionStandingsSerializer(many=True, help_text="Top first.")


class SeasonLeagueSerializer(serializers.ModelSerializer):
    club = serializers.CharField(source="club.slug")
    game_config = ConfigField(read_only=True, help_text="The validated config of every game.")
    tiebreaks = declared(serializers.ListField, TIEBREAKS, "SeasonTiebreaksField")(
        read_only=True, help_text="Tiebreak names in order of use."
    )
    points = serializers.SerializerMethodField()
    tables = TablesField(
        read_only=True,
        help_text="Multiplayer fixtures: seats per table and placement points (absent: linear 1 -> 0); "
        "{} for two-player fixtures.",
    )
    roster = serializers.SerializerMethodField()
    seasons = serializers.SerializerMethodField()

    class Meta:
        model = League
        fields = [
            "id", "club", "name", "engine", "game_config", "cycles", "days_per_round", "divisions", "promote",
            "relegate", "points", "tables", "tiebreaks", "allow_bots", "mature", "created_at", "roster", "seasons",
        ]  # fmt: skip

    @extend_schema_field(serializers.DictField(child=serializers.FloatField()))
    def get_points(self, league) -> dict:
        return {"win": league.points_win, "draw": league.points_draw, "loss": league.points_loss}

    @extend_schema_field(LeagueRosterEntrySerializer(many=True))
    def get_roster(self, league) -> list[dict]:
        return [
            {
                "username": entry.user.get_username(),
                "bot": is_bot(entry.user),
                "active": entry.active,
                "added_at": entry.added_at,
            }
            for entry in league.roster.select_related("user__bot_account").order_by("added_at", "pk")
        ]

    @extend_schema_field(SeasonSummarySerializer(many=True))
    def get_seasons(self, league) -> list[dict]:
        return [
            {"id": season.pk, "number": season.number, "status": season.status}
            for season in league.seasons.order_by("number")
        ]


# 1 or 2 (services: invalid_cycles); declared so a schema-valid request is not refused for it.
CyclesField = declared(serializers.IntegerField, {"type": "integer", "enum": [1, 2]}, "CyclesField")
# The same for the services' other ranges (invalid_days_per_round, invalid_divisions, invalid_promotion).
DaysField = declared(serializers.IntegerField, {"type": "integer", "minimum": 1, "maximum": 365}, "DaysField")
DivisionsField = declared(
    serializers.IntegerField, {"type": "integer", "minimum": 1, "maximum": services.MAX_DIVISIONS}, "DivisionsField"
)
MovesField = declared(
    serializers.IntegerField, {"type": "integer", "minimum": 0, "maximum": services.MAX_MOVES}, "MovesField"
)

TiebreaksField = declared(serializers.ListField, {**TIEBREAKS, "nullable": True}, "TiebreaksField")


class SeasonLeagueCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    engine = EngineSlugField(max_length=40, help_text="Any game (GET /api/engines); see tables.")
    config = ConfigField(required=False, default=dict, help_text="The game config of every fixture.")
    cycles = CyclesField(required=False, default=1, help_text="1 single, 2 double round robin.")
    days_per_round = DaysField(required=False, default=7, help_text="Round r: play by start + r*days.")
    divisions = DivisionsField(required=False, default=1, help_text="Divisions of the first season.")
    promote = MovesField(required=False, default=2, help_text="Up from each division but the top.")
    relegate = MovesField(required=False, default=2, help_text="Down from each division but the last.")
    points = PointsField(
        required=False, allow_null=True, default=None, help_text='{"win": 3, "draw": 1, "loss": 0} (the default).'
    )
    tiebreaks = TiebreaksField(
        child=serializers.ChoiceField(choices=scoring.TIEBREAKS), required=False, allow_null=True, default=None
    )
    allow_bots = serializers.BooleanField(
        required=False, default=False, help_text="May bot accounts join the roster and play (default false)."
    )
    mature = serializers.BooleanField(
        required=False,
        default=False,
        help_text="A league of a mature game says so (else 400 mature_opt_in_required); only players who "
        "consented to mature content may play.",
    )
    tables = TablesField(
        required=False,
        allow_null=True,
        default=None,
        help_text='Multiplayer fixtures, e.g. {"seats": {"preferred": 4, "min": 3, "max": 5}, '
        '"placement_points": [3, 2, 1, 0, 0]}; default: two-player fixtures, or these defaults for a game '
        "two cannot play.",
    )


class SeasonLeagueUpdateSerializer(serializers.Serializer):
    cycles = CyclesField(required=False)
    days_per_round = DaysField(required=False)
    divisions = DivisionsField(required=False)
    promote = MovesField(required=False)
    relegate = MovesField(required=False)
    points = PointsField(required=False, help_text='{"win": W, "draw": D, "loss": L}')
    tiebreaks = declared(serializers.ListField, TIEBREAKS, "SeasonTiebreaksUpdate")(
        child=serializers.ChoiceField(choices=scoring.TIEBREAKS), required=False
    )
    allow_bots = serializers.BooleanField(
        required=False, help_text="May bot accounts join the roster and play; from now on (see the README)."
    )
    tables = TablesField(required=False, help_text="As at creation; {}: two-player fixtures again.")


class SeasonPlayerAddSerializer(serializers.Serializer):
    username = NotBlankCharField(help_text="A member of the league's club.")


class SeasonStartSerializer(serializers.Serializer):
    divisions = serializers.ListField(
        child=serializers.ListField(child=NotBlankCharField()),
        required=False,
        allow_null=True,
        default=None,
        help_text="Usernames per division, top first; default: the roster split evenly (first season) "
        "or promotion and relegation from the last season.",
    )


class FixtureCorrectionSerializer(serializers.Serializer):
    result = serializers.ChoiceField(
        choices=[*scoring.RESULTS, scoring.PLACED],
        help_text="home/away = the first/second seat won; a multiplayer fixture: placed (with ranking) or "
        "double_forfeit.",
    )
    reason = serializers.CharField(max_length=200)
    ranking = RankingField(
        required=False, allow_null=True, default=None, help_text='Multiplayer: [["aki"], ["ben", "chie"], ...].'
    )


class SeasonSerializer(serializers.ModelSerializer):
    league = serializers.IntegerField(source="league_id")
    divisions = serializers.SerializerMethodField()
    rules = FreeObjectField(read_only=True, help_text="The league's settings when the season started.")

    class Meta:
        model = Season
        fields = ["id", "league", "number", "status", "rules", "rounds", "started_at", "closed_at", "divisions"]

    @extend_schema_field(SeasonDivisionSerializer(many=True))
    def get_divisions(self, season) -> list[dict]:
        divisions: dict[int, list] = {}
        for member in season.players.select_related("user", "division").order_by("division__tier", "seed"):
            divisions.setdefault(member.division.tier, []).append(
                {"username": member.user.get_username(), "seed": member.seed, "came": member.movement}
            )
        return [{"tier": tier, "players": players} for tier, players in sorted(divisions.items())]


SCORES = {"home": "1-0", "away": "0-1", "draw": "1/2-1/2", "double_forfeit": "0-0", "placed": None, "": None}


class SeasonFixtureSerializer(serializers.ModelSerializer):
    season = serializers.IntegerField(source="season_id")
    division = serializers.IntegerField(source="division.tier")
    home = serializers.CharField(source="home.username", help_text="Seat 0.")
    away = serializers.CharField(source="away.username", help_text="Seat 1.")
    players = serializers.SerializerMethodField()
    placements = serializers.SerializerMethodField()
    points = serializers.SerializerMethodField()
    score = serializers.SerializerMethodField()

    class Meta:
        model = Fixture
        fields = [
            "id", "season", "division", "round", "board", "home", "away", "players", "game", "play_by", "result",
            "score", "placements", "points", "method", "games_home", "games_away", "decided_at", "note",
        ]  # fmt: skip

    def _names(self, fixture) -> dict[int, str]:
        names = self.context.get("names")  # a list view's names, read once (SeasonFixturesView)
        if names is None:
            names = fixture._names = getattr(fixture, "_names", None) or seat_names(fixture)
        return names

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_players(self, fixture) -> list[str]:
        """Every player in seat order (two-player: home, away)."""
        names = self._names(fixture)
        return [names.get(pk, "?") for pk in fixture.seat_ids]

    @extend_schema_field(declared(serializers.JSONField, {**RANKING, "nullable": True}, "FixturePlacementsField")())
    def get_placements(self, fixture) -> list[list[str]] | None:
        """Multiplayer, once decided: usernames best first, ties grouped."""
        names = self._names(fixture)
        return [[names.get(pk, "?") for pk in group] for group in fixture.placements] if fixture.placements else None

    @extend_schema_field(serializers.DictField(child=serializers.FloatField(), allow_null=True))
    def get_points(self, fixture) -> dict | None:
        """Multiplayer, once decided: league points by username."""
        names = self._names(fixture)
        return {names.get(int(pk), "?"): value for pk, value in fixture.points.items()} if fixture.points else None

    def get_score(self, fixture) -> str | None:
        return SCORES[fixture.result]


def seat_names(fixture) -> dict[int, str]:
    """User id -> username of a fixture's players (one query for a multiplayer fixture)."""
    if not fixture.players:
        return {fixture.home_id: fixture.home.username, fixture.away_id: fixture.away.username}
    return dict(User.objects.filter(pk__in=fixture.players).values_list("pk", "username"))
