"""Query-string parameters and request bodies read the same way by every app's API: a bad parameter is
``400 bad_parameter`` with a message that names the parameter and its range; a bad body is the
serializer's ``400`` with ``fields`` (errors.exception_handler)."""

from __future__ import annotations

from .errors import ApiError


def int_param(request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ApiError("bad_parameter", f"{name} must be a whole number, not {raw!r}") from None
    if not low <= value <= high:
        raise ApiError("bad_parameter", f"{name} must be from {low} to {high}")
    return value


def float_param(request, name: str, default: float, high: float) -> float:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ApiError("bad_parameter", f"{name} must be a number of seconds, not {raw!r}") from None
    if not 0 <= value <= high:
        raise ApiError("bad_parameter", f"{name} must be from 0 to {high:g} seconds")
    return value


def validated(serializer_class, request) -> dict:
    """The request body checked by ``serializer_class``: its validated data, or a 400 naming the fields."""
    data = serializer_class(data=request.data)
    data.is_valid(raise_exception=True)
    return data.validated_data
