"""A challenge's play-by date on a simulated clock: moves received in time are applied first, then
the challenge is decided once (a forfeit, or void) and its game - or its match's current game -
is ended by a system resign carrying the reason, never by a submission for a player."""

from __future__ import annotations

from datetime import timedelta

import pytest

from games import services as game_services
from games.engines import get_engine
from games.models import Game, Submission
from games.record_io import game_verify
from league import selectors, services
from league.models import LadderEvent, LeagueGame, Match
from league.scoring import ladder as rules

from .conftest import finish_game

pytestmark = pytest.mark.django_db

DECISIONS = (rules.RESULT, rules.FORFEIT, rules.CHALLENGE_VOID)


@pytest.fixture
def duel(club_with, clock):
    """``duel(**settings)``: a two-player challenge ladder; the lower player's challenge, accepted."""

    def make(**settings):
        club, organiser, (top, low) = club_with(2)
        ladder = services.ladder_create(
            club_id=club.pk, by=organiser, engine="nine-card", settings={"play_days": 7, **settings}, now=clock.now
        )
        for member in (top, low):
            services.ladder_join(ladder_id=ladder.pk, by=member, now=clock.advance(minutes=1))
        challenge = services.challenge_create(ladder_id=ladder.pk, by=low, defender=top, now=clock.now)
        challenge = services.challenge_accept(challenge_id=challenge.pk, by=top, now=clock.advance(hours=1))
        return ladder, challenge, top, low

    return make


def submit(game: Game, user, *, at, move: dict | None = None) -> Submission:
    """``user``'s move (a legal card by default) as received at ``at`` and not yet applied."""
    if move is None:
        engine = get_engine(game.engine)
        move = engine.legal_moves(engine.load_state(game.state), game.seats.get(user=user).index)[0]
    game_services.move_submit(game_id=game.pk, user=user, move=move, idempotency_key=f"{game.pk}-{user.pk}")
    submission = Submission.objects.get(game=game, user=user)
    Submission.objects.filter(pk=submission.pk).update(received_at=at)
    return submission


def decisions(ladder) -> list[LadderEvent]:
    return list(LadderEvent.objects.filter(ladder=ladder, kind__in=DECISIONS).order_by("seq"))


def last_event(game: Game):
    event = game.events.order_by("seq").last()
    return event.kind, event.payload


def test_the_side_the_game_waits_for_forfeits_and_its_game_ends_by_a_marked_resign(duel, clock):
    ladder, challenge, top, low = duel()
    game = Game.objects.get(pk=challenge.game_id)
    # the challenger's card arrives in time but no worker has applied it yet: it counts, so the game
    # waits for the defender alone (Nine Card's simultaneous commit) and the defender forfeits
    submit(game, low, at=challenge.play_by - timedelta(hours=1))
    assert services.ladders_sweep(now=challenge.play_by - timedelta(seconds=1)) == 0
    assert services.ladders_sweep(now=clock.advance(days=7, minutes=5)) >= 1
    challenge.refresh_from_db()
    assert challenge.status == "decided" and challenge.outcome == {"winner": low.pk, "reason": "forfeit: not_played"}
    assert Submission.objects.get(game=game, user=low).status == "accepted"
    # the game is over: the defender's seat (0) resigned as a system event with the reason
    game.refresh_from_db()
    assert game.is_finished and game.outcome["ranking"][0] == [1]
    assert last_event(game) == ("system", {"type": "resign", "seat": 0, "reason": "play-by date"})
    assert not Submission.objects.filter(game=game, user=top).exists()
    assert game_verify(game=game).ok
    # the game's end feeds nothing more into the ladder: one decision, and the task is a no-op
    assert LeagueGame.objects.get(game=game).recorded
    assert services.league_game_finished(game_id=game.pk, now=clock.now) is False
    assert services.ladders_sweep(now=clock.advance(days=1)) == 0
    (decision,) = decisions(ladder)
    assert (decision.kind, decision.payload["loser"], decision.seq) == (rules.FORFEIT, top.pk, challenge.decided_seq)
    assert [e.user for e in selectors.standings(ladder=ladder)] == [low, top]
    assert services.ladder_verify(ladder=ladder)["ok"]


def test_a_move_received_before_the_play_by_date_that_ends_the_game_decides_it_as_played(duel, clock):
    ladder, challenge, top, low = duel()
    game = Game.objects.get(pk=challenge.game_id)
    submit(game, top, at=challenge.play_by - timedelta(minutes=1), move={"type": "resign"})
    services.ladders_sweep(now=clock.advance(days=8))
    challenge.refresh_from_db()
    assert challenge.status == "decided" and challenge.outcome == {"winner": low.pk, "reason": "game"}
    game.refresh_from_db()
    assert last_event(game) == ("system", {"type": "resign", "seat": 0})  # the player's own resign, no reason
    assert services.league_game_finished(game_id=game.pk, now=clock.now) is False
    (decision,) = decisions(ladder)
    assert decision.kind == rules.RESULT and decision.payload["game"] == str(game.pk)


def test_nobody_moved_in_time_so_the_challenge_is_void_and_its_game_ends(duel, clock):
    ladder, challenge, top, low = duel()
    game = Game.objects.get(pk=challenge.game_id)
    late = submit(game, low, at=challenge.play_by + timedelta(minutes=1))  # after the date: does not count
    services.ladders_sweep(now=clock.advance(days=8))
    challenge.refresh_from_db()
    assert challenge.status == "void" and challenge.outcome["winner"] is None
    game.refresh_from_db()
    # the game waited for both: seats resign in seat order until it is over (seat 0 ends a duel)
    assert game.is_finished
    assert last_event(game) == ("system", {"type": "resign", "seat": 0, "reason": "challenge void"})
    assert Submission.objects.filter(game=game).count() == 1
    game_services.game_advance(game_id=game.pk)  # the late move, when a worker gets to it
    late.refresh_from_db()
    assert (late.status, late.code) == ("rejected", "game_over")
    assert services.league_game_finished(game_id=game.pk, now=clock.now) is False
    assert [e.kind for e in decisions(ladder)] == [rules.CHALLENGE_VOID]
    assert [e.user for e in selectors.standings(ladder=ladder)] == [top, low]  # nothing moved
    assert services.ladder_verify(ladder=ladder)["ok"]


def test_a_match_past_its_play_by_date_is_abandoned_and_its_current_game_ended(duel, clock):
    ladder, challenge, top, low = duel(match={"format": "best_of", "target": 3})
    match = challenge.match
    finish_game(LeagueGame.objects.get(match=match, number=0).game_id, loser=top, now=clock.advance(hours=1))
    second = LeagueGame.objects.get(match=match, number=1).game
    assert [s.user for s in second.seats.order_by("index")] == [low, top]
    submit(second, low, at=clock.advance(hours=1))  # low (seat 0) commits; the game waits for top
    services.ladders_sweep(now=clock.advance(days=8))
    challenge.refresh_from_db()
    assert challenge.outcome == {"winner": low.pk, "reason": "forfeit: not_played"}
    match.refresh_from_db()
    assert match.status == Match.Status.ABANDONED and match.result is None
    assert match.totals == {str(top.pk): 0.0, str(low.pk): 1.0}  # the ended game is not counted
    second.refresh_from_db()
    assert second.is_finished
    assert last_event(second) == ("system", {"type": "resign", "seat": 1, "reason": "play-by date"})
    assert not Submission.objects.filter(game=second, user=top).exists()
    assert services.league_game_finished(game_id=second.pk, now=clock.now) is False
    assert not LeagueGame.objects.filter(match=match, number=2).exists()  # no further game
    assert [e.kind for e in decisions(ladder)] == [rules.FORFEIT]
    assert services.ladder_verify(ladder=ladder)["ok"]


def test_a_match_whose_deciding_game_ended_in_time_is_decided_by_the_match(duel, clock):
    ladder, challenge, top, low = duel(match={"format": "best_of", "target": 3})
    match = challenge.match
    finish_game(LeagueGame.objects.get(match=match, number=0).game_id, loser=top, now=clock.advance(hours=1))
    second = LeagueGame.objects.get(match=match, number=1).game
    submit(second, top, at=challenge.play_by - timedelta(seconds=1), move={"type": "resign"})
    services.ladders_sweep(now=clock.advance(days=8))
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.result == [[low.pk], [top.pk]]
    challenge.refresh_from_db()
    assert challenge.outcome == {"winner": low.pk, "reason": "match"}
    assert not LeagueGame.objects.filter(match=match, number=2).exists()
    assert services.league_game_finished(game_id=second.pk, now=clock.now) is False
    (decision,) = decisions(ladder)
    assert decision.kind == rules.RESULT and decision.payload["match"] == str(match.pk)
