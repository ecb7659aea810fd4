"""Accounts: creating one (a person's or a bot's) and telling bot accounts apart.

``is_bot(user)`` is the one question every other part asks (ladders, tournaments, listings).
"""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from rest_framework.authtoken.models import Token

from .models import BotAccount

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
