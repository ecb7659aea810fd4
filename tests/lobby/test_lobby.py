"""The lobby (issue 19): seeks fill into one consented game, quick pairing fills multi-seat tables,
seeks expire and are cancelled when their creator leaves, rematches, and the site rating - through
the services and the API, with a stable code for every refusal."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from games import services as game_services
from games.errors import ServiceError
from games.models import Game, MatureConsent
from games.scheduler import run_periodic
from lobby import receivers, selectors, services, tasks
from lobby.models import LobbyGame, Seek, SeekSeat, SiteRating

pytestmark = pytest.mark.django_db


def user(name: str):
    return get_user_model().objects.create_user(username=name)


def api(account) -> APIClient:
    client = APIClient()
    client.force_authenticate(user=account)
    return client


def refused(response, status: int, code: str) -> None:
    body = response.json()
    assert (response.status_code, body["code"]) == (status, code), body
    assert body["message"]


def code_of(call, **kwargs) -> str:
    with pytest.raises(ServiceError) as error:
        call(**kwargs)
    return error.value.code


def resign(game: Game, account) -> None:
    game_services.move_submit(game_id=game.pk, user=account, move={"type": "resign"}, idempotency_key=uuid.uuid4().hex)
    game_services.game_advance(game_id=game.pk)


# ---- seeks --------------------------------------------------------------------------------------
def test_a_three_seat_seek_fills_into_one_running_game_with_every_seat_accepted():
    ann, ben, cid = user("ann"), user("ben"), user("cid")
    seek = services.seek_create(user=ann, engine_slug="satori", seats=3, rated=False)
    assert seek.status == Seek.Status.OPEN and seek.game is None
    assert services.seek_join(seek_id=seek.pk, user=ben).status == Seek.Status.OPEN
    seek = services.seek_join(seek_id=seek.pk, user=cid)
    seek.refresh_from_db()
    assert seek.status == Seek.Status.FILLED
    game = seek.game
    assert game.status == Game.Status.RUNNING and game.head_seq > 0  # dealt at once: no invitation waits
    seats = list(game.seats.all())
    assert sorted(s.user.username for s in seats) == ["ann", "ben", "cid"]
    assert all(s.accepted_at is not None for s in seats)
    assert game.created_by is None  # no player moderates a lobby game
    assert LobbyGame.objects.get(game=game).rated is False
    assert not SeekSeat.objects.filter(active=True).exists()
    assert selectors.open_seeks().count() == 0


def test_every_refusal_of_a_seek_has_its_own_code():
    ann, ben = user("ann"), user("ben")
    assert code_of(services.seek_create, user=ann, engine_slug="nine-card", seats=3) == "bad_seat_count"
    assert code_of(services.seek_create, user=ann, engine_slug="satori", seats=7) == "bad_seat_count"
    assert code_of(services.seek_create, user=ann, engine_slug="chess", seats=2) == "unknown_game"
    assert code_of(services.seek_create, user=ann, engine_slug="nine-card", seats=2, config={"x": 1}) in (
        "unknown_config_flag",
        "invalid_config",
    )
    assert code_of(services.seek_create, user=ann, engine_slug="nine-card", seats=2, time_control={"x": 1}) == (
        "bad_time_control"
    )
    kwargs = {"user": ann, "engine_slug": "nine-card", "seats": 2}
    assert code_of(services.seek_create, **kwargs, rating_min=10, rating_max=5) == "bad_rating_range"
    assert code_of(services.seek_create, **kwargs, expires_in_seconds=5) == "bad_expiry"
    assert code_of(services.seek_create, user=ann, engine_slug="kazekami-kyoko", seats=2) == "mature_consent_required"
    seek = services.seek_create(**kwargs)
    assert code_of(services.seek_create, **kwargs) == "already_seeking"
    assert code_of(services.seek_join, seek_id=seek.pk, user=ann) == "already_seated"
    assert code_of(services.seek_leave, seek_id=seek.pk, user=ben) == "not_in_seek"
    assert code_of(services.seek_join, seek_id=uuid.uuid4(), user=ben) == "not_found"
    other = services.seek_create(user=ben, engine_slug="satori", seats=3)
    assert code_of(services.seek_join, seek_id=seek.pk, user=ben) == "already_seeking"
    services.seek_leave(seek_id=other.pk, user=ben)
    services.seek_join(seek_id=seek.pk, user=ben)
    assert code_of(services.seek_join, seek_id=seek.pk, user=user("cid")) == "seek_full"
    assert code_of(services.seek_join, seek_id=other.pk, user=user("dan")) == "seek_cancelled"


def test_the_rating_range_admits_only_players_rated_inside_it():
    ann, ben, cid = user("ann"), user("ben"), user("cid")
    SiteRating.objects.create(user=cid, engine="nine-card", mu=40.0, sigma=2.0, games=30)  # ordinal 34
    seek = services.seek_create(user=ann, engine_slug="nine-card", seats=2, rating_min=-5, rating_max=10)
    assert code_of(services.seek_join, seek_id=seek.pk, user=cid) == "rating_out_of_range"
    services.seek_join(seek_id=seek.pk, user=ben)  # unrated: 0 is inside
    high = services.seek_create(user=user("dan"), engine_slug="nine-card", seats=2, rating_min=20)
    assert code_of(services.seek_join, seek_id=high.pk, user=user("eve")) == "rating_out_of_range"
    assert services.seek_join(seek_id=high.pk, user=cid).status == Seek.Status.FILLED


def test_the_creator_leaving_cancels_the_seek_and_tells_the_others(django_capture_on_commit_callbacks):
    ann, ben, cid = user("ann"), user("ben"), user("cid")
    seek = services.seek_create(user=ann, engine_slug="satori", seats=3)
    services.seek_join(seek_id=seek.pk, user=ben)
    services.seek_join(seek_id=services.seek_create(user=cid, engine_slug="satori", seats=4).pk, user=user("dan"))
    services.seek_leave(seek_id=Seek.objects.get(created_by=cid).pk, user=user_named("dan"))  # not the creator
    assert Seek.objects.get(created_by=cid).status == Seek.Status.OPEN
    with django_capture_on_commit_callbacks() as sent:
        services.seek_leave(seek_id=seek.pk, user=ann)
    seek.refresh_from_db()
    assert seek.status == Seek.Status.CANCELLED and seek.closed_at is not None
    assert not seek.entries.filter(active=True).exists()
    assert len(sent) == 1
    # ben may seek again at once
    services.seek_create(user=ben, engine_slug="nine-card", seats=2)


def user_named(name: str):
    return get_user_model().objects.get(username=name)


# ---- expiry -------------------------------------------------------------------------------------
def test_seeks_expire_by_the_sweep_and_refuse_joins_after_their_time():
    ann, ben = user("ann"), user("ben")
    now = timezone.now()
    seek = services.seek_create(user=ann, engine_slug="nine-card", seats=2, expires_in_seconds=60, now=now)
    assert services.seeks_expire(now=now + timedelta(seconds=59)) == 0
    assert code_of(services.seek_join, seek_id=seek.pk, user=ben, now=now + timedelta(seconds=61)) == "seek_expired"
    assert [s.pk for s in selectors.open_seeks()] == [seek.pk]  # until the clock passes it
    assert services.seeks_expire(now=now + timedelta(seconds=61)) == 1
    seek.refresh_from_db()
    assert seek.status == Seek.Status.EXPIRED
    assert code_of(services.seek_join, seek_id=seek.pk, user=ben) == "seek_expired"
    services.seek_create(user=ann, engine_slug="nine-card", seats=2)  # free to seek again


def test_a_seek_past_its_time_does_not_hold_its_player_until_the_sweep():
    ann = user("ann")
    now = timezone.now()
    old = services.seek_create(user=ann, engine_slug="nine-card", seats=2, expires_in_seconds=60, now=now)
    later = now + timedelta(seconds=61)
    assert code_of(services.seek_create, user=ann, engine_slug="satori", seats=3, now=now) == "already_seeking"
    fresh, joined = services.quick_pair(user=ann, engine_slug="satori", seats=3, now=later)
    old.refresh_from_db()
    assert not joined and old.status == Seek.Status.EXPIRED and fresh.status == Seek.Status.OPEN


@pytest.mark.parametrize("wired", [True, False])
def test_the_embedded_timer_thread_runs_the_expiry_sweep(wired, settings):
    """Embedded mode has no beat: the timer thread runs settings.KIFU_EMBEDDED_PERIODIC, which
    names the lobby's sweep, so a seek expires there too (and without it, nothing would)."""
    if not wired:
        settings.KIFU_EMBEDDED_PERIODIC = [p for p in settings.KIFU_EMBEDDED_PERIODIC if not p[0].startswith("lobby.")]
    seek = services.seek_create(user=user("ann"), engine_slug="nine-card", seats=2, expires_in_seconds=30)
    Seek.objects.filter(pk=seek.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    run_periodic({}, 1e9)
    seek.refresh_from_db()
    assert seek.status == (Seek.Status.EXPIRED if wired else Seek.Status.OPEN)


# ---- quick pairing ------------------------------------------------------------------------------
def test_quick_pairing_fills_the_fullest_compatible_table_first():
    players = [user(f"p{i}") for i in range(6)]
    first, joined = services.quick_pair(user=players[0], engine_slug="satori", seats=3)
    assert not joined and first.status == Seek.Status.OPEN
    # a different clock or rated-ness is another table
    casual, joined = services.quick_pair(user=players[1], engine_slug="satori", seats=3, rated=False)
    assert not joined and casual.pk != first.pk
    # an older seek with fewer players loses to the one nearer full
    older = services.seek_create(user=players[2], engine_slug="satori", seats=3)
    Seek.objects.filter(pk=older.pk).update(created_at=timezone.now() - timedelta(minutes=5))
    seek, joined = services.quick_pair(user=players[3], engine_slug="satori", seats=3)
    assert joined and seek.pk == older.pk  # both have one player: the older first
    seek, joined = services.quick_pair(user=players[4], engine_slug="satori", seats=3)
    assert joined and seek.pk == older.pk  # two of three: nearest to full
    seek.refresh_from_db()
    assert seek.status == Seek.Status.FILLED and seek.game.status == Game.Status.RUNNING
    seek, joined = services.quick_pair(user=players[5], engine_slug="satori", seats=3)
    assert joined and seek.pk == first.pk
    assert code_of(services.quick_pair, user=players[5], engine_slug="satori", seats=3) == "already_seeking"
    assert code_of(services.quick_pair, user=players[1], engine_slug="satori", seats=9) == "bad_seat_count"


def test_quick_pairing_skips_a_seek_whose_range_leaves_you_out():
    ann, ben = user("ann"), user("ben")
    ranged = services.seek_create(user=ann, engine_slug="nine-card", seats=2, rating_min=5)
    seek, joined = services.quick_pair(user=ben, engine_slug="nine-card", seats=2)
    assert not joined and seek.pk != ranged.pk


# ---- rematches ----------------------------------------------------------------------------------
def test_a_rematch_is_offered_to_the_same_players_and_starts_when_all_accept():
    ann, ben, cid = user("ann"), user("ben"), user("cid")
    seek = services.seek_create(user=ann, engine_slug="satori", seats=3, time_control={"per_move_seconds": 60})
    services.seek_join(seek_id=seek.pk, user=ben)
    services.seek_join(seek_id=seek.pk, user=cid)
    game = Seek.objects.get(pk=seek.pk).game
    assert code_of(services.rematch_offer, game_id=game.pk, user=ann) == "game_not_finished"
    assert code_of(services.rematch_offer, game_id=game.pk, user=user("eve")) == "not_seated"
    game_services.game_forfeit(game_id=game.pk, seats=[0, 1], reason="test")
    game.refresh_from_db()
    assert game.is_finished
    order = list(game.seats.order_by("index").values_list("user__username", flat=True))
    rematch, made = services.rematch_offer(game_id=game.pk, user=ann)
    assert made and rematch.status == Game.Status.OPEN
    assert list(rematch.seats.order_by("index").values_list("user__username", flat=True)) == order[1:] + order[:1]
    assert rematch.meta["time_control"] == game.meta["time_control"] and rematch.config == game.config
    assert LobbyGame.objects.get(game=rematch).rated is True  # the seek was rated
    # a second offer is an acceptance; the last acceptance starts it
    again, made = services.rematch_offer(game_id=game.pk, user=ben)
    assert not made and again.pk == rematch.pk and again.status == Game.Status.OPEN
    game_services.game_accept(game_id=rematch.pk, user=cid)
    rematch.refresh_from_db()
    assert rematch.status == Game.Status.RUNNING


def test_a_declined_rematch_stays_declined():
    ann, ben = user("ann"), user("ben")
    game = game_services.game_create(
        engine_slug="nine-card", config=None, seats=[ann, ben], created_by=ann, consent=True
    )
    game_services.game_forfeit(game_id=game.pk, seats=[1], reason="test")
    rematch, _ = services.rematch_offer(game_id=game.pk, user=ann)
    assert LobbyGame.objects.get(game=rematch).rated is False  # not a lobby game: casual
    game_services.game_decline(game_id=rematch.pk, user=ben)
    assert code_of(services.rematch_offer, game_id=game.pk, user=ben) == "rematch_declined"
    Game.objects.filter(pk=game.pk).update(source=Game.Source.IMPORTED)
    assert code_of(services.rematch_offer, game_id=game.pk, user=ben) == "not_a_server_game"


# ---- the site rating ----------------------------------------------------------------------------
def test_a_rated_lobby_game_moves_the_site_rating_once(monkeypatch, django_capture_on_commit_callbacks):
    ann, ben = user("ann"), user("ben")
    seek = services.seek_create(user=ann, engine_slug="nine-card", seats=2)
    services.seek_join(seek_id=seek.pk, user=ben)
    game = Seek.objects.get(pk=seek.pk).game
    queued: list[str] = []
    monkeypatch.setattr(tasks.lobby_game_rate_task, "delay", queued.append)
    with django_capture_on_commit_callbacks(execute=True):
        resign(game, ben)
    assert queued == [str(game.pk)]  # the game_finished receiver queued the rating
    assert services.lobby_game_rate(game_id=game.pk) is True
    assert services.lobby_game_rate(game_id=game.pk) is False  # once only
    winner, loser = SiteRating.objects.get(user=ann), SiteRating.objects.get(user=ben)
    assert winner.engine == loser.engine == "nine-card" and winner.games == loser.games == 1
    assert winner.ordinal > 0 > loser.ordinal  # both start at 0
    assert winner.sigma < 25 / 3 and loser.sigma < 25 / 3
    changes = LobbyGame.objects.get(game=game).changes
    assert changes[str(ann.pk)]["before"] == 0 and changes[str(ann.pk)]["after"] == round(winner.ordinal, 2)
    assert [r.engine for r in selectors.site_ratings(user=ann)] == ["nine-card"]


def test_a_casual_lobby_game_and_an_ordinary_game_rate_nobody(monkeypatch, django_capture_on_commit_callbacks):
    ann, ben = user("ann"), user("ben")
    seek = services.seek_create(user=ann, engine_slug="nine-card", seats=2, rated=False)
    services.seek_join(seek_id=seek.pk, user=ben)
    casual = Seek.objects.get(pk=seek.pk).game
    ordinary = game_services.game_create(
        engine_slug="nine-card", config=None, seats=[ann, ben], created_by=ann, consent=True
    )
    queued: list[str] = []
    monkeypatch.setattr(tasks.lobby_game_rate_task, "delay", queued.append)
    for game in (casual, ordinary):
        with django_capture_on_commit_callbacks(execute=True):
            resign(game, ben)
        assert services.lobby_game_rate(game_id=game.pk) is False
    assert queued == [] and not SiteRating.objects.exists()
    receivers.on_game_finished(sender=Game, game_id=uuid.uuid4())  # an unknown game: ignored
    assert queued == []


# ---- the API ------------------------------------------------------------------------------------
def test_the_api_seeks_joins_and_names_the_game():
    ann, ben = user("ann"), user("ben")
    created = api(ann).post(
        "/api/lobby/seeks",
        {"engine": "nine-card", "seats": 2, "time_control": {"per_move_seconds": 30}, "rating_max": 50},
        format="json",
    )
    assert created.status_code == 201, created.json()
    seek = created.json()
    assert (seek["taken"], seek["players"], seek["rated"], seek["status"]) == (1, ["ann"], True, "open")
    assert seek["time_control"]["per_move_seconds"] == 30
    listed = APIClient().get("/api/lobby/seeks", {"engine": "nine-card"}).json()
    assert [s["id"] for s in listed] == [seek["id"]]
    assert api(ann).get("/api/me/seek").json()["id"] == seek["id"]
    refused(api(ben).get("/api/me/seek"), 404, "not_found")
    joined = api(ben).post(f"/api/lobby/seeks/{seek['id']}/join")
    assert joined.status_code == 200, joined.json()
    assert joined.json()["status"] == "filled" and joined.json()["game"]
    game = api(ben).get(f"/api/games/{joined.json()['game']}").json()
    assert game["status"] == "running" and game["meta"]["time_control"]["per_move_seconds"] == 30
    refused(api(user("cid")).post(f"/api/lobby/seeks/{seek['id']}/join"), 409, "seek_full")
    refused(APIClient().post(f"/api/lobby/seeks/{seek['id']}/join"), 401, "not_authenticated")
    refused(api(ann).post(f"/api/lobby/seeks/{uuid.uuid4()}/join"), 404, "not_found")


def test_the_api_refusals_carry_stable_codes():
    ann = user("ann")
    client = api(ann)
    refused(client.post("/api/lobby/seeks", {"engine": "nine-card", "seats": 4}, format="json"), 400, "bad_seat_count")
    refused(client.post("/api/lobby/seeks", {"engine": "satori", "seats": 9}, format="json"), 400, "bad_seat_count")
    refused(client.post("/api/lobby/quick", {"engine": "nine-card", "seats": 3}, format="json"), 400, "bad_seat_count")
    body = {"engine": "nine-card", "seats": 2, "rating_min": 9, "rating_max": 1}
    refused(client.post("/api/lobby/seeks", body, format="json"), 400, "bad_rating_range")
    seek = client.post("/api/lobby/seeks", {"engine": "nine-card", "seats": 2}, format="json").json()
    refused(client.post("/api/lobby/seeks", {"engine": "nine-card", "seats": 2}, format="json"), 409, "already_seeking")
    refused(client.post(f"/api/lobby/seeks/{seek['id']}/join"), 409, "already_seated")
    refused(api(user("ben")).post(f"/api/lobby/seeks/{seek['id']}/leave"), 409, "not_in_seek")
    left = client.post(f"/api/lobby/seeks/{seek['id']}/leave")
    assert left.status_code == 200 and left.json()["status"] == "cancelled"


def test_the_api_quick_pairs_rematches_and_shows_ratings():
    ann, ben = user("ann"), user("ben")
    opened = api(ann).post("/api/lobby/quick", {"engine": "nine-card", "seats": 2}, format="json")
    assert opened.status_code == 201 and opened.json()["joined"] is False
    paired = api(ben).post("/api/lobby/quick", {"engine": "nine-card", "seats": 2}, format="json")
    assert paired.status_code == 200 and paired.json()["joined"] is True
    game_id = paired.json()["seek"]["game"]
    assert paired.json()["seek"]["id"] == opened.json()["seek"]["id"]
    refused(api(ann).post(f"/api/games/{game_id}/rematch"), 409, "game_not_finished")
    refused(api(user("cid")).post(f"/api/games/{game_id}/rematch"), 403, "not_seated")
    resign(Game.objects.get(pk=game_id), ben)
    services.lobby_game_rate(game_id=game_id)
    offered = api(ben).post(f"/api/games/{game_id}/rematch")
    assert offered.status_code == 201 and offered.json()["status"] == "open"
    invitations = api(ann).get("/api/me/invitations").json()
    assert [i["game"]["id"] for i in invitations["results"]] == [offered.json()["id"]]
    accepted = api(ann).post(f"/api/games/{game_id}/rematch")
    assert accepted.status_code == 200 and accepted.json()["status"] == "running"
    ratings = APIClient().get("/api/players/ann/ratings").json()
    assert [(r["engine"], r["games"]) for r in ratings] == [("nine-card", 1)] and ratings[0]["rating"] > 0
    refused(APIClient().get("/api/players/nobody/ratings"), 404, "not_found")


def test_mature_seeks_are_hidden_from_players_without_consent():
    ann, ben = user("ann"), user("ben")
    MatureConsent.objects.create(user=ann)
    seek = services.seek_create(user=ann, engine_slug="kazekami-kyoko", seats=2)
    assert [s["id"] for s in api(ann).get("/api/lobby/seeks").json()] == [str(seek.pk)]
    assert api(ben).get("/api/lobby/seeks").json() == []
    refused(api(ben).post(f"/api/lobby/seeks/{seek.pk}/join"), 404, "not_found")
    MatureConsent.objects.create(user=ben)
    assert api(ben).post(f"/api/lobby/seeks/{seek.pk}/join").json()["status"] == "filled"
    game = Seek.objects.get(pk=seek.pk).game
    assert game.status == Game.Status.RUNNING  # taking a seat in the seek was each player's answer


def test_the_open_seeks_list_costs_the_same_queries_for_one_table_or_twenty():
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = APIClient()

    def cost() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get("/api/lobby/seeks").status_code == 200
        return len(queries)

    services.seek_create(user=user("host0"), engine_slug="satori", seats=3)
    one = cost()
    for number in range(1, 20):
        seek = services.seek_create(user=user(f"host{number}"), engine_slug="satori", seats=3)
        services.seek_join(seek_id=seek.pk, user=user(f"guest{number}"))
    assert len(client.get("/api/lobby/seeks").json()) == 20
    assert cost() == one
