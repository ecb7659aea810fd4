"""Every engine's finished game on the replay page and in replay.json, in every perspective, with
its events in words (English and Japanese); the play log of a running game is redacted per seat."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone, translation

from games import services
from games.engines import REGISTRY
from games.models import Game
from web.describe import describe_event

from .games import play_random, seats_for
from .test_pages import play_turn

pytestmark = pytest.mark.django_db
BOARDS = sorted(slug for slug in REGISTRY if slug != "nine-card")  # Nine Card's board is tested in test_pages


@pytest.fixture
def users():
    User = get_user_model()
    return [User.objects.create_user(username=name, password="a-long-pass-1") for name in ("ann", "ben", "cho", "dai")]


@pytest.mark.parametrize("slug", sorted(REGISTRY))
def test_the_replay_of_a_finished_game_of_every_engine(users, slug):
    game = play_random(slug, users)
    client = Client()
    client.force_login(users[0])  # a mature game is visible to a player who consented
    page = client.get(f"/games/{game.pk}/replay")
    assert page.status_code == 200
    assert b"web/boards.js" in page.content and b"web/table.js" in page.content
    end = client.get(f"/games/{game.pk}/replay.json", {"at": game.head_seq}).json()
    assert end["at"] == end["total"] == game.head_seq and end["outcome"] == game.outcome
    assert end["view"] and len(end["events"]) == game.head_seq
    names = end["seats"]
    for event in end["events"]:
        assert event["text"] and "_" not in event["text"], event  # no raw action names
        if event["kind"] == "move":
            assert names[event["seat"]] in event["text"], event
    for perspective in [str(seat) for seat in range(seats_for(slug))] + ["spectator"]:
        middle = client.get(f"/games/{game.pk}/replay.json", {"at": game.head_seq // 2, "as": perspective})
        assert middle.status_code == 200, middle.content
        assert middle.json()["as"] == perspective and len(middle.json()["events"]) == game.head_seq // 2


def _say(engine, event, names=("Ann", "Ben", "Cho"), language="en"):
    with translation.override(language):
        return describe_event(engine, event, list(names))


def test_satori_katsu_in_words():
    katsu = {"kind": "move", "seat": 1, "data": {"type": "katsu"}}
    assert _say("satori", katsu)["text"] == "Ben called katsu!"
    played = {"kind": "move", "seat": 0, "data": {"type": "play_card", "card": "2D"}}
    assert _say("satori", played)["text"] == "Ann played 2D face down"
    hidden = {"kind": "move", "seat": 0, "data": {"type": "play_card", "card": None}}
    assert _say("satori", hidden)["text"] == "Ann played a card face down"
    assert _say("satori", hidden, language="ja")["text"] == "Annがカードを伏せて出しました"
    closed = {"kind": "system", "data": {"type": "close_window", "window": "katsu-3"}}
    assert _say("satori", closed)["text"] == "Nobody called katsu in time"


def test_a_katsu_says_what_the_card_was_in_both_languages():
    katsu = {"seq": 9, "kind": "move", "seat": 1, "data": {"type": "katsu"}}
    entry = {"window": "katsu-8", "active": 0, "challenger": 1, "card": "2D", "class": "S", "success": True}
    assert _say_katsu(katsu, entry)["text"] == "Ben called katsu! - it was 2D, a Satori card: the katsu succeeded."
    assert _say_katsu(katsu, entry)["cards"] == ["2D"]
    failed = {**entry, "card": "Z", "class": "Z", "success": False}  # the card stays secret from this viewer
    assert _say_katsu(katsu, failed)["text"] == "Ben called katsu! - it was a Zatsunen card: the katsu failed."
    ja = _say_katsu(katsu, entry, "ja")["text"]
    assert ja == "Benが「喝!」と言いました - それは2D, 悟りカードでした: 喝は成功しました。"


def test_a_hidden_contribution_in_words_in_both_languages():
    """Issue 23: a line a moderator hid says so, with the reason - never a Python dict."""
    gone = {"hidden": True, "reason": "a real address"}
    line = {"seq": 2, "kind": "move", "seat": 1, "data": {"type": "contribute", "text": gone}}
    assert _say("believers", line)["text"] == "Ben: hidden by a moderator: a real address"
    assert _say("believers", line, language="ja")["text"] == "Ben: モデレーターにより非表示: a real address"
    label = {"seq": 5, "kind": "move", "seat": 0, "data": {"type": "set_label", "label": gone}}
    assert _say("kazekami-kyoko", label)["text"] == "Ann set label (label hidden by a moderator: a real address)"
    opened = {"seq": 7, "kind": "move", "seat": 0, "data": {"type": "open_tale", "form": "boast", "statement": gone}}
    assert "{" not in _say("kazekami-kyoko", opened, language="ja")["text"]


def _say_katsu(event, entry, language="en"):
    with translation.override(language):
        return describe_event("satori", event, ["Ann", "Ben"], entry)


@pytest.mark.parametrize(
    ("engine", "data", "seat", "english", "japanese"),
    [
        ("turn-thief", {"type": "call_doubt"}, 2, "Cho called doubt", "Choが「ダウト」と言いました"),
        (
            "necropolis",
            {"type": "bury_from_mastaba", "tile": "2-5", "end": 0, "top": 1},
            0,
            "Ann buried 2-5 from the mastaba",
            "Annがマスタバから2-5を墓に埋めました",
        ),
        (
            "twenty-two",
            {"type": "exchange", "cards": None, "count": 3},
            1,
            "Ben exchanged 3 cards",
            "Benがカードを3枚交換しました",
        ),
        (
            "believers",
            {"type": "commit_choice", "choice": "depart"},
            0,
            "Ann chose to depart",
            "Annは「旅立つ」を選びました",
        ),
        (
            "believers",
            {"type": "commit_choice", "choice": None},
            0,
            "Ann made a sealed choice",
            "Annが封印した選択をしました",
        ),
        (
            "kazekami-kyoko",
            {"type": "take_role", "role": "kublai"},
            1,
            "Ben took the role of Kublai Khan",
            "Benがフビライ・ハンの役になりました",
        ),
        (
            "mekuri-hinmin",
            {"type": "pass_and_draw"},
            0,
            "Ann passed and drew a card",
            "Annがパスしてカードを1枚引きました",
        ),
    ],
)
def test_every_game_has_its_own_sentences(engine, data, seat, english, japanese):
    event = {"kind": "move", "seat": seat, "data": data}
    assert _say(engine, event)["text"] == english
    assert _say(engine, event, language="ja")["text"] == japanese


def test_the_whole_replay_waits_for_the_spectator_delay(users):
    """A finished game's whole replay (every hand, the seed) opens to a spectator held back by the
    delay only once the end is older than the delay; until then it is a live replay up to the
    delayed position. A player of the game gets the whole replay at once."""
    game = play_random("nine-card", users)
    # As game_spectator_delay_set would have set it before the end (the service refuses after it).
    Game.objects.filter(pk=game.pk).update(meta={**(game.meta or {}), "spectator_delay_seconds": 600})
    spectator, player = Client(), Client()
    player.force_login(users[0])
    held = spectator.get(f"/games/{game.pk}/replay.json").json()
    assert held["live"] and held["total"] == 0 and held["outcome"] is None
    assert spectator.get(f"/games/{game.pk}/replay.json", {"as": "all"}).status_code == 403
    page = spectator.get(f"/games/{game.pk}/replay")
    assert page.status_code == 200 and game.seed.encode() not in page.content
    assert game.seed.encode() not in spectator.get(f"/games/{game.pk}").content
    whole = player.get(f"/games/{game.pk}/replay.json").json()
    assert not whole["live"] and whole["total"] == game.head_seq
    assert game.seed.encode() in player.get(f"/games/{game.pk}/replay").content


def test_a_running_game_replays_as_far_as_the_viewer_may_see(users):
    game = services.game_create(consent=True, engine_slug="nine-card", config={}, seats=users[:2], created_by=users[0])
    play_turn(game, users, seats=(0,))  # the Oya has committed a card; the Ko has not
    game.refresh_from_db()
    committed = game.events.get(seq=2).payload["card"]
    spectator, ko = Client(), Client()
    ko.force_login(users[1])
    page = spectator.get(f"/games/{game.pk}/replay")
    assert page.status_code == 200 and b'data-live="1"' in page.content and b'id="seed"' not in page.content
    watched = spectator.get(f"/games/{game.pk}/replay.json", {"at": 2}).json()
    assert watched["live"] and watched["as"] == "spectator" and watched["total"] == game.head_seq
    assert watched["outcome"] is None and [p["value"] for p in watched["perspectives"]] == ["spectator"]
    assert committed not in str(watched["view"]) and committed not in str(watched["events"])
    assert all(player["hand"] is None for player in watched["view"]["players"])
    for refused in ({"as": "all"}, {"as": "0"}):
        answer = spectator.get(f"/games/{game.pk}/replay.json", {"at": 2, **refused})
        assert answer.status_code == 403 and answer.json()["code"] == "perspective_hidden"
    # Past what the spectator may see: what they may see, no further (issue 23: the page clamps too).
    assert spectator.get(f"/games/{game.pk}/replay.json", {"at": game.head_seq + 5}).json() == watched  # at 2: the end
    mine = ko.get(f"/games/{game.pk}/replay.json", {"at": 2}).json()
    assert mine["as"] == "1" and mine["view"]["players"][1]["hand"] and mine["view"]["players"][0]["hand"] is None
    assert committed not in str(mine["view"]) and mine["events"][-1]["text"] == "ann played a card face down"
    assert ko.get(f"/games/{game.pk}/replay.json", {"as": "0"}).status_code == 403


def test_a_delayed_spectator_replays_only_what_the_delay_shows(users, monkeypatch):
    game = services.game_create(consent=True, engine_slug="nine-card", config={}, seats=users[:2], created_by=users[0])
    services.game_spectator_delay_set(game_id=game.pk, seconds=600)
    play_turn(game, users)
    game.refresh_from_db()
    assert game.head_seq >= 3
    late = Client().get(f"/games/{game.pk}/replay.json").json()
    assert late["total"] == 0 and late["events"] == []  # every event is younger than the delay
    later = timezone.now() + timedelta(seconds=700)
    monkeypatch.setattr(timezone, "now", lambda: later)  # the log is append-only: move the clock instead
    now = Client().get(f"/games/{game.pk}/replay.json", {"at": game.head_seq}).json()
    assert now["total"] == game.head_seq and len(now["events"]) == game.head_seq
