"""Admin pages for the lobby: seeks with their seats, and the site ratings (read-only: a rating
moves only by rated games, ``services.lobby_game_rate``)."""

from django.contrib import admin

from .models import Seek, SeekSeat, SiteRating


class SeekSeatInline(admin.TabularInline):
    model = SeekSeat
    extra = 0
    raw_id_fields = ("user",)


@admin.register(Seek)
class SeekAdmin(admin.ModelAdmin):
    list_display = ("id", "engine", "seats", "rated", "status", "created_by", "created_at", "expires_at")
    list_filter = ("engine", "status", "rated")
    raw_id_fields = ("created_by", "game")
    inlines = [SeekSeatInline]


@admin.register(SiteRating)
class SiteRatingAdmin(admin.ModelAdmin):
    list_display = ("user", "engine", "mu", "sigma", "games", "updated_at")
    list_filter = ("engine",)
    search_fields = ("user__username",)

    def has_change_permission(self, request, obj=None):
        return False
