"""Issue 15: an import cannot poison reads; limits, throttles, log-in back-off and the secret key.

Each test here failed on the code before the fix (see the README's "Bad input" and "The real
stack" sections for what each refusal means).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from unittest import mock

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from rest_framework.test import APIClient

from games.models import Game

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def account(name: str) -> APIClient:
    client = APIClient()
    response = client.post("/api/accounts", {"username": name, "password": "a-long-pass-1"}, format="json")
    assert response.status_code == 201, response.json()
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    return client


def record(meta: dict | None = None) -> str:
    header = {"kifu": 1, "game": "nine-card", "rules_version": "1", "config": {}, "seats": ["a", "b"]}
    if meta is not None:
        header["meta"] = meta
    return json.dumps(header) + "\n"


def refused(response, status: int, code: str) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:300])
    body = response.json()
    assert body["code"] == code and body["message"], body
    return body


# ---- 1. a record import cannot poison reads -------------------------------------------------
BAD_META = [
    ({"spectator_delay_seconds": "abc"}, "bad_spectator_delay"),
    ({"spectator_delay_seconds": 10**9}, "bad_spectator_delay"),
    ({"time_control": {"bank_seconds": 60}}, "bad_time_control"),  # increment_seconds missing
    ({"time_control": "fast"}, "bad_time_control"),
    ({"time_control": {"per_move_seconds": 30, "on_timeout": "explode"}}, "bad_time_control"),
    ({"clock": {"x": 1}}, "unknown_meta_key"),
    ({"notes": ["not", "text"]}, "bad_meta"),
]


@pytest.mark.parametrize("meta, code", BAD_META)
def test_an_import_with_bad_meta_is_refused_and_stores_nothing(meta, code):
    oya = account("oya")
    body = refused(oya.post("/api/records", {"record": record(meta)}, format="json"), 400, code)
    assert body["line"] == 1
    assert Game.objects.count() == 0
    assert APIClient().get("/api/games").status_code == 200


@pytest.mark.parametrize("meta, code", BAD_META[:3])
def test_kifu_import_refuses_bad_meta_with_the_same_code(tmp_path, capsys, meta, code):
    path = tmp_path / "game.kifu.jsonl"
    path.write_text(record(meta))
    with pytest.raises(SystemExit):
        call_command("kifu", "import", str(path))
    assert capsys.readouterr().err.startswith(f"line 1: {code}: ")
    assert Game.objects.count() == 0


def test_good_meta_is_imported_normalised_as_game_creation_would():
    oya = account("oya")
    meta = {
        "event": "club night",
        "date": "2026-11-24",
        "place": "Kyoto",
        "notes": "a friendly game",
        "kifu_game_id": "0f7d",
        "time_control": {"per_move_seconds": 30},
        "spectator_delay_seconds": 0,
        "clock_state": {"junk": True},  # server bookkeeping: dropped, never imported
    }
    response = oya.post("/api/records", {"record": record(meta)}, format="json")
    assert response.status_code == 201, response.json()
    stored = Game.objects.get().meta
    assert stored == {
        "event": "club night",
        "date": "2026-11-24",
        "place": "Kyoto",
        "notes": "a friendly game",
        "kifu_game_id": "0f7d",
        "time_control": {"per_move_seconds": 30, "on_timeout": "loss"},
    }


@pytest.mark.parametrize(
    "meta",
    [
        {"spectator_delay_seconds": "abc"},
        {"time_control": {"bank_seconds": 60}},
        {"time_control": {"bank_seconds": 60, "increment_seconds": 0}, "clock_state": {"mark": "never"}},
        {"time_control": {"per_move_seconds": "soon"}},
    ],
)
def test_a_game_already_stored_with_bad_meta_does_not_break_the_list(meta):
    oya = account("oya")
    assert oya.post("/api/records", {"record": record()}, format="json").status_code == 201
    game = Game.objects.get()
    Game.objects.filter(pk=game.pk).update(meta=meta)  # an older import, or a hand edit
    for client in (APIClient(), oya):
        response = client.get("/api/games")
        assert response.status_code == 200, response.content[:300]
        (shown,) = response.json()["results"]
        assert shown["clock"] is None or shown["clock"]["seats"] == []
        assert client.get(f"/api/games/{game.pk}").status_code == 200
    out = json.loads(call_export(game.pk).splitlines()[0])["meta"]
    assert "spectator_delay_seconds" not in out and out.get("time_control", {}).get("per_move_seconds") != "soon"


def call_export(game_id) -> str:
    from games.record_io import record_export

    return record_export(game=Game.objects.get(pk=game_id))


@pytest.mark.parametrize("params", [{"limit": "0"}, {"limit": "-1"}, {"limit": "abc"}, {"offset": "-5"}])
def test_a_limit_below_one_or_not_a_number_is_a_400(params):
    refused(APIClient().get("/api/games", params), 400, "bad_parameter")


def test_the_schema_says_limit_is_at_least_1_and_offset_at_least_0():
    schema = APIClient().get("/api/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    parameters = {p["name"]: p["schema"] for p in schema["paths"]["/api/games"]["get"]["parameters"]}
    assert parameters["limit"]["minimum"] == 1 and parameters["offset"]["minimum"] == 0


def test_a_limit_above_the_cap_is_capped():
    oya = account("oya")
    assert oya.post("/api/records", {"record": record()}, format="json").status_code == 201
    response = APIClient().get("/api/games", {"limit": "5000"})
    assert response.status_code == 200 and len(response.json()["results"]) == 1


# ---- 4. the real stack does not start with a public secret key ---------------------------------
def manage_check(tmp_path, **variables) -> subprocess.CompletedProcess:
    environ = {key: value for key, value in os.environ.items() if not key.startswith(("KIFU_", "DATABASE_", "REDIS_"))}
    environ.update(variables, KIFU_VAR_DIR=str(tmp_path))
    return subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=environ, capture_output=True, text=True, timeout=120
    )


REAL = "postgres://postgres@127.0.0.1:5432/kifu"


@pytest.mark.parametrize(
    "key",
    [None, "", "kifu-embedded-insecure-key-set-KIFU_SECRET_KEY-in-production", "change-me-to-a-long-random-string"],
)
def test_the_real_stack_refuses_to_start_without_its_own_secret_key(tmp_path, key):
    variables = {"DATABASE_URL": REAL} if key is None else {"DATABASE_URL": REAL, "KIFU_SECRET_KEY": key}
    result = manage_check(tmp_path, **variables)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("Kifu cannot start"), result.stderr
    assert "\n  KIFU_SECRET_KEY " in result.stderr and len(result.stderr.strip().splitlines()) == 2


def test_the_real_stack_starts_with_a_secret_key_and_debugging_does_without(tmp_path):
    assert manage_check(tmp_path, DATABASE_URL=REAL, KIFU_SECRET_KEY="a-real-secret-" * 4).returncode == 0
    assert manage_check(tmp_path, DATABASE_URL=REAL, KIFU_DEBUG="1").returncode == 0


def test_embedded_mode_keeps_a_generated_key_per_install(tmp_path):
    from kifu.env import Env

    first = Env({}).secret_key("KIFU_SECRET_KEY", required=False, keep_in=tmp_path / "secret_key")
    again = Env({}).secret_key("KIFU_SECRET_KEY", required=False, keep_in=tmp_path / "secret_key")
    other = Env({}).secret_key("KIFU_SECRET_KEY", required=False, keep_in=tmp_path / "other" / "secret_key")
    assert first == again != other and len(first) >= 50
    assert (tmp_path / "secret_key").stat().st_mode & 0o777 == 0o600
    assert manage_check(tmp_path).returncode == 0 and (tmp_path / "secret_key").read_text().strip() == first


# ---- 3. throttles that count every request, by an address the client cannot choose ---------------
TINY = {"anon": "3/minute", "user": "1000/minute", "login": "3/minute"}


@pytest.fixture
def tiny_rates():
    """Small rates, a private local-memory cache and a stopped throttle clock (DRF binds
    THROTTLE_RATES at import, so the class attribute is patched; see tests/live/test_throttling.py)."""
    from django.core.cache import cache
    from django.test import override_settings
    from rest_framework.throttling import SimpleRateThrottle

    from kifu.http import throttles

    locmem = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "hardening"}}
    with (
        override_settings(CACHES=locmem),
        mock.patch.object(SimpleRateThrottle, "THROTTLE_RATES", TINY),
        mock.patch.object(throttles, "_now", lambda: 1_000_020.0),  # mid-window: no window ends mid-test
    ):
        cache.clear()
        yield
        cache.clear()


def test_a_rotating_x_forwarded_for_does_not_buy_new_guesses(tiny_rates):
    visitor = APIClient()
    answers = [visitor.get("/api/engines", HTTP_X_FORWARDED_FOR=f"203.0.113.{n}").status_code for n in range(1, 6)]
    assert answers == [200, 200, 200, 429, 429]


def test_with_one_trusted_proxy_the_address_it_saw_is_the_identity(tiny_rates):
    from django.conf import settings
    from django.test import override_settings

    with override_settings(REST_FRAMEWORK={**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}):
        visitor = APIClient()
        # The client's own part of the header (before the proxy's entry) changes nothing.
        spoofed = [
            visitor.get("/api/engines", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}, 203.0.113.7").status_code
            for n in range(4)
        ]
        assert spoofed == [200, 200, 200, 429]
        assert visitor.get("/api/engines", HTTP_X_FORWARDED_FOR="203.0.113.8").status_code == 200  # another client


def test_the_login_endpoint_is_throttled_per_address(tiny_rates):
    get_user_model().objects.create_user(username="aki", password="a-long-pass-1")
    client = APIClient()
    for n in range(3):
        body = {"username": f"nobody{n}", "password": "guess"}
        assert client.post("/api/token", body, format="json", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}").status_code == 401
    right = client.post("/api/token", {"username": "aki", "password": "a-long-pass-1"}, format="json")
    body = refused(right, 429, "throttled")
    assert int(right["Retry-After"]) >= 1 and "token" not in body


def test_failed_logins_lock_the_account_for_a_growing_while(tiny_rates, settings):
    from kifu.http import throttles

    settings.KIFU_LOGIN_FAILURES, settings.KIFU_LOGIN_BACKOFF_SECONDS = 3, 30
    get_user_model().objects.create_user(username="aki", password="a-long-pass-1")
    now = [1_000_000.0]

    def attempt(password: str, address: int):
        client = APIClient(REMOTE_ADDR=f"10.1.0.{address}")  # a new address each time: the account is what counts
        return client.post("/api/token", {"username": "aki", "password": password}, format="json")

    with mock.patch.object(throttles, "_now", lambda: now[0]):
        assert [attempt("wrong", n).status_code for n in range(3)] == [401, 401, 401]
        locked = attempt("a-long-pass-1", 10)  # the right password does not get through either
        refused(locked, 429, "login_locked")
        assert 29 <= int(locked["Retry-After"]) <= 31
        now[0] += 31
        refused(attempt("wrong", 11), 401, "bad_credentials")  # the lock is over; one more failure...
        again = attempt("a-long-pass-1", 12)
        refused(again, 429, "login_locked")
        assert 59 <= int(again["Retry-After"]) <= 61  # ... doubles it
        now[0] += 61
        assert attempt("a-long-pass-1", 13).status_code == 200  # success forgets the failures
        assert attempt("wrong", 14).status_code == 401 and attempt("a-long-pass-1", 15).status_code == 200


def test_the_web_login_form_is_throttled_and_backs_off_too(tiny_rates, settings):
    from django.test import Client

    settings.KIFU_LOGIN_FAILURES = 2
    get_user_model().objects.create_user(username="erin", password="a-long-pass-1")
    wrong = [
        Client(REMOTE_ADDR=f"10.2.0.{n}").post("/accounts/login/", {"username": "erin", "password": "x"})
        for n in range(2)
    ]
    assert [response.status_code for response in wrong] == [200, 200]
    locked = Client(REMOTE_ADDR="10.2.0.9").post("/accounts/login/", {"username": "erin", "password": "a-long-pass-1"})
    assert locked.status_code == 429 and int(locked["Retry-After"]) >= 1 and "login-refused" in locked.content.decode()
    client = Client(REMOTE_ADDR="10.3.0.1")
    answers = [client.post("/accounts/login/", {"username": f"u{n}", "password": "x"}).status_code for n in range(4)]
    assert answers == [200, 200, 200, 429]


def test_a_burst_at_a_windows_edge_does_not_double_the_rate(tiny_rates):
    from kifu.http.throttles import window_hit

    name, start = f"edge-{uuid.uuid4().hex}", 6_000_000.0  # a minute window starts here
    assert [window_hit(name, 60, 3, now=start + 59.5) for _ in range(3)] == [None, None, None]
    wait = window_hit(name, 60, 3, now=start + 60.5)  # the next window: the last one still weighs
    assert wait is not None and 0 < wait <= 60
    assert window_hit(name, 60, 3, now=start + 60.5 + wait + 0.01) is None  # ... until it has faded
    assert window_hit(f"{name}-b", 60, 3, now=start + 1) is None  # other counters are their own


def test_a_burst_at_a_windows_edge_on_the_real_cache_too():
    """The same sliding window through the Redis script (the real cache when REDIS_URL is set)."""
    from kifu.http.throttles import window_hit

    name, start = f"edge-real-{uuid.uuid4().hex}", float(int(time.time() // 60) * 60)  # keys live 2 min
    assert [window_hit(name, 60, 3, now=start + 59.5) for _ in range(3)] == [None, None, None]
    wait = window_hit(name, 60, 3, now=start + 60.5)
    assert wait is not None and 0 < wait <= 60
    assert window_hit(name, 60, 3, now=start + 60.5 + wait + 0.01) is None
    assert window_hit(f"{name}-b", 60, 3, now=start + 1) is None


def test_the_redis_cache_keeps_one_client_per_pool():
    """kifu.cache.RedisCache: the same redis.Redis for every call (Django's makes one per call)."""
    from django.conf import settings
    from django.core.cache import cache

    if not settings.REDIS_URL:
        pytest.skip("the Redis cache is the real stack's (REDIS_URL)")
    backend = cache._cache
    assert backend.get_client("a") is backend.get_client("b") is backend.get_client("c", write=True)
    key = f"kept-{uuid.uuid4().hex}"
    cache.set(key, {"x": 1}, 30)
    assert cache.get_many([key, f"{key}-none"]) == {key: {"x": 1}}
    assert cache.add(f"{key}-n", 1) and cache.incr(f"{key}-n") == 2


def test_the_counter_is_atomic_under_concurrent_requests():
    """8 threads at once on the real cache (Redis when REDIS_URL is set): exactly the rate gets through."""
    from concurrent.futures import ThreadPoolExecutor

    from rest_framework.request import Request
    from rest_framework.settings import api_settings
    from rest_framework.test import APIRequestFactory
    from rest_framework.throttling import SimpleRateThrottle

    anon = next(cls for cls in api_settings.DEFAULT_THROTTLE_CLASSES if cls.scope == "anon")
    address = f"10.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}"
    factory = APIRequestFactory()

    def one(_):
        from django.contrib.auth.models import AnonymousUser

        request = Request(factory.get("/api/engines", REMOTE_ADDR=address))
        request.user = AnonymousUser()
        return anon().allow_request(request, None)

    with mock.patch.object(SimpleRateThrottle, "THROTTLE_RATES", {**TINY, "anon": "100/hour"}):
        with ThreadPoolExecutor(8) as pool:
            allowed = sum(pool.map(one, range(400)))
    assert allowed == 100


# ---- 2. Redis down: 503 service_unavailable with Retry-After, never 500 -------------------------
def test_with_the_throttles_redis_down_requests_answer_503_with_retry_after():
    from django.core.cache import cache
    from django.test import override_settings

    from kifu.devstack import free_port

    dead = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",  # nothing listens there
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
    with override_settings(CACHES=dead):
        for response in (
            APIClient().get("/api/engines"),
            APIClient().post("/api/token", {"username": "a", "password": "b"}, format="json"),
        ):
            body = refused(response, 503, "service_unavailable")
            assert int(response["Retry-After"]) >= 1 and set(body) == {"code", "message"}
        page = APIClient().post("/accounts/login/", {"username": "a", "password": "b"})
        assert page.status_code == 503 and int(page["Retry-After"]) >= 1
        cache.close()


def test_a_task_that_cannot_be_queued_is_a_503_not_a_500():
    """A broker that is down when a commit queues a task (kombu's OperationalError) or a Redis
    call that fails mid-request: the API's error handler answers 503 with Retry-After."""
    from kombu.exceptions import OperationalError
    from redis.exceptions import ConnectionError, TimeoutError
    from rest_framework.test import APIRequestFactory

    from kifu.http.errors import exception_handler

    request = APIRequestFactory().post("/api/games/x/moves")
    for error in (OperationalError("Error 111 connecting"), ConnectionError("down"), TimeoutError("slow")):
        response = exception_handler(error, {"request": request})
        assert response is not None and response.status_code == 503
        assert response.data["code"] == "service_unavailable" and int(response["Retry-After"]) >= 1


def test_a_database_that_is_down_is_a_503_not_a_500():
    """PostgreSQL restarting (Django's OperationalError / InterfaceError): the API's handler and the
    move-receipt middleware, which queries before any view runs, answer 503 with Retry-After."""
    from django.db import InterfaceError, OperationalError
    from rest_framework.test import APIRequestFactory

    from kifu.http.errors import exception_handler

    request = APIRequestFactory().post("/api/games/x/moves")
    for error in (OperationalError("the database system is shutting down"), InterfaceError("connection closed")):
        response = exception_handler(error, {"request": request})
        assert response is not None and response.status_code == 503
        assert response.data["code"] == "service_unavailable" and int(response["Retry-After"]) >= 1
    down = OperationalError("FATAL:  the database system is shutting down")
    with mock.patch("games.receipts.gate_enter", side_effect=down):
        response = account("dbdown").post(f"/api/games/{uuid.uuid4()}/moves", {"move": {}}, format="json")
    refused(response, 503, "service_unavailable")
    assert int(response["Retry-After"]) >= 1


def test_a_channel_whose_broker_connection_closed_raises_a_connection_error():
    """kombu 5.7 restores unacked messages and acks through a channel whose connection is gone; the
    AttributeError that gave hung the worker ("Unrecoverable error"). A connection error is what
    kombu ignores on a dead channel (kifu/celery.py)."""
    from kombu.transport import redis as kombu_redis
    from redis.exceptions import ConnectionError

    import kifu.celery  # noqa: F401 (applies the workaround)

    channel = object.__new__(kombu_redis.Channel)
    channel.connection = None
    with pytest.raises(ConnectionError):
        channel._connparams()
    assert kombu_redis.Transport.connection_errors and ConnectionError in kombu_redis.Transport.connection_errors


def test_the_worker_never_gives_up_on_the_broker():
    """Celery's default gives up after 100 reconnection tries (0 would mean none): a long Redis
    outage would end the worker for good. None retries forever."""
    from kifu.celery import app

    assert app.conf.broker_connection_retry is True and app.conf.broker_connection_max_retries is None
    options = app.conf.broker_transport_options
    assert options["socket_keepalive"] and options["retry_on_timeout"] and options["health_check_interval"] > 0
    assert app.conf.task_publish_retry_policy["max_retries"] <= 3  # a request does not hang on a dead broker


@pytest.mark.parametrize(
    "meta",
    [
        {"spectator_delay_seconds": "abc"},
        {"time_control": {"bank_seconds": 60}},
        {"time_control": {"per_move_seconds": "soon"}},
    ],
)
def test_a_game_stored_with_bad_meta_still_answers_every_game_endpoint(meta):
    """The per-game reads (state, events, legal moves, verification, replay page) read settings
    through selectors.readable_meta too: a bad stored setting is skipped, never a 500."""
    oya = account("oya")
    assert oya.post("/api/records", {"record": record()}, format="json").status_code == 201
    game = Game.objects.get()
    Game.objects.filter(pk=game.pk).update(meta=meta)
    for client in (APIClient(), oya):
        for path in ("state", "events", "legal-moves", "verification"):
            response = client.get(f"/api/games/{game.pk}/{path}")
            assert response.status_code < 500, (path, response.content[:300])
        assert client.get(f"/games/{game.pk}/replay").status_code < 500
