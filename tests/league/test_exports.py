"""Exports over the API: ladder standings as CSV, and iCalendar feeds of fixtures and deadlines per
season, tournament, ladder and player (parsed back with the icalendar library)."""

from __future__ import annotations

import csv
import io

import icalendar
import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from league import services
from league.models import Challenge, LadderEntry, PlayerProfile, TournamentBoard, TournamentRound
from league.seasons.models import Fixture

pytestmark = pytest.mark.django_db


def client_for(user) -> APIClient:
    client = APIClient()
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def whole(moment):
    """A time as iCalendar writes it: whole seconds."""
    return moment.replace(microsecond=0)


def events_of(response) -> dict[str, icalendar.Event]:
    """The feed's events by UID, after checking it is a calendar the library parses."""
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/calendar")
    calendar = icalendar.Calendar.from_ical(response.content)
    assert calendar["VERSION"] == "2.0" and calendar["PRODID"]
    events = {str(event["UID"]): event for event in calendar.walk("VEVENT")}
    assert len(events) == len(calendar.walk("VEVENT")), "UIDs are unique"
    return events


def test_ladder_standings_csv_follows_the_standings_with_japanese_names(club_with, clock):
    club, organiser, members = club_with(3)
    ladder = services.ladder_create(club_id=club.pk, by=organiser, engine="nine-card", name="ラダー")
    for member in members:
        services.ladder_join(ladder_id=ladder.pk, by=member, now=clock.now)
    PlayerProfile.objects.update_or_create(user=members[2], defaults={"display_name": "山田 太郎"})
    challenge = services.challenge_create(ladder_id=ladder.pk, by=members[2], defender=members[0], now=clock.now)
    services.challenge_result_record(challenge_id=challenge.pk, by=organiser, winner=members[2], now=clock.now)

    response = APIClient().get(f"/api/ladders/{ladder.pk}/standings.csv")
    assert response.status_code == 200 and response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="ladder-{ladder.pk}-standings.csv"'
    assert response.content.startswith("\ufeff".encode())  # Excel reads it as UTF-8 only with the mark
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    standings = APIClient().get(f"/api/ladders/{ladder.pk}/standings").json()
    assert [r["username"] for r in rows] == [s["username"] for s in standings]
    assert [int(r["position"]) for r in rows] == [1, 2, 3]
    winner = next(r for r in rows if r["username"] == members[2].username)
    entry = LadderEntry.objects.get(ladder=ladder, user=members[2])
    assert winner["display_name"] == "山田 太郎" and winner["position"] == str(entry.position)
    assert (winner["played"], winner["won"], winner["lost"]) == ("1", "1", "0")
    assert list(rows[0]) == [
        "position", "username", "display_name", "active", "played", "won", "drawn", "lost",
        "forfeits_won", "forfeits_lost", "mu", "sigma", "ordinal",
    ]  # fmt: skip
    missing = APIClient().get("/api/ladders/999999/standings.csv")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"


def test_season_feed_has_every_fixture_at_its_play_by_date_with_stable_uids(club_with):
    club, organiser, members = club_with(4)
    org = client_for(organiser)
    league = org.post(
        f"/api/clubs/{club.slug}/leagues",
        {"name": "Tuesday League", "engine": "nine-card", "divisions": 1, "days_per_round": 7},
        format="json",
    ).json()
    for member in members:
        org.post(f"/api/leagues/{league['id']}/players", {"username": member.username}, format="json")
    season = org.post(f"/api/leagues/{league['id']}/seasons", {}, format="json").json()

    first = events_of(APIClient().get(f"/api/seasons/{season['id']}/calendar.ics"))
    fixtures = list(Fixture.objects.filter(season_id=season["id"]))
    assert len(fixtures) == 6 and set(first) == {f"season-fixture-{f.pk}@kifu" for f in fixtures}
    for fixture in fixtures:
        event = first[f"season-fixture-{fixture.pk}@kifu"]
        assert event.decoded("DTSTART") == whole(fixture.play_by) and "DTEND" not in event
        assert fixture.home.username in event["SUMMARY"] and fixture.away.username in event["SUMMARY"]
        assert f"round {fixture.round}" in event["SUMMARY"]
    # a moved deadline keeps its UID: a subscribed calendar updates the event instead of adding one
    moved = fixtures[0]
    Fixture.objects.filter(pk=moved.pk).update(play_by=moved.play_by.replace(year=moved.play_by.year + 1))
    again = events_of(APIClient().get(f"/api/seasons/{season['id']}/calendar.ics"))
    assert set(again) == set(first)
    assert again[f"season-fixture-{moved.pk}@kifu"].decoded("DTSTART").year == moved.play_by.year + 1
    assert APIClient().get("/api/seasons/999999/calendar.ics").json()["code"] == "not_found"
    feed = f"/api/seasons/{season['id']}/calendar.ics"
    assert events_of(APIClient().get(feed, {"division": 1})).keys() == again.keys()
    assert events_of(APIClient().get(feed, {"division": 2})) == {}
    refused = APIClient().get(feed, {"division": "top"})
    assert refused.status_code == 400 and refused.json()["code"] == "invalid_division"


def test_tournament_feed_has_each_paired_round_deadline(club_with):
    club, organiser, members = club_with(4)
    org = client_for(organiser)
    body = {
        "name": "Cup",
        "engine": "nine-card",
        "format": "round_robin",
        "config": {"commit_seconds": 60},
        "settings": {"round_deadline_seconds": 86400},
    }
    tid = org.post(f"/api/clubs/{club.slug}/tournaments", body, format="json").json()["id"]
    assert events_of(APIClient().get(f"/api/tournaments/{tid}/calendar.ics")) == {}
    for member in members:
        org.post(f"/api/tournaments/{tid}/entries", {"username": member.username}, format="json")
    assert org.post(f"/api/tournaments/{tid}/start").status_code == 200
    events = events_of(APIClient().get(f"/api/tournaments/{tid}/calendar.ics"))
    round1 = TournamentRound.objects.get(tournament_id=tid, number=1)
    assert round1.deadline_at is not None
    assert list(events) == [f"tournament-{tid}-round-1@kifu"]
    event = events[f"tournament-{tid}-round-1@kifu"]
    assert event.decoded("DTSTART") == whole(round1.deadline_at) and "Cup" in event["SUMMARY"]
    assert "2 boards" in event["DESCRIPTION"]
    assert APIClient().get("/api/tournaments/999999/calendar.ics").status_code == 404


def test_ladder_feed_has_answer_and_play_deadlines_of_open_challenges(club_with, clock):
    club, organiser, members = club_with(4)
    ladder = services.ladder_create(
        club_id=club.pk, by=organiser, engine="nine-card", settings={"rematch_cooldown_days": 0}
    )
    for member in members:
        services.ladder_join(ladder_id=ladder.pk, by=member, now=clock.now)
    issued = services.challenge_create(ladder_id=ladder.pk, by=members[1], defender=members[0], now=clock.now)
    accepted = services.challenge_create(ladder_id=ladder.pk, by=members[3], defender=members[2], now=clock.now)
    services.challenge_accept(challenge_id=accepted.pk, by=members[2], now=clock.now)
    accepted.refresh_from_db()
    events = events_of(APIClient().get(f"/api/ladders/{ladder.pk}/calendar.ics"))
    assert set(events) == {f"challenge-{issued.pk}-answer@kifu", f"challenge-{accepted.pk}-play@kifu"}
    assert events[f"challenge-{issued.pk}-answer@kifu"].decoded("DTSTART") == whole(issued.accept_by)
    assert events[f"challenge-{accepted.pk}-play@kifu"].decoded("DTSTART") == whole(accepted.play_by)
    assert (
        accepted.status == Challenge.Status.ACCEPTED
        and "Play by" in events[f"challenge-{accepted.pk}-play@kifu"]["SUMMARY"]
    )


def test_player_feed_needs_its_key_and_holds_only_their_deadlines(club_with, clock):
    club, organiser, members = club_with(4)
    me, rival, others = members[0], members[1], members[2:]
    org = client_for(organiser)
    ladder = services.ladder_create(club_id=club.pk, by=organiser, engine="nine-card")
    for member in members:
        services.ladder_join(ladder_id=ladder.pk, by=member, now=clock.now)
    mine = services.challenge_create(ladder_id=ladder.pk, by=rival, defender=me, now=clock.now)
    services.challenge_create(ladder_id=ladder.pk, by=others[1], defender=others[0], now=clock.now)
    league = org.post(
        f"/api/clubs/{club.slug}/leagues", {"name": "L", "engine": "nine-card", "divisions": 2}, format="json"
    ).json()
    for member in members:
        org.post(f"/api/leagues/{league['id']}/players", {"username": member.username}, format="json")
    assert org.post(f"/api/leagues/{league['id']}/seasons", {}, format="json").status_code == 201
    my_fixtures = list(Fixture.objects.filter(home=me) | Fixture.objects.filter(away=me))
    assert len(my_fixtures) == 1 and Fixture.objects.count() == 2
    cup = {"name": "Cup", "engine": "nine-card", "format": "round_robin", "config": {"commit_seconds": 60},
           "settings": {"round_deadline_seconds": 3600}}  # fmt: skip
    tid = org.post(f"/api/clubs/{club.slug}/tournaments", cup, format="json").json()["id"]
    for member in members:
        org.post(f"/api/tournaments/{tid}/entries", {"username": member.username}, format="json")
    org.post(f"/api/tournaments/{tid}/start")
    my_board = next(b for b in TournamentBoard.objects.filter(tournament_id=tid) if me.pk in b.seat_ids)
    deadline = TournamentRound.objects.get(tournament_id=tid, number=1).deadline_at

    feed = f"/api/players/{me.username}/calendar.ics"
    refused = APIClient().get(feed)
    assert refused.status_code == 403 and refused.json()["code"] == "feed_key_invalid"
    assert "profile/calendar" in refused.json()["message"]
    assert APIClient().get(feed, {"key": "0" * 40}).status_code == 403
    assert APIClient().get("/api/profile/calendar").status_code == 401
    url = client_for(me).get("/api/profile/calendar").json()["url"]
    assert url.startswith("http://testserver" + feed + "?key=")
    key = url.split("key=")[1]
    response = APIClient().get(feed, {"key": key})
    assert response["Cache-Control"] == "private, no-store"
    events = events_of(response)
    assert set(events) == {
        f"challenge-{mine.pk}-answer@kifu",
        f"season-fixture-{my_fixtures[0].pk}@kifu",
        f"tournament-board-{my_board.pk}@kifu",
    }
    assert events[f"tournament-board-{my_board.pk}@kifu"].decoded("DTSTART") == whole(deadline)
    assert events[f"season-fixture-{my_fixtures[0].pk}@kifu"].decoded("DTSTART") == whole(my_fixtures[0].play_by)
    # the key opens this feed only, and the owner's own API token opens it too
    assert APIClient().get(f"/api/players/{rival.username}/calendar.ics", {"key": key}).status_code == 403
    assert set(events_of(client_for(me).get(feed))) == set(events)
    assert client_for(rival).get(feed).status_code == 403
    # a new password revokes every address given out before
    me.set_password("a new secret")
    me.save()
    assert APIClient().get(feed, {"key": key}).status_code == 403
    assert APIClient().get("/api/players/nobody/calendar.ics").status_code == 404


def test_feeds_read_a_fixed_number_of_queries_and_take_names_in_any_script(
    club_with, make_user, django_assert_max_num_queries
):
    club, organiser, members = club_with(2)
    yamada = make_user("山田")
    services.membership_invite(club_id=club.pk, by=organiser, user=yamada)
    services.membership_join(club_id=club.pk, by=yamada)
    ladder = services.ladder_create(club_id=club.pk, by=organiser, engine="nine-card")
    for player in (*members, yamada):
        services.ladder_join(ladder_id=ladder.pk, by=player)
    services.challenge_create(ladder_id=ladder.pk, by=yamada, defender=members[1])
    mine = client_for(yamada)
    with django_assert_max_num_queries(8):  # token, user, fixtures, two board reads, rounds, challenges
        response = mine.get("/api/players/山田/calendar.ics")
    assert response["Content-Disposition"] == "inline; filename*=utf-8''%E5%B1%B1%E7%94%B0.ics"
    (event,) = icalendar.Calendar.from_ical(response.content).walk("VEVENT")
    assert str(event["SUMMARY"]).startswith(f"Answer by: challenge 山田 v {members[1].username}")


def test_schema_lists_the_exports(client):
    paths = client.get("/api/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()["paths"]
    for path in (
        "/api/ladders/{id}/standings.csv",
        "/api/ladders/{id}/calendar.ics",
        "/api/seasons/{id}/calendar.ics",
        "/api/tournaments/{id}/calendar.ics",
        "/api/players/{username}/calendar.ics",
        "/api/profile/calendar",
    ):
        assert path in paths, path
