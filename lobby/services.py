"""The lobby's writes: seeks (create, join, leave, expire), quick pairing, rematches, and rating a
finished rated game.

A seek fills atomically: ``seek_join`` locks the seek row (``SELECT ... FOR UPDATE``) before it
counts the seats, so of two players taking the last seat at the same moment one makes the game and
the other is told ``seek_full``; and the database lets a player sit in only one open seek
(``SeekSeat.seek_seat_one_open``). The game is made by ``games.services.game_create`` with
``consent=True``: every player took their seat themselves, so nobody is seated without consent.
"""

from __future__ import annotations

import hashlib
import random
from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, connection, transaction
from django.db.models import Count
from django.utils import timezone

from games import clocks
from games import selectors as game_selectors
from games.engines import get_engine
from games.engines.base import Engine, RuleError
from games.errors import ServiceError, not_found
from games.eventlog import lock as game_lock
from games.models import Game
from games.notices import account_notice
from games.records import canonical_json
from games.services import game_accept, game_create
from kifu.locking import lock_by_id
from league.scoring.ratings import Rating, initial_rating, rate_ranking

from .models import LobbyGame, Seek, SeekSeat, SiteRating

# A lobby table seats 2-6 players (issue 19); each engine narrows that to its own range.
MIN_SEATS, MAX_SEATS = 2, 6
DEFAULT_EXPIRY_SECONDS = 600
MIN_EXPIRY_SECONDS, MAX_EXPIRY_SECONDS = 30, 86_400
RATING_LIMIT = 1000.0  # a rating range bound beyond this is a typo, not a range
_seating = random.SystemRandom()


# ---- reading helpers ----------------------------------------------------------------------------
def rating_of(user, engine_slug: str) -> float:
    """``user``'s displayed site rating (the ordinal) in this game; 0 (the prior's) when unrated."""
    row = SiteRating.objects.filter(user=user, engine=engine_slug).first()
    return 0.0 if row is None else row.ordinal


def _engine(engine_slug: str, seats, config) -> tuple[Engine, dict]:
    try:
        engine = get_engine(engine_slug)
        if isinstance(seats, int) and not isinstance(seats, bool) and not MIN_SEATS <= seats <= MAX_SEATS:
            raise ServiceError(
                "bad_seat_count", f"a lobby table seats {MIN_SEATS}-{MAX_SEATS} players, not {seats}", status=400
            )
        return engine, engine.validate_setup(config, seats)
    except RuleError as error:
        raise ServiceError(error.code, error.message) from None


def _clock(time_control, engine_slug: str) -> dict | None:
    try:
        return clocks.parse_time_control(time_control, engine_slug)
    except clocks.TimeControlError as error:
        raise ServiceError("bad_time_control", error.message) from None


def pool_key(*, engine: str, seats: int, config: dict, time_control: dict | None, rated: bool) -> str:
    """Seeks with one key are the same table to a quick pairing: same game, seats, rules and clock."""
    return hashlib.sha256(canonical_json([engine, seats, config, time_control, rated]).encode()).hexdigest()


def _check_mature(engine: Engine, user) -> None:
    if engine.mature and not game_selectors.may_see_mature(user):
        raise ServiceError(
            "mature_consent_required",
            "this game is for adults who opted in; confirm it first at POST /api/me/mature-consent",
            status=403,
        )


def _notify(user_ids, event: str, seek: Seek, **extra) -> None:
    """After commit, tell these accounts' streams what happened to the seek (``event``)."""
    ids = [user_id for user_id in user_ids]
    if ids:
        notice = {"event": event, "seek": str(seek.pk), "status": seek.status, **extra}
        transaction.on_commit(lambda: account_notice(ids, notice))


# ---- seeks --------------------------------------------------------------------------------------
@transaction.atomic
def seek_create(
    *,
    user: AbstractBaseUser,
    engine_slug: str,
    seats: int,
    config: dict | None = None,
    time_control: dict | None = None,
    rated: bool = True,
    rating_min: float | None = None,
    rating_max: float | None = None,
    expires_in_seconds: int = DEFAULT_EXPIRY_SECONDS,
    now: datetime | None = None,
) -> Seek:
    """Open a seek; its creator holds the first seat. Refusals: 400 ``bad_seat_count`` (the engine,
    or the lobby's 2-6, does not take that many), ``invalid_config``, ``bad_time_control``,
    ``bad_rating_range``, ``bad_expiry``; 403 ``mature_consent_required``; 409 ``already_seeking``
    (you sit in another open seek: leave it first)."""
    engine, full_config = _engine(engine_slug, seats, config)
    clock = _clock(time_control, engine.slug)
    _check_mature(engine, user)
    for bound in (rating_min, rating_max):
        if bound is not None and (not _is_number(bound) or not -RATING_LIMIT <= bound <= RATING_LIMIT):
            raise ServiceError(
                "bad_rating_range", f"a rating bound is a number from {-RATING_LIMIT:g} to {RATING_LIMIT:g}"
            )
    if rating_min is not None and rating_max is not None and rating_min > rating_max:
        raise ServiceError("bad_rating_range", f"rating_min ({rating_min:g}) is above rating_max ({rating_max:g})")
    if (
        not _is_number(expires_in_seconds, whole=True)
        or not MIN_EXPIRY_SECONDS <= expires_in_seconds <= MAX_EXPIRY_SECONDS
    ):
        raise ServiceError(
            "bad_expiry", f"expires_in_seconds is a whole number from {MIN_EXPIRY_SECONDS} to {MAX_EXPIRY_SECONDS}"
        )
    now = now or timezone.now()
    _check_not_seeking(user, now)
    seek = Seek.objects.create(
        engine=engine.slug,
        seats=seats,
        config=full_config,
        time_control=clock,
        rated=rated,
        rating_min=rating_min,
        rating_max=rating_max,
        pool=pool_key(engine=engine.slug, seats=seats, config=full_config, time_control=clock, rated=rated),
        created_by=user,
        expires_at=now + timedelta(seconds=expires_in_seconds),
    )
    _sit(seek, user)
    return seek


def _is_number(value, *, whole: bool = False) -> bool:
    kinds = (int,) if whole else (int, float)
    return isinstance(value, kinds) and not isinstance(value, bool) and value == value  # NaN is no bound


def _check_not_seeking(user, now: datetime) -> None:
    """Refuse a player who sits in another open seek - unless that one's time is up and the sweep
    has not closed it yet: then it is closed here, so nobody waits up to a sweep for their next
    table. That seek is locked with SKIP LOCKED (a join or the sweep holding it: refused as before),
    so this second lock can never wait in a cycle with another transaction's."""
    current = SeekSeat.objects.filter(user=user, active=True).values_list("seek_id", flat=True).first()
    if current is None:
        return
    overdue = (
        Seek.objects.select_for_update(skip_locked=True)
        .filter(pk=current, status=Seek.Status.OPEN, expires_at__lte=now)
        .first()
    )
    if overdue is not None:
        _expire(overdue, now)
        return
    raise ServiceError(
        "already_seeking",
        f"you already sit in the open seek {current}; leave it (POST /api/lobby/seeks/{current}/leave) first",
        status=409,
    )


def _sit(seek: Seek, user) -> None:
    """Give ``user`` a seat in ``seek``; the partial unique index refuses a second open seek even
    when two requests race past ``_check_not_seeking``."""
    try:
        with transaction.atomic():
            SeekSeat.objects.create(seek=seek, user=user)
    except IntegrityError:
        raise ServiceError(
            "already_seeking", "you already sit in another open seek; leave it first", status=409
        ) from None


def _lock_seek(seek_id) -> Seek:
    return lock_by_id(Seek, seek_id, missing=not_found("seek"))


def _check_open(seek: Seek, now: datetime) -> None:
    if seek.status == Seek.Status.FILLED:
        raise ServiceError("seek_full", "every seat of this seek is taken and its game has started", status=409)
    if seek.status == Seek.Status.CANCELLED:
        raise ServiceError("seek_cancelled", "this seek was cancelled: its creator left", status=409)
    if seek.status == Seek.Status.EXPIRED or seek.expires_at <= now:
        raise ServiceError("seek_expired", "this seek expired before it filled; open or join another", status=409)


@transaction.atomic
def seek_join(*, seek_id, user: AbstractBaseUser, now: datetime | None = None) -> Seek:
    """Take a seat in an open seek; the player who takes the last seat makes the game (seats in a
    random order), and the seek is ``filled`` with it.

    Locks the seek row first, so joins of one seek run one at a time: the seat count read under
    the lock is the truth. Refusals: 404 ``not_found``; 409 ``seek_full``, ``seek_cancelled``,
    ``seek_expired``, ``already_seated`` (you sit in this one), ``already_seeking`` (in another);
    403 ``rating_out_of_range``, ``mature_consent_required``."""
    now = now or timezone.now()
    seek = _lock_seek(seek_id)
    _check_open(seek, now)
    players = list(seek.entries.select_related("user"))
    if any(entry.user_id == user.pk for entry in players):
        raise ServiceError("already_seated", "you already hold a seat in this seek", status=409)
    engine = get_engine(seek.engine)
    _check_mature(engine, user)
    rating = rating_of(user, seek.engine)
    if (seek.rating_min is not None and rating < seek.rating_min) or (
        seek.rating_max is not None and rating > seek.rating_max
    ):
        raise ServiceError(
            "rating_out_of_range",
            f"this seek wants players rated {_range(seek)} in {engine.name}; your rating there is {rating:.1f}",
            status=403,
        )
    _check_not_seeking(user, now)
    _sit(seek, user)
    users = [entry.user for entry in players] + [user]
    if len(users) < seek.seats:
        _notify([entry.user_id for entry in players], "seek_joined", seek, taken=len(users), seats=seek.seats)
        return seek
    _seek_fill(seek, users, engine, now)
    return seek


def _range(seek: Seek) -> str:
    low = "any" if seek.rating_min is None else f"{seek.rating_min:g}"
    high = "any" if seek.rating_max is None else f"{seek.rating_max:g}"
    return f"from {low} to {high}"


def _seek_fill(seek: Seek, users: list, engine: Engine, now: datetime) -> Game:
    """Make the seek's game (locks held). The seats are drawn at random: who sits first is luck,
    not who sought first. ``created_by`` is None - no player moderates a lobby game."""
    seating = list(users)
    _seating.shuffle(seating)
    game = game_create(
        engine_slug=seek.engine,
        config=seek.config,
        seats=seating,
        created_by=None,
        time_control=seek.time_control,
        consent=True,
    )
    if engine.mature:  # game_create leaves mature seats to each player; taking a seat was the answer
        for player in seating:
            game = game_accept(game_id=game.pk, user=player)
    LobbyGame.objects.create(game=game, seek=seek, rated=seek.rated)
    seek.status, seek.game, seek.closed_at = Seek.Status.FILLED, game, now
    seek.save(update_fields=["status", "game", "closed_at"])
    seek.entries.update(active=False)
    _notify([player.pk for player in users], "seek_filled", seek, game=str(game.pk))
    return game


@transaction.atomic
def seek_leave(*, seek_id, user: AbstractBaseUser, now: datetime | None = None) -> Seek:
    """Give up your seat in an open seek. When its creator leaves, the seek is cancelled and the
    others are told on their account streams. Refusals: 404 ``not_found``; 409 ``not_in_seek``,
    ``seek_full``, ``seek_cancelled``, ``seek_expired``."""
    now = now or timezone.now()
    seek = _lock_seek(seek_id)
    _check_open(seek, now)
    entry = seek.entries.filter(user=user).first()
    if entry is None:
        raise ServiceError("not_in_seek", "you hold no seat in this seek", status=409)
    others = list(seek.entries.exclude(user=user).values_list("user_id", flat=True))
    if seek.created_by_id == user.pk:
        _close(seek, Seek.Status.CANCELLED, now)
        _notify(others, "seek_cancelled", seek)
    else:
        entry.delete()
        _notify(others, "seek_left", seek, taken=len(others), seats=seek.seats)
    return seek


def _close(seek: Seek, status: str, now: datetime) -> None:
    seek.status, seek.closed_at = status, now
    seek.save(update_fields=["status", "closed_at"])
    seek.entries.update(active=False)


@transaction.atomic
def seeks_expire(*, now: datetime | None = None) -> int:
    """Expire every open seek past its time (beat, or the embedded timer thread, runs this every few
    seconds); their players are told. Rows another transaction holds (a join in flight) are
    skipped and taken on the next sweep. Returns how many expired."""
    now = now or timezone.now()
    due = list(
        Seek.objects.select_for_update(skip_locked=True).filter(status=Seek.Status.OPEN, expires_at__lte=now)[:500]
    )
    for seek in due:
        _expire(seek, now)
    return len(due)


def _expire(seek: Seek, now: datetime) -> None:
    players = list(seek.entries.values_list("user_id", flat=True))
    _close(seek, Seek.Status.EXPIRED, now)
    _notify(players, "seek_expired", seek)


# ---- quick pairing ------------------------------------------------------------------------------
def _pool_lock(pool: str) -> None:
    """Serialise quick pairings of one pool (``pg_advisory_xact_lock``, released at commit): two
    players asking for the same table at the same moment must meet at one seek, not open two.
    Written by hand because no library offers a transaction-scoped advisory lock for Django's
    connection; SQLite (embedded mode) has one writer at a time anyway."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [int.from_bytes(bytes.fromhex(pool[:16]), signed=True)])


@transaction.atomic
def quick_pair(
    *,
    user: AbstractBaseUser,
    engine_slug: str,
    seats: int,
    config: dict | None = None,
    time_control: dict | None = None,
    rated: bool = True,
    now: datetime | None = None,
) -> tuple[Seek, bool]:
    """Quick pairing, "play this game with N seats now": join the compatible open seek nearest to
    full (then the oldest) whose rating range admits you, or open one. Compatible: same game,
    seats, config, clock and rated-ness (``pool_key``). Returns the seek and whether it was joined (False: opened).
    Refusals as ``seek_create``."""
    now = now or timezone.now()
    engine, full_config = _engine(engine_slug, seats, config)
    clock = _clock(time_control, engine.slug)
    _check_mature(engine, user)
    _check_not_seeking(user, now)
    pool = pool_key(engine=engine.slug, seats=seats, config=full_config, time_control=clock, rated=rated)
    _pool_lock(pool)
    rating = rating_of(user, engine.slug)
    candidates = _candidates(pool, rating, user, now)
    for seek in candidates:
        try:
            with transaction.atomic():
                return seek_join(seek_id=seek.pk, user=user, now=now), True
        except ServiceError as error:
            if error.code not in ("seek_full", "seek_cancelled", "seek_expired"):
                raise
    seek = seek_create(
        user=user, engine_slug=engine.slug, seats=seats, config=full_config, time_control=clock, rated=rated, now=now
    )
    return seek, False


def _candidates(pool: str, rating: float, user, now: datetime):
    """Open seeks of the pool that admit ``rating`` and not yet ``user``, nearest to full first
    (a three-seat table with two players fills before a new one gets its second), then oldest."""
    return (
        Seek.objects.filter(pool=pool, status=Seek.Status.OPEN, expires_at__gt=now)
        .exclude(rating_min__gt=rating)
        .exclude(rating_max__lt=rating)
        .exclude(entries__user=user)
        .annotate(taken=Count("entries"))
        .order_by("-taken", "created_at")[:20]
    )


# ---- rematches ----------------------------------------------------------------------------------
@transaction.atomic
def rematch_offer(*, game_id, user: AbstractBaseUser) -> tuple[Game, bool]:
    """Offer the players of a finished game another one: the same game, config and clock, the seats
    turned by one (another player leads). The offer is a game whose other seats are invitations
    (the account streams announce it; each accepts with ``POST /api/games/{id}/accept`` or
    declines, which cancels it); it starts when all have accepted. A rematch of a rated lobby
    game is rated. One rematch per game: offering again, or a second player offering, accepts the
    open one for you. Returns the rematch and whether this call made it.

    Locks the finished game's row, so two players offering at once make one rematch. Refusals:
    404 ``not_found``; 403 ``not_seated``; 409 ``game_not_finished``, ``seat_vacant`` (an
    account of the game is gone), ``rematch_declined``, ``not_a_server_game`` (an imported or
    table-recorded game)."""
    game = game_lock(game_id)
    seats = list(game.seats.order_by("index"))
    if not any(seat.user_id == user.pk for seat in seats):
        raise ServiceError("not_seated", "only the players of a game may offer its rematch", status=403)
    if not game.is_finished:
        raise ServiceError("game_not_finished", "a rematch is offered once the game has finished", status=409)
    if game.source != Game.Source.SERVER:
        raise ServiceError(
            "not_a_server_game", "a recorded table game has no rematch here; start a new game instead", status=409
        )
    existing = LobbyGame.objects.filter(rematch_of=game).select_related("game").first()
    if existing is not None:
        rematch = existing.game
        if rematch.status == Game.Status.CANCELLED:
            raise ServiceError("rematch_declined", "the rematch of this game was declined", status=409)
        if rematch.status == Game.Status.OPEN:
            rematch = game_accept(game_id=rematch.pk, user=user)
        return rematch, False
    if any(seat.user is None for seat in seats):
        raise ServiceError("seat_vacant", "a player of this game has no account any more", status=409)
    turned = [seat.user for seat in seats[1:] + seats[:1]]
    rated = LobbyGame.objects.filter(game=game, rated=True).exists()
    rematch = game_create(
        engine_slug=game.engine,
        config=game.config,
        seats=turned,
        created_by=user,
        time_control=(game.meta or {}).get("time_control"),
    )
    LobbyGame.objects.create(game=rematch, rematch_of=game, rated=rated)
    return rematch, True


# ---- the site rating ----------------------------------------------------------------------------
@transaction.atomic
def lobby_game_rate(*, game_id) -> bool:
    """Rate a finished rated lobby game once: every player's site rating in its engine moves by
    OpenSkill (``league.scoring.ratings.rate_ranking``, as the rating ladders). Idempotent (the
    ``game_finished`` task may run twice). Returns whether it rated.

    Locks the lobby game row, then the players' rating rows in user-id order, so two games of the
    same player finishing at once update the player's rating one after the other."""
    try:
        link = LobbyGame.objects.select_for_update(of=("self",)).select_related("game").get(game_id=game_id)
    except (LobbyGame.DoesNotExist, ValueError, TypeError):
        return False
    game = link.game
    if not link.rated or link.rated_at is not None or not game.is_finished or not game.outcome:
        return False
    users = dict(game.seats.values_list("index", "user_id"))
    if None in users.values():
        return False
    ranking = [[users[seat] for seat in group] for group in game.outcome["ranking"]]
    ids = sorted(users.values())
    prior = initial_rating()
    SiteRating.objects.bulk_create(
        [SiteRating(user_id=pk, engine=game.engine, mu=prior.mu, sigma=prior.sigma) for pk in ids],
        ignore_conflicts=True,
    )
    rows = {
        row.user_id: row
        for row in SiteRating.objects.select_for_update()
        .filter(engine=game.engine, user_id__in=ids)
        .order_by("user_id")
    }
    before = {pk: Rating(row.mu, row.sigma) for pk, row in rows.items()}
    after = rate_ranking(before, ranking)
    now = timezone.now()
    for pk, rating in after.items():
        row = rows[pk]
        row.mu, row.sigma, row.games, row.updated_at = rating.mu, rating.sigma, row.games + 1, now
    SiteRating.objects.bulk_update(list(rows.values()), ["mu", "sigma", "games", "updated_at"])
    link.rated_at = now
    link.changes = {
        str(pk): {"before": round(before[pk].ordinal, 2), "after": round(after[pk].ordinal, 2)} for pk in after
    }
    link.save(update_fields=["rated_at", "changes"])
    return True
