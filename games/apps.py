"""Django app config for the event store and game services."""

from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Games' refusals reach every app's API in the one error shape (kifu/http/errors.py): league
        # and hooks services raise them too, so the owner registers them once, not each API.
        from kifu.http.errors import refusal

        from .engines.base import RuleError
        from .errors import ServiceError
        from .records import RecordError

        refusal(ServiceError, status=lambda error: error.status)
        refusal(RecordError, fields=("line",))
        refusal(RuleError)

        from django.core import checks

        from kifu.security import fast_password_hasher_check

        checks.register(fast_password_hasher_check, checks.Tags.security, deploy=True)

        # The services announce the work they leave for a worker (games.signals); the tasks, which
        # import the services, receive it - so the services never import the tasks.
        from . import signals, tasks

        signals.advance_due.connect(tasks.on_advance_due, dispatch_uid="games.on_advance_due")
        signals.window_timer_due.connect(tasks.on_window_timer_due, dispatch_uid="games.on_window_timer_due")
