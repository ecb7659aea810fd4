"""Django app config for the REST API."""

from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
