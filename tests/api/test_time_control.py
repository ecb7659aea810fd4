"""Time controls: validation, the Fischer bank's arithmetic with a fake clock, correspondence and
what a timeout does (loss, pass, default move). In-process: the services run in the test thread."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from games import clocks, selectors, services
from games.models import Game
from games.record_io import record_export

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


# ---- the bank, pure ---------------------------------------------------------------------------
def test_a_running_seat_is_charged_and_the_mover_gets_the_increment():
    bank = clocks.Bank.start({"bank_seconds": 10}, 2, at(0), running=[0])
    assert bank.deadline() == at(10) and bank.at(at(4)) == [6000, 10000]
    bank = bank.step(boundary=at(4), mover=0, running=[1], increment_ms=2000)
    assert bank == clocks.Bank((8000, 10000), at(4), (1,))
    bank = bank.step(boundary=at(7.5), mover=1, running=[0], increment_ms=2000)
    assert bank.remaining_ms == (8000, 8500) and bank.deadline() == at(15.5)


def test_simultaneous_seats_run_together_and_only_the_empty_bank_is_out():
    bank = clocks.Bank((3000, 5000), at(0), (0, 1))
    assert bank.deadline() == at(3) and bank.out_of_time(at(2.9)) == [] and bank.out_of_time(at(3)) == [0]
    # seat 0 commits; seat 1 still has to, and its time keeps running
    bank = bank.step(boundary=at(1), mover=0, running=[1], increment_ms=0)
    assert bank.remaining_ms == (2000, 4000) and bank.at(at(3)) == [2000, 2000]


def test_a_late_recorded_timeout_charges_only_up_to_the_deadline():
    bank = clocks.Bank((2000, 9000), at(0), (0, 1))
    # the sweeper records the timeout 5 s after seat 0's bank ran out: seat 1 pays 2 s, not 7
    after = bank.step(boundary=at(7), mover=None, running=[1], increment_ms=1000)
    assert after.remaining_ms == (0, 7000) and after.mark == at(7)


def test_a_receipt_older_than_the_mark_charges_nothing_and_the_mark_never_goes_back():
    bank = clocks.Bank((5000, 5000), at(10), (1,))
    after = bank.step(boundary=at(9), mover=1, running=[0], increment_ms=1000)
    assert after.remaining_ms == (5000, 6000) and after.mark == at(10)


def test_an_engine_window_pauses_every_bank():
    bank = clocks.Bank((5000, 5000), at(0), ())  # running empty: a katsu window is open
    assert bank.deadline() is None and bank.at(at(100)) == [5000, 5000]
    assert bank.step(boundary=at(100), mover=None, running=[0], increment_ms=0).remaining_ms == (5000, 5000)


def test_the_bank_survives_its_json_projection():
    bank = clocks.Bank((1234, 0, 99), at(3.25), (0, 2))
    assert clocks.Bank.from_json(bank.to_json()) == bank


# ---- validation, pure -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "raw,normalised",
    [
        ({"per_move_seconds": 30}, {"per_move_seconds": 30, "on_timeout": "loss"}),
        (
            {"bank_seconds": 2, "increment_seconds": 0},
            {"bank_seconds": 2, "increment_seconds": 0, "on_timeout": "loss"},
        ),
        ({"bank_seconds": 300, "increment_seconds": 5, "on_timeout": "loss"}, None),
        ({"days_per_move": 3}, {"days_per_move": 3, "on_timeout": "loss"}),
        ({"days_per_move": 60, "on_timeout": "default_move"}, None),
    ],
)
def test_good_time_controls(raw, normalised):
    assert clocks.parse_time_control(raw, "nine-card") == (normalised or raw)


@pytest.mark.parametrize(
    "raw",
    [
        {"days_per_move": 0},
        {"days_per_move": 61},
        {"days_per_move": 1.5},
        {"days_per_move": True},
        {"days_per_move": "2"},
        {"days_per_move": 2, "per_move_seconds": 30},
        {"bank_seconds": 300},
        {"bank_seconds": 0, "increment_seconds": 5},
        {"bank_seconds": 300, "increment_seconds": -1},
        {"bank_seconds": 300, "increment_seconds": 3601},
        {"bank_seconds": 86401, "increment_seconds": 0},
        {"per_move_seconds": 30, "on_timeout": "draw"},
        {"on_timeout": "loss"},
    ],
)
def test_bad_time_controls(raw):
    with pytest.raises(clocks.TimeControlError):
        clocks.parse_time_control(raw, "nine-card")


def test_pass_is_refused_for_a_game_without_a_pass():
    with pytest.raises(clocks.TimeControlError, match="mekuri-hinmin"):
        clocks.parse_time_control({"per_move_seconds": 5, "on_timeout": "pass"}, "nine-card")
    with pytest.raises(clocks.TimeControlError, match="not available for believers"):
        clocks.parse_time_control({"days_per_move": 1, "on_timeout": "default_move"}, "believers")
    assert clocks.parse_time_control({"per_move_seconds": 5, "on_timeout": "pass"}, "mekuri-hinmin")


def test_the_timeout_move_follows_the_engines_preference_or_resigns():
    legal = [{"type": "propose_tie"}, {"type": "play", "cards": ["3H"]}, {"type": "pass_and_draw"}]
    assert clocks.timeout_move("mekuri-hinmin", "pass", legal) == {"type": "pass_and_draw"}
    assert clocks.timeout_move("mekuri-hinmin", "pass", [{"type": "play", "cards": ["3H"]}]) is None
    assert clocks.timeout_move("nine-card", "loss", [{"type": "commit_card", "card": "2S"}]) is None


# ---- in process, with a fake clock ------------------------------------------------------------
class FakeClock:
    def __init__(self, monkeypatch) -> None:
        self.now = T0
        monkeypatch.setattr(timezone, "now", lambda: self.now)  # services, selectors and created_at

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def fake_clock(monkeypatch):
    return FakeClock(monkeypatch)


def make_user(name: str):
    return get_user_model().objects.create_user(username=name)


def submit(game, user, seat: int, key: str, *, pick: int = 0):
    move = selectors.legal_moves(game=Game.objects.get(pk=game.pk), seat=seat)[pick]
    services.move_submit(game_id=game.pk, user=user, move=move, idempotency_key=key)


def bank_of(game) -> tuple[int, ...]:
    game.refresh_from_db()
    return tuple(game.meta["clock_state"]["remaining_ms"])


@pytest.mark.django_db
def test_a_bank_game_charges_receipt_times_and_matches_the_log(fake_clock):
    oya, ko = make_user("oya"), make_user("ko")
    game = services.game_create(
        consent=True,
        engine_slug="nine-card",
        config={},
        seats=[oya, ko],
        created_by=oya,
        time_control={"bank_seconds": 10, "increment_seconds": 2},
    )
    game.refresh_from_db()
    # Nine Card without commit_seconds: both commit at once, so both banks run from the deal.
    assert game.actors == [0, 1] and game.deadline_at == at(10) and game.window.startswith("clock-")
    fake_clock.advance(3)
    submit(game, oya, 0, "a")
    services.game_advance(game_id=game.pk)
    assert bank_of(game) == (9000, 7000)  # both paid 3 s; oya +2 s for the move; ko still runs
    assert game.deadline_at == at(10)  # ko's bank: 7 s left at 3 s
    fake_clock.advance(2)
    submit(game, ko, 1, "b")  # received at 5 s ...
    fake_clock.advance(4)
    services.game_advance(game_id=game.pk)  # ... applied at 9 s: ko pays up to the receipt only
    assert bank_of(game) == (9000, 7000)  # ko: 7 - 2 + 2; oya did not run while only ko had to act
    # The next trick started at ko's receipt (5 s): both run again, and the clock says so.
    clock = selectors.clock_for(game=game)
    assert clock["kind"] == "bank" and not clock["paused"]
    assert clock["seats"] == [
        {"seat": 0, "remaining_ms": 5000, "running": True},
        {"seat": 1, "remaining_ms": 3000, "running": True},
    ]
    # The projection is what the event log and the receipts derive.
    replay = selectors.game_replay(game=game, upto=game.head_seq)
    assert replay.bank.to_json() == game.meta["clock_state"]
    # ko lets the bank run out (at 5 + 7 = 12 s) while oya answers in time.
    fake_clock.advance(1)
    submit(game, oya, 0, "c")
    services.game_advance(game_id=game.pk)
    fake_clock.advance(10)
    assert services.deadlines_sweep() == 1
    game.refresh_from_db()
    assert game.is_finished and game.outcome["ranking"] == [[0], [1]]
    last = game.events.order_by("-seq").first()
    assert (last.kind, last.payload) == ("system", {"type": "resign", "seat": 1, "reason": "timeout"})
    assert tuple(game.meta["clock_state"]["remaining_ms"]) == (6000, 0)  # oya: 9 - 5 (from 5 s to 10 s) + 2
    assert selectors.game_replay(game=game, upto=game.head_seq).bank.to_json() == game.meta["clock_state"]
    assert selectors.clock_for(game=game)["seats"][1] == {"seat": 1, "remaining_ms": 0, "running": False}
    # The bank projection is working state, not part of the record; the time control is.
    header = json.loads(record_export(game=game).splitlines()[0])
    assert header["meta"]["time_control"] == {"bank_seconds": 10, "increment_seconds": 2, "on_timeout": "loss"}
    assert "clock_state" not in header["meta"]


@pytest.mark.django_db
def test_an_engine_window_pauses_the_bank(fake_clock):
    oya, ko = make_user("oya"), make_user("ko")
    game = services.game_create(
        consent=True,
        engine_slug="nine-card",
        config={"commit_seconds": 60},
        seats=[oya, ko],
        created_by=oya,
        time_control={"bank_seconds": 5, "increment_seconds": 0},
    )
    fake_clock.advance(30)
    game.refresh_from_db()
    assert game.window == "turn-1" and bank_of(game) == (5000, 5000)
    clock = selectors.clock_for(game=game)
    assert clock["paused"] and all(not s["running"] and s["remaining_ms"] == 5000 for s in clock["seats"])


@pytest.mark.django_db
def test_a_correspondence_clock_gives_days_and_sets_no_eta_timer(fake_clock, monkeypatch):
    from games import tasks

    oya, ko = make_user("oya"), make_user("ko")
    game = services.game_create(
        consent=True,
        engine_slug="nine-card",
        config={},
        seats=[oya, ko],
        created_by=oya,
        time_control={"days_per_move": 2},
    )
    game.refresh_from_db()
    assert game.deadline_at - game.window_opened_at == timedelta(days=2)
    queued = []
    monkeypatch.setattr(tasks.window_close_task, "apply_async", lambda *a, **k: queued.append(k))
    monkeypatch.setattr(tasks.settings, "EMBEDDED", False)
    tasks.schedule_window_close(game.pk, game.window, game.deadline_at)
    assert queued == []  # beat's sweep closes it; no worker holds a two-day ETA task
    tasks.schedule_window_close(game.pk, game.window, timezone.now() + timedelta(seconds=30))
    assert len(queued) == 1
    clock = selectors.clock_for(game=game)
    assert clock["kind"] == "correspondence" and clock["seats"][0]["remaining_ms"] == 2 * 86400 * 1000
    fake_clock.advance(2 * 86400 + 1)
    services.deadlines_sweep()
    game.refresh_from_db()
    assert game.is_finished  # both seats were to act: the lower seat resigned first


@pytest.mark.django_db
def test_on_timeout_default_move_plays_the_lowest_card_instead_of_resigning(fake_clock):
    oya, ko = make_user("oya"), make_user("ko")
    game = services.game_create(
        consent=True,
        engine_slug="nine-card",
        config={},
        seats=[oya, ko],
        created_by=oya,
        time_control={"per_move_seconds": 5, "on_timeout": "default_move"},
    )
    lowest = {seat: selectors.legal_moves(game=game, seat=seat)[0] for seat in (0, 1)}
    before = game.head_seq
    fake_clock.advance(6)
    services.deadlines_sweep()
    game.refresh_from_db()
    assert not game.is_finished
    moves = list(game.events.filter(seq__gt=before, kind="move").order_by("seq"))
    assert [(m.seat, m.payload) for m in moves] == [
        (0, {**lowest[0], "reason": "timeout"}),
        (1, {**lowest[1], "reason": "timeout"}),
    ]
    assert game.window == f"clock-{game.head_seq}"  # the next trick has a fresh clock


@pytest.mark.django_db
def test_on_timeout_pass_passes_in_mekuri_hinmin_or_resigns_when_no_pass_is_legal(fake_clock):
    oya, ko = make_user("oya"), make_user("ko")
    game = services.game_create(
        consent=True,
        engine_slug="mekuri-hinmin",
        config={},
        seats=[oya, ko],
        created_by=oya,
        time_control={"per_move_seconds": 5, "on_timeout": "pass"},
    )
    for _ in range(60):  # let the clock play for both seats until a pass (or the fallback resign) comes
        game.refresh_from_db()
        if game.is_finished:
            break
        fake_clock.advance(6)
        services.deadlines_sweep()
    events = list(game.events.order_by("seq"))
    timeouts = [e for e in events if e.payload.get("reason") == "timeout"]
    assert timeouts, "the clock never ran out"
    for event in timeouts:
        if event.kind == "move":
            assert event.payload["type"] in ("end_pass", "pass_and_draw", "reject_tie")
        else:
            assert event.payload["type"] == "resign"
    game.refresh_from_db()
    assert game.is_finished and timeouts[-1].payload["type"] == "resign"


# ---- the API ------------------------------------------------------------------------------------
@pytest.mark.django_db
@pytest.mark.parametrize(
    "body,fragment",
    [
        ({"engine": "nine-card", "time_control": {"days_per_move": 0}}, "days_per_move"),
        ({"engine": "nine-card", "time_control": {"bank_seconds": 300}}, "increment_seconds"),
        ({"engine": "nine-card", "time_control": {"per_move_seconds": 9, "on_timeout": "pass"}}, "mekuri-hinmin"),
        ({"engine": "believers", "time_control": {"days_per_move": 1, "on_timeout": "default_move"}}, "believers"),
    ],
)
def test_the_api_refuses_bad_time_controls_with_what_is_allowed(body, fragment):
    user = make_user("oya")
    api = APIClient()
    api.force_authenticate(user)
    seats = ["oya", None, None] if body["engine"] == "believers" else ["oya", None]
    response = api.post("/api/games", {**body, "seats": seats}, format="json")
    assert (response.status_code, response.json()["code"]) == (400, "bad_time_control"), response.json()
    assert fragment in response.json()["message"] and not Game.objects.exists()


@pytest.mark.django_db
def test_the_game_and_its_state_show_the_clock(fake_clock):
    oya, ko = make_user("oya"), make_user("ko")
    api, invitee = APIClient(), APIClient()
    api.force_authenticate(oya)
    invitee.force_authenticate(ko)
    body = {
        "engine": "nine-card",
        "seats": ["oya", "ko"],
        "time_control": {"bank_seconds": 60, "increment_seconds": 5},
    }
    created = api.post("/api/games", body, format="json").json()
    assert created["meta"] == {"time_control": {**body["time_control"], "on_timeout": "loss"}}  # no bookkeeping
    assert created["clock"] is None  # ko's seat is an invitation: no clock runs until ko accepts
    assert invitee.post(f"/api/games/{created['id']}/accept", format="json").status_code == 200
    fake_clock.advance(1.5)
    for path in (f"/api/games/{created['id']}", f"/api/games/{created['id']}/state"):
        clock = api.get(path).json()["clock"]
        assert clock["kind"] == "bank" and clock["on_timeout"] == "loss"
        assert clock["seats"] == [{"seat": s, "remaining_ms": 58500, "running": True} for s in (0, 1)]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "engine,config,seed",
    [("turn-thief", {}, 1), ("turn-thief", {}, 2), ("nine-card", {}, 3), ("satori", {}, 4)],
)
def test_the_bank_projection_is_always_the_fold_over_the_log(fake_clock, engine, config, seed):
    """Random play with random thinking times, moves queued before a worker applies them, engine
    windows and timeouts: after every step the stored bank equals the one derived from the log."""
    import random

    rng = random.Random(seed)
    users = [make_user(f"p{i}") for i in range(4 if engine == "turn-thief" else 2)]
    game = services.game_create(
        consent=True,
        engine_slug=engine,
        config=config,
        seats=users,
        created_by=users[0],
        time_control={"bank_seconds": 8, "increment_seconds": 1, "on_timeout": "default_move"},
    )
    for step in range(80):
        game.refresh_from_db()
        if game.is_finished:
            break
        for seat in game.actors:
            moves = [m for m in selectors.legal_moves(game=game, seat=seat) if m["type"] != "katsu"]  # ends it
            if moves and rng.random() < 0.7:
                move = rng.choice(moves)
                services.move_submit(game_id=game.pk, user=users[seat], move=move, idempotency_key=f"{step}-{seat}")
            fake_clock.advance(rng.choice([0.2, 1.5, 4, 6]))
        if rng.random() < 0.8:
            services.game_advance(game_id=game.pk)
        services.deadlines_sweep()
        game.refresh_from_db()
        derived = selectors.game_replay(game=game, upto=game.head_seq).bank
        assert derived.to_json() == game.meta["clock_state"], step
        if game.window.startswith("clock-"):
            assert game.deadline_at == derived.deadline()
    assert game.events.filter(payload__reason="timeout").exists(), "no timeout happened: a weak run"
