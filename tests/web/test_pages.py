"""The web pages in-process: replay.json per perspective, the play log, accounts, new games, languages."""

from __future__ import annotations

import gettext
import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from games import selectors, services
from games.models import Game
from web.describe import describe_event
from web.names import game_name
from web.replay import merge_views

pytestmark = pytest.mark.django_db
LOCALE = Path(__file__).resolve().parents[2] / "web" / "locale" / "ja" / "LC_MESSAGES"


@pytest.fixture
def users():
    User = get_user_model()
    return [User.objects.create_user(username=name, password="a-long-pass-1") for name in ("oya", "ko", "third")]


def submit(game, user, move, key):
    services.move_submit(game_id=game.pk, user=user, move=move, idempotency_key=key)
    services.game_advance(game_id=game.pk)


def play_turn(game, users, seats=(0, 1)):
    """The given seats commit their lowest card, in that order."""
    for seat in seats:
        game.refresh_from_db()
        card = selectors.legal_moves(game=game, seat=seat)[0]["card"]
        submit(game, users[seat], {"type": "commit_card", "card": card}, f"{game.head_seq}-{seat}")


@pytest.fixture
def finished(users):
    """A whole Nine Card game; the Oya commits first every turn."""
    game = services.game_create(consent=True, engine_slug="nine-card", config={}, seats=users[:2], created_by=users[0])
    while True:
        game.refresh_from_db()
        if game.is_finished:
            return game
        play_turn(game, users)


def replay(client, game, **params):
    return client.get(f"/games/{game.pk}/replay.json", params)


def test_replay_steps_through_the_record_as_each_seat_saw_it(finished):
    client = Client()
    start = replay(client, finished, at=0).json()
    assert start["at"] == 0 and start["total"] == finished.head_seq and start["events"] == []
    assert start["view"]["phase"] == "deal" and start["seats"] == ["oya", "ko"]

    # Event 2: the Oya has committed; the Ko sees only that a card went down.
    as_ko = replay(client, finished, at=2, **{"as": "1"}).json()
    assert as_ko["as"] == "1" and [e["seq"] for e in as_ko["events"]] == [1, 2]
    assert as_ko["events"][1]["text"] == "oya played a card face down" and as_ko["events"][1]["cards"] == []
    oya_view, ko_view = as_ko["view"]["players"]
    assert oya_view["hand"] is None and oya_view["committed"] is True and "committed_card" not in oya_view
    assert len(ko_view["hand"]) == 9
    assert sorted(as_ko["events"][0]["cards"]) == sorted(ko_view["hand"])  # the deal shows the Ko's hand only

    as_oya = replay(client, finished, at=2, **{"as": "0"}).json()
    committed = as_oya["view"]["players"][0]["committed_card"]
    assert committed.endswith("S") and as_oya["events"][1]["text"] == f"oya committed {committed}"
    assert as_oya["view"]["players"][1]["hand"] is None

    # Everything: both hands and the pending card together.
    everything = replay(client, finished, at=2).json()
    assert everything["as"] == "all"
    players = everything["view"]["players"]
    assert players[0]["committed_card"] == committed and len(players[1]["hand"]) == 9 and len(players[0]["hand"]) == 8

    spectator = replay(client, finished, at=2, **{"as": "spectator"}).json()
    assert all(p["hand"] is None for p in spectator["view"]["players"])
    assert spectator["events"][0]["text"].startswith("The cards were dealt") and spectator["events"][0]["cards"] == []

    # After the Ko commits both cards are public, in every perspective.
    revealed = replay(client, finished, at=3, **{"as": "1"}).json()
    assert revealed["events"][1]["text"] == f"oya committed {committed}"
    assert revealed["view"]["players"][0]["grid"][0] == [committed]


def test_the_last_position_is_the_stored_game(finished):
    end = replay(Client(), finished, at=finished.head_seq, **{"as": "spectator"}).json()
    assert end["outcome"] == finished.outcome
    assert end["view"] == selectors.game_view(game=finished, seat=None)
    assert len(end["events"]) == finished.head_seq and end["actors"] == []


def test_a_game_waiting_for_players_has_no_replay(users):
    client = Client()
    game = services.game_create(
        consent=True, engine_slug="nine-card", config={}, seats=[users[0], None], created_by=users[0]
    )
    page = client.get(f"/games/{game.pk}/replay")
    assert page.status_code == 409 and b'id="replay-unavailable"' in page.content
    missing = client.get("/games/00000000-0000-0000-0000-000000000000/replay.json")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"


@pytest.mark.parametrize(
    "params", [{"at": "-1"}, {"at": "x"}, {"at": "1.5"}, {"at": "²"}, {"as": "2"}, {"as": "²"}, {"as": "everyone"}]
)
def test_replay_refuses_bad_parameters(finished, params):
    response = replay(Client(), finished, **params)
    assert response.status_code == 400
    assert response.json()["code"] == "bad_parameter" and response.json()["message"]


@pytest.mark.parametrize("past", [1, 999, 10**30, "9" * 5000])
def test_replay_past_the_last_event_is_the_end(finished, past):
    """Issue 23: ``?at=`` past the end answers the end, as the replay page opens such a link."""
    end = replay(Client(), finished, at=finished.head_seq).json()
    at = past if isinstance(past, str) else finished.head_seq + past
    clamped = replay(Client(), finished, at=at)
    assert clamped.status_code == 200 and clamped.json() == end and end["at"] == finished.head_seq


def test_merge_views_fills_what_each_seat_saw():
    spectator = {"players": [{"hand": None, "n": 3}, {"hand": None, "n": 2}], "mode": "HIGH"}
    seat0 = {"players": [{"hand": ["AS"], "n": 3, "mine": 1}, {"hand": None, "n": 2}], "mode": "HIGH"}
    seat1 = {"players": [{"hand": None, "n": 3}, {"hand": ["2H"], "n": 2}], "mode": "HIGH"}
    merged = merge_views(spectator, [seat0, seat1])
    assert merged == {"players": [{"hand": ["AS"], "n": 3, "mine": 1}, {"hand": ["2H"], "n": 2}], "mode": "HIGH"}


def test_descriptions_name_the_player_action_and_cards():
    names = ["aki", "ben"]
    play = {"type": "play", "cards": ["4D", "JC"]}
    played = describe_event("1234", {"seq": 4, "kind": "move", "seat": 1, "data": play}, names)
    assert played["text"] == "ben played 4D JC" and played["cards"] == ["4D", "JC"]
    hidden = {"type": "discard", "card": None, "declared_suit": "C", "declared_rank": "7"}
    discard = describe_event("turn-thief", {"kind": "move", "seat": 0, "data": hidden}, names)
    assert discard["text"] == "aki discarded a card face down, declaring 7\u2663" and discard["cards"] == []
    # An action no sentence knows: the generic sentence from its name and parameters.
    tile = describe_event("necropolis", {"kind": "move", "seat": 0, "data": {"type": "x_move", "tile": "2-5"}}, names)
    assert tile["text"] == "aki x move 2-5" and tile["cards"] == ["2-5"]
    resign = describe_event("satori", {"kind": "system", "data": {"type": "resign", "seat": 1}}, names)
    assert resign["text"] == "ben resigned"
    close = {"type": "close_window", "window": "turn-3"}
    closed = describe_event("nine-card", {"kind": "system", "data": close}, names)
    assert closed["text"] == "Time ran out (turn-3)"


def test_the_play_log_is_redacted_for_the_seat(users):
    game = services.game_create(consent=True, engine_slug="nine-card", config={}, seats=users[:2], created_by=users[0])
    play_turn(game, users, seats=(0,))
    ko, oya = Client(), Client()
    ko.force_login(users[1])
    oya.force_login(users[0])
    ko_log = ko.get(f"/games/{game.pk}/log.json").json()["events"]
    assert [e["text"] for e in ko_log][1] == "oya played a card face down"
    assert sorted(ko_log[0]["cards"]) == sorted(selectors.game_view(game=game, seat=1)["players"][1]["hand"])
    oya_log = oya.get(f"/games/{game.pk}/log.json", {"after": 1}).json()["events"]
    assert len(oya_log) == 1 and oya_log[0]["text"].startswith("oya committed ")
    for bad in ("x", "-1", "²"):
        assert ko.get(f"/games/{game.pk}/log.json", {"after": bad}).status_code == 400
    assert ko.get(f"/games/{game.pk}/log.json", {"after": "9" * 5000}).json()["events"] == []


def test_play_page_knows_the_seat(users):
    game = services.game_create(consent=True, engine_slug="nine-card", config={}, seats=users[:2], created_by=users[0])
    client = Client()
    client.force_login(users[1])
    page = client.get(f"/games/{game.pk}/play")
    assert page.status_code == 200 and page.context["page"]["seat"] == 1 and "csrftoken" in page.cookies
    assert Client().get(f"/games/{game.pk}/play").context["page"]["seat"] is None
    assert Client().get("/games/00000000-0000-0000-0000-000000000000/play").status_code == 404


def test_sign_up_logs_in_and_refuses_a_taken_name(users):
    client = Client()
    form = {"username": "dana", "password1": "a-long-pass-1", "password2": "a-long-pass-1", "next": "/"}
    response = client.post("/accounts/signup/", form)
    assert response.status_code == 302 and response.url == "/"
    assert client.get("/").context["user"].username == "dana"
    again = Client().post("/accounts/signup/", {**form, "username": "OYA"})
    assert again.status_code == 200 and "That username is taken." in again.content.decode()
    bad = Client().post("/accounts/signup/", {**form, "username": "a b"})
    assert "Use 2-40 letters" in bad.content.decode()


def test_log_in_and_out():
    get_user_model().objects.create_user(username="erin", password="a-long-pass-1")
    client = Client()
    wrong = client.post("/accounts/login/", {"username": "erin", "password": "nope"})
    assert wrong.status_code == 200 and "do not match" in wrong.content.decode()
    right = client.post("/accounts/login/", {"username": "erin", "password": "a-long-pass-1"})
    assert right.status_code == 302 and right.url == "/"
    assert 'id="whoami"' in client.get("/").content.decode()
    assert client.post("/accounts/logout/").status_code == 302
    assert 'id="whoami"' not in client.get("/").content.decode()


def test_start_a_game_from_the_home_page_and_join_it(users):
    client = Client()
    client.force_login(users[0])
    response = client.post("/games/new", {"engine": "nine-card", "players": 2, "opponents": ""})
    assert response.status_code == 302
    game = Game.objects.get(created_by=users[0])
    assert response.url == f"/games/{game.pk}/play" and game.status == "open"
    joiner = Client()
    joiner.force_login(users[2])
    joined = joiner.post(f"/games/{game.pk}/join")
    assert joined.status_code == 302
    game.refresh_from_db()
    assert game.status == "running" and [s.name for s in game.seats.all()] == ["oya", "third"]
    again = joiner.post(f"/games/{game.pk}/join")
    assert again.status_code == 409 and "game_not_open" in again.content.decode()

    unknown = client.post("/games/new", {"engine": "nine-card", "players": 2, "opponents": "nobody"})
    assert unknown.status_code == 400 and "No such player: nobody" in unknown.content.decode()
    too_many = client.post("/games/new", {"engine": "nine-card", "players": 3, "opponents": ""})
    assert too_many.status_code == 400 and "2-2 players" in too_many.content.decode()
    assert Client().post("/games/new", {"engine": "nine-card", "players": 2}).status_code == 302  # to log in


def test_the_browser_language_and_the_switch(finished):
    assert "Recent games" in Client().get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    japanese = Client().get("/", HTTP_ACCEPT_LANGUAGE="ja,en;q=0.5").content.decode()
    assert "最近のゲーム" in japanese and "9(ナイン)カード" in japanese and '<html lang="ja">' in japanese
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    response = client.post("/i18n/setlang/", {"language": "ja", "next": "/"})
    assert response.status_code == 302
    assert "最近のゲーム" in client.get("/").content.decode()
    words = client.get(f"/games/{finished.pk}/replay.json", {"at": 2, "as": "1"}).json()
    assert words["events"][1]["text"] == "oyaがカードを伏せて出しました"
    assert words["engine_name"] == "9(ナイン)カード"
    assert game_name("nine-card", "en") == "Nine Card" and game_name("necropolis", "ja") == "ネクロポリス"


def _po_entries(text: str) -> list[tuple[str | None, str, str | None, str]]:
    """(msgctxt, msgid, msgid_plural, msgstr or the first plural form) of each entry of a .po file."""

    def unescape(value: str) -> str:
        return value.encode().decode("unicode_escape").encode("latin-1").decode()

    entries = []
    for block in text.split("\n\n"):
        fields, current = {}, None
        for line in block.splitlines():
            match = re.match(r'^(msgctxt|msgid|msgid_plural|msgstr|msgstr\[\d+\]) "(.*)"$', line)
            if match:
                current = match.group(1)
                fields[current] = match.group(2)
            elif line.startswith('"') and current:
                fields[current] += line[1:-1]
        if fields.get("msgid"):
            context, plural = fields.get("msgctxt"), fields.get("msgid_plural")
            msgstr = fields.get("msgstr", fields.get("msgstr[0]", ""))
            entries.append(
                (
                    unescape(context) if context is not None else None,
                    unescape(fields["msgid"]),
                    unescape(plural) if plural else None,
                    unescape(msgstr),
                )
            )
    return entries


def test_every_japanese_string_is_translated_and_compiled():
    entries = _po_entries((LOCALE / "django.po").read_text(encoding="utf-8"))
    assert len(entries) > 150
    assert [msgid for _, msgid, _, msgstr in entries if not msgstr] == []
    with (LOCALE / "django.mo").open("rb") as handle:
        catalog = gettext.GNUTranslations(handle)

    def translated(context, msgid, plural):
        if plural:
            return catalog.npgettext(context, msgid, plural, 1) if context else catalog.ngettext(msgid, plural, 1)
        return catalog.pgettext(context, msgid) if context else catalog.gettext(msgid)

    stale = [msgid for context, msgid, plural, msgstr in entries if translated(context, msgid, plural) != msgstr]
    assert stale == [], "django.mo is older than django.po: cd web && ../manage.py compilemessages -l ja"
