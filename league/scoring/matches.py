"""Matches (a series of games between the same players) as pure functions: format and score.

Formats:
- ``best_of`` N: a win is 1 point and a shared first place 1/2 to each sharer; the match ends when
  a player has more than N/2 points or after N games (then it may be drawn).
- ``first_to`` N: the first to N points wins; ``points`` is ``wins`` (as above) or ``scores``
  (the engine's own game scores added up, e.g. pips in dominoes). Capped at MAX_GAMES games.
- ``session``: one game played with the engine's own ``match_games`` = N, so the game's own
  carry-over rules (scores, the previous loser leading, chips) apply; the match result is that
  game's ranking.

Seats rotate by one each game, so the first player alternates (two players) or moves round.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from .errors import ScoringError

FORMATS = ("best_of", "first_to", "session")
POINTS = ("wins", "scores")
MAX_GAMES = 100


class MatchSpecError(ScoringError):
    code = "invalid_match"


def validate_spec(spec) -> dict:
    """``{"format": ..., "target": N, "points": "wins"|"scores"}`` with defaults filled in."""
    if not isinstance(spec, dict):
        raise MatchSpecError('a match is an object like {"format": "best_of", "target": 3}')
    unknown = sorted(set(spec) - {"format", "target", "points"})
    if unknown:
        raise MatchSpecError(f"unknown match field(s) {', '.join(unknown)}; allowed: format, target, points")
    fmt = spec.get("format")
    if fmt not in FORMATS:
        raise MatchSpecError(f"match format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    target = spec.get("target")
    high = {"best_of": 99, "first_to": 10_000, "session": 20}[fmt]
    if isinstance(target, bool) or not isinstance(target, int) or not 1 <= target <= high:
        raise MatchSpecError(f"a {fmt} match needs a whole-number target from 1 to {high}, not {target!r}")
    points = spec.get("points", "wins")
    if points not in POINTS or (points == "scores" and fmt != "first_to"):
        raise MatchSpecError("points may be 'wins', or 'scores' for a first_to match")
    return {"format": fmt, "target": target, "points": points}


def seating(players: Sequence[Hashable], number: int) -> list:
    """The seat order of game ``number`` (0-based): rotated by one each game."""
    shift = number % len(players)
    return list(players[shift:]) + list(players[:shift])


def game_points(spec: dict, ranking: Sequence[Sequence[Hashable]], scores: dict) -> dict:
    """The match points each player earns from one game's ranking (and the engine's scores)."""
    players = [player for group in ranking for player in group]
    if spec["points"] == "scores":
        return {player: float(scores.get(player, 0)) for player in players}
    points = dict.fromkeys(players, 0.0)
    first = ranking[0]
    for player in first:
        points[player] = 1.0 if len(first) == 1 else 0.5
    return points


def standing(players: Sequence[Hashable], totals: dict) -> list[list]:
    """Players grouped by match points, most first (equal points tie)."""
    ordered = sorted(players, key=lambda p: -totals.get(p, 0.0))
    groups: list[list] = []
    for player in ordered:
        if groups and totals.get(groups[-1][0], 0.0) == totals.get(player, 0.0):
            groups[-1].append(player)
        else:
            groups.append([player])
    return groups


def progress(spec: dict, players: Sequence[Hashable], games: Sequence[tuple[list, dict]]) -> tuple[dict, bool, list]:
    """``(totals, finished, ranking)`` after the finished ``games`` (each ``(ranking, scores)``)."""
    totals = dict.fromkeys(players, 0.0)
    if spec["format"] == "session":
        if not games:
            return totals, False, []
        ranking, scores = games[0]
        totals.update({p: float(scores.get(p, 0)) for p in players})
        return totals, True, [list(group) for group in ranking]
    for ranking, scores in games:
        for player, points in game_points(spec, ranking, scores).items():
            totals[player] += points
    target, played = spec["target"], len(games)
    best = max(totals.values()) if totals else 0.0
    if spec["format"] == "best_of":
        finished = best > target / 2 or played >= target
    else:
        finished = best >= target or played >= MAX_GAMES
    return totals, finished, standing(players, totals) if finished else []
