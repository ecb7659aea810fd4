"""Data-driven scenarios: every ``records/<game>/*.jsonl`` file replays to what its header expects.

A scenario is an ordinary game record whose header carries ``meta.expect``:
- ``{"outcome": {...}}``: the game ends and the outcome contains these fields (``null``: still
  running); ``{"view": {...}}``: the spectator view of the final state contains these fields;
- ``{"error": {"line": L, "code": C}}``: replay stops at line L with that error code.
Dicts match by subset (every expected key must be there and match); lists match element-wise.
"""

from pathlib import Path

import pytest

from games.records import RecordError, replay_record

RECORDS = Path(__file__).parent / "records"
SCENARIOS = sorted(RECORDS.glob("*/*.jsonl"))


def matches(expected, actual) -> bool:
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(k in actual and matches(v, actual[k]) for k, v in expected.items())
    if isinstance(expected, list):
        return (
            isinstance(actual, list | tuple)
            and len(expected) == len(actual)
            and all(matches(e, a) for e, a in zip(expected, actual, strict=True))
        )
    return expected == actual


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_scenario(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    import json

    expect = json.loads(lines[0])["meta"]["expect"]
    if "error" in expect:
        with pytest.raises(RecordError) as error:
            replay_record(lines)
        assert (error.value.line, error.value.code) == (expect["error"]["line"], expect["error"]["code"]), str(
            error.value
        )
        return
    replay = replay_record(lines)
    if "outcome" in expect:
        outcome = replay.outcome_json()
        if expect["outcome"] is None:
            assert outcome is None
        else:
            assert matches(expect["outcome"], outcome), outcome
    if "view" in expect:
        view = replay.engine.view(replay.state, None)
        assert matches(expect["view"], view), view


def test_there_are_scenarios_for_every_game():
    from games.engines import REGISTRY

    covered = {path.parent.name for path in SCENARIOS}
    assert set(REGISTRY) <= covered, f"games without scenario records: {set(REGISTRY) - covered}"
