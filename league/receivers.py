"""Signal receivers connected in LeagueConfig.ready(): games tell the league, never the reverse."""

from __future__ import annotations

from .models import LeagueGame, TournamentBoard


def on_game_finished(sender, game_id, outcome=None, **kwargs) -> None:
    """Queue the league's follow-up for a finished game the league or a tournament created (others
    are ignored).

    Runs after the game's transaction committed, so the task sees the finished game.
    """
    from .tasks import league_game_finished_task
    from .tournaments.tasks import tournament_game_finished_task

    if LeagueGame.objects.filter(game_id=game_id, match__tournament_board__isnull=False).exists():
        tournament_game_finished_task.delay(str(game_id))  # a tournament board's match: it records the game too
    elif LeagueGame.objects.filter(game_id=game_id).exists():
        league_game_finished_task.delay(str(game_id))
    elif TournamentBoard.objects.filter(game_id=game_id).exists():
        tournament_game_finished_task.delay(str(game_id))
