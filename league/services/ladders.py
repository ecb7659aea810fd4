"""Ladders: creation and settings, joining and withdrawing, rated games and organisers' corrections
(a ladder's deadlines - a challenge's accept-by and play-by dates, inactivity drops - are
``ladder_deadlines``)."""

from __future__ import annotations

from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from games.engines import get_engine
from games.engines.base import RuleError
from games.errors import ServiceError, not_found
from games.services import game_create
from kifu.locking import lock_by_id
from league.names import name_check

from ..models import Challenge, Club, Ladder, LadderEntry, LadderEvent, LeagueGame, Match
from ..scoring import ladder as rules
from ..scoring.errors import ScoringError
from .challenges import admit_bots, open_challenges, void_challenge
from .log import event_append, ladder_lock, projection_advance
from .matches import check_spec, match_start
from .membership import is_member, is_organiser, require_member, require_organiser


def _settings(kind: str, engine: str, settings, base=None) -> dict:
    try:
        full = rules.validate_settings(kind, settings, base=base)
    except ScoringError as error:
        raise ServiceError(error.code, error.message) from None
    if full["match"]:
        full["match"] = check_spec(engine, full["match"])
    return full


@transaction.atomic
def ladder_create(
    *,
    club_id,
    by,
    engine: str,
    kind: str = rules.CHALLENGE,
    name: str = "",
    settings: dict | None = None,
    game_config: dict | None = None,
    now: datetime | None = None,
) -> Ladder:
    """A new ladder for one game: challenge ladders need a two-player game; rating ladders any."""
    now = now or timezone.now()
    club = lock_by_id(Club, club_id, missing=not_found("club"))
    require_organiser(club, by)
    try:
        game = get_engine(engine)
        config = game.validate_config(game_config)
        if kind == rules.CHALLENGE and game.min_seats <= 2 <= game.max_seats:
            game.validate_setup(config, 2)  # a challenge is a two-player game: refuse now what setup would
    except RuleError as error:
        raise ServiceError(error.code, error.message) from None
    if game.mature:  # a ladder and its games sit on public club pages and standings
        raise ServiceError("mature_not_supported", "ladders of mature games are not supported yet")
    full = _settings(kind, game.slug, settings)
    if kind == rules.CHALLENGE and not game.min_seats <= 2 <= game.max_seats:
        raise ServiceError(
            "not_two_player", f"a challenge ladder needs a two-player game; {game.name} is not; use a rating ladder"
        )
    name = name_check((name or f"{game.name} {kind} ladder").strip()[:100], what="the ladder's name")
    if Ladder.objects.filter(club=club, engine=game.slug, kind=kind).exists():
        raise ServiceError("ladder_exists", f"this club already has a {kind} ladder for {game.name}", status=409)
    try:
        with transaction.atomic():
            ladder = Ladder.objects.create(
                club=club,
                name=name,
                kind=kind,
                engine=game.slug,
                game_config=config,
                settings=full,
                created_by=by,
                created_at=now,
            )
    except IntegrityError:
        raise ServiceError("ladder_exists", f"this club already has a {kind} ladder for {game.name}", status=409)
    payload = {"kind": kind, "engine": game.slug, "game_config": config, "settings": full}
    event_append(ladder, kind=rules.LADDER_CREATED, payload=payload, actor=by, at=now)
    projection_advance(ladder)
    return ladder


@transaction.atomic
def ladder_update(
    *, ladder_id, by, settings: dict | None = None, name: str | None = None, now: datetime | None = None
) -> Ladder:
    """Change settings (only the keys given; logged, and effective from now on) or the name."""
    now = now or timezone.now()
    ladder = ladder_lock(ladder_id)
    require_organiser(ladder.club, by)
    if name is not None:
        if not name.strip():
            raise ServiceError("bad_ladder_name", "a ladder needs a name")
        ladder.name = name_check(name.strip()[:100], what="the ladder's name")
        ladder.save(update_fields=["name"])
    if settings:
        full = _settings(ladder.kind, ladder.engine, settings, base=ladder.settings)
        payload = {"settings": full, "changed": sorted(settings)}
        event_append(ladder, kind=rules.SETTINGS_CHANGED, payload=payload, actor=by, at=now)
        projection_advance(ladder)
    return ladder


@transaction.atomic
def ladder_join(*, ladder_id, by, now: datetime | None = None) -> LadderEntry:
    """A member joins a ladder; on a challenge ladder they enter at the bottom."""
    now = now or timezone.now()
    ladder = ladder_lock(ladder_id)
    require_member(ladder.club, by)
    admit_bots(ladder, [by])
    if LadderEntry.objects.filter(ladder=ladder, user=by, active=True).exists():
        raise ServiceError("already_on_ladder", "you are already on this ladder", status=409)
    event_append(ladder, kind=rules.PLAYER_JOINED, payload={"player": by.pk}, actor=by, at=now)
    projection_advance(ladder)
    return LadderEntry.objects.get(ladder=ladder, user=by)


@transaction.atomic
def ladder_withdraw(*, ladder_id, by, player=None, reason: str = "", now: datetime | None = None) -> None:
    """A player leaves a ladder (an organiser may withdraw anyone); their open challenges are void."""
    player = player or by
    if by is None or not by.is_authenticated:
        raise ServiceError("not_authenticated", "log in (send your API token) to do this", status=401)
    ladder = ladder_lock(ladder_id)
    if player.pk != by.pk:
        require_organiser(ladder.club, by)
    withdraw_player(ladder_id=ladder.pk, player=player, by=by, now=now or timezone.now(), reason=reason)


@transaction.atomic
def withdraw_player(*, ladder_id, player, by, now: datetime, reason: str = "", quiet: bool = False) -> bool:
    """Void the player's open challenges and take them off the ladder (permissions checked by the
    caller). ``quiet``: someone not on the ladder is no error. Returns whether anything changed."""
    ladder = ladder_lock(ladder_id)
    changed = False
    for challenge in open_challenges(ladder, player.pk).select_for_update().order_by("issued_at"):
        void_challenge(ladder, challenge, reason="a player withdrew", now=now, actor=by)
        changed = True
    if LadderEntry.objects.filter(ladder=ladder, user=player, active=True).exists():
        payload = {"player": player.pk, "reason": reason}
        event_append(ladder, kind=rules.PLAYER_WITHDREW, payload=payload, actor=by, at=now)
        changed = True
    elif not quiet:
        raise ServiceError("not_on_ladder", f"{player.get_username()} is not on this ladder", status=409)
    if changed:
        projection_advance(ladder)
    return changed


# ---- rated games ------------------------------------------------------------------------------
@transaction.atomic
def rated_game_create(*, ladder_id, by, players: list, now: datetime | None = None) -> LeagueGame | Match:
    """A rated game (or match, if the ladder says so) on a rating ladder between club members.
    A member must play in it; an organiser may set up a game for others."""
    now = now or timezone.now()
    ladder = ladder_lock(ladder_id)
    if not is_organiser(ladder.club, by):
        require_member(ladder.club, by)
    if ladder.kind != rules.RATING:
        raise ServiceError("not_a_rating_ladder", "games on a challenge ladder come from challenges", status=409)
    if by.pk not in {user.pk for user in players} and not is_organiser(ladder.club, by):
        raise ServiceError("play_as_yourself", "members may only set up rated games they play in", status=403)
    if len({user.pk for user in players}) != len(players):
        raise ServiceError("duplicate_player", "a player can hold only one seat of a game")
    outsiders = [user.get_username() for user in players if not is_member(ladder.club, user)]
    if outsiders:
        raise ServiceError("not_member", f"not members of this club: {', '.join(outsiders)}")
    admit_bots(ladder, players)
    spec = ladder.settings.get("match")
    if spec:
        config = ladder.game_config
        return match_start(
            engine=ladder.engine, config=config, spec=spec, players=players, by=by, now=now, ladder=ladder
        )
    game = game_create(engine_slug=ladder.engine, config=ladder.game_config, seats=players, created_by=by, consent=True)
    return LeagueGame.objects.create(game=game, ladder=ladder)


# ---- corrections ------------------------------------------------------------------------------
def _check_changes(ladder: Ladder, target: LadderEvent, changes: dict) -> dict:
    allowed = set(rules.CORRECTABLE[target.kind]) | {"void"}
    unknown = sorted(set(changes) - allowed)
    if unknown or not changes:
        raise ServiceError(
            "bad_correction", f"a correction of a {target.kind} may change: {', '.join(sorted(allowed))}"
        )
    if "void" in changes and not isinstance(changes["void"], bool):
        raise ServiceError("bad_correction", "void must be true or false")
    if "ranking" in changes:
        ranking = changes["ranking"]
        players = sorted(p for group in target.payload["ranking"] for p in group)
        ok = isinstance(ranking, list) and all(isinstance(group, list) and group for group in ranking)
        if not ok or sorted(p for group in ranking for p in group) != players:
            raise ServiceError("bad_correction", "the corrected ranking must place the same players, in groups")
    if "winner" in changes or "loser" in changes:
        sides = {target.payload["challenger"], target.payload["defender"]}
        winner = changes.get("winner")
        if winner not in sides:
            raise ServiceError("bad_correction", "a forfeit's winner must be the challenger or the defender")
        changes = {**changes, "loser": (sides - {winner}).pop()}
    if "places" in changes:
        places = changes["places"]
        if isinstance(places, bool) or not isinstance(places, int) or not 0 <= places <= 1000:
            raise ServiceError("bad_correction", "places must be a whole number from 0 to 1000")
    return changes


@transaction.atomic
def ladder_correct(
    *, ladder_id, by, target: int, changes: dict, reason: str = "", now: datetime | None = None
) -> LadderEvent:
    """An organiser corrects an earlier result, forfeit, drop or withdrawal by appending a
    correction; positions, records and ratings are then recomputed from the whole log."""
    now = now or timezone.now()
    ladder = ladder_lock(ladder_id)
    require_organiser(ladder.club, by)
    event = LadderEvent.objects.filter(ladder=ladder, seq=target).first()
    if event is None:
        raise ServiceError("not_found", f"this ladder's log has no event {target}", status=404)
    if event.kind not in rules.CORRECTABLE:
        kinds = ", ".join(sorted(rules.CORRECTABLE))
        raise ServiceError("not_correctable", f"a {event.kind} cannot be corrected; only: {kinds}", status=409)
    changes = _check_changes(ladder, event, dict(changes or {}))
    payload = {"target": target, "target_kind": event.kind, "changes": changes, "reason": reason}
    correction = event_append(ladder, kind=rules.CORRECTION, payload=payload, actor=by, at=now)
    challenge_id = event.payload.get("challenge")
    if challenge_id and event.kind in (rules.RESULT, rules.FORFEIT):
        effective = {**event.payload, **changes}
        if effective.get("void"):
            winner = None
        elif event.kind == rules.RESULT:
            winner = effective["ranking"][0][0] if len(effective["ranking"][0]) == 1 else None
        else:
            winner = effective["winner"]
        Challenge.objects.filter(pk=challenge_id).update(
            outcome={"winner": winner, "reason": f"corrected by event {correction.seq}", "void": effective.get("void")}
        )
    projection_advance(ladder)
    return correction
