"""Every write of the seasonal leagues: create a league, its roster, start and close seasons, take
results, forfeit overdue fixtures, correct results.

Each service takes keyword-only arguments, owns its transaction, checks the caller's permission
with the league's own club rules (``league.services.clubs``) and takes ``now`` so tests can run a
season on a simulated clock. Every write to a season locks the season row first, then fixtures,
then (for a forfeit) the game row - the result task, the beat sweep and an organiser therefore
never decide one fixture twice.

Results arrive on the game_finished path (``receivers`` -> ``tasks.season_game_finished_task`` ->
``season_game_finished``); a season closes itself when its last fixture is decided.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from games import services as game_services
from games.accounts import bot_ids
from games.errors import ServiceError, not_found
from games.models import Game, Seat
from games.services import game_advance, game_forfeit
from kifu.locking import lock_by_id
from league.models import Club, ResultReport
from league.names import name_check
from league.scoring import multiswiss, roundrobin
from league.services.engines import event_game, event_mature_check, require_mature_consent
from league.services.membership import is_member, require_organiser
from league.tournaments.settings import table_settings

from . import scoring, selectors
from .models import Division, DivisionPlayer, Fixture, League, LeaguePlayer, Season

User = get_user_model()
MAX_DIVISIONS = 20
MAX_DIVISION_PLAYERS = 30  # a single round robin of 30 is 435 games created at the start
MAX_MOVES = 20
NOTE_LENGTH = 200


def _lock_league(league_id) -> League:
    return lock_by_id(League, league_id, missing=not_found("league"))


def _lock_season(season_id) -> Season:
    return lock_by_id(Season, season_id, related=("league",), missing=not_found("season"))


def _whole(value, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _points(points: dict | None) -> scoring.Points:
    if points is None:
        return scoring.Points()
    numbers = isinstance(points, dict) and set(points) <= {"win", "draw", "loss"}
    values = {key: points[key] for key in points} if numbers else {}
    if not numbers or any(
        isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or not -100 <= v <= 100
        for v in values.values()
    ):
        raise ServiceError("invalid_points", 'points is {"win": W, "draw": D, "loss": L}, numbers from -100 to 100')
    result = scoring.Points(**{key: float(v) for key, v in values.items()})
    if not result.win >= result.draw >= result.loss or result.win == result.loss:
        raise ServiceError("invalid_points", "points must satisfy win >= draw >= loss, with win above loss")
    return result


def _check_settings(**given) -> dict:
    """Validate the league settings in ``given`` (None = not given) into model field values."""
    fields = {}
    cycles = given.get("cycles")
    if cycles is not None:
        if cycles not in (1, 2) or isinstance(cycles, bool):
            raise ServiceError("invalid_cycles", "cycles is 1 (single round robin) or 2 (double)")
        fields["cycles"] = cycles
    if given.get("days_per_round") is not None:
        if not _whole(given["days_per_round"], 1, 365):
            raise ServiceError("invalid_days_per_round", "days_per_round is a whole number of days from 1 to 365")
        fields["days_per_round"] = given["days_per_round"]
    if given.get("divisions") is not None:
        if not _whole(given["divisions"], 1, MAX_DIVISIONS):
            raise ServiceError("invalid_divisions", f"divisions is a whole number from 1 to {MAX_DIVISIONS}")
        fields["divisions"] = given["divisions"]
    for key in ("promote", "relegate"):
        if given.get(key) is not None:
            if not _whole(given[key], 0, MAX_MOVES):
                raise ServiceError("invalid_promotion", f"promote and relegate are whole numbers from 0 to {MAX_MOVES}")
            fields[key] = given[key]
    points = given.get("points")
    if points is not None:
        points = points if isinstance(points, scoring.Points) else _points(points)
        fields.update(points_win=points.win, points_draw=points.draw, points_loss=points.loss)
    tiebreaks = given.get("tiebreaks")
    if tiebreaks is not None:
        unknown = [t for t in tiebreaks if t not in scoring.TIEBREAKS]
        if unknown or len(set(tiebreaks)) != len(tiebreaks):
            raise ServiceError(
                "invalid_tiebreaks",
                f"tiebreaks are distinct names from: {', '.join(scoring.TIEBREAKS)}"
                + (f" (unknown: {', '.join(map(str, unknown))})" if unknown else ""),
            )
        fields["tiebreaks"] = list(tiebreaks)
    allow_bots = given.get("allow_bots")
    if allow_bots is not None:
        if not isinstance(allow_bots, bool):
            raise ServiceError("invalid_allow_bots", "allow_bots is true (bot accounts may play) or false")
        fields["allow_bots"] = allow_bots
    return fields


def _tables(engine: str, tables) -> dict:
    """The raw ``tables`` setting: as given (``{}``: two-player fixtures), or by default the
    multiplayer defaults for a game two cannot play and two-player fixtures for the others."""
    if tables is None:
        game = event_game(engine, None, seats=None, what="league fixtures")[0]
        return {} if game.min_seats <= 2 <= game.max_seats else {"seats": {}}
    if tables == {}:
        return {}  # two-player fixtures, asked for
    if not isinstance(tables, dict) or set(tables) - {"seats", "placement_points"}:
        raise ServiceError(
            "invalid_tables", 'tables is {"seats": {"preferred": n, "min": n, "max": n}, "placement_points": [...]}'
        )
    return {"seats": {}, **tables}


def _check_tables(game, tables: dict) -> dict:
    """Multiplayer fixtures' seats and placement points, checked as a multiplayer Swiss's
    (``league.tournaments.settings.table_settings``: seats of 3-6 within the engine's counts,
    placement points never rising). A season has no byes, so no bye points."""
    checked = table_settings(game, tables)
    checked.pop("bye_points", None)
    return checked


def _refuse_bots(league: League, players) -> None:
    """Refuse (403 ``bots_not_allowed``) to seat bot accounts among ``players`` in a league whose
    organiser has not allowed bots - the same rule and code as ladders and tournaments."""
    if league.allow_bots:
        return
    players = list(players)
    bots = bot_ids(user.pk for user in players)  # one query for a whole season's divisions
    bots = sorted(user.get_username() for user in players if user.pk in bots)
    if bots:
        raise ServiceError(
            "bots_not_allowed",
            f"this league does not take bot accounts ({', '.join(bots)}); an organiser may allow them "
            '(PATCH the league with {"allow_bots": true}) or take them off the roster',
            status=403,
        )


@transaction.atomic
def league_create(
    *,
    club_id,
    by,
    name: str,
    engine: str,
    config: dict | None = None,
    cycles: int = 1,
    days_per_round: int = 7,
    divisions: int = 1,
    promote: int = 2,
    relegate: int = 2,
    points: dict | None = None,
    tiebreaks: list[str] | None = None,
    now: datetime | None = None,
    allow_bots: bool = False,
    tables: dict | None = None,
    mature: bool = False,
) -> League:
    """An organiser of the club founds a league; seasons start later. Fixtures are two-player
    games, or multiplayer tables (``tables``: ``{"seats": {"preferred", "min", "max"},
    "placement_points": [...]}``, checked as a multiplayer Swiss's; a game that two cannot play
    gets them by default), scored by placement points. A league of a mature game sets ``mature``
    and its organiser consented (``league.services.engines.event_mature_check``, as tournaments)."""
    now = now or timezone.now()
    if not Club.objects.filter(pk=club_id).exists():
        raise ServiceError("not_found", "no such club", status=404)
    require_organiser(club_id, by)
    name = (name or "").strip()
    if not name or len(name) > 100:
        raise ServiceError("invalid_name", "a league needs a name of 1-100 characters")
    name_check(name, what="the league's name")
    tables = _tables(engine, tables)
    if tables:  # tables of several sizes: the config alone (as a multiplayer Swiss)
        game, full_config = event_game(engine, config, seats=None, what="league fixtures")
        tables = _check_tables(game, tables)
    else:
        game, full_config = event_game(engine, config, seats=2, what="league fixtures are two-player games")
    if not isinstance(mature, bool):
        raise ServiceError("invalid_settings", "mature is true or false")
    event_mature_check(game, mature, by, what="league", opt_in='"mature": true')
    checked = _check_settings(
        cycles=cycles,
        days_per_round=days_per_round,
        divisions=divisions,
        promote=promote,
        relegate=relegate,
        points=scoring.Points() if points is None else points,
        tiebreaks=list(scoring.DEFAULT_TIEBREAKS) if tiebreaks is None else tiebreaks,
        allow_bots=allow_bots,
    )
    checked["tables"], checked["mature"] = tables, game.mature
    if League.objects.filter(club_id=club_id, name=name).exists():
        raise ServiceError("league_exists", f"this club has a league called {name!r} already", status=409)
    return League.objects.create(
        club_id=club_id,
        name=name,
        engine=game.slug,
        game_config=full_config,
        **checked,
        created_by=by,
        created_at=now,
    )


@transaction.atomic
def league_update(
    *,
    league_id,
    by,
    cycles: int | None = None,
    days_per_round: int | None = None,
    divisions: int | None = None,
    promote: int | None = None,
    relegate: int | None = None,
    points: dict | None = None,
    tiebreaks: list[str] | None = None,
    allow_bots: bool | None = None,
    tables: dict | None = None,
) -> League:
    """An organiser changes settings (None: unchanged); ``tables`` as at ``league_create`` (``{}``:
    two-player fixtures again, for a game two can play). They apply from the next season on: a
    running season keeps the copy it started with, and the promotion and relegation into the next
    season follow the rules the last season was played under. Turning ``allow_bots`` off leaves bot
    accounts on the roster, but no season starts with them until they are taken off."""
    league = _lock_league(league_id)
    require_organiser(league.club_id, by)
    checked = _check_settings(
        cycles=cycles,
        days_per_round=days_per_round,
        divisions=divisions,
        promote=promote,
        relegate=relegate,
        points=points,
        tiebreaks=tiebreaks,
        allow_bots=allow_bots,
    )
    if tables is not None:
        if tables == {}:
            event_game(league.engine, league.game_config, seats=2, what="league fixtures are two-player games")
            checked["tables"] = {}
        else:
            game = event_game(league.engine, league.game_config, seats=None, what="league fixtures")[0]
            checked["tables"] = _check_tables(game, _tables(league.engine, tables))
    for field, value in checked.items():
        setattr(league, field, value)
    league.save(update_fields=list(checked) or None)
    return league


# ---- the roster -------------------------------------------------------------------------------
@transaction.atomic
def league_player_add(*, league_id, by, user, now: datetime | None = None) -> LeaguePlayer:
    """An organiser adds a club member for the next season (a newcomer starts in the bottom division);
    a bot account only if the league allows bots."""
    now = now or timezone.now()
    league = _lock_league(league_id)
    require_organiser(league.club_id, by)
    _refuse_bots(league, [user])
    if league.mature:
        require_mature_consent(user, what="league")
    if not is_member(league.club_id, user):
        raise ServiceError(
            "not_a_club_member", f"{user.get_username()} is not a member of this club; invite them first"
        )
    entry = LeaguePlayer.objects.filter(league=league, user=user).first()
    if entry and entry.active:
        raise ServiceError("already_in_league", f"{user.get_username()} is in this league already", status=409)
    if entry is None:
        return LeaguePlayer.objects.create(league=league, user=user, added_at=now)
    entry.active, entry.added_at = True, now
    entry.save(update_fields=["active", "added_at"])
    return entry


@transaction.atomic
def league_player_remove(*, league_id, by, user) -> LeaguePlayer:
    """An organiser takes a player out of the next season; a running season is not changed (their
    remaining fixtures are played or forfeited as usual)."""
    league = _lock_league(league_id)
    require_organiser(league.club_id, by)
    entry = LeaguePlayer.objects.filter(league=league, user=user, active=True).first()
    if entry is None:
        raise ServiceError("not_in_league", f"{user.get_username()} is not in this league", status=404)
    entry.active = False
    entry.save(update_fields=["active"])
    return entry


# ---- seasons ----------------------------------------------------------------------------------
def _explicit_plan(league: League, divisions, last: Season | None) -> list[list[tuple[object, str]]]:
    """An organiser's own divisions (lists of users, top first): every player must be eligible;
    the movement is read against the last season's tiers."""
    eligible = {user.pk for user in selectors.eligible_players(league)}
    listed = [user for division in divisions for user in division]
    if len({user.pk for user in listed}) != len(listed):
        raise ServiceError("duplicate_player", "a player may be in only one division")
    outside = sorted(user.get_username() for user in listed if user.pk not in eligible)
    if outside:
        raise ServiceError(
            "not_in_league", f"add these players to the league first (club members only): {', '.join(outside)}"
        )
    before = {}
    if last is not None:
        before = dict(DivisionPlayer.objects.filter(season=last).values_list("user_id", "division__tier"))
    plan = []
    for tier, division in enumerate(divisions, start=1):
        row = []
        for user in division:
            old = before.get(user.pk)
            movement = (
                scoring.NEW
                if old is None
                else scoring.STAYED
                if old == tier
                else scoring.PROMOTED
                if old > tier
                else scoring.RELEGATED
            )
            row.append((user, movement))
        plan.append(row)
    return plan


@transaction.atomic
def season_start(*, league_id, by, divisions: list[list] | None = None, now: datetime | None = None) -> Season:
    """Start the league's next season and create every fixture's game.

    The divisions are, unless the organiser lists them (``divisions``: lists of users, top first):
    for the first season, the roster in the order players were added, cut into ``league.divisions``
    even tiers; after that, the last season's final tables with promotion and relegation
    (``scoring.next_divisions``): removed players and players who left the club drop out,
    newcomers join the bottom division. The previous season must be closed. A bot account in the
    divisions is refused (403 ``bots_not_allowed``) unless the league allows bots now; in a mature
    league, so is a player (or the organiser) who has withdrawn mature-content consent since
    (403 ``mature_consent_required``, naming them: take them off the roster). Each player of a
    mature game accepts their own seat before it starts (``games_create_many``).
    """
    now = now or timezone.now()
    league = _lock_league(league_id)
    require_organiser(league.club_id, by)
    last = league.seasons.order_by("-number").first()
    if last is not None and last.status != Season.Status.CLOSED:
        raise ServiceError(
            "season_running", f"season {last.number} is still running; close it first (POST .../close)", status=409
        )
    if divisions is not None:
        if not divisions or len(divisions) > MAX_DIVISIONS:
            raise ServiceError("invalid_divisions", f"divisions is a list of 1 to {MAX_DIVISIONS} lists of players")
        plan = _explicit_plan(league, divisions, last)
    else:
        plan = selectors.next_season_plan(league=league).divisions
    _refuse_bots(league, [user for division in plan for user, _ in division])
    if league.mature:
        require_mature_consent(by, what="league")
    seats = league.tables.get("seats") if league.tables else None
    for tier, division in enumerate(plan, start=1):
        if seats and len(division) >= 2:
            _check_seatable(tier, len(division), seats)
        if len(division) < 2:
            raise ServiceError(
                "division_too_small",
                f"division {tier} would have {len(division)} player(s); a division needs 2 - add players "
                "to the league, or list the divisions yourself",
                status=409,
            )
        if len(division) > MAX_DIVISION_PLAYERS:
            raise ServiceError(
                "division_too_large",
                f"division {tier} would have {len(division)} players; at most {MAX_DIVISION_PLAYERS}",
                status=409,
            )
    season = Season.objects.create(
        league=league, number=(last.number + 1) if last else 1, rules=league.rules(), started_at=now
    )
    divisions = Division.objects.bulk_create([Division(season=season, tier=tier) for tier in range(1, len(plan) + 1)])
    DivisionPlayer.objects.bulk_create(
        DivisionPlayer(season=season, division=division, user=user, seed=seed, movement=movement)
        for division, placed in zip(divisions, plan, strict=True)
        for seed, (user, movement) in enumerate(placed, start=1)
    )
    boards, rounds = [], 0  # (division, round, board, players in seat order)
    for division, placed in zip(divisions, plan, strict=True):
        users = [user for user, _ in placed]
        if seats:
            schedule = scoring.table_schedule(users, seats=seats, cycles=season.rules["cycles"], seed=season.pk)
            rounds = max(rounds, len(schedule))
            for number, tables in enumerate(schedule, start=1):
                boards.extend((division, number, board, table) for board, table in enumerate(tables, start=1))
            continue
        schedule = roundrobin.round_robin(users, cycles=season.rules["cycles"])
        rounds = max(rounds, len(schedule))
        for number, pairings in enumerate(schedule, start=1):
            real = [[pairing.first, pairing.second] for pairing in pairings if not pairing.is_bye]
            boards.extend((division, number, board, pair) for board, pair in enumerate(real, start=1))
    games = game_services.games_create_many(
        engine_slug=league.engine,
        config=league.game_config,
        seatings=[table for _, _, _, table in boards],
        created_by=by,
    )
    days = season.rules["days_per_round"]
    Fixture.objects.bulk_create(
        Fixture(
            season=season,
            division=division,
            round=number,
            board=board,
            home=table[0],
            away=table[1],
            players=[user.pk for user in table] if seats else [],
            game=game,
            play_by=now + timedelta(days=days * number),
        )
        for (division, number, board, table), game in zip(boards, games, strict=True)
    )
    season.rounds = rounds
    season.save(update_fields=["rounds"])
    return season


def _check_seatable(tier: int, size: int, seats: dict) -> None:
    """A multiplayer division must split into tables of the league's sizes with nobody left out."""
    try:
        multiswiss.table_sizes(
            size, preferred=seats["preferred"], min_seats=seats["min"], max_seats=seats["max"], allow_byes=False
        )
    except ValueError:
        raise ServiceError(
            "division_unseatable",
            f"division {tier} would have {size} players, who do not split into tables of "
            f"{seats['min']}-{seats['max']} with nobody left out; change the league's seats (PATCH tables) "
            "or list the divisions yourself",
            status=409,
        ) from None


def _freeze(season: Season, *, now: datetime, by=None) -> None:
    season.status, season.closed_at, season.closed_by = Season.Status.CLOSED, now, by
    season.final_standings = selectors.standings_rows(season)
    season.save(update_fields=["status", "closed_at", "closed_by", "final_standings"])


def _close_if_complete(season: Season, now: datetime) -> None:
    if season.status == Season.Status.RUNNING and not season.fixtures.filter(result="").exists():
        _freeze(season, now=now)


@transaction.atomic
def season_close(*, season_id, by, now: datetime | None = None) -> Season:
    """An organiser closes the season and freezes its final standings. A fixture still undecided
    is decided as if its play-by date were now (the side its game waits on forfeits, see ``_deadline``)."""
    now = now or timezone.now()
    season = _lock_season(season_id)
    require_organiser(season.league.club_id, by)
    if season.status == Season.Status.CLOSED:
        raise ServiceError("season_closed", f"season {season.number} is closed already", status=409)
    for fixture in season.fixtures.select_for_update().filter(result="").select_related("home", "away"):
        _deadline(fixture, now=now, cutoff=now, why="season closed by an organiser", reason=SEASON_CLOSED)
    _freeze(season, now=now, by=by)
    return season


# ---- results ----------------------------------------------------------------------------------
def game_result(game: Game) -> tuple[str, float, float]:
    """(result, home's game score, away's game score) of a finished two-seat game: a shared first
    place is a draw; the engine's scores, if any, are the game points."""
    ranking = game.outcome["ranking"]
    if len(ranking[0]) > 1:
        result = scoring.DRAW
    else:
        result = scoring.HOME if ranking[0][0] == 0 else scoring.AWAY
    scores = game.outcome.get("scores") or {}
    home = scores.get("0", scores.get(0, 0)) or 0
    away = scores.get("1", scores.get(1, 0)) or 0
    return result, float(home), float(away)


def _record_game(fixture: Fixture, game: Game, now: datetime) -> None:
    if fixture.players:
        seats = fixture.players
        ranking = [[seats[index] for index in group] for group in game.outcome["ranking"]]
        scores = game.outcome.get("scores") or {}
        by_user = {pk: scores.get(str(index), scores.get(index, 0)) for index, pk in enumerate(seats)}
        _record_table(fixture, ranking, by_user, method=Fixture.Method.PLAYED, now=now)
        return
    _record(fixture, *game_result(game), method=Fixture.Method.PLAYED, now=now)


def _record(fixture: Fixture, result: str, home: float, away: float, *, method: str, now: datetime) -> None:
    fixture.result, fixture.games_home, fixture.games_away = result, home, away
    fixture.method, fixture.decided_at = method, now
    fixture.save(update_fields=["result", "games_home", "games_away", "method", "decided_at"])


def _place_table(fixture: Fixture, ranking: list[list[int]], *, double_forfeit: bool = False) -> None:
    """Set a multiplayer fixture's placements and league points (not saved): the season's
    placement points (``scoring.table_points``); a double forfeit scores nothing."""
    table = (fixture.season.rules.get("tables") or {}).get("placement_points")
    fixture.placements = [list(group) for group in ranking]
    points = scoring.table_points(ranking, table, double_forfeit=double_forfeit)
    fixture.points = {str(pk): value for pk, value in points.items()}
    fixture.result = scoring.DOUBLE_FORFEIT if double_forfeit else scoring.PLACED


def _record_table(fixture: Fixture, ranking: list[list[int]], scores: dict, *, method: str, now: datetime) -> None:
    _place_table(fixture, ranking)
    fixture.game_scores = {str(pk): float(scores.get(pk, 0) or 0) for pk in fixture.players}
    fixture.games_home = fixture.game_scores[str(fixture.players[0])]
    fixture.games_away = fixture.game_scores[str(fixture.players[1])]
    fixture.method, fixture.decided_at = method, now
    fixture.save(
        update_fields=[
            "result", "placements", "points", "game_scores", "games_home", "games_away", "method", "decided_at",
        ]
    )  # fmt: skip


def fixture_result_record(
    fixture: Fixture, season: Season, ranking: list[list[int]], scores: dict | None, *, now: datetime
) -> None:
    """Decide an undecided fixture by a reported result (``league.reports``; the season and fixture
    rows locked): ``ranking`` of user ids as a game's outcome ranks seats, ``scores`` the game
    points by user id. The season's last result closes it, as a played game's does."""
    if fixture.players:
        fixture.season = season
        _record_table(fixture, ranking, scores or {}, method=Fixture.Method.REPORTED, now=now)
        _close_if_complete(season, now)
        return
    if len(ranking[0]) > 1:
        result = scoring.DRAW
    else:
        result = scoring.HOME if ranking[0][0] == fixture.home_id else scoring.AWAY
    scores = scores or {}
    home, away = float(scores.get(fixture.home_id, 0) or 0), float(scores.get(fixture.away_id, 0) or 0)
    _record(fixture, result, home, away, method=Fixture.Method.REPORTED, now=now)
    _close_if_complete(season, now)


@transaction.atomic
def season_game_finished(*, game_id, now: datetime | None = None) -> bool:
    """Record a finished fixture game; the season's last result closes it. Idempotent: False for
    other games, running games and fixtures decided already (a forfeit, a repeat)."""
    now = now or timezone.now()
    try:
        link = Fixture.objects.filter(game_id=game_id).values("season_id").first()
    except (ValueError, TypeError):
        return False
    if link is None:
        return False
    season = _lock_season(link["season_id"])
    fixture = lock_by_id(Fixture, game_id, by="game_id", related=("game",), of=("self",))
    if fixture.result or not fixture.game.is_finished:
        return False
    _record_game(fixture, fixture.game, now)
    _close_if_complete(season, now)
    return True


# ---- deadlines --------------------------------------------------------------------------------
PLAY_BY_DATE = "play-by date"  # the reasons the games' records give for a forfeit
SEASON_CLOSED = "season closed"


def _deadline(fixture: Fixture, *, now: datetime, cutoff: datetime, why: str, reason: str) -> None:
    """Decide an undecided fixture whose time is up at ``cutoff`` (season and fixture rows locked).

    Moves received before ``cutoff`` but not yet applied by a worker are applied first
    (``games.services.game_advance``); a game finished by then - or earlier, its result task not yet
    run - is recorded as played. Otherwise the side the game waits on forfeits - a loss, the other
    side a win; if it waits on both or neither, both lose (a double forfeit). The game is then ended
    by ``games.services.game_forfeit``: a system resign of the waiting seat (the first in seat order
    for a double forfeit: the engines have no "both lose" event, and the fixture's result, not the
    game's, is what the table counts) marked with ``reason`` (``why`` goes in the fixture's note).
    """
    game = lock_by_id(Game, fixture.game_id)
    if game.status == Game.Status.RUNNING:
        game_advance(game_id=game.pk, received_before=cutoff)
        game.refresh_from_db()
    if game.is_finished:
        _record_game(fixture, game, now)
        return
    seats = dict(Seat.objects.filter(game=game).values_list("index", "user_id"))
    waiting = sorted(set(game.actors or []))
    waiting_users = {seats[seat] for seat in waiting}
    if fixture.players:
        _table_forfeit(fixture, waiting_users, now=now, why=why)
    elif waiting_users == {fixture.home_id}:
        fixture.result, note = Fixture.Result.AWAY, "home forfeited: the game waited on them"
    elif waiting_users == {fixture.away_id}:
        fixture.result, note = Fixture.Result.HOME, "away forfeited: the game waited on them"
    else:
        fixture.result, note = Fixture.Result.DOUBLE_FORFEIT, "double forfeit: the game waited on both or neither"
    if not fixture.players:
        fixture.method, fixture.decided_at = Fixture.Method.FORFEIT, now
        fixture.note = f"{why}; {note}"[:NOTE_LENGTH]
        fixture.save(update_fields=["result", "method", "decided_at", "note"])
    if game.status == Game.Status.RUNNING:
        if fixture.players:  # the seats at fault, then (if the engine plays on) the rest, until it ends
            order = waiting + [seat for seat in sorted(seats) if seat not in waiting]
        else:
            order = [waiting[0] if waiting else 0]
        game_forfeit(game_id=game.pk, seats=order, reason=reason, now=cutoff)


def _table_forfeit(fixture: Fixture, waiting: set, *, now: datetime, why: str) -> None:
    """A multiplayer fixture at its deadline, as a tournament table at its round deadline: the
    players the game waits on lose (sharing last place), the others share first; if it waits on
    everyone or nobody, everyone loses (a double forfeit: no points)."""
    losers = [pk for pk in fixture.players if pk in waiting]
    others = [pk for pk in fixture.players if pk not in waiting]
    if losers and others:
        _place_table(fixture, [others, losers])
        note = "forfeited by the players the game waited on"
    else:
        _place_table(fixture, [list(fixture.players)], double_forfeit=True)
        note = "double forfeit: the game waited on everyone or nobody"
    fixture.method, fixture.decided_at, fixture.note = Fixture.Method.FORFEIT, now, f"{why}; {note}"[:NOTE_LENGTH]
    fixture.save(update_fields=["result", "placements", "points", "method", "decided_at", "note"])


@transaction.atomic
def season_sweep(*, season_id, now: datetime | None = None) -> int:
    """Forfeit every undecided fixture of a running season whose play-by date has passed, in the
    order they fell due; close the season if that decided its last one. Returns fixtures decided."""
    now = now or timezone.now()
    season = _lock_season(season_id)
    if season.status != Season.Status.RUNNING:
        return 0
    reported = [int(pk) for pk in ResultReport.open_pairings(ResultReport.Kind.FIXTURE, season=season)]
    due = season.fixtures.select_for_update().filter(result="", play_by__lte=now).exclude(pk__in=reported)
    due = due.select_related("home", "away")
    due = list(due.order_by("play_by", "pk"))
    for fixture in due:
        _deadline(fixture, now=now, cutoff=fixture.play_by, why="not finished by its play-by date", reason=PLAY_BY_DATE)
    _close_if_complete(season, now)
    return len(due)


def seasons_sweep(*, now: datetime | None = None) -> int:
    """Beat: sweep every running season with an overdue fixture. Returns fixtures decided."""
    now = now or timezone.now()
    due = (
        Fixture.objects.filter(result="", play_by__lte=now, season__status=Season.Status.RUNNING)
        .values_list("season_id", flat=True)
        .distinct()
    )
    return sum(season_sweep(season_id=season_id, now=now) for season_id in sorted(set(due)))


# ---- corrections ------------------------------------------------------------------------------
def _corrected_ranking(fixture: Fixture, result: str, ranking) -> list[list[int]] | None:
    """The user ids of a multiplayer correction's ``ranking``; refusals say what to send."""
    if not fixture.players:
        if result not in scoring.RESULTS or ranking is not None:
            given = "a ranking (only for a multiplayer fixture)" if ranking is not None else repr(result)
            raise ServiceError(
                "invalid_result",
                f"a two-player fixture's result is one of {', '.join(scoring.RESULTS)}, without a ranking; not {given}",
            )
        return None
    if result == scoring.DOUBLE_FORFEIT and ranking is None:
        return None
    ids = dict(User.objects.filter(pk__in=fixture.players).values_list("username", "pk"))
    shape = (
        result == scoring.PLACED
        and isinstance(ranking, list)
        and all(isinstance(group, list) and group and all(isinstance(n, str) for n in group) for group in ranking)
    )
    names = [name for group in ranking for name in group] if shape else []
    if not shape or sorted(names) != sorted(ids) or len(set(names)) != len(names):
        raise ServiceError(
            "invalid_result",
            f'a multiplayer fixture\'s result is "placed" with "ranking": its players best first, ties grouped '
            f'(each of {", ".join(sorted(ids))} once, e.g. [["a"], ["b", "c"], ["d"]]), or "double_forfeit"',
        )
    return [[ids[name] for name in group] for group in ranking]


@transaction.atomic
def fixture_correct(
    *,
    fixture_id,
    by,
    result: str,
    reason: str = "",
    ranking: list[list[str]] | None = None,
    now: datetime | None = None,
) -> Fixture:
    """An organiser replaces a decided fixture's result (a misread score sheet, a forfeit that
    should not have been). A multiplayer fixture takes ``result`` ``placed`` with ``ranking`` (its
    players' usernames best first, ties grouped: each exactly once) or ``double_forfeit``. The
    tables are computed from the fixtures, so they follow at once; a closed season's frozen
    standings are recomputed, until its next season has started."""
    now = now or timezone.now()
    try:
        season_id = Fixture.objects.filter(pk=fixture_id).values_list("season_id", flat=True).first()
    except (ValueError, TypeError):
        season_id = None
    if season_id is None:
        raise ServiceError("not_found", "no such fixture", status=404)
    season = _lock_season(season_id)
    require_organiser(season.league.club_id, by)
    reason = (reason or "").strip()
    if not reason or len(reason) > NOTE_LENGTH:
        raise ServiceError("invalid_reason", f"say why, in 1-{NOTE_LENGTH} characters (it is shown with the result)")
    if Season.objects.filter(league_id=season.league_id, number__gt=season.number).exists():
        raise ServiceError(
            "season_superseded",
            "the next season has started from this one's final tables; results are final",
            status=409,
        )
    fixture = lock_by_id(Fixture, fixture_id)
    fixture.season = season
    placed = _corrected_ranking(fixture, result, ranking)
    if not fixture.result:
        raise ServiceError(
            "fixture_undecided",
            "this fixture has no result yet: it is played, or forfeited at its play-by date",
            status=409,
        )
    if fixture.players:
        if result == scoring.DOUBLE_FORFEIT:
            _place_table(fixture, [list(fixture.players)], double_forfeit=True)
        else:
            _place_table(fixture, placed)
    else:
        fixture.result = result
    fixture.method, fixture.note = Fixture.Method.CORRECTION, reason
    fixture.corrected_by, fixture.decided_at = by, now
    fixture.save(update_fields=["result", "placements", "points", "method", "note", "corrected_by", "decided_at"])
    if season.status == Season.Status.CLOSED:
        season.final_standings = selectors.standings_rows(season)
        season.save(update_fields=["final_standings"])
    return fixture
