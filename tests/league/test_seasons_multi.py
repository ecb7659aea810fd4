"""Multiplayer seasonal leagues: the schedule's evenness, placement points and tables, fixtures of
3-6 seats, results from games, forfeits at the play-by date, corrections, promotion and relegation,
and the API."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games.models import Game
from games.services import ServiceError, game_forfeit
from league.seasons import scoring, selectors, services
from league.seasons.models import Fixture, Season
from tests.league.test_seasons_services import enrol

SEATS = {"preferred": 4, "min": 3, "max": 4}


# ---- the maths -----------------------------------------------------------------------------------
def meetings(schedule) -> Counter:
    met = Counter()
    for tables in schedule:
        for table in tables:
            for a, b in itertools.combinations(table, 2):
                met[frozenset((a, b))] += 1
    return met


@pytest.mark.parametrize(
    ("players", "seats", "cycles"),
    [
        (7, SEATS, 1),
        (8, SEATS, 1),
        (9, {"preferred": 3, "min": 3, "max": 3}, 1),
        (10, SEATS, 2),
        (12, SEATS, 1),
        (13, {"preferred": 4, "min": 3, "max": 5}, 1),
        (16, {"preferred": 4, "min": 4, "max": 4}, 2),
        (20, {"preferred": 5, "min": 3, "max": 5}, 1),
        (24, {"preferred": 6, "min": 3, "max": 6}, 1),
    ],
)
def test_the_schedule_spreads_meetings_evenly(players, seats, cycles):
    names = [f"p{i}" for i in range(players)]
    schedule = scoring.table_schedule(names, seats=seats, cycles=cycles, seed=7)
    for tables in schedule:  # everyone plays every round, at a table of an allowed size
        assert sorted(p for table in tables for p in table) == sorted(names)
        assert all(seats["min"] <= len(table) <= seats["max"] for table in tables)
    met = meetings(schedule)
    counts = [met[frozenset(pair)] for pair in itertools.combinations(names, 2)]
    assert max(counts) - min(counts) <= 2, Counter(counts)
    assert max(counts) <= cycles + 1
    if cycles == 2:
        assert min(counts) >= 1  # a double cycle: everyone meets everyone
    # enough rounds for each player to meet the others ``cycles`` times at the mean table size
    assert sum(len(t) - 1 for tables in schedule for t in tables if names[0] in t) >= cycles * (players - 1) - 3
    assert schedule == scoring.table_schedule(names, seats=seats, cycles=cycles, seed=7)  # reproducible


def test_the_search_beats_seating_in_order():
    """The local search matters: cutting the same random orders into tables without it repeats more."""
    names = list(range(12))
    schedule = scoring.table_schedule(names, seats=SEATS, cycles=1, seed=1)
    counts = Counter(meetings(schedule)[frozenset(p)] for p in itertools.combinations(names, 2))
    naive = [[names[r::3] for r in range(3)] for _ in range(4)]  # the same tables every round
    naive_counts = Counter(meetings(naive)[frozenset(p)] for p in itertools.combinations(names, 2))
    assert max(counts) <= 2 < max(naive_counts)


def test_seat_order_evens_out():
    names = list(range(8))
    schedule = scoring.table_schedule(names, seats={"preferred": 4, "min": 4, "max": 4}, cycles=2, seed=3)
    for player in names:
        seats = Counter(table.index(player) for tables in schedule for table in tables if player in table)
        assert max(seats.values()) - min(seats.get(i, 0) for i in range(4)) <= 1


def test_a_multiplayer_division_table_uses_placement_points_and_strict_positions():
    tables = [
        scoring.TableOutcome((("a",), ("b", "c"), ("d",)), {"a": 10, "b": 5}),
        scoring.TableOutcome((("d",), ("a",), ("c",), ("b",)), {}),
        scoring.TableOutcome((("a", "b", "c", "d"),), {}, double_forfeit=True),
    ]
    lines = scoring.multi_division_table(["a", "b", "c", "d"], tables, placement_points=[3, 2, 1, 0])
    by = {line.player: line for line in lines}
    assert by["a"].points == 3 + 2 and by["b"].points == 1.5 + 0 and by["c"].points == 1.5 + 1
    assert by["d"].points == 0 + 3
    assert [line.player for line in lines] == ["a", "d", "c", "b"] and [line.position for line in lines] == [1, 2, 3, 4]
    assert by["a"].wins == 1 and by["a"].played == 3 and by["a"].losses == 2  # the double forfeit is a loss
    assert by["a"].tiebreaks["game_points"] == 10
    linear = scoring.multi_division_table(["a", "b", "c", "d"], tables[:1])
    assert {line.player: line.points for line in linear} == {"a": 1.0, "b": 0.5, "c": 0.5, "d": 0.0}


# ---- the services --------------------------------------------------------------------------------
pytestmark_db = pytest.mark.django_db


def satori_league(club, organiser, clock, **settings):
    return services.league_create(
        club_id=club.pk,
        by=organiser,
        name=settings.pop("name", "Satori League"),
        engine="satori",
        tables=settings.pop("tables", {"seats": SEATS, "placement_points": [3, 2, 1, 0]}),
        now=clock.now,
        **settings,
    )


def end_game(fixture: Fixture, *, order: list[int]) -> Game:
    """End a fixture's game: seats resign in ``order`` (the last seat standing wins); record it."""
    game_forfeit(game_id=fixture.game_id, seats=order, reason="test")
    assert services.season_game_finished(game_id=fixture.game_id)
    return Game.objects.get(pk=fixture.game_id)


@pytest.mark.django_db
def test_a_season_of_tables_fixtures_results_and_the_next_season(club_with, clock):
    club, organiser, members = club_with(8)
    league = satori_league(club, organiser, clock, divisions=2, promote=1, relegate=1, cycles=2)
    assert league.tables == {"seats": SEATS, "placement_points": [3.0, 2.0, 1.0, 0.0]}
    enrol(league, organiser, members, clock)
    season = services.season_start(league_id=league.pk, by=organiser, now=clock.now)
    assert season.rules["tables"] == league.tables
    fixtures = list(season.fixtures.order_by("division__tier", "round", "board"))
    assert season.rounds == 2  # 4 players at one table: each round they all meet; two cycles
    assert len(fixtures) == 4 and all(len(f.players) == 4 for f in fixtures)
    for fixture in fixtures:
        game = Game.objects.get(pk=fixture.game_id)
        assert game.engine == "satori" and game.status == "running"
        assert list(game.seats.order_by("index").values_list("user_id", flat=True)) == fixture.players
        assert [fixture.home_id, fixture.away_id] == fixture.players[:2] == fixture.seat_ids[:2]
    top = [f for f in fixtures if f.division.tier == 1]
    winner = top[0].players[3]
    for fixture in top:  # seat order fixed per fixture; make the same player win each one
        rest = [i for i, pk in enumerate(fixture.players) if pk != winner]
        end_game(fixture, order=rest)
    played = Fixture.objects.get(pk=top[0].pk)
    assert played.result == scoring.PLACED and played.method == Fixture.Method.PLAYED
    assert played.placements[0] == [winner] and played.points[str(winner)] == 3.0
    assert sum(played.points.values()) == 6.0  # 3+2+1+0, shared by the engine's tied places
    table = selectors.season_standings(season=season)[0]["standings"]
    assert table[0]["username"] == next(m.username for m in members if m.pk == winner)
    assert table[0]["points"] == 6 and table[0]["wins"] == 2 and table[0]["zone"] is None  # top: none up
    assert [row["position"] for row in table] == [1, 2, 3, 4]
    # the bottom division: one game played, the rest forfeited at the play-by date
    bottom = [f for f in fixtures if f.division.tier == 2]
    end_game(bottom[0], order=[0, 1, 2])
    on_turn = {f.pk: [f.players[seat] for seat in Game.objects.get(pk=f.game_id).actors] for f in bottom[1:]}
    clock.advance(days=30)
    assert services.season_sweep(season_id=season.pk, now=clock.now) == 1
    for fixture in Fixture.objects.filter(pk__in=[f.pk for f in bottom[1:]]):
        assert fixture.method == Fixture.Method.FORFEIT and fixture.result == scoring.PLACED
        assert fixture.placements[1] == on_turn[fixture.pk]  # the player the game waited on lost
        assert fixture.points[str(on_turn[fixture.pk][0])] == 0.0 and fixture.points[str(fixture.placements[0][0])] == 2
        assert Game.objects.get(pk=fixture.game_id).is_finished
        assert "play-by date" in fixture.note
    season.refresh_from_db()
    assert season.status == Season.Status.CLOSED and season.final_standings
    final = [[row["username"] for row in d["standings"]] for d in season.final_standings]
    plan = selectors.next_season_plan(league=league)
    names = [[user.username for user, _ in division] for division in plan.divisions]
    assert names[0][-1] == final[1][0] and names[1][0] == final[0][-1]  # one up, one down
    second = services.season_start(league_id=league.pk, by=organiser, now=clock.now)
    assert all(len(f.players) == 4 for f in second.fixtures.all())


@pytest.mark.django_db
def test_a_double_forfeit_and_corrections(club_with, clock):
    club, organiser, members = club_with(4)
    league = satori_league(club, organiser, clock)
    enrol(league, organiser, members, clock)
    season = services.season_start(league_id=league.pk, by=organiser, now=clock.now)
    fixture = season.fixtures.order_by("round").first()
    services.season_close(season_id=season.pk, by=organiser, now=clock.now)
    fixture.refresh_from_db()
    assert fixture.result in (scoring.PLACED, scoring.DOUBLE_FORFEIT) and fixture.method == Fixture.Method.FORFEIT
    names = {m.pk: m.username for m in members}
    order = [names[pk] for pk in fixture.players]
    ranking = [[order[2]], [order[0], order[1]], [order[3]]]
    with pytest.raises(ServiceError) as refused:
        services.fixture_correct(fixture_id=fixture.pk, by=organiser, result="home", reason="sheet")
    assert refused.value.code == "invalid_result"
    for bad in ([[order[0]]], [[order[0], order[0]], [order[1]], [order[2]], [order[3]]], [["nobody"]]):
        with pytest.raises(ServiceError) as refused:
            services.fixture_correct(fixture_id=fixture.pk, by=organiser, result="placed", ranking=bad, reason="x")
        assert refused.value.code == "invalid_result" and order[0] in refused.value.message
    services.fixture_correct(fixture_id=fixture.pk, by=organiser, result="placed", ranking=ranking, reason="sheet")
    fixture.refresh_from_db()
    assert fixture.method == Fixture.Method.CORRECTION and fixture.result == scoring.PLACED
    assert fixture.points == {str(fixture.players[2]): 3.0, str(fixture.players[0]): 1.5,
                              str(fixture.players[1]): 1.5, str(fixture.players[3]): 0.0}  # fmt: skip
    season.refresh_from_db()
    frozen = {row["username"]: row["points"] for row in season.final_standings[0]["standings"]}
    assert frozen[order[2]] >= 3.0  # the closed season's tables follow the correction
    services.fixture_correct(fixture_id=fixture.pk, by=organiser, result="double_forfeit", reason="no show")
    fixture.refresh_from_db()
    assert fixture.result == scoring.DOUBLE_FORFEIT and set(fixture.points.values()) == {0.0}


@pytest.mark.django_db
def test_divisions_that_do_not_split_into_tables_are_refused(club_with, clock):
    club, organiser, members = club_with(5)
    league = satori_league(club, organiser, clock)  # 3-4 seats: five players cannot be seated
    enrol(league, organiser, members, clock)
    with pytest.raises(ServiceError) as refused:
        services.season_start(league_id=league.pk, by=organiser, now=clock.now)
    assert refused.value.code == "division_unseatable" and refused.value.status == 409
    services.league_update(league_id=league.pk, by=organiser, tables={"seats": {"preferred": 5, "min": 3, "max": 5}})
    season = services.season_start(league_id=league.pk, by=organiser, now=clock.now)
    assert season.fixtures.count() == 1 and len(season.fixtures.get().players) == 5


@pytest.mark.django_db
def test_a_game_two_cannot_play_gets_tables_by_default(club_with, clock):
    club, organiser, _ = club_with(1)
    league = services.league_create(club_id=club.pk, by=organiser, name="Thieves", engine="turn-thief", now=clock.now)
    assert league.tables["seats"] == {"preferred": 4, "min": 4, "max": 4} and league.is_multiplayer
    two = services.league_create(club_id=club.pk, by=organiser, name="Satori pairs", engine="satori", now=clock.now)
    assert two.tables == {} and not two.is_multiplayer  # a game two can play: two-player fixtures by default


# ---- the API -------------------------------------------------------------------------------------
@pytest.mark.django_db
def test_the_api_creates_lists_and_corrects_table_fixtures(club_with, clock):
    club, organiser, members = club_with(4)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=organiser).key}")
    body = {"name": "Believers League", "engine": "believers", "tables": {"seats": {"preferred": 4, "max": 4}}}
    created = api.post(f"/api/clubs/{club.slug}/leagues", body, format="json")
    assert created.status_code == 201, created.content
    league = created.json()
    assert league["tables"] == {"seats": {"preferred": 4, "min": 3, "max": 4}} and league["mature"] is False
    for member in members:
        assert api.post(f"/api/leagues/{league['id']}/players", {"username": member.username}).status_code == 201
    season = api.post(f"/api/leagues/{league['id']}/seasons", {}, format="json").json()
    fixtures = api.get(f"/api/seasons/{season['id']}/fixtures").json()
    assert len(fixtures) == 1 and all(len(f["players"]) == 4 and f["placements"] is None for f in fixtures)
    assert {f["players"][0] for f in fixtures} <= {m.username for m in members}
    first = fixtures[0]
    Fixture.objects.filter(pk=first["id"]).update(result="double_forfeit", method="forfeit", points={})
    ranking = [[first["players"][1]], [first["players"][0]], [first["players"][2], first["players"][3]]]
    answer = api.post(
        f"/api/fixtures/{first['id']}/correction",
        {"result": "placed", "ranking": ranking, "reason": "score sheet"},
        format="json",
    )
    assert answer.status_code == 200, answer.content
    fixed = answer.json()
    assert fixed["placements"] == ranking and fixed["score"] is None and fixed["result"] == "placed"
    third = pytest.approx(1 / 6)  # linear at four seats: 1, 2/3, 1/3, 0 - the last two shared
    assert fixed["points"] == {first["players"][1]: 1.0, first["players"][0]: pytest.approx(2 / 3),
                               first["players"][2]: third, first["players"][3]: third}  # fmt: skip
    bad = api.post(f"/api/fixtures/{first['id']}/correction", {"result": "home", "reason": "x"}, format="json")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_result"
    standings = api.get(f"/api/seasons/{season['id']}/standings").json()
    assert standings["divisions"][0]["standings"][0]["username"] == first["players"][1]
    sheet = api.get(f"/api/seasons/{season['id']}/standings.csv")
    assert sheet.status_code == 200 and first["players"][1] in sheet.content.decode("utf-8-sig")
    feed = api.get(f"/api/seasons/{season['id']}/calendar.ics").content.decode()
    assert " v ".join(first["players"]) in feed.replace("\r\n ", "")
