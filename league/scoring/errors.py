"""The error of the league's pure maths: a value its rules refuse, with a stable ``code`` and a
``message`` for the person who sent it (the same shape as the engines' ``RuleError``, but scoring
stands on nothing: no Django, no games). Services turn it into a ``ServiceError``."""

from __future__ import annotations


class ScoringError(Exception):
    """A league rule refused a value. ``code`` is a stable machine string; ``message`` is for people."""

    code: str = "invalid"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
