"""Nobody is seated without consent (issue 15 part 6): a seat named by someone else is an invitation
until its player accepts; a decline cancels the game; events, bots and the creator's own seat keep
their own consent; an unseated creator is no moderator of a game they do not play.

Each test here fails on the code before part 6, where every named seat was accepted at once.
"""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from games import accounts, moderation, selectors, services
from games.models import Event, Game, Submission
from league import services as league

pytestmark = pytest.mark.django_db

CLOCK = {"bank_seconds": 60, "increment_seconds": 0}


def user(name: str, **extra):
    return get_user_model().objects.create_user(username=name, **extra)


def api(account) -> APIClient:
    client = APIClient()
    client.force_authenticate(user=account)
    return client


def refused(response, status: int, code: str) -> None:
    assert (response.status_code, response.json()["code"]) == (status, code), response.json()
    assert response.json()["message"]


def submit(game_id, account, move: dict) -> Submission:
    """Submit and let a worker decide (what the Celery task does after commit)."""
    result = services.move_submit(game_id=game_id, user=account, move=move, idempotency_key=uuid.uuid4().hex)
    services.game_advance(game_id=game_id)
    result.submission.refresh_from_db()
    return result.submission


def test_a_stranger_cannot_start_a_clock_on_you():
    """The attack of the issue: a stranger seats you in a clocked game; before part 6 it was dealt
    and your clock ran at once, so doing nothing lost you the game on time."""
    mallory, victim = user("mallory"), user("victim")
    body = {"engine": "nine-card", "seats": ["mallory", "victim"], "time_control": CLOCK}
    created = api(mallory).post("/api/games", body, format="json")
    assert created.status_code == 201, created.json()
    game = created.json()
    assert game["status"] == "open" and [s["accepted"] for s in game["seats"]] == [True, False]
    assert game["clock"] is None and game["window"] is None and game["head_seq"] == 0
    assert not Event.objects.filter(game_id=game["id"]).exists()  # no deal
    stored = Game.objects.get(pk=game["id"])
    assert stored.state is None and stored.deadline_at is None and "clock_state" not in stored.meta
    assert services.deadlines_sweep() == 0  # nothing can time out
    assert [i["game"]["id"] for i in api(victim).get("/api/me/invitations").json()["results"]] == [game["id"]]
    early = submit(stored.pk, mallory, {"type": "resign"})
    assert (early.status, early.code) == ("rejected", "game_not_started")


def test_the_invitee_lists_accepts_and_only_then_the_game_starts():
    oya, ko, chie = user("oya"), user("ko"), user("chie")
    game = api(oya).post("/api/games", {"engine": "nine-card", "seats": ["oya", "ko"]}, format="json").json()
    listed = api(ko).get("/api/me/invitations").json()
    assert listed["count"] == 1
    (invitation,) = listed["results"]
    assert (invitation["seat"], invitation["invited_by"], invitation["game"]["id"]) == (1, "oya", game["id"])
    assert api(oya).get("/api/me/invitations").json()["count"] == 0  # the creator's own seat is accepted
    assert APIClient().get("/api/me/invitations").status_code == 401
    refused(api(chie).post(f"/api/games/{game['id']}/accept"), 403, "not_invited")
    refused(api(chie).post(f"/api/games/{game['id']}/decline"), 403, "not_invited")
    refused(api(oya).post(f"/api/games/{game['id']}/decline"), 409, "already_answered")
    started = api(ko).post(f"/api/games/{game['id']}/accept")
    assert started.status_code == 200 and started.json()["status"] == "running"
    assert Event.objects.filter(game_id=game["id"], kind="chance").exists()  # dealt on acceptance
    assert api(ko).get("/api/me/invitations").json()["count"] == 0
    refused(api(ko).post(f"/api/games/{game['id']}/accept"), 409, "game_not_open")
    refused(api(ko).post(f"/api/games/{game['id']}/decline"), 409, "already_answered")


def test_a_decline_cancels_the_game_for_good():
    aki, ben, chie = user("aki"), user("ben"), user("chie")
    body = {"engine": "satori", "seats": ["aki", "ben", "chie"], "time_control": CLOCK}
    game = api(aki).post("/api/games", body, format="json").json()
    assert api(ben).post(f"/api/games/{game['id']}/accept").json()["status"] == "open"  # chie still to answer
    declined = api(chie).post(f"/api/games/{game['id']}/decline")
    assert declined.status_code == 200, declined.json()
    assert declined.json()["status"] == "cancelled" and declined.json()["clock"] is None
    stored = Game.objects.get(pk=game["id"])
    assert stored.status == Game.Status.CANCELLED and stored.seats.get(index=2).declined_at is not None
    assert not Event.objects.filter(game=stored).exists()
    for who in (aki, ben, chie):
        refused(api(who).post(f"/api/games/{game['id']}/accept"), 409, "game_cancelled")
        refused(api(who).post(f"/api/games/{game['id']}/decline"), 409, "game_cancelled")
    refused(api(user("dan")).post(f"/api/games/{game['id']}/join"), 409, "game_not_open")
    late = submit(stored.pk, ben, {"type": "resign"})
    assert (late.status, late.code) == ("rejected", "game_cancelled")
    # Readers show the clear state, with nothing running.
    for client in (APIClient(), api(aki)):
        assert client.get(f"/api/games/{game['id']}").json()["status"] == "cancelled"
        state = client.get(f"/api/games/{game['id']}/state").json()
        assert state["status"] == "cancelled" and state["clock"] is None and state["legal_moves"] == []
    listed = APIClient().get("/api/games", {"status": "cancelled"}).json()["results"]
    assert [g["id"] for g in listed] == [game["id"]]
    assert api(chie).get("/api/me/invitations").json()["count"] == 0


def test_bot_accounts_and_event_pairings_keep_their_own_consent():
    owner = user("owner")
    robo, _token = accounts.account_create(username="robo", password="a-long-pass-1", bot=True)
    game = api(owner).post("/api/games", {"engine": "nine-card", "seats": ["owner", "robo"]}, format="json").json()
    assert game["status"] == "running" and [s["accepted"] for s in game["seats"]] == [True, True]

    organiser, m0, m1 = user("org"), user("m0"), user("m1")
    club = league.club_create(name="Go Club", slug="go-club", by=organiser)
    for member in (m0, m1):
        league.membership_invite(club_id=club.pk, by=organiser, user=member)
        league.membership_join(club_id=club.pk, by=member)
    ladder = league.ladder_create(club_id=club.pk, by=organiser, engine="nine-card", kind="rating")
    link = league.rated_game_create(ladder_id=ladder.pk, by=organiser, players=[m0, m1])
    paired = Game.objects.get(pk=link.game_id)
    assert paired.status == Game.Status.RUNNING and paired.organised  # joining the club's ladder was consent
    refused(api(m1).post(f"/api/games/{paired.pk}/decline"), 409, "already_answered")
    # The organiser set the pairing up without a seat and moderates it; the members see it live.
    assert moderation.is_moderator(game=paired, user=organiser)


def test_an_event_game_cannot_be_declined_even_where_each_player_accepts():
    """A mature game is accepted by each player even as an event's pairing; declining it is not the
    way out of the event (409 event_game), so the event never waits on a cancelled game."""
    org, aki, ben = user("org"), user("aki"), user("ben")
    for account in (org, aki, ben):
        services.mature_consent_confirm(user=account, adult=True, consent=True)
    game = services.game_create(engine_slug="kazekami-kyoko", config={}, seats=[aki, ben], created_by=org, consent=True)
    assert game.status == Game.Status.OPEN
    refused(api(aki).post(f"/api/games/{game.pk}/decline"), 409, "event_game")
    api(aki).post(f"/api/games/{game.pk}/accept")
    assert api(ben).post(f"/api/games/{game.pk}/accept").json()["status"] == "running"


def test_an_unseated_creator_is_no_moderator_and_sees_the_delay_like_any_spectator():
    org, aki, ben, staff = user("org"), user("aki"), user("ben"), user("staff", is_staff=True)
    body = {"engine": "believers", "seats": ["aki", "ben"], "spectator_delay_seconds": 600}
    game_id = api(org).post("/api/games", body, format="json").json()["id"]
    for invitee in (aki, ben):
        assert api(invitee).post(f"/api/games/{game_id}/accept").status_code == 200
    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.RUNNING
    assert not moderation.is_moderator(game=game, user=org)
    assert moderation.is_moderator(game=game, user=staff)
    assert selectors.game_sight(game=game, user=org).delayed  # before part 6 the creator saw it live
    assert not selectors.game_sight(game=game, user=aki).delayed
    refused(api(org).get(f"/api/games/{game_id}/reports"), 403, "not_a_moderator")
    assert api(org).get(f"/api/games/{game_id}/state").json()["head_seq"] == 0  # the delayed view
    # A creator who plays is a moderator of their own table, as before.
    own = api(aki).post("/api/games", {"engine": "believers", "seats": ["aki", "ben"]}, format="json").json()
    assert moderation.is_moderator(game=Game.objects.get(pk=own["id"]), user=aki)


def test_the_home_page_offers_to_accept_or_decline(client):
    oya, ko = user("oya"), user("ko")
    first = services.game_create(engine_slug="nine-card", config={}, seats=[oya, ko], created_by=oya)
    second = services.game_create(engine_slug="nine-card", config={}, seats=[oya, ko], created_by=oya)
    client.force_login(ko)
    home = client.get("/").content.decode()
    assert 'id="invitations"' in home and f"/games/{first.pk}/answer/accept" in home
    assert f"/games/{second.pk}/answer/decline" in home
    page = client.get(f"/games/{first.pk}").content.decode()
    assert 'id="accept"' in page and 'id="decline"' in page
    accepted = client.post(f"/games/{first.pk}/answer/accept")
    assert accepted.status_code == 302 and accepted["Location"] == f"/games/{first.pk}/play"
    declined = client.post(f"/games/{second.pk}/answer/decline")
    assert declined.status_code == 302 and declined["Location"] == f"/games/{second.pk}"
    assert Game.objects.get(pk=second.pk).status == Game.Status.CANCELLED
    assert 'id="cancelled"' in client.get(f"/games/{second.pk}").content.decode()
    again = client.post(f"/games/{second.pk}/answer/decline")
    assert again.status_code == 409 and "game_cancelled" in again.content.decode()
    assert 'id="invitations"' not in client.get("/").content.decode()
    assert client.post(f"/games/{first.pk}/answer/maybe").status_code == 404
