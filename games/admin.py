"""Admin pages for games; events are shown read-only (the log is append-only)."""

from django.contrib import admin

from .models import Event, Game, Seat, Submission


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "engine", "status", "source", "head_seq", "created_at")
    list_filter = ("engine", "status", "source")
    inlines = [SeatInline]
    readonly_fields = ("seed", "seed_sha256", "head_seq", "head_hash", "state", "outcome")


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ("game", "seq", "kind", "seat", "created_at")
    list_filter = ("kind",)

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ("public_id", "game", "seat", "status", "code", "received_at")
    list_filter = ("status",)
