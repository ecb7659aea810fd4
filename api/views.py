"""The REST API: thin views that validate input, call one service or selector, and serialize."""

from __future__ import annotations

import json
import time
import uuid

import django_filters
from django.conf import settings
from django.contrib.auth import authenticate, get_user_model
from django.db import IntegrityError, transaction
from django.http import HttpResponse
from django.utils.dateparse import parse_datetime
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, permissions, renderers, serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from games import accounts, moderation, notices, receipts, record_io, selectors, services, streams
from games.engines import get_engine
from games.models import Game, PersonalToken, Submission
from games.serializers import GameSerializer
from kifu import logcontext
from kifu.http import throttles
from kifu.http.errors import ApiError, ErrorSerializer, error_responses
from kifu.http.params import AFTER_SEQ, PAGE_LIMIT, float_param, validated

from . import scopes
from . import serializers as s
from .openapi import ref

User = get_user_model()
ERRORS = error_responses(400, 401, 403, 404)


# ---- accounts -----------------------------------------------------------------------------
class AccountCreateView(APIView):
    permission_classes = [permissions.AllowAny]
    required_scope = scopes.READ  # uses no credentials: any token may come along

    @extend_schema(request=s.AccountCreateSerializer, responses={201: s.AccountSerializer, **ERRORS}, tags=["accounts"])
    def post(self, request):
        """Create an account (``"bot": true`` for a bot account); the answer carries its API token."""
        data = validated(s.AccountCreateSerializer, request)
        try:
            user, token = accounts.account_create(**data)
        except IntegrityError:  # the same name made by another request since the check: the check's answer
            raise serializers.ValidationError({"username": [s.USERNAME_TAKEN]}) from None
        body = {"username": user.username, "token": token.key, "bot": data["bot"]}
        return Response(body, status=status.HTTP_201_CREATED)


class MatureConsentView(APIView):
    permission_classes = [permissions.IsAuthenticated]
    required_scope = scopes.ACCOUNT

    @extend_schema(
        request=s.MatureConsentSerializer, responses={200: s.MatureConsentSerializer, **ERRORS}, tags=["accounts"]
    )
    def post(self, request):
        """Confirm you are an adult who consents to mature content (needed to see or play mature games)."""
        data = validated(s.MatureConsentSerializer, request)
        record = services.mature_consent_confirm(user=request.user, **data)
        return Response({"adult": True, "consent": True, "confirmed_at": record.confirmed_at})

    @extend_schema(responses={204: None, **ERRORS}, tags=["accounts"])
    def delete(self, request):
        """Withdraw the confirmation; mature games disappear for you again."""
        services.mature_consent_withdraw(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class AccountEmailView(APIView):
    permission_classes = [permissions.IsAuthenticated]
    # Whoever sets the address receives the password reset links: the account's own act, never a
    # personal token's (a leaked play token must not be able to take the account over).
    required_scope = scopes.ACCOUNT

    @extend_schema(
        request=s.AccountEmailSerializer, responses={200: s.AccountEmailSerializer, **ERRORS}, tags=["accounts"]
    )
    def put(self, request):
        """Set the account's e-mail address (``""`` removes it): password reset and deadline reminders
        use it. 400 ``bad_email`` (not an address), ``email_taken`` (another account has it)."""
        data = validated(s.AccountEmailSerializer, request)
        return Response({"email": accounts.account_email_set(user=request.user, email=data["email"])})


class TokenView(APIView):
    permission_classes = [permissions.AllowAny]
    required_scope = scopes.READ  # the password is the credential here
    # Every password check costs real CPU: at most KIFU_THROTTLE_LOGIN tries per address, and a
    # username that keeps failing is locked for a growing while (429 login_locked).
    throttle_classes = [*APIView.throttle_classes, throttles.LoginThrottle]

    @extend_schema(request=s.TokenRequestSerializer, responses={200: s.TokenSerializer, **ERRORS}, tags=["accounts"])
    def post(self, request):
        """Exchange a username and password for the account's API token."""
        data = validated(s.TokenRequestSerializer, request)
        username = data["username"]
        locked = throttles.login_locked_for(username)
        if locked:
            raise throttles.LoginLocked(locked)
        user = authenticate(request, **data)
        if user is None:
            throttles.login_failed(username)
            raise ApiError("bad_credentials", "wrong username or password", status.HTTP_401_UNAUTHORIZED)
        throttles.login_succeeded(username)
        token, _ = Token.objects.get_or_create(user=user)
        return Response({"username": user.username, "token": token.key})


class MeView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: s.MeSerializer, **ERRORS}, tags=["accounts"])
    def get(self, request):
        """Who the token belongs to, whether it is a bot account, and what the credentials may do.

        Asked with a personal token, ``token`` is null: a scoped token never reveals the full one."""
        if isinstance(request.auth, PersonalToken):
            key, scopes = None, sorted(request.auth.scope_set)
        else:
            key, scopes = Token.objects.get_or_create(user=request.user)[0].key, list(accounts.SCOPES)
        bot = accounts.is_bot(request.user)
        return Response({"username": request.user.username, "token": key, "bot": bot, "scopes": scopes})


# ---- engines ------------------------------------------------------------------------------
class EngineListView(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(responses={200: s.EngineSerializer(many=True)}, tags=["engines"])
    def get(self, request):
        """Every game Kifu referees, with player counts, rules version and config flags.

        Mature games are listed only for an account that confirmed mature-content consent."""
        return Response([_engine_json(engine, request) for engine in selectors.engine_list(viewer=request.user)])


class EngineDetailView(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(responses={200: s.EngineSerializer, **ERRORS}, tags=["engines"])
    def get(self, request, slug: str):
        """One game's metadata and config flags."""
        return Response(_engine_json(get_engine(slug), request))


def _engine_json(engine, request) -> dict:
    """``Engine.describe`` and the address of the game's rules page (``web/rules_views.py``) for players."""
    rules_url = reverse("web:rules-game", kwargs={"slug": engine.slug}, request=request)
    return {**engine.describe(), "rules_url": rules_url}


# ---- games --------------------------------------------------------------------------------
class GameFilter(django_filters.FilterSet):
    engine = django_filters.CharFilter(help_text="Game slug.")
    status = django_filters.ChoiceFilter(choices=Game.Status.choices)
    player = django_filters.CharFilter(field_name="seats__user__username", help_text="Games with this player.")

    class Meta:
        model = Game
        fields = ["engine", "status", "player"]


class GameListView(generics.ListCreateAPIView):
    serializer_class = GameSerializer
    filterset_class = GameFilter

    def get_queryset(self):
        return selectors.game_list(viewer=self.request.user)

    @extend_schema(tags=["games"])
    def get(self, request, *args, **kwargs):
        """Games, newest first; filter by engine, status and player."""
        return super().get(request, *args, **kwargs)

    @extend_schema(request=s.GameCreateSerializer, responses={201: GameSerializer, **ERRORS}, tags=["games"])
    def post(self, request, *args, **kwargs):
        """Create a game. Seats you name for others are invitations (``GET /api/me/invitations``);
        it starts, and the cards are dealt, once every seat has a player who accepted."""
        data = validated(s.GameCreateSerializer, request)
        game = services.game_create(
            engine_slug=data["engine"],
            config=data["config"],
            seats=data["seats"],
            created_by=request.user,
            time_control=data["time_control"],
            spectator_delay_seconds=data["spectator_delay_seconds"],
        )
        game = selectors.game_get(game_id=game.pk, viewer=request.user)
        return Response(GameSerializer(game, context={"request": request}).data, status=status.HTTP_201_CREATED)


def load_game(pk, viewer=None) -> Game:
    """The game, or a 404 - also for a mature game the viewer has not opted in to see."""
    game = selectors.game_get(game_id=pk, viewer=viewer)
    if game is None:
        raise ApiError("not_found", "no such game", status.HTTP_404_NOT_FOUND)
    return game


class GameDetailView(APIView):
    @extend_schema(responses={200: GameSerializer, **ERRORS}, tags=["games"])
    def get(self, request, pk):
        """A game: seats, status, who may act, the open window and its deadline, the outcome."""
        return Response(GameSerializer(load_game(pk, request.user), context={"request": request}).data)


class GameJoinView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=s.JoinSerializer, responses={200: GameSerializer, **ERRORS}, tags=["games"])
    def post(self, request, pk):
        """Take an open seat (the first, or the one asked for)."""
        data = validated(s.JoinSerializer, request)
        game = services.game_join(game_id=load_game(pk, request.user).pk, user=request.user, seat=data.get("seat"))
        return Response(GameSerializer(load_game(game.pk, request.user), context={"request": request}).data)


class GameAcceptView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=None, responses={200: GameSerializer, **ERRORS}, tags=["games"])
    def post(self, request, pk):
        """Accept a seat someone else named you for (``GET /api/me/invitations``); the game starts
        once every seated player has. 403 ``not_invited``, 409 ``game_cancelled``/``game_not_open``."""
        game = services.game_accept(game_id=load_game(pk, request.user).pk, user=request.user)
        return Response(GameSerializer(load_game(game.pk, request.user), context={"request": request}).data)


class GameStateView(APIView):
    @extend_schema(responses={200: ref("GameState"), **ERRORS}, tags=["play"])
    def get(self, request, pk):
        """The state as the caller may see it: a seat sees its own hand, a spectator the public view
        (as it was ``spectator_delay_seconds`` ago, if the game has a delay). ``clock``: every
        seat's remaining time and whether it runs."""
        game = load_game(pk, request.user)
        seat = selectors.seat_of(game=game, user=request.user)
        moderator = moderation.is_moderator(game=game, user=request.user)
        sight = selectors.game_sight(game=game, user=request.user)
        head = selectors.game_head(game=game, sight=sight, moderator=moderator)
        return Response(
            {
                "game": str(game.pk),
                "engine": game.engine,
                "seat": seat,
                **{key: head[key] for key in ("head_seq", "status", "actors", "window")},
                "view": selectors.game_view(game=game, seat=seat, moderator=moderator, sight=sight),
                "legal_moves": selectors.legal_moves(game=game, seat=seat),
                "outcome": head["outcome"],
                "clock": head["clock"],
            }
        )


class GameEventsView(APIView):
    @extend_schema(
        parameters=[AFTER_SEQ.openapi(), PAGE_LIMIT.openapi()],
        responses={200: s.EVENTS, **ERRORS},
        tags=["play"],
    )
    def get(self, request, pk):
        """Events after a seq, redacted for the caller while the game runs; every seq is listed."""
        game = load_game(pk, request.user)
        after, limit = AFTER_SEQ.read(request), PAGE_LIMIT.read(request)
        seat = selectors.seat_of(game=game, user=request.user)
        moderator = moderation.is_moderator(game=game, user=request.user)
        sight = selectors.game_sight(game=game, user=request.user)
        events = selectors.events_for(game=game, seat=seat, after=after, limit=limit, moderator=moderator, sight=sight)
        return Response(events)


class GameLegalMovesView(APIView):
    @extend_schema(responses={200: ref("LegalMoves"), **ERRORS}, tags=["play"])
    def get(self, request, pk):
        """Every legal move for the caller's seat now (empty when it may not act), typed by the game's ``engine``."""
        game = load_game(pk, request.user)
        seat = selectors.seat_of(game=game, user=request.user)
        head_seq = selectors.game_sight(game=game, user=request.user).seq  # a delayed spectator's seq
        moves = selectors.legal_moves(game=game, seat=seat)
        return Response({"engine": game.engine, "seat": seat, "head_seq": head_seq, "moves": moves})


def wait_parameter(description: str) -> OpenApiParameter:
    """The ``?wait=`` seconds of a request that may wait (read with ``float_param``, at most
    ``KIFU_MAX_WAIT_SECONDS``)."""
    return OpenApiParameter(
        "wait", {"type": "number", "minimum": 0, "maximum": settings.KIFU_MAX_WAIT_SECONDS}, description=description
    )


class TurnListView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        parameters=[
            wait_parameter(
                "If you may act nowhere, wait up to this many seconds (max 30) for a turn "
                "or for one of your games to end or start."
            )
        ],
        responses={200: s.TurnsSerializer, **ERRORS},
        tags=["play"],
    )
    def get(self, request):
        """Your turns: each running game in which your seat may act now, with its legal moves (typed
        by the game's ``engine``), and your other running games (``waiting``). One call serves a bot
        playing many games; with ``wait`` it answers as soon as you may act somewhere, or the set of
        your running games changes (one ended, one started), and no later than ``wait`` seconds.

        A game in which you have a move still pending is waiting: submit with ``?wait=`` (or read
        the submission) before asking again."""
        wait = float_param(request, "wait", 0.0, settings.KIFU_MAX_WAIT_SECONDS)
        user, games = request.user, []

        def ready(now: selectors.Turns) -> bool:
            if not games:
                games.append(now.games())  # the running games of the first read
            return bool(now.turns) or now.games() != games[0]

        found = streams.notice_wait(
            notices.account_channel(user.pk), lambda: selectors.turns_for(user=user), ready, wait
        )
        return Response({"turns": found.turns, "waiting": found.waiting})


class GameMovesView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        request=s.MoveSerializer,
        parameters=[
            wait_parameter("Wait up to this many seconds for the verdict (max 30)."),
            OpenApiParameter(
                "Idempotency-Key", str, OpenApiParameter.HEADER, description="Alternative to the body field."
            ),
        ],
        responses={200: s.SubmissionSerializer, 202: s.SubmissionSerializer, 422: ErrorSerializer, **ERRORS},
        tags=["play"],
    )
    def post(self, request, pk):
        """Submit a move. 202: received, pending (poll its url); 200: accepted; 422: rejected by the rules.

        ``{"type": "resign"}`` resigns. The same idempotency key always returns the first verdict.
        """
        wait = float_param(request, "wait", 0.0, settings.KIFU_MAX_WAIT_SECONDS)
        data = validated(s.MoveSerializer, request)
        key = data.get("idempotency_key") or request.headers.get("Idempotency-Key") or uuid.uuid4().hex
        result = None
        try:
            seat = selectors.seat_for_move(game_id=pk, user=request.user)
            if seat is None:
                load_game(pk, request.user)  # 404 for a game the caller may not see
            result = services.move_submit(
                game_id=pk,
                user=request.user,
                move=data["move"],
                idempotency_key=key,
                received_at=receipts.received_at(request),
                seat=seat,
                leave_gate=receipts.in_gate(request),
            )
        finally:
            # Stored (or refused): no window waits for this request any more.
            receipts.receipt_done(request, left=result is not None and result.gate_left)
        logcontext.bind(submission_id=result.submission.public_id)  # on the rest of this request's log lines
        submission = wait_for_verdict(result.submission, wait)
        return submission_response(submission, request)


VERDICT_FIELDS = ("status", "code", "message", "event_seq", "decided_at")


def wait_for_verdict(submission: Submission, wait: float) -> Submission:
    """The submission with its verdict, waiting up to ``wait`` seconds for it.

    The worker hands each verdict over Redis (``streams.verdict_wait``), so a waiting request
    wakes the moment it is committed, without polling the database. Without Redis (embedded mode:
    the verdict is usually decided in the request that stored it) or when none came in time (no
    worker got to it yet, or it died - the sweeper queues it again), the database says."""
    if submission.status != Submission.Status.PENDING:
        return submission
    if settings.REDIS_URL and wait <= 0:
        return submission  # a worker on the real stack cannot have decided it yet; poll its url
    if settings.REDIS_URL:
        verdict = streams.verdict_wait(submission.public_id, wait)
        if verdict is not None:
            submission.status, submission.code, submission.message = (
                verdict["status"],
                verdict["code"],
                verdict["message"],
            )
            submission.event_seq = verdict["event_seq"]
            submission.decided_at = parse_datetime(verdict["decided_at"]) if verdict["decided_at"] else None
            return submission
        submission.refresh_from_db(fields=VERDICT_FIELDS)
        return submission
    deadline = time.monotonic() + wait
    submission.refresh_from_db(fields=VERDICT_FIELDS)
    while submission.status == Submission.Status.PENDING and time.monotonic() < deadline:
        time.sleep(0.02)
        submission.refresh_from_db(fields=VERDICT_FIELDS)
    return submission


def submission_response(submission: Submission, request) -> Response:
    body = s.submission_json(submission, request)
    if submission.status == Submission.Status.PENDING:
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["url"]})
    if submission.status == Submission.Status.REJECTED:
        return Response(
            {"code": submission.code, "message": submission.message, "submission": body},
            status=status.HTTP_422_UNPROCESSABLE_ENTITY,
        )
    return Response(body)


class SubmissionDetailView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        parameters=[wait_parameter("Wait up to this many seconds for the verdict.")],
        responses={200: s.SubmissionSerializer, **ERRORS},
        tags=["play"],
    )
    def get(self, request, pk, sid):
        """One of your submissions and its verdict."""
        wait = float_param(request, "wait", 0.0, settings.KIFU_MAX_WAIT_SECONDS)
        submission = Submission.objects.filter(game_id=pk, public_id=sid, user=request.user).first()
        if submission is None:
            raise ApiError("not_found", "no such submission of yours", status.HTTP_404_NOT_FOUND)
        submission = wait_for_verdict(submission, wait)
        return Response(s.submission_json(submission, request))


class JsonLinesRenderer(renderers.BaseRenderer):
    """Lets a client ask for the record by its media type (``Accept``); a refusal is one JSON line."""

    media_type = "application/x-ndjson"
    format = "jsonl"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return b"" if data is None else json.dumps(data).encode()


class OctetStreamRenderer(JsonLinesRenderer):
    media_type = "application/octet-stream"
    format = "bin"
    charset = None


# The record as JSON Lines, and the same bytes as application/octet-stream for a client that asks
# (generators such as openapi-python-client keep a body of that type as a file; they drop
# application/x-ndjson, which they do not know).
RECORD = {"type": "string", "format": "binary", "description": "JSON Lines: the header, then one line per event."}


class GameRecordView(APIView):
    renderer_classes = [*api_settings.DEFAULT_RENDERER_CLASSES, JsonLinesRenderer, OctetStreamRenderer]

    def perform_content_negotiation(self, request, force=False):
        """``?format=`` names a renderer (bin, json, jsonl); DRF would read an empty one as absent.
        ``force``: DRF choosing a renderer for an error answer, which must not be refused again."""
        if not force and request.query_params.get("format") == "":
            raise ApiError("bad_parameter", "format must be bin, json or jsonl, or left out")
        return super().perform_content_negotiation(request, force)

    @extend_schema(
        responses={
            (200, JsonLinesRenderer.media_type): RECORD,
            (200, OctetStreamRenderer.media_type): RECORD,
            **ERRORS,
        },
        tags=["records"],
    )
    def get(self, request, pk):
        """The whole record (JSON Lines), with the revealed seed; only once the game is over.

        Refused (409 ``record_moderated``) to all but moderators while a contribution is hidden."""
        game = load_game(pk, request.user)
        if not game.is_finished:
            raise ApiError(
                "game_running",
                "the full record is public once the game is over; follow the events endpoint until then",
                status.HTTP_409_CONFLICT,
            )
        refuse_delayed_spectator(game, request)
        if not moderation.is_moderator(game=game, user=request.user) and moderation.hidden_contributions(game=game):
            # A record must replay and verify; one with contributions cut out would do neither.
            raise ApiError(
                "record_moderated",
                "a moderator hid contributions of this game, so its record is not published; "
                "read the events or the replay, where they are marked hidden",
                status.HTTP_409_CONFLICT,
            )
        media_type = (
            OctetStreamRenderer.media_type if isinstance(request.accepted_renderer, OctetStreamRenderer) else None
        )
        content_type = media_type or "application/x-ndjson; charset=utf-8"
        response = HttpResponse(record_io.record_export(game=game), content_type=content_type)
        response["Content-Disposition"] = f'attachment; filename="{game.engine}-{game.pk}.kifu.jsonl"'
        return response


class GameVerificationView(APIView):
    @extend_schema(responses={200: s.VerificationSerializer, **ERRORS}, tags=["records"])
    def get(self, request, pk):
        """Replay the stored game: hash chain, every event legal, projection, and the seed once revealed."""
        game = load_game(pk, request.user)
        refuse_delayed_spectator(game, request)  # it counts and checks every event, the newest too
        return Response(record_io.game_verify(game=game).to_json())


def refuse_delayed_spectator(game: Game, request) -> None:
    """409 for a spectator still held back by the game's spectator delay."""
    sight = selectors.game_sight(game=game, user=request.user)
    if sight.delayed:
        raise ApiError(
            "spectator_delay",
            f"spectators see this game {sight.delay_seconds} s late; its whole record is public once its end is "
            f"{sight.delay_seconds} s old - follow the events endpoint until then",
            status.HTTP_409_CONFLICT,
        )


class RecordImportView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=s.RecordImportSerializer, responses={201: GameSerializer, **ERRORS}, tags=["records"])
    def post(self, request):
        """Store a game played at a real table; a bad record is refused at its first bad line."""
        data = validated(s.RecordImportSerializer, request)
        # One transaction around the answer too: if the stored game could not be shown, it is not kept.
        with transaction.atomic():
            game = record_io.record_import(lines=data["record"].splitlines(), created_by=request.user)
            body = GameSerializer(load_game(game.pk, request.user), context={"request": request}).data
        return Response(body, status=status.HTTP_201_CREATED)
