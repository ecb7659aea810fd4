"""The league API in-process: every write checked for an organiser, a member, another user and an
anonymous visitor; reads are public; the flows and error shapes; the OpenAPI schema."""

from __future__ import annotations

import pytest
from django.db import transaction
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games.engines import all_engines
from league import services
from league.models import Challenge, Ladder

pytestmark = pytest.mark.django_db
ROLES = ("organiser", "member", "other", "anonymous")


@pytest.fixture
def world(make_user):
    """A club run by ``org``: ``mem`` and ``mem2`` on a Nine Card challenge ladder (mem2 on top),
    a challenge from mem to mem2, a decided challenge, ``req`` asking to join, a rating ladder."""
    org, mem, mem2, mem3, other, req = (make_user(n) for n in ("org", "mem", "mem2", "mem3", "other", "req"))
    club = services.club_create(name="Kifu Club", slug="kc", by=org)
    for user in (mem, mem2, mem3):
        services.membership_invite(club_id=club.pk, by=org, user=user)
        services.membership_join(club_id=club.pk, by=user)
    services.membership_join(club_id=club.pk, by=req)
    ladder = services.ladder_create(club_id=club.pk, by=org, engine="nine-card", settings={"rematch_cooldown_days": 0})
    rating = services.ladder_create(club_id=club.pk, by=org, engine="satori", kind="rating")
    for user in (mem2, mem3, mem):
        services.ladder_join(ladder_id=ladder.pk, by=user)
    decided = services.challenge_create(ladder_id=ladder.pk, by=mem3, defender=mem2)
    services.challenge_result_record(challenge_id=decided.pk, by=org, winner=mem2)
    challenge = services.challenge_create(ladder_id=ladder.pk, by=mem, defender=mem3)
    clients = {}
    for role, user in (("organiser", org), ("member", mem), ("other", other), ("defender", mem3), ("anonymous", None)):
        client = APIClient()
        if user is not None:
            client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
        clients[role] = client
    return {
        "clients": clients,
        "ladder": ladder.pk,
        "rating": rating.pk,
        "challenge": str(challenge.pk),
        "result_seq": Challenge.objects.get(pk=decided.pk).decided_seq,
    }


# (method, path template, body, expected status for organiser, member, other, anonymous)
WRITES = [
    ("patch", "/api/clubs/kc", {"description": "Tuesdays"}, (200, 403, 403, 401)),
    ("post", "/api/clubs/kc/members", {"username": "other"}, (201, 403, 403, 401)),
    ("post", "/api/clubs/kc/members/req/approve", {}, (200, 403, 403, 401)),
    ("patch", "/api/clubs/kc/members/mem", {"role": "organiser"}, (200, 403, 403, 401)),
    ("delete", "/api/clubs/kc/members/mem2", None, (204, 403, 403, 401)),
    ("post", "/api/clubs/kc/ladders", {"engine": "necropolis"}, (201, 403, 403, 401)),
    ("patch", "/api/ladders/{ladder}", {"settings": {"play_days": 5}}, (200, 403, 403, 401)),
    ("post", "/api/ladders/{ladder}/join", {}, (200, 409, 403, 401)),
    ("post", "/api/ladders/{ladder}/withdraw", {"username": "mem2"}, (204, 403, 403, 401)),
    ("post", "/api/ladders/{ladder}/challenges", {"defender": "mem2"}, (409, 409, 403, 401)),
    (
        "post",
        "/api/ladders/{ladder}/corrections",
        {"event": "{result_seq}", "changes": {"void": True}},
        (201, 403, 403, 401),
    ),
    ("post", "/api/ladders/{rating}/games", {"players": ["mem", "mem2"]}, (201, 201, 403, 401)),
    ("post", "/api/challenges/{challenge}/accept", {}, (403, 403, 403, 401)),
    ("post", "/api/challenges/{challenge}/decline", {}, (403, 403, 403, 401)),
    ("post", "/api/challenges/{challenge}/withdraw", {}, (403, 200, 403, 401)),
    ("post", "/api/challenges/{challenge}/result", {"winner": "mem"}, (200, 403, 403, 401)),
    ("patch", "/api/profile", {"display_name": "Me"}, (200, 200, 200, 401)),
]


def fill(value, world):
    if isinstance(value, str):
        text = value.format(**world)
        return int(text) if value.startswith("{") and text.isdigit() else text
    if isinstance(value, dict):
        return {key: fill(item, world) for key, item in value.items()}
    if isinstance(value, list):
        return [fill(item, world) for item in value]
    return value


@pytest.mark.parametrize("role", ROLES)
def test_write_permissions(world, role):
    """Each write from the same starting point: every request runs in a savepoint rolled back after."""
    client = world["clients"][role]
    for method, path, body, expected in WRITES:
        savepoint = transaction.savepoint()
        try:
            response = getattr(client, method)(fill(path, world), fill(body, world), format="json")
        finally:
            transaction.savepoint_rollback(savepoint)
        want = expected[ROLES.index(role)]
        assert response.status_code == want, (role, method, path, response.content)
        if want >= 400:
            error = response.json()
            assert set(error) >= {"code", "message"} and error["message"]
            if want == 401:
                assert error["code"] == "not_authenticated"
            if want == 403 and role == "other":
                assert error["code"] in {"not_organiser", "not_member", "not_defender", "not_challenger"}, error


READS = [
    "/api/clubs",
    "/api/clubs/kc",
    "/api/clubs/kc/members",
    "/api/clubs/kc/ladders",
    "/api/ladders/{ladder}",
    "/api/ladders/{ladder}/standings",
    "/api/ladders/{ladder}/events",
    "/api/ladders/{ladder}/challenges",
    "/api/ladders/{ladder}/verification",
    "/api/ladders/{ladder}/players/mem2/ratings",
    "/api/challenges/{challenge}",
    "/api/players/mem",
]


@pytest.mark.parametrize("role", ROLES)
def test_reads_are_public(world, role):
    client = world["clients"][role]
    for path in READS:
        response = client.get(fill(path, world))
        assert response.status_code == 200, (path, response.content)


def test_defender_accepts_over_the_api_and_the_game_is_theirs(world):
    defender, member = world["clients"]["defender"], world["clients"]["member"]
    response = defender.post(f"/api/challenges/{world['challenge']}/accept", format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "accepted" and body["game"] and body["play_by"]
    game = member.get(f"/api/games/{body['game']}").json()
    assert [seat["player"] for seat in game["seats"]] == ["mem3", "mem"] and game["status"] == "running"
    again = defender.post(f"/api/challenges/{world['challenge']}/accept", format="json")
    assert again.status_code == 409 and again.json()["code"] == "challenge_not_open"


def test_membership_flows_and_what_each_sees(world, make_user):
    clients = world["clients"]
    newcomer = make_user("newcomer")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=newcomer).key}")
    asked = client.post("/api/clubs/kc/join", format="json")
    assert asked.status_code == 200 and asked.json()["status"] == "requested"
    organiser_view = {m["username"]: m["status"] for m in clients["organiser"].get("/api/clubs/kc/members").json()}
    public_view = {m["username"] for m in clients["anonymous"].get("/api/clubs/kc/members").json()}
    own_view = {m["username"] for m in client.get("/api/clubs/kc/members").json()}
    assert organiser_view["newcomer"] == "requested" and organiser_view["req"] == "requested"
    assert "newcomer" not in public_view and "newcomer" in own_view and "req" not in own_view
    assert clients["organiser"].post("/api/clubs/kc/members/newcomer/approve").status_code == 200
    joined = client.post(f"/api/ladders/{world['ladder']}/join", format="json")
    assert joined.status_code == 200 and joined.json()["position"] == 4
    # Leaving the club leaves its ladders.
    assert client.delete("/api/clubs/kc/members/newcomer").status_code == 204
    positions = [e["username"] for e in clients["anonymous"].get(f"/api/ladders/{world['ladder']}/standings").json()]
    assert "newcomer" not in positions
    last = clients["organiser"].delete("/api/clubs/kc/members/org")
    assert last.status_code == 409 and last.json()["code"] == "last_organiser"


def many_player_game() -> str | None:
    """A game that two cannot play (none may be registered yet: then that case checks nothing new)."""
    return next((e.slug for e in all_engines() if e.min_seats > 2), None)


def test_bad_input_is_a_4xx_with_a_code(world):
    organiser = world["clients"]["organiser"]
    for method, path, body, code in (
        ("post", "/api/clubs/kc/ladders", {"engine": "nine-card", "settings": {"range": 2}}, "invalid_ladder_settings"),
        (
            "post",
            "/api/clubs/kc/ladders",
            {"engine": many_player_game() or "nine-card"},
            many_player_game() and "not_two_player" or "ladder_exists",
        ),
        ("post", "/api/clubs/kc/ladders", {"engine": "nine-card"}, "ladder_exists"),
        ("post", "/api/clubs/kc/ladders", {"engine": "chess"}, "unknown_game"),
        ("post", "/api/clubs/kc/ladders", {"engine": "kazekami-kyoko"}, "mature_not_supported"),
        ("post", "/api/clubs/kc/ladders", {"engine": "kazekami-kyoko", "kind": "rating"}, "mature_not_supported"),
        ("post", "/api/clubs", {"name": "Kifu Club", "slug": "kc"}, "club_exists"),
        ("patch", "/api/ladders/{ladder}", {"settings": {"on_challenger_win": "jump"}}, "invalid_ladder_settings"),
        ("post", "/api/ladders/{ladder}/challenges", {"defender": "nobody"}, "no_such_player"),
        ("post", "/api/ladders/{ladder}/corrections", {"event": 1, "changes": {"void": True}}, "not_correctable"),
        ("post", "/api/ladders/{ladder}/corrections", {"event": "x", "changes": {}}, "invalid"),
        (
            "post",
            "/api/matches",
            {"engine": "nine-card", "players": ["org", "mem"], "format": "best_of", "target": 0},
            "invalid_match",
        ),  # fmt: skip
        ("patch", "/api/profile", {"language": "xx"}, "bad_language"),
        ("get", "/api/ladders/999999", None, "not_found"),
        ("get", "/api/clubs/nope", None, "not_found"),
    ):
        response = getattr(organiser, method)(fill(path, world), body, format="json")
        assert 400 <= response.status_code < 500, (path, response.content)
        assert response.json()["code"] == code, (path, response.json())


def test_corrections_and_logs_speak_in_usernames(world):
    organiser = world["clients"]["organiser"]
    ladder = world["ladder"]
    corrected = organiser.post(
        f"/api/ladders/{ladder}/corrections",
        {"event": world["result_seq"], "changes": {"ranking": [["mem3"], ["mem2"]]}, "reason": "wrong sheet"},
        format="json",
    )
    assert corrected.status_code == 201, corrected.content
    event = corrected.json()
    assert event["kind"] == "correction" and set(event["names"].values()) == {"mem2", "mem3"}
    standings = [e["username"] for e in organiser.get(f"/api/ladders/{ladder}/standings").json()]
    assert standings[:2] == ["mem3", "mem2"]
    log = organiser.get(f"/api/ladders/{ladder}/events", {"after": world["result_seq"] - 1}).json()
    assert log[0]["seq"] == world["result_seq"] and log[-1]["kind"] == "correction"
    assert Ladder.objects.get(pk=ladder).head_seq == log[-1]["seq"]


def test_openapi_schema_documents_the_league(world):
    response = APIClient().get("/api/schema", {"format": "json"})
    assert response.status_code == 200
    paths = response.json()["paths"]
    for path in (
        "/api/clubs",
        "/api/clubs/{slug}/members/{username}/approve",
        "/api/ladders/{id}/standings",
        "/api/ladders/{id}/corrections",
        "/api/challenges/{id}/accept",
        "/api/matches/{id}",
    ):
        assert path in paths, sorted(p for p in paths if "ladder" in p or "club" in p)
        for operation in paths[path].values():
            assert operation.get("description") or operation.get("summary"), (path, operation)
