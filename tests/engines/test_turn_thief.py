"""Turn Thief engine: harness runs, reaction windows, resolution, ranking and hidden information."""

import json
from dataclasses import replace

import pytest

from games.engines.base import ConfigError, RuleError
from games.engines.chance import ChanceStream
from games.engines.turn_thief import ENGINE, play_deck

from .harness import (
    canonical,
    check_deterministic,
    check_engine,
    check_outcome,
    check_replay_equals_live,
    random_playthrough,
)

FACTIONS = ["H", "S", "D", "C"]  # section 9: P0 = H, P1 = S, P2 = D, P3 = C
HANDS = [
    ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "7D", "10H"],
    ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S"],
    ["2D", "3D", "4D", "5D", "6D", "8D", "9D", "10D", "9C"],
    ["9H", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "10C"],
]


def dealt(config=None, factions=FACTIONS, hands=HANDS):
    state = ENGINE.setup(config, 4)
    return ENGINE.apply(state, {"kind": "chance", "data": {"type": "deal", "factions": factions, "hands": hands}})


def move(state, seat, kind, **params):
    return ENGINE.apply(state, {"kind": "move", "seat": seat, "data": {"type": kind, **params}})


def discard(state, seat, card, suit, rank):
    return move(state, seat, "discard", card=card, declared_suit=suit, declared_rank=rank)


def close(state, window=None):
    return ENGINE.apply(state, {"kind": "system", "data": {"type": "close_window", "window": window}})


def deal_event(factions=FACTIONS, hands=HANDS):
    return {"kind": "chance", "data": {"type": "deal", "factions": factions, "hands": hands}}


def discard_event(seat, card, suit, rank):
    data = {"type": "discard", "card": card, "declared_suit": suit, "declared_rank": rank}
    return {"kind": "move", "seat": seat, "data": data}


def call_event(seat, call):
    return {"kind": "move", "seat": seat, "data": {"type": f"call_{call}"}}


def close_event(window):
    return {"kind": "system", "data": {"type": "close_window", "window": window}}


def error_code(fn, *args, **kwargs):
    with pytest.raises(RuleError) as error:
        fn(*args, **kwargs)
    assert error.value.message
    return error.value.code


# ---- harness ---------------------------------------------------------------------------------
# A random game at the default config runs 50-170 discards (200-650 events), and the generic
# harness costs O(events x every move seen so far) with up to 1,296 distinct discard moves, so one
# checked default game takes 3-20 s. The default config is therefore run on one short seed here;
# the variants run a few seeds with a small max_discards.


@pytest.mark.parametrize("seed", [25])
def test_harness_default_config(seed):
    events, states = random_playthrough(ENGINE, 4, seed)
    check_outcome(ENGINE, states[-1], 4)
    assert states[-1].ended_by == "out_of_cards"
    check_replay_equals_live(ENGINE, 4, seed)
    check_deterministic(ENGINE, 4, seed)


@pytest.mark.parametrize(
    "config",
    [
        {"max_discards": 8},
        {"max_discards": 8, "reaction_mode": "open", "multi_call_priority": "first_received"},
        {"max_discards": 8, "include_face_cards": True, "ranking_tiebreak": "fewer_cards"},
        {"max_discards": 8, "reveal_dead_pile_at_end": True},
        {"max_discards": 8, "reaction_window_seconds": 0},
    ],
    ids=["short", "open-first", "face-fewer", "reveal-dead", "no-timer"],
)
def test_harness_variants(config):
    check_engine(ENGINE, seeds=3, config=config)


def test_config_is_validated():
    full = ENGINE.validate_config({})
    assert full["reaction_mode"] == "sealed"
    assert full["multi_call_priority"] == "clockwise_from_discarder"
    assert full["ranking_tiebreak"] == "shared"
    assert full["include_face_cards"] is False and full["reveal_dead_pile_at_end"] is False
    for bad in (
        {"reaction_mode": "secret"},
        {"multi_call_priority": "random"},
        {"ranking_tiebreak": "coin"},
        {"max_discards": 0},
        {"reaction_window_seconds": -1},
    ):
        with pytest.raises(ConfigError):
            ENGINE.setup(bad, 4)
    with pytest.raises(ConfigError):
        ENGINE.setup({}, 3)


# ---- setup and chance ----------------------------------------------------------------------------
def test_sampled_deal_is_valid_and_hearts_starts():
    for seq in range(1, 6):
        data = ENGINE.sample_chance(ENGINE.setup({}, 4), ChanceStream(b"seed", seq))
        assert sorted(data["factions"]) == ["C", "D", "H", "S"]
        assert [len(h) for h in data["hands"]] == [9, 9, 9, 9]
        assert sorted(c for h in data["hands"] for c in h) == sorted(play_deck(ENGINE.validate_config({})))
        state = ENGINE.apply(ENGINE.setup({}, 4), {"kind": "chance", "data": data})
        assert state.active == data["factions"].index("H")


def test_face_cards_variant_deals_twelve():
    config = {"include_face_cards": True}
    data = ENGINE.sample_chance(ENGINE.setup(config, 4), ChanceStream(b"x", 1))
    assert [len(h) for h in data["hands"]] == [12, 12, 12, 12]
    state = ENGINE.apply(ENGINE.setup(config, 4), {"kind": "chance", "data": data})
    assert len(ENGINE.legal_moves(state, state.active)) == 12 * 4 * 12
    assert {m["declared_rank"] for m in ENGINE.legal_moves(state, state.active)} >= {"J", "Q", "K"}


def test_typed_in_deal_is_checked():
    state = ENGINE.setup({}, 4)
    bad_hands = [list(h) for h in HANDS]
    bad_hands[0][0] = "AS"  # the Aces are faction markers, not play cards
    for factions, hands in ((FACTIONS, bad_hands), (["H", "S", "D", "D"], HANDS), (FACTIONS, HANDS[:3])):
        with pytest.raises(RuleError):
            ENGINE.apply(state, {"kind": "chance", "data": {"type": "deal", "factions": factions, "hands": hands}})
    assert error_code(ENGINE.apply, dealt(), {"kind": "chance", "data": {"type": "deal"}}) == "unexpected_chance"


# ---- moves and reaction windows ------------------------------------------------------------------
def test_legal_moves_and_actors():
    state = dealt()
    assert ENGINE.actors(state) == {0}
    moves = ENGINE.legal_moves(state, 0)
    assert len(moves) == 9 * 4 * 9  # every card, with every declaration (lies are legal)
    assert moves[0] == {"type": "discard", "card": "2H", "declared_suit": "S", "declared_rank": "2"}
    assert all(list(ENGINE.legal_moves(state, seat)) == [] for seat in (1, 2, 3))
    assert ENGINE.deadline(state) is None
    state = discard(state, 0, "7D", "H", "7")
    assert ENGINE.actors(state) == {1, 2, 3}  # every eligible seat while the window is open
    assert list(ENGINE.legal_moves(state, 0)) == []
    assert list(ENGINE.legal_moves(state, 2)) == [{"type": "call_get"}, {"type": "call_doubt"}, {"type": "call_none"}]
    state = move(state, 2, "call_get")
    assert ENGINE.actors(state) == {1, 3}
    assert list(ENGINE.legal_moves(state, 2)) == []


def test_deadline_windows_are_unique_and_timed_by_config():
    state = dealt({"reaction_window_seconds": 7.5})
    ids = []
    for _ in range(3):
        card = ENGINE.legal_moves(state, state.active)[0]["card"]
        state = discard(state, state.active, card, "H", "2")
        deadline = ENGINE.deadline(state)
        assert deadline.seconds == 7.5 and deadline.seats == tuple(s for s in range(4) if s != state.pending.discarder)
        ids.append(deadline.window)
        state = close(state, deadline.window)
    assert ids == ["reaction-1", "reaction-2", "reaction-3"]
    assert ENGINE.deadline(discard(dealt({"reaction_window_seconds": 0}), 0, "2H", "H", "2")) is None


def test_timeout_is_no_call_and_late_close_is_refused():
    state = discard(dealt(), 0, "7D", "S", "7")
    state = move(state, 3, "call_get")
    assert error_code(close, state, "reaction-2") == "window_closed"
    assert error_code(close, state, None) == "window_closed"
    after = close(state, "reaction-1")
    assert after.history[-1].timed_out == (1, 2)
    assert after.history[-1].result == "get" and after.hands[3][-1] == "7D"
    assert after.active == 1  # Owner(S)
    assert error_code(close, after, "reaction-1") == "window_closed"
    # The spec's own name for the system event, without a window id, closes the open window.
    alias = ENGINE.apply(state, {"kind": "system", "data": {"type": "close_reaction_window"}})
    assert alias == after


def test_rule_errors_have_specific_codes():
    state = dealt()
    assert error_code(discard, state, 0, "2H", "H", "1") == "invalid_declared_rank"
    assert error_code(discard, state, 0, "2H", "H", "12") == "invalid_declared_rank"
    assert error_code(discard, state, 0, "2H", "X", "2") == "invalid_declared_suit"
    assert error_code(discard, state, 0, "2H", "H", 2) == "malformed_event"
    assert error_code(discard, state, 0, "2S", "H", "2") == "card_not_in_hand"
    assert error_code(discard, state, 1, "2S", "S", "2") == "not_your_turn"
    assert error_code(move, state, 1, "call_doubt") == "window_closed"
    assert error_code(move, state, 0, "steal") == "unknown_action"
    state = discard(state, 0, "2H", "H", "2")
    assert error_code(move, state, 0, "call_get") == "own_discard"
    assert error_code(discard, state, 0, "3H", "H", "3") == "window_open"
    state = move(state, 1, "call_none")
    assert error_code(move, state, 1, "call_doubt") == "already_responded"
    resigned = ENGINE.apply(state, {"kind": "system", "data": {"type": "resign", "seat": 2}})
    assert error_code(move, resigned, 3, "call_none") == "game_over"


# ---- resolution (section 4) ------------------------------------------------------------------------
def test_doubt_beats_get_and_clockwise_priority():
    state = discard(dealt(), 0, "7H", "H", "7")
    for seat, call in ((3, "doubt"), (1, "get"), (2, "doubt")):
        state = move(state, seat, f"call_{call}")
    entry = state.history[-1]
    assert (entry.result, entry.caller, entry.honest, entry.taker, entry.next_seat) == ("doubt", 2, True, 2, 0)
    assert "7H" in state.hands[2] and state.public == {"7H"}


def test_first_received_priority_for_gets():
    state = discard(dealt({"multi_call_priority": "first_received"}), 0, "10H", "C", "4")
    state = move(state, 3, "call_get")
    state = move(state, 1, "call_get")
    state = move(state, 2, "call_none")
    entry = state.history[-1]
    assert (entry.caller, entry.taker, entry.next_seat) == (3, 3, 3)
    assert state.public == frozenset()


def test_lie_with_no_call_passes_turn_to_declared_owner_and_buries_card():
    state = discard(dealt(), 0, "7D", "C", "9")
    state = close(state, "reaction-1")
    assert state.active == 3 and state.dead == ("7D",)


def test_winning_doubter_takes_turn_whatever_their_faction():
    state = discard(dealt(), 0, "10H", "H", "9")  # a rank lie in the discarder's own suit
    state = move(state, 1, "call_doubt")
    state = close(state, "reaction-1")
    assert state.active == 1 and "10H" in state.hands[0]


def test_discard_limit_ends_game():
    state = dealt({"max_discards": 1})
    state = close(discard(state, 0, "2H", "H", "2"), "reaction-1")
    outcome = ENGINE.outcome(state)
    assert outcome.detail["reason"] == "discard_limit"
    check_outcome(ENGINE, state, 4)


# ---- outcome (section 5) ---------------------------------------------------------------------------
def finished(hands, config=None):
    return replace(dealt(config), phase="over", ended_by="out_of_cards", hands=tuple(tuple(h) for h in hands))


def test_t10_ranking_ties():
    hands = [["10H"], [], ["4C", "6S"], ["9D"]]
    shared = ENGINE.outcome(finished(hands))
    assert shared.ranking == ((1,), (3,), (0, 2))
    assert shared.scores == {0: 10, 1: 0, 2: 10, 3: 9}
    fewer = ENGINE.outcome(finished(hands, {"ranking_tiebreak": "fewer_cards"}))
    assert fewer.ranking == ((1,), (3,), (0,), (2,))
    same = ENGINE.outcome(finished([["10H"], [], ["10D"], ["2C", "3C"]], {"ranking_tiebreak": "fewer_cards"}))
    assert same.ranking == ((1,), (3,), (0, 2))  # still tied after the card count: shared


def test_resign_ranks_the_resigner_last():
    state = ENGINE.apply(dealt(), {"kind": "system", "data": {"type": "resign", "seat": 0}})
    outcome = ENGINE.outcome(state)
    assert outcome.ranking[-1] == (0,)
    assert sorted(s for group in outcome.ranking for s in group) == [0, 1, 2, 3]
    before_deal = ENGINE.apply(ENGINE.setup({}, 4), {"kind": "system", "data": {"type": "resign", "seat": 3}})
    assert ENGINE.outcome(before_deal).ranking == ((0, 1, 2), (3,))


# ---- hidden information (section 6) ----------------------------------------------------------------
def texts_for(state, events, seat):
    return [canonical(ENGINE.view(state, seat))] + [canonical(ENGINE.event_view(state, e, seat)) for e in events]


def assert_not_shown(state, events, seat, card_ids):
    for text in texts_for(state, events, seat):
        for card in card_ids:
            assert f'"{card}"' not in text, (seat, card, text[:200])


def test_no_seat_sees_another_seats_hand():
    deal = deal_event()
    state = ENGINE.apply(ENGINE.setup({}, 4), deal)
    for seat in (0, 1, 2, 3, None):
        others = {c for owner, hand in enumerate(HANDS) if owner != seat for c in hand}
        assert_not_shown(state, [deal], seat, others)
        assert ENGINE.hidden_from(state, seat) == others
    assert ENGINE.view(state, 1)["hands"][1] == sorted(HANDS[1], key=lambda c: int(c[:-1]))


def test_pending_and_got_card_seen_only_by_discarder_and_getter():
    events = [
        deal_event(),
        discard_event(0, "10H", "C", "2"),
        close_event("reaction-1"),
    ]
    state = ENGINE.replay({}, 4, events)
    assert state.active == 3
    for event in (
        discard_event(3, "2C", "H", "10"),
        call_event(1, "get"),
    ):
        events.append(event)
        state = ENGINE.apply(state, event)
    for seat in (0, 1, 2, None):
        assert_not_shown(state, events, seat, {"2C"})
    assert ENGINE.view(state, 3)["reaction"]["card"] == "2C"
    events.append(close_event("reaction-2"))
    state = ENGINE.apply(state, events[-1])
    assert ENGINE.view(state, 1)["last"]["card"] == "2C"  # the getter
    assert ENGINE.view(state, 3)["last"]["card"] == "2C"  # the discarder
    for seat in (0, 2, None):  # T5: hidden from P0 and P2
        assert ENGINE.view(state, seat)["last"]["card"] is None
        assert_not_shown(state, events, seat, {"2C"})
        assert "2C" in ENGINE.hidden_from(state, seat)


def test_sealed_calls_hidden_until_window_closes():
    events = [deal_event()]
    events.append(discard_event(0, "7H", "H", "7"))
    events.append(call_event(2, "doubt"))
    state = ENGINE.replay({}, 4, events)
    for seat in (0, 1, 3, None):
        assert ENGINE.view(state, seat)["reaction"]["calls"] == {}
        assert ENGINE.view(state, seat)["reaction"]["responded"] == [2]
        assert ENGINE.event_view(state, events[2], seat)["data"] == {"type": "call", "sealed": True}
    assert ENGINE.view(state, 2)["reaction"]["calls"] == {"2": "doubt"}
    assert ENGINE.event_view(state, events[2], 2) == events[2]
    open_state = ENGINE.replay({"reaction_mode": "open"}, 4, events)
    assert ENGINE.view(open_state, 1)["reaction"]["calls"] == {"2": "doubt"}
    assert ENGINE.event_view(open_state, events[2], 1) == events[2]
    state = ENGINE.apply(state, close_event("reaction-1"))
    assert ENGINE.event_view(state, events[2], 1) == events[2]
    assert ENGINE.view(state, None)["last"]["calls"] == {"1": "none", "2": "doubt", "3": "none"}
    assert ENGINE.view(state, None)["last"]["card"] == "7H"  # doubted: face up for everyone


def test_dead_pile_stays_hidden_after_the_end_unless_configured():
    for reveal in (False, True):
        config = {"max_discards": 1, "reveal_dead_pile_at_end": reveal}
        events = [
            deal_event(),
            discard_event(0, "7D", "S", "2"),
            close_event("reaction-1"),
        ]
        state = ENGINE.replay(config, 4, events)
        assert state.phase == "over"
        spectator = ENGINE.view(state, None)
        assert spectator["hands"][1] is not None  # all hands are revealed at the end
        if reveal:
            assert spectator["dead_pile"] == ["7D"] and spectator["last"]["card"] == "7D"
        else:
            assert spectator["dead_pile"] is None and "7D" in ENGINE.hidden_from(state, 1)
            assert_not_shown(state, events, 1, {"7D"})
            assert ENGINE.view(state, 0)["my_dead_cards"] == ["7D"]  # the discarder knows their own


def test_random_games_never_show_unseen_cards_of_other_hands():
    """Independent of hidden_from: a seat never sees a card dealt to another seat unless it saw it."""
    for seed in range(3):
        events, states = random_playthrough(ENGINE, 4, seed, {"max_discards": 25}, checks=False)
        deal = events[0]["data"]["hands"]
        for step in range(1, len(states), 7):
            state, shown_events = states[step], events[:step]
            if state.phase == "over":
                continue
            for seat in (0, 1, 2):
                got = {e.card for e in state.history if e.taker == seat or e.result == "doubt"}
                others = {c for owner, hand in enumerate(deal) if owner != seat for c in hand} - got
                assert_not_shown(state, shown_events, seat, others)


def test_state_round_trips_through_json():
    state = move(discard(dealt(), 0, "7D", "H", "7"), 2, "call_get")
    assert ENGINE.load_state(json.loads(json.dumps(ENGINE.dump_state(state)))) == state
