"""Live streams over HTTP: a game's events and an account's turns, as server-sent events or NDJSON.

``GET /api/games/{id}/stream`` and ``GET /api/me/stream`` answer ``text/event-stream`` (the
default) or ``application/x-ndjson`` (``?format=ndjson`` or that Accept header). SSE messages are
``event: <type>``, ``id: <resume id>`` (when the message has one) and ``data: <JSON>``; NDJSON
lines are ``{"type", "id", "data"}``. Keep-alives are an SSE comment (``: keep-alive``) or an empty
NDJSON line every ``KIFU_STREAM_KEEPALIVE_SECONDS``. A stream lasts at most ``?timeout=`` seconds
(default and ceiling ``KIFU_STREAM_MAX_SECONDS``) and says ``end`` with ``reason: timeout``; reopen
it with the last id to go on. Refusals before the stream starts are ordinary JSON errors.

Each open stream holds one thread of a gunicorn gthread worker for its whole life: a process
serves at most ``--threads`` streams and requests at once (deploy/README.md, "Live streams").
"""

from __future__ import annotations

import json

from django.conf import settings
from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.utils.encoders import JSONEncoder
from rest_framework.views import APIView

from games import streams
from kifu.http.errors import ApiError, ErrorSerializer
from kifu.http.params import float_param, whole_number

from .views import load_game


class EventStreamRenderer(BaseRenderer):
    media_type = "text/event-stream"
    format = "sse"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):  # streams bypass renderers
        return json.dumps(data, cls=JSONEncoder)


class NDJSONRenderer(EventStreamRenderer):
    media_type = "application/x-ndjson"
    format = "ndjson"


FORMATS = {"sse": EventStreamRenderer, "ndjson": NDJSONRenderer}


def _json(data) -> str:
    # The events endpoint's encoder, so datetimes and the rest read the same in both places.
    return json.dumps(data, cls=JSONEncoder, separators=(",", ":"))


def encode_sse(message: streams.Message | None) -> str:
    if message is None:
        return ": keep-alive\n\n"
    head = f"event: {message.type}\n"
    if message.id is not None:
        head += f"id: {message.id}\n"
    return f"{head}data: {_json(message.data)}\n\n"


def encode_ndjson(message: streams.Message | None) -> str:
    if message is None:
        return "\n"
    return _json({"type": message.type, "id": message.id, "data": message.data}) + "\n"


def stream_response(messages, fmt: str) -> StreamingHttpResponse:
    sse = fmt == "sse"

    def body():
        try:
            if sse:
                yield "retry: 2000\n\n"  # how long an EventSource waits before it reconnects (ms)
            for message in messages:
                yield encode_sse(message) if sse else encode_ndjson(message)
        finally:
            messages.close()  # at once, not when collected: the feed leaves the bus in its finally

    content_type = "text/event-stream; charset=utf-8" if sse else "application/x-ndjson; charset=utf-8"
    response = StreamingHttpResponse(body(), content_type=content_type)
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass every message on at once
    return response


def client_gone(request):
    return streams.client_gone(request.META.get("gunicorn.socket"))


STREAM_PARAMETERS = [
    OpenApiParameter("format", str, enum=["sse", "ndjson"], description="sse (default) or ndjson."),
    OpenApiParameter("timeout", float, description="Close the stream after this many seconds (max 3600)."),
]
STREAM_RESPONSES = {
    (200, "text/event-stream"): OpenApiTypes.STR,
    (200, "application/x-ndjson"): OpenApiTypes.STR,
    **{(code, "application/json"): ErrorSerializer for code in (400, 401, 403, 404, 429)},
}


class StreamView(APIView):
    """Negotiates sse/ndjson itself and answers every refusal as the API's JSON error."""

    renderer_classes = [EventStreamRenderer, NDJSONRenderer]

    def perform_content_negotiation(self, request, force=False):
        fmt = request.query_params.get("format")
        if fmt is None:
            fmt = "ndjson" if "application/x-ndjson" in request.headers.get("Accept", "") else "sse"
        renderer = FORMATS.get(fmt)
        if renderer is not None:
            return renderer(), renderer.media_type
        if force:
            return JSONRenderer(), JSONRenderer.media_type
        raise ApiError("bad_parameter", f"format must be sse (the default) or ndjson, not {fmt!r}")

    def finalize_response(self, request, response, *args, **kwargs):
        if isinstance(response, Response):  # an error before the stream began: plain JSON
            request.accepted_renderer, request.accepted_media_type = JSONRenderer(), JSONRenderer.media_type
        return super().finalize_response(request, response, *args, **kwargs)

    def duration(self, request) -> float:
        limit = float(settings.KIFU_STREAM_MAX_SECONDS)
        duration = float_param(request, "timeout", limit, limit)
        if duration <= 0:
            raise ApiError("bad_parameter", f"timeout must be more than 0 and at most {limit:g} seconds")
        return duration

    def resume_from(self, request, default: int | None, high: int) -> int | None:
        """The Last-Event-ID header wins over ``?after=``: an EventSource reconnects to the same URL."""
        name, raw = "Last-Event-ID", request.headers.get("Last-Event-ID", "").strip()
        if not raw:
            name, raw = "after", request.query_params.get("after", "").strip()
        if not raw:
            return default
        return whole_number(raw, name, 0, high)


def resume_parameters(high: int, after: str, header: str) -> list[OpenApiParameter]:
    """``?after=`` and the ``Last-Event-ID`` header, declared with the range ``resume_from`` reads."""
    schema = {"type": "integer", "minimum": 0, "maximum": high}
    return [
        OpenApiParameter("after", schema, description=after),
        OpenApiParameter("Last-Event-ID", schema, OpenApiParameter.HEADER, description=header),
    ]


# A game stream resumes after a seq; an account stream after a message id, a server time in ms: at
# most the last millisecond of the year 9999 (a later one is no date, the year 33658 was a 500).
MAX_SEQ = 10**15


class GameStreamView(StreamView):
    @extend_schema(
        parameters=[
            *resume_parameters(
                MAX_SEQ,
                "Start after this seq (default 0: from the first event).",
                "Resume after this seq (wins over after).",
            ),
            *STREAM_PARAMETERS,
        ],
        responses=STREAM_RESPONSES,
        tags=["play"],
    )
    def get(self, request, pk):
        """A game's events as they happen, redacted for the caller exactly as the events endpoint.

        Messages: ``event`` (an event; its id is the seq), ``head`` after each batch (``head_seq``,
        ``status``, ``seat``, ``actors``, ``window``, ``outcome``, and ``legal_moves`` when the
        caller's seat may act), then ``end`` (``reason``: ``finished`` once the game is over and
        every event was sent, or ``timeout``).
        """
        game = load_game(pk, request.user)  # a mature game is a 404 without consent
        after = self.resume_from(request, 0, MAX_SEQ)
        if after > game.head_seq and game.is_finished:
            raise ApiError("bad_parameter", f"the game ended at seq {game.head_seq}; nothing comes after {after}")
        messages = streams.game_feed(
            game_id=game.pk, user=request.user, after=after, duration=self.duration(request), gone=client_gone(request)
        )
        return stream_response(messages, request.accepted_renderer.format)


class AccountStreamView(StreamView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        parameters=[
            *resume_parameters(
                streams.ACCOUNT_MAX_RESUME_MS,
                "Resume: the id of the last message you received.",
                "Resume (wins over after).",
            ),
            *STREAM_PARAMETERS,
        ],
        responses=STREAM_RESPONSES,
        tags=["play"],
    )
    def get(self, request):
        """What needs your attention across your games: ``invitation`` (a seat someone else named
        you for: accept or decline it), ``game_cancelled``, ``game_started``, ``window_opened``,
        ``your_turn`` (each time a game you may act in changes) and ``game_ended``.

        Each connection first announces your running games and those waiting on you; with a resume
        id it also repeats the games started or ended since shortly before that id. Message ids are
        server times in milliseconds; dedupe on ``game`` and ``head_seq``.
        """
        after = self.resume_from(request, None, streams.ACCOUNT_MAX_RESUME_MS)
        messages = streams.account_feed(
            user=request.user, after_ms=after, duration=self.duration(request), gone=client_gone(request)
        )
        return stream_response(messages, request.accepted_renderer.format)
