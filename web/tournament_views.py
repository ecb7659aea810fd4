"""Tournament pages: one tournament with its entries, rounds (boards and tables with links to their
games), standings with tiebreak columns, and for the elimination formats a drawn bracket.

Reads go through ``league.tournaments.selectors`` (plus the entries and rounds, read here with
``select_related``); the forms (enter, check in, withdraw or drop, start, pair the next round,
pair a Swiss round by hand, correct a result; on the club page, a new tournament) call
``league.tournaments.lifecycle`` and ``.ops``, which check who may do what, and come back to the page with the service's
refusal as ``code: message`` (post, redirect, get).
"""

from __future__ import annotations

import re

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from league import selectors, services
from league.models import Tournament, TournamentEntry, TournamentRound
from league.scoring import elimination
from league.tournaments import lifecycle, ops
from league.tournaments import selectors as tselectors
from league.tournaments.settings import ELIMINATION

from . import brackets
from .charts import standings_chart
from .forms import NewTournamentForm, form_refusal
from .league_views import REFUSALS as CLUB_REFUSALS
from .league_views import _not_found

Format = Tournament.Format

# The refusals a visitor can cause from this page, in words of the active language; any other
# refusal shows the service's own (English) message after its code.
REFUSALS = {
    **CLUB_REFUSALS,
    "tournament_started": lambda: _("Entries are closed: the tournament has started."),
    "already_entered": lambda: _("That player has already entered."),
    "too_few_entries": lambda: _("There are too few entries to start."),
    "round_running": lambda: _("The current round still has games being played."),
    "not_authenticated": lambda: _("Log in to do this."),
}


def format_label(code: str) -> str:
    return {
        Format.ROUND_ROBIN: _("round robin"),
        Format.SWISS: _("Swiss"),
        Format.MULTI_SWISS: _("Swiss for tables of 3-6"),
        Format.SINGLE_ELIMINATION: _("single elimination"),
        Format.DOUBLE_ELIMINATION: _("double elimination"),
        Format.GROUPS_PLAYOFF: _("groups, then a playoff"),
    }.get(code, code)


def tiebreak_label(code: str) -> str:
    return {
        "buchholz": _("Buchholz"),
        "buchholz_cut1": _("Buchholz cut 1"),
        "buchholz_median": _("median Buchholz"),
        "sonneborn_berger": _("Sonneborn-Berger"),
        "direct_encounter": _("direct encounter"),
        "game_points": _("game points"),
        "omw": _("opponents' match-win %"),
    }.get(code, code)


def _refused(request, error: services.ServiceError) -> None:
    words = REFUSALS.get(error.code)
    messages.error(request, f"{error.code}: {words() if words else error.message}")


def game_href(board) -> str:
    """The page of a board's game: play while it runs, the replay once it is over; a match board
    (best of N) links to its match."""
    if board.game_id is None:
        return f"/api/matches/{board.match_id}" if board.match_id else ""
    name = "web:replay" if board.game and board.game.is_finished else "web:play"
    return reverse(name, kwargs={"pk": board.game_id})


def _seats(board, names: dict) -> list[dict]:
    """A board's players in seat order with their place and points once decided."""
    place, rank = {}, 1
    for group in board.placements or []:
        place.update(dict.fromkeys(group, rank))
        rank += len(group)
    points = board.points or {}
    return [
        {
            "name": names.get(pk, "?"),
            "place": place.get(pk),
            "points": brackets.points_text(points.get(str(pk))),
            "won": place.get(pk) == 1 and board.decided_by != "double_forfeit" and not board.is_bye,
        }
        for pk in board.seat_ids
    ]


def _rounds(tournament: Tournament, names: dict) -> list[dict]:
    records = {r.number: r for r in TournamentRound.objects.filter(tournament=tournament)}
    by_round: dict[int, list] = {}
    for board in tselectors.board_list(tournament=tournament).order_by("round", "number"):
        board.seats = _seats(board, names)
        board.href = game_href(board)
        by_round.setdefault(board.round, []).append(board)
    return [
        {"number": number, "record": records.get(number), "boards": boards}
        for number, boards in sorted(by_round.items())
    ]


def _group_tables(tournament: Tournament, names: dict) -> list[dict]:
    """groups_playoff: each group's round-robin table from its own results and tiebreaks."""
    advance = tournament.settings.get("advance", 0)
    tables = []
    for index, rows in enumerate(tselectors.tournament_group_standings(tournament=tournament)):
        tables.append(
            {
                "label": group_letter(index),
                "rows": [
                    {
                        "rank": row.rank,
                        "name": names.get(row.player, "?"),
                        "points": brackets.points_text(row.points),
                        "played": row.played,
                        "wins": row.wins,
                        "draws": row.draws,
                        "losses": row.losses,
                        "advances": position < advance,
                    }
                    for position, row in enumerate(rows)
                ],
            }
        )
    return tables


def group_letter(index: int) -> str:
    return chr(ord("A") + index) if index < 26 else str(index + 1)


def _bracket(tournament: Tournament, names: dict) -> brackets.Bracket | None:
    """The bracket drawn from the tournament's seeds and bracket boards (None before the start)."""
    bracket, settings = tournament.bracket or {}, tournament.settings
    if tournament.format == Format.GROUPS_PLAYOFF:
        size = settings.get("groups", 0) * settings.get("advance", 0)
        seeds = bracket.get("playoff_seeds")
        if not bracket or size < 2:
            return None
        if seeds is None:  # still in the groups: the lines are "A1", "B2" ... (group, place)
            labels = [
                [f"{group_letter(g)}{place}" for place in range(1, settings["advance"] + 1)]
                for g in range(settings["groups"])
            ]
            seeds = list(elimination.playoff_seeding(labels, settings["advance"]))

            def name(label):
                return _("Group %(group)s #%(place)s") % {"group": label[:-1], "place": label[-1]}
        else:

            def name(pk):
                return names.get(pk, "?")

        matches = elimination.single_elimination(len(seeds), third_place=settings.get("third_place", False))
    else:
        seeds = bracket.get("seeds")
        if not seeds:
            return None
        if tournament.format == Format.DOUBLE_ELIMINATION:
            matches = elimination.double_elimination(
                len(seeds), grand_final_reset=settings.get("grand_final_reset", True)
            )
        else:
            matches = elimination.single_elimination(len(seeds), third_place=settings.get("third_place", False))

        def name(pk):
            return names.get(pk, "?")

    boards = {b.bracket_match: b for b in tselectors.board_list(tournament=tournament).exclude(bracket_match="")}
    return brackets.draw(matches, seeds, name=name, boards=boards, href=game_href)


@require_safe
def tournament_page(request, pk):
    tournament = tselectors.tournament_get(tournament_id=pk, viewer=request.user)
    if tournament is None:
        return _not_found(request)
    viewer = request.user if request.user.is_authenticated else None
    entries = list(TournamentEntry.objects.filter(tournament=tournament).select_related("user").order_by("number"))
    names = {entry.user_id: entry.user.get_username() for entry in entries}
    places = tselectors.final_places(tournament=tournament)
    for entry in entries:
        entry.group_label = group_letter(entry.group) if entry.group is not None else ""
        entry.final_rank = places.get(entry.user.get_username())
    mine = next((entry for entry in entries if viewer is not None and entry.user_id == viewer.pk), None)
    is_open = tournament.status == Tournament.Status.OPEN
    standings = [] if is_open else tselectors.tournament_standings(tournament=tournament)
    for row in standings:
        row["points_text"] = brackets.points_text(row["points"])
        row["tiebreak_values"] = [row["tiebreaks"].get(name) for name in tournament.tiebreaks]
    running = tournament.status == Tournament.Status.RUNNING
    context = {
        "tournament": tournament,
        "format_label": format_label(tournament.format),
        "entries": entries,
        "mine": mine,
        "organiser": services.is_organiser(tournament.club, viewer),
        "member": services.is_member(tournament.club, viewer),
        "is_open": is_open,
        "running": running,
        "check_in": tournament.settings.get("check_in", False),
        "seeding": tournament.settings.get("seeding", "entry"),
        "mature": tournament.settings.get("mature", False),
        "rounds": _rounds(tournament, names),
        "standings": standings,
        "round_chart": _round_chart(tournament, standings),
        "tiebreaks": [tiebreak_label(name) for name in tournament.tiebreaks],
        "tables": tournament.format == Format.MULTI_SWISS,
        "winners": ", ".join(row["username"] for row in standings if row["rank"] == 1)
        if tournament.status == Tournament.Status.FINISHED
        else "",
        "elimination": tournament.format in ELIMINATION,
        "bracket": _bracket(tournament, names) if tournament.format in ELIMINATION else None,
        "groups": _group_tables(tournament, names) if tournament.format == Format.GROUPS_PLAYOFF else [],
        "manual_pairing": tournament.format in (Format.SWISS, Format.MULTI_SWISS)
        and tournament.status != Tournament.Status.FINISHED,
    }
    return render(request, "web/tournament.html", context)


def _round_chart(tournament, standings: list[dict]):
    """The standings-by-round chart: the points lines of the players in standings order."""
    if not standings:
        return None
    per_round = tselectors.points_by_round(tournament=tournament)
    ordered = {row["username"]: per_round.get(row["username"], []) for row in standings}
    return standings_chart(ordered, points_text=brackets.points_text)


# ---- forms ---------------------------------------------------------------------------------------
def _player(request):
    """The player named in the form (an organiser acting for someone), or None for the viewer."""
    username = (request.POST.get("username") or "").strip()
    if not username:
        return None
    user = selectors.user_by_name(username)
    if user is None:
        raise services.ServiceError("no_such_player", f"no player called {username!r}")
    return user


def _whole(request, field: str) -> int:
    try:
        return int(request.POST.get(field) or "")
    except ValueError:
        raise services.ServiceError("invalid_board", f"{field} is a whole number") from None


def parse_ranking(text: str) -> list[list]:
    """ "alice > bob = carol > dave": places best first, ``>`` between places, ``=`` between
    players who share one. Usernames become users; an unknown name is refused."""
    groups = []
    for part in (p.strip() for p in text.split(">")):
        names = [n.strip() for n in re.split(r"=", part) if n.strip()]
        if not names:
            raise services.ServiceError("invalid_ranking", "write the players best first: alice > bob (ties: a = b)")
        group = []
        for username in names:
            user = selectors.user_by_name(username)
            if user is None:
                raise services.ServiceError("no_such_player", f"no player called {username!r}")
            group.append(user)
        groups.append(group)
    return groups


def _enter(request, tournament):
    player = _player(request)
    entry = lifecycle.tournament_enter(tournament_id=tournament.pk, by=request.user, player=player)
    return _("%(name)s has entered.") % {"name": entry.user.get_username()}


def _check_in(request, tournament):
    entry = ops.tournament_check_in(tournament_id=tournament.pk, by=request.user, player=_player(request))
    return _("%(name)s is checked in.") % {"name": entry.user.get_username()}


def _drop(request, tournament):
    player = _player(request) or request.user
    ops.tournament_drop(tournament_id=tournament.pk, by=request.user, player=player)
    return _("%(name)s has withdrawn.") % {"name": player.get_username()}


def parse_seeding(text: str) -> list | None:
    """Usernames best first, one a line or separated by commas; None when left empty (entry order)."""
    names = [name.strip() for name in re.split(r"[,\n]", text) if name.strip()]
    if not names:
        return None
    users = []
    for username in names:
        user = selectors.user_by_name(username)
        if user is None:
            raise services.ServiceError("no_such_player", f"no player called {username!r}")
        users.append(user)
    return users


def _start(request, tournament):
    seeding = parse_seeding(request.POST.get("seeding") or "")
    lifecycle.tournament_start(tournament_id=tournament.pk, by=request.user, seeding=seeding)
    return _("The tournament has started: round 1 is paired.")


def _advance(request, tournament):
    tournament = lifecycle.tournament_advance(tournament_id=tournament.pk, by=request.user)
    if tournament.status == Tournament.Status.FINISHED:
        return _("The tournament is finished.")
    return _("Round %(number)s is paired.") % {"number": tournament.current_round}


def _correct(request, tournament):
    number, board = _whole(request, "round"), _whole(request, "board")
    double = request.POST.get("double_forfeit") == "on"
    ranking = None if double else parse_ranking(request.POST.get("ranking") or "")
    ops.tournament_result_correct(
        tournament_id=tournament.pk, by=request.user, round=number, board=board, ranking=ranking, double_forfeit=double
    )
    return _("The result of round %(round)s, board %(board)s is corrected.") % {"round": number, "board": board}


def parse_tables(text: str) -> list[list]:
    """One line per board or table: usernames separated by spaces (or commas); a bye is a single
    name. Usernames become users; an unknown name is refused."""
    tables = []
    for line in text.splitlines():
        names = [name for name in re.split(r"[\s,]+", line) if name]
        if not names:
            continue
        table = []
        for username in names:
            user = selectors.user_by_name(username)
            if user is None:
                raise services.ServiceError("no_such_player", f"no player called {username!r}")
            table.append(user)
        tables.append(table)
    if not tables:
        raise services.ServiceError("invalid_pairing", "write one board a line: alice bob (a bye: one name)")
    return tables


def _pairings(request, tournament):
    number = _whole(request, "round")
    tables = parse_tables(request.POST.get("tables") or "")
    done = ops.tournament_pairing_set(tournament_id=tournament.pk, by=request.user, round=number, tables=tables)
    if done["planned"]:
        return _("Round %(number)s will be paired as you wrote it.") % {"number": number}
    return _("Round %(number)s is paired again as you wrote it.") % {"number": number}


ACTIONS = {
    "pairings": _pairings,
    "enter": _enter,
    "check-in": _check_in,
    "drop": _drop,
    "start": _start,
    "advance": _advance,
    "correct": _correct,
}


@login_required
@require_POST
def tournament_action(request, pk, action):
    """One of the page's forms; the services check who may do it."""
    tournament = tselectors.tournament_get(tournament_id=pk, viewer=request.user)
    if tournament is None or action not in ACTIONS:
        return _not_found(request)
    try:
        done = ACTIONS[action](request, tournament)
    except services.ServiceError as error:
        _refused(request, error)
    else:
        messages.success(request, done)
    return redirect("web:tournament", pk=tournament.pk)


# ---- a new tournament, from the club page -------------------------------------------------------
@login_required
@require_POST
def tournament_new(request, slug):
    """An organiser's "New tournament" form on the club page: ``tournament_create`` with the form's
    settings; the new tournament's page, or back to the club with the refusal."""
    club = selectors.club_get(slug=slug)
    if club is None:
        return _not_found(request)
    form = NewTournamentForm(request.POST)
    try:
        if not form.is_valid():
            raise services.ServiceError(*form_refusal(form))
        tournament = lifecycle.tournament_create(club_id=club.pk, by=request.user, **form.service_arguments())
    except services.ServiceError as error:
        _refused(request, error)
        return redirect("web:club", slug=club.slug)
    messages.success(request, _("The tournament is open for entries."))
    return redirect("web:tournament", pk=tournament.pk)
