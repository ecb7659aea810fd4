"""Turn Thief (自分の番を取り合う心理戦トランプゲーム): four factions fight over whose turn it is.

Implements ``shared/rules/turn-thief.md`` (seed 002). Each seat owns the suit of the Ace dealt to it.
The seat on turn discards one card face down and declares a suit and rank, possibly a lie. A
reaction window then opens for the three other seats (``call_get``, ``call_doubt``, ``call_none``):
a doubt beats every get and turns the card face up, and the loser of that duel takes the card while
the winner takes the turn (A7); otherwise a getter takes the card unseen, or it goes to the dead
pile, and the turn goes to the owner of the declared suit. The game ends when the discarder's hand
is empty after a resolution (A5); the lowest hand sum ranks first.

The source has no end for a game in which nobody runs out (cards only leave play when nobody
calls), so ``max_discards`` ends it, ranked the same way; ``reaction_window_seconds`` is the timer
of the window. Both are engine additions, not rules of the source.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from . import cards
from .base import (
    ID_LENGTH,
    Action,
    Deadline,
    Engine,
    Flag,
    IllegalMove,
    MalformedEvent,
    NotYourTurn,
    Outcome,
    Param,
    WindowClosed,
    evolve,
    require_param,
)

SEATS = 4
SUIT_NAME = {"S": "Spades", "H": "Hearts", "D": "Diamonds", "C": "Clubs"}
NUMBER_RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10")
FACE_RANKS = ("J", "Q", "K")
CALLS = {"call_get": "get", "call_doubt": "doubt", "call_none": "none"}
CLOSE_EVENTS = ("close_window", "close_reaction_window")
MAX_DISCARDS_LIMIT = 2000


@dataclass(frozen=True)
class Discard:
    """One discard and, once its reaction window has closed, how it was resolved."""

    number: int  # 1-based count of discards in the game; the window id is reaction-<number>
    discarder: int
    card: str
    declared_suit: str
    declared_rank: str
    calls: tuple[tuple[int, str], ...] = ()  # (seat, get|doubt|none) in receipt order
    timed_out: tuple[int, ...] = ()  # seats that had not answered when the window was closed
    result: str | None = None  # doubt | get | none; None while the window is open
    caller: int | None = None  # the doubter or getter that took effect (A2)
    honest: bool | None = None  # doubts only: did the card match the declaration
    taker: int | None = None  # the seat that took the card into hand; None: dead pile
    next_seat: int | None = None

    @property
    def declared(self) -> str:
        return f"{self.declared_rank}{self.declared_suit}"


@dataclass(frozen=True)
class TurnThiefState:
    config: dict
    phase: str  # deal | discard | reaction | over
    factions: tuple[str, ...] = ()  # suit of each seat's Ace, by seat
    hands: tuple[tuple[str, ...], ...] = ((),) * SEATS
    active: int = 0  # the seat on turn (the discarder while a window is open)
    pending: Discard | None = None  # the discard whose reaction window is open
    history: tuple[Discard, ...] = ()
    dead: tuple[str, ...] = ()  # dead pile, in discard order
    seen: tuple[frozenset[str], ...] = (frozenset(),) * SEATS  # card ids each seat has seen
    public: frozenset[str] = frozenset()  # card ids turned face up in a doubt duel
    ended_by: str | None = None  # out_of_cards | discard_limit | resign
    resigned: int | None = None

    @cached_property
    def discards_by_key(self) -> dict[tuple, list[Discard]]:
        """Every discard (resolved or pending) by (discarder, card, suit, rank): how event_view finds them."""
        index: dict[tuple, list[Discard]] = {}
        for entry in self.history + ((self.pending,) if self.pending is not None else ()):
            key = (entry.discarder, entry.card, entry.declared_suit, entry.declared_rank)
            index.setdefault(key, []).append(entry)
        return index


def _ranks(config: dict) -> tuple[str, ...]:
    return NUMBER_RANKS + (FACE_RANKS if config["include_face_cards"] else ())


def play_deck(config: dict) -> tuple[str, ...]:
    """The cards dealt into hands: ranks 2-10 (and J-Q-K with ``include_face_cards``), suit by suit."""
    return tuple(cards.card(rank, suit) for suit in cards.SUITS for rank in _ranks(config))


def _hand_size(config: dict) -> int:
    return len(play_deck(config)) // SEATS


def hand_sum(hand) -> int:
    """Ranking value of a hand: face values 2-10 (J=11, Q=12, K=13); the Aces are markers (A10)."""
    return sum(cards.value(c) for c in hand)


class TurnThief(Engine):
    slug = "turn-thief"
    name = "Turn Thief"
    rules_version = "1"
    min_seats = SEATS
    max_seats = SEATS
    # The deal, then per discard at most the discard and three calls (or fewer calls and a close).
    max_events = 1 + 4 * MAX_DISCARDS_LIMIT
    flags = (
        Flag(
            "include_face_cards",
            False,
            "Keep J, Q, K (values 11-13): 48 cards, 12 each; declarations may name J, Q, K (A1).",
        ),
        Flag(
            "reaction_mode",
            "sealed",
            "sealed: the three calls are hidden until the window closes; open: each call is public as it arrives (A3).",
            "str",
            ("sealed", "open"),
        ),
        Flag(
            "multi_call_priority",
            "clockwise_from_discarder",
            "Which of several doubters (or getters) takes effect: the nearest seat clockwise from "
            "the discarder, or the first call received (A2).",
            "str",
            ("clockwise_from_discarder", "first_received"),
        ),
        Flag(
            "ranking_tiebreak",
            "shared",
            "Equal hand sums: shared place, or fewer cards ranks higher (A6).",
            "str",
            ("shared", "fewer_cards"),
        ),
        Flag("reveal_dead_pile_at_end", False, "Show the dead pile to everyone once the game is over."),
        Flag(
            "reaction_window_seconds",
            20,
            "Seconds a reaction window stays open; players who have not answered by then make no "
            "call. 0 means no timer (the window waits for all three answers). Engine addition.",
            "float",
            minimum=0,
            maximum=3600,
        ),
        Flag(
            "max_discards",
            200,
            "The game ends after this many discards even if nobody has run out, ranked by hand "
            "sums as usual. Engine addition: without it a game of gets need never end.",
            "int",
            minimum=1,
            maximum=MAX_DISCARDS_LIMIT,
        ),
    )

    # ---- setup and chance ---------------------------------------------------------------
    def setup(self, config: dict | None, seats: int = SEATS) -> TurnThiefState:
        return TurnThiefState(config=self.validate_setup(config, seats), phase="deal")

    def chance_due(self, state: TurnThiefState) -> str | None:
        return "deal" if state.phase == "deal" else None

    def sample_chance(self, state: TurnThiefState, rng) -> dict:
        factions = rng.shuffle(cards.SUITS)
        deck = rng.shuffle(play_deck(state.config))
        size = _hand_size(state.config)
        hands = [cards.sort_by_value(deck[seat * size : (seat + 1) * size]) for seat in range(SEATS)]
        return {"type": "deal", "factions": factions, "hands": hands}

    def _apply_deal(self, state: TurnThiefState, data: dict) -> TurnThiefState:
        factions, hands = data.get("factions"), data.get("hands")
        if not isinstance(factions, list) or len(factions) != SEATS:
            raise MalformedEvent('a deal needs "factions": the suit of each seat\'s Ace, 4 of them')
        if not isinstance(hands, list) or len(hands) != SEATS or not all(isinstance(h, list) for h in hands):
            raise MalformedEvent('a deal needs "hands": 4 lists of card ids, seat 0 first')
        if sorted(factions, key=str) != sorted(cards.SUITS):
            raise IllegalMove(f"factions must be the four suits S, H, D, C once each, not {factions}", code="bad_deal")
        size = _hand_size(state.config)
        deck = play_deck(state.config)
        for seat, hand in enumerate(hands):
            if len(hand) != size:
                raise IllegalMove(f"seat {seat} must be dealt {size} cards, not {len(hand)}", code="bad_deal")
            strangers = [c for c in hand if c not in deck]
            if strangers:
                raise IllegalMove(
                    f"{strangers[0]!r} is not in the play deck (ranks {', '.join(_ranks(state.config))})",
                    code="bad_deal",
                )
        dealt = [c for hand in hands for c in hand]
        if len(set(dealt)) != len(dealt):
            twice = sorted({c for c in dealt if dealt.count(c) > 1})
            raise IllegalMove(f"card(s) dealt twice: {' '.join(twice)}", code="bad_deal")
        return evolve(
            state,
            phase="discard",
            factions=tuple(factions),
            hands=tuple(tuple(h) for h in hands),
            seen=tuple(frozenset(h) for h in hands),
            active=factions.index("H"),  # "ゲームはハート陣営の番からスタート"
        )

    # ---- who may act ------------------------------------------------------------------
    def owner(self, state: TurnThiefState, suit: str) -> int:
        return state.factions.index(suit)

    def actors(self, state: TurnThiefState) -> frozenset[int]:
        if state.phase == "discard":
            return frozenset((state.active,))
        if state.phase == "reaction":
            return frozenset(self._waiting(state))
        return frozenset()

    def _waiting(self, state: TurnThiefState) -> tuple[int, ...]:
        answered = {seat for seat, _ in state.pending.calls}
        return tuple(s for s in range(SEATS) if s != state.pending.discarder and s not in answered)

    def legal_moves(self, state: TurnThiefState, seat: int) -> list[dict]:
        if seat not in self.actors(state):
            return []
        if state.phase == "reaction":
            return [{"type": name} for name in CALLS]
        ranks = _ranks(state.config)
        return [
            {"type": "discard", "card": card, "declared_suit": suit, "declared_rank": rank}
            for card in cards.sort_by_value(state.hands[seat])
            for suit in cards.SUITS
            for rank in ranks
        ]

    def deadline(self, state: TurnThiefState) -> Deadline | None:
        seconds = state.config["reaction_window_seconds"]
        if state.phase != "reaction" or not seconds:
            return None
        return Deadline(_window_id(state.pending), seconds, self._waiting(state))

    # ---- events -----------------------------------------------------------------------
    actions = (
        Action(
            "discard",
            {
                "card": Param("string", "the id of a card in your hand", max_length=ID_LENGTH),
                "declared_suit": Param(
                    "string",
                    "the suit you declare",
                    choices=cards.SUITS,
                    choice_code="invalid_declared_suit",
                    max_length=ID_LENGTH,
                ),
                "declared_rank": Param("string", 'the rank you declare, "2" to "10" or a face', max_length=ID_LENGTH),
            },
        ),
        *(Action(call) for call in CALLS),
    )
    system_events = ("close_reaction_window",)

    def seat_count(self, state: TurnThiefState) -> int:
        return SEATS

    def apply_chance(self, state: TurnThiefState, data: dict) -> TurnThiefState:
        if data["type"] != "deal":
            raise MalformedEvent(f"Turn Thief has no chance step {data['type']!r}; the only one is deal")
        return self._apply_deal(state, data)

    def apply_move(self, state: TurnThiefState, seat: int, data: dict) -> TurnThiefState:
        if data["type"] == "discard":
            return self._discard(state, seat, data)
        return self._call(state, seat, CALLS[data["type"]])

    def apply_resign(self, state: TurnThiefState, seat: int, data: dict) -> TurnThiefState:
        return evolve(state, phase="over", ended_by="resign", resigned=seat)

    def open_window(self, state: TurnThiefState) -> str | None:
        return _window_id(state.pending) if state.phase == "reaction" else None

    def apply_close_window(self, state: TurnThiefState, data: dict) -> TurnThiefState:
        pending = state.pending
        late = self._waiting(state)
        calls = pending.calls + tuple((seat, "none") for seat in late)
        return self._resolve(evolve(state, pending=evolve(pending, calls=calls, timed_out=late)))

    def apply_system(self, state: TurnThiefState, data: dict) -> TurnThiefState:
        """``close_reaction_window``: the older close, naming the window or not."""
        window = data.get("window")
        if state.phase != "reaction" or (window is not None and window != _window_id(state.pending)):
            raise WindowClosed(f"window {window!r} is not open")
        return self.apply_close_window(state, data)

    def _discard(self, state: TurnThiefState, seat: int, data: dict) -> TurnThiefState:
        if state.phase == "reaction":
            raise NotYourTurn(
                f"seat {state.pending.discarder}'s discard is waiting for calls; "
                "answer with call_get, call_doubt or call_none, or wait for the window to close",
                code="window_open",
            )
        if seat != state.active:
            raise NotYourTurn(f"it is seat {state.active}'s turn to discard, not seat {seat}'s")
        card = require_param(data, "card", str, "the id of a card in your hand")
        suit = require_param(data, "declared_suit", str, "one of S, H, D, C")
        rank = require_param(data, "declared_rank", str, 'a rank as a string, "2" to "10"')
        ranks = _ranks(state.config)
        if suit not in cards.SUITS:
            raise IllegalMove(f"declared_suit must be one of S, H, D, C, not {suit!r}", code="invalid_declared_suit")
        if rank not in ranks:
            raise IllegalMove(
                f"declared_rank must name a card in this game: one of {', '.join(ranks)}, not {rank!r}",
                code="invalid_declared_rank",
            )
        if card not in state.hands[seat]:
            options = " ".join(cards.sort_by_value(state.hands[seat]))
            raise IllegalMove(f"{card} is not in your hand; you can discard one of: {options}", code="card_not_in_hand")
        hands = list(state.hands)
        hands[seat] = tuple(c for c in hands[seat] if c != card)
        number = len(state.history) + 1
        pending = Discard(number=number, discarder=seat, card=card, declared_suit=suit, declared_rank=rank)
        return evolve(state, phase="reaction", hands=tuple(hands), pending=pending)

    def _call(self, state: TurnThiefState, seat: int, call: str) -> TurnThiefState:
        if state.phase != "reaction":
            raise WindowClosed(
                f"there is no discard to react to; it is seat {state.active}'s turn to discard",
            )
        pending = state.pending
        if seat == pending.discarder:
            raise IllegalMove("you cannot get or doubt your own discard", code="own_discard")
        if any(s == seat for s, _ in pending.calls):
            raise IllegalMove(
                f"you have already answered discard {pending.number}; one answer per discard",
                code="already_responded",
            )
        state = evolve(state, pending=evolve(pending, calls=pending.calls + ((seat, call),)))
        if len(state.pending.calls) == SEATS - 1:
            return self._resolve(state)
        return state

    # ---- resolution (section 4) ---------------------------------------------------------
    def _choose(self, state: TurnThiefState, pending: Discard, seats: list[int]) -> int:
        if state.config["multi_call_priority"] == "first_received":
            return seats[0]  # seats are in receipt order
        return min(seats, key=lambda s: (s - pending.discarder) % SEATS)

    def _resolve(self, state: TurnThiefState) -> TurnThiefState:
        pending = state.pending
        doubters = [s for s, call in pending.calls if call == "doubt"]
        getters = [s for s, call in pending.calls if call == "get"]
        hands = list(state.hands)
        seen = list(state.seen)
        public, dead = state.public, state.dead
        card = pending.card
        if doubters:
            caller = self._choose(state, pending, doubters)
            honest = card == pending.declared  # both suit and rank must match
            winner, loser = (pending.discarder, caller) if honest else (caller, pending.discarder)
            hands[loser] = hands[loser] + (card,)
            public = public | {card}
            seen = [s | {card} for s in seen]
            done = evolve(pending, result="doubt", caller=caller, honest=honest, taker=loser, next_seat=winner)
        elif getters:
            caller = self._choose(state, pending, getters)
            hands[caller] = hands[caller] + (card,)
            seen[caller] = seen[caller] | {card}
            nxt = self.owner(state, pending.declared_suit)
            done = evolve(pending, result="get", caller=caller, taker=caller, next_seat=nxt)
        else:
            dead = dead + (card,)
            done = evolve(pending, result="none", next_seat=self.owner(state, pending.declared_suit))
        state = evolve(
            state,
            phase="discard",
            hands=tuple(hands),
            seen=tuple(seen),
            public=public,
            dead=dead,
            pending=None,
            history=state.history + (done,),
            active=done.next_seat,
        )
        if not state.hands[pending.discarder]:
            return evolve(state, phase="over", ended_by="out_of_cards")
        if len(state.history) >= state.config["max_discards"]:
            return evolve(state, phase="over", ended_by="discard_limit")
        return state

    # ---- outcome (section 5) ------------------------------------------------------------
    def outcome(self, state: TurnThiefState) -> Outcome | None:
        if state.phase != "over":
            return None
        sums = {seat: hand_sum(state.hands[seat]) for seat in range(SEATS)}
        counts = {seat: len(state.hands[seat]) for seat in range(SEATS)}
        if state.config["ranking_tiebreak"] == "fewer_cards":

            def key(seat):
                return (sums[seat], counts[seat])
        else:

            def key(seat):
                return sums[seat]

        ranked = [s for s in range(SEATS) if s != state.resigned]
        ranking: list[tuple[int, ...]] = []
        for seat in sorted(ranked, key=key):
            if ranking and key(ranking[-1][0]) == key(seat):
                ranking[-1] = ranking[-1] + (seat,)
            else:
                ranking.append((seat,))
        if state.resigned is not None:
            ranking.append((state.resigned,))
        detail = {
            "reason": state.ended_by,
            "sums": {str(s): sums[s] for s in range(SEATS)},
            "card_counts": {str(s): counts[s] for s in range(SEATS)},
            "discards": len(state.history),
        }
        if state.resigned is not None:
            detail["resigned"] = state.resigned
        return Outcome(tuple(ranking), {s: sums[s] for s in range(SEATS)}, detail)

    # ---- hidden information (section 6) -------------------------------------------------
    def _end_public(self, state: TurnThiefState) -> frozenset[str]:
        """Cards every seat may see once the game is over: all hands, and the dead pile if configured."""
        if state.phase != "over":
            return frozenset()
        shown = {c for hand in state.hands for c in hand}
        if state.config["reveal_dead_pile_at_end"]:
            shown.update(state.dead)
        return frozenset(shown)

    def hidden_from(self, state: TurnThiefState, seat: int | None) -> frozenset[str]:
        if state.phase == "deal":
            return frozenset()
        known = state.public | self._end_public(state)
        if seat is not None:
            known = known | state.seen[seat]
        return frozenset(play_deck(state.config)) - known

    def _shows_card(self, state: TurnThiefState, entry: Discard, viewer: int | None) -> bool:
        """Whether ``viewer`` may know which card was discarded in ``entry``."""
        if viewer is not None and viewer in (entry.discarder, entry.taker if entry.result == "get" else None):
            return True
        if entry.result == "doubt":
            return True
        return entry.card in self._end_public(state)

    def _entry_json(self, state: TurnThiefState, entry: Discard, viewer: int | None) -> dict:
        out = {
            "number": entry.number,
            "discarder": entry.discarder,
            "declared_suit": entry.declared_suit,
            "declared_rank": entry.declared_rank,
            "card": entry.card if self._shows_card(state, entry, viewer) else None,
        }
        if entry.result is None:
            return out
        out.update(
            {
                "calls": {str(seat): call for seat, call in sorted(entry.calls)},
                "call_order": [seat for seat, _ in entry.calls],
                "timed_out": list(entry.timed_out),
                "result": entry.result,
                "caller": entry.caller,
                "honest": entry.honest,
                "winner": entry.next_seat if entry.result == "doubt" else None,
                "taker": entry.taker,
                "next": entry.next_seat,
            }
        )
        return out

    def _calls_visible(self, state: TurnThiefState, viewer: int | None) -> dict:
        if state.config["reaction_mode"] == "open" or state.phase == "over":
            return {str(seat): call for seat, call in state.pending.calls}
        return {str(seat): call for seat, call in state.pending.calls if seat == viewer}

    def view(self, state: TurnThiefState, seat: int | None) -> dict:
        over = state.phase == "over"
        reaction = None
        if state.pending is not None:
            reaction = self._entry_json(state, state.pending, seat)
            reaction.update(
                {
                    "window": _window_id(state.pending),
                    "responded": sorted(s for s, _ in state.pending.calls),
                    "waiting": list(self._waiting(state)) if state.phase == "reaction" else [],
                    "calls": self._calls_visible(state, seat),
                }
            )
        dead_pile = None
        if over and state.config["reveal_dead_pile_at_end"]:
            dead_pile = list(state.dead)
        own_dead = None
        if seat is not None:
            own_dead = [e.card for e in state.history if e.discarder == seat and e.result == "none"]
        return {
            "phase": state.phase,
            "active": state.active if state.phase in ("discard", "reaction") else None,
            "factions": list(state.factions),
            "hand_sizes": [len(h) for h in state.hands],
            "hands": [
                cards.sort_by_value(state.hands[owner]) if over or owner == seat else None for owner in range(SEATS)
            ],
            "hand_sums": [hand_sum(h) for h in state.hands] if over else None,
            "dead_pile_size": len(state.dead),
            "dead_pile": dead_pile,
            "my_dead_cards": own_dead,
            "public_cards": cards.sort_by_value(state.public),
            "discards": len(state.history) + (1 if state.phase == "reaction" else 0),
            "max_discards": state.config["max_discards"],
            "reaction": reaction,
            "last": self._entry_json(state, state.history[-1], seat) if state.history else None,
            "history": [self._entry_json(state, e, seat) for e in state.history],
            "ended_by": state.ended_by,
            "resigned": state.resigned,
        }

    def event_view(self, state: TurnThiefState, event: dict, seat: int | None) -> dict:
        data = event["data"]
        kind = event["kind"]
        if kind == "chance" and data.get("type") == "deal" and isinstance(data.get("hands"), list):
            hidden = self.hidden_from(state, seat)
            shown = []
            for owner, hand in enumerate(data["hands"]):
                if owner == seat:
                    shown.append(hand)
                elif state.phase == "over":
                    shown.append([None if c in hidden else c for c in hand])
                else:
                    shown.append(None)
            return {**event, "data": {**data, "hands": shown}}
        if kind != "move" or event.get("seat") == seat:
            return event
        if data.get("type") == "discard":
            key = (event["seat"], data.get("card"), data.get("declared_suit"), data.get("declared_rank"))
            matches = state.discards_by_key.get(key, ())
            if not matches or not all(self._shows_card(state, e, seat) for e in matches):
                return {**event, "data": {**data, "card": None}}
            return event
        if (
            data.get("type") in CALLS
            and state.phase == "reaction"
            and state.config["reaction_mode"] == "sealed"
            and any(s == event["seat"] for s, _ in state.pending.calls)
        ):
            # The caller's answer to the open window is sealed. Events carry no window id, so every
            # call of that seat is masked until the window closes; the history in view() has them all.
            return {**event, "data": {"type": "call", "sealed": True}}
        return event

    # ---- serialisation ------------------------------------------------------------------
    def dump_state(self, state: TurnThiefState) -> dict:
        return {
            "config": state.config,
            "phase": state.phase,
            "factions": list(state.factions),
            "hands": [list(h) for h in state.hands],
            "active": state.active,
            "pending": None if state.pending is None else _discard_json(state.pending),
            "history": [_discard_json(e) for e in state.history],
            "dead": list(state.dead),
            "seen": [sorted(s) for s in state.seen],
            "public": sorted(state.public),
            "ended_by": state.ended_by,
            "resigned": state.resigned,
        }

    def load_state(self, data: dict) -> TurnThiefState:
        return TurnThiefState(
            config=data["config"],
            phase=data["phase"],
            factions=tuple(data["factions"]),
            hands=tuple(tuple(h) for h in data["hands"]),
            active=data["active"],
            pending=None if data["pending"] is None else _discard_from_json(data["pending"]),
            history=tuple(_discard_from_json(e) for e in data["history"]),
            dead=tuple(data["dead"]),
            seen=tuple(frozenset(s) for s in data["seen"]),
            public=frozenset(data["public"]),
            ended_by=data["ended_by"],
            resigned=data["resigned"],
        )


def _window_id(pending: Discard) -> str:
    return f"reaction-{pending.number}"


def _discard_json(entry: Discard) -> dict:
    return {
        "number": entry.number,
        "discarder": entry.discarder,
        "card": entry.card,
        "declared_suit": entry.declared_suit,
        "declared_rank": entry.declared_rank,
        "calls": [list(c) for c in entry.calls],
        "timed_out": list(entry.timed_out),
        "result": entry.result,
        "caller": entry.caller,
        "honest": entry.honest,
        "taker": entry.taker,
        "next_seat": entry.next_seat,
    }


def _discard_from_json(data: dict) -> Discard:
    return Discard(
        number=data["number"],
        discarder=data["discarder"],
        card=data["card"],
        declared_suit=data["declared_suit"],
        declared_rank=data["declared_rank"],
        calls=tuple((seat, call) for seat, call in data["calls"]),
        timed_out=tuple(data["timed_out"]),
        result=data["result"],
        caller=data["caller"],
        honest=data["honest"],
        taker=data["taker"],
        next_seat=data["next_seat"],
    )


ENGINE = TurnThief()
