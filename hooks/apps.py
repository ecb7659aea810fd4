"""Django app for webhooks; it listens to the games app's after-commit signal, so games never imports it."""

from django.apps import AppConfig


class HooksConfig(AppConfig):
    name = "hooks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games.signals import game_changed, games_changed

        from . import signals, tasks
        from .receivers import on_game_changed, on_games_changed

        game_changed.connect(on_game_changed, dispatch_uid="hooks.on_game_changed")
        games_changed.connect(on_games_changed, dispatch_uid="hooks.on_games_changed")
        # The services announce new deliveries; the tasks (which import the services) send them.
        signals.deliveries_created.connect(tasks.on_deliveries_created, dispatch_uid="hooks.on_deliveries_created")
