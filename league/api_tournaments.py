"""Tournament API views (thin): create, enter, start, pair, rounds, standings as JSON and CSV."""

from __future__ import annotations

import csv
import io

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import ApiError

from . import services
from . import tournament_selectors as selectors
from .api import ERRORS, load_club, load_user, valid
from .models import Tournament, TournamentBoard
from .scoring.standings import TIEBREAKS


class TournamentSerializer(serializers.ModelSerializer):
    club = serializers.CharField(source="club.slug")
    entries = serializers.SerializerMethodField()

    class Meta:
        model = Tournament
        fields = [
            "id", "club", "name", "format", "engine", "game_config", "cycles", "rounds", "tiebreaks", "status",
            "current_round", "created_at", "started_at", "finished_at", "entries",
        ]  # fmt: skip

    def get_entries(self, tournament) -> list[dict]:
        return [
            {"number": entry.number, "username": entry.user.get_username()}
            for entry in tournament.entries.select_related("user").order_by("number")
        ]


class TournamentCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    engine = serializers.CharField(max_length=40, help_text="A two-player game (GET /api/engines).")
    format = serializers.ChoiceField(choices=Tournament.Format.values)
    config = serializers.JSONField(required=False, default=dict, help_text="The game config of every game.")
    rounds = serializers.IntegerField(required=False, allow_null=True, help_text="Swiss only; default log2(n).")
    cycles = serializers.IntegerField(required=False, default=1, help_text="Round robin: 1 single, 2 double.")
    tiebreaks = serializers.ListField(
        child=serializers.ChoiceField(choices=TIEBREAKS), required=False, allow_null=True, default=None
    )
    seed = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=2**62)


class EntryCreateSerializer(serializers.Serializer):
    username = serializers.CharField(required=False, help_text="Organisers: enter this member (default: you).")


class BoardSerializer(serializers.ModelSerializer):
    first = serializers.CharField(source="first.username")
    second = serializers.CharField(source="second.username", allow_null=True, default=None)
    result = serializers.SerializerMethodField()

    class Meta:
        model = TournamentBoard
        fields = ["round", "number", "first", "second", "game", "score_first", "result", "finished_at"]

    def get_result(self, board) -> str | None:
        if board.is_bye:
            return "bye"
        return {None: None, 1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}[board.score_first]


def load_tournament(pk) -> Tournament:
    tournament = selectors.tournament_get(tournament_id=pk)
    if tournament is None:
        raise ApiError("not_found", "no such tournament", status.HTTP_404_NOT_FOUND)
    return tournament


class ClubTournamentListView(APIView):
    @extend_schema(responses={200: TournamentSerializer(many=True)}, tags=["tournaments"])
    def get(self, request, slug: str):
        """The club's tournaments, newest first."""
        tournaments = selectors.tournament_list(club=load_club(slug))
        return Response(TournamentSerializer(tournaments, many=True).data)

    @extend_schema(
        request=TournamentCreateSerializer, responses={201: TournamentSerializer, **ERRORS}, tags=["tournaments"]
    )
    def post(self, request, slug: str):
        """Organisers: open a round-robin or Swiss tournament of a two-player game for entries."""
        tournament = services.tournament_create(
            club_id=load_club(slug).pk, by=request.user, **valid(TournamentCreateSerializer, request)
        )
        return Response(TournamentSerializer(tournament).data, status=status.HTTP_201_CREATED)


class TournamentDetailView(APIView):
    @extend_schema(responses={200: TournamentSerializer, **ERRORS}, tags=["tournaments"])
    def get(self, request, pk: int):
        """A tournament with its entries in pairing-number order."""
        return Response(TournamentSerializer(load_tournament(pk)).data)


class TournamentEntryView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=EntryCreateSerializer, responses={201: TournamentSerializer, **ERRORS}, tags=["tournaments"])
    def post(self, request, pk: int):
        """Enter (a club member, for themselves; an organiser may enter any member)."""
        data = valid(EntryCreateSerializer, request)
        player = load_user(data["username"]) if data.get("username") else None
        services.tournament_enter(tournament_id=load_tournament(pk).pk, by=request.user, player=player)
        return Response(TournamentSerializer(load_tournament(pk)).data, status=status.HTTP_201_CREATED)


class TournamentStartView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=None, responses={200: TournamentSerializer, **ERRORS}, tags=["tournaments"])
    def post(self, request, pk: int):
        """Organisers: close entries and pair round 1 (its games start at once)."""
        services.tournament_start(tournament_id=load_tournament(pk).pk, by=request.user)
        return Response(TournamentSerializer(load_tournament(pk)).data)


class TournamentRoundsView(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("round", int, description="Only this round.")],
        responses={200: BoardSerializer(many=True), **ERRORS},
        tags=["tournaments"],
    )
    def get(self, request, pk: int):
        """Every board so far (round, board, players, game, result)."""
        raw = request.query_params.get("round")
        if raw is not None and not raw.isdigit():
            raise ApiError("invalid_round", "round must be a whole number")
        boards = selectors.board_list(tournament=load_tournament(pk), round=int(raw) if raw else None)
        return Response(BoardSerializer(boards, many=True).data)

    @extend_schema(request=None, responses={200: TournamentSerializer, **ERRORS}, tags=["tournaments"])
    def post(self, request, pk: int):
        """Organisers: pair the next round now (normally automatic when a round's last game ends),
        or finish the tournament after its last round. 409 while games of the round are running."""
        services.tournament_advance(tournament_id=load_tournament(pk).pk, by=request.user)
        return Response(TournamentSerializer(load_tournament(pk)).data)


class TournamentStandingsView(APIView):
    @extend_schema(tags=["tournaments"], responses={200: dict, **ERRORS})
    def get(self, request, pk: int):
        """Standings, best first: rank, points, record, and each tiebreak (in the tournament's order,
        listed in ``tiebreaks``); final once the tournament has finished."""
        tournament = load_tournament(pk)
        rows = selectors.tournament_standings(tournament=tournament)
        return Response(
            {"status": tournament.status, "round": tournament.current_round, "tiebreaks": tournament.tiebreaks,
             "standings": rows}
        )  # fmt: skip


class TournamentStandingsCsvView(APIView):
    @extend_schema(tags=["tournaments"], responses={(200, "text/csv"): str, **ERRORS})
    def get(self, request, pk: int):
        """The standings as CSV: one row a player, one column a tiebreak."""
        tournament = load_tournament(pk)
        rows = selectors.tournament_standings(tournament=tournament)
        out = io.StringIO()
        writer = csv.writer(out)
        columns = ["rank", "username", "number", "points", "played", "wins", "draws", "losses", "byes"]
        writer.writerow(columns + list(tournament.tiebreaks))
        for row in rows:
            writer.writerow([row[c] for c in columns] + [row["tiebreaks"].get(t) for t in tournament.tiebreaks])
        response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="tournament-{tournament.pk}-standings.csv"'
        return response
