"""Signals other apps listen to; sent after the transaction that caused them has committed."""

from django.dispatch import Signal

# Sent with ``game_id`` and ``outcome`` (the outcome JSON) once a game has finished and committed.
# League follow-ups (standings, ratings, next rounds) connect here, so games never imports league.
game_finished = Signal()
