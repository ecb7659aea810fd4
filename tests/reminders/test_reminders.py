"""Deadline reminders (issue 19 item 9): a move before a game's deadline, a ladder challenge to
answer, a reported result to confirm - by the account stream, webhooks and e-mail as each account
chose, each at most once per deadline (also under racing sweeps on PostgreSQL), from beat's task
and the embedded timer thread; preferences through the API and the web page."""

from __future__ import annotations

import json
import threading
import uuid
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
import requests
from django.core import mail
from django.db import connection
from django.utils import timezone
from requests.adapters import BaseAdapter
from rest_framework.test import APIClient

from games import accounts
from games import services as game_services
from games.models import Game, Seat
from hooks import services as hooks
from hooks.models import Delivery
from league import services as league
from league.reports import services as reports
from reminders import selectors, services
from reminders.models import ReminderPreference, ReminderSent

pytestmark = pytest.mark.django_db


@pytest.fixture
def notices(monkeypatch):
    """The account-stream notices the reminders publish, as (account ids, notice)."""
    heard = []
    monkeypatch.setattr(services, "account_notice", lambda ids, notice: heard.append((list(ids), notice)))
    return heard


def correspondence(oya, ko, days=2) -> Game:
    game = game_services.game_create(
        consent=True,
        engine_slug="nine-card",
        config={},
        seats=[oya, ko],
        created_by=oya,
        time_control={"days_per_move": days},
    )
    game.refresh_from_db()
    return game


def test_your_move_is_reminded_once_per_deadline_by_each_chosen_channel(
    make_user, notices, django_capture_on_commit_callbacks
):
    oya, ko = make_user("oya"), make_user("ko")
    oya.email = "oya@example.org"
    oya.save()
    ReminderPreference.objects.create(user=oya, email=True, webhook=True, stream=True, lead_minutes=60)
    ReminderPreference.objects.create(user=ko, email=True, webhook=False, stream=False, lead_minutes=24 * 60)
    hook = hooks.webhook_create(user=oya, url="http://127.0.0.1:9/hook")
    hooks.webhook_create(user=oya, url="http://127.0.0.1:9/turns-only", events=["your_turn"])
    game = correspondence(oya, ko)
    deadline = game.deadline_at

    # Two days ahead: nobody's lead has come yet.
    assert services.reminders_send(now=deadline - timedelta(days=1, minutes=1)) == 0
    # A day ahead: ko's (a day) has; ko wants e-mail only but has no address, so nothing leaves -
    # and the reminder counts as sent (it is not tried again every minute).
    with django_capture_on_commit_callbacks(execute=True):
        assert services.reminders_send(now=deadline - timedelta(hours=23)) == 1
    assert mail.outbox == [] and notices == []
    # An hour ahead: oya's, by mail, the stream and the one webhook that takes reminders.
    with django_capture_on_commit_callbacks(execute=True):
        assert services.reminders_send(now=deadline - timedelta(minutes=59)) == 1
        assert services.reminders_send(now=deadline - timedelta(minutes=30)) == 0  # once per deadline
    (message,) = mail.outbox
    assert message.to == ["oya@example.org"]
    assert f"/games/{game.pk}/play" in message.body and deadline.strftime("%Y-%m-%d %H:%M") in message.body
    assert "It is your move" in message.body and "あなたの手番" in message.body  # English, then Japanese
    (ids, notice) = notices[0]
    assert ids == [oya.pk] and notice["event"] == "reminder" and notice["kind"] == "your_move"
    assert notice["game"] == str(game.pk) and notice["deadline_at"] == deadline.isoformat()
    (delivery,) = Delivery.objects.filter(event="reminder")
    assert delivery.webhook_id == hook.pk
    assert json.loads(delivery.body)["data"]["kind"] == "your_move"
    sent = ReminderSent.objects.order_by("sent_at")
    assert [(row.user_id, row.channels) for row in sent] == [(ko.pk, []), (oya.pk, ["email", "webhook", "stream"])]


def test_a_new_deadline_is_reminded_again_and_a_short_window_never(make_user, notices, settings):
    oya, ko = make_user("oya"), make_user("ko")
    game = correspondence(oya, ko)
    first = game.deadline_at
    assert services.reminders_send(now=first - timedelta(hours=1)) == 2  # both act at once in Nine Card
    Game.objects.filter(pk=game.pk).update(deadline_at=first + timedelta(days=1))  # the clock moved on
    assert services.reminders_send(now=first + timedelta(hours=23)) == 2
    # A window shorter than KIFU_REMINDER_MIN_WINDOW_SECONDS (a blitz clock) gets no reminder.
    settings.KIFU_REMINDER_MIN_WINDOW_SECONDS = 5 * 86400
    Game.objects.filter(pk=game.pk).update(deadline_at=first + timedelta(days=2))
    assert services.reminders_send(now=first + timedelta(days=1, hours=23)) == 0


def test_every_channel_off_sends_nothing_and_a_finished_game_none(
    make_user, notices, django_capture_on_commit_callbacks
):
    oya, ko = make_user("oya"), make_user("ko")
    ReminderPreference.objects.create(user=oya, email=False, webhook=False, stream=False)
    game = correspondence(oya, ko)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.reminders_send(now=game.deadline_at - timedelta(hours=1)) == 1  # ko only
    assert [notice["kind"] for _, notice in notices] == ["your_move"] and notices[0][0] == [ko.pk]
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    ReminderSent.objects.all().delete()
    assert services.reminders_send(now=game.deadline_at - timedelta(hours=1)) == 0


def test_a_challenge_to_answer_and_a_result_to_confirm(club_with, clock, notices, django_capture_on_commit_callbacks):
    club, organiser, (top, middle, bottom) = club_with(3)
    ladder = league.ladder_create(
        club_id=club.pk,
        by=organiser,
        engine="nine-card",
        settings={"results": "table", "report_confirm_hours": 24},
        now=clock.now,
    )
    for member in (top, middle, bottom):
        league.ladder_join(ladder_id=ladder.pk, by=member, now=clock.now)
    challenge = league.challenge_create(ladder_id=ladder.pk, by=bottom, defender=middle, now=clock.now)
    middle.email = "middle@example.org"
    middle.save()
    ReminderPreference.objects.create(user=middle, email=True, lead_minutes=120)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.reminders_send(now=challenge.accept_by - timedelta(hours=3)) == 0
        assert services.reminders_send(now=challenge.accept_by - timedelta(hours=1)) == 1
    assert notices[-1][0] == [middle.pk] and notices[-1][1]["kind"] == "challenge"
    assert notices[-1][1]["challenger"] == "m2" and f"/ladders/{ladder.pk}/" in mail.outbox[0].body
    report = reports.result_report(
        kind="challenge", pairing=str(challenge.pk), by=bottom, ranking=[[bottom.pk], [middle.pk]], now=clock.now
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert services.reminders_send(now=report.confirm_by - timedelta(minutes=90)) == 1  # middle, not bottom
    assert notices[-1][0] == [middle.pk] and notices[-1][1]["kind"] == "report"
    assert f"/pairings/challenge/{challenge.pk}/report" in mail.outbox[-1].body
    assert "Confirm or dispute" in mail.outbox[-1].body


def test_preferences_through_the_api_with_stable_refusals(make_user):
    user, token = accounts.account_create(username="aki", password="a-long-pass-1")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert api.get("/api/me/reminders").json() == selectors.DEFAULTS
    changed = api.patch("/api/me/reminders", {"email": True, "lead_minutes": 90}, format="json")
    assert changed.status_code == 200 and changed.json() == {**selectors.DEFAULTS, "email": True, "lead_minutes": 90}
    assert api.patch("/api/me/reminders", {"stream": False}, format="json").json()["lead_minutes"] == 90
    for body, code in [
        ({"lead_minutes": 4}, "bad_reminder_lead"),
        ({"lead_minutes": 10081}, "bad_reminder_lead"),
        ({"lead_minutes": "60"}, "bad_reminder_lead"),
        ({"lead_minutes": True}, "bad_reminder_lead"),
        ({"email": "yes"}, "bad_reminder_preferences"),
        ({"sms": True}, "bad_reminder_preferences"),
        ([1], "bad_reminder_preferences"),
    ]:
        refused = api.patch("/api/me/reminders", body, format="json")
        assert (refused.status_code, refused.json()["code"]) == (400, code), (body, refused.content)
    assert services.preferences_get(user=user)["stream"] is False
    # a play token may choose them (a bot's reminders); a read token may only look
    for scopes, status in ([["play"], 200], [["read"], 403]):
        key = api.post("/api/me/tokens", {"name": "bot", "scopes": scopes}, format="json").json()["key"]
        bot = APIClient()
        bot.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
        assert bot.get("/api/me/reminders").status_code == 200
        assert bot.patch("/api/me/reminders", {"webhook": False}, format="json").status_code == status


def test_the_web_page_sets_them_in_english_and_japanese(client, make_user):
    user = make_user("aki")
    assert client.get("/accounts/reminders/").status_code == 302  # log in first
    client.force_login(user)
    assert 'href="/accounts/reminders/"' in client.get("/accounts/email/").content.decode()
    page = client.get("/accounts/reminders/")
    assert page.status_code == 200 and "Deadline reminders" in page.content.decode()
    assert "no e-mail address yet" in page.content.decode()
    saved = client.post("/accounts/reminders/", {"email": "on", "stream": "on", "lead_minutes": "1440"})
    assert saved.status_code == 302
    assert services.preferences_get(user=user) == {
        "email": True,
        "webhook": False,
        "stream": True,
        "lead_minutes": 1440,
    }
    assert client.post("/accounts/reminders/", {"lead_minutes": "7"}).status_code == 400
    japanese = client.get("/accounts/reminders/", HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "締め切り" in japanese and "1日前" in japanese


def test_beat_and_the_embedded_timer_run_the_sweep(make_user, notices, settings, django_capture_on_commit_callbacks):
    """Beat names the task; the embedded timer thread runs it from KIFU_EMBEDDED_PERIODIC, on the
    wall clock: a game whose deadline is within the lead now gets its reminders."""
    from games import scheduler
    from kifu.celery import app as celery_app

    celery_app.loader.import_default_modules()
    assert "reminders.tasks.reminders_sweep" in celery_app.tasks
    assert settings.CELERY_BEAT_SCHEDULE["reminders-deadlines"]["task"] == "reminders.tasks.reminders_sweep"
    oya, ko = make_user("oya"), make_user("ko")
    game = correspondence(oya, ko)
    Game.objects.filter(pk=game.pk).update(
        window_opened_at=timezone.now() - timedelta(days=2), deadline_at=timezone.now() + timedelta(hours=1)
    )
    settings.KIFU_EMBEDDED_PERIODIC = [entry for entry in settings.KIFU_EMBEDDED_PERIODIC if "reminders" in entry[0]]
    assert settings.KIFU_EMBEDDED_PERIODIC == [("reminders.tasks.reminders_sweep", 60.0)]
    with django_capture_on_commit_callbacks(execute=True):
        scheduler.run_periodic({}, 1e9)  # what the embedded timer thread does each tick
        scheduler.run_periodic({}, 2e9)  # and again: nothing twice
    assert sorted(ids[0] for ids, _ in notices) == sorted([oya.pk, ko.pk])


def _in_thread(call):
    """``call()`` in a thread with its own connection, so its writes commit (the test's own
    connection is inside the test transaction)."""
    out = []
    thread = threading.Thread(target=lambda: (out.append(call()), connection.close()))
    thread.start()
    thread.join(60)
    return out[0]


@pytest.mark.stack  # commits for real (a transactional test's flush would TRUNCATE the event log): runs last
def test_racing_sweeps_send_each_reminder_once(notices, settings):
    """Eight threads sweep at the same moment, each with its own connection and transaction: the
    unique key lets one of them send each reminder; the others meet its row and send nothing."""
    if connection.vendor != "postgresql":
        pytest.skip("the race needs PostgreSQL (run with DATABASE_URL, as bin/test does)")
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    mail.outbox = []
    tag = uuid.uuid4().hex[:8]

    def setup():
        players = []
        for n in range(4):
            player = accounts.User.objects.create_user(username=f"remind-{tag}-{n}", email=f"{tag}-{n}@example.org")
            ReminderPreference.objects.create(user=player, email=True, lead_minutes=120)
            players.append(player)
        return players, [correspondence(players[0], players[1]), correspondence(players[2], players[3])]

    players, games = _in_thread(setup)
    now = max(game.deadline_at for game in games) - timedelta(hours=1)
    start, counts, errors = threading.Barrier(8), [], []

    def sweep():
        try:
            start.wait()
            counts.append(services.reminders_send(now=now))
        except Exception as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=sweep) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == [] and len(counts) == 8
    ours = ReminderSent.objects.filter(user__in=players)
    assert ours.count() == 4  # 2 games x 2 seats to act, each once
    assert sorted(m.to[0] for m in mail.outbox if tag in m.to[0]) == sorted(p.email for p in players)
    assert sorted(ids[0] for ids, _ in notices if ids[0] in {p.pk for p in players}) == sorted(p.pk for p in players)
    assert set(Seat.objects.filter(game__in=games).values_list("user_id", flat=True)) == {r.user_id for r in ours}


def test_rows_of_deadlines_long_past_are_deleted_and_the_admin_lists_them(make_user, client):
    oya, ko = make_user("oya"), make_user("ko")
    game = correspondence(oya, ko)
    assert services.reminders_send(now=game.deadline_at - timedelta(hours=1)) == 2
    client.force_login(accounts.User.objects.create_superuser("root", "root@example.org", "a-long-pass-1"))
    listing = client.get("/admin/reminders/remindersent/")
    assert listing.status_code == 200 and str(game.pk) in listing.content.decode()
    assert client.get("/admin/reminders/remindersent/add/").status_code == 403
    services.reminders_send(now=game.deadline_at + services.KEEP_SENT - timedelta(minutes=1))
    assert ReminderSent.objects.count() == 2  # kept a while after the deadline
    services.reminders_send(now=game.deadline_at + services.KEEP_SENT + timedelta(minutes=1))
    assert ReminderSent.objects.count() == 0


class ThroughDjango(BaseAdapter):
    """A requests adapter that answers through Django's test client: kifu_client in-process."""

    def send(self, request, **kwargs):
        from django.test import Client

        url = urlsplit(request.url)
        path = url.path + (f"?{url.query}" if url.query else "")
        answer = Client().generic(
            request.method,
            path,
            data=request.body or b"",
            content_type=request.headers.get("Content-Type", ""),
            HTTP_AUTHORIZATION=request.headers.get("Authorization", ""),
        )
        response = requests.Response()
        response.status_code, response.request, response.url = answer.status_code, request, request.url
        response._content = answer.content
        response.headers.update({"Content-Type": answer.get("Content-Type", "application/json")})
        return response


def test_the_python_client_sets_the_address_and_the_reminders(make_user):
    from kifu_client import KifuClient, KifuError

    _, token = accounts.account_create(username="bot-author", password="a-long-pass-1")
    session = requests.Session()
    session.mount("http://kifu.test", ThroughDjango())
    client = KifuClient("http://kifu.test", token=token.key, session=session)
    assert client.set_email("author@example.org") == {"email": "author@example.org"}
    assert client.reminder_preferences() == selectors.DEFAULTS
    assert client.set_reminder_preferences(stream=False, lead_minutes=30)["lead_minutes"] == 30
    with pytest.raises(KifuError) as refused:
        client.set_reminder_preferences(lead_minutes=1)
    assert refused.value.code == "bad_reminder_lead" and refused.value.status == 400
    client.play_only("reminded bot")
    assert client.set_reminder_preferences(webhook=True)["webhook"] is True  # a play token may
    with pytest.raises(KifuError) as refused:
        client.set_email("thief@example.org")
    assert refused.value.code == "token_scope"
