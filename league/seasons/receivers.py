"""Signal receivers connected in SeasonsConfig.ready(): games tell the seasons, never the reverse."""

from __future__ import annotations

from .models import Fixture


def on_game_finished(sender, game_id, outcome=None, **kwargs) -> None:
    """Queue the result of a finished fixture game (other games are ignored).

    Runs after the game's transaction committed, so the task sees the finished game.
    """
    from .tasks import season_game_finished_task

    if Fixture.objects.filter(game_id=game_id).exists():
        season_game_finished_task.delay(str(game_id))
