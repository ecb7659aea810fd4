"""Reads of tournaments: lists, one tournament, its rounds and standings; nothing here writes."""

from __future__ import annotations

from django.db.models import QuerySet

from games.selectors import mature_engines, may_see_mature

from ..models import Club, Tournament, TournamentBoard, TournamentEntry, TournamentRound
from ..scoring.standings import Row
from .standings import group_standings, standings_rows


def _visible(tournaments: QuerySet, viewer) -> QuerySet:
    """Tournaments of mature games only for a viewer who consented, as ``games.selectors.game_list``
    shows mature games: without consent they are missing from lists and each answers 404."""
    return tournaments if may_see_mature(viewer) else tournaments.exclude(engine__in=mature_engines())


def tournament_list(*, club: Club, viewer) -> QuerySet:
    return _visible(Tournament.objects.filter(club=club).select_related("club"), viewer)


def player_entries(*, user, viewer) -> QuerySet:
    """``user``'s tournament entries, newest tournament first, as ``viewer`` may see them."""
    entries = TournamentEntry.objects.filter(user=user).select_related("tournament__club")
    if not may_see_mature(viewer):
        entries = entries.exclude(tournament__engine__in=mature_engines())
    return entries.order_by("-tournament__created_at")


def tournament_get(*, tournament_id, viewer) -> Tournament | None:
    try:
        return _visible(Tournament.objects.select_related("club").filter(pk=tournament_id), viewer).first()
    except (ValueError, TypeError):
        return None


def board_list(*, tournament: Tournament, round: int | None = None) -> QuerySet:
    boards = TournamentBoard.objects.filter(tournament=tournament).select_related("first", "second", "game", "match")
    return boards.filter(round=round) if round is not None else boards


def round_get(*, tournament: Tournament, number: int) -> TournamentRound | None:
    return TournamentRound.objects.select_related("tournament").filter(tournament=tournament, number=number).first()


FINISHED = "finished"


def entry_status(tournament: Tournament, status: str) -> str:
    """An entry's status as readers see it: ``active`` (entered, or still playing), ``dropped``, or
    ``finished`` for an entry that stayed to the end of a finished tournament (the stored status
    stays ``active``: it is what pairing reads)."""
    if status == TournamentEntry.Status.ACTIVE and tournament.status == Tournament.Status.FINISHED:
        return FINISHED
    return status


def tournament_standings(*, tournament: Tournament) -> list[dict]:
    """The frozen final standings once finished; otherwise computed from the results so far. Each
    row's ``status`` is ``entry_status`` (new dicts: the cached and frozen rows are not touched)."""
    if tournament.final_standings is not None:
        rows = tournament.final_standings
    else:
        rows = standings_rows(tournament)
    if tournament.status != Tournament.Status.FINISHED:
        return rows
    active = TournamentEntry.Status.ACTIVE
    return [{**row, "status": entry_status(tournament, row.get("status", active))} for row in rows]


def final_places(*, tournament: Tournament) -> dict[str, int]:
    """Each entrant's final rank by username once the tournament has finished; empty before."""
    if tournament.status != Tournament.Status.FINISHED:
        return {}
    return {row["username"]: row["rank"] for row in tournament_standings(tournament=tournament)}


def tournament_group_standings(*, tournament: Tournament) -> list[list[Row]]:
    """groups_playoff: each group's standings rows (best first), in group order."""
    return group_standings(tournament)


def points_by_round(*, tournament: Tournament) -> dict[str, list[float]]:
    """Each entrant's tournament points in rounds 1, 2, ... (a bye's points included; 0 where a
    round has no decided board of theirs, such as a round missed before a late entry), by
    username: the standings-by-round chart's data."""
    rounds = tournament.current_round or 0
    names = dict(TournamentEntry.objects.filter(tournament=tournament).values_list("user_id", "user__username"))
    result = {name: [0.0] * rounds for name in names.values()}
    decided = TournamentBoard.objects.filter(tournament=tournament, points__isnull=False, round__lte=rounds)
    for board in decided.values("round", "points"):
        for pk, value in board["points"].items():
            name = names.get(int(pk))
            if name is not None:
                result[name][board["round"] - 1] += value
    return result
