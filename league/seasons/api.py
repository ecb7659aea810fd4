"""Seasonal-league API views (thin): leagues, rosters, seasons, tables as JSON and CSV, fixtures,
corrections, closing, and the next season with promotion and relegation.

Reads are public like the rest of the league; writes need a token and an organiser of the club
(the services check it: 403 ``not_organiser``).
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import permissions, status
from rest_framework.response import Response
from rest_framework.views import APIView

from kifu.http.errors import ApiError, error_responses, found
from kifu.http.params import validated
from league.exports import calendar_response, csv_response, season_calendar
from league.loaders import DIVISION_FILTER, ROUND_FILTER, load_club, load_user

from . import selectors, services
from . import serializers as s
from .models import Season

TAGS = ["seasonal leagues"]
ERRORS = error_responses(400, 401, 403, 404, 409)


def _viewer(request):
    return request.user if request.user.is_authenticated else None


def load_league(request, pk):
    """The league, or 404 - also for a mature league the viewer has not consented to see."""
    return found(selectors.league_get(league_id=pk, viewer=_viewer(request)), "no such league")


def load_season(request, pk):
    return found(selectors.season_get(season_id=pk, viewer=_viewer(request)), "no such season")


def load_fixture(request, pk):
    return found(selectors.fixture_get(fixture_id=pk, viewer=_viewer(request)), "no such fixture")


class ClubLeagueListView(APIView):
    @extend_schema(responses={200: s.SeasonLeagueSerializer(many=True), **ERRORS}, tags=TAGS)
    def get(self, request, slug: str):
        """The club's seasonal leagues."""
        return Response(
            s.SeasonLeagueSerializer(
                selectors.league_list(club=load_club(slug), viewer=_viewer(request)), many=True
            ).data
        )

    @extend_schema(
        request=s.SeasonLeagueCreateSerializer, responses={201: s.SeasonLeagueSerializer, **ERRORS}, tags=TAGS
    )
    def post(self, request, slug: str):
        """Organisers: found a league (settings: cycles, days_per_round, divisions, promote, relegate,
        points, tiebreaks, allow_bots; tables for multiplayer fixtures of 3-6 seats)."""
        league = services.league_create(
            club_id=load_club(slug).pk, by=request.user, **validated(s.SeasonLeagueCreateSerializer, request)
        )
        return Response(s.SeasonLeagueSerializer(league).data, status=status.HTTP_201_CREATED)


class LeagueDetailView(APIView):
    @extend_schema(responses={200: s.SeasonLeagueSerializer, **ERRORS}, tags=TAGS)
    def get(self, request, pk: int):
        """A league: its settings, roster and seasons."""
        return Response(s.SeasonLeagueSerializer(load_league(request, pk)).data)

    @extend_schema(
        request=s.SeasonLeagueUpdateSerializer, responses={200: s.SeasonLeagueSerializer, **ERRORS}, tags=TAGS
    )
    def patch(self, request, pk: int):
        """Organisers: change settings; they apply from the next season on (a running season keeps
        its own copy, ``rules``)."""
        data = validated(s.SeasonLeagueUpdateSerializer, request)
        league = services.league_update(league_id=load_league(request, pk).pk, by=request.user, **data)
        return Response(s.SeasonLeagueSerializer(league).data)


class LeaguePlayersView(APIView):
    @extend_schema(request=s.SeasonPlayerAddSerializer, responses={201: s.SeasonLeagueSerializer, **ERRORS}, tags=TAGS)
    def post(self, request, pk: int):
        """Organisers: add a club member for the next season (newcomers join the bottom division);
        a bot account only if the league allows bots (403 ``bots_not_allowed``)."""
        username = validated(s.SeasonPlayerAddSerializer, request)["username"]
        league = load_league(request, pk)
        services.league_player_add(league_id=league.pk, by=request.user, user=load_user(username))
        return Response(s.SeasonLeagueSerializer(league).data, status=status.HTTP_201_CREATED)


class LeaguePlayerDetailView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=None, responses={200: s.SeasonLeagueSerializer, **ERRORS}, tags=TAGS)
    def delete(self, request, pk: int, username: str):
        """Organisers: take a player out of the next season (the running one is unchanged)."""
        league = load_league(request, pk)
        services.league_player_remove(league_id=league.pk, by=request.user, user=load_user(username))
        return Response(s.SeasonLeagueSerializer(league).data)


class LeagueSeasonsView(APIView):
    @extend_schema(responses={200: s.SeasonSerializer(many=True), **ERRORS}, tags=TAGS)
    def get(self, request, pk: int):
        """Every season of the league, first first."""
        return Response(s.SeasonSerializer(selectors.season_list(league=load_league(request, pk)), many=True).data)

    @extend_schema(request=s.SeasonStartSerializer, responses={201: s.SeasonSerializer, **ERRORS}, tags=TAGS)
    def post(self, request, pk: int):
        """Organisers: start the next season and create its fixtures' games. After the first, the
        divisions come from the last (closed) season with promotion and relegation, unless
        ``divisions`` lists them."""
        data = validated(s.SeasonStartSerializer, request)
        divisions = data["divisions"]
        if divisions is not None:
            divisions = [[load_user(name, field="divisions") for name in division] for division in divisions]
        season = services.season_start(league_id=load_league(request, pk).pk, by=request.user, divisions=divisions)
        return Response(s.SeasonSerializer(season).data, status=status.HTTP_201_CREATED)


class LeagueNextSeasonView(APIView):
    @extend_schema(responses={200: s.NextSeasonSerializer, **ERRORS}, tags=TAGS)
    def get(self, request, pk: int):
        """A preview of the next season's divisions (who goes up, down, joins and leaves); 409
        ``season_running`` while the current season runs."""
        league = load_league(request, pk)
        last = league.seasons.order_by("-number").first()
        if last is not None and last.status != Season.Status.CLOSED:
            raise ApiError("season_running", f"season {last.number} is still running", status.HTTP_409_CONFLICT)
        plan = selectors.next_season_plan(league=league)
        return Response(
            {
                "number": last.number + 1 if last else 1,
                "divisions": [
                    {"tier": tier, "players": [{"username": u.get_username(), "came": came} for u, came in division]}
                    for tier, division in enumerate(plan.divisions, start=1)
                ],
                "leaving": [user.get_username() for user in plan.leaving],
            }
        )


class SeasonDetailView(APIView):
    @extend_schema(responses={200: s.SeasonSerializer, **ERRORS}, tags=TAGS)
    def get(self, request, pk: int):
        """A season: its rules (copied from the league at the start) and its divisions in seeding order."""
        return Response(s.SeasonSerializer(load_season(request, pk)).data)


class SeasonStandingsView(APIView):
    @extend_schema(responses={200: s.SeasonStandingsSerializer, **ERRORS}, tags=TAGS)
    def get(self, request, pk: int):
        """Every division's table, best first: position, points, record, tiebreaks (in the season's
        order), and ``zone`` (promoted/relegated places); final once the season is closed."""
        season = load_season(request, pk)
        return Response(
            {
                "season": season.number,
                "status": season.status,
                "points": season.rules["points"],
                "tiebreaks": season.rules["tiebreaks"],
                "divisions": selectors.season_standings(season=season),
            }
        )


class SeasonStandingsCsvView(APIView):
    @extend_schema(responses={(200, "text/csv"): str, **ERRORS}, tags=TAGS)
    def get(self, request, pk: int):
        """The tables as CSV: one row a player, divisions top first, one column a tiebreak."""
        season = load_season(request, pk)
        tiebreaks = season.rules["tiebreaks"]
        columns = ["position", "username", "points", "played", "wins", "draws", "losses", "zone"]
        return csv_response(
            filename=f"season-{season.pk}-standings.csv",
            header=["division", *columns, *tiebreaks],
            rows=(
                [division["tier"], *(row[c] for c in columns), *(row["tiebreaks"].get(t) for t in tiebreaks)]
                for division in selectors.season_standings(season=season)
                for row in division["standings"]
            ),
        )


class SeasonCalendarView(APIView):
    @extend_schema(
        parameters=[DIVISION_FILTER.openapi()],
        responses={(200, "text/calendar"): str, **ERRORS},
        tags=TAGS,
    )
    def get(self, request, pk: int):
        """iCalendar feed of the season's fixtures, each at its play-by date (or one division's)."""
        season = load_season(request, pk)
        calendar = season_calendar(season, tier=DIVISION_FILTER.read(request))
        return calendar_response(calendar, filename=f"season-{season.pk}.ics")


class SeasonFixturesView(APIView):
    @extend_schema(
        parameters=[
            DIVISION_FILTER.openapi(),
            ROUND_FILTER.openapi(),
        ],
        responses={200: s.SeasonFixtureSerializer(many=True), **ERRORS},
        tags=TAGS,
    )
    def get(self, request, pk: int):
        """Fixtures by round, division and board: players, game, play-by date, result."""
        season = load_season(request, pk)
        fixtures = selectors.fixture_list(
            season=season, tier=DIVISION_FILTER.read(request), round=ROUND_FILTER.read(request)
        )
        names = selectors.season_player_names(season=season)
        return Response(s.SeasonFixtureSerializer(fixtures, many=True, context={"names": names}).data)


class SeasonCloseView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=None, responses={200: s.SeasonSerializer, **ERRORS}, tags=TAGS)
    def post(self, request, pk: int):
        """Organisers: close the season and freeze its tables; undecided fixtures are forfeited as
        at their play-by date. A season closes itself when its last fixture is decided."""
        season = services.season_close(season_id=load_season(request, pk).pk, by=request.user)
        return Response(s.SeasonSerializer(season).data)


class FixtureDetailView(APIView):
    @extend_schema(responses={200: s.SeasonFixtureSerializer, **ERRORS}, tags=TAGS)
    def get(self, request, pk: int):
        """One fixture."""
        return Response(s.SeasonFixtureSerializer(load_fixture(request, pk)).data)


class FixtureCorrectionView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        request=s.FixtureCorrectionSerializer, responses={200: s.SeasonFixtureSerializer, **ERRORS}, tags=TAGS
    )
    def post(self, request, pk: int):
        """Organisers: replace a decided fixture's result (the tables follow; a closed season's
        frozen tables are recomputed until the next season starts)."""
        data = validated(s.FixtureCorrectionSerializer, request)
        fixture = services.fixture_correct(fixture_id=load_fixture(request, pk).pk, by=request.user, **data)
        return Response(
            s.SeasonFixtureSerializer(selectors.fixture_get(fixture_id=fixture.pk, viewer=request.user)).data
        )
