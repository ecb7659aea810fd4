"""Reported results as pure functions: how a pairing may be decided, and whether a reported result
is one the pairing's rules allow (issue 17).

A result is reported in the engine's own outcome shape: a ``ranking`` of the pairing's players,
best first, ties grouped, and optional ``scores`` by player (a game's points, e.g. Twenty-Two
penalty points or 1234 match points; for a pairing played as a series, each player's match points,
e.g. 2 and 1 for "aki beat ben 2-1"). The checks:

- the ranking lists each player of the pairing exactly once, no empty group;
- scores, if given, are finite numbers (at most ``SCORE_LIMIT`` in size) for exactly the pairing's
  players;
- a series (``league.scoring.matches``) needs its score, and the score must be one the format can
  end on: best of N with wins, a winner with more than N/2 points and no more than one game past it,
  and no more games than N; first to N, someone at N (no more than one game's points past it with
  wins); a ranking that is the series' standing by those points (``matches.standing``). A session
  (one long game with the engine's own carry-over) is checked as a game.

The engines do not say which way their scores count (Twenty-Two's penalties are low-best, 1234's
points high-best, and a resigned game ranks the resigner last whatever the score), so for a single
game the scores are checked for shape and size only; the players confirming are the check on them.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

from . import matches as match_rules
from .errors import ScoringError

ONLINE = "online"
TABLE = "table"
EITHER = "either"
MODES = (ONLINE, TABLE, EITHER)
DEFAULT_MODE = ONLINE
DEFAULT_CONFIRM_HOURS = 48.0
MAX_CONFIRM_HOURS = 24 * 90.0
SCORE_LIMIT = 1_000_000


class ReportError(ScoringError):
    code = "invalid_report"


def check_mode(mode) -> str:
    if mode not in MODES:
        raise ReportError(
            f"results is how a pairing may be decided: {', '.join(MODES)} (online: only a game played on the "
            f"server; table: only a reported result; either), not {mode!r}",
            code="invalid_results_mode",
        )
    return mode


def check_confirm_hours(hours) -> float:
    if isinstance(hours, bool) or not isinstance(hours, int | float) or not 0 < hours <= MAX_CONFIRM_HOURS:
        raise ReportError(
            f"report_confirm_hours is the hours after which an unconfirmed report counts as confirmed: "
            f"a number above 0 and at most {MAX_CONFIRM_HOURS:g}, not {hours!r}",
            code="invalid_confirm_hours",
        )
    return float(hours)


def check_ranking(players: Sequence[Hashable], ranking) -> list[list]:
    """``ranking`` as a list of groups, if it lists each of ``players`` exactly once."""
    if (
        not isinstance(ranking, list | tuple)
        or not ranking
        or any(not isinstance(group, list | tuple) or not group for group in ranking)
    ):
        raise ReportError(
            "ranking is a list of groups of players, best first, ties in one group: [[winner], [loser]]",
            code="invalid_ranking",
        )
    flat = [player for group in ranking for player in group]
    outsiders = [player for player in flat if player not in set(players)]
    if outsiders:
        raise ReportError(
            f"not in this pairing: {', '.join(map(str, outsiders))}; the ranking lists its players only",
            code="player_not_in_pairing",
        )
    if sorted(map(str, flat)) != sorted(map(str, players)):
        raise ReportError(
            "the ranking lists each player of the pairing exactly once (best first, ties grouped)",
            code="invalid_ranking",
        )
    return [list(group) for group in ranking]


def check_scores(players: Sequence[Hashable], scores) -> dict | None:
    if scores is None:
        return None
    if not isinstance(scores, dict) or set(scores) != set(players):
        raise ReportError("scores gives a number for each player of the pairing, or is left out", code="invalid_scores")
    for player, value in scores.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise ReportError(f"the score of {player} must be a number, not {value!r}", code="invalid_scores")
        if abs(value) > SCORE_LIMIT:
            raise ReportError(
                f"the score of {player} ({value:g}) is beyond any game's scale (at most {SCORE_LIMIT:g})",
                code="impossible_score",
            )
    return {player: float(value) for player, value in scores.items()}


def _impossible(message: str) -> ReportError:
    return ReportError(message, code="impossible_score")


def check_series(spec: dict, players: Sequence[Hashable], ranking: list[list], scores: dict | None) -> None:
    """A series' score (match points by player) must be one its format ends on, and the ranking its
    standing (``matches.progress``'s rules, read backwards from the final score)."""
    if spec["format"] == "session":
        return
    if scores is None:
        raise ReportError(
            f"this pairing is a {spec['format'].replace('_', ' ')} {spec['target']} series: give each player's "
            'match points in scores, e.g. {"aki": 2, "ben": 1}',
            code="series_score_required",
        )
    target, points = spec["target"], spec["points"]
    best, games = max(scores.values()), None
    if points == "wins":
        if any(value < 0 or (value * 2) % 1 for value in scores.values()):
            raise _impossible("in a series counted by wins, a player has whole or half points, never below 0")
        games = sum(scores.values()) if len(players) == 2 else None
        if games is not None and games % 1:
            raise _impossible("two players share every game's point, so their points add up to whole games")
    if spec["format"] == "best_of":
        if games is not None and games > target:
            raise _impossible(f"a best of {target} has at most {target} games, not {games:g}")
        majority = best > target / 2
        if not majority and (games is None or games < target):
            raise _impossible(f"a best of {target} is not over until someone has more than {target / 2:g} points")
        if majority and best - 1 > target / 2:
            raise _impossible(f"a best of {target} ends as soon as someone passes {target / 2:g} points")
    else:
        if best < target:
            raise _impossible(f"a first to {target} is not over until someone has {target} points")
        if points == "wins" and best - 1 >= target:
            raise _impossible(f"a first to {target} ends as soon as someone reaches {target}")
        if sum(1 for value in scores.values() if value >= target) > 1 and points == "wins":
            raise _impossible(f"only one player can reach {target} first")
    standing = match_rules.standing(list(players), scores)
    if [sorted(map(str, group)) for group in standing] != [sorted(map(str, group)) for group in ranking]:
        raise ReportError(
            "the ranking must follow the series' points: most points first, equal points tied",
            code="ranking_disagrees_with_score",
        )


def check_result(
    players: Sequence[Hashable], ranking, scores, *, series: dict | None = None
) -> tuple[list, dict | None]:
    """The checked ``(ranking, scores)`` of a reported result of a pairing of ``players``
    (``series``: its match spec, if the pairing is played as a series of games)."""
    ranking = check_ranking(players, ranking)
    scores = check_scores(players, scores)
    if series is not None:
        check_series(series, players, ranking, scores)
    return ranking, scores
