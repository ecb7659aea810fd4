"""Issue 18: an organiser changes a club's and a ladder's settings on their web pages.

The forms post to ``web.league_views.club_settings`` and ``ladder_settings``, which call the same
services as the API (``club_update``, ``ladder_update``): their refusals are shown on the page.
"""

from __future__ import annotations

import html
import json

import pytest
from django.test import Client

from league import services
from league.models import Club, Ladder, LadderEvent
from tests.web.accounts import client_of, user

pytestmark = pytest.mark.django_db


@pytest.fixture
def club():
    """An organiser, a member and a stranger; a challenge ladder and a rating ladder."""
    organiser, member, stranger = user("org"), user("mem"), user("stranger")
    club = services.club_create(name="Go Club", slug="go-club", by=organiser, description="Tuesdays.")
    services.membership_invite(club_id=club.pk, by=organiser, user=member)
    services.membership_join(club_id=club.pk, by=member)
    ladder = services.ladder_create(club_id=club.pk, by=organiser, engine="nine-card", name="Nine")
    rating = services.ladder_create(club_id=club.pk, by=organiser, engine="nine-card", kind="rating", name="Rated")
    return club, organiser, member, stranger, ladder, rating


def form_of(ladder: Ladder, **changes) -> dict:
    """The ladder settings form as the page fills it in, with ``changes`` typed over it."""
    ladder.refresh_from_db()
    match = ladder.settings.get("match") or {"format": "", "target": ""}
    posted = {"name": ladder.name, "match_format": match["format"], "match_target": str(match["target"])}
    for name, value in ladder.settings.items():
        if name in ("match", "results", "report_confirm_hours"):
            continue
        if name == "allow_bots":
            if value:
                posted[name] = "on"
        else:
            posted[name] = str(value)
    posted.update(changes)
    return {name: value for name, value in posted.items() if value is not None}


def messages_of(response) -> str:
    return html.unescape(response.content.decode())


def test_an_organiser_renames_the_club_and_changes_its_description(club):
    browser = client_of(club[1])
    page = browser.get("/clubs/go-club/").content.decode()
    assert 'id="club-settings"' in page and 'action="/clubs/go-club/settings"' in page

    saved = browser.post("/clubs/go-club/settings", {"name": "Shogi Club", "description": "Fridays."})
    assert saved.status_code == 302 and saved["Location"] == "/clubs/go-club/"
    shown = browser.get("/clubs/go-club/").content.decode()
    assert "Saved: the club&#x27;s settings." in shown and "<h1>Shogi Club</h1>" in shown and "Fridays." in shown
    assert Club.objects.get(slug="go-club").description == "Fridays."


def test_a_bad_club_name_shows_the_services_refusal_and_changes_nothing(club):
    organiser = club[1]
    refused = client_of(organiser).post("/clubs/go-club/settings", {"name": "  ", "description": "x"}, follow=True)
    assert refused.status_code == 200
    assert "bad_club_name: a club needs a name of 1-100 characters" in messages_of(refused)
    assert (Club.objects.get(slug="go-club").name, Club.objects.get(slug="go-club").description) == (
        "Go Club",
        "Tuesdays.",
    )


def test_members_strangers_and_visitors_get_no_settings_form_and_a_403(club):
    _club, _organiser, member, stranger, ladder, rating = club
    for client in (client_of(member), client_of(stranger), Client()):
        assert 'id="club-settings"' not in client.get("/clubs/go-club/").content.decode()
        for one in (ladder, rating):
            page = client.get(f"/ladders/{one.pk}/").content.decode()
            assert 'id="ladder-settings"' not in page and "/settings" not in page
        club_post = client.post("/clubs/go-club/settings", {"name": "Taken", "description": ""})
        assert club_post.status_code == 403
        ladder_post = client.post(f"/ladders/{ladder.pk}/settings", form_of(ladder, name="Taken", play_days="1"))
        assert ladder_post.status_code == 403
    refused = client_of(member).post(f"/ladders/{ladder.pk}/settings", form_of(ladder, play_days="1"))
    assert "not_organiser: Only an organiser of this club may do this." in messages_of(refused)
    assert Club.objects.get(slug="go-club").name == "Go Club"
    ladder.refresh_from_db()
    assert ladder.name == "Nine" and ladder.settings["play_days"] == 7
    assert not LadderEvent.objects.filter(ladder=ladder, kind="settings_changed").exists()
    assert client_of(club[1]).post("/clubs/nope/settings", {"name": "x"}).status_code == 404
    assert client_of(club[1]).post("/ladders/999999/settings", {"name": "x"}).status_code == 404


CHANGES = [
    ("challenge_range", "2", 2),
    (
        "challenge_range",
        '[{"to": 10, "places": 2}, {"to": null, "places": 4}]',
        json.loads('[{"to": 10, "places": 2}, {"to": null, "places": 4}]'),
    ),
    ("max_open_challenges", "3", 3),
    ("accept_days", "1.5", 1.5),
    ("play_days", "10", 10),
    ("on_challenger_win", "leapfrog", "leapfrog"),
    ("rematch_cooldown_days", "0", 0),
    ("new_player_free_challenges", "4", 4),
    ("inactivity_days", "0", 0),
    ("inactivity_drop_places", "2", 2),
]


@pytest.mark.parametrize(("name", "typed", "stored"), CHANGES, ids=[f"{c[0]}={c[1][:6]}" for c in CHANGES])
def test_an_organiser_changes_each_challenge_ladder_setting_and_sees_it(club, name, typed, stored):
    organiser, ladder = club[1], club[4]
    browser = client_of(organiser)
    page = browser.get(f"/ladders/{ladder.pk}/").content.decode()
    assert 'id="ladder-settings"' in page and f'id="setting-{name}"' in page
    saved = browser.post(f"/ladders/{ladder.pk}/settings", form_of(ladder, **{name: typed}))
    assert saved.status_code == 302 and saved["Location"] == f"/ladders/{ladder.pk}/"
    ladder.refresh_from_db()
    assert ladder.settings[name] == stored
    # Only the setting that changed is logged as changed.
    event = LadderEvent.objects.filter(ladder=ladder, kind="settings_changed").get()
    assert event.payload["changed"] == [name] and event.actor_id == organiser.pk
    shown = messages_of(browser.get(f"/ladders/{ladder.pk}/"))
    assert "Saved: the ladder's settings." in shown
    assert f'id="setting-{name}"' in shown
    shown_value = typed if name != "on_challenger_win" else None
    if shown_value is not None:
        assert f'id="setting-{name}" value="{shown_value}"' in shown
    else:
        assert '<option value="leapfrog" selected>' in shown


def test_an_organiser_renames_a_ladder_allows_bots_and_sets_a_match(club):
    organiser, rating = club[1], club[5]
    page = client_of(organiser).get(f"/ladders/{rating.pk}/").content.decode()
    assert 'id="setting-allow_bots"' in page and 'id="setting-challenge_range"' not in page
    assert page.count('id="reporting"') == 1  # the results setting keeps its own form, once
    form = form_of(rating, name="Rated Nine", allow_bots="on", match_format="best_of", match_target="3")
    client_of(organiser).post(f"/ladders/{rating.pk}/settings", form)
    rating.refresh_from_db()
    assert rating.name == "Rated Nine" and rating.settings["allow_bots"] is True
    assert rating.settings["match"] == {"format": "best_of", "target": 3, "points": "wins"}
    shown = client_of(organiser).get(f"/ladders/{rating.pk}/").content.decode()
    assert "<h1>Rated Nine</h1>" in shown and 'id="setting-allow_bots" checked' in shown
    assert '<option value="best_of" selected>' in shown and 'id="setting-match_target" value="3"' in shown

    # Posting the same form again changes nothing and logs nothing; unticking the box turns bots off.
    again = client_of(organiser).post(f"/ladders/{rating.pk}/settings", form_of(rating), follow=True)
    assert "Nothing changed." in messages_of(again)
    assert LadderEvent.objects.filter(ladder=rating, kind="settings_changed").count() == 1
    client_of(organiser).post(f"/ladders/{rating.pk}/settings", form_of(rating, allow_bots=None, match_format=""))
    rating.refresh_from_db()
    assert rating.settings["allow_bots"] is False and rating.settings["match"] is None


@pytest.mark.parametrize(
    ("changes", "refusal"),
    [
        ({"max_open_challenges": "50"}, "setting 'max_open_challenges' must be a whole number from 1 to 20, not 50"),
        ({"play_days": "soon"}, "setting 'play_days' must be a number from 0.001 to 365, not 'soon'"),
        ({"new_player_free_challenges": "1.5"}, "must be a whole number from 0 to 100, not 1.5"),
        ({"challenge_range": "[{}]"}, "challenge_range band 0 must be an object with 'to' and 'places'"),
        ({"on_challenger_win": "shuffle"}, "on_challenger_win must be 'swap' or 'leapfrog', not 'shuffle'"),
        ({"match_format": "best_of", "match_target": "0"}, "a best_of match needs a whole-number target from 1"),
        ({"challenge_range": "[" * 100_000}, "challenge_range must be an int, or bands like"),
        ({"challenge_range": "1e400"}, "challenge_range must be an int, or bands like"),
        ({"inactivity_days": "nan"}, "setting 'inactivity_days' must be a number from 0 to 3650, not nan"),
        ({"name": " "}, "bad_ladder_name: a ladder needs a name"),
        ({"name": "Renamed", "accept_days": "-1"}, "must be a number from 0.001 to 365, not -1"),
    ],
)
def test_a_bad_ladder_setting_shows_the_services_refusal_and_changes_nothing(club, changes, refusal):
    organiser, ladder = club[1], club[4]
    before = dict(Ladder.objects.get(pk=ladder.pk).settings)
    refused = client_of(organiser).post(f"/ladders/{ladder.pk}/settings", form_of(ladder, **changes), follow=True)
    assert refused.status_code == 200 and refused.redirect_chain == [(f"/ladders/{ladder.pk}/", 302)]
    assert refusal in messages_of(refused)
    ladder.refresh_from_db()
    assert ladder.settings == before and ladder.name == "Nine"
    assert not LadderEvent.objects.filter(ladder=ladder, kind="settings_changed").exists()


def test_the_settings_forms_in_japanese(club):
    organiser, ladder = club[1], club[4]
    club_page = client_of(organiser, "ja").get("/clubs/go-club/").content.decode()
    assert '<html lang="ja">' in club_page and "クラブの設定" in club_page
    ladder_page = client_of(organiser, "ja").get(f"/ladders/{ladder.pk}/").content.decode()
    assert "ラダーの設定" in ladder_page and "挑戦者が勝ったとき" in ladder_page
    saved = client_of(organiser, "ja").post(
        f"/ladders/{ladder.pk}/settings", form_of(ladder, play_days="9"), follow=True
    )
    assert "保存しました: ラダーの設定" in messages_of(saved)
    refused = client_of(club[2], "ja").post("/clubs/go-club/settings", {"name": "x"})
    assert refused.status_code == 403 and "クラブの主催者だけ" in messages_of(refused)
