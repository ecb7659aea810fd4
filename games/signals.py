"""Signals the games app sends; each is sent after the transaction that caused it has committed.

The first two are for other apps (league, hooks), so games never imports them. The last two are how
the games services queue their own app's work without importing ``games.tasks``: the tasks import
the services they call, so the services announce what is due and ``GamesConfig.ready`` connects the
receivers in ``games.tasks`` (the same habit as ``league.tournaments.boards.round_complete``).
"""

from django.dispatch import Signal

# Sent with ``game_id`` and ``outcome`` (the outcome JSON) once a game has finished and committed.
# League follow-ups (standings, ratings, next rounds) connect here, so games never imports league.
game_finished = Signal()

# Sent with ``game_id``, ``seq`` and ``finished`` after every committed change of a game's head (its
# start, each move, window close and its end), at the same moment as the live-stream notice.
# Webhooks connect here, so games never imports hooks.
game_changed = Signal()

# Sent with ``changes`` (a list of ``{"game_id", "seq", "finished"}``) in place of one
# ``game_changed`` per game when one transaction started many games (``services.games_create_many``:
# a season of thousands), so a receiver can answer all of them in a few queries. A receiver of
# ``game_changed`` connects here too.
games_changed = Signal()

# Sent with ``game_id`` and ``force`` when a game has pending submissions for a worker to decide
# (``games.services``); the receiver (``games.tasks.on_advance_due``) queues ``game_advance_task``
# unless one is already waiting to start (``force``: queue it anyway).
advance_due = Signal()

# Sent with ``game_id``, ``window`` and ``deadline`` when a window opened (or its close must be tried
# again) after a committed write (``games.eventlog.Notice``); the receiver
# (``games.tasks.on_window_timer_due``) sets the timer that closes it.
window_timer_due = Signal()
