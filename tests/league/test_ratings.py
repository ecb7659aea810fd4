"""OpenSkill ratings against the package's published reference values, and the ladder's use of them.

The reference values are those the openskill.py project publishes with its own test suite,
``tests/models/data/plackettluce.json`` (github.com/vivekjoshy/openskill.py, the version at commit
061f71f, which openskill 6.2.0 reproduces): a model with prior mu/sigma, teams of 1, 2 and 3
players, and the results for a plain win order, explicit ranks, scores, limit_sigma and ties.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from openskill.models import PlackettLuce

from league.scoring import ladder as rules
from league.scoring.ratings import Rating, rate_ranking, rate_teams

MU, SIGMA = 31.321989232514305, 11.379964801443018
PUBLISHED = {
    "normal": (None, [[(36.48967347401391, 11.237778601372977)], [(26.154304991014694, 11.17822477763209)] * 2]),
    "ranks": ([2, 1], [[(30.19454401757094, 11.237778601372977)], [(32.44943444745767, 11.17822477763209)] * 2]),
    "ties": (
        [1, 2, 1],
        [
            [(33.21874815457553, 11.354896725884002)],
            [(30.27713112192334, 11.291328826858104)] * 2,
            [(30.470088421044046, 11.249240904583088)] * 3,
        ],
    ),
}


@pytest.mark.parametrize("case", sorted(PUBLISHED))
def test_rate_teams_reproduces_the_published_values(case):
    ranks, expected = PUBLISHED[case]
    teams = [[Rating(MU, SIGMA)] * len(team) for team in expected]
    rated = rate_teams(teams, ranks or list(range(1, len(teams) + 1)), mu=MU, sigma=SIGMA)
    for team, want in zip(rated, expected, strict=True):
        for player, (mu, sigma) in zip(team, want, strict=True):
            assert player.mu == pytest.approx(mu, rel=1e-12)
            assert player.sigma == pytest.approx(sigma, rel=1e-12)


def test_limit_sigma_published_values():
    teams = [[Rating(MU, SIGMA)] * n for n in (1, 2, 3)]
    rated = rate_teams(teams, [2, 1, 3], mu=MU, sigma=SIGMA, limit_sigma=True)
    assert rated[0][0].mu == pytest.approx(35.008962716922355, rel=1e-12)
    assert rated[1][1].sigma == pytest.approx(11.291328826858104, rel=1e-12)
    assert rated[2][2].mu == pytest.approx(24.182184414865624, rel=1e-12)


def test_free_for_all_with_a_tie_matches_the_package():
    """Five players, two tied for second: each is a team of one; equal ranks tie."""
    before = {
        1: Rating(25.0, 25 / 3),
        2: Rating(30.0, 6.0),
        3: Rating(20.0, 7.5),
        4: Rating(27.0, 4.0),
        5: Rating(25.0, 8.0),
    }
    ranking = [[4], [1, 3], [5], [2]]
    after = rate_ranking(before, ranking)
    model = PlackettLuce()
    order = [4, 1, 3, 5, 2]
    expected = model.rate([[model.rating(*before[p])] for p in order], ranks=[1.0, 2.0, 2.0, 4.0, 5.0])
    for player, (rating,) in zip(order, expected, strict=True):
        assert after[player] == (pytest.approx(rating.mu, rel=1e-12), pytest.approx(rating.sigma, rel=1e-12))
    assert after[4].mu > before[4].mu and after[2].mu < before[2].mu


def test_rank_values_only_order_matters():
    """Ranks 1,2,2,3 and 1,2,2,4 give the same update: ties are equal ranks, gaps mean nothing."""
    model = PlackettLuce()
    teams = [[model.rating()] for _ in range(4)]
    a = model.rate(teams, ranks=[1.0, 2.0, 2.0, 3.0])
    b = rate_ranking({}, [[1], [2, 3], [4]])
    assert [t[0].mu for t in a] == pytest.approx([b[p].mu for p in (1, 2, 3, 4)], rel=1e-12)


def _at(day: int) -> datetime:
    return datetime(2026, 1, 1, tzinfo=UTC).replace(day=day)


def test_rating_ladder_fold_rates_each_result_in_log_order_and_keeps_history():
    events = [
        rules.LogEvent(1, rules.LADDER_CREATED, {"settings": {"match": None}}, _at(1)),
        rules.LogEvent(2, rules.RESULT, {"ranking": [[1], [2], [3]], "rated": True, "game": "g1"}, _at(2)),
        rules.LogEvent(3, rules.RESULT, {"ranking": [[3], [1, 2]], "rated": True, "game": "g2"}, _at(3)),
    ]
    projection = rules.project(rules.RATING, events)
    first = rate_ranking({}, [[1], [2], [3]])
    second = rate_ranking(first, [[3], [1, 2]])
    assert {p: projection.players[p].rating for p in (1, 2, 3)} == second
    assert [(c.player, c.seq) for c in projection.history] == [(1, 2), (2, 2), (3, 2), (3, 3), (1, 3), (2, 3)]
    assert projection.history[3].before == first[3]
    assert projection.ranked()[0] == max(second, key=lambda p: second[p].ordinal)
    assert (projection.players[1].won, projection.players[1].lost, projection.players[3].won) == (1, 1, 1)
