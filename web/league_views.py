"""League pages: clubs, a club with its members, ladders, tournaments and leagues, a ladder, a player's profile.

Reads go through ``league.selectors``; the few forms here (join a club, invite, join a ladder,
challenge, answer a challenge; an organiser's new tournament and new league are posted to
``tournament_views`` and ``season_views``) call ``league.services``, which check who may do what, and come
back to the page with the service's message when it refuses (post, redirect, get). An organiser's
club and ladder settings forms post to ``club_settings`` and ``ladder_settings``, which hand the raw
values to ``services.club_update`` and ``services.ladder_update``: the services are the only validation.
"""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from games import selectors as game_selectors
from league import selectors, services
from league.exports import player_feed_key
from league.models import Challenge, Membership, PlayerProfile, TournamentEntry
from league.reports import selectors as report_selectors
from league.seasons import selectors as season_selectors
from league.services.membership import membership_of
from league.tournaments import selectors as tournament_selectors
from lobby import selectors as lobby_selectors

from .charts import rating_chart
from .forms import NewLeagueForm, NewTournamentForm

# The services' codes a visitor can cause from these pages, in words of the active language;
# any other refusal shows the service's own (English) message after its code.
REFUSALS = {
    "not_member": lambda: _("Only members of this club may do this; ask to join first."),
    "not_organiser": lambda: _("Only an organiser of this club may do this."),
    "no_such_player": lambda: _("There is no player with that name."),
}


def _not_found(request):
    return render(request, "web/not_found.html", status=404)


def _refused(request, error: services.ServiceError) -> None:
    words = REFUSALS.get(error.code)
    messages.error(request, f"{error.code}: {words() if words else error.message}")


def _settings_saved(request, change, *, saved: str, back):
    """Run an organiser's settings ``change`` (a service call): ``back`` to the page with ``saved`` or
    the service's refusal, or a 403 page for someone the service refuses as not an organiser."""
    try:
        change()
    except services.ServiceError as error:
        if error.status in (401, 403):
            words = REFUSALS.get(error.code)
            context = {"code": error.code, "message": words() if words else error.message}
            return render(request, "web/forbidden.html", context, status=403)
        _refused(request, error)
    else:
        messages.success(request, saved)
    return back


# ---- clubs --------------------------------------------------------------------------------
@require_safe
def club_list(request):
    return render(request, "web/clubs.html", {"clubs": selectors.club_list()})


@require_safe
def club_page(request, slug):
    club = selectors.club_get(slug=slug)
    if club is None:
        return _not_found(request)
    viewer = request.user if request.user.is_authenticated else None
    mine = membership_of(club, viewer) if viewer else None
    context = {
        "club": club,
        "members": selectors.member_list(club=club, viewer=request.user),
        "ladders": selectors.ladder_list(club=club),
        "tournaments": tournament_selectors.tournament_list(club=club, viewer=viewer),
        "leagues": season_selectors.league_list(club=club, viewer=viewer),
        "mine": mine,
        "may_join": viewer is not None and (mine is None or mine.status in ("invited", "left")),
        "organiser": services.is_organiser(club, viewer),
        "roles": Membership.Role.choices,
    }
    if context["organiser"]:
        context["tournament_form"] = NewTournamentForm(auto_id="tournament-%s")
        context["league_form"] = NewLeagueForm(auto_id="league-%s")
    return render(request, "web/club.html", context)


@login_required
@require_POST
def club_join(request, slug):
    club = selectors.club_get(slug=slug)
    if club is None:
        return _not_found(request)
    try:
        membership = services.membership_join(club_id=club.pk, by=request.user)
    except services.ServiceError as error:
        _refused(request, error)
    else:
        if membership.status == Membership.Status.ACTIVE:
            messages.success(request, _("Welcome to %(club)s.") % {"club": club.name})
        else:
            messages.success(request, _("You asked to join; an organiser will let you in."))
    return redirect("web:club", slug=club.slug)


@login_required
@require_POST
def club_invite(request, slug):
    club = selectors.club_get(slug=slug)
    if club is None:
        return _not_found(request)
    username = (request.POST.get("username") or "").strip()
    role = request.POST.get("role") or Membership.Role.MEMBER
    try:
        user = selectors.user_by_name(username)
        if user is None:
            raise services.ServiceError("no_such_player", f"no player called {username!r}")
        services.membership_invite(club_id=club.pk, by=request.user, user=user, role=role)
    except services.ServiceError as error:
        _refused(request, error)
    else:
        messages.success(request, _("%(name)s is invited.") % {"name": username})
    return redirect("web:club", slug=club.slug)


@require_POST
def club_settings(request, slug):
    """An organiser renames the club or changes its description (``services.club_update``)."""
    club = selectors.club_get(slug=slug)
    if club is None:
        return _not_found(request)
    post = request.POST
    return _settings_saved(
        request,
        lambda: services.club_update(
            club_id=club.pk, by=request.user, name=post.get("name"), description=post.get("description")
        ),
        saved=_("Saved: the club's settings."),
        back=redirect("web:club", slug=club.slug),
    )


# ---- ladders ------------------------------------------------------------------------------
@require_safe
def ladder_page(request, pk):
    ladder = selectors.ladder_get(ladder_id=pk)
    if ladder is None:
        return _not_found(request)
    viewer = request.user if request.user.is_authenticated else None
    entries = list(selectors.standings(ladder=ladder))
    context = {
        "ladder": ladder,
        "entries": entries,
        "member": services.is_member(ladder.club, viewer),
        "organiser": services.is_organiser(ladder.club, viewer),
        "on_ladder": viewer is not None and any(entry.user_id == viewer.pk for entry in entries),
    }
    if context["organiser"]:
        context["settings_fields"], context["match_formats"] = _settings_fields(ladder), MATCH_FORMATS
    if ladder.kind == "challenge":
        context["may_challenge"] = selectors.challengeable(ladder=ladder, viewer=viewer)
        context["challenges"] = selectors.challenge_list(ladder=ladder).filter(status__in=Challenge.OPEN)
        context["recent"] = selectors.challenge_list(ladder=ladder, status=Challenge.Status.DECIDED)[:10]
    else:
        context["rated_open"] = report_selectors.rated_pairings_open(ladder=ladder)
        histories = selectors.rating_histories(ladder=ladder)
        for entry in entries:
            entry.chart = rating_chart(histories.get(entry.user_id, []))
    return render(request, "web/ladder.html", context)


# The settings an organiser changes on the ladder page (the results setting has its own form,
# ``reporting_form``), with the input each needs; ``ladder_update`` checks every value.
SETTING_INPUTS = {
    "challenge": (
        ("challenge_range", "text"),
        ("max_open_challenges", "number"),
        ("accept_days", "number"),
        ("play_days", "number"),
        ("on_challenger_win", "choice"),
        ("rematch_cooldown_days", "number"),
        ("new_player_free_challenges", "number"),
        ("inactivity_days", "number"),
        ("inactivity_drop_places", "number"),
        ("allow_bots", "checkbox"),
    ),
    "rating": (("allow_bots", "checkbox"),),
}
SETTING_LABELS = {
    "challenge_range": lambda: _("Challenge range (places above, or bands as JSON)"),
    "max_open_challenges": lambda: _("Open challenges at once, per player"),
    "accept_days": lambda: _("Days to accept a challenge"),
    "play_days": lambda: _("Days to play an accepted challenge"),
    "on_challenger_win": lambda: _("When the challenger wins"),
    "rematch_cooldown_days": lambda: _("Days before the same two play again"),
    "new_player_free_challenges": lambda: _("Free challenges for a new player (any place)"),
    "inactivity_days": lambda: _("Days without a game before a drop (0: never)"),
    "inactivity_drop_places": lambda: _("Places an inactive player drops"),
    "allow_bots": lambda: _("Bots may join and play"),
}
MATCH_FORMATS = ("", "best_of", "first_to", "session")


def _settings_fields(ladder) -> list[dict]:
    """The inputs of the ladder settings form, each with its current value."""
    fields = []
    for name, widget in SETTING_INPUTS[ladder.kind]:
        value = ladder.settings.get(name)
        if name == "challenge_range" and not isinstance(value, int):
            value = json.dumps(value)
        fields.append({"name": name, "widget": widget, "label": SETTING_LABELS[name](), "value": value})
    return fields


def _posted_value(raw: str):
    """A typed value from a text input: a whole number, a number, JSON (challenge bands), else the
    text itself - the service says what is wrong with it. Written by hand because a Django form
    would be a second set of rules beside ``league.scoring.ladder.validate_settings``."""
    raw = raw.strip()
    for parse in (int, float, json.loads):
        try:
            return parse(raw)
        except (ValueError, RecursionError):  # RecursionError: JSON nested deeper than Python recurses
            continue
    return raw


def _posted_settings(ladder, post) -> dict:
    """The settings the form changes: only those whose posted value differs from the current one."""
    posted = {}
    for name, widget in SETTING_INPUTS[ladder.kind]:
        if widget == "checkbox":
            posted[name] = post.get(name) == "on"
        elif name in post:
            posted[name] = post[name] if widget == "choice" else _posted_value(post[name])
    fmt = post.get("match_format")
    if fmt is not None:
        posted["match"] = {"format": fmt, "target": _posted_value(post.get("match_target", ""))} if fmt else None
        current = ladder.settings.get("match")
        if posted["match"] and current and current.get("points") and current["format"] == fmt:
            posted["match"]["points"] = current["points"]  # the form keeps a first_to match's points
    return {name: value for name, value in posted.items() if ladder.settings.get(name) != value}


@require_POST
def ladder_settings(request, pk):
    """An organiser renames the ladder or changes its settings (``services.ladder_update``: logged,
    effective from now on)."""
    ladder = selectors.ladder_get(ladder_id=pk)
    if ladder is None:
        return _not_found(request)
    name = request.POST.get("name")
    name = None if name == ladder.name else name  # a rename only when the name changed
    changes = _posted_settings(ladder, request.POST)
    return _settings_saved(
        request,
        lambda: services.ladder_update(ladder_id=ladder.pk, by=request.user, name=name, settings=changes),
        saved=_("Saved: the ladder's settings.") if changes or name is not None else _("Nothing changed."),
        back=redirect("web:ladder", pk=ladder.pk),
    )


@login_required
@require_POST
def ladder_join(request, pk):
    ladder = selectors.ladder_get(ladder_id=pk)
    if ladder is None:
        return _not_found(request)
    try:
        services.ladder_join(ladder_id=ladder.pk, by=request.user)
    except services.ServiceError as error:
        _refused(request, error)
    return redirect("web:ladder", pk=ladder.pk)


@login_required
@require_POST
def challenge_new(request, pk):
    ladder = selectors.ladder_get(ladder_id=pk)
    if ladder is None:
        return _not_found(request)
    defender = selectors.user_by_name(request.POST.get("defender") or "")
    try:
        if defender is None:
            raise services.ServiceError("no_such_player", "no such player")
        services.challenge_create(ladder_id=ladder.pk, by=request.user, defender=defender)
    except services.ServiceError as error:
        _refused(request, error)
    else:
        messages.success(request, _("You challenged %(name)s.") % {"name": defender.get_username()})
    return redirect("web:ladder", pk=ladder.pk)


CHALLENGE_STEPS = {
    "accept": services.challenge_accept,
    "decline": services.challenge_decline,
    "withdraw": services.challenge_withdraw,
}


@login_required
@require_POST
def challenge_step(request, pk, step):
    """The defender accepts or declines, the challenger withdraws; the services check which."""
    challenge = selectors.challenge_get(challenge_id=pk)
    if challenge is None or step not in CHALLENGE_STEPS:
        return _not_found(request)
    try:
        challenge = CHALLENGE_STEPS[step](challenge_id=challenge.pk, by=request.user)
    except services.ServiceError as error:
        _refused(request, error)
    else:
        if challenge.game_id:
            return redirect("web:play", pk=challenge.game_id)
    return redirect("web:ladder", pk=challenge.ladder_id)


# ---- players ------------------------------------------------------------------------------
@require_safe
def player_page(request, username):
    user = selectors.user_by_name(username)
    if user is None:
        return _not_found(request)
    profile = PlayerProfile.objects.filter(user=user).first()
    charts = []
    points_by_ladder: dict = {}
    for point in selectors.player_rating_points(user=user):
        points_by_ladder.setdefault(point.ladder, []).append(point)
    for ladder, points in points_by_ladder.items():
        charts.append({"ladder": ladder, "chart": rating_chart(points), "last": points[-1]})
    context = {
        "player": user,
        "display_name": (profile.display_name if profile else "") or user.get_username(),
        "memberships": selectors.player_memberships(user=user),
        "entries": selectors.player_entries(user=user),
        "games": game_selectors.game_list(viewer=request.user, player=user.get_username()).order_by("-created_at")[:20],
        "charts": charts,
        "tournaments": _with_places(
            tournament_selectors.player_entries(user=user, viewer=request.user)[:20],
            username=user.get_username(),
        ),
        "seasons": season_selectors.player_divisions(user=user, viewer=request.user)[:20],
        "calendar_url": _own_calendar_url(request, user),
        "site_ratings": lobby_selectors.site_ratings(user=user, viewer=request.user),  # the lobby's (issue 19)
        "waiting_reports": [
            report_selectors.report_dict(report)
            for report in report_selectors.reports_for(user=user, waiting_only=True)
        ]
        if request.user == user
        else [],
    }
    return render(request, "web/player.html", context)


def _with_places(entries, *, username: str) -> list:
    """The entries, each with ``final_rank`` once its tournament has finished and the player stayed
    (read from the frozen final standings the tournament row already holds: no query)."""
    entries = list(entries)
    for entry in entries:
        stayed = entry.status == TournamentEntry.Status.ACTIVE
        places = tournament_selectors.final_places(tournament=entry.tournament) if stayed else {}
        entry.final_rank = places.get(username)
    return entries


def _own_calendar_url(request, user) -> str | None:
    """The address of the player's private calendar feed, shown only to that player."""
    if request.user != user:
        return None
    path = reverse("league:player-calendar", kwargs={"username": user.get_username()})
    return request.build_absolute_uri(f"{path}?key={player_feed_key(user)}")
