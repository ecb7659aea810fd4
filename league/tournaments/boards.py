"""Tournament boards: the tournament lock, the entries in play, storing a round with a board (a game,
a match or a bye) per table, deciding a board, and the ``round_complete`` signal.

A board is decided here whatever decided it (its game, its match, a forfeit, a correction); when
the decision leaves the current round with nothing to wait for, ``round_complete`` is sent on
commit. This floor never imports a task: ``LeagueConfig.ready`` connects the signal to
``league.tournaments.tasks.queue_advance``, which queues ``tournament_advance_task`` - so the
services stay below the tasks that call them, and the only way a service queues the next round is
this one signal.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.dispatch import Signal

from games.engines import get_engine
from games.errors import not_found
from games.models import MatureConsent
from games.services import game_create
from kifu.locking import lock_by_id

from ..models import Tournament, TournamentBoard, TournamentEntry, TournamentRound
from ..scoring.placements import placement_points
from ..services.matches import match_start
from .settings import Format

Decided = TournamentBoard.Decided

round_complete = Signal()
"""Sent after the commit that left a running tournament's current round with no board to wait for;
keyword ``tournament_id``. Receivers: ``league.tournaments.tasks.queue_advance``."""


def tournament_lock(tournament_id) -> Tournament:
    """The tournament row, locked (``SELECT ... FOR UPDATE``): every tournament write takes it first,
    so two finishing games (or a task and an organiser) never pair the same round twice."""
    return lock_by_id(Tournament, tournament_id, missing=not_found("tournament"))


# ---- entries in play ---------------------------------------------------------------------------
def active_players(tournament: Tournament, number: int) -> list[int]:
    """User ids of the entries to pair in round ``number``, in pairing-number order."""
    return list(
        tournament.entries.filter(status=TournamentEntry.Status.ACTIVE, first_round__lte=number)
        .order_by("number")
        .values_list("user_id", flat=True)
    )


def late_points(tournament: Tournament) -> dict[int, float]:
    """Points a late entrant gets for the rounds before they joined."""
    return {user: sum(values) for user, values in missed_rounds(tournament).items()}


def missed_rounds(tournament: Tournament) -> dict[int, list[float]]:
    """A late entrant's rounds before they joined, each with the points it gives
    (``late_entry_points``, default 0): unplayed rounds for the tiebreaks."""
    per_round = tournament.settings.get("late_entry_points", 0.0)
    return {
        user: [per_round] * (first - 1)
        for user, first in tournament.entries.filter(first_round__gt=1).values_list("user_id", "first_round")
    }


# ---- rounds and boards -------------------------------------------------------------------------
def round_waiting(tournament: Tournament, number: int) -> bool:
    return tournament.boards.filter(round=number, finished_at__isnull=True).exists()


def _round_complete_on_commit(tournament_id: int) -> None:
    transaction.on_commit(lambda: round_complete.send(sender=Tournament, tournament_id=tournament_id))


def create_round(
    tournament: Tournament,
    number: int,
    tables: list[list],
    *,
    seed: int,
    data: dict,
    now: datetime,
    manual: bool = False,
    stage: str = "",
    bracket_ids: list[str] | None = None,
) -> list[TournamentBoard]:
    """Store the round and create a board (a game, a match or a bye) for each table (user ids in
    seat order). Boards of dropped players are decided at once as forfeits."""
    deadline = tournament.settings.get("round_deadline_seconds")
    TournamentRound.objects.update_or_create(
        tournament=tournament,
        number=number,
        defaults={
            "seed": seed,
            "pairing_input": data,
            "manual": manual,
            "stage": stage,
            "deadline_at": now + timedelta(seconds=deadline) if deadline else None,
            "created_at": now,
        },
    )
    users = {entry.user_id: entry for entry in tournament.entries.select_related("user")}
    refused = _without_consent(tournament, users)
    boards = []
    for index, table in enumerate(tables, start=1):
        bracket_id = bracket_ids[index - 1] if bracket_ids else ""
        entries = [users[pk] for pk in table]
        boards.append(_board(tournament, number, index, entries, bracket_id=bracket_id, refused=refused, now=now))
    tournament.current_round = number
    tournament.save(update_fields=["current_round"])
    if not round_waiting(tournament, number):  # nothing to wait for
        _round_complete_on_commit(tournament.pk)
    return boards


def _without_consent(tournament: Tournament, users: dict) -> set[int]:
    """Of a mature tournament, the entrants (and the organiser) who have withdrawn their
    mature-content consent since entering: a game of theirs cannot be created (``game_create``
    refuses it), so their boards are forfeits, as a dropped player's are."""
    if not get_engine(tournament.engine).mature:
        return set()
    ids = [*users, tournament.created_by_id]
    consenting = set(MatureConsent.objects.filter(user_id__in=ids).values_list("user_id", flat=True))
    return {pk for pk in ids if pk is not None and pk not in consenting}


def _board(
    tournament: Tournament, number: int, index: int, entries: list, *, bracket_id: str, refused: set, now
) -> TournamentBoard:
    seats = [entry.user for entry in entries]
    board = TournamentBoard(
        tournament=tournament,
        round=number,
        number=index,
        first=seats[0],
        second=seats[1] if len(seats) > 1 else None,
        players=[user.pk for user in seats],
        bracket_match=bracket_id,
    )
    dropped = [e.user_id for e in entries if e.status == TournamentEntry.Status.DROPPED or e.user_id in refused]
    if len(seats) == 1:
        board.save()
        decide(board, tournament, [[seats[0].pk]], Decided.BYE, now=now)
    elif dropped:
        board.save()
        forfeit_board(board, tournament, dropped, now=now)
    elif tournament.settings.get("match"):
        board.match = match_start(
            engine=tournament.engine,
            config=tournament.game_config,
            spec=tournament.settings["match"],
            players=seats,
            by=tournament.created_by,
            now=now,
        )
        board.save()
    else:
        board.game = game_create(
            engine_slug=tournament.engine,
            config=tournament.game_config,
            seats=seats,
            # an organiser who withdrew mature-content consent no longer moderates the games
            created_by=None if tournament.created_by_id in refused else tournament.created_by,
            consent=True,  # entering the tournament was the players' consent (a mature game still asks each)
        )
        board.save()
    return board


# ---- results -----------------------------------------------------------------------------------
def bye_points(tournament: Tournament) -> float:
    """A Swiss bye scores a point (FIDE C.04.1 d), a multiplayer Swiss bye ``bye_points``; a
    round-robin bye is a round off and scores nothing; elimination byes are no results."""
    if tournament.format == Format.SWISS:
        return 1.0
    if tournament.format == Format.MULTI_SWISS:
        return tournament.settings["bye_points"]
    return 0.0


def decide(
    board: TournamentBoard,
    tournament: Tournament,
    ranking: list[list[int]],
    how: str,
    *,
    now: datetime,
    scores: dict | None = None,
) -> None:
    """Record a board's result (locks held): placements, points, and on two seats score_first."""
    seats = board.seat_ids
    if how == Decided.BYE:
        points = {str(seats[0]): bye_points(tournament)}
    elif how == Decided.DOUBLE_FORFEIT:
        points = {str(pk): 0.0 for pk in seats}
    else:
        table = tournament.settings.get("placement_points") if len(seats) > 2 else None
        points = {str(pk): value for pk, value in placement_points(ranking, table).items()}
    board.placements = [list(group) for group in ranking]
    board.points = points
    board.decided_by = how
    board.finished_at = now
    if scores is not None:
        board.game_scores = {str(pk): float(scores.get(pk, 0) or 0) for pk in seats}
        board.games_first = board.game_scores[str(seats[0])]
        board.games_second = board.game_scores.get(str(seats[1]), 0.0) if len(seats) > 1 else 0.0
    if len(seats) == 2:
        board.score_first = points[str(seats[0])]
    board.save()


def forfeit_board(board: TournamentBoard, tournament: Tournament, losers, *, now: datetime) -> None:
    """The ``losers`` forfeit: the others share first place; everyone losing is a double forfeit."""
    losers = [pk for pk in board.seat_ids if pk in set(losers)]
    others = [pk for pk in board.seat_ids if pk not in set(losers)]
    if not others:
        decide(board, tournament, [losers], Decided.DOUBLE_FORFEIT, now=now)
    else:
        decide(board, tournament, [others, losers], Decided.FORFEIT, now=now)


def complete_check(tournament: Tournament, board: TournamentBoard) -> None:
    """When ``board`` completed the current round, send ``round_complete`` on commit (its receiver
    queues the task that pairs the next round)."""
    if board.round == tournament.current_round and not round_waiting(tournament, board.round):
        _round_complete_on_commit(tournament.pk)
