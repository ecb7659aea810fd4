"""Seasonal leagues through the services on a simulated clock: fixtures and play-by dates, results,
forfeits at the deadline, corrections, closing, and the next season's promotion and relegation."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import services as game_services
from games.accounts import account_create
from games.engines import get_engine
from games.models import Game, Submission
from games.record_io import game_verify
from games.services import ServiceError
from kifu.celery import app as celery_app
from league import services as league_services
from league.seasons import selectors, services
from league.seasons.models import DivisionPlayer, Fixture, Season

pytestmark = pytest.mark.django_db


def make_league(club, organiser, clock, **settings):
    return services.league_create(
        club_id=club.pk,
        by=organiser,
        name=settings.pop("name", "Tuesday Nine Card League"),
        engine="nine-card",
        now=clock.now,
        **settings,
    )


def enrol(league, organiser, players, clock):
    for player in players:
        services.league_player_add(league_id=league.pk, by=organiser, user=player, now=clock.now)
        clock.advance(seconds=1)


def resign(fixture: Fixture, loser, *, record: bool = True, now=None) -> None:
    game_services.move_submit(game_id=fixture.game_id, user=loser, move={"type": "resign"}, idempotency_key="r")
    game_services.game_advance(game_id=fixture.game_id)
    if record:
        assert services.season_game_finished(game_id=fixture.game_id, now=now)


def tiers(season) -> list[list[str]]:
    members = DivisionPlayer.objects.filter(season=season).select_related("user", "division")
    result: dict[int, list[str]] = {}
    for m in members.order_by("division__tier", "seed"):
        result.setdefault(m.division.tier, []).append(m.user.username)
    return [result[tier] for tier in sorted(result)]


def test_fixtures_are_the_berger_round_robin_of_each_division_with_play_by_dates(club_with, clock):
    club, organiser, members = club_with(7)
    league = make_league(club, organiser, clock, divisions=2, days_per_round=5, cycles=2)
    enrol(league, organiser, members, clock)
    season = services.season_start(league_id=league.pk, by=organiser, now=clock.now)
    assert tiers(season) == [[m.username for m in members[:4]], [m.username for m in members[4:]]]
    assert season.number == 1 and season.rounds == 6  # double round robin of 4: 6 rounds; of 3 (+bye): 6
    top = season.fixtures.filter(division__tier=1)
    assert top.count() == 12 and season.fixtures.filter(division__tier=2).count() == 6
    first = [(f.home.username, f.away.username) for f in top.filter(round=1).order_by("board")]
    assert first == [(members[0].username, members[3].username), (members[1].username, members[2].username)]
    second_leg = {(f.away_id, f.home_id) for f in top.filter(round__gt=3)}
    assert second_leg == {(f.home_id, f.away_id) for f in top.filter(round__lte=3)}  # colours reversed
    for fixture in season.fixtures.all():
        assert fixture.play_by == clock.now + timedelta(days=5 * fixture.round)
        game = Game.objects.get(pk=fixture.game_id)
        assert game.status == "running" and game.engine == "nine-card"
        assert list(game.seats.order_by("index").values_list("user_id", flat=True)) == [
            fixture.home_id,
            fixture.away_id,
        ]
    with pytest.raises(ServiceError) as refused:
        services.season_start(league_id=league.pk, by=organiser, now=clock.now)
    assert refused.value.code == "season_running" and refused.value.status == 409


def test_a_season_played_out_closes_itself_and_the_next_promotes_and_relegates(club_with, make_user, clock):
    club, organiser, members = club_with(7)
    league = make_league(club, organiser, clock, divisions=2, promote=1, relegate=1)
    enrol(league, organiser, members, clock)
    season = services.season_start(league_id=league.pk, by=organiser, now=clock.now)
    rank = {m.pk: i for i, m in enumerate(members)}
    fixtures = list(season.fixtures.select_related("home", "away").order_by("round", "division__tier", "board"))
    # the bottom seed of division 1 wins every game; otherwise the better seed wins
    upset = members[3].pk
    for fixture in fixtures:
        season.refresh_from_db()
        assert season.status == "running"
        worse = max(fixture.home, fixture.away, key=lambda u: rank[u.pk])
        better = fixture.away if worse == fixture.home else fixture.home
        loser = better if upset in (fixture.home_id, fixture.away_id) else worse
        resign(fixture, loser, now=clock.advance(hours=1))
    season.refresh_from_db()
    assert season.status == "closed" and season.closed_by is None and season.closed_at == clock.now
    final = season.final_standings
    names = [[row["username"] for row in d["standings"]] for d in final]
    m = [x.username for x in members]
    assert names == [[m[3], m[0], m[1], m[2]], [m[4], m[5], m[6]]]
    assert [row["points"] for row in final[0]["standings"]] == [9, 6, 3, 0]
    assert [row["zone"] for row in final[0]["standings"]] == [None, None, None, "relegated"]
    assert [row["zone"] for row in final[1]["standings"]] == ["promoted", None, None]
    assert services.season_game_finished(game_id=fixtures[0].game_id) is False  # a repeat changes nothing

    # between seasons: m0 leaves the league, a newcomer joins, m6 leaves the club
    newcomer = make_user("newcomer")
    league_services.membership_invite(club_id=club.pk, by=organiser, user=newcomer)
    league_services.membership_join(club_id=club.pk, by=newcomer)
    services.league_player_add(league_id=league.pk, by=organiser, user=newcomer, now=clock.now)
    services.league_player_remove(league_id=league.pk, by=organiser, user=members[0])
    league_services.membership_remove(club_id=club.pk, by=members[6], user=members[6])
    plan = selectors.next_season_plan(league=league)
    assert {u.username for u in plan.leaving} == {m[0], m[6]}
    second = services.season_start(league_id=league.pk, by=organiser, now=clock.advance(days=1))
    # division 1 without m0 is m3, m1, m2: m2 goes down; division 2 (m4, m5): m4 comes up
    assert second.number == 2 and tiers(second) == [[m[3], m[1], m[4]], [m[2], m[5], "newcomer"]]
    movement = dict(DivisionPlayer.objects.filter(season=second).values_list("user__username", "movement"))
    assert movement == {m[3]: "stayed", m[1]: "stayed", m[4]: "promoted", m[2]: "relegated", m[5]: "stayed",
                        "newcomer": "new"}  # fmt: skip
    assert second.fixtures.count() == 3 + 3
    assert season.final_standings == Season.objects.get(pk=season.pk).final_standings  # the old one is frozen


def test_the_sweep_forfeits_the_side_the_game_waits_on_and_ends_the_game_by_a_resign(club_with, clock):
    club, organiser, (a, b, c) = club_with(3)
    league = make_league(club, organiser, clock, days_per_round=7)
    enrol(league, organiser, (a, b, c), clock)
    season = services.season_start(league_id=league.pk, by=organiser, now=clock.now)
    round1 = season.fixtures.get(round=1)
    ready = round1.home
    waiting = round1.away
    game = Game.objects.get(pk=round1.game_id)
    engine = get_engine("nine-card")
    move = engine.legal_moves(engine.load_state(game.state), 0)[0]
    game_services.move_submit(game_id=game.pk, user=ready, move=move, idempotency_key="c1")
    game_services.game_advance(game_id=game.pk)
    game.refresh_from_db()
    assert game.actors == [1]  # Nine Card's simultaneous commit: now it waits on the away player only

    assert services.seasons_sweep(now=clock.now + timedelta(days=7) - timedelta(seconds=1)) == 0
    assert services.seasons_sweep(now=clock.advance(days=7, minutes=1)) == 1
    round1.refresh_from_db()
    assert (round1.result, round1.method) == ("home", "forfeit") and "away forfeited" in round1.note
    # the game is ended at once by a system event with the reason - nothing submitted for the player
    assert not Submission.objects.filter(game=game, user=waiting).exists()
    game.refresh_from_db()
    assert game.is_finished and game.outcome["ranking"][0] == [0]
    last = game.events.last()
    assert (last.kind, last.payload) == ("system", {"type": "resign", "seat": 1, "reason": "play-by date"})
    assert game_verify(game=game).ok  # the record replays and verifies
    assert services.season_game_finished(game_id=game.pk) is False  # the forfeit stands
    assert services.seasons_sweep(now=clock.now) == 0  # idempotent

    # round 2: nobody moved - a double forfeit; round 3 finished in time but its task has not run yet
    round2, round3 = season.fixtures.get(round=2), season.fixtures.get(round=3)
    resign(round3, round3.home, record=False)
    assert services.seasons_sweep(now=clock.advance(days=14)) == 2
    round2.refresh_from_db(), round3.refresh_from_db()
    assert (round2.result, round2.method) == ("double_forfeit", "forfeit")
    assert (round3.result, round3.method) == ("away", "played")
    season.refresh_from_db()
    assert season.status == "closed"  # the sweep decided the last fixtures
    table = {row["username"]: row for row in season.final_standings[0]["standings"]}
    both = {round2.home.username, round2.away.username}
    for name in both:
        assert table[name]["losses"] >= 1
    assert sum(row["played"] for row in table.values()) == 6
    assert sum(row["points"] for row in table.values()) == 3 + 3  # two wins; the double forfeit scores nothing


def test_a_move_received_before_the_play_by_date_is_applied_before_any_forfeit(club_with, clock):
    club, organiser, (a, b) = club_with(2)
    league = make_league(club, organiser, clock, days_per_round=1)
    enrol(league, organiser, (a, b), clock)
    season = services.season_start(league_id=league.pk, by=organiser, now=clock.now)
    fixture = season.fixtures.get()
    game_services.move_submit(game_id=fixture.game_id, user=a, move={"type": "resign"}, idempotency_key="late")
    Submission.objects.filter(game_id=fixture.game_id).update(received_at=clock.now + timedelta(hours=1))
    assert services.seasons_sweep(now=clock.advance(days=2)) == 1  # its move is applied, then judged
    fixture.refresh_from_db()
    assert (fixture.result, fixture.method) == ("away", "played")
    submission = Submission.objects.get(game_id=fixture.game_id)
    assert submission.status == "accepted"
    assert Game.objects.get(pk=fixture.game_id).events.last().payload == {"type": "resign", "seat": submission.seat}


def test_a_move_received_after_the_play_by_date_does_not_count(club_with, clock):
    club, organiser, (a, b) = club_with(2)
    league = make_league(club, organiser, clock, days_per_round=1)
    enrol(league, organiser, (a, b), clock)
    season = services.season_start(league_id=league.pk, by=organiser, now=clock.now)
    fixture = season.fixtures.get()
    game = Game.objects.get(pk=fixture.game_id)
    engine = get_engine("nine-card")
    seat = game.seats.get(user=a).index
    move = engine.legal_moves(engine.load_state(game.state), seat)[0]
    game_services.move_submit(game_id=game.pk, user=a, move=move, idempotency_key="late")
    Submission.objects.filter(game=game).update(received_at=fixture.play_by + timedelta(minutes=1))
    assert services.seasons_sweep(now=clock.advance(days=2)) == 1
    fixture.refresh_from_db()
    assert (fixture.result, fixture.method) == ("double_forfeit", "forfeit")  # nobody had moved by the date
    game.refresh_from_db()
    assert game.is_finished and game.events.last().payload == {"type": "resign", "seat": 0, "reason": "play-by date"}
    game_services.game_advance(game_id=game.pk)  # the late move, when a worker gets to it
    assert Submission.objects.get(game=game).code == "game_over"


def test_corrections_recompute_the_tables_until_the_next_season_starts(club_with, clock):
    club, organiser, (a, b, c) = club_with(3)
    league = make_league(club, organiser, clock, points={"win": 1, "draw": 0.5, "loss": 0})
    enrol(league, organiser, (a, b, c), clock)
    season = services.season_start(league_id=league.pk, by=organiser, now=clock.now)
    fixture = season.fixtures.get(round=1)
    with pytest.raises(ServiceError) as refused:
        services.fixture_correct(fixture_id=fixture.pk, by=organiser, result="draw", reason="x")
    assert refused.value.code == "fixture_undecided"
    resign(fixture, fixture.away)
    before = {r["username"]: r["points"] for r in selectors.season_standings(season=season)[0]["standings"]}
    assert before[fixture.home.username] == 1
    for by, result, reason, code in [
        (a, "draw", "sheet", "not_organiser"),
        (organiser, "won", "sheet", "invalid_result"),
        (organiser, "draw", "", "invalid_reason"),
    ]:
        with pytest.raises(ServiceError) as refused:
            services.fixture_correct(fixture_id=fixture.pk, by=by, result=result, reason=reason)
        assert refused.value.code == code
    corrected = services.fixture_correct(fixture_id=fixture.pk, by=organiser, result="draw", reason="score sheet")
    assert (corrected.result, corrected.method, corrected.corrected_by) == ("draw", "correction", organiser)
    after = {r["username"]: r["points"] for r in selectors.season_standings(season=season)[0]["standings"]}
    assert after[fixture.home.username] == after[fixture.away.username] == 0.5

    closed = services.season_close(season_id=season.pk, by=organiser, now=clock.advance(hours=1))
    assert closed.status == "closed" and closed.closed_by == organiser
    assert not season.fixtures.filter(result="").exists()  # the rest forfeited at the close
    services.fixture_correct(fixture_id=fixture.pk, by=organiser, result="away", reason="appeal upheld")
    closed.refresh_from_db()
    frozen = {r["username"]: r["points"] for r in closed.final_standings[0]["standings"]}
    assert frozen[fixture.away.username] == 1 and frozen[fixture.home.username] == 0
    with pytest.raises(ServiceError) as refused:
        services.season_close(season_id=season.pk, by=organiser)
    assert refused.value.code == "season_closed"
    services.season_start(league_id=league.pk, by=organiser, now=clock.advance(days=1))
    with pytest.raises(ServiceError) as refused:
        services.fixture_correct(fixture_id=fixture.pk, by=organiser, result="home", reason="too late")
    assert refused.value.code == "season_superseded"


def test_a_division_too_small_is_refused_and_explicit_divisions_are_checked(club_with, make_user, clock):
    club, organiser, members = club_with(5)
    league = make_league(club, organiser, clock, divisions=3)
    enrol(league, organiser, members, clock)
    with pytest.raises(ServiceError) as refused:
        services.season_start(league_id=league.pk, by=organiser, now=clock.now)  # 2, 2, 1
    assert refused.value.code == "division_too_small" and "division 3" in refused.value.message
    outsider = make_user("outsider")
    with pytest.raises(ServiceError) as refused:
        services.season_start(league_id=league.pk, by=organiser, divisions=[members[:2], [members[2], outsider]])
    assert refused.value.code == "not_in_league" and "outsider" in refused.value.message
    with pytest.raises(ServiceError) as refused:
        services.season_start(league_id=league.pk, by=organiser, divisions=[members[:2], members[1:3]])
    assert refused.value.code == "duplicate_player"
    season = services.season_start(
        league_id=league.pk, by=organiser, divisions=[members[3:], members[:3]], now=clock.now
    )
    assert tiers(season) == [[m.username for m in members[3:]], [m.username for m in members[:3]]]


def test_a_finished_fixture_game_reaches_the_season_through_the_signal(
    club_with, clock, django_capture_on_commit_callbacks
):
    """Resigning commits; on commit the game task runs (eager), game_finished fires, and the
    season's receiver queues its task, which records the fixture."""
    club, organiser, (a, b) = club_with(2)
    league = make_league(club, organiser, clock)
    enrol(league, organiser, (a, b), clock)
    season = services.season_start(league_id=league.pk, by=organiser)
    fixture = season.fixtures.get()
    celery_app.conf.task_always_eager = True
    try:
        with django_capture_on_commit_callbacks(execute=True):
            game_services.move_submit(
                game_id=fixture.game_id, user=fixture.away, move={"type": "resign"}, idempotency_key=uuid.uuid4().hex
            )
    finally:
        celery_app.conf.task_always_eager = False
    fixture.refresh_from_db()
    assert (fixture.result, fixture.method) == ("home", "played")
    season.refresh_from_db()
    assert season.status == "closed" and season.final_standings[0]["standings"][0]["username"] == fixture.home.username


def test_organisers_see_only_their_leagues_in_the_admin_read_only(club_with, make_user, clock):
    from django.test import Client

    from league.services import club_create

    club, organiser, members = club_with(2)
    make_league(club, organiser, clock, name="Ours")
    rival = make_user("rival")
    other = club_create(name="Other Club", slug="other", by=rival, now=clock.now)
    make_league(other, rival, clock, name="Theirs")
    browser = Client()
    browser.force_login(organiser)
    listing = browser.get("/admin/seasons/league/")
    assert listing.status_code == 200 and "Ours" in listing.text and "Theirs" not in listing.text
    assert browser.get("/admin/seasons/league/add/").status_code == 403


def test_a_season_of_more_than_2000_games_starts_in_a_bounded_number_of_queries(club_with, clock):
    """The 2,000-game limit is gone: games, seats, first events, divisions and fixtures are bulk
    inserts, so starting a season costs the same number of queries whatever its size."""
    club, organiser, members = club_with(90)
    small = make_league(club, organiser, clock, name="Small", divisions=2, cycles=1)
    enrol(small, organiser, members[:8], clock)
    with CaptureQueriesContext(connection) as few:
        services.season_start(league_id=small.pk, by=organiser, now=clock.now)
    large = make_league(club, organiser, clock, name="Large", divisions=3, cycles=2)
    enrol(large, organiser, members, clock)
    with CaptureQueriesContext(connection) as many:
        season = services.season_start(league_id=large.pk, by=organiser, now=clock.now)  # 3 x 30 x 29 = 2610 games
    assert season.fixtures.count() == 2610 and Game.objects.filter(season_fixture__season=season).count() == 2610
    assert len(many.captured_queries) <= len(few.captured_queries) + 2, [q["sql"][:80] for q in many.captured_queries]
    running = Game.objects.filter(season_fixture__season=season, status=Game.Status.RUNNING, head_seq__gte=1)
    assert running.count() == 2610  # every game dealt, as one created alone is
    assert all(game_verify(game=fixture.game).ok for fixture in season.fixtures.order_by("?")[:20])
    third = make_league(club, organiser, clock, name="Third", divisions=1)
    enrol(third, organiser, members[:33], clock)
    with pytest.raises(ServiceError) as refused:
        services.season_start(league_id=third.pk, by=organiser, divisions=[members[:31], members[31:33]])
    assert refused.value.code == "division_too_large"


def test_beat_and_the_embedded_timer_both_run_the_season_sweep(club_with, clock, settings):
    from games import scheduler

    celery_app.loader.import_default_modules()
    assert "league.seasons.tasks.seasons_sweep" in celery_app.tasks
    assert settings.CELERY_BEAT_SCHEDULE["league-season-deadlines"]["task"] == "league.seasons.tasks.seasons_sweep"
    club, organiser, (a, b) = club_with(2)
    league = make_league(club, organiser, clock, days_per_round=1)
    enrol(league, organiser, (a, b), clock)
    season = services.season_start(league_id=league.pk, by=organiser, now=timezone.now() - timedelta(days=2))
    settings.KIFU_EMBEDDED_PERIODIC = [
        (path, every) for path, every in settings.KIFU_EMBEDDED_PERIODIC if "seasons" in path
    ]
    assert settings.KIFU_EMBEDDED_PERIODIC == [("league.seasons.tasks.seasons_sweep", 60.0)]
    scheduler.run_periodic({}, 1e9)  # what the embedded timer thread does each tick
    fixture = season.fixtures.get()
    assert (fixture.result, fixture.method) == ("double_forfeit", "forfeit")


def make_bot_member(club, organiser, clock, username="robo"):
    bot, _token = account_create(username=username, password="a-long-pass-1", bot=True)
    league_services.membership_invite(club_id=club.pk, by=organiser, user=bot, now=clock.now)
    league_services.membership_join(club_id=club.pk, by=bot, now=clock.now)
    return bot


def test_bot_accounts_play_only_in_leagues_that_allow_bots(club_with, clock):
    club, organiser, (a, b, c) = club_with(3)
    bot = make_bot_member(club, organiser, clock)
    league = make_league(club, organiser, clock)
    assert league.allow_bots is False
    enrol(league, organiser, (a, b), clock)  # people are unaffected by the setting
    with pytest.raises(ServiceError) as refused:
        services.league_player_add(league_id=league.pk, by=organiser, user=bot, now=clock.now)
    assert (refused.value.code, refused.value.status) == ("bots_not_allowed", 403) and "robo" in refused.value.message
    assert not league.roster.filter(user=bot).exists()

    with pytest.raises(ServiceError) as refused:
        services.league_update(league_id=league.pk, by=organiser, allow_bots="yes")
    assert refused.value.code == "invalid_allow_bots" and refused.value.status == 400
    assert services.league_update(league_id=league.pk, by=organiser, allow_bots=True).allow_bots is True
    services.league_player_add(league_id=league.pk, by=organiser, user=bot, now=clock.now)
    assert services.league_update(league_id=league.pk, by=organiser, promote=1).allow_bots is True  # None: unchanged

    # Bots turned off again: the bot stays on the roster but no season is started with it, by
    # either the automatic plan or divisions the organiser lists; a person is still added.
    services.league_update(league_id=league.pk, by=organiser, allow_bots=False)
    services.league_player_add(league_id=league.pk, by=organiser, user=c, now=clock.now)
    for divisions in (None, [[a, bot]]):
        with pytest.raises(ServiceError) as refused:
            services.season_start(league_id=league.pk, by=organiser, divisions=divisions, now=clock.now)
        assert (refused.value.code, refused.value.status) == ("bots_not_allowed", 403)
    assert not Season.objects.filter(league=league).exists() and not Game.objects.exists()
    season = services.season_start(league_id=league.pk, by=organiser, divisions=[[a, b, c]], now=clock.now)
    assert tiers(season) == [[a.username, b.username, c.username]]
    services.season_close(season_id=season.pk, by=organiser, now=clock.now)

    services.league_update(league_id=league.pk, by=organiser, allow_bots=True)
    season = services.season_start(league_id=league.pk, by=organiser, now=clock.now)
    assert bot.username in tiers(season)[0]
    assert season.fixtures.filter(home=bot).exists() or season.fixtures.filter(away=bot).exists()


def test_a_league_created_allowing_bots_takes_them(club_with, clock):
    club, organiser, (a,) = club_with(1)
    bot = make_bot_member(club, organiser, clock)
    with pytest.raises(ServiceError) as refused:
        make_league(club, organiser, clock, allow_bots=1)
    assert refused.value.code == "invalid_allow_bots"
    league = make_league(club, organiser, clock, allow_bots=True)
    enrol(league, organiser, (a, bot), clock)
    season = services.season_start(league_id=league.pk, by=organiser, now=clock.now)
    assert sorted(tiers(season)[0]) == sorted([a.username, bot.username])


def test_a_league_refuses_a_config_its_two_player_fixtures_could_not_start(club_with, clock):
    """Issue 26: a seat limit that only the game's setup checked is refused when the league is made."""
    club, organiser, _ = club_with(2)
    with pytest.raises(ServiceError) as refused:
        services.league_create(
            club_id=club.pk,
            by=organiser,
            name="Cucumber nights",
            engine="twenty-two",
            config={"variant": "gambling_cucumber"},
            now=clock.now,
        )
    assert refused.value.code == "bad_seat_count"
