"""Seeding at the start: the pairing numbers (1 = first seed) from the organiser's list, the club's
rating ladder for the game, or a draw; by default they stay in entry order.

The ``seeding`` setting (``entry``, ``rating``, ``random``) is applied by ``tournament_start`` when
the organiser does not list the seeds by hand. ``rating`` reads the club's rating ladder of the
tournament's game at that moment: the higher ordinal (mu - 3 sigma, the ladder's own order) first;
entrants the ladder has not rated (never played a rated game there) follow, in entry order. A draw
shuffles with the tournament's seed, so the same tournament always draws the same order. Every
format seeds from the numbers (Swiss and round robin pair by them, brackets place seed 1 and 2 on
opposite halves, groups snake through them), so this one step seeds them all.
"""

from __future__ import annotations

import random

from django.db.models import Max

from games.services import ServiceError

from ..models import Ladder, LadderEntry, Tournament, TournamentEntry
from ..scoring.ladder import RATING
from .settings import SEEDING

ENTRY, BY_RATING, RANDOM = SEEDING


def rating_ladder(*, club_id, engine: str) -> Ladder | None:
    """The club's rating ladder for ``engine`` (a club has at most one per game)."""
    return Ladder.objects.filter(club_id=club_id, engine=engine, kind=RATING).first()


def require_rating_ladder(*, club_id, engine: str) -> None:
    """Refuse seeding by rating when the club has no rating ladder for the game."""
    if rating_ladder(club_id=club_id, engine=engine) is None:
        raise ServiceError(
            "no_rating_ladder",
            f'seeding "rating" reads the club\'s rating ladder for {engine}, and the club has none; '
            'create one first, or use seeding "entry" or "random"',
        )


def rating_order(entrants: list[int], ratings: dict[int, float]) -> list[int]:
    """``entrants`` (user ids in entry order) by rating, highest first; equal ratings keep entry
    order, and the unrated follow the rated in entry order."""
    rated = sorted((pk for pk in entrants if pk in ratings), key=lambda pk: -ratings[pk])  # stable
    return rated + [pk for pk in entrants if pk not in ratings]


def seeds_fix(tournament: Tournament, seeding: list | None) -> None:
    """Set the pairing numbers at the start (tournament row locked): the organiser's ``seeding``
    (users, best first) if given, else the tournament's ``seeding`` setting."""
    method = tournament.settings.get("seeding", ENTRY)
    if seeding is not None:
        ids = [getattr(user, "pk", user) for user in seeding]
    elif method == ENTRY:
        return
    else:
        entrants = list(tournament.entries.order_by("number").values_list("user_id", flat=True))
        if method == RANDOM:
            ids = list(entrants)
            random.Random(tournament.seed).shuffle(ids)  # a reproducible draw: the seed is the record
        else:
            ladder = rating_ladder(club_id=tournament.club_id, engine=tournament.engine)
            rows = LadderEntry.objects.filter(ladder=ladder, user_id__in=entrants, ordinal__isnull=False)
            ids = rating_order(entrants, dict(rows.values_list("user_id", "ordinal")))
    _renumber(tournament, ids)


def _renumber(tournament: Tournament, ids: list[int]) -> None:
    entries = {entry.user_id: entry for entry in tournament.entries.all()}
    if len(set(ids)) != len(ids) or set(ids) != set(entries):
        raise ServiceError(
            "invalid_seeding", "the seeding lists every entrant exactly once (usernames, best first), nobody else"
        )
    offset = len(entries) + (tournament.entries.aggregate(top=Max("number"))["top"] or 0)
    for entry in entries.values():  # two statements: numbers are unique within the tournament
        entry.number += offset
    TournamentEntry.objects.bulk_update(entries.values(), ["number"])
    for number, pk in enumerate(ids, start=1):
        entries[pk].number = number
    TournamentEntry.objects.bulk_update(entries.values(), ["number"])
