"""Reads of games and events as a given user may see them; nothing here writes.

What a viewer may see *now* is decided in one place, ``game_sight``: a seated player and the
game's moderators see the game live; a spectator of a game with a spectator delay sees it as it
was that many seconds ago (``Sight.seq``), and ``game_head``/``events_for`` build that view.
"""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache as once

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection
from django.db.models import Exists, OuterRef, Prefetch, QuerySet
from django.utils import timezone

from . import clocks, moderation
from .engines import REGISTRY, get_engine
from .engines.base import RuleError
from .meta import meta_readable
from .models import BotAccount, ContributionHiding, Event, Game, MatureConsent, Seat, Submission

log = logging.getLogger("kifu.games")


def may_see_mature(user) -> bool:
    """Whether ``user`` has confirmed they are an adult who consents to mature content."""
    if user is None or not user.is_authenticated:
        return False
    return MatureConsent.objects.filter(user=user).exists()


def mature_engines() -> list[str]:
    return [slug for slug, engine in REGISTRY.items() if engine.mature]


def engine_list(*, viewer=None) -> list:
    """The engines ``viewer`` may see listed: mature games only for a viewer who consented.

    Every list of games - the API's, the home page's, the new-game form's - reads this one, so the
    promise "mature games are missing from every list without consent" holds in one place."""
    if may_see_mature(viewer):
        return list(REGISTRY.values())
    return [engine for engine in REGISTRY.values() if not engine.mature]


def seat_for_move(*, game_id, user) -> int | None:
    """The seat ``user`` holds in a game it may see, in one query - the hot path of a move
    (``POST .../moves``): None when the user holds no seat there, or the game is mature and the
    user has withdrawn consent (then it is not shown to them at all). The caller tells "no such
    game" from "not a player" with ``game_get`` only when this is None."""
    try:
        key = Game._meta.pk.get_db_prep_value(uuid.UUID(str(game_id)), connection)  # SQLite keeps hex text
    except ValueError:  # a malformed UUID: no such game
        return None
    with connection.cursor() as cursor:
        cursor.execute(_seat_for_move_sql(), [key, user.pk])
        row = cursor.fetchone()
    if row is None:
        return None
    index, engine = row
    if engine in mature_engines() and not may_see_mature(user):
        return None
    return index


@once
def _seat_for_move_sql() -> str:
    """``seat_for_move``'s read as fixed SQL: it runs on every move, and compiling the ORM query
    (a filter across the seat's game) was ~8% of a web process's CPU under the move benchmark."""
    game, user = Seat._meta.get_field("game").column, Seat._meta.get_field("user").column
    return (
        f'SELECT s."index", g."engine" FROM "{Seat._meta.db_table}" s '
        f'JOIN "{Game._meta.db_table}" g ON g."{Game._meta.pk.column}" = s."{game}" '
        f'WHERE s."{game}" = %s AND s."{user}" = %s'
    )


# ---- an account's turns ---------------------------------------------------------------------------
TURNS_LIMIT = 500  # running games of one account read by ``turns_for``, oldest first


@dataclass(frozen=True)
class Turns:
    """An account's running games (``turns_for``): where its seat may act now, with the legal moves,
    and where it may not (``waiting``, by game id: the head seq and seat)."""

    turns: list[dict]
    waiting: list[dict]

    def games(self) -> frozenset[str]:
        return frozenset(item["game"] for item in (*self.turns, *self.waiting))


def turns_for(*, user) -> Turns:
    """The running games in which ``user`` holds a seat (at most ``TURNS_LIMIT``, oldest first), in
    one query: those where the seat may act now with their legal moves, the others as waiting.

    A game where the user has a submission still pending is waiting: the move it sent is being
    judged, so moves listed for the same position would be refused. A mature game is left out
    without consent. Only the seat's own legal moves are read (nothing hidden from the seat)."""
    with connection.cursor() as cursor:
        cursor.execute(_turns_sql(connection.vendor), [user.pk, Game.Status.RUNNING, TURNS_LIMIT])
        rows = cursor.fetchall()
    mature = set(mature_engines())
    consents = None
    turns, waiting = [], []
    for game_id, engine_slug, head_seq, seat, state in rows:
        if engine_slug in mature:
            consents = may_see_mature(user) if consents is None else consents
            if not consents:
                continue
        item = {"game": str(uuid.UUID(str(game_id))), "engine": engine_slug, "seat": seat, "head_seq": head_seq}
        moves = []
        if state is not None:
            engine = get_engine(engine_slug)
            state = json.loads(state) if isinstance(state, str) else state
            moves = list(engine.legal_moves(engine.load_state(state), seat))
        if moves:
            turns.append({**item, "moves": moves})
        else:
            waiting.append(item)
    return Turns(turns, waiting)


@once
def _turns_sql(vendor: str) -> str:
    """``turns_for``'s read as fixed SQL. The state comes only for a game whose stored actors hold
    the seat and where the user has no pending submission: the rest cost no state load."""
    game, seat, submission = Game._meta.db_table, Seat._meta.db_table, Submission._meta.db_table
    if vendor == "postgresql":
        acts = 'g."actors" @> to_jsonb(s."index")'
    else:  # SQLite (embedded mode)
        acts = 'EXISTS (SELECT 1 FROM json_each(g."actors") a WHERE a.value = s."index")'
    pending = (
        f'EXISTS (SELECT 1 FROM "{submission}" p WHERE p."game_id" = g."id" AND p."user_id" = s."user_id" '
        f"AND p.\"status\" = '{Submission.Status.PENDING}')"
    )
    return (
        f'SELECT g."id", g."engine", g."head_seq", s."index", '
        f'CASE WHEN {acts} AND NOT {pending} THEN g."state" END '
        f'FROM "{seat}" s JOIN "{game}" g ON g."id" = s."game_id" '
        f'WHERE s."user_id" = %s AND g."status" = %s ORDER BY g."created_at", g."id" LIMIT %s'
    )


def game_list(
    *, viewer=None, engine: str | None = None, status: str | None = None, player: str | None = None
) -> QuerySet:
    """Games ``viewer`` may see: mature games only for viewers who confirmed (never in public lists)."""
    games = _with_reads(Game.objects.prefetch_related(_seats_with_users()), viewer=None)
    if not may_see_mature(viewer):
        games = games.exclude(engine__in=mature_engines())
    if engine:
        games = games.filter(engine=engine)
    if status:
        games = games.filter(status=status)
    if player:
        games = games.filter(seats__user__username=player)
    return games.distinct()


def invitations_for(*, user) -> QuerySet:
    """The games waiting for ``user`` to accept or decline a seat someone else named them for
    (``services.game_accept`` / ``game_decline``), oldest first; mature ones only with consent."""
    games = _with_reads(Game.objects.prefetch_related(_seats_with_users()), viewer=None).select_related("created_by")
    games = games.filter(
        status=Game.Status.OPEN, seats__user=user, seats__accepted_at__isnull=True, seats__declined_at__isnull=True
    )
    if not may_see_mature(user):
        games = games.exclude(engine__in=mature_engines())
    return games.order_by("created_at")


def _seats_with_users() -> Prefetch:
    """A game's seats with their users and bot flags, in one query for any number of games."""
    return Prefetch("seats", queryset=Seat.objects.select_related("user__bot_account"))


def _with_reads(games: QuerySet, *, viewer) -> QuerySet:
    """``games`` annotated with what every read of a game asks, so that answering costs no further
    query: whether moderators ever decided on a contribution (``moderation.contribution_mask`` reads
    nothing when not), and - for a logged-in ``viewer`` - whether they consent to mature content."""
    games = games.annotate(moderation_decided=Exists(ContributionHiding.objects.filter(game=OuterRef("pk"))))
    if viewer is not None and viewer.is_authenticated:
        games = games.annotate(viewer_consents=Exists(MatureConsent.objects.filter(user_id=viewer.pk)))
    return games


@once
def _game_read_sql(with_viewer: bool) -> str:
    """``_with_reads`` for one game as fixed SQL: every game endpoint runs it, and the ORM would
    compile the annotated query anew each time (~0.5-1 ms a request here, measured with cProfile)."""
    hiding, consent = ContributionHiding._meta.db_table, MatureConsent._meta.db_table
    viewer = f', EXISTS(SELECT 1 FROM "{consent}" c WHERE c.user_id = %s) AS viewer_consents' if with_viewer else ""
    return (
        f'SELECT g.*, EXISTS(SELECT 1 FROM "{hiding}" h WHERE h.game_id = g.id) AS moderation_decided{viewer} '
        f'FROM "{Game._meta.db_table}" g WHERE g.id = %s'
    )


def game_get(*, game_id, viewer=None) -> Game | None:
    """The game if ``viewer`` may see it: a mature game is invisible (None) without consent.

    Two queries (issue 14): the game row, with the viewer's consent and whether moderators ever
    decided on it, then its seats with users and bot flags - and only the first for a mature game
    the viewer may not see. ``seat_of``, ``game_sight`` (without a spectator delay), the clock
    and the mask of a game nobody moderated answer from these without reading again."""
    try:
        game_id = uuid.UUID(str(game_id))
    except ValueError:  # a malformed UUID
        return None
    viewer_id = viewer.pk if viewer is not None and viewer.is_authenticated else None
    key = Game._meta.pk.get_db_prep_value(game_id, connection)  # SQLite keeps a UUID as hex text
    rows = list(Game.objects.raw(_game_read_sql(viewer_id is not None), [viewer_id, key] if viewer_id else [key]))
    game = rows[0] if rows else None
    if game is None or (get_engine(game.engine).mature and not game_viewer_consents(game, viewer)):
        return None
    _read_seats(game)  # not before: a hidden game reads no seats
    return game


def _columns(model) -> list[str]:
    return [field.column for field in model._meta.concrete_fields]


@once
def _seats_read_sql() -> str:
    """The seats of one game with their users and bot flags (what ``_seats_with_users`` prefetches)
    as fixed SQL: every game endpoint reads them, and the ORM would compile the prefetch each time."""
    user_model = get_user_model()
    seat = ", ".join(f's."{c}"' for c in _columns(Seat))
    user = ", ".join(f'u."{c}"' for c in _columns(user_model))
    bot = ", ".join(f'b."{c}"' for c in _columns(BotAccount))
    return (
        f'SELECT {seat}, {user}, {bot} FROM "{Seat._meta.db_table}" s '
        f'LEFT JOIN "{user_model._meta.db_table}" u ON u.id = s.user_id '
        f'LEFT JOIN "{BotAccount._meta.db_table}" b ON b.user_id = u.id '
        'WHERE s.game_id = %s ORDER BY s."index"'
    )


def _read_seats(game: Game) -> None:
    """Read ``game``'s seats, users and bot flags in one statement and cache them exactly where
    ``prefetch_related_objects([game], _seats_with_users())`` would: ``game.seats.all()``, each
    ``seat.user`` and ``user.bot_account`` (missing: ``is_bot`` is False) answer without a query."""
    user_model = get_user_model()
    models = (Seat, user_model, BotAccount)
    names = [[field.attname for field in model._meta.concrete_fields] for model in models]
    with connection.cursor() as cursor:
        cursor.execute(_seats_read_sql(), [Game._meta.pk.get_db_prep_value(game.pk, connection)])
        rows = cursor.fetchall()
    db = connection.alias
    seats = []
    for row in rows:
        values, start = [], 0
        for attnames in names:
            values.append(row[start : start + len(attnames)])
            start += len(attnames)
        seat = Seat.from_db(db, names[0], values[0])
        Seat.game.field.set_cached_value(seat, game)
        user = None
        if values[1][0] is not None:
            user = user_model.from_db(db, names[1], values[1])
            bot = BotAccount.from_db(db, names[2], values[2]) if values[2][0] is not None else None
            user_model.bot_account.related.set_cached_value(user, bot)
            if bot is not None:
                BotAccount.user.field.set_cached_value(bot, user)
        Seat.user.field.set_cached_value(seat, user)
        seats.append(seat)
    queryset = game.seats.all()
    queryset._result_cache, queryset._prefetch_done = seats, True
    game._prefetched_objects_cache = {**getattr(game, "_prefetched_objects_cache", {}), "seats": queryset}


def game_viewer_consents(game: Game, viewer) -> bool:
    """``may_see_mature(viewer)``, from the annotation ``game_get`` read with the game if there is one."""
    if viewer is None or not viewer.is_authenticated:
        return False
    consents = getattr(game, "viewer_consents", None)
    return may_see_mature(viewer) if consents is None else consents


def seat_of(*, game: Game, user) -> int | None:
    """The index of ``user``'s seat, or None; from the seats ``game_get`` read, if it did."""
    if user is None or not user.is_authenticated:
        return None
    return next((seat.index for seat in game.seats.all() if seat.user_id == user.pk), None)


def seat_count(game: Game) -> int:
    """How many seats ``game`` has; from the seats ``game_get`` read, if it did."""
    return len(game.seats.all())


def game_view(*, game: Game, seat: int | None, moderator: bool = False, sight: Sight | None = None) -> dict | None:
    """The engine's view for ``seat``, with hidden contributions replaced unless ``moderator``.

    Without a ``sight`` a spectator (seat None, not a moderator) is held back by the game's
    spectator delay: the safe default for a caller that does not know the viewer."""
    if game.state is None:
        return None
    sight = sight or sight_for_seat(game=game, seat=seat, privileged=moderator)
    engine = get_engine(game.engine)
    if sight.delayed:
        view = engine.view(sight_replay(game=game, sight=sight, replay=None).state, None)
    else:
        view = engine.view(engine.load_state(game.state), seat)
    mask = moderation.contribution_mask(game=game, moderator=moderator)
    return mask.tree(view) if mask else view


def outcome_for(*, game: Game, moderator: bool = False) -> dict | None:
    """The stored outcome; a storytelling outcome may quote contributions, so hidden ones go."""
    if game.outcome is None:
        return None
    mask = moderation.contribution_mask(game=game, moderator=moderator)
    return mask.tree(game.outcome) if mask else game.outcome


def legal_moves(*, game: Game, seat: int | None) -> list[dict]:
    if seat is None or game.state is None or game.is_finished:
        return []
    engine = get_engine(game.engine)
    return list(engine.legal_moves(engine.load_state(game.state), seat))  # a Sequence; JSON needs a list


def events_for(
    *,
    game: Game,
    seat: int | None,
    after: int = 0,
    limit: int = 500,
    moderator: bool = False,
    sight: Sight | None = None,
    replay: Replay | None = None,
) -> list[dict]:
    """Events after ``after`` as ``seat`` may see them; every seq is present so gaps show.

    Once the game is over (and, for a delayed spectator, past the delay) the whole record is
    public and nothing is redacted for hidden cards; a contribution a moderator hid stays hidden
    (text replaced by a marker) unless ``moderator``. The default is the safe one, so every caller
    that does not know the viewer redacts, and a spectator without a ``sight`` is held back by
    the spectator delay. A delayed spectator's events are redacted against the state at their
    ``sight.seq`` (what was public then); ``replay`` may bring that state (a stream keeps one).
    """
    sight = sight or sight_for_seat(game=game, seat=seat, privileged=moderator)
    # Only up to the head this game row was read at (or the delayed seq): a newer event must not be
    # judged by an older state (an open game that started since would otherwise show its deal).
    rows = Event.objects.filter(game=game, seq__gt=after, seq__lte=sight.seq).order_by("seq")[:limit]
    engine = get_engine(game.engine)
    state = None
    if not sight.public and game.state is not None:
        if sight.delayed:
            state = sight_replay(game=game, sight=sight, replay=replay).state
        else:
            state = engine.load_state(game.state)
    out = []
    for row in rows:
        event = row.as_record()
        if state is not None:
            event = engine.event_view(state, event, None if sight.delayed else seat)
        item = {"seq": row.seq, **event, "created_at": row.created_at}
        if sight.public:
            # Not before: a hidden move has few possible contents, so its hash would give it away.
            item["hash"] = row.hash
        out.append(item)
    mask = moderation.contribution_mask(game=game, moderator=moderator)
    return [mask.event(item) for item in out] if mask else out


# ---- the spectator delay ----------------------------------------------------------------------
def readable_meta(game: Game) -> dict:
    """The game's settings as readers may use them (``games.meta.meta_readable``: a stored setting
    that fails game creation's checks is left out and logged, never a 500); once per instance."""
    cached = getattr(game, "_readable_meta", None)
    if cached is None or cached[0] is not game.meta:
        cached = (game.meta, meta_readable(game.meta, engine_slug=game.engine, game_id=game.pk))
        game._readable_meta = cached
    return cached[1]


def spectator_delay(game: Game) -> int:
    return int(readable_meta(game).get("spectator_delay_seconds") or 0)


@dataclass(frozen=True)
class Sight:
    """What a viewer may see of a game now.

    ``seq``: the last event they may see. ``delayed``: a spectator held back by the spectator
    delay - their state, clock and head are the replay at ``seq`` as of ``as_of`` (now minus the
    delay), seen as a spectator. ``public``: the game is over and (for a delayed spectator) its
    end is older than the delay, so the whole record, seed and hashes are public.
    """

    seq: int
    delayed: bool
    public: bool
    as_of: datetime | None = None
    delay_seconds: int = 0
    next_at: datetime | None = None  # when a delayed spectator may see more (the next event or the end)


def game_sight(*, game: Game, user, now: datetime | None = None) -> Sight:
    """The one rule for what ``user`` may see of ``game`` now (API, streams and web pages use it).

    Seated players see their own view live; so do its moderators (``moderation.is_moderator``).
    Anyone else, logged in or not, sees only events whose ``created_at`` is at least
    ``spectator_delay_seconds`` old, and the state as it was after the last of them. A finished
    game becomes public only once its end is older than the delay (a spectator never learns the
    result, the seed or a hidden hand earlier than they would have while it ran).
    """
    if spectator_delay(game) == 0:  # most games: no reads at all (the game list calls this per game)
        return sight_for_seat(game=game, seat=None, privileged=True)
    privileged = seat_of(game=game, user=user) is not None or moderation.is_moderator(game=game, user=user)
    return sight_for_seat(game=game, seat=None, privileged=privileged, now=now)


def sight_for_seat(*, game: Game, seat: int | None, privileged: bool = False, now: datetime | None = None) -> Sight:
    """``game_sight`` for a caller that already knows the viewer's seat (None: a spectator) and
    whether they are privileged (a moderator: ``moderation.is_moderator``)."""
    delay = spectator_delay(game)
    live = Sight(seq=game.head_seq, delayed=False, public=game.is_finished)
    if delay == 0 or seat is not None or privileged or not game.has_started:
        return live
    as_of = (now or timezone.now()) - timedelta(seconds=delay)
    if game.is_finished and game.finished_at is not None and game.finished_at <= as_of:
        return live
    hidden = (
        Event.objects.filter(game=game, seq__lte=game.head_seq, created_at__gt=as_of)
        .order_by("seq")
        .values_list("seq", "created_at")
        .first()
    )
    if hidden is not None:
        seq, next_at = hidden[0] - 1, hidden[1] + timedelta(seconds=delay)
    else:
        seq = game.head_seq
        next_at = game.finished_at + timedelta(seconds=delay) if game.finished_at else None
    return Sight(seq=seq, delayed=True, public=False, as_of=as_of, delay_seconds=delay, next_at=next_at)


# ---- replay and clocks ------------------------------------------------------------------------
@dataclass(frozen=True)
class Replay:
    """The game replayed from its log up to ``seq``: the engine state, a bank clock derived from
    the log (``games.clocks``), and ``at`` - the created_at of event ``seq``."""

    seq: int
    state: object
    bank: clocks.Bank | None
    at: datetime | None


class StoredEventError(RuleError):
    """A stored event that does not replay (a damaged or hand-edited log): ``seq`` says which; the
    ``code`` and ``message`` are the engine's."""

    def __init__(self, seq: int, error: RuleError) -> None:
        super().__init__(error.message, code=error.code)
        self.seq = seq


def game_replay(*, game: Game, upto: int, since: Replay | None = None) -> Replay:
    """Replay ``game`` to event ``upto`` (continuing ``since`` when it is not past ``upto``): the one
    replay of a stored game (API, streams, web pages); ``games.records.replay_record`` replays a
    record file. A stored event the engine refuses raises ``StoredEventError``.

    A bank clock is derived from the log alone: each event's boundary is the receipt time of the
    accepted submission it came from, else its ``created_at`` (``games.clocks`` says why)."""
    engine = get_engine(game.engine)
    clock = readable_meta(game).get("time_control")
    banked = bool(clock) and clocks.kind(clock) == "bank" and game.started_at is not None
    if since is None or since.seq > upto:
        seats = seat_count(game)
        state = engine.setup(game.config, seats)
        bank = None
        if banked:
            bank = clocks.Bank.start(clock, seats, game.started_at, _running(engine, state))
        since = Replay(0, state, bank, game.started_at)
    state, bank, at = since.state, since.bank, since.at
    rows = list(game.events.filter(seq__gt=since.seq, seq__lte=upto).order_by("seq"))
    receipts = {}
    if banked and rows:
        receipts = dict(
            Submission.objects.filter(
                game=game, status=Submission.Status.ACCEPTED, event_seq__gt=since.seq, event_seq__lte=upto
            ).values_list("event_seq", "received_at")
        )
    for row in rows:
        try:
            state = engine.apply(state, row.as_record())
        except RuleError as error:
            raise StoredEventError(row.seq, error) from None
        at = row.created_at
        if bank is not None:
            bank = bank.step(
                boundary=receipts.get(row.seq, row.created_at),
                mover=row.seat if row.kind == "move" else None,
                running=_running(engine, state),
                increment_ms=int(clock["increment_seconds"] * 1000),
            )
    return Replay(rows[-1].seq if rows else since.seq, state, bank, at)


# Delayed spectators of one game all look at the same few seqs: their replays are cached (events
# and receipts up to a seq never change, so a replay to a seq is valid for good).
REPLAY_CACHE_SECONDS = 3600


def _replay_key(game: Game, seq: int) -> str:
    return f"kifu:replay:{game.pk}:{seq}"


def sight_replay(*, game: Game, sight: Sight, replay: Replay | None = None) -> Replay:
    """``replay`` if it is at ``sight.seq``, else a replay of the game to there: from the cache, or
    continued from ``replay`` or from a cached replay a few seqs back, and then cached."""
    if replay is not None and replay.seq == sight.seq:
        return replay
    engine = get_engine(game.engine)
    if replay is None or replay.seq > sight.seq:
        replay = None
        for seq in range(sight.seq, max(sight.seq - 4, -1), -1):
            cached = cache.get(_replay_key(game, seq))
            if cached is not None:
                replay = Replay(
                    seq,
                    engine.load_state(cached["state"]),
                    clocks.Bank.from_json(cached["bank"]) if cached["bank"] else None,
                    datetime.fromisoformat(cached["at"]) if cached["at"] else None,
                )
                break
        if replay is not None and replay.seq == sight.seq:
            return replay
    replay = game_replay(game=game, upto=sight.seq, since=replay)
    if replay.seq == sight.seq:
        cached = {
            "state": engine.dump_state(replay.state),
            "bank": replay.bank.to_json() if replay.bank else None,
            "at": replay.at.isoformat() if replay.at else None,
        }
        try:
            cache.set(_replay_key(game, replay.seq), cached, REPLAY_CACHE_SECONDS)
        except Exception:  # the cache only saves work; a replay is always possible
            log.warning("could not cache the replay of %s at %s", game.pk, replay.seq, exc_info=True)
    return replay


def _running(engine, state) -> tuple[int, ...]:
    # The same rule as services._running (a selector may not import the write side's internals).
    if engine.outcome(state) is not None or engine.chance_due(state) or engine.deadline(state) is not None:
        return ()
    return tuple(sorted(engine.actors(state)))


def clock_for(*, game: Game, sight: Sight | None = None, replay: Replay | None = None, now=None) -> dict | None:
    """The game's clock as ``sight`` allows: ``{"kind", "on_timeout", "paused", "seats":
    [{"seat", "remaining_ms", "running"}]}``; None for a game without a time control.

    Live, a bank reads its projection and a per-move clock its window; a delayed spectator gets
    the clock of the replay at ``sight.seq`` as of ``sight.as_of``."""
    meta = readable_meta(game)
    clock = meta.get("time_control")
    if not clock or not game.has_started:
        return None
    seats = seat_count(game)
    engine = get_engine(game.engine)
    delayed = sight is not None and sight.delayed
    if delayed:
        replay = sight_replay(game=game, sight=sight, replay=replay)
        moment, over = sight.as_of, engine.outcome(replay.state) is not None
        window = None if over else engine.deadline(replay.state)
        actors = () if over else tuple(sorted(engine.actors(replay.state)))
    else:
        moment, over = now or timezone.now(), game.is_finished
        window = None if over or not game.window or game.window.startswith("clock-") else game.window
        actors = () if over else tuple(game.actors)
    out = {"kind": clocks.kind(clock), "on_timeout": clock.get("on_timeout", "loss"), "paused": window is not None}
    if clocks.kind(clock) == "bank":
        if delayed:
            bank = replay.bank
        else:
            bank = clocks.Bank.from_json(meta["clock_state"]) if "clock_state" in meta else None
        if bank is None:
            return {**out, "seats": []}
        left = bank.at(moment)
        running = () if over else bank.running
        out["seats"] = [{"seat": s, "remaining_ms": left[s], "running": s in running} for s in range(seats)]
        return out
    full = int(clocks.move_seconds(clock) * 1000)
    if delayed:
        opened = replay.at
    else:
        opened = game.window_opened_at if game.window.startswith("clock-") else None
    running = () if over or window is not None or opened is None else actors
    left = max(0, full - int((moment - opened) / timedelta(milliseconds=1))) if running else full
    out["seats"] = [
        {"seat": s, "remaining_ms": left if s in running else full, "running": s in running} for s in range(seats)
    ]
    return out


def game_head(*, game: Game, sight: Sight, moderator: bool = False, replay: Replay | None = None) -> dict:
    """The head of ``game`` as ``sight`` allows: ``head_seq``, ``status``, ``actors``, ``window``,
    ``outcome``, ``clock`` and ``finished_at`` - live from the game row, or for a delayed
    spectator from the replay at ``sight.seq`` (a window's times are those of event ``seq``)."""
    if not sight.delayed:
        window = None
        if game.window:
            window = {"id": game.window, "opened_at": game.window_opened_at, "deadline_at": game.deadline_at}
        return {
            "head_seq": game.head_seq,
            "status": game.status,
            "actors": game.actors,
            "window": window,
            "outcome": outcome_for(game=game, moderator=moderator),
            "clock": clock_for(game=game, sight=sight),
            "finished_at": game.finished_at,
        }
    replay = sight_replay(game=game, sight=sight, replay=replay)
    engine = get_engine(game.engine)
    outcome = engine.outcome(replay.state)
    clock = clock_for(game=game, sight=sight, replay=replay)
    window = None
    deadline = None if outcome is not None else engine.deadline(replay.state)
    if deadline is not None:
        window = {
            "id": deadline.window,
            "opened_at": replay.at,
            "deadline_at": replay.at + timedelta(seconds=deadline.seconds),
        }
    elif clock is not None and any(seat["running"] for seat in clock["seats"]) and outcome is None:
        control = readable_meta(game)["time_control"]
        if replay.bank is not None:
            opened, deadline_at = replay.bank.mark, replay.bank.deadline()
        else:
            opened = replay.at
            deadline_at = replay.at + timedelta(seconds=clocks.move_seconds(control))
        window = {"id": f"clock-{replay.seq}", "opened_at": opened, "deadline_at": deadline_at}
    outcome_json = None
    if outcome is not None:
        outcome_json = outcome.to_json()
        mask = moderation.contribution_mask(game=game, moderator=moderator)
        outcome_json = mask.tree(outcome_json) if mask else outcome_json
    return {
        "head_seq": replay.seq,
        "status": Game.Status.FINISHED if outcome is not None else Game.Status.RUNNING,
        "actors": [] if outcome is not None else sorted(engine.actors(replay.state)),
        "window": window,
        "outcome": outcome_json,
        "clock": clock,
        "finished_at": None,
    }
