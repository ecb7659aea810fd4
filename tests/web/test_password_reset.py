"""Password reset by e-mail (issue 19 item 9), in-process: the whole round trip through ``mail.outbox``,
both languages, no answer that tells whether an address has an account, the throttles, a failing mail
server, and the page where a player sets the address."""

from __future__ import annotations

import re
import smtplib
from unittest import mock

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client, override_settings
from rest_framework.throttling import SimpleRateThrottle

from kifu.http import throttles

from .accounts import client_of

pytestmark = pytest.mark.django_db
RATES = {"anon": "1000/minute", "user": "1000/minute", "login": "1000/minute", "password_reset": "3/minute"}
LINK = re.compile(r"http://testserver(/accounts/reset/[^/\s]+/[^/\s]+/)")


@pytest.fixture(autouse=True)
def private_counters():
    """A private local-memory cache, small rates and a stopped throttle clock (as tests/robustness does)."""
    from django.core.cache import cache

    locmem = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "password-reset"}}
    with (
        override_settings(CACHES=locmem),
        mock.patch.object(SimpleRateThrottle, "THROTTLE_RATES", RATES),
        mock.patch.object(throttles, "_now", lambda: 1_000_020.0),
    ):
        cache.clear()
        yield
        cache.clear()


def sign_up(name: str, email: str, language: str = "en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    form = {"username": name, "email": email, "password1": "a-long-pass-1", "password2": "a-long-pass-1"}
    assert client.post("/accounts/signup/", form).status_code == 302
    client.logout()
    return client


def ask(email: str, address: str = "10.9.0.1", language: str = "en"):
    client = Client(REMOTE_ADDR=address, HTTP_ACCEPT_LANGUAGE=language)
    return client.post("/accounts/password-reset/", {"email": email})


def test_a_player_resets_the_password_through_the_mailed_link():
    sign_up("mika", "mika@example.org")
    login = Client().get("/accounts/login/").content.decode()
    assert 'href="/accounts/password-reset/"' in login
    sent = ask("MIKA@example.org")  # the address is matched without regard to case
    assert (sent.status_code, sent["Location"]) == (302, "/accounts/password-reset/sent")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["mika@example.org"] and message.subject == "Kifu: choose a new password"
    assert "Hello mika," in message.body and "ignore this mail" in message.body
    link = LINK.search(message.body).group(1)

    browser = Client()
    opened = browser.get(link)  # Django moves the token out of the address before the form
    assert opened.status_code == 302
    form_page = browser.get(opened["Location"])
    assert form_page.status_code == 200 and 'id="password-reset-confirm"' in form_page.content.decode()
    weak = browser.post(opened["Location"], {"new_password1": "short", "new_password2": "short"})
    assert weak.status_code == 200 and "message error" in weak.content.decode()
    new = {"new_password1": "another-long-pass-2", "new_password2": "another-long-pass-2"}
    done = browser.post(opened["Location"], new)
    assert (done.status_code, done["Location"]) == (302, "/accounts/reset/done")
    assert 'id="password-reset-complete"' in browser.get(done["Location"]).content.decode()

    assert Client().login(username="mika", password="another-long-pass-2")
    assert not Client().login(username="mika", password="a-long-pass-1")
    again = Client().get(link, follow=True).content.decode()
    assert 'id="password-reset-invalid"' in again  # a link works once


def test_an_unknown_address_gets_the_same_answer_and_no_mail():
    sign_up("noor", "")  # an account without an address cannot be reset by mail
    for email in ("nobody@example.org", "noor@example.org"):
        answer = ask(email, address="10.9.0.2")
        assert (answer.status_code, answer["Location"]) == (302, "/accounts/password-reset/sent")
    assert mail.outbox == []
    bad = ask("not an address", address="10.9.0.3")
    assert bad.status_code == 200 and "message error" in bad.content.decode() and mail.outbox == []


def test_the_mail_and_the_pages_speak_japanese():
    sign_up("hana", "hana@example.org", "ja")
    page = Client(HTTP_ACCEPT_LANGUAGE="ja").get("/accounts/password-reset/").content.decode()
    assert "パスワードを忘れた場合" in page
    assert ask("hana@example.org", language="ja").status_code == 302
    (message,) = mail.outbox
    assert message.subject == "Kifu: 新しいパスワードの設定"
    assert "hanaさん" in message.body and LINK.search(message.body)


def test_requests_are_throttled_per_address_and_per_mailbox():
    sign_up("ren", "ren@example.org")
    answers = [ask(f"x{n}@example.org", address="10.9.1.1").status_code for n in range(4)]
    assert answers == [302, 302, 302, 429]
    refused = ask("ren@example.org", address="10.9.1.1")
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert 'id="password-reset-refused"' in refused.content.decode() and mail.outbox == []
    # From other addresses: the same mailbox gets 3 mails, then the answer stays the same but nothing is sent.
    answers = [ask("ren@example.org", address=f"10.9.2.{n}").status_code for n in range(5)]
    assert answers == [302] * 5 and len(mail.outbox) == 3


def test_a_mail_server_that_fails_is_a_503_not_a_500():
    sign_up("sol", "sol@example.org")
    with mock.patch("django.contrib.auth.forms.PasswordResetForm.send_mail", side_effect=smtplib.SMTPException):
        answer = ask("sol@example.org")
    assert answer.status_code == 503 and int(answer["Retry-After"]) >= 1
    assert 'value="sol@example.org"' in answer.content.decode()


def test_a_player_sets_and_removes_the_address_on_the_email_page():
    assert Client().get("/accounts/email/").status_code == 302  # log in first
    player = get_user_model().objects.create_user(username="tao", password="a-long-pass-1")
    client = client_of(player)
    assert 'href="/accounts/email/"' in client.get("/").content.decode()
    assert client.post("/accounts/email/", {"email": "nope"}).status_code == 400
    saved = client.post("/accounts/email/", {"email": "tao@example.org"}, follow=True)
    assert saved.status_code == 200 and 'value="tao@example.org"' in saved.content.decode()
    assert ask("tao@example.org").status_code == 302 and len(mail.outbox) == 1
    client.post("/accounts/email/", {"email": ""})
    player.refresh_from_db()
    assert player.email == ""
