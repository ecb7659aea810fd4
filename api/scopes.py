"""Which scope of a personal token each API call needs (issue 19 item 3), and the refusal.

A safe method (GET, HEAD, OPTIONS) needs ``read``, which every personal token has. An unsafe one
needs the scope its view declares in ``required_scope`` - one name, or a dict from method name to
name - or else the scope of the app the view lives in (``APP_SCOPES``). A view of an app not in
that table, without ``required_scope``, is refused to every personal token (``account``) and fails
tests/api/test_token_scopes.py, which walks every API route: a new view cannot go without a scope.

A player's own act that an organiser may also do for someone else (enter a tournament, check in,
drop) declares ``required_scope = "play"`` and ``organiser_fields = ("username",)``: a body naming
another account in one of those fields needs ``organise``.

``account`` is needed for what changes the account itself or could widen a token's power (making
tokens, mature-content consent): only the account's full token (``POST /api/token``) and a web
session have it, never a personal token.
"""

from __future__ import annotations

from rest_framework import status

READ, PLAY, ORGANISE, ACCOUNT = "read", "play", "organise", "account"
SCOPES = (READ, PLAY, ORGANISE, ACCOUNT)

# The top-level package of a view's module -> the scope its unsafe methods need.
APP_SCOPES = {
    "api": PLAY,  # games: create, join, accept, decline, moves, resign, records, the table recorder
    "lobby": PLAY,  # seeks, quick pairing, rematches
    "league": ORGANISE,  # clubs, ladders, challenges, matches, tournaments, seasons, reported results
    "hooks": PLAY,  # webhooks: how a bot hears of its games
    "reminders": PLAY,  # deadline reminder preferences: how a bot hears its time is running out
}

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

WHAT = {
    PLAY: "play (game actions: moves, joining, invitations, the lobby, table entries)",
    ORGANISE: "organise (club, ladder, tournament and season writes, settling results)",
    ACCOUNT: "the account's full token or a web session (personal tokens cannot manage the account)",
}


def required_scope(view_class: type, method: str) -> str:
    """The scope a call of ``method`` on ``view_class`` needs."""
    method = method.upper()
    if method in SAFE_METHODS:
        return READ
    declared = getattr(view_class, "required_scope", None)
    if isinstance(declared, dict):
        declared = declared.get(method.lower())
    if declared is not None:
        if declared not in SCOPES:
            raise ValueError(f"{view_class.__qualname__}.required_scope names an unknown scope {declared!r}")
        return declared
    return APP_SCOPES.get(view_class.__module__.split(".")[0], ACCOUNT)


def acts_for_another(view_class: type, request, user) -> bool:
    """Whether the body names an account other than ``user`` in one of the view's ``organiser_fields``."""
    fields = getattr(view_class, "organiser_fields", ())
    if not fields or request.method in SAFE_METHODS:
        return False
    body = request.data  # parsed once; the view reads the same parsed body
    if not isinstance(body, dict):
        return False
    return any(isinstance(body.get(f), str) and body[f].strip() not in ("", user.get_username()) for f in fields)


def enforce(request, user, scopes: frozenset[str]) -> None:
    """Refuse (403 ``token_scope``) a call of ``user`` that ``scopes`` do not cover. ``request`` is
    DRF's; the view comes from its parser context, which ``APIView.initialize_request`` always sets."""
    # here, not at the top: this module is imported with the authentication class, while DRF's
    # settings (which kifu.http.errors needs) are still being read
    from kifu.http.errors import ApiError

    view = (getattr(request, "parser_context", None) or {}).get("view")
    needed = ACCOUNT if view is None else required_scope(type(view), request.method)
    if needed == PLAY and PLAY in scopes and acts_for_another(type(view), request, user):
        needed = ORGANISE
    if needed == READ or needed in scopes:
        return
    raise ApiError(
        "token_scope",
        f"this token may not do that: {request.method} here needs the scope {WHAT[needed]}; "
        f"the token has {', '.join(sorted(scopes))}",
        status.HTTP_403_FORBIDDEN,
    )
