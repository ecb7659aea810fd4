"""Tournament lifecycle: create, enter, start, pair the next round (games or matches), take game
and match results, finish.

Round robin pairs from the Berger tables fixed at the start; Swiss pairs each round from the
results so far (``league.scoring.swiss`` via ``pairing``); multiplayer Swiss seats tables of 3-6
(``league.scoring.multiswiss``); the elimination formats follow a bracket (``brackets``). Results
arrive on the game_finished path (league.receivers -> ``tasks.tournament_game_finished_task`` ->
``tournament_game_finished``); when the last board of a round is done, ``boards`` sends
``round_complete`` on commit, whose receiver queues ``tournament_advance_task``, which pairs the
next round or finishes the tournament. Every write locks the tournament row first
(``boards.tournament_lock``), so two finishing games (or a task and an organiser) never pair the
same round twice. Each round's pairing input and seed are stored on its ``TournamentRound``, so a
round can be reproduced from the record.
"""

from __future__ import annotations

import logging
import math
import secrets
from datetime import datetime

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from games.accounts import is_bot
from games.models import Game
from games.services import ServiceError
from kifu.locking import lock_by_id
from league.names import name_check

from ..models import LeagueGame, Match, Tournament, TournamentBoard, TournamentEntry, TournamentRound
from ..scoring import multiswiss, roundrobin, swiss
from ..scoring import standings as tiebreak_rules
from ..services.engines import event_game, event_mature_check, require_mature_consent
from ..services.matches import game_ranking
from ..services.membership import require_member, require_organiser
from ..services.results import league_game_finished
from .boards import active_players, complete_check, create_round, decide, round_waiting, tournament_lock
from .brackets import bracket_pair_next, bracket_start
from .pairing import manual_tables, multi_input, multi_pairing, swiss_input, swiss_pairing, swiss_players
from .seeding import BY_RATING, require_rating_ladder, seeds_fix
from .settings import ELIMINATION, SWISS_FORMATS, check_settings, whole
from .standings import standings_changed, standings_rows

log = logging.getLogger("kifu.league")
Format, Status = Tournament.Format, Tournament.Status
Decided = TournamentBoard.Decided
DEFAULT_TIEBREAKS = {
    Format.ROUND_ROBIN: ["direct_encounter", "sonneborn_berger", "game_points"],
    Format.SWISS: ["buchholz_cut1", "buchholz", "sonneborn_berger", "direct_encounter"],
    Format.MULTI_SWISS: ["buchholz", "sonneborn_berger", "game_points"],
    Format.SINGLE_ELIMINATION: ["buchholz", "sonneborn_berger"],
    Format.DOUBLE_ELIMINATION: ["buchholz", "sonneborn_berger"],
    Format.GROUPS_PLAYOFF: ["direct_encounter", "sonneborn_berger", "game_points"],
}
MAX_ENTRIES = 2000


def is_bot_account(user) -> bool:
    """Whether ``user`` is a bot account - the one place tournaments ask (the ``allow_bots`` setting)."""
    return is_bot(user)


# ---- create, enter, start ----------------------------------------------------------------------
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
    settings: dict | None = None,
    now: datetime | None = None,
) -> Tournament:
    """An organiser of the club opens a tournament for entries."""
    now = now or timezone.now()
    require_organiser(club_id, by)
    if format not in Format.values:
        raise ServiceError("invalid_format", f"format must be one of {', '.join(Format.values)}, not {format!r}")
    if format == Format.MULTI_SWISS:  # tables of several sizes: the config alone
        game, full_config = event_game(engine, config, seats=None, what=f"{format} tournament")
    else:
        game, full_config = event_game(engine, config, seats=2, what=f"{format} pairs two players a game")
    settings = check_settings(format, game, settings)
    _mature_check(game, settings, by)
    if cycles not in (1, 2) or (format != Format.ROUND_ROBIN and cycles != 1):
        raise ServiceError("invalid_cycles", "cycles is 1 or 2, and only for a round robin")
    if rounds is not None and (format not in SWISS_FORMATS or not whole(rounds, 1, 100)):
        raise ServiceError("invalid_rounds", "rounds is set only for a Swiss tournament, from 1 to 100")
    tiebreaks = list(DEFAULT_TIEBREAKS[format] if tiebreaks is None else tiebreaks)
    unknown = [t for t in tiebreaks if t not in tiebreak_rules.TIEBREAKS]
    if unknown or len(set(tiebreaks)) != len(tiebreaks):
        raise ServiceError(
            "invalid_tiebreaks",
            f"tiebreaks are distinct names from: {', '.join(tiebreak_rules.TIEBREAKS)}"
            + (f" (unknown: {', '.join(map(str, unknown))})" if unknown else ""),
        )
    if settings.get("seeding") == BY_RATING:
        require_rating_ladder(club_id=club_id, engine=game.slug)
    return Tournament.objects.create(
        club_id=club_id,
        name=name_check(name.strip(), what="the tournament's name") or "Tournament",
        format=format,
        engine=game.slug,
        game_config=full_config,
        settings=settings,
        cycles=cycles,
        rounds=rounds,
        tiebreaks=tiebreaks,
        seed=secrets.randbelow(2**62) if seed is None else seed,
        created_by=by,
        created_at=now,
    )


def _mature_check(game, settings: dict, by) -> None:
    """A tournament of a mature game: ``event_mature_check``, and its boards are single games (a
    match would start later games after a player may have withdrawn consent)."""
    if game.mature and settings.get("mature") and "match" in settings:
        raise ServiceError("invalid_settings", "a mature tournament's boards are single games, not matches")
    event_mature_check(game, bool(settings.get("mature")), by, what="tournament", opt_in=MATURE_OPT_IN)


MATURE_OPT_IN = '"settings": {"mature": true}'


@transaction.atomic
def tournament_enter(*, tournament_id, by, player=None, now: datetime | None = None) -> TournamentEntry:
    """A club member enters themselves; an organiser may enter any member. Entry order is the
    pairing number (the initial ranking) unless the organiser sets a seeding at the start. With
    ``late_entry_until_round`` K, a Swiss takes entries while round K is not yet paired; a late
    entrant joins at the next round and gets ``late_entry_points`` for each round missed."""
    now = now or timezone.now()
    tournament = tournament_lock(tournament_id)
    player = player or by
    if player != by:
        require_organiser(tournament.club_id, by)
    require_member(tournament.club_id, player)
    first_round = 1
    if tournament.status != Status.OPEN:
        last = tournament.settings.get("late_entry_until_round")
        if tournament.status != Status.RUNNING or not last or tournament.current_round >= last:
            raise ServiceError("tournament_started", "entries are closed: the tournament has started", status=409)
        first_round = tournament.current_round + 1
    if tournament.settings.get("mature"):
        require_mature_consent(player, what="tournament")
    if not tournament.settings.get("allow_bots", False) and is_bot_account(player):
        raise ServiceError("bots_not_allowed", "this tournament does not take bot accounts", status=403)
    if tournament.entries.filter(user=player).exists():
        raise ServiceError("already_entered", f"{player.get_username()} has already entered", status=409)
    count = tournament.entries.count()
    if count >= MAX_ENTRIES:
        raise ServiceError("tournament_full", f"a tournament takes at most {MAX_ENTRIES} entries", status=409)
    number = (tournament.entries.aggregate(top=Max("number"))["top"] or 0) + 1
    return TournamentEntry.objects.create(
        tournament=tournament, user=player, number=number, first_round=first_round, created_at=now
    )


@transaction.atomic
def tournament_start(*, tournament_id, by, seeding: list | None = None, now: datetime | None = None) -> Tournament:
    """Close entries and pair round 1. ``seeding`` (users, best first; every entrant once) sets the
    pairing numbers; without it the ``seeding`` setting does (``seeding.seeds_fix``: entry order,
    the club's rating ladder, or a draw). With check-in on, entrants who did not
    check in are dropped before pairing. Swiss: ``rounds`` defaults to ceil(log2(entries))."""
    now = now or timezone.now()
    tournament = tournament_lock(tournament_id)
    require_organiser(tournament.club_id, by)
    if tournament.status != Status.OPEN:
        raise ServiceError("tournament_started", "the tournament has already started", status=409)
    seeds_fix(tournament, seeding)
    if tournament.settings.get("check_in"):
        tournament.entries.filter(checked_in_at__isnull=True).update(
            status=TournamentEntry.Status.DROPPED, dropped_at=now, dropped_after_round=0
        )
        standings_changed(tournament.pk)  # a bulk update sends no post_save
    entrants = tournament.entries.filter(status=TournamentEntry.Status.ACTIVE).count()
    smallest = tournament.settings["seats"]["min"] if tournament.format == Format.MULTI_SWISS else 2
    if entrants < max(2, smallest):
        raise ServiceError(
            "too_few_entries",
            f"it needs at least {max(2, smallest)} (checked-in) entries, it has {entrants}",
        )
    if tournament.format == Format.ROUND_ROBIN:
        tournament.rounds = len(_berger(tournament))
    elif tournament.format == Format.SWISS:
        most = entrants - 1 if entrants % 2 == 0 else entrants
        tournament.rounds = tournament.rounds or max(1, math.ceil(math.log2(entrants)))
        if tournament.rounds > most:
            raise ServiceError(
                "too_many_rounds",
                f"{entrants} players can play at most {most} Swiss rounds without a rematch; lower rounds",
            )
    elif tournament.format == Format.MULTI_SWISS:
        seats = tournament.settings["seats"]
        try:
            multiswiss.table_sizes(
                entrants, preferred=seats["preferred"], min_seats=seats["min"], max_seats=seats["max"]
            )
        except ValueError as error:
            raise ServiceError("too_few_entries", f"{entrants} players cannot be seated: {error}") from None
        tournament.rounds = tournament.rounds or max(1, math.ceil(math.log2(entrants)))
    tournament.status, tournament.started_at = Status.RUNNING, now
    tournament.save(update_fields=["rounds", "status", "started_at"])
    if tournament.format in ELIMINATION:
        bracket_start(tournament, now=now)
    _pair_next(tournament, now=now)
    return tournament


# ---- advancing ---------------------------------------------------------------------------------
@transaction.atomic
def tournament_advance(*, tournament_id, by=None, now: datetime | None = None) -> Tournament:
    """Pair the next round, or finish the tournament after its last round, once every board of the
    current round is done. Idempotent: with the round still running (or already paired) it does
    nothing, so the task may run twice. ``by`` None is the system (the task); a person must organise."""
    now = now or timezone.now()
    tournament = tournament_lock(tournament_id)
    if by is not None:
        require_organiser(tournament.club_id, by)
    if tournament.status != Status.RUNNING:
        if by is not None:
            raise ServiceError("tournament_not_running", f"the tournament is {tournament.status}", status=409)
        return tournament
    if round_waiting(tournament, tournament.current_round):
        if by is not None:
            raise ServiceError(
                "round_running", f"round {tournament.current_round} has games still being played", status=409
            )
        return tournament
    if tournament.format in ELIMINATION or tournament.current_round < tournament.rounds:
        _pair_next(tournament, now=now)
    else:
        finish(tournament, now=now)
    return tournament


def finish(tournament: Tournament, *, now: datetime) -> None:
    """The tournament is over: its standings are frozen as they are now."""
    tournament.status, tournament.finished_at = Status.FINISHED, now
    tournament.final_standings = standings_rows(tournament)
    tournament.save(update_fields=["status", "finished_at", "final_standings"])


def _berger(tournament: Tournament) -> list[list[roundrobin.Pairing]]:
    players = list(
        tournament.entries.exclude(dropped_after_round=0).order_by("number").values_list("user_id", flat=True)
    )
    return roundrobin.round_robin(players, cycles=tournament.cycles)


def _pair_next(tournament: Tournament, *, now: datetime) -> None:
    """Pair round current_round + 1 and create its games (tournament row locked)."""
    number = tournament.current_round + 1
    if tournament.format in ELIMINATION:
        if not bracket_pair_next(tournament, now=now):  # the bracket has its placements
            finish(tournament, now=now)
        return
    seed = tournament.seed + number
    if tournament.format in SWISS_FORMATS:
        smallest = tournament.settings["seats"]["min"] if tournament.format == Format.MULTI_SWISS else 2
        if len(active_players(tournament, number)) < smallest:  # withdrawals left too few to pair
            finish(tournament, now=now)
            return
    planned = TournamentRound.objects.filter(tournament=tournament, number=number, manual=True).first()
    manual = None
    if planned is not None:
        manual = manual_tables(tournament, number, planned.pairing_input)
    stage, data = "", {}
    if manual is not None:
        tables, data = manual, planned.pairing_input
    elif tournament.format == Format.ROUND_ROBIN:
        pairings = _berger(tournament)[number - 1]
        data = {"berger_round": number}
        tables = [[p.first] if p.is_bye else [p.first, p.second] for p in pairings]
    elif tournament.format == Format.SWISS:
        players = swiss_players(tournament, number)
        data = swiss_input(players)
        try:
            pairings = swiss_pairing(data, seed)
        except swiss.PairingImpossible as error:
            return _end_unpairable(tournament, number, error, now=now)
        tables = [[p.first] if p.is_bye else [p.first, p.second] for p in pairings]
    else:
        data = multi_input(tournament, number)
        try:
            result = multi_pairing(tournament, data, seed)
        except ValueError as error:
            return _end_unpairable(tournament, number, error, now=now)
        tables = [list(t) for t in result.tables] + [[pk] for pk in result.byes]
    if planned is not None and manual is None:
        data = {**data, "manual_discarded": "the planned pairing no longer fits the active players"}
    create_round(tournament, number, tables, seed=seed, data=data, manual=manual is not None, stage=stage, now=now)


def _end_unpairable(tournament: Tournament, number: int, error: Exception, *, now: datetime) -> None:
    """No legal pairing is left (withdrawals, everyone has met): the event ends after the rounds
    played, as a Swiss does when it runs out of pairings; the log says why."""
    log.warning("tournament %s: round %s cannot be paired (%s); finishing", tournament.pk, number, error)
    finish(tournament, now=now)


@transaction.atomic
def tournament_game_finished(*, game_id, now: datetime | None = None) -> bool:
    """Record a finished tournament game on its board - or in its board's match, deciding the board
    when the match is over; when that completes the round, queue the task that pairs the next one.
    Idempotent: returns False for other games, running games and repeats. Locks the tournament,
    then (for a match) the match, then the board."""
    now = now or timezone.now()
    try:
        link = TournamentBoard.objects.filter(game_id=game_id).values("tournament_id").first()
        match_link = None
        if link is None:
            match_link = (
                LeagueGame.objects.filter(game_id=game_id, match__tournament_board__isnull=False)
                .values("match_id", "match__tournament_board__tournament_id")
                .first()
            )
    except (ValueError, TypeError):
        return False
    if link is None and match_link is None:
        return False
    if match_link is not None:
        return _match_game_finished(match_link, game_id, now)
    tournament = tournament_lock(link["tournament_id"])
    board = lock_by_id(TournamentBoard, game_id, by="game_id", related=("game",), of=("self",))
    game: Game = board.game
    if board.finished_at is not None or not game.is_finished:
        return False
    ranking, scores = game_ranking(game)
    decide(board, tournament, ranking, Decided.GAME, now=now, scores=scores)
    complete_check(tournament, board)
    return True


def _match_game_finished(link: dict, game_id, now: datetime) -> bool:
    tournament = tournament_lock(link["match__tournament_board__tournament_id"])
    recorded = league_game_finished(game_id=game_id, now=now)  # counts it in the match, starts the next game
    board = lock_by_id(TournamentBoard, link["match_id"], by="match_id", of=("self",))
    match = Match.objects.get(pk=link["match_id"])
    if board.finished_at is not None or match.status != Match.Status.FINISHED:
        return recorded
    totals = {int(pk): value for pk, value in match.totals.items()}
    decide(board, tournament, match.result, Decided.MATCH, now=now, scores=totals)
    complete_check(tournament, board)
    return True
