"""The ladder log on PostgreSQL: append-only by trigger, hash-chained, and the projection a fold of it."""

from __future__ import annotations

import pgtrigger
import pytest
from django.db import DatabaseError, connection, transaction

from league import services
from league.models import LadderEntry, LadderEvent

pytestmark = pytest.mark.django_db


@pytest.fixture
def ladder(club_with, clock):
    club, organiser, (a, b) = club_with(2)
    ladder = services.ladder_create(club_id=club.pk, by=organiser, engine="nine-card", now=clock.now)
    for member in (a, b):
        services.ladder_join(ladder_id=ladder.pk, by=member, now=clock.now)
    challenge = services.challenge_create(ladder_id=ladder.pk, by=b, defender=a, now=clock.now)
    services.challenge_result_record(challenge_id=challenge.pk, by=organiser, winner=b, now=clock.advance(hours=1))
    return ladder


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE league_ladderevent SET payload = '{}'::jsonb",
        "DELETE FROM league_ladderevent",
        "TRUNCATE league_ladderevent CASCADE",
    ],
    ids=["update", "delete", "truncate"],
)
def test_postgres_refuses_to_change_the_log(ladder, sql):
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # so TRUNCATE reaches our trigger
    with pytest.raises(DatabaseError, match="(Cannot|append-only)"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(sql)
    assert LadderEvent.objects.filter(ladder=ladder).count() == 5
    with pytest.raises(DatabaseError), transaction.atomic():
        LadderEvent.objects.filter(ladder=ladder).update(kind="result")


def test_verify_catches_an_edited_event_and_a_tampered_projection(ladder):
    assert services.ladder_verify(ladder=ladder)["ok"]
    LadderEntry.objects.filter(ladder=ladder, position=1).update(position=7)
    report = services.ladder_verify(ladder=ladder)
    assert not report["ok"] and "standings differ" in report["problems"][0]
    services.ladder_rebuild(ladder_id=ladder.pk)  # the projection is only ever a fold of the log
    assert services.ladder_verify(ladder=ladder)["ok"]
    with pgtrigger.ignore("league.LadderEvent:ladder_event_append_only"):
        LadderEvent.objects.filter(ladder=ladder, seq=5).update(payload={"ranking": [[1], [2]]})
    report = services.ladder_verify(ladder=ladder)
    assert not report["ok"] and report["problems"][0].startswith("event 5: hash does not match")
