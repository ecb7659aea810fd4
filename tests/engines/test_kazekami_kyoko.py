"""Kazekami Kyoko Kills Kublai Khan: what the scenario records (records/kazekami-kyoko/*.jsonl) cannot say.

Every text-validation code, Japanese text through a record and back, the representative legal
moves, what spectators may read, the final-reply deadline, the series set-up, config validation
and the generic harness over the configs that change the flow. The rules are
``shared/rules/kazekami-kyoko.md``; in these tests seat 0 plays Kyoko and seat 1 Kublai.
"""

from __future__ import annotations

import json

import pytest

from games.engines.base import ConfigError, Deadline, GameOver, RuleError, WindowClosed
from games.engines.kazekami_kyoko import ENGINE, PLACEHOLDER, PLACEHOLDER_QUESTION
from games.records import dump_record, replay_record

from .harness import check_engine, check_no_leaks

KY, KU = 0, 1


def mv(seat: int, type_: str, **params) -> dict:
    return {"kind": "move", "seat": seat, "data": {"type": type_, **params}}


START = [
    mv(0, "opt_in_mature"),
    mv(1, "opt_in_mature"),
    mv(KY, "take_role", role="kyoko"),
    mv(KU, "take_role", role="kublai"),
]
BOAST = mv(KY, "open_tale", form="boast", statement="I met the consort Rose Jade")
KU_NORMAL = mv(
    KU,
    "respond",
    form="kublai_normal",
    confirmation="So you say",
    declaration="she is proud",
    open_question="did you win her over?",
)


def play(events: list[dict], config: dict | None = None):
    state = ENGINE.setup(config)
    for event in events:
        state = ENGINE.apply(state, event)
    return state


def rejected(state, event) -> RuleError:
    with pytest.raises(RuleError) as error:
        ENGINE.apply(state, event)
    assert error.value.message
    return error.value


# ---- the generic harness --------------------------------------------------------------------
@pytest.mark.parametrize(
    "config",
    [  # the default config: tests/engines/test_harness.py
        {"role_assignment": "random"},
        {"first_opener": "kyoko", "min_responses_before_new_tale": 0, "min_tales_before_end": 0},
        {"first_opener": "kublai", "min_responses_before_new_tale": 3, "min_tales_before_end": 2},
        {"strict_forms": False, "custom_setting": True, "language": "ja"},
        {"final_reply_timeout_s": 30},
        {"series_length": 2, "series_game": 2, "series_first_kyoko": 1},
        {"series_length": 2, "series_game": 2, "reconfirm_opt_in_each_game": False},
        {"max_story_moves": 3, "min_tales_before_end": 5},
        {"enforce_punctuation": False, "allow_spectators": True, "kublai_question_prefix_fixed": False},
    ],
)
def test_harness(config):
    check_engine(ENGINE, config=config)


def test_describe_flags_the_game_mature():
    described = ENGINE.describe()
    assert described["mature"] is True and ENGINE.mature is True
    assert (described["min_players"], described["max_players"]) == (2, 2)


# ---- text validation: one stable code per failure ----------------------------------------------
TEXT_ERRORS = [
    ({"form": "boast", "statement": 7}, "text_not_string"),
    ({"form": "boast", "statement": None}, "text_not_string"),
    ({"form": "boast", "statement": ""}, "empty_part"),
    ({"form": "boast", "statement": " \n\t\u3000"}, "empty_part"),
    ({"form": "boast", "statement": "x" * 501}, "text_too_long"),
    ({"form": "boast", "statement": "Rose\x00Jade"}, "control_characters"),
    ({"form": "boast", "statement": "Rose\rJade"}, "control_characters"),
    ({"form": "boast", "statement": "Rose\x7fJade"}, "control_characters"),
    ({"form": "boast", "statement": "Rose\ud800Jade"}, "invalid_characters"),
    ({"form": "boast", "statement": "Did I?"}, "statement_ends_with_question"),
    ({"form": "boast"}, "missing_part"),
    ({"form": "boast", "statement": "Yes", "refusal": "no"}, "unexpected_part"),
    ({"form": "kyoko_normal", "statement": "Yes"}, "not_an_opening"),
    ({"form": "protest", "statement": "Yes"}, "wrong_form_for_role"),
    ({"form": "sonnet", "statement": "Yes"}, "unknown_form"),
    ({"form": "free", "text": "Yes"}, "free_form_disabled"),
]


@pytest.mark.parametrize(("params", "code"), TEXT_ERRORS, ids=[f"{c}-{i}" for i, (_, c) in enumerate(TEXT_ERRORS)])
def test_open_tale_text_errors(params, code):
    state = play(START)
    assert rejected(state, mv(KY, "open_tale", **params)).code == code


RESPONSE_ERRORS = [
    ({"form": "kublai_normal", "confirmation": "Yes", "declaration": "so"}, "missing_part"),
    (
        {"form": "kublai_normal", "confirmation": "Yes", "declaration": "so", "open_question": "you did it."},
        "question_mark_missing",
    ),
    (
        {"form": "kublai_normal", "confirmation": "Yes?", "declaration": "so", "open_question": "how?"},
        "statement_ends_with_question",
    ),
    ({"form": "kublai_challenge", "compliment": "", "challenge_question": "why?"}, "empty_part"),
    ({"form": "kublai_challenge", "compliment": "fine", "challenge_question": ["why?"]}, "text_not_string"),
    (
        {"form": "kublai_challenge", "compliment": "fine", "challenge_question": "why?", "refusal": "no"},
        "unexpected_part",
    ),
    ({"form": "protest", "statement": "never"}, "opening_form_in_respond"),
    ({"form": "kyoko_refusal", "compliment": "great", "refusal": "no"}, "wrong_form_for_role"),
]


@pytest.mark.parametrize(("params", "code"), RESPONSE_ERRORS, ids=[c for _, c in RESPONSE_ERRORS])
def test_respond_text_errors(params, code):
    state = play([*START, BOAST])
    assert rejected(state, mv(KU, "respond", **params)).code == code


def test_other_parameter_errors():
    state = play(START)
    assert rejected(state, mv(KY, "open_tale", statement="no form")).code == "malformed_event"
    assert rejected(state, mv(KY, "opt_in_mature")).code == "already_opted_in"
    state = play([*START, BOAST, KU_NORMAL])
    assert rejected(state, mv(KY, "yield_tale", why="tired")).code == "unexpected_parameter"
    assert rejected(state, mv(KY, "take_role", role="khan")).code == "unknown_role"
    assert rejected(state, mv(KY, "set_label", label="Ada")).code == "custom_setting_off"
    assert rejected(state, mv(KY, "dance")).code == "unknown_action"
    assert rejected(state, mv(KU, "final_reply")).code == "only_kyoko_replies"
    assert rejected(state, mv(KY, "final_reply")).code == "final_reply_not_due"


def test_final_lines_extra_text_is_checked():
    too_long = mv(KU, "final_words", extra_text="x" * 501)
    state = play([*START, BOAST, KU_NORMAL, mv(KY, "respond", **_kyoko_normal())])
    assert rejected(state, too_long).code == "text_too_long"
    assert rejected(state, mv(KU, "final_words", extra_text="bye\x1b")).code == "control_characters"
    assert rejected(state, mv(KU, "final_words", extra_text=3)).code == "text_not_string"
    closing = ENGINE.apply(state, mv(KU, "final_words", extra_text=""))
    assert closing.phase == "closing"


def _kyoko_normal() -> dict:
    return {
        "form": "kyoko_normal",
        "confirmation": "Indeed",
        "declaration": "it was easy",
        "rhetorical_question": "no?",
    }


def test_newline_and_tab_are_allowed_and_text_is_stored_verbatim():
    statement = "  Rose Jade\n\tand I walked.  "
    state = play([*START, mv(KY, "open_tale", form="boast", statement=statement)])
    entry = ENGINE.view(state, KY)["log"][0]
    assert entry["parts"] == {"statement": statement}
    assert entry["text"] == "Rose Jade\n\tand I walked."


def test_trailing_stop_is_stripped_before_the_template_bang():
    move = mv(
        KU, "respond", form="kublai_normal", confirmation="So.", declaration="she is proud!", open_question="how?"
    )
    state = play([*START, BOAST, move])
    assert ENGINE.view(state, KU)["log"][1]["text"] == "So! But she is proud! How how?"
    state = play([*START, BOAST, move], {"kublai_question_prefix_fixed": False})
    assert ENGINE.view(state, KU)["log"][1]["text"] == "So! But she is proud! how?"


def test_the_form_supplies_the_question_mark_when_punctuation_is_not_enforced():
    move = mv(
        KY, "respond", form="kyoko_normal", confirmation="確かに", declaration="そう", rhetorical_question="いかが。"
    )
    state = play([*START, mv(KU, "open_tale", form="protest", statement="No"), move], {"enforce_punctuation": False})
    assert ENGINE.view(state, KY)["log"][1]["text"] == "Indeed, 確かに! But そう! いかが?"
    assert ENGINE.view(state, KY)["log"][1]["parts"]["rhetorical_question"] == "いかが。"


# ---- Japanese text through a record ----------------------------------------------------------
JA_EVENTS = [
    *START,
    mv(KY, "open_tale", form="boast", statement="私は薔薇翡翠と長い刻を過ごしました🌹"),
    mv(
        KU,
        "respond",
        form="kublai_normal",
        confirmation="しかり",
        declaration="薔薇翡翠は冷笑して止まぬ。",
        open_question="あれを懐柔したものか？",
    ),
]


def test_japanese_text_round_trips_through_a_record():
    header = {
        "kifu": 1,
        "game": "kazekami-kyoko",
        "rules_version": "1",
        "config": {"language": "ja"},
        "seats": ["a", "b"],
    }
    text = dump_record(header, JA_EVENTS)
    assert "薔薇翡翠" in text  # UTF-8, not \u escapes
    replay = replay_record(text.splitlines())
    log = replay.engine.view(replay.state, KU)["log"]
    assert log[0]["parts"]["statement"] == "私は薔薇翡翠と長い刻を過ごしました🌹"
    assert log[1]["parts"]["declaration"] == "薔薇翡翠は冷笑して止まぬ。"
    assert log[1]["text"] == "しかり! しかし、薔薇翡翠は冷笑して止まぬ! 如何にしてあれを懐柔したものか？"
    dumped = json.dumps(ENGINE.dump_state(replay.state), ensure_ascii=False, sort_keys=True)
    assert ENGINE.load_state(json.loads(dumped)) == replay.state


# ---- turns and representative legal moves ------------------------------------------------------
def test_opt_in_and_roles_moves():
    state = ENGINE.setup(None)
    assert list(ENGINE.legal_moves(state, 0)) == [{"type": "opt_in_mature"}]
    state = play(START[:2])
    assert list(ENGINE.legal_moves(state, 0)) == [
        {"type": "take_role", "role": "kyoko"},
        {"type": "take_role", "role": "kublai"},
    ]
    state = play(START[:3])
    assert list(ENGINE.legal_moves(state, 0)) == []
    assert list(ENGINE.legal_moves(state, 1)) == [{"type": "take_role", "role": "kublai"}]


def test_representative_moves_use_constant_placeholders():
    state = play(START)
    assert list(ENGINE.legal_moves(state, KY)) == [{"type": "open_tale", "form": "boast", "statement": PLACEHOLDER}]
    assert list(ENGINE.legal_moves(state, KU)) == [{"type": "open_tale", "form": "protest", "statement": PLACEHOLDER}]
    state = play([*START, BOAST])
    assert list(ENGINE.legal_moves(state, KY)) == []
    assert list(ENGINE.legal_moves(state, KU)) == [
        {
            "type": "respond",
            "form": "kublai_normal",
            "confirmation": PLACEHOLDER,
            "declaration": PLACEHOLDER,
            "open_question": PLACEHOLDER_QUESTION,
        },
        {"type": "respond", "form": "kublai_challenge", "compliment": PLACEHOLDER, "challenge_question": "…?"},
        {"type": "final_words"},
    ]
    state = play([*START, BOAST, KU_NORMAL])
    kinds = [(m["type"], m.get("form")) for m in ENGINE.legal_moves(state, KY)]
    assert kinds == [
        ("open_tale", "boast"),
        ("respond", "kyoko_normal"),
        ("respond", "kyoko_refusal"),
        ("yield_tale", None),
    ]


def test_after_a_yield_only_a_new_tale_or_final_words():
    state = play([*START, BOAST, KU_NORMAL, mv(KY, "yield_tale")])
    assert [m["type"] for m in ENGINE.legal_moves(state, KU)] == ["open_tale", "final_words"]
    assert rejected(state, mv(KU, "yield_tale")).code == "partner_yielded"


def test_withdraw_is_accepted_from_either_seat_at_any_time_but_never_listed():
    for prefix in ([], START[:1], START, [*START, BOAST]):
        state = play(prefix)
        assert all(m["type"] != "withdraw" for s in (0, 1) for m in ENGINE.legal_moves(state, s))
        for seat in (0, 1):
            done = ENGINE.apply(state, mv(seat, "withdraw"))
            assert ENGINE.outcome(done).detail["result"] == "abandoned"
            assert ENGINE.outcome(done).detail["withdrawn_by"] == seat
    with pytest.raises(GameOver):
        ENGINE.apply(done, mv(0, "withdraw"))


def test_custom_setting_labels_before_the_first_tale_only():
    config = {"custom_setting": True}
    state = play(START, config)
    assert {"type": "set_label", "label": PLACEHOLDER} in ENGINE.legal_moves(state, KU)
    state = play([*START, mv(KU, "set_label", label="Lord Vortigern")], config)
    assert rejected(state, mv(KU, "set_label", label="again")).code == "label_already_set"
    state = play([*START, BOAST], config)
    assert rejected(state, mv(KU, "set_label", label="late")).code == "label_too_late"


# ---- hidden information: only spectators without consent miss anything --------------------------
def test_players_see_everything():
    state = play([*START, BOAST, KU_NORMAL])
    for seat in (0, 1):
        assert ENGINE.hidden_from(state, seat) == frozenset()
        assert ENGINE.view(state, seat)["log"][0]["parts"]["statement"] == "I met the consort Rose Jade"


def test_spectators_without_consent_see_no_text():
    events = [*START, BOAST, KU_NORMAL]
    state = play(events)
    hidden = ENGINE.hidden_from(state, None)
    assert "I met the consort Rose Jade" in hidden
    assert "So you say! But she is proud! How did you win her over?" in hidden
    text = json.dumps([ENGINE.view(state, None), [ENGINE.event_view(state, e, None) for e in events]])
    assert "Rose Jade" not in text and "proud" not in text
    assert ENGINE.event_view(state, events[-1], None)["data"] == {"type": "respond", "form": "kublai_normal"}
    check_no_leaks(ENGINE, state, events, 2)
    state = play(events, {"allow_spectators": True})
    assert ENGINE.hidden_from(state, None) == frozenset()
    assert ENGINE.view(state, None)["log"][0]["text"] == "I met the consort Rose Jade"


# ---- deadline, series, resign, config -------------------------------------------------------------
def test_final_reply_deadline():
    events = [*START, BOAST, KU_NORMAL, mv(KY, "respond", **_kyoko_normal()), mv(KU, "final_words")]
    assert ENGINE.deadline(play(events)) is None
    state = play(events, {"final_reply_timeout_s": 45})
    assert ENGINE.deadline(state) == Deadline("final-reply", 45, (KY,))
    assert ENGINE.deadline(play(events[:-1], {"final_reply_timeout_s": 45})) is None
    with pytest.raises(WindowClosed):
        ENGINE.apply(state, {"kind": "system", "data": {"type": "close_window", "window": "turn-1"}})
    done = ENGINE.apply(state, {"kind": "system", "data": {"type": "close_window", "window": "final-reply"}})
    assert ENGINE.outcome(done).detail["result"] == "completed_without_reply"


def test_series_game_two_swaps_the_roles_of_game_one():
    game_one = play([*START, BOAST, KU_NORMAL, mv(KY, "respond", **_kyoko_normal())])
    first_kyoko = game_one.roles.index("kyoko")
    config = {"series_length": 2, "series_game": 2, "series_first_kyoko": first_kyoko}
    state = ENGINE.setup(config)
    assert state.phase == "opt_in" and state.roles == ("kublai", "kyoko")
    assert rejected(state, mv(1, "open_tale", form="boast", statement="x")).code == "mature_opt_in_missing"
    state = play(START[:2], config)
    assert ENGINE.view(state, 0)["you"] == "kublai"
    carried = ENGINE.setup({**config, "reconfirm_opt_in_each_game": False})
    assert carried.phase == "play" and carried.opted_in == (True, True)


def test_resign_abandons_without_a_loser():
    state = ENGINE.apply(play([*START, BOAST]), {"kind": "system", "data": {"type": "resign", "seat": 1}})
    outcome = ENGINE.outcome(state)
    assert outcome.ranking == ((0, 1),) and outcome.scores == {}
    assert outcome.detail["resigned_by"] == 1 and "winner" not in outcome.detail


@pytest.mark.parametrize(
    "config",
    [
        {"role_assignment": "vote"},
        {"series_length": 3},
        {"series_length": 1, "series_game": 2},
        {"min_responses_before_new_tale": -1},
        {"max_part_length": 0},
        {"final_reply_timeout_s": -5},
        {"language": "fr"},
        {"enforce_punctuation": "yes"},
        {"no_such_flag": 1},
    ],
)
def test_bad_configs_are_rejected(config):
    with pytest.raises(ConfigError):
        ENGINE.setup(config)


def test_roles_draw_typed_in_by_a_person_is_checked():
    state = play(START[:2], {"role_assignment": "random"})
    assert ENGINE.chance_due(state) == "roles"
    for data in ({"kyoko": 0}, {"kyoko": 0, "kublai": 0}, {"kyoko": 2, "kublai": 0}, {"kyoko": True, "kublai": 0}):
        assert rejected(state, {"kind": "chance", "data": {"type": "roles", **data}}).code == "bad_roles"
    assert rejected(state, {"kind": "chance", "data": {"type": "deal"}}).code == "malformed_event"
    assert rejected(play(START), {"kind": "chance", "data": {"type": "roles", "kyoko": 0, "kublai": 1}}).code == (
        "unexpected_chance"
    )
