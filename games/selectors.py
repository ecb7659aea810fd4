"""Reads of games and events as a given user may see them; nothing here writes."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db.models import QuerySet

from . import moderation
from .engines import REGISTRY, get_engine
from .models import Event, Game, MatureConsent, Seat


def may_see_mature(user) -> bool:
    """Whether ``user`` has confirmed they are an adult who consents to mature content."""
    if user is None or not user.is_authenticated:
        return False
    return MatureConsent.objects.filter(user=user).exists()


def mature_engines() -> list[str]:
    return [slug for slug, engine in REGISTRY.items() if engine.mature]


def game_list(
    *, viewer=None, engine: str | None = None, status: str | None = None, player: str | None = None
) -> QuerySet:
    """Games ``viewer`` may see: mature games only for viewers who confirmed (never in public lists)."""
    games = Game.objects.prefetch_related("seats__user")
    if not may_see_mature(viewer):
        games = games.exclude(engine__in=mature_engines())
    if engine:
        games = games.filter(engine=engine)
    if status:
        games = games.filter(status=status)
    if player:
        games = games.filter(seats__user__username=player)
    return games.distinct()


def game_get(*, game_id, viewer=None) -> Game | None:
    """The game if ``viewer`` may see it: a mature game is invisible (None) without consent."""
    try:
        game = Game.objects.prefetch_related("seats__user").filter(pk=game_id).first()
    except (ValueError, ValidationError):  # a malformed UUID
        return None
    if game is not None and get_engine(game.engine).mature and not may_see_mature(viewer):
        return None
    return game


def seat_of(*, game: Game, user) -> int | None:
    if user is None or not user.is_authenticated:
        return None
    return Seat.objects.filter(game=game, user=user).values_list("index", flat=True).first()


def game_view(*, game: Game, seat: int | None, moderator: bool = False) -> dict | None:
    """The engine's view for ``seat``, with hidden contributions replaced unless ``moderator``."""
    if game.state is None:
        return None
    engine = get_engine(game.engine)
    view = engine.view(engine.load_state(game.state), seat)
    redaction = moderation.redaction_for(game=game, moderator=moderator)
    return redaction.tree(view) if redaction else view


def outcome_for(*, game: Game, moderator: bool = False) -> dict | None:
    """The stored outcome; a storytelling outcome may quote contributions, so hidden ones go."""
    if game.outcome is None:
        return None
    redaction = moderation.redaction_for(game=game, moderator=moderator)
    return redaction.tree(game.outcome) if redaction else game.outcome


def legal_moves(*, game: Game, seat: int | None) -> list[dict]:
    if seat is None or game.state is None or game.is_finished:
        return []
    engine = get_engine(game.engine)
    return engine.legal_moves(engine.load_state(game.state), seat)


def events_for(
    *, game: Game, seat: int | None, after: int = 0, limit: int = 500, moderator: bool = False
) -> list[dict]:
    """Events after ``after`` as ``seat`` may see them; every seq is present so gaps show.

    Once the game is over the whole record is public and nothing is redacted for hidden cards; a
    contribution a moderator hid stays hidden (text replaced by a marker) unless ``moderator``.
    The default is the safe one, so every caller that does not know the viewer redacts.
    """
    # Only up to the head this game row was read at: a newer event must not be judged by an older
    # state (an open game that started since would otherwise show its deal unredacted).
    rows = Event.objects.filter(game=game, seq__gt=after, seq__lte=game.head_seq).order_by("seq")[:limit]
    engine = get_engine(game.engine)
    state = engine.load_state(game.state) if game.state is not None and not game.is_finished else None
    out = []
    for row in rows:
        event = row.as_record()
        if state is not None:
            event = engine.event_view(state, event, seat)
        item = {"seq": row.seq, **event, "created_at": row.created_at}
        if game.is_finished:
            # Not before: a hidden move has few possible contents, so its hash would give it away.
            item["hash"] = row.hash
        out.append(item)
    redaction = moderation.redaction_for(game=game, moderator=moderator)
    return [redaction.event(item) for item in out] if redaction else out
