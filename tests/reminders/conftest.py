"""The league's helpers (a club, players, a simulated clock) for the reminder tests."""

from tests.league.conftest import clock, club_with, make_user  # noqa: F401 - fixtures
