"""Django app for the server-rendered pages."""

from django.apps import AppConfig


class WebConfig(AppConfig):
    name = "web"
