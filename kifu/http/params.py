"""Query-string parameters and request bodies read the same way by every app's API: a bad parameter is
``400 bad_parameter`` with a message that names the parameter and its range; a bad body is the
serializer's ``400`` with ``fields`` (errors.exception_handler)."""

from __future__ import annotations

from dataclasses import dataclass

from drf_spectacular.utils import OpenApiParameter

from .errors import ApiError


def whole_number(raw: str, name: str, low: int, high: int | None, code: str = "bad_parameter") -> int:
    """``raw`` read as a whole number from ``low`` to ``high``, or ``400 code`` naming ``name``.

    The one parser of whole numbers sent as text (query parameters, headers): ASCII digits with an
    optional sign only, so ``²`` or ``١`` (which ``str.isdigit`` accepts and ``int`` may refuse) and a
    5,000-digit number are a 400, never a 500; ``high=None`` has no ceiling (the caller caps).
    ``code`` is the parameter's public code: most say ``bad_parameter``; a few endpoints documented
    their own (``invalid_round``) before this kit existed, and keep them."""
    text = raw.strip()
    digits = text[1:] if text[:1] in "+-" else text
    if not (digits.isascii() and digits.isdigit() and len(digits) <= 100):
        raise ApiError(code, f"{name} must be a whole number, not {raw[:40]!r}")
    value = int(text)
    if value < low or (high is not None and value > high):
        raise ApiError(
            code, f"{name} must be from {low} to {high}" if high is not None else f"{name} must be at least {low}"
        )
    return value


def int_param(request, name: str, default, low: int, high: int, code: str = "bad_parameter"):
    """Query parameter ``name`` as a whole number from ``low`` to ``high``; ``default`` (which may be
    None) when it is absent. Given but empty (``?round=``) is no number: refused, as the schema says."""
    raw = request.query_params.get(name)
    if raw is None:  # absent; given but empty (``?after=``) is no number, refused below
        return default
    return whole_number(raw, name, low, high, code)


def float_param(request, name: str, default: float, high: float) -> float:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ApiError("bad_parameter", f"{name} must be a number of seconds, not {raw!r}") from None
    if not 0 <= value <= high:
        raise ApiError("bad_parameter", f"{name} must be from 0 to {high:g} seconds")
    return value


def bool_param(request, name: str, default: bool = False) -> bool:
    """``true`` or ``false``, as the schema's boolean is written; anything else is ``400
    bad_parameter`` (``?all=0.5`` used to read as false)."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if raw in ("true", "false"):
        return raw == "true"
    raise ApiError("bad_parameter", f"{name} must be true or false, not {raw[:40]!r}")


def choice_param(request, name: str, choices) -> str | None:
    """One of ``choices``, or None when absent; another value is ``400 bad_parameter`` (an unknown
    ``?status=`` used to filter everything out and answer an empty list)."""
    raw = request.query_params.get(name)
    if raw is None:
        return None
    if raw not in choices:
        raise ApiError("bad_parameter", f"{name} must be one of {', '.join(choices)}, not {raw[:40]!r}")
    return raw


def text_is_text() -> None:
    """A text field of a request body takes a JSON string only: DRF's ``CharField`` (and every field
    made from it: slugs, e-mail addresses, URLs) would store ``3.0e16`` as ``"3.0e+16"`` where the
    schema says ``string``. A number is refused like a list is, as the field's ``invalid``
    ("Not a valid string."). Called once when the API app is ready (``api/apps.py``)."""
    from rest_framework import fields

    if getattr(fields.CharField.to_internal_value, "text_only", False):
        return
    loose = fields.CharField.to_internal_value

    def to_internal_value(self, data):
        if isinstance(data, int | float):  # bool is an int: refused by DRF already, and here too
            self.fail("invalid")
        return loose(self, data)

    to_internal_value.text_only = True
    fields.CharField.to_internal_value = to_internal_value


def validated(serializer_class, request) -> dict:
    """The request body checked by ``serializer_class``: its validated data, or a 400 naming the fields."""
    data = serializer_class(data=request.data)
    data.is_valid(raise_exception=True)
    return data.validated_data


@dataclass(frozen=True)
class IntParam:
    """A whole-number query parameter declared once: read with ``int_param``'s checks, and described
    in the schema with the same range (a parser that refuses what the schema allows is a lie the fuzz
    suite catches). ``default`` None: an optional filter; ``code``: the refusal's public code."""

    name: str
    default: int | None
    low: int
    high: int
    description: str
    code: str = "bad_parameter"

    def read(self, request) -> int | None:
        return int_param(request, self.name, self.default, self.low, self.high, self.code)

    def openapi(self) -> OpenApiParameter:
        schema = {"type": "integer", "minimum": self.low, "maximum": self.high}
        return OpenApiParameter(self.name, schema, description=self.description)


# Paging through an append-only log (a game's events, a ladder's): the events after a seq, at most a page.
AFTER_SEQ = IntParam("after", 0, 0, 10**9, "Only events with a greater seq (default 0).")
PAGE_LIMIT = IntParam("limit", 500, 1, 1000, "At most this many (1-1000, default 500).")
