"""Reminder preferences API: how an account hears that a deadline is near."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from kifu.http.errors import error_responses

from . import selectors, services

ERRORS = error_responses(400, 401)


class ReminderPreferencesSerializer(serializers.Serializer):
    closed = True  # an unknown key is bad_reminder_preferences (services.preferences_set)

    email = serializers.BooleanField(
        required=False, help_text="Mail reminders to the account's address (PUT /api/me/email). Default false."
    )
    webhook = serializers.BooleanField(
        required=False, help_text='POST a "reminder" event to the webhooks that receive it. Default true.'
    )
    stream = serializers.BooleanField(
        required=False, help_text='A "reminder" message on the account stream (GET /api/me/stream). Default true.'
    )
    lead_minutes = serializers.IntegerField(
        required=False,
        min_value=selectors.LEAD_MINUTES_MIN,
        max_value=selectors.LEAD_MINUTES_MAX,
        help_text="How long before a deadline to remind, in minutes (5 to 10080). Default 720 (12 hours).",
    )


PREFERENCES = ReminderPreferencesSerializer


class ReminderPreferencesView(APIView):
    """The app's scope (api/scopes.py APP_SCOPES: play): a bot chooses how it hears of its
    deadlines, as it registers a webhook."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: PREFERENCES, **ERRORS}, tags=["accounts"])
    def get(self, request):
        """Your reminder preferences: channels on or off, and how long before a deadline."""
        return Response(services.preferences_get(user=request.user))

    @extend_schema(
        request=ReminderPreferencesSerializer,
        responses={200: ReminderPreferencesSerializer, **ERRORS},
        tags=["accounts"],
    )
    def patch(self, request):
        """Change some preferences (the others stay). Reminders come for a move to make before a
        game's deadline, a ladder challenge to answer and a reported result to confirm, once per
        deadline. 400 ``bad_reminder_preferences`` (an unknown key, a channel not true/false),
        ``bad_reminder_lead`` (minutes outside 5-10080)."""
        return Response(services.preferences_set(user=request.user, changes=request.data))
