"""Twenty-Two (and Gambling Cucumber): harness runs, rule details, error codes, hidden information.

The spec's worked examples and test scenarios are record files in ``records/twenty-two``; this
module covers what records cannot say (legal-move counts, views per seat, windows, resignations).

A default game of 22 is long (many deals) and its exchange offers 2^hand-size choices (up to 2048,
and with two packs every one is a distinct move), so the harness's list of moves seen so far grows
to tens of thousands and 7-8 seat games take minutes under ``check_engine``. Here the harness runs
on a short config (3-card deals, out at 6) over every seat count; the default config at every seat
count is the generic harness's (``tests/engines/test_harness.py``).
"""

import json
from itertools import combinations

import pytest

from games.engines.base import ConfigError, Deadline, RuleError
from games.engines.chance import ChanceStream
from games.engines.twenty_two import ENGINE, PACKS, LedgerEntry, penalty_value, rank_of

from .harness import (
    canonical,
    check_engine,
    check_no_leaks,
    check_outcome,
    check_replay_equals_live,
    random_playthrough,
)

SHORT = {"elimination_threshold": 6, "deal_size_rule": "fixed_7", "first_deal_size": 3}
GAMBLE = {"variant": "gambling_cucumber", "first_deal_size": 3, "elimination_threshold": 12}


# ---- helpers ----------------------------------------------------------------------------------
def chance(data):
    return {"kind": "chance", "data": data}


def move(seat, kind, cards=None):
    data = {"type": kind} if cards is None else {"type": kind, "cards": cards}
    return {"kind": "move", "seat": seat, "data": data}


def draw(dealer, seats):
    """A one-round dealer draw that ``dealer`` wins with an ace."""
    lows = iter(["2C", "3C", "4C", "5C", "6C", "7C", "8C"])
    return chance(
        {"type": "dealer_draw", "rounds": [[{"seat": s, "card": "AC" if s == dealer else next(lows)} for s in seats]]}
    )


def deal(state, hands):
    used = {c for h in hands.values() for c in h}
    stock = [c for c in ENGINE._available(state) if c not in used]
    size = len(next(iter(hands.values())))
    return chance(
        {
            "type": "deal",
            "dealer": state.dealer,
            "hand_size": size,
            "hands": [hands.get(s) for s in range(state.seats)],
            "stock": stock,
        }
    )


def resign(seat):
    return {"kind": "system", "data": {"type": "resign", "seat": seat}}


def play(state, *events):
    for event in events:
        state = ENGINE.apply(state, event)
    return state


def three_player_deal(config=None):
    """Seat 2 deals 7 each; seat 0 leads; seat 2 holds the Example 1 hand."""
    state = ENGINE.setup(config, 3)
    state = play(state, draw(2, (0, 1, 2)))
    hands = {
        0: ["10S", "3D", "4D", "5D", "6D", "7D", "9D"],
        1: ["KS", "3H", "4H", "5S", "6H", "7H", "9H"],
        2: ["QS", "JH", "8S", "8D", "6C", "5H", "2C"],
    }
    return play(state, deal(state, hands))


def error_code(state, event):
    with pytest.raises(RuleError) as error:
        ENGINE.apply(state, event)
    assert error.value.message
    return error.value.code


def play_out_deal(state):
    """Nobody exchanges; everyone leads and follows with their lowest cards."""
    while state.phase in ("exchange", "play"):
        seat = min(ENGINE.actors(state))
        state = ENGINE.apply(state, {"kind": "move", "seat": seat, "data": ENGINE.legal_moves(state, seat)[0]})
    return state


def finish_randomly(state, seed=0, events=None):
    """Play on with the first legal move / sampled chance; returns the final state."""
    events = [] if events is None else events
    while ENGINE.outcome(state) is None:
        if ENGINE.chance_due(state):
            event = chance(ENGINE.sample_chance(state, ChanceStream(seed.to_bytes(8, "big"), len(events) + 1)))
        else:
            seat = min(ENGINE.actors(state))
            event = {"kind": "move", "seat": seat, "data": ENGINE.legal_moves(state, seat)[0]}
        state = ENGINE.apply(state, event)
        events.append(event)
    return state


# ---- the generic harness ----------------------------------------------------------------------
# The default config (seeds 0 and 1 at 2-8 seats, each checked step by step, replayed and played
# twice) is tests/engines/test_harness.py's twenty-two case.
def test_harness_short_games_every_seat_count():
    check_engine(ENGINE, seeds=3, config=SHORT)


@pytest.mark.parametrize("seats", range(3, 8))
def test_harness_gambling(seats):
    for seed in range(2):
        events, states = random_playthrough(ENGINE, seats, seed, GAMBLE)
        check_outcome(ENGINE, states[-1], seats)
        check_replay_equals_live(ENGINE, seats, seed, GAMBLE)


@pytest.mark.parametrize(
    "config",
    [
        {**SHORT, "num_packs": 2, "reveal_exchange_discards_at_deal_end": True},
        {**SHORT, "set_follow_rule": "all_at_least_highest", "trick_winner_rule": "highest_single_card"},
        {**SHORT, "dealer_selection": "random", "exchange_enabled": False, "no_survivor_rule": "lowest_total"},
        {**SHORT, "max_lead_set": 1, "card_values": "cucumber"},
        {"variant": "gambling_22", "first_deal_size": 4, "buyback_card_disposition": "keep_out", "stake": 3},
    ],
)
def test_harness_variants(config):
    for seats in (2, 3, 5) if "variant" not in config else (3, 5):
        events, states = random_playthrough(ENGINE, seats, 1, config)
        check_outcome(ENGINE, states[-1], seats)


def test_long_games_stay_under_max_events():
    config = {"elimination_threshold": 100, "card_values": "cucumber"}
    events, _ = random_playthrough(ENGINE, 8, 0, config, checks=False)
    assert len(events) < ENGINE.max_events


# ---- config -----------------------------------------------------------------------------------
def test_presets_fill_in_and_explicit_flags_win():
    full = ENGINE.validate_config({"variant": "gambling_cucumber"})
    assert full["stakes_enabled"] and full["card_values"] == "cucumber"
    assert full["elimination_threshold"] == 30 and full["deal_size_rule"] == "fixed_7"
    assert (
        ENGINE.validate_config({"variant": "gambling_cucumber", "elimination_threshold": 28})["elimination_threshold"]
        == 28
    )
    assert ENGINE.validate_config({"variant": "gambling_22"})["elimination_threshold"] == 22
    assert ENGINE.validate_config(full) == full  # a full config re-validates to itself
    delta = ENGINE.config_delta({"variant": "gambling_cucumber", "stake": 10})
    assert ENGINE.setup(delta, 5) == ENGINE.setup({"variant": "gambling_cucumber", "stake": 10}, 5)


def test_bad_configs():
    for bad in ({"variant": "poker"}, {"num_packs": 3}, {"stake": 0}, {"elimination_threshold": 1}):
        with pytest.raises(ConfigError):
            ENGINE.setup(bad, 3)
    with pytest.raises(ConfigError) as error:
        ENGINE.setup({"variant": "gambling_cucumber"}, 2)
    assert error.value.code == "bad_seat_count"
    with pytest.raises(ConfigError):
        ENGINE.setup({"stakes_enabled": True, "allow_negative_balance": False, "stake": 5, "starting_chips": 4}, 3)
    with pytest.raises(ConfigError):
        ENGINE.setup({"variant": "gambling_cucumber", "end_when_active_at_most": 3}, 3)


def test_random_dealer_pick():
    state = ENGINE.setup({"dealer_selection": "random"}, 3)
    assert ENGINE.chance_due(state) == "dealer_pick"
    assert error_code(state, chance({"type": "dealer_pick", "dealer": 5})) == "bad_dealer_pick"
    assert error_code(state, chance({"type": "dealer_draw", "rounds": []})) == "malformed_event"
    assert ENGINE.apply(state, chance({"type": "dealer_pick", "dealer": 1})).dealer == 1


def test_gambling_antes_at_setup():
    state = ENGINE.setup({"variant": "gambling_cucumber", "stake": 10, "starting_chips": 100}, 6)
    assert state.pot == 60 and state.balances == (90,) * 6
    assert [(e.kind, e.seat, e.amount) for e in state.ledger] == [("ante", s, 10) for s in range(6)]


# ---- cards ------------------------------------------------------------------------------------
def test_two_pack_ids_are_unique_and_suffixed():
    assert len(PACKS[1]) == len(set(PACKS[1])) == 52 and "10H" in PACKS[1]
    assert len(PACKS[2]) == len(set(PACKS[2])) == 104
    assert {"AS#1", "AS#2", "10H#2"} <= set(PACKS[2]) and "AS" not in PACKS[2]
    assert rank_of("AS#2") == rank_of("AS") == 14 and rank_of("10H#1") == 10
    assert ENGINE.setup({}, 7).packs == 2 and ENGINE.setup({}, 6).packs == 1
    assert ENGINE.setup({"num_packs": 1}, 7).packs == 1  # Cucumber-style: 7 x 7 = 49 fits one pack


def test_penalty_values():
    assert [penalty_value(r, "twenty_two") for r in (14, 13, 12, 11, 10, 2)] == [11, 10, 10, 10, 10, 2]
    assert [penalty_value(r, "cucumber") for r in (14, 13, 12, 11, 10, 2)] == [14, 13, 12, 11, 10, 2]


def test_seven_players_first_deal_from_two_packs():
    state = ENGINE.setup({}, 7)
    data = ENGINE.sample_chance(state, ChanceStream(b"seed", 1))
    state = ENGINE.apply(state, chance(data))
    data = ENGINE.sample_chance(state, ChanceStream(b"seed", 2))
    assert data["hand_size"] == 7 and len(data["stock"]) == 104 - 49
    assert all(c.endswith(("#1", "#2")) for c in data["stock"])


# ---- legal moves (perft-style counts) ---------------------------------------------------------
def test_exchange_choices_are_every_subset_up_to_the_stock():
    state = three_player_deal()
    moves = ENGINE.legal_moves(state, 0)
    assert len(moves) == 2**7 and moves[0] == {"type": "exchange", "cards": []}
    assert moves[-1] == {"type": "exchange", "cards": list(state.hands[0])}
    assert list(ENGINE.legal_moves(state, 1)) == [] and list(ENGINE.legal_moves(state, 2)) == []


def test_exchange_limited_by_a_short_stock():
    state = ENGINE.setup({"num_packs": 1}, 7)  # 52 - 49 = 3 in the stock
    state = play(state, draw(6, range(7)))
    state = play(state, chance(ENGINE.sample_chance(state, ChanceStream(b"x", 2))))
    assert len(state.stock) == 3
    assert len(ENGINE.legal_moves(state, 0)) == 1 + 7 + 21 + 35  # at most 3 of 7 cards


def test_lead_choices_sets_of_one_rank():
    state = ENGINE.setup({"first_deal_size": 4}, 2)
    state = play(state, draw(1, (0, 1)))
    state = play(state, deal(state, {0: ["8S", "8H", "8D", "2C"], 1: ["3C", "4C", "5C", "6C"]}))
    state = play(state, move(0, "exchange", []), move(1, "exchange", []))
    leads = [m["cards"] for m in ENGINE.legal_moves(state, 0)]
    assert len(leads) == 4 + 3 + 1  # four singles, three pairs of 8s, the three 8s
    assert ["8D", "8H", "8S"] in leads and ["2C", "8S"] not in leads


def test_example_3_follow_choices():
    state = ENGINE.setup({}, 4)
    state = play(state, draw(3, range(4)))
    hands = {
        0: ["6S", "6H", "6D", "4C", "5C", "7C", "8C"],
        1: ["10S", "9S", "7S", "4D", "5D", "7D", "8D"],
        2: ["KS", "9H", "8S", "4S", "5S", "7H", "8H"],
        3: ["KH", "KD", "6C", "3S", "3H", "2S", "2H"],
    }
    state = play(state, deal(state, hands), *(move(s, "exchange", []) for s in range(4)))
    state = play(state, move(0, "lead", ["6S", "6H", "6D"]), move(1, "follow", ["10S", "9S", "7S"]))
    follows = [m["cards"] for m in ENGINE.legal_moves(state, 2)]
    assert ["8S", "9H", "KS"] in follows  # K 9 8 beats 10 9 7 pairwise
    assert ["4S", "5S", "7H"] in follows  # the three lowest
    state = play(state, move(2, "follow", ["KS", "9H", "8S"]))
    follows = [m["cards"] for m in ENGINE.legal_moves(state, 3)]
    assert follows == [["2H", "2S", "3H"], ["2H", "2S", "3S"]]  # no beat; any 2 2 3


def test_all_at_least_highest_alternative():
    state = three_player_deal({"set_follow_rule": "all_at_least_highest"})
    state = play(state, *(move(s, "exchange", []) for s in range(3)))
    state = play(state, move(0, "lead", ["10S"]), move(1, "follow", ["KS"]))
    assert [m["cards"] for m in ENGINE.legal_moves(state, 2)] == [["2C"]]


def _reference_moves(state, seat):
    """Legal moves by the plain rules, enumerated the slow way (what legal_moves computes at once)."""
    if seat not in ENGINE.actors(state):
        return []
    hand = state.hands[seat]
    if state.phase == "exchange":
        most = min(len(hand), len(state.stock))
        return [{"type": "exchange", "cards": list(c)} for k in range(most + 1) for c in combinations(hand, k)]
    if state.phase == "buy_back":
        return ([{"type": "buy_back"}] if ENGINE._can_afford(state, seat) else []) + [{"type": "decline_buy_back"}]
    if not state.trick:
        largest = min(ENGINE._max_lead(state), len(hand) - 1)
        moves = []
        for rank in sorted({rank_of(c) for c in hand}):
            same = [c for c in hand if rank_of(c) == rank]
            for k in range(1, min(len(same), largest) + 1):
                moves.extend({"type": "lead", "cards": list(c)} for c in combinations(same, k))
        return moves
    size, moves = len(state.trick[0].cards), []
    lowest = sorted(rank_of(c) for c in hand)[:size]
    for cards in combinations(hand, size):
        ranks = sorted((rank_of(c) for c in cards), reverse=True)
        if state.config["set_follow_rule"] == "pairwise":
            bar = sorted((rank_of(c) for c in state.bar), reverse=True)
            beat = all(f >= b for f, b in zip(ranks, bar, strict=True))
        else:
            beat = ranks[-1] >= max(rank_of(c) for play in state.trick for c in play.cards)
        if beat or ranks[::-1] == lowest:
            moves.append({"type": "follow", "cards": list(cards)})
    return moves


@pytest.mark.parametrize(
    "config",
    [
        None,
        {**SHORT, "num_packs": 2, "first_deal_size": 6},
        {"set_follow_rule": "all_at_least_highest", "trick_winner_rule": "highest_single_card"},
        {"max_lead_set": 2, "card_values": "cucumber", "elimination_threshold": 40},
        GAMBLE,
    ],
)
def test_legal_moves_equal_the_plain_enumeration(config):
    """legal_moves (subsets built once per hand, ranks looked up once per position) lists the same
    moves in the same order as the rules enumerated naively; every follow it leaves out is refused."""
    positions = 0
    for seats in (3, 5, 8) if config != GAMBLE else (3, 5):
        _, states = random_playthrough(ENGINE, seats, 3, config, checks=False)
        for state in states[:: max(1, len(states) // 80)]:
            for seat in range(seats):
                listed = list(ENGINE.legal_moves(state, seat))
                assert listed == _reference_moves(state, seat)
                if listed and state.phase == "play" and state.trick:
                    for cards in combinations(state.hands[seat], len(state.trick[0].cards)):
                        move = {"type": "follow", "cards": list(cards)}
                        if move not in listed:
                            with pytest.raises(RuleError):
                                ENGINE.apply(state, {"kind": "move", "seat": seat, "data": move})
                positions += 1
    assert positions > 300


# ---- error codes ------------------------------------------------------------------------------
def test_error_codes():
    state = ENGINE.setup({}, 3)
    assert error_code(state, move(0, "exchange", [])) == "chance_expected"
    assert error_code(state, chance({"type": "deal"})) == "malformed_event"
    assert error_code(state, chance({"type": "dealer_draw", "rounds": [[{"seat": 0, "card": "AS"}]]})) == (
        "bad_dealer_draw"
    )
    tie = [{"seat": 0, "card": "AS"}, {"seat": 1, "card": "AH"}, {"seat": 2, "card": "2C"}]
    assert error_code(state, chance({"type": "dealer_draw", "rounds": [tie]})) == "bad_dealer_draw"
    redraw = [{"seat": 0, "card": "KS"}, {"seat": 1, "card": "2H"}]
    assert ENGINE.apply(state, chance({"type": "dealer_draw", "rounds": [tie, redraw]})).dealer == 0

    state = three_player_deal()
    assert error_code(state, chance({"type": "deal"})) == "unexpected_chance"
    assert error_code(state, move(1, "exchange", [])) == "not_your_turn"
    assert error_code(state, move(0, "lead", ["10S"])) == "wrong_action"
    assert error_code(state, move(0, "exchange", ["AS"])) == "card_not_in_hand"
    assert error_code(state, move(0, "exchange", ["10S", "10S"])) == "duplicate_card"
    assert error_code(state, move(0, "exchange", "10S")) == "malformed_event"
    assert error_code(state, move(0, "pass")) == "unknown_action"
    assert error_code(state, {"kind": "system", "data": {"type": "close_window", "window": "x"}}) == "window_closed"
    state = play(state, *(move(s, "exchange", []) for s in range(3)))
    assert error_code(state, move(0, "lead", [])) == "empty_lead"
    assert error_code(state, move(0, "lead", ["3D", "4D"])) == "lead_mixed_ranks"
    assert error_code(state, move(0, "follow", ["3D"])) == "wrong_action"
    state = play(state, move(0, "lead", ["10S"]))
    assert error_code(state, move(1, "follow", ["KS", "3H"])) == "wrong_card_count"
    assert error_code(state, move(1, "follow", ["9H"])) == "follow_neither_beat_nor_lowest"
    assert error_code(state, {"kind": "system", "data": {"type": "resign", "seat": 9}}) == "malformed_event"


def test_deal_validation():
    state = play(ENGINE.setup({}, 2), draw(0, (0, 1)))
    good = deal(state, {0: ["2S", "3S", "4S", "5S", "6S", "7S", "8S"], 1: ["2H", "3H", "4H", "5H", "6H", "7H", "8H"]})
    ENGINE.apply(state, good)
    for change in (
        {"dealer": 1},
        {"hand_size": 8},
        {"stock": good["data"]["stock"][1:]},
        {"stock": good["data"]["stock"][1:] + ["2S"]},
        {"hands": [good["data"]["hands"][0], good["data"]["hands"][1][:6]]},
    ):
        assert error_code(state, chance({**good["data"], **change})) == "bad_deal"


def test_lead_too_large_with_single_card_leads():
    state = ENGINE.setup({"first_deal_size": 4, "max_lead_set": 1}, 2)
    state = play(state, draw(1, (0, 1)))
    state = play(state, deal(state, {0: ["8S", "8H", "8D", "2C"], 1: ["3C", "4C", "5C", "6C"]}))
    state = play(state, move(0, "exchange", []), move(1, "exchange", []))
    assert error_code(state, move(0, "lead", ["8S", "8H"])) == "lead_too_large"
    assert all(len(m["cards"]) == 1 for m in ENGINE.legal_moves(state, 0))


def test_game_over_rejects_moves():
    state = finish_randomly(ENGINE.setup(SHORT, 2))
    assert error_code(state, move(0, "lead", ["2S"])) == "game_over"
    assert ENGINE.actors(state) == frozenset() and list(ENGINE.legal_moves(state, 0)) == []


# ---- hand size, final trick -------------------------------------------------------------------
def test_hand_size_one_goes_straight_to_the_final_trick_after_exchange():
    state = ENGINE.setup({"first_deal_size": 1}, 2)
    state = play(state, draw(1, (0, 1)))
    state = play(state, deal(state, {0: ["KS"], 1: ["QS"]}))
    assert state.phase == "exchange"
    state = play(state, move(0, "exchange", []), move(1, "exchange", []))
    assert state.results[-1].losers == (0,) and state.phase == "deal" and state.dealer == 0
    assert ENGINE.view(state, None)["next_hand_size"] == 10


def test_exchange_draws_from_the_top_of_the_stock():
    state = three_player_deal()
    top = state.stock[:2]
    state = play(state, move(0, "exchange", ["3D", "4D"]))
    assert set(top) <= set(state.hands[0]) and not {"3D", "4D"} & set(state.hands[0])
    assert state.discards[0] == ("3D", "4D") and state.exchanged[0] == 2


# ---- hidden information -----------------------------------------------------------------------
def test_views_hide_other_hands_the_stock_and_discards():
    state = three_player_deal()
    events = [move(0, "exchange", ["3D", "4D"])]
    state = play(state, *events)
    own, other, spectator = ENGINE.view(state, 0), ENGINE.view(state, 1), ENGINE.view(state, None)
    assert own["players"][0]["hand"] is not None and own["players"][0]["discards"] == ["3D", "4D"]
    assert other["players"][0]["hand"] is None and other["players"][0]["discards"] is None
    assert other["players"][0]["exchanged"] == 2 and other["stock"] is None
    assert all(p["hand"] is None for p in spectator["players"])
    shown = ENGINE.event_view(state, events[0], 1)["data"]
    assert shown == {"type": "exchange", "cards": None, "count": 2}
    assert ENGINE.event_view(state, events[0], 0) == events[0]
    for seat in (0, 1, 2, None):
        hidden = ENGINE.hidden_from(state, seat)
        assert hidden and all(f'"{c}"' not in canonical(ENGINE.view(state, seat)) for c in hidden)


def test_deal_event_shows_only_your_own_hand():
    state = play(ENGINE.setup({}, 2), draw(0, (0, 1)))
    event = deal(state, {0: ["2S", "3S", "4S", "5S", "6S", "7S", "8S"], 1: ["2H", "3H", "4H", "5H", "6H", "7H", "8H"]})
    state = play(state, event)
    mine = ENGINE.event_view(state, event, 0)["data"]
    assert mine["hands"][0] == event["data"]["hands"][0] and mine["hands"][1] is None
    assert mine["stock"] is None and mine["stock_count"] == 52 - 14
    assert ENGINE.event_view(state, event, None)["data"]["hands"] == [None, None]


def test_cards_reused_by_a_later_deal_are_blanked_in_old_events():
    state = ENGINE.setup({"first_deal_size": 2}, 2)
    events = [draw(1, (0, 1))]
    state = play(state, *events)
    events.append(deal(state, {0: ["2S", "9S"], 1: ["3S", "4S"]}))
    events += [move(0, "exchange", []), move(1, "exchange", []), move(0, "lead", ["2S"]), move(1, "follow", ["3S"])]
    state = play(state, *events[1:])
    assert state.penalties[0] == ("9S",) and state.next_size == 9
    hearts = ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H"]
    diamonds = ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D"]
    events.append(deal(state, {0: ["2S", *hearts], 1: ["3S", *diamonds]}))
    state = play(state, events[-1])
    # seat 1 now holds 3S and seat 0 holds 2S: in deal 1 both were public, now each is hidden from the other
    assert ENGINE.event_view(state, events[5], 0)["data"]["cards"] == [None]
    assert ENGINE.event_view(state, events[5], 1)["data"]["cards"] == ["3S"]
    assert ENGINE.event_view(state, events[4], 1)["data"]["cards"] == [None]
    check_no_leaks(ENGINE, state, events, 2)


def test_everything_public_after_the_game():
    events = []
    state = finish_randomly(ENGINE.setup(SHORT, 3), events=events)
    assert ENGINE.hidden_from(state, 0) == frozenset()
    assert all(ENGINE.event_view(state, e, 1) == e for e in events)


def test_reveal_exchange_discards_at_deal_end():
    state = ENGINE.setup({"first_deal_size": 2, "reveal_exchange_discards_at_deal_end": True}, 2)
    state = play(state, draw(1, (0, 1)))
    state = play(state, deal(state, {0: ["2S", "9S"], 1: ["3S", "4S"]}))
    state = play(state, move(0, "exchange", ["2S"]), move(1, "exchange", []))
    assert ENGINE.view(state, 1)["players"][0]["discards"] is None
    state = play_out_deal(state)
    assert state.results[-1].revealed_discards == (("2S",), ())
    assert ENGINE.view(state, 1)["results"][-1]["revealed_discards"] == [["2S"], []]


# ---- resignation ------------------------------------------------------------------------------
def test_resign_with_two_players_ends_the_game():
    state = three_player_deal()
    state = play(state, resign(1))
    assert state.phase == "exchange" and state.status[1] == "resigned" and state.hands[1] == ()
    state = play(state, resign(2))
    outcome = ENGINE.outcome(state)
    assert outcome.ranking == ((0,), (2,), (1,)) and outcome.detail["reason"] == "resignation"
    assert error_code(state, resign(0)) == "game_over"


def test_resign_of_the_bar_setter_mid_trick():
    state = ENGINE.setup({}, 4)
    state = play(state, draw(3, range(4)))
    hands = {
        0: ["6S", "2D", "3D", "4D", "5D", "7D", "8D"],
        1: ["KS", "2H", "3H", "4H", "5H", "7H", "8H"],
        2: ["QS", "2C", "3C", "4C", "5C", "7C", "8C"],
        3: ["JS", "9S", "9H", "9D", "9C", "10S", "10H"],
    }
    state = play(state, deal(state, hands), *(move(s, "exchange", []) for s in range(4)))
    state = play(state, move(0, "lead", ["6S"]), move(1, "follow", ["KS"]))
    state = play(state, resign(1))
    assert ENGINE.actors(state) == {2} and state.bar == ("KS",)  # K stays on the table
    assert error_code(state, move(2, "follow", ["QS"])) == "follow_neither_beat_nor_lowest"
    state = play(state, move(2, "follow", ["2C"]), move(3, "follow", ["9C"]))
    assert state.tricks[-1].winner == 1 and state.leader == 2  # the lead passes clockwise
    assert error_code(state, resign(1)) == "not_in_game"


def test_resign_of_the_leader_during_the_exchange():
    state = three_player_deal()  # seat 0 would lead
    state = play(state, resign(0))
    state = play(state, move(1, "exchange", []), move(2, "exchange", []))
    assert state.phase == "play" and ENGINE.actors(state) == {1}


# ---- gambling ---------------------------------------------------------------------------------
def gamble_to_window(config=None):
    """5 players, stake 10; seat 0 loses with A then Q (26), then with a 5 (31): the window opens."""
    config = {"variant": "gambling_cucumber", "stake": 10, "first_deal_size": 2, **(config or {})}
    state = play(ENGINE.setup(config, 5), draw(4, range(5)))
    low = [c for c in PACKS[1] if rank_of(c) <= 3]  # 2s and 3s: two each for the other four
    for card in ("AS", "QS", "5S"):
        hands = {s: low[2 * s - 2 : 2 * s] for s in range(1, 5)}
        state = play_out_deal(play(state, deal(state, {0: ["4S", card], **hands})))
    return state


def test_buy_back_window_deadline_and_close():
    state = gamble_to_window()
    assert state.phase == "buy_back" and ENGINE.actors(state) == {0}
    assert list(ENGINE.legal_moves(state, 0)) == [{"type": "buy_back"}, {"type": "decline_buy_back"}]
    assert ENGINE.deadline(state) == Deadline("buy-back-3", 60, (0,))
    closed = play(state, {"kind": "system", "data": {"type": "close_window", "window": "buy-back-3"}})
    assert closed.status[0] == "out" and closed.pot == 50
    timed_out = play(state, {"kind": "system", "data": {"type": "buy_back_timeout", "seat": 0}})
    assert timed_out == closed
    assert error_code(state, {"kind": "system", "data": {"type": "buy_back_timeout", "seat": 1}}) == "window_closed"
    assert ENGINE.deadline(gamble_to_window({"buy_back_seconds": 0})) is None


def test_buy_back_must_be_affordable_without_negative_balances():
    config = {"allow_negative_balance": False, "starting_chips": 15}
    state = gamble_to_window(config)
    assert state.balances[0] == 5 and list(ENGINE.legal_moves(state, 0)) == [{"type": "decline_buy_back"}]
    assert error_code(state, move(0, "buy_back")) == "buy_back_unaffordable"


def test_buy_back_card_keep_out():
    state = play(gamble_to_window({"buyback_card_disposition": "keep_out"}), move(0, "buy_back"))
    assert state.penalties[0] == ("AS", "QS") and state.kept_out == ("5S",)
    assert "5S" not in ENGINE._available(state)
    state = play(gamble_to_window(), move(0, "buy_back"))
    assert state.kept_out == () and "5S" in ENGINE._available(state)


@pytest.mark.parametrize("seats", range(3, 8))
def test_every_chip_is_accounted_for(seats):
    config = {"variant": "gambling_cucumber", "stake": 7, "starting_chips": 50, "first_deal_size": 3}
    saw_buy_back = False
    for seed in range(4):
        _, states = random_playthrough(ENGINE, seats, seed, config, checks=False)
        for state in states:
            assert sum(state.balances) + state.pot == 50 * seats
            paid = sum(e.amount for e in state.ledger if e.kind in ("ante", "buy_back"))
            awarded = sum(e.amount for e in state.ledger if e.kind == "pot_award")
            assert state.pot == paid - awarded
            saw_buy_back |= any(e.kind == "buy_back" for e in state.ledger)
        final = states[-1]
        assert final.phase == "over" and len(ENGINE._active(final)) <= 2
        outcome = ENGINE.outcome(final)
        assert sum(outcome.scores.values()) == -final.pot
    if seats >= 5:
        assert saw_buy_back


def test_gambling_resign_pays_the_pot_to_the_lowest_active():
    state = play(gamble_to_window(), move(0, "buy_back"))  # seat 0 at 26, the others at 0; pot 60
    state = play(state, resign(1), resign(2))
    assert state.phase == "deal"  # 3 active: play on
    state = play(state, resign(0))
    assert state.phase == "over" and state.winners == (3, 4)
    outcome = ENGINE.outcome(state)
    assert outcome.ranking == ((3, 4), (0,), (2,), (1,))
    assert outcome.scores == {0: -20, 1: -10, 2: -10, 3: 20, 4: 20}
    assert outcome.detail["ledger"][-2:] == [
        {"kind": "pot_award", "seat": 3, "amount": 30, "deal": 3},
        {"kind": "pot_award", "seat": 4, "amount": 30, "deal": 3},
    ]


def test_pot_remainder_is_carried():
    state = play(gamble_to_window({"stake": 5}), move(0, "decline_buy_back"))  # pot 25, 4 active
    state = play(state, resign(1), resign(2))
    assert state.winners == (3, 4) and state.pot == 1 and state.balances[3] == state.balances[4] == -5 + 12
    assert state.ledger[-1] == LedgerEntry("pot_carry", None, 1, 3)


# ---- serialisation ----------------------------------------------------------------------------
def test_dump_load_round_trip_mid_gamble():
    state = play(gamble_to_window(), move(0, "buy_back"))
    assert ENGINE.load_state(json.loads(canonical(ENGINE.dump_state(state)))) == state
