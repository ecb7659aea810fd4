"""API of reported results (issue 17): a pairing and its reports; report, confirm, dispute, settle;
the reports waiting for me; the organiser's setting of how pairings may be decided. Thin: validate,
call one service or selector, serialize."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions, status
from rest_framework.response import Response
from rest_framework.views import APIView

from kifu.http.errors import ApiError, error_responses
from kifu.http.params import validated

from ..selectors import user_by_name
from . import selectors, services
from . import serializers as s
from .pairings import pairing_get, pairing_visible

ERRORS = error_responses(400, 401, 403, 404, 409)
KIND = OpenApiParameter(
    "kind", str, OpenApiParameter.PATH, enum=["challenge", "game", "match", "board", "fixture"],
    description="challenge (ladder challenge), game or match (rated, of a rating ladder), board (tournament), "
    "fixture (season)",
)  # fmt: skip
PK = OpenApiParameter(
    "id", str, OpenApiParameter.PATH, description="The pairing's id (a UUID, or a board's or fixture's number id)."
)
KEY_HEADER = OpenApiParameter(
    "Idempotency-Key", str, OpenApiParameter.HEADER, required=False, description="Alternative to the body field."
)


def _ids(names: list[str]) -> list[int]:
    ids = []
    for name in names:
        user = user_by_name(name)
        if user is None:
            raise ApiError("unknown_player", f"no player called {name!r}")
        ids.append(user.pk)
    return ids


def _ranking(ranking) -> list[list[int]] | None:
    return None if ranking is None else [_ids(group) for group in ranking]


def _scores(scores) -> dict[int, float] | None:
    if scores is None:
        return None
    return {pk: value for pk, value in zip(_ids(list(scores)), scores.values(), strict=True)}


def _key(data: dict, request) -> str:
    return data.get("idempotency_key") or request.headers.get("Idempotency-Key") or ""


def _pairing_response(kind: str, pk: str, viewer) -> Response:
    pairing = pairing_get(kind, pk)
    if not pairing_visible(pairing, viewer):
        raise ApiError("not_found", f"no such {kind}", 404)
    reports = selectors.pairing_reports(kind=pairing.kind, key=pairing.key)
    return Response(s.PairingSerializer(selectors.pairing_dict(pairing, reports)).data)


class PairingView(APIView):
    @extend_schema(parameters=[KIND, PK], responses={200: s.PairingSerializer, **ERRORS}, tags=["results"])
    def get(self, request, kind: str, pk: str):
        """A pairing: its players, how it may be decided (online, table, either), whether it is
        decided, its open report and every report's steps (who and when)."""
        return _pairing_response(kind, pk, request.user)


class _Step(APIView):
    permission_classes = [permissions.IsAuthenticated]


def _step_schema(request_serializer, summary: str):
    return extend_schema(
        parameters=[KIND, PK, KEY_HEADER],
        request=request_serializer,
        responses={200: s.PairingSerializer, **ERRORS},
        tags=["results"],
        description=summary,
    )


class ReportView(_Step):
    required_scope = "play"  # a player's own act: a play-only token may (api/scopes.py)

    @_step_schema(
        s.ReportInSerializer,
        "A player of the pairing reports its result (played at a table): ranking and, for a series or a "
        "game with points, scores. The other players confirm or dispute it; unanswered, it counts as "
        "confirmed after the owner's report_confirm_hours. Refused (409 reports_not_allowed) where the "
        "pairing is decided online only.",
    )
    def post(self, request, kind: str, pk: str):
        data = validated(s.ReportInSerializer, request)
        services.result_report(
            kind=kind, pairing=pk, by=request.user, ranking=_ranking(data["ranking"]),
            scores=_scores(data.get("scores")), idempotency_key=_key(data, request),
        )  # fmt: skip
        return _pairing_response(kind, pk, request.user)


class TableView(_Step):
    required_scope = "play"  # a player's own act: a play-only token may (api/scopes.py)

    @extend_schema(
        parameters=[KIND, PK],
        request=None,
        responses={201: s.PairingTableSerializer, **ERRORS},
        tags=["results"],
        description="A player of the pairing or an organiser moves it to a real table: its server game, not "
        "yet played, is replaced by a table game to record with the table recorder (POST entries to "
        "/api/table-games/{game}/entries); the finished record is the keeper's report, which the other "
        "players confirm. 409 reports_not_allowed where the pairing is decided online only, game_in_play "
        "once a move was made on the server. Sent again, it answers the same table game.",
    )
    def post(self, request, kind: str, pk: str):
        key, game = services.pairing_to_table(kind=kind, pairing=pk, by=request.user)
        body = {
            "kind": kind,
            "id": key,
            "game": game.pk,
            "sheet": request.build_absolute_uri(reverse("api:table-sheet", kwargs={"pk": game.pk})),
            "recorder": request.build_absolute_uri(reverse("web:table", kwargs={"pk": game.pk})),
        }
        return Response(s.PairingTableSerializer(body).data, status=status.HTTP_201_CREATED)


class ConfirmView(_Step):
    required_scope = "play"  # a player's own act: a play-only token may (api/scopes.py)

    @_step_schema(s.ConfirmInSerializer, "Another player confirms the open report; the last confirmation decides.")
    def post(self, request, kind: str, pk: str):
        data = validated(s.ConfirmInSerializer, request)
        services.result_confirm(kind=kind, pairing=pk, by=request.user, idempotency_key=_key(data, request))
        return _pairing_response(kind, pk, request.user)


class DisputeView(_Step):
    required_scope = "play"  # a player's own act: a play-only token may (api/scopes.py)

    @_step_schema(s.DisputeInSerializer, "Another player disputes the open report: an organiser settles it.")
    def post(self, request, kind: str, pk: str):
        data = validated(s.DisputeInSerializer, request)
        services.result_dispute(
            kind=kind, pairing=pk, by=request.user, reason=data.get("reason", ""), idempotency_key=_key(data, request)
        )
        return _pairing_response(kind, pk, request.user)


class SettleView(_Step):
    @_step_schema(
        s.SettleInSerializer,
        "Organisers: settle the open report (as reported, or with the ranking given) or, with none open, "
        "enter the result directly. It decides the pairing.",
    )
    def post(self, request, kind: str, pk: str):
        data = validated(s.SettleInSerializer, request)
        services.result_settle(
            kind=kind, pairing=pk, by=request.user, ranking=_ranking(data.get("ranking")),
            scores=_scores(data.get("scores")), reason=data.get("reason", ""), idempotency_key=_key(data, request),
        )  # fmt: skip
        return _pairing_response(kind, pk, request.user)


class MyReportsView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "waiting",
                bool,
                description="true (default): only those waiting for your confirmation; false: "
                "every open report of your pairings",
            )  # fmt: skip
        ],
        responses={200: s.ResultReportSerializer(many=True), **ERRORS},
        tags=["results"],
    )
    def get(self, request):
        """Results waiting for my confirmation (or every open report of my pairings)."""
        waiting = request.query_params.get("waiting", "true")
        if waiting not in ("true", "false"):
            raise ApiError("bad_parameter", "waiting is true or false")
        reports = selectors.reports_for(user=request.user, waiting_only=waiting == "true")
        return Response(s.ResultReportSerializer([selectors.report_dict(r) for r in reports], many=True).data)


class OwnerReportsView(APIView):
    """The log of reported results of a ladder's, tournament's or season's pairings."""

    owner = ""

    @extend_schema(responses={200: s.ResultReportSerializer(many=True), **ERRORS}, tags=["results"])
    def get(self, request, pk: int):
        """Every report of its pairings, newest first, each with its steps (who and when)."""
        services.reporting_get(owner=self.owner, owner_id=pk)  # 404 for no such owner
        reports = selectors.owner_reports(owner=self.owner, owner_id=pk)
        if reports and not pairing_visible(pairing_get(reports[0].kind, reports[0].pairing), request.user):
            raise ApiError("not_found", f"no such {self.owner}", 404)
        return Response(s.ResultReportSerializer([selectors.report_dict(r) for r in reports], many=True).data)


class LadderReportsView(OwnerReportsView):
    owner = "ladder"


class TournamentReportsView(OwnerReportsView):
    owner = "tournament"


class SeasonReportsView(OwnerReportsView):
    owner = "season"


class ReportingView(APIView):
    """How the pairings of a ladder, tournament or season may be decided."""

    owner = ""

    def get_permissions(self):
        return [permissions.AllowAny()] if self.request.method == "GET" else [permissions.IsAuthenticated()]

    def _read(self, pk: int) -> dict:
        return services.reporting_get(owner=self.owner, owner_id=pk)

    @extend_schema(responses={200: s.ReportingSerializer, **ERRORS}, tags=["results"])
    def get(self, request, pk: int):
        """How its pairings may be decided (online, table, either) and when a report counts as confirmed."""
        return Response(s.ReportingSerializer(self._read(pk)).data)

    @extend_schema(request=s.ReportingInSerializer, responses={200: s.ReportingSerializer, **ERRORS}, tags=["results"])
    def put(self, request, pk: int):
        """Organisers: set how its pairings may be decided and after how many hours a report counts as
        confirmed (for reports made from now on)."""
        data = validated(s.ReportingInSerializer, request)
        value = services.reporting_set(
            owner=self.owner, owner_id=pk, by=request.user, results=data.get("results"),
            confirm_hours=data.get("report_confirm_hours"),
        )  # fmt: skip
        return Response(s.ReportingSerializer(value).data)


class LadderReportingView(ReportingView):
    owner = "ladder"


class TournamentReportingView(ReportingView):
    owner = "tournament"


class SeasonReportingView(ReportingView):
    owner = "season"
