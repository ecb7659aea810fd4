"""Which deadlines are near enough to remind whom of: a move (a game's open window or clock), a
ladder challenge to answer, a reported result to confirm. Reads only."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import F

from games.models import Game, Seat
from league.models import Challenge, ResultReport

from .models import ReminderPreference, ReminderSent

Kind = ReminderSent.Kind
LEAD_MINUTES_MIN, LEAD_MINUTES_MAX = 5, 7 * 24 * 60
DEFAULTS = {"email": False, "webhook": True, "stream": True, "lead_minutes": 720}


@dataclass(frozen=True)
class Due:
    """One reminder to send: who, what kind, of which game, challenge or report, and its deadline."""

    user_id: int
    kind: str
    subject: str
    deadline_at: datetime
    data: dict = field(default_factory=dict, compare=False)


def preferences_of(user_ids) -> dict[int, dict]:
    """Each account's preferences (the defaults where it has none)."""
    rows = ReminderPreference.objects.filter(user_id__in=list(user_ids)).values(
        "user_id", "email", "webhook", "stream", "lead_minutes"
    )
    chosen = {row.pop("user_id"): row for row in rows}
    return {user_id: chosen.get(user_id, DEFAULTS) for user_id in user_ids}


def _moves(now: datetime, horizon: datetime) -> list[Due]:
    """Seated accounts to act in a running game whose deadline is ahead, no further than the
    longest lead, and whose window is long enough for a reminder to matter."""
    shortest = timedelta(seconds=settings.KIFU_REMINDER_MIN_WINDOW_SECONDS)
    games = {
        game["pk"]: game
        for game in Game.objects.filter(
            status=Game.Status.RUNNING,
            deadline_at__gt=now,
            deadline_at__lte=horizon,
            window_opened_at__lte=F("deadline_at") - shortest,
        ).values("pk", "engine", "actors", "deadline_at")
    }
    seats = Seat.objects.filter(game_id__in=games, user__isnull=False).values_list("game_id", "index", "user_id")
    out = []
    for game_id, index, user_id in seats:
        game = games[game_id]
        if index in (game["actors"] or []):
            data = {"game": str(game_id), "engine": game["engine"], "seat": index}
            out.append(Due(user_id, Kind.YOUR_MOVE, str(game_id), game["deadline_at"], data))
    return out


def _challenges(now: datetime, horizon: datetime) -> list[Due]:
    """Defenders of issued ladder challenges, before the challenge lapses unanswered."""
    rows = Challenge.objects.filter(status=Challenge.Status.ISSUED, accept_by__gt=now, accept_by__lte=horizon).values(
        "pk", "defender_id", "accept_by", "ladder_id", "challenger__username"
    )
    return [
        Due(
            row["defender_id"],
            Kind.CHALLENGE,
            str(row["pk"]),
            row["accept_by"],
            {"challenge": str(row["pk"]), "ladder": row["ladder_id"], "challenger": row["challenger__username"]},
        )
        for row in rows
    ]


def _reports(now: datetime, horizon: datetime) -> list[Due]:
    """Players of a pending reported result who have not confirmed it, before it counts as confirmed."""
    rows = ResultReport.objects.filter(
        status=ResultReport.Status.PENDING, confirm_by__gt=now, confirm_by__lte=horizon
    ).values("pk", "kind", "pairing", "players", "confirmed_by", "confirm_by")
    out = []
    for row in rows:
        data = {"report": str(row["pk"]), "pairing_kind": row["kind"], "pairing": row["pairing"]}
        for user_id in row["players"]:
            if user_id not in row["confirmed_by"]:
                out.append(Due(user_id, Kind.REPORT, str(row["pk"]), row["confirm_by"], data))
    return out


def reminders_due(*, now: datetime) -> list[tuple[Due, dict]]:
    """Every reminder due at ``now`` (its deadline within the account's lead) and not yet sent,
    with the account's preferences; soonest deadline first."""
    horizon = now + timedelta(minutes=LEAD_MINUTES_MAX)
    candidates = [*_moves(now, horizon), *_challenges(now, horizon), *_reports(now, horizon)]
    if not candidates:
        return []
    preferences = preferences_of({due.user_id for due in candidates})
    wanted = [
        (due, preferences[due.user_id])
        for due in candidates
        if due.deadline_at - timedelta(minutes=preferences[due.user_id]["lead_minutes"]) <= now
        and any(preferences[due.user_id][channel] for channel in ("email", "webhook", "stream"))
    ]
    sent = set(
        ReminderSent.objects.filter(subject__in={due.subject for due, _ in wanted}).values_list(
            "user_id", "kind", "subject", "deadline_at"
        )
    )
    fresh = [
        (due, chosen) for due, chosen in wanted if (due.user_id, due.kind, due.subject, due.deadline_at) not in sent
    ]
    return sorted(fresh, key=lambda pair: pair[0].deadline_at)
