"""Corrections: a new event in the log, after which positions, records and ratings are exactly
what they would have been had the result been recorded right in the first place."""

from __future__ import annotations

import pytest

from league import selectors, services
from league.models import Challenge, LadderEntry, LadderEvent, RatingPoint
from league.scoring import ladder as rules

pytestmark = pytest.mark.django_db

# (challenger, defender, winner as recorded); the first one is the mistake.
PLAYED = [("m3", "m1", "m3"), ("m2", "m1", "m1"), ("m3", "m0", "m0"), ("m2", "m0", "m2")]
TRUTH = "m1"


def run(ladder, organiser, users, clock, results):
    seqs = []
    for challenger, defender, winner in results:
        challenge = services.challenge_create(
            ladder_id=ladder.pk, by=users[challenger], defender=users[defender], now=clock.advance(days=1)
        )
        services.challenge_result_record(
            challenge_id=challenge.pk, by=organiser, winner=users[winner], now=clock.advance(hours=1)
        )
        seqs.append(Challenge.objects.get(pk=challenge.pk).decided_seq)
    return seqs


def table(ladder) -> list[tuple]:
    return [
        (e.user.username, e.position, e.won, e.lost, round(e.mu, 9), round(e.sigma, 9))
        for e in selectors.standings(ladder=ladder)
    ]


def test_a_correction_recomputes_positions_and_ratings(club_with, clock):
    club, organiser, members = club_with(4)
    users = {member.username: member for member in members}
    settings = {"challenge_range": 5, "rematch_cooldown_days": 0, "on_challenger_win": "leapfrog"}
    wrong = services.ladder_create(club_id=club.pk, by=organiser, engine="nine-card", settings=settings, now=clock.now)
    right = services.ladder_create(club_id=club.pk, by=organiser, engine="necropolis", settings=settings, now=clock.now)
    for ladder in (wrong, right):
        for member in members:
            services.ladder_join(ladder_id=ladder.pk, by=member, now=clock.now)
    seqs = run(wrong, organiser, users, clock, PLAYED)
    run(right, organiser, users, clock, [(PLAYED[0][0], PLAYED[0][1], TRUTH), *PLAYED[1:]])
    assert [row[0] for row in table(wrong)] == ["m2", "m0", "m3", "m1"]
    assert [row[0] for row in table(right)] == ["m2", "m0", "m1", "m3"]

    with pytest.raises(services.ServiceError) as refused:
        services.ladder_correct(ladder_id=wrong.pk, by=users["m1"], target=seqs[0], changes={"ranking": [[1], [2]]})
    assert refused.value.code == "not_organiser"
    correction = services.ladder_correct(
        ladder_id=wrong.pk,
        by=organiser,
        target=seqs[0],
        changes={"ranking": [[users["m1"].pk], [users["m3"].pk]]},
        reason="score sheet misread",
        now=clock.advance(days=1),
    )
    assert correction.kind == rules.CORRECTION and correction.payload["target"] == seqs[0]
    assert table(wrong) == table(right)

    def history(ladder):
        points = RatingPoint.objects.filter(ladder=ladder).order_by("seq", "user_id")
        return [(p.seq, p.user_id, round(p.mu, 9), round(p.sigma, 9)) for p in points]

    assert history(wrong) == history(right) and len(history(wrong)) == 2 * len(PLAYED)
    # The original stays in the log, untouched; the challenge shows the corrected winner.
    original = LadderEvent.objects.get(ladder=wrong, seq=seqs[0])
    assert original.payload["ranking"] == [[users["m3"].pk], [users["m1"].pk]]
    challenge = Challenge.objects.get(pk=original.payload["challenge"])
    assert challenge.outcome["winner"] == users["m1"].pk
    assert services.ladder_verify(ladder=wrong)["ok"]


def test_forfeits_drops_and_withdrawals_can_be_corrected_or_voided(club_with, clock):
    club, organiser, (a, b, c) = club_with(3)
    ladder = services.ladder_create(
        club_id=club.pk, by=organiser, engine="nine-card", settings={"inactivity_days": 10}, now=clock.now
    )
    for member in (a, b, c):
        services.ladder_join(ladder_id=ladder.pk, by=member, now=clock.now)
    challenge = services.challenge_create(ladder_id=ladder.pk, by=c, defender=b, now=clock.now)
    services.challenge_decline(challenge_id=challenge.pk, by=b, now=clock.advance(hours=1))
    forfeit = Challenge.objects.get(pk=challenge.pk).decided_seq
    assert [e.user for e in selectors.standings(ladder=ladder)] == [a, c, b]
    services.ladder_correct(ladder_id=ladder.pk, by=organiser, target=forfeit, changes={"winner": b.pk})
    assert [e.user for e in selectors.standings(ladder=ladder)] == [a, b, c]
    assert LadderEntry.objects.get(ladder=ladder, user=b).forfeits_won == 1

    services.ladders_sweep(now=clock.advance(days=9, hours=23, minutes=30))  # a is due (b, c were active later)
    drop = LadderEvent.objects.filter(ladder=ladder, kind=rules.INACTIVITY_DROP).get()
    assert [e.user for e in selectors.standings(ladder=ladder)] == [b, a, c]
    services.ladder_correct(ladder_id=ladder.pk, by=organiser, target=drop.seq, changes={"void": True})
    assert [e.user for e in selectors.standings(ladder=ladder)] == [a, b, c]

    services.ladder_withdraw(ladder_id=ladder.pk, by=organiser, player=b, now=clock.now)
    withdrawal = LadderEvent.objects.filter(ladder=ladder, kind=rules.PLAYER_WITHDREW).get()
    assert [e.user for e in selectors.standings(ladder=ladder)] == [a, c]
    services.ladder_correct(ladder_id=ladder.pk, by=organiser, target=withdrawal.seq, changes={"void": True})
    assert [e.user for e in selectors.standings(ladder=ladder)] == [a, b, c]

    for target, changes, code in (
        (1, {"void": True}, "not_correctable"),  # ladder_created
        (forfeit, {"winner": organiser.pk}, "bad_correction"),
        (forfeit, {"ranking": [[a.pk]]}, "bad_correction"),
        (drop.seq, {"places": -1}, "bad_correction"),
        (999, {"void": True}, "not_found"),
    ):
        with pytest.raises(services.ServiceError) as refused:
            services.ladder_correct(ladder_id=ladder.pk, by=organiser, target=target, changes=changes)
        assert refused.value.code == code
    assert services.ladder_verify(ladder=ladder)["ok"]
