"""Mekuri Hinmin engine: the generic harness, the tricky rules of the spec, error codes and hidden cards.

The spec's worked examples and test scenarios are record files in ``records/mekuri-hinmin``; the ones
that need a position a deal cannot reach quickly (T12, draw pile exhaustion) are built here.
"""

import json
from dataclasses import replace

import pytest

from games.engines.base import ConfigError, RuleError
from games.engines.chance import ChanceStream
from games.engines.mekuri_hinmin import ENGINE, MekuriHinmin, build_deck, shapes_of

from .harness import canonical, check_engine, check_no_leaks, random_playthrough

DEFAULTS = ENGINE.validate_config({})


class NoTieProposals(MekuriHinmin):
    """The engine without tie proposals, so that random games are played out to the end.

    With the real engine a random opponent proposes a tie at almost every step and random games end
    by agreement after a few events; this subclass only hides the proposal, every rule stays.
    """

    def actors(self, state):
        seats = super().actors(state)
        if state.phase == "play" and state.tie_offer is None and seats:
            return frozenset({state.to_move})
        return seats

    def legal_moves(self, state, seat):
        if seat not in self.actors(state):
            return []
        return [m for m in super().legal_moves(state, seat) if m["type"] != "propose_tie"]


NO_TIES = NoTieProposals()


# ---- harness ----------------------------------------------------------------------------------
# The default config's harness run (every seat count, 30 seeds) is tests/engines/test_harness.py's.


def test_harness_played_out_games():
    check_engine(NO_TIES, seeds=10)


@pytest.mark.parametrize(
    "config",
    [
        {"deck_jokers": 0},
        {"deck_jokers": 1, "initial_hand_size": 10},
        {"auto_accept_if_no_counter": True, "auto_end_pass": True},
        {"reshuffle_includes_field": True, "initial_hand_size": 10, "auto_tie_after_reshuffles": 1},
        {"first_game_special_upcard": "as_is", "initial_two_after_draw": "play_on_two", "initial_two_as_is_draw": 1},
        {"reach_feasibility_check": "single_combination", "eight_suit_choice_scope": "special_play_only"},
        {"joker_on_joker": True, "natural_threes_only": False, "pair_of_twos_final_cancellable": True},
        {"three_on_joker_next_leader": "opponent", "final_two_always_attacks": False, "two_max_stack": 4},
        {"straight_beat_rule": "skip_one", "straight_follow_same_suit": True, "quintet_requires_four_naturals": True},
        {"straight_beat_rule": "higher_low", "eight_designation_requires_higher": False},
        {"eight_counts_ace_two_low": True, "post_draw_must_use_drawn": False, "false_out_penalty": 1},
        {"discard_pile_browsable": False, "reveal_hands_at_end": True, "auto_tie_after_events": 50},
    ],
    ids=lambda c: ",".join(sorted(c)),
)
def test_harness_variants(config):
    check_engine(NO_TIES, seeds=4, config=config)


def test_harness_match_of_several_games():
    # Multi-game matches make the harness's quadratic leak scan slow: two seeds are enough here.
    check_engine(NO_TIES, seeds=2, config={"match_games": 3, "reveal_hands_at_end": True})
    check_engine(ENGINE, seeds=10, config={"match_games": 3, "first_game_special_upcard": "as_is"})


# ---- helpers ----------------------------------------------------------------------------------
def mv(seat, kind, **params):
    return {"kind": "move", "seat": seat, "data": {"type": kind, **params}}


def play(seat, *cards, **params):
    return mv(seat, "play", cards=list(cards), **params)


def position(config=None, *, hands, top=(), to_move=0, situation="respond", **fields):
    """A play-phase state built directly, for positions a deal reaches only after many moves."""
    state = ENGINE.setup(config, 2)
    kind = fields.pop("top_kind", None) or ("single" if len(top) == 1 else None)
    for pile in ("draw_pile", "discard"):
        fields[pile] = tuple(fields.get(pile, ()))
    return replace(
        state,
        phase="play",
        first_player=0,
        hands=(tuple(hands[0]), tuple(hands[1])),
        top=tuple(top),
        field=tuple(fields.pop("field", top)),
        top_kind=kind,
        top_owner=1 - to_move if top else None,
        to_move=to_move,
        situation=situation,
        turns=fields.pop("turns", (1, 1)),
        **fields,
    )


def codes(state, event):
    with pytest.raises(RuleError) as error:
        ENGINE.apply(state, event)
    assert error.value.message
    return error.value.code


def apply_all(state, *events, engine=ENGINE):
    for event in events:
        state = engine.apply(state, event)
    return state


def deal(first, a, b, upcard, prefix=(), jokers=2):
    used = [*a, *b, upcard, *prefix]
    rest = [c for c in build_deck(jokers) if c not in used]
    return {
        "kind": "chance",
        "data": {
            "type": "deal",
            "first_player": first,
            "hands": [list(a), list(b)],
            "upcard": upcard,
            "draw_pile": [*prefix, *rest],
        },
    }


# ---- shapes (§3.1, W1, W2, W12) ---------------------------------------------------------------
def test_joker_in_straight_takes_lowest_value():
    (straight,) = shapes_of(["5H", "6H", "JK1"], DEFAULTS)
    assert (straight.kind, straight.low, straight.high) == ("straight", 4, 6)
    (gap,) = shapes_of(["5H", "JK1", "7H"], DEFAULTS)
    assert (gap.low, gap.high) == (5, 7)
    (bottom,) = shapes_of(["3H", "4H", "JK1"], DEFAULTS)
    assert (bottom.low, bottom.high) == (3, 5)  # no value below 3: the joker goes on top


def test_straight_range_and_no_wraparound():
    assert shapes_of(["KS", "AS", "2S"], DEFAULTS)[0].high == 15
    assert shapes_of(["3S", "4S", "5S"], DEFAULTS)[0].low == 3
    assert shapes_of(["AS", "2S", "3S"], DEFAULTS) == []
    assert shapes_of(["5S", "6S", "7H"], DEFAULTS) == []  # one suit only
    (five,) = shapes_of(["QS", "KS", "AS", "2S", "JK1"], DEFAULTS)
    assert (five.low, five.high) == (11, 15)


def test_sets_quintet_and_joker_pair():
    (quintet,) = shapes_of(["9S", "9H", "9D", "9C", "JK1"], DEFAULTS)
    assert (quintet.kind, quintet.size, quintet.value) == ("set", 5, 9)
    assert shapes_of(["JK1", "JK2"], DEFAULTS)[0].value == 16
    assert shapes_of(["9S", "9H", "9D", "JK1", "JK2"], DEFAULTS)[0].size == 5
    strict = {**DEFAULTS, "quintet_requires_four_naturals": True}
    assert shapes_of(["9S", "9H", "9D", "JK1", "JK2"], strict) == []
    # one natural and two jokers reads as a set (on a lead) and as a straight (against a straight)
    assert [s.kind for s in shapes_of(["5H", "JK1", "JK2"], DEFAULTS)] == ["set", "straight"]


# ---- legality (T1, T2) ------------------------------------------------------------------------
def test_t1_single_answers_listed():
    state = position(hands=(["JH", "9S", "8C", "5H", "JK1"], ["AC"]), top=["9H"])
    singles = {m["cards"][0] for m in ENGINE.legal_moves(state, 0) if m["type"] == "play"}
    assert singles == {"JH", "9S", "JK1"}
    assert {"type": "pass_and_draw"} in ENGINE.legal_moves(state, 0)


def test_t2_designated_suit_answers_listed():
    state = position(hands=(["8C", "KS"], ["9H", "8S", "JK2", "10S", "5H"]), top=["7D"])
    assert ENGINE.apply(state, play(0, "8C", suit="H")).designated == "H"
    state = position(hands=(["KS"], ["9H", "8S", "JK2", "10S", "5H"]), top=["8C"], to_move=1, designated="H")
    singles = {m["cards"][0] for m in ENGINE.legal_moves(state, 1) if m["type"] == "play"}
    assert singles == {"9H", "8S", "JK2"}
    loose = position(
        {"eight_designation_requires_higher": False},
        hands=(["KS"], ["9H", "8S", "JK2", "10S", "5H"]),
        top=["8C"],
        to_move=1,
        designated="H",
    )
    assert {m["cards"][0] for m in ENGINE.legal_moves(loose, 1) if m["type"] == "play"} == {"9H", "8S", "JK2", "5H"}


def test_eight_suit_scope_special_play_only():
    config = {"eight_suit_choice_scope": "special_play_only"}
    lead = position(config, hands=(["8H", "9C"], ["AC"]), situation="lead")
    assert codes(lead, play(0, "8H", suit="S")) == "suit_not_allowed"
    on_low = position(config, hands=(["8H", "9C"], ["AC"]), top=["5C"])
    assert ENGINE.apply(on_low, play(0, "8H", suit="S")).designated == "S"
    assert codes(position(hands=(["9H", "9C"], ["AC"]), top=["5H"]), play(0, "9H", suit="S")) == "suit_not_allowed"


def test_eight_on_ace_or_two_only_with_flag():
    state = position(hands=(["8H", "9C"], ["AC"]), top=["AS"])
    assert codes(state, play(0, "8H")) == "eight_only_on_low"
    state = position({"eight_counts_ace_two_low": True}, hands=(["8H", "9C"], ["AC"]), top=["AS"])
    assert ENGINE.apply(state, play(0, "8H")).top == ("8H",)


def test_joker_on_three_and_three_on_joker():
    state = position(hands=(["JK1", "9C"], ["AC"]), top=["3S"])
    assert ENGINE.apply(state, play(0, "JK1")).top == ("JK1",)
    state = position(hands=(["4S", "3C", "9C"], ["AC"]), top=["JK2"])
    assert codes(state, play(0, "4S")) == "only_three_beats_joker"
    after = ENGINE.apply(state, play(0, "3C"))
    assert (after.situation, after.to_move, after.field, after.discard) == ("lead", 0, (), ("JK2", "3C"))


def test_pair_of_threes_beats_joker_pair_and_flushes():
    state = position(hands=(["3C", "3H", "9C"], ["AC"]), top=["JK1", "JK2"], top_kind="set")
    assert codes(state, play(0, "9C")) == "single_on_multi"
    nines = position(hands=(["9C", "9H", "3C"], ["AC"]), top=["JK1", "JK2"], top_kind="set")
    assert codes(nines, play(0, "9C", "9H")) == "only_threes_beat_jokers"
    after = ENGINE.apply(state, play(0, "3C", "3H"))
    assert (after.situation, after.to_move, after.discard) == ("lead", 0, ("JK1", "JK2", "3H", "3C"))
    opponent_leads = position({"three_on_joker_next_leader": "opponent"}, hands=(["3C", "9C"], ["AC"]), top=["JK1"])
    assert ENGINE.apply(opponent_leads, play(0, "3C")).to_move == 1


def test_set_and_straight_comparisons():
    pair = position(hands=(["7S", "7H", "5C", "5H", "JK1"], ["AC"]), top=["5S", "5D"], top_kind="set")
    assert codes(pair, play(0, "5C", "5H")) == "same_rank"
    assert codes(pair, play(0, "7S", "7H", "JK1")) == "wrong_size"
    assert ENGINE.apply(pair, play(0, "7S", "JK1")).top == ("7S", "JK1")
    run = position(hands=(["9C", "10C", "JC", "5H"], ["AC"]), top=["6H", "7H", "8H"], top_kind="straight")
    assert codes(run, play(0, "5H")) == "single_on_multi"
    same_suit = replace(run, config={**run.config, "straight_follow_same_suit": True})
    assert codes(same_suit, play(0, "9C", "10C", "JC")) == "wrong_suit"
    skip = replace(run, config={**run.config, "straight_beat_rule": "skip_one"})
    assert ENGINE.apply(skip, play(0, "9C", "10C", "JC")).top_kind == "straight"
    overlap = position(hands=(["7C", "8C", "9C", "6C"], ["AC"]), top=["6H", "7H", "8H"], top_kind="straight")
    assert codes(replace(overlap, config=skip.config), play(0, "7C", "8C", "9C")) == "not_stronger"
    higher_low = {**run.config, "straight_beat_rule": "higher_low"}
    assert codes(replace(overlap, config=higher_low), play(0, "6C", "7C", "8C")) == "not_stronger"
    assert ENGINE.apply(replace(overlap, config=higher_low), play(0, "7C", "8C", "9C")).top == ("7C", "8C", "9C")
    # one natural + two jokers answers a straight as the straight 3-4-5 only if that beats it
    low = position(hands=(["5S", "JK1", "JK2", "AC"], ["AC"]), top=["3H", "4H", "5H"], top_kind="straight")
    assert codes(low, play(0, "5S", "JK1", "JK2")) == "shares_ranks"


def test_multi_card_plays_need_a_lead_or_the_same_shape():
    state = position(hands=(["9S", "9H", "4C"], ["AC"]), top=["7H"])
    assert codes(state, play(0, "9S", "9H")) == "multi_card_on_single"
    assert codes(state, play(0, "9S", "4C")) == "invalid_shape"


# ---- actions and error codes --------------------------------------------------------------------
def test_play_parameter_errors():
    state = position(hands=(["2H", "8H", "9H", "KD"], ["AC"]), top=["5H"])
    assert codes(state, play(0, "2H")) == "attack_required"
    assert codes(state, play(0, "9H", attack=True)) == "attack_not_allowed"
    assert codes(state, play(0, "9H", suit="S")) == "suit_not_allowed"
    assert codes(state, play(0, "8H", suit="X")) == "bad_suit"
    assert codes(state, play(0, "XX")) == "unknown_card"
    assert codes(state, play(0, "9H", "9H")) == "duplicate_card"
    assert codes(state, play(0, "QH")) == "card_not_in_hand"
    assert codes(state, play(0)) == "malformed_event"
    assert codes(state, mv(0, "play", cards="9H")) == "malformed_event"
    assert codes(state, play(0, "9H", declare_reach="yes")) == "malformed_event"
    assert codes(state, play(1, "AC")) == "not_your_turn"
    assert codes(state, mv(0, "accept_draw")) == "not_now"
    assert codes(state, mv(0, "end_pass")) == "not_now"
    assert codes(state, mv(0, "choose_first_player", player=1)) == "not_now"
    assert codes(state, mv(0, "fly")) == "unknown_action"


def test_attack_chain_errors_and_cap():
    state = position(hands=(["2S", "JK1", "5C"], ["AC"]), top=["2H"], situation="attack_pending", pending=2)
    assert codes(state, play(0, "2S", attack=True)) == "not_now"
    assert codes(state, mv(0, "counter_two", card="5C")) == "not_a_two"
    assert codes(state, mv(0, "cancel_two_with_joker", card="2S")) == "not_a_joker"
    assert codes(state, mv(0, "pass_and_draw")) == "not_now"
    capped = replace(state, config={**state.config, "two_max_stack": 4}, pending=4)
    assert ENGINE.apply(capped, mv(0, "counter_two", card="2S")).pending == 4


def test_post_draw_must_use_drawn_variant():
    state = position(hands=(["JS", "JD"], ["AC"]), top=["5S", "5D"], top_kind="set", draw_pile=["9C", "4H"])
    state = ENGINE.apply(state, mv(0, "pass_and_draw"))
    assert state.drawn == ("9C", "4H")
    assert codes(state, play(0, "JS", "JD")) == "must_use_drawn_card"
    free = replace(state, config={**state.config, "post_draw_must_use_drawn": False})
    assert ENGINE.apply(free, play(0, "JS", "JD")).top == ("JS", "JD")


def test_reach_lasts_through_the_next_turn_only():
    state = position(hands=(["JH", "QH", "KH"], ["AH", "4C", "5C"]), situation="lead", draw_pile=["7S"])
    state = ENGINE.apply(state, play(0, "JH", declare_reach=True))
    assert state.reach[0] is not None
    state = ENGINE.apply(state, play(1, "AH"))
    assert state.reach[0] is not None  # still in effect during the declarer's next turn
    state = apply_all(state, mv(0, "pass_and_draw"), mv(0, "end_pass"))
    assert state.reach == (None, None) and (state.to_move, state.situation) == (1, "lead")


def test_reach_feasibility_check():
    config = {"reach_feasibility_check": "single_combination"}
    state = position(config, hands=(["9H", "4S", "KD"], ["AC"]), top=["5H"])
    assert codes(state, play(0, "9H", declare_reach=True)) == "reach_not_feasible"
    state = position(config, hands=(["9H", "KS", "KD"], ["AC"]), top=["5H"])
    assert ENGINE.apply(state, play(0, "9H", declare_reach=True)).reach[0] is not None


def test_false_going_out_with_attacking_two_still_attacks():
    state = position(hands=(["2H"], ["AC", "KC"]), top=["5H"], draw_pile=build_deck(0)[:10])
    state = ENGINE.apply(state, play(0, "2H", attack=True))
    assert len(state.hands[0]) == 5
    assert (state.to_move, state.situation, state.pending) == (1, "attack_pending", 2)


def test_non_attacking_final_two_variant():
    config = {"final_two_always_attacks": False}
    state = position(config, hands=(["2H"], ["2S", "KC"]), top=["5H"], reach=(2, None), draw_pile=build_deck(0)[:20])
    state = ENGINE.apply(state, play(0, "2H", attack=False))
    assert state.situation == "going_out_window"
    state = ENGINE.apply(state, mv(1, "counter_going_out", cards=["2S"]))
    assert len(state.hands[0]) == 2 + 5  # a fresh 2 after a non-attacking 2: only 2, plus the penalty


# ---- going-out windows (§4.6) -----------------------------------------------------------------
def window_after(final, o_hand, config=None, o_reach=None, top=("KH",)):
    state = position(
        config,
        hands=([final[-1]] if len(final) == 1 else final, o_hand),
        top=list(top),
        reach=(2, o_reach),
        turns=(2, 2),
        draw_pile=build_deck(0)[:40],
    )
    attack = {"attack": True} if len(final) == 1 and final[0][0] == "2" else {}
    return ENGINE.apply(state, play(0, *final, **attack))


def test_window_always_opens_and_lists_counters():
    state = window_after(["JK2"], ["3D", "3C", "KC"])
    assert ENGINE.actors(state) == frozenset({1})
    moves = ENGINE.legal_moves(state, 1)
    assert {"type": "counter_going_out", "cards": ["3D"], "declare_reach": True} in moves
    assert moves[-1] == {"type": "accept_going_out"}
    no_counter = window_after(["JK2"], ["4D"])
    assert list(ENGINE.legal_moves(no_counter, 1)) == [{"type": "accept_going_out"}]
    assert ENGINE.deadline(no_counter) is None  # auto_accept_if_no_counter is off: no leak


def test_not_cancellable_final_play_wins_at_once():
    state = window_after(["10H"], ["3D"], top=("5H",))
    assert ENGINE.outcome(state).ranking == ((0,), (1,))


def test_counter_three_that_empties_the_hand():
    with_reach = window_after(["JK2"], ["3D"], o_reach=3)
    assert with_reach.situation == "going_out_window"
    won = ENGINE.apply(with_reach, mv(1, "counter_going_out", cards=["3D"]))
    assert ENGINE.outcome(won).ranking == ((1,), (0,))
    without = ENGINE.apply(window_after(["JK2"], ["3D"]), mv(1, "counter_going_out", cards=["3D"]))
    assert ENGINE.outcome(without) is None
    assert [len(h) for h in without.hands] == [5, 5] and (without.to_move, without.situation) == (1, "lead")


def test_joker_counter_that_empties_the_hand_opens_a_window_for_the_finisher():
    state = window_after(["2S"], ["JK1"], o_reach=3, top=("10S",))
    state = ENGINE.apply(state, mv(1, "counter_going_out", cards=["JK1"]))
    assert (state.situation, state.to_move, state.finisher) == ("going_out_window", 0, 1)
    assert len(state.hands[0]) == 5
    state = ENGINE.apply(state, mv(0, "accept_going_out"))
    assert ENGINE.outcome(state).ranking == ((1,), (0,))


def test_two_counter_on_final_two_doubles_then_penalty():
    state = window_after(["2S"], ["2H", "KC"], top=("10S",))
    state = ENGINE.apply(state, mv(1, "counter_going_out", cards=["2H"]))
    assert len(state.hands[0]) == 9 and state.situation == "post_accept" and state.reach[0] is None
    assert codes(window_after(["2S"], ["3H"], top=("10S",)), mv(1, "counter_going_out", cards=["3H"])) == (
        "bad_counter"
    )


def test_pair_of_twos_final_cancellable_variant():
    final = ["2S", "2H"]
    state = window_after(final, ["JK1", "JK2", "KC"], top=("QS", "QH"))
    assert ENGINE.outcome(state).ranking == ((0,), (1,))  # default: not cancellable
    state = window_after(final, ["JK1", "JK2", "KC"], {"pair_of_twos_final_cancellable": True}, top=("QS", "QH"))
    assert state.situation == "going_out_window"
    state = ENGINE.apply(state, mv(1, "counter_going_out", cards=["JK1", "JK2"]))
    assert (state.to_move, state.situation, state.top) == (0, "respond", ("JK1", "JK2"))
    assert len(state.hands[0]) == 5


def test_three_on_joker_as_the_last_card():
    state = position(hands=(["3C"], ["AC"]), top=["JK1"], reach=(2, None), turns=(2, 2), draw_pile=build_deck(0)[:9])
    won = ENGINE.apply(state, play(0, "3C"))
    assert ENGINE.outcome(won).ranking == ((0,), (1,))  # never cancellable
    false = ENGINE.apply(replace(state, reach=(None, None)), play(0, "3C"))
    assert (false.to_move, false.situation, false.field, len(false.hands[0])) == (0, "lead", (), 5)


def test_joker_counter_that_empties_the_hand_without_reach():
    state = window_after(["2S"], ["JK1"], top=("10S",))
    state = ENGINE.apply(state, mv(1, "counter_going_out", cards=["JK1"]))
    assert [len(h) for h in state.hands] == [5, 5]
    assert (state.to_move, state.situation, state.top) == (0, "respond", ("JK1",))


def test_counter_going_out_may_declare_reach():
    state = window_after(["JK2"], ["3D", "KC"])
    state = ENGINE.apply(state, mv(1, "counter_going_out", cards=["3D"], declare_reach=True))
    assert state.reach[1] is not None and state.reach[0] is None
    assert codes(window_after(["JK2"], ["3D"]), mv(1, "counter_going_out", cards=["3D"], declare_reach=True)) == (
        "reach_needs_cards_left"
    )
    assert codes(window_after(["JK2"], ["3D", "KC"]), mv(0, "propose_tie")) == "not_now"


def test_auto_accept_if_no_counter():
    state = window_after(["JK2"], ["4D"], {"auto_accept_if_no_counter": True})
    deadline = ENGINE.deadline(state)
    assert deadline is not None and deadline.seconds == 0 and deadline.seats == (1,)
    closed = ENGINE.apply(state, {"kind": "system", "data": {"type": "close_window", "window": deadline.window}})
    assert ENGINE.outcome(closed).ranking == ((0,), (1,))
    stale = {"kind": "system", "data": {"type": "close_window", "window": "game-1-event-0-accept"}}
    assert codes(state, stale) == "window_closed"
    held = window_after(["JK2"], ["3D"], {"auto_accept_if_no_counter": True})
    assert ENGINE.deadline(held) is None
    assert codes(held, {"kind": "system", "data": {"type": "accept_going_out"}}) == "auto_action_not_due"


def test_auto_end_pass():
    config = {"auto_end_pass": True}
    state = position(config, hands=(["4C"], ["AC"]), top=["KH"], draw_pile=["5D", "6D"])
    state = ENGINE.apply(state, mv(0, "pass_and_draw"))
    deadline = ENGINE.deadline(state)
    assert deadline is not None
    after = ENGINE.apply(state, {"kind": "system", "data": {"type": "end_pass"}})
    assert (after.to_move, after.situation) == (1, "lead")
    playable = ENGINE.apply(replace(state, draw_pile=("AH",), hands=(("4C",), ("AC",)), drawn=()), mv(0, "end_pass"))
    assert playable.situation == "lead"


# ---- draw pile exhaustion (T12, §4.7) -----------------------------------------------------------
DISCARDS = ("4S", "5S", "6S", "7S", "9S", "10S", "JS", "QS", "KS", "AS")


def exhausted(discard=DISCARDS, config=None):
    return position(
        config,
        hands=(["KD"], ["3C", "4C"]),
        top=["2H"],
        to_move=1,
        situation="attack_pending",
        pending=4,
        draw_pile=["9D"],
        discard=discard,
    )


def test_t12_exhaustion_and_reshuffle():
    state = ENGINE.apply(exhausted(), mv(1, "accept_draw"))
    assert ENGINE.chance_due(state) == "reshuffle" and ENGINE.actors(state) == frozenset()
    assert state.hands[1] == ("3C", "4C", "9D") and state.field == ("2H",)
    assert codes(state, mv(1, "end_pass")) == "chance_expected"
    assert codes(state, {"kind": "chance", "data": {"type": "reshuffle", "draw_pile": [*DISCARDS, "2H"]}}) == (
        "bad_reshuffle"
    )
    sampled = ENGINE.sample_chance(state, ChanceStream(b"seed", 9))
    assert sorted(sampled["draw_pile"]) == sorted(DISCARDS)
    pile = list(reversed(DISCARDS))
    state = ENGINE.apply(state, {"kind": "chance", "data": {"type": "reshuffle", "draw_pile": pile}})
    assert state.hands[1] == ("3C", "4C", "9D", *pile[:3])
    assert state.draw_pile == tuple(pile[3:]) and state.discard == () and state.field == ("2H",)
    assert (state.situation, state.reshuffles) == ("post_accept", 1)
    assert ENGINE.view(state, 0)["reshuffles"] == 1


def test_t12_empty_discard_forgives_the_rest():
    state = ENGINE.apply(exhausted(discard=()), mv(1, "accept_draw"))
    assert ENGINE.chance_due(state) is None
    assert state.hands[1] == ("3C", "4C", "9D") and state.situation == "post_accept"


def test_reshuffle_includes_field_variant():
    state = exhausted(config={"reshuffle_includes_field": True})
    state = replace(state, field=("8C", "8D", "2H"))
    state = ENGINE.apply(state, mv(1, "accept_draw"))
    sampled = ENGINE.sample_chance(state, ChanceStream(b"seed", 3))
    assert sorted(sampled["draw_pile"]) == sorted((*DISCARDS, "8C", "8D"))
    state = ENGINE.apply(state, {"kind": "chance", "data": sampled})
    assert state.field == ("2H",)


def test_auto_tie_after_reshuffles():
    state = ENGINE.apply(exhausted(config={"auto_tie_after_reshuffles": 0}), mv(1, "accept_draw"))
    outcome = ENGINE.outcome(state)
    assert outcome.ranking == ((0, 1),) and outcome.detail["reason"] == "reshuffle_limit"


def test_leader_without_cards_draws_the_owed_penalty():
    # A false going-out whose penalty found no card at all; later that player must lead.
    state = position(hands=((), ["AC"]), top=["KH"], to_move=1, situation="post_draw", discard=(), draw_pile=())
    state = ENGINE.apply(state, mv(1, "end_pass"))
    assert (state.to_move, state.situation, ENGINE.chance_due(state)) == (0, "lead", "reshuffle")
    state = ENGINE.apply(state, {"kind": "chance", "data": {"type": "reshuffle", "draw_pile": ["KH"]}})
    assert state.hands[0] == ("KH",) and ENGINE.legal_moves(state, 0)[0]["cards"] == ["KH"]


# ---- setup, opening, match -----------------------------------------------------------------------
def test_deal_validation():
    state = ENGINE.setup({}, 2)
    good = ENGINE.sample_chance(state, ChanceStream(b"k", 1))
    assert len(good["hands"][0]) == 5 and len(good["draw_pile"]) == 43
    assert ENGINE.apply(state, {"kind": "chance", "data": good}).phase in ("play", "upcard_reshuffle")
    short_pile = {**good, "draw_pile": good["draw_pile"][1:]}
    assert codes(state, {"kind": "chance", "data": short_pile}) == "bad_deal"
    assert codes(state, {"kind": "chance", "data": {**good, "first_player": 2}}) == "malformed_event"
    assert codes(state, {"kind": "chance", "data": {"type": "reshuffle", "draw_pile": []}}) == "unexpected_chance"
    fixed = ENGINE.setup({"first_game_first_player": "fixed_seat"}, 2)
    assert codes(fixed, {"kind": "chance", "data": {**good, "first_player": 1}}) == "bad_deal"
    one_joker = ENGINE.setup({"deck_jokers": 1}, 2)
    assert codes(one_joker, {"kind": "chance", "data": good}) == "bad_deal"


def test_first_game_special_upcard_reshuffles_without_a_move():
    dealt = deal(0, ["7S", "9C", "KC", "QC", "4D"], ["8S", "6C", "10D", "QS", "5S"], "2C")
    state = ENGINE.apply(ENGINE.setup({}, 2), dealt)
    assert ENGINE.chance_due(state) == "upcard_reshuffle" and ENGINE.actors(state) == frozenset()
    sampled = ENGINE.sample_chance(state, ChanceStream(b"k", 2))
    assert sorted([sampled["upcard"], *sampled["draw_pile"]]) == sorted([*state.draw_pile, "2C"])


def test_two_upcard_kept_draws_one_each_variant():
    config = {"first_game_special_upcard": "as_is", "initial_two_as_is_draw": 1}
    state = ENGINE.apply(
        ENGINE.setup(config, 2), deal(1, ["7S", "9C", "KC", "QC", "4D"], ["8S", "6C", "10D", "QS", "5S"], "2C")
    )
    assert [len(h) for h in state.hands] == [6, 6] and (state.to_move, state.situation) == (1, "lead")


def test_match_tally_and_tie_keeps_the_chooser():
    config = {"match_games": 3}
    state = ENGINE.setup(config, 2)
    state = apply_all(state, deal(0, ["7S", "9C", "KC", "QC", "4D"], ["8S", "6C", "10D", "QS", "5S"], "6D"))
    state = apply_all(state, mv(0, "propose_tie"), mv(1, "accept_tie"))
    assert (state.phase, state.game, state.chooser) == ("deal", 2, None)  # no loser yet: random first player
    state = apply_all(state, deal(1, ["7S", "9C", "KC", "QC", "4D"], ["8S", "6C", "10D", "QS", "5S"], "6D"))
    state = ENGINE.apply(state, {"kind": "system", "data": {"type": "resign", "seat": 1}})
    outcome = ENGINE.outcome(state)
    assert outcome.ranking == ((0,), (1,)) and outcome.detail["tally"][0]["ties"] == 1
    assert codes(state, mv(0, "propose_tie")) == "game_over"


def test_choices_between_games():
    state = window_after(["10H"], ["3D"], {"match_games": 2}, top=("5H",))
    assert (state.phase, state.game, state.chooser) == ("choose_first", 2, 1)
    assert list(ENGINE.legal_moves(state, 1)) == [
        {"type": "choose_first_player", "player": 0},
        {"type": "choose_first_player", "player": 1},
    ]
    assert codes(state, mv(0, "choose_first_player", player=0)) == "not_your_turn"
    assert codes(state, play(1, "3D")) == "choose_first_player_expected"
    assert codes(state, mv(1, "choose_first_player", player=5)) == "bad_player"
    state = ENGINE.apply(state, mv(1, "choose_first_player", player=0))
    state = ENGINE.apply(state, deal(0, ["7S", "9C", "KC", "QC", "4D"], ["3S", "6C", "10D", "QS", "5S"], "JK1"))
    assert state.phase == "upcard_choice" and ENGINE.actors(state) == frozenset({1})
    assert codes(state, mv(0, "choose_initial_upcard_handling", option="as_is")) == "not_your_turn"
    assert codes(state, play(1, "3S")) == "upcard_choice_expected"
    assert codes(state, mv(1, "choose_initial_upcard_handling", option="keep")) == "bad_option"
    state = ENGINE.apply(state, mv(1, "choose_initial_upcard_handling", option="as_is"))
    assert (state.to_move, state.situation, state.opening) == (0, "opening_joker", "joker1")
    assert ENGINE.view(state, None)["results"] == [{"game": 1, "winner": 0, "reason": "going_out"}]


def test_event_limit_ties_the_game():
    # A passes every time and B leads single cards (never declaring): nobody can go out.
    state = ENGINE.setup({"auto_tie_after_events": 50}, 2)
    state = ENGINE.apply(state, deal(0, ["7S", "9C", "KC", "QC", "4D"], ["8S", "6C", "10D", "QS", "5S"], "6D"))
    count = 1
    while ENGINE.outcome(state) is None:
        answer = {"respond": "pass_and_draw", "attack_pending": "accept_draw"}
        if ENGINE.chance_due(state):
            event = {"kind": "chance", "data": ENGINE.sample_chance(state, ChanceStream(b"k", count + 1))}
        elif state.to_move == 0:
            event = mv(0, answer.get(state.situation, "end_pass"))
        else:
            event = {"kind": "move", "seat": 1, "data": ENGINE.legal_moves(state, 1)[0]}
        state = ENGINE.apply(state, event)
        count += 1
    assert count == 50 and ENGINE.outcome(state).detail["reason"] == "event_limit"


# ---- config -------------------------------------------------------------------------------------
def test_config_flags():
    assert DEFAULTS["auto_tie_after_reshuffles"] is None and DEFAULTS["false_out_penalty"] == 5
    assert ENGINE.validate_config({"auto_tie_after_reshuffles": 3})["auto_tie_after_reshuffles"] == 3
    for bad in (
        {"initial_hand_size": 4},
        {"initial_hand_size": 11},
        {"deck_jokers": 3},
        {"two_max_stack": 32},
        {"cross_type_beats": True},
        {"straight_beat_rule": "longer"},
        {"auto_tie_after_reshuffles": "never"},
        {"match_games": 0},
    ):
        with pytest.raises(ConfigError):
            ENGINE.setup(bad, 2)
    names = {flag["name"] for flag in ENGINE.describe()["flags"]}
    assert {"deck_jokers", "reveal_hands_at_end", "reach_think_time_s", "pair_of_twos_final_cancellable"} <= names


# ---- hidden information and serialisation -------------------------------------------------------
def test_views_hide_the_other_hand_and_the_pile():
    events = [deal(0, ["7S", "9C", "KC", "QC", "4D"], ["8S", "6C", "10D", "QS", "5S"], "6D", prefix=["AH"])]
    state = apply_all(ENGINE.setup({}, 2), *events)
    seat0 = canonical(ENGINE.view(state, 0))
    assert '"7S"' in seat0 and not any(f'"{c}"' in seat0 for c in ("8S", "6C", "10D", "QS", "5S", "AH"))
    dealt = ENGINE.event_view(state, events[0], 1)["data"]
    assert dealt["hands"][0] is None and dealt["draw_pile"] is None and dealt["draw_pile_size"] == 43
    spectator = ENGINE.event_view(state, events[0], None)["data"]
    assert spectator["hands"] == [None, None] and spectator["upcard"] == "6D"
    events.append(mv(0, "pass_and_draw"))
    state = ENGINE.apply(state, events[-1])
    assert ENGINE.view(state, 0)["players"][0]["just_drawn"] == ["AH"]
    assert "AH" in ENGINE.hidden_from(state, 1) and "AH" in ENGINE.hidden_from(state, None)
    assert '"AH"' not in canonical(ENGINE.view(state, 1)) + canonical(ENGINE.view(state, None))
    check_no_leaks(ENGINE, state, events, 2)


def test_reveal_hands_at_end():
    config = {"reveal_hands_at_end": True}
    state = apply_all(
        ENGINE.setup(config, 2), deal(0, ["7S", "9C", "KC", "QC", "4D"], ["8S", "6C", "10D", "QS", "5S"], "6D")
    )
    state = apply_all(state, mv(0, "propose_tie"), mv(1, "accept_tie"))
    assert ENGINE.view(state, None)["players"][1]["hand"] == ["5S", "6C", "8S", "10D", "QS"]
    assert not (ENGINE.hidden_from(state, 0) & {"8S", "6C"})


def test_dump_and_load_round_trip_mid_game():
    events, states = random_playthrough(NO_TIES, 2, 7, {"match_games": 2, "reveal_hands_at_end": True}, checks=False)
    for state in states[:: max(1, len(states) // 25)]:
        assert ENGINE.load_state(json.loads(canonical(ENGINE.dump_state(state)))) == state
