"""Boards with N seats and match boards, in-process: multiplayer Swiss (turn-thief tables of 4),
placement points (configured and default), byes, stored pairing input, and best-of-N boards."""

from __future__ import annotations

import uuid

import pytest

from games import services as game_services
from games.models import Game
from league import services
from league.models import Match, TournamentBoard, TournamentRound
from league.scoring.placements import placement_points
from league.tournaments import lifecycle
from league.tournaments.pairing import multi_pairing

pytestmark = pytest.mark.django_db


def resign(game_id, user) -> Game:
    game_services.move_submit(game_id=game_id, user=user, move={"type": "resign"}, idempotency_key=uuid.uuid4().hex)
    game_services.game_advance(game_id=game_id)
    return Game.objects.get(pk=game_id)


def test_placement_points_share_tied_places():
    assert placement_points([["a"], ["b"], ["c"], ["d"]], [3, 1, 0, 0]) == {"a": 3, "b": 1, "c": 0, "d": 0}
    assert placement_points([["a", "b"], ["c"], ["d"]], [3, 1, 0, 0]) == {"a": 2, "b": 2, "c": 0, "d": 0}
    assert placement_points([["a"], ["b"], ["c"]]) == {"a": 1.0, "b": 0.5, "c": 0.0}  # linear default
    assert placement_points([["a"], ["b"]]) == {"a": 1.0, "b": 0.0}  # two seats: the usual 1 / 0
    assert placement_points([["a", "b"]]) == {"a": 0.5, "b": 0.5}
    with pytest.raises(ValueError):
        placement_points([["a"], ["b"], ["c"]], [3, 1])


def test_multi_swiss_settings_are_checked_against_the_engine(club_with, clock):
    club, organiser, _ = club_with(0)

    def create(**settings):
        return lifecycle.tournament_create(
            club_id=club.pk, by=organiser, name="x", engine=settings.pop("engine", "turn-thief"),
            format="multi_swiss", settings=settings, now=clock.now,
        )  # fmt: skip

    assert create().settings["seats"] == {"preferred": 4, "min": 4, "max": 4}
    assert create(engine="satori").settings["seats"] == {"preferred": 4, "min": 3, "max": 4}
    assert create(engine="satori", seats={"max": 3}).settings["seats"] == {"preferred": 3, "min": 3, "max": 3}
    assert create(engine="satori", seats={"min": 5}).settings["seats"] == {"preferred": 5, "min": 5, "max": 5}
    satori = create(engine="satori", seats={"preferred": 4, "min": 3, "max": 4})
    assert satori.settings["bye_points"] == pytest.approx(0.5)  # the mean of a preferred table's points
    for settings, code in (
        ({"seats": {"preferred": 3, "min": 3, "max": 3}}, "invalid_seats"),  # turn-thief seats exactly 4
        ({"engine": "satori", "seats": {"preferred": 6, "min": 3, "max": 6}}, "invalid_seats"),  # satori: 2-5
        ({"engine": "satori", "seats": {"preferred": 3, "min": 4, "max": 5}}, "invalid_seats"),
        ({"engine": "satori", "seats": {"max": "four"}}, "invalid_seats"),
        ({"engine": "satori", "seats": {"min": 2}}, "invalid_seats"),  # tables of 3-6 only
        ({"engine": "nine-card"}, "bad_seat_count"),
        ({"placement_points": [3, 1]}, "invalid_placement_points"),
        ({"placement_points": [0, 1, 2, 3]}, "invalid_placement_points"),
        ({"third_place": True}, "invalid_settings"),
        ({"colour": "red"}, "invalid_settings"),
        ({"match": {"format": "best_of", "target": 0}}, "invalid_match"),
    ):
        with pytest.raises(services.ServiceError) as refused:
            create(**settings)
        assert refused.value.code == code, settings


def test_a_multiplayer_swiss_of_turn_thief_to_final_standings(club_with, clock, django_capture_on_commit_callbacks):
    club, organiser, members = club_with(9)
    tournament = lifecycle.tournament_create(
        club_id=club.pk, by=organiser, name="Thieves", engine="turn-thief", format="multi_swiss", rounds=2, seed=3,
        settings={"placement_points": [3, 1, 0, 0], "bye_points": 1}, now=clock.now,
    )  # fmt: skip
    for member in members:
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=member, now=clock.now)
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    tournament.refresh_from_db()
    users = {m.pk: m for m in members}
    for number in (1, 2):
        boards = list(tournament.boards.filter(round=number).order_by("number"))
        tables = [b for b in boards if not b.is_bye]
        assert sorted(len(b.seat_ids) for b in boards) == [1, 4, 4]  # nine players: two tables and a bye
        record = TournamentRound.objects.get(tournament=tournament, number=number)
        assert record.seed == tournament.seed + number
        again = multi_pairing(tournament, record.pairing_input, record.seed)  # reproducible from the record
        assert [list(t) for t in again.tables] == [b.seat_ids for b in tables]
        for board in tables:
            assert board.game.seats.count() == 4
            assert list(board.game.seats.order_by("index").values_list("user_id", flat=True)) == board.seat_ids
            loser = users[board.seat_ids[-1]]
            with django_capture_on_commit_callbacks(execute=False):
                assert resign(board.game_id, loser).is_finished
            with django_capture_on_commit_callbacks() as queued:
                assert lifecycle.tournament_game_finished(game_id=board.game_id) is True
            board.refresh_from_db()
            assert board.placements[-1] == [loser.pk] and board.points[str(loser.pk)] == 0
            # 3 for a winner alone, 2 when two share first, 4/3 when the three left share it: the game's
            # own (random) seed decides how the resignation leaves the others (flaky in CI as ">= 2").
            top = sorted(board.points.values(), reverse=True)[0]
            assert top in (3, 2) or abs(top - 4 / 3) < 1e-9, board.points
            assert sum(board.points.values()) == 4  # 3 + 1 + 0 + 0 however the places tie
        assert len(queued) == 1  # the last table queued the next round
        lifecycle.tournament_advance(tournament_id=tournament.pk, now=clock.advance(hours=1))
        tournament.refresh_from_db()
    assert tournament.status == "finished"
    final = tournament.final_standings
    assert len(final) == 9
    assert sum(row["points"] for row in final) == 4 * 4 + 2 * 1  # four tables, two byes of a point
    assert final[0]["points"] >= final[-1]["points"]
    assert set(final[0]["tiebreaks"]) == {"buchholz", "sonneborn_berger", "game_points"}
    byes = [b.seat_ids[0] for b in tournament.boards.all() if b.is_bye]
    assert len(set(byes)) == 2  # nobody sits out twice


def test_a_board_can_be_a_best_of_three_match(club_with, clock, django_capture_on_commit_callbacks):
    club, organiser, members = club_with(2)
    tournament = lifecycle.tournament_create(
        club_id=club.pk, by=organiser, name="Duel", engine="nine-card", format="round_robin",
        settings={"match": {"format": "best_of", "target": 3}}, now=clock.now,
    )  # fmt: skip
    for member in members:
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=member, now=clock.now)
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    board = TournamentBoard.objects.get(tournament=tournament, round=1)
    assert board.game_id is None and board.match.spec == {"format": "best_of", "target": 3, "points": "wins"}
    winner, loser = members
    for game_number in range(2):  # the loser resigns two games: the match is over after two
        game = board.match.games.order_by("-number").first().game
        with django_capture_on_commit_callbacks(execute=False):
            resign(game.pk, loser)
        with django_capture_on_commit_callbacks() as queued:
            lifecycle.tournament_game_finished(game_id=game.pk)
        board.refresh_from_db()
        assert (board.finished_at is not None) == (game_number == 1)
    match = Match.objects.get(pk=board.match_id)
    assert match.status == "finished" and match.games.count() == 2
    assert board.decided_by == "match" and board.score_first == (1.0 if board.first == winner else 0.0)
    assert board.game_scores == {str(winner.pk): 2.0, str(loser.pk): 0.0}
    assert len(queued) == 1
    lifecycle.tournament_advance(tournament_id=tournament.pk, now=clock.now)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    assert [(r["username"], r["points"]) for r in tournament.final_standings] == [
        (winner.username, 1.0),
        (loser.username, 0.0),
    ]


def test_satori_tables_of_three_and_four_score_by_the_engine_ranking(
    club_with, clock, django_capture_on_commit_callbacks
):
    club, organiser, members = club_with(10)
    tournament = lifecycle.tournament_create(
        club_id=club.pk, by=organiser, name="Satori", engine="satori", format="multi_swiss", rounds=1, seed=1,
        settings={"seats": {"preferred": 4, "min": 3, "max": 4}}, now=clock.now,
    )  # fmt: skip
    for member in members:
        lifecycle.tournament_enter(tournament_id=tournament.pk, by=member, now=clock.now)
    lifecycle.tournament_start(tournament_id=tournament.pk, by=organiser, now=clock.now)
    boards = list(TournamentBoard.objects.filter(tournament=tournament, round=1).order_by("number"))
    assert sorted(len(b.seat_ids) for b in boards) == [3, 3, 4]  # ten players, no bye
    users = {m.pk: m for m in members}
    for board in boards:
        for pk in reversed(board.seat_ids):  # the last seats resign one by one until one survives
            with django_capture_on_commit_callbacks(execute=False):
                if resign(board.game_id, users[pk]).is_finished:
                    break
        with django_capture_on_commit_callbacks(execute=False):
            assert lifecycle.tournament_game_finished(game_id=board.game_id)
        board.refresh_from_db()
        size = len(board.seat_ids)
        assert board.placements[0] == [board.seat_ids[0]]  # the survivor wins
        assert board.points[str(board.seat_ids[0])] == 1.0
        assert sum(board.points.values()) == pytest.approx(size / 2)  # linear 1 .. 0 over the table
    lifecycle.tournament_advance(tournament_id=tournament.pk, now=clock.now)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    assert [row["points"] for row in tournament.final_standings[:3]] == [1.0, 1.0, 1.0]
