"""The schema class of every app's API (settings ``DEFAULT_SCHEMA_CLASS``): drf-spectacular's, adjusted for generators.

Part of the HTTP kit: nothing here knows an app. What the schema says of one app's data (the games'
typed moves) is that app's own (``api/openapi.py``).
"""

from __future__ import annotations

import re

from drf_spectacular import openapi
from rest_framework import permissions


class AutoSchema(openapi.AutoSchema):
    """drf-spectacular's schema, plus: an operation anyone may call (``AllowAny``) needs no credentials.

    drf-spectacular lists the token and session schemes with an optional ``{}`` for such an
    operation; generators read any security list as "needs an authenticated client" (creating an
    account, getting a token). An empty list says what the view does: no credentials needed.
    """

    def get_operation_id(self):
        """Operation ids are identifiers (``seasons_standings_csv_retrieve``, not ``...standings.csv...``):
        generators name a function or a module after each."""
        return re.sub(r"\W", "_", super().get_operation_id())

    def get_auth(self):
        if any(isinstance(permission, permissions.AllowAny) for permission in self.view.get_permissions()):
            return []
        return super().get_auth()
