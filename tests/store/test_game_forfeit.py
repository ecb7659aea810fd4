"""games.services.game_forfeit: a game ended for an outside reason (a league deadline, a re-pairing)
by system resign events that carry the reason - never a submission made for the player."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone

from games import services
from games.engines import get_engine
from games.errors import ServiceError
from games.models import Event, Game, Submission
from games.record_io import game_verify, record_export
from games.records import replay_record
from games.signals import game_finished

pytestmark = pytest.mark.django_db


@pytest.fixture
def users():
    User = get_user_model()
    return [User.objects.create_user(username=f"p{index}") for index in range(4)]


def new_game(users, engine="nine-card", seats=2) -> Game:
    return services.game_create(consent=True, engine_slug=engine, config={}, seats=users[:seats], created_by=users[0])


def legal(game: Game, seat: int) -> dict:
    game.refresh_from_db()
    engine = get_engine(game.engine)
    return engine.legal_moves(engine.load_state(game.state), seat)[0]


def events_after(game: Game, seq: int) -> list[tuple[str, int | None, dict]]:
    return [(e.kind, e.seat, e.payload) for e in game.events.filter(seq__gt=seq).order_by("seq")]


def test_a_forfeit_is_a_system_resign_with_its_reason_and_the_record_verifies(
    users, tmp_path, capsys, django_capture_on_commit_callbacks
):
    game = new_game(users)
    head = game.head_seq
    finished = []

    def listener(sender, game_id, outcome=None, **kwargs):
        finished.append((str(game_id), outcome))

    game_finished.connect(listener, dispatch_uid="test-forfeit")
    try:
        with django_capture_on_commit_callbacks(execute=True):
            result = services.game_forfeit(game_id=game.pk, seats=[1], reason="round deadline")
    finally:
        game_finished.disconnect(dispatch_uid="test-forfeit")
    assert result.is_finished and result.actors == []
    assert events_after(game, head) == [("system", None, {"type": "resign", "seat": 1, "reason": "round deadline"})]
    assert not Submission.objects.filter(game=game).exists()  # nothing submitted on a player's behalf
    game.refresh_from_db()
    assert game.outcome["ranking"] == [[0], [1]] and game.finished_at is not None
    assert finished == [(str(game.pk), game.outcome)]  # the league hears of the end as of any other
    # the record replays to the same end and the stored game verifies (chain, replay, seed)
    record = record_export(game=game)
    assert '"reason":"round deadline"' in record
    replay = replay_record(record.splitlines())
    assert get_engine(game.engine).outcome(replay.state).to_json() == game.outcome
    assert game_verify(game=game).ok
    call_command("kifu", "verify", str(game.pk))
    assert "1 of 1 games verified" in capsys.readouterr().out


def test_a_pending_move_received_before_the_deadline_is_applied_first(users):
    game = new_game(users)
    head = game.head_seq
    deadline = timezone.now() + timedelta(seconds=30)
    move = legal(game, 0)
    early = services.move_submit(game_id=game.pk, user=users[0], move=move, idempotency_key="early").submission
    late = services.move_submit(game_id=game.pk, user=users[1], move=legal(game, 1), idempotency_key="late")
    Submission.objects.filter(pk=late.submission.pk).update(received_at=deadline + timedelta(seconds=1))
    services.game_forfeit(game_id=game.pk, seats=[1], reason="round deadline", now=deadline)
    early.refresh_from_db(), late.submission.refresh_from_db()
    assert early.status == "accepted" and late.submission.status == "pending"
    assert events_after(game, head) == [
        ("move", 0, move),
        ("system", None, {"type": "resign", "seat": 1, "reason": "round deadline"}),
    ]
    services.game_advance(game_id=game.pk)  # the late move's worker: the game is over
    late.submission.refresh_from_db()
    assert (late.submission.status, late.submission.code) == ("rejected", "game_over")
    game.refresh_from_db()
    assert game_verify(game=game).ok


def test_a_pending_move_that_ends_the_game_leaves_nothing_to_forfeit(users):
    game = new_game(users)
    services.move_submit(game_id=game.pk, user=users[0], move={"type": "resign"}, idempotency_key="r")
    head = game.head_seq
    services.game_forfeit(game_id=game.pk, seats=[0, 1], reason="round deadline")
    assert events_after(game, head) == [("system", None, {"type": "resign", "seat": 0})]  # the player's own
    assert Submission.objects.get(game=game).status == "accepted"


def test_seats_resign_in_seat_order_until_the_game_is_over_and_a_seat_already_out_is_skipped(users):
    game = new_game(users, engine="satori", seats=4)
    head = game.head_seq
    services.game_forfeit(game_id=game.pk, seats=[1], reason="withdrawn")
    game.refresh_from_db()
    assert not game.is_finished  # three players go on
    services.game_forfeit(game_id=game.pk, seats=[3, 1, 0, 2], reason="round deadline")
    resigns = [(p["seat"], p["reason"]) for kind, _, p in events_after(game, head) if p["type"] == "resign"]
    # seat 1 had left already; 0 and 2 resign in seat order and seat 3 is the last one standing
    assert resigns == [(1, "withdrawn"), (0, "round deadline"), (2, "round deadline")]
    game.refresh_from_db()
    assert game.is_finished and game.outcome["ranking"][0] == [3]
    assert game_verify(game=game).ok


def test_a_finished_game_is_left_alone(users):
    game = new_game(users)
    services.game_forfeit(game_id=game.pk, seats=[0], reason="round deadline")
    game.refresh_from_db()
    seq, outcome = game.head_seq, game.outcome
    again = services.game_forfeit(game_id=game.pk, seats=[1], reason="round deadline")
    assert (again.head_seq, again.outcome) == (seq, outcome)
    assert Event.objects.filter(game=game).count() == seq


@pytest.mark.parametrize(
    ("seats", "reason", "code"),
    [
        ([2], "round deadline", "bad_seat"),
        ([True], "round deadline", "bad_seat"),
        (["0"], "round deadline", "bad_seat"),
        ([0], "", "bad_forfeit_reason"),
        ([0], "x" * 101, "bad_forfeit_reason"),
        ([0], None, "bad_forfeit_reason"),
    ],
)
def test_bad_forfeits_are_refused(users, seats, reason, code):
    game = new_game(users)
    with pytest.raises(ServiceError) as refused:
        services.game_forfeit(game_id=game.pk, seats=seats, reason=reason)
    assert (refused.value.code, refused.value.status) == (code, 400)
    game.refresh_from_db()
    assert game.status == "running"


def test_an_open_or_unknown_game_is_refused(users):
    open_game = services.game_create(
        consent=True, engine_slug="nine-card", config={}, seats=[users[0], None], created_by=users[0]
    )
    with pytest.raises(ServiceError) as refused:
        services.game_forfeit(game_id=open_game.pk, seats=[0], reason="round deadline")
    assert (refused.value.code, refused.value.status) == ("game_not_started", 409)
    with pytest.raises(ServiceError) as refused:
        services.game_forfeit(game_id="00000000-0000-0000-0000-000000000000", seats=[0], reason="x")
    assert (refused.value.code, refused.value.status) == ("not_found", 404)
