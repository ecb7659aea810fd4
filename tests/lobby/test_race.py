"""Races against real PostgreSQL (issue 19): players who take a seek's last seats at the same
moment make exactly one game and never over-fill it, and players who quick-pair at the same moment
meet at shared tables instead of each opening their own.

Every write here runs in a thread of its own, with its own database connection, and commits for
real; the test's own connection only reads (PostgreSQL's READ COMMITTED shows it what the threads
committed). A transactional test cannot be used: its flush would TRUNCATE the append-only event
table. So, like the real-stack tests, these commit, are marked ``stack`` and run after the
in-process tests; their rows stay in the test database under names no other test uses.
"""

from __future__ import annotations

import threading
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from games.errors import ServiceError
from games.models import Game
from lobby import services
from lobby.models import LobbyGame, Seek, SeekSeat

ROUNDS = 4


pytestmark = [pytest.mark.stack, pytest.mark.django_db]


@pytest.fixture
def real_db():
    if connection.vendor != "postgresql":
        pytest.skip("the races need PostgreSQL's row locks: run bin/test")


def committed(call):
    """``call()`` in a thread of its own: its writes commit (the test's connection is inside the
    test transaction, so they would not)."""
    (result,) = at_once([call])
    if isinstance(result, ServiceError):
        raise result
    return result


def players(count: int) -> list:
    tag = uuid.uuid4().hex[:8]
    make = get_user_model().objects.create_user
    return committed(lambda: [make(username=f"race-{tag}-{i}") for i in range(count)])


def at_once(calls) -> list:
    """Run each call in its own thread, released together by a barrier; each result, or the
    ServiceError it raised, in order."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def run(index, call):
        try:
            barrier.wait()
            results[index] = call()
        except ServiceError as error:
            results[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_six_players_racing_for_four_seats_make_one_full_game(real_db):
    for _ in range(ROUNDS):
        creator, *racers = players(7)
        seek = committed(lambda creator=creator: services.seek_create(user=creator, engine_slug="satori", seats=5))
        results = at_once(
            [lambda racer=racer, seek=seek: services.seek_join(seek_id=seek.pk, user=racer) for racer in racers]
        )
        refused = [r.code for r in results if isinstance(r, ServiceError)]
        assert len(refused) == 2 and set(refused) == {"seek_full"}, results
        seek.refresh_from_db()
        assert seek.status == Seek.Status.FILLED
        assert SeekSeat.objects.filter(seek=seek).count() == 5
        assert LobbyGame.objects.filter(seek=seek).count() == 1
        game = Game.objects.get(pk=seek.game_id)
        assert game.status == Game.Status.RUNNING and game.seats.filter(user__isnull=False).count() == 5


def test_two_players_taking_the_last_seat_at_once_make_one_game(real_db):
    for _ in range(ROUNDS):
        creator, second, *racers = players(4)
        seek = committed(lambda creator=creator: services.seek_create(user=creator, engine_slug="satori", seats=3))
        committed(lambda seek=seek, second=second: services.seek_join(seek_id=seek.pk, user=second))
        results = at_once(
            [lambda racer=racer, seek=seek: services.seek_join(seek_id=seek.pk, user=racer) for racer in racers]
        )
        assert sorted(type(r).__name__ for r in results) == ["Seek", "ServiceError"], results
        assert next(r for r in results if isinstance(r, ServiceError)).code == "seek_full"
        assert LobbyGame.objects.filter(seek=seek).count() == 1
        assert SeekSeat.objects.filter(seek=seek).count() == 3


def test_six_players_quick_pairing_at_once_sit_at_two_full_tables(real_db):
    for round_ in range(ROUNDS):
        racers = players(6)
        clock = {"per_move_seconds": 1000 + round_ + uuid.uuid4().int % 10_000}  # a pool of this round only
        results = at_once(
            [
                lambda racer=racer, clock=clock: services.quick_pair(
                    user=racer, engine_slug="satori", seats=3, rated=False, time_control=clock
                )
                for racer in racers
            ]
        )
        assert not [r for r in results if isinstance(r, ServiceError)], results
        seeks = Seek.objects.filter(pk__in={seek.pk for seek, _joined in results})
        assert seeks.count() == 2 and {seek.status for seek in seeks} == {Seek.Status.FILLED}
        assert sorted(joined for _seek, joined in results) == [False, False, True, True, True, True]
        assert Game.objects.filter(seek__in=seeks, status=Game.Status.RUNNING).count() == 2
