"""Round operations of a running tournament: check-in, drops, manual pairings, result corrections
and the round-deadline sweep (forfeits). Every write locks the tournament row first."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from games.models import Event, Game
from games.services import ServiceError, game_advance, game_forfeit
from kifu.locking import lock_by_id

from ..models import LeagueGame, Match, ResultReport, Tournament, TournamentBoard, TournamentEntry, TournamentRound
from ..services.matches import current_game, game_ranking
from ..services.membership import require_organiser
from ..services.results import league_game_finished
from .boards import Decided, complete_check, create_round, decide, forfeit_board, tournament_lock
from .pairing import table_error
from .settings import ELIMINATION, Format
from .standings import standings_rows

Status = Tournament.Status
Entry = TournamentEntry.Status


def _entry(tournament: Tournament, player) -> TournamentEntry:
    entry = tournament.entries.filter(user=player).first()
    if entry is None:
        raise ServiceError("not_entered", f"{player.get_username()} has not entered this tournament", status=404)
    return entry


# ---- check-in and drops --------------------------------------------------------------------------
@transaction.atomic
def tournament_check_in(*, tournament_id, by, player=None, now: datetime | None = None) -> TournamentEntry:
    """An entrant confirms they will play (an organiser may check anyone in). With the tournament's
    ``check_in`` setting on, only checked-in entries are paired when it starts."""
    now = now or timezone.now()
    tournament = tournament_lock(tournament_id)
    player = player or by
    if player != by:
        require_organiser(tournament.club_id, by)
    if not tournament.settings.get("check_in"):
        raise ServiceError("check_in_off", "this tournament has no check-in (its check_in setting is off)")
    if tournament.status != Status.OPEN:
        raise ServiceError("tournament_started", "check-in closed when the tournament started", status=409)
    entry = _entry(tournament, player)
    if entry.checked_in_at is None:
        entry.checked_in_at = now
        entry.save(update_fields=["checked_in_at"])
    return entry


@transaction.atomic
def tournament_drop(*, tournament_id, by, player=None, now: datetime | None = None) -> TournamentEntry | None:
    """A player withdraws (an organiser may drop anyone). Before the start the entry is removed;
    once running, the player keeps their results and is not paired again - a game they are
    playing now still counts (resign it to concede). Returns the entry (None if removed)."""
    now = now or timezone.now()
    tournament = tournament_lock(tournament_id)
    player = player or by
    if player != by:
        require_organiser(tournament.club_id, by)
    if tournament.status == Status.FINISHED:
        raise ServiceError("tournament_finished", "the tournament is over", status=409)
    entry = _entry(tournament, player)
    if entry.status == Entry.DROPPED:
        raise ServiceError("already_dropped", f"{player.get_username()} has already withdrawn", status=409)
    if tournament.status == Status.OPEN:
        entry.delete()
        return None
    entry.status, entry.dropped_at, entry.dropped_after_round = Entry.DROPPED, now, tournament.current_round
    entry.save(update_fields=["status", "dropped_at", "dropped_after_round"])
    return entry


# ---- manual pairings (the tables are checked by ``pairing.table_error``) ---------------------------
def _round_played(tournament: Tournament, number: int) -> bool:
    boards = tournament.boards.filter(round=number)
    if boards.filter(decided_by__in=[Decided.GAME, Decided.MATCH, Decided.CORRECTION]).exists():
        return True
    games = list(boards.exclude(game=None).values_list("game_id", flat=True))
    matches = list(boards.exclude(match=None).values_list("match_id", flat=True))
    games += list(LeagueGame.objects.filter(match_id__in=matches).values_list("game_id", flat=True))
    return Event.objects.filter(game_id__in=games, kind="move").exists()


@transaction.atomic
def tournament_pairing_set(*, tournament_id, by, round: int, tables: list[list], now: datetime | None = None) -> dict:
    """An organiser sets the pairing of a Swiss round: the next round before it is paired (it is
    used when the round is made, if it still seats exactly the active players; otherwise the
    automatic pairing is used and the round records why), or the current round again while no move
    has been played in it (its games are closed by system resigns marked "re-paired", and new games
    start).
    ``tables`` are lists of users in seat order; a table of one is a bye."""
    now = now or timezone.now()
    tournament = tournament_lock(tournament_id)
    require_organiser(tournament.club_id, by)
    if tournament.format not in (Format.SWISS, Format.MULTI_SWISS):
        raise ServiceError("manual_pairing_not_supported", "manual pairings are for swiss and multi_swiss")
    if tournament.status == Status.FINISHED:
        raise ServiceError("tournament_finished", "the tournament is over", status=409)
    ids = [[getattr(user, "pk", user) for user in table] for table in tables]
    entrants = set(tournament.entries.values_list("user_id", flat=True))
    if any(pk not in entrants for table in ids for pk in table):
        raise ServiceError("unknown_player", "every player of a manual pairing must have entered the tournament")
    next_round = tournament.current_round + 1
    if round not in (next_round, tournament.current_round) or round < 1:
        raise ServiceError(
            "round_not_pairable",
            f"only the next round ({next_round}) or the current unplayed round can be paired by hand",
            status=409,
        )
    error = table_error(tournament, round, ids)
    if error:
        raise ServiceError("invalid_pairing", error)
    if round == next_round:
        if tournament.status == Status.RUNNING and tournament.rounds and round > tournament.rounds:
            raise ServiceError("round_not_pairable", f"the tournament has {tournament.rounds} rounds", status=409)
        TournamentRound.objects.update_or_create(
            tournament=tournament,
            number=round,
            defaults={"manual": True, "pairing_input": {"tables": ids}, "created_at": now},
        )
        return {"round": round, "planned": True}
    if tournament.status != Status.RUNNING or _round_played(tournament, round):
        raise ServiceError("round_played", f"round {round} has been played; correct results instead", status=409)
    _close_round(tournament, round, now=now)
    previous = TournamentRound.objects.get(tournament=tournament, number=round)
    create_round(
        tournament, round, ids, seed=previous.seed, data={"tables": ids, "replaced": previous.pairing_input},
        manual=True, now=now,
    )  # fmt: skip
    return {"round": round, "planned": False}


def _close_round(tournament: Tournament, number: int, *, now: datetime) -> None:
    """Remove a round's boards and close their games (``games.services.game_forfeit``: every seat
    resigns, marked "re-paired")."""
    for board in list(tournament.boards.filter(round=number).select_related("game", "match")):
        game = board.game
        if board.match_id:
            Match.objects.filter(pk=board.match_id).update(status=Match.Status.ABANDONED, finished_at=now)
            game = current_game(board.match)
        board.delete()  # first, so the games' ends are no results
        if game is not None:
            end_game(game, [], reason=REPAIRED, now=now)


# ---- corrections ---------------------------------------------------------------------------------
@transaction.atomic
def tournament_result_correct(
    *, tournament_id, by, round: int, board: int, ranking: list[list] | None = None, double_forfeit: bool = False,
    now: datetime | None = None,
) -> TournamentBoard:  # fmt: skip
    """An organiser sets a board's result: ``ranking`` (users best first, ties grouped) or a double
    forfeit. Standings recompute from the boards; a correction that completes the current round
    pairs the next one from the corrected standings. A bracket board cannot change once a later
    round is paired (its winner has already moved on)."""
    now = now or timezone.now()
    tournament = tournament_lock(tournament_id)
    require_organiser(tournament.club_id, by)
    target = TournamentBoard.objects.select_for_update(of=("self",)).filter(
        tournament=tournament, round=round, number=board
    )
    target = target.select_related("game").first()
    if target is None:
        raise ServiceError("board_not_found", f"round {round} has no board {board}", status=404)
    if target.is_bye:
        raise ServiceError("bye_not_correctable", "a bye has no result to correct")
    if tournament.format in ELIMINATION and target.round < tournament.current_round:
        raise ServiceError("bracket_advanced", "a later bracket round is already paired from this result", status=409)
    seats = target.seat_ids
    if double_forfeit:
        if ranking:
            raise ServiceError("invalid_ranking", "send a ranking or double_forfeit, not both")
        how, ranking_ids = Decided.DOUBLE_FORFEIT, [list(seats)]
    else:
        ranking_ids = [[getattr(user, "pk", user) for user in group] for group in ranking or []]
        flat = [pk for group in ranking_ids for pk in group]
        if sorted(flat) != sorted(seats) or any(not group for group in ranking_ids):
            raise ServiceError(
                "invalid_ranking", "the ranking lists each player of the board exactly once (best first, ties grouped)"
            )
        how = Decided.CORRECTION
    if target.match_id:
        Match.objects.filter(pk=target.match_id, status=Match.Status.RUNNING).update(
            status=Match.Status.ABANDONED, finished_at=now
        )
    decide(target, tournament, ranking_ids, how, now=now, scores=None)
    if tournament.status == Status.FINISHED:
        tournament.final_standings = standings_rows(tournament)
        tournament.save(update_fields=["final_standings"])
    else:
        complete_check(tournament, target)
    return target


# ---- round deadlines -----------------------------------------------------------------------------
ROUND_DEADLINE = "round deadline"  # the reasons the games' records give for a forfeit
REPAIRED = "re-paired"


def end_game(game: Game, first: list[int], *, reason: str, now: datetime) -> None:
    """End a running game by system resign events marked with ``reason``
    (``games.services.game_forfeit``, so no player is made to submit anything): the seats in
    ``first`` resign first, then - if the engine plays on without them - the others in seat order.
    A game already over is left as it is; one never started (seats not accepted) has nothing to end."""
    if game.status != Game.Status.RUNNING:
        return
    seats = sorted(game.seats.values_list("index", flat=True))
    if first:
        game = game_forfeit(game_id=game.pk, seats=first, reason=reason, now=now)
    rest = [seat for seat in seats if seat not in first]
    if not game.is_finished and rest:
        game_forfeit(game_id=game.pk, seats=rest, reason=reason, now=now)


def tournaments_sweep(*, now: datetime | None = None) -> int:
    """Forfeit the unfinished boards of every current round whose deadline has passed (beat / the
    embedded timer). Returns the number of boards decided."""
    now = now or timezone.now()
    due = TournamentRound.objects.filter(
        deadline_at__lte=now, tournament__status=Status.RUNNING, number=F("tournament__current_round")
    ).values_list("tournament_id", flat=True)
    return sum(tournament_deadline(tournament_id=pk, now=now) for pk in list(due))


@transaction.atomic
def tournament_deadline(*, tournament_id, now: datetime | None = None) -> int:
    """Apply the current round's deadline if it has passed: each unfinished board is decided - a
    game finished in time is recorded; otherwise the players the game waits on forfeit (one-sided),
    and if it waits on everyone or nobody has moved yet, everyone loses (double forfeit). The game is
    then ended by system resigns marked "round deadline" (``games.services.game_forfeit``). Returns
    the boards decided."""
    now = now or timezone.now()
    tournament = tournament_lock(tournament_id)
    current = TournamentRound.objects.filter(tournament=tournament, number=tournament.current_round).first()
    if tournament.status != Status.RUNNING or current is None or not current.deadline_at or current.deadline_at > now:
        return 0
    decided = 0
    reported = [int(pk) for pk in ResultReport.open_pairings(ResultReport.Kind.BOARD, tournament=tournament)]
    for board in list(
        tournament.boards.filter(round=current.number, finished_at__isnull=True).exclude(pk__in=reported)
    ):
        _board_deadline(tournament, board, now)
        decided += 1
    if decided:
        complete_check(tournament, board)
    return decided


def _board_deadline(tournament: Tournament, board: TournamentBoard, now: datetime) -> None:
    match = lock_by_id(Match, board.match_id) if board.match_id else None
    game = current_game(match) if match else lock_by_id(Game, board.game_id)
    if not game.is_finished:
        # Moves that arrived before the sweep but wait for a worker are applied first: a game the
        # players finished in time is a result, whatever the queue's lag.
        game_advance(game_id=game.pk)
        game.refresh_from_db()
    if match is None and game.is_finished:  # finished in time; its task has not run yet
        ranking, scores = game_ranking(game)
        decide(board, tournament, ranking, Decided.GAME, now=now, scores=scores)
        return
    if match is not None and game.is_finished:
        league_game_finished(game_id=game.pk, now=now)
        match.refresh_from_db()
        if match.status == Match.Status.FINISHED:
            totals = {int(pk): value for pk, value in match.totals.items()}
            decide(board, tournament, match.result, Decided.MATCH, now=now, scores=totals)
            return
        game = current_game(match)
    if game.status in (Game.Status.OPEN, Game.Status.CANCELLED):
        # A mature game starts when every player has accepted their seat: those who did not (or
        # declined, which cancels it) lose; the game never started, so there is nothing to end.
        unaccepted = list(game.seats.filter(accepted_at__isnull=True).values_list("user_id", flat=True))
        forfeit_board(board, tournament, unaccepted, now=now)
        return
    seats = dict(game.seats.values_list("index", "user_id"))
    waiting = sorted(game.actors) if not game.is_finished else []
    games = [game.pk]
    if match is not None:
        games = list(LeagueGame.objects.filter(match=match).values_list("game_id", flat=True))
        match.status, match.finished_at = Match.Status.ABANDONED, now
        match.save(update_fields=["status", "finished_at"])
    # "Nobody has played": no move in any game of the board (a match with a finished game has been played).
    moved = Event.objects.filter(game_id__in=games, kind="move").exists() or any(
        Game.objects.filter(pk__in=games, status=Game.Status.FINISHED).exclude(pk=game.pk).values_list("pk")
    )
    if not moved or not waiting or len(waiting) == len(seats):
        losers = list(seats.values())
    else:
        losers = [seats[seat] for seat in waiting]
    forfeit_board(board, tournament, losers, now=now)
    if not game.is_finished:
        end_game(game, waiting, reason=ROUND_DEADLINE, now=now)
