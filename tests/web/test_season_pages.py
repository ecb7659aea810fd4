"""The seasonal-league pages in-process: a league with its roster, rules and the next season's plan,
forms by role (add a player, start a season, close it), a season's division tables with the
promotion and relegation zones, fixtures per round with play-by dates and game links, Japanese."""

from __future__ import annotations

import re
import uuid

import pytest
from django.test import Client

from games import services as game_services
from league import services
from league.seasons import services as season_services
from league.seasons.models import Fixture, League, Season
from tests.web.accounts import client_of, user

pytestmark = pytest.mark.django_db


@pytest.fixture
def league():
    """A club league of Nine Card: two divisions, one up and one down; eight players on the roster."""
    organiser = user("org")
    club = services.club_create(name="Go Club", slug="go-club", by=organiser)
    members = []
    for index in range(8):
        member = user(f"p{index}")
        services.membership_invite(club_id=club.pk, by=organiser, user=member)
        services.membership_join(club_id=club.pk, by=member)
        members.append(member)
    league = season_services.league_create(
        club_id=club.pk, by=organiser, name="Winter League", engine="nine-card", divisions=2, promote=1, relegate=1
    )
    for member in members:
        season_services.league_player_add(league_id=league.pk, by=organiser, user=member)
    return league, organiser, members


def rows(html: str) -> dict[str, str]:
    return {m.group(1): m.group(0) for m in re.finditer(r'<tr data-player="([^"]+)"[^>]*>.*?</tr>', html, re.S)}


def finish(fixture: Fixture, loser) -> None:
    game_services.move_submit(
        game_id=fixture.game_id, user=loser, move={"type": "resign"}, idempotency_key=uuid.uuid4().hex
    )
    game_services.game_advance(game_id=fixture.game_id)
    assert season_services.season_game_finished(game_id=fixture.game_id)


def test_the_league_page_and_starting_a_season_from_it(league):
    league_, organiser, (p0, *_) = league
    anonymous = Client().get(f"/leagues/{league_.pk}/").content.decode()
    assert (
        "Winter League" in anonymous and 'data-player="p7"' in anonymous and "No season has started yet." in anonymous
    )
    assert "1 up from each division but the top, 1 down from each but the bottom" in anonymous
    assert "win 3, draw 1, loss 0" in anonymous and 'id="organise"' not in anonymous
    assert 'id="organise"' not in client_of(p0).get(f"/leagues/{league_.pk}/").content.decode()
    assert Client().get("/leagues/99999/").status_code == 404

    page = client_of(organiser).get(f"/leagues/{league_.pk}/").content.decode()
    plan = page.split('id="plan"')[1].split("</div></div>")[0]
    assert plan.count("<h4>") == 2 and "p0" in plan and "p7" in plan and 'id="start-season"' in page

    refused = client_of(p0).post(f"/leagues/{league_.pk}/start-season", follow=True).content.decode()
    assert "not_organiser" in refused and not Season.objects.exists()
    stranger = user("stranger")
    added = client_of(organiser).post(f"/leagues/{league_.pk}/add-player", {"username": "stranger"}, follow=True)
    assert "not_a_club_member: That player is not a member of this club" in added.content.decode()
    assert stranger.season_league_entries.count() == 0

    started = client_of(organiser).post(f"/leagues/{league_.pk}/start-season", follow=True).content.decode()
    assert "Season 1 has started; its fixtures are made." in started
    season = Season.objects.get(league=league_)
    assert f'href="/seasons/{season.pk}/"' in started and 'id="start-season"' not in started
    assert "Season 1 is running; close it on its page to start the next." in started


def test_the_season_page_marks_the_zones_and_lists_the_fixtures(league):
    league_, organiser, members = league
    season = season_services.season_start(league_id=league_.pk, by=organiser)
    page = Client().get(f"/seasons/{season.pk}/").content.decode()
    divisions = page.split('id="divisions"')[1].split('id="fixtures"')[0]
    assert divisions.count('class="division"') == 2
    top, bottom = divisions.split('data-tier="2"')
    # Division 1 sends its last player down; division 2 sends its first up. Nobody is placed yet,
    # so the table is in seed order.
    top_rows, bottom_rows = rows(top), rows(bottom)
    assert list(top_rows) == ["p0", "p1", "p2", "p3"] and list(bottom_rows) == ["p4", "p5", "p6", "p7"]
    assert "zone-relegated" in top_rows["p3"] and "▼" in top_rows["p3"] and "zone" not in top_rows["p0"]
    assert "zone-promoted" in bottom_rows["p4"] and "▲" in bottom_rows["p4"] and "zone" not in bottom_rows["p7"]
    head = top.split("</thead>")[0]
    assert re.findall(r'<th class="tiebreak">([^<]*)</th>', head) == [
        "head to head",
        "wins",
        "Sonneborn-Berger",
        "game points",
    ]
    assert f'href="/api/seasons/{season.pk}/standings.csv"' in page

    # Fixtures: three rounds of four games (two divisions of four), each with its play-by date.
    fixtures = page.split('id="fixtures"')[1]
    assert fixtures.count("<details") == 3 and fixtures.count("data-fixture=") == 12
    first = Fixture.objects.filter(season=season, round=1).order_by("division__tier", "board").first()
    round_1 = fixtures.split('data-round="1"')[1].split("</details>")[0]
    assert first.play_by.strftime("%Y-%m-%d %H:%M") in round_1 and f'href="/games/{first.game_id}/play"' in round_1

    finish(first, loser=first.away)
    page = Client().get(f"/seasons/{season.pk}/").content.decode()
    row = page.split(f'data-fixture="{first.pk}"')[1].split("</tr>")[0]
    assert "1–0" in row and f'href="/games/{first.game_id}/replay"' in row and 'class="won"' in row
    winner_row = rows(page.split('id="divisions"')[1])[first.home.username]
    assert "<td>3</td>" in winner_row  # three points for a win


def test_closing_a_season_from_its_page_then_the_next_seasons_plan(league):
    league_, organiser, members = league
    season = season_services.season_start(league_id=league_.pk, by=organiser)
    assert 'id="close-season"' not in client_of(members[0]).get(f"/seasons/{season.pk}/").content.decode()
    refused = client_of(members[0]).post(f"/seasons/{season.pk}/close", follow=True).content.decode()
    assert "not_organiser" in refused

    for fixture in Fixture.objects.filter(season=season).select_related("home", "away"):
        finish(fixture, loser=fixture.away if fixture.home.username < fixture.away.username else fixture.home)
    season.refresh_from_db()
    assert season.status == "closed"  # the last result closed it
    page = client_of(organiser).get(f"/seasons/{season.pk}/").content.decode()
    assert 'id="close-season"' not in page and "closed" in page

    plan = client_of(organiser).get(f"/leagues/{league_.pk}/").content.decode().split('id="plan"')[1]
    first, second = plan.split("<h4>")[1:3]
    assert 'p4 <span class="muted">promoted</span>' in first and 'p3 <span class="muted">relegated</span>' in second


def test_closing_early_from_the_page(league):
    league_, organiser, _ = league
    season = season_services.season_start(league_id=league_.pk, by=organiser)
    closed = client_of(organiser).post(f"/seasons/{season.pk}/close", follow=True).content.decode()
    assert "Season 1 is closed; its final tables are frozen." in closed
    assert Season.objects.get(pk=season.pk).status == "closed"
    again = client_of(organiser).post(f"/seasons/{season.pk}/close", follow=True).content.decode()
    assert "season_closed" in again


def test_the_season_pages_in_japanese(league):
    league_, organiser, _ = league
    season = season_services.season_start(league_id=league_.pk, by=organiser)
    page = client_of(organiser, "ja").get(f"/seasons/{season.pk}/").content.decode()
    for words in ("ディビジョン 1", "昇格圏", "降格圏", "対戦カード", "シーズンを終了する"):
        assert words in page, words
    club = client_of(organiser, "ja").get("/clubs/go-club/").content.decode()
    assert "リーグ" in club and "トーナメント" in club


def test_an_organiser_corrects_a_fixture_from_the_season_page(league):
    league_, organiser, members = league
    season = season_services.season_start(league_id=league_.pk, by=organiser)
    url = f"/seasons/{season.pk}/correct"
    assert 'id="correct"' not in client_of(organiser).get(f"/seasons/{season.pk}/").content.decode()  # none decided
    fixture = Fixture.objects.filter(season=season, round=1).select_related("home", "away").first()
    finish(fixture, loser=fixture.away)
    page = client_of(organiser).get(f"/seasons/{season.pk}/").content.decode()
    form = page.split('id="correct"')[1].split("</form>")[0]
    assert f'<option value="{fixture.pk}">' in form and "(1–0)" in form
    assert 'id="correct"' not in client_of(members[0]).get(f"/seasons/{season.pk}/").content.decode()

    data = {"fixture": fixture.pk, "result": "away", "reason": "score sheet misread"}
    refused = client_of(members[0]).post(url, data, follow=True).content.decode()
    assert "not_organiser" in refused
    no_reason = client_of(organiser).post(url, {**data, "reason": ""}, follow=True).content.decode()
    assert "invalid_reason" in no_reason
    elsewhere = client_of(organiser).post(url, {**data, "fixture": "x"}, follow=True).content.decode()
    assert "not_found" in elsewhere

    done = client_of(organiser).post(url, data, follow=True).content.decode()
    assert f"{fixture.home.username} v {fixture.away.username} is corrected." in done
    row = done.split(f'data-fixture="{fixture.pk}"')[1].split("</tr>")[0]
    assert "0–1" in row and "corrected" in row and 'title="score sheet misread"' in row
    table = rows(done.split('id="divisions"')[1])
    assert "<td>3</td>" in table[fixture.away.username] and "<td>0</td>" in table[fixture.home.username]


def test_the_season_page_reads_a_fixed_number_of_queries(league):
    """One division of four or two of four, a result or not: the same queries."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    league_, organiser, members = league
    counts = []
    for divisions in ([members[:4]], [members[:4], members[4:]]):
        if league_.seasons.exists():
            season_services.season_close(season_id=league_.seasons.get(status="running").pk, by=organiser)
        season = season_services.season_start(league_id=league_.pk, by=organiser, divisions=divisions)
        fixture = Fixture.objects.filter(season=season).select_related("away").first()
        finish(fixture, loser=fixture.away)
        with CaptureQueriesContext(connection) as queries:
            assert Client().get(f"/seasons/{season.pk}/").status_code == 200
        counts.append(len(queries.captured_queries))
    assert counts[0] == counts[1] <= 12, counts


# ---- the organiser's "New league" form on the club page ---------------------------------------------
NEW_LEAGUE = {
    "name": "Spring League",
    "engine": "nine-card",
    "divisions": "3",
    "promote": "1",
    "relegate": "2",
    "cycles": "2",
    "days_per_round": "5",
}


def test_new_league_form_only_for_organisers(league):
    _, organiser, members = league
    page = client_of(organiser).get("/clubs/go-club/").content.decode()
    form = re.search(r'<section class="panel" id="new-league">.*?</section>', page, re.S).group(0)
    assert 'action="/clubs/go-club/leagues/new"' in form
    for field in ("name", "engine", "divisions", "promote", "relegate", "cycles", "days_per_round"):
        assert f'name="{field}"' in form
    assert 'value="nine-card"' in form and 'value="1234"' in form  # two players among others
    assert 'value="turn-thief"' in form and 'value="kazekami-kyoko"' not in form  # four seats: tables; mature
    for field in ("table_seats", "table_seats_min", "table_seats_max", "placement_points"):
        assert f'name="{field}"' in form
    member_page = client_of(members[0]).get("/clubs/go-club/").content.decode()
    assert 'id="new-league"' not in member_page and "leagues/new" not in member_page


def test_new_league_through_the_service(league):
    winter, organiser, _ = league
    response = client_of(organiser).post("/clubs/go-club/leagues/new", NEW_LEAGUE)
    spring = League.objects.get(club=winter.club, name="Spring League")
    assert response.status_code == 302 and response["Location"] == f"/leagues/{spring.pk}/"
    assert (spring.engine, spring.divisions, spring.promote, spring.relegate) == ("nine-card", 3, 1, 2)
    assert (spring.cycles, spring.days_per_round, spring.created_by) == (2, 5, organiser)
    assert "Spring League" in client_of(organiser).get(f"/leagues/{spring.pk}/").content.decode()
    client_of(organiser).post("/clubs/go-club/leagues/new", {"name": "Plain", "engine": "1234", "divisions": ""})
    plain = League.objects.get(club=winter.club, name="Plain")  # empty numbers: the service's defaults
    assert (plain.engine, plain.divisions, plain.promote, plain.cycles, plain.days_per_round) == ("1234", 1, 2, 1, 7)


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"engine": "no-such-game"}, "unknown_game"),
        ({"engine": "nine-card", "table_seats": "4"}, "bad_seat_count"),
        ({"engine": "satori", "table_seats": "9"}, "invalid_seats"),
        ({"engine": "satori", "placement_points": "3, two"}, "invalid_placement_points"),
        ({"divisions": "0"}, "invalid_divisions"),
        ({"cycles": "3"}, "invalid_cycles"),
        ({"days_per_round": "0"}, "invalid_days_per_round"),
        ({"promote": "-1"}, "invalid_promotion"),
        ({"name": "Winter League"}, "league_exists"),
        ({"divisions": "two"}, "invalid_divisions"),
    ],
)
def test_new_league_refusals_come_back_with_their_code(league, fields, code):
    winter, organiser, _ = league
    client = client_of(organiser)
    response = client.post("/clubs/go-club/leagues/new", {**NEW_LEAGUE, **fields})
    assert response.status_code == 302 and response["Location"] == "/clubs/go-club/"
    assert f"{code}: " in client.get("/clubs/go-club/").content.decode()
    assert League.objects.filter(club=winter.club).count() == 1


def test_new_league_refused_to_a_member_and_in_japanese(league):
    winter, organiser, members = league
    client = client_of(members[0])
    client.post("/clubs/go-club/leagues/new", NEW_LEAGUE)
    assert "not_organiser: " in client.get("/clubs/go-club/").content.decode()
    assert League.objects.filter(club=winter.club).count() == 1
    page = client_of(organiser, "ja").get("/clubs/go-club/").content.decode()
    form = re.search(r'<section class="panel" id="new-league">.*?</section>', page, re.S).group(0)
    assert "新しいリーグ" in form and "New league" not in form and "Days per round" not in form


# ---- multiplayer leagues ----------------------------------------------------------------------------
def test_a_multiplayer_league_from_the_form_to_its_season_page(league):
    winter, organiser, members = league
    fields = {"name": "Satori Nights", "engine": "satori", "table_seats": "4", "table_seats_min": "3",
              "placement_points": "3, 2, 1, 0"}  # fmt: skip
    response = client_of(organiser).post("/clubs/go-club/leagues/new", fields)
    satori = League.objects.get(club=winter.club, name="Satori Nights")
    assert response.status_code == 302, response
    assert satori.tables == {"seats": {"preferred": 4, "min": 3, "max": 4}, "placement_points": [3.0, 2.0, 1.0, 0.0]}
    for member in members[:7]:
        season_services.league_player_add(league_id=satori.pk, by=organiser, user=member)
    page = client_of(organiser).get(f"/leagues/{satori.pk}/").content.decode()
    assert "3-4 seats, 4 where the division allows" in page and "3, 2, 1, 0" in page
    season = season_services.season_start(league_id=satori.pk, by=organiser)
    fixture = Fixture.objects.filter(season=season).order_by("round", "board").first()
    assert len(fixture.players) in (3, 4)
    game_services.game_forfeit(game_id=fixture.game_id, seats=list(range(1, len(fixture.players))), reason="test")
    assert season_services.season_game_finished(game_id=fixture.game_id)
    page = client_of(organiser).get(f"/seasons/{season.pk}/").content.decode()
    assert "tables of 3-4, points per place 3, 2, 1, 0" in page and "Players (seat order)" in page
    row = page.split(f'data-fixture="{fixture.pk}"')[1].split("</tr>")[0]
    winner = members[[m.pk for m in members].index(fixture.players[0])].username
    assert f'<li class="won" data-player="{winner}">{winner} <span class="muted">place 1, 3 pt</span>' in row
    assert 'name="placings"' in page
    others = [m.username for m in members if m.pk in fixture.players[1:]]
    placings = f"{others[0]}, {winner} = {others[1]}" + "".join(f", {name}" for name in others[2:])
    done = (
        client_of(organiser)
        .post(
            f"/seasons/{season.pk}/correct",
            {"fixture": fixture.pk, "result": "placed", "placings": placings, "reason": "sheet"},
            follow=True,
        )
        .content.decode()
    )
    assert "is corrected." in done
    fixture.refresh_from_db()
    assert fixture.placements[0] == [members[[m.username for m in members].index(others[0])].pk]
    bad = (
        client_of(organiser)
        .post(
            f"/seasons/{season.pk}/correct",
            {"fixture": fixture.pk, "result": "placed", "placings": "nobody", "reason": "sheet"},
            follow=True,
        )
        .content.decode()
    )
    assert "invalid_result" in bad
    ja = client_of(organiser, "ja").get(f"/seasons/{season.pk}/").content.decode()
    assert "席順" in ja and "位" in ja
