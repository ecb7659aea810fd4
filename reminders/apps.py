"""Django app for deadline reminders: it reads games and the league and sends through hooks; nothing
below it imports it."""

from django.apps import AppConfig


class RemindersConfig(AppConfig):
    name = "reminders"
    default_auto_field = "django.db.models.BigAutoField"
