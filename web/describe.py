"""Events in words for the replay viewer and the play page ("Aki played a card face down").

Takes an event as the viewer may see it (already redacted by ``engine.event_view``) and the seat
names, and returns a sentence in the active language plus the card and tile ids it mentions, so
the page can draw them as cards. Nine Card has its own phrasing; every other game gets a generic
sentence built from the action name and its parameters.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

CARD_RE = re.compile(r"^(?:10|[2-9AJQK])[SHDC]$|^JK[12]$")
TILE_RE = re.compile(r"^\d{1,2}-\d{1,2}$")

# Labels of the actions and chance steps of every engine; an unknown one is shown humanised.
ACTION_LABELS = {
    "accept_draw": gettext_lazy("accepts the draw"),
    "accept_end": gettext_lazy("accepts the end"),
    "accept_going_out": gettext_lazy("accepts going out"),
    "accept_tie": gettext_lazy("accepts the tie"),
    "buy_back": gettext_lazy("buys back"),
    "bury_drawn": gettext_lazy("buries the drawn tile"),
    "bury_from_mastaba": gettext_lazy("buries a tile from the mastaba"),
    "call": gettext_lazy("calls"),
    "call_doubt": gettext_lazy("calls doubt"),
    "call_get": gettext_lazy("calls get"),
    "call_none": gettext_lazy("lets it go"),
    "cancel_two_with_joker": gettext_lazy("cancels the two with a joker"),
    "choose_first_player": gettext_lazy("chooses the first player"),
    "choose_initial_upcard_handling": gettext_lazy("chooses how to handle the first upcard"),
    "commit_card": gettext_lazy("commits a card"),
    "counter_going_out": gettext_lazy("counters going out"),
    "counter_two": gettext_lazy("counters the two"),
    "deal": gettext_lazy("the deal"),
    "dealer_draw": gettext_lazy("the draw for dealer"),
    "dealer_pick": gettext_lazy("picks the dealer"),
    "decline_buy_back": gettext_lazy("declines to buy back"),
    "decline_end": gettext_lazy("declines the end"),
    "decline_katsu": gettext_lazy("declines katsu"),
    "declare_satori": gettext_lazy("declares satori"),
    "discard": gettext_lazy("discards"),
    "draw": gettext_lazy("draws"),
    "drop_out": gettext_lazy("drops out"),
    "end_pass": gettext_lazy("ends with a pass"),
    "entomb_drawn": gettext_lazy("entombs the drawn tile"),
    "exchange": gettext_lazy("exchanges"),
    "exchange_draw": gettext_lazy("draws in exchange"),
    "follow": gettext_lazy("follows"),
    "hand_over": gettext_lazy("hands over"),
    "katsu": gettext_lazy("calls katsu"),
    "lead": gettext_lazy("leads"),
    "pass_and_draw": gettext_lazy("passes and draws"),
    "pass_combo": gettext_lazy("passes with a combination"),
    "pass_turn": gettext_lazy("passes"),
    "play": gettext_lazy("plays"),
    "play_card": gettext_lazy("plays a card"),
    "propose_end": gettext_lazy("proposes to end"),
    "propose_tie": gettext_lazy("proposes a tie"),
    "reject_tie": gettext_lazy("rejects the tie"),
    "reshuffle": gettext_lazy("a reshuffle"),
    "restart_grave": gettext_lazy("restarts the grave"),
    "upcard_reshuffle": gettext_lazy("a reshuffle of the upcard"),
}


def action_label(kind: str) -> str:
    label = ACTION_LABELS.get(kind)
    return str(label) if label is not None else kind.replace("_", " ")


def is_card(value) -> bool:
    return isinstance(value, str) and bool(CARD_RE.match(value) or TILE_RE.match(value))


def cards_in(value) -> list[str]:
    """Every card or tile id inside a JSON value, in order."""
    if is_card(value):
        return [value]
    if isinstance(value, dict):
        return [card for item in value.values() for card in cards_in(item)]
    if isinstance(value, list):
        return [card for item in value for card in cards_in(item)]
    return []


def seat_name(names: list[str], seat) -> str:
    if isinstance(seat, int) and 0 <= seat < len(names):
        return names[seat]
    return _("seat %(seat)s") % {"seat": seat}


def describe_event(engine: str, event: dict, names: list[str]) -> dict:
    """``{"seq", "kind", "seat", "type", "text", "cards"}`` for one (redacted) event."""
    data = event.get("data") or {}
    describe = _nine_card if engine == "nine-card" else _generic
    text, shown = describe(event, data, names)
    return {
        "seq": event.get("seq"),
        "kind": event.get("kind"),
        "seat": event.get("seat"),
        "type": data.get("type"),
        "text": text,
        "cards": shown,
    }


def _system(data: dict, names: list[str]) -> tuple[str, list[str]] | None:
    if data.get("type") == "resign":
        return _("%(player)s resigned") % {"player": seat_name(names, data.get("seat"))}, []
    if data.get("type") == "close_window":
        return _("Time ran out (%(window)s)") % {"window": data.get("window")}, []
    return None


def _nine_card(event: dict, data: dict, names: list[str]) -> tuple[str, list[str]]:
    if event.get("kind") == "chance" and data.get("type") == "deal":
        text = _("The cards were dealt: 9 to each hand, 4 set aside face down.")
        shown = []
        for seat, hand in enumerate(data.get("hands") or []):
            if hand:
                holds = _("%(player)s holds %(cards)s.")
                text += " " + holds % {"player": seat_name(names, seat), "cards": " ".join(hand)}
                shown.extend(hand)
        return text, shown
    if event.get("kind") == "move" and data.get("type") == "commit_card":
        player = seat_name(names, event.get("seat"))
        if data.get("card") is None:
            return _("%(player)s played a card face down") % {"player": player}, []
        return _("%(player)s committed %(card)s") % {"player": player, "card": data["card"]}, [data["card"]]
    return _generic(event, data, names)


def _generic(event: dict, data: dict, names: list[str]) -> tuple[str, list[str]]:
    kind = event.get("kind")
    if kind == "system":
        known = _system(data, names)
        if known:
            return known
        return _("System: %(what)s") % {"what": action_label(str(data.get("type")))}, []
    if kind == "chance":
        return _("Chance: %(what)s") % {"what": action_label(str(data.get("type")))}, []
    params = {key: value for key, value in data.items() if key != "type"}
    shown = cards_in(params)
    details = []
    for key, value in params.items():
        if value is None or cards_in(value):
            continue
        if isinstance(value, str | int | float | bool):
            details.append(f"{key.replace('_', ' ')} {value}")
    text = _("%(player)s %(action)s") % {
        "player": seat_name(names, event.get("seat")),
        "action": action_label(str(data.get("type"))),
    }
    if shown:
        text += " " + " ".join(shown)
    if details:
        text += " (" + ", ".join(details) + ")"
    if any(value is None for value in params.values()):
        text += " " + _("(hidden)")
    return text, shown
