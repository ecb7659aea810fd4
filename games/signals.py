"""Signals other apps listen to; sent after the transaction that caused them has committed."""

from django.dispatch import Signal

# Sent with ``game_id`` and ``outcome`` (the outcome JSON) once a game has finished and committed.
# League follow-ups (standings, ratings, next rounds) connect here, so games never imports league.
game_finished = Signal()

# Sent with ``game_id``, ``seq`` and ``finished`` after every committed change of a game's head (its
# start, each move, window close and its end), at the same moment as the live-stream notice.
# Webhooks connect here, so games never imports hooks.
game_changed = Signal()
