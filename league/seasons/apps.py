"""Django app config of the seasonal leagues; listens to games' game_finished like the league does."""

from django.apps import AppConfig


class SeasonsConfig(AppConfig):
    name = "league.seasons"
    label = "seasons"
    verbose_name = "seasonal leagues"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games.signals import game_finished

        from .receivers import on_game_finished

        game_finished.connect(on_game_finished, dispatch_uid="seasons.on_game_finished")
