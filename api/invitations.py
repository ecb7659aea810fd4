"""The invitations API (issue 15 part 6): the seats others named you for, and declining one.

Accepting is ``POST /api/games/{id}/accept`` (``views.GameAcceptView``); declining cancels the game.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import generics, permissions, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from games import selectors, services
from games.models import Game
from games.serializers import GameSerializer
from kifu.http.errors import error_responses

from .views import load_game

ERRORS = error_responses(401, 403, 404, 409)


class InvitationSerializer(serializers.Serializer):
    """A game waiting for the caller's answer: which seat, who named them, and the game itself."""

    seat = serializers.SerializerMethodField()
    invited_by = serializers.CharField(source="created_by.username", allow_null=True, default=None)
    game = serializers.SerializerMethodField()

    def get_seat(self, game) -> int:
        user = self.context["request"].user
        return next(seat.index for seat in game.seats.all() if seat.user_id == user.pk)

    @extend_schema_field(GameSerializer)
    def get_game(self, game) -> dict:
        return GameSerializer(game, context=self.context).data


class InvitationListView(generics.ListAPIView):
    permission_classes = [permissions.IsAuthenticated]
    serializer_class = InvitationSerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # the schema generator has no user
            return Game.objects.none()
        return selectors.invitations_for(user=self.request.user)

    @extend_schema(tags=["games"])
    def get(self, request, *args, **kwargs):
        """Games that wait for you to accept (``POST /api/games/{id}/accept``) or decline
        (``.../decline``) a seat someone else named you for; oldest first. Such a game does not
        start - no deal, no clock - until every seated player has accepted."""
        return super().get(request, *args, **kwargs)


class GameDeclineView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=None, responses={200: GameSerializer, **ERRORS}, tags=["games"])
    def post(self, request, pk):
        """Decline a seat someone else named you for: the game is cancelled (status ``cancelled``).
        409 ``already_answered`` once you accepted, ``game_cancelled``, ``event_game`` for an
        event's pairing; 403 ``not_invited`` without a seat."""
        game = services.game_decline(game_id=load_game(pk, request.user).pk, user=request.user)
        return Response(GameSerializer(load_game(game.pk, request.user), context={"request": request}).data)
