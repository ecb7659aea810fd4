"""Finished games into the league: a challenge's game or match decides it, a rated game is rated.

``games`` never imports ``league``: the ``game_finished`` signal queues ``league_game_finished``
(league.receivers, league.tasks), which is idempotent, so a repeated task changes nothing.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from kifu.locking import lock_by_id

from ..models import Challenge, Ladder, LeagueGame, Match
from ..scoring import ladder as rules
from .challenges import decide_result
from .log import event_append, ladder_lock, projection_advance
from .matches import game_ranking, match_game_recorded


@transaction.atomic
def league_game_finished(*, game_id, now: datetime | None = None) -> bool:
    """Take a finished league game's result into its match, challenge or ladder.

    Locks in the order ladder, match, game link, challenge. Returns whether anything was recorded
    (False for games the league did not create, games still running, and repeats).
    """
    now = now or timezone.now()
    try:
        link = LeagueGame.objects.filter(game_id=game_id).values("ladder_id", "match_id").first()
    except (ValueError, TypeError):
        return False
    if link is None:
        return False
    ladder = ladder_lock(link["ladder_id"]) if link["ladder_id"] else None
    if link["match_id"]:
        lock_by_id(Match, link["match_id"])
    game_link = lock_by_id(LeagueGame, game_id, by="game_id", related=("game",), of=("self",))
    if game_link.recorded or not game_link.game.is_finished:
        return False
    record_game(ladder, game_link, now=now)
    if ladder is not None:
        projection_advance(ladder)
    return True


def record_game(ladder: Ladder | None, link: LeagueGame, *, now: datetime) -> None:
    """Record one finished game (locks held; the caller rebuilds the projection)."""
    link.recorded = True
    link.save(update_fields=["recorded"])
    ranking, _scores = game_ranking(link.game)
    game_id, match_id = link.game_id, None
    challenge = lock_by_id(Challenge, link.challenge_id) if link.challenge_id else None
    # A challenge decided already (a forfeit or void at the play deadline, an organiser's result)
    # takes no result from its game, and its match plays no further games.
    live = challenge is None or challenge.status == Challenge.Status.ACCEPTED
    if link.match_id:
        match = Match.objects.get(pk=link.match_id)
        if not match_game_recorded(match, link, now=now, play_on=live):
            return
        ranking, game_id, match_id = match.result, None, match.pk
    if challenge is not None:
        if not live:
            return
        source = "match" if match_id else "game"
        decide_result(ladder, challenge, ranking, now=now, source=source, game=game_id, match=match_id)
    elif ladder is not None:
        payload = {"ranking": ranking, "rated": True, "source": "match" if match_id else "game"}
        payload.update({"match": str(match_id)} if match_id else {"game": str(game_id)})
        event_append(ladder, kind=rules.RESULT, payload=payload, actor=None, at=now)
