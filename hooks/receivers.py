"""Signal receivers: the games app announces committed changes; the webhooks turn them into deliveries.

A webhook's save or delete - through the services, the admin or an account's deletion - makes the
cached "who listens to this game" answers stale (``services.webhook_listeners_changed``).
"""

from __future__ import annotations

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from . import services
from .models import Webhook


def on_game_changed(sender, *, game_id, **kwargs) -> None:
    services.game_changes_deliver(game_id=game_id)


def on_games_changed(sender, *, changes, **kwargs) -> None:
    services.game_changes_deliver_many(game_ids=[change["game_id"] for change in changes])


@receiver(post_save, sender=Webhook, dispatch_uid="hooks.webhook_saved")
@receiver(post_delete, sender=Webhook, dispatch_uid="hooks.webhook_deleted")
def on_webhook_written(sender, **kwargs) -> None:
    services.webhook_listeners_changed()
