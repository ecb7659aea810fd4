"""The lobby API (issue 19): open seeks, quick pairing, rematches and site ratings.

Thin views on the HTTP kit (``kifu.http``): validate input, call one service or selector,
serialize. Refusals are the services' ``ServiceError`` codes (README, Lobby).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions, status
from rest_framework.response import Response
from rest_framework.views import APIView

from games.selectors import game_get
from games.serializers import GameSerializer
from kifu.http.errors import error_responses, found
from kifu.http.params import validated

from . import selectors, services
from . import serializers as s

ERRORS = error_responses(400, 401, 403, 404, 409)
User = get_user_model()


def _seek(pk, viewer):
    return found(selectors.seek_get(seek_id=pk, viewer=viewer), "no such seek")


def _answer(request, seek, code=status.HTTP_200_OK) -> Response:
    seek = selectors.seek_get(seek_id=seek.pk, viewer=request.user)
    return Response(s.SeekSerializer(seek).data, status=code)


class SeekListView(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("engine", str, description="Only seeks of this game.")],
        responses={200: s.SeekSerializer(many=True), **ERRORS},
        tags=["lobby"],
    )
    def get(self, request):
        """Open seeks, oldest first (at most 200): tables waiting for players. Join one with
        ``POST /api/lobby/seeks/{id}/join``."""
        seeks = selectors.open_seeks(viewer=request.user, engine=request.query_params.get("engine") or None)
        return Response(s.SeekSerializer(seeks[:200], many=True).data)

    @extend_schema(request=s.SeekCreateSerializer, responses={201: s.SeekSerializer, **ERRORS}, tags=["lobby"])
    def post(self, request):
        """Open a seek and take its first seat. 400 ``bad_seat_count``, ``invalid_config``,
        ``bad_time_control``, ``bad_rating_range``; 403 ``mature_consent_required``; 409
        ``already_seeking`` (you sit in another open seek)."""
        data = dict(validated(s.SeekCreateSerializer, request))
        seek = services.seek_create(user=request.user, engine_slug=data.pop("engine"), **data)
        return _answer(request, seek, status.HTTP_201_CREATED)


class SeekDetailView(APIView):
    @extend_schema(responses={200: s.SeekSerializer, **ERRORS}, tags=["lobby"])
    def get(self, request, pk):
        """A seek: its players, status, and its game once it filled."""
        return Response(s.SeekSerializer(_seek(pk, request.user)).data)


class SeekJoinView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=None, responses={200: s.SeekSerializer, **ERRORS}, tags=["lobby"])
    def post(self, request, pk):
        """Take a seat; the last seat taken makes the game (``game`` in the answer; every player's
        account stream says ``game_started``). 409 ``seek_full``, ``seek_cancelled``,
        ``seek_expired``, ``already_seated``, ``already_seeking``; 403 ``rating_out_of_range``."""
        seek = services.seek_join(seek_id=_seek(pk, request.user).pk, user=request.user)
        return _answer(request, seek)


class SeekLeaveView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=None, responses={200: s.SeekSerializer, **ERRORS}, tags=["lobby"])
    def post(self, request, pk):
        """Give up your seat; when the creator leaves, the seek is cancelled. 409 ``not_in_seek``,
        ``seek_full``, ``seek_cancelled``, ``seek_expired``."""
        seek = services.seek_leave(seek_id=_seek(pk, request.user).pk, user=request.user)
        return _answer(request, seek)


class QuickPairingView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        request=s.PairingSerializer,
        responses={200: s.QuickPairingSerializer, 201: s.QuickPairingSerializer, **ERRORS},
        tags=["lobby"],
    )
    def post(self, request):
        """Play this game with N seats now: join the compatible open seek nearest to full (200,
        ``joined: true``) or open one (201, ``joined: false``). Compatible: same game, seats,
        config, clock and rated-ness, and a rating range that admits you."""
        data = dict(validated(s.PairingSerializer, request))
        seek, joined = services.quick_pair(user=request.user, engine_slug=data.pop("engine"), **data)
        seek = selectors.seek_get(seek_id=seek.pk, viewer=request.user)
        body = {"joined": joined, "seek": s.SeekSerializer(seek).data}
        return Response(body, status=status.HTTP_200_OK if joined else status.HTTP_201_CREATED)


class OwnSeekView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: s.SeekSerializer, **ERRORS}, tags=["lobby"])
    def get(self, request):
        """The open seek you sit in; 404 ``not_found`` when none."""
        return Response(s.SeekSerializer(found(selectors.own_seek(user=request.user), "you sit in no open seek")).data)


class RematchView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=None, responses={200: GameSerializer, 201: GameSerializer, **ERRORS}, tags=["lobby"])
    def post(self, request, pk):
        """Offer the players of this finished game a rematch (201): the same game, config and
        clock, seats turned by one; the others accept it like an invitation (``POST
        /api/games/{id}/accept``) and it starts when all have. Offering when a rematch is open
        accepts it for you (200). 403 ``not_seated``; 409 ``game_not_finished``,
        ``rematch_declined``, ``seat_vacant``, ``not_a_server_game``."""
        game = found(game_get(game_id=pk, viewer=request.user), "no such game")
        rematch, made = services.rematch_offer(game_id=game.pk, user=request.user)
        rematch = game_get(game_id=rematch.pk, viewer=request.user)
        code = status.HTTP_201_CREATED if made else status.HTTP_200_OK
        return Response(GameSerializer(rematch, context={"request": request}).data, status=code)


class SiteRatingListView(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(responses={200: s.SiteRatingSerializer(many=True), **ERRORS}, tags=["lobby"])
    def get(self, request, username: str):
        """A player's site rating in each game they have played rated lobby games of (OpenSkill,
        shown as the ordinal mu - 3 sigma; a new player is 0)."""
        user = found(User.objects.filter(username=username).first(), f"no player called {username!r}")
        return Response(s.SiteRatingSerializer(selectors.site_ratings(user=user, viewer=request.user), many=True).data)
