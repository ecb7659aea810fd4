"""Reads of tournaments: lists, one tournament, its rounds and standings; nothing here writes."""

from __future__ import annotations

from django.db.models import QuerySet

from ..models import Club, Tournament, TournamentBoard, TournamentRound
from ..scoring.standings import Row
from .standings import group_standings, standings_rows


def tournament_list(*, club: Club) -> QuerySet:
    return Tournament.objects.filter(club=club).select_related("club")


def tournament_get(*, tournament_id) -> Tournament | None:
    try:
        return Tournament.objects.select_related("club").filter(pk=tournament_id).first()
    except (ValueError, TypeError):
        return None


def board_list(*, tournament: Tournament, round: int | None = None) -> QuerySet:
    boards = TournamentBoard.objects.filter(tournament=tournament).select_related("first", "second", "game", "match")
    return boards.filter(round=round) if round is not None else boards


def round_get(*, tournament: Tournament, number: int) -> TournamentRound | None:
    return TournamentRound.objects.select_related("tournament").filter(tournament=tournament, number=number).first()


def tournament_standings(*, tournament: Tournament) -> list[dict]:
    """The frozen final standings once finished; otherwise computed from the results so far."""
    if tournament.final_standings is not None:
        return tournament.final_standings
    return standings_rows(tournament)


def tournament_group_standings(*, tournament: Tournament) -> list[list[Row]]:
    """groups_playoff: each group's standings rows (best first), in group order."""
    return group_standings(tournament)
