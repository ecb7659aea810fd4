"""The event log (games/eventlog.py) and the move gate (games/receipts.py) on PostgreSQL.

- a drain writes in a constant number of statements, however many submissions are pending;
- an accepted submission's ``event_seq`` is its own event, never a chance event that followed;
- a window never closes while a move request stamped before its deadline is still on its way in
  (the close task runs between the stamp and the lock: the call still counts);
- the receipt stamp: the middleware's time, or a trusted proxy's header, clamped.
"""

from __future__ import annotations

import random
import time
import uuid
from datetime import timedelta

import psycopg
import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games import receipts, services
from games.engines import get_engine
from games.eventlog import chain_check, event_hash
from games.models import Event, Game, Submission
from games.record_io import game_verify

pytestmark = pytest.mark.django_db


@pytest.fixture
def users():
    User = get_user_model()
    return [User.objects.create_user(username=f"u{i}", password="x-long-password") for i in range(4)]


def hand(game, seat):
    game.refresh_from_db()
    return game.state["hands"][seat]


def other_session():
    """A second PostgreSQL session on the test database (autocommit): a move request in flight."""
    settings = connection.settings_dict
    return psycopg.connect(
        dbname=settings["NAME"],
        user=settings["USER"],
        host=settings["HOST"] or "127.0.0.1",
        port=settings["PORT"] or 5432,
        autocommit=True,
    )


def statements_to_advance(game, user, count: int) -> int:
    for index in range(count):
        services.move_submit(
            game_id=game.pk, user=user, move={"type": "commit_card", "card": "XX"}, idempotency_key=f"k{count}-{index}"
        )
    with CaptureQueriesContext(connection) as queries:
        assert services.game_advance(game_id=game.pk) == count
    return len(queries)


def test_a_drain_costs_the_same_statements_for_2_or_16_submissions(users):
    small = services.game_create(consent=True, engine_slug="nine-card", config={}, seats=users[:2], created_by=users[0])
    large = services.game_create(
        consent=True, engine_slug="nine-card", config={}, seats=users[2:4], created_by=users[2]
    )
    assert statements_to_advance(small, users[0], 2) == statements_to_advance(large, users[2], 16)
    assert Submission.objects.filter(game=large, status="rejected").count() == 16


def test_one_drain_writes_many_events_in_one_insert(users):
    game = services.game_create(consent=True, engine_slug="nine-card", config={}, seats=users[:2], created_by=users[0])
    for seat in (0, 1):
        services.move_submit(
            game_id=game.pk,
            user=users[seat],
            move={"type": "commit_card", "card": hand(game, seat)[0]},
            idempotency_key="a",
        )
    with CaptureQueriesContext(connection) as queries:
        services.game_advance(game_id=game.pk)
    writes = [
        q["sql"] for q in queries if "INSERT INTO games_event" in q["sql"] or 'INSERT INTO "games_event"' in q["sql"]
    ]
    game.refresh_from_db()
    assert len(writes) == 1 and game.head_seq >= 3  # two commits (and what they caused), one statement
    assert len(queries) == 5  # savepoint, lock, pending, the write, release (the test runs in a transaction)
    assert game_verify(game=game).ok


@pytest.mark.parametrize("engine", ["twenty-two", "nine-card"])
def test_event_seq_is_the_moves_own_event(users, engine):
    """A move that ends a hand is followed by the next deal; the submission names the move."""
    rules = get_engine(engine)
    seats = users[: max(2, rules.min_seats)]
    game = services.game_create(consent=True, engine_slug=engine, config={}, seats=seats, created_by=seats[0])
    rng = random.Random(7)
    for step in range(120):
        game.refresh_from_db()
        if game.is_finished:
            break
        state = rules.load_state(game.state)
        seat = sorted(rules.actors(state))[0]
        moves = rules.legal_moves(state, seat)
        result = services.move_submit(
            game_id=game.pk, user=seats[seat], move=rng.choice(moves), idempotency_key=f"s{step}"
        )
        services.game_advance(game_id=game.pk)
        result.submission.refresh_from_db()
        assert result.submission.status == "accepted", result.submission.message
    accepted = Submission.objects.filter(game=game, status="accepted")
    events = {row.seq: row for row in Event.objects.filter(game=game)}
    followed_by_chance = 0
    for submission in accepted:
        own = events[submission.event_seq]
        assert own.kind == "move" and own.seat == submission.seat and own.payload == submission.payload
        followed_by_chance += events.get(submission.event_seq + 1) is not None and (
            events[submission.event_seq + 1].kind == "chance"
        )
    if engine == "twenty-two":
        assert followed_by_chance  # the case that used to report the deal's seq


def test_a_rejected_move_leaves_no_event_behind(users):
    game = services.game_create(consent=True, engine_slug="nine-card", config={}, seats=users[:2], created_by=users[0])
    head = game.head_seq
    result = services.move_submit(
        game_id=game.pk, user=users[0], move={"type": "commit_card", "card": "ZZ"}, idempotency_key="bad"
    )
    services.game_advance(game_id=game.pk)
    result.submission.refresh_from_db()
    game.refresh_from_db()
    assert result.submission.status == "rejected" and game.head_seq == head


def test_chain_check_names_the_first_bad_link():
    first = event_hash("0" * 64, 1, {"kind": "chance", "data": {"a": 1}})
    second = event_hash(first, 2, {"kind": "move", "seat": 0, "data": {"b": 2}})
    assert chain_check([(1, first, first), (2, second, second)], second) == []
    assert chain_check([(1, first, "f" * 64)], first) == [
        "event 1: hash does not match its content and predecessor (edited?)"
    ]
    assert chain_check([(2, second, second)], second) == ["event seq 2 found where 1 was expected (a gap)"]


# ---- fair reaction windows (issue 25) -------------------------------------------------------------
def timed_game(users):
    game = services.game_create(
        consent=True, engine_slug="nine-card", config={"commit_seconds": 5}, seats=users[:2], created_by=users[0]
    )
    assert game.window == "turn-1"
    return game


def test_a_call_stamped_before_the_deadline_counts_though_the_close_ran_before_its_lock(users):
    """The interleaving of issue 25, forced: stamp, then the close task, then the lock."""
    game = timed_game(users)
    move = {"type": "commit_card", "card": hand(game, 0)[0]}
    with other_session() as request:
        # The request enters the gate and is stamped before the deadline ...
        request.execute("SELECT pg_advisory_lock_shared(%s, %s)", [receipts.GATE_NAMESPACE, receipts.gate_key(game.pk)])
        stamped = timezone.now()
        Game.objects.filter(pk=game.pk).update(deadline_at=stamped + timedelta(milliseconds=1))
        # ... the deadline passes and the close task runs before the request reaches the game row:
        time.sleep(0.005)
        services.game_advance(game_id=game.pk)
        game.refresh_from_db()
        assert game.window == "turn-1" and game.head_seq == 1  # the close waited for the request
        result = services.move_submit(
            game_id=game.pk, user=users[0], move=move, idempotency_key="in-time", received_at=stamped
        )
        request.execute(
            "SELECT pg_advisory_unlock_shared(%s, %s)", [receipts.GATE_NAMESPACE, receipts.gate_key(game.pk)]
        )
    services.game_advance(game_id=game.pk)
    result.submission.refresh_from_db()
    assert result.submission.status == "accepted", result.submission.code
    game.refresh_from_db()
    kinds = list(game.events.order_by("seq").values_list("kind", "payload__type"))
    assert kinds[1] == ("move", "commit_card") and kinds[2] == ("system", "close_window")


def test_without_a_request_in_flight_the_close_is_not_delayed_and_a_late_call_is_refused(users):
    game = timed_game(users)
    move = {"type": "commit_card", "card": hand(game, 0)[0]}
    deadline = timezone.now() - timedelta(milliseconds=5)
    Game.objects.filter(pk=game.pk).update(deadline_at=deadline)
    services.game_advance(game_id=game.pk)
    game.refresh_from_db()
    assert game.events.get(seq=2).payload["type"] == "close_window"
    late = services.move_submit(
        game_id=game.pk,
        user=users[0],
        move=move,
        idempotency_key="late",
        received_at=deadline + timedelta(milliseconds=1),
    )
    services.game_advance(game_id=game.pk)
    late.submission.refresh_from_db()
    assert late.submission.status == "rejected"


def test_a_submission_after_the_deadline_waits_behind_a_request_still_in_flight(users):
    """A later call would close the window at its receipt; while an earlier one is in the gate, the
    worker stops before it and leaves it pending."""
    game = timed_game(users)
    deadline = timezone.now() - timedelta(milliseconds=5)
    Game.objects.filter(pk=game.pk).update(deadline_at=deadline)
    late = services.move_submit(
        game_id=game.pk,
        user=users[1],
        move={"type": "commit_card", "card": hand(game, 1)[0]},
        idempotency_key="late",
        received_at=deadline + timedelta(milliseconds=3),
    )
    key = [receipts.GATE_NAMESPACE, receipts.gate_key(game.pk)]
    with other_session() as request:
        request.execute("SELECT pg_advisory_lock_shared(%s, %s)", key)
        services.game_advance(game_id=game.pk)
        late.submission.refresh_from_db()
        assert late.submission.status == "pending"
        early = services.move_submit(
            game_id=game.pk,
            user=users[0],
            move={"type": "commit_card", "card": hand(game, 0)[0]},
            idempotency_key="early",
            received_at=deadline - timedelta(milliseconds=3),
        )
        request.execute("SELECT pg_advisory_unlock_shared(%s, %s)", key)
    services.game_advance(game_id=game.pk)
    early.submission.refresh_from_db()
    late.submission.refresh_from_db()
    assert early.submission.status == "accepted"  # stored after the late one, received before it
    assert late.submission.status == "rejected"


def client_for(user):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def gate_is_free(game) -> bool:
    with other_session() as probe:
        key = [receipts.GATE_NAMESPACE, receipts.gate_key(game.pk)]
        free = probe.execute("SELECT pg_try_advisory_lock(%s, %s)", key).fetchone()[0]
        if free:
            probe.execute("SELECT pg_advisory_unlock(%s, %s)", key)
        return free


def test_the_stamp_is_taken_before_the_view_and_the_gate_is_left_after_any_answer(users):
    game = services.game_create(consent=True, engine_slug="nine-card", config={}, seats=users[:2], created_by=users[0])
    client = client_for(users[0])
    before = timezone.now()
    response = client.post(
        f"/api/games/{game.pk}/moves", {"move": {"type": "commit_card", "card": "ZZ"}}, format="json"
    )
    assert response.status_code in (202, 422), response.content
    submission = Submission.objects.get(game=game, user=users[0])
    assert before <= submission.received_at <= timezone.now()
    assert gate_is_free(game)
    refused = client_for(users[2]).post(f"/api/games/{game.pk}/moves", {"move": {"type": "x"}}, format="json")
    assert refused.status_code == 403 and gate_is_free(game)
    malformed = client.post(f"/api/games/{game.pk}/moves", {"move": "nope"}, format="json")
    assert malformed.status_code == 400 and gate_is_free(game)


def test_a_trusted_proxy_stamp_is_used_clamped_and_ignored_unless_configured(users, settings):
    game = services.game_create(consent=True, engine_slug="nine-card", config={}, seats=users[:2], created_by=users[0])
    client = client_for(users[0])
    sent = timezone.now() - timedelta(milliseconds=200)

    def post(key, header):
        client.post(
            f"/api/games/{game.pk}/moves",
            {"move": {"type": "commit_card", "card": "ZZ"}, "idempotency_key": key},
            format="json",
            HTTP_X_REQUEST_START=header,
        )
        return Submission.objects.get(game=game, idempotency_key=key).received_at

    untrusted = post("untrusted", f"t={sent.timestamp():.3f}")
    assert untrusted > sent + timedelta(milliseconds=150)  # a client's header counts for nothing
    settings.KIFU_RECEIPT_HEADER = "X-Request-Start"
    settings.KIFU_RECEIPT_GRACE_SECONDS = 0.5
    assert abs(post("proxied", f"t={sent.timestamp():.3f}") - sent) < timedelta(milliseconds=2)
    long_ago = post("clamped", f"t={(sent - timedelta(hours=1)).timestamp():.3f}")
    assert timezone.now() - timedelta(seconds=0.6) < long_ago < timezone.now() - timedelta(seconds=0.4)
    future = post("future", f"t={(sent + timedelta(hours=1)).timestamp():.3f}")
    assert future <= timezone.now()
    assert post("garbage", "t=abc") > sent + timedelta(milliseconds=150)


@pytest.mark.parametrize(
    ("header", "seconds"),
    [("t=1700000000.123", 1700000000.123), ("1700000000123456", 1700000000.123456), ("1700000000123", 1700000000.123)],
)
def test_proxy_time_formats(header, seconds):
    assert receipts.proxy_time(header).timestamp() == pytest.approx(seconds)
    assert receipts.proxy_time("") is None and receipts.proxy_time("t=nan") is None


def test_gate_keys_are_stable_and_signed_32_bit():
    game_id = uuid.uuid4()
    assert receipts.gate_key(game_id) == receipts.gate_key(str(game_id).upper())
    assert -(2**31) <= receipts.gate_key(game_id) < 2**31
