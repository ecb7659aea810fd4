"""Reported results (issue 17): report, confirm, dispute, settle and auto-confirm for every kind of
pairing; standings and ratings follow; refusals have stable codes; steps are idempotent; a table
game is its keeper's report; an online game is never overridden."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.db import transaction

from games import services as game_services
from games.models import Game
from games.table import table_entry_submit
from league import services
from league.models import LadderEntry, LadderEvent, Match, ResultReport, ResultReportStep, TournamentBoard
from league.reports import services as reports
from league.reports.pairings import (
    NOT_TAKEN,
    ONLINE_RESULT,
    TABLE_RESULT,
    game_route,
    pairing_game_replace,
    pairing_get,
    pairing_of_game,
)
from league.scoring import ladder as rules
from league.seasons import services as season_services
from league.seasons.models import Fixture
from league.tournaments import lifecycle

pytestmark = pytest.mark.django_db
TABLE = {"results": "table", "report_confirm_hours": 24}
EITHER = {"results": "either", "report_confirm_hours": 24}


def refused(code: str, call, status: int | None = None):
    with pytest.raises(services.ServiceError) as error:
        call()
    assert error.value.code == code, error.value.message
    if status is not None:
        assert error.value.status == status
    return error.value


def challenge_ladder(club_with, clock, count=3, **settings):
    club, organiser, members = club_with(count)
    ladder = services.ladder_create(
        club_id=club.pk, by=organiser, engine="nine-card", settings={**TABLE, **settings}, now=clock.now
    )
    for member in members:
        services.ladder_join(ladder_id=ladder.pk, by=member, now=clock.now)
        clock.advance(minutes=1)
    return ladder, organiser, members


def order(ladder) -> list[str]:
    entries = LadderEntry.objects.filter(ladder=ladder, position__isnull=False).order_by("position")
    return [entry.user.username for entry in entries]


def test_a_challenge_reported_and_confirmed_moves_the_ladder_like_a_played_game(club_with, clock):
    ladder, organiser, (top, middle, bottom) = challenge_ladder(club_with, clock)
    assert order(ladder) == ["m0", "m1", "m2"]
    challenge = services.challenge_create(ladder_id=ladder.pk, by=bottom, defender=middle, now=clock.now)
    key = str(challenge.pk)
    # outsiders, a malformed ranking and a player not in the pairing are refused
    refused("not_in_pairing", lambda: reports.result_report(kind="challenge", pairing=key, by=top, ranking=[[1]]), 403)
    refused(
        "player_not_in_pairing",
        lambda: reports.result_report(kind="challenge", pairing=key, by=bottom, ranking=[[bottom.pk], [top.pk]]),
    )
    refused("invalid_ranking", lambda: reports.result_report(kind="challenge", pairing=key, by=bottom, ranking=[]))
    refused(
        "not_found", lambda: reports.result_report(kind="challenge", pairing=str(uuid.uuid4()), by=bottom, ranking=[])
    )
    refused("unknown_pairing_kind", lambda: reports.result_report(kind="duel", pairing=key, by=bottom, ranking=[]))
    report = reports.result_report(
        kind="challenge", pairing=key, by=bottom, ranking=[[bottom.pk], [middle.pk]],
        scores={bottom.pk: 3, middle.pk: 1}, idempotency_key="k1", now=clock.now,
    )  # fmt: skip
    assert report.status == "pending" and order(ladder) == ["m0", "m1", "m2"]  # nothing moves yet
    # the same report again with the same key does nothing twice; another report is refused
    again = reports.result_report(
        kind="challenge", pairing=key, by=bottom, ranking=[[bottom.pk], [middle.pk]], idempotency_key="k1"
    )
    assert again.pk == report.pk and ResultReport.objects.count() == 1
    refused(
        "report_open",
        lambda: reports.result_report(kind="challenge", pairing=key, by=middle, ranking=[[middle.pk], [bottom.pk]]),
    )
    refused("own_report", lambda: reports.result_confirm(kind="challenge", pairing=key, by=bottom))
    refused(
        "idempotency_key_reused",
        lambda: reports.result_dispute(kind="challenge", pairing=key, by=bottom, idempotency_key="k1"),
    )
    clock.advance(hours=1)
    reports.result_confirm(kind="challenge", pairing=key, by=middle, idempotency_key="c1", now=clock.now)
    report.refresh_from_db()
    challenge.refresh_from_db()
    assert report.status == "confirmed" and challenge.status == "decided"
    assert challenge.outcome == {"winner": bottom.pk, "reason": "report"}
    assert order(ladder) == ["m0", "m2", "m1"]  # the challenger's win swaps them
    kinds = list(LadderEvent.objects.filter(ladder=ladder).order_by("seq").values_list("kind", flat=True))
    assert kinds[-3:] == [rules.RESULT_REPORTED, rules.RESULT_CONFIRMED, rules.RESULT]
    result = LadderEvent.objects.filter(ladder=ladder, kind=rules.RESULT).get()
    assert result.payload["source"] == "report" and result.actor_id == middle.pk
    # a repeat of the confirmation with its key returns; without one it is refused: decided
    assert reports.result_confirm(kind="challenge", pairing=key, by=middle, idempotency_key="c1").pk == report.pk
    refused("pairing_decided", lambda: reports.result_confirm(kind="challenge", pairing=key, by=middle), 409)
    assert services.ladder_verify(ladder=ladder)["ok"]
    steps = list(ResultReportStep.objects.filter(report=report).values_list("kind", "actor_id"))
    assert steps == [("reported", bottom.pk), ("confirmed", middle.pk)]


def test_online_only_refuses_reports_and_either_refuses_them_once_the_game_is_played(club_with, clock):
    ladder, organiser, (top, middle, bottom) = challenge_ladder(club_with, clock, results="online")
    challenge = services.challenge_create(ladder_id=ladder.pk, by=bottom, defender=middle, now=clock.now)
    services.challenge_accept(challenge_id=challenge.pk, by=middle, now=clock.now)
    key = str(challenge.pk)
    report = lambda: reports.result_report(kind="challenge", pairing=key, by=bottom, ranking=[[bottom.pk], [middle.pk]])  # noqa: E731
    refused("reports_not_allowed", report, 409)
    reports.reporting_set(owner="ladder", owner_id=ladder.pk, by=organiser, results="either")
    refused(
        "not_organiser", lambda: reports.reporting_set(owner="ladder", owner_id=ladder.pk, by=bottom, results="table")
    )
    refused(
        "invalid_results_mode",
        lambda: reports.reporting_set(owner="ladder", owner_id=ladder.pk, by=organiser, results="x"),
    )
    challenge.refresh_from_db()
    move = game_services.move_submit(
        game_id=challenge.game_id, user=middle, move={"type": "resign"}, idempotency_key="r"
    )
    assert move.submission.status == "pending"
    game_services.game_advance(game_id=challenge.game_id)
    assert game_route(challenge.game_id) == ONLINE_RESULT
    refused("online_game_in_play", report, 409)

    def enter():
        reports.result_settle(kind="challenge", pairing=key, by=organiser, ranking=[[bottom.pk], [middle.pk]])

    refused("online_game_in_play", enter, 409)  # an organiser does not override it either
    services.league_game_finished(game_id=challenge.game_id, now=clock.now)  # the server's result decides
    refused(
        "pairing_decided",
        lambda: reports.result_settle(kind="challenge", pairing=key, by=organiser, ranking=[[middle.pk], [bottom.pk]]),
    )


def test_a_disputed_board_is_settled_by_an_organiser_and_pairs_the_next_round(
    club_with, clock, django_capture_on_commit_callbacks
):
    club, organiser, members = club_with(4)
    tournament = lifecycle.tournament_create(
        club_id=club.pk, by=organiser, name="Cup", engine="nine-card", format="swiss", rounds=2, now=clock.now,
        settings=EITHER,
    )  # fmt: skip
    for member in members:
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=member, now=clock.now)
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    boards = list(TournamentBoard.objects.filter(tournament=tournament, round=1).order_by("number"))
    first, second = boards
    a, b = first.first, first.second
    reports.result_report(kind="board", pairing=first.pk, by=a, ranking=[[a.pk], [b.pk]], now=clock.now)
    refused(
        "reports_disputed" if False else "not_organiser",
        lambda: reports.result_settle(kind="board", pairing=first.pk, by=a),
    )
    reports.result_dispute(kind="board", pairing=first.pk, by=b, reason="I won on the last trick", now=clock.now)
    refused("report_disputed", lambda: reports.result_confirm(kind="board", pairing=first.pk, by=b))
    clock.advance(days=5)
    assert reports.reports_sweep(now=clock.now) == 0  # a disputed report waits for the organiser
    settle = lambda: reports.result_settle(  # noqa: E731
        kind="board", pairing=first.pk, by=organiser, ranking=[[b.pk], [a.pk]], reason="score sheet",
        idempotency_key="s1", now=clock.now,
    )  # fmt: skip
    settled = settle()
    assert settle().pk == settled.pk  # sent again: nothing twice
    assert ResultReportStep.objects.filter(report=settled, kind="settled").count() == 1
    first.refresh_from_db()
    assert first.decided_by == "report" and first.placements == [[b.pk], [a.pk]] and first.score_first == 0.0
    # the other board: an organiser enters it directly; the round completes and queues the next
    c, d = second.first, second.second
    with django_capture_on_commit_callbacks() as callbacks:
        reports.result_settle(kind="board", pairing=second.pk, by=organiser, ranking=[[c.pk, d.pk]], now=clock.now)
    assert len(callbacks) == 1
    second.refresh_from_db()
    assert second.points == {str(c.pk): 0.5, str(d.pk): 0.5}
    kinds = list(ResultReportStep.objects.filter(report__tournament=tournament).values_list("kind", flat=True))
    assert sorted(kinds) == ["disputed", "entered", "reported", "settled"]
    lifecycle.tournament_advance(tournament_id=tournament.pk, now=clock.now)
    tournament.refresh_from_db()
    assert tournament.current_round == 2


def test_a_fixture_report_confirms_itself_when_its_time_runs_out(club_with, clock):
    club, organiser, members = club_with(2)
    league = season_services.league_create(club_id=club.pk, by=organiser, name="L", engine="nine-card", now=clock.now)
    for member in members:
        season_services.league_player_add(league_id=league.pk, by=organiser, user=member, now=clock.now)
    season = season_services.season_start(league_id=league.pk, by=organiser, now=clock.now)
    fixture = Fixture.objects.filter(season=season).order_by("round").first()
    home, away = fixture.home, fixture.away
    refused(
        "reports_not_allowed",
        lambda: reports.result_report(kind="fixture", pairing=fixture.pk, by=home, ranking=[[home.pk], [away.pk]]),
    )
    setting = reports.reporting_set(owner="season", owner_id=season.pk, by=organiser, results="table", confirm_hours=12)
    assert setting == {"results": "table", "report_confirm_hours": 12.0}
    assert game_route(fixture.game_id) == NOT_TAKEN  # a game on the server decides nothing now
    reports.result_report(
        kind="fixture", pairing=fixture.pk, by=away, ranking=[[away.pk], [home.pk]], scores={home.pk: 2, away.pk: 3},
        now=clock.now,
    )  # fmt: skip
    assert reports.reports_sweep(now=clock.advance(hours=11)) == 0
    assert reports.reports_sweep(now=clock.advance(hours=2)) == 1
    fixture.refresh_from_db()
    assert (fixture.result, fixture.method, fixture.games_home, fixture.games_away) == ("away", "reported", 2.0, 3.0)
    season.refresh_from_db()
    assert season.status == "closed"  # its last fixture decided closes it, as a played game does
    top = season.final_standings[0]["standings"][0]
    assert (top["username"], top["wins"], top["points"]) == (away.username, 1, 3.0)
    step = ResultReportStep.objects.filter(report__season=season).order_by("seq").last()
    assert step.kind == "auto_confirmed" and step.actor_id is None


def test_a_rated_game_and_a_rated_series_are_rated_by_reports(club_with, clock):
    club, organiser, (a, b, c) = club_with(3)
    ladder = services.ladder_create(
        club_id=club.pk, by=organiser, engine="nine-card", kind="rating", settings=TABLE, now=clock.now
    )
    for member in (a, b, c):
        services.ladder_join(ladder_id=ladder.pk, by=member, now=clock.now)
    link = services.rated_game_create(ladder_id=ladder.pk, by=a, players=[a, b], now=clock.now)
    key = str(link.game_id)
    reports.result_report(kind="game", pairing=key, by=a, ranking=[[a.pk], [b.pk]], now=clock.now)
    reports.result_confirm(kind="game", pairing=key, by=b, now=clock.now)
    entries = {e.user_id: e for e in LadderEntry.objects.filter(ladder=ladder)}
    assert entries[a.pk].mu > entries[b.pk].mu and entries[a.pk].played == 1
    # a rated best of 3: "a beat c 2-1"; impossible scores are refused with their code
    services.ladder_update(ladder_id=ladder.pk, by=organiser, settings={"match": {"format": "best_of", "target": 3}})
    match = services.rated_game_create(ladder_id=ladder.pk, by=a, players=[a, c], now=clock.now)
    key = str(match.pk)
    win = [[a.pk], [c.pk]]
    for scores, code in (
        (None, "series_score_required"),
        ({a.pk: 3, c.pk: 0}, "impossible_score"),
        ({a.pk: 1, c.pk: 1}, "impossible_score"),
        ({a.pk: 2, c.pk: 2}, "impossible_score"),
        ({a.pk: 1, c.pk: 2}, "ranking_disagrees_with_score"),
    ):
        refused(code, lambda s=scores: reports.result_report(kind="match", pairing=key, by=a, ranking=win, scores=s))
    reports.result_report(kind="match", pairing=key, by=c, ranking=win, scores={a.pk: 2, c.pk: 1}, now=clock.now)
    reports.result_confirm(kind="match", pairing=key, by=a, now=clock.now)
    match.refresh_from_db()
    assert match.status == "finished" and match.result == win and match.totals == {str(a.pk): 2, str(c.pk): 1}
    assert LadderEntry.objects.get(ladder=ladder, user=c).played == 1


def finish_at_table(game: Game, keeper, loser) -> None:
    """The keeper records ``loser`` resigning at the table (the recorder's own entry path)."""
    Game.objects.filter(pk=game.pk).update(source=Game.Source.TABLE, created_by=keeper)
    seat = game.seats.get(user=loser).index
    entry = {"kind": "system", "data": {"type": "resign", "seat": seat}}
    table_entry_submit(game_id=game.pk, keeper=keeper, entry=entry, idempotency_key="t")


def test_a_table_game_is_its_keepers_report_and_decides_once_confirmed(club_with, clock):
    ladder, organiser, (top, middle, bottom) = challenge_ladder(club_with, clock)
    challenge = services.challenge_create(ladder_id=ladder.pk, by=bottom, defender=middle, now=clock.now)
    services.challenge_accept(challenge_id=challenge.pk, by=middle, now=clock.now)
    challenge.refresh_from_db()
    finish_at_table(challenge.game, organiser, middle)
    assert game_route(challenge.game_id) == TABLE_RESULT
    report = reports.table_game_finished(game_id=challenge.game_id, now=clock.now)
    assert reports.table_game_finished(game_id=challenge.game_id, now=clock.now) is None  # once only
    assert (
        report.reported_by == organiser and report.confirmed_by == [] and report.ranking == [[bottom.pk], [middle.pk]]
    )
    challenge.refresh_from_db()
    assert challenge.status == "accepted"  # not decided at once
    refused(
        "table_game_result",
        lambda: reports.result_settle(
            kind="challenge", pairing=str(challenge.pk), by=organiser, ranking=[[middle.pk], [bottom.pk]]
        ),
    )
    reports.result_confirm(kind="challenge", pairing=str(challenge.pk), by=bottom, now=clock.now)
    challenge.refresh_from_db()
    assert challenge.status == "accepted"
    reports.result_confirm(kind="challenge", pairing=str(challenge.pk), by=middle, now=clock.now)
    challenge.refresh_from_db()
    assert challenge.status == "decided" and challenge.outcome["reason"] == "game"
    assert order(ladder) == ["m0", "m2", "m1"]


def test_a_board_played_as_a_series_is_reported_with_its_match_points(club_with, clock):
    club, organiser, members = club_with(2)
    tournament = lifecycle.tournament_create(
        club_id=club.pk, by=organiser, name="Cup", engine="nine-card", format="round_robin", now=clock.now,
        settings={**TABLE, "match": {"format": "first_to", "target": 2}},
    )  # fmt: skip
    for member in members:
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=member, now=clock.now)
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    board = TournamentBoard.objects.get(tournament=tournament, round=1)
    a, b = board.first, board.second
    reports.result_report(
        kind="match", pairing=board.match_id, by=a, ranking=[[b.pk], [a.pk]], scores={a.pk: 1, b.pk: 2}
    )
    reports.result_confirm(kind="board", pairing=board.pk, by=b)
    board.refresh_from_db()
    assert board.decided_by == "report" and board.game_scores == {str(a.pk): 1.0, str(b.pk): 2.0}
    assert Match.objects.get(pk=board.match_id).status == "finished"


def test_the_deadline_sweeps_leave_a_reported_pairing_to_its_report(club_with, clock):
    ladder, organiser, (top, middle, bottom) = challenge_ladder(club_with, clock, play_days=1)
    challenge = services.challenge_create(ladder_id=ladder.pk, by=bottom, defender=middle, now=clock.now)
    services.challenge_accept(challenge_id=challenge.pk, by=middle, now=clock.now)
    reports.result_report(
        kind="challenge", pairing=str(challenge.pk), by=middle, ranking=[[middle.pk], [bottom.pk]], now=clock.now
    )
    clock.advance(hours=25)  # past the play-by date: nobody moved in the server's game
    services.ladders_sweep(now=clock.now)
    challenge.refresh_from_db()
    assert challenge.status == "accepted"  # no forfeit: the report decides it
    assert reports.reports_sweep(now=clock.now) == 1  # 24 hours to confirm ran out
    challenge.refresh_from_db()
    assert challenge.status == "decided" and challenge.outcome == {"winner": middle.pk, "reason": "report"}


def table_game_like(game: Game, keeper) -> Game:
    """A table game with the seats of ``game`` (what ``games.table.table_game_for_pairing`` makes)."""
    seats = [seat.user for seat in game.seats.order_by("index")]
    table = game_services.game_create(
        engine_slug=game.engine, config=game.config, seats=seats, created_by=keeper, consent=True
    )
    Game.objects.filter(pk=table.pk).update(source=Game.Source.TABLE)
    return Game.objects.get(pk=table.pk)


def test_a_fixture_moved_to_the_table_is_decided_by_its_table_game_once_confirmed(club_with, clock):
    club, organiser, members = club_with(2)
    league = season_services.league_create(club_id=club.pk, by=organiser, name="L", engine="nine-card", now=clock.now)
    for member in members:
        season_services.league_player_add(league_id=league.pk, by=organiser, user=member, now=clock.now)
    season = season_services.season_start(league_id=league.pk, by=organiser, now=clock.now)
    reports.reporting_set(owner="season", owner_id=season.pk, by=organiser, results="either")
    fixture = Fixture.objects.get(season=season)
    server_game = fixture.game
    table = table_game_like(server_game, organiser)
    with transaction.atomic():
        assert pairing_game_replace(pairing_get("fixture", fixture.pk, lock=True), table) == str(fixture.pk)
    fixture.refresh_from_db()
    assert fixture.game_id == table.pk and pairing_of_game(table.pk) == ("fixture", str(fixture.pk))
    finish_at_table(table, organiser, fixture.away)
    assert game_route(table.pk) == TABLE_RESULT
    report = reports.table_game_finished(game_id=table.pk, now=clock.now)
    assert report.reported_by == organiser and report.ranking == [[fixture.home_id], [fixture.away_id]]
    fixture.refresh_from_db()
    assert fixture.result == ""  # waits for the players
    reports.result_confirm(kind="fixture", pairing=fixture.pk, by=fixture.home, now=clock.now)
    reports.result_confirm(kind="fixture", pairing=fixture.pk, by=fixture.away, now=clock.now)
    fixture.refresh_from_db()
    assert (fixture.result, fixture.method) == ("home", "played")  # the played game's own path


def test_a_table_games_finish_reaches_the_league_as_a_report_through_the_signal(
    club_with, clock, django_capture_on_commit_callbacks
):
    """The resign commits; on commit game_finished fires (eager Celery) and the league's receiver
    sends a table game to the report, not to the decision."""
    from kifu.celery import app as celery_app

    ladder, organiser, (top, middle, bottom) = challenge_ladder(club_with, clock)
    challenge = services.challenge_create(ladder_id=ladder.pk, by=bottom, defender=middle, now=clock.now)
    services.challenge_accept(challenge_id=challenge.pk, by=middle, now=clock.now)
    challenge.refresh_from_db()
    table = table_game_like(challenge.game, organiser)
    with transaction.atomic():
        pairing_game_replace(pairing_get("challenge", challenge.pk, lock=True), table)
    celery_app.conf.task_always_eager = True
    try:
        with django_capture_on_commit_callbacks(execute=True):
            seat = table.seats.get(user=middle).index
            entry = {"kind": "system", "data": {"type": "resign", "seat": seat}}
            table_entry_submit(game_id=table.pk, keeper=organiser, entry=entry, idempotency_key="t")
    finally:
        celery_app.conf.task_always_eager = False
    report = ResultReport.objects.get(game=table)
    assert report.status == "pending" and report.kind == "challenge" and report.pairing == str(challenge.pk)
    challenge.refresh_from_db()
    assert challenge.status == "accepted" and challenge.game_id == table.pk


def test_beat_and_the_embedded_timer_both_run_the_report_sweep(club_with, clock, settings):
    from django.utils import timezone

    from games import scheduler
    from kifu.celery import app as celery_app

    celery_app.loader.import_default_modules()
    assert "league.reports.tasks.reports_sweep" in celery_app.tasks
    schedule = settings.CELERY_BEAT_SCHEDULE["league-report-confirmations"]
    assert schedule["task"] == "league.reports.tasks.reports_sweep"
    ladder, organiser, (top, middle, bottom) = challenge_ladder(club_with, clock, report_confirm_hours=1)
    challenge = services.challenge_create(ladder_id=ladder.pk, by=bottom, defender=middle, now=clock.now)
    two_hours_ago = timezone.now() - timedelta(hours=2)
    reports.result_report(
        kind="challenge", pairing=str(challenge.pk), by=bottom, ranking=[[middle.pk], [bottom.pk]], now=two_hours_ago
    )
    settings.KIFU_EMBEDDED_PERIODIC = [entry for entry in settings.KIFU_EMBEDDED_PERIODIC if "reports" in entry[0]]
    assert settings.KIFU_EMBEDDED_PERIODIC == [("league.reports.tasks.reports_sweep", 60.0)]
    scheduler.run_periodic({}, 1e9)  # what the embedded timer thread does each tick
    challenge.refresh_from_db()
    assert challenge.status == "decided" and challenge.outcome == {"winner": middle.pk, "reason": "report"}


def test_every_other_player_of_a_multiplayer_board_confirms(club_with, clock):
    club, organiser, members = club_with(3)
    tournament = lifecycle.tournament_create(
        club_id=club.pk, by=organiser, name="Three", engine="twenty-two", format="multi_swiss", rounds=1,
        now=clock.now, settings={**TABLE, "seats": {"preferred": 3, "min": 3, "max": 3}},
    )  # fmt: skip
    for member in members:
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=member, now=clock.now)
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    board = TournamentBoard.objects.get(tournament=tournament, round=1)
    a, b, c = board.seat_ids
    ranking = [[b], [a, c]]  # a tie for second
    penalty = {a: 31.0, b: 12.0, c: 31.0}
    by = {user.pk: user for user in members}
    reports.result_report(kind="board", pairing=board.pk, by=by[a], ranking=ranking, scores=penalty, now=clock.now)
    reports.result_confirm(kind="board", pairing=board.pk, by=by[b], now=clock.now)
    board.refresh_from_db()
    assert not board.is_done  # c has not confirmed
    refused("already_confirmed", lambda: reports.result_confirm(kind="board", pairing=board.pk, by=by[b]))
    reports.result_confirm(kind="board", pairing=board.pk, by=by[c], now=clock.now)
    board.refresh_from_db()
    assert board.is_done and board.placements == ranking
    assert board.game_scores == {str(pk): value for pk, value in penalty.items()}


def test_organisers_read_their_clubs_reports_in_the_admin(club_with, make_user, clock):
    from django.test import Client

    ladder, organiser, (top, middle, bottom) = challenge_ladder(club_with, clock)
    challenge = services.challenge_create(ladder_id=ladder.pk, by=bottom, defender=middle, now=clock.now)
    report = reports.result_report(
        kind="challenge", pairing=str(challenge.pk), by=bottom, ranking=[[bottom.pk], [middle.pk]], now=clock.now
    )
    rival = make_user("rival")
    services.club_create(name="Other Club", slug="other", by=rival, now=clock.now)
    mine, theirs = Client(), Client()
    mine.force_login(organiser)
    theirs.force_login(rival)
    assert str(challenge.pk) in mine.get("/admin/league/resultreport/").text
    assert mine.get(f"/admin/league/resultreport/{report.pk}/change/").status_code == 200
    assert str(challenge.pk) not in theirs.get("/admin/league/resultreport/").text
    assert theirs.get(f"/admin/league/resultreport/{report.pk}/change/").status_code in (302, 403, 404)
