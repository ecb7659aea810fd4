"""Shared fixtures: the real stack as separate processes, and HTTP players.

The ``stack`` fixture runs gunicorn, a Celery worker and Celery beat against pytest-django's test
database (PostgreSQL) and a Redis database, as separate processes - exactly what deploy/ runs. The
tests talk to it over HTTP only, so nothing is wrapped in a test transaction there.
"""

from __future__ import annotations

import gc
import os
import sys
import uuid
import weakref

import pytest
import requests
from requests.adapters import HTTPAdapter
from urllib3.util import Retry

from kifu.devstack import Stack

from . import redis_claim
from .openapi_check import SchemaCheck, write_schema


@pytest.hookimpl(tryfirst=True)
def pytest_itemcollected(item):
    """Mark every test that uses the real stack ``stack``, so ``-m stack`` / ``-m "not stack"`` split a run.

    bin/test runs the two halves at once, as two pytest processes with their own test database and
    Redis database: the stack tests mostly wait on the stack's processes while the in-process tests
    use the CPU.
    """
    if "stack" in getattr(item, "fixturenames", ()) and not item.get_closest_marker("stack"):
        item.add_marker(pytest.mark.stack)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    """Run the real-stack tests after every in-process test (after pytest-django's own ordering).

    The stack commits through its own processes, and the event store's triggers refuse DELETE and
    TRUNCATE, so what a stack test stores stays in the test database for the rest of the session.
    In-process tests run in a rolled-back transaction and may assert on whole tables ("nothing was
    stored"); running them first keeps those assertions meaningful whatever the file order.
    """
    # A test marked ``stack`` that runs processes of its own (tests/robustness/test_redis_restart.py)
    # commits too, so it goes last as well.
    items.sort(key=lambda item: bool(item.get_closest_marker("stack")))


def pytest_terminal_summary(terminalreporter):
    if SchemaCheck.total:
        terminalreporter.write_line(f"openapi: {SchemaCheck.total} answers checked against the schema")


def pytest_sessionstart(session):
    """Claim ``REDIS_URL``'s database before collection: importing some test modules already writes
    to Redis (tests/robustness/test_fuzz_schema.py loads the schema through the WSGI app, and the
    throttle counts that request), so a claim made by the first fixture found the run's own keys
    and refused the database (tests/redis_claim.py)."""
    url = os.environ.get("REDIS_URL")
    if url:
        redis_claim.claim(url)


@pytest.fixture(scope="session", autouse=True)
def _redis_claimed():
    """Before any test writes to Redis, make ``REDIS_URL``'s database this run's if it is empty, so
    the stack tests may wipe it later (tests/redis_claim.py); a database with someone else's keys
    is left alone, and the stack tests refuse to run on it."""
    from django.conf import settings

    if settings.REDIS_URL:
        redis_claim.claim(settings.REDIS_URL)


@pytest.fixture(autouse=True)
def _language_of_the_settings():
    """Every test starts in the settings' language. A request through Django's test client leaves the
    language its LocaleMiddleware chose active in the thread, so without this a test that renders
    outside a request would speak whatever the previous test asked for."""
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _no_remembered_tokens():
    """Every test starts with no token remembered by the API's authentication (api/authentication.py):
    a test's tokens vanish with its rolled-back transaction, without the delete signal."""
    from api.authentication import forget_all

    forget_all()


def pytest_collection_finish(session):
    """Freeze what collection loaded (Django, the test modules, the engines' tables) out of the
    cyclic garbage collector's reach: a full collection otherwise walks all of it again, and the
    engine tests allocate enough (Twenty-Two lists up to 2,048 moves) to trigger hundreds - it was
    some 40% of test_every_config's CPU time. Objects made by the tests are collected as before."""
    gc.collect()
    gc.freeze()


@pytest.fixture(scope="session")
def api_schema_file(tmp_path_factory):
    """The OpenAPI schema file as ``manage.py spectacular`` writes it (what a client is generated from)."""
    return write_schema(tmp_path_factory.mktemp("openapi") / "kifu.json")


@pytest.fixture(scope="session")
def schema_check(api_schema_file) -> SchemaCheck:
    """Checks an answer against the schema (tests/openapi_check.py); every ``Player`` uses it."""
    return SchemaCheck.from_file(api_schema_file)


@pytest.fixture(scope="session")
def stack(django_db_setup, django_db_blocker, tmp_path_factory, schema_check):
    from django.conf import settings
    from django.db import connection

    if connection.vendor != "postgresql" or not settings.REDIS_URL:
        raise RuntimeError("the stack tests need DATABASE_URL (PostgreSQL) and REDIS_URL: run bin/test")
    redis_claim.wipe(settings.REDIS_URL)  # only a database a test run claimed (tests/redis_claim.py)
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute("SELECT current_database()")  # the test database pytest-django made
        (name,) = cursor.fetchone()
    db = connection.settings_dict
    database_url = f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{name}"
    assert name.startswith("test_"), f"refusing to run the stack against a non-test database {name!r}"
    logdir = tmp_path_factory.mktemp("stack")
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": settings.REDIS_URL,
        "KIFU_QUEUE": settings.CELERY_TASK_DEFAULT_QUEUE,
        "KIFU_SUBMISSION_REQUEUE_SECONDS": "2",
        "PYTHONUNBUFFERED": "1",
    }
    stack = Stack(env, logdir, f"kifu-test-{uuid.uuid4().hex[:8]}@%h")
    Player.check = schema_check
    try:
        stack.start()
        yield stack
    except BaseException:
        print(stack.logs(), file=sys.stderr)
        raise
    finally:
        Player.check = None
        stack.stop()


class Player:
    """An API client with its own account and token. While the stack runs, every answer it gets
    (streams aside) is checked against the OpenAPI schema (``check``: tests/openapi_check.py)."""

    check: SchemaCheck | None = None

    # Every player of the session by name, so that a game one of them creates can be accepted by
    # the others it seats (issue 15 part 6: a seat named for someone else is an invitation).
    by_name: weakref.WeakValueDictionary[str, Player] = weakref.WeakValueDictionary()

    def __init__(self, base_url: str, name: str | None = None) -> None:
        self.base_url = base_url
        self.name = name or f"p{uuid.uuid4().hex[:10]}"
        self.http = requests.Session()
        # gunicorn closes a keep-alive connection after 2 s idle; a GET sent on it at that instant is
        # reset. A browser retries such a read; so does this client (reads only: a POST is not
        # resent, its idempotency key is the tests' business).
        retry = Retry(total=2, connect=2, read=2, status=0, allowed_methods={"GET", "HEAD"}, raise_on_status=False)
        self.http.mount("http://", HTTPAdapter(max_retries=retry))
        self.http.hooks["response"].append(self._check)
        response = self.http.post(f"{base_url}/api/accounts", json={"username": self.name, "password": "a-long-pass-1"})
        assert response.status_code == 201, response.text
        self.http.headers["Authorization"] = f"Token {response.json()['token']}"
        Player.by_name[self.name] = self

    @staticmethod
    def _check(response, *args, stream: bool = False, **kwargs):
        if Player.check is not None and not stream:  # a stream is read as it comes (tests/live)
            Player.check(response)

    def get(self, path: str, **params):
        return self.http.get(f"{self.base_url}{path}", params=params, timeout=30)

    def post(self, path: str, body: dict | None = None, **params):
        return self.http.post(f"{self.base_url}{path}", json=body or {}, params=params, timeout=30)

    def create_game(self, engine: str, seats: list, config: dict | None = None, **settings) -> dict:
        """Create a game and have every other player it seats accept it (``accept_all``)."""
        body = {"engine": engine, "seats": seats, "config": config or {}, **settings}
        response = self.post("/api/games", body)
        assert response.status_code == 201, response.text
        return self.accept_all(response.json())

    def accept_all(self, game: dict) -> dict:
        """The invitees of ``game`` (players of this session) accept their seats; the game after."""
        for seat in game["seats"]:
            invitee = Player.by_name.get(seat["player"] or "")
            if invitee is not None and not seat["accepted"]:
                response = invitee.post(f"/api/games/{game['id']}/accept")
                assert response.status_code == 200, response.text
                game = response.json()
        return game

    def move(self, game_id: str, move: dict, key: str | None = None, wait: float = 10):
        body = {"move": move, "idempotency_key": key or uuid.uuid4().hex}
        return self.post(f"/api/games/{game_id}/moves", body, wait=wait)


@pytest.fixture
def players(stack):
    def make(count: int) -> list[Player]:
        return [Player(stack.base_url) for _ in range(count)]

    return make
