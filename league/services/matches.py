"""Matches: a series of games between the same players (best of N, first to N points, or one
session game with the engine's own carry-over rules); each finished game starts the next one."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from games.engines import get_engine
from games.engines.base import RuleError
from games.errors import ServiceError
from games.models import Game
from games.services import game_create

from ..models import Challenge, Ladder, LeagueGame, Match
from ..scoring import matches as match_rules
from ..scoring.errors import ScoringError


def check_spec(engine_slug: str, spec) -> dict:
    """A validated match spec that this game can play (a session needs the engine's ``match_games``)."""
    try:
        spec = match_rules.validate_spec(spec)
        engine = get_engine(engine_slug)
    except (RuleError, ScoringError) as error:
        raise ServiceError(error.code, error.message) from None
    if spec["format"] == "session":
        flag = next((f for f in engine.flags if f.name == "match_games"), None)
        if flag is None:
            raise ServiceError(
                "no_session_rules",
                f"{engine.name} has no rules for a session of games (no match_games flag); use best_of or first_to",
            )
        if flag.maximum is not None and spec["target"] > flag.maximum:
            raise ServiceError("invalid_match", f"{engine.name} plays at most {flag.maximum:g} games in a session")
    return spec


def game_ranking(game: Game) -> tuple[list[list[int]], dict[int, float]]:
    """A finished game's ranking and scores by user id instead of seat."""
    users = dict(game.seats.values_list("index", "user_id"))
    ranking = [[users[seat] for seat in group] for group in game.outcome["ranking"]]
    scores = {users[int(seat)]: score for seat, score in (game.outcome.get("scores") or {}).items()}
    return ranking, scores


def _start_game(match: Match, number: int, *, ladder: Ladder | None, challenge: Challenge | None, by) -> LeagueGame:
    users = get_user_model().objects.in_bulk(match.players)
    seats = [users[pk] for pk in match_rules.seating(match.players, number)]
    config = dict(match.config)
    if match.spec["format"] == "session":
        config["match_games"] = match.spec["target"]
    game = game_create(engine_slug=match.engine, config=config, seats=seats, created_by=by, consent=True)
    return LeagueGame.objects.create(game=game, ladder=ladder, challenge=challenge, match=match, number=number)


def match_start(
    *,
    engine: str,
    config: dict,
    spec: dict,
    players: list,
    by,
    now: datetime,
    ladder: Ladder | None = None,
    challenge: Challenge | None = None,
) -> Match:
    """Create the match and its first game (the caller holds the ladder lock, if any)."""
    spec = check_spec(engine, spec)
    match = Match.objects.create(
        ladder=ladder,
        engine=engine,
        config=config or {},
        spec=spec,
        players=[user.pk for user in players],
        totals={str(user.pk): 0.0 for user in players},
        created_by=by,
        created_at=now,
    )
    _start_game(match, 0, ladder=ladder, challenge=challenge, by=by)
    return match


@transaction.atomic
def match_create(*, engine: str, players: list, spec: dict, by, config: dict | None = None, now=None) -> Match:
    """A friendly match outside any ladder; the caller must be one of its players."""
    now = now or timezone.now()
    if by is None or not by.is_authenticated:
        raise ServiceError("not_authenticated", "log in (send your API token) to start a match", status=401)
    if by.pk not in {user.pk for user in players}:
        raise ServiceError("play_as_yourself", "you may only start a match you play in", status=403)
    if len({user.pk for user in players}) != len(players):
        raise ServiceError("duplicate_player", "a player can hold only one seat of a match")
    return match_start(engine=engine, config=config or {}, spec=spec, players=players, by=by, now=now)


def match_game_recorded(match: Match, link: LeagueGame, *, now: datetime, play_on: bool = True) -> bool:
    """Count a finished game of the match (locks held); start the next game or finish the match.
    ``play_on`` False: the match's challenge was decided without it, so it stops (abandoned).

    Returns whether the match is now finished.
    """
    if match.status != Match.Status.RUNNING:
        return False
    results = []
    links = LeagueGame.objects.filter(match=match, recorded=True).select_related("game").order_by("number")
    for recorded in links:
        results.append(game_ranking(recorded.game))
    totals, finished, ranking = match_rules.progress(match.spec, match.players, results)
    match.totals = {str(player): points for player, points in totals.items()}
    if finished:
        match.status, match.result, match.finished_at = Match.Status.FINISHED, ranking, now
        match.save(update_fields=["totals", "status", "result", "finished_at"])
        return True
    if not play_on:
        match.status, match.finished_at = Match.Status.ABANDONED, now
        match.save(update_fields=["totals", "status", "finished_at"])
        return False
    match.save(update_fields=["totals"])
    ladder = Ladder.objects.filter(pk=link.ladder_id).first()
    challenge = Challenge.objects.filter(pk=link.challenge_id).first()
    _start_game(match, link.number + 1, ladder=ladder, challenge=challenge, by=match.created_by)
    return False


def current_game(match: Match) -> Game | None:
    link = LeagueGame.objects.filter(match=match).select_related("game").order_by("-number").first()
    return link.game if link else None
