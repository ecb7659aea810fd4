"""One error shape for every app's API: ``{"code": <stable string>, "message": <what to fix>}``.

Validation errors add ``fields`` (field name -> messages). Apps' own refusals (the engines' rule
errors, the services' errors, record errors) keep their codes: the app that owns an error class
registers it with ``refusal`` from its AppConfig.ready, so this module imports no app; nothing
reaches the client as a 500 HTML page.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from django.db import DataError, InterfaceError, OperationalError
from django.http import Http404, JsonResponse
from django.views.defaults import page_not_found
from kombu.exceptions import OperationalError as BrokerError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

log = logging.getLogger("kifu.api")
# Redis (the Celery broker, the throttles' counters, the streams' notices) or PostgreSQL unreachable
# (restarting, a dropped connection; Django's OperationalError also covers a cancelled statement or a
# serialization failure, transient too): the request could not be done now, but nothing is wrong with
# it - 503 service_unavailable, try again soon. The transaction rolled back, so a retry with the same
# idempotency key is safe (tests/robustness/test_chaos.py).
UNAVAILABLE = (RedisConnectionError, RedisTimeoutError, BrokerError, OperationalError, InterfaceError)
RETRY_AFTER_SECONDS = 5

DRF_CODES = {
    exceptions.ParseError: "bad_json",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "bad_credentials",
    exceptions.PermissionDenied: "forbidden",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "throttled",
}


# The one error shape, for the schema (#/components/schemas/Error). No docstring: it would become
# the component's description.
class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="A stable machine-readable error code.")
    message = serializers.CharField(help_text="What was wrong and how to fix it.")
    fields = serializers.DictField(child=serializers.ListField(child=serializers.CharField()), required=False)


def error_responses(*statuses: int) -> dict:
    """The schema's error answers of an operation (``extend_schema(responses={...})``): each status
    in the one error shape."""
    return dict.fromkeys(statuses, ErrorSerializer)


class ApiError(exceptions.APIException):
    """Raised by views for a refusal with a stable code."""

    def __init__(self, code: str, message: str, status_code: int = 400) -> None:
        super().__init__(detail=message, code=code)
        self.status_code = status_code
        self.code = code
        self.message = message


def found(obj, message: str):
    """``obj``, or ``404 not_found`` with ``message`` when it is None (a load-or-404 for every app's API)."""
    if obj is None:
        raise ApiError("not_found", message, status.HTTP_404_NOT_FOUND)
    return obj


def error_body(code: str, message: str, **extra) -> dict:
    return {"code": code, "message": message, **extra}


def _flatten(detail) -> dict:
    """Field name -> messages. A list's or a nested serializer's errors come as dicts by index or
    name (``{"tables": {0: {3: [...]}}}``): each message then starts with where, ``[0][3]: ...``,
    rather than being a repr of the dict."""
    if isinstance(detail, dict):
        return {str(key): _messages(value) for key, value in detail.items()}
    return {"non_field_errors": _messages(detail)}


def _messages(detail, path: str = "") -> list[str]:
    if isinstance(detail, dict):
        return [
            message
            for key, value in detail.items()
            for message in _messages(value, f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}")
        ]
    items = detail if isinstance(detail, list) else [detail]
    if any(isinstance(item, dict | list) for item in items):  # a list of serializers: one entry per item
        return [message for index, item in enumerate(items) if item for message in _messages(item, f"{path}[{index}]")]
    return [f"{path}: {item}" if path else str(item) for item in items]


@dataclass(frozen=True)
class Refusal:
    """How an app's error class is answered: ``status`` (a number, or read from the error), and the
    error's attributes named in ``fields`` added to the body."""

    status: int | Callable[[Exception], int]
    fields: tuple[str, ...]


_REFUSALS: dict[type[Exception], Refusal] = {}


def refusal(
    error_class: type[Exception],
    *,
    status: int | Callable[[Exception], int] = status.HTTP_400_BAD_REQUEST,
    fields: tuple[str, ...] = (),
) -> None:
    """Answer ``error_class`` (and its subclasses) in the one error shape from its ``code`` and
    ``message``. Called by the app that owns the class, from its AppConfig.ready (games: rule,
    record and service errors). A subclass registered on its own is answered by its own entry."""
    _REFUSALS[error_class] = Refusal(status=status, fields=fields)


def _refused(exc: Exception) -> Response | None:
    rule = next((_REFUSALS[cls] for cls in type(exc).__mro__ if cls in _REFUSALS), None)
    if rule is None:
        return None
    extra = {name: getattr(exc, name) for name in rule.fields}
    http_status = rule.status(exc) if callable(rule.status) else rule.status
    return Response(error_body(exc.code, exc.message, **extra), status=http_status)


def exception_handler(exc, context):
    if isinstance(exc, ApiError):
        return Response(error_body(exc.code, exc.message), status=exc.status_code)
    refused = _refused(exc)
    if refused is not None:
        return refused
    if isinstance(exc, Http404):
        return Response(error_body("not_found", "no such object"), status=status.HTTP_404_NOT_FOUND)
    if isinstance(exc, DataError):
        # The last net for input the guards (kifu/http/guards.py) cannot see, such as a JSON string in a
        # form field that parses to infinity: PostgreSQL refused a value. The service's transaction
        # has rolled back, so nothing was stored; the client can fix the value.
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        log.warning(
            "refused unstorable input at %s: %s", context["request"].path if context.get("request") else "", reason
        )
        message = (
            f"a value could not be stored ({reason}); check for NUL characters, numbers out of range, or text too long"
        )
        return Response(error_body("unstorable_value", message), status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, UNAVAILABLE):
        log.warning("service unavailable at %s: %r", context["request"].path if context.get("request") else "", exc)
        return Response(
            error_body("service_unavailable", f"a service Kifu needs is down; retry in {RETRY_AFTER_SECONDS} s"),
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        )
    if isinstance(exc, exceptions.ValidationError):
        fields = _flatten(exc.detail)
        summary = "; ".join(f"{key}: {' '.join(messages)}" for key, messages in fields.items())
        return Response(error_body("invalid", summary, fields=fields), status=status.HTTP_400_BAD_REQUEST)
    response = drf_exception_handler(exc, context)
    if response is not None:
        code = getattr(exc, "stable_code", None) or next(
            (c for cls, c in DRF_CODES.items() if isinstance(exc, cls)), "error"
        )
        detail = exc.detail if isinstance(exc, exceptions.APIException) else str(exc)
        response.data = error_body(code, str(detail))
        return response
    return None


def handler404(request, exception=None):
    """JSON for API clients, a page for people."""
    if request.path.startswith("/api/"):
        return JsonResponse(error_body("not_found", f"nothing at {request.path}"), status=404)
    return page_not_found(request, exception)


def unavailable_response() -> JsonResponse:
    """The 503 for code outside DRF's handler (a middleware that needs PostgreSQL or Redis)."""
    body = error_body("service_unavailable", f"a service Kifu needs is down; retry in {RETRY_AFTER_SECONDS} s")
    return JsonResponse(body, status=503, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})


def handler500(request):
    log.error("unhandled error at %s", request.path)
    return JsonResponse(error_body("server_error", "the server failed; the error was logged"), status=500)


# What each refusal status means; every operation can answer each of them (a bad token is a 401
# anywhere, a NUL in any URL a 400, the throttle covers every endpoint), so the schema says so.
ERROR_RESPONSES = {
    "400": "Bad input: the code says what (invalid, bad_json, bad_text, ...), `fields` which fields.",
    "401": "Missing or bad credentials.",
    "403": "Not allowed for this account.",
    "404": "No such object (or not visible to this account).",
    "409": "The object's state does not allow this now.",
    "429": "Throttled (throttled, login_locked): retry after the Retry-After header's seconds.",
    "503": (
        "service_unavailable: Redis (queue, counters) or PostgreSQL is down;"
        " retry after the Retry-After header's seconds."
    ),
}


def document_error_responses(result, generator, request, public):
    """drf-spectacular postprocessing hook: add the error responses an operation leaves out.

    Views list the refusals they expect; the shared ones (400 from the input guards, 401, 404 for a
    missing path object, 429 from the throttle) can come from anywhere, and a client generated from
    the schema should know their body is the one error shape.
    """
    error = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    if "Error" not in result.get("components", {}).get("schemas", {}):
        return result
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            responses = operation.get("responses") if isinstance(operation, dict) else None
            if responses is None:
                continue
            for status_code, description in ERROR_RESPONSES.items():
                responses.setdefault(status_code, {"content": error, "description": description})
                if not responses[status_code].get("description"):
                    responses[status_code]["description"] = description
    return result
