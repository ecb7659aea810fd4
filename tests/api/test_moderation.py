"""Moderation of storytelling contributions: report, hide and unhide, and what hiding hides (and keeps)."""

from __future__ import annotations

import json
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.db import DatabaseError, transaction
from rest_framework.test import APIClient

from games import services
from games.models import ContributionHiding, Game, MatureConsent
from kifu_client.wire import parse_ndjson

pytestmark = pytest.mark.django_db

SECRET = "秘密の宇宙船は裏山に着陸した"  # the contribution that gets hidden (Japanese on purpose)
KEPT = "We saw lights over the lake."


def user(name: str, **extra):
    return get_user_model().objects.create_user(username=name, password="a-long-pass-1", **extra)


def client_for(account) -> APIClient:
    client = APIClient()
    if account is not None:
        client.force_authenticate(user=account)  # the API
        client.force_login(account)  # the web pages (replay.json)
    return client


def play(game: Game, moves: list[tuple]) -> Game:
    """Submit each move and apply it at once (what the Celery task does after commit)."""
    for account, move in moves:
        services.move_submit(game_id=game.pk, user=account, move=move, idempotency_key=uuid.uuid4().hex)
        services.game_advance(game_id=game.pk)
    return Game.objects.get(pk=game.pk)


@pytest.fixture
def people():
    return {
        "aki": user("aki"),
        "ben": user("ben"),
        "org": user("org"),
        "staff": user("staff", is_staff=True),
        "stranger": user("stranger"),
    }


def believers(people, *, finish: bool) -> Game:
    aki, ben = people["aki"], people["ben"]
    game = services.game_create(
        consent=True, engine_slug="believers", config={}, seats=[aki, ben], created_by=people["org"]
    )
    moves = [(aki, {"type": "contribute", "text": KEPT}), (ben, {"type": "contribute", "text": SECRET})]
    if finish:
        moves += [
            (aki, {"type": "propose_final_ritual"}),
            (ben, {"type": "agree_final_ritual"}),
            (aki, {"type": "commit_choice", "choice": "stay"}),
            (ben, {"type": "commit_choice", "choice": "depart"}),
        ]
    game = play(game, moves)
    assert game.head_seq == len(moves) and game.is_finished == finish
    return game


def kazekami(people, config: dict, story: list[tuple]) -> Game:
    """A Kazekami Kyoko game of Aki (Kyoko) and Ben (Kublai) set up by org, then ``story`` (from seq 5)."""
    aki, ben, org = people["aki"], people["ben"], people["org"]
    for account in (aki, ben, org):
        MatureConsent.objects.create(user=account)
    game = services.game_create(
        consent=True, engine_slug="kazekami-kyoko", config=config, seats=[aki, ben], created_by=org
    )
    for account in (aki, ben):
        services.game_accept(game_id=game.pk, user=account)
    opening = [
        (aki, {"type": "opt_in_mature"}),
        (ben, {"type": "opt_in_mature"}),
        (aki, {"type": "take_role", "role": "kyoko"}),
        (ben, {"type": "take_role", "role": "kublai"}),
    ]
    return play(Game.objects.get(pk=game.pk), opening + story)


def hide(people, game, seq=2, who="org"):
    response = client_for(people[who]).post(
        f"/api/games/{game.pk}/events/{seq}/hide", {"reason": "spoiler of a real place"}, format="json"
    )
    assert response.status_code == 201, response.json()
    return response


def everything(client, game) -> str:
    """Every public JSON a viewer can read about the game, as one string."""
    bodies = [client.get(f"/api/games/{game.pk}{path}").json() for path in ("", "/state", "/events")]
    if game.is_finished:
        for view in ("all", "0"):
            replay = client.get(f"/games/{game.pk}/replay.json", {"at": game.head_seq, "as": view})
            assert replay.status_code == 200, replay.content
            bodies.append(replay.json())
    return json.dumps(bodies, ensure_ascii=False, default=str)


def test_who_may_report(people):
    running = believers(people, finish=False)
    url = f"/api/games/{running.pk}/events/2/report"
    body = {"reason": "names a real place"}
    assert client_for(people["aki"]).post(url, body, format="json").status_code == 201
    again = client_for(people["aki"]).post(url, body, format="json")
    assert (again.status_code, again.json()["code"]) == (409, "already_reported")
    stranger = client_for(people["stranger"]).post(url, body, format="json")
    assert (stranger.status_code, stranger.json()["code"]) == (403, "may_not_report")
    assert client_for(None).post(url, body, format="json").status_code == 401
    finished = believers(people, finish=True)
    url = f"/api/games/{finished.pk}/events/2/report"
    assert client_for(people["stranger"]).post(url, body, format="json").status_code == 201
    # Only contributions: event 3 is a proposal with no player text; 99 does not exist; a reason is needed.
    not_text = client_for(people["ben"]).post(f"/api/games/{finished.pk}/events/3/report", body, format="json")
    assert (not_text.status_code, not_text.json()["code"]) == (400, "not_a_contribution")
    missing = client_for(people["ben"]).post(f"/api/games/{finished.pk}/events/99/report", body, format="json")
    assert (missing.status_code, missing.json()["code"]) == (404, "no_such_event")
    blank = client_for(people["ben"]).post(url, {"reason": "  "}, format="json")
    assert blank.status_code == 400


def test_who_may_hide_and_read_reports(people):
    game = believers(people, finish=True)
    url = f"/api/games/{game.pk}/events/2/hide"
    for who in ("aki", "stranger"):
        refused = client_for(people[who]).post(url, {"reason": "x"}, format="json")
        assert (refused.status_code, refused.json()["code"]) == (403, "not_a_moderator"), who
        assert client_for(people[who]).get(f"/api/games/{game.pk}/reports").status_code == 403
    assert client_for(None).post(url, {"reason": "x"}, format="json").status_code == 401
    hide(people, game, who="org")
    again = client_for(people["staff"]).post(url, {"reason": "x"}, format="json")
    assert (again.status_code, again.json()["code"]) == (409, "already_hidden")
    assert client_for(people["staff"]).delete(url, {"reason": "fine after all"}, format="json").status_code == 201
    not_hidden = client_for(people["org"]).delete(url, format="json")
    assert (not_hidden.status_code, not_hidden.json()["code"]) == (409, "not_hidden")
    hide(people, game, who="staff")
    client_for(people["ben"]).post(f"/api/games/{game.pk}/events/2/report", {"reason": "mine, sorry"}, format="json")
    reports = client_for(people["org"]).get(f"/api/games/{game.pk}/reports").json()
    assert reports["hidden"] == [2]
    assert [(d["action"], d["by"]) for d in reports["decisions"]] == [
        ("hide", "org"),
        ("unhide", "staff"),
        ("hide", "staff"),
    ]
    assert [(r["reporter"], r["reason"]) for r in reports["reports"]] == [("ben", "mine, sorry")]
    # The history is append-only in the database too.
    with pytest.raises(DatabaseError), transaction.atomic():
        ContributionHiding.objects.filter(game=game).update(reason="rewritten")


def test_hidden_text_is_gone_for_everyone_but_moderators(people):
    game = believers(people, finish=True)
    for who in ("aki", "stranger", "org"):
        assert SECRET in everything(client_for(people[who]), game)
    hide(people, game)
    for who in ("aki", "ben", "stranger", None):
        seen = everything(client_for(people[who] if who else None), game)
        assert SECRET not in seen, who
        assert KEPT in seen and "spoiler of a real place" in seen, who
    events = client_for(people["stranger"]).get(f"/api/games/{game.pk}/events").json()
    assert events[1]["data"]["text"] == {"hidden": True, "reason": "spoiler of a real place"}
    assert "hash" not in events[1] and "hash" in events[0]
    story = client_for(people["aki"]).get(f"/api/games/{game.pk}/state").json()["view"]["story"]
    assert [line["text"] for line in story] == [KEPT, {"hidden": True, "reason": "spoiler of a real place"}]
    for who in ("org", "staff"):
        assert SECRET in json.dumps(
            client_for(people[who]).get(f"/api/games/{game.pk}/state").json(), ensure_ascii=False
        )
        assert SECRET in json.dumps(
            client_for(people[who]).get(f"/api/games/{game.pk}/events").json(), ensure_ascii=False
        )


def test_the_log_and_its_proof_are_untouched(people):
    game = believers(people, finish=True)
    before = client_for(people["org"]).get(f"/api/games/{game.pk}/record").content.decode()
    hide(people, game)
    for who in ("stranger", "org"):
        verification = client_for(people[who]).get(f"/api/games/{game.pk}/verification").json()
        assert verification["ok"] and verification["chain_ok"] and verification["replay_ok"], verification
    assert client_for(people["org"]).get(f"/api/games/{game.pk}/record").content.decode() == before
    assert SECRET in before
    refused = client_for(people["aki"]).get(f"/api/games/{game.pk}/record")
    assert (refused.status_code, refused.json()["code"]) == (409, "record_moderated")
    client_for(people["org"]).delete(f"/api/games/{game.pk}/events/2/hide", format="json")
    assert client_for(people["aki"]).get(f"/api/games/{game.pk}/record").content.decode() == before


def test_a_running_game_hides_it_from_the_live_events(people):
    game = believers(people, finish=False)
    hide(people, game, who="staff")
    assert SECRET not in everything(client_for(people["ben"]), game)
    # The game goes on; new events are not affected.
    game = play(game, [(people["aki"], {"type": "contribute", "text": "そして朝が来た"})])
    assert "そして朝が来た" in everything(client_for(people["ben"]), game)


def test_kazekami_rendered_utterances_are_hidden_too(people):
    aki, ben, org = people["aki"], people["ben"], people["org"]
    secret = "私は皇帝の秘密の手紙を燃やした。"
    respond = {"type": "respond", "form": "kublai_normal", "confirmation": "よかろう", "declaration": secret}
    game = kazekami(
        people,
        {"language": "ja"},
        [
            (aki, {"type": "open_tale", "form": "boast", "statement": "私は千の兵を倒した"}),
            (ben, {**respond, "open_question": "お前は眠れるのか？"}),
            (aki, {"type": "withdraw"}),
        ],
    )
    assert game.is_finished
    core = secret.rstrip("。")
    assert core in everything(client_for(aki), game)
    hide(people, game, seq=6)
    seen = everything(client_for(aki), game)
    assert core not in seen and "お前は眠れるのか" not in seen and "私は千の兵を倒した" in seen
    log = client_for(ben).get(f"/api/games/{game.pk}/state").json()["view"]["log"]
    assert log[1]["text"]["hidden"] is True and log[1]["form"] == "kublai_normal"
    assert client_for(org).get(f"/api/games/{game.pk}/verification").json()["ok"]
    # The organiser sits at no seat, so the engine shows them no text in its view; the events show it.
    assert secret in json.dumps(client_for(org).get(f"/api/games/{game.pk}/events").json(), ensure_ascii=False)


def test_hiding_one_line_keeps_the_same_words_of_another_player(people):
    """Issue 23: moderation hides an event, never a text. Aki and Ben both write "yes" and the same
    epilogue; hiding Aki's line and epilogue leaves Ben's (and Aki's own later "yes") everywhere."""
    aki, ben = people["aki"], people["ben"]
    game = services.game_create(
        consent=True,
        engine_slug="believers",
        config={"epilogue_enabled": True},
        seats=[aki, ben],
        created_by=people["org"],
    )
    game = play(
        game,
        [
            (aki, {"type": "contribute", "text": "yes"}),  # 1: hidden
            (ben, {"type": "contribute", "text": "yes"}),  # 2
            (aki, {"type": "contribute", "text": "yes"}),  # 3: Aki's own later line stays too
            (aki, {"type": "propose_final_ritual"}),
            (ben, {"type": "agree_final_ritual"}),
            (aki, {"type": "commit_choice", "choice": "stay"}),
            (ben, {"type": "commit_choice", "choice": "depart"}),
            (ben, {"type": "epilogue", "text": "The end."}),  # 8
            (aki, {"type": "epilogue", "text": "The end."}),  # 9: hidden
        ],
    )
    assert game.is_finished
    hide(people, game, seq=1)
    hide(people, game, seq=9)
    gone = {"hidden": True, "reason": "spoiler of a real place"}
    client = client_for(people["stranger"])
    reports = client_for(people["org"]).get(f"/api/games/{game.pk}/reports").json()
    assert reports["hidden"] == [1, 9]

    events = client.get(f"/api/games/{game.pk}/events").json()
    texts = {e["seq"]: e["data"].get("text") for e in events if "text" in e["data"]}
    assert texts == {1: gone, 2: "yes", 3: "yes", 8: "The end.", 9: gone}
    assert [e["seq"] for e in events if "hidden" in e] == [1, 9]

    view = client.get(f"/api/games/{game.pk}/state").json()["view"]
    assert [(line["seq"], line["text"]) for line in view["story"]] == [(1, gone), (2, "yes"), (3, "yes")]
    assert [(line["seq"], line["text"]) for line in view["epilogues"]] == [(8, "The end."), (9, gone)]

    # The stored outcome quotes the lines without their seqs: matched by position, not by words.
    expected_log = [{"seat": 0, "text": gone}, {"seat": 1, "text": "yes"}, {"seat": 0, "text": "yes"}]
    expected_epilogues = [{"seat": 1, "text": "The end."}, {"seat": 0, "text": gone}]
    detail = client.get(f"/api/games/{game.pk}").json()["outcome"]["detail"]
    assert (detail["log"], detail["epilogues"]) == (expected_log, expected_epilogues)

    for perspective in ("all", "0", "1", "spectator"):
        replay = client.get(f"/games/{game.pk}/replay.json", {"at": game.head_seq, "as": perspective}).json()
        assert [line["text"] for line in replay["view"]["story"]] == [gone, "yes", "yes"], perspective
        assert [line["text"] for line in replay["view"]["epilogues"]] == ["The end.", gone], perspective
        assert replay["outcome"]["detail"]["log"] == expected_log, perspective
        words = {e["seq"]: e["text"] for e in replay["events"]}
        assert words[1] == "aki: hidden by a moderator: spoiler of a real place", perspective
        assert words[2] == "ben: yes" and words[3] == "aki: yes", perspective
        assert "{" not in json.dumps([e["text"] for e in replay["events"]]), "no Python dict in the words"
    # Part-way through the replay (the issue's case: the hidden line is one of many).
    replay = client.get(f"/games/{game.pk}/replay.json", {"at": 2, "as": "all"}).json()
    assert [line["text"] for line in replay["view"]["story"]] == [gone, "yes"]

    # The stream of the finished record carries the same events.
    response = client.get(f"/api/games/{game.pk}/stream", HTTP_ACCEPT="application/x-ndjson")
    streamed = [m.data for m in parse_ndjson(response.streaming_content) if m.type == "event"]
    assert {e["seq"]: e["data"].get("text") for e in streamed if "text" in e["data"]} == texts

    # Moderators still read everything.
    moderator_view = client_for(people["org"]).get(f"/api/games/{game.pk}/state").json()["view"]
    assert [line["text"] for line in moderator_view["story"]] == ["yes", "yes", "yes"]


def test_hiding_one_role_label_keeps_the_same_label_of_the_other_seat(people):
    aki, ben = people["aki"], people["ben"]
    game = kazekami(
        people,
        {"custom_setting": True},
        [
            (aki, {"type": "set_label", "label": "Scout"}),  # 5: hidden
            (ben, {"type": "set_label", "label": "Scout"}),  # 6
            (aki, {"type": "open_tale", "form": "boast", "statement": "Scout"}),  # 7: same words again
        ],
    )
    hide(people, game, seq=5)
    view = client_for(ben).get(f"/api/games/{game.pk}/state").json()["view"]
    assert view["labels"] == {"kyoko": {"hidden": True, "reason": "spoiler of a real place"}, "kublai": "Scout"}
    assert view["log"][0]["parts"] == {"statement": "Scout"}
    events = client_for(ben).get(f"/api/games/{game.pk}/events").json()
    assert [e["data"]["label"] for e in events if e["data"].get("type") == "set_label"] == [
        {"hidden": True, "reason": "spoiler of a real place"},
        "Scout",
    ]


def test_only_storytelling_games_have_contributions(people):
    game = services.game_create(
        consent=True, engine_slug="nine-card", config={}, seats=[people["aki"], people["ben"]], created_by=people["org"]
    )
    response = client_for(people["org"]).post(f"/api/games/{game.pk}/events/1/hide", {"reason": "x"}, format="json")
    assert (response.status_code, response.json()["code"]) == (400, "not_a_storytelling_game")
