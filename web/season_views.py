"""Seasonal-league pages: a league with its roster and seasons, and a season with each division's
table (promotion and relegation zones marked) and its fixtures round by round with play-by dates.

Reads go through ``league.seasons.selectors``; the organiser's forms (add or remove a roster
player, start the next season, close the running one, correct a result) call ``league.seasons.services`` and come
back to the page with the service's refusal as ``code: message`` (post, redirect, get).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from league import printing
from league import selectors as club_selectors
from league import services as club_services
from league.scoring.placements import place_points
from league.seasons import scoring, selectors, services
from league.seasons.models import Fixture, Season

from .brackets import points_text
from .charts import standings_chart
from .forms import NewLeagueForm, form_refusal
from .league_views import _not_found
from .tournament_views import REFUSALS as TOURNAMENT_REFUSALS

REFUSALS = {
    **TOURNAMENT_REFUSALS,
    "season_running": lambda: _("The current season is still running; close it first."),
    "division_too_small": lambda: _("A division would have fewer than two players; add players to the league."),
    "not_a_club_member": lambda: _("That player is not a member of this club; invite them first."),
    "already_in_league": lambda: _("That player is in this league already."),
}


def tiebreak_label(code: str) -> str:
    return {
        "head_to_head": _("head to head"),
        "wins": _("wins"),
        "sonneborn_berger": _("Sonneborn-Berger"),
        "game_points": _("game points"),
    }.get(code, code)


def movement_label(code: str) -> str:
    return {
        scoring.NEW: _("new"),
        scoring.STAYED: _("stayed"),
        scoring.PROMOTED: _("promoted"),
        scoring.RELEGATED: _("relegated"),
    }.get(code, code)


def _viewer(request):
    return request.user if request.user.is_authenticated else None


def _refused(request, error: club_services.ServiceError) -> None:
    words = REFUSALS.get(error.code)
    messages.error(request, f"{error.code}: {words() if words else error.message}")


def fixture_result(fixture: Fixture) -> str:
    """The score as a results sheet writes it: 1–0, 0–1, ½–½; a double forfeit 0–0."""
    return {
        scoring.HOME: "1–0",
        scoring.AWAY: "0–1",
        scoring.DRAW: "½–½",
        scoring.DOUBLE_FORFEIT: "0–0",
    }.get(fixture.result, "")


def tables_text(tables: dict) -> dict | None:
    """A multiplayer league's or season's tables for a page: the seat range, the preferred size and
    each place's points (the season's ``placement_points``, or linear from 1 down to 0)."""
    if not tables:
        return None
    seats = tables["seats"]
    table = tables.get("placement_points")
    places = place_points(seats["max"], table)
    return {
        "min": seats["min"],
        "max": seats["max"],
        "preferred": seats["preferred"],
        "places": ", ".join(points_text(value) for value in places),
        "linear": table is None,
    }


def game_href(game) -> str:
    return reverse("web:replay" if game.is_finished else "web:play", kwargs={"pk": game.pk})


# ---- a league ------------------------------------------------------------------------------------
@require_safe
def league_page(request, pk):
    league = selectors.league_get(league_id=pk, viewer=_viewer(request))
    if league is None:
        return _not_found(request)
    viewer = request.user if request.user.is_authenticated else None
    seasons = list(selectors.season_list(league=league))
    running = next((season for season in seasons if season.status == Season.Status.RUNNING), None)
    organiser = club_services.is_organiser(league.club, viewer)
    plan = None
    if organiser and running is None:
        plan = selectors.next_season_plan(league=league)
        plan.rows = [[(user, movement_label(movement)) for user, movement in division] for division in plan.divisions]
    context = {
        "league": league,
        "roster": selectors.roster(league=league).filter(active=True),
        "seasons": seasons,
        "running": running,
        "organiser": organiser,
        "plan": plan,
        "tiebreaks": [tiebreak_label(name) for name in league.tiebreaks],
        "tables": tables_text(league.tables),
        "points": {
            "win": points_text(league.points_win),
            "draw": points_text(league.points_draw),
            "loss": points_text(league.points_loss),
        },
    }
    return render(request, "web/league.html", context)


def _named(request):
    username = (request.POST.get("username") or "").strip()
    user = club_selectors.user_by_name(username)
    if user is None:
        raise club_services.ServiceError("no_such_player", f"no player called {username!r}")
    return user


def _player_add(request, league):
    user = _named(request)
    services.league_player_add(league_id=league.pk, by=request.user, user=user)
    return _("%(name)s plays from the next season.") % {"name": user.get_username()}


def _player_remove(request, league):
    user = _named(request)
    services.league_player_remove(league_id=league.pk, by=request.user, user=user)
    return _("%(name)s leaves the league after this season.") % {"name": user.get_username()}


def _season_start(request, league):
    season = services.season_start(league_id=league.pk, by=request.user)
    return _("Season %(number)s has started; its fixtures are made.") % {"number": season.number}


LEAGUE_ACTIONS = {"add-player": _player_add, "remove-player": _player_remove, "start-season": _season_start}


@login_required
@require_POST
def league_action(request, pk, action):
    league = selectors.league_get(league_id=pk, viewer=_viewer(request))
    if league is None or action not in LEAGUE_ACTIONS:
        return _not_found(request)
    try:
        done = LEAGUE_ACTIONS[action](request, league)
    except club_services.ServiceError as error:
        _refused(request, error)
    else:
        messages.success(request, done)
    return redirect("web:league", pk=league.pk)


# ---- a season ------------------------------------------------------------------------------------
@require_safe
def season_page(request, pk):
    season = selectors.season_get(season_id=pk, viewer=_viewer(request))
    if season is None:
        return _not_found(request)
    viewer = request.user if request.user.is_authenticated else None
    rules = season.rules
    tables = selectors.season_standings(season=season)
    per_round = selectors.points_by_round(season=season)
    for table in tables:
        division = per_round.get(table["tier"], {})
        ordered = {row["username"]: division.get(row["username"], []) for row in table["standings"]}
        table["chart"] = standings_chart(ordered, points_text=points_text)
        table["chart_id"] = f"round-chart-{table['tier']}"
        for row in table["standings"]:
            row["points_text"] = points_text(row["points"])
            row["came_label"] = movement_label(row["came"])
            row["tiebreak_values"] = [row["tiebreaks"].get(name) for name in rules["tiebreaks"]]
    rounds: dict[int, list[Fixture]] = {}
    fixtures = list(selectors.fixture_list(season=season).select_related("game"))
    numbers = printing.season_table_numbers(fixtures)  # the printed round's table numbers
    names = selectors.season_player_names(season=season)
    for fixture in fixtures:
        fixture.table = numbers[fixture.pk]
        fixture.score = fixture_result(fixture)
        if fixture.players:
            fixture.seated = _seated(fixture, names)
            fixture.label = " v ".join(names.get(pk, "?") for pk in fixture.players)
        else:
            fixture.label = f"{fixture.home.username} v {fixture.away.username}"
        fixture.href = game_href(fixture.game)
        rounds.setdefault(fixture.round, []).append(fixture)
    context = {
        "season": season,
        "league": season.league,
        "tables": tables,
        "rules": rules,
        "points": {key: points_text(value) for key, value in rules["points"].items()},
        "tiebreaks": [tiebreak_label(name) for name in rules["tiebreaks"]],
        "rounds": [
            {"number": number, "play_by": fixtures[0].play_by, "fixtures": fixtures}
            for number, fixtures in sorted(rounds.items())
        ],
        "organiser": club_services.is_organiser(season.league.club, viewer),
        "tables_rules": tables_text(rules.get("tables")),
        "results": [
            (scoring.HOME, _("home won")),
            (scoring.AWAY, _("away won")),
            (scoring.DRAW, _("draw")),
            (scoring.DOUBLE_FORFEIT, _("double forfeit")),
        ]
        if not rules.get("tables")
        else [(scoring.PLACED, _("the placings below")), (scoring.DOUBLE_FORFEIT, _("double forfeit"))],
    }
    context["decided"] = [f for fixtures in rounds.values() for f in fixtures if f.result]
    return render(request, "web/season.html", context)


def _seated(fixture: Fixture, names: dict) -> list[dict]:
    """A multiplayer fixture's players in seat order, each with their place and points once decided."""
    place = {}
    for index, group in enumerate(fixture.placements or []):
        before = sum(len(g) for g in fixture.placements[:index])
        for pk in group:
            place[pk] = before + 1
    points = fixture.points or {}
    return [
        {
            "username": names.get(pk, "?"),
            "place": place.get(pk),
            "points": points_text(points[str(pk)]) if str(pk) in points else "",
            "won": place.get(pk) == 1 and fixture.result == scoring.PLACED,
        }
        for pk in fixture.players
    ]


def _season_close(request, season):
    services.season_close(season_id=season.pk, by=request.user)
    return _("Season %(number)s is closed; its final tables are frozen.") % {"number": season.number}


def _fixture_correct(request, season):
    try:
        fixture_id = int(request.POST.get("fixture") or "")
    except ValueError:
        raise club_services.ServiceError("not_found", "choose a fixture") from None
    if not Fixture.objects.filter(pk=fixture_id, season=season).exists():
        raise club_services.ServiceError("not_found", "no such fixture in this season")
    result, ranking = request.POST.get("result") or "", None
    placings = (request.POST.get("placings") or "").strip()
    if placings and result != scoring.DOUBLE_FORFEIT:  # "aki, ben = chie, dana": commas between places
        result = scoring.PLACED
        ranking = [[name.strip() for name in place.split("=")] for place in placings.replace("、", ",").split(",")]
    fixture = services.fixture_correct(
        fixture_id=fixture_id,
        by=request.user,
        result=result,
        reason=request.POST.get("reason") or "",
        ranking=ranking,
    )
    names = selectors.season_player_names(season=season)
    return _("%(players)s is corrected.") % {"players": " v ".join(names.get(pk, "?") for pk in fixture.seat_ids)}


SEASON_ACTIONS = {"close": _season_close, "correct": _fixture_correct}


@login_required
@require_POST
def season_action(request, pk, action):
    season = selectors.season_get(season_id=pk, viewer=_viewer(request))
    if season is None or action not in SEASON_ACTIONS:
        return _not_found(request)
    try:
        done = SEASON_ACTIONS[action](request, season)
    except club_services.ServiceError as error:
        _refused(request, error)
    else:
        messages.success(request, done)
    return redirect("web:season", pk=season.pk)


# ---- a new league, from the club page -------------------------------------------------------------
@login_required
@require_POST
def league_new(request, slug):
    """An organiser's "New league" form on the club page: ``league_create``; the new league's page,
    or back to the club with the refusal."""
    club = club_selectors.club_get(slug=slug)
    if club is None:
        return _not_found(request)
    form = NewLeagueForm(request.POST)
    try:
        if not form.is_valid():
            raise club_services.ServiceError(*form_refusal(form))
        league = services.league_create(club_id=club.pk, by=request.user, **form.service_arguments())
    except club_services.ServiceError as error:
        _refused(request, error)
        return redirect("web:club", slug=club.slug)
    messages.success(request, _("The league is founded; add players, then start its first season."))
    return redirect("web:league", pk=league.pk)
