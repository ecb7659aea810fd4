"""Django app for players, clubs, ladders, leagues and tournaments (issues 7 and 8; not built yet)."""

from django.apps import AppConfig


class LeagueConfig(AppConfig):
    name = "league"
