"""Signal receivers connected in SeasonsConfig.ready(): games tell the seasons, never the reverse."""

from __future__ import annotations

from .models import Fixture


def on_game_finished(sender, game_id, outcome=None, **kwargs) -> None:
    """Queue the result of a finished fixture game (other games are ignored); a table game's
    becomes a report waiting for confirmation (``league.reports``).

    Runs after the game's transaction committed, so the task sees the finished game.
    """
    from league.reports.pairings import NOT_TAKEN, TABLE_RESULT, game_route
    from league.reports.tasks import table_game_finished_task

    from .tasks import season_game_finished_task

    if not Fixture.objects.filter(game_id=game_id).exists():
        return
    route = game_route(game_id)
    if route == TABLE_RESULT:  # recorded at a table: the keeper's report, confirmed by the players
        table_game_finished_task.delay(str(game_id))
    elif route != NOT_TAKEN:  # NOT_TAKEN: the season's fixtures are decided at the table only
        season_game_finished_task.delay(str(game_id))
