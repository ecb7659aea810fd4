"""Nine Card: what the scenario records (records/nine-card/*.jsonl) cannot say.

Hidden information, the commit deadline, resign, config validation, bad deals typed in by a
person, the run test, the early end after round 2 and the generic harness with the horizontal
option. The rules are ``shared/rules/nine-card.md``; seat 0 is the Oya (spades by default), seat 1
the Ko (hearts).
"""

from __future__ import annotations

import json

import pytest

from games.engines.base import ConfigError, Deadline, GameOver, RuleError, WindowClosed
from games.engines.nine_card import ENGINE, is_run
from games.records import RecordError, replay_record

from .harness import check_engine, check_no_leaks

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def suit(s: str) -> list[str]:
    return [rank + s for rank in RANKS]


def deal_event(hands, set_aside) -> dict:
    return {"kind": "chance", "data": {"type": "deal", "hands": hands, "set_aside": set_aside}}


def commit(seat: int, card: str) -> dict:
    return {"kind": "move", "seat": seat, "data": {"type": "commit_card", "card": card}}


def close(window: str) -> dict:
    return {"kind": "system", "data": {"type": "close_window", "window": window}}


def resign(seat) -> dict:
    return {"kind": "system", "data": {"type": "resign", "seat": seat}}


def canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def tokens_in(obj) -> set[str]:
    """Every card id that appears as a JSON string anywhere in ``obj``."""
    text = canonical(obj)
    return {card for s in "SHDC" for card in suit(s) if f'"{card}"' in text}


# The fixture of the worked example W7 (figure 5): every hand card is played.
OYA_ASIDE = ["4S", "8S", "JS", "QS"]
KO_ASIDE = ["AH", "5H", "7H", "8H"]
OYA_HAND = [c for c in suit("S") if c not in OYA_ASIDE]
KO_HAND = [c for c in suit("H") if c not in KO_ASIDE]
DEAL = deal_event([OYA_HAND, KO_HAND], [OYA_ASIDE, KO_ASIDE])
W7_OYA = ["AS", "2S", "3S", "5S", "6S", "7S", "KS", "10S", "9S"]
W7_KO = ["10H", "9H", "6H", "2H", "3H", "4H", "JH", "QH", "KH"]

# T1 then T4: the Oya wins 2-0 after round 2, three cards stay in each hand.
T4_OYA = ["5S", "6S", "4S", "10S", "8S", "2S"]
T4_KO = ["KH", "2H", "9H", "7H", "6H", "10H"]
T4_ASIDE = [["JS", "QS", "KS", "9S"], ["JH", "QH", "8H", "AH"]]
T4_DEAL = deal_event(
    [[c for c in suit("S") if c not in T4_ASIDE[0]], [c for c in suit("H") if c not in T4_ASIDE[1]]], T4_ASIDE
)


def turns(oya: list[str], ko: list[str]) -> list[dict]:
    events = []
    for a, b in zip(oya, ko, strict=True):
        events += [commit(0, a), commit(1, b)]
    return events


def play(events: list[dict], config: dict | None = None, state=None):
    state = ENGINE.setup(config) if state is None else state
    for event in events:
        state = ENGINE.apply(state, event)
    return state


def states_along(events: list[dict], config: dict | None = None):
    """(state, events so far) after every event."""
    state = ENGINE.setup(config)
    out = []
    for index, event in enumerate(events):
        state = ENGINE.apply(state, event)
        out.append((state, events[: index + 1]))
    return out


def all_texts(state, events, seat) -> set[str]:
    seen = tokens_in(ENGINE.view(state, seat))
    for event in events:
        seen |= tokens_in(ENGINE.event_view(state, event, seat))
    return seen


# ---- hidden information ------------------------------------------------------------------


def test_commit_is_hidden_from_the_opponent_until_both_have_committed():
    state = play([DEAL, commit(0, "AS")])
    oya_cards = set(OYA_HAND) | set(OYA_ASIDE)  # hand, committed card and set-aside pile
    for seat in (1, None):
        view = ENGINE.view(state, seat)
        assert not tokens_in(view) & oya_cards, view
        assert view["players"][0]["committed"] is True
        assert view["players"][0]["hand"] is None
        assert view["players"][0]["hand_size"] == 8
        assert "committed_card" not in view["players"][0]
        shown = ENGINE.event_view(state, commit(0, "AS"), seat)
        assert shown == {"kind": "move", "seat": 0, "data": {"type": "commit_card", "card": None}}
        assert not tokens_in(ENGINE.event_view(state, DEAL, seat)) & oya_cards
    assert "AS" in ENGINE.hidden_from(state, 1)
    # The committer sees their own card, the opponent's hand stays hidden from them.
    own = ENGINE.view(state, 0)
    assert own["players"][0]["committed_card"] == "AS"
    assert ENGINE.event_view(state, commit(0, "AS"), 0)["data"]["card"] == "AS"
    assert not tokens_in(own) & set(KO_HAND)
    check_no_leaks(ENGINE, state, [DEAL, commit(0, "AS")], 2)


def test_ko_committing_first_is_hidden_the_same_way():
    state = play([DEAL, commit(1, "KH")])
    assert "KH" not in tokens_in(ENGINE.view(state, 0))
    assert ENGINE.event_view(state, commit(1, "KH"), 0)["data"]["card"] is None
    assert ENGINE.view(state, 0)["players"][1]["committed"] is True


def test_both_cards_are_public_after_the_reveal():
    events = [DEAL, commit(0, "AS"), commit(1, "10H")]
    state = play(events)
    for seat in (0, 1, None):
        view = ENGINE.view(state, seat)
        assert [view["players"][p]["grid"][0] for p in (0, 1)] == [["AS"], ["10H"]]
        assert ENGINE.event_view(state, commit(0, "AS"), seat)["data"]["card"] == "AS"
        assert ENGINE.event_view(state, commit(1, "10H"), seat)["data"]["card"] == "10H"
    assert ENGINE.view(state, 1)["players"][0]["hand"] is None


def test_set_aside_cards_are_never_shown_by_default():
    events = [DEAL, *turns(W7_OYA, W7_KO)]
    aside = set(OYA_ASIDE) | set(KO_ASIDE)
    for state, so_far in states_along(events):
        for seat in (0, 1, None):
            assert not all_texts(state, so_far, seat) & aside
            view = ENGINE.view(state, seat)
            assert [p["set_aside"] for p in view["players"]] == [None, None]
    assert ENGINE.outcome(state) is not None


def test_unplayed_cards_stay_hidden_after_an_early_end_by_default():
    events = [T4_DEAL, *turns(T4_OYA, T4_KO)]
    state = play(events)
    assert ENGINE.outcome(state) is not None
    unplayed = {"AS", "3S", "7S", "3H", "4H", "5H"}
    assert set(state.hands[0]) | set(state.hands[1]) == unplayed
    for seat in (0, 1, None):
        seen = all_texts(state, events, seat)
        own = set(state.hands[seat]) if seat is not None else set()
        assert seen & (unplayed | set(T4_ASIDE[0]) | set(T4_ASIDE[1])) == own
    check_no_leaks(ENGINE, state, events, 2)


def test_show_set_aside_to_owner():
    config = {"show_set_aside_to_owner": True}
    events = [DEAL, *turns(W7_OYA, W7_KO)]
    for state, so_far in states_along(events, config):
        for owner, pile, other in ((0, OYA_ASIDE, KO_ASIDE), (1, KO_ASIDE, OYA_ASIDE)):
            view = ENGINE.view(state, owner)
            assert view["players"][owner]["set_aside"] == pile
            assert view["players"][1 - owner]["set_aside"] is None
            assert not all_texts(state, so_far, owner) & set(other)
            shown = ENGINE.event_view(state, DEAL, owner)["data"]["set_aside"]
            assert shown[owner] == pile and shown[1 - owner] is None
        assert not all_texts(state, so_far, None) & (set(OYA_ASIDE) | set(KO_ASIDE))
        check_no_leaks(ENGINE, state, so_far, 2)


def test_reveal_at_end_shows_everything_only_once_the_game_is_over():
    config = {"reveal_at_end": True}
    events = [T4_DEAL, *turns(T4_OYA, T4_KO)]
    secret = set(T4_ASIDE[0]) | set(T4_ASIDE[1]) | {"AS", "3S", "7S", "3H", "4H", "5H"}
    history = states_along(events, config)
    for state, so_far in history[:-1]:
        assert ENGINE.outcome(state) is None
        assert not all_texts(state, so_far, None) & secret
        for seat in (0, 1):
            assert not all_texts(state, so_far, seat) & set(T4_ASIDE[seat])
        check_no_leaks(ENGINE, state, so_far, 2)
    state, so_far = history[-1]
    assert ENGINE.outcome(state) is not None
    view = ENGINE.view(state, None)
    assert [p["set_aside"] for p in view["players"]] == [sorted_by_value(T4_ASIDE[0]), sorted_by_value(T4_ASIDE[1])]
    assert [p["hand"] for p in view["players"]] == [["AS", "3S", "7S"], ["3H", "4H", "5H"]]
    assert ENGINE.event_view(state, T4_DEAL, None)["data"]["set_aside"] == T4_ASIDE
    assert ENGINE.hidden_from(state, None) == frozenset()


@pytest.mark.parametrize("end", ["timeout", "resign"])
def test_reveal_at_end_after_an_unrevealed_commit_is_consistent(end):
    """The game ends by timeout or resign while the Oya's turn-1 commit (AS) is still face down.
    With reveal_at_end the pending card is revealed with the hands, so the views agree with
    hidden_from (a regression test: it once stayed "hidden" while the deal event showed it).
    """
    config = {"reveal_at_end": True, "commit_seconds": 5}
    last = close("turn-1") if end == "timeout" else resign(1)
    events = [DEAL, commit(0, "AS"), last]
    state = play(events, config)
    assert ENGINE.outcome(state) is not None
    for seat in (1, None):
        seen = all_texts(state, events, seat)
        hidden = ENGINE.hidden_from(state, seat)
        assert not seen & hidden, f"seat {seat} sees {sorted(seen & hidden)}, which hidden_from says is hidden"
    check_no_leaks(ENGINE, state, events, 2)


def sorted_by_value(pile: list[str]) -> list[str]:
    return sorted(pile, key=lambda c: RANKS.index(c[:-1]))


# ---- the commit deadline -----------------------------------------------------------------


def test_deadline_window_per_turn():
    config = {"commit_seconds": 30}
    state = ENGINE.setup(config)
    assert ENGINE.deadline(state) is None  # nothing to wait for before the deal
    state = play([DEAL], state=state)
    assert ENGINE.deadline(state) == Deadline("turn-1", 30, (0, 1))
    state = play([commit(1, "QH")], state=state)
    assert ENGINE.deadline(state) == Deadline("turn-1", 30, (0,))
    state = play([commit(0, "2S")], state=state)
    assert ENGINE.deadline(state) == Deadline("turn-2", 30, (0, 1))
    state = play(turns(["3S", "AS"], ["JH", "KH"]), state=state)
    assert ENGINE.deadline(state).window == "turn-4"


def test_no_deadline_without_commit_seconds():
    state = play([DEAL])
    assert ENGINE.deadline(state) is None
    with pytest.raises(WindowClosed) as error:
        ENGINE.apply(state, close("turn-1"))
    assert error.value.code == "window_closed"


@pytest.mark.parametrize("window", ["turn-1", "turn-3", "turn-99", None])
def test_close_of_a_stale_or_unknown_window_is_rejected(window):
    state = play([DEAL, commit(0, "AS"), commit(1, "2H")], {"commit_seconds": 30})
    assert ENGINE.deadline(state).window == "turn-2"
    event = close(window) if window else {"kind": "system", "data": {"type": "close_window"}}
    with pytest.raises(WindowClosed) as error:
        ENGINE.apply(state, event)
    assert error.value.code == "window_closed"


def test_a_seat_that_did_not_commit_in_time_forfeits():
    state = play([DEAL, *turns(["AS", "2S", "3S"], ["10H", "9H", "6H"]), commit(0, "5S")], {"commit_seconds": 30})
    state = ENGINE.apply(state, close("turn-4"))
    outcome = ENGINE.outcome(state).to_json()
    assert outcome["ranking"] == [[0], [1]]
    assert outcome["detail"]["reason"] == "timeout"
    assert outcome["detail"]["forfeits"] == [1]
    assert outcome["scores"] == {"0": 1, "1": 0}
    assert ENGINE.actors(state) == frozenset()
    assert ENGINE.deadline(state) is None
    # The Oya's committed card was never revealed, so it stays hidden from the Ko and spectators.
    for seat in (1, None):
        assert "5S" not in tokens_in(ENGINE.view(state, seat))
        assert ENGINE.event_view(state, commit(0, "5S"), seat)["data"]["card"] is None
    with pytest.raises(GameOver) as error:
        ENGINE.apply(state, commit(1, "2H"))
    assert error.value.code == "game_over"


def test_the_oya_late_alone_loses():
    state = play([DEAL, commit(1, "QH")], {"commit_seconds": 5})
    state = ENGINE.apply(state, close("turn-1"))
    outcome = ENGINE.outcome(state).to_json()
    assert outcome["ranking"] == [[1], [0]]
    assert outcome["detail"]["forfeits"] == [0]


def test_both_late_is_a_draw():
    state = play([DEAL, commit(0, "AS"), commit(1, "2H")], {"commit_seconds": 5})
    state = ENGINE.apply(state, close("turn-2"))
    outcome = ENGINE.outcome(state).to_json()
    assert outcome["ranking"] == [[0, 1]]
    assert outcome["detail"]["reason"] == "timeout"
    assert outcome["detail"]["forfeits"] == [0, 1]


def test_timeout_in_a_record_replays():
    header = {"kifu": 1, "game": "nine-card", "config": {"commit_seconds": 20}, "seats": ["aki", "ben"]}
    lines = [canonical(x) for x in (header, DEAL, commit(0, "AS"), close("turn-1"))]
    assert replay_record(lines).outcome_json()["ranking"] == [[0], [1]]
    stale = [canonical(x) for x in (header, DEAL, commit(0, "AS"), commit(1, "2H"), close("turn-1"))]
    with pytest.raises(RecordError) as error:
        replay_record(stale)
    assert (error.value.line, error.value.code) == (5, "window_closed")


# ---- resign ------------------------------------------------------------------------------


@pytest.mark.parametrize("loser", [0, 1])
def test_resign(loser):
    state = play([DEAL, *turns(["AS", "2S", "3S"], ["10H", "9H", "6H"]), commit(1, "2H")])
    state = ENGINE.apply(state, resign(loser))
    outcome = ENGINE.outcome(state).to_json()
    assert outcome["ranking"] == [[1 - loser], [loser]]
    assert outcome["detail"]["reason"] == "resign"
    assert outcome["detail"]["forfeits"] == [loser]
    assert outcome["detail"]["rounds"][0]["winner"] == 0  # round 1 was still played out
    assert list(ENGINE.legal_moves(state, 0)) == [] and list(ENGINE.legal_moves(state, 1)) == []
    with pytest.raises(GameOver):
        ENGINE.apply(state, commit(0, "5S"))
    with pytest.raises(GameOver):
        ENGINE.apply(state, resign(1 - loser))


@pytest.mark.parametrize("seat", [2, -1, None, True, "0"])
def test_resign_needs_a_real_seat(seat):
    with pytest.raises(RuleError) as error:
        ENGINE.apply(play([DEAL]), resign(seat))
    assert error.value.code == "malformed_event"


# ---- config ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "suits",
    [
        {"oya": "S", "ko": "S"},
        {"oya": "H", "ko": "H"},
        {"oya": "S"},
        {"oya": "S", "ko": "H", "third": "D"},
        {"oya": "X", "ko": "H"},
        {"oya": "s", "ko": "h"},
        {"oya": ["S"], "ko": "H"},
        ["S", "H"],
        "SH",
    ],
)
def test_suits_must_be_two_different_suits(suits):
    with pytest.raises(ConfigError) as error:
        ENGINE.setup({"suits": suits})
    assert error.value.code == "invalid_config"


def test_unknown_flag_and_bad_values():
    with pytest.raises(ConfigError) as error:
        ENGINE.setup({"horizontal_PS": True})
    assert error.value.code == "unknown_config_flag"
    for config in (
        {"horizontal_ps": "yes"},
        {"match_tiebreak": "oya"},
        {"commit_seconds": -1},
        {"commit_seconds": True},
        {"reveal_at_end": 1},
    ):
        with pytest.raises(ConfigError):
            ENGINE.setup(config)
    with pytest.raises(ConfigError) as error:
        ENGINE.setup({}, 3)
    assert error.value.code == "bad_seat_count"


def test_config_delta_and_other_suits():
    assert ENGINE.config_delta({"suits": {"oya": "S", "ko": "H"}}) == {}
    assert ENGINE.config_delta({"suits": {"ko": "S", "oya": "H"}}) == {"suits": {"ko": "S", "oya": "H"}}
    config = {"suits": {"oya": "D", "ko": "C"}}
    diamonds, clubs = suit("D"), suit("C")
    state = play([deal_event([diamonds[:9], clubs[4:]], [diamonds[9:], clubs[:4]])], config)
    assert ENGINE.legal_moves(state, 0)[0] == {"type": "commit_card", "card": "AD"}
    assert ENGINE.view(state, None)["players"][1]["suit"] == "C"
    with pytest.raises(RuleError) as error:
        play([DEAL], config)
    assert error.value.code == "bad_deal"


# ---- bad deals typed in by a person -----------------------------------------------------


def _swap(pile: list[str], old: str, new: str) -> list[str]:
    return [new if c == old else c for c in pile]


BAD_DEALS = {
    "oya 10 in hand, 3 aside": ([OYA_HAND + ["4S"], KO_HAND], [OYA_ASIDE[1:], KO_ASIDE]),
    "oya 8 in hand, 5 aside": ([OYA_HAND[1:], KO_HAND], [OYA_ASIDE + ["AS"], KO_ASIDE]),
    "ko 9 in hand, 3 aside": ([OYA_HAND, KO_HAND], [OYA_ASIDE, KO_ASIDE[:3]]),
    "all 13 in hand": ([suit("S"), KO_HAND], [[], KO_ASIDE]),
    "heart in the oya's hand": ([_swap(OYA_HAND, "AS", "AH"), KO_HAND], [OYA_ASIDE, KO_ASIDE]),
    "spade in the ko's set-aside": ([OYA_HAND, KO_HAND], [OYA_ASIDE, _swap(KO_ASIDE, "AH", "AS")]),
    "seats swapped": ([KO_HAND, OYA_HAND], [KO_ASIDE, OYA_ASIDE]),
    "duplicate in hand": ([_swap(OYA_HAND, "2S", "AS"), KO_HAND], [OYA_ASIDE, KO_ASIDE]),
    "card both in hand and aside": ([OYA_HAND, KO_HAND], [_swap(OYA_ASIDE, "4S", "AS"), KO_ASIDE]),
    "lower-case ids": ([[c.lower() for c in OYA_HAND], KO_HAND], [OYA_ASIDE, KO_ASIDE]),
    "1S for the ace": ([_swap(OYA_HAND, "AS", "1S"), KO_HAND], [OYA_ASIDE, KO_ASIDE]),
    "TH for the ten": ([OYA_HAND, _swap(KO_HAND, "10H", "TH")], [OYA_ASIDE, KO_ASIDE]),
    "a joker": ([_swap(OYA_HAND, "AS", "JK1"), KO_HAND], [OYA_ASIDE, KO_ASIDE]),
    "a number instead of a card": ([_swap(OYA_HAND, "2S", 2), KO_HAND], [OYA_ASIDE, KO_ASIDE]),
}


@pytest.mark.parametrize("name", BAD_DEALS)
def test_bad_deal(name):
    hands, set_aside = BAD_DEALS[name]
    with pytest.raises(RuleError) as error:
        play([deal_event(hands, set_aside)])
    assert error.value.code == "bad_deal", error.value.message


@pytest.mark.parametrize(
    "data",
    [
        {"type": "deal", "hands": [OYA_HAND, KO_HAND]},
        {"type": "deal", "hands": [OYA_HAND], "set_aside": [OYA_ASIDE]},
        {"type": "deal", "hands": " ".join(OYA_HAND), "set_aside": [OYA_ASIDE, KO_ASIDE]},
        {"type": "deal", "hands": [" ".join(OYA_HAND), KO_HAND], "set_aside": [OYA_ASIDE, KO_ASIDE]},
        {"type": "shuffle", "hands": [OYA_HAND, KO_HAND], "set_aside": [OYA_ASIDE, KO_ASIDE]},
    ],
)
def test_malformed_deal(data):
    with pytest.raises(RuleError) as error:
        play([{"kind": "chance", "data": data}])
    assert error.value.code == "malformed_event"


def test_deal_order_and_chance_errors():
    with pytest.raises(RuleError) as error:
        play([commit(0, "AS")])
    assert error.value.code == "chance_expected"
    with pytest.raises(RuleError) as error:
        play([DEAL, DEAL])
    assert error.value.code == "unexpected_chance"


def test_bad_deal_in_a_record_names_line_2():
    header = {"kifu": 1, "game": "nine-card", "config": {}, "seats": ["aki", "ben"]}
    bad = deal_event([_swap(OYA_HAND, "2S", "AS"), KO_HAND], [OYA_ASIDE, KO_ASIDE])
    with pytest.raises(RecordError) as error:
        replay_record([canonical(header), canonical(bad)])
    assert (error.value.line, error.value.code) == (2, "bad_deal")


# ---- moves -------------------------------------------------------------------------------


def test_commit_errors():
    state = play([DEAL])
    cases = [
        (commit(0, "4S"), "card_not_in_hand"),  # set aside
        (commit(0, "AH"), "card_not_in_hand"),  # the opponent's suit
        (commit(1, "AH"), "card_not_in_hand"),  # the Ko's own set-aside card
        ({"kind": "move", "seat": 0, "data": {"type": "commit_card"}}, "malformed_event"),
        ({"kind": "move", "seat": 0, "data": {"type": "commit_card", "card": 1}}, "malformed_event"),
        ({"kind": "move", "seat": 0, "data": {"type": "play_card", "card": "AS"}}, "unknown_action"),
        ({"kind": "move", "seat": 2, "data": {"type": "commit_card", "card": "AS"}}, "malformed_event"),
    ]
    for event, code in cases:
        with pytest.raises(RuleError) as error:
            ENGINE.apply(state, event)
        assert error.value.code == code, event
    played = play([commit(0, "AS"), commit(1, "2H")], state=state)
    with pytest.raises(RuleError) as error:
        ENGINE.apply(played, commit(0, "AS"))  # already played on turn 1
    assert error.value.code == "card_not_in_hand"
    waiting = ENGINE.apply(state, commit(0, "AS"))
    assert ENGINE.actors(waiting) == frozenset({1})
    assert list(ENGINE.legal_moves(waiting, 0)) == []
    with pytest.raises(RuleError) as error:
        ENGINE.apply(waiting, commit(0, "AS"))  # the same card again: still already committed
    assert error.value.code == "already_committed"


# ---- the run test ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([4, 3, 5], True),
        ([3, 4, 5], True),
        ([5, 4, 3], True),
        ([1, 2, 3], True),
        ([3, 1, 2], True),
        ([11, 12, 13], True),
        ([12, 13, 1], False),
        ([13, 1, 2], False),
        ([1, 12, 13], False),
        ([1, 2, 4], False),
        ([6, 8, 10], False),
        ([2, 3, 3], False),
    ],
)
def test_is_run(values, expected):
    assert is_run(values) is expected


# ---- the end -----------------------------------------------------------------------------


def test_game_ends_2_0_after_round_2_so_no_turn_7():
    config = {"commit_seconds": 30, "horizontal_ps": True}
    state = play([T4_DEAL, *turns(T4_OYA, T4_KO)], config)
    assert state.phase == "over"
    assert [len(h) for h in state.hands] == [3, 3]
    assert ENGINE.actors(state) == frozenset()
    assert list(ENGINE.legal_moves(state, 0)) == [] and list(ENGINE.legal_moves(state, 1)) == []
    assert ENGINE.deadline(state) is None
    assert ENGINE.chance_due(state) is None
    outcome = ENGINE.outcome(state).to_json()
    assert outcome["ranking"] == [[0], [1]]
    assert [r["round"] for r in outcome["detail"]["rounds"]] == [1, 2]
    assert all(r["row_ps"] == [0, 0] for r in outcome["detail"]["rounds"])
    for seat, card in ((0, "AS"), (1, "3H")):
        with pytest.raises(GameOver) as error:
            ENGINE.apply(state, commit(seat, card))
        assert error.value.code == "game_over"
    with pytest.raises(GameOver):
        ENGINE.apply(state, close("turn-7"))


def test_state_round_trips_through_json():
    for state, _ in states_along([DEAL, *turns(W7_OYA, W7_KO)], {"horizontal_ps": True}):
        assert ENGINE.load_state(json.loads(canonical(ENGINE.dump_state(state)))) == state


# ---- the generic harness -----------------------------------------------------------------


def test_harness_with_horizontal_ps():
    check_engine(ENGINE, config={"horizontal_ps": True})


@pytest.mark.parametrize(
    "config",
    [
        {"commit_seconds": 10, "show_set_aside_to_owner": True},
        {"reveal_at_end": True, "show_set_aside_to_owner": True, "horizontal_ps": True},
        {"reveal_at_end": True, "commit_seconds": 5},
    ],
    ids=["deadline", "disclosure", "reveal-after-timeout"],
)
def test_harness_with_other_flags(config):
    check_engine(ENGINE, seeds=15, config=config)
