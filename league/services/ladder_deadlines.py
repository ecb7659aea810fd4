"""Ladder deadlines, swept by beat: a challenge not accepted by its accept-by date is forfeited by
the defender; at its play-by date the side its game waits for forfeits (both or neither: void); a
player inactive for the ladder's ``inactivity_days`` drops places. Each appends to the ladder log."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from games.models import Game
from games.services import game_advance, game_forfeit
from kifu.locking import lock_by_id

from ..models import Challenge, Ladder, LadderEntry, LeagueGame, Match, ResultReport
from ..scoring import ladder as rules
from .challenges import forfeit_challenge, void_challenge
from .log import event_append, iso, ladder_lock, projection_advance, projection_stored
from .results import record_game


def ladders_sweep(*, now: datetime | None = None) -> int:
    """Beat: sweep every ladder with a deadline or an inactivity drop due. Returns events appended."""
    now = now or timezone.now()
    overdue = Q(status=Challenge.Status.ISSUED, accept_by__lte=now) | Q(
        status=Challenge.Status.ACCEPTED, play_by__lte=now
    )
    due = set(Challenge.objects.filter(overdue).values_list("ladder_id", flat=True))
    for ladder_id, settings in Ladder.objects.filter(kind=rules.CHALLENGE).values_list("pk", "settings"):
        days = settings.get("inactivity_days") or 0
        cutoff = now - timedelta(days=days)
        if days and LadderEntry.objects.filter(ladder_id=ladder_id, active=True, drop_from__lte=cutoff).exists():
            due.add(ladder_id)
    return sum(ladder_sweep(ladder_id=ladder_id, now=now) for ladder_id in sorted(due))


PLAY_BY_DATE = "play-by date"  # the reasons a challenge's game record gives for its forced end
CHALLENGE_VOID = "challenge void"


def _current_game(challenge: Challenge) -> Game | None:
    """The challenge's game, or its match's latest game, read afresh."""
    if challenge.match_id:
        link = LeagueGame.objects.filter(match_id=challenge.match_id).order_by("-number").first()
        game_id = link.game_id if link else None
    else:
        game_id = challenge.game_id
    return Game.objects.filter(pk=game_id).first() if game_id else None


def _play_fault(game: Game | None) -> tuple[set[int], dict[int, int]]:
    """The players the challenge's current game is waiting for, and its seats by user id."""
    if game is None or game.is_finished:
        return set(), {}
    seats = dict(game.seats.values_list("user_id", "index"))
    by_seat = {index: user for user, index in seats.items()}
    return {by_seat[seat] for seat in game.actors or []}, seats


@transaction.atomic
def ladder_sweep(*, ladder_id, now: datetime | None = None) -> int:
    """Apply every deadline of one ladder that has passed by ``now``, in the order they fell due:
    a defender who did not answer in time forfeits; at the play deadline the side the game waits
    for forfeits (both or neither: void); inactive players drop. Returns events appended."""
    now = now or timezone.now()
    ladder = ladder_lock(ladder_id)
    if ladder.kind != rules.CHALLENGE:
        return 0
    start = ladder.head_seq
    reported = ResultReport.open_pairings(ResultReport.Kind.CHALLENGE, ladder=ladder)
    challenges = Challenge.objects.select_for_update().filter(ladder=ladder).exclude(pk__in=reported)
    due: list[tuple] = []
    for challenge in challenges.filter(status=Challenge.Status.ISSUED, accept_by__lte=now):
        due.append((challenge.accept_by, 0, "accept", challenge))
    for challenge in challenges.filter(status=Challenge.Status.ACCEPTED, play_by__lte=now):
        due.append((challenge.play_by, 0, "play", challenge))
    busy = set()
    for challenger, defender in challenges.filter(status__in=Challenge.OPEN).values_list("challenger", "defender"):
        busy |= {challenger, defender}
    projection = projection_stored(ladder)
    for due_at, player in rules.inactivity_due(projection, now, busy):
        due.append((due_at, 1, "drop", player))
    for due_at, _order, what, item in sorted(due, key=lambda d: (d[0], d[1])):
        if what == "accept":
            forfeit_challenge(ladder, item, loser_id=item.defender_id, reason="not_accepted", now=now)
        elif what == "play":
            _play_deadline(ladder, item, now)
        else:
            places = ladder.settings["inactivity_drop_places"]
            payload = {"player": item, "places": places, "due_at": iso(due_at)}
            event_append(ladder, kind=rules.INACTIVITY_DROP, payload=payload, actor=None, at=now)
    if ladder.head_seq != start:
        projection_advance(ladder)
    return ladder.head_seq - start


def _play_deadline(ladder: Ladder, challenge: Challenge, now: datetime) -> None:
    """Decide an accepted challenge whose play-by date has passed (ladder and challenge locked).

    Moves received before the play-by date but not yet applied by a worker are applied first
    (``games.services.game_advance``); a game finished by then - or earlier, its result task not yet
    run - is recorded as played, and that result decides the challenge (or plays the match on).
    Otherwise the side the current game waits for forfeits (both or neither: void), and the game is
    ended by ``games.services.game_forfeit``: a system resign of the losing side's seat marked
    "play-by date" (void: every seat in seat order, marked "challenge void") - never a submission on a
    player's behalf. A match stops (abandoned) without counting that game. The ended game is taken in
    here, so the ``game_finished`` task that follows finds it recorded and adds nothing to the log.
    """
    cutoff = challenge.play_by
    game = _current_game(challenge)
    if game is not None and game.status == Game.Status.RUNNING:
        game_advance(game_id=game.pk, received_before=cutoff)
    pending = LeagueGame.objects.select_for_update(of=("self",)).filter(
        challenge=challenge, recorded=False, game__status=Game.Status.FINISHED
    )
    for link in pending.select_related("game").order_by("number"):
        record_game(ladder, link, now=now)
    challenge.refresh_from_db()
    if challenge.status != Challenge.Status.ACCEPTED:
        return
    game = _current_game(challenge)
    fault, seats = _play_fault(game)
    if fault in ({challenge.defender_id}, {challenge.challenger_id}):
        (loser,) = fault
        forfeit_challenge(ladder, challenge, loser_id=loser, reason="not_played", now=now)
        forfeited, reason = [seats[loser]], PLAY_BY_DATE
    else:
        void_challenge(ladder, challenge, reason="not played by the deadline", now=now)
        forfeited, reason = sorted(seats.values()), CHALLENGE_VOID
    if challenge.match_id:
        Match.objects.filter(pk=challenge.match_id, status=Match.Status.RUNNING).update(
            status=Match.Status.ABANDONED, finished_at=now
        )
    if game is None or game.status != Game.Status.RUNNING:
        return
    game_forfeit(game_id=game.pk, seats=forfeited, reason=reason, now=cutoff)
    link = lock_by_id(LeagueGame, game.pk, by="game_id", related=("game",), of=("self",))
    if not link.recorded:
        record_game(ladder, link, now=now)  # the challenge is decided: this records, and decides, nothing
