"""Admin pages of the reminders: what was sent (read-only), and each account's preferences."""

from django.contrib import admin

from .models import ReminderPreference, ReminderSent


@admin.register(ReminderSent)
class ReminderSentAdmin(admin.ModelAdmin):
    """The record that a reminder went out: never made or changed by hand (a row here means the
    reminder will not be sent, so adding one would silence it)."""

    list_display = ("kind", "subject", "user", "deadline_at", "sent_at", "channels")
    list_filter = ("kind",)
    search_fields = ("user__username", "subject")
    list_select_related = ("user",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(ReminderPreference)
class ReminderPreferenceAdmin(admin.ModelAdmin):
    list_display = ("user", "stream", "webhook", "email", "lead_minutes", "updated_at")
    list_filter = ("stream", "webhook", "email")
    search_fields = ("user__username",)
    list_select_related = ("user",)
    raw_id_fields = ("user",)
