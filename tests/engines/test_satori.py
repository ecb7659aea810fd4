"""The Satori engine: harness runs, katsu windows, failed-katsu hand-overs, end and tie-break, hidden info."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from games.engines.base import ConfigError, RuleError
from games.engines.satori import DEFAULT_DECK, ENGINE, card_class, run_length
from games.records import replay_record

from .harness import canonical, check_engine, check_no_leaks

RECORDS = Path(__file__).parent / "records" / "satori"
D4 = [
    ["JS", "QH", "AS", "2S", "3S"],
    ["JH", "KH", "4S", "5S", "AH"],
    ["JD", "QS", "2H", "3H", "4H"],
    ["JC", "QD", "5H", "AD", "2D"],
]


def deal_event(hands=D4, first=0, deck=DEFAULT_DECK):
    used = {card for hand in hands for card in hand if isinstance(card, str)}
    aside = [card for card in deck["Z"] + deck["S"] if card not in used]
    return {"kind": "chance", "data": {"type": "deal", "first_player": first, "hands": hands, "set_aside": aside}}


def move(seat, type_, **params):
    return {"kind": "move", "seat": seat, "data": {"type": type_, **params}}


def close(state):
    return {"kind": "system", "data": {"type": "close_window", "window": state.window}}


def play(events, config=None, hands=D4, seats=4):
    """Replay ``events`` after a deal of ``hands``; returns the state and the full event list."""
    full = [deal_event(hands[:seats])] + events
    state = ENGINE.setup(config, seats)
    for event in full:
        state = ENGINE.apply(state, event if event != "close" else close(state))
    return state


def rejects(state, event, code):
    with pytest.raises(RuleError) as error:
        ENGINE.apply(state, event)
    assert error.value.code == code, error.value.message
    assert error.value.message
    return error.value


def record_state(name):
    return replay_record((RECORDS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()).state


# ---- harness ---------------------------------------------------------------------------
# The default config's harness run (every seat count, 30 seeds) is tests/engines/test_harness.py's.


@pytest.mark.parametrize(
    "config",
    [
        {"katsu_priority": "clockwise_nearest"},
        {"failed_katsu_transfer_choice": "eliminated_player"},
        {"failed_katsu_revealed_card": "given_as_zatsunen", "anonymous_cards": True},
        {"failed_katsu_revealed_card": "removed", "reveal_all_at_end": True, "reveal_eliminated_cards": True},
        {"auto_pass": True, "katsu_priority": "clockwise_nearest", "failed_katsu_transfer_choice": "eliminated_player"},
    ],
    ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()),
)
def test_harness_variants(config):
    # Fewer seeds than the default run: the variants share most code paths with it.
    check_engine(ENGINE, seeds=10, config=config)


# ---- config ----------------------------------------------------------------------------
def test_flags_and_defaults_follow_the_spec():
    defaults = {flag.name: flag.default for flag in ENGINE.flags}
    assert defaults == {
        "katsu_priority": "first_received",
        "katsu_window_seconds": 5,
        "failed_katsu_revealed_card": "return_to_pile",
        "failed_katsu_transfer_choice": "auto",
        "anonymous_cards": False,
        "reveal_all_at_end": False,
        "reveal_eliminated_cards": False,
        "auto_pass": False,
        "deck": DEFAULT_DECK,
    }
    assert (ENGINE.min_seats, ENGINE.max_seats) == (2, 5)


@pytest.mark.parametrize(
    "config",
    [
        {"deck": {"Z": DEFAULT_DECK["Z"][:9], "S": DEFAULT_DECK["S"]}},
        {"deck": {"Z": DEFAULT_DECK["Z"][:9] + ["AS"], "S": DEFAULT_DECK["S"]}},
        {"deck": {"Z": DEFAULT_DECK["Z"][:9] + ["JS"], "S": DEFAULT_DECK["S"]}},
        {"deck": {"Z": DEFAULT_DECK["Z"], "S": DEFAULT_DECK["S"][:14] + ["JK1"]}},
        {"deck": {"Z": DEFAULT_DECK["Z"]}},
        {"deck": {"Z": [["JS"]] * 10, "S": DEFAULT_DECK["S"]}},
        {"katsu_window_seconds": 0},
        {"katsu_priority": "loudest"},
        {"failed_katsu_revealed_card": "eaten"},
    ],
)
def test_bad_config_is_rejected(config):
    with pytest.raises(ConfigError):
        ENGINE.setup(config, 4)


def test_another_deck_is_accepted_and_kept_in_its_order():
    deck = {"Z": ["JS", "JH", "JD", "JC", "QS", "QH", "QD", "QC", "KS", "KD"], "S": DEFAULT_DECK["S"][::-1]}
    state = ENGINE.setup({"deck": deck}, 3)
    assert ENGINE.config_delta(state.config) == {"deck": deck}


# ---- deal ------------------------------------------------------------------------------
def test_sampled_deal_gives_two_z_and_three_s():
    from games.engines.chance import ChanceStream

    for seats in range(2, 6):
        state = ENGINE.setup(None, seats)
        data = ENGINE.sample_chance(state, ChanceStream(b"seed", 1))
        assert len(data["set_aside"]) == 25 - 5 * seats
        for hand in data["hands"]:
            assert sorted(card_class(c) for c in hand) == ["S", "S", "S", "Z", "Z"]
        ENGINE.apply(state, {"kind": "chance", "data": data})


@pytest.mark.parametrize(
    "hands, code",
    [
        ([D4[0], ["JH", "KH", "4S", "5S", "JD"], ["AH", "QS", "2H", "3H", "4H"], D4[3]], "bad_deal"),  # 3 Z
        ([D4[0], D4[0], D4[2], D4[3]], "bad_deal"),  # duplicates
        ([D4[0][:4], D4[1], D4[2], D4[3]], "bad_deal"),
        ([D4[0], D4[1], D4[2]], "malformed_event"),
        ([D4[0], D4[1], D4[2], [["JC"], "QD", "5H", "AD", "2D"]], "malformed_event"),
    ],
)
def test_bad_deal_is_rejected(hands, code):
    rejects(ENGINE.setup(None, 4), deal_event(hands), code)


def test_deal_must_cover_the_set_exactly():
    event = deal_event()
    event["data"]["set_aside"] = event["data"]["set_aside"][:-1]
    rejects(ENGINE.setup(None, 4), event, "bad_deal")


def test_moves_before_the_deal_and_chance_after_it():
    state = ENGINE.setup(None, 4)
    rejects(state, move(0, "play_card", card="JS"), "chance_expected")
    rejects(state, {"kind": "system", "data": {"type": "close_window", "window": "katsu-0"}}, "window_closed")
    dealt = ENGINE.apply(state, deal_event())
    rejects(dealt, deal_event(), "unexpected_chance")


# ---- turn actions ----------------------------------------------------------------------
def test_turn_errors():
    state = play([])
    cards = ["JS", "QH", "AS", "2S", "3S"]
    assert list(ENGINE.legal_moves(state, 0)) == [{"type": "play_card", "card": c} for c in cards]
    rejects(state, move(1, "play_card", card="JH"), "not_your_turn")
    rejects(state, move(0, "play_card", card="JH"), "card_not_in_hand")
    rejects(state, move(0, "pass_turn"), "hand_not_empty")
    rejects(state, move(0, "declare_satori"), "run_too_short")
    rejects(state, move(0, "shout"), "unknown_action")
    rejects(state, move(0, "play_card"), "malformed_event")
    rejects(state, move(1, "katsu"), "window_closed")
    rejects(state, move(1, "decline_katsu"), "window_closed")
    rejects(state, move(1, "hand_over", s_card="4S", z_card="JH"), "no_hand_over_pending")
    opened = ENGINE.apply(state, move(0, "play_card", card="AS"))
    rejects(opened, move(0, "play_card", card="2S"), "katsu_window_open")
    rejects(opened, move(1, "play_card", card="JH"), "not_your_turn")


def test_run_counts_from_the_top_not_in_play_order():
    assert run_length(("3S", "2S", "AS")) == 3
    assert run_length(("5H", "3S", "KH")) == 2
    assert run_length(("KH", "AS", "2S", "3S")) == 0
    assert run_length(()) == 0


def test_empty_hand_may_pass_or_declare_and_auto_pass_skips_it():
    base = play([])
    hands = ((), ("JH",), ("JD",), ("JC",))
    state = replace(base, hands=hands, piles=(("AS", "2S", "3S"), (), (), ()))
    assert list(ENGINE.legal_moves(state, 0)) == [{"type": "declare_satori"}, {"type": "pass_turn"}]
    after = ENGINE.apply(state, move(0, "pass_turn"))
    assert (after.phase, after.active) == ("action", 1)
    # auto_pass: seat 1's hand is empty and its run is 0, so the engine passes for it.
    auto = replace(base, config={**base.config, "auto_pass": True}, hands=((), (), ("JD",), ("JC",)))
    auto = ENGINE.apply(auto, move(0, "pass_turn"))
    assert auto.active == 2


# ---- katsu windows ---------------------------------------------------------------------
def test_window_is_open_to_every_other_survivor_and_has_a_unique_id():
    state = play([move(0, "play_card", card="JS")])
    assert ENGINE.actors(state) == {1, 2, 3}
    deadline = ENGINE.deadline(state)
    assert (deadline.window, deadline.seconds, deadline.seats) == ("katsu-1", 5, (1, 2, 3))
    for seat in (1, 2, 3):
        assert list(ENGINE.legal_moves(state, seat)) == [{"type": "katsu"}, {"type": "decline_katsu"}]
    assert list(ENGINE.legal_moves(state, 0)) == []
    state = ENGINE.apply(state, move(2, "decline_katsu"))
    assert ENGINE.actors(state) == {1, 3} and ENGINE.deadline(state).seats == (1, 3)
    rejects(state, move(2, "katsu"), "already_answered")
    state = ENGINE.apply(state, move(1, "decline_katsu"))
    state = ENGINE.apply(state, move(3, "decline_katsu"))
    assert (state.phase, state.active, ENGINE.deadline(state)) == ("action", 1, None)


def test_window_ids_never_repeat_in_a_game():
    from tests.engines.harness import random_playthrough

    for seed in range(20):
        _, states = random_playthrough(ENGINE, 4, seed, checks=False)
        windows = [ENGINE.deadline(s).window for s in states if ENGINE.deadline(s) is not None]
        opened = [w for i, w in enumerate(windows) if i == 0 or windows[i - 1] != w]
        assert len(opened) == len(set(opened))


def test_close_window_needs_the_open_window_id():
    state = play([move(0, "play_card", card="JS")])
    rejects(state, {"kind": "system", "data": {"type": "close_window", "window": "katsu-2"}}, "window_closed")
    rejects(state, {"kind": "system", "data": {"type": "close_window"}}, "window_closed")
    closed = ENGINE.apply(state, {"kind": "system", "data": {"type": "close_window", "window": "katsu-1"}})
    assert closed.active == 1
    alias = ENGINE.apply(state, {"kind": "system", "data": {"type": "close_katsu_window"}})
    assert alias == closed
    rejects(closed, {"kind": "system", "data": {"type": "close_katsu_window"}}, "window_closed")


def test_first_received_katsu_closes_the_window_at_once():
    state = play([move(0, "play_card", card="AS"), move(3, "katsu")])
    assert state.piles[3] == ("AS",) and state.active == 1
    rejects(state, move(1, "katsu"), "window_closed")


def test_clockwise_nearest_collects_claims_and_resolves_when_all_answered():
    config = {"katsu_priority": "clockwise_nearest"}
    state = play([move(0, "play_card", card="AS"), move(3, "katsu"), move(2, "katsu")], config)
    assert state.phase == "katsu" and ENGINE.actors(state) == {1}
    state = ENGINE.apply(state, move(1, "decline_katsu"))
    assert state.piles[2] == ("AS",) and state.piles[3] == () and state.active == 1
    assert state.katsu_log[-1].claimants == (3, 2)


def test_failed_katsu_takes_the_topmost_pile_satori_when_the_hand_has_none():
    # A10 as well: the active player's last card was played, but the hand-over refills the hand,
    # so the game goes on instead of ending on empty hands.
    base = play([], seats=3)
    state = replace(
        base,
        hands=(("QH",), (), ()),
        piles=((), ("JH", "4S", "KH", "5S"), ("2H",)),
        known=(frozenset({"QH"}), frozenset({"JH", "4S", "KH", "5S"}), frozenset({"2H"})),
    )
    state = ENGINE.apply(state, move(0, "play_card", card="QH"))
    state = ENGINE.apply(state, move(1, "katsu"))
    assert state.hands[0] == ("4S", "JH")
    assert state.removed[1] == ("KH", "5S")
    assert state.phase == "action" and state.active == 2 and state.piles[0] == ("QH",)


def test_t5_active_player_receives_3s_and_jc():
    state = record_state("t5-failed-katsu-hand-over-from-hand")
    assert {"3S", "JC"} <= set(ENGINE.view(state, 0)["players"][0]["hand"])
    assert ENGINE.view(state, 0)["katsu_log"][0]["given"] == ["3S", "JC"]
    assert ENGINE.view(state, 1)["katsu_log"][0]["given"] == ["S", "Z"]
    assert ENGINE.view(state, 2)["katsu_log"][0]["given"] == ["3S", "JC"]  # the giver knows


def test_t6_only_the_zatsunen_card_is_handed_over():
    state = record_state("t6-failed-katsu-no-satori-left")
    assert state.hands[0] == ("JC",)


def test_t5_eliminated_seat_is_skipped_from_then_on():
    state = record_state("t5-failed-katsu-hand-over-from-hand")
    state = ENGINE.apply(state, move(3, "play_card", card="AD"))
    state = ENGINE.apply(state, close(state))
    assert state.active == 0
    assert ENGINE.actors(ENGINE.apply(state, move(0, "play_card", card="2S"))) == {1, 3}


def test_hand_over_choice_by_the_eliminated_player():
    config = {"failed_katsu_transfer_choice": "eliminated_player"}
    state = play([move(0, "play_card", card="QH"), move(2, "katsu")], config)
    assert state.phase == "hand_over" and ENGINE.actors(state) == {2}
    moves = ENGINE.legal_moves(state, 2)
    assert {"type": "hand_over", "s_card": "2H", "z_card": "JD"} in moves and len(moves) == 3 * 2
    rejects(state, move(0, "play_card", card="JS"), "not_your_turn")
    rejects(state, move(2, "hand_over", s_card="2H"), "bad_hand_over")
    rejects(state, move(1, "hand_over", s_card="2H", z_card="JD"), "not_your_turn")
    done = ENGINE.apply(state, move(2, "hand_over", s_card="3H", z_card="QS"))
    assert done.hands[0][-2:] == ("3H", "QS") and done.active == 1
    # A seat that resigns instead of choosing hands over what auto would have picked.
    resigned = ENGINE.apply(state, {"kind": "system", "data": {"type": "resign", "seat": 2}})
    assert resigned.hands[0][-2:] == ("2H", "JD") and resigned.resigned == (2,)


def test_given_as_zatsunen_needs_only_a_satori_card():
    config = {"failed_katsu_transfer_choice": "eliminated_player", "failed_katsu_revealed_card": "given_as_zatsunen"}
    state = play([move(0, "play_card", card="QH"), move(1, "katsu")], config)
    assert list(ENGINE.legal_moves(state, 1)) == [
        {"type": "hand_over", "s_card": c, "z_card": None} for c in ("4S", "5S", "AH")
    ]
    rejects(state, move(1, "hand_over", s_card="4S", z_card="JH"), "bad_hand_over")


# ---- end of game -----------------------------------------------------------------------
def test_declare_reveals_runs_only_by_default():
    state = record_state("w2-declare-after-three-satori")
    view = ENGINE.view(state, None)
    assert view["players"][1]["pile"] == ["5S", "4S", None]
    assert view["players"][1]["hand"] is None
    assert "JH" in ENGINE.hidden_from(state, None)


def test_reveal_all_at_end_shows_hands_and_piles():
    lines = (RECORDS / "w2-declare-after-three-satori.jsonl").read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["config"] = {"reveal_all_at_end": True}
    state = replay_record([json.dumps(header)] + lines[1:]).state
    view = ENGINE.view(state, None)
    assert view["players"][1]["pile"] == ["5S", "4S", "JH"]
    assert view["players"][1]["hand"] == ["KH", "AH"]
    assert ENGINE.hidden_from(state, None) == frozenset(state.set_aside)


def test_resign_of_the_active_player_closes_the_window_and_moves_on():
    state = play([move(0, "play_card", card="AS")])
    state = ENGINE.apply(state, {"kind": "system", "data": {"type": "resign", "seat": 0}})
    assert state.phase == "action" and state.active == 1 and 0 in state.eliminated
    assert state.hands[0] == () and state.piles[0] == ()
    rejects(state, {"kind": "system", "data": {"type": "resign", "seat": 0}}, "already_eliminated")


def test_resign_of_the_last_answering_seat_closes_the_window():
    state = play([move(0, "play_card", card="AS"), move(1, "decline_katsu"), move(2, "decline_katsu")])
    state = ENGINE.apply(state, {"kind": "system", "data": {"type": "resign", "seat": 3}})
    assert state.phase == "action" and state.active == 1


def test_resign_down_to_one_player_ends_the_game():
    state = play([], seats=3)
    for seat in (1, 2):
        state = ENGINE.apply(state, {"kind": "system", "data": {"type": "resign", "seat": seat}})
    outcome = ENGINE.outcome(state)
    assert outcome.ranking == ((0,), (1, 2)) and outcome.detail["reason"] == "last_survivor"
    rejects(state, move(0, "play_card", card="JS"), "game_over")


# ---- hidden information ----------------------------------------------------------------
def test_hands_and_face_down_cards_stay_hidden():
    events = [deal_event(), move(0, "play_card", card="AS")]
    state = play(events[1:])
    for seat in (1, 2, 3, None):
        text = canonical(ENGINE.view(state, seat)) + canonical([ENGINE.event_view(state, e, seat) for e in events])
        for card in D4[0]:
            assert f'"{card}"' not in text
    assert ENGINE.event_view(state, events[1], 1)["data"] == {"type": "play_card", "card": None}
    assert ENGINE.event_view(state, events[1], 0)["data"] == {"type": "play_card", "card": "AS"}
    assert ENGINE.view(state, 0)["players"][0]["pile"] == ["AS"]
    check_no_leaks(ENGINE, state, events, 4)


def test_a_card_taken_by_katsu_becomes_public_in_the_log():
    events = [deal_event(), move(0, "play_card", card="AS"), move(2, "katsu")]
    state = play(events[1:])
    assert ENGINE.event_view(state, events[1], None)["data"]["card"] == "AS"
    assert ENGINE.view(state, None)["players"][2]["pile"] == ["AS"]


def test_a_revealed_card_back_in_a_hand_is_hidden_again():
    config = {"failed_katsu_revealed_card": "given_as_zatsunen"}
    events = [deal_event(), move(0, "play_card", card="QH"), move(1, "katsu")]
    state = play(events[1:], config)
    assert "QH" in ENGINE.hidden_from(state, 2)
    assert ENGINE.event_view(state, events[1], 2)["data"]["card"] is None
    assert ENGINE.view(state, 2)["katsu_log"][0]["card"] == "Z"
    assert ENGINE.view(state, 0)["katsu_log"][0]["card"] == "QH"
    check_no_leaks(ENGINE, state, events, 4)


def test_anonymous_cards_show_only_classes():
    events = [deal_event(), move(0, "play_card", card="AS"), move(2, "katsu")]
    state = play(events[1:], {"anonymous_cards": True})
    assert ENGINE.view(state, None)["players"][2]["pile"] == ["S"]
    assert ENGINE.view(state, 1)["katsu_log"][0]["card"] == "S"
    assert ENGINE.view(state, 2)["players"][2]["pile"] == ["AS"]
    assert "AS" in ENGINE.hidden_from(state, None)
    check_no_leaks(ENGINE, state, events, 4)


def test_hand_over_ids_are_seen_by_giver_and_receiver_only():
    config = {"failed_katsu_transfer_choice": "eliminated_player"}
    events = [
        deal_event(),
        move(0, "play_card", card="QH"),
        move(2, "katsu"),
        move(2, "hand_over", s_card="3H", z_card="QS"),
    ]
    state = play(events[1:], config)
    hand_over = events[3]
    assert ENGINE.event_view(state, hand_over, 0)["data"]["s_card"] == "3H"
    assert ENGINE.event_view(state, hand_over, 2)["data"]["s_card"] == "3H"
    assert ENGINE.event_view(state, hand_over, 1)["data"] == {"type": "hand_over", "s_card": None, "z_card": None}
    check_no_leaks(ENGINE, state, events, 4)


def test_state_round_trips_through_json():
    state = record_state("t6-failed-katsu-no-satori-left")
    assert ENGINE.load_state(json.loads(canonical(ENGINE.dump_state(state)))) == state
