"""The moderation forms of a storytelling game's pages (issue 18), in-process: who is offered which
form, the forms call ``games.moderation`` (the API's services) and bring its refusals back, CSRF."""

from __future__ import annotations

import uuid

import pytest
from django.test import Client

from games import moderation, services
from games.models import Game

from .accounts import client_of, user

pytestmark = pytest.mark.django_db


def story(aki, ben) -> Game:
    """aki (who created the game and plays: a moderator) and ben both write "yes"."""
    game = services.game_create(consent=True, engine_slug="believers", config={}, seats=[aki, ben], created_by=aki)
    for account in (aki, ben):
        move = {"type": "contribute", "text": "yes"}
        services.move_submit(game_id=game.pk, user=account, move=move, idempotency_key=uuid.uuid4().hex)
        services.game_advance(game_id=game.pk)
    return Game.objects.get(pk=game.pk)


def hidden(game: Game) -> dict:
    return moderation.hidden_contributions(game=game)


def test_who_is_offered_which_form():
    aki, ben, stranger = user("aki"), user("ben"), user("stranger")
    game = story(aki, ben)
    page = client_of(aki).get(f"/games/{game.pk}").content.decode()
    assert page.count('class="hide"') == 2 and page.count('class="report"') == 2
    page = client_of(ben).get(f"/games/{game.pk}").content.decode()
    assert 'class="hide"' not in page and page.count('class="report"') == 2
    # A running game: someone who does not play may not report yet, and sees no form.
    page = client_of(stranger).get(f"/games/{game.pk}").content.decode()
    assert 'class="report"' not in page and 'class="hide"' not in page
    # The play page's list: log.json marks the contributions; the page says what the viewer may do.
    log = client_of(ben).get(f"/games/{game.pk}/log.json").json()["events"]
    assert [(e["seq"], e["contribution"], e["hidden_reason"]) for e in log] == [(1, True, None), (2, True, None)]
    play = client_of(ben).get(f"/games/{game.pk}/play").content.decode()
    assert '"may_report": true' in play and '"moderator": false' in play


def test_the_forms_call_the_services_and_bring_back_their_refusals():
    aki, ben = user("aki"), user("ben")
    game = story(aki, ben)
    url = f"/games/{game.pk}/events/1"
    refused = client_of(ben).post(f"{url}/hide", {"reason": "spoiler"}, follow=True)
    assert "not_a_moderator:" in refused.content.decode() and hidden(game) == {}
    blank = client_of(aki).post(f"{url}/hide", {"reason": "  "}, follow=True)
    assert "reason_required:" in blank.content.decode() and hidden(game) == {}
    done = client_of(aki).post(f"{url}/hide", {"reason": "spoiler", "back": "play"})
    assert done.status_code == 302 and done["Location"] == f"/games/{game.pk}/play"
    assert hidden(game) == {1: "spoiler"}
    # Only event 1: the same words in event 2 stay, in the game page's list and the play page's log.
    page = client_of(ben, "ja").get(f"/games/{game.pk}").content.decode()
    assert "モデレーターにより非表示: spoiler" in page
    log = client_of(ben).get(f"/games/{game.pk}/log.json").json()["events"]
    assert [e["hidden_reason"] for e in log] == ["spoiler", None]
    assert "yes" not in log[0]["text"] and log[1]["text"].endswith("yes")
    twice = client_of(aki).post(f"{url}/hide", {"reason": "again"}, follow=True)
    assert "already_hidden:" in twice.content.decode()
    shown = client_of(aki).post(f"{url}/show", {"reason": ""})
    assert shown["Location"] == f"/games/{game.pk}#event-1" and hidden(game) == {}
    assert moderation.report_list(game=game)["decisions"][-1]["reason"] == moderation.SHOWN_AGAIN
    report = client_of(ben).post(f"{url}/report", {"reason": "a real place"}, follow=True)
    assert "You reported event 1" in report.content.decode()
    again = client_of(ben).post(f"{url}/report", {"reason": "a real place"}, follow=True)
    assert "already_reported:" in again.content.decode()


def test_refusals_of_the_request_itself():
    aki, ben = user("aki"), user("ben")
    game = story(aki, ben)
    # Without the CSRF token: refused, nothing hidden.
    forged = Client(enforce_csrf_checks=True)
    forged.force_login(aki)
    assert forged.post(f"/games/{game.pk}/events/1/hide", {"reason": "x"}).status_code == 403
    assert hidden(game) == {}
    assert client_of(aki).get(f"/games/{game.pk}/events/1/hide").status_code == 405
    assert client_of(aki).post(f"/games/{game.pk}/events/1/delete", {"reason": "x"}).status_code == 404
    assert Client().post(f"/games/{game.pk}/events/1/hide", {"reason": "x"}).status_code == 302  # log in first
    nine = services.game_create(consent=True, engine_slug="nine-card", config={}, seats=[aki, ben], created_by=aki)
    other = client_of(aki).post(f"/games/{nine.pk}/events/1/hide", {"reason": "x"}, follow=True).content.decode()
    assert "not_a_storytelling_game:" in other
    assert 'id="contributions"' not in client_of(aki).get(f"/games/{nine.pk}").content.decode()
