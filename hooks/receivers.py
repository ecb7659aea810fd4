"""Signal receivers: the games app announces committed changes; the webhooks turn them into deliveries."""

from __future__ import annotations

from . import services


def on_game_changed(sender, *, game_id, **kwargs) -> None:
    services.game_changes_deliver(game_id=game_id)
