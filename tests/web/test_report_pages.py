"""The pairing report page (issue 17) in-process: a player reports, the other confirms or disputes,
an organiser settles; links from the ladder, tournament and season pages; Japanese."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from league import services
from league.models import Challenge, LadderEntry, ResultReport, TournamentBoard
from league.seasons import services as season_services
from league.seasons.models import Fixture
from league.tournaments import lifecycle
from tests.web.accounts import client_of, user

pytestmark = pytest.mark.django_db
TABLE = {"results": "table"}


@pytest.fixture
def club():
    organiser = user("org")
    club = services.club_create(name="Card Club", slug="card-club", by=organiser)
    members = []
    for name in ("aki", "ben", "cho", "dai"):
        member = user(name)
        services.membership_invite(club_id=club.pk, by=organiser, user=member)
        services.membership_join(club_id=club.pk, by=member)
        members.append(member)
    return club, organiser, members


def test_the_route_the_result_slips_open():
    assert reverse("web:pairing-report", kwargs={"kind": "board", "pk": "12"}) == "/pairings/board/12/report"


def test_a_challenge_reported_on_the_page_and_confirmed_by_the_defender(club):
    club_, organiser, (aki, ben, cho, dai) = club
    ladder = services.ladder_create(club_id=club_.pk, by=organiser, engine="nine-card", settings=TABLE)
    for member in (aki, ben):
        services.ladder_join(ladder_id=ladder.pk, by=member)
    challenge = services.challenge_create(ladder_id=ladder.pk, by=ben, defender=aki)
    url = reverse("web:pairing-report", kwargs={"kind": "challenge", "pk": challenge.pk})
    ladder_page = client_of(ben).get(f"/ladders/{ladder.pk}/").content.decode()
    assert f'href="{url}"' in ladder_page
    anonymous = Client().get(url).content.decode()  # a result slip's QR code scanned before logging in
    assert f'href="/accounts/login/?next={url}"' in anonymous and 'id="report-form"' not in anonymous
    page = client_of(ben).get(url).content.decode()
    assert 'id="report-form"' in page and 'id="settle-form"' not in page and "log-in-to-report" not in page
    assert 'id="report-form"' not in client_of(cho).get(url).content.decode()  # not a player of it
    form = {"step": "report", "idempotency_key": "slip-1", "place-ben": "1", "place-aki": "2"}
    answer = client_of(ben).post(url, {**form, "score-ben": "3", "score-aki": "nope"}, follow=True)
    assert "invalid_scores" in answer.content.decode() and not ResultReport.objects.exists()
    client_of(ben).post(url, form)
    client_of(ben).post(url, form)  # a double tap: the same key does it once
    report = ResultReport.objects.get()
    assert report.ranking == [[ben.pk], [aki.pk]] and report.status == "pending"
    seen = client_of(aki).get(url).content.decode()
    assert 'id="confirm"' in seen and 'id="dispute"' in seen and "Waiting for aki." in seen
    waiting = client_of(aki).get("/players/aki/").content.decode()
    assert 'id="waiting-reports"' in waiting and f'href="{url}"' in waiting
    assert 'id="waiting-reports"' not in client_of(ben).get("/players/aki/").content.decode()
    client_of(aki).post(url, {"step": "confirm", "idempotency_key": "c"})
    assert Challenge.objects.get(pk=challenge.pk).status == "decided"
    positions = dict(LadderEntry.objects.filter(ladder=ladder).values_list("user__username", "position"))
    assert positions == {"ben": 1, "aki": 2}
    done = client_of(aki).get(url).content.decode()
    assert 'data-decided="true"' in done and 'id="confirm"' not in done and 'data-status="confirmed"' in done


def test_a_disputed_board_is_settled_on_the_page_in_japanese(club):
    club_, organiser, members = club
    tournament = lifecycle.tournament_create(
        club_id=club_.pk, by=organiser, name="Cup", engine="nine-card", format="swiss", rounds=2, settings=TABLE
    )
    for member in members:
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=member)
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser)
    board = TournamentBoard.objects.filter(tournament=tournament, round=1).order_by("number").first()
    first, second = board.first, board.second
    url = reverse("web:pairing-report", kwargs={"kind": "board", "pk": board.pk})
    assert f'href="{url}"' in client_of(organiser).get(f"/tournaments/{tournament.pk}/").content.decode()
    places = {f"place-{first.username}": "1", f"place-{second.username}": "2"}
    client_of(first).post(url, {"step": "report", "idempotency_key": "r", **places})
    client_of(second).post(url, {"step": "dispute", "reason": "I won", "idempotency_key": "d"})
    page = client_of(organiser, "ja").get(url).content.decode()
    assert "異議あり" in page and 'id="settle-form"' in page and "結果を裁定する" in page
    refused = client_of(first).post(url, {"step": "settle", "idempotency_key": "s"}, follow=True).content.decode()
    assert "not_organiser" in refused
    swapped = {f"place-{first.username}": "2", f"place-{second.username}": "1"}
    client_of(organiser).post(url, {"step": "settle", "reason": "score sheet", "idempotency_key": "s", **swapped})
    board.refresh_from_db()
    assert board.decided_by == "report" and board.placements == [[second.pk], [first.pk]]
    assert "score sheet" in client_of(first).get(url).content.decode()


def test_a_fixture_links_its_report_page_and_an_unknown_pairing_is_404(club):
    club_, organiser, (aki, ben, cho, dai) = club
    league = season_services.league_create(club_id=club_.pk, by=organiser, name="L", engine="nine-card")
    for member in (aki, ben):
        season_services.league_player_add(league_id=league.pk, by=organiser, user=member)
    season = season_services.season_start(league_id=league.pk, by=organiser)
    fixture = Fixture.objects.get(season=season)
    url = reverse("web:pairing-report", kwargs={"kind": "fixture", "pk": fixture.pk})
    assert f'href="{url}"' in client_of(aki).get(f"/seasons/{season.pk}/").content.decode()
    page = client_of(aki).get(url).content.decode()
    assert "Decided by a game on the server only." in page and 'id="report-form"' not in page
    answer = client_of(aki).post(url, {"step": "report", "place-aki": "1", "place-ben": "2"}, follow=True)
    assert "reports_not_allowed" in answer.content.decode()
    for kind, pk in (("fixture", "999999"), ("board", "9" * 30), ("duel", "1"), ("challenge", "not-a-uuid")):
        assert client_of(aki).get(f"/pairings/{kind}/{pk}/report").status_code == 404


def test_a_rating_ladder_links_its_unrated_games_to_their_report_pages(club):
    club_, organiser, (aki, ben, cho, dai) = club
    rating = services.ladder_create(club_id=club_.pk, by=organiser, engine="nine-card", kind="rating", settings=TABLE)
    for member in (aki, ben):
        services.ladder_join(ladder_id=rating.pk, by=member)
    link = services.rated_game_create(ladder_id=rating.pk, by=aki, players=[aki, ben])
    url = reverse("web:pairing-report", kwargs={"kind": "game", "pk": link.game_id})
    page = client_of(cho).get(f"/ladders/{rating.pk}/").content.decode()
    assert 'id="rated-open"' in page and f'href="{url}"' in page
    client_of(aki).post(url, {"step": "report", "place-aki": "1", "place-ben": "1", "idempotency_key": "x"})
    client_of(ben).post(url, {"step": "confirm", "idempotency_key": "y"})
    assert 'id="rated-open"' not in client_of(cho).get(f"/ladders/{rating.pk}/").content.decode()
    assert LadderEntry.objects.get(ladder=rating, user=aki).drawn == 1


def test_an_organiser_sets_how_results_are_decided_on_each_page(club):
    club_, organiser, (aki, ben, cho, dai) = club
    ladder = services.ladder_create(club_id=club_.pk, by=organiser, engine="nine-card")
    tournament = lifecycle.tournament_create(
        club_id=club_.pk, by=organiser, name="Cup", engine="nine-card", format="swiss", rounds=2
    )
    league = season_services.league_create(club_id=club_.pk, by=organiser, name="L", engine="nine-card")
    for member in (aki, ben):
        season_services.league_player_add(league_id=league.pk, by=organiser, user=member)
    season = season_services.season_start(league_id=league.pk, by=organiser)
    for owner, obj in (("ladder", ladder), ("tournament", tournament), ("season", season)):
        page = f"/{owner}s/{obj.pk}/"
        assert 'id="reporting"' in client_of(organiser).get(page).content.decode()
        assert 'id="reporting"' not in client_of(aki).get(page).content.decode()
        url = reverse("web:reporting-set", kwargs={"owner": owner, "pk": obj.pk})
        refused = client_of(aki).post(url, {"results": "table"}, follow=True).content.decode()
        assert "not_organiser" in refused
        bad = client_of(organiser).post(url, {"results": "table", "report_confirm_hours": "soon"}, follow=True)
        assert "invalid_confirm_hours" in bad.content.decode()
        client_of(organiser).post(url, {"results": "table", "report_confirm_hours": "12"})
        obj.refresh_from_db()
        stored = obj.rules if owner == "season" else obj.settings
        assert (stored["results"], stored["report_confirm_hours"]) == ("table", 12.0)
    assert client_of(organiser).post("/reporting/club/1", {"results": "table"}).status_code == 404
