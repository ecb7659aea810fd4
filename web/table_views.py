"""The table recorder's pages: start recording a game played at a real table, and the keeper's page.

The keeper's page (``web/static/web/recorder.js``) reads the sheet (``GET /api/table-games/<id>``)
and sends each line to ``POST /api/table-games/<id>/entries``; every line is first kept in the
browser (localStorage) with its idempotency key and the line number it was typed for, so lines
typed while the connection is down are sent, in order and once, when it comes back.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_http_methods, require_safe

from games import selectors, table
from games.engines import get_engine
from games.errors import ServiceError

from .names import game_name
from .replay import seat_names
from .strings import js_strings


def _recorder_strings() -> dict:
    """The words recorder.js shows (besides the shared ones of ``js_strings``)."""
    return {
        "rec_line": _("Line {n}"),
        "rec_online": _("Online"),
        "rec_offline": _("Offline: lines are kept on this device and sent when the connection returns."),
        "rec_queued": _("{n} line(s) waiting to be sent"),
        "rec_sent": _("Recorded."),
        "rec_again": _("Already recorded (sent again after a lost answer)."),
        "rec_refused": _("This line was refused; correct it or discard it."),
        "rec_discard": _("Discard"),
        "rec_deal": _("Enter the chance outcome"),
        "rec_zone": _("Tap the cards for: {zone}"),
        "rec_completed": _("{zone}: filled in by the server with the cards not entered"),
        "rec_rest": _("The rest"),
        "rec_clear": _("Clear"),
        "rec_record": _("Record"),
        "rec_moves_of": _("Moves of {name}"),
        "rec_system": _("Other lines"),
        "rec_close_window": _("Nobody answered: close the window"),
        "rec_resign": _("{name} resigns"),
        "rec_typed": _("Type a line"),
        "rec_kind": _("Kind"),
        "rec_seat": _("Seat"),
        "rec_action": _("Action"),
        "rec_data": _("Data (JSON)"),
        "rec_add": _("Add line"),
        "rec_bad_json": _("The data is not valid JSON."),
        "rec_finished": _("The game is over; the record is complete."),
        "rec_stale": _("Waiting for the lines above to be sent; the choices shown may be out of date."),
        "rec_nothing": _("Nothing to choose now."),
    }


@login_required
@require_http_methods(["GET", "POST"])
def table_new(request):
    """A form to start recording: the game, the players' names in seat order, and your own seat."""
    engines = [{"slug": e.slug, "name": game_name(e.slug)} for e in selectors.engine_list(viewer=request.user)]
    context = {"engines": engines, "error": None, "values": {"engine": "nine-card", "seats": "", "keeper_seat": ""}}
    if request.method == "POST":
        names = [line.strip() for line in request.POST.get("seats", "").replace(",", "\n").splitlines()]
        names = [name for name in names if name]
        raw_seat = request.POST.get("keeper_seat", "").strip()
        context["values"] = {
            "engine": request.POST.get("engine", ""),
            "seats": "\n".join(names),
            "keeper_seat": raw_seat,
        }
        try:
            keeper_seat = int(raw_seat) - 1 if raw_seat else None
            game = table.table_game_create(
                engine_slug=request.POST.get("engine", ""),
                config=None,
                seats=names,
                keeper=request.user,
                keeper_seat=keeper_seat,
                meta={"place": request.POST["place"]} if request.POST.get("place", "").strip() else None,
            )
        except ValueError:
            context["error"] = f"bad_seat: {_('Your seat is a number from the list of players.')}"
        except ServiceError as error:
            context["error"] = f"{error.code}: {error.message}"
        else:
            return redirect("web:table", pk=game.pk)
        return render(request, "web/table_new.html", context, status=400)
    return render(request, "web/table_new.html", context)


@ensure_csrf_cookie
@login_required
@require_safe
def table_page(request, pk):
    """The keeper's page of a table game; anyone else gets the 404 page."""
    game = selectors.game_get(game_id=pk, viewer=request.user)
    if game is None or game.source != game.Source.TABLE or not table.may_keep(game=game, user=request.user):
        return render(request, "web/not_found.html", status=404)
    engine = get_engine(game.engine)
    page = {
        "game": str(game.pk),
        "engine": game.engine,
        "names": seat_names(game),
        "actions": engine.describe()["actions"],
    }
    context = {
        "game": game,
        "game_name": game_name(game.engine),
        "names": seat_names(game),
        "strings": {**js_strings(), **_recorder_strings()},
        "page": page,
    }
    return render(request, "web/table_recorder.html", context)
