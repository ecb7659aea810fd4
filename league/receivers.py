"""Signal receivers connected in LeagueConfig.ready(): games tell the league, never the reverse."""

from __future__ import annotations

from .models import LeagueGame, TournamentBoard


def on_game_finished(sender, game_id, outcome=None, **kwargs) -> None:
    """Queue the league's follow-up for a finished game the league or a tournament created (others
    are ignored). A game recorded at a table becomes a report waiting for the players' confirmation
    (``league.reports``), and a pairing decided at the table only takes no game from the server.

    Runs after the game's transaction committed, so the task sees the finished game.
    """
    from .reports.pairings import NOT_TAKEN, TABLE_RESULT, game_route
    from .reports.tasks import table_game_finished_task
    from .tasks import league_game_finished_task
    from .tournaments.tasks import tournament_game_finished_task

    if (
        not LeagueGame.objects.filter(game_id=game_id).exists()
        and not TournamentBoard.objects.filter(game_id=game_id).exists()
    ):
        return
    route = game_route(game_id)
    if route == TABLE_RESULT:  # recorded at a table: the keeper's report, confirmed by the players
        table_game_finished_task.delay(str(game_id))
        return
    if route == NOT_TAKEN:  # the pairing is decided at the table only
        return
    if LeagueGame.objects.filter(game_id=game_id, match__tournament_board__isnull=False).exists():
        tournament_game_finished_task.delay(str(game_id))  # a tournament board's match: it records the game too
    elif LeagueGame.objects.filter(game_id=game_id).exists():
        league_game_finished_task.delay(str(game_id))
    elif TournamentBoard.objects.filter(game_id=game_id).exists():
        tournament_game_finished_task.delay(str(game_id))
