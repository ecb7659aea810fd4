"""Challenges on a challenge ladder: issue, accept (it becomes a game or a match), decline,
withdraw, and their decision by a result, a forfeit or voiding. Each step appends to the ladder log."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from games.accounts import is_bot
from games.errors import ServiceError
from games.services import game_create
from kifu.locking import lock_by_id

from ..models import Challenge, Ladder, LadderEntry, LeagueGame
from ..scoring import ladder as rules
from ..scoring.errors import ScoringError
from .log import event_append, ladder_lock, projection_advance
from .matches import match_start
from .membership import is_member, require_member, require_organiser

Status = Challenge.Status


def lock_challenge(challenge_id) -> tuple[Ladder, Challenge]:
    """Lock the ladder first, then the challenge: the order every ladder write takes locks in."""
    try:
        ladder_id = Challenge.objects.filter(pk=challenge_id).values_list("ladder_id", flat=True).first()
    except (ValueError, TypeError):
        ladder_id = None
    if ladder_id is None:
        raise ServiceError("not_found", "no such challenge", status=404)
    ladder = ladder_lock(ladder_id)
    return ladder, lock_by_id(Challenge, challenge_id)


def open_challenges(ladder: Ladder, user_id: int):
    return Challenge.objects.filter(ladder=ladder, status__in=Challenge.OPEN).filter(
        Q(challenger_id=user_id) | Q(defender_id=user_id)
    )


ALLOW_BOTS = "allow_bots"  # ladder setting: may bot accounts join, challenge and be challenged (default no)


def admit_bots(ladder: Ladder, players) -> None:
    """Refuse (403 ``bots_not_allowed``) if any of ``players`` is a bot account and the ladder
    does not allow bots."""
    if ladder.settings.get(ALLOW_BOTS):
        return
    bots = [user.get_username() for user in players if is_bot(user)]
    if bots:
        raise ServiceError(
            "bots_not_allowed",
            f"this ladder does not admit bot accounts ({', '.join(bots)}); its organisers can allow them "
            '(settings {"allow_bots": true})',
            status=403,
        )


def _pair(a: int, b: int) -> Q:
    return Q(challenger_id=a, defender_id=b) | Q(challenger_id=b, defender_id=a)


@transaction.atomic
def challenge_create(*, ladder_id, by, defender, now: datetime | None = None) -> Challenge:
    """``by`` challenges ``defender`` on a challenge ladder, within the ladder's rules."""
    now = now or timezone.now()
    ladder = ladder_lock(ladder_id)
    require_member(ladder.club, by)
    if ladder.kind != rules.CHALLENGE:
        raise ServiceError("not_a_challenge_ladder", "challenges are for challenge ladders; rating ladders rate games")
    if not is_member(ladder.club, defender):
        raise ServiceError("defender_not_member", f"{defender.get_username()} is not a member of this club")
    admit_bots(ladder, [by, defender])
    settings = ladder.settings
    limit = settings["max_open_challenges"]
    if open_challenges(ladder, by.pk).count() >= limit:
        raise ServiceError("too_many_challenges", f"you are already in {limit} undecided challenge(s)", status=409)
    if open_challenges(ladder, defender.pk).count() >= limit:
        raise ServiceError(
            "defender_busy", f"{defender.get_username()} is already in {limit} undecided challenge(s)", status=409
        )
    cooldown = settings["rematch_cooldown_days"]
    if cooldown:
        last = (
            Challenge.objects.filter(ladder=ladder, status=Status.DECIDED)
            .filter(_pair(by.pk, defender.pk))
            .order_by("-decided_at")
            .first()
        )
        if last and last.decided_at + timedelta(days=cooldown) > now:
            allowed = last.decided_at + timedelta(days=cooldown)
            raise ServiceError(
                "rematch_cooldown",
                f"you met {defender.get_username()} recently; you may challenge them again from {allowed.isoformat()}",
                status=409,
            )
    try:
        sides = LadderEntry.objects.filter(ladder=ladder, user_id__in=[by.pk, defender.pk]).order_by()
        entries = {entry.user_id: entry for entry in sides}
        positions = {player: entry.position for player, entry in entries.items()}
        free_left = entries[by.pk].free_challenges_left if by.pk in entries else 0
        free = rules.check_challenge_at(settings, by.pk, defender.pk, positions, free_left)
    except ScoringError as error:
        raise ServiceError(error.code, error.message, status=409) from None
    challenge = Challenge(
        ladder=ladder,
        challenger=by,
        defender=defender,
        free=free,
        issued_at=now,
        accept_by=now + timedelta(days=settings["accept_days"]),
    )
    payload = {"challenge": str(challenge.pk), "challenger": by.pk, "defender": defender.pk, "free": free}
    event = event_append(ladder, kind=rules.CHALLENGE_ISSUED, payload=payload, actor=by, at=now)
    challenge.issued_seq = event.seq
    challenge.save()
    projection_advance(ladder)
    return challenge


def _must_be_open(challenge: Challenge, *statuses) -> None:
    if challenge.status not in statuses:
        raise ServiceError(
            "challenge_not_open", f"this challenge is {challenge.status}; it cannot change now", status=409
        )


@transaction.atomic
def challenge_accept(*, challenge_id, by, now: datetime | None = None) -> Challenge:
    """The defender accepts: the challenge becomes a game (or a match) of the ladder's game."""
    now = now or timezone.now()
    ladder, challenge = lock_challenge(challenge_id)
    if by is None or by.pk != challenge.defender_id:
        raise ServiceError("not_defender", "only the challenged player may accept a challenge", status=403)
    _must_be_open(challenge, Status.ISSUED)
    if now >= challenge.accept_by:
        raise ServiceError("accept_deadline_passed", "the time to accept this challenge has run out", status=409)
    players = [challenge.defender, challenge.challenger]  # the defender is seat 0 (the "home" seat)
    spec = ladder.settings.get("match")
    payload = {"challenge": str(challenge.pk)}
    if spec:
        match = match_start(
            engine=ladder.engine,
            config=ladder.game_config,
            spec=spec,
            players=players,
            by=by,
            now=now,
            ladder=ladder,
            challenge=challenge,
        )
        challenge.match = match
        payload["match"] = str(match.pk)
    else:
        game = game_create(
            engine_slug=ladder.engine, config=ladder.game_config, seats=players, created_by=by, consent=True
        )
        LeagueGame.objects.create(game=game, ladder=ladder, challenge=challenge)
        challenge.game = game
        payload["game"] = str(game.pk)
    challenge.status, challenge.accepted_at = Status.ACCEPTED, now
    challenge.play_by = now + timedelta(days=ladder.settings["play_days"])
    challenge.save()
    event_append(ladder, kind=rules.CHALLENGE_ACCEPTED, payload=payload, actor=by, at=now)
    projection_advance(ladder)
    return challenge


@transaction.atomic
def challenge_decline(*, challenge_id, by, now: datetime | None = None) -> Challenge:
    """The defender declines, which forfeits (a ladder only works if challenges are met)."""
    now = now or timezone.now()
    ladder, challenge = lock_challenge(challenge_id)
    if by is None or by.pk != challenge.defender_id:
        raise ServiceError("not_defender", "only the challenged player may decline a challenge", status=403)
    _must_be_open(challenge, Status.ISSUED)
    forfeit_challenge(ladder, challenge, loser_id=challenge.defender_id, reason="declined", now=now, actor=by)
    projection_advance(ladder)
    return challenge


@transaction.atomic
def challenge_withdraw(*, challenge_id, by, now: datetime | None = None) -> Challenge:
    """The challenger takes the challenge back before it is accepted; nothing moves."""
    now = now or timezone.now()
    ladder, challenge = lock_challenge(challenge_id)
    if by is None or by.pk != challenge.challenger_id:
        raise ServiceError("not_challenger", "only the challenger may withdraw a challenge", status=403)
    _must_be_open(challenge, Status.ISSUED)
    challenge.status, challenge.decided_at = Status.WITHDRAWN, now
    challenge.save()
    event_append(ladder, kind=rules.CHALLENGE_WITHDRAWN, payload={"challenge": str(challenge.pk)}, actor=by, at=now)
    projection_advance(ladder)
    return challenge


@transaction.atomic
def challenge_result_record(*, challenge_id, by, winner, now: datetime | None = None) -> Challenge:
    """An organiser records the result of a challenge played away from the server (``winner``
    None: a draw)."""
    now = now or timezone.now()
    ladder, challenge = lock_challenge(challenge_id)
    require_organiser(ladder.club, by)
    _must_be_open(challenge, Status.ISSUED, Status.ACCEPTED)
    players = {challenge.challenger_id, challenge.defender_id}
    if winner is None:
        ranking = [sorted(players)]
    elif winner.pk in players:
        ranking = [[winner.pk], [(players - {winner.pk}).pop()]]
    else:
        raise ServiceError("bad_winner", "the winner must be the challenger, the defender, or null for a draw")
    decide_result(ladder, challenge, ranking, now=now, actor=by, source="organiser")
    projection_advance(ladder)
    return challenge


# ---- decisions (the caller holds the ladder and challenge locks, and rebuilds) ---------------
def _base(challenge: Challenge) -> dict:
    return {
        "challenge": str(challenge.pk),
        "challenger": challenge.challenger_id,
        "defender": challenge.defender_id,
    }


def _decided(challenge: Challenge, event, now: datetime, outcome: dict) -> None:
    challenge.status, challenge.decided_at = Status.DECIDED, now
    challenge.decided_seq, challenge.outcome = event.seq, outcome
    challenge.save()


def decide_result(
    ladder: Ladder,
    challenge: Challenge,
    ranking: list[list[int]],
    *,
    now: datetime,
    actor=None,
    source: str,
    game=None,
    match=None,
) -> None:
    payload = {**_base(challenge), "ranking": ranking, "rated": True, "source": source}
    if game is not None:
        payload["game"] = str(game)
    if match is not None:
        payload["match"] = str(match)
    event = event_append(ladder, kind=rules.RESULT, payload=payload, actor=actor, at=now)
    winner = ranking[0][0] if len(ranking[0]) == 1 else None
    _decided(challenge, event, now, {"winner": winner, "reason": source})


def forfeit_challenge(ladder: Ladder, challenge: Challenge, *, loser_id: int, reason: str, now: datetime, actor=None):
    """Decide a ladder challenge by forfeit: ``loser_id`` declined, or missed its accept-by or play-by
    date (``ladder_deadlines``). A tournament board's forfeit is ``league.tournaments``' own."""
    winner_id = challenge.challenger_id if loser_id == challenge.defender_id else challenge.defender_id
    payload = {**_base(challenge), "winner": winner_id, "loser": loser_id, "reason": reason}
    event = event_append(ladder, kind=rules.FORFEIT, payload=payload, actor=actor, at=now)
    _decided(challenge, event, now, {"winner": winner_id, "reason": f"forfeit: {reason}"})


def void_challenge(ladder: Ladder, challenge: Challenge, *, reason: str, now: datetime, actor=None) -> None:
    payload = {"challenge": str(challenge.pk), "reason": reason}
    event_append(ladder, kind=rules.CHALLENGE_VOID, payload=payload, actor=actor, at=now)
    challenge.status, challenge.decided_at = Status.VOID, now
    challenge.outcome = {"winner": None, "reason": f"void: {reason}"}
    challenge.save()
