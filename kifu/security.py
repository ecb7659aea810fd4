"""Security headers Django 5.2 does not send itself: Content-Security-Policy and Permissions-Policy.

A small middleware rather than the django-csp package: the policy is one fixed header (no nonces,
no report endpoint, no per-request sources), so the package's machinery would add nothing but a
dependency. The setting has Django 6.0's name and shape (``SECURE_CSP``: directive -> sources), so
moving to Django's own ``ContentSecurityPolicyMiddleware`` later is a settings change. A view whose
third-party page needs more (the API docs' inline styles) says so with ``csp_extend``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.conf import settings

CSP_HEADER = "Content-Security-Policy"


def policy_text(policy: dict[str, list[str]]) -> str:
    return "; ".join(f"{directive} {' '.join(sources)}".strip() for directive, sources in policy.items())


class SecurityHeadersMiddleware:
    """Adds the site's CSP and Permissions-Policy to every response that has none of its own."""

    def __init__(self, get_response: Callable) -> None:
        self.get_response = get_response
        self.csp = policy_text(settings.SECURE_CSP)
        self.permissions = settings.KIFU_PERMISSIONS_POLICY

    def __call__(self, request):
        response = self.get_response(request)
        extra = getattr(response, "csp_extend", None)
        if extra:
            merged = {key: list(sources) for key, sources in settings.SECURE_CSP.items()}
            for directive, sources in extra.items():
                merged[directive] = merged.get(directive, []) + [
                    s for s in sources if s not in merged.get(directive, [])
                ]
            response.headers.setdefault(CSP_HEADER, policy_text(merged))
        elif self.csp:
            response.headers.setdefault(CSP_HEADER, self.csp)
        if self.permissions:
            response.headers.setdefault("Permissions-Policy", self.permissions)
        return response


def csp_extend(**directives: list[str]) -> Callable:
    """A view decorator: these sources are added to the site's policy for this view's responses
    (``style_src=["'unsafe-inline'"]`` for ``style-src``)."""
    extra = {name.replace("_", "-"): sources for name, sources in directives.items()}

    def decorate(view: Callable) -> Callable:
        @wraps(view)
        def wrapped(*args, **kwargs):
            response = view(*args, **kwargs)
            response.csp_extend = extra
            return response

        return wrapped

    return decorate


def fast_password_hasher_check(app_configs, **kwargs):
    """kifu.W001 (deploy checks): the test-only MD5 password hasher is on (KIFU_TEST_FAST_PASSWORD_HASHER)."""
    from django.core.checks import Warning

    if not settings.KIFU_TEST_FAST_PASSWORD_HASHER:
        return []
    return [
        Warning(
            "KIFU_TEST_FAST_PASSWORD_HASHER is on: passwords are hashed with MD5, which is for test runs only.",
            hint="Unset KIFU_TEST_FAST_PASSWORD_HASHER on a real service.",
            id="kifu.W001",
        )
    ]
