"""Django app for the lobby (issue 19): open seeks, quick pairing, rematches and the site rating."""

from django.apps import AppConfig


class LobbyConfig(AppConfig):
    name = "lobby"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games.signals import game_finished

        from .receivers import on_game_finished
        from .tasks import seeks_sweep  # noqa: F401 - registers the tasks

        game_finished.connect(on_game_finished, dispatch_uid="lobby.on_game_finished")
