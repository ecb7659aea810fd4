"""OpenSkill (Weng-Lin) ratings from a game's ranking, ties included, as pure functions.

Model: Plackett-Luce from the ``openskill`` package (pinned 6.2.0), with the package defaults:
mu = 25, sigma = 25/3, beta = 25/6, kappa = 0.0001, no tau limit. Weng & Lin, "A Bayesian
Approximation Method for Online Ranking", JMLR 12 (2011), algorithm 4 (Plackett-Luce). A ranking
is a list of groups, best first; players in one group tied (equal rank), which is how the package
takes ties. The displayed skill is the ordinal mu - 3 sigma: with 99.7% confidence the true skill
is at least that much, so a new player starts at 0 and climbs as the uncertainty shrinks.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import NamedTuple

from openskill.models import PlackettLuce

DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3.0


class Rating(NamedTuple):
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3.0 * self.sigma


def initial_rating(*, mu: float = DEFAULT_MU, sigma: float = DEFAULT_SIGMA) -> Rating:
    return Rating(mu, sigma)


def rate_teams(
    teams: Sequence[Sequence[Rating]],
    ranks: Sequence[float],
    *,
    mu: float = DEFAULT_MU,
    sigma: float = DEFAULT_SIGMA,
    limit_sigma: bool = False,
) -> list[list[Rating]]:
    """New ratings of every player of every team; ``ranks`` lower is better, equal ranks tie."""
    model = PlackettLuce(mu=mu, sigma=sigma)
    rated = model.rate(
        [[model.rating(mu=r.mu, sigma=r.sigma) for r in team] for team in teams],
        ranks=[float(rank) for rank in ranks],
        limit_sigma=limit_sigma,
    )
    return [[Rating(player.mu, player.sigma) for player in team] for team in rated]


def rate_ranking(ratings: dict[Hashable, Rating], ranking: Sequence[Sequence[Hashable]]) -> dict[Hashable, Rating]:
    """Rate one free-for-all game: each player is a team of one; ``ranking`` groups tie.

    Players without a rating start at the model's prior. Returns the new rating of every ranked
    player (others are untouched and not returned).
    """
    players = [player for group in ranking for player in group]
    ranks = [index + 1 for index, group in enumerate(ranking) for _ in group]
    teams = [[ratings.get(player) or initial_rating()] for player in players]
    rated = rate_teams(teams, ranks)
    return {player: team[0] for player, team in zip(players, rated, strict=True)}
