"""Rating ladders for 3-5 player games, and matches (best of N, first to N, sessions) feeding ladders."""

from __future__ import annotations

import uuid

import pytest

from games import services as game_services
from games.models import Game
from league import services
from league.models import Challenge, LadderEntry, LadderEvent, LeagueGame, Match, RatingPoint
from league.scoring.ratings import Rating, rate_ranking
from league.services.matches import game_ranking

from .conftest import finish_game

pytestmark = pytest.mark.django_db


def resign_all_but_one(game_id, now) -> Game:
    """Seats resign one by one until the game is over; returns the finished game."""
    game = Game.objects.get(pk=game_id)
    for seat in game.seats.order_by("-index"):
        game.refresh_from_db()
        if game.is_finished:
            break
        game_services.move_submit(
            game_id=game_id, user=seat.user, move={"type": "resign"}, idempotency_key=uuid.uuid4().hex
        )
        game_services.game_advance(game_id=game_id)
    game.refresh_from_db()
    assert game.is_finished
    services.league_game_finished(game_id=game_id, now=now)
    return game


def test_rating_ladder_rates_multiplayer_games_with_history(club_with, clock, make_user):
    club, organiser, (m0, m1, m2, m3) = club_with(4)
    ladder = services.ladder_create(club_id=club.pk, by=organiser, engine="satori", kind="rating", now=clock.now)
    outsider = make_user("outsider")
    for by, players, code in (
        (m3, [m0, m1, m2], "play_as_yourself"),
        (m0, [m0, outsider, m2], "not_member"),
        (outsider, [outsider, m0], "not_member"),
        (m0, [m0, m0, m1], "duplicate_player"),
    ):
        with pytest.raises(services.ServiceError) as refused:
            services.rated_game_create(ladder_id=ladder.pk, by=by, players=players, now=clock.now)
        assert refused.value.code == code
    with pytest.raises(services.ServiceError) as refused:
        services.challenge_create(ladder_id=ladder.pk, by=m0, defender=m1, now=clock.now)
    assert refused.value.code == "not_a_challenge_ladder"

    ratings: dict[int, Rating] = {}
    for players in ([m0, m1, m2], [m3, m2, m1, m0], [m1, m3]):
        link = services.rated_game_create(
            ladder_id=ladder.pk, by=players[0], players=players, now=clock.advance(days=1)
        )
        game = resign_all_but_one(link.game_id, now=clock.advance(hours=2))
        ranking, _ = game_ranking(game)
        ratings.update(rate_ranking(ratings, ranking))
    entries = {e.user_id: e for e in LadderEntry.objects.filter(ladder=ladder)}
    for player, rating in ratings.items():
        assert (entries[player].mu, entries[player].sigma) == pytest.approx(rating, rel=1e-12)
        assert entries[player].ordinal == pytest.approx(rating.ordinal)
    by_ordinal = sorted(ratings, key=lambda p: -ratings[p].ordinal)
    assert [entries[p].position for p in by_ordinal] == [1, 2, 3, 4]
    history = list(RatingPoint.objects.filter(ladder=ladder, user=m1).order_by("seq"))
    assert len(history) == 3 and history[1].mu_before == history[0].mu and history[-1].mu == entries[m1.pk].mu
    assert services.league_game_finished(game_id=link.game_id, now=clock.now) is False  # once only


def test_a_best_of_three_challenge_is_a_match_that_moves_the_ladder(club_with, clock):
    club, organiser, (top, low) = club_with(2)
    ladder = services.ladder_create(
        club_id=club.pk,
        by=organiser,
        engine="nine-card",
        settings={"match": {"format": "best_of", "target": 3}},
        now=clock.now,
    )
    for member in (top, low):
        services.ladder_join(ladder_id=ladder.pk, by=member, now=clock.now)
    challenge = services.challenge_create(ladder_id=ladder.pk, by=low, defender=top, now=clock.now)
    challenge = services.challenge_accept(challenge_id=challenge.pk, by=top, now=clock.advance(hours=1))
    match = challenge.match
    first = LeagueGame.objects.get(match=match, number=0).game
    assert [s.user for s in first.seats.order_by("index")] == [top, low]
    finish_game(first.pk, loser=top, now=clock.advance(hours=1))
    match.refresh_from_db()
    assert match.status == "running" and match.totals == {str(top.pk): 0.0, str(low.pk): 1.0}
    second = LeagueGame.objects.get(match=match, number=1).game
    assert [s.user for s in second.seats.order_by("index")] == [low, top]  # the first seat alternates
    assert Challenge.objects.get(pk=challenge.pk).status == "accepted"
    finish_game(second.pk, loser=top, now=clock.advance(hours=1))
    match.refresh_from_db()
    assert match.status == "finished" and match.result == [[low.pk], [top.pk]]
    assert not LeagueGame.objects.filter(match=match, number=2).exists()
    challenge.refresh_from_db()
    assert challenge.status == "decided" and challenge.outcome["winner"] == low.pk
    result = LadderEvent.objects.get(ladder=ladder, seq=challenge.decided_seq)
    assert result.payload["match"] == str(match.pk) and result.payload["source"] == "match"
    standings = list(LadderEntry.objects.filter(ladder=ladder).order_by("position"))
    assert [e.user for e in standings] == [low, top] and standings[0].won == 1
    assert RatingPoint.objects.filter(ladder=ladder).count() == 2  # the match is rated once


def test_friendly_matches_first_to_and_session(make_user, clock):
    a, b, c = make_user("a"), make_user("b"), make_user("c")
    with pytest.raises(services.ServiceError) as refused:
        services.match_create(engine="nine-card", players=[a, b], spec={"format": "best_of", "target": 3}, by=c)
    assert refused.value.code == "play_as_yourself"
    match = services.match_create(
        engine="nine-card", players=[a, b], spec={"format": "first_to", "target": 2}, by=a, now=clock.now
    )
    for number, loser in enumerate((b, a, b)):
        finish_game(LeagueGame.objects.get(match=match, number=number).game_id, loser=loser, now=clock.now)
    match.refresh_from_db()
    assert match.status == "finished" and match.result == [[a.pk], [b.pk]] and match.ladder is None
    session = services.match_create(
        engine="necropolis", players=[a, b], spec={"format": "session", "target": 3}, by=b, now=clock.now
    )
    game = LeagueGame.objects.get(match=session).game
    assert game.config["match_games"] == 3
    with pytest.raises(services.ServiceError) as refused:
        services.match_create(engine="satori", players=[a, b, c], spec={"format": "session", "target": 2}, by=a)
    assert refused.value.code == "no_session_rules"
    # the refused match was not stored (the stack tests commit matches of their own: count ours only)
    assert Match.objects.filter(created_by__in=[a, b, c]).count() == 2


def test_rating_ladder_matches(club_with, clock):
    club, organiser, (m0, m1) = club_with(2)
    ladder = services.ladder_create(
        club_id=club.pk,
        by=organiser,
        engine="nine-card",
        kind="rating",
        settings={"match": {"format": "best_of", "target": 1}},
        now=clock.now,
    )
    match = services.rated_game_create(ladder_id=ladder.pk, by=organiser, players=[m0, m1], now=clock.now)
    assert isinstance(match, Match) and match.ladder_id == ladder.pk
    finish_game(LeagueGame.objects.get(match=match).game_id, loser=m1, now=clock.now)
    event = LadderEvent.objects.filter(ladder=ladder).latest("seq")
    assert event.kind == "result" and event.payload["match"] == str(match.pk)
    assert LadderEntry.objects.get(ladder=ladder, user=m0).position == 1
