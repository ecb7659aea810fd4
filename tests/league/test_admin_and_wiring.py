"""The web admin scoped to a club's organisers, and the game_finished signal wired to the league."""

from __future__ import annotations

import uuid

import pytest
from django.test import Client

from games import services as game_services
from kifu.celery import app as celery_app
from league import services
from league.models import Challenge, Ladder, LadderEvent

pytestmark = pytest.mark.django_db


def test_organisers_manage_only_their_club_in_the_admin(club_with, make_user, clock):
    club, organiser, (member,) = club_with(1)
    rival = make_user("rival")
    other = services.club_create(name="Other Club", slug="other", by=rival, now=clock.now)
    organiser.refresh_from_db()
    assert organiser.is_staff and not organiser.is_superuser
    browser = Client()
    browser.force_login(organiser)
    listing = browser.get("/admin/league/club/")
    assert listing.status_code == 200 and club.name in listing.text and other.name not in listing.text
    assert browser.get(f"/admin/league/club/{other.pk}/change/").status_code in (302, 403, 404)
    assert browser.get("/admin/games/game/").status_code == 403  # staff, but no game permissions

    created = browser.post(
        "/admin/league/ladder/add/",
        {
            "club": club.pk,
            "name": "Nine Card ladder",
            "kind": "challenge",
            "engine": "nine-card",
            "game_config": "{}",
            "settings": '{"challenge_range": 4}',
        },  # fmt: skip
    )
    assert created.status_code == 302, created.text[:2000]
    ladder = Ladder.objects.get(club=club)
    assert ladder.settings["challenge_range"] == 4
    assert list(LadderEvent.objects.filter(ladder=ladder).values_list("kind", flat=True)) == ["ladder_created"]
    refused = browser.post(
        "/admin/league/ladder/add/",
        {
            "club": other.pk,
            "name": "x",
            "kind": "challenge",
            "engine": "nine-card",
            "game_config": "{}",
            "settings": "{}",
        },  # fmt: skip
    )
    assert refused.status_code == 200 and not Ladder.objects.filter(club=other).exists()  # not a choice
    bad = browser.post(
        "/admin/league/ladder/add/",
        {
            "club": club.pk,
            "name": "y",
            "kind": "rating",
            "engine": "satori",
            "game_config": "{}",
            "settings": '{"challenge_range": 4}',
        },  # fmt: skip
    )
    assert bad.status_code == 200 and "invalid_ladder_settings" in bad.text

    member_browser = Client()
    member_browser.force_login(member)
    assert member_browser.get("/admin/league/club/").status_code == 302  # not staff: to the log-in page


def test_a_finished_challenge_game_reaches_the_ladder_through_the_signal(
    club_with, clock, django_capture_on_commit_callbacks
):
    """Resigning commits; on commit the game task runs (eager, as in embedded mode), the game
    finishes, game_finished fires, and the league task records the result."""
    club, organiser, (top, low) = club_with(2)
    ladder = services.ladder_create(club_id=club.pk, by=organiser, engine="nine-card")
    for member in (top, low):
        services.ladder_join(ladder_id=ladder.pk, by=member)
    challenge = services.challenge_create(ladder_id=ladder.pk, by=low, defender=top)
    challenge = services.challenge_accept(challenge_id=challenge.pk, by=top)
    celery_app.conf.task_always_eager = True
    try:
        with django_capture_on_commit_callbacks(execute=True):
            game_services.move_submit(
                game_id=challenge.game_id, user=top, move={"type": "resign"}, idempotency_key=uuid.uuid4().hex
            )
    finally:
        celery_app.conf.task_always_eager = False
    challenge = Challenge.objects.get(pk=challenge.pk)
    assert challenge.status == "decided" and challenge.outcome["winner"] == low.pk
    assert [e.user for e in ladder.entries.order_by("position")] == [low, top]


def test_league_command_sweeps_and_verifies(club_with, clock):
    from io import StringIO

    from django.core.management import call_command

    club, organiser, (a, b) = club_with(2)
    ladder = services.ladder_create(club_id=club.pk, by=organiser, engine="nine-card")
    for member in (a, b):
        services.ladder_join(ladder_id=ladder.pk, by=member)
    services.challenge_create(ladder_id=ladder.pk, by=b, defender=a, now=clock.now)  # long overdue by now
    out = StringIO()
    call_command("league", "sweep", stdout=out)
    assert out.getvalue().startswith("1 event(s)") and Challenge.objects.get().status == "decided"
    call_command("league", "verify", str(ladder.pk), stdout=out)
    assert '"ok": true' in out.getvalue()
