"""Server-rendered pages: the games list, a game's page, the replay viewer, the play page and sign-up.

Pages are thin like the API views: they read through ``games.selectors``, write through
``games.services``, and leave the rules to the engines. The replay and play pages draw the table
with small scripts (``web/static/web/``) from JSON the server computes: ``replay.json`` here, and
the API's ``state`` and ``moves`` endpoints (session authentication) for play.
"""

from __future__ import annotations

from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_POST, require_safe

from games import selectors, services, table
from games.errors import ServiceError

from .describe import describe_event, katsu_results
from .forms import NewGameForm, SignUpForm
from .moderation_views import mark_contributions, permissions
from .names import game_name
from .replay import ReplayError, live_position, replay_position, seat_names, whole_number
from .strings import js_strings


def _not_found(request):
    return render(request, "web/not_found.html", status=404)


def _game_or_none(request, pk):
    """The game if this visitor may see it (mature games only with consent)."""
    return selectors.game_get(game_id=pk, viewer=request.user)


def _next_url(request, default: str) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        return target
    return default


# ---- lists and summaries ------------------------------------------------------------------
def _home_context(request, form) -> dict:
    visible = selectors.engine_list(viewer=request.user)
    engines = [{"slug": e.slug, "name": game_name(e.slug), "engine": e} for e in visible]
    invitations = selectors.invitations_for(user=request.user)[:50] if request.user.is_authenticated else []
    return {
        "games": selectors.game_list(viewer=request.user)[:50],
        "engines": engines,
        "form": form,
        "invitations": invitations,
    }


@require_safe
def home(request):
    form = NewGameForm(viewer=request.user) if request.user.is_authenticated else None
    return render(request, "web/home.html", _home_context(request, form))


@require_safe
def game_page(request, pk):
    game = _game_or_none(request, pk)
    if game is None:
        return _not_found(request)
    return render(request, "web/game.html", _game_context(request, game))


def _game_context(request, game, **extra) -> dict:
    seat = selectors.seat_of(game=game, user=request.user)
    public = game.is_finished and selectors.game_sight(game=game, user=request.user).public
    invited = seat is not None and game.status == game.Status.OPEN and game.seats.get(index=seat).accepted_at is None
    keeper = game.source == game.Source.TABLE and table.may_keep(game=game, user=request.user)
    moderation = permissions(game=game, user=request.user)
    return {
        "moderation": moderation,
        "contributions": _contribution_lines(request, game, seat) if moderation["contributions"] else [],
        "game": game,
        "seat": seat,
        "names": seat_names(game),
        "public": public,
        "invited": invited,
        "keeper": keeper,
        **extra,
    }


def _contribution_lines(request, game, seat) -> list[dict]:
    """The storytelling game's contributions the viewer may see now, in words, for the moderation
    forms of the game page (as the play page's event list shows them)."""
    sight = selectors.game_sight(game=game, user=request.user)
    events = selectors.events_for(game=game, seat=seat, sight=sight)
    names = seat_names(game)
    described = [describe_event(game.engine, event, names) for event in events]
    return [line for line in mark_contributions(game.engine, events, described) if line.get("contribution")]


# ---- creating and joining -----------------------------------------------------------------
@login_required
@require_POST
def game_new(request):
    form = NewGameForm(request.POST, viewer=request.user)
    if not form.is_valid():
        return render(request, "web/home.html", _home_context(request, form), status=400)
    data = form.cleaned_data
    others = data["opponent_users"] + [None] * (data["players"] - 1 - len(data["opponent_users"]))
    try:
        game = services.game_create(
            engine_slug=data["engine"], config={}, seats=[request.user, *others], created_by=request.user
        )
    except ServiceError as error:
        form.add_error(None, f"{error.code}: {error.message}")
        return render(request, "web/home.html", _home_context(request, form), status=400)
    return redirect("web:play", pk=game.pk)


@login_required
@require_POST
def game_join(request, pk):
    game = _game_or_none(request, pk)
    if game is None:
        return _not_found(request)
    try:
        services.game_join(game_id=game.pk, user=request.user)
    except ServiceError as error:
        return render(request, "web/game.html", _game_context(request, game, error=error), status=error.status)
    return redirect("web:play", pk=game.pk)


ANSWERS = {"accept": services.game_accept, "decline": services.game_decline}


@login_required
@require_POST
def game_answer(request, pk, answer):
    """Accept or decline a seat someone else named you for (issue 15 part 6)."""
    game = _game_or_none(request, pk)
    if game is None or answer not in ANSWERS:
        return _not_found(request)
    try:
        game = ANSWERS[answer](game_id=game.pk, user=request.user)
    except ServiceError as error:
        return render(request, "web/game.html", _game_context(request, game, error=error), status=error.status)
    return redirect("web:play" if game.has_started else "web:game", pk=game.pk)


# ---- replay -------------------------------------------------------------------------------
@require_safe
def replay_page(request, pk):
    """A finished, public game: every perspective. A running one: as far as the viewer may see it,
    as their own seat or a spectator (the seed and the record stay closed until it is public)."""
    game = _game_or_none(request, pk)
    if game is None:
        return _not_found(request)
    sight = selectors.game_sight(game=game, user=request.user)
    public = game.is_finished and sight.public
    seat = selectors.seat_of(game=game, user=request.user)
    context = {
        "game": game,
        "names": seat_names(game),
        "strings": js_strings(),
        "game_name": game_name(game.engine),
        "public": public,
        "total": game.head_seq if public else sight.seq,
        "default_as": "all" if public else str(seat) if seat is not None and not sight.delayed else "spectator",
    }
    if not game.has_started:
        return render(request, "web/replay_running.html", context, status=409)
    return render(request, "web/replay.html", context)


@require_safe
def replay_json(request, pk):
    """``?at=N&as=all|spectator|SEAT``: the position after event N as that perspective saw it."""
    game = _game_or_none(request, pk)
    if game is None:
        return JsonResponse({"code": "not_found", "message": _("No such game.")}, status=404)
    sight = selectors.game_sight(game=game, user=request.user)
    try:
        if game.is_finished and sight.public:
            position = replay_position(game=game, at_raw=request.GET.get("at"), as_raw=request.GET.get("as"))
        else:
            seat = selectors.seat_of(game=game, user=request.user)
            at_raw, as_raw = request.GET.get("at"), request.GET.get("as")
            position = live_position(game=game, at_raw=at_raw, as_raw=as_raw, sight=sight, seat=seat)
    except ReplayError as error:
        return JsonResponse({"code": error.code, "message": error.message}, status=error.status)
    return JsonResponse(position, json_dumps_params={"ensure_ascii": False})


# ---- play ---------------------------------------------------------------------------------
@ensure_csrf_cookie
@require_safe
def play_page(request, pk):
    """A seated player plays here; anyone else watches the spectator view."""
    game = _game_or_none(request, pk)
    if game is None:
        return _not_found(request)
    seat = selectors.seat_of(game=game, user=request.user)
    context = {
        "game": game,
        "seat": seat,
        "names": seat_names(game),
        "strings": js_strings(),
        "game_name": game_name(game.engine),
        "page": {
            "game": str(game.pk),
            "engine": game.engine,
            "seat": seat,
            "names": seat_names(game),
            **permissions(game=game, user=request.user),  # the storytelling games' moderation forms
        },
    }
    return render(request, "web/play.html", context)


@require_safe
def play_log(request, pk):
    """The events after ``?after=`` in words, redacted for the caller while the game runs."""
    game = _game_or_none(request, pk)
    if game is None:
        return JsonResponse({"code": "not_found", "message": _("No such game.")}, status=404)
    after = whole_number(request.GET.get("after") or "0")
    if after is None:
        return JsonResponse({"code": "bad_parameter", "message": _("after must be a whole number")}, status=400)
    after = min(after, game.head_seq)  # nothing comes after the last event
    seat = selectors.seat_of(game=game, user=request.user)
    names = seat_names(game)
    events = selectors.events_for(game=game, seat=seat, after=after)
    katsu = {}
    if game.engine == "satori":  # a katsu says what the card was: the n-th katsu is the log's n-th entry
        before = game.events.filter(seq__lte=after, kind="move", payload__type="katsu").count()
        katsu = katsu_results(game.engine, selectors.game_view(game=game, seat=seat), events, before)
    described = [describe_event(game.engine, event, names, katsu.get(event["seq"])) for event in events]
    described = mark_contributions(game.engine, events, described)  # the lines a moderator acts on
    return JsonResponse({"events": described}, json_dumps_params={"ensure_ascii": False})


# ---- accounts -----------------------------------------------------------------------------
def signup(request):
    if request.user.is_authenticated:
        return redirect(_next_url(request, "/"))
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(_next_url(request, "/"))
    return render(request, "registration/signup.html", {"form": form, "next": _next_url(request, "")})
