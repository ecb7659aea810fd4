"""The incremental projection of a ladder (``league.services.log.projection_advance``) against a fold of
the whole log: random operations through the services (400 a ladder in the suite, thousands with
KIFU_TEST_LADDER_STEPS), compared row by row along the way; and a result touches only the rows that
change."""

from __future__ import annotations

import os
import random
import uuid
from collections import Counter

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from league import services
from league.models import Challenge, LadderEntry, LadderEvent, RatingPoint
from league.reports import services as reports
from league.scoring import ladder as rules
from league.services import log

pytestmark = pytest.mark.django_db

# Random operations per ladder, compared with a full fold every CHECK_EVERY and at the end. The suite
# runs 400 a ladder (1,200 in all, about 40 s); KIFU_TEST_LADDER_STEPS=3000 (or more) for a long soak.
STEPS = int(os.environ.get("KIFU_TEST_LADDER_STEPS", "400"))
CHECK_EVERY = 50


def assert_matches_fold(ladder) -> None:
    """The rows the services kept up to date are exactly what a fold of the whole log makes."""
    ladder.refresh_from_db()
    assert ladder.projected_seq == ladder.head_seq
    assert log.rows_differ(ladder, log.projection_of(ladder)) == []
    report = services.ladder_verify(ladder=ladder)
    assert report["ok"], report


def places(ladder) -> dict[int, int]:
    return dict(LadderEntry.objects.filter(ladder=ladder, position__isnull=False).values_list("position", "user_id"))


def correct_something(ladder, organiser, rng: random.Random, now) -> bool:
    """An organiser's random correction of a random correctable event (void, un-void, or changes)."""
    targets = list(LadderEvent.objects.filter(ladder=ladder, kind__in=list(rules.CORRECTABLE)))
    if not targets:
        return False
    target = rng.choice(targets)
    payload = target.payload
    if target.kind == rules.RESULT and rng.random() < 0.6:
        players = [p for group in payload["ranking"] for p in group]
        rng.shuffle(players)
        changes = {"ranking": [players] if rng.random() < 0.3 else [[p] for p in players]}
    elif target.kind == rules.FORFEIT and rng.random() < 0.6:
        changes = {"winner": rng.choice([payload["challenger"], payload["defender"]])}
    elif target.kind == rules.INACTIVITY_DROP and rng.random() < 0.6:
        changes = {"places": rng.randint(0, 4)}
    else:
        changes = {"void": rng.random() < 0.7}
    services.ladder_correct(ladder_id=ladder.pk, by=organiser, target=target.seq, changes=changes, now=now)
    return True


def pick(challenges, rng: random.Random):
    """One of the challenges, chosen by the test's seeded generator (not the database's random
    order), so a run is the same every time; None if there are none."""
    rows = list(challenges.order_by("issued_seq"))
    return rng.choice(rows) if rows else None


# The steps of a reported result in the ladder log (league.reports.pairings.LADDER_STEPS): rarer.
REPORT_KINDS = (rules.RESULT_REPORTED, rules.RESULT_CONFIRMED, rules.RESULT_DISPUTED, rules.RESULT_SETTLED)


@pytest.mark.parametrize("rule", ["swap", "leapfrog"])
def test_a_challenge_ladder_after_thousands_of_random_operations_matches_a_fold(club_with, clock, rule):
    rng = random.Random(f"challenge-{rule}")
    club, organiser, members = club_with(24)
    settings = {
        "challenge_range": [{"to": 5, "places": 2}, {"to": None, "places": 4}],
        "max_open_challenges": 2,
        "accept_days": 2,
        "play_days": 3,
        "on_challenger_win": rule,
        "rematch_cooldown_days": 1,
        "new_player_free_challenges": 1,
        "inactivity_days": 6,
        "inactivity_drop_places": 2,
        "results": "either",  # reported results too (issue 17): their steps are ladder-log events
    }
    ladder = services.ladder_create(club_id=club.pk, by=organiser, engine="nine-card", settings=settings, now=clock.now)
    users = {m.pk: m for m in members}

    def report_step(now) -> str:
        """A reported result on an accepted challenge, start to end at one moment: a player reports,
        the other confirms it - or disputes it and the organiser settles it."""
        challenge = pick(Challenge.objects.filter(ladder=ladder, status=Challenge.Status.ACCEPTED), rng)
        if challenge is None:
            return "nothing accepted"
        key, pair = str(challenge.pk), [users[challenge.challenger_id], users[challenge.defender_id]]
        rng.shuffle(pair)
        reporter, other = pair if rng.random() < 0.5 else pair[::-1]
        reports.result_report(kind="challenge", pairing=key, by=reporter, ranking=[[pair[0].pk], [pair[1].pk]], now=now)
        if rng.random() < 0.6:
            reports.result_confirm(kind="challenge", pairing=key, by=other, now=now)
            return "report, confirm"
        reports.result_dispute(kind="challenge", pairing=key, by=other, reason="not so", now=now)
        reports.result_settle(kind="challenge", pairing=key, by=organiser, now=now)
        return "report, dispute, settle"

    def operate(now) -> str:
        """One random operation through the services; its name (ServiceError if refused)."""
        active = list(LadderEntry.objects.filter(ladder=ladder, active=True).values_list("user_id", flat=True))
        roll = rng.random()
        if roll < 0.08 or len(active) < 4:
            user = rng.choice([m for m in members if m.pk not in active] or members)
            services.ladder_join(ladder_id=ladder.pk, by=user, now=now)
            return "join"
        if roll < 0.12:
            player = users[rng.choice(active)]
            services.ladder_withdraw(ladder_id=ladder.pk, by=organiser, player=player, now=now)
            return "withdraw"
        if roll < 0.45:
            by_place = places(ladder)
            place = rng.randint(2, max(by_place))
            challenger, defender = users[by_place[place]], users[by_place[rng.randint(max(1, place - 5), place - 1)]]
            services.challenge_create(ladder_id=ladder.pk, by=challenger, defender=defender, now=now)
            return "challenge"
        if roll < 0.8:
            challenge = pick(Challenge.objects.filter(ladder=ladder, status__in=Challenge.OPEN), rng)
            if challenge is None:
                return "nothing open"
            choice, issued = rng.random(), challenge.status == Challenge.Status.ISSUED
            if issued and choice < 0.35:
                services.challenge_accept(challenge_id=challenge.pk, by=users[challenge.defender_id], now=now)
                return "accept"
            if issued and choice < 0.45:
                services.challenge_decline(challenge_id=challenge.pk, by=users[challenge.defender_id], now=now)
                return "decline"
            if issued and choice < 0.5:
                services.challenge_withdraw(challenge_id=challenge.pk, by=users[challenge.challenger_id], now=now)
                return "withdraw challenge"
            winner = rng.choice([users[challenge.challenger_id], users[challenge.defender_id], None])
            services.challenge_result_record(challenge_id=challenge.pk, by=organiser, winner=winner, now=now)
            return "result"
        if roll < 0.9:
            return "sweep" if services.ladder_sweep(ladder_id=ladder.pk, now=now) else "empty sweep"
        if roll < 0.97:
            correct_something(ladder, organiser, rng, now)
            return "correction"
        rule = rng.choice(["swap", "leapfrog"])
        services.ladder_update(ladder_id=ladder.pk, by=organiser, settings={"on_challenger_win": rule}, now=now)
        return "settings"

    done: Counter = Counter()
    for step in range(1, STEPS + 1):
        clock.advance(hours=rng.choice([1, 3, 8, 20]))
        for op in (operate, report_step) if rng.random() < 0.2 else (operate,):
            try:
                done[op(clock.now)] += 1
            except services.ServiceError as error:
                done[f"refused: {error.code}"] += 1
        if step % CHECK_EVERY == 0:
            assert_matches_fold(ladder)
    assert_matches_fold(ladder)
    kinds = Counter(LadderEvent.objects.filter(ladder=ladder).values_list("kind", flat=True))
    # Every kind of event happened, many times: the comparison above covered them all.
    for kind in rules.EVENT_KINDS:
        rare = (rules.LADDER_CREATED, rules.SETTINGS_CHANGED, *REPORT_KINDS)
        assert kinds[kind] >= (1 if kind in rare else STEPS // 200), (
            kind,
            kinds,
            done,
        )
    assert sum(kinds.values()) > 0.7 * STEPS, kinds


def _rated(ladder, ranking: list[list[int]], now, *, rated: bool = True) -> None:
    """A rated game's result, appended as ``league_game_finished`` appends it (without playing the
    game: this test is about the projection, and thousands of games would take minutes)."""
    with transaction.atomic():
        locked = log.ladder_lock(ladder.pk)
        payload = {"ranking": ranking, "rated": rated, "source": "game", "game": str(uuid.uuid4())}
        log.event_append(locked, kind=rules.RESULT, payload=payload, actor=None, at=now)
        log.projection_advance(locked)


def test_a_rating_ladder_after_thousands_of_random_operations_matches_a_fold(club_with, clock):
    rng = random.Random("rating")
    club, organiser, members = club_with(30)
    ladder = services.ladder_create(club_id=club.pk, by=organiser, engine="nine-card", kind="rating", now=clock.now)
    done: Counter = Counter()
    for step in range(1, STEPS + 1):
        clock.advance(hours=2)
        now = clock.now
        roll = rng.random()
        active = set(LadderEntry.objects.filter(ladder=ladder, active=True).values_list("user_id", flat=True))
        if roll < 0.08:
            user = rng.choice(members)
            try:
                services.ladder_join(ladder_id=ladder.pk, by=user, now=now)
                done["join"] += 1
            except services.ServiceError:
                done["join refused"] += 1
        elif roll < 0.12 and active:
            picked = rng.choice(sorted(active))
            user = next(m for m in members if m.pk == picked)
            services.ladder_withdraw(ladder_id=ladder.pk, by=organiser, player=user, now=now)
            done["withdraw"] += 1
        elif roll < 0.95:
            # Mostly players already on the ladder, now and then one who never joined (a rated game
            # puts them on it) or one who withdrew (it does not).
            seats = rng.sample(members, rng.choice([2, 2, 2, 3, 4]))
            players = [m.pk for m in seats]
            groups: list[list[int]] = []
            for player in players:
                if groups and rng.random() < 0.2:
                    groups[-1].append(player)  # a tie
                else:
                    groups.append([player])
            _rated(ladder, groups, now, rated=rng.random() < 0.95)
            done["result"] += 1
        else:
            done["correction"] += correct_something(ladder, organiser, rng, now)
        if step % CHECK_EVERY == 0:
            assert_matches_fold(ladder)
    assert_matches_fold(ladder)
    assert done["result"] > 0.7 * STEPS and done["join"] > STEPS / 50, done
    assert done["withdraw"] > STEPS / 50 and done["correction"] > STEPS / 50, done
    assert RatingPoint.objects.filter(ladder=ladder).count() > 1.5 * STEPS


def _snapshot(ladder) -> dict[int, tuple]:
    return {
        row[0]: row[1:] for row in LadderEntry.objects.filter(ladder=ladder).values_list("user_id", *log.ENTRY_FIELDS)
    }


@pytest.mark.parametrize(("rule", "changed"), [("swap", 2), ("leapfrog", 4)])
def test_a_result_writes_only_the_rows_it_changes_and_refolds_nothing(club_with, clock, monkeypatch, rule, changed):
    club, organiser, members = club_with(40)
    settings = {"challenge_range": 5, "on_challenger_win": rule}
    ladder = services.ladder_create(club_id=club.pk, by=organiser, engine="nine-card", settings=settings, now=clock.now)
    for member in members:
        services.ladder_join(ladder_id=ladder.pk, by=member, now=clock.now)
    by_place = places(ladder)
    users = {m.pk: m for m in members}
    challenger, defender = users[by_place[20]], users[by_place[20 - changed + 1]]
    challenge = services.challenge_create(ladder_id=ladder.pk, by=challenger, defender=defender, now=clock.now)
    before = _snapshot(ladder)

    def no_refold(*args, **kwargs):
        raise AssertionError("a result refolded the whole log")

    monkeypatch.setattr(log, "projection_of", no_refold)
    with CaptureQueriesContext(connection) as queries:
        services.challenge_result_record(challenge_id=challenge.pk, by=organiser, winner=challenger, now=clock.now)
    after = _snapshot(ladder)
    moved = {player for player in before if before[player] != after[player]}
    assert len(moved) == changed and {challenger.pk, defender.pk} <= moved
    assert places(ladder)[20 - changed + 1] == challenger.pk
    sql = [q["sql"] for q in queries.captured_queries]
    assert not any(s.startswith("DELETE") for s in sql), sql
    monkeypatch.undo()
    assert_matches_fold(ladder)


def test_a_rated_result_reads_single_rows_not_the_ladder(club_with, clock):
    """On a rating ladder the movers read the places next to them in growing pages (ranges of
    places) and the rows they pass move in one ranged UPDATE: no query reads the whole ladder."""
    club, organiser, members = club_with(60)
    ladder = services.ladder_create(club_id=club.pk, by=organiser, engine="nine-card", kind="rating", now=clock.now)
    for member in members:
        services.ladder_join(ladder_id=ladder.pk, by=member, now=clock.now)
    for index in range(60):
        _rated(ladder, [[members[index].pk], [members[(index + 7) % 60].pk]], clock.now)
    with CaptureQueriesContext(connection) as queries:
        _rated(ladder, [[members[50].pk], [members[3].pk]], clock.now)
    reads = [
        q["sql"] for q in queries.captured_queries if q["sql"].startswith("SELECT") and "league_ladderentry" in q["sql"]
    ]
    bounded = ("LIMIT 1", '"user_id" IN', "MAX(", '"position" <=')
    assert reads and all(any(mark in sql for mark in bounded) for sql in reads), reads
    assert not any("league_club" in sql for sql in reads), reads  # no join for the default ordering
    writes = [q["sql"] for q in queries.captured_queries if q["sql"].startswith('UPDATE "league_ladderentry"')]
    assert all("WHERE" in sql for sql in writes), writes
    assert_matches_fold(ladder)
