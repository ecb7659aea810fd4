"""Reads of clubs, ladders, logs, standings, challenges and matches; nothing here writes."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import Q, QuerySet

from .models import Challenge, Club, Ladder, LadderEntry, LadderEvent, LeagueGame, Match, Membership, RatingPoint
from .scoring import ladder as rules
from .services.log import projection_stored
from .services.membership import is_member, is_organiser

User = get_user_model()


def user_by_name(username: str):
    return User.objects.filter(username=username).first()


def usernames(ids) -> dict[int, str]:
    return dict(User.objects.filter(pk__in=set(ids)).values_list("pk", "username"))


def club_list() -> QuerySet:
    return Club.objects.all()


def club_get(*, slug: str) -> Club | None:
    return Club.objects.filter(slug=slug).first()


def member_list(*, club: Club, viewer) -> QuerySet:
    """Active members for everyone; organisers also see invitations and requests to join, and a
    user sees their own pending membership."""
    members = Membership.objects.filter(club=club).select_related("user", "user__player_profile", "user__bot_account")
    if is_organiser(club, viewer):
        return members.exclude(status=Membership.Status.LEFT)
    mine = Q(user=viewer) if viewer is not None and viewer.is_authenticated else Q(pk__in=[])
    return members.filter(Q(status=Membership.Status.ACTIVE) | (mine & ~Q(status=Membership.Status.LEFT)))


def ladder_list(*, club: Club | None = None) -> QuerySet:
    ladders = Ladder.objects.select_related("club")
    return ladders.filter(club=club) if club is not None else ladders


def ladder_get(*, ladder_id) -> Ladder | None:
    try:
        return Ladder.objects.select_related("club").filter(pk=ladder_id).first()
    except (ValueError, TypeError):
        return None


def standings(*, ladder: Ladder, include_inactive: bool = False) -> QuerySet:
    entries = LadderEntry.objects.filter(ladder=ladder).select_related(
        "user", "user__player_profile", "user__bot_account"
    )
    if not include_inactive:
        entries = entries.filter(position__isnull=False)
    return entries.order_by("position", "user__username")


def ladder_log(*, ladder: Ladder, after: int = 0, limit: int = 500) -> list[LadderEvent]:
    return list(LadderEvent.objects.filter(ladder=ladder, seq__gt=after).order_by("seq")[:limit])


def payload_players(payload: dict) -> set[int]:
    """User ids a log payload mentions, for showing names beside them."""
    ids = {payload.get(key) for key in ("player", "challenger", "defender", "winner", "loser")}
    for group in payload.get("ranking") or []:
        ids.update(group)
    for group in (payload.get("changes") or {}).get("ranking") or []:
        ids.update(group)
    ids.update((payload.get("changes") or {}).get(key) for key in ("winner", "loser"))
    return {i for i in ids if isinstance(i, int)}


def rating_history(*, ladder: Ladder, user) -> QuerySet:
    return RatingPoint.objects.filter(ladder=ladder, user=user).order_by("seq")


def challenge_list(*, ladder: Ladder, status: str | None = None, player=None) -> QuerySet:
    challenges = Challenge.objects.filter(ladder=ladder).select_related("challenger", "defender")
    if status:
        challenges = challenges.filter(status=status)
    if player is not None:
        challenges = challenges.filter(Q(challenger=player) | Q(defender=player))
    return challenges


def challenge_get(*, challenge_id) -> Challenge | None:
    try:
        return (
            Challenge.objects.select_related("ladder__club", "challenger", "defender").filter(pk=challenge_id).first()
        )
    except (ValueError, TypeError):
        return None


def match_get(*, match_id) -> Match | None:
    try:
        return Match.objects.filter(pk=match_id).first()
    except (ValueError, TypeError):
        return None


def match_games(*, match: Match) -> list[LeagueGame]:
    return list(LeagueGame.objects.filter(match=match).select_related("game").order_by("number"))


# ---- for the web pages ------------------------------------------------------------------------
def challengeable(*, ladder: Ladder, viewer) -> set[int]:
    """User ids ``viewer`` may challenge now by the ladder's position rules (range, free
    challenges) and open-challenge limits; the rematch cooldown is left to ``challenge_create``,
    which says until when. Empty for visitors, non-members and rating ladders."""
    if ladder.kind != rules.CHALLENGE or not is_member(ladder.club, viewer):
        return set()
    limit = ladder.settings.get("max_open_challenges", 1)
    open_counts: dict[int, int] = {}
    for challenger, defender in Challenge.objects.filter(ladder=ladder, status__in=Challenge.OPEN).values_list(
        "challenger_id", "defender_id"
    ):
        for user_id in (challenger, defender):
            open_counts[user_id] = open_counts.get(user_id, 0) + 1
    if open_counts.get(viewer.pk, 0) >= limit:
        return set()
    projection = projection_stored(ladder)
    positions = projection.positions()
    record = projection.players.get(viewer.pk)
    free_left = record.free_challenges_left if record else 0
    allowed = set()
    for user_id in projection.order:
        if open_counts.get(user_id, 0) >= limit:
            continue
        try:
            rules.check_challenge_at(projection.settings, viewer.pk, user_id, positions, free_left)
        except rules.ChallengeRefused:
            continue
        allowed.add(user_id)
    return allowed


def rating_histories(*, ladder: Ladder) -> dict[int, list[RatingPoint]]:
    """Every player's rating history on the ladder, oldest first, by user id (one query)."""
    histories: dict[int, list[RatingPoint]] = {}
    for point in RatingPoint.objects.filter(ladder=ladder).order_by("user_id", "seq"):
        histories.setdefault(point.user_id, []).append(point)
    return histories


def player_memberships(*, user) -> QuerySet:
    """The clubs a player is an active member of."""
    return Membership.objects.filter(user=user, status=Membership.Status.ACTIVE).select_related("club")


def player_entries(*, user) -> QuerySet:
    """The ladders a player is on, with their place or rating."""
    return (
        LadderEntry.objects.filter(user=user)
        .select_related("ladder__club")
        .order_by("ladder__club__name", "ladder__name")
    )


def player_rating_points(*, user) -> QuerySet:
    """A player's rating history on every ladder, oldest first."""
    return RatingPoint.objects.filter(user=user).select_related("ladder").order_by("ladder_id", "seq")
