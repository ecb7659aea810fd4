"""Events in words for the replay viewer and the play page ("Aki played a card face down").

Takes an event as the viewer may see it (already redacted by ``engine.event_view``) and the seat
names, and returns a sentence in the active language plus the card and tile ids it mentions, so
the page can draw them as cards. Every game's moves and chance steps have their own sentences
(``SENTENCES``: one for the event as shown, one for when the viewer may not see its card); an
action no table knows gets a generic sentence built from its name and parameters. A Satori katsu
also says what the card was, from the katsu log of the view at that point (``katsu_results``).
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


L = gettext_lazy
# (engine or "*", type) -> (sentence, sentence when a card or tile in it is hidden from the viewer).
# Placeholders: %(player)s (the acting seat) and the event's parameters, card lists joined by spaces.
SENTENCES = {
    ("*", "resign"): (L("%(resigner)s resigned"), None),
    # Satori
    ("satori", "deal"): (
        L("The cards were dealt: 2 Zatsunen and 3 Satori cards to each hand; %(first)s starts."),
        None,
    ),
    ("satori", "play_card"): (L("%(player)s played %(card)s face down"), L("%(player)s played a card face down")),
    ("satori", "katsu"): (L("%(player)s called katsu!"), None),
    ("satori", "decline_katsu"): (L("%(player)s let the card pass"), None),
    ("satori", "declare_satori"): (L("%(player)s declared satori"), None),
    ("satori", "pass_turn"): (L("%(player)s passed (empty hand)"), None),
    ("satori", "hand_over"): (
        L("%(player)s handed over %(s_card)s and %(z_card)s"),
        L("%(player)s handed over two cards"),
    ),
    ("satori", "close_window"): (L("Nobody called katsu in time"), None),
    # Turn Thief
    ("turn-thief", "deal"): (L("The cards were dealt and the factions drawn."), None),
    ("turn-thief", "discard"): (
        L("%(player)s discarded %(card)s, declaring %(declared)s"),
        L("%(player)s discarded a card face down, declaring %(declared)s"),
    ),
    ("turn-thief", "call_get"): (L("%(player)s called get"), None),
    ("turn-thief", "call_doubt"): (L("%(player)s called doubt"), None),
    ("turn-thief", "call_none"): (L("%(player)s let it go"), None),
    ("turn-thief", "call"): (L("%(player)s answered (sealed)"), None),
    ("turn-thief", "close_window"): (L("The reactions closed"), None),
    # 1234
    ("1234", "deal"): (L("The cards were dealt; the start card is %(start_card)s."), L("The cards were dealt.")),
    ("1234", "play"): (L("%(player)s played %(cards)s"), L("%(player)s played cards")),
    ("1234", "pass_combo"): (L("%(player)s passed, showing %(cards)s"), L("%(player)s passed")),
    ("1234", "drop_out"): (L("%(player)s dropped out"), None),
    # Necropolis
    ("necropolis", "deal"): (L("The tiles were shuffled face down into the necropolis."), None),
    ("necropolis", "draw"): (L("%(player)s drew a tile from the necropolis"), None),
    ("necropolis", "entomb_drawn"): (L("%(player)s put the drawn tile in the mastaba"), None),
    ("necropolis", "bury_drawn"): (L("%(player)s buried the drawn tile in the grave"), None),
    ("necropolis", "bury_from_mastaba"): (L("%(player)s buried %(tile)s from the mastaba"), None),
    ("necropolis", "exchange"): (L("%(player)s exchanged %(tile)s"), L("%(player)s exchanged a tile")),
    ("necropolis", "exchange_draw"): (L("A tile was drawn in exchange: %(drawn)s"), L("A tile was drawn in exchange")),
    ("necropolis", "restart_grave"): (
        L("%(player)s restarted the grave with %(tile)s"),
        L("%(player)s restarted the grave"),
    ),
    ("necropolis", "propose_end"): (L("%(player)s proposed to end the game"), None),
    ("necropolis", "accept_end"): (L("%(player)s accepted the end"), None),
    ("necropolis", "decline_end"): (L("%(player)s declined the end"), None),
    # Mekuri Hinmin
    ("mekuri-hinmin", "deal"): (L("The cards were dealt; the upcard is %(upcard)s."), L("The cards were dealt.")),
    ("mekuri-hinmin", "upcard_reshuffle"): (L("The upcard was reshuffled; the new upcard is %(upcard)s."), None),
    ("mekuri-hinmin", "reshuffle"): (L("The discards were shuffled into a new draw pile."), None),
    ("mekuri-hinmin", "play"): (L("%(player)s played %(cards)s"), L("%(player)s played cards")),
    ("mekuri-hinmin", "pass_and_draw"): (L("%(player)s passed and drew a card"), None),
    ("mekuri-hinmin", "end_pass"): (L("%(player)s passed"), None),
    ("mekuri-hinmin", "counter_two"): (L("%(player)s countered the two with %(card)s"), None),
    ("mekuri-hinmin", "cancel_two_with_joker"): (L("%(player)s cancelled the two with %(card)s"), None),
    ("mekuri-hinmin", "counter_going_out"): (L("%(player)s countered going out with %(cards)s"), None),
    ("mekuri-hinmin", "accept_going_out"): (L("%(player)s let the other go out"), None),
    ("mekuri-hinmin", "propose_tie"): (L("%(player)s proposed a tie"), None),
    ("mekuri-hinmin", "accept_tie"): (L("%(player)s accepted the tie"), None),
    ("mekuri-hinmin", "reject_tie"): (L("%(player)s rejected the tie"), None),
    ("mekuri-hinmin", "choose_first_player"): (L("%(player)s chose who starts"), None),
    ("mekuri-hinmin", "choose_initial_upcard_handling"): (L("%(player)s chose what to do with the first upcard"), None),
    # Twenty-Two
    ("twenty-two", "dealer_draw"): (L("Cards were drawn to choose the dealer."), None),
    ("twenty-two", "dealer_pick"): (L("The dealer was chosen."), None),
    ("twenty-two", "deal"): (L("The cards were dealt."), None),
    ("twenty-two", "exchange"): (L("%(player)s exchanged %(cards)s"), L("%(player)s exchanged %(count)s cards")),
    ("twenty-two", "lead"): (L("%(player)s led %(cards)s"), None),
    ("twenty-two", "follow"): (L("%(player)s played %(cards)s"), None),
    ("twenty-two", "buy_back"): (L("%(player)s bought back in"), None),
    ("twenty-two", "decline_buy_back"): (L("%(player)s did not buy back"), None),
    # Kazekami Kyoko
    ("kazekami-kyoko", "opt_in_mature"): (L("%(player)s opted in to the mature content"), None),
    ("kazekami-kyoko", "take_role"): (L("%(player)s took the role of %(role)s"), None),
    ("kazekami-kyoko", "open_tale"): (L("%(player)s opened a tale: %(statement)s"), L("%(player)s opened a tale")),
    ("kazekami-kyoko", "respond"): (L("%(player)s responded"), None),
    ("kazekami-kyoko", "yield_tale"): (L("%(player)s yielded the tale"), None),
    ("kazekami-kyoko", "final_words"): (L("%(player)s spoke the final words"), None),
    ("kazekami-kyoko", "final_reply"): (L("%(player)s gave the final reply"), None),
    # The Believers
    ("believers", "contribute"): (L("%(player)s: %(text)s"), L("%(player)s added to the story")),
    ("believers", "propose_final_ritual"): (L("%(player)s proposed the final ritual"), None),
    ("believers", "agree_final_ritual"): (L("%(player)s agreed to the final ritual"), None),
    ("believers", "commit_choice"): (L("%(player)s chose to %(choice)s"), L("%(player)s made a sealed choice")),
    ("believers", "epilogue"): (L("%(player)s wrote an epilogue: %(text)s"), L("%(player)s wrote an epilogue")),
}

# Words for parameter values that are names, not free text.
VALUE_WORDS = {
    "kyoko": L("Kyoko"),
    "kublai": L("Kublai Khan"),
    "depart": L("depart"),
    "stay": L("stay"),
}
SUIT_WORDS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def describe_event(engine: str, event: dict, names: list[str], katsu: dict | None = None) -> dict:
    """``{"seq", "kind", "seat", "type", "text", "cards"}`` for one (redacted) event.

    ``katsu``: for a Satori katsu, its entry of the view's katsu log (what the card turned out to be).
    """
    data = event.get("data") or {}
    describe = _nine_card if engine == "nine-card" else _sentence
    text, shown = describe(event, data, names, engine)
    if katsu and data.get("type") == "katsu":
        text += " " + _katsu_result(katsu)
        shown += [katsu["card"]] if is_card(katsu.get("card")) else []
    return {
        "seq": event.get("seq"),
        "kind": event.get("kind"),
        "seat": event.get("seat"),
        "type": data.get("type"),
        "text": text,
        "cards": shown,
    }


def _katsu_result(entry: dict) -> str:
    card = entry.get("card")
    what = _("a Satori card") if entry.get("class") == "S" else _("a Zatsunen card")
    if is_card(card):
        what = f"{card}, {what}"
    if entry.get("success"):
        return _("- it was %(what)s: the katsu succeeded.") % {"what": what}
    return _("- it was %(what)s: the katsu failed.") % {"what": what}


def katsu_results(engine: str, view, events: list[dict], before: int = 0) -> dict[int, dict]:
    """seq -> katsu log entry for the Satori katsu events among ``events`` (``before``: how many
    katsu events came earlier). One katsu is accepted per played card, so the n-th katsu event
    is the n-th entry of the log."""
    if engine != "satori" or not isinstance(view, dict):
        return {}
    log = view.get("katsu_log") or []
    found, index = {}, before
    for event in events:
        if event.get("kind") == "move" and (event.get("data") or {}).get("type") == "katsu":
            if index < len(log):
                found[event.get("seq")] = log[index]
            index += 1
    return found


def _system(data: dict, names: list[str]) -> tuple[str, list[str]] | None:
    if data.get("type") == "resign":
        return _("%(player)s resigned") % {"player": seat_name(names, data.get("seat"))}, []
    if data.get("type") == "close_window":
        return _("Time ran out (%(window)s)") % {"window": data.get("window")}, []
    return None


def _nine_card(event: dict, data: dict, names: list[str], engine: str) -> tuple[str, list[str]]:
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
    return _generic(event, data, names, engine)


def is_hidden_marker(value) -> bool:
    """A contribution a moderator hid (``games.moderation.marker``): ``{"hidden": true, "reason": ...}``."""
    return isinstance(value, dict) and value.get("hidden") is True


def hidden_words(value: dict) -> str:
    return _("hidden by a moderator: %(reason)s") % {"reason": value.get("reason") or ""}


def _value(key: str, value, names: list[str]) -> str:
    if is_hidden_marker(value):
        return hidden_words(value)
    if isinstance(value, list):
        return " ".join(_value(key, item, names) for item in value)
    if key in ("first", "first_player", "player", "seat", "dealer") and isinstance(value, int):
        return seat_name(names, value)
    if isinstance(value, str) and value in VALUE_WORDS:
        return str(VALUE_WORDS[value])
    return "…" if value is None else str(value)


def _sentence(event: dict, data: dict, names: list[str], engine: str) -> tuple[str, list[str]]:
    kind = data.get("type")
    templates = SENTENCES.get((engine, kind)) or SENTENCES.get(("*", kind))
    if kind == "close_window" and engine not in ("satori", "turn-thief"):
        templates = None  # the generic "time ran out" names the window
    if templates is None:
        return _generic(event, data, names, engine)
    params = {key: _value(key, value, names) for key, value in data.items() if key != "type"}
    params["player"] = seat_name(names, event.get("seat"))
    params["resigner"] = seat_name(names, data.get("seat"))
    params["first"] = seat_name(names, data.get("first_player"))
    if "declared_rank" in data:
        params["declared"] = f"{data.get('declared_rank')}{SUIT_WORDS.get(data.get('declared_suit'), '')}"
    if isinstance(data.get("cards"), list) or isinstance(data.get("cards"), int):
        count = data["cards"] if isinstance(data["cards"], int) else len(data["cards"])
        params["count"] = str(count)
    shown_template, hidden_template = templates
    hidden = (
        any(value is None for key, value in data.items() if key != "type")
        or (isinstance(data.get("cards"), list) and None in data["cards"])
        or isinstance(data.get("cards"), int)
    )
    template = hidden_template if hidden and hidden_template is not None else shown_template
    try:
        text = str(template) % params
    except KeyError:  # a parameter this event leaves out (a restart from the necropolis names no tile)
        if hidden_template is None or template is hidden_template:
            return _generic(event, data, names, engine)
        template = hidden_template
        text = str(template) % params
    shown = [] if template is hidden_template else cards_in({k: v for k, v in data.items() if k != "type"})
    return text, shown


def _generic(event: dict, data: dict, names: list[str], engine: str = "") -> tuple[str, list[str]]:
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
        elif is_hidden_marker(value):
            details.append(f"{key.replace('_', ' ')} {hidden_words(value)}")
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
