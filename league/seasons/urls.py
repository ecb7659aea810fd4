"""Seasonal-league routes, mounted under /api/ by kifu/urls.py."""

from django.urls import path

from . import api

app_name = "seasons"

urlpatterns = [
    path("clubs/<slug:slug>/leagues", api.ClubLeagueListView.as_view(), name="club-leagues"),
    path("leagues/<int:pk>", api.LeagueDetailView.as_view(), name="season-league-detail"),
    path("leagues/<int:pk>/players", api.LeaguePlayersView.as_view(), name="season-league-players"),
    path(
        "leagues/<int:pk>/players/<str:username>",
        api.LeaguePlayerDetailView.as_view(),
        name="season-league-player",
    ),
    path("leagues/<int:pk>/seasons", api.LeagueSeasonsView.as_view(), name="season-league-seasons"),
    path("leagues/<int:pk>/next-season", api.LeagueNextSeasonView.as_view(), name="season-league-next"),
    path("seasons/<int:pk>", api.SeasonDetailView.as_view(), name="season-detail"),
    path("seasons/<int:pk>/standings", api.SeasonStandingsView.as_view(), name="season-standings"),
    path("seasons/<int:pk>/standings.csv", api.SeasonStandingsCsvView.as_view(), name="season-standings-csv"),
    path("seasons/<int:pk>/calendar.ics", api.SeasonCalendarView.as_view(), name="season-calendar"),
    path("seasons/<int:pk>/fixtures", api.SeasonFixturesView.as_view(), name="season-fixtures"),
    path("seasons/<int:pk>/close", api.SeasonCloseView.as_view(), name="season-close"),
    path("fixtures/<int:pk>", api.FixtureDetailView.as_view(), name="fixture-detail"),
    path("fixtures/<int:pk>/correction", api.FixtureCorrectionView.as_view(), name="fixture-correction"),
]
