"""Log context: the game and the submission a line is about, on every line of the move path.

Two context variables, ``game_id`` and ``submission_id``, are set where the work is known:

- a web request to ``/api/games/<pk>/...`` (``LogContextMiddleware``: the URL's ``pk``, and ``sid``
  of a submission's URL); the move view binds the submission it stored (``bind``);
- a Celery task with a ``game_id`` parameter (``task_context`` from ``task_prerun``; cleared at
  ``task_postrun``, after Celery's own "succeeded" line).

``ContextFilter`` copies them onto each record (only those that are set), so any formatter can
show them; ``KIFU_LOG_FORMAT=json`` formats every line as one JSON object (python-json-logger) with
``time``, ``level``, ``logger``, ``message`` and these fields. Context variables follow threads
(gunicorn's gthread workers) and are copied into nothing they should not be.
"""

from __future__ import annotations

import inspect
import logging
from contextvars import ContextVar
from functools import lru_cache

# The one JSON formatter (settings.LOGGING, deploy/gunicorn.conf.py): python-json-logger's, with
# short names for the standard fields.
JSON_FORMATTER = {
    "()": "pythonjsonlogger.json.JsonFormatter",
    "fmt": "%(levelname)s %(name)s %(message)s",
    "rename_fields": {"levelname": "level", "name": "logger"},
    "timestamp": "time",  # ISO 8601 in UTC
}

game_id: ContextVar[str | None] = ContextVar("game_id", default=None)
submission_id: ContextVar[str | None] = ContextVar("submission_id", default=None)
FIELDS = {"game_id": game_id, "submission_id": submission_id}


def bind(**values) -> None:
    """Set ``game_id`` and/or ``submission_id`` for the rest of this request or task."""
    for name, value in values.items():
        FIELDS[name].set(None if value is None else str(value))


def clear() -> None:
    for var in FIELDS.values():
        var.set(None)


class ContextFilter(logging.Filter):
    """Adds the bound ids to every record that passes (attach it to the handlers)."""

    def filter(self, record: logging.LogRecord) -> bool:
        for name, var in FIELDS.items():
            value = var.get()
            if value is not None and not hasattr(record, name):
                setattr(record, name, value)
        return True


class LogContextMiddleware:
    """Binds the game (and submission) of ``/api/games/<pk>/...`` URLs for the request's lines."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        clear()  # a gthread worker's thread serves one request after another
        try:
            return self.get_response(request)
        finally:
            clear()

    def process_view(self, request, view_func, view_args, view_kwargs):
        if "pk" in view_kwargs and request.path_info.startswith("/api/games/"):
            bind(game_id=view_kwargs["pk"], submission_id=view_kwargs.get("sid"))
        return None


@lru_cache(maxsize=256)
def _game_parameter(run) -> inspect.Signature | None:
    try:
        signature = inspect.signature(run)
    except (TypeError, ValueError):
        return None
    return signature if "game_id" in signature.parameters else None


def task_context(task=None, args=None, kwargs=None, **_) -> None:
    """``task_prerun``: bind the ``game_id`` argument of the task about to run, if it has one."""
    clear()
    signature = _game_parameter(getattr(task, "run", None)) if task is not None else None
    if signature is None:
        return
    try:
        bound = signature.bind_partial(*(args or ()), **(kwargs or {}))
    except TypeError:
        return
    if bound.arguments.get("game_id") is not None:
        bind(game_id=bound.arguments["game_id"])


def task_context_clear(**_) -> None:
    clear()
