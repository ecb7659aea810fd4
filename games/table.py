"""The table recorder: a keeper records a game played with real cards at a real table, line by line.

A table game (``Game.Source.TABLE``) is an ordinary game of the event log with two differences: it
has no seed, and its chance outcomes come from the keeper instead of from a seeded generator. Each
line the keeper types - a chance outcome (the deal as the cards are revealed), a move, or a system
event (a reaction window that ended with nobody calling, a resignation) - goes through the same
path as every append (``eventlog.Appender``: lock, engine, hash chain, head projection, after-commit
notices), so the engine checks it at once and a wrong line is refused with the engine's code before
it is stored. The finished record exports, verifies and replays like an imported one (no seed, so
``chance_ok``/``seed_ok`` are ``null``), and its end sends ``game_finished`` as an online game's does.

**What the engine needs to know, and when.** Hidden information does not apply while recording:
the keeper enters what the players reveal at the table. But the engine's contract is that a chance
event is written out *in full* when it happens (``ARCHITECTURE.md``): a deal names every zone, a
face-down stock in its order. So:

- Zones nobody plays from and whose order never matters (Nine Card's four set-aside cards per
  player, The Satori's set-aside pile) may be left out (``null``): the server completes them with
  the cards of the deal's pack that were not entered (``COMPLETABLE``). Nothing is guessed that
  could later contradict the table.
- Zones that play reveals later, in order (1234's and Mekuri Hinmin's stock, the face-down
  necropolis), are part of the deal the engine draws from: they must be entered in full before the
  first move that draws. At the table that means recording such a game right after play (or
  recording the stock as it is turned up and entering the deal once it is known); the server never
  invents an order, because an invented card would be "drawn" in the record while a different one
  was drawn at the table.
- A deal is one event, appended when the keeper sends it; the engine refuses a deal that
  contradicts what is already dealt (``bad_deal`` and the engines' own codes), and this module
  refuses a card entered twice (``duplicate_card``) before the engine sees it.

Idempotency follows the move API (``services.move_submit``): the same key from the same keeper
answers the first verdict, a different entry under a used key is ``409 idempotency_conflict``. An
entry may also name the ``seq`` it was typed for; if the log has moved on it is refused
(``409 seq_mismatch``) instead of landing in the wrong place - what keeps a queue of entries typed
offline from being applied after lines someone else entered meanwhile.
"""

from __future__ import annotations

import secrets
from collections import Counter
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from .engines import cards, get_engine
from .engines.base import Engine, RuleError
from .engines.chance import ChanceStream
from .errors import ServiceError, not_found
from .eventlog import Appender
from .eventlog import lock as _lock
from .meta import RECORD_TEXT, MetaError, meta_check
from .models import Event, Game, Seat, TableEntry
from .records import MAX_SEAT_NAME, canonical_json
from .services import _require_consent

# Zones of a chance step that may be left out and are completed by the server: nobody plays from
# them, so their order never matters (see the module docstring). engine slug -> step -> zones.
COMPLETABLE: dict[str, dict[str, tuple[str, ...]]] = {
    "nine-card": {"deal": ("set_aside",)},
    "satori": {"deal": ("set_aside",)},
}
ENTRY_KINDS = ("chance", "move", "system")


class TableError(ServiceError):
    """A refused table entry or table request (a ``ServiceError``: the API answers its code)."""


# ---- who keeps a table game ------------------------------------------------------------------------
def may_keep(*, game: Game, user) -> bool:
    """The keeper of a table game: its creator (who made it, or the event organiser for a pairing's
    table game) or a player seated in it."""
    if user is None or not user.is_authenticated:
        return False
    if game.created_by_id is not None and game.created_by_id == user.pk:
        return True
    return any(seat.user_id == user.pk for seat in game.seats.all())


def _require_keeper(game: Game, user) -> None:
    if game.source != Game.Source.TABLE:
        raise TableError(
            "not_a_table_game", "this game is played on the server; only table games take entries", status=409
        )
    if not may_keep(game=game, user=user):
        raise TableError(
            "not_keeper", "only a seated player or the game's organiser may record this table game", status=403
        )


# ---- creating a table game ---------------------------------------------------------------------------
@transaction.atomic
def table_game_create(
    *,
    engine_slug: str,
    config: dict | None,
    seats: list[str],
    keeper: AbstractBaseUser,
    keeper_seat: int | None = None,
    meta: dict | None = None,
) -> Game:
    """A new table game kept by ``keeper``: running at once, waiting for its first line.

    ``seats`` are the players' names, seat 0 first (as a record's header has them); ``keeper_seat``
    links the keeper's own account to that seat. Other players are names only - as in an imported
    record, nobody else's account is seated, so nobody is seated without consent. ``meta``: the
    record's ``event``, ``date``, ``place`` and ``notes`` (``games.meta.meta_check``)."""
    try:
        engine = get_engine(engine_slug)
        full_config = engine.validate_setup(config, len(seats) if isinstance(seats, list) else -1)
    except RuleError as error:
        raise TableError(error.code, error.message) from None
    if not all(isinstance(name, str) and name.strip() and len(name) <= MAX_SEAT_NAME for name in seats):
        raise TableError("bad_seats", f"each seat is a player's name of 1-{MAX_SEAT_NAME} characters")
    if keeper_seat is not None and (
        isinstance(keeper_seat, bool) or not isinstance(keeper_seat, int) or not 0 <= keeper_seat < len(seats)
    ):
        raise TableError("bad_seat", f"keeper_seat is a seat from 0 to {len(seats) - 1}, or null")
    try:
        checked = meta_check(meta or {}, engine_slug=engine.slug)
    except MetaError as error:
        raise TableError(error.code, error.message) from None
    extra = sorted(set(checked) - set(RECORD_TEXT))
    if extra:
        raise TableError("unknown_meta_key", f"a table game has no clock or delay; leave out {', '.join(extra)}")
    if engine.mature:
        _require_consent([keeper])  # the one consent check of game creation
    now = timezone.now()
    game = Game.objects.create(
        engine=engine.slug,
        rules_version=engine.rules_version,
        config=full_config,
        source=Game.Source.TABLE,
        created_by=keeper,
        meta=checked,
    )
    Seat.objects.bulk_create(
        Seat(
            game=game,
            index=index,
            name=name.strip(),
            user=keeper if index == keeper_seat else None,
            accepted_at=now if index == keeper_seat else None,
        )
        for index, name in enumerate(seats)
    )
    _start(game, engine, now)
    return game


@transaction.atomic
def table_game_for_pairing(*, game_id, keeper: AbstractBaseUser, organiser: bool = False) -> Game:
    """The table game that replaces an event's pairing game that has not started play: same engine,
    config, seats (accounts and names), organiser and ``organised`` flag; the server game is
    cancelled (its server-dealt cards were never played; its log stays as it is, append-only).

    The league calls this when a pairing is to be played at a real table and points the pairing at
    the game returned; ``game_finished`` then comes from the table game. ``keeper``: a seated player
    or the organiser. Refusals: 404 ``not_found``; 409 ``not_organised`` (not an event's pairing),
    ``not_a_server_game`` (already a table game), ``game_in_play`` (a move was made), ``game_over``,
    ``game_cancelled``; 403 ``not_keeper``. ``organiser``: the event (the league) has checked that
    ``keeper`` organises it; an organiser without a seat then keeps the table game as its creator
    (the games layer cannot tell who organises an event)."""
    old = _lock(game_id)
    if not old.organised:
        raise TableError("not_organised", "only an event's pairing game can move to the table", status=409)
    if old.source != Game.Source.SERVER:
        raise TableError("not_a_server_game", "this game is already recorded at the table", status=409)
    if not organiser and not may_keep(game=old, user=keeper):
        raise TableError("not_keeper", "only a seated player or the event's organiser may record it", status=403)
    if old.status == Game.Status.FINISHED:
        raise TableError("game_over", "this game is over; it cannot be played at the table", status=409)
    if old.status == Game.Status.CANCELLED:
        raise TableError("game_cancelled", "this game was cancelled", status=409)
    if Event.objects.filter(game=old, kind=Event.Kind.MOVE).exists():
        raise TableError("game_in_play", "moves were made on the server; finish it there", status=409)
    engine = get_engine(old.engine)
    now = timezone.now()
    note = f"Played at the table in place of server game {old.pk}."
    game = Game.objects.create(
        engine=old.engine,
        rules_version=old.rules_version,
        config=old.config,
        source=Game.Source.TABLE,
        created_by=keeper if organiser and not old.seats.filter(user=keeper).exists() else old.created_by,
        organised=True,
        meta={"notes": note},
    )
    Seat.objects.bulk_create(
        Seat(game=game, index=seat.index, user=seat.user, name=seat.name, accepted_at=now)
        for seat in old.seats.order_by("index")
    )
    old.status = Game.Status.CANCELLED
    old.window, old.window_opened_at, old.deadline_at = "", None, None
    old.save(update_fields=["status", "window", "window_opened_at", "deadline_at"])
    _start(game, engine, now)
    return game


def _start(game: Game, engine: Engine, now) -> None:
    game.status, game.started_at = Game.Status.RUNNING, now
    appender = TableAppender(game=game, engine=engine, state=engine.setup(game.config, game.seats.count()))
    appender.settle()
    appender.write()


class TableAppender(Appender):
    """The event log's appender for a table game: chance events come from the keeper, never from a
    seed, and no timer runs (a reaction window at the table ends when the keeper records that it
    did, with the engine's ``close_window``)."""

    def settle(self) -> None:
        game, outcome = self.game, self.engine.outcome(self.state)
        if outcome is not None:
            game.status, game.finished_at, game.outcome = Game.Status.FINISHED, timezone.now(), outcome.to_json()
        game.window, game.window_opened_at, game.deadline_at = "", None, None


# ---- entries ---------------------------------------------------------------------------------------
@dataclass
class EntryResult:
    entry: TableEntry
    created: bool


def table_entry_submit(*, game_id, keeper: AbstractBaseUser, entry: dict, idempotency_key: str) -> EntryResult:
    """Check one line against the engine and append it, or refuse it - at once, in one transaction.

    ``entry``: ``{"kind": "chance"|"move"|"system", "seat"?, "data": {...}, "seq"?}`` in the record's
    event shape. The verdict is stored with the key (a rejected entry leaves no event). Locks the game
    row first, as every append does, so two keepers' lines are applied one after the other."""
    if not isinstance(idempotency_key, str) or not 0 < len(idempotency_key) <= 100:
        raise TableError("bad_idempotency_key", "the idempotency key must be 1-100 characters")
    if not isinstance(entry, dict):
        raise TableError("malformed_entry", 'an entry is a JSON object {"kind", "seat"?, "data", "seq"?}')
    try:
        with transaction.atomic():
            return _entry_apply(game_id, keeper, entry, idempotency_key)
    except IntegrityError:  # the same key raced in from a second request: the first one's verdict
        existing = _existing_entry(game_id, keeper, idempotency_key, entry)
        if existing is None:
            raise
        return EntryResult(existing, False)


def _entry_apply(game_id, keeper, entry: dict, key: str) -> EntryResult:
    game = _lock(game_id)
    existing = _existing_entry(game.pk, keeper, key, entry)
    if existing is not None:
        return EntryResult(existing, False)
    _require_keeper(game, keeper)
    if game.status == Game.Status.FINISHED:
        raise TableError("game_over", "the game is over; no more lines are taken", status=409)
    if game.status != Game.Status.RUNNING:
        raise TableError("game_not_started", "the game has not started", status=409)
    expected = entry.get("seq")
    if expected is not None and expected != game.head_seq + 1:
        raise TableError(
            "seq_mismatch",
            f"this line was typed as line {expected!r} but the record is at line {game.head_seq}: "
            "reload the game and enter it again where it belongs",
            status=409,
        )
    engine = get_engine(game.engine)
    appender = TableAppender.open(game, engine)
    row = TableEntry(game=game, keeper=keeper, idempotency_key=key, payload=entry)
    try:
        event = entry_event(engine, appender.state, entry)
        row.event_seq = appender.attempt([event])
        row.status = TableEntry.Status.ACCEPTED
    except (RuleError, ServiceError) as error:
        row.status, row.code, row.message = TableEntry.Status.REJECTED, error.code, error.message
    row.save(force_insert=True)
    if appender.rows:
        appender.write()
    return EntryResult(row, True)


def _existing_entry(game_id, keeper, key: str, entry: dict) -> TableEntry | None:
    existing = TableEntry.objects.filter(game_id=game_id, keeper=keeper, idempotency_key=key).first()
    if existing is not None and canonical_json(existing.payload) != canonical_json(entry):
        raise TableError(
            "idempotency_conflict",
            "this idempotency key was already used for a different line; use a new key",
            status=409,
        )
    return existing


def entry_event(engine: Engine, state, entry: dict) -> dict:
    """The event an entry stands for: its envelope checked, a chance outcome's left-out zones
    completed and its cards checked for duplicates (``TableError`` with the code)."""
    unknown = sorted(set(entry) - {"kind", "seat", "data", "seq"})
    if unknown:
        raise TableError("malformed_entry", f"an entry has kind, seat, data and seq; unexpected: {', '.join(unknown)}")
    kind, data = entry.get("kind"), entry.get("data")
    if kind not in ENTRY_KINDS:
        raise TableError("malformed_entry", f'"kind" is one of {", ".join(ENTRY_KINDS)}, not {kind!r}')
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise TableError("malformed_entry", '"data" is an object with a "type" string')
    event = {"kind": kind, "data": data}
    if "seat" in entry and entry["seat"] is not None:
        event["seat"] = entry["seat"]
    if kind == "chance":
        event["data"] = chance_complete(engine, state, data)
    return event


# ---- chance outcomes ---------------------------------------------------------------------------------
def chance_example(engine: Engine, state) -> dict | None:
    """An outcome of the chance step due now, drawn at random (a throwaway seed): the step's shape
    in the engine's own words - its zones, their sizes and the cards they take from. None when no
    chance step is due."""
    if engine.chance_due(state) is None:
        return None
    return engine.sample_chance(state, ChanceStream(secrets.token_bytes(32), 1))


def chance_form(engine: Engine, game: Game, state) -> dict | None:
    """What the keeper fills in for the chance step due now (``None`` if none is): its name, an
    example outcome, one field per part of it (``seat``: a seat number; ``card``: one card;
    ``cards``: a zone of ``size`` cards; ``per_seat``: a zone per seat, ``sizes``; ``value``:
    anything else, as in the example), the cards the step takes from (``pool``, where every card of
    the example is the pack's: the deal's whole pack) and the zones that may be left out."""
    example = chance_example(engine, state)
    if example is None:
        return None
    step = engine.chance_due(state)
    fields = []
    for name, value in example.items():
        if name == "type":
            continue
        fields.append({"name": name, **_field_shape(value)})
    completable = COMPLETABLE.get(game.engine, {}).get(step, ())
    cards_in = Counter(_cards(example))
    return {
        "step": step,
        "example": example,
        "fields": fields,
        "pool": sorted(cards_in.elements(), key=pack_order),
        "completable": list(completable),
    }


def pack_order(card_id: str) -> tuple:
    """The order the keeper's picker and completed zones list a pack in: cards by suit, then rank
    (jokers after), domino tiles by their ends, anything else by its id."""
    if cards.is_card(card_id) and cards.suit_of(card_id) in cards.SUITS:
        return (0, cards.SUITS.index(cards.suit_of(card_id)), cards.value(card_id), card_id)
    if cards.is_card(card_id):  # a joker
        return (0, len(cards.SUITS), 0, card_id)
    if cards.is_tile(card_id):
        return (1, *cards.tile_ends(card_id), card_id)
    return (2, 0, 0, card_id)


def _field_shape(value) -> dict:
    if isinstance(value, bool):
        return {"shape": "value"}
    if isinstance(value, int):
        return {"shape": "seat"}
    if isinstance(value, str):
        return {"shape": "card"}
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return {"shape": "cards", "size": len(value)}
    if isinstance(value, list) and all(
        isinstance(item, list) and all(isinstance(c, str) for c in item) for item in value
    ):
        return {"shape": "per_seat", "sizes": [len(item) for item in value]}
    return {"shape": "value"}


def _cards(data: dict) -> list[str]:
    """Every card id in a chance outcome's card fields (``card``, ``cards``, ``per_seat``)."""
    found = []
    for name, value in data.items():
        if name == "type":
            continue
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, str):
                    found.append(item)
                elif isinstance(item, list):
                    found.extend(c for c in item if isinstance(c, str))
    return found


def chance_complete(engine: Engine, state, data: dict) -> dict:
    """``data`` with its left-out completable zones filled in, after the duplicate check.

    A per-seat zone left out (or a seat's part of it ``null``) gets, for each seat, the cards of that
    seat's pack not entered in its other zones; a flat zone the cards of the whole pack not entered
    anywhere. The pack is read from an example outcome (``chance_example``), in ``pack_order``. An
    entry for a step that is not due goes to the engine untouched for its own refusal."""
    example = chance_example(engine, state)
    if example is None or example.get("type") != data.get("type"):
        return data
    unknown = sorted(set(data) - set(example))
    if unknown:
        fields = ", ".join(name for name in example if name != "type")
        raise TableError(
            "unexpected_parameter",
            f"a {data['type']} has {fields}; unexpected: {', '.join(repr(name)[:40] for name in unknown[:5])}",
            status=422,
        )
    _refuse_duplicates(data, example)
    step = engine.chance_due(state)
    completable = COMPLETABLE.get(getattr(engine, "slug", ""), {}).get(step, ())
    out = dict(data)
    for zone in completable:
        shape = example.get(zone)
        given = out.get(zone)
        if isinstance(shape, list) and shape and all(isinstance(item, list) for item in shape):
            if given is None:
                given = [None] * len(shape)
            if not isinstance(given, list) or len(given) != len(shape):
                continue  # the engine names what is wrong with its shape
            filled = []
            for seat, part in enumerate(given):
                if part is not None:
                    filled.append(part)
                    continue
                pack = Counter(c for name, value in example.items() if _is_per_seat(value) for c in value[seat])
                entered = Counter(
                    c
                    for name, value in out.items()
                    if name != zone and _is_per_seat(value) and seat < len(value)
                    for c in value[seat] or ()
                    if isinstance(c, str)
                )
                filled.append(sorted((pack - entered).elements(), key=pack_order))
            out[zone] = filled
        elif isinstance(shape, list) and given is None:
            others = {name: value for name, value in out.items() if name != zone}
            out[zone] = sorted((Counter(_cards(example)) - Counter(_cards(others))).elements(), key=pack_order)
    return out


def _is_per_seat(value) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(item, list) or item is None for item in value)


def _refuse_duplicates(data: dict, example: dict) -> None:
    """A card entered more often than the pack holds it (once, for a single pack) is refused before
    the engine sees it, naming the card: the commonest slip when typing a deal."""
    pack = Counter(_cards(example))
    for card, count in Counter(_cards(data)).items():
        if count > max(1, pack.get(card, 0)):
            raise TableError("duplicate_card", f"{card} is entered {count} times; the pack has it once", status=422)


def table_keeper(*, game_id):
    """The account that entered the last accepted line of a table game (the one that ended it, once
    it is over), or None before any: who reported the result, for a league that asks the other
    players to confirm it."""
    entry = (
        TableEntry.objects.filter(game_id=game_id, status=TableEntry.Status.ACCEPTED)
        .select_related("keeper")
        .order_by("-id")
        .first()
    )
    return entry.keeper if entry is not None else None


# ---- the keeper's sheet --------------------------------------------------------------------------------
def table_sheet(*, game: Game, user) -> dict:
    """What the keeper sees: every seat's view (hidden information does not apply while recording),
    the chance step due with its form, the legal moves of every seat that may act, the system lines
    that may be entered now (close the open window, a seat resigns) and the outcome."""
    if game.source != Game.Source.TABLE:
        raise TableError("not_a_table_game", "this game is played on the server, not recorded at a table", status=409)
    if not may_keep(game=game, user=user):
        raise not_found("game")
    engine = get_engine(game.engine)
    state = engine.load_state(game.state)
    seats = list(game.seats.order_by("index"))
    running = game.status == Game.Status.RUNNING
    actors = sorted(engine.actors(state)) if running and engine.chance_due(state) is None else []
    system = []
    if running:
        window = engine.open_window(state)
        if window is not None:
            system.append({"type": "close_window", "window": window})
        system.extend({"type": "resign", "seat": seat.index} for seat in seats)
    return {
        "game": str(game.pk),
        "engine": game.engine,
        "status": game.status,
        "source": game.source,
        "head_seq": game.head_seq,
        "next_seq": game.head_seq + 1,
        "seats": [
            {
                "index": seat.index,
                "name": seat.name,
                "view": engine.view(state, seat.index),
                "moves": list(engine.legal_moves(state, seat.index)) if seat.index in actors else [],
            }
            for seat in seats
        ],
        "actors": actors,
        "chance": chance_form(engine, game, state) if running else None,
        "system": system,
        "outcome": game.outcome,
    }
