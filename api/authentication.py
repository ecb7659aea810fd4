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

Personal tokens (issue 19 item 3; ``games.models.PersonalToken``) come through the same class and
the same ``Authorization: Token <key>`` header (or ``Bearer <key>``); their keys start with
``kifu_pt_`` and are looked up by their SHA-256. They are kept the same way (keyed by the hash),
forgotten at once in this process when revoked, and each request checks the call against the
token's scopes (api/scopes.py). An account's full token has every scope. ``last_used_at`` is
written at most once a minute per token (one conditional UPDATE), so it costs almost nothing.
"""

from __future__ import annotations

import datetime
import threading
import time

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication, get_authorization_header
from rest_framework.authtoken.models import Token

from games.accounts import PERSONAL_TOKEN_PREFIX, personal_token_hash
from games.models import PersonalToken

from . import scopes

LAST_USED_EVERY = datetime.timedelta(minutes=1)

# token key (a personal token's: its hash) -> (until, user id, the user row's field names and
# values, the token's created (a full token) or (id, name, scopes, created) (a personal token))
_KEPT: dict[str, tuple[float, int, tuple[str, ...], tuple, object]] = {}
_KEPT_MAX = 4096
_KEPT_LOCK = threading.Lock()


def forget_token(sender=None, instance=None, **kwargs) -> None:
    """Receiver of ``post_delete`` on Token: the key is read again next time."""
    if instance is not None:
        with _KEPT_LOCK:
            _KEPT.pop(instance.key, None)


def forget_personal_token(sender=None, instance=None, **kwargs) -> None:
    """Receiver of ``post_delete`` on PersonalToken: revoked is refused at once in this process."""
    if instance is not None:
        with _KEPT_LOCK:
            _KEPT.pop(instance.key_hash, None)


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
    _personal_sql: str | None = None

    def authenticate(self, request):
        found = super().authenticate(request) or self._bearer(request)
        if found is not None and isinstance(found[1], PersonalToken):
            scopes.enforce(request, found[0], found[1].scope_set)
        return found

    def _bearer(self, request):
        """``Authorization: Bearer <key>`` as OAuth clients send it, read as ``Token <key>``."""
        header = get_authorization_header(request).split()
        if not header or header[0].lower() != b"bearer":
            return None
        self.keyword = "Bearer"  # this instance serves one request (APIView.get_authenticators)
        try:
            return super().authenticate(request)
        finally:
            del self.keyword

    @classmethod
    def sql(cls) -> str:
        if cls._sql is None:
            cls._sql = _account_of(Token, "t.created AS kifu_token_created", "key")
        return cls._sql

    @classmethod
    def personal_sql(cls) -> str:
        if cls._personal_sql is None:
            columns = (
                "t.id AS kifu_pt_id, t.name AS kifu_pt_name, t.scopes AS kifu_pt_scopes, "
                "t.created_at AS kifu_pt_created, t.last_used_at AS kifu_pt_last_used"
            )
            cls._personal_sql = _account_of(PersonalToken, columns, "key_hash")
        return cls._personal_sql

    def authenticate_credentials(self, key):
        if key.startswith(PERSONAL_TOKEN_PREFIX):
            return self._personal(personal_token_hash(key))
        user, created = self._kept(key) or self._read(key)
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        token = Token(key=key, user=user, created=created)
        token._state.adding = False
        return (user, token)

    def _personal(self, key_hash: str):
        kept = self._kept(key_hash)
        if kept is None:
            user, last_used = self._read(key_hash, self.personal_sql())
            about = (user.kifu_pt_id, user.kifu_pt_name, user.kifu_pt_scopes, user.kifu_pt_created)
            self._keep(key_hash, user, about)
            _touch(user.kifu_pt_id, user.kifu_pt_last_used)
        else:
            user, about = kept
            _touch(about[0], None)
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        token_id, name, token_scopes, created = about
        token = PersonalToken(
            id=token_id, user=user, name=name, scopes=token_scopes, key_hash=key_hash, created_at=created
        )
        token._state.adding = False
        return (user, token)

    @staticmethod
    def _kept(key):
        kept = _KEPT.get(key)
        if kept is None or kept[0] <= time.monotonic():
            return None
        _, _, names, values, about = kept
        return get_user_model().from_db("default", names, values), about

    def _read(self, key, sql: str | None = None):
        users = list(get_user_model().objects.raw(sql or self.sql(), [key]))
        if not users:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        (user,) = users
        if sql is None:
            self._keep(key, user, user.kifu_token_created)
            return user, user.kifu_token_created
        return user, user.kifu_pt_last_used

    @staticmethod
    def _keep(key, user, about) -> None:
        seconds = settings.KIFU_TOKEN_CACHE_SECONDS
        if seconds > 0:
            names = tuple(field.attname for field in user._meta.concrete_fields)
            values = tuple(getattr(user, name) for name in names)
            with _KEPT_LOCK:
                if len(_KEPT) >= _KEPT_MAX:
                    _KEPT.pop(next(iter(_KEPT)))
                _KEPT[key] = (time.monotonic() + seconds, user.pk, names, values, about)


def _account_of(token_model, columns: str, key_column: str) -> str:
    """One fixed statement: the account row of a token, and ``columns`` of the token (``t``)."""
    user_table = get_user_model()._meta.db_table
    return (
        f'SELECT u.*, {columns} FROM "{user_table}" u '
        f'JOIN "{token_model._meta.db_table}" t ON t.user_id = u.id WHERE t.{key_column} = %s'
    )


# personal token id -> when this process last wrote its last_used_at (monotonic)
_TOUCHED: dict[int, float] = {}


def _touch(token_id: int, last_used) -> None:
    """Write a personal token's ``last_used_at`` if nobody has for a minute: skipped without a query
    when this process wrote it lately or the row just read says so, else one UPDATE whose WHERE
    makes it a no-op when another process was first."""
    now = time.monotonic()
    seconds = LAST_USED_EVERY.total_seconds()
    if now - _TOUCHED.get(token_id, -seconds) < seconds:
        return
    wall = timezone.now()
    _TOUCHED[token_id] = now
    if len(_TOUCHED) > _KEPT_MAX:
        _TOUCHED.clear()
    if last_used is not None and wall - last_used < LAST_USED_EVERY:
        return
    PersonalToken.objects.filter(
        Q(last_used_at__isnull=True) | Q(last_used_at__lt=wall - LAST_USED_EVERY), pk=token_id
    ).update(last_used_at=wall)
