"""Query budgets of the game endpoints (issue 14: "game endpoints read a game in at most 2 queries").

Every GET of a game pays, in database queries:

- ``AUTH`` = 1 for a client with a token: ``api.authentication`` reads the token and its user in
  one statement (an anonymous client pays 0, and so does a token the process read a moment ago);
- ``GAME`` = 2 for the game itself (``games.selectors.game_get``): the game row, annotated with the
  viewer's mature consent and whether moderators ever decided on it, then its seats with their
  users and bot flags. The seat of the caller, whether they moderate, and ``game_sight`` of a game
  without a spectator delay are answered from those two;
- ``EVENTS`` = 1 more where events are read (the events endpoint).

A spectator of a game with a spectator delay pays for the delayed view on top (``DELAYED``), and a
game whose contributions a moderator hid pays for the redaction (``REDACTION``): both are counted
here too, so that neither grows unnoticed. The budgets are maxima (``django_assert_max_num_queries``).
"""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from games import accounts, services
from games.models import Game, MatureConsent

pytestmark = pytest.mark.django_db

AUTH = 1
GAME = 2
EVENTS = 1
DELAYED = 1  # the first event a delayed spectator may not see yet (the replay itself is cached)
REDACTION = 2  # the moderation decisions, and the hidden events' texts

ENDPOINTS = {"detail": "", "state": "/state", "events": "/events", "legal-moves": "/legal-moves"}
READS = {"detail": GAME, "state": GAME, "events": GAME + EVENTS, "legal-moves": GAME}


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # hashing is not under test


def account(name: str, *, bot: bool = False):
    user, token = accounts.account_create(username=name, password="a-long-pass-1", bot=bot)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return user, client


@pytest.fixture
def people():
    """A creator (seated, so also a moderator), a seated bot, a spectator and an anonymous client."""
    oya, oya_client = account("oya")
    ko, ko_client = account("ko", bot=True)
    mi, mi_client = account("mi")
    return {
        "users": {"oya": oya, "ko": ko, "mi": mi},
        "clients": {"seat": ko_client, "creator": oya_client, "spectator": mi_client, "anonymous": APIClient()},
    }


def viewer_auth(viewer: str) -> int:
    return 0 if viewer == "anonymous" else AUTH


def play(game: Game, moves: list[tuple]) -> Game:
    for user, move in moves:
        services.move_submit(game_id=game.pk, user=user, move=move, idempotency_key=uuid.uuid4().hex)
        services.game_advance(game_id=game.pk)
    return Game.objects.get(pk=game.pk)


def endpoint_path(game: Game, endpoint: str) -> str:
    return f"/api/games/{game.pk}{ENDPOINTS[endpoint]}"


@pytest.mark.parametrize("viewer", ["seat", "creator", "spectator", "anonymous"])
@pytest.mark.parametrize("endpoint", list(ENDPOINTS))
def test_a_running_game_is_read_within_budget(people, viewer, endpoint, django_assert_max_num_queries):
    users = people["users"]
    game = services.game_create(
        consent=True, engine_slug="nine-card", config={}, seats=[users["oya"], users["ko"]], created_by=users["oya"]
    )
    client = people["clients"][viewer]
    with django_assert_max_num_queries(viewer_auth(viewer) + READS[endpoint]):
        response = client.get(endpoint_path(game, endpoint))
    assert response.status_code == 200, response.json()
    if endpoint == "detail":
        seats = response.json()["seats"]
        assert [(s["player"], s["bot"]) for s in seats] == [("oya", False), ("ko", True)]
    if endpoint == "state":
        body = response.json()
        assert body["seat"] == {"seat": 1, "creator": 0}.get(viewer)
        assert (body["legal_moves"] != []) == (viewer in ("seat", "creator"))


@pytest.mark.parametrize("viewer", ["seat", "spectator", "anonymous"])
@pytest.mark.parametrize("endpoint", list(ENDPOINTS))
def test_a_game_with_a_bank_clock_is_read_within_budget(people, viewer, endpoint, django_assert_max_num_queries):
    users = people["users"]
    game = services.game_create(
        consent=True,
        engine_slug="nine-card",
        config={},
        seats=[users["oya"], users["ko"]],
        created_by=users["oya"],
        time_control={"bank_seconds": 600, "increment_seconds": 5},
    )
    with django_assert_max_num_queries(viewer_auth(viewer) + READS[endpoint]):
        response = people["clients"][viewer].get(endpoint_path(game, endpoint))
    assert response.status_code == 200, response.json()
    if endpoint in ("detail", "state"):
        assert len(response.json()["clock"]["seats"]) == 2


@pytest.mark.parametrize("viewer", ["seat", "spectator", "anonymous"])
@pytest.mark.parametrize("endpoint", list(ENDPOINTS))
def test_a_mature_game_is_read_within_budget(people, viewer, endpoint, django_assert_max_num_queries):
    users = people["users"]
    for user in users.values():
        services.mature_consent_confirm(user=user, adult=True, consent=True)
    game = services.game_create(
        consent=True,
        engine_slug="kazekami-kyoko",
        config={},
        seats=[users["oya"], users["ko"]],
        created_by=users["oya"],
    )
    services.game_accept(game_id=game.pk, user=users["ko"])
    client = people["clients"][viewer]
    with django_assert_max_num_queries(viewer_auth(viewer) + READS[endpoint]):
        response = client.get(endpoint_path(game, endpoint))
    if viewer == "anonymous":
        assert response.status_code == 404  # no consent, no game
    else:
        assert response.status_code == 200, response.json()


def test_a_mature_game_without_consent_is_a_404_in_one_query(people, django_assert_max_num_queries):
    users = people["users"]
    for user in (users["oya"], users["ko"]):
        services.mature_consent_confirm(user=user, adult=True, consent=True)
    game = services.game_create(
        consent=True,
        engine_slug="kazekami-kyoko",
        config={},
        seats=[users["oya"], users["ko"]],
        created_by=users["oya"],
    )
    assert not MatureConsent.objects.filter(user=users["mi"]).exists()
    for endpoint in ENDPOINTS:
        with django_assert_max_num_queries(AUTH + 1):
            response = people["clients"]["spectator"].get(endpoint_path(game, endpoint))
        assert (response.status_code, response.json()["code"]) == (404, "not_found")


@pytest.mark.parametrize("viewer", ["seat", "creator", "spectator", "anonymous"])
@pytest.mark.parametrize("endpoint", list(ENDPOINTS))
def test_a_delayed_game_is_read_within_budget(people, viewer, endpoint, django_assert_max_num_queries):
    """Seats and moderators see it live at the usual budget; spectators pay for the delayed view."""
    users = people["users"]
    game = services.game_create(
        consent=True,
        engine_slug="nine-card",
        config={},
        seats=[users["oya"], users["ko"]],
        created_by=users["oya"],
        spectator_delay_seconds=600,
    )
    client = people["clients"][viewer]
    client.get(endpoint_path(game, endpoint))  # the delayed replay is computed once, then cached
    delayed = DELAYED if viewer in ("spectator", "anonymous") else 0
    with django_assert_max_num_queries(viewer_auth(viewer) + READS[endpoint] + delayed):
        response = client.get(endpoint_path(game, endpoint))
    assert response.status_code == 200, response.json()
    if endpoint == "state":  # the deal is younger than the delay: a spectator sees the game before it
        assert response.json()["head_seq"] == (0 if delayed else game.head_seq) and game.head_seq > 0


@pytest.mark.parametrize("viewer", ["seat", "creator", "spectator", "anonymous"])
@pytest.mark.parametrize("endpoint", list(ENDPOINTS))
def test_a_storytelling_game_without_decisions_costs_nothing_for_moderation(
    people, viewer, endpoint, django_assert_max_num_queries
):
    users = people["users"]
    game = services.game_create(
        consent=True, engine_slug="believers", config={}, seats=[users["oya"], users["ko"]], created_by=users["oya"]
    )
    game = play(game, [(users["oya"], {"type": "contribute", "text": "We saw lights over the lake."})])
    with django_assert_max_num_queries(viewer_auth(viewer) + READS[endpoint]):
        response = people["clients"][viewer].get(endpoint_path(game, endpoint))
    assert response.status_code == 200, response.json()


@pytest.mark.parametrize("viewer", ["seat", "creator", "spectator", "anonymous"])
@pytest.mark.parametrize("endpoint", list(ENDPOINTS))
def test_a_moderated_game_pays_for_its_redaction_once(people, viewer, endpoint, django_assert_max_num_queries):
    """The decisions and the hidden texts are read once a request, however many parts redact."""
    users = people["users"]
    secret = "秘密の宇宙船は裏山に着陸した"
    game = services.game_create(
        consent=True, engine_slug="believers", config={}, seats=[users["oya"], users["ko"]], created_by=users["oya"]
    )
    game = play(game, [(users["oya"], {"type": "contribute", "text": secret})])
    hidden = people["clients"]["creator"].post(
        f"/api/games/{game.pk}/events/1/hide", {"reason": "a real place"}, format="json"
    )
    assert hidden.status_code == 201, hidden.json()
    moderator = viewer == "creator"
    redacts = not moderator and endpoint in ("state", "events")  # a running game's detail has no texts
    with django_assert_max_num_queries(viewer_auth(viewer) + READS[endpoint] + (REDACTION if redacts else 0)):
        response = people["clients"][viewer].get(endpoint_path(game, endpoint))
    assert response.status_code == 200, response.json()
    if not moderator:
        assert secret not in response.content.decode()
    elif endpoint in ("state", "events"):
        assert secret in response.content.decode()


def test_a_submission_is_read_within_budget(people, django_assert_max_num_queries):
    """The submission endpoint reads no game: the submission, and its verdict once more."""
    users = people["users"]
    game = services.game_create(
        consent=True, engine_slug="nine-card", config={}, seats=[users["oya"], users["ko"]], created_by=users["oya"]
    )
    result = services.move_submit(game_id=game.pk, user=users["ko"], move={"type": "resign"}, idempotency_key="k1")
    with django_assert_max_num_queries(AUTH + 2):
        response = people["clients"]["seat"].get(f"/api/games/{game.pk}/submissions/{result.submission.public_id}")
    assert response.status_code == 200, response.json()


@pytest.mark.parametrize("viewer", ["seat", "anonymous"])
def test_the_game_list_costs_the_same_for_one_game_or_many(people, viewer):
    """No query per game: the seats of the page come in one query, and so do a clock's seat count
    and the redaction of a storytelling game nobody moderated."""
    users = people["users"]
    client = people["clients"][viewer]

    def games(count: int) -> None:
        for _ in range(count):
            for engine in ("believers", "nine-card"):
                services.game_create(
                    consent=True,
                    engine_slug=engine,
                    config={},
                    seats=[users["oya"], users["ko"]],
                    created_by=users["oya"],
                    time_control={"bank_seconds": 600, "increment_seconds": 5},
                )

    def list_queries() -> int:
        with CaptureQueriesContext(connection) as queries:
            response = client.get("/api/games")
        assert response.status_code == 200, response.json()
        return len(queries)

    list_queries()  # a token is read once, then remembered for a moment (api/authentication.py)
    games(1)
    one = list_queries()
    games(4)
    assert list_queries() == one
