"""Printable rounds for the venue, and check-in by QR at the door.

- ``/tournaments/<id>/rounds/<n>/print`` and ``/seasons/<id>/rounds/<n>/print``: a page for the
  printer (web/static/web/print.css: A4, no navigation, a page break before each slip) with the
  round's tables, then one result slip per table whose QR code opens the report page of that
  pairing (``web:pairing-report``, kind ``board`` or ``fixture``); ``.../print.pdf`` is the same
  as a PDF (web/print_pdf.py).
- ``/tournaments/<id>/check-in/poster``: a poster for the venue door whose QR code opens
  ``/tournaments/<id>/check-in/here``, where a logged-in entrant checks in with one tap
  (``league.tournaments.ops.tournament_check_in``, the service the API's check-in uses).

Who may print: anyone who may see the tournament or season page. The slips show nothing the page
does not (pairings and table numbers are public there), and the QR codes only lead to pages that
check who may report or check in; a club's volunteer, an arbiter or a player with a printer at home
can print without being made an organiser. Table numbers come from ``league.printing`` and match
the tournament and season pages.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe

from league import printing, services
from league.models import Tournament
from league.scoring import reports as report_rules
from league.seasons import selectors as season_selectors
from league.tournaments import ops
from league.tournaments import selectors as tselectors

from . import print_pdf, qr
from .league_views import _not_found

REPORT_ROUTE = "web:pairing-report"


def report_url(request, table: printing.Table) -> str:
    """The absolute address of the pairing's report page: what the slip's QR code opens."""
    return request.build_absolute_uri(reverse(REPORT_ROUTE, kwargs={"kind": table.kind, "pk": table.pk}))


def _detail(table: printing.Table) -> str:
    if table.division is not None:
        return _("Division %(tier)s") % {"tier": table.division}
    return table.bracket_match


def _sheet(request, printed: printing.PrintedRound, *, svg: bool) -> dict:
    """The round's tables and slips as both the page and the PDF show them (``svg``: with each
    slip's QR code drawn for the page; the PDF draws its own)."""
    tables = [
        {"number": t.number, "players": t.players, "detail": _detail(t), "bye": t.is_bye, "decided": t.decided}
        for t in printed.tables
    ]
    slips = []
    for table in printed.slips:
        url = report_url(request, table)
        slips.append(
            {
                "number": table.number,
                "kind": table.kind,
                "pk": table.pk,
                "players": table.players,
                "detail": _detail(table),
                "url": url,
                "qr": qr.svg(url, _("Report the result of table %(number)s") % {"number": table.number}) if svg else "",
            }
        )
    return {"tables": tables, "slips": slips, "printed": printed}


def _heading(printed: printing.PrintedRound) -> str:
    heading = _("Round %(number)s") % {"number": printed.number}
    if printed.play_by:
        stamp = date_format(timezone.localtime(printed.play_by), "Y-m-d H:i")
        heading += " · " + _("play by %(time)s") % {"time": stamp}
    return heading


@dataclass(frozen=True)
class RoundSheet:
    """A round to print, whichever kind: its title, tables, and where the page's links go."""

    title: str
    printed: printing.PrintedRound
    back: str  # the tournament or season page
    pdf: str
    filename: str
    divisions: bool  # a season: the overview has a Division column
    online_only: bool  # its "results" setting takes no reported result: the slips' codes are refused


def _online_only(settings: dict) -> bool:
    """Issue 17's per-tournament and per-season setting: ``online`` (the default) takes no report."""
    return settings.get("results", report_rules.DEFAULT_MODE) == report_rules.ONLINE


def _print_page(request, sheet: RoundSheet | None):
    if sheet is None:
        return _not_found(request)
    context = {
        **_sheet(request, sheet.printed, svg=True),
        "title": sheet.title,
        "heading": _heading(sheet.printed),
        "back": sheet.back,
        "pdf": sheet.pdf,
        "divisions": sheet.divisions,
        "online_only": sheet.online_only,
    }
    return render(request, "web/print/round.html", context)


def _print_pdf(request, sheet: RoundSheet | None):
    if sheet is None:
        return _not_found(request)
    content = _sheet(request, sheet.printed, svg=False)
    overview = [
        (
            t["number"],
            _("%(name)s (bye)") % {"name": t["players"][0]} if t["bye"] else " – ".join(t["players"]),
            t["detail"],
        )
        for t in content["tables"]
    ]
    slips = [
        print_pdf.Slip(number=s["number"], players=s["players"], detail=s["detail"], url=s["url"])
        for s in content["slips"]
    ]
    try:
        body = print_pdf.round_pdf(
            title=sheet.title,
            heading=_heading(sheet.printed),
            slips=slips,
            overview=overview,
            detail_label=_("Division") if sheet.divisions else "",
        )
    except print_pdf.FontMissing as error:
        return JsonResponse({"code": error.code, "detail": str(error)}, status=503)
    response = HttpResponse(body, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{sheet.filename}"'
    return response


def _round_sheet(source: str, pk: int, number: int, *, title: str, printed, settings: dict) -> RoundSheet:
    """``source`` names the routes: ``web:tournament`` / ``web:season`` and their ``-round-pdf``."""
    return RoundSheet(
        title=title,
        printed=printed,
        back=reverse(f"web:{source}", kwargs={"pk": pk}),
        pdf=reverse(f"web:{source}-round-pdf", kwargs={"pk": pk, "number": number}),
        filename=f"{source}-{pk}-round-{number}.pdf",
        divisions=source == "season",
        online_only=_online_only(settings),
    )


def _tournament_round(request, pk, number) -> RoundSheet | None:
    tournament = tselectors.tournament_get(tournament_id=pk, viewer=request.user)
    printed = printing.tournament_round(tournament=tournament, number=number) if tournament else None
    if printed is None:
        return None
    return _round_sheet(
        "tournament", tournament.pk, number, title=tournament.name, printed=printed, settings=tournament.settings
    )


def _season_round(request, pk, number) -> RoundSheet | None:
    season = season_selectors.season_get(season_id=pk, viewer=request.user if request.user.is_authenticated else None)
    printed = printing.season_matchday(season=season, number=number) if season else None
    if printed is None:
        return None
    title = f"{season.league.name} · " + _("Season %(number)s") % {"number": season.number}
    return _round_sheet("season", season.pk, number, title=title, printed=printed, settings=season.rules)


SOURCES = {"tournament": _tournament_round, "season": _season_round}


@require_safe
def round_print(request, pk, number, source):
    """The print page of a tournament round or a season matchday (``source``, set by the route)."""
    return _print_page(request, SOURCES[source](request, pk, number))


@require_safe
def round_pdf(request, pk, number, source):
    return _print_pdf(request, SOURCES[source](request, pk, number))


# ---- check-in by QR at the venue -----------------------------------------------------------------
def check_in_closed(tournament: Tournament) -> str:
    """Why nobody can check in now, in words; "" while check-in is open."""
    if not tournament.settings.get("check_in"):
        return _("This tournament has no check-in: entrants need not check in.")
    if tournament.status == Tournament.Status.FINISHED:
        return _("Check-in is closed: the tournament is over.")
    if tournament.status != Tournament.Status.OPEN:
        return _("Check-in is closed: the tournament has started.")
    return ""


CHECK_IN_REFUSALS = {
    "not_entered": lambda: _(
        "You have not entered this tournament, so there is nothing to check in. Ask the organiser."
    ),
    "check_in_off": lambda: _("This tournament has no check-in: entrants need not check in."),
    "tournament_started": lambda: _("Check-in is closed: the tournament has started."),
}


@require_safe
def tournament_check_in_poster(request, pk):
    """The poster for the venue door: the tournament's name and the QR code of its check-in page."""
    tournament = tselectors.tournament_get(tournament_id=pk, viewer=request.user)
    if tournament is None:
        return _not_found(request)
    closed = check_in_closed(tournament)
    url = request.build_absolute_uri(reverse("web:tournament-check-in-here", kwargs={"pk": tournament.pk}))
    context = {
        "tournament": tournament,
        "closed": closed,
        "url": url,
        "qr": "" if closed else qr.svg(url, _("Check in to %(name)s") % {"name": tournament.name}),
        "back": reverse("web:tournament", kwargs={"pk": tournament.pk}),
    }
    return render(request, "web/print/poster.html", context)


@require_http_methods(["GET", "HEAD", "POST"])
def tournament_check_in_here(request, pk):
    """What the door's QR code opens: the entrant's check-in state and a Check in button (one tap,
    a POST); a refusal is shown on the page in words, the state is never changed by a GET."""
    tournament = tselectors.tournament_get(tournament_id=pk, viewer=request.user)
    if tournament is None:
        return _not_found(request)
    if request.method == "POST":
        return _check_in_post(request, tournament)
    viewer = request.user if request.user.is_authenticated else None
    entry = tournament.entries.filter(user=viewer).first() if viewer else None
    context = {
        "tournament": tournament,
        "closed": check_in_closed(tournament),
        "entry": entry,
        "member": services.is_member(tournament.club, viewer),
    }
    return render(request, "web/check_in.html", context)


@login_required
def _check_in_post(request, tournament):
    try:
        ops.tournament_check_in(tournament_id=tournament.pk, by=request.user)  # the page then shows it
    except services.ServiceError as error:
        words = CHECK_IN_REFUSALS.get(error.code)
        messages.error(request, f"{error.code}: {words() if words else error.message}")
    return redirect("web:tournament-check-in-here", pk=tournament.pk)
