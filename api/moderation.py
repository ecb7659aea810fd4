"""The moderation API: report a contribution, hide or show it again, and the moderators' report list."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from games import moderation
from kifu.http.errors import ApiError, error_responses
from kifu.http.openapi import declared

from . import scopes
from .views import load_game

ERRORS = error_responses(400, 401, 403, 404, 409)


# Not only white space (which the field trims to blank): declared so.
REASON = {"type": "string", "pattern": r"\S", "maxLength": moderation.MAX_REASON}
ReasonField = declared(serializers.CharField, REASON, "ReasonField")


class ReasonSerializer(serializers.Serializer):
    reason = ReasonField(max_length=moderation.MAX_REASON, help_text="Why (shown to moderators).")


class DecisionSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    action = serializers.CharField()
    reason = serializers.CharField()
    created_at = serializers.DateTimeField()


class ReportSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    reporter = serializers.CharField()
    reason = serializers.CharField()
    created_at = serializers.DateTimeField()


class ModerationDecisionSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    action = serializers.ChoiceField(choices=["hide", "unhide"])
    by = serializers.CharField()
    reason = serializers.CharField()
    created_at = serializers.DateTimeField()


class ReportListSerializer(serializers.Serializer):
    """``games.moderation.report_list``."""

    game = serializers.UUIDField()
    hidden = serializers.ListField(child=serializers.IntegerField(), help_text="The seqs hidden now.")
    reports = ReportSerializer(many=True)
    decisions = ModerationDecisionSerializer(many=True, help_text="Every hide and unhide, oldest first.")


class OptionalReasonSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=moderation.MAX_REASON, required=False, help_text="Why (optional).")


def _reason(request, *, default: str | None = None) -> str:
    data = (ReasonSerializer if default is None else OptionalReasonSerializer)(data=request.data)
    data.is_valid(raise_exception=True)
    return data.validated_data.get("reason") or default


def _decision(row) -> dict:
    return DecisionSerializer(row).data


class ContributionReportView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=ReasonSerializer, responses={201: DecisionSerializer, **ERRORS}, tags=["moderation"])
    def post(self, request, pk, seq: int):
        """Report a contribution to the game's moderators (players; anyone who can see it once it is over)."""
        reason = _reason(request)
        report = moderation.contribution_report(
            game=load_game(pk, request.user), seq=seq, reporter=request.user, reason=reason
        )
        return Response(
            {"seq": report.seq, "action": "report", "reason": report.reason, "created_at": report.created_at},
            status=status.HTTP_201_CREATED,
        )


class ContributionHideView(APIView):
    permission_classes = [permissions.IsAuthenticated]
    required_scope = scopes.ORGANISE  # a moderator's act, not a player's

    @extend_schema(request=ReasonSerializer, responses={201: DecisionSerializer, **ERRORS}, tags=["moderation"])
    def post(self, request, pk, seq: int):
        """Hide a contribution from views and replays (the game's moderators); the event stays in the log."""
        game = load_game(pk, request.user)
        row = moderation.contribution_hide(game=game, seq=seq, user=request.user, reason=_reason(request))
        return Response(_decision(row), status=status.HTTP_201_CREATED)

    @extend_schema(request=OptionalReasonSerializer, responses={201: DecisionSerializer, **ERRORS}, tags=["moderation"])
    def delete(self, request, pk, seq: int):
        """Show a hidden contribution again; the decision is added to the history (the body may give a reason)."""
        game = load_game(pk, request.user)
        reason = _reason(request, default=moderation.SHOWN_AGAIN)
        row = moderation.contribution_unhide(game=game, seq=seq, user=request.user, reason=reason)
        return Response(_decision(row), status=status.HTTP_201_CREATED)


class ContributionReportListView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: ReportListSerializer, **ERRORS}, tags=["moderation"])
    def get(self, request, pk):
        """The game's reports, hidden seqs and moderation history (moderators only)."""
        game = load_game(pk, request.user)
        if not moderation.is_moderator(game=game, user=request.user):
            raise ApiError(
                "not_a_moderator",
                "only the game's moderators (staff, its seated creator, its event's organiser) may read reports",
                status.HTTP_403_FORBIDDEN,
            )
        return Response(moderation.report_list(game=game))
