"""Request and response shapes of reported results (they also make the OpenAPI schema). Players
appear by username; the rows keep user ids."""

from __future__ import annotations

from rest_framework import serializers

from games.serializers import FREE_OBJECT
from kifu.http.openapi import NotBlankCharField, declared

from ..scoring import reports as rules

KEY_HELP = "Sending the same step again with the same key does nothing twice (the Idempotency-Key header works too)."


class RankingField(serializers.ListField):
    """Usernames best first, ties grouped: ``[["aki"], ["ben"]]``."""

    # Names that are more than white space (declared so: a blank one is refused, as it must be).
    child = serializers.ListField(child=NotBlankCharField(max_length=150), min_length=1, max_length=16)

    def __init__(self, **kwargs):
        kwargs.setdefault("min_length", 1)
        kwargs.setdefault("max_length", 16)
        kwargs.setdefault("help_text", 'Usernames best first, ties in one group: [["aki"], ["ben"]].')
        super().__init__(**kwargs)


def _scores(**kwargs):
    return serializers.DictField(
        child=serializers.FloatField(),
        required=False,
        allow_null=True,
        help_text="Scores by username: a game's points, or a series' match points (2 and 1 for a 2-1 win).",
        **kwargs,
    )


class ReportInSerializer(serializers.Serializer):
    ranking = RankingField()
    scores = _scores()
    idempotency_key = serializers.CharField(required=False, max_length=100, help_text=KEY_HELP)


class ConfirmInSerializer(serializers.Serializer):
    idempotency_key = serializers.CharField(required=False, max_length=100, help_text=KEY_HELP)


class DisputeInSerializer(ConfirmInSerializer):
    reason = serializers.CharField(required=False, allow_blank=True, max_length=200, help_text="What is wrong.")


class SettleInSerializer(ConfirmInSerializer):
    ranking = RankingField(required=False, help_text="The result; left out: the open report's as reported.")
    scores = _scores()
    reason = serializers.CharField(required=False, allow_blank=True, max_length=200)


class ResultReportStepSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    kind = serializers.CharField(
        help_text="reported, confirmed, disputed, settled, entered, auto_confirmed, superseded"
    )
    actor = serializers.CharField(allow_null=True, help_text="Username; null for the server (a timer).")
    at = serializers.DateTimeField()
    reason = serializers.CharField(allow_blank=True)


class ResultReportSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    kind = serializers.CharField()
    pairing = serializers.CharField()
    status = serializers.CharField(help_text="pending, disputed, confirmed, settled or superseded")
    ranking = serializers.ListField(child=serializers.ListField(child=serializers.CharField()))
    scores = serializers.DictField(child=serializers.FloatField(), allow_null=True)
    game = serializers.UUIDField(allow_null=True, help_text="A table game's record, if it is one.")
    reported_by = serializers.CharField(allow_null=True)
    reported_at = serializers.DateTimeField()
    confirm_by = serializers.DateTimeField(help_text="Counts as confirmed then, unless disputed.")
    confirmed_by = serializers.ListField(child=serializers.CharField())
    waiting_for = serializers.ListField(child=serializers.CharField())
    decided_at = serializers.DateTimeField(allow_null=True)
    steps = ResultReportStepSerializer(many=True)


class ReportingSerializer(serializers.Serializer):
    results = serializers.ChoiceField(
        choices=rules.MODES,
        help_text="online: only a game on the server decides a pairing; table: only a reported result; either.",
    )
    report_confirm_hours = serializers.FloatField(help_text="An unconfirmed report counts as confirmed after this.")


ModeField = declared(serializers.CharField, {"type": "string", "enum": list(rules.MODES)}, "ModeField")
HoursField = declared(
    serializers.FloatField,
    {"type": "number", "exclusiveMinimum": True, "minimum": 0, "maximum": rules.MAX_CONFIRM_HOURS},
    "HoursField",
)


class ReportingInSerializer(serializers.Serializer):
    """Checked by the service (``invalid_results_mode``, ``invalid_confirm_hours``)."""

    results = ModeField(required=False, help_text="online, table or either")
    report_confirm_hours = HoursField(required=False, help_text="Hours, above 0 and at most 2160 (90 days).")


PairingOwnerField = declared(
    serializers.DictField,
    {
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": ["ladder", "tournament", "season"]},
            "id": {"type": "integer"},
            "name": {"type": "string"},
        },
    },
    "PairingOwnerField",
)
SeriesField = declared(serializers.DictField, {**FREE_OBJECT, "nullable": True}, "PairingSeriesField")


class PairingSerializer(serializers.Serializer):
    kind = serializers.CharField()
    id = serializers.CharField()
    owner = PairingOwnerField(help_text='{"kind": ladder|tournament|season, "id": ..., "name": ...}')
    players = serializers.ListField(child=serializers.CharField(), help_text="Usernames in seat order.")
    results = serializers.CharField(help_text="How it may be decided: online, table or either.")
    report_confirm_hours = serializers.FloatField()
    series = SeriesField(allow_null=True, help_text="The match spec when it is a series of games.")
    decided = serializers.BooleanField()
    game = serializers.UUIDField(allow_null=True, help_text="Its game on the server (a series: the current one).")
    open_report = ResultReportSerializer(allow_null=True)
    reports = ResultReportSerializer(many=True)


class PairingTableSerializer(serializers.Serializer):
    kind = serializers.CharField()
    id = serializers.CharField(help_text="The pairing's id now (a rated game's is its table game).")
    game = serializers.UUIDField(help_text="The table game that replaces the pairing's server game.")
    sheet = serializers.CharField(help_text="API: the keeper's sheet and entries (/api/table-games/{game}).")
    recorder = serializers.CharField(help_text="Web: the table recorder page.")
