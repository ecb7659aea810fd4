"""The one exception the client raises: the API's error body, its HTTP status and any retry hint."""

from __future__ import annotations


class KifuError(Exception):
    """A refusal from the API (``code`` and ``message`` as the server sent them) or a transport
    failure (``code`` ``"connection_error"``, ``status`` 0).

    ``fields`` holds per-field messages of a validation error, ``retry_after`` the seconds a
    throttled (429) request should wait, and ``submission`` the rejected submission of a 422.
    """

    def __init__(
        self,
        code: str,
        message: str,
        status: int,
        *,
        fields: dict | None = None,
        retry_after: float | None = None,
        submission: dict | None = None,
    ) -> None:
        super().__init__(f"{code}: {message} (HTTP {status})")
        self.code = code
        self.message = message
        self.status = status
        self.fields = fields or {}
        self.retry_after = retry_after
        self.submission = submission
