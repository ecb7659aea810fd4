"""The league pages link to their exports (standings as CSV, deadlines as iCalendar), and the links
work; a player's own page, and only theirs, carries the address of their private calendar feed."""

from __future__ import annotations

import re

import icalendar
import pytest
from django.test import Client

from league import services
from league.seasons import services as season_services
from league.tournaments import lifecycle
from tests.web.accounts import client_of
from tests.web.test_league_pages import club  # noqa: F401 (the fixture: a club, members m0-m3, ladders)

pytestmark = pytest.mark.django_db


def link(page: str, element_id: str) -> str:
    match = re.search(rf'<a href="([^"]+)" id="{element_id}"', page)
    assert match, f"no link #{element_id}"
    return match.group(1).replace("&amp;", "&")


def calendar_at(client: Client, url: str) -> icalendar.Calendar:
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"].startswith("text/calendar"), response.content
    return icalendar.Calendar.from_ical(response.content)


def test_the_ladder_season_and_tournament_pages_link_to_working_exports(club):  # noqa: F811
    club_, organiser, members, ladder, _ = club
    challenge = services.challenge_create(ladder_id=ladder.pk, by=members[1], defender=members[0])
    page = Client().get(f"/ladders/{ladder.pk}/").content.decode()
    sheet = Client().get(link(page, "standings-csv"))
    assert sheet.status_code == 200 and sheet.content.decode().splitlines()[1].startswith("1,m0,")
    uids = [str(e["UID"]) for e in calendar_at(Client(), link(page, "calendar-feed")).walk("VEVENT")]
    assert uids == [f"challenge-{challenge.pk}-answer@kifu"]

    league = season_services.league_create(club_id=club_.pk, by=organiser, name="L", engine="nine-card")
    for member in members:
        season_services.league_player_add(league_id=league.pk, by=organiser, user=member)
    season = season_services.season_start(league_id=league.pk, by=organiser)
    page = Client().get(f"/seasons/{season.pk}/").content.decode()
    assert len(calendar_at(Client(), link(page, "calendar-feed")).walk("VEVENT")) == 6

    tournament = lifecycle.tournament_create(
        club_id=club_.pk, by=organiser, name="Cup", engine="nine-card", format="round_robin",
        config={"commit_seconds": 60}, settings={"round_deadline_seconds": 3600},
    )  # fmt: skip
    for member in members:
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=organiser, player=member)
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser)
    page = Client().get(f"/tournaments/{tournament.pk}/").content.decode()
    assert len(calendar_at(Client(), link(page, "calendar-feed")).walk("VEVENT")) == 1


def test_only_the_player_sees_their_feed_address_and_it_opens_without_logging_in(club):  # noqa: F811
    me, other = club[2][:2]
    assert 'id="calendar-feed"' not in Client().get("/players/m0/").content.decode()
    assert 'id="calendar-feed"' not in client_of(other).get("/players/m0/").content.decode()
    page = client_of(me).get("/players/m0/").content.decode()
    match = re.search(r'<p id="calendar-feed"><a href="([^"]+)"', page)
    assert match and "/api/players/m0/calendar.ics?key=" in match.group(1)
    calendar = calendar_at(Client(), match.group(1).replace("&amp;", "&"))  # a calendar app has no session
    assert calendar["X-WR-CALNAME"] == "Kifu: m0"
    assert "カレンダー" in client_of(me, "ja").get("/players/m0/").content.decode()
