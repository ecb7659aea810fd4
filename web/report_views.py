"""The report page of a pairing (issue 17): a ladder challenge, a rated game or match, a tournament
board or a season fixture, played at a table. A seated player reports the result, the others confirm
or dispute it, an organiser settles it or enters one. The printed result slips' QR codes open it
(``web:pairing-report``, kwargs ``kind`` and ``pk``).

Reads go through ``league.reports.selectors``; each form posts here and calls one
``league.reports.services`` step, then comes back (post, redirect, get) with the step's outcome or
the service's refusal. Each rendered form carries a fresh idempotency key, so a form sent twice
(a double tap, a resend after a dropped connection) does its step once.
"""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from games.errors import ServiceError
from league.reports import selectors, services
from league.reports.pairings import pairing_get, pairing_visible
from league.selectors import usernames

REFUSALS = {
    "not_in_pairing": lambda: _("Only the players of this pairing may report or confirm its result."),
    "not_organiser": lambda: _("Only an organiser of this club may do this."),
    "reports_not_allowed": lambda: _("This pairing is decided by a game on the server only."),
    "pairing_decided": lambda: _("This pairing is decided already."),
    "report_open": lambda: _("A result is already reported: confirm or dispute it."),
    "invalid_ranking": lambda: _("Give each player a place: 1 for the winner; the same place for a tie."),
    "series_score_required": lambda: _("This pairing is a series: give each player's match points."),
    "impossible_score": lambda: _("That score cannot happen in this pairing; check the points."),
    "game_in_play": lambda: _("Moves were made on the server: finish this game there."),
}
STEPS = ("report", "confirm", "dispute", "settle", "table")
# The words of report statuses and steps in the active language (the API keeps the codes).
LABELS = {
    "pending": lambda: _("waiting for confirmation"),
    "disputed": lambda: _("disputed"),
    "confirmed": lambda: _("confirmed"),
    "settled": lambda: _("settled by an organiser"),
    "superseded": lambda: _("superseded"),
    "reported": lambda: _("reported"),
    "entered": lambda: _("entered by an organiser"),
    "auto_confirmed": lambda: _("confirmed when its time ran out"),
}


def _label(code: str) -> str:
    words = LABELS.get(code)
    return words() if words else code


def _labelled(data: dict) -> dict:
    for report in data["reports"]:
        report["label"] = _label(report["status"])
        for step in report["steps"]:
            step["label"] = _label(step["kind"])
    return data


def owner_url(pairing) -> str:
    owner = pairing.owner
    return reverse(f"web:{pairing.owner_field}", kwargs={"pk": owner.pk})


def _result_from(request, players: dict[int, str]) -> tuple[list | None, dict | None]:
    """The ranking (groups of user ids by the place chosen for each player) and the scores typed
    in (all or none) of the form."""
    places, scores = {}, {}
    for pk, name in players.items():
        place = request.POST.get(f"place-{name}", "")
        if place:
            places[pk] = int(place) if place.isdigit() else 0
        score = request.POST.get(f"score-{name}", "").strip()
        if score:
            try:
                scores[pk] = float(score)
            except ValueError:
                raise ServiceError("invalid_scores", f"the score of {name} must be a number") from None
    if not places:
        return None, None
    if set(places) != set(players) or any(place < 1 for place in places.values()):
        raise ServiceError("invalid_ranking", "give each player a place, 1 for the best")
    ranking = [[pk for pk in players if places[pk] == place] for place in sorted(set(places.values()))]
    return ranking, (scores or None)


@require_http_methods(["GET", "HEAD", "POST"])
def pairing_report(request, kind, pk):
    try:
        pairing = pairing_get(kind, pk)
    except ServiceError:  # no such pairing, an unknown kind, or a bye (no result to report)
        return render(request, "web/not_found.html", status=404)
    if not pairing_visible(pairing, request.user):
        return render(request, "web/not_found.html", status=404)
    if request.method == "POST":
        return _post(request, kind, pk)
    reports = selectors.pairing_reports(kind=pairing.kind, key=pairing.key)
    data = _labelled(selectors.pairing_dict(pairing, reports))
    names = usernames(pairing.players)
    viewer = request.user if request.user.is_authenticated else None
    report = data["open_report"]
    seated = viewer is not None and viewer.pk in pairing.players
    context = {
        "pairing": pairing,
        "data": data,
        "players": [(names.get(p, str(p)), place) for place, p in enumerate(pairing.players, start=1)],
        "places": range(1, len(pairing.players) + 1),
        "owner_url": owner_url(pairing),
        "report": report,
        "seated": seated,
        "organiser": services.may_settle(pairing, viewer),
        "may_report": seated and not pairing.decided and report is None and pairing.mode != "online",
        "may_answer": seated
        and not pairing.decided
        and report is not None
        and report["status"] == "pending"
        and viewer.get_username() in report["waiting_for"],
        "may_table": (seated or services.may_settle(pairing, viewer))
        and not pairing.decided
        and pairing.mode != "online"
        and pairing.game is not None,
        "at_table": pairing.game is not None and pairing.game.source == "table",
        "key": uuid.uuid4().hex,
        "game_url": reverse("web:game", kwargs={"pk": pairing.game.pk}) if pairing.game is not None else None,
    }
    return render(request, "web/pairing_report.html", context)


@login_required
@require_POST
def _post(request, kind, pk):
    step = request.POST.get("step", "")
    key = request.POST.get("idempotency_key", "")[:100]
    here = reverse("web:pairing-report", kwargs={"kind": kind, "pk": pk})
    try:
        if step not in STEPS:
            raise ServiceError("unknown_step", f"the step is one of {', '.join(STEPS)}")
        pairing = pairing_get(kind, pk)
        if step == "table":  # record it at the table: the recorder page of the new table game
            _key, game = services.pairing_to_table(kind=kind, pairing=pk, by=request.user)
            return redirect("web:table", pk=game.pk)
        ranking, scores = _result_from(request, usernames(pairing.players))
        common = {"kind": kind, "pairing": pk, "by": request.user, "idempotency_key": key}
        if step == "report":
            services.result_report(**common, ranking=ranking, scores=scores)
            messages.success(request, _("Result reported; the other players confirm it."))
        elif step == "confirm":
            services.result_confirm(**common)
            messages.success(request, _("You confirmed the result."))
        elif step == "dispute":
            services.result_dispute(**common, reason=request.POST.get("reason", ""))
            messages.success(request, _("You disputed the result; an organiser settles it."))
        else:
            services.result_settle(**common, ranking=ranking, scores=scores, reason=request.POST.get("reason", ""))
            messages.success(request, _("The result is settled."))
    except ServiceError as error:
        words = REFUSALS.get(error.code)
        messages.error(request, f"{error.code}: {words() if words else error.message}")
    return redirect(here)


@login_required
@require_POST
def reporting_set(request, owner, pk):
    """An organiser sets how the pairings of a ladder, tournament or season may be decided."""
    if owner not in services.OWNERS:
        return render(request, "web/not_found.html", status=404)
    hours = request.POST.get("report_confirm_hours", "").strip()
    try:
        try:
            hours = float(hours) if hours else None
        except ValueError:
            raise ServiceError("invalid_confirm_hours", "the hours must be a number") from None
        services.reporting_set(
            owner=owner, owner_id=pk, by=request.user, results=request.POST.get("results") or None, confirm_hours=hours
        )
    except ServiceError as error:
        words = REFUSALS.get(error.code)
        messages.error(request, f"{error.code}: {words() if words else error.message}")
    else:
        messages.success(request, _("Saved: how results are decided."))
    return redirect(f"web:{owner}", pk=pk)
