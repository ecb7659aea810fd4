"""Accounts for the in-process page tests: a user by name, and a logged-in browser client."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.test import Client


def user(name: str):
    return get_user_model().objects.create_user(username=name)


def client_of(someone, language: str = "en") -> Client:
    """A test client logged in as ``someone`` whose browser asks for ``language``."""
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(someone)
    return client
