"""Bot accounts: made with ``"bot": true``, shown as bots everywhere players are listed, and
admitted to a ladder only when its organisers allow bots (``allow_bots``)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games.accounts import bot_ids, is_bot
from games.models import BotAccount
from league import services

pytestmark = pytest.mark.django_db
PASSWORD = "kifu-bot-test-password"


def signup(username: str, **extra) -> tuple[APIClient, dict]:
    client = APIClient()
    response = client.post("/api/accounts", {"username": username, "password": PASSWORD, **extra}, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    client.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    return client, body


def test_bot_account_is_created_and_shown_by_me():
    bot, body = signup("robo", bot=True)
    person, person_body = signup("hana")
    assert body["bot"] is True and person_body["bot"] is False
    assert bot.get("/api/me").json() == {
        "username": "robo",
        "token": body["token"],
        "bot": True,
        "scopes": ["read", "play", "organise"],  # the full token: every scope (issue 19 item 3)
    }
    assert person.get("/api/me").json()["bot"] is False
    users = get_user_model().objects
    assert is_bot(users.get(username="robo")) and not is_bot(users.get(username="hana"))
    assert not is_bot(None)
    assert bot_ids(users.values_list("pk", flat=True)) == {users.get(username="robo").pk}


def test_bot_flag_must_be_a_boolean():
    response = APIClient().post(
        "/api/accounts", {"username": "robo", "password": PASSWORD, "bot": "perhaps"}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["code"] == "invalid" and "bot" in response.json()["fields"]
    assert not BotAccount.objects.exists()


def test_game_seats_name_the_bots():
    bot, _ = signup("robo", bot=True)
    signup("hana")
    game = bot.post("/api/games", {"engine": "nine-card", "seats": ["robo", "hana"]}, format="json").json()
    seats = bot.get(f"/api/games/{game['id']}").json()["seats"]
    assert [(seat["player"], seat["bot"]) for seat in seats] == [("robo", True), ("hana", False)]


@pytest.fixture
def club():
    """A club run by ``org`` with one person (``hana``) and one bot (``robo``) as members, a
    challenge ladder and a rating ladder, both with the default settings."""
    users = get_user_model().objects
    org = users.create_user(username="org")
    hana = users.create_user(username="hana")
    robo = users.create_user(username="robo")
    BotAccount.objects.create(user=robo)
    club = services.club_create(name="Bot Club", slug="bc", by=org)
    for user in (hana, robo):
        services.membership_invite(club_id=club.pk, by=org, user=user)
        services.membership_join(club_id=club.pk, by=user)
    ladder = services.ladder_create(club_id=club.pk, by=org, engine="nine-card", settings={"rematch_cooldown_days": 0})
    rating = services.ladder_create(club_id=club.pk, by=org, engine="satori", kind="rating")
    clients = {}
    for user in (org, hana, robo):
        clients[user.username] = APIClient()
        clients[user.username].credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return {"clients": clients, "ladder": ladder.pk, "rating": rating.pk}


def test_ladders_refuse_bots_by_default(club):
    c, ladder = club["clients"], club["ladder"]
    assert c["org"].get(f"/api/ladders/{ladder}").json()["settings"]["allow_bots"] is False
    refused = c["robo"].post(f"/api/ladders/{ladder}/join", {}, format="json")
    assert refused.status_code == 403
    assert refused.json()["code"] == "bots_not_allowed" and "allow_bots" in refused.json()["message"]
    assert c["hana"].post(f"/api/ladders/{ladder}/join", {}, format="json").status_code == 200
    # a person may not challenge a bot either (the bot is not on the ladder, but the bot rule comes first)
    challenged = c["hana"].post(f"/api/ladders/{ladder}/challenges", {"defender": "robo"}, format="json")
    assert challenged.status_code == 403 and challenged.json()["code"] == "bots_not_allowed"
    rated = c["hana"].post(f"/api/ladders/{club['rating']}/games", {"players": ["hana", "robo"]}, format="json")
    assert rated.status_code == 403 and rated.json()["code"] == "bots_not_allowed"


def test_organisers_allow_bots(club):
    c, ladder = club["clients"], club["ladder"]
    bad = c["org"].patch(f"/api/ladders/{ladder}", {"settings": {"allow_bots": "yes"}}, format="json")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_ladder_settings"
    assert (
        c["robo"].patch(f"/api/ladders/{ladder}", {"settings": {"allow_bots": True}}, format="json").status_code == 403
    )
    allowed = c["org"].patch(f"/api/ladders/{ladder}", {"settings": {"allow_bots": True}}, format="json")
    assert allowed.status_code == 200 and allowed.json()["settings"]["allow_bots"] is True
    # another change keeps it, and the other settings are still checked
    kept = c["org"].patch(f"/api/ladders/{ladder}", {"settings": {"play_days": 5}}, format="json").json()
    assert kept["settings"]["allow_bots"] is True and kept["settings"]["play_days"] == 5
    assert c["org"].patch(f"/api/ladders/{ladder}", {"settings": {"nope": 1}}, format="json").status_code == 400

    assert c["hana"].post(f"/api/ladders/{ladder}/join", {}, format="json").status_code == 200
    assert c["robo"].post(f"/api/ladders/{ladder}/join", {}, format="json").status_code == 200
    challenge = c["robo"].post(f"/api/ladders/{ladder}/challenges", {"defender": "hana"}, format="json")
    assert challenge.status_code == 201, challenge.json()
    standings = c["org"].get(f"/api/ladders/{ladder}/standings").json()
    assert {(entry["username"], entry["bot"]) for entry in standings} == {("hana", False), ("robo", True)}
    members = c["org"].get("/api/clubs/bc/members").json()
    assert {m["username"]: m["bot"] for m in members} == {"org": False, "hana": False, "robo": True}
    assert c["org"].get("/api/players/robo").json()["bot"] is True
    assert c["org"].get("/api/players/hana").json()["bot"] is False

    # and the setting can be switched off again: bots already on stay, new challenges by bots are refused
    c["org"].patch(f"/api/ladders/{ladder}", {"settings": {"allow_bots": False}}, format="json")
    again = c["robo"].post(f"/api/ladders/{ladder}/challenges", {"defender": "hana"}, format="json")
    assert again.status_code == 403 and again.json()["code"] == "bots_not_allowed"


def test_ladder_created_with_allow_bots(club):
    c = club["clients"]
    created = c["org"].post(
        "/api/clubs/bc/ladders", {"engine": "necropolis", "settings": {"allow_bots": True}}, format="json"
    )
    assert created.status_code == 201, created.json()
    assert created.json()["settings"]["allow_bots"] is True
    assert c["robo"].post(f"/api/ladders/{created.json()['id']}/join", {}, format="json").status_code == 200


def test_full_settings_with_allow_bots_validate_again(club):
    """The admin form re-validates a ladder's whole settings object: allow_bots must pass."""
    from league.models import Ladder
    from league.scoring import ladder as rules

    ladder = Ladder.objects.get(pk=club["ladder"])
    assert rules.validate_settings(ladder.kind, ladder.settings, base=ladder.settings)["allow_bots"] is False
    old = {key: value for key, value in ladder.settings.items() if key != "allow_bots"}  # made before the setting
    assert rules.validate_settings(ladder.kind, {}, base=old)["allow_bots"] is False
