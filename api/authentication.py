"""Token authentication for the API: DRF's ``TokenAuthentication``, read in one raw statement and
remembered for a moment per process.

Every API request with a token authenticates, so its cost is paid on every move. DRF reads the
token with ``Token.objects.select_related("user").get(key=...)``: one query, but the ORM compiles
it anew each time (~1 ms of a ~6 ms request here, measured with cProfile; README "Benchmarks").
This class reads the same rows with a fixed SQL statement and answers exactly as DRF does (the same
refusals and messages), so clients see no difference.

Even as one fixed statement, the read was ~15% of a move request's time under the pipeline
benchmark (issue 14; py-spy on the web processes): a database round trip on a saturated machine,
for an answer that does not change between a bot's requests. So each process keeps the account row
of a token it has read for ``KIFU_TOKEN_CACHE_SECONDS`` (2 s; 0 turns it off). Each request gets its
own fresh ``User`` built from the kept row, never a shared object. Deleting a token (also when its
account is deleted), or saving an account, forgets it at once in the process that did it
(``forget_token`` / ``forget_account``, connected in ``ApiConfig.ready``); other processes forget it
when the moment is over, so a deleted token or a deactivated account is refused everywhere within
that many seconds.
"""

from __future__ import annotations

import threading
import time

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token

# token key -> (until, user id, the user row's field names and values, the token's created)
_KEPT: dict[str, tuple[float, int, tuple[str, ...], tuple, object]] = {}
_KEPT_MAX = 4096
_KEPT_LOCK = threading.Lock()


def forget_token(sender=None, instance=None, **kwargs) -> None:
    """Receiver of ``post_delete`` on Token: the key is read again next time."""
    if instance is not None:
        with _KEPT_LOCK:
            _KEPT.pop(instance.key, None)


def forget_account(sender=None, instance=None, **kwargs) -> None:
    """Receiver of ``post_save`` on the user model: every kept token of the account is read again."""
    if instance is not None:
        with _KEPT_LOCK:
            for key in [key for key, kept in _KEPT.items() if kept[1] == instance.pk]:
                del _KEPT[key]


def forget_all() -> None:
    with _KEPT_LOCK:
        _KEPT.clear()


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
        user, created = self._kept(key) or self._read(key)
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        token = Token(key=key, user=user, created=created)
        token._state.adding = False
        return (user, token)

    @staticmethod
    def _kept(key):
        kept = _KEPT.get(key)
        if kept is None or kept[0] <= time.monotonic():
            return None
        _, _, names, values, created = kept
        return get_user_model().from_db("default", names, values), created

    def _read(self, key):
        users = list(get_user_model().objects.raw(self.sql(), [key]))
        if not users:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        (user,) = users
        seconds = settings.KIFU_TOKEN_CACHE_SECONDS
        if seconds > 0:
            names = tuple(field.attname for field in user._meta.concrete_fields)
            values = tuple(getattr(user, name) for name in names)
            with _KEPT_LOCK:
                if len(_KEPT) >= _KEPT_MAX:
                    _KEPT.pop(next(iter(_KEPT)))
                _KEPT[key] = (time.monotonic() + seconds, user.pk, names, values, user.kifu_token_created)
        return user, user.kifu_token_created
