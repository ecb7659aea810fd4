"""The lobby page (issue 19): open seeks to join, a seek to open, quick pairing, and rematches.

Forms post to these views, which call the lobby's services; a refusal comes back on the lobby page
as ``code: message``. The page follows the visitor's account stream (web/static/web/lobby.js), so
the creator of a seek lands on the game's play page the moment the last seat is taken.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_POST, require_safe

from games import selectors as game_selectors
from games.errors import ServiceError
from lobby import selectors, services

from .names import game_name


def _engines(viewer) -> list[dict]:
    """The games a lobby table can be of (2-6 seats), as the viewer may see them listed."""
    return [
        {"slug": e.slug, "name": game_name(e.slug), "low": max(e.min_seats, 2), "high": min(e.max_seats, 6)}
        for e in game_selectors.engine_list(viewer=viewer)
        if e.max_seats >= services.MIN_SEATS and e.min_seats <= services.MAX_SEATS
    ]


def _context(request, **extra) -> dict:
    user = request.user
    own = selectors.own_seek(user=user)
    ratings = {}
    if user.is_authenticated:
        ratings = {row.engine: row.ordinal for row in selectors.site_ratings(user=user, viewer=user)}
    seeks = list(selectors.open_seeks(viewer=user)[:100])
    rated = selectors.ratings_at(seeks)
    for seek in seeks:
        seek.name = game_name(seek.engine)
        seek.players = [
            (entry.user.get_username(), rated.get((entry.user_id, seek.engine), 0.0)) for entry in seek.entries.all()
        ]
    return {"engines": _engines(user), "seeks": seeks, "own": own, "ratings": ratings, **extra}


@require_safe
@ensure_csrf_cookie
def lobby_page(request):
    return render(request, "web/lobby.html", _context(request))


def _number(raw, cast=int):
    """A form's number, or None when left empty; text that is no number goes to the service as is,
    which refuses it with its own code."""
    raw = (raw or "").strip()
    if not raw:
        return None
    try:
        return cast(raw)
    except ValueError:
        return raw


def _table(post) -> dict:
    seconds = _number(post.get("per_move_seconds"))
    return {
        "engine_slug": post.get("engine", ""),
        "seats": _number(post.get("seats")),
        "time_control": None if seconds is None else {"per_move_seconds": seconds},
        "rated": post.get("rated") == "on",
    }


def _after(request, call):
    """Run a lobby service; to the play page once the seek filled, else back to the lobby (with the
    refusal shown, and its status)."""
    try:
        seek = call()
    except ServiceError as error:
        return render(request, "web/lobby.html", _context(request, error=error), status=error.status)
    if seek.game_id:
        return redirect("web:play", pk=seek.game_id)
    return redirect("web:lobby")


@login_required
@require_POST
def seek_new(request):
    table = _table(request.POST)
    return _after(
        request,
        lambda: services.seek_create(
            user=request.user,
            rating_min=_number(request.POST.get("rating_min"), float),
            rating_max=_number(request.POST.get("rating_max"), float),
            **table,
        ),
    )


@login_required
@require_POST
def quick(request):
    return _after(request, lambda: services.quick_pair(user=request.user, **_table(request.POST))[0])


STEPS = {"join": services.seek_join, "leave": services.seek_leave}


@login_required
@require_POST
def seek_step(request, pk, step):
    if step not in STEPS:
        return render(request, "web/not_found.html", status=404)
    return _after(request, lambda: STEPS[step](seek_id=pk, user=request.user))


@login_required
@require_POST
def rematch(request, pk):
    """Offer (or accept) the rematch of a finished game; to its page while it waits, to play once
    it starts."""
    if game_selectors.game_get(game_id=pk, viewer=request.user) is None:
        return render(request, "web/not_found.html", status=404)
    try:
        game, _made = services.rematch_offer(game_id=pk, user=request.user)
    except ServiceError as error:
        return render(request, "web/lobby.html", _context(request, error=error), status=error.status)
    return redirect("web:play" if game.has_started else "web:game", pk=game.pk)
