"""Signal receivers connected in LobbyConfig.ready(): a finished rated lobby game queues its rating."""

from __future__ import annotations

from .models import LobbyGame


def on_game_finished(sender, game_id, outcome=None, **kwargs) -> None:
    """Queue the site rating of a finished rated lobby game (others are ignored). Runs after the
    game's transaction committed, so the task sees the finished game."""
    from .tasks import lobby_game_rate_task

    if LobbyGame.objects.filter(game_id=game_id, rated=True, rated_at__isnull=True).exists():
        lobby_game_rate_task.delay(str(game_id))
