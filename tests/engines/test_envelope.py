"""The envelope of ``apply`` is the base class's: the same stray event gets the same code in every
game, and every move is checked against its action's declared parameters before the game's code
runs (unknown and oversized fields are refused with one code everywhere)."""

from __future__ import annotations

import pytest

from games.engines import all_engines
from games.engines.base import RuleError
from games.engines.chance import ChanceStream

ENGINES = all_engines()
IDS = [engine.slug for engine in ENGINES]
# The unified codes (README "Engine errors"), spelled out so that a rename shows here.
UNEXPECTED_PARAMETER = "unexpected_parameter"
PARAMETER_TOO_LARGE = "parameter_too_large"
BIG = "<script>" + "x" * 20_000 + "</script>"


def code_of(engine, state, event) -> str:
    with pytest.raises(RuleError) as error:
        engine.apply(state, event)
    return error.value.code


def chance_done(engine, state):
    seq = 0
    while engine.chance_due(state) is not None:
        seq += 1
        state = engine.apply(state, {"kind": "chance", "data": engine.sample_chance(state, ChanceStream(b"env", seq))})
    return state


def move_due(engine):
    """A state right after the opening chance events, with a seat to move and one of its moves."""
    state = chance_done(engine, engine.setup(None, engine.min_seats))
    seat = min(engine.actors(state))
    return state, seat, engine.legal_moves(state, seat)[0]


def game_over(engine):
    state, _, _ = move_due(engine)
    for seat in range(engine.min_seats):
        state = engine.apply(state, {"kind": "system", "data": {"type": "resign", "seat": seat}})
        if engine.outcome(state) is not None:
            return state
    raise AssertionError(f"{engine.slug}: resigning every seat did not end the game")


@pytest.mark.parametrize("engine", ENGINES, ids=IDS)
def test_stray_events_get_the_same_code_in_every_game(engine):
    state, seat, move = move_due(engine)
    assert code_of(engine, state, {"kind": "chance", "data": {"type": "deal"}}) == "unexpected_chance"
    assert code_of(engine, state, {"kind": "gossip", "data": {"type": "deal"}}) == "malformed_event"
    assert code_of(engine, state, {"kind": "system", "data": {"type": "no_such_event"}}) == "malformed_event"
    assert code_of(engine, state, {"kind": "system", "data": {"type": "close_window", "window": "nope"}}) == (
        "window_closed"
    )
    assert code_of(engine, state, {"kind": "move", "seat": seat, "data": {"type": "no_such_action"}}) == (
        "unknown_action"
    )
    over = game_over(engine)
    for event in (
        {"kind": "move", "seat": seat, "data": move},
        {"kind": "chance", "data": {"type": "deal"}},
        {"kind": "system", "data": {"type": "close_window", "window": "nope"}},
        {"kind": "move", "seat": seat, "data": {"type": "no_such_action"}},
    ):
        assert code_of(engine, over, event) == "game_over", event


CHANCE_FIRST = [engine for engine in ENGINES if engine.chance_due(engine.setup(None, engine.min_seats))]


def test_most_games_open_with_a_chance_event():
    assert len(CHANCE_FIRST) >= 5, [engine.slug for engine in CHANCE_FIRST]


@pytest.mark.parametrize("engine", CHANCE_FIRST, ids=[engine.slug for engine in CHANCE_FIRST])
def test_moves_before_the_chance_event(engine):
    state = engine.setup(None, engine.min_seats)
    _, _, move = move_due(engine)
    assert code_of(engine, state, {"kind": "move", "seat": 0, "data": move}) == "chance_expected"
    # An unknown action is unknown whatever the rules wait for (Nine Card said chance_expected).
    unknown = {"kind": "move", "seat": 0, "data": {"type": "no_such_action"}}
    assert code_of(engine, state, unknown) == "unknown_action"
    # The parameters are checked first too: the move never reaches the game's code.
    assert code_of(engine, state, {"kind": "move", "seat": 0, "data": {**move, "note": "hi"}}) == UNEXPECTED_PARAMETER


@pytest.mark.parametrize("engine", ENGINES, ids=IDS)
def test_unknown_fields_are_refused_in_every_game(engine):
    state, seat, move = move_due(engine)
    engine.apply(state, {"kind": "move", "seat": seat, "data": move})  # the move itself is legal
    for extra in ({"comment": BIG}, {"x": 1}, {"card_": None}, {"type ": "x"}):
        event = {"kind": "move", "seat": seat, "data": {**move, **extra}}
        assert code_of(engine, state, event) == UNEXPECTED_PARAMETER, extra


@pytest.mark.parametrize("engine", ENGINES, ids=IDS)
def test_oversized_values_are_refused_in_every_game(engine):
    state, seat, _ = move_due(engine)
    sized = [
        (action.name, name, param)
        for action in engine.actions
        for name, param in action.params.items()
        if param.kind in ("string", "text", "list")
    ]
    assert sized, f"{engine.slug} declares no string parameter"
    for action, name, param in sized:
        value = ["AS"] * (param.max_length + 1) if param.kind == "list" else "x" * (param.max_length + 1)
        event = {"kind": "move", "seat": seat, "data": {"type": action, name: value}}
        assert code_of(engine, state, event) == PARAMETER_TOO_LARGE, (action, name)
        if param.kind == "list":
            event = {"kind": "move", "seat": seat, "data": {"type": action, name: [BIG]}}
            assert code_of(engine, state, event) == PARAMETER_TOO_LARGE, (action, name)


@pytest.mark.parametrize("engine", ENGINES, ids=IDS)
def test_a_timeout_move_keeps_its_reason(engine):
    state, seat, move = move_due(engine)
    expected = engine.dump_state(engine.apply(state, {"kind": "move", "seat": seat, "data": move}))
    marked = {"kind": "move", "seat": seat, "data": {**move, "reason": "timeout"}}
    assert engine.dump_state(engine.apply(state, marked)) == expected
    too_long = {"kind": "move", "seat": seat, "data": {**move, "reason": BIG}}
    assert code_of(engine, state, too_long) == PARAMETER_TOO_LARGE


@pytest.mark.parametrize("engine", ENGINES, ids=IDS)
def test_metadata_lists_every_action_with_its_schema(engine):
    actions = engine.describe()["actions"]
    assert list(actions) == [action.name for action in engine.actions]
    _, _, move = move_due(engine)
    assert move["type"] in actions
    for name, schema in actions.items():
        assert schema["type"] == "object"
        assert schema["additionalProperties"] is False
        assert schema["properties"]["type"] == {"const": name}
        assert "reason" in schema["properties"]
        assert "type" in schema["required"]
        for param in schema["properties"].values():
            if param.get("type") in ("string", ["string", "null"]):
                assert isinstance(param["maxLength"], int), (name, param)
            if param.get("type") == "array":
                assert isinstance(param["maxItems"], int), (name, param)


def test_legal_moves_fit_their_schemas():
    """Every move the engines list passes its action's schema (the harness applies them too)."""
    for engine in ENGINES:
        state, seat, _ = move_due(engine)
        for move in engine.legal_moves(state, seat):
            engine.action(move)


KEPT_CODES = [
    (
        "turn-thief",
        {"type": "discard", "card": "AS", "declared_suit": "X", "declared_rank": "A"},
        "invalid_declared_suit",
    ),
    ("turn-thief", {"type": "discard", "card": "AS", "declared_suit": 3, "declared_rank": "A"}, "malformed_event"),
    ("believers", {"type": "commit_choice", "choice": "maybe"}, "invalid_choice"),
    ("believers", {"type": "commit_choice", "choice": None}, "invalid_choice"),
    ("believers", {"type": "contribute", "text": 5}, "text_not_string"),
    ("kazekami-kyoko", {"type": "take_role", "role": "khan"}, "unknown_role"),
    ("kazekami-kyoko", {"type": "open_tale", "form": "boast", "statement": ["x"]}, "text_not_string"),
    ("necropolis", {"type": "restart_grave", "source": "sky"}, "bad_source"),
    ("necropolis", {"type": "bury_drawn", "end": "middle"}, "bad_end"),
    ("necropolis", {"type": "bury_drawn", "end": "left", "top": "6"}, "malformed_event"),
    ("mekuri-hinmin", {"type": "choose_first_player", "player": 2}, "bad_player"),
    ("mekuri-hinmin", {"type": "choose_first_player", "player": "0"}, "malformed_event"),
    ("mekuri-hinmin", {"type": "choose_initial_upcard_handling", "option": "burn"}, "bad_option"),
    ("mekuri-hinmin", {"type": "play", "cards": ["3S"], "suit": "X"}, "bad_suit"),
    ("mekuri-hinmin", {"type": "play", "cards": ["3S"], "attack": "yes"}, "malformed_event"),
    ("1234", {"type": "play", "cards": [5]}, "not_a_card"),
    ("1234", {"type": "play", "cards": "AS"}, "malformed_event"),
    ("twenty-two", {"type": "lead", "cards": [5]}, "malformed_event"),
    ("nine-card", {"type": "commit_card", "card": 7}, "malformed_event"),
    ("satori", {"type": "hand_over", "s_card": 7}, "malformed_event"),
]


@pytest.mark.parametrize(("slug", "move", "code"), KEPT_CODES, ids=[f"{s}-{c}" for s, _, c in KEPT_CODES])
def test_the_schema_keeps_each_game_s_codes_for_bad_values(slug, move, code):
    """Type and value checks moved into the schemas answer with the codes the games always used."""
    from games.engines import get_engine

    engine = get_engine(slug)
    state, seat, _ = move_due(engine)
    assert code_of(engine, state, {"kind": "move", "seat": seat, "data": move}) == code


def test_every_record_replays_the_same_with_a_reason_on_every_move():
    """A timeout's move is a legal move plus ``"reason"``; every scenario replays as before with it."""
    import json
    from pathlib import Path

    from games.records import replay_record

    for path in sorted((Path(__file__).parent / "records").glob("*/*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines()
        if "error" in json.loads(lines[0])["meta"]["expect"]:
            continue
        marked = [lines[0]]
        for line in lines[1:]:
            event = json.loads(line)
            if event.get("kind") == "move":
                event["data"] = {**event["data"], "reason": "timeout"}
            marked.append(json.dumps(event))
        assert replay_record(marked).outcome_json() == replay_record(lines).outcome_json(), path
