"""Admin pages for games; events are shown read-only (the log is append-only); personal tokens are
listed and revoked, never made or edited here."""

from django.contrib import admin

from .models import Event, Game, PersonalToken, Seat, Submission


class SeatInline(admin.TabularInline):
    """The seats as the game's services set them (invitations, joins, resignations): shown, not edited
    here, like the times and state the event log drives."""

    model = Seat
    extra = 0
    can_delete = False
    readonly_fields = ("index", "user", "name", "accepted_at", "declined_at")

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "engine", "status", "source", "head_seq", "created_at")
    list_filter = ("engine", "status", "source")
    inlines = [SeatInline]
    # Everything the event log and the game services drive is read-only: a hand-edited status, time,
    # window or state would contradict the log (and its datetime pickers had no labels: axe-core).
    readonly_fields = (
        *("engine", "rules_version", "config", "status", "source", "seed", "seed_sha256", "head_seq", "head_hash"),
        *("state", "outcome", "actors", "window", "started_at", "finished_at", "window_opened_at", "deadline_at"),
    )


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


@admin.register(PersonalToken)
class PersonalTokenAdmin(admin.ModelAdmin):
    """Staff see whose tokens exist, what they may do and when they were last used, and revoke them
    (delete, one or many: the delete signal makes each process's token cache forget it, as
    ``games.accounts.personal_token_revoke`` does). A key is shown once, to its owner, when it is
    made, so nobody adds a token here; nothing is edited either. The stored SHA-256 of the key is
    never shown or searchable: with a leaked key it would only confirm whose key it is, and the
    ``prefix`` already tells tokens apart."""

    list_display = ("prefix", "name", "user", "scopes", "created_at", "last_used_at")
    list_filter = ("scopes",)
    search_fields = ("user__username", "name", "prefix")
    list_select_related = ("user",)
    ordering = ("-created_at",)
    fields = ("user", "name", "scopes", "prefix", "created_at", "last_used_at")
    readonly_fields = fields
    actions = ["delete_selected"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
