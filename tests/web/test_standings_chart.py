"""The standings-by-round chart (issue 18): its geometry (axes, round labels, hover values, the leaders'
lines) and its place on the tournament and season pages, English and Japanese."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from league import services
from league.seasons import services as season_services
from league.tournaments import lifecycle, ops
from tests.web.accounts import client_of, user
from web.brackets import points_text
from web.charts import MAX_LINES, ROUND_WIDTH, standings_chart


def test_nothing_to_draw_before_a_result():
    assert standings_chart({}) is None
    assert standings_chart({"aki": [0.0, 0.0], "ben": [0.0, 0.0]}) is None


def test_cumulative_points_axes_and_hover_values():
    with translation.override("en"):
        chart = standings_chart({"aki": [1, 1, 0.5], "ben": [0, 1, 1], "chie": [0.5, 0]}, points_text=points_text)
    assert chart.rounds == 3 and chart.width <= 390 and chart.players == 3
    assert [tick.label for tick in chart.x_ticks] == ["R1", "R2", "R3"]
    assert chart.y_ticks[0].label == "0" and chart.y_ticks[-1].label in ("2½", "3")
    aki, ben, chie = chart.lines
    assert [m.title for m in aki.markers] == [
        "aki, round 1: 1 points, place 1",
        "aki, round 2: 2 points, place 1",
        "aki, round 3: 2½ points, place 1",
    ]
    assert ben.markers[2].title == "ben, round 3: 2 points, place 2" and chie.final == "½"
    assert chie.markers[1].title == "chie, round 2: ½ points, place 3"  # aki 2, ben 1, chie ½
    ys = [m.y for m in aki.markers]
    assert ys == sorted(ys, reverse=True)  # more points, higher up
    xs = [m.x for m in aki.markers]
    assert xs == sorted(xs) and xs[-1] <= chart.right and aki.points.startswith(f"{chart.left:.1f},")
    assert {line.css for line in chart.lines} == {"series-0", "series-1", "series-2"}


def test_ties_share_a_place_and_only_the_leaders_are_drawn():
    players = {f"p{i}": [1.0 if i < 2 else 0.0] for i in range(12)}
    chart = standings_chart(players)
    assert len(chart.lines) == MAX_LINES and chart.players == 12
    assert chart.lines[0].markers[0].title.endswith("place 1") and chart.lines[1].markers[0].title.endswith("place 1")
    assert chart.lines[2].markers[0].title.endswith("place 3")
    many = standings_chart({"a": [1.0] * 30, "b": [0.0] * 30})
    assert len(many.x_ticks) <= 15 and many.x_ticks[0].label == "R1" and many.width == ROUND_WIDTH


def test_in_japanese():
    with translation.override("ja"):
        chart = standings_chart({"aki": [1.0]})
    assert chart.x_ticks[0].label == "第1R" and chart.lines[0].markers[0].title == "aki、第1ラウンド: 1.0点、1位"


@pytest.mark.django_db
def test_the_tournament_and_season_pages_draw_it():
    organiser = user("org")
    club = services.club_create(name="Go Club", slug="go-club", by=organiser)
    members = []
    for index in range(4):
        member = user(f"p{index}")
        services.membership_invite(club_id=club.pk, by=organiser, user=member)
        services.membership_join(club_id=club.pk, by=member)
        members.append(member)
    tournament = lifecycle.tournament_create(
        club_id=club.pk, by=organiser, name="Cup", engine="nine-card", format="round_robin"
    )
    for member in members:
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=member)
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser)
    page = client_of(organiser).get(f"/tournaments/{tournament.pk}/").content.decode()
    assert 'id="round-chart"' not in page  # no result yet: nothing to draw
    board = tournament.boards.filter(round=1).order_by("number").first()
    ops.tournament_result_correct(
        tournament_id=tournament.pk, by=organiser, round=1, board=board.number, ranking=[[board.first], [board.second]]
    )
    page = client_of(organiser).get(f"/tournaments/{tournament.pk}/").content.decode()
    chart = re.search(r'<figure class="round-chart" id="round-chart">.*?</figure>', page, re.S).group(0)
    assert f"<title>{board.first.username}, round 1: 1 points, place 1</title>" in chart
    assert 'role="img"' in chart and "R1" in chart

    league = season_services.league_create(
        club_id=club.pk, by=organiser, name="Satori League", engine="satori", tables={"seats": {"preferred": 4}}
    )
    for member in members:
        season_services.league_player_add(league_id=league.pk, by=organiser, user=member)
    season = season_services.season_start(league_id=league.pk, by=organiser)
    season_services.season_close(season_id=season.pk, by=organiser)
    page = client_of(organiser, "ja").get(f"/seasons/{season.pk}/").content.decode()
    chart = re.search(r'<figure class="round-chart" id="round-chart-1">.*?</figure>', page, re.S).group(0)
    assert "ラウンドごとの得点" in page and "第1R" in chart and chart.count("<title>") == 4
