"""Round operations in-process: deadline forfeits (one-sided and double, games ended by system
resigns), drops, late entries, check-in, manual pairings and result corrections."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest

from games import services as game_services
from games.engines import get_engine
from games.models import Event, Game, Submission
from games.record_io import game_verify
from league import services
from league.models import TournamentBoard, TournamentRound
from league.tournaments import lifecycle, ops
from league.tournaments.pairing import swiss_pairing
from league.tournaments.selectors import tournament_standings

pytestmark = pytest.mark.django_db


def submit(game_id, user, move) -> None:
    game_services.move_submit(game_id=game_id, user=user, move=move, idempotency_key=uuid.uuid4().hex)
    game_services.game_advance(game_id=game_id)


def a_legal_move(game: Game, user) -> dict:
    engine = get_engine(game.engine)
    seat = game.seats.get(user=user).index
    return engine.legal_moves(engine.load_state(game.state), seat)[0]


def finish(board: TournamentBoard, loser, capture) -> None:
    with capture(execute=False):
        submit(board.game_id, loser, {"type": "resign"})
        assert lifecycle.tournament_game_finished(game_id=board.game_id)


def swiss(club, organiser, members, clock, **settings):
    tournament = lifecycle.tournament_create(
        club_id=club.pk, by=organiser, name="Open", engine="nine-card", format="swiss", seed=1, rounds=3,
        settings=settings, now=clock.now,
    )  # fmt: skip
    for member in members:
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=member, now=clock.now)
    return tournament


def test_round_deadline_forfeits_the_side_the_game_waits_on(club_with, clock, django_capture_on_commit_callbacks):
    club, organiser, members = club_with(4)
    tournament = swiss(club, organiser, members, clock, round_deadline_seconds=3600)
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    record = TournamentRound.objects.get(tournament=tournament, number=1)
    assert record.deadline_at == clock.now + timedelta(hours=1)
    one, both = TournamentBoard.objects.filter(tournament=tournament, round=1).order_by("number")
    mover = one.first
    with django_capture_on_commit_callbacks(execute=False):
        submit(one.game_id, mover, a_legal_move(one.game, mover))  # the game now waits on second only
    assert ops.tournaments_sweep(now=clock.advance(minutes=59)) == 0  # not yet due
    with django_capture_on_commit_callbacks(execute=False) as queued:
        assert ops.tournaments_sweep(now=clock.advance(minutes=2)) == 2
    one.refresh_from_db(), both.refresh_from_db()
    assert (one.decided_by, one.score_first) == ("forfeit", 1.0)
    assert (both.decided_by, both.points) == ("double_forfeit", {str(both.first_id): 0.0, str(both.second_id): 0.0})
    for board, resigned in ((one, [one.second_id]), (both, [both.first_id])):
        game = Game.objects.get(pk=board.game_id)
        assert game.is_finished  # ended through games.services by a system resign event
        last = Event.objects.filter(game=game).order_by("-seq").first()
        assert last.kind == "system" and last.payload["type"] == "resign"
        assert last.payload["reason"] == "round deadline"  # the record says why, not "the player resigned"
        assert game.seats.get(index=last.payload["seat"]).user_id in resigned
        assert not Submission.objects.filter(game=game, payload__type="resign").exists()
        assert game_verify(game=game).ok
    assert len(queued) >= 1  # the round is complete: the next one is queued
    assert lifecycle.tournament_game_finished(game_id=one.game_id) is False  # the game's end changes nothing
    assert ops.tournaments_sweep(now=clock.advance(minutes=1)) == 0
    lifecycle.tournament_advance(tournament_id=tournament.pk, now=clock.now)
    rows = {row["username"]: row for row in tournament_standings(tournament=tournament)}
    assert rows[mover.username]["points"] == 1 and rows[one.second.username]["points"] == 0
    assert rows[both.first.username]["losses"] == 1 and rows[both.first.username]["points"] == 0


def test_drops_late_entries_and_check_in(club_with, clock, make_user, django_capture_on_commit_callbacks):
    club, organiser, members = club_with(7)
    late, no_show = members[5], members[6]
    tournament = swiss(club, organiser, members[:5] + [no_show], clock, check_in=True, late_entry_until_round=2,
                       late_entry_points=0.5)  # fmt: skip
    for member in members[:5]:
        ops.tournament_check_in(tournament_id=tournament.pk, by=member, now=clock.now)
    with pytest.raises(services.ServiceError) as refused:
        ops.tournament_check_in(tournament_id=tournament.pk, by=late, now=clock.now)
    assert refused.value.code == "not_entered"
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    boards = list(TournamentBoard.objects.filter(tournament=tournament, round=1))
    paired = {pk for b in boards for pk in b.seat_ids}
    assert no_show.pk not in paired and len(paired) == 5  # only the checked-in five
    # a late entry joins at round 2 with half a point for round 1
    entry = lifecycle.tournament_enter(tournament_id=tournament.pk, by=late, now=clock.now)
    assert entry.first_round == 2
    strength = {m.pk: i for i, m in enumerate(members)}
    for board in boards:
        if not board.is_bye:
            finish(
                board, max(board.first, board.second, key=lambda u: strength[u.pk]), django_capture_on_commit_callbacks
            )
    dropped = members[4]
    with pytest.raises(services.ServiceError) as refused:
        ops.tournament_drop(tournament_id=tournament.pk, by=members[0], player=dropped, now=clock.now)
    assert refused.value.code == "not_organiser"
    ops.tournament_drop(tournament_id=tournament.pk, by=organiser, player=dropped, now=clock.now)
    with pytest.raises(services.ServiceError) as refused:
        ops.tournament_drop(tournament_id=tournament.pk, by=dropped, now=clock.now)
    assert refused.value.code == "already_dropped"
    lifecycle.tournament_advance(tournament_id=tournament.pk, now=clock.advance(hours=1))
    round_two = {pk for b in TournamentBoard.objects.filter(tournament=tournament, round=2) for pk in b.seat_ids}
    assert round_two == {m.pk for m in members[:4]} | {late.pk}  # the late entrant in, the dropped player out
    with pytest.raises(services.ServiceError) as refused:  # round 2 is paired: no more late entries
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=organiser, player=make_user("later"), now=clock.now)
    assert refused.value.code in ("tournament_started", "not_member")
    rows = {row["username"]: row for row in tournament_standings(tournament=tournament)}
    assert no_show.username not in rows
    assert rows[late.username]["points"] == 0.5 and rows[late.username]["played"] == 0
    # the missed round is an unplayed round: a virtual opponent on the late entrant's own score
    assert rows[late.username]["tiebreaks"]["buchholz"] == 0.5
    assert rows[dropped.username]["status"] == "dropped"


def test_manual_pairings_planned_and_repaired(club_with, clock, make_user, django_capture_on_commit_callbacks):
    club, organiser, members = club_with(4)
    outsider = make_user("outsider")
    tournament = swiss(club, organiser, members, clock)
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    a, b, c, d = members
    record = TournamentRound.objects.get(tournament=tournament, number=1)
    again = swiss_pairing(record.pairing_input, record.seed)  # the stored input reproduces round 1
    assert [(p.first, p.second) for p in again] == [
        (x.first_id, x.second_id) for x in TournamentBoard.objects.filter(tournament=tournament, round=1)
    ]
    for by, round_, tables, code in (
        (a, 2, [[a, b], [c, d]], "not_organiser"),
        (organiser, 2, [[a, b], [c, outsider]], "unknown_player"),
        (organiser, 2, [[a, b], [c]], "invalid_pairing"),
        (organiser, 2, [[a, b], [c, d], [a]], "invalid_pairing"),
        (organiser, 2, [[a, b, c, d]], "invalid_pairing"),
        (organiser, 3, [[a, b], [c, d]], "round_not_pairable"),
    ):
        with pytest.raises(services.ServiceError) as refused:
            ops.tournament_pairing_set(tournament_id=tournament.pk, by=by, round=round_, tables=tables)
        assert refused.value.code == code
    # re-pair round 1 before anyone has moved: its games close, new ones start
    old = set(TournamentBoard.objects.filter(tournament=tournament, round=1).values_list("game_id", flat=True))
    with django_capture_on_commit_callbacks(execute=False):
        ops.tournament_pairing_set(tournament_id=tournament.pk, by=organiser, round=1, tables=[[a, d], [b, c]])
    boards = list(TournamentBoard.objects.filter(tournament=tournament, round=1).order_by("number"))
    assert [(x.first_id, x.second_id) for x in boards] == [(a.pk, d.pk), (b.pk, c.pk)]
    assert all(Game.objects.get(pk=pk).is_finished for pk in old)
    for pk in old:  # ended by system resigns marked with the reason, nothing submitted for the players
        last = Event.objects.filter(game_id=pk).order_by("-seq").first()
        assert (last.kind, last.payload["type"], last.payload["reason"]) == ("system", "resign", "re-paired")
    assert not Submission.objects.filter(game_id__in=old).exists()
    assert TournamentRound.objects.get(tournament=tournament, number=1).manual
    # plan round 2 (a rematch the automatic pairing would never make), then play round 1
    ops.tournament_pairing_set(tournament_id=tournament.pk, by=organiser, round=2, tables=[[d, a], [c, b]])
    with django_capture_on_commit_callbacks(execute=False):
        submit(boards[0].game_id, a, a_legal_move(boards[0].game, a))
    with pytest.raises(services.ServiceError) as refused:
        ops.tournament_pairing_set(tournament_id=tournament.pk, by=organiser, round=1, tables=[[a, b], [c, d]])
    assert refused.value.code == "round_played"
    for board in boards:
        finish(board, board.second, django_capture_on_commit_callbacks)
    lifecycle.tournament_advance(tournament_id=tournament.pk, now=clock.advance(hours=1))
    round_two = list(TournamentBoard.objects.filter(tournament=tournament, round=2).order_by("number"))
    assert [(x.first_id, x.second_id) for x in round_two] == [(d.pk, a.pk), (c.pk, b.pk)]


def test_a_correction_recomputes_standings_and_pairs_from_them(club_with, clock, django_capture_on_commit_callbacks):
    club, organiser, members = club_with(4)
    tournament = swiss(club, organiser, members, clock)
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    first, second = TournamentBoard.objects.filter(tournament=tournament, round=1).order_by("number")
    finish(first, first.second, django_capture_on_commit_callbacks)  # first.first wins
    with pytest.raises(services.ServiceError) as refused:
        ops.tournament_result_correct(
            tournament_id=tournament.pk, by=organiser, round=1, board=1, ranking=[[first.first]]
        )
    assert refused.value.code == "invalid_ranking"
    with pytest.raises(services.ServiceError) as refused:
        ops.tournament_result_correct(tournament_id=tournament.pk, by=organiser, round=1, board=9, ranking=[])
    assert refused.value.code == "board_not_found"
    with pytest.raises(services.ServiceError) as refused:
        ops.tournament_result_correct(
            tournament_id=tournament.pk, by=first.first, round=1, board=1, ranking=[[first.second], [first.first]]
        )
    assert refused.value.code == "not_organiser"
    # the organiser reverses board 1 and decides the unfinished board 2 as a draw: the round is complete
    ops.tournament_result_correct(
        tournament_id=tournament.pk, by=organiser, round=1, board=1, ranking=[[first.second], [first.first]]
    )
    with django_capture_on_commit_callbacks(execute=False) as queued:
        ops.tournament_result_correct(
            tournament_id=tournament.pk, by=organiser, round=1, board=2, ranking=[[second.first, second.second]]
        )
    assert len(queued) == 1
    first.refresh_from_db(), second.refresh_from_db()
    assert (first.decided_by, first.score_first, second.score_first) == ("correction", 0.0, 0.5)
    rows = {row["username"]: row["points"] for row in tournament_standings(tournament=tournament)}
    assert rows[first.second.username] == 1 and rows[first.first.username] == 0
    lifecycle.tournament_advance(tournament_id=tournament.pk, now=clock.advance(hours=1))
    top = TournamentBoard.objects.get(tournament=tournament, round=2, number=1)
    assert first.second_id in top.seat_ids  # the corrected leader is on the top board


def test_a_swiss_ends_early_when_withdrawals_leave_one_player(club_with, clock, django_capture_on_commit_callbacks):
    club, organiser, members = club_with(3)
    tournament = swiss(club, organiser, members, clock)
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    for board in TournamentBoard.objects.filter(tournament=tournament, round=1, finished_at__isnull=True):
        finish(board, board.second, django_capture_on_commit_callbacks)
    playing = [m for m in members if m.pk in {pk for b in tournament.boards.all() for pk in b.seat_ids}]
    for member in playing[1:]:
        ops.tournament_drop(tournament_id=tournament.pk, by=member, now=clock.now)
    lifecycle.tournament_advance(tournament_id=tournament.pk, now=clock.advance(hours=1))
    tournament.refresh_from_db()
    assert tournament.status == "finished" and tournament.current_round == 1
    assert len(tournament.final_standings) == 3


def test_bot_accounts_enter_only_when_the_tournament_allows_bots(club_with, clock):
    from games.accounts import account_create

    club, organiser, _ = club_with(0)
    bot, _token = account_create(username="robo", password="a-long-pass-1", bot=True)
    services.membership_invite(club_id=club.pk, by=organiser, user=bot, now=clock.now)
    services.membership_join(club_id=club.pk, by=bot, now=clock.now)
    people = lifecycle.tournament_create(
        club_id=club.pk, by=organiser, name="People", engine="nine-card", format="swiss", now=clock.now
    )
    assert people.settings["allow_bots"] is False  # the default, as on ladders
    with pytest.raises(services.ServiceError) as refused:
        lifecycle.tournament_enter(tournament_id=people.pk, by=bot, now=clock.now)
    assert (refused.value.code, refused.value.status) == ("bots_not_allowed", 403)
    open_ = lifecycle.tournament_create(
        club_id=club.pk, by=organiser, name="Open", engine="nine-card", format="swiss",
        settings={"allow_bots": True}, now=clock.now,
    )  # fmt: skip
    assert lifecycle.tournament_enter(tournament_id=open_.pk, by=bot, now=clock.now).user == bot


def test_a_match_board_forfeited_at_the_deadline_stops_its_match(club_with, clock, django_capture_on_commit_callbacks):
    from league.models import Match

    club, organiser, (ann, bob) = club_with(2)
    tournament = lifecycle.tournament_create(
        club_id=club.pk, by=organiser, name="Duel", engine="nine-card", format="round_robin", now=clock.now,
        settings={"match": {"format": "best_of", "target": 3}, "round_deadline_seconds": 600},
    )  # fmt: skip
    for member in (ann, bob):
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=member, now=clock.now)
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    board = TournamentBoard.objects.get(tournament=tournament, round=1)
    first_game = board.match.games.get(number=0).game
    with django_capture_on_commit_callbacks(execute=False):
        submit(first_game.pk, bob, {"type": "resign"})
        lifecycle.tournament_game_finished(game_id=first_game.pk)  # ann leads 1-0; game 2 starts
        second_game = board.match.games.get(number=1).game
        submit(second_game.pk, ann, a_legal_move(second_game, ann))  # game 2 now waits on bob
    with django_capture_on_commit_callbacks(execute=False):
        assert ops.tournaments_sweep(now=clock.advance(minutes=11)) == 1
    board.refresh_from_db()
    assert board.decided_by == "forfeit" and board.placements == [[ann.pk], [bob.pk]]
    assert Match.objects.get(pk=board.match_id).status == "abandoned"
    assert Game.objects.get(pk=second_game.pk).is_finished
    assert board.match.games.count() == 2  # no third game started


def test_a_move_waiting_for_a_worker_at_the_deadline_still_counts(club_with, clock, django_capture_on_commit_callbacks):
    club, organiser, (ann, bob) = club_with(2)
    tournament = swiss(club, organiser, [ann, bob], clock, round_deadline_seconds=60)
    tournament.rounds = 1
    tournament.save(update_fields=["rounds"])
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    board = TournamentBoard.objects.get(tournament=tournament, round=1)
    with django_capture_on_commit_callbacks(execute=False):  # received, not yet applied by a worker
        game_services.move_submit(
            game_id=board.game_id, user=bob, move={"type": "resign"}, idempotency_key=uuid.uuid4().hex
        )
        assert ops.tournaments_sweep(now=clock.advance(minutes=2)) == 1
    board.refresh_from_db()
    assert board.decided_by == "game" and board.placements == [[ann.pk], [bob.pk]]


def test_a_swiss_with_no_legal_pairing_left_ends(club_with, clock, django_capture_on_commit_callbacks):
    club, organiser, members = club_with(4)
    tournament = swiss(club, organiser, members, clock)
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    first, second = TournamentBoard.objects.filter(tournament=tournament, round=1).order_by("number")
    for board in (first, second):
        finish(board, board.second, django_capture_on_commit_callbacks)
    for player in (second.first, second.second):  # the two left have already met: no rematch allowed
        ops.tournament_drop(tournament_id=tournament.pk, by=player, now=clock.now)
    lifecycle.tournament_advance(tournament_id=tournament.pk, now=clock.advance(hours=1))
    tournament.refresh_from_db()
    assert (tournament.status, tournament.current_round, tournament.rounds) == ("finished", 1, 3)


def test_the_tournament_tasks_keep_their_registered_names_after_the_move(settings):
    """Messages queued before the tasks moved to league/tournaments/tasks.py (and beat's schedule)
    name them ``league.tasks.*``; the embedded timer imports the sweep by its module path."""
    from django.utils.module_loading import import_string

    from kifu.celery import app as celery_app
    from league.tournaments import tasks

    celery_app.loader.import_default_modules()
    for task in (tasks.tournament_game_finished_task, tasks.tournament_advance_task, tasks.tournaments_sweep):
        name = f"league.tasks.{task.__name__}"
        assert task.name == name and celery_app.tasks[name].name == name
    assert settings.CELERY_BEAT_SCHEDULE["league-tournament-deadlines"]["task"] == "league.tasks.tournaments_sweep"
    assert ("league.tournaments.tasks.tournaments_sweep", 5.0) in settings.KIFU_EMBEDDED_PERIODIC
    assert import_string("league.tournaments.tasks.tournaments_sweep").name == "league.tasks.tournaments_sweep"
