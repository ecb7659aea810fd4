"""Moderation of storytelling contributions: reports, hiding and un-hiding, and the view-time mask.

Issue 6: players report a contribution; an organiser hides it from views and replays. It is the one
mask that is not about hidden cards, and it must not break the chain or the replay, so the
``Event`` row is never touched: the hash chain, ``kifu verify`` and the verification endpoint stay
valid, and moderators keep the complete record. Hiding is a view-time step: the JSON that views,
events and outcomes produce is post-processed, and the words of each hidden event (and only of that
event: hiding matches events, never texts) are replaced by a marker ``{"hidden": true, "reason": ...}``.

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
SHOWN_AGAIN = "shown again"  # the reason of a "show" given none (the API's and the web's)


def marker(reason: str) -> dict:
    return {"hidden": True, "reason": reason}


# ---- who may do what ----------------------------------------------------------------------------
def is_moderator(*, game: Game, user) -> bool:
    """Staff; the game's creator when they play in it; and the organiser of the event whose pairing
    it is (``Game.organised``: the event created it with its organiser as creator). An unseated
    creator of an ordinary game is a spectator like anyone else (issue 15 part 6): seating two
    others does not buy a moderator's sight past the spectator delay.

    Reads the game's seats through ``game.seats.all()``, so a prefetch (the lists) answers it."""
    if user is None or not user.is_authenticated:
        return False
    if user.is_staff:
        return True
    if game.created_by_id is None or game.created_by_id != user.pk:
        return False
    return game.organised or any(seat.user_id == user.pk for seat in game.seats.all())


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


# ---- the contribution mask ----------------------------------------------------------------------
# Hiding is by event, never by text: two players may write the same words ("yes"), and hiding one
# event must leave the other's line alone. Every place a view or an outcome quotes a contribution is
# tied to its event: an entry that carries its ``seq`` (a view's story or log line), an item of a
# seq-less list whose items follow the events one to one (``positions``: The Believers' stored
# outcome lists its contributions and epilogues in event order), or a Kazekami role label (the
# ``set_label`` event of the seat that plays the role).
ENTRY_TEXT_KEYS = frozenset({"text", "parts"})


@dataclass(frozen=True)
class ContributionMask:
    """What to hide in one game's JSON: the hidden events, and where seq-less JSON quotes them. It
    masks player-written words only (formerly ``Redaction``); hidden cards are the engines' ``view``
    and ``event_view``, never this."""

    fields: frozenset[str] = frozenset()
    reasons: dict[int, str] = field(default_factory=dict)  # seq -> reason
    # list key -> the seq of each of its items, in order (for lists whose items carry no seq)
    positions: dict[str, tuple[int, ...]] = field(default_factory=dict)
    labels: dict[int, str] = field(default_factory=dict)  # seat -> reason of its hidden set_label

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
        """Any JSON (a view, an outcome): the texts of entries that stand for a hidden event are
        replaced; every other string stays, however equal to a hidden one it is."""
        if isinstance(obj, dict):
            seq = obj.get("seq")
            if isinstance(seq, int) and not isinstance(seq, bool):
                return self._entry(obj, self.reasons.get(seq))
            out = {k: self.tree(v, k) for k, v in obj.items()}
            if isinstance(obj.get("labels"), dict) and isinstance(obj.get("roles"), dict):
                out["labels"] = self._labels(obj["labels"], obj["roles"])
            return out
        if isinstance(obj, list):
            seqs = self.positions.get(key, ())
            return [
                self._entry(item, self.reasons.get(seqs[i]))
                if isinstance(item, dict) and "seq" not in item and i < len(seqs)
                else self.tree(item, key)
                for i, item in enumerate(obj)
            ]
        return obj

    def _entry(self, entry: dict, reason: str | None) -> dict:
        """A line of the story that stands for one event: its words go when that event is hidden."""
        out = {}
        for k, v in entry.items():
            if reason is None:
                out[k] = self.tree(v, k)
            elif k in ENTRY_TEXT_KEYS or k in self.fields:
                out[k] = _hidden_words(v, reason)
            else:
                out[k] = v
        return out

    def _labels(self, labels: dict, roles: dict) -> dict:
        return {
            role: marker(self.labels[roles[role]])
            if isinstance(label, str) and roles.get(role) in self.labels
            else label
            for role, label in labels.items()
        }


def _hidden_words(value, reason: str):
    """A hidden entry's words: a string becomes the marker, a dict of parts keeps its keys."""
    if isinstance(value, str):
        return marker(reason)
    if isinstance(value, dict):
        return {k: _hidden_words(v, reason) for k, v in value.items()}
    return value


NO_MASK = ContributionMask()


def contribution_mask(*, game: Game, moderator: bool = False) -> ContributionMask:
    """The mask a viewer gets: nothing for moderators or when nothing is hidden.

    A request asks this of one game object several times (its view, outcome and events), so the
    answer is kept on that object: a game read is a snapshot for one request, and a later read
    (a stream's next turn, the next request) is a new object that reads the decisions again. A
    game read by ``selectors.game_get`` knows whether moderators ever decided on it
    (``moderation_decided``); when they did not, nothing is read at all."""
    if moderator or game.engine not in CONTRIBUTION_FIELDS or getattr(game, "moderation_decided", True) is False:
        return NO_MASK
    mask = game.__dict__.get(_MASK_ATTRIBUTE)
    if mask is None:
        mask = game.__dict__[_MASK_ATTRIBUTE] = _mask_read(game)
    return mask


_MASK_ATTRIBUTE = "_contribution_mask"


def _mask_read(game: Game) -> ContributionMask:
    reasons = hidden_contributions(game=game)
    if not reasons:
        return NO_MASK
    positions: dict[str, list[int]] = {}
    labels: dict[int, str] = {}
    if game.engine == "believers":
        # The stored outcome lists contributions ("log") and epilogues in event order, without seqs.
        moves = Event.objects.filter(game=game, kind=Event.Kind.MOVE).order_by("seq").values_list("seq", "payload")
        for seq, payload in moves:
            kind = payload.get("type")
            if kind in _BELIEVERS_LISTS:
                positions.setdefault(_BELIEVERS_LISTS[kind], []).append(seq)
    elif game.engine == "kazekami-kyoko":
        for event in Event.objects.filter(game=game, seq__in=list(reasons)):
            if event.payload.get("type") == "set_label" and event.seat is not None:
                labels[event.seat] = reasons[event.seq]
    return ContributionMask(
        fields=CONTRIBUTION_FIELDS[game.engine],
        reasons=reasons,
        positions={key: tuple(seqs) for key, seqs in positions.items()},
        labels=labels,
    )


_BELIEVERS_LISTS = {"contribute": "log", "epilogue": "epilogues"}
