"""Moderation of storytelling contributions on the web (issue 18): report a line, hide it with a
reason, show it again - on the game page (server-drawn forms) and the play page (the same forms,
drawn by play.js beside each line of the event list).

The forms post here; this view calls the same services as the API (``games.moderation``:
``contribution_report``, ``contribution_hide``, ``contribution_unhide``), so who may act, which
events are contributions and what a reason must be are checked in one place, and a refusal comes
back to the page as the service's ``code: message``.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games import moderation, selectors
from games.errors import ServiceError
from games.models import Game

ACTIONS = ("report", "hide", "show")


def permissions(*, game: Game, user) -> dict:
    """What the viewer may do with this game's contributions (nothing in a game without any)."""
    if game.engine not in moderation.CONTRIBUTION_FIELDS:
        return {"contributions": False, "may_report": False, "moderator": False}
    return {
        "contributions": True,
        "may_report": moderation.may_report(game=game, user=user),
        "moderator": moderation.is_moderator(game=game, user=user),
    }


def mark_contributions(engine: str, events: list[dict], described: list[dict]) -> list[dict]:
    """The described events (``describe_event``) of ``events``, each a contribution marked so
    (``contribution: true``) with ``hidden_reason`` when a moderator hid it."""
    fields = moderation.CONTRIBUTION_FIELDS.get(engine, frozenset())
    out = []
    for event, words in zip(events, described, strict=True):
        data = event.get("data") or {}
        if event.get("kind") == "move" and any(key in fields and value is not None for key, value in data.items()):
            hidden = event.get("hidden")
            words = {**words, "contribution": True, "hidden_reason": hidden["reason"] if hidden else None}
        out.append(words)
    return out


@login_required
@require_POST
def contribution_action(request, pk, seq: int, action: str):
    if action not in ACTIONS:
        raise Http404
    game = selectors.game_get(game_id=pk, viewer=request.user)
    if game is None:
        raise Http404
    page = "web:play" if request.POST.get("back") == "play" else "web:game"
    reason = request.POST.get("reason", "")
    try:
        if action == "report":
            moderation.contribution_report(game=game, seq=seq, reporter=request.user, reason=reason)
            done = _("You reported event %(seq)s to the game's moderators.")
        elif action == "hide":
            moderation.contribution_hide(game=game, seq=seq, user=request.user, reason=reason)
            done = _("Event %(seq)s is hidden.")
        else:
            reason = reason if reason.strip() else moderation.SHOWN_AGAIN
            moderation.contribution_unhide(game=game, seq=seq, user=request.user, reason=reason)
            done = _("Event %(seq)s is shown again.")
    except ServiceError as error:
        messages.error(request, f"{error.code}: {error.message}")
    else:
        messages.success(request, done % {"seq": seq})
    # The game page lists the contributions itself: back to the line acted on. The play page draws its
    # list by script (and opens at the top, issue 19): back to the page.
    return redirect(reverse(page, args=[game.pk]) + ("" if page == "web:play" else f"#event-{seq}"))
