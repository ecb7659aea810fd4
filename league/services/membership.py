"""Who may do what in a club: membership and the organiser role, and the guards every league
service calls before it writes (clubs, ladders, challenges, seasons, tournaments).

Only reads: it sits below every league service, so each of them may ask it (``clubs`` keeps the
membership writes, and leaving a club withdraws from its ladders, so ``clubs`` stands above
``ladders``).
"""

from __future__ import annotations

from games.errors import ServiceError

from ..models import Club, Membership

Role, Status = Membership.Role, Membership.Status


def membership_of(club: Club | int, user) -> Membership | None:
    if user is None or not user.is_authenticated:
        return None
    return Membership.objects.filter(club=club, user=user).first()


def is_organiser(club: Club | int, user) -> bool:
    if user is None or not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    return Membership.objects.filter(club=club, user=user, role=Role.ORGANISER, status=Status.ACTIVE).exists()


def is_member(club: Club | int, user) -> bool:
    if user is None or not user.is_authenticated:
        return False
    return Membership.objects.filter(club=club, user=user, status=Status.ACTIVE).exists()


def require_organiser(club: Club | int, user) -> None:
    if user is None or not user.is_authenticated:
        raise ServiceError("not_authenticated", "log in (send your API token) to do this", status=401)
    if not is_organiser(club, user):
        raise ServiceError("not_organiser", "only an organiser of this club may do this", status=403)


def require_member(club: Club | int, user) -> None:
    if user is None or not user.is_authenticated:
        raise ServiceError("not_authenticated", "log in (send your API token) to do this", status=401)
    if not is_member(club, user):
        raise ServiceError("not_member", "only members of this club may do this; ask to join first", status=403)
