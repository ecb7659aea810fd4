"""Tournaments in-process: create, enter, start, pair, results on the game_finished path, standings."""

from __future__ import annotations

import uuid

import pytest

from games import services as game_services
from games.models import Game
from league import services
from league.models import Tournament, TournamentBoard
from league.scoring.roundrobin import round_robin
from league.tournaments import lifecycle

pytestmark = pytest.mark.django_db


def play_board(board: TournamentBoard, *, winner, capture) -> list:
    """The loser resigns through the game services; the result goes in as the receiver's task
    would (in a test transaction nothing commits, so on_commit callbacks are captured instead)."""
    loser = board.second if winner == board.first else board.first
    game_services.move_submit(
        game_id=board.game_id, user=loser, move={"type": "resign"}, idempotency_key=uuid.uuid4().hex
    )
    game_services.game_advance(game_id=board.game_id)
    assert Game.objects.get(pk=board.game_id).is_finished
    with capture() as callbacks:
        assert lifecycle.tournament_game_finished(game_id=board.game_id) is True
    assert lifecycle.tournament_game_finished(game_id=board.game_id) is False  # once only
    return callbacks


def test_round_robin_plays_the_berger_schedule_to_final_standings(
    club_with, clock, make_user, django_capture_on_commit_callbacks
):
    club, organiser, members = club_with(5)
    outsider = make_user("outsider")
    with pytest.raises(services.ServiceError) as refused:
        lifecycle.tournament_create(
            club_id=club.pk, by=members[0], name="x", engine="nine-card", format="round_robin", now=clock.now
        )
    assert refused.value.code == "not_organiser"
    for bad, code in (
        ({"engine": "turn-thief"}, "bad_seat_count"),
        # a config whose seat limits only setup used to check (issue 26): refused at creation
        ({"engine": "twenty-two", "config": {"variant": "gambling_cucumber"}}, "bad_seat_count"),
        ({"engine": "chess"}, "unknown_game"),
        ({"format": "knockout"}, "invalid_format"),
        ({"tiebreaks": ["coin_toss"]}, "invalid_tiebreaks"),
        ({"rounds": 3}, "invalid_rounds"),
        ({"cycles": 3}, "invalid_cycles"),
    ):
        args = {"engine": "nine-card", "format": "round_robin", **bad}
        with pytest.raises(services.ServiceError) as refused:
            lifecycle.tournament_create(club_id=club.pk, by=organiser, name="x", now=clock.now, **args)
        assert refused.value.code == code
    tournament = lifecycle.tournament_create(
        club_id=club.pk, by=organiser, name="Spring", engine="nine-card", format="round_robin", now=clock.now
    )
    for member in members:
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=member, now=clock.now)
    for by, player, code in (
        (members[0], None, "already_entered"),
        (outsider, None, "not_member"),
        (members[1], members[2], "not_organiser"),
    ):
        with pytest.raises(services.ServiceError) as refused:
            lifecycle.tournament_enter(tournament_id=tournament.pk, by=by, player=player, now=clock.now)
        assert refused.value.code == code

    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    tournament.refresh_from_db()
    assert (tournament.status, tournament.rounds, tournament.current_round) == ("running", 5, 1)
    with pytest.raises(services.ServiceError) as refused:
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=organiser, player=outsider, now=clock.now)
    assert refused.value.code in ("tournament_started", "not_member")
    schedule = round_robin([m.pk for m in members])
    for number in range(1, 6):
        boards = list(tournament.boards.filter(round=number).order_by("number"))
        assert [(b.first_id, b.second_id) for b in boards] == [(p.first, p.second) for p in schedule[number - 1]]
        playing = [b for b in boards if not b.is_bye]
        assert len(playing) == 2 and all(b.game.status == "running" for b in playing)
        with pytest.raises(services.ServiceError) as refused:
            lifecycle.tournament_advance(tournament_id=tournament.pk, by=organiser, now=clock.now)
        assert refused.value.code == "round_running"
        queued = []
        for board in playing:  # the lower pairing number always wins
            winner = board.first if board.first_id < board.second_id else board.second
            queued.append(len(play_board(board, winner=winner, capture=django_capture_on_commit_callbacks)))
        assert queued == [0, 1]  # only the last game of the round queues the next round
        lifecycle.tournament_advance(tournament_id=tournament.pk, now=clock.advance(days=1))
        tournament.refresh_from_db()
    assert tournament.status == "finished" and tournament.current_round == 5
    final = tournament.final_standings
    assert [row["username"] for row in final] == [m.username for m in members]
    assert [row["points"] for row in final] == [4, 3, 2, 1, 0]
    assert all(row["byes"] == 0 and row["played"] == 4 for row in final)  # a round-robin bye scores nothing
    assert set(final[0]["tiebreaks"]) == {"direct_encounter", "sonneborn_berger", "game_points"}
    # the task may run again: nothing changes
    assert lifecycle.tournament_advance(tournament_id=tournament.pk).status == "finished"


def test_swiss_pairs_rounds_from_results_with_a_bye(club_with, clock, django_capture_on_commit_callbacks):
    club, organiser, members = club_with(7)
    tournament = lifecycle.tournament_create(
        club_id=club.pk, by=organiser, name="Open", engine="nine-card", format="swiss", seed=5, now=clock.now
    )
    for member in members:
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=organiser, player=member, now=clock.now)
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    tournament.refresh_from_db()
    assert tournament.rounds == 3  # ceil(log2(7))
    seen, byes = set(), []
    for number in range(1, 4):
        boards = list(tournament.boards.filter(round=number))
        assert len(boards) == 4
        for board in boards:
            if board.is_bye:
                byes.append(board.second_id or board.first_id)
                continue
            pair = frozenset((board.first_id, board.second_id))
            assert pair not in seen
            seen.add(pair)
            winner = board.first if board.first_id < board.second_id else board.second
            play_board(board, winner=winner, capture=django_capture_on_commit_callbacks)
        lifecycle.tournament_advance(tournament_id=tournament.pk, now=clock.advance(days=1))
        tournament.refresh_from_db()
    assert len(byes) == len(set(byes)) == 3
    assert byes[0] == members[-1].pk  # round 1: the lowest-ranked player sits out
    assert tournament.status == "finished"
    final = tournament.final_standings
    assert final[0]["username"] == members[0].username and final[0]["points"] == 3
    assert sum(row["points"] for row in final) == 9 + 3  # 9 games and 3 byes
    assert tournament.tiebreaks == ["buchholz_cut1", "buchholz", "sonneborn_berger", "direct_encounter"]
    assert set(final[0]["tiebreaks"]) == set(tournament.tiebreaks)  # (jsonb keeps no key order)


def test_start_needs_two_entries_and_sane_rounds(club_with, clock):
    club, organiser, members = club_with(3)
    tournament = lifecycle.tournament_create(
        club_id=club.pk, by=organiser, name="Tiny", engine="nine-card", format="swiss", rounds=5, now=clock.now
    )
    with pytest.raises(services.ServiceError) as refused:
        lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    assert refused.value.code == "too_few_entries"
    for member in members:
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=member, now=clock.now)
    with pytest.raises(services.ServiceError) as refused:
        lifecycle.tournament_start(tournament_id=tournament.pk, by=members[0], now=clock.now)
    assert refused.value.code == "not_organiser"
    with pytest.raises(services.ServiceError) as refused:
        lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    assert refused.value.code == "too_many_rounds"
    assert Tournament.objects.get(pk=tournament.pk).status == "open"
    assert lifecycle.tournament_game_finished(game_id=uuid.uuid4()) is False
