"""The lobby's reads: open seeks, one seek, a player's open seek and site ratings."""

from __future__ import annotations

from django.db.models import QuerySet
from django.utils import timezone

from games import selectors as game_selectors

from .models import Seek, SeekSeat, SiteRating


def _visible(seeks: QuerySet, viewer) -> QuerySet:
    """Seeks of mature games only for a viewer who consented (the promise every list keeps)."""
    if game_selectors.may_see_mature(viewer):
        return seeks
    return seeks.exclude(engine__in=game_selectors.mature_engines())


def open_seeks(*, viewer=None, engine: str | None = None) -> QuerySet:
    """Open seeks not yet past their expiry (the sweep closes them within seconds), oldest first,
    with their players."""
    seeks = Seek.objects.filter(status=Seek.Status.OPEN, expires_at__gt=timezone.now())
    if engine:
        seeks = seeks.filter(engine=engine)
    return _visible(seeks, viewer).select_related("created_by").prefetch_related("entries__user")


def seek_get(*, seek_id, viewer=None) -> Seek | None:
    seeks = _visible(Seek.objects.all(), viewer).select_related("created_by").prefetch_related("entries__user")
    try:
        return seeks.filter(pk=seek_id).first()
    except (ValueError, TypeError):
        return None


def own_seek(*, user) -> Seek | None:
    """The open seek ``user`` sits in, if any (at most one: ``SeekSeat.seek_seat_one_open``)."""
    if user is None or not user.is_authenticated:
        return None
    entry = SeekSeat.objects.filter(user=user, active=True).select_related("seek").first()
    return None if entry is None else seek_get(seek_id=entry.seek_id, viewer=user)


def site_ratings(*, user, viewer=None) -> list[SiteRating]:
    """``user``'s site rating in each game they played rated, by game (mature games only for a
    viewer who consented)."""
    rows = SiteRating.objects.filter(user=user, games__gt=0)
    if not game_selectors.may_see_mature(viewer):
        rows = rows.exclude(engine__in=game_selectors.mature_engines())
    return list(rows.order_by("engine"))


def ratings_at(seeks) -> dict[tuple[int, str], float]:
    """``(user id, engine) -> displayed rating`` of everyone seated at these seeks, in one query
    (unrated players are missing: they stand at 0)."""
    users = {entry.user_id for seek in seeks for entry in seek.entries.all()}
    engines = {seek.engine for seek in seeks}
    rows = SiteRating.objects.filter(user_id__in=users, engine__in=engines)
    return {(row.user_id, row.engine): row.ordinal for row in rows}
