"""Tournaments: create, enter, start, pair rounds (games via games.services), take results, finish.

Round robin pairs from the Berger tables fixed at the start; Swiss pairs each round from the
results so far (``league.scoring.swiss``). Results arrive on the game_finished path
(league.receivers -> league.tasks.tournament_game_finished_task -> ``tournament_game_finished``);
when the last board of a round is done, ``tournament_advance_task`` is queued on commit and pairs
the next round or finishes the tournament. Every write locks the tournament row first, so two
finishing games (or a task and an organiser) never pair the same round twice.
"""

from __future__ import annotations

import math
import secrets
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from games.engines import UnknownGame, get_engine
from games.engines.base import RuleError
from games.models import Game
from games.services import ServiceError, game_create

from ..models import Tournament, TournamentBoard, TournamentEntry
from ..scoring import roundrobin, swiss
from ..scoring import standings as tiebreak_rules
from .clubs import is_organiser, require_member, require_organiser

Format, Status = Tournament.Format, Tournament.Status
DEFAULT_TIEBREAKS = {
    Format.ROUND_ROBIN: ["direct_encounter", "sonneborn_berger", "game_points"],
    Format.SWISS: ["buchholz_cut1", "buchholz", "sonneborn_berger", "direct_encounter"],
}
MAX_ENTRIES = 2000


def _lock(tournament_id) -> Tournament:
    try:
        return Tournament.objects.select_for_update().get(pk=tournament_id)
    except (Tournament.DoesNotExist, ValueError, TypeError):
        raise ServiceError("not_found", "no such tournament", status=404) from None


@transaction.atomic
def tournament_create(
    *,
    club_id,
    by,
    name: str,
    engine: str,
    format: str,
    config: dict | None = None,
    rounds: int | None = None,
    cycles: int = 1,
    tiebreaks: list[str] | None = None,
    seed: int | None = None,
    now: datetime | None = None,
) -> Tournament:
    """An organiser of the club opens a tournament for entries (two-player games only)."""
    now = now or timezone.now()
    require_organiser(club_id, by)
    if format not in Format.values:
        raise ServiceError("invalid_format", f"format must be one of {', '.join(Format.values)}, not {format!r}")
    try:
        game = get_engine(engine)
        game.check_seats(2)
        full_config = game.validate_config(config)
    except UnknownGame as error:
        raise ServiceError(error.code, error.message) from None
    except RuleError as error:
        raise ServiceError(error.code, f"tournaments pair two players a game: {error.message}") from None
    if game.mature:
        raise ServiceError("mature_not_supported", "tournaments of mature games are not supported yet")
    if cycles not in (1, 2) or (format == Format.SWISS and cycles != 1):
        raise ServiceError("invalid_cycles", "cycles is 1 or 2, and only for a round robin")
    if rounds is not None and (format != Format.SWISS or isinstance(rounds, bool) or not 1 <= rounds <= 100):
        raise ServiceError("invalid_rounds", "rounds is set only for a Swiss tournament, from 1 to 100")
    tiebreaks = list(DEFAULT_TIEBREAKS[format] if tiebreaks is None else tiebreaks)
    unknown = [t for t in tiebreaks if t not in tiebreak_rules.TIEBREAKS]
    if unknown or len(set(tiebreaks)) != len(tiebreaks):
        raise ServiceError(
            "invalid_tiebreaks",
            f"tiebreaks are distinct names from: {', '.join(tiebreak_rules.TIEBREAKS)}"
            + (f" (unknown: {', '.join(map(str, unknown))})" if unknown else ""),
        )
    return Tournament.objects.create(
        club_id=club_id,
        name=name.strip() or "Tournament",
        format=format,
        engine=game.slug,
        game_config=full_config,
        cycles=cycles,
        rounds=rounds,
        tiebreaks=tiebreaks,
        seed=secrets.randbelow(2**62) if seed is None else seed,
        created_by=by,
        created_at=now,
    )


@transaction.atomic
def tournament_enter(*, tournament_id, by, player=None, now: datetime | None = None) -> TournamentEntry:
    """A club member enters themselves; an organiser may enter any member. Entry order is the
    pairing number (the initial ranking) unless the organiser reorders it before the start."""
    now = now or timezone.now()
    tournament = _lock(tournament_id)
    player = player or by
    if player != by:
        require_organiser(tournament.club_id, by)
    require_member(tournament.club_id, player)
    if tournament.status != Status.OPEN:
        raise ServiceError("tournament_started", "entries are closed: the tournament has started", status=409)
    if tournament.entries.filter(user=player).exists():
        raise ServiceError("already_entered", f"{player.get_username()} has already entered", status=409)
    count = tournament.entries.count()
    if count >= MAX_ENTRIES:
        raise ServiceError("tournament_full", f"a tournament takes at most {MAX_ENTRIES} entries", status=409)
    return TournamentEntry.objects.create(tournament=tournament, user=player, number=count + 1, created_at=now)


@transaction.atomic
def tournament_start(*, tournament_id, by, now: datetime | None = None) -> Tournament:
    """Close entries and pair round 1. Swiss: ``rounds`` defaults to ceil(log2(entries))."""
    now = now or timezone.now()
    tournament = _lock(tournament_id)
    require_organiser(tournament.club_id, by)
    if tournament.status != Status.OPEN:
        raise ServiceError("tournament_started", "the tournament has already started", status=409)
    entrants = tournament.entries.count()
    if entrants < 2:
        raise ServiceError("too_few_entries", f"a tournament needs at least 2 entries, it has {entrants}")
    if tournament.format == Format.ROUND_ROBIN:
        tournament.rounds = len(_berger(tournament))
    else:
        most = entrants - 1 if entrants % 2 == 0 else entrants
        tournament.rounds = tournament.rounds or max(1, math.ceil(math.log2(entrants)))
        if tournament.rounds > most:
            raise ServiceError(
                "too_many_rounds",
                f"{entrants} players can play at most {most} Swiss rounds without a rematch; lower rounds",
            )
    tournament.status, tournament.started_at = Status.RUNNING, now
    tournament.save(update_fields=["rounds", "status", "started_at"])
    _pair_next(tournament, now=now)
    return tournament


@transaction.atomic
def tournament_advance(*, tournament_id, by=None, now: datetime | None = None) -> Tournament:
    """Pair the next round, or finish the tournament after its last round, once every board of the
    current round is done. Idempotent: with the round still running (or already paired) it does
    nothing, so the task may run twice. ``by`` None is the system (the task); a person must organise."""
    now = now or timezone.now()
    tournament = _lock(tournament_id)
    if by is not None:
        require_organiser(tournament.club_id, by)
    if tournament.status != Status.RUNNING:
        if by is not None:
            raise ServiceError("tournament_not_running", f"the tournament is {tournament.status}", status=409)
        return tournament
    if tournament.boards.filter(round=tournament.current_round, second__isnull=False, score_first__isnull=True):
        if by is not None:
            raise ServiceError(
                "round_running", f"round {tournament.current_round} has games still being played", status=409
            )
        return tournament
    if tournament.current_round >= tournament.rounds:
        tournament.status, tournament.finished_at = Status.FINISHED, now
        tournament.final_standings = standings_rows(tournament)
        tournament.save(update_fields=["status", "finished_at", "final_standings"])
    else:
        _pair_next(tournament, now=now)
    return tournament


def _berger(tournament: Tournament) -> list[list[roundrobin.Pairing]]:
    players = list(tournament.entries.order_by("number").values_list("user_id", flat=True))
    return roundrobin.round_robin(players, cycles=tournament.cycles)


def _swiss_players(tournament: Tournament) -> list[swiss.SwissPlayer]:
    entries = list(tournament.entries.order_by("number").values_list("user_id", "number"))
    state = {user: {"score": 0.0, "opp": set(), "col": [], "bye": False} for user, _ in entries}
    for board in tournament.boards.order_by("round", "number"):
        first = state[board.first_id]
        if board.is_bye:
            first["score"] += 1
            first["bye"] = True
            continue
        second = state[board.second_id]
        first["score"] += board.score_first
        second["score"] += 1 - board.score_first
        first["opp"].add(board.second_id), second["opp"].add(board.first_id)
        first["col"].append(1), second["col"].append(-1)
    return [
        swiss.SwissPlayer(user, s["score"], number, frozenset(s["opp"]), tuple(s["col"]), s["bye"])
        for (user, number), s in ((e, state[e[0]]) for e in entries)
    ]


def _pair_next(tournament: Tournament, *, now: datetime) -> None:
    """Pair round current_round + 1 and create its games (tournament row locked)."""
    number = tournament.current_round + 1
    if tournament.format == Format.ROUND_ROBIN:
        pairings = _berger(tournament)[number - 1]
    else:
        try:
            pairings = swiss.pair_round(_swiss_players(tournament), seed=tournament.seed + number)
        except swiss.PairingImpossible as error:
            raise ServiceError(error.code, f"round {number} cannot be paired: {error}", status=409) from None
    users = {entry.user_id: entry.user for entry in tournament.entries.select_related("user")}
    for index, pairing in enumerate(pairings, start=1):
        board = TournamentBoard(tournament=tournament, round=number, number=index, first=users[pairing.first])
        if not pairing.is_bye:
            board.second = users[pairing.second]
            board.game = game_create(
                engine_slug=tournament.engine,
                config=tournament.game_config,
                seats=[board.first, board.second],
                created_by=tournament.created_by,
            )
        else:
            board.finished_at = now
        board.save()
    tournament.current_round = number
    tournament.save(update_fields=["current_round"])
    if all(p.is_bye for p in pairings):  # nothing to wait for
        transaction.on_commit(lambda: _queue_advance(tournament.pk))


def _queue_advance(tournament_id: int) -> None:
    from ..tasks import tournament_advance_task

    tournament_advance_task.delay(tournament_id)


@transaction.atomic
def tournament_game_finished(*, game_id, now: datetime | None = None) -> bool:
    """Record a finished tournament game on its board; when it completes the round, queue the
    task that pairs the next one. Idempotent: returns False for other games, running games and
    repeats. Locks the tournament, then the board."""
    now = now or timezone.now()
    try:
        link = TournamentBoard.objects.filter(game_id=game_id).values("tournament_id").first()
    except (ValueError, TypeError):
        return False
    if link is None:
        return False
    tournament = _lock(link["tournament_id"])
    board = TournamentBoard.objects.select_for_update(of=("self",)).select_related("game").get(game_id=game_id)
    game: Game = board.game
    if board.score_first is not None or not game.is_finished:
        return False
    board.score_first, board.games_first, board.games_second = board_result(game)
    board.finished_at = now
    board.save(update_fields=["score_first", "games_first", "games_second", "finished_at"])
    waiting = tournament.boards.filter(round=board.round, second__isnull=False, score_first__isnull=True).exists()
    if not waiting and board.round == tournament.current_round:
        transaction.on_commit(lambda: _queue_advance(tournament.pk))
    return True


def board_result(game: Game) -> tuple[float, float, float]:
    """(first's points, first's game score, second's game score) of a finished two-seat game: a
    shared first place is a draw; the engine's scores (if any) are the game points."""
    ranking = game.outcome["ranking"]
    if len(ranking[0]) > 1:
        points = 0.5
    else:
        points = 1.0 if ranking[0][0] == 0 else 0.0
    scores = game.outcome.get("scores") or {}
    return points, float(scores.get("0", scores.get(0, 0)) or 0), float(scores.get("1", scores.get(1, 0)) or 0)


# ---- standings (reads used by the finish above and by the API) -----------------------------------
def standings_rows(tournament: Tournament) -> list[dict]:
    """The standings as JSON-ready rows, best first (by ``league.scoring.standings``). A Swiss bye
    scores a point (FIDE C.04.1 d); a round-robin bye is a round off and scores nothing."""
    entries = list(tournament.entries.order_by("number").select_related("user"))
    results, byes = [], []
    for board in tournament.boards.all():
        if board.is_bye:
            if tournament.format == Format.SWISS:
                byes.append(board.first_id)
        elif board.score_first is not None:
            results.append(
                tiebreak_rules.Result(
                    board.first_id, board.second_id, board.score_first, board.games_first, board.games_second
                )
            )
    rows = tiebreak_rules.standings([entry.user_id for entry in entries], results, byes, tiebreaks=tournament.tiebreaks)
    names = {entry.user_id: entry.user.get_username() for entry in entries}
    numbers = {entry.user_id: entry.number for entry in entries}
    return [
        {
            "rank": row.rank,
            "username": names[row.player],
            "number": numbers[row.player],
            "points": row.points,
            "played": row.played,
            "wins": row.wins,
            "draws": row.draws,
            "losses": row.losses,
            "byes": row.byes,
            "tiebreaks": row.tiebreaks,
        }
        for row in rows
    ]


def can_manage(tournament: Tournament, user) -> bool:
    return is_organiser(tournament.club_id, user)
