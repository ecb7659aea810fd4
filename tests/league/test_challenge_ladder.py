"""A challenge ladder run through the services on a simulated clock: the rules one by one, then
months of random challenges with invariants checked every day."""

from __future__ import annotations

import random
import uuid
from datetime import timedelta

import pytest

from games import services as game_services
from games.models import Game
from league import selectors, services
from league.models import Challenge, LadderEntry, LadderEvent
from league.scoring import ladder as rules

from .conftest import finish_game

pytestmark = pytest.mark.django_db


def order(ladder) -> list[str]:
    return [entry.user.username for entry in selectors.standings(ladder=ladder)]


def kinds(ladder, after: int = 0) -> list[str]:
    return list(LadderEvent.objects.filter(ladder=ladder, seq__gt=after).order_by("seq").values_list("kind", flat=True))


def refused(code: str, call) -> None:
    with pytest.raises(services.ServiceError) as error:
        call()
    assert error.value.code == code, error.value.message


SETTINGS = {
    "challenge_range": 2,
    "max_open_challenges": 1,
    "accept_days": 3,
    "play_days": 7,
    "on_challenger_win": "swap",
    "rematch_cooldown_days": 14,
    "new_player_free_challenges": 1,
    "inactivity_days": 60,
}


@pytest.fixture
def ladder_of(club_with, clock):
    def make(count: int, **settings):
        club, organiser, members = club_with(count)
        ladder = services.ladder_create(
            club_id=club.pk, by=organiser, engine="nine-card", settings={**SETTINGS, **settings}, now=clock.now
        )
        for member in members:
            services.ladder_join(ladder_id=ladder.pk, by=member, now=clock.now)
            clock.advance(minutes=1)
        return ladder, organiser, members

    return make


def test_the_rules_of_a_challenge_ladder(ladder_of, clock):
    ladder, organiser, (m0, m1, m2, m3, m4, m5) = ladder_of(6)
    assert order(ladder) == ["m0", "m1", "m2", "m3", "m4", "m5"]

    # A newcomer's free challenge reaches past the range; the challenger wins and they swap.
    refused("defender_below", lambda: services.challenge_create(ladder_id=ladder.pk, by=m2, defender=m4, now=clock.now))
    challenge = services.challenge_create(ladder_id=ladder.pk, by=m5, defender=m0, now=clock.now)
    assert challenge.free and challenge.accept_by == clock.now + timedelta(days=3)
    refused("not_defender", lambda: services.challenge_accept(challenge_id=challenge.pk, by=m5, now=clock.now))
    challenge = services.challenge_accept(challenge_id=challenge.pk, by=m0, now=clock.advance(days=1))
    game = Game.objects.get(pk=challenge.game_id)
    assert game.engine == "nine-card" and game.status == "running"
    assert [seat.user for seat in game.seats.order_by("index")] == [m0, m5]
    finish_game(game.pk, loser=m0, now=clock.advance(days=1))
    assert order(ladder) == ["m5", "m1", "m2", "m3", "m4", "m0"]
    challenge.refresh_from_db()
    assert challenge.status == "decided" and challenge.outcome == {"winner": m5.pk, "reason": "game"}
    assert services.league_game_finished(game_id=game.pk, now=clock.now) is False  # a repeated task

    # The same two may not meet again for 14 days, either way round.
    refused(
        "rematch_cooldown", lambda: services.challenge_create(ladder_id=ladder.pk, by=m0, defender=m5, now=clock.now)
    )

    # A defender who does not answer in time forfeits at the sweep.
    challenge = services.challenge_create(ladder_id=ladder.pk, by=m4, defender=m2, now=clock.now)
    assert services.ladders_sweep(now=clock.advance(days=2)) == 0
    assert services.ladders_sweep(now=clock.advance(days=1, minutes=1)) == 1
    assert order(ladder) == ["m5", "m1", "m4", "m3", "m2", "m0"]
    assert (
        LadderEvent.objects.get(ladder=ladder, seq=ladder.__class__.objects.get(pk=ladder.pk).head_seq).payload[
            "reason"
        ]
        == "not_accepted"
    )

    # Accepted but not played: the game waits for both (simultaneous commits), so it is void ...
    challenge = services.challenge_create(ladder_id=ladder.pk, by=m3, defender=m1, now=clock.now)
    challenge = services.challenge_accept(challenge_id=challenge.pk, by=m1, now=clock.advance(hours=5))
    services.ladders_sweep(now=clock.advance(days=7))
    challenge.refresh_from_db()
    assert challenge.status == "void" and order(ladder) == ["m5", "m1", "m4", "m3", "m2", "m0"]
    # ... and when it waits for one side only, that side forfeits.
    challenge = services.challenge_create(ladder_id=ladder.pk, by=m3, defender=m1, now=clock.now)
    challenge = services.challenge_accept(challenge_id=challenge.pk, by=m1, now=clock.advance(hours=1))
    card = game_services.move_submit(
        game_id=challenge.game_id, user=m3, move=legal_move(challenge.game_id, m3), idempotency_key="k"
    )
    game_services.game_advance(game_id=challenge.game_id)
    assert card.submission.status == "pending"
    services.ladders_sweep(now=clock.advance(days=8))
    challenge.refresh_from_db()
    assert challenge.outcome == {"winner": m3.pk, "reason": "forfeit: not_played"}
    assert order(ladder) == ["m5", "m3", "m4", "m1", "m2", "m0"]

    # One open challenge each: a busy defender cannot be challenged, a busy challenger cannot challenge.
    challenge = services.challenge_create(ladder_id=ladder.pk, by=m2, defender=m4, now=clock.now)
    refused("defender_busy", lambda: services.challenge_create(ladder_id=ladder.pk, by=m0, defender=m2, now=clock.now))
    refused(
        "too_many_challenges", lambda: services.challenge_create(ladder_id=ladder.pk, by=m2, defender=m1, now=clock.now)
    )
    refused("not_challenger", lambda: services.challenge_withdraw(challenge_id=challenge.pk, by=m4, now=clock.now))
    services.challenge_withdraw(challenge_id=challenge.pk, by=m2, now=clock.now)
    # Declining forfeits.
    challenge = services.challenge_create(ladder_id=ladder.pk, by=m0, defender=m2, now=clock.now)
    services.challenge_decline(challenge_id=challenge.pk, by=m2, now=clock.advance(hours=2))
    assert order(ladder) == ["m5", "m3", "m4", "m1", "m0", "m2"]
    # An organiser records a draw played at a table: nothing moves, both have a draw.
    challenge = services.challenge_create(ladder_id=ladder.pk, by=m1, defender=m4, now=clock.now)
    refused("not_organiser", lambda: services.challenge_result_record(challenge_id=challenge.pk, by=m1, winner=None))
    services.challenge_result_record(challenge_id=challenge.pk, by=organiser, winner=None, now=clock.advance(days=1))
    assert order(ladder) == ["m5", "m3", "m4", "m1", "m0", "m2"]
    assert LadderEntry.objects.get(ladder=ladder, user=m1).drawn == 1

    # Withdrawing voids open challenges and closes the gap; rejoining starts at the bottom.
    challenge = services.challenge_create(ladder_id=ladder.pk, by=m4, defender=m5, now=clock.now)
    services.ladder_withdraw(ladder_id=ladder.pk, by=m5, now=clock.advance(hours=1))
    assert Challenge.objects.get(pk=challenge.pk).status == "void"
    assert order(ladder) == ["m3", "m4", "m1", "m0", "m2"]
    services.ladder_join(ladder_id=ladder.pk, by=m5, now=clock.now)
    assert order(ladder)[-1] == "m5" and LadderEntry.objects.get(ladder=ladder, user=m5).free_challenges_left == 0
    refused("out_of_range", lambda: services.challenge_create(ladder_id=ladder.pk, by=m5, defender=m3, now=clock.now))
    report = services.ladder_verify(ladder=ladder)
    assert report["ok"], report
    assert kinds(ladder).count(rules.FORFEIT) == 3


def legal_move(game_id, user) -> dict:
    from games.selectors import game_get, legal_moves, seat_of

    game = game_get(game_id=game_id)
    return legal_moves(game=game, seat=seat_of(game=game, user=user))[0]


def test_leapfrog_and_inactivity_drops(ladder_of, clock):
    ladder, organiser, (a, b, c, d) = ladder_of(4, on_challenger_win="leapfrog", inactivity_days=30, challenge_range=3)
    challenge = services.challenge_create(ladder_id=ladder.pk, by=d, defender=a, now=clock.advance(days=20))
    services.challenge_accept(challenge_id=challenge.pk, by=a, now=clock.now)
    finish_game(Challenge.objects.get(pk=challenge.pk).game_id, loser=a, now=clock.now)
    assert order(ladder) == ["m3", "m0", "m1", "m2"]  # d leapfrogs to the top; a, b, c move down one
    # b and c last did anything when they joined (day 0): they drop at day 30, one place each.
    for _ in range(12):
        services.ladders_sweep(now=clock.advance(days=1))
    drops = LadderEvent.objects.filter(ladder=ladder, kind=rules.INACTIVITY_DROP).order_by("seq")
    assert [(e.payload["player"], e.payload["places"]) for e in drops] == [(b.pk, 1), (c.pk, 1)]
    # b (due a minute earlier: it joined first) drops below c, then c below b: each dropped a place.
    assert order(ladder) == ["m3", "m0", "m1", "m2"]
    # A sweep that runs late appends every period that fell due, each from the last one.
    services.ladders_sweep(now=clock.advance(days=45))  # day 77: a, d due at 50; b, c at 60
    due = [e.payload["due_at"][:10] for e in LadderEvent.objects.filter(ladder=ladder, kind=rules.INACTIVITY_DROP)]
    assert due == ["2026-02-04", "2026-02-04", "2026-02-24", "2026-02-24", "2026-03-06", "2026-03-06"]
    assert services.ladders_sweep(now=clock.now) == 0
    assert services.ladder_verify(ladder=ladder)["ok"]


def test_months_of_random_challenges_keep_the_ladder_consistent(ladder_of, clock):
    """More than three months of daily play by eight members; every day the log must verify, the
    positions must be 1..n, and each change must be one the rules allow."""
    rng = random.Random(7)
    ladder, organiser, members = ladder_of(8, rematch_cooldown_days=5, inactivity_days=21)
    by_id = {member.pk: member for member in members}
    seen = 0
    for _day in range(100):
        clock.advance(days=1)
        services.ladders_sweep(now=clock.now)
        for challenge in Challenge.objects.filter(ladder=ladder, status="issued"):
            roll = rng.random()
            if roll < 0.6:
                services.challenge_accept(challenge_id=challenge.pk, by=challenge.defender, now=clock.now)
            elif roll < 0.7:
                services.challenge_decline(challenge_id=challenge.pk, by=challenge.defender, now=clock.now)
        for challenge in Challenge.objects.filter(ladder=ladder, status="accepted"):
            if rng.random() < 0.5:
                loser = rng.choice([challenge.challenger, challenge.defender])
                finish_game(challenge.game_id, loser=loser, now=clock.now)
        for member in rng.sample(members, 2):
            targets = [e.user for e in selectors.standings(ladder=ladder) if e.user_id != member.pk]
            try:
                services.challenge_create(ladder_id=ladder.pk, by=member, defender=rng.choice(targets), now=clock.now)
            except services.ServiceError as error:
                assert error.code in {
                    "out_of_range", "defender_below", "too_many_challenges", "defender_busy", "rematch_cooldown"
                }, error.message  # fmt: skip
        # Every challenge issued today respected the range (or was a newcomer's free one).
        log = [rules.LogEvent(e.seq, e.kind, e.payload, e.at) for e in LadderEvent.objects.filter(ladder=ladder)]
        for event in log[seen:]:
            check_issued(log[: event.seq - 1], event)
        seen = len(log)
        positions = [e.position for e in selectors.standings(ladder=ladder)]
        assert positions == list(range(1, len(members) + 1))
    report = services.ladder_verify(ladder=ladder)
    assert report["ok"], report
    log = kinds(ladder)
    assert log.count(rules.RESULT) > 20 and log.count(rules.FORFEIT) > 3 and rules.INACTIVITY_DROP in log, log
    assert len(by_id) == 8
    played = sum(entry.played for entry in LadderEntry.objects.filter(ladder=ladder))
    assert played == 2 * log.count(rules.RESULT)


def check_issued(before_log, event) -> None:
    """Positions are a fold of the log (and verify() re-folds it), so what needs checking is that
    each challenge was one the rules allowed when it was issued."""
    if event.kind != rules.CHALLENGE_ISSUED:
        return
    before = rules.project(rules.CHALLENGE, before_log)
    c, d = before.order.index(event.payload["challenger"]), before.order.index(event.payload["defender"])
    assert d < c
    assert event.payload["free"] or c - d <= rules.range_places(before.settings, c + 1)
    assert uuid.UUID(event.payload["challenge"])
