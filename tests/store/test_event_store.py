"""The event store on PostgreSQL: append-only triggers, the hash chain, seeds, the move pipeline."""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta

import pgtrigger
import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from games import services
from games.errors import ServiceError
from games.eventlog import event_hash
from games.models import Event, Game, Submission
from games.record_io import game_verify, record_export, record_import
from games.records import canonical_json

pytestmark = pytest.mark.django_db


@pytest.fixture
def users():
    User = get_user_model()
    return [User.objects.create_user(username=name, password="x-long-password") for name in ("oya", "ko", "third")]


@pytest.fixture
def game(users):
    return services.game_create(consent=True, engine_slug="nine-card", config={}, seats=users[:2], created_by=users[0])


def submit(game, user, move, key):
    result = services.move_submit(game_id=game.pk, user=user, move=move, idempotency_key=key)
    services.game_advance(game_id=game.pk)
    result.submission.refresh_from_db()
    return result.submission


def hand(game, seat):
    game.refresh_from_db()
    return game.state["hands"][seat]


def test_a_full_game_deals_on_creation_and_commits_the_seed(game):
    assert game.status == "running" and game.head_seq == 1
    deal = game.events.get(seq=1)
    assert deal.kind == "chance" and deal.payload["type"] == "deal"
    assert game.seed_sha256 == hashlib.sha256(bytes.fromhex(game.seed)).hexdigest()
    expected = hashlib.sha256(("0" * 64 + canonical_json({"seq": 1, **deal.as_record()})).encode()).hexdigest()
    assert deal.hash == expected == game.head_hash


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE games_event SET payload = '{}'::jsonb",
        "DELETE FROM games_event",
        "TRUNCATE games_event CASCADE",
    ],
    ids=["update", "delete", "truncate"],
)
def test_postgres_refuses_to_change_events(game, sql):
    with connection.cursor() as cursor:
        # Run the deferred FK checks of this test's inserts now; otherwise PostgreSQL refuses the
        # TRUNCATE for "pending trigger events" before our trigger is even asked.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    with pytest.raises(DatabaseError, match="(Cannot|append-only)"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(sql)
    assert game.events.count() == 1


def test_orm_cannot_update_or_delete_events(game):
    with pytest.raises(DatabaseError), transaction.atomic():
        Event.objects.filter(game=game).update(seat=1)
    with pytest.raises(DatabaseError), transaction.atomic():
        Event.objects.filter(game=game).delete()


def test_moves_are_applied_in_receipt_order_with_verdicts(game, users):
    oya, ko = users[:2]
    card = hand(game, 0)[0]
    first = services.move_submit(
        game_id=game.pk, user=oya, move={"type": "commit_card", "card": card}, idempotency_key="a"
    )
    other = hand(game, 0)[1]
    second = services.move_submit(
        game_id=game.pk, user=oya, move={"type": "commit_card", "card": other}, idempotency_key="b"
    )
    assert services.game_advance(game_id=game.pk) == 2
    first.submission.refresh_from_db()
    second.submission.refresh_from_db()
    assert (first.submission.status, first.submission.event_seq) == ("accepted", 2)
    assert (second.submission.status, second.submission.code) == ("rejected", "already_committed")
    assert "already committed" in second.submission.message
    game.refresh_from_db()
    assert game.head_seq == 2 and game.actors == [1]


def test_the_same_key_returns_the_first_submission(game, users):
    move = {"type": "commit_card", "card": hand(game, 0)[0]}
    first = submit(game, users[0], move, "same")
    again = services.move_submit(game_id=game.pk, user=users[0], move=move, idempotency_key="same")
    assert not again.created and again.submission.pk == first.pk
    assert Submission.objects.filter(game=game).count() == 1
    with pytest.raises(ServiceError) as error:
        services.move_submit(game_id=game.pk, user=users[0], move={"type": "resign"}, idempotency_key="same")
    assert error.value.code == "idempotency_conflict" and error.value.status == 409


def test_only_seated_players_may_submit(game, users):
    with pytest.raises(ServiceError) as error:
        services.move_submit(game_id=game.pk, user=users[2], move={"type": "commit_card"}, idempotency_key="x")
    assert (error.value.code, error.value.status) == ("not_a_player", 403)


def test_resign_ends_the_game_and_reveals_the_seed(game, users):
    verdict = submit(game, users[1], {"type": "resign"}, "r")
    assert verdict.status == "accepted"
    game.refresh_from_db()
    assert game.status == "finished" and game.outcome["ranking"] == [[0], [1]]
    assert game.events.last().payload == {"type": "resign", "seat": 1}
    report = game_verify(game=game)
    assert report.ok and report.chance_ok and report.seed_ok


def test_a_move_received_after_the_deadline_finds_the_window_closed(users):
    game = services.game_create(
        consent=True, engine_slug="nine-card", config={"commit_seconds": 5}, seats=users[:2], created_by=users[0]
    )
    assert game.window == "turn-1"
    move = {"type": "commit_card", "card": hand(game, 0)[0]}
    result = services.move_submit(game_id=game.pk, user=users[0], move=move, idempotency_key="late")
    # The submission arrived after the deadline (as if the timer were slow): the recorded deadline decides.
    Game.objects.filter(pk=game.pk).update(deadline_at=result.submission.received_at - timedelta(seconds=1))
    services.game_advance(game_id=game.pk)
    result.submission.refresh_from_db()
    assert (result.submission.status, result.submission.code) == ("rejected", "game_over")
    game.refresh_from_db()
    assert game.outcome["detail"]["reason"] == "timeout"
    assert game.events.get(seq=2).payload == {"type": "close_window", "window": "turn-1"}


def test_deadline_sweep_closes_only_overdue_windows(users):
    game = services.game_create(
        consent=True, engine_slug="nine-card", config={"commit_seconds": 60}, seats=users[:2], created_by=users[0]
    )
    assert services.deadlines_sweep() == 0
    Game.objects.filter(pk=game.pk).update(deadline_at=timezone.now() - timedelta(seconds=1))
    assert services.deadlines_sweep() == 1
    game.refresh_from_db()
    assert game.status == "finished" and game.outcome["ranking"] == [[0, 1]]
    assert services.deadlines_sweep() == 0  # closing again changes nothing


def test_verify_catches_an_edited_event(game, users, capsys):
    played = hand(game, 0)[0]
    submit(game, users[0], {"type": "commit_card", "card": played}, "k")
    call_command("kifu", "verify", str(game.pk))
    assert "ok" in capsys.readouterr().out
    forged = "QS" if played == "KS" else "KS"  # a real edit even when the random deal put KS first
    with pgtrigger.ignore("games.Event:event_append_only"):
        Event.objects.filter(game=game, seq=2).update(payload={"type": "commit_card", "card": forged})
    with pytest.raises(SystemExit) as exit_:
        call_command("kifu", "verify", str(game.pk))
    assert exit_.value.code == 1
    assert "event 2: hash does not match" in capsys.readouterr().out


def test_verify_catches_a_chance_event_not_from_the_seed(game, users):
    submit(game, users[0], {"type": "resign"}, "r")
    deal = game.events.get(seq=1)
    hands = deal.payload["hands"]
    forged = {**deal.payload, "hands": [list(reversed(hands[0])), hands[1]]}
    game.refresh_from_db()
    # A forger who rewrites the deal and the whole chain after it still cannot match the seed.
    with pgtrigger.ignore("games.Event:event_append_only"):
        Event.objects.filter(pk=deal.pk).update(payload=forged)
        previous = "0" * 64
        for row in game.events.order_by("seq"):
            previous = event_hash(previous, row.seq, row.as_record())
            Event.objects.filter(pk=row.pk).update(hash=previous)
    Game.objects.filter(pk=game.pk).update(head_hash=previous)
    game.refresh_from_db()
    report = game_verify(game=game)
    assert report.chain_ok and report.replay_ok and report.chance_ok is False and not report.ok


def test_export_import_round_trip(game, users):
    submit(game, users[0], {"type": "resign"}, "r")
    game.refresh_from_db()
    text = record_export(game=game)
    header = json.loads(text.splitlines()[0])
    assert header["seed"] == game.seed and header["seats"] == ["oya", "ko"]
    imported = record_import(lines=text.splitlines())
    assert imported.source == "imported" and imported.outcome == game.outcome
    assert imported.head_hash == game.head_hash  # the same events give the same chain
    assert game_verify(game=imported).ok


def test_events_are_never_read_past_the_head_they_are_redacted_against(users):
    from games import selectors

    game = services.game_create(
        consent=True, engine_slug="nine-card", config={}, seats=[users[0], None], created_by=users[0]
    )
    stale = Game.objects.get(pk=game.pk)  # read while still open: no state, head 0
    services.game_join(game_id=game.pk, user=users[1])  # the game starts and deals
    assert selectors.events_for(game=stale, seat=1) == []  # not the deal, unredacted
    fresh = Game.objects.get(pk=game.pk)
    deal = selectors.events_for(game=fresh, seat=1)[0]
    assert deal["data"]["hands"][0] is None and deal["data"]["hands"][1]
