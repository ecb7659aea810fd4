"""The error every game service raises when it refuses a request."""

from __future__ import annotations


class ServiceError(Exception):
    """A request the service refuses: ``status`` is the HTTP status the API answers with, ``code`` a
    stable string clients can switch on, ``message`` what to fix."""

    def __init__(self, code: str, message: str, *, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def not_found(what: str) -> ServiceError:
    """The 404 every lookup by id answers when the row is not there (``no such <what>``)."""
    return ServiceError("not_found", f"no such {what}", status=404)
