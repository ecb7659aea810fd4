"""The spectator delay in-process, with a fake clock: who is held back, what they see, and when a
finished game becomes public. The real-stack stream test is test_spectator_delay_stack.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from games import selectors, services
from games.engines import get_engine
from games.errors import ServiceError
from games.models import Game

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
DELAY = 60


class FakeClock:
    def __init__(self, monkeypatch) -> None:
        self.now = T0
        monkeypatch.setattr(timezone, "now", lambda: self.now)

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch):
    return FakeClock(monkeypatch)


def client(user=None) -> APIClient:
    api = APIClient()
    if user is not None:
        api.force_authenticate(user)
    return api


@pytest.fixture
def table(clock):
    make = get_user_model().objects.create_user
    organiser, oya, ko, fan = make("organiser"), make("oya"), make("ko"), make("fan")
    staff = make("staff", is_staff=True)
    # The organiser sets the table up for an event without a seat (a tournament does): an event's
    # organiser moderates its games and sees them live (issue 15 part 6).
    game = services.game_create(
        engine_slug="nine-card",
        config={},
        seats=[oya, ko],
        created_by=organiser,
        consent=True,
        spectator_delay_seconds=DELAY,
    )
    return game, {"organiser": organiser, "oya": oya, "ko": ko, "fan": fan, "staff": staff}


def play_trick(game: Game, people: dict, key: str) -> None:
    for seat, name in enumerate(("oya", "ko")):
        move = selectors.legal_moves(game=Game.objects.get(pk=game.pk), seat=seat)[0]
        services.move_submit(game_id=game.pk, user=people[name], move=move, idempotency_key=f"{key}{seat}")
    services.game_advance(game_id=game.pk)


@pytest.mark.parametrize("value", [-1, 3601, "10", 1.5, True])
def test_a_bad_delay_is_refused(value):
    user = get_user_model().objects.create_user("oya")
    response = client(user).post(
        "/api/games", {"engine": "nine-card", "seats": ["oya", None], "spectator_delay_seconds": value}, format="json"
    )
    assert (response.status_code, response.json()["code"]) == (400, "bad_spectator_delay")
    assert "0 to 3600" in response.json()["message"] and not Game.objects.exists()


def test_who_is_held_back(table):
    game, people = table
    game.refresh_from_db()
    assert game.meta["spectator_delay_seconds"] == DELAY and game.head_seq >= 1  # dealt
    for name in ("oya", "ko", "organiser", "staff"):
        sight = selectors.game_sight(game=game, user=people[name])
        assert not sight.delayed and sight.seq == game.head_seq, name
    for user in (people["fan"], None):
        sight = selectors.game_sight(game=game, user=user)
        assert sight.delayed and sight.seq == 0 and not sight.public


def test_a_spectator_sees_only_what_is_older_than_the_delay(table, clock):
    game, people = table
    game.refresh_from_db()
    dealt = game.head_seq
    fan, anonymous, oya = client(people["fan"]), client(), client(people["oya"])
    base = f"/api/games/{game.pk}"
    assert fan.get(f"{base}/events").json() == [] and anonymous.get(f"{base}/events").json() == []
    state = fan.get(f"{base}/state").json()
    assert state["head_seq"] == 0 and state["actors"] == [] and state["legal_moves"] == []
    assert fan.get(base).json()["head_seq"] == 0
    assert [e["seq"] for e in oya.get(f"{base}/events").json()] == list(range(1, dealt + 1))  # live

    clock.advance(DELAY + 1)
    seen = fan.get(f"{base}/events").json()
    assert [e["seq"] for e in seen] == list(range(1, dealt + 1))
    engine = get_engine("nine-card")
    live = selectors.events_for(game=game, seat=None, moderator=True)  # a live spectator's redaction
    assert [(e["seq"], e["data"]) for e in seen] == [(e["seq"], e["data"]) for e in live]
    hidden = engine.hidden_from(engine.load_state(game.state), None)
    assert hidden and not any(f'"{card}"' in str(seen) for card in hidden)

    play_trick(game, people, "t1")  # at 61 s
    game.refresh_from_db()
    assert game.head_seq > dealt
    clock.advance(DELAY - 1)  # 120 s: the trick is 59 s old
    assert [e["seq"] for e in fan.get(f"{base}/events").json()] == list(range(1, dealt + 1))
    state = fan.get(f"{base}/state").json()
    assert state["head_seq"] == dealt and state["actors"] == [0, 1]
    assert state["view"] == engine.view(selectors.game_replay(game=game, upto=dealt).state, None)
    assert fan.get(f"{base}/legal-moves").json()["head_seq"] == dealt
    assert oya.get(f"{base}/state").json()["head_seq"] == game.head_seq
    clock.advance(2)
    assert fan.get(f"{base}/events").json()[-1]["seq"] == game.head_seq
    for event in fan.get(f"{base}/events").json():
        assert datetime.fromisoformat(event["created_at"].replace("Z", "+00:00")) <= clock.now - timedelta(
            seconds=DELAY
        )


def test_a_finished_game_is_public_only_once_its_end_is_older_than_the_delay(table, clock):
    game, people = table
    clock.advance(5)
    services.move_submit(game_id=game.pk, user=people["ko"], move={"type": "resign"}, idempotency_key="r")
    services.game_advance(game_id=game.pk)
    game.refresh_from_db()
    assert game.is_finished
    fan, oya = client(people["fan"]), client(people["oya"])
    base = f"/api/games/{game.pk}"
    clock.advance(DELAY - 1)
    detail = fan.get(base).json()
    assert detail["status"] == "running" and detail["outcome"] is None and detail["seed"] is None
    assert detail["head_hash"] is None and detail["finished_at"] is None
    assert all("hash" not in event for event in fan.get(f"{base}/events").json())
    for path in ("record", "verification"):
        response = fan.get(f"{base}/{path}")
        assert (response.status_code, response.json()["code"]) == (409, "spectator_delay"), path
    assert oya.get(base).json()["status"] == "finished" and oya.get(f"{base}/record").status_code == 200
    clock.advance(2)
    detail = fan.get(base).json()
    assert detail["status"] == "finished" and detail["seed"] == game.seed and detail["outcome"] == game.outcome
    assert all("hash" in event for event in fan.get(f"{base}/events").json())
    assert fan.get(f"{base}/record").status_code == 200


def test_a_tournament_sets_the_delay_on_a_game_it_created(clock):
    make = get_user_model().objects.create_user
    oya, ko = make("oya"), make("ko")
    game = services.game_create(consent=True, engine_slug="nine-card", config={}, seats=[oya, ko], created_by=None)
    assert selectors.game_sight(game=game, user=None).seq == game.head_seq  # no delay: live
    services.game_spectator_delay_set(game_id=game.pk, seconds=30)
    game.refresh_from_db()
    assert selectors.game_sight(game=game, user=None).delayed
    with pytest.raises(ServiceError) as error:
        services.game_spectator_delay_set(game_id=game.pk, seconds=3601)
    assert error.value.code == "bad_spectator_delay"
    services.game_spectator_delay_set(game_id=game.pk, seconds=0)
    game.refresh_from_db()
    assert "spectator_delay_seconds" not in game.meta and not selectors.game_sight(game=game, user=None).delayed


def test_a_spectator_sees_the_clock_of_the_delayed_moment(clock):
    make = get_user_model().objects.create_user
    oya, ko, fan = make("oya"), make("ko"), make("fan")
    game = services.game_create(
        consent=True,
        engine_slug="nine-card",
        config={},
        seats=[oya, ko],
        created_by=oya,
        time_control={"bank_seconds": 100, "increment_seconds": 5},
        spectator_delay_seconds=DELAY,
    )
    clock.advance(30)
    move = selectors.legal_moves(game=game, seat=0)[0]
    services.move_submit(game_id=game.pk, user=oya, move=move, idempotency_key="a")
    services.game_advance(game_id=game.pk)
    game.refresh_from_db()
    clock.advance(40)  # 70 s: the spectator sees the game as it was at 10 s, before oya's move
    seats = client(fan).get(f"/api/games/{game.pk}/state").json()["clock"]["seats"]
    assert seats == [{"seat": s, "remaining_ms": 90000, "running": True} for s in (0, 1)]
    window = client(fan).get(f"/api/games/{game.pk}").json()["window"]
    assert window["id"] == f"clock-{game.head_seq - 1}" and window["deadline_at"].startswith("2026-01-01T12:01:40")
    seats = client(oya).get(f"/api/games/{game.pk}/state").json()["clock"]["seats"]
    assert seats == [
        {"seat": 0, "remaining_ms": 75000, "running": False},  # 100 - 30 + 5
        {"seat": 1, "remaining_ms": 30000, "running": True},
    ]


def test_a_cached_replay_is_the_replay(table, clock):
    from django.core.cache import cache

    game, people = table
    clock.advance(DELAY + 1)
    play_trick(game, people, "t1")
    game.refresh_from_db()
    clock.advance(DELAY + 1)
    sight = selectors.game_sight(game=game, user=None)
    assert sight.delayed and sight.seq == game.head_seq  # everything is old enough; the game still runs
    cache.delete(selectors._replay_key(game, sight.seq))
    fresh = selectors.sight_replay(game=game, sight=sight)
    assert cache.get(selectors._replay_key(game, sight.seq)) is not None
    cached = selectors.sight_replay(game=game, sight=sight)
    engine = get_engine("nine-card")
    assert engine.dump_state(cached.state) == engine.dump_state(fresh.state) == game.state
    assert (cached.seq, cached.at, cached.bank) == (fresh.seq, fresh.at, fresh.bank)
