"""A game's position after event N, as one seat, a spectator or everyone saw it.

A finished game that is public to the viewer: the stored events are replayed through the engine
with ``games.selectors.game_replay`` (the one replay of a stored game, as the API and the streams
use it), so what the viewer shows is what the rules produce, not a second implementation of them.
A running game (or one whose end a delayed spectator may not see yet) is replayed only as far as
``selectors.game_sight`` lets the viewer see, only as their own seat or as a spectator, with the
events exactly as ``selectors.events_for`` gives them (``live_position``).
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from games import selectors
from games.engines import get_engine
from games.models import Game
from games.moderation import contribution_mask

from .describe import describe_event, katsu_results
from .names import game_name

EVERYONE = "all"
SPECTATOR = "spectator"


class ReplayError(Exception):
    """A replay request the server refuses; ``status`` is the HTTP status to answer with."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code, self.message, self.status = code, message, status


def seat_names(game: Game) -> list[str]:
    return [seat.name or _("seat %(seat)s") % {"seat": seat.index} for seat in game.seats.all()]


def whole_number(raw: str) -> int | None:
    """``raw`` as a whole number, or None when it is not one. ASCII digits only: ``str.isdigit``
    also accepts "²", which ``int`` refuses; and a number of thousands of digits (past Python's
    limit for ``int``) is capped at 10**18, far past any game's last event."""
    if not (raw.isascii() and raw.isdigit()):
        return None
    digits = raw.lstrip("0") or "0"
    return int(digits) if len(digits) <= 18 else 10**18


def parse_perspective(raw: str | None, seats: int) -> str | int:
    """``all`` (the default), ``spectator``, or a seat number as a string."""
    if raw in (None, "", EVERYONE):
        return EVERYONE
    if raw == SPECTATOR:
        return SPECTATOR
    seat = whole_number(raw)
    if seat is not None and seat < seats:
        return seat
    message = _("as must be all, spectator or a seat from 0 to %(last)s, not %(raw)r")
    raise ReplayError("bad_parameter", message % {"last": seats - 1, "raw": raw})


def parse_at(raw: str | None, total: int) -> int:
    """The event number ``at``: 0 (the start) when absent, and a number past the last event the
    viewer may see is that last event, as the replay page opens such a link (issue 23). Anything
    but a whole number is refused."""
    if raw in (None, ""):
        return 0
    at = whole_number(raw)
    if at is None:
        message = _("at must be a whole number from 0 to %(total)s, not %(raw)r")
        raise ReplayError("bad_parameter", message % {"total": total, "raw": raw})
    return min(at, total)


def merge_views(base, others: list):
    """Everything the seats saw, together: ``base`` (the spectator's view) with each hidden
    (null) value filled from the first seat view that shows it, and keys only a seat sees added.

    Views of one engine share one shape, so walking them side by side lines up the same things
    (seat i's hand is null in every view but seat i's).
    """
    if isinstance(base, dict):
        dicts = [other for other in others if isinstance(other, dict)]
        merged = {key: merge_views(value, [other.get(key) for other in dicts]) for key, value in base.items()}
        for other in dicts:
            for key, value in other.items():
                if key not in merged:
                    merged[key] = merge_views(value, [o.get(key) for o in dicts if o is not other])
        return merged
    if isinstance(base, list):
        lists = [other for other in others if isinstance(other, list) and len(other) == len(base)]
        return [merge_views(item, [other[index] for other in lists]) for index, item in enumerate(base)]
    if base is None:
        return next((other for other in others if other is not None), None)
    return base


def replay_position(*, game: Game, at_raw: str | None, as_raw: str | None, moderator: bool = False) -> dict:
    """The position after event ``at`` (0: before the first) of a finished game, for the viewer.

    Contributions a moderator hid are replaced by a marker (in the view, the events and the outcome)
    unless ``moderator``; the replay itself runs over the complete stored events.
    """
    if not game.is_finished:
        raise ReplayError(
            "game_running",
            _("This game is still running; its replay opens when it is over. Watch it on its play page."),
            409,
        )
    names = seat_names(game)
    perspective = parse_perspective(as_raw, len(names))
    rows = list(game.events.order_by("seq"))
    at = parse_at(at_raw, len(rows))
    engine = get_engine(game.engine)
    try:
        state = selectors.game_replay(game=game, upto=at).state
    except selectors.StoredEventError as error:
        raise ReplayError(
            "replay_failed", f"stored event {error.seq} does not replay: {error.code}: {error.message}", 500
        ) from None
    if perspective == EVERYONE:
        view = merge_views(engine.view(state, None), [engine.view(state, seat) for seat in range(len(names))])
    else:
        view = engine.view(state, None if perspective == SPECTATOR else perspective)
    mask = contribution_mask(game=game, moderator=moderator)
    view = mask.tree(view)
    shown = []
    for row in rows[:at]:
        event = row.as_record()
        if perspective != EVERYONE:
            event = engine.event_view(state, event, None if perspective == SPECTATOR else perspective)
        shown.append(mask.event({"seq": row.seq, **event}))
    katsu = katsu_results(game.engine, view, shown)
    events = []
    for event in shown:
        described = describe_event(game.engine, event, names, katsu.get(event["seq"]))
        if "hidden" in event:
            described["hidden"] = event["hidden"]
        events.append(described)
    outcome = engine.outcome(state)
    deadline = engine.deadline(state) if outcome is None else None
    return {
        "game": str(game.pk),
        "engine": game.engine,
        "engine_name": game_name(game.engine),
        "at": at,
        "total": len(rows),
        "live": False,
        "as": perspective if isinstance(perspective, str) else str(perspective),
        "seats": names,
        "perspectives": perspectives(names),
        "view": view,
        "actors": [] if outcome else sorted(engine.actors(state)),
        "window": deadline.window if deadline else None,
        "outcome": mask.tree(outcome.to_json()) if outcome else None,
        "events": events,
    }


def perspectives(names: list[str]) -> list[dict]:
    options = [{"value": EVERYONE, "label": _("Everything (the game is over)")}]
    for seat, name in enumerate(names):
        options.append({"value": str(seat), "label": _("%(player)s (seat %(seat)s)") % {"player": name, "seat": seat}})
    options.append({"value": SPECTATOR, "label": _("Spectator")})
    return options


def live_position(
    *, game: Game, at_raw: str | None, as_raw: str | None, sight: selectors.Sight, seat: int | None
) -> dict:
    """The position after event ``at`` of a game the viewer may not see whole: up to ``sight.seq``,
    as their own ``seat`` (the default) or as a spectator; never everything, and never an ending
    the viewer may not see yet (a view of a finished state shows every hand)."""
    names = seat_names(game)
    allowed = [SPECTATOR] if seat is None or sight.delayed else [str(seat), SPECTATOR]
    raw = as_raw if as_raw not in (None, "") else allowed[0]
    if raw not in allowed:
        choices = " or ".join(allowed)
        message = _("while the game runs you may replay it as %(choices)s, not %(raw)r")
        raise ReplayError("perspective_hidden", message % {"choices": choices, "raw": raw}, 403)
    perspective = None if raw == SPECTATOR else int(raw)
    engine = get_engine(game.engine)
    total = sight.seq
    head = selectors.game_replay(game=game, upto=total)
    if engine.outcome(head.state) is not None:  # the end itself stays hidden until the game is public
        total -= 1
    at = parse_at(at_raw, total)
    state = selectors.game_replay(game=game, upto=at).state
    view = contribution_mask(game=game, moderator=False).tree(engine.view(state, perspective))
    shown = selectors.events_for(game=game, seat=perspective, after=0, limit=max(at, 1), sight=sight)[:at]
    katsu = katsu_results(game.engine, view, shown)
    events = [describe_event(game.engine, event, names, katsu.get(event["seq"])) for event in shown]
    deadline = engine.deadline(state)
    options = [option for option in perspectives(names) if option["value"] in allowed]
    return {
        "game": str(game.pk),
        "engine": game.engine,
        "engine_name": game_name(game.engine),
        "live": True,
        "at": at,
        "total": total,
        "as": raw,
        "seats": names,
        "perspectives": options,
        "view": view,
        "actors": sorted(engine.actors(state)),
        "window": deadline.window if deadline else None,
        "outcome": None,
        "events": events,
    }
