"""1234: the generic harness on several configs, plus the tricky rules, error codes and hidden cards."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace
from itertools import combinations

import pytest

from games.engines import cards
from games.engines.base import ConfigError, RuleError
from games.engines.chance import ChanceStream
from games.engines.one_two_three_four import DECK, ENGINE, has_play, pass_pattern, pass_sizes

from .harness import canonical, check_engine, check_no_leaks, random_playthrough


# ---- helpers -------------------------------------------------------------------------------
def deal_event(hands, start="10H", dealer=0, stock_top=()):
    used = [c for hand in hands for c in hand] + [start, *stock_top]
    stock = list(stock_top) + [c for c in DECK if c not in used]
    data = {"type": "deal", "dealer": dealer, "hands": hands, "start_card": start, "stock": stock}
    return {"kind": "chance", "data": data}


def dealt(hands, start="10H", dealer=0, config=None, stock_top=()):
    state = ENGINE.setup(config, len(hands))
    return ENGINE.apply(state, deal_event(hands, start, dealer, stock_top))


def move(seat, kind, *cards):
    data = {"type": kind}
    if kind != "drop_out":
        data["cards"] = list(cards)
    return {"kind": "move", "seat": seat, "data": data}


def system(kind, **fields):
    return {"kind": "system", "data": {"type": kind, **fields}}


def code_of(state, event) -> str:
    with pytest.raises(RuleError) as error:
        ENGINE.apply(state, event)
    assert error.value.message
    return error.value.code


# Seat 1 moves first (2 players, dealer 0); T = 10.
BASIC = [["JH", "9H", "8H", "2C", "KC"], ["3S", "4S", "5S", "9D", "KD"]]


# ---- the generic harness ------------------------------------------------------------------------
# The default config's harness run (every seat count, 30 seeds) is tests/engines/test_harness.py's.


@pytest.mark.parametrize(
    "config",
    [
        {"auto_drop_out": False},
        {"scoring_mode": "chips", "match_games": 4},
        {"scoring_mode": "winner_plus", "target_score": 80, "shared_win_rounding": "exact"},
        {"scoring_mode": "loser_minus", "penalty_limit": 50, "reveal_dropped_hands": False},
        {"scoring_mode": "chips", "chips_partial_payment": False, "starting_chips": 20},
        {"hand_limit": 3, "refill_count": 2, "p5_allow_quads": False, "tiebreak_missing_card": "ignored"},
    ],
    ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()),
)
def test_harness_other_configs(config):
    # Matches are several games long, so fewer seeds keep this quick.
    check_engine(ENGINE, seeds=6, config=config)


def test_config_validation():
    with pytest.raises(ConfigError):
        ENGINE.setup({"scoring_mode": "poker"}, 2)
    with pytest.raises(ConfigError):
        ENGINE.setup({"match_games": 0}, 2)
    with pytest.raises(ConfigError):
        ENGINE.setup({"hand_limit": 11}, 2)
    state = ENGINE.setup({"hand_limit": 10}, 5)
    state = ENGINE.apply(state, {"kind": "chance", "data": ENGINE.sample_chance(state, ChanceStream(b"x", 1))})
    assert len(state.stock) == 1  # the largest deal still leaves a stock
    with pytest.raises(ConfigError):
        ENGINE.setup({}, 6)


# ---- pass patterns (section 3, T3, A5, A6) -----------------------------------------------------
@pytest.mark.parametrize(
    ("cards", "pattern"),
    [
        (["AD"], "P1"),
        (["2D"], None),
        (["AS", "AD"], None),  # A6: two aces are not a pattern
        (["7S", "7D", "KH"], "P2"),
        (["AS", "AC", "JD"], "P2"),
        (["JS", "JD", "QH"], None),  # the pair must be number cards
        (["7S", "7D", "8H"], None),  # T3(f)
        (["2H", "9H", "QH"], "P3"),
        (["QC", "QD", "QS"], "P4"),
        (["4S", "4H", "4C"], "P4"),
        (["3S", "3H", "5C", "5D"], "P5"),
        (["JS", "JH", "3C", "3D"], None),  # T3(e)
        (["4S", "4H", "4D", "4C"], "P5"),  # A5
        (["2S", "2H", "2D", "5C"], None),
        (["2S", "3H", "4D", "5C", "6C"], None),
    ],
)
def test_pass_patterns(cards, pattern):
    assert pass_pattern(cards) == pattern


def test_quads_can_be_switched_off():
    assert pass_pattern(["4S", "4H", "4D", "4C"], allow_quads=False) is None
    assert pass_pattern(["4S", "4H", "6D", "6C"], allow_quads=False) == "P5"


# ---- legal moves -----------------------------------------------------------------------------
def reference_pattern(hand, allow_quads):
    """The pass patterns as the rules state them, card by card (the engine reads them from tables)."""
    ranks = [cards.rank_of(c) for c in hand]
    values = [cards.value(c) for c in hand]
    if len(hand) == 1:
        return "P1" if ranks[0] == "A" else None
    if len(hand) == 3:
        if len(set(ranks)) == 1:
            return "P4"
        if len({cards.suit_of(c) for c in hand}) == 1:
            return "P3"
        numbers = [v for v in values if v <= 10]
        if len(numbers) == 2 and numbers[0] == numbers[1]:
            return "P2"
    if len(hand) == 4 and max(values) <= 10:
        counts = sorted(Counter(ranks).values())
        if counts == [2, 2] or (counts == [4] and allow_quads):
            return "P5"
    return None


def test_move_generator_agrees_with_trying_every_combination():
    """The shortcuts (pass sizes from rank and suit counts, reachable totals as bits, patterns from
    tables) against trying every combination, on random hands of 1 to 10 cards, pair-heavy ones too."""
    chooser = random.Random(1234)
    low_cards = [c for c in DECK if cards.value(c) <= 4] + [c for c in DECK if cards.value(c) >= 11]
    for trial in range(600):
        pool = low_cards if trial % 3 == 0 else DECK
        hand = tuple(chooser.sample(pool, chooser.randint(1, 10)))
        quads = trial % 2 == 0
        target = chooser.randint(1, 40)
        for size in (1, 2, 3, 4, 5):
            for combo in combinations(hand, size):
                assert pass_pattern(combo, quads) == reference_pattern(combo, quads), combo
        found = {size for size in (1, 3, 4) for c in combinations(hand, size) if reference_pattern(c, quads)}
        assert set(pass_sizes(hand, quads)) == found, hand
        totals = {
            sum(cards.value(c) for c in combo) for n in range(1, len(hand) + 1) for combo in combinations(hand, n)
        }
        assert has_play(hand, target) == any(target + 1 <= t <= target + 4 for t in totals), (hand, target)


def test_legal_moves_from_a_fixed_position():
    state = dealt(BASIC)
    moves = ENGINE.legal_moves(state, 1)
    assert moves == [
        {"type": "play", "cards": ["KD"]},
        {"type": "play", "cards": ["3S", "9D"]},
        {"type": "play", "cards": ["4S", "9D"]},
        {"type": "play", "cards": ["5S", "9D"]},
        {"type": "play", "cards": ["3S", "4S", "5S"]},
        {"type": "pass_combo", "cards": ["3S", "4S", "5S"]},
    ]
    assert list(ENGINE.legal_moves(state, 0)) == []
    assert ENGINE.actors(state) == frozenset({1})


def test_card_order_in_a_move_does_not_matter():
    state = dealt(BASIC)
    a = ENGINE.apply(state, move(1, "play", "9D", "3S"))
    b = ENGINE.apply(state, move(1, "play", "3S", "9D"))
    assert a == b and a.target == 12


def test_a3_move_type_decides():
    state = dealt(BASIC)
    assert ENGINE.apply(state, move(1, "play", "3S", "4S", "5S")).target == 12
    assert ENGINE.apply(state, move(1, "pass_combo", "3S", "4S", "5S")).target == 10


# ---- error codes -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("event", "code"),
    [
        (move(1, "play", "KS"), "card_not_in_hand"),
        (move(1, "play", "1S"), "not_a_card"),
        (move(1, "play", "JK1"), "not_a_card"),
        (move(1, "play", "KD", "KD"), "duplicate_card"),
        (move(1, "play"), "no_cards"),
        ({"kind": "move", "seat": 1, "data": {"type": "play", "cards": "KD"}}, "malformed_event"),
        ({"kind": "move", "seat": 1, "data": {"type": "pass"}}, "unknown_action"),
        (move(0, "play", "JH"), "not_your_turn"),
        (move(1, "play", "3S", "4S"), "play_sum_too_low"),
        (move(1, "play", "9D", "KD"), "play_sum_too_high"),
        (move(1, "pass_combo", "3S", "9D", "KD"), "not_a_pass_pattern"),
        (move(1, "drop_out"), "drop_out_not_allowed"),
        (system("close_window", window="turn-1"), "window_closed"),
        (system("drop_out", seat=1), "no_automatic_drop_out"),
        (system("timeout"), "malformed_event"),
        (deal_event(BASIC), "unexpected_chance"),
    ],
)
def test_error_codes(event, code):
    assert code_of(dealt(BASIC), event) == code


def test_moves_before_the_deal_and_after_the_end():
    state = ENGINE.setup({}, 2)
    assert code_of(state, move(1, "play", "KD")) == "chance_expected"
    over = ENGINE.apply(dealt(BASIC), system("resign", seat=0))
    assert code_of(over, move(1, "play", "KD")) == "game_over"
    assert code_of(over, system("resign", seat=1)) == "game_over"


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (lambda d: d["hands"][0].pop(), "bad_deal"),
        (lambda d: d["stock"].__setitem__(0, "JH"), "bad_deal"),
        (lambda d: d["stock"].pop(), "bad_deal"),
        (lambda d: d["stock"].__setitem__(0, "JK1"), "bad_deal"),
        (lambda d: d.__setitem__("dealer", 2), "malformed_event"),
        (lambda d: d.__setitem__("hands", d["hands"][:1]), "malformed_event"),
        (lambda d: d.pop("start_card"), "malformed_event"),
    ],
)
def test_a_typed_in_deal_is_checked(change, code):
    event = deal_event([list(h) for h in BASIC])
    change(event["data"])
    assert code_of(ENGINE.setup({}, 2), event) == code


# ---- refill and the end of the stock (section 4, T6, A7) ----------------------------------
def test_refill_never_exceeds_the_hand_limit():
    state = dealt([["JH", "9H", "8H", "2C", "KC"], ["3S", "3H", "5C", "5D", "KS"]])
    after = ENGINE.apply(state, move(1, "pass_combo", "3S", "3H", "5C", "5D"))
    assert len(after.hands[1]) == 4 and len(after.stock) == len(state.stock) - 3


def test_short_stock_is_drawn_and_ends_the_game():
    state = dealt(BASIC)
    state = replace(state, stock=state.stock[:2])  # 3 are needed, 2 are left (A7)
    after = ENGINE.apply(state, move(1, "play", "3S", "4S", "5S"))
    assert after.stock == () and len(after.hands[1]) == 4
    outcome = ENGINE.outcome(after)
    assert outcome.detail["reason"] == "stock_empty"
    # 0: K J 9 8 2 against 1: K 9 + two drawn cards lower than a jack
    assert outcome.ranking[0] == (0,)


def test_tiebreaks_a8():
    state = dealt([["KS", "9H", "5C", "2D", "AC"], ["KD", "9C", "4S", "3H", "QD"]], start="2H")
    compare = ENGINE._best_hands
    state = replace(state, hands=(("AC", "2D", "5C", "9H", "KS"), ("3H", "4S", "9C", "KD")))
    assert compare(state, [0, 1]) == (0,)  # T7: K = K, 9 = 9, 5 > 4
    state = replace(state, hands=(("AC", "2D", "5C", "9H", "KS"), ("AD", "2C", "5D", "9C", "KD")))
    assert compare(state, [0, 1]) == (0, 1)  # suits never count: a shared win
    state = replace(state, hands=(("2D", "5C", "9H", "KS"), ("2C", "5D", "9C", "KD", "AS")))
    assert compare(state, [0, 1]) == (1,)  # seat 0 has no fifth card: it loses
    ignored = replace(state, config={**state.config, "tiebreak_missing_card": "ignored"})
    assert compare(ignored, [0, 1]) == (0, 1)


# ---- drop-outs and turn order (A4, T5, T8, T9) --------------------------------------------
NO_MOVE_AT_13 = ["KH", "QH", "JS", "10D", "9D"]


def test_auto_drop_out_can_chain_and_skips_the_seat():
    hands = [["2H", "3H", "4H", "5C", "6C"], ["7C", "8C", "2S", "3S", "4D"], NO_MOVE_AT_13]
    state = dealt(hands, start="KC")  # dealer 0: seat 2 first, and it cannot move
    assert state.out == (2,) and state.to_move == 1 and state.unconfirmed == (2,)
    confirmed = ENGINE.apply(state, system("drop_out", seat=2))
    assert confirmed.unconfirmed == () and confirmed.out == (2,)
    assert code_of(confirmed, system("drop_out", seat=2)) == "no_automatic_drop_out"
    after = ENGINE.apply(state, move(1, "play", "7C", "8C"))  # T 15: seat 0 next, then seat 1 again
    assert after.to_move == 0 and after.unconfirmed == ()


def test_manual_drop_out_is_the_only_move_without_auto():
    state = dealt([["2H", "3H", "4H", "5C", "6C"], NO_MOVE_AT_13], start="KC", config={"auto_drop_out": False})
    assert list(ENGINE.legal_moves(state, 1)) == [{"type": "drop_out"}]
    over = ENGINE.apply(state, move(1, "drop_out"))
    assert ENGINE.outcome(over).ranking == ((0,), (1,))
    assert len(over.stock) == 41


# ---- resign ----------------------------------------------------------------------------------
def test_resign_of_a_waiting_seat_drops_it_and_the_game_goes_on():
    hands = [["JH", "9H", "8H", "2C", "KC"], ["3S", "4S", "5S", "9D", "KD"], ["QS", "QD", "7C", "6C", "AS"]]
    state = dealt(hands)  # seat 2 to move
    state = ENGINE.apply(state, system("resign", seat=0))
    assert state.out == (0,) and state.face_down[0] and state.to_move == 2 and ENGINE.outcome(state) is None
    assert code_of(state, system("resign", seat=0)) == "already_resigned"
    state = ENGINE.apply(state, system("resign", seat=2))
    outcome = ENGINE.outcome(state)
    assert outcome.ranking == ((1,), (0, 2)) and outcome.detail["resigned"] == [0, 2]


def test_resign_ranks_last_among_losers_and_ends_a_match():
    hands = [["JH", "9H", "8H", "2C", "KC"], ["3S", "4S", "5S", "9D", "KD"], ["QS", "QD", "7C", "6C", "AS"]]
    state = dealt(hands, config={"scoring_mode": "chips"})
    state = ENGINE.apply(state, system("resign", seat=2))  # the active seat: the turn passes on
    assert state.to_move == 1
    state = ENGINE.apply(state, system("resign", seat=1))
    outcome = ENGINE.outcome(state)
    assert outcome is not None, "a resign ends the match once the current game is over"
    assert outcome.ranking[0] == (0,) and set(outcome.ranking[-1]) == {1, 2}


def test_resign_before_the_deal():
    state = ENGINE.apply(ENGINE.setup({}, 3), system("resign", seat=1))
    assert ENGINE.outcome(state).ranking == ((0, 2), (1,))


# ---- match play (section 5, T10, A12) ------------------------------------------------------
def test_shared_win_split_and_next_dealer():
    hands = [["KS", "9H", "5C", "2D", "AC"], ["KD", "9C", "5D", "2C", "AD"], ["3S", "4S", "5S", "9D", "AH"]]
    for rounding, share in (("down", 7), ("exact", 7.5)):
        config = {"scoring_mode": "winner_plus", "shared_win_rounding": rounding}
        state = dealt(hands, dealer=2, config=config)
        # Seat 2 plays 5S 9D (14) and draws the last card: A 3 4 7 = 15 against two identical K 9 5 2 A.
        state = replace(state, stock=("7H",), to_move=2)
        after = ENGINE.apply(state, move(2, "play", "5S", "9D"))
        result = after.results[-1]
        assert result.winners == (0, 1) and result.hand_sums[2] == 15
        assert after.totals == (share, share, 0)
        assert ENGINE.view(after, None)["next_dealer"] == 1  # the winner nearest to dealer 2's right
        assert ENGINE.outcome(after) is None


def test_chips_without_partial_payment_can_go_below_zero():
    config = {"scoring_mode": "chips", "starting_chips": 10, "chips_partial_payment": False}
    state = dealt([["2H", "3H", "4H", "5C", "6C"], NO_MOVE_AT_13], start="KC", config=config)
    assert state.totals == (65, -45)
    outcome = ENGINE.outcome(state)
    assert outcome.ranking == ((0,), (1,)) and outcome.scores == {0: 65, 1: -45}


def test_loser_minus_penalty_limit_ends_the_match():
    config = {"scoring_mode": "loser_minus", "penalty_limit": 40}
    state = dealt([["2H", "3H", "4H", "5C", "6C"], NO_MOVE_AT_13], start="KC", config=config)
    outcome = ENGINE.outcome(state)
    assert outcome.ranking == ((0,), (1,)) and outcome.scores == {0: 0, 1: 55}


def test_a_match_deals_again_until_match_games():
    config = {"scoring_mode": "winner_plus", "match_games": 2}
    state = dealt([["2H", "3H", "4H", "5C", "6C"], NO_MOVE_AT_13], start="KC", config=config)
    assert ENGINE.chance_due(state) == "deal" and ENGINE.outcome(state) is None
    data = ENGINE.sample_chance(state, ChanceStream(b"seed", 2))
    assert data["dealer"] == 0
    wrong = {"kind": "chance", "data": {**data, "dealer": 1}}
    assert code_of(state, wrong) == "wrong_dealer"
    state = ENGINE.apply(state, {"kind": "chance", "data": data})
    assert state.game == 2 and state.dealer == 0


# ---- hidden information --------------------------------------------------------------------
def test_views_hide_other_hands_and_the_stock():
    state = dealt(BASIC)
    for seat in (0, 1, None):
        text = canonical(ENGINE.view(state, seat))
        for owner in (0, 1):
            for card in state.hands[owner]:
                assert (f'"{card}"' in text) == (owner == seat)
        assert not any(f'"{card}"' in text for card in state.stock)
    event = ENGINE.event_view(state, deal_event(BASIC), 0)
    assert event["data"]["hands"][0] == BASIC[0]
    assert event["data"]["hands"][1] == [None] * 5
    assert set(event["data"]["stock"]) == {None} and len(event["data"]["stock"]) == 41


def test_dropped_hands_stay_face_down_unless_scored():
    hands = [["2H", "3H", "4H", "5C", "6C"], NO_MOVE_AT_13]
    single = dealt(hands, start="KC")
    assert set(NO_MOVE_AT_13) <= ENGINE.hidden_from(single, 0)
    assert ENGINE.view(single, 0)["players"][1]["face_down"] is None
    assert ENGINE.view(single, 1)["players"][1]["face_down"] == cards.sort_by_value(NO_MOVE_AT_13)
    assert set(hands[0]) <= ENGINE.hidden_from(single, 1), "the last player's hand is never compared"
    scored = dealt(hands, start="KC", config={"scoring_mode": "chips", "match_games": 1})
    assert not set(NO_MOVE_AT_13) & ENGINE.hidden_from(scored, 0)
    assert ENGINE.view(scored, 0)["players"][1]["face_down"] is not None


def test_stock_end_reveals_compared_hands():
    state = dealt(BASIC)
    state = replace(state, stock=state.stock[:2])
    after = ENGINE.apply(state, move(1, "play", "3S", "4S", "5S"))
    hidden = ENGINE.hidden_from(after, None)
    assert not hidden & (set(after.hands[0]) | set(after.hands[1]))
    assert ENGINE.view(after, None)["players"][0]["hand"] == list(after.hands[0])


def test_no_leaks_across_the_games_of_a_match():
    # Card ids come back in the next deal; views of earlier events must not show them.
    config = {"scoring_mode": "chips", "match_games": 5}
    for seed in range(4):
        events, states = random_playthrough(ENGINE, 3, seed, config, checks=False)
        assert max(s.game for s in states) >= 1
        for index in range(0, len(states), 5):
            check_no_leaks(ENGINE, states[index], events[:index], 3)


def test_dump_and_load_round_trip():
    events, states = random_playthrough(ENGINE, 4, 3, {"scoring_mode": "loser_minus"}, checks=False)
    for state in states:
        assert ENGINE.load_state(json.loads(canonical(ENGINE.dump_state(state)))) == state
