"""Players and clubs: profiles, clubs, invitations, requests to join, roles and leaving.

Permissions live here, not in the API, so the web admin and the API enforce the same rules:
organisers manage their club; members act only as themselves. A superuser counts as an
organiser of every club.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from games.errors import ServiceError, not_found
from kifu.locking import lock_by_id
from league.names import name_check

from ..models import Club, Ladder, Membership, PlayerProfile
from .ladders import withdraw_player
from .membership import require_organiser

Role, Status = Membership.Role, Membership.Status


def _lock_club(club_id) -> Club:
    return lock_by_id(Club, club_id, missing=not_found("club"))


def _grant_admin(user) -> None:
    """Organisers manage their club in the web admin too, which needs ``is_staff``. The league
    admin shows a staff user only the clubs they organise; other apps' admin pages still need
    model permissions, which this does not grant."""
    if not user.is_staff:
        user.is_staff = True
        user.save(update_fields=["is_staff"])


# ---- profiles ---------------------------------------------------------------------------------
@transaction.atomic
def profile_update(*, user, display_name: str | None = None, language: str | None = None) -> PlayerProfile:
    profile, _ = PlayerProfile.objects.select_for_update().get_or_create(user=user)
    if display_name is not None:
        display_name = display_name.strip()
        if len(display_name) > 80:
            raise ServiceError("bad_display_name", "a display name has at most 80 characters")
        name_check(display_name, what="the display name")
        profile.display_name = display_name
    if language is not None:
        codes = dict(settings.LANGUAGES)
        if language not in codes:
            raise ServiceError("bad_language", f"unknown language {language!r}; use one of: {', '.join(codes)}")
        profile.language = language
    profile.save()
    return profile


# ---- clubs ------------------------------------------------------------------------------------
@transaction.atomic
def club_create(*, name: str, by, slug: str | None = None, description: str = "", now: datetime | None = None) -> Club:
    """A new club; its creator is its first organiser."""
    now = now or timezone.now()
    name = (name or "").strip()
    if not name or len(name) > 100:
        raise ServiceError("bad_club_name", "a club needs a name of 1-100 characters")
    name_check(name, what="the club's name")
    slug = slugify(slug or name)[:50]
    if not slug:
        raise ServiceError("bad_club_slug", "the club's slug (its name in URLs) needs letters or digits")
    if Club.objects.filter(slug=slug).exists():
        raise ServiceError("club_exists", f"a club called {slug!r} exists already; choose another slug", status=409)
    club = Club.objects.create(slug=slug, name=name, description=description, created_by=by, created_at=now)
    Membership.objects.create(
        club=club, user=by, role=Role.ORGANISER, status=Status.ACTIVE, created_at=now, joined_at=now
    )
    _grant_admin(by)
    return club


@transaction.atomic
def club_update(*, club_id, by, name: str | None = None, description: str | None = None) -> Club:
    club = _lock_club(club_id)
    require_organiser(club, by)
    if name is not None:
        name = name.strip()
        if not name or len(name) > 100:
            raise ServiceError("bad_club_name", "a club needs a name of 1-100 characters")
        club.name = name_check(name, what="the club's name")
    if description is not None:
        club.description = description
    club.save()
    return club


# ---- membership -------------------------------------------------------------------------------
def _check_role(role: str) -> str:
    if role not in Role.values:
        raise ServiceError("bad_role", f"role must be one of {', '.join(Role.values)}, not {role!r}")
    return role


def _activate(membership: Membership, now: datetime) -> None:
    membership.status = Status.ACTIVE
    membership.joined_at = now
    membership.save()
    if membership.role == Role.ORGANISER:
        _grant_admin(membership.user)


@transaction.atomic
def membership_invite(*, club_id, by, user, role: str = Role.MEMBER, now: datetime | None = None) -> Membership:
    """An organiser invites ``user``; someone who already asked to join is admitted at once."""
    now = now or timezone.now()
    club = _lock_club(club_id)
    require_organiser(club, by)
    _check_role(role)
    membership = Membership.objects.filter(club=club, user=user).first()
    if membership and membership.status == Status.ACTIVE:
        raise ServiceError("already_member", f"{user.get_username()} is already a member", status=409)
    if membership is None:
        membership = Membership(club=club, user=user, created_at=now)
    membership.role, membership.invited_by = role, by
    if membership.status == Status.REQUESTED:
        _activate(membership, now)
    else:
        membership.status = Status.INVITED
        membership.save()
    return membership


@transaction.atomic
def membership_join(*, club_id, by, now: datetime | None = None) -> Membership:
    """Accept an invitation, or ask to join (an organiser then approves)."""
    now = now or timezone.now()
    if by is None or not by.is_authenticated:
        raise ServiceError("not_authenticated", "log in (send your API token) to join a club", status=401)
    club = _lock_club(club_id)
    membership = Membership.objects.filter(club=club, user=by).first()
    if membership and membership.status == Status.ACTIVE:
        raise ServiceError("already_member", "you are already a member of this club", status=409)
    if membership and membership.status == Status.INVITED:
        _activate(membership, now)
        return membership
    if membership is None:
        membership = Membership(club=club, user=by, created_at=now)
    if membership.status != Status.REQUESTED:
        membership.status, membership.role = Status.REQUESTED, Role.MEMBER
        membership.save()
    return membership


@transaction.atomic
def membership_approve(*, club_id, by, user, now: datetime | None = None) -> Membership:
    now = now or timezone.now()
    club = _lock_club(club_id)
    require_organiser(club, by)
    membership = Membership.objects.filter(club=club, user=user, status=Status.REQUESTED).first()
    if membership is None:
        raise ServiceError("no_request", f"{user.get_username()} has not asked to join", status=409)
    _activate(membership, now)
    return membership


def _organisers(club: Club) -> int:
    return Membership.objects.filter(club=club, role=Role.ORGANISER, status=Status.ACTIVE).count()


@transaction.atomic
def membership_set_role(*, club_id, by, user, role: str) -> Membership:
    club = _lock_club(club_id)
    require_organiser(club, by)
    _check_role(role)
    membership = Membership.objects.filter(club=club, user=user).exclude(status=Status.LEFT).first()
    if membership is None:
        raise ServiceError("not_found", f"{user.get_username()} is not a member of this club", status=404)
    if membership.is_organiser and role != Role.ORGANISER and _organisers(club) == 1:
        raise ServiceError("last_organiser", "a club needs an organiser: make someone else organiser first", status=409)
    membership.role = role
    membership.save(update_fields=["role"])
    if membership.is_organiser:
        _grant_admin(user)
    return membership


@transaction.atomic
def membership_remove(*, club_id, by, user, now: datetime | None = None) -> Membership:
    """An organiser removes a member, or a user leaves (or turns down an invitation, or withdraws a
    request). A member who leaves is withdrawn from the club's ladders; their open challenges are void."""
    now = now or timezone.now()
    club = _lock_club(club_id)
    if by is None or not by.is_authenticated:
        raise ServiceError("not_authenticated", "log in (send your API token) to do this", status=401)
    if by.pk != user.pk:
        require_organiser(club, by)
    membership = Membership.objects.filter(club=club, user=user).exclude(status=Status.LEFT).first()
    if membership is None:
        raise ServiceError("not_found", f"{user.get_username()} is not a member of this club", status=404)
    if membership.is_organiser and _organisers(club) == 1:
        raise ServiceError("last_organiser", "a club needs an organiser: make someone else organiser first", status=409)
    was_active = membership.status == Status.ACTIVE
    membership.status = Status.LEFT
    membership.save(update_fields=["status"])
    if was_active:
        for ladder_id in Ladder.objects.filter(club=club).order_by("pk").values_list("pk", flat=True):
            withdraw_player(ladder_id=ladder_id, player=user, by=by, now=now, reason="left the club", quiet=True)
    return membership
