"""Django app for webhooks; it listens to the games app's after-commit signal, so games never imports it."""

from django.apps import AppConfig


class HooksConfig(AppConfig):
    name = "hooks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games.signals import game_changed

        from .receivers import on_game_changed

        game_changed.connect(on_game_changed, dispatch_uid="hooks.on_game_changed")
