"""The table recorder's API: create a table game, read the keeper's sheet, send entries (``games.table``)."""

from __future__ import annotations

import uuid

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from games import table
from games.meta import RECORD_TEXT
from games.models import Game, TableEntry
from games.records import MAX_SEAT_NAME
from games.serializers import FREE_OBJECT, ConfigField, EngineSlugField
from kifu.http.errors import ErrorSerializer, error_responses
from kifu.http.openapi import NotBlankCharField, declared
from kifu.http.params import validated

from .views import load_game

ERRORS = error_responses(400, 401, 403, 404, 409)

# What a valid value is, said in the schema; the service keeps its own refusal and code.
TableMetaField = declared(
    serializers.JSONField,
    {
        "type": "object",
        "properties": {key: {"type": "string", "maxLength": limit} for key, limit in RECORD_TEXT.items()},
        "additionalProperties": False,
    },
    "TableMetaField",
)
TableEntryField = declared(
    serializers.JSONField,
    {
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": list(table.ENTRY_KINDS)},
            "seat": {"type": "integer", "minimum": 0, "nullable": True},
            "data": {
                "type": "object",
                "properties": {"type": {"type": "string"}},
                "required": ["type"],
                "additionalProperties": True,
            },
            "seq": {"type": "integer", "minimum": 1},
        },
        "required": ["kind", "data"],
        "additionalProperties": False,
    },
    "TableEntryField",
)


class TableGameCreateSerializer(serializers.Serializer):
    engine = EngineSlugField(help_text="The game's slug (GET /api/engines).")
    config = ConfigField(required=False, default=dict, help_text="Config flags that differ from the defaults.")
    seats = serializers.ListField(
        child=NotBlankCharField(max_length=MAX_SEAT_NAME),
        min_length=1,
        max_length=16,
        help_text="The players' names, seat 0 first.",
    )
    keeper_seat = serializers.IntegerField(
        required=False, allow_null=True, min_value=0, help_text="Your own seat, if you play in the game."
    )
    meta = TableMetaField(required=False, default=dict, help_text="event, date, place, notes (text).")


class TableEntryBodySerializer(serializers.Serializer):
    entry = TableEntryField(
        help_text='One line in the record\'s event shape: {"kind": "chance"|"move"|"system", "seat"?, "data", '
        '"seq"?}; seq, when given, is the line number it was typed for (409 seq_mismatch if the record moved on).'
    )
    idempotency_key = serializers.CharField(
        required=False,
        max_length=100,
        help_text="The same key answers the first verdict (or the Idempotency-Key header).",
    )


class TableEntrySerializer(serializers.ModelSerializer):
    entry = TableEntryField(source="payload", read_only=True)

    class Meta:
        model = TableEntry
        fields = ["id", "entry", "idempotency_key", "status", "code", "message", "event_seq", "received_at"]


MOVE = {
    "type": "object",
    "properties": {"type": {"type": "string"}},
    "required": ["type"],
    "additionalProperties": True,
}
SheetSeatField = declared(
    serializers.DictField,
    {
        "type": "object",
        "properties": {
            "index": {"type": "integer"},
            "name": {"type": "string"},
            "view": FREE_OBJECT,
            "moves": {"type": "array", "items": MOVE},
        },
        "additionalProperties": True,
    },
    "TableSheetSeatField",
)
NullableObjectField = declared(serializers.DictField, {**FREE_OBJECT, "nullable": True}, "TableNullableObjectField")
ObjectField = declared(serializers.DictField, FREE_OBJECT, "TableObjectField")


class TableSheetSerializer(serializers.Serializer):
    """``games.table.table_sheet``."""

    game = serializers.UUIDField()
    engine = serializers.CharField()
    status = serializers.CharField(help_text="open, running, finished or cancelled (as the game's status).")
    source = serializers.CharField()
    head_seq = serializers.IntegerField()
    next_seq = serializers.IntegerField(help_text="The seq the next line takes (send it as the entry's seq).")
    seats = serializers.ListField(child=SheetSeatField(), help_text="index, name, view, moves (legal now).")
    actors = serializers.ListField(child=serializers.IntegerField())
    chance = NullableObjectField(allow_null=True, help_text="The chance step due: step, example, fields, pool.")
    system = serializers.ListField(child=ObjectField(), help_text="System lines that may be entered now.")
    outcome = NullableObjectField(allow_null=True)


class TableEntryResultSerializer(serializers.Serializer):
    entry = TableEntrySerializer()
    sheet = TableSheetSerializer()


class TableGameCreateView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        request=TableGameCreateSerializer, responses={201: TableSheetSerializer, **ERRORS}, tags=["table recorder"]
    )
    def post(self, request):
        """Start recording a game played at a real table; you are its keeper."""
        data = validated(TableGameCreateSerializer, request)
        game = table.table_game_create(
            engine_slug=data["engine"],
            config=data["config"],
            seats=data["seats"],
            keeper=request.user,
            keeper_seat=data.get("keeper_seat"),
            meta=data["meta"],
        )
        return Response(table.table_sheet(game=game, user=request.user), status=status.HTTP_201_CREATED)


class TableSheetView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: TableSheetSerializer, **ERRORS}, tags=["table recorder"])
    def get(self, request, pk):
        """The keeper's sheet: every seat's cards, the legal moves, the chance step due and its form."""
        game = load_game(pk, request.user)
        return Response(table.table_sheet(game=game, user=request.user))


class TableEntryView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        request=TableEntryBodySerializer,
        parameters=[
            OpenApiParameter(
                "Idempotency-Key", str, OpenApiParameter.HEADER, description="Alternative to the body field."
            )
        ],
        responses={200: TableEntryResultSerializer, 201: TableEntryResultSerializer, 422: ErrorSerializer, **ERRORS},
        tags=["table recorder"],
    )
    def post(self, request, pk):
        """Enter one line: 201 stored, 200 the same key's earlier verdict, 422 refused by the rules.

        The engine checks the line at once; a refused line leaves no event (its verdict is kept
        with the key, so a resend answers it again)."""
        data = validated(TableEntryBodySerializer, request)
        key = data.get("idempotency_key") or request.headers.get("Idempotency-Key") or uuid.uuid4().hex
        load_game(pk, request.user)  # 404 for a game the caller may not see
        result = table.table_entry_submit(game_id=pk, keeper=request.user, entry=data["entry"], idempotency_key=key)
        entry = result.entry
        body = TableEntrySerializer(entry).data
        if entry.status == TableEntry.Status.REJECTED:
            return Response(
                {"code": entry.code, "message": entry.message, "entry": body},
                status=status.HTTP_422_UNPROCESSABLE_ENTITY,
            )
        game = Game.objects.get(pk=pk)
        sheet = table.table_sheet(game=game, user=request.user)
        return Response(
            {"entry": body, "sheet": sheet}, status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK
        )
