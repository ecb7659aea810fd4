"""Django app for players, clubs, ladders, matches and ratings (issue 7); leagues and tournaments later."""

from django.apps import AppConfig


class LeagueConfig(AppConfig):
    name = "league"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from games.signals import game_finished
        from kifu.http.errors import refusal

        from .models import Tournament, TournamentBoard, TournamentEntry
        from .receivers import on_game_finished
        from .reports import tasks as report_tasks  # noqa: F401 - registers the reported results' tasks
        from .scoring.errors import ScoringError
        from .tournaments.boards import round_complete
        from .tournaments.standings import on_tournament_saved
        from .tournaments.tasks import queue_advance  # also registers the tournament tasks

        game_finished.connect(on_game_finished, dispatch_uid="league.on_game_finished")
        round_complete.connect(queue_advance, dispatch_uid="league.tournaments.queue_advance")
        # cached tournament standings are replaced when a result, an entry or a setting changes
        for model in (Tournament, TournamentBoard, TournamentEntry):
            for name, signal in (("saved", post_save), ("deleted", post_delete)):
                uid = f"league.standings.{model.__name__}.{name}"
                signal.connect(on_tournament_saved, sender=model, dispatch_uid=uid)
        # The scoring maths has its own error (no games import); one that reaches an API is a 400
        # in the one error shape, as it was when it subclassed the engines' RuleError.
        refusal(ScoringError)
