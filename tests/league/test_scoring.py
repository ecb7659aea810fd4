"""The pure ladder and match rules: settings, challenge range, moves, the log fold, corrections."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from league.scoring import ladder as rules
from league.scoring import matches as match_rules

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def log(*items, settings=None):
    """Events from (kind, payload[, day]) tuples, numbered from 1 after a ladder_created."""
    full = rules.validate_settings(rules.CHALLENGE, settings or {})
    events = [rules.LogEvent(1, rules.LADDER_CREATED, {"settings": full}, T0)]
    for index, item in enumerate(items, start=2):
        kind, payload, *day = item
        events.append(rules.LogEvent(index, kind, payload, T0 + timedelta(days=day[0] if day else 0)))
    return events


def joined(*players):
    return [(rules.PLAYER_JOINED, {"player": p}) for p in players]


def test_settings_defaults_and_errors():
    full = rules.validate_settings(rules.CHALLENGE, {"on_challenger_win": "leapfrog"})
    assert full["challenge_range"] == 3 and full["on_challenger_win"] == "leapfrog"
    with pytest.raises(rules.SettingsError, match="unknown challenge ladder setting"):
        rules.validate_settings(rules.CHALLENGE, {"range": 3})
    with pytest.raises(rules.SettingsError, match="swap"):
        rules.validate_settings(rules.CHALLENGE, {"on_challenger_win": "jump"})
    with pytest.raises(rules.SettingsError, match="last band"):
        rules.validate_settings(rules.CHALLENGE, {"challenge_range": [{"to": 5, "places": 2}]})
    with pytest.raises(rules.SettingsError, match="accept_days"):
        rules.validate_settings(rules.CHALLENGE, {"accept_days": 0})
    with pytest.raises(rules.ScoringError, match="best_of"):
        rules.validate_settings(rules.RATING, {"match": {"format": "best_of"}})
    # A partial update keeps the other settings.
    assert rules.validate_settings(rules.CHALLENGE, {"play_days": 2}, base=full)["on_challenger_win"] == "leapfrog"


def test_range_by_band():
    settings = rules.validate_settings(
        rules.CHALLENGE,
        {"challenge_range": [{"to": 3, "places": 1}, {"to": 10, "places": 2}, {"to": None, "places": 4}]},
    )
    assert [rules.range_places(settings, p) for p in (1, 3, 4, 10, 11, 50)] == [1, 1, 2, 2, 4, 4]


def test_swap_and_leapfrog():
    order = [1, 2, 3, 4, 5]
    assert rules.challenger_wins(order, 5, 2, "swap") == [1, 5, 3, 4, 2]
    assert rules.challenger_wins(order, 5, 2, "leapfrog") == [1, 5, 2, 3, 4]
    assert rules.challenger_wins(order, 2, 5, "swap") == order  # already above: nothing moves
    assert rules.drop_places(order, 2, 2) == [1, 3, 4, 2, 5]
    assert rules.drop_places(order, 4, 3) == [1, 2, 3, 5, 4]  # no further than the bottom


def test_fold_positions_free_challenges_and_records():
    events = log(
        *joined(1, 2, 3, 4, 5),
        (rules.CHALLENGE_ISSUED, {"challenger": 5, "defender": 1, "free": True, "challenge": "c1"}, 1),
        (rules.RESULT, {"challenger": 5, "defender": 1, "ranking": [[5], [1]], "challenge": "c1"}, 2),
        (rules.FORFEIT, {"challenger": 4, "defender": 2, "winner": 4, "loser": 2, "challenge": "c2"}, 3),
        (rules.RESULT, {"challenger": 3, "defender": 5, "ranking": [[5], [3]], "challenge": "c3"}, 4),
        (rules.RESULT, {"challenger": 2, "defender": 4, "ranking": [[2, 4]], "challenge": "c4"}, 5),
        settings={"on_challenger_win": "swap"},
    )
    projection = rules.project(rules.CHALLENGE, events)
    assert projection.order == [5, 4, 3, 2, 1]
    five = projection.players[5]
    assert (five.won, five.lost, five.free_challenges_left) == (2, 0, 0)
    assert projection.players[1].free_challenges_left == 1
    assert (projection.players[2].forfeits_lost, projection.players[2].drawn) == (1, 1)
    assert projection.players[3].last_active_at == T0 + timedelta(days=4)
    assert [c.seq for c in projection.history if c.player == 5] == [8, 10]  # forfeits are not rated


def test_correction_replaces_a_result_and_everything_after_is_refolded():
    base = [
        *joined(1, 2, 3),
        (rules.RESULT, {"challenger": 3, "defender": 1, "ranking": [[3], [1]]}),  # seq 5: 3 1 2
        (rules.RESULT, {"challenger": 2, "defender": 1, "ranking": [[2], [1]]}),  # seq 6: 3 2 1
    ]
    settings = {"on_challenger_win": "leapfrog"}
    assert rules.project(rules.CHALLENGE, log(*base, settings=settings)).order == [3, 2, 1]
    corrected = log(
        *base, (rules.CORRECTION, {"target": 5, "changes": {"ranking": [[1], [3]]}}), settings=settings
    )  # 1 2 3 then 2 beats 1: 2 1 3
    projection = rules.project(rules.CHALLENGE, corrected)
    assert projection.order == [2, 1, 3]
    assert projection.players[3].lost == 1 and projection.players[3].won == 0
    voided = log(*base, (rules.CORRECTION, {"target": 6, "changes": {"void": True}}), settings=settings)
    projection = rules.project(rules.CHALLENGE, voided)
    assert projection.order == [3, 1, 2] and 6 in projection.voided
    assert [c.seq for c in projection.history] == [5, 5]
    # A later correction of the same event wins; void false restores the original.
    restored = log(
        *base,
        (rules.CORRECTION, {"target": 6, "changes": {"void": True}}),
        (rules.CORRECTION, {"target": 6, "changes": {"void": False}}),
        settings=settings,
    )
    assert rules.project(rules.CHALLENGE, restored).order == [3, 2, 1]


def test_check_challenge_range_and_free_challenges():
    projection = rules.project(rules.CHALLENGE, log(*joined(1, 2, 3, 4, 5, 6), settings={"challenge_range": 2}))
    for player in (1, 2, 3, 4, 5):
        projection.players[player].free_challenges_left = 0
    assert rules.check_challenge(projection, 4, 2) is False
    with pytest.raises(rules.ChallengeRefused) as refused:
        rules.check_challenge(projection, 4, 1)
    assert refused.value.code == "out_of_range"
    assert rules.check_challenge(projection, 6, 1) is True  # the newcomer's free challenge
    for challenger, defender, code in ((2, 3, "defender_below"), (2, 2, "challenge_self"), (9, 1, "not_on_ladder")):
        with pytest.raises(rules.ChallengeRefused) as refused:
            rules.check_challenge(projection, challenger, defender)
        assert refused.value.code == code


def test_inactivity_due_counts_whole_periods_from_the_last_activity_or_drop():
    events = log(*joined(1, 2, 3), settings={"inactivity_days": 10, "inactivity_drop_places": 1})
    projection = rules.project(rules.CHALLENGE, events)
    assert rules.inactivity_due(projection, T0 + timedelta(days=9), set()) == []
    due = rules.inactivity_due(projection, T0 + timedelta(days=25), busy={3})
    day10, day20 = T0 + timedelta(days=10), T0 + timedelta(days=20)
    assert due == [(day10, 1), (day10, 2), (day20, 1), (day20, 2)]
    dropped = log(
        *joined(1, 2, 3),
        (rules.INACTIVITY_DROP, {"player": 1, "places": 1, "due_at": (T0 + timedelta(days=10)).isoformat()}, 10),
        settings={"inactivity_days": 10},
    )
    projection = rules.project(rules.CHALLENGE, dropped)
    assert projection.order == [2, 1, 3]
    day10 = T0 + timedelta(days=10)
    assert rules.inactivity_due(projection, T0 + timedelta(days=19), set()) == [(day10, 2), (day10, 3)]


def test_match_progress_best_of_first_to_and_session():
    best_of = match_rules.validate_spec({"format": "best_of", "target": 3})
    win_a, win_b, draw = ([["a"], ["b"]], {}), ([["b"], ["a"]], {}), ([["a", "b"]], {})
    assert match_rules.progress(best_of, ["a", "b"], [win_a])[1] is False
    assert match_rules.progress(best_of, ["a", "b"], [win_a, win_a]) == ({"a": 2.0, "b": 0.0}, True, [["a"], ["b"]])
    totals, finished, ranking = match_rules.progress(best_of, ["a", "b"], [win_a, draw, win_b])
    assert finished and ranking == [["a", "b"]] and totals == {"a": 1.5, "b": 1.5}
    first_to = match_rules.validate_spec({"format": "first_to", "target": 10, "points": "scores"})
    games = [([["a"], ["b"]], {"a": 6, "b": 2}), ([["b"], ["a"]], {"a": 3, "b": 7})]
    assert match_rules.progress(first_to, ["a", "b"], games)[1:] == (False, [])
    games.append(([["b"], ["a"]], {"a": 1, "b": 2}))
    assert match_rules.progress(first_to, ["a", "b"], games)[1:] == (True, [["b"], ["a"]])
    session = match_rules.validate_spec({"format": "session", "target": 4})
    assert match_rules.progress(session, ["a", "b"], [([["b"], ["a"]], {"a": 10, "b": 30})])[1:] == (
        True,
        [["b"], ["a"]],
    )
    assert match_rules.seating(["a", "b", "c"], 4) == ["b", "c", "a"]
    with pytest.raises(match_rules.MatchSpecError):
        match_rules.validate_spec({"format": "best_of", "target": 3, "points": "scores"})
