"""Tournament standings are computed once per change of the results or entries, not on every read
(issue 18), and a change - a result, a correction, a drop - shows on the next read."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

from league.models import TournamentBoard
from league.tournaments import lifecycle, ops, standings
from league.tournaments.selectors import tournament_standings

pytestmark = pytest.mark.skipif(
    "locmem" in settings.CACHES["default"]["BACKEND"].lower(), reason="standings are cached only in a shared cache"
)


def recomputed(queries) -> bool:
    """Whether the read loaded rows: a cached read runs only the fingerprint's two aggregates."""
    return len(queries) != 2 or not all(query["sql"].startswith("SELECT COUNT(") for query in queries)


def test_standings_are_cached_until_a_result_an_entry_or_a_correction_changes(club_with, clock, monkeypatch):
    # Only reads outside a transaction fill the cache; a test runs inside one (and a transactional
    # test cannot flush the append-only event tables), so this one lets its reads fill it. Every
    # write replaces the version token at once (and again on commit, which a test never reaches).
    monkeypatch.setattr(standings, "_may_cache", lambda: True)
    club, organiser, members = club_with(4)
    tournament = lifecycle.tournament_create(
        club_id=club.pk, by=organiser, name="Open", engine="nine-card", format="swiss", seed=1, rounds=3, now=clock.now
    )
    for member in members:
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=member, now=clock.now)
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    tournament.refresh_from_db()
    first, second = TournamentBoard.objects.filter(tournament=tournament, round=1).order_by("number")

    def points() -> dict:
        return {row["username"]: row["points"] for row in tournament_standings(tournament=tournament)}

    assert set(points().values()) == {0.0}
    with CaptureQueriesContext(connection) as again:
        assert set(points().values()) == {0.0}
    assert not recomputed(again.captured_queries)  # the second read is the cached one

    ops.tournament_result_correct(
        tournament_id=tournament.pk, by=organiser, round=1, board=1, ranking=[[first.first], [first.second]]
    )
    assert points()[first.first.username] == 1.0  # the result shows at once
    ops.tournament_result_correct(
        tournament_id=tournament.pk, by=organiser, round=1, board=1, ranking=[[first.second], [first.first]]
    )
    after = points()
    assert (after[first.first.username], after[first.second.username]) == (0.0, 1.0)  # and its correction
    with CaptureQueriesContext(connection) as again:
        assert points() == after
    assert not recomputed(again.captured_queries)

    ops.tournament_drop(tournament_id=tournament.pk, by=organiser, player=second.first, now=clock.now)
    rows = {row["username"]: row["status"] for row in tournament_standings(tournament=tournament)}
    assert rows[second.first.username] == "dropped"
