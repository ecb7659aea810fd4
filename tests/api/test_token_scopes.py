"""Every API route's unsafe methods need a scope a personal token can hold or be refused
(api/scopes.py): a view added without thinking of tokens gets its app's scope, and a view of an app
the table does not know fails here."""

from __future__ import annotations

import json

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from api import scopes

UNSAFE = ("post", "put", "patch", "delete")


def api_views(patterns=None, prefix=""):
    """(route, view class) of every DRF view under /api/."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from api_views(entry.url_patterns, route)
        elif isinstance(entry, URLPattern) and route.startswith("api/") and hasattr(entry.callback, "cls"):
            yield route, entry.callback.cls


def unsafe_calls():
    for route, view in api_views():
        for method in UNSAFE:
            if hasattr(view, method):
                yield route, view, method


def test_the_walk_sees_the_api():
    routes = {route for route, _ in api_views()}
    assert {"api/games/<uuid:pk>/moves", "api/clubs", "api/me/tokens", "api/lobby/quick"} <= routes
    assert len(list(unsafe_calls())) > 50


def test_every_unsafe_call_maps_to_a_known_scope():
    for route, view, method in unsafe_calls():
        needed = scopes.required_scope(view, method)
        assert needed in scopes.SCOPES, (route, method)
        app = view.__module__.split(".")[0]
        assert app in scopes.APP_SCOPES or getattr(view, "required_scope", None), (
            f"{route} {method}: {view.__qualname__} is in app {app!r}, which api/scopes.py APP_SCOPES does "
            "not know; declare required_scope on the view or add the app"
        )


def test_only_the_credential_less_calls_need_no_scope():
    free = {view.__qualname__ for _, view, method in unsafe_calls() if scopes.required_scope(view, method) == "read"}
    assert free == {"AccountCreateView", "TokenView"}


def scope_of(route: str, method: str) -> str:
    (view,) = {view for r, view in api_views() if r == route}
    return scopes.required_scope(view, method)


PROMISED = [
    ("api/games/<uuid:pk>/moves", "post", "play"),
    ("api/games/<uuid:pk>/join", "post", "play"),
    ("api/games/<uuid:pk>/accept", "post", "play"),
    ("api/table-games/<uuid:pk>/entries", "post", "play"),
    ("api/lobby/quick", "post", "play"),
    ("api/ladders/<int:pk>/challenges", "post", "play"),
    ("api/tournaments/<int:pk>/entries", "post", "play"),
    ("api/clubs", "post", "organise"),
    ("api/tournaments/<int:pk>/start", "post", "organise"),
    ("api/pairings/<str:kind>/<str:pk>/report", "post", "play"),  # players report and confirm their own
    ("api/pairings/<str:kind>/<str:pk>/confirm", "post", "play"),
    ("api/pairings/<str:kind>/<str:pk>/table", "post", "play"),
    ("api/pairings/<str:kind>/<str:pk>/settle", "post", "organise"),
    ("api/seasons/<int:pk>/close", "post", "organise"),
    ("api/me/tokens", "post", "account"),
    ("api/me/tokens/<int:token_id>", "delete", "account"),
    ("api/me/mature-consent", "post", "account"),
    ("api/games/<uuid:pk>/moves", "get", "read"),
]


@pytest.mark.parametrize(("route", "method", "scope"), PROMISED)
def test_the_kinds_of_call_get_the_scopes_the_readme_promises(route, method, scope):
    assert scope_of(route, method) == scope


def test_a_misspelt_scope_is_caught():
    class Careless:
        required_scope = "plya"

    try:
        scopes.required_scope(Careless, "post")
    except ValueError as error:
        assert "plya" in str(error)
    else:
        raise AssertionError("a misspelt scope was accepted")


def test_every_call_that_changes_something_with_credentials_declares_the_403(api_schema_file):
    """A personal token without the scope gets 403 ``token_scope``: the schema must allow it."""
    schema = json.loads(api_schema_file.read_text())
    missing = [
        f"{method.upper()} {path}"
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if method in UNSAFE and operation.get("security") != [] and "403" not in operation["responses"]
    ]
    assert missing == []
    assert "403" in schema["paths"]["/api/me/tokens"]["post"]["responses"]
