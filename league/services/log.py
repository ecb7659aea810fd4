"""The ladder log: lock a ladder, append to its hash-chained log, and bring the projection up to it.

Every write to a ladder goes: lock the ladder row, check, append event(s), advance the projection
(standings and rating history), all in one transaction. Advancing folds only the new events into
the rows they change (``projection_advance``): the players' own rows, and on a challenge ladder the
places between the two sides of a challenger's win; on a rating ladder the places between a
player's old and new rating. A correction rewrites history, so it refolds the whole log
(``projection_rebuild``), and so does verification, which must find the rows the fold makes.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.db import transaction
from django.db.models import F, Max

from games.errors import not_found
from games.eventlog import chain_check, chain_hash
from games.models import GENESIS_HASH
from kifu.locking import lock_by_id

from ..models import Ladder, LadderEntry, LadderEvent, RatingPoint
from ..scoring import ladder as rules
from ..scoring.ratings import Rating, initial_rating


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat()


def ladder_event_hash(previous: str, seq: int, kind: str, payload: dict, actor_id: int | None, at: datetime) -> str:
    """The ladder log is chained exactly like a game's log (``games.eventlog.chain_hash``)."""
    return chain_hash(previous, {"seq": seq, "kind": kind, "payload": payload, "actor": actor_id, "at": iso(at)})


def ladder_lock(ladder_id) -> Ladder:
    """The ladder row, locked: every append to one ladder's log is serialised by this lock."""
    return lock_by_id(Ladder, ladder_id, related=("club",), missing=not_found("ladder"))


def event_append(ladder: Ladder, *, kind: str, payload: dict, actor, at: datetime) -> LadderEvent:
    """Append one event; the caller holds the ladder lock and rebuilds the projection after."""
    assert kind in rules.EVENT_KINDS, kind
    seq = ladder.head_seq + 1
    actor_id = actor.pk if actor is not None and actor.is_authenticated else None
    digest = ladder_event_hash(ladder.head_hash, seq, kind, payload, actor_id, at)
    event = LadderEvent.objects.create(
        ladder=ladder, seq=seq, kind=kind, payload=payload, actor_id=actor_id, at=at, hash=digest
    )
    ladder.head_seq, ladder.head_hash = seq, digest
    ladder.save(update_fields=["head_seq", "head_hash"])
    return event


def log_events(ladder: Ladder, *, after: int = 0) -> list[rules.LogEvent]:
    rows = (
        LadderEvent.objects.filter(ladder=ladder, seq__gt=after)
        .order_by("seq")
        .values_list("seq", "kind", "payload", "at")
    )
    return [rules.LogEvent(seq, kind, payload, at) for seq, kind, payload, at in rows]


def projection_of(ladder: Ladder) -> rules.Projection:
    """Fold the ladder's log (no writes)."""
    return rules.project(ladder.kind, log_events(ladder))


def projection_stored(ladder: Ladder) -> rules.Projection:
    """The projection as its rows hold it (no fold): the whole order and every record, for reads
    that look at everyone (the inactivity sweep, who a viewer may challenge)."""
    entries = list(LadderEntry.objects.filter(ladder=ladder).order_by("position"))
    projection = rules.Projection(kind=ladder.kind, settings=ladder.settings, last_seq=ladder.projected_seq)
    projection.players = {entry.user_id: record_of(entry) for entry in entries}
    if ladder.kind == rules.CHALLENGE:
        projection.order = [entry.user_id for entry in entries if entry.position is not None]
    return projection


# ---- rows <-> records -------------------------------------------------------------------------
RECORD_FIELDS = (
    "active",
    "played",
    "won",
    "lost",
    "drawn",
    "forfeits_won",
    "forfeits_lost",
    "drops",
    "free_challenges_left",
    "joined_at",
    "last_active_at",
    "drop_from",
)
ENTRY_FIELDS = ("position", "mu", "sigma", "ordinal", *RECORD_FIELDS)


def entry_values(record: rules.PlayerRecord, position: int | None) -> dict:
    """A player's standings row as the fold makes it."""
    rating = record.rating
    values = {name: getattr(record, name) for name in RECORD_FIELDS}
    values.update(
        position=position,
        mu=rating.mu if rating else None,
        sigma=rating.sigma if rating else None,
        ordinal=rating.ordinal if rating else None,
    )
    return values


def record_of(entry: LadderEntry) -> rules.PlayerRecord:
    """The fold's record of a player, read back from their row. ``withdrawn`` and ``ever_joined``
    are not stored: only a join sets ``joined_at`` and ``active``, only a withdrawal clears
    ``active``, so a row with a join date that is not active is a withdrawn player's."""
    rating = Rating(entry.mu, entry.sigma) if entry.mu is not None else None
    joined = entry.joined_at is not None
    values = {name: getattr(entry, name) for name in RECORD_FIELDS}
    return rules.PlayerRecord(
        player=entry.user_id, withdrawn=joined and not entry.active, ever_joined=joined, rating=rating, **values
    )


def _point(ladder: Ladder, change: rules.RatingChange) -> RatingPoint:
    return RatingPoint(
        ladder=ladder,
        user_id=change.player,
        seq=change.seq,
        at=change.at,
        mu_before=change.before.mu,
        sigma_before=change.before.sigma,
        mu=change.after.mu,
        sigma=change.after.sigma,
        ordinal=change.after.ordinal,
        game=change.game,
        match=change.match,
    )


POINT_FIELDS = ("user_id", "seq", "at", "mu_before", "sigma_before", "mu", "sigma", "ordinal", "game", "match")


def _point_row(point: RatingPoint) -> tuple:
    """A point's values, comparable whether it was read back (UUIDs) or made by the fold (strings)."""
    return tuple(
        str(value) if name in ("game", "match") and value is not None else value
        for name, value in ((name, getattr(point, name)) for name in POINT_FIELDS)
    )


def fold_rows(projection: rules.Projection) -> dict[int, dict]:
    """Every standings row the fold makes, by user id."""
    positions = projection.positions()
    return {player: entry_values(record, positions.get(player)) for player, record in projection.players.items()}


def stored_rows(ladder: Ladder) -> dict[int, dict]:
    rows = LadderEntry.objects.filter(ladder=ladder).order_by().values("user_id", *ENTRY_FIELDS)
    return {row.pop("user_id"): row for row in rows}


def rows_differ(ladder: Ladder, projection: rules.Projection) -> list[str]:
    """How the stored rows (standings and rating history) differ from ``projection``; [] if not."""
    problems = []
    expected, stored = fold_rows(projection), stored_rows(ladder)
    for player in sorted(set(expected) | set(stored)):
        if expected.get(player) != stored.get(player):
            problems.append(f"player {player}: stored {stored.get(player)}, the log says {expected.get(player)}")
    points = [_point_row(point) for point in RatingPoint.objects.filter(ladder=ladder).order_by("seq", "user_id")]
    folded = sorted((_point_row(_point(ladder, change)) for change in projection.history), key=lambda r: (r[1], r[0]))
    if points != folded:
        problems.append(f"the rating history differs ({len(points)} points stored, {len(folded)} in the log)")
    return problems


# ---- the whole fold ---------------------------------------------------------------------------
def projection_rebuild(ladder: Ladder) -> rules.Projection:
    """Make the ladder's standings and rating history what a fresh fold of its whole log says,
    writing only the rows that differ (a correction; the admin's rebuild)."""
    projection = projection_of(ladder)
    expected = fold_rows(projection)
    entries = {entry.user_id: entry for entry in LadderEntry.objects.filter(ladder=ladder).order_by()}
    changed, created = [], []
    for player, values in expected.items():
        entry = entries.get(player)
        if entry is None:
            created.append(LadderEntry(ladder=ladder, user_id=player, **values))
        elif any(getattr(entry, name) != value for name, value in values.items()):
            for name, value in values.items():
                setattr(entry, name, value)
            changed.append(entry)
    LadderEntry.objects.filter(ladder=ladder).exclude(user_id__in=list(expected)).delete()
    save_entries(changed)
    LadderEntry.objects.bulk_create(created, batch_size=1000)
    points = [_point(ladder, change) for change in projection.history]
    stored = [_point_row(p) for p in RatingPoint.objects.filter(ladder=ladder).order_by("seq", "user_id")]
    if stored != sorted((_point_row(p) for p in points), key=lambda r: (r[1], r[0])):
        RatingPoint.objects.filter(ladder=ladder).delete()
        RatingPoint.objects.bulk_create(points, batch_size=1000)
    ladder.projected_seq = projection.last_seq
    ladder.settings = projection.settings
    ladder.save(update_fields=["projected_seq", "settings"])
    return projection


@transaction.atomic
def ladder_rebuild(*, ladder_id) -> rules.Projection:
    """Rebuild a ladder's projection from its log (admin action; repairs a hand-edited projection)."""
    return projection_rebuild(ladder_lock(ladder_id))


# ---- the incremental fold ---------------------------------------------------------------------
def projection_advance(ladder: Ladder) -> None:
    """Fold the events appended since the projection's last one into the rows they change.

    The caller holds the ladder lock. Each event loads its players' rows (one query), on a challenge
    ladder the window of places it may reorder (``rules.order_window``, one indexed range query), and
    writes back only the rows whose values changed (one ``bulk_update``); a withdrawal or a new
    rated player moves everyone below up or down one place in one UPDATE. A correction refolds the
    whole log instead: it changes history from its target onwards.
    """
    events = log_events(ladder, after=ladder.projected_seq)
    if not events:
        return
    if any(event.kind == rules.CORRECTION for event in events):
        projection_rebuild(ladder)
        return
    for event in events:
        _advance(ladder, event)
    ladder.projected_seq = events[-1].seq
    ladder.save(update_fields=["projected_seq", "settings"])


def _advance(ladder: Ladder, event: rules.LogEvent) -> None:
    if event.kind in (rules.LADDER_CREATED, rules.SETTINGS_CHANGED):
        ladder.settings = event.payload["settings"]
        return
    players = rules.event_players(event.kind, event.payload)
    if not players:
        return
    entries = {
        entry.user_id: entry for entry in LadderEntry.objects.filter(ladder=ladder, user_id__in=players).order_by()
    }
    before = {player: entry.position for player, entry in entries.items()}
    partial = rules.Projection(kind=ladder.kind, settings=ladder.settings)
    partial.players = {player: record_of(entry) for player, entry in entries.items()}
    places: list[int] = []
    if ladder.kind == rules.CHALLENGE:
        places = rules.order_window(event.kind, event.payload, ladder.settings, before)
        window = _entries_at(ladder, places)  # a drop near the bottom: fewer places than asked
        entries.update((entry.user_id, entry) for entry in window)
        partial.order = [entry.user_id for entry in window]
        places = [entry.position for entry in window]
        if event.kind == rules.PLAYER_JOINED and not (players[0] in entries and entries[players[0]].active):
            places = [_bottom(ladder) + 1]
    rules.apply_event(partial, event)
    new = [
        LadderEntry(ladder=ladder, user_id=p, **entry_values(r, None))
        for p, r in partial.players.items()
        if p not in entries
    ]
    if new:  # rows first (off the order), so that placing the movers one by one sees them all
        LadderEntry.objects.bulk_create(new)
        entries.update((entry.user_id, entry) for entry in new)
    if ladder.kind == rules.CHALLENGE:
        position = {player: before.get(player) for player in partial.players}
        position.update(zip(partial.order, places, strict=False))
        if event.kind == rules.PLAYER_WITHDREW and places and not partial.order:  # everyone below moves up
            position[players[0]] = None
            _shift_below(ladder, places[0], -1)
    else:
        position = _rerank(ladder, partial, before)
    _write(ladder, partial, entries, position)
    RatingPoint.objects.bulk_create([_point(ladder, change) for change in partial.history])


def _entries_at(ladder: Ladder, places: list[int]) -> list[LadderEntry]:
    """The rows at ``places`` (those that exist), top first: one indexed range query."""
    if not places:
        return []
    rows = LadderEntry.objects.filter(ladder=ladder, position__gte=min(places), position__lte=max(places))
    wanted = set(places)
    return [entry for entry in rows.order_by("position") if entry.position in wanted]


def _bottom(ladder: Ladder) -> int:
    return LadderEntry.objects.filter(ladder=ladder).aggregate(bottom=Max("position"))["bottom"] or 0


def _shift_below(ladder: Ladder, place: int, by: int) -> None:
    LadderEntry.objects.filter(ladder=ladder, position__gt=place).update(position=F("position") + by)


def _write(ladder: Ladder, partial: rules.Projection, entries: dict, position: dict) -> None:
    """Write back the rows whose values changed (every player's row exists by now)."""
    changed = []
    for player, entry in entries.items():
        if player in partial.players:
            values = entry_values(partial.players[player], position.get(player))
        else:
            values = {"position": position.get(player, entry.position)}
        if any(getattr(entry, name) != value for name, value in values.items()):
            for name, value in values.items():
                setattr(entry, name, value)
            changed.append(entry)
    save_entries(changed)


BULK_UPDATE_ROWS = 40


def save_entries(changed: list[LadderEntry]) -> None:
    """Write back changed rows. A few go by ``bulk_update``; many are deleted and inserted again
    with the same ids instead, because ``bulk_update`` writes one ``CASE`` of a branch per row per
    column, and PostgreSQL's JIT compiler, which such a statement's cost switches on, can spend
    minutes (uninterruptibly) on thousands of branches."""
    if len(changed) <= BULK_UPDATE_ROWS:
        LadderEntry.objects.bulk_update(changed, ENTRY_FIELDS)
        return
    LadderEntry.objects.filter(pk__in=[entry.pk for entry in changed]).delete()
    LadderEntry.objects.bulk_create(changed, batch_size=1000)


# ---- a rating ladder's order ------------------------------------------------------------------
def _rerank(ladder: Ladder, partial: rules.Projection, before: dict) -> dict[int, int | None]:
    """New places on a rating ladder after the ratings of ``partial``'s players (the movers) changed.

    The stored places are dense and sorted by ``rules.rank_key``. The movers move one at a time, so
    that the stored order stays sorted between moves: a mover's new place is found by galloping from
    its old place towards its new key (binary search for a player new to the order): O(log of the
    distance) single-row lookups on the (ladder, position) index; the rows it passes move one place
    the other way in one ranged UPDATE - the rows whose place changes, and no others, are written.
    Returns each mover's place (None: off the order).
    """
    current = dict(before)
    moved_keys: dict[int, tuple[float, int]] = {}  # movers already placed: their stored key is stale

    def key_at(place: int) -> tuple[float, int] | None:
        rows = LadderEntry.objects.filter(ladder=ladder, position=place).order_by("pk")
        row = rows.values_list("user_id", "ordinal").first()
        if row is None:
            return None
        user_id, ordinal = row
        if user_id in moved_keys:
            return moved_keys[user_id]
        return (-(ordinal if ordinal is not None else initial_rating().ordinal), user_id)

    def shift(low: int, high: int | None, by: int) -> None:
        rows = LadderEntry.objects.filter(ladder=ladder, position__gte=low)
        if high is not None:
            rows = rows.filter(position__lte=high)
        rows.update(position=F("position") + by)
        for player, place in current.items():
            if place is not None and place >= low and (high is None or place <= high):
                current[player] = place + by

    for player, record in partial.players.items():
        old = current.get(player)
        key = rules.rank_key(record) if rules.is_ranked(record) else None
        if key is None:
            if old is not None:
                _place(ladder, player, None)
                current[player] = None
                shift(old + 1, None, -1)
            continue
        if old is None:
            new = _search(key_at, key, 1, _bottom(ladder) + 1)
            shift(new, None, +1)
        else:
            new = _new_place(ladder, key, old, moved_keys)
            if new < old:
                shift(new, old - 1, +1)
            elif new > old:
                shift(old + 1, new, -1)
        _place(ladder, player, new)
        current[player] = new
        moved_keys[player] = key
    return {player: current.get(player) for player in partial.players}


def _place(ladder: Ladder, player: int, place: int | None) -> None:
    LadderEntry.objects.filter(ladder=ladder, user_id=player).update(position=place)


def _search(key_at, key: tuple, low: int, high: int) -> int:
    """The first place in [low, high) whose row ranks below ``key``, else ``high``."""
    while low < high:
        middle = (low + high) // 2
        found = key_at(middle)
        if found is None or found > key:
            high = middle
        else:
            low = middle + 1
    return low


def _new_place(ladder: Ladder, key: tuple, old: int, moved_keys: dict) -> int:
    """The new place of the row at ``old`` whose key is now ``key``: the rows next to it are read in
    pages of 64, 128, 256... places in the direction it moves (one range query each, on the
    (ladder, position) index), until a row that stays on the same side: O(log of the distance)
    queries for the rows it passes, which are the rows whose place changes anyway."""
    keys: dict[int, tuple] = {}

    def fetch(low: int, high: int) -> None:
        rows = LadderEntry.objects.filter(ladder=ladder, position__gte=max(1, low), position__lte=high)
        for place, user_id, ordinal in rows.order_by().values_list("position", "user_id", "ordinal"):
            stored = (-(ordinal if ordinal is not None else initial_rating().ordinal), user_id)
            keys[place] = moved_keys.get(user_id, stored)

    size = 64
    fetch(old - size, old + size)
    low, high = old - size, old + size
    place = old
    while place - 1 >= 1:  # up, past rows that now rank below it
        if place - 1 < low:
            size *= 2
            fetch(low - size, low - 1)
            low -= size
        if keys[place - 1] < key:
            break
        place -= 1
    if place != old:
        return place
    while True:  # down, past rows that now rank above it
        if place + 1 > high:
            size *= 2
            fetch(high + 1, high + size)
            high += size
        if place + 1 not in keys or keys[place + 1] > key:
            return place
        place += 1


def ladder_verify(*, ladder: Ladder) -> dict:
    """Recompute the hash chain and compare the stored standings and rating history with a fresh
    fold of the whole log."""
    ladder = Ladder.objects.get(pk=ladder.pk)  # the caller's copy may predate the last append
    rows = list(LadderEvent.objects.filter(ladder=ladder).order_by("seq"))
    links, previous = [], GENESIS_HASH
    for row in rows:
        computed = ladder_event_hash(previous, row.seq, row.kind, row.payload, row.actor_id, row.at)
        links.append((row.seq, computed, row.hash))
        previous = row.hash
    problems = chain_check(links, ladder.head_hash, owner="ladder")
    projection = rules.project(ladder.kind, [rules.LogEvent(r.seq, r.kind, r.payload, r.at) for r in rows])
    differences = rows_differ(ladder, projection)
    if differences:
        problems.append("the stored standings differ from a fresh fold of the log")
        problems.extend(differences[:5])
    return {"ladder": ladder.pk, "ok": not problems, "events": len(rows), "problems": problems}
