"""Tournament API views (thin): create, enter, check in, drop, start, pair (automatic or by hand),
rounds with their pairing records, result corrections, standings as JSON and CSV."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import permissions, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from games.serializers import ConfigField, EngineSlugField, FreeObjectField
from kifu.http.errors import ApiError, error_responses, found
from kifu.http.openapi import NotBlankCharField, declared
from kifu.http.params import validated

from ..exports import calendar_response, csv_response, tournament_calendar
from ..loaders import ROUND_FILTER, load_club, load_user
from ..models import Tournament, TournamentBoard, TournamentEntry, TournamentRound
from ..scoring import reports as report_rules
from ..scoring.standings import TIEBREAKS
from ..selectors import user_by_name
from ..serializers import LADDER_SETTINGS
from ..services.matches import current_game
from . import selectors
from . import settings as settings_rules
from .lifecycle import tournament_advance, tournament_create, tournament_enter, tournament_start
from .ops import tournament_check_in, tournament_drop, tournament_pairing_set, tournament_result_correct

User = get_user_model()

ERRORS = error_responses(400, 401, 403, 404, 409)


TIEBREAK_LIST = {"type": "array", "items": {"type": "string", "enum": list(TIEBREAKS)}}
# An entry as readers see it (selectors.entry_status); named in the schema (settings: ENUM_NAME_OVERRIDES).
ENTRY_STATUSES = [*TournamentEntry.Status.values, selectors.FINISHED]
ENTRY_STATUS = {"type": "string", "enum": ENTRY_STATUSES}
EntryStatusField = declared(serializers.CharField, ENTRY_STATUS, "EntryStatusField")


class TournamentEntrySerializer(serializers.Serializer):
    number = serializers.IntegerField()
    username = serializers.CharField()
    status = EntryStatusField()
    rank = serializers.IntegerField(allow_null=True, help_text="The final place once the tournament has finished.")
    checked_in = serializers.BooleanField()
    first_round = serializers.IntegerField(help_text="A late entry joins at this round.")
    group = serializers.IntegerField(allow_null=True, help_text="groups_playoff: group index from 0.")


class TournamentStandingsRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    username = serializers.CharField()
    number = serializers.IntegerField()
    points = serializers.FloatField()
    played = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    byes = serializers.IntegerField()
    status = EntryStatusField()
    tiebreaks = serializers.DictField(child=serializers.FloatField(), help_text="Each tiebreak's value by name.")


class TournamentStandingsSerializer(serializers.Serializer):
    status = serializers.CharField()
    round = serializers.IntegerField(help_text="The current round (0 before the first).")
    tiebreaks = declared(serializers.ListField, TIEBREAK_LIST, "StandingsTiebreakList")()
    standings = TournamentStandingsRowSerializer(many=True, help_text="Best first.")


class TournamentPairingSetSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    planned = serializers.BooleanField(help_text="true: set for a round not yet made; false: the round was re-paired.")


class TournamentSerializer(serializers.ModelSerializer):
    club = serializers.CharField(source="club.slug")
    game_config = ConfigField(read_only=True, help_text="The validated config of every game.")
    settings = FreeObjectField(read_only=True, help_text="Validated options (see the README).")
    tiebreaks = declared(serializers.ListField, TIEBREAK_LIST, "TournamentTiebreaksField")(
        read_only=True, help_text="Tiebreak names in order of use."
    )
    entries = serializers.SerializerMethodField()

    class Meta:
        model = Tournament
        fields = [
            "id", "club", "name", "format", "engine", "game_config", "settings", "cycles", "rounds", "tiebreaks",
            "status", "current_round", "created_at", "started_at", "finished_at", "entries",
        ]  # fmt: skip

    @extend_schema_field(TournamentEntrySerializer(many=True))
    def get_entries(self, tournament) -> list[dict]:
        """Status ``active``, ``dropped`` or (the tournament over) ``finished``; ``rank`` is the final
        place once the tournament has finished, else null."""
        places = selectors.final_places(tournament=tournament)
        return [
            {
                "number": entry.number,
                "username": entry.user.get_username(),
                "status": selectors.entry_status(tournament, entry.status),
                "rank": places.get(entry.user.get_username()),
                "checked_in": entry.checked_in_at is not None,
                "first_round": entry.first_round,
                "group": entry.group,
            }
            for entry in tournament.entries.select_related("user").order_by("number")
        ]


# 1 or 2, and 2 only for a round robin (lifecycle: invalid_cycles).
CyclesField = declared(serializers.IntegerField, {"type": "integer", "enum": [1, 2]}, "CyclesField")
# 1-100, and only for a Swiss tournament (invalid_rounds).
RoundsField = declared(
    serializers.IntegerField, {"type": "integer", "minimum": 1, "maximum": 100, "nullable": True}, "RoundsField"
)


# A tournament's settings as league.tournaments.settings takes them (invalid_settings,
# invalid_seats, invalid_placement_points otherwise), and no others. Not said here: which formats
# a setting applies to, and the cross-field rules (min <= preferred <= max, falling placement points).
def _whole(low: int, high: int) -> dict:
    return {"type": "integer", "minimum": low, "maximum": high}


TOURNAMENT_SETTINGS = {
    "type": "object",
    "properties": {
        "seats": {
            "type": "object",
            "properties": {name: _whole(3, settings_rules.MAX_TABLE) for name in ("preferred", "min", "max")},
            "additionalProperties": False,
        },
        "placement_points": {"type": "array", "items": {"type": "number", "minimum": 0}},
        "bye_points": {"type": "number", "minimum": 0},
        "match": LADDER_SETTINGS["properties"]["match"],
        "round_deadline_seconds": _whole(10, settings_rules.MAX_DEADLINE_SECONDS),
        **{flag: {"type": "boolean"} for flag in ("check_in", "allow_bots", "third_place", "grand_final_reset")},
        "mature": {"type": "boolean"},
        "late_entry_until_round": _whole(2, 100),
        "late_entry_points": {"type": "number", "minimum": 0},
        "groups": _whole(1, 64),
        "advance": _whole(1, 64),
        "seeding": {"type": "string", "enum": list(settings_rules.SEEDING)},
        "results": {"type": "string", "enum": list(report_rules.MODES)},
        "report_confirm_hours": {
            "type": "number",
            "exclusiveMinimum": True,
            "minimum": 0,
            "maximum": report_rules.MAX_CONFIRM_HOURS,
        },
    },
    "additionalProperties": False,
}
TournamentSettingsField = declared(FreeObjectField, TOURNAMENT_SETTINGS, "TournamentSettingsField")


class TournamentCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    engine = EngineSlugField(max_length=40, help_text="A two-player game (GET /api/engines).")
    format = serializers.ChoiceField(choices=Tournament.Format.values)
    config = ConfigField(required=False, default=dict, help_text="The game config of every game.")
    rounds = RoundsField(required=False, allow_null=True, help_text="Swiss only; default log2(n).")
    cycles = CyclesField(required=False, default=1, help_text="Round robin: 1 single, 2 double.")
    tiebreaks = serializers.ListField(
        child=serializers.ChoiceField(choices=TIEBREAKS), required=False, allow_null=True, default=None
    )
    seed = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=2**62)
    settings = TournamentSettingsField(
        required=False,
        default=dict,
        help_text="Options: seats, placement_points, bye_points, match, round_deadline_seconds, check_in, "
        "allow_bots, late_entry_until_round, late_entry_points, third_place, grand_final_reset, groups, advance, "
        'seeding ("entry", "rating": the club\'s rating ladder for the game, "random").',
    )


class EntryCreateSerializer(serializers.Serializer):
    username = NotBlankCharField(required=False, help_text="Organisers: enter this member (default: you).")


class EntrantSerializer(serializers.Serializer):
    username = NotBlankCharField(required=False, help_text="Organisers: this entrant (default: you).")


class TournamentStartSerializer(serializers.Serializer):
    seeding = serializers.ListField(
        child=serializers.CharField(), required=False, allow_null=True, default=None,
        help_text="Every entrant's username, best seed first (default: the seeding setting, entry order).",
    )  # fmt: skip


class TablePairingSerializer(serializers.Serializer):
    round = serializers.IntegerField(min_value=1)
    tables = serializers.ListField(
        child=serializers.ListField(
            child=serializers.CharField(min_length=1, trim_whitespace=False), min_length=1, max_length=6
        ),
        min_length=1,
        help_text="Usernames in seat order, one list a table; a table of one is a bye.",
    )


class BoardResultSerializer(serializers.Serializer):
    round = serializers.IntegerField(min_value=1)
    board = serializers.IntegerField(min_value=1)
    ranking = serializers.ListField(
        child=serializers.ListField(child=NotBlankCharField(), min_length=1),
        required=False,
        default=None,
        help_text="Usernames best first, ties grouped: [[winner], [loser]] or [[a, b]] for a draw.",
    )
    double_forfeit = serializers.BooleanField(required=False, default=False)


class BoardSerializer(serializers.ModelSerializer):
    first = serializers.CharField(source="first.username")
    second = serializers.CharField(source="second.username", allow_null=True, default=None)
    players = serializers.SerializerMethodField()
    game = serializers.SerializerMethodField()
    result = serializers.SerializerMethodField()
    placements = serializers.SerializerMethodField()
    points = serializers.SerializerMethodField()

    class Meta:
        model = TournamentBoard
        fields = [
            "round", "number", "first", "second", "players", "bracket_match", "game", "match", "score_first",
            "result", "placements", "points", "decided_by", "finished_at",
        ]  # fmt: skip

    def _names(self, board) -> dict:
        cache = self.context.setdefault("names", {})
        missing = [pk for pk in board.seat_ids if pk not in cache]
        if missing:
            cache.update(dict(User.objects.filter(pk__in=missing).values_list("pk", "username")))
        return cache

    def get_players(self, board) -> list[str]:
        names = self._names(board)
        return [names[pk] for pk in board.seat_ids]

    def get_game(self, board) -> str | None:
        """The board's game; for a match board, the match's current game."""
        if board.game_id:
            return str(board.game_id)
        if board.match_id:
            game = current_game(board.match)
            return str(game.pk) if game else None
        return None

    def get_result(self, board) -> str | None:
        if board.is_bye:
            return "bye"
        if board.decided_by == TournamentBoard.Decided.DOUBLE_FORFEIT:
            return "0-0"
        if len(board.seat_ids) != 2:
            return None
        return {None: None, 1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}.get(board.score_first)

    def get_placements(self, board) -> list[list[str]] | None:
        names = self._names(board)
        return [[names[pk] for pk in group] for group in board.placements] if board.placements else None

    @extend_schema_field(serializers.DictField(child=serializers.FloatField(), allow_null=True))
    def get_points(self, board) -> dict | None:
        names = self._names(board)
        return {names[int(pk)]: value for pk, value in board.points.items()} if board.points is not None else None


class TournamentRoundSerializer(serializers.ModelSerializer):
    pairing_input = FreeObjectField(
        read_only=True,
        help_text="What the round was paired from (the players' histories, or manual tables).",
    )

    class Meta:
        model = TournamentRound
        fields = ["number", "stage", "seed", "manual", "deadline_at", "pairing_input", "created_at"]


def load_players(names: list[str]) -> list:
    users = []
    for name in names:
        user = user_by_name(name)
        if user is None:
            raise ApiError("unknown_player", f"no player called {name!r}")
        users.append(user)
    return users


def load_tournament(pk, viewer) -> Tournament:
    return found(selectors.tournament_get(tournament_id=pk, viewer=viewer), "no such tournament")


class ClubTournamentListView(APIView):
    @extend_schema(responses={200: TournamentSerializer(many=True)}, tags=["tournaments"])
    def get(self, request, slug: str):
        """The club's tournaments, newest first."""
        tournaments = selectors.tournament_list(club=load_club(slug), viewer=request.user)
        return Response(TournamentSerializer(tournaments, many=True).data)

    @extend_schema(
        request=TournamentCreateSerializer, responses={201: TournamentSerializer, **ERRORS}, tags=["tournaments"]
    )
    def post(self, request, slug: str):
        """Organisers: open a round-robin or Swiss tournament of a two-player game for entries."""
        tournament = tournament_create(
            club_id=load_club(slug).pk, by=request.user, **validated(TournamentCreateSerializer, request)
        )
        return Response(TournamentSerializer(tournament).data, status=status.HTTP_201_CREATED)


class TournamentDetailView(APIView):
    @extend_schema(responses={200: TournamentSerializer, **ERRORS}, tags=["tournaments"])
    def get(self, request, pk: int):
        """A tournament with its entries in pairing-number order."""
        return Response(TournamentSerializer(load_tournament(pk, request.user)).data)


class TournamentEntryView(APIView):
    permission_classes = [permissions.IsAuthenticated]
    required_scope = "play"  # for oneself; naming another entrant needs organise (api/scopes.py)
    organiser_fields = ("username",)

    @extend_schema(request=EntryCreateSerializer, responses={201: TournamentSerializer, **ERRORS}, tags=["tournaments"])
    def post(self, request, pk: int):
        """Enter (a club member, for themselves; an organiser may enter any member)."""
        data = validated(EntryCreateSerializer, request)
        player = load_user(data["username"]) if data.get("username") else None
        tournament_enter(tournament_id=load_tournament(pk, request.user).pk, by=request.user, player=player)
        return Response(TournamentSerializer(load_tournament(pk, request.user)).data, status=status.HTTP_201_CREATED)


class TournamentStartView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        request=TournamentStartSerializer, responses={200: TournamentSerializer, **ERRORS}, tags=["tournaments"]
    )
    def post(self, request, pk: int):
        """Organisers: close entries and pair round 1 (its games start at once); ``seeding`` sets the
        pairing numbers (bracket seeds) first. With check-in on, only checked-in entries play."""
        seeding = validated(TournamentStartSerializer, request)["seeding"]
        seeding = load_players(seeding) if seeding is not None else None
        tournament_start(tournament_id=load_tournament(pk, request.user).pk, by=request.user, seeding=seeding)
        return Response(TournamentSerializer(load_tournament(pk, request.user)).data)


class TournamentCheckInView(APIView):
    permission_classes = [permissions.IsAuthenticated]
    required_scope = "play"  # for oneself; naming another entrant needs organise (api/scopes.py)
    organiser_fields = ("username",)

    @extend_schema(request=EntrantSerializer, responses={200: TournamentSerializer, **ERRORS}, tags=["tournaments"])
    def post(self, request, pk: int):
        """An entrant checks in before the start (organisers: any entrant, ``username``)."""
        name = validated(EntrantSerializer, request).get("username")
        player = load_user(name) if name else None
        tournament_check_in(tournament_id=load_tournament(pk, request.user).pk, by=request.user, player=player)
        return Response(TournamentSerializer(load_tournament(pk, request.user)).data)


class TournamentDropView(APIView):
    permission_classes = [permissions.IsAuthenticated]
    required_scope = "play"  # for oneself; naming another entrant needs organise (api/scopes.py)
    organiser_fields = ("username",)

    @extend_schema(request=EntrantSerializer, responses={200: TournamentSerializer, **ERRORS}, tags=["tournaments"])
    def post(self, request, pk: int):
        """Withdraw (organisers: drop any entrant, ``username``): not paired again; results stay."""
        name = validated(EntrantSerializer, request).get("username")
        player = load_user(name) if name else None
        tournament_drop(tournament_id=load_tournament(pk, request.user).pk, by=request.user, player=player)
        return Response(TournamentSerializer(load_tournament(pk, request.user)).data)


class TournamentPairingView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        request=TablePairingSerializer, responses={200: TournamentPairingSetSerializer, **ERRORS}, tags=["tournaments"]
    )
    def post(self, request, pk: int):
        """Organisers (Swiss formats): set the next round's pairing before it is made, or re-pair the
        current round while none of its games has a move. Every active player exactly once."""
        data = validated(TablePairingSerializer, request)
        tables = [load_players(table) for table in data["tables"]]
        done = tournament_pairing_set(
            tournament_id=load_tournament(pk, request.user).pk, by=request.user, round=data["round"], tables=tables
        )
        return Response(done)


class TournamentResultView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=BoardResultSerializer, responses={200: BoardSerializer, **ERRORS}, tags=["tournaments"])
    def post(self, request, pk: int):
        """Organisers: set or correct a board's result; standings recompute, and a round completed by it
        is paired from the corrected standings."""
        data = validated(BoardResultSerializer, request)
        ranking = [load_players(group) for group in data["ranking"]] if data["ranking"] else None
        board = tournament_result_correct(
            tournament_id=load_tournament(pk, request.user).pk,
            by=request.user,
            round=data["round"],
            board=data["board"],
            ranking=ranking,
            double_forfeit=data["double_forfeit"],
        )
        return Response(BoardSerializer(board).data)


class TournamentRoundDetailView(APIView):
    @extend_schema(responses={200: TournamentRoundSerializer, **ERRORS}, tags=["tournaments"])
    def get(self, request, pk: int, number: int):
        """One round's record: its seed, the pairing input it was made from (so it can be reproduced),
        whether an organiser paired it, its deadline, and its boards."""
        record = selectors.round_get(tournament=load_tournament(pk, request.user), number=number)
        if record is None:
            raise ApiError("not_found", f"round {number} has not been paired", status.HTTP_404_NOT_FOUND)
        boards = selectors.board_list(tournament=record.tournament, round=number)
        return Response({**TournamentRoundSerializer(record).data, "boards": BoardSerializer(boards, many=True).data})


class TournamentRoundsView(APIView):
    @extend_schema(
        parameters=[ROUND_FILTER.openapi()],
        responses={200: BoardSerializer(many=True), **ERRORS},
        tags=["tournaments"],
    )
    def get(self, request, pk: int):
        """Every board so far: round, board, players in seat order, game (or match and its current game),
        result, placements, points, how it was decided."""
        boards = selectors.board_list(tournament=load_tournament(pk, request.user), round=ROUND_FILTER.read(request))
        return Response(BoardSerializer(boards, many=True).data)

    @extend_schema(request=None, responses={200: TournamentSerializer, **ERRORS}, tags=["tournaments"])
    def post(self, request, pk: int):
        """Organisers: pair the next round now (normally automatic when a round's last game ends),
        or finish the tournament after its last round. 409 while games of the round are running."""
        tournament_advance(tournament_id=load_tournament(pk, request.user).pk, by=request.user)
        return Response(TournamentSerializer(load_tournament(pk, request.user)).data)


class TournamentStandingsView(APIView):
    @extend_schema(tags=["tournaments"], responses={200: TournamentStandingsSerializer, **ERRORS})
    def get(self, request, pk: int):
        """Standings, best first: rank, points, record, and each tiebreak (in the tournament's order,
        listed in ``tiebreaks``); final once the tournament has finished."""
        tournament = load_tournament(pk, request.user)
        rows = selectors.tournament_standings(tournament=tournament)
        return Response(
            {"status": tournament.status, "round": tournament.current_round, "tiebreaks": tournament.tiebreaks,
             "standings": rows}
        )  # fmt: skip


class TournamentStandingsCsvView(APIView):
    @extend_schema(tags=["tournaments"], responses={(200, "text/csv"): str, **ERRORS})
    def get(self, request, pk: int):
        """The standings as CSV: one row a player, one column a tiebreak."""
        tournament = load_tournament(pk, request.user)
        rows = selectors.tournament_standings(tournament=tournament)
        columns = ["rank", "username", "number", "points", "played", "wins", "draws", "losses", "byes"]
        return csv_response(
            filename=f"tournament-{tournament.pk}-standings.csv",
            header=columns + list(tournament.tiebreaks) + ["status"],
            rows=(
                [row[c] for c in columns]
                + [row["tiebreaks"].get(t) for t in tournament.tiebreaks]
                + [row.get("status", "active")]
                for row in rows
            ),
        )


class TournamentCalendarView(APIView):
    @extend_schema(tags=["tournaments"], responses={(200, "text/calendar"): str, **ERRORS})
    def get(self, request, pk: int):
        """iCalendar feed of the rounds' deadlines (a round appears once it is paired)."""
        tournament = load_tournament(pk, request.user)
        return calendar_response(tournament_calendar(tournament), filename=f"tournament-{tournament.pk}.ics")
