"""Moderation of storytelling contributions: reports, hiding and un-hiding, and the view-time redaction.

Issue 6: players report a contribution; an organiser hides it from views and replays. It is the one
redaction that is not about hidden cards, and it must not break the chain or the replay, so the
``Event`` row is never touched: the hash chain, ``kifu verify`` and the verification endpoint stay
valid, and moderators keep the complete record. Hiding is a view-time step: the JSON that views,
events and outcomes produce is post-processed, and every string that came from a hidden event's text
parts is replaced by a marker ``{"hidden": true, "reason": ...}``.

This module keeps its own writes (``contribution_report``, ``contribution_hide``,
``contribution_unhide``, House style of ``services.py``) and the reads they need, so that moderation
is one seam rather than additions scattered over ``services.py`` and ``selectors.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from kifu.locking import lock_by_id

from .engines import kazekami_kyoko
from .errors import ServiceError
from .models import ContributionHiding, ContributionReport, Event, Game, Seat

# The payload fields that hold a player's own words, per storytelling engine. Only move events with
# at least one of them are contributions; nothing else (cards, roles, forms) can be hidden this way.
CONTRIBUTION_FIELDS: dict[str, frozenset[str]] = {
    "kazekami-kyoko": frozenset(
        {name for parts in kazekami_kyoko.PARTS.values() for name in parts} | {"extra_text", "label"}
    ),
    "believers": frozenset({"text"}),
}
MAX_REASON = 500
# Trailing punctuation a renderer may drop or add around a part (Kazekami's templates do).
_EDGE_PUNCTUATION = ".!?。！？"


def marker(reason: str) -> dict:
    return {"hidden": True, "reason": reason}


# ---- who may do what ----------------------------------------------------------------------------
def is_moderator(*, game: Game, user) -> bool:
    """Staff, and the game's creator (the organiser who set the table up)."""
    if user is None or not user.is_authenticated:
        return False
    return bool(user.is_staff) or (game.created_by_id is not None and game.created_by_id == user.pk)


def may_report(*, game: Game, user) -> bool:
    """Seated players at any time; once the game is over, any logged-in user who can see it (the
    caller has already checked visibility: mature games are invisible without consent)."""
    if user is None or not user.is_authenticated:
        return False
    if Seat.objects.filter(game=game, user=user).exists():
        return True
    return game.is_finished


# ---- reads --------------------------------------------------------------------------------------
def hidden_contributions(*, game: Game) -> dict[int, str]:
    """``seq -> reason`` of the contributions hidden now (the latest decision per seq is "hide")."""
    if game.engine not in CONTRIBUTION_FIELDS:
        return {}
    latest: dict[int, ContributionHiding] = {}
    for row in ContributionHiding.objects.filter(game=game).order_by("seq", "id"):
        latest[row.seq] = row
    return {seq: row.reason for seq, row in latest.items() if row.action == ContributionHiding.Action.HIDE}


def report_list(*, game: Game) -> dict:
    """Reports and the moderation history of a game, for its moderators."""
    reports = ContributionReport.objects.filter(game=game).select_related("reporter").order_by("seq", "id")
    decisions = ContributionHiding.objects.filter(game=game).select_related("decided_by").order_by("seq", "id")
    hidden = hidden_contributions(game=game)
    return {
        "game": str(game.pk),
        "hidden": sorted(hidden),
        "reports": [
            {"seq": r.seq, "reporter": r.reporter.username, "reason": r.reason, "created_at": r.created_at}
            for r in reports
        ],
        "decisions": [
            {
                "seq": d.seq,
                "action": d.action,
                "by": d.decided_by.username,
                "reason": d.reason,
                "created_at": d.created_at,
            }
            for d in decisions
        ],
    }


def _contribution(game: Game, seq) -> Event:
    fields = CONTRIBUTION_FIELDS.get(game.engine)
    if fields is None:
        raise ServiceError(
            "not_a_storytelling_game", f"{game.engine} has no contributions to moderate; only storytelling games do"
        )
    if isinstance(seq, bool) or not isinstance(seq, int) or not 1 <= seq <= game.head_seq:
        raise ServiceError(
            "no_such_event", f"event {seq} does not exist; this game has events 1 to {game.head_seq}", status=404
        )
    event = Event.objects.get(game=game, seq=seq)
    if event.kind != Event.Kind.MOVE or not any(isinstance(event.payload.get(f), str) for f in fields):
        raise ServiceError(
            "not_a_contribution", f"event {seq} holds no player text; only contributions can be reported or hidden"
        )
    return event


def _reason(reason) -> str:
    if not isinstance(reason, str) or not reason.strip():
        raise ServiceError("reason_required", "say why in a non-empty reason")
    if len(reason) > MAX_REASON:
        raise ServiceError("reason_too_long", f"the reason is {len(reason)} characters long; the limit is {MAX_REASON}")
    return reason.strip()


# ---- writes -------------------------------------------------------------------------------------
@transaction.atomic
def contribution_report(*, game: Game, seq: int, reporter: AbstractBaseUser, reason: str) -> ContributionReport:
    """Record a report; one per reporter and contribution (a second one is a 409, not a vote)."""
    if not may_report(game=game, user=reporter):
        raise ServiceError(
            "may_not_report",
            "only the players can report while the game runs; anyone who can see it may once it is over",
            status=403,
        )
    _contribution(game, seq)
    reason = _reason(reason)
    if ContributionReport.objects.filter(game=game, seq=seq, reporter=reporter).exists():
        raise ServiceError("already_reported", f"you have already reported event {seq}", status=409)
    return ContributionReport.objects.create(game=game, seq=seq, reporter=reporter, reason=reason)


def _decide(*, game: Game, seq: int, user: AbstractBaseUser, reason: str, action: str) -> ContributionHiding:
    if not is_moderator(game=game, user=user):
        raise ServiceError(
            "not_a_moderator", "only staff and the game's creator may hide or show contributions", status=403
        )
    _contribution(game, seq)
    reason = _reason(reason)
    # Serialise decisions on one game, so two moderators cannot both "hide" from the same state.
    lock_by_id(Game, game.pk)
    hidden = seq in hidden_contributions(game=game)
    if action == ContributionHiding.Action.HIDE and hidden:
        raise ServiceError("already_hidden", f"event {seq} is already hidden", status=409)
    if action == ContributionHiding.Action.UNHIDE and not hidden:
        raise ServiceError("not_hidden", f"event {seq} is not hidden", status=409)
    return ContributionHiding.objects.create(game=game, seq=seq, action=action, decided_by=user, reason=reason)


@transaction.atomic
def contribution_hide(*, game: Game, seq: int, user: AbstractBaseUser, reason: str) -> ContributionHiding:
    """Hide a contribution from every view but the moderators'; the event stays in the log."""
    return _decide(game=game, seq=seq, user=user, reason=reason, action=ContributionHiding.Action.HIDE)


@transaction.atomic
def contribution_unhide(*, game: Game, seq: int, user: AbstractBaseUser, reason: str) -> ContributionHiding:
    """Show a hidden contribution again; the hiding stays in the history."""
    return _decide(game=game, seq=seq, user=user, reason=reason, action=ContributionHiding.Action.UNHIDE)


# ---- redaction ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Redaction:
    """What to hide in one game's JSON: the hidden seqs and the texts their events carried."""

    fields: frozenset[str] = frozenset()
    reasons: dict[int, str] = field(default_factory=dict)  # seq -> reason
    texts: dict[str, str] = field(default_factory=dict)  # stripped text -> reason
    cores: dict[str, str] = field(default_factory=dict)  # text without edge punctuation -> reason

    def __bool__(self) -> bool:
        return bool(self.reasons)

    def event(self, item: dict) -> dict:
        """One event item (``{"seq", "kind", "data", ...}``): the text fields of a hidden one are
        replaced, and its hash is dropped - a short text could be found from its hash."""
        reason = self.reasons.get(item.get("seq"))
        if reason is None:
            return item
        data = item.get("data")
        if isinstance(data, dict):
            data = {k: marker(reason) if k in self.fields and isinstance(v, str) else v for k, v in data.items()}
        out = {k: v for k, v in item.items() if k != "hash"}
        return {**out, "data": data, "hidden": marker(reason)}

    def tree(self, obj, key: str | None = None):
        """Any JSON (a view, an outcome): a log entry of a hidden seq loses its rendered ``text``;
        elsewhere a string equal to a hidden text, or a seq-less ``text`` containing one, is replaced."""
        if isinstance(obj, dict):
            seq = obj.get("seq")
            entry = isinstance(seq, int) and not isinstance(seq, bool)
            reason = self.reasons.get(seq) if entry else None
            out = {}
            for k, v in obj.items():
                if reason is not None and k == "text" and isinstance(v, str):
                    out[k] = marker(reason)
                else:
                    out[k] = self.tree(v, None if entry and k == "text" else k)
            return out
        if isinstance(obj, list):
            return [self.tree(item, key) for item in obj]
        if isinstance(obj, str):
            found = self.texts.get(obj.strip())
            if found is None and key == "text":
                found = next((r for core, r in self.cores.items() if core in obj), None)
            return obj if found is None else marker(found)
        return obj


NO_REDACTION = Redaction()


def redaction_for(*, game: Game, moderator: bool = False) -> Redaction:
    """The redaction a viewer gets: nothing for moderators or when nothing is hidden.

    A request asks this of one game object several times (its view, outcome and events), so the
    answer is kept on that object: a game read is a snapshot for one request, and a later read
    (a stream's next turn, the next request) is a new object that reads the decisions again. A
    game read by ``selectors.game_get`` knows whether moderators ever decided on it
    (``moderation_decided``); when they did not, nothing is read at all."""
    if moderator or game.engine not in CONTRIBUTION_FIELDS or getattr(game, "moderation_decided", True) is False:
        return NO_REDACTION
    redaction = game.__dict__.get(_REDACTION_ATTRIBUTE)
    if redaction is None:
        redaction = game.__dict__[_REDACTION_ATTRIBUTE] = _redaction_read(game)
    return redaction


_REDACTION_ATTRIBUTE = "_moderation_redaction"


def _redaction_read(game: Game) -> Redaction:
    reasons = hidden_contributions(game=game)
    if not reasons:
        return NO_REDACTION
    fields = CONTRIBUTION_FIELDS[game.engine]
    texts: dict[str, str] = {}
    cores: dict[str, str] = {}
    for event in Event.objects.filter(game=game, seq__in=list(reasons)):
        for name in fields:
            value = event.payload.get(name)
            if isinstance(value, str) and value.strip():
                texts[value.strip()] = reasons[event.seq]
                core = value.strip().strip(_EDGE_PUNCTUATION).strip()
                if core:
                    cores[core] = reasons[event.seq]
    return Redaction(fields=fields, reasons=reasons, texts=texts, cores=cores)
