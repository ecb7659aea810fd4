"""Signals of the webhooks: how the services queue work without importing ``hooks.tasks``.

The tasks import the services they call, so the services announce what is due and
``HooksConfig.ready`` connects the receiver in ``hooks.tasks`` (the same habit as ``games.signals``).
"""

from django.dispatch import Signal

# Sent with ``delivery_ids`` once new deliveries have committed; ``hooks.tasks.on_deliveries_created``
# sends each (a task on the real stack; embedded, the timer thread's next sweep).
deliveries_created = Signal()
