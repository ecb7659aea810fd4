"""The league pages in-process: clubs, a club (join, invite), ladders (challenge, ratings chart), players."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.utils import translation

from league import services
from league.models import Challenge, Membership
from tests.web.accounts import client_of, user

from ..league.conftest import finish_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def club():
    """An organiser and four members: a challenge ladder with all four and a rating ladder with two."""
    organiser = user("org")
    club = services.club_create(name="Go Club", slug="go-club", by=organiser, description="Tuesdays.")
    members = []
    for name in ("m0", "m1", "m2", "m3"):
        member = user(name)
        services.membership_invite(club_id=club.pk, by=organiser, user=member)
        services.membership_join(club_id=club.pk, by=member)
        members.append(member)
    settings = {"challenge_range": 1, "new_player_free_challenges": 0}
    ladder = services.ladder_create(club_id=club.pk, by=organiser, engine="nine-card", name="Nine", settings=settings)
    for member in members:
        services.ladder_join(ladder_id=ladder.pk, by=member)
    rating = services.ladder_create(club_id=club.pk, by=organiser, engine="nine-card", kind="rating", name="Rated")
    return club, organiser, members, ladder, rating


def test_the_club_list_and_a_club_page(club):
    club_, organiser, members, ladder, rating = club
    listing = Client().get("/clubs/").content.decode()
    assert 'href="/clubs/go-club/"' in listing and "Go Club" in listing
    page = Client().get("/clubs/go-club/").content.decode()
    assert "Tuesdays." in page and f'href="/ladders/{ladder.pk}/"' in page and f'href="/ladders/{rating.pk}/"' in page
    assert 'data-member="org"' in page and 'data-member="m3"' in page and "organiser" in page
    assert 'id="invite"' not in page and 'id="join-club"' not in page and "Log in to join" in page
    assert Client().get("/clubs/nope/").status_code == 404


def test_only_an_organiser_sees_the_invite_form_and_may_invite(club):
    organiser, m0 = club[1], club[2][0]
    stranger = user("stranger")
    assert 'id="invite"' in client_of(organiser).get("/clubs/go-club/").content.decode()
    for someone in (m0, stranger):
        assert 'id="invite"' not in client_of(someone).get("/clubs/go-club/").content.decode()

    # A member cannot invite, even by posting the form; the refusal is shown on the page.
    refused = client_of(m0).post("/clubs/go-club/invite", {"username": "stranger"}, follow=True)
    assert "not_organiser" in refused.content.decode()
    assert not Membership.objects.filter(user=stranger).exists()

    invited = client_of(organiser).post("/clubs/go-club/invite", {"username": "stranger"}, follow=True)
    assert "stranger is invited." in invited.content.decode()
    assert Membership.objects.get(user=stranger).status == "invited"
    unknown = client_of(organiser).post("/clubs/go-club/invite", {"username": "nobody"}, follow=True)
    assert "no_such_player" in unknown.content.decode()

    # The invited player sees the invitation and accepts it; the stranger then is a member.
    page = client_of(stranger).get("/clubs/go-club/").content.decode()
    assert "Accept the invitation" in page
    client_of(stranger).post("/clubs/go-club/join")
    assert Membership.objects.get(user=stranger).status == "active"


def test_a_stranger_asks_to_join(club):
    asker = user("asker")
    page = client_of(asker).get("/clubs/go-club/").content.decode()
    assert 'id="join-club"' in page and "Ask to join" in page
    joined = client_of(asker).post("/clubs/go-club/join", follow=True).content.decode()
    assert "You asked to join" in joined and 'id="join-club"' not in joined
    assert Membership.objects.get(user=asker).status == "requested"
    assert Client().post("/clubs/go-club/join").status_code == 302  # to the login page


def test_the_challenge_ladder_shows_who_the_viewer_may_challenge(club):
    _, organiser, (m0, m1, m2, m3), ladder, _ = club
    page = client_of(m2).get(f"/ladders/{ladder.pk}/").content.decode()
    rows = {name: page.split(f'data-player="{name}"')[1].split("</tr>")[0] for name in ("m0", "m1", "m2", "m3")}
    # Range 1 and no free challenges: m2 (third) may challenge m1 only.
    assert ["challenge" in row for row in rows.values()] == [False, True, False, False]
    assert 'class="challenge"' not in Client().get(f"/ladders/{ladder.pk}/").content.decode()
    assert 'class="challenge"' not in client_of(organiser).get(f"/ladders/{ladder.pk}/").content.decode()

    issued = client_of(m2).post(f"/ladders/{ladder.pk}/challenge", {"defender": "m1"}, follow=True).content.decode()
    assert "You challenged m1." in issued
    challenge = Challenge.objects.get(ladder=ladder)
    assert (challenge.challenger, challenge.defender, challenge.status) == (m2, m1, "issued")
    row = issued.split(f'data-challenge="{challenge.pk}"')[1].split("</tr>")[0]
    assert challenge.accept_by.strftime("%Y-%m-%d") in row and "Withdraw" in row
    assert 'class="challenge"' not in issued  # one open challenge at a time

    refused = client_of(m3).post(f"/ladders/{ladder.pk}/challenge", {"defender": "m0"}, follow=True)
    assert "out_of_range" in refused.content.decode()

    # The defender accepts from the page and is taken to the game; the page links to it.
    accepted = client_of(m1).post(f"/challenges/{challenge.pk}/accept")
    challenge.refresh_from_db()
    assert accepted.status_code == 302 and accepted.url == f"/games/{challenge.game_id}/play"
    page = Client().get(f"/ladders/{ladder.pk}/").content.decode()
    assert f'href="/games/{challenge.game_id}"' in page and challenge.play_by.strftime("%Y-%m-%d") in page
    finish_game(challenge.game_id, loser=m1)
    page = Client().get(f"/ladders/{ladder.pk}/").content.decode()
    assert 'id="results"' in page and page.index('data-player="m2"') < page.index('data-player="m1"')


def test_the_rating_ladder_draws_each_players_history(club):
    _, organiser, (m0, m1, *_), _, rating = club
    for member in (m0, m1):
        services.ladder_join(ladder_id=rating.pk, by=member)
    for loser in (m1, m1, m0):
        game = services.rated_game_create(ladder_id=rating.pk, by=m0, players=[m0, m1])
        finish_game(game.game_id, loser=loser)
    page = Client().get(f"/ladders/{rating.pk}/").content.decode()
    assert page.count("<svg") == 2 and page.count('class="mu"') == 2 and "ordinal" in page
    row = page.split('data-player="m0"')[1].split("</tr>")[0]
    assert "<polyline" in row and len(row.split('class="mu" points="')[1].split('"')[0].split()) == 4
    # readable: rating ticks, a date under the x axis, and a hover value per result
    assert 'class="axis y-axis"' in row and row.count('text-anchor="end"') >= 3
    titles = re.findall(r"<title>([^<]*)</title>", row)
    entry = rating.entries.get(user=m0)
    assert len(titles) == 3
    assert titles[-1].endswith(f"μ {entry.mu:.2f} ± {entry.sigma:.2f}, ordinal {entry.ordinal:.2f}")
    assert re.search(r"<text [^>]*>\d\d-\d\d \d\d:\d\d</text>", row)  # all within two days: times


def test_a_player_page(club):
    _, organiser, (m0, m1, *_), ladder, rating = club
    services.ladder_join(ladder_id=rating.pk, by=m0)
    services.ladder_join(ladder_id=rating.pk, by=m1)
    game = services.rated_game_create(ladder_id=rating.pk, by=m0, players=[m0, m1])
    finish_game(game.game_id, loser=m1)
    page = Client().get("/players/m0/").content.decode()
    assert 'href="/clubs/go-club/"' in page and f'href="/ladders/{ladder.pk}/"' in page
    assert f'data-game="{game.game_id}"' in page and "<svg" in page
    assert Client().get("/players/nobody/").status_code == 404


def test_the_league_pages_in_japanese(club):
    _, organiser, members, ladder, rating = club
    japanese = client_of(organiser, "ja").get("/clubs/go-club/").content.decode()
    assert '<html lang="ja">' in japanese and "メンバー" in japanese and "プレイヤーを招待" in japanese
    ladder_page = Client(HTTP_ACCEPT_LANGUAGE="ja").get(f"/ladders/{ladder.pk}/").content.decode()
    assert "順位" in ladder_page and "チャレンジラダー" in ladder_page


def test_the_rating_chart_geometry():
    from datetime import UTC, datetime, timedelta
    from types import SimpleNamespace

    from web.charts import HEIGHT, LEFT, TOP, WIDTH, nice_step, rating_chart

    start = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)

    def point(mu, sigma, at, before=(25.0, 0.0)):
        return SimpleNamespace(mu_before=before[0], sigma_before=before[1], mu=mu, sigma=sigma,
                               ordinal=mu - 3 * sigma, at=at)  # fmt: skip

    assert rating_chart([]) is None
    assert [nice_step(17, 4), nice_step(0.9, 4), nice_step(130, 4)] == [5, 0.2, 50]
    flat = rating_chart([point(25.0, 0.0, start)])
    assert flat.count == 1 and flat.low < 25 < flat.high  # no division by zero; one moment: x by order
    assert flat.mu.split()[0].endswith(f",{(TOP + flat.bottom) / 2:.1f}")  # drawn across the middle
    assert flat.mu.split()[0].startswith(f"{LEFT:.1f},") and len(flat.x_ticks) == 1
    rising = rating_chart([point(30.0, 1.0, start + timedelta(days=10), before=(20.0, 2.0))])
    (x0, y0), (x1, y1) = (tuple(map(float, p.split(","))) for p in rising.mu.split())
    assert x0 < x1 and y1 < y0  # one moment: spread by order; higher ratings are drawn higher up
    # the axis is widened to round ticks (5 apart) covering every drawn value (14 .. 31)
    assert (rising.low, rising.high) == (10, 35)
    assert [t.label for t in rising.y_ticks] == ["10", "15", "20", "25", "30", "35"]
    assert rising.y_ticks[-1].at == TOP and max(y0, y1) <= rising.bottom < HEIGHT

    season = [point(25 + k, 8 - k / 2, start + timedelta(days=7 * k)) for k in range(1, 9)]
    with translation.override("en"):  # the hover text is in the page's language
        chart = rating_chart(season)
    assert [t.label for t in chart.x_ticks] == ["2026-03-08", "2026-03-24", "2026-04-10", "2026-04-26"]
    assert chart.x_ticks[0].at == LEFT and chart.x_ticks[-1].at == chart.right < WIDTH
    xs = [m.x for m in chart.markers]
    assert xs == sorted(xs) and len(xs) == 8 and xs[-1] == chart.right
    gaps = [round(b - a, 1) for a, b in zip(xs, xs[1:], strict=False)]
    assert max(gaps) - min(gaps) <= 0.2  # weekly results, evenly spaced in time
    assert chart.markers[2].title == "2026-03-22 12:00: μ 28.00 ± 6.50, ordinal 8.50"
