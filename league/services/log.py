"""The ladder log: lock a ladder, append to its hash-chained log, and rebuild the projection from it.

Every write to a ladder goes: lock the ladder row, check, append event(s), rebuild the projection
(standings and rating history) from the whole log, all in one transaction. Rebuilding from the log
every time costs a fold of the ladder's history (hundreds of events for a busy club season), and
buys the guarantee that standings are always exactly what the log says, corrections included.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.db import transaction

from games.errors import not_found
from games.eventlog import chain_check, chain_hash
from games.models import GENESIS_HASH
from kifu.locking import lock_by_id

from ..models import Ladder, LadderEntry, LadderEvent, RatingPoint
from ..scoring import ladder as rules


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


def log_events(ladder: Ladder) -> list[rules.LogEvent]:
    rows = LadderEvent.objects.filter(ladder=ladder).order_by("seq").values_list("seq", "kind", "payload", "at")
    return [rules.LogEvent(seq, kind, payload, at) for seq, kind, payload, at in rows]


def projection_of(ladder: Ladder) -> rules.Projection:
    """Fold the ladder's log (no writes)."""
    return rules.project(ladder.kind, log_events(ladder))


def projection_rebuild(ladder: Ladder) -> rules.Projection:
    """Replace the ladder's standings and rating history with a fresh fold of its log."""
    projection = projection_of(ladder)
    ranked = projection.ranked()
    entries = []
    for player, record in projection.players.items():
        rating = record.rating
        entries.append(
            LadderEntry(
                ladder=ladder,
                user_id=player,
                position=ranked.index(player) + 1 if player in ranked else None,
                active=record.active,
                mu=rating.mu if rating else None,
                sigma=rating.sigma if rating else None,
                ordinal=rating.ordinal if rating else None,
                played=record.played,
                won=record.won,
                lost=record.lost,
                drawn=record.drawn,
                forfeits_won=record.forfeits_won,
                forfeits_lost=record.forfeits_lost,
                drops=record.drops,
                free_challenges_left=record.free_challenges_left,
                joined_at=record.joined_at,
                last_active_at=record.last_active_at,
                drop_from=record.drop_from,
            )
        )
    points = [
        RatingPoint(
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
        for change in projection.history
    ]
    LadderEntry.objects.filter(ladder=ladder).delete()
    RatingPoint.objects.filter(ladder=ladder).delete()
    LadderEntry.objects.bulk_create(entries)
    RatingPoint.objects.bulk_create(points)
    ladder.projected_seq = projection.last_seq
    ladder.settings = projection.settings
    ladder.save(update_fields=["projected_seq", "settings"])
    return projection


@transaction.atomic
def ladder_rebuild(*, ladder_id) -> rules.Projection:
    """Rebuild a ladder's projection from its log (admin action; repairs a hand-edited projection)."""
    return projection_rebuild(ladder_lock(ladder_id))


def ladder_verify(*, ladder: Ladder) -> dict:
    """Recompute the hash chain and compare the stored standings with a fresh fold of the log."""
    ladder = Ladder.objects.get(pk=ladder.pk)  # the caller's copy may predate the last append
    rows = list(LadderEvent.objects.filter(ladder=ladder).order_by("seq"))
    links, previous = [], GENESIS_HASH
    for row in rows:
        computed = ladder_event_hash(previous, row.seq, row.kind, row.payload, row.actor_id, row.at)
        links.append((row.seq, computed, row.hash))
        previous = row.hash
    problems = chain_check(links, ladder.head_hash, owner="ladder")
    projection = projection_of(ladder)
    ranked = projection.ranked()
    stored = dict(LadderEntry.objects.filter(ladder=ladder).values_list("user_id", "position"))
    expected_positions = {p: (ranked.index(p) + 1 if p in ranked else None) for p in projection.players}
    if stored != expected_positions:
        problems.append("the stored standings differ from a fresh fold of the log")
    return {"ladder": ladder.pk, "ok": not problems, "events": len(rows), "problems": problems}
