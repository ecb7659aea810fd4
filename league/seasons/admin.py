"""Web admin of the seasonal leagues: read-only views scoped to the clubs an organiser runs (every
change goes through the API's services, which keep fixtures and games consistent)."""

from __future__ import annotations

from django.contrib import admin

from league.admin import OrganiserScoped

from .models import Fixture, League, Season


class ReadOnlyScoped(OrganiserScoped):
    readonly = True

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in self.model._meta.fields]


@admin.register(League)
class LeagueAdmin(ReadOnlyScoped, admin.ModelAdmin):
    list_display = ("name", "club", "engine", "divisions", "promote", "relegate", "created_at")
    list_filter = ("club",)


@admin.register(Season)
class SeasonAdmin(ReadOnlyScoped, admin.ModelAdmin):
    club_path = "league__club"
    list_display = ("league", "number", "status", "started_at", "closed_at")
    list_filter = ("status",)


@admin.register(Fixture)
class FixtureAdmin(ReadOnlyScoped, admin.ModelAdmin):
    club_path = "season__league__club"
    list_display = ("season", "division", "round", "board", "home", "away", "result", "method", "play_by")
    list_filter = ("result", "method")
    raw_id_fields = ("game",)
