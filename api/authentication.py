"""Token authentication for the API: DRF's ``TokenAuthentication``, read in one raw statement.

Every API request with a token authenticates, so its cost is paid on every move. DRF reads the
token with ``Token.objects.select_related("user").get(key=...)``: one query, but the ORM compiles
it anew each time (~1 ms of a ~6 ms request here, measured with cProfile; README "Benchmarks").
This class reads the same rows with a fixed SQL statement and answers exactly as DRF does (the same
refusals and messages), so clients see no difference.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token


class RawTokenAuthentication(TokenAuthentication):
    _sql: str | None = None

    @classmethod
    def sql(cls) -> str:
        if cls._sql is None:
            user_table = get_user_model()._meta.db_table
            token_table = Token._meta.db_table
            cls._sql = (
                f'SELECT u.*, t.created AS kifu_token_created FROM "{user_table}" u '
                f'JOIN "{token_table}" t ON t.user_id = u.id WHERE t.key = %s'
            )
        return cls._sql

    def authenticate_credentials(self, key):
        users = list(get_user_model().objects.raw(self.sql(), [key]))
        if not users:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        (user,) = users
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        token = Token(key=key, user=user, created=user.kifu_token_created)
        token._state.adding = False
        return (user, token)
