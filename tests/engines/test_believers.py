"""The Believers: what the scenario records (records/believers/*.jsonl) cannot say.

The sealed ritual answers (who sees what, before and after the reveal, and that the leak scan
really catches a leak), every text-validation code, Japanese text through a record, the windows,
seat counts and configs, and the generic harness over the placeholder variants. The rules are
``shared/rules/believers.md`` (mostly placeholders: the seed lacks the designer's rule sheet).
"""

from __future__ import annotations

import json

import pytest

from games.engines.base import ConfigError, Deadline, RuleError, WindowClosed
from games.engines.believers import ENGINE, PLACEHOLDER, Believers, answer_id
from games.records import dump_record, replay_record

from .harness import check_engine, check_no_leaks


def mv(seat: int, type_: str, **params) -> dict:
    return {"kind": "move", "seat": seat, "data": {"type": type_, **params}}


def system(type_: str, **params) -> dict:
    return {"kind": "system", "data": {"type": type_, **params}}


STORY = [mv(0, "contribute", text="We wait on the hill."), mv(1, "contribute", text="The sky hums.")]
RITUAL = [mv(0, "propose_final_ritual"), mv(1, "agree_final_ritual"), mv(2, "agree_final_ritual")]


def commit(seat: int, choice: str) -> dict:
    return mv(seat, "commit_choice", choice=choice)


def play(events: list[dict], config: dict | None = None, seats: int = 3):
    state = ENGINE.setup(config, seats)
    for event in events:
        state = ENGINE.apply(state, event)
    return state


def rejected(state, event) -> RuleError:
    with pytest.raises(RuleError) as error:
        ENGINE.apply(state, event)
    assert error.value.message
    return error.value


# ---- the generic harness (every seat count 2-6) -------------------------------------------------
@pytest.mark.parametrize(
    "config",
    [  # the default config: tests/engines/test_harness.py (30 seeds)
        {"turn_order": "round_robin"},
        {"ritual_trigger": "timer"},
        {"ritual_trigger": "either", "ritual_choice_seconds": 60},
        {"ritual_reveal": "open", "epilogue_enabled": True},
        {"max_contributions": 2, "ritual_trigger": "timer", "turn_order": "round_robin"},
    ],
)
def test_harness(config):
    check_engine(ENGINE, seeds=15, config=config)


# ---- sealed answers -----------------------------------------------------------------------------
def test_t4_sealed_until_everyone_has_committed():
    events = [*STORY, *RITUAL, commit(0, "stay"), commit(1, "stay")]
    state = play(events)
    third = ENGINE.view(state, 2)
    assert [p["committed"] for p in third["players"]] == [True, True, False]
    assert all("choice" not in p and "answer_id" not in p for p in third["players"])
    assert third["choices"] is None
    assert ENGINE.view(state, 0)["players"][0]["choice"] == "stay"
    assert "choice" not in ENGINE.view(state, 0)["players"][1]
    assert ENGINE.event_view(state, events[-1], 2)["data"] == {"type": "commit_choice", "sealed": True}
    assert ENGINE.event_view(state, events[-1], 1)["data"]["answer_id"] == "seat1-stay"
    # Both chose stay: the answer ids still tell seat 0's own answer from seat 1's sealed one.
    assert ENGINE.hidden_from(state, 0) == {"seat1-stay"}
    assert ENGINE.hidden_from(state, 2) == {"seat0-stay", "seat1-stay"}
    assert ENGINE.hidden_from(state, None) == {"seat0-stay", "seat1-stay"}
    check_no_leaks(ENGINE, state, events, 3)
    events.append(commit(2, "depart"))
    state = play(events)
    assert state.phase == "ended" and ENGINE.hidden_from(state, 2) == frozenset()
    assert ENGINE.view(state, None)["choices"] == {"0": "stay", "1": "stay", "2": "depart"}
    assert ENGINE.event_view(state, events[-2], 2)["data"]["choice"] == "stay"


def test_the_leak_scan_catches_a_leaky_view():
    class Leaky(Believers):
        def event_view(self, state, event, seat):
            return (
                event
                if event["data"]["type"] != "commit_choice"
                else {
                    **event,
                    "data": {**event["data"], "answer_id": answer_id(event["seat"], event["data"]["choice"])},
                }
            )

    events = [*STORY, *RITUAL, commit(0, "depart")]
    with pytest.raises(AssertionError, match="seat0-depart"):
        check_no_leaks(Leaky(), play(events), events, 3)


def test_open_reveal_hides_nothing():
    events = [*STORY, *RITUAL, commit(0, "depart")]
    state = play(events, {"ritual_reveal": "open"})
    assert ENGINE.hidden_from(state, 1) == frozenset()
    assert ENGINE.view(state, 1)["players"][0]["choice"] == "depart"


def test_withdraw_after_committing_becomes_none_but_the_record_keeps_the_commit():
    events = [*STORY, *RITUAL, commit(1, "depart"), mv(1, "withdraw")]
    state = play(events)
    assert ENGINE.hidden_from(state, 0) == {"seat1-depart"}
    events += [commit(0, "stay"), commit(2, "stay")]
    state = play(events)
    assert ENGINE.outcome(state).detail["choices"] == {"0": "stay", "1": "none", "2": "stay"}
    assert ENGINE.event_view(state, events[5], 0)["data"]["choice"] == "depart"


def test_t5_no_winner_anywhere_in_the_result():
    state = play([*STORY, *RITUAL, commit(0, "stay"), commit(1, "depart"), commit(2, "depart")])
    outcome = ENGINE.outcome(state)
    assert outcome.ranking == ((0, 1, 2),) and outcome.scores == {}
    assert "winner" not in json.dumps(outcome.to_json())
    assert outcome.detail["log"] == [{"seat": 0, "text": "We wait on the hill."}, {"seat": 1, "text": "The sky hums."}]


# ---- text validation: one stable code per failure -----------------------------------------------
TEXT_ERRORS = [
    ({}, "missing_text"),
    ({"text": 5}, "text_not_string"),
    ({"text": ["hi"]}, "text_not_string"),
    ({"text": ""}, "empty_text"),
    ({"text": "\u3000 \n"}, "empty_text"),
    ({"text": "x" * 2001}, "text_too_long"),
    ({"text": "a\x00b"}, "control_characters"),
    ({"text": "a\x85b"}, "control_characters"),
    ({"text": "a\udc00b"}, "invalid_characters"),
    ({"text": "fine", "mood": "eerie"}, "unexpected_parameter"),
]


@pytest.mark.parametrize(("params", "code"), TEXT_ERRORS, ids=[f"{c}-{i}" for i, (_, c) in enumerate(TEXT_ERRORS)])
def test_contribute_text_errors(params, code):
    assert rejected(play([]), mv(0, "contribute", **params)).code == code


def test_epilogue_text_is_checked_too():
    config = {"epilogue_enabled": True}
    state = play(
        [mv(0, "propose_final_ritual"), mv(1, "agree_final_ritual"), commit(0, "stay"), commit(1, "stay")],
        config,
        seats=2,
    )
    assert state.phase == "epilogue"
    assert rejected(state, mv(0, "epilogue", text=" ")).code == "empty_text"
    state = ENGINE.apply(state, mv(0, "epilogue", text="Fin.\n\t— ayu"))
    assert rejected(state, mv(0, "epilogue", text="again")).code == "epilogue_written"
    assert rejected(state, mv(0, "contribute", text="more")).code == "storytelling_closed"


def test_japanese_text_round_trips_through_a_record():
    texts = ["三晩目の夜、丘の上で私たちは待っていた。", "空が鳴り、\n麦畑に光が降りた……🛸"]
    events = [
        mv(0, "contribute", text=texts[0]),
        mv(1, "contribute", text=texts[1]),
        mv(0, "propose_final_ritual"),
        mv(1, "agree_final_ritual"),
        commit(0, "depart"),
        commit(1, "stay"),
    ]
    header = {"kifu": 1, "game": "believers", "rules_version": "1", "config": {}, "seats": ["あゆ", "ボー"]}
    record = dump_record(header, events)
    assert texts[0] in record
    replay = replay_record(record.splitlines())
    assert [line["text"] for line in replay.outcome_json()["detail"]["log"]] == texts
    dumped = json.dumps(ENGINE.dump_state(replay.state), ensure_ascii=False, sort_keys=True)
    assert ENGINE.load_state(json.loads(dumped)) == replay.state


# ---- moves, windows, configs ----------------------------------------------------------------------
def test_representative_moves():
    state = play([])
    assert list(ENGINE.legal_moves(state, 0)) == [
        {"type": "contribute", "text": PLACEHOLDER},
        {"type": "propose_final_ritual"},
    ]
    state = play(RITUAL[:1])
    assert list(ENGINE.legal_moves(state, 0)) == [{"type": "contribute", "text": PLACEHOLDER}]
    assert ENGINE.legal_moves(state, 1)[-1] == {"type": "agree_final_ritual"}
    state = play(RITUAL)
    assert list(ENGINE.legal_moves(state, 2)) == [commit(2, "depart")["data"], commit(2, "stay")["data"]]
    assert all(m["type"] != "withdraw" for m in ENGINE.legal_moves(state, 2))
    assert ENGINE.actors(play([], {"turn_order": "round_robin", "ritual_trigger": "timer"})) == {0}


def test_t6_withdraw_can_complete_the_agreement():
    state = play([*STORY, *RITUAL[:2], mv(2, "withdraw")])
    assert state.phase == "final_ritual"


def test_windows():
    assert ENGINE.deadline(play([])) is None
    state = play([], {"ritual_trigger": "either", "session_minutes": 20})
    assert ENGINE.deadline(state) == Deadline("session", 1200, (0, 1, 2))
    state = play([*RITUAL, commit(0, "stay")], {"ritual_choice_seconds": 90})
    assert ENGINE.deadline(state) == Deadline("ritual", 90, (1, 2))
    with pytest.raises(WindowClosed):
        ENGINE.apply(state, system("close_window", window="session"))
    with pytest.raises(WindowClosed):
        ENGINE.apply(state, system("ritual_timer"))
    done = ENGINE.apply(state, system("close_window", window="ritual"))
    assert ENGINE.outcome(done).detail["timed_out"] == [1, 2]
    assert ENGINE.outcome(done).detail["choices"] == {"0": "stay", "1": "none", "2": "none"}


def test_resign_of_a_seat_that_left_is_rejected():
    state = play([mv(1, "withdraw")])
    assert rejected(state, system("resign", seat=1)).code == "player_withdrawn"
    assert rejected(state, system("resign", seat=7)).code == "malformed_event"


@pytest.mark.parametrize(
    ("config", "seats"),
    [
        ({"min_players": 4}, 3),
        ({"max_players": 3}, 4),
        ({"min_players": 5, "max_players": 4}, 4),
        ({"turn_order": "chaos"}, 3),
        ({"session_minutes": 0}, 3),
        ({"max_text_length": 0}, 3),
        ({"ritual_choice_seconds": -1}, 3),
        (None, 1),
        (None, 7),
    ],
)
def test_bad_configs_and_seat_counts_are_rejected(config, seats):
    with pytest.raises(ConfigError):
        ENGINE.setup(config, seats)


def test_no_chance_events():
    assert ENGINE.chance_due(play([])) is None
    assert rejected(play([]), {"kind": "chance", "data": {"type": "deal"}}).code == "unexpected_chance"
