"""The HTTP kit (kifu/http): apps' own errors reach clients in the one error shape through the
registry the kit keeps (it imports no app), and query parameters are refused with bad_parameter."""

from __future__ import annotations

import pytest
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from games.engines.base import IllegalMove
from games.errors import ServiceError
from games.records import RecordError
from kifu.http import errors
from kifu.http.errors import ApiError, exception_handler, refusal
from kifu.http.params import float_param, int_param, whole_number

CONTEXT = {"request": None}


def test_games_errors_are_registered_by_the_games_app():
    """GamesConfig.ready registers them: the kit answers them without importing games."""
    rule = exception_handler(IllegalMove("you do not hold 10H", code="not_your_card"), CONTEXT)
    assert (rule.status_code, rule.data) == (400, {"code": "not_your_card", "message": "you do not hold 10H"})
    service = exception_handler(ServiceError("game_full", "every seat is taken", status=409), CONTEXT)
    assert (service.status_code, service.data["code"]) == (409, "game_full")
    record = exception_handler(RecordError(3, "bad_json", "not valid JSON"), CONTEXT)
    assert (record.status_code, record.data) == (400, {"code": "bad_json", "message": "not valid JSON", "line": 3})


def test_the_most_specific_registration_answers_and_unknown_errors_are_left_alone(monkeypatch):
    monkeypatch.setattr(errors, "_REFUSALS", dict(errors._REFUSALS))

    class Refused(Exception):
        def __init__(self, code: str, message: str) -> None:
            super().__init__(message)
            self.code, self.message, self.where = code, message, "here"

    class Gone(Refused):
        pass

    assert exception_handler(Refused("nope", "no"), CONTEXT) is None  # not registered: a 500, as before
    refusal(Refused, status=409)
    refusal(Gone, status=lambda error: 410, fields=("where",))
    assert exception_handler(Refused("nope", "no"), CONTEXT).status_code == 409
    gone = exception_handler(Gone("gone", "it went"), CONTEXT)
    assert (gone.status_code, gone.data) == (410, {"code": "gone", "message": "it went", "where": "here"})


def query(string: str) -> Request:
    return Request(APIRequestFactory().get(f"/api/x?{string}"))


def test_params_take_defaults_and_refuse_what_is_out_of_range():
    assert int_param(query(""), "limit", 500, 1, 1000) == 500
    assert int_param(query("limit=7"), "limit", 500, 1, 1000) == 7
    assert float_param(query("wait=2.5"), "wait", 0.0, 30) == 2.5
    for string, read in [
        ("limit=abc", lambda r: int_param(r, "limit", 500, 1, 1000)),
        ("limit=0", lambda r: int_param(r, "limit", 500, 1, 1000)),
        ("wait=31", lambda r: float_param(r, "wait", 0.0, 30)),
        ("wait=soon", lambda r: float_param(r, "wait", 0.0, 30)),
    ]:
        with pytest.raises(ApiError) as refused:
            read(query(string))
        assert refused.value.code == "bad_parameter" and refused.value.status_code == 400


@pytest.mark.parametrize("raw", ["\u00b2", "\u0661", "1.5", "", " ", "--1", "1e3", "9" * 5000, "0x10"])
def test_one_whole_number_parser_refuses_what_int_or_isdigit_would_let_through(raw):
    """``"²".isdigit()`` is true and ``int("²")`` raises: the old per-app parsers answered such a
    round with a 500. The kit's one parser says 400 with the caller's own code."""
    with pytest.raises(ApiError) as refused:
        whole_number(raw, "round", 0, 10**9, code="invalid_round")
    assert refused.value.code == "invalid_round"
    assert "round" in refused.value.message


def test_one_whole_number_parser_reads_signs_and_spaces_and_checks_the_range():
    assert whole_number(" 12 ", "round", 0, 100) == 12
    assert whole_number("+3", "round", 0, 100) == 3
    assert whole_number("10" + "0" * 40, "limit", 1, None) == 10**41  # no ceiling: the caller caps
    for raw, message in [("-1", "round must be from 0 to 100"), ("101", "round must be from 0 to 100")]:
        with pytest.raises(ApiError) as refused:
            whole_number(raw, "round", 0, 100)
        assert (refused.value.code, refused.value.message) == ("bad_parameter", message)
    with pytest.raises(ApiError, match="limit must be at least 1"):
        whole_number("0", "limit", 1, None)


def test_a_list_fields_errors_say_where_not_a_repr():
    """A ListField's (or nested serializer's) errors come as dicts by index; the answer keeps the
    field's name and says where in it, instead of the repr of DRF's ErrorDetail dict (found by the
    schemathesis run: ``tables: {0: {3: [ErrorDetail(string='This field may not be blank.', ...)]}}``)."""
    from rest_framework import serializers

    class Pairing(serializers.Serializer):
        tables = serializers.ListField(child=serializers.ListField(child=serializers.CharField()))
        seats = serializers.ListField(child=serializers.CharField())

    form = Pairing(data={"tables": [["a"], ["b", ""]], "seats": "x"})
    assert not form.is_valid()
    body = exception_handler(serializers.ValidationError(form.errors), CONTEXT).data
    assert body["code"] == "invalid"
    assert body["fields"]["tables"] == ["[1][1]: This field may not be blank."]
    assert "ErrorDetail" not in body["message"] and "tables: [1][1]: This field may not be blank." in body["message"]
