"""Reminder routes, mounted under /api/ by kifu/urls.py."""

from django.urls import path

from . import api

app_name = "reminders"

urlpatterns = [
    path("me/reminders", api.ReminderPreferencesView.as_view(), name="reminder-preferences"),
]
