"""Necropolis engine: the generic harness, the attachment rule, the turn and end rules, hidden tiles."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from games.engines.base import (
    ChanceExpected,
    ConfigError,
    GameOver,
    MalformedEvent,
    NotYourTurn,
    RuleError,
    UnexpectedChance,
    WindowClosed,
)
from games.engines.cards import domino_set
from games.engines.chance import ChanceStream
from games.engines.necropolis import ENGINE, NecropolisState

from .harness import canonical, check_engine, random_playthrough

TILES = list(domino_set())


def pile(prefix, suffix=()):
    """A full deal: ``prefix`` on top, ``suffix`` at the bottom, the other tiles in set order."""
    middle = [t for t in TILES if t not in prefix and t not in suffix]
    return list(prefix) + middle + list(suffix)


def deal(tiles):
    return {"kind": "chance", "data": {"type": "deal", "necropolis": tiles}}


def move(seat, action, **params):
    return {"kind": "move", "seat": seat, "data": {"type": action, **params}}


def play(state, *events):
    for event in events:
        state = ENGINE.apply(state, event)
    return state


def start(prefix=("3-5", "0-0"), suffix=(), config=None):
    return play(ENGINE.setup(config, 2), deal(pile(list(prefix), list(suffix))))


def position(grave, *, drawn=None, mastaba=(), config=None, necropolis=None):
    """Seat 0 to act with the given row (start tile first unless said otherwise)."""
    state = start(config=config)
    rest = tuple(t for t in TILES if t not in ("3-5", "0-0", drawn, *mastaba))
    return replace(
        state,
        graves=(tuple(grave), ((0, 0),)),
        drawn=drawn,
        mastabas=(tuple(mastaba), ()),
        necropolis=rest if necropolis is None else tuple(necropolis),
    )


def rejects(state, event, code):
    with pytest.raises(RuleError) as error:
        ENGINE.apply(state, event)
    assert error.value.code == code, error.value.message
    assert error.value.message
    return error.value


# ---- the generic harness ---------------------------------------------------------------------
# The default config's harness run (every seat count, 30 seeds) is tests/engines/test_harness.py's.


@pytest.mark.parametrize(
    "config",
    [
        # Without agreement random games run to an empty necropolis (about 60 events).
        {"allow_end_by_agreement": False},
        {"allow_end_by_agreement": False, "exchange_order": "draw_then_return"},
        {"allow_end_by_agreement": False, "exchange_order": "return_then_draw_any"},
        {"match_games": 3},
        {"match_games": 2, "allow_end_by_agreement": False, "turn_limit": 15},
        {"mastaba_self_view": False, "show_discarded_graves": True, "score_plus_one": False},
    ],
    ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()),
)
def test_harness_configs(config):
    # Fewer seeds than the default run: these configs make longer games.
    check_engine(ENGINE, seeds=12, config=config)


def test_config_validation():
    assert ENGINE.validate_config({})["exchange_order"] == "return_then_draw_other"
    for bad in (
        {"exchange_order": "swap"},
        {"tie_result": "first_player"},
        {"match_games": 0},
        {"match_games": 11},
        {"turn_limit": 0},
        {"allow_end_by_agreement": "yes"},
    ):
        with pytest.raises(ConfigError):
            ENGINE.setup(bad, 2)
    with pytest.raises(ConfigError):
        ENGINE.setup({}, 3)


# ---- setup and chance --------------------------------------------------------------------
def test_deal_gives_each_seat_a_start_tile_lower_value_on_top():
    state = start(("3-5", "0-6"))
    assert state.graves == (((3, 5),), ((0, 6),))
    assert len(state.necropolis) == 26 and state.active == 0
    assert ENGINE.chance_due(state) is None


@pytest.mark.parametrize(
    "tiles, code",
    [
        (TILES[:27], "bad_deal"),
        (TILES[:27] + ["0-0"], "bad_deal"),
        (TILES[:27] + ["6-7"], "bad_tile"),
        (TILES[:27] + ["6-5"], "bad_tile"),
    ],
)
def test_bad_deals_are_rejected(tiles, code):
    rejects(ENGINE.setup({}, 2), deal(tiles), code)


def test_malformed_deal_and_wrong_chance_steps():
    state = ENGINE.setup({}, 2)
    with pytest.raises(MalformedEvent):
        ENGINE.apply(state, {"kind": "chance", "data": {"type": "deal", "necropolis": "0-0"}})
    with pytest.raises(UnexpectedChance):
        ENGINE.apply(state, {"kind": "chance", "data": {"type": "exchange_draw"}})
    with pytest.raises(ChanceExpected):
        ENGINE.apply(state, move(0, "draw"))
    with pytest.raises(UnexpectedChance):
        ENGINE.apply(start(), deal(TILES))


def test_sample_chance_is_a_valid_deal_and_exchange_never_redraws_the_returned_tile():
    state = ENGINE.setup({}, 2)
    data = ENGINE.sample_chance(state, ChanceStream(b"seed", 1))
    state = ENGINE.apply(state, {"kind": "chance", "data": data})
    state = replace(state, mastabas=(("6-6",), ()), necropolis=("0-1",))
    exchanging = ENGINE.apply(state, move(0, "exchange", tile="6-6"))
    assert ENGINE.chance_due(exchanging) == "exchange_draw"
    for seq in range(20):
        data = ENGINE.sample_chance(exchanging, ChanceStream(b"seed", seq))
        assert data == {"type": "exchange_draw", "drawn": "0-1", "necropolis": ["6-6"]}
    anyway = replace(exchanging, config={**exchanging.config, "exchange_order": "return_then_draw_any"})
    drawn = {ENGINE.sample_chance(anyway, ChanceStream(b"seed", seq))["drawn"] for seq in range(40)}
    assert drawn == {"0-1", "6-6"}


def test_exchange_draw_is_validated():
    state = replace(start(), mastabas=(("6-6",), ()), necropolis=("0-1", "2-2"))
    state = ENGINE.apply(state, move(0, "exchange", tile="6-6"))
    assert state.necropolis == ("0-1", "2-2", "6-6") and state.mastabas[0] == ()

    def draw(drawn, rest):
        return {"kind": "chance", "data": {"type": "exchange_draw", "drawn": drawn, "necropolis": rest}}

    rejects(state, draw("6-6", ["0-1", "2-2"]), "bad_exchange_draw")  # the returned tile
    rejects(state, draw("3-3", ["0-1", "2-2", "6-6"]), "bad_exchange_draw")  # not in the necropolis
    rejects(state, draw("0-1", ["2-2"]), "bad_exchange_draw")  # 6-6 went missing
    rejects(state, draw("0-1", ["2-2", "6-6", "6-6"]), "bad_exchange_draw")
    rejects(state, move(0, "draw"), "chance_expected")
    after = ENGINE.apply(state, draw("0-1", ["6-6", "2-2"]))
    assert after.mastabas[0] == ("0-1",) and after.necropolis == ("6-6", "2-2") and after.active == 1


# ---- W1 and the attachment rule ----------------------------------------------------------
W1_ROW = ((0, 0), (0, 1), (1, 1), (1, 2))


@pytest.mark.parametrize("source", ["drawn", "mastaba"])
@pytest.mark.parametrize(
    "tile, end, top, expected",
    [
        ("0-4", "left", 0, ((0, 4),) + W1_ROW),
        ("2-6", "right", 6, W1_ROW + ((6, 2),)),
        ("1-5", "right", 1, W1_ROW + ((1, 5),)),
        ("1-5", "right", None, W1_ROW + ((1, 5),)),
        ("2-6", "right", None, W1_ROW + ((6, 2),)),
        ("3-4", "left", None, "does_not_fit"),
        ("3-4", "right", 3, "does_not_fit"),
        ("1-3", "left", 1, "does_not_fit"),
        ("2-6", "right", 2, "wrong_orientation"),
    ],
)
def test_w1_reference_row(source, tile, end, top, expected):
    params = {"end": end} if top is None else {"end": end, "top": top}
    if source == "drawn":
        state = position(W1_ROW, drawn=tile)
        event = move(0, "bury_drawn", **params)
    else:
        state = position(W1_ROW, mastaba=(tile,))
        event = move(0, "bury_from_mastaba", tile=tile, **params)
    if isinstance(expected, str):
        rejects(state, event, expected)
        return
    after = ENGINE.apply(state, event)
    assert after.graves[0] == expected
    assert after.start_index[0] == (1 if end == "left" else 0)
    assert after.mastabas[0] == () and after.drawn is None and after.active == 1


def test_t1_wrong_orientation_leaves_the_tile_pending():
    state = position(((3, 5),), drawn="5-6")
    error = rejects(state, move(0, "bury_drawn", end="right", top=5), "wrong_orientation")
    assert "top=6" in error.message
    assert state.drawn == "5-6"  # apply is pure: the state keeps the pending tile
    assert list(ENGINE.legal_moves(state, 0)) == [
        {"type": "bury_drawn", "end": "left", "top": 6},
        {"type": "bury_drawn", "end": "right", "top": 6},
        {"type": "entomb_drawn"},
    ]
    after = ENGINE.apply(state, move(0, "bury_drawn", end="right", top=6))
    assert after.graves[0] == ((3, 5), (6, 5))


def test_t2_start_tile_moves_to_the_middle_and_still_scores():
    state = position(((3, 5), (6, 5)), drawn="3-4")
    rejects(state, move(0, "bury_drawn", end="right"), "does_not_fit")
    after = ENGINE.apply(state, move(0, "bury_drawn", end="left", top=3))
    assert after.graves[0] == ((3, 4), (3, 5), (6, 5)) and after.start_index[0] == 1
    assert ENGINE._start_tile(after, 0) == "3-5"


def test_t3_unburiable_tile_must_be_entombed():
    state = position(((3, 5),), drawn="1-2")
    assert list(ENGINE.legal_moves(state, 0)) == [{"type": "entomb_drawn"}]
    after = ENGINE.apply(state, move(0, "entomb_drawn"))
    assert after.mastabas[0] == ("1-2",)
    opponent = ENGINE.view(after, 1)["players"][0]
    assert opponent["mastaba_count"] == 1 and opponent["mastaba"] is None
    assert ENGINE.view(after, 0)["players"][0]["mastaba"] == ["1-2"]


def test_one_tile_row_has_two_distinct_ends():
    state = position(((2, 4),), drawn="4-4")
    assert list(ENGINE.legal_moves(state, 0))[:2] == [
        {"type": "bury_drawn", "end": "left", "top": 4},
        {"type": "bury_drawn", "end": "right", "top": 4},
    ]
    left = ENGINE.apply(state, move(0, "bury_drawn", end="left", top=4))
    right = ENGINE.apply(state, move(0, "bury_drawn", end="right", top=4))
    assert left.graves[0] == ((4, 4), (2, 4)) and left.start_index[0] == 1
    assert right.graves[0] == ((2, 4), (4, 4)) and right.start_index[0] == 0


def test_bad_parameters():
    state = position(((3, 5),), drawn="5-6")
    rejects(state, move(0, "bury_drawn", end="middle", top=5), "bad_end")
    rejects(state, move(0, "bury_drawn", end="right", top=4), "bad_top")
    rejects(state, move(0, "bury_drawn", top=6), "malformed_event")
    rejects(state, move(0, "bury_drawn", end="right", top="6"), "malformed_event")
    rejects(state, move(0, "bury_drawn", end="right", top=True), "malformed_event")
    fresh = position(((3, 5),), mastaba=("5-6",))
    rejects(fresh, move(0, "restart_grave", source="stock"), "bad_source")
    rejects(fresh, move(0, "restart_grave", source="necropolis", tile="5-6"), "tile_not_allowed")
    rejects(fresh, move(0, "restart_grave", source="mastaba"), "malformed_event")
    rejects(fresh, move(0, "exchange"), "malformed_event")
    rejects(fresh, move(0, "bury_drawn", end="right"), "no_drawn_tile")
    rejects(fresh, move(0, "entomb_drawn"), "no_drawn_tile")
    rejects(fresh, move(0, "pass"), "unknown_action")


# ---- turn structure ----------------------------------------------------------------------
def test_legal_moves_at_turn_start():
    state = position(((3, 5),), mastaba=("1-3", "2-2"))
    assert list(ENGINE.legal_moves(state, 1)) == []
    assert list(ENGINE.legal_moves(state, 0)) == [
        {"type": "propose_end"},
        {"type": "draw"},
        {"type": "bury_from_mastaba", "tile": "1-3", "end": "left", "top": 3},
        {"type": "bury_from_mastaba", "tile": "1-3", "end": "right", "top": 3},
        {"type": "restart_grave", "source": "necropolis"},
        {"type": "restart_grave", "source": "mastaba", "tile": "1-3"},
        {"type": "restart_grave", "source": "mastaba", "tile": "2-2"},
        {"type": "exchange", "tile": "1-3"},
        {"type": "exchange", "tile": "2-2"},
    ]


def test_pending_tile_blocks_other_actions():
    state = ENGINE.apply(position(((3, 5),), mastaba=("1-3",)), move(0, "draw"))
    for event in (
        move(0, "draw"),
        move(0, "propose_end"),
        move(0, "exchange", tile="1-3"),
        move(0, "restart_grave", source="necropolis"),
        move(0, "bury_from_mastaba", tile="1-3", end="left", top=1),
    ):
        rejects(state, event, "tile_pending")
    rejects(state, move(1, "entomb_drawn"), "not_your_turn")


def test_t5_empty_mastaba():
    state = replace(position(((3, 5),), mastaba=("0-1",)), active=1)
    assert list(ENGINE.legal_moves(state, 1)) == [
        {"type": "propose_end"},
        {"type": "draw"},
        {"type": "restart_grave", "source": "necropolis"},
    ]
    rejects(state, move(1, "exchange", tile="0-1"), "tile_not_in_mastaba")
    rejects(state, move(1, "bury_from_mastaba", tile="0-1", end="left", top=0), "tile_not_in_mastaba")
    rejects(state, move(1, "restart_grave", source="mastaba", tile="0-1"), "tile_not_in_mastaba")


def test_t8_restart_discards_the_row_and_moves_the_start_tile():
    state = position(((0, 3), (3, 3)), mastaba=("6-6",))
    after = ENGINE.apply(state, move(0, "restart_grave", source="mastaba", tile="6-6"))
    assert after.graves[0] == ((6, 6),) and after.start_index[0] == 0
    assert after.discards[0] == ("0-3", "3-3") and after.mastabas[0] == ()
    assert ENGINE._scores(after)[0] == 13
    view = ENGINE.view(after, 1)["players"][0]
    assert view["discarded_count"] == 2 and view["discarded"] is None


def test_a9_restart_from_the_necropolis_with_a_one_tile_row():
    state = position(((3, 5),), necropolis=("2-6", "0-1"))
    after = ENGINE.apply(state, move(0, "restart_grave", source="necropolis"))
    assert after.graves[0] == ((2, 6),) and after.discards[0] == ("3-5",)
    assert after.necropolis == ("0-1",) and after.active == 1


def test_t10_proposal_declined_then_the_proposer_acts():
    state = start()
    state = ENGINE.apply(state, move(0, "propose_end"))
    assert ENGINE.actors(state) == {1}
    assert list(ENGINE.legal_moves(state, 1)) == [{"type": "accept_end"}, {"type": "decline_end"}]
    assert list(ENGINE.legal_moves(state, 0)) == []
    with pytest.raises(NotYourTurn):
        ENGINE.apply(state, move(0, "draw"))
    with pytest.raises(NotYourTurn):
        ENGINE.apply(state, move(0, "accept_end"))
    rejects(state, move(1, "draw"), "must_answer_proposal")
    state = ENGINE.apply(state, move(1, "decline_end"))
    assert ENGINE.actors(state) == {0}
    assert {"type": "propose_end"} not in ENGINE.legal_moves(state, 0)
    rejects(state, move(0, "propose_end"), "already_proposed")
    rejects(state, move(1, "accept_end"), "no_proposal")
    state = play(state, move(0, "draw"), move(0, "entomb_drawn"))
    assert {"type": "propose_end"} in ENGINE.legal_moves(state, 1)


def test_end_by_agreement_can_be_switched_off():
    state = start(config={"allow_end_by_agreement": False})
    assert {"type": "propose_end"} not in ENGINE.legal_moves(state, 0)
    rejects(state, move(0, "propose_end"), "end_by_agreement_disabled")


def test_a5_last_tile_is_placed_then_the_game_ends():
    state = position(((2, 2),), mastaba=("5-6",), necropolis=("2-4",))
    state = ENGINE.apply(state, move(0, "draw"))
    assert ENGINE.outcome(state) is None and state.necropolis == ()
    state = ENGINE.apply(state, move(0, "bury_drawn", end="right", top=2))
    outcome = ENGINE.outcome(state)
    assert outcome.detail["reason"] == "necropolis_empty"
    assert outcome.scores == {0: 11 + 4 + 1, 1: 0 + 0 + 1}
    assert outcome.ranking == ((1,), (0,))
    with pytest.raises(GameOver):
        ENGINE.apply(state, move(1, "draw"))


def test_t7_exchange_with_the_last_tile_keeps_the_game_going():
    state = position(((2, 2),), mastaba=("0-1",), necropolis=("4-5",))
    state = ENGINE.apply(state, move(0, "exchange", tile="0-1"))
    state = ENGINE.apply(state, {"kind": "chance", "data": ENGINE.sample_chance(state, ChanceStream(b"x", 9))})
    assert state.necropolis == ("0-1",) and state.mastabas[0] == ("4-5",)
    assert ENGINE.outcome(state) is None and state.active == 1


def test_turn_limit_ends_the_game():
    state = start(config={"turn_limit": 2})
    state = play(state, move(0, "draw"), move(0, "entomb_drawn"))
    assert ENGINE.outcome(state) is None
    state = play(state, move(1, "draw"), move(1, "entomb_drawn"))
    assert ENGINE.outcome(state).detail["reason"] == "turn_limit"


def test_t4_and_t9_scores():
    state = position(((4, 6),), mastaba=("0-0", "2-3"))
    state = replace(state, graves=(((1, 1), (1, 4), (4, 6)), ((6, 6), (6, 5))), start_index=(2, 0))
    assert ENGINE._scores(state) == (16, 13)
    state = play(state, move(0, "propose_end"), move(1, "accept_end"))
    assert ENGINE.outcome(state).ranking == ((1,), (0,))
    tied = play(start(("4-4", "3-5")), move(0, "propose_end"), move(1, "accept_end"))
    outcome = ENGINE.outcome(tied)
    assert outcome.ranking == ((0, 1),) and outcome.scores == {0: 9, 1: 9}


def test_resign_and_system_events():
    state = ENGINE.apply(ENGINE.setup({}, 2), {"kind": "system", "data": {"type": "resign", "seat": 1}})
    assert ENGINE.outcome(state).ranking == ((0,), (1,))
    state = start()
    with pytest.raises(WindowClosed):
        ENGINE.apply(state, {"kind": "system", "data": {"type": "close_window", "window": "turn-1"}})
    with pytest.raises(MalformedEvent):
        ENGINE.apply(state, {"kind": "system", "data": {"type": "resign", "seat": 2}})
    assert ENGINE.deadline(state) is None
    resigned = ENGINE.apply(state, {"kind": "system", "data": {"type": "resign", "seat": 0}})
    outcome = ENGINE.outcome(resigned)
    assert outcome.ranking == ((1,), (0,)) and outcome.detail["reason"] == "resign"


def test_match_alternates_the_first_player_and_adds_scores():
    config = {"match_games": 2}
    state = play(ENGINE.setup(config, 2), deal(pile(["4-4", "0-0"])), move(0, "propose_end"), move(1, "accept_end"))
    assert ENGINE.outcome(state) is None and ENGINE.chance_due(state) == "deal"
    assert ENGINE.view(state, None)["games"] == [{"first": 0, "reason": "agreement", "scores": [9, 1]}]
    state = ENGINE.apply(state, deal(pile(["6-6", "1-1"])))
    assert state.active == 1 and state.graves == (((1, 1),), ((6, 6),))  # the first player takes the top tile
    rejects(state, move(0, "draw"), "not_your_turn")
    state = play(state, move(1, "propose_end"), move(0, "accept_end"))
    outcome = ENGINE.outcome(state)
    assert outcome.scores == {0: 9 + 3, 1: 1 + 13} and outcome.ranking == ((0,), (1,))
    assert [game["first"] for game in outcome.detail["games"]] == [0, 1]


# ---- hidden information ------------------------------------------------------------------
def test_drawn_tile_is_seen_by_the_drawer_only():
    state = ENGINE.apply(start(), move(0, "draw"))
    drawn = state.drawn
    assert ENGINE.view(state, 0)["players"][0]["drawn"] == drawn
    for seat in (1, None):
        player = ENGINE.view(state, seat)["players"][0]
        assert player["drawn"] is None and player["holding_drawn"] is True
        assert f'"{drawn}"' not in canonical(ENGINE.view(state, seat))
        assert drawn in ENGINE.hidden_from(state, seat)


def test_deal_event_shows_only_the_start_tiles():
    tiles = pile(["3-5", "0-0"])
    state = start()
    shown = ENGINE.event_view(state, deal(tiles), 1)["data"]["necropolis"]
    assert shown[:2] == ["3-5", "0-0"] and shown[2:] == [None] * 26


def test_exchange_reveals_nothing_to_the_opponent():
    state = position(((3, 5),), mastaba=("6-6",), necropolis=("0-1", "2-2"))
    swap = move(0, "exchange", tile="6-6")
    state = ENGINE.apply(state, swap)
    chance = {"kind": "chance", "data": {"type": "exchange_draw", "drawn": "2-2", "necropolis": ["6-6", "0-1"]}}
    state = ENGINE.apply(state, chance)
    assert ENGINE.event_view(state, swap, 0)["data"]["tile"] == "6-6"
    assert ENGINE.event_view(state, chance, 0)["data"] == {
        "type": "exchange_draw",
        "drawn": "2-2",
        "necropolis": [None, None],
    }
    for seat in (1, None):
        assert ENGINE.event_view(state, swap, seat)["data"]["tile"] is None
        assert ENGINE.event_view(state, chance, seat)["data"]["drawn"] is None
        assert ENGINE.view(state, seat)["players"][0]["mastaba"] is None
    # The returned tile is no secret to the seat that returned it, only its place is.
    assert "6-6" not in ENGINE.hidden_from(state, 0) and "6-6" in ENGINE.hidden_from(state, 1)
    # Even once the opponent holds 6-6, it does not learn who drew what in that exchange.
    later = replace(state, mastabas=(("2-2",), ("6-6",)), necropolis=("0-1",), active=1)
    assert ENGINE.event_view(later, swap, 1)["data"]["tile"] is None
    assert ENGINE.event_view(later, chance, 1)["data"]["drawn"] is None


def test_mastaba_self_view_off_hides_the_list_but_not_the_count():
    state = position(((3, 5),), mastaba=("6-6",), config={"mastaba_self_view": False})
    player = ENGINE.view(state, 0)["players"][0]
    assert player["mastaba"] is None and player["mastaba_count"] == 1


def test_everything_is_public_at_the_end():
    state = position(((3, 5),), mastaba=("6-6",), necropolis=("0-1", "2-2"))
    state = play(state, move(0, "propose_end"), move(1, "accept_end"))
    assert ENGINE.hidden_from(state, 1) == frozenset()
    view = ENGINE.view(state, 1)
    assert view["players"][0]["mastaba"] == ["6-6"] and view["necropolis"] == ["0-1", "2-2"]
    assert view["result"]["scores"] == {"0": 8 + 12 + 1, "1": 1}


@pytest.mark.parametrize("config", [{}, {"allow_end_by_agreement": False}, {"match_games": 3}])
def test_views_never_show_the_necropolis_or_the_opponents_mastaba(config):
    """A stricter check than the harness: no exemption for tiles a seat once returned."""
    for seed in range(8):
        events, states = random_playthrough(ENGINE, 2, seed, config, checks=False)
        for state in states:
            if state.phase == "over":
                continue
            for seat in (0, 1, None):
                secret = set(state.necropolis)
                for owner in (0, 1):
                    if owner != seat:
                        secret.update(state.mastabas[owner])
                        if state.drawn and state.active == owner:
                            secret.add(state.drawn)
                text = canonical(ENGINE.view(state, seat))
                assert not [t for t in secret if f'"{t}"' in text]


def test_dump_and_load_round_trip_mid_exchange():
    state = position(((3, 5), (5, 5)), mastaba=("6-6", "0-1"), necropolis=("1-1", "2-2"))
    state = ENGINE.apply(state, move(0, "exchange", tile="6-6"))
    loaded = ENGINE.load_state(json.loads(json.dumps(ENGINE.dump_state(state))))
    assert loaded == state and isinstance(loaded, NecropolisState)
