"""Accounts: creating one (a person's or a bot's), telling bot accounts apart, and the account's
scoped personal tokens.

``is_bot(user)`` is the one question every other part asks (ladders, tournaments, listings).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, BaseUserManager
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from rest_framework.authtoken.models import Token

from .errors import ServiceError
from .models import BotAccount, PersonalToken

User = get_user_model()


@transaction.atomic
def account_create(*, username: str, password: str, bot: bool = False) -> tuple[AbstractBaseUser, Token]:
    """A new account and its API token; ``bot`` marks it as a bot account for good. The caller
    has validated the username (free) and the password (strong enough)."""
    user = User.objects.create_user(username=username, password=password)
    if bot:
        BotAccount.objects.create(user=user)
    token, _ = Token.objects.get_or_create(user=user)
    return user, token


EMAIL_MAX = 254  # RFC 5321's limit on a path, Django's EmailField length


@transaction.atomic
def account_email_set(*, user, email: str) -> str:
    """Set (or, with ``""``, remove) the address password reset links and deadline reminders are
    mailed to; returns it as stored (the domain lower-cased). Refuses ``bad_email`` (not an
    address) and ``email_taken`` (another account has it, in any letter case): one address, one
    account, so a reset link or a reminder reaches the one player it is for."""
    if not isinstance(email, str):
        raise ServiceError("bad_email", 'email must be a string: an address such as "aki@example.org", or ""')
    email = BaseUserManager.normalize_email(email.strip())
    if email:
        try:
            if len(email) > EMAIL_MAX:
                raise ValidationError("too long")
            validate_email(email)
        except ValidationError:
            raise ServiceError(
                "bad_email",
                f'not an e-mail address: give one such as "aki@example.org" (at most {EMAIL_MAX} characters), '
                'or "" to remove yours',
            ) from None
        User.objects.select_for_update().filter(pk=user.pk).first()
        if email_in_use(email, besides=user):
            raise ServiceError("email_taken", "another account uses this e-mail address; give another one")
    user.email = email
    user.save(update_fields=["email"])
    return email


def email_in_use(email: str, *, besides=None) -> bool:
    """Whether an account (other than ``besides``) has this address, in any letter case."""
    accounts = User.objects.filter(email__iexact=email.strip())
    return accounts.exclude(pk=besides.pk).exists() if besides is not None else accounts.exists()


def is_bot(user) -> bool:
    """Whether ``user`` is a bot account (False for None and anonymous users).

    Reads the reverse one-to-one, so a queryset with ``select_related("bot_account")`` (or
    ``"user__bot_account"``) answers it without another query.
    """
    if user is None or getattr(user, "pk", None) is None:
        return False
    try:
        user.bot_account  # noqa: B018 - the access is the question
    except BotAccount.DoesNotExist:
        return False
    return True


def bot_ids(user_ids: Iterable[int]) -> set[int]:
    """The ids among ``user_ids`` that belong to bot accounts (one query, for listings)."""
    return set(BotAccount.objects.filter(user_id__in=list(user_ids)).values_list("user_id", flat=True))


# ---- personal tokens ----------------------------------------------------------------------
# What a personal token may do besides reading (api/scopes.py decides which call needs which).
SCOPES = ("read", "play", "organise")
PERSONAL_TOKEN_PREFIX = "kifu_pt_"  # tells a personal token from an account's full token (40 hex digits)
PERSONAL_TOKENS_MAX = 50


class TooManyTokens(Exception):
    code = "too_many_tokens"


def personal_token_hash(key: str) -> str:
    """The SHA-256 of a key, as stored: a database leak gives no usable key. A plain hash, not a
    slow password hash, because the key is 32 random bytes (nothing to guess) and every API request
    checks one."""
    return hashlib.sha256(key.encode()).hexdigest()


@transaction.atomic
def personal_token_create(*, user, name: str, scopes: Iterable[str]) -> tuple[PersonalToken, str]:
    """A new personal token of ``user`` and its key, which is stored only as a hash: the caller
    shows it once. ``scopes`` is validated by the caller (a subset of ``SCOPES``); ``read`` is
    always included. Raises ``TooManyTokens`` past ``PERSONAL_TOKENS_MAX`` per account."""
    User.objects.select_for_update().filter(pk=user.pk).first()  # count and insert as one step
    if PersonalToken.objects.filter(user=user).count() >= PERSONAL_TOKENS_MAX:
        raise TooManyTokens(f"an account has at most {PERSONAL_TOKENS_MAX} personal tokens; revoke one first")
    key = PERSONAL_TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = PersonalToken.objects.create(
        user=user,
        name=name,
        scopes=" ".join(sorted({"read", *scopes})),
        key_hash=personal_token_hash(key),
        prefix=key[: len(PERSONAL_TOKEN_PREFIX) + 4],
    )
    return token, key


def personal_token_revoke(*, user, token_id: int) -> bool:
    """Delete one of ``user``'s personal tokens; False when it has no such token. The delete signal
    makes this process's token cache forget it at once (api/authentication.py)."""
    token = PersonalToken.objects.filter(user=user, pk=token_id).first()
    if token is None:
        return False
    token.delete()
    return True


def personal_token_list(*, user) -> list[PersonalToken]:
    return list(PersonalToken.objects.filter(user=user))
