"""The Satori (ザ・悟り): face-down piles of enlightenment, out-of-turn katsu (喝!) challenges.

Implements ``shared/rules/satori.md`` (seed 000). Each player holds 2 Zatsunen (J/Q/K, class Z) and
3 Satori (A-10, class S) cards and plays one face down onto their own pile per turn; the longest
run of S cards counted from the top of a pile wins. Right after a card is played a katsu window
opens: any other surviving player may call katsu to take the card. An S card goes onto the
caller's pile; a Z card eliminates the caller, who hands 1 S + 1 Z to the player they challenged.

Windows are named ``katsu-<n>`` where ``n`` counts the cards played so far, so every window of a
game has its own id. A window closes on the first accepted katsu (``first_received``), when every
eligible seat has answered, or on the system event ``close_window`` (the spec's name
``close_katsu_window`` is accepted too). Declining is final for that window: a seat that declined
is no longer eligible, so ``actors`` and the deadline's seats are the seats still able to answer.

Hidden information is tracked as two sets: ``public`` (ids everyone has seen, where everyone knows
where they are) and ``known[seat]`` (ids a seat has held). A public card that goes back into a
hand stops being public, because from then on nobody else can tell when it is played again.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from . import cards
from .base import (
    ID_LENGTH,
    Action,
    ConfigError,
    Deadline,
    Engine,
    Flag,
    IllegalMove,
    MalformedEvent,
    NotYourTurn,
    Outcome,
    Param,
    WindowClosed,
    require_param,
)

Z_RANKS = ("J", "Q", "K")
S_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")
HAND_Z, HAND_S = 2, 3
DECK_Z, DECK_S = 10, 15
RUN_TO_DECLARE = 3
DEFAULT_DECK = {
    "Z": ["JS", "JH", "JD", "JC", "QS", "QH", "QD", "QC", "KS", "KH"],
    "S": ["AS", "2S", "3S", "4S", "5S", "AH", "2H", "3H", "4H", "5H", "AD", "2D", "3D", "4D", "5D"],
}
# At most 25 cards start in hands and each failed katsu (at most 4, one per eliminated seat) puts at
# most 2 cards back into a hand, so there are at most 33 plays. A play costs at most 1 + 4 answers
# or a close + 1 hand_over, at most 4 passes come before each play, plus deal, declare, 4 resigns.
MAX_PLAYS = 25 + 2 * 4
MAX_EVENTS = 1 + MAX_PLAYS * 6 + MAX_PLAYS * 4 + 1 + 4


def card_class(card: str) -> str:
    """``Z`` for a face card (雑念), ``S`` for a number card (悟り); rank and suit mean nothing else."""
    return "Z" if cards.rank_of(card) in Z_RANKS else "S"


def run_length(pile: tuple[str, ...]) -> int:
    """Consecutive S cards from the top of a pile (top first), stopping at the first Z card."""
    run = 0
    for card in pile:
        if card_class(card) != "S":
            break
        run += 1
    return run


@lru_cache(maxsize=64)
def _order(z_cards: tuple[str, ...], s_cards: tuple[str, ...]) -> dict[str, int]:
    return {card: index for index, card in enumerate(z_cards + s_cards)}


def canonical_order(config: dict) -> dict[str, int]:
    """Position of every card of the configured set in the spec's canonical order (Z then S)."""
    return _order(tuple(config["deck"]["Z"]), tuple(config["deck"]["S"]))


@dataclass(frozen=True)
class KatsuResult:
    window: str
    active: int
    challenger: int
    claimants: tuple[int, ...]  # every accepted claim, in receipt order (batch mode: several)
    card: str
    success: bool
    given: tuple[str, ...] = ()  # failed katsu: the cards the challenger handed over (S first)


@dataclass(frozen=True)
class SatoriState:
    config: dict
    seats: int
    phase: str  # deal | action | katsu | hand_over | over
    active: int = 0
    first_player: int | None = None
    hands: tuple[tuple[str, ...], ...] = ()
    piles: tuple[tuple[str, ...], ...] = ()  # top card first
    removed: tuple[tuple[str, ...], ...] = ()  # eliminated seats' cards, out of the game
    set_aside: tuple[str, ...] = ()
    eliminated: tuple[int, ...] = ()  # in order of elimination
    resigned: tuple[int, ...] = ()
    public: frozenset[str] = frozenset()
    known: tuple[frozenset[str], ...] = ()
    plays: int = 0
    last_player: int | None = None
    declined: tuple[int, ...] = ()
    claims: tuple[int, ...] = ()
    challenger: int | None = None  # hand_over phase: the eliminated seat that must hand over
    katsu_log: tuple[KatsuResult, ...] = ()
    ended_by: str | None = None  # declare | empty_hands | last_survivor
    declarer: int | None = None
    reference: int | None = None

    @property
    def window(self) -> str:
        return f"katsu-{self.plays}"

    def survivors(self) -> list[int]:
        return [seat for seat in range(self.seats) if seat not in self.eliminated]

    def pending(self) -> tuple[int, ...]:
        """Seats that may still answer the open katsu window."""
        answered = set(self.declined) | set(self.claims)
        return tuple(s for s in self.survivors() if s != self.active and s not in answered)


def _with(items: tuple, index: int, value) -> tuple:
    return items[:index] + (value,) + items[index + 1 :]


class Satori(Engine):
    slug = "satori"
    name = "The Satori"
    rules_version = "1"
    min_seats = 2
    max_seats = 5
    max_events = MAX_EVENTS
    flags = (
        Flag(
            "katsu_priority",
            "first_received",
            "first_received: the first katsu the server receives wins and closes the window; "
            "clockwise_nearest: claims are collected until the window closes and the claimant "
            "nearest clockwise to the active player wins.",
            "str",
            ("first_received", "clockwise_nearest"),
        ),
        Flag(
            "katsu_window_seconds",
            5,
            "Seconds a katsu window stays open after a card is played.",
            "float",
            minimum=0.5,
            maximum=300,
        ),
        Flag(
            "failed_katsu_revealed_card",
            "return_to_pile",
            "Where the revealed Z card goes after a failed katsu: back on top of the player's pile, "
            "into their hand as the Z card they receive, or out of the game.",
            "str",
            ("return_to_pile", "given_as_zatsunen", "removed"),
        ),
        Flag(
            "failed_katsu_transfer_choice",
            "auto",
            "auto: the engine picks the S and Z card handed over (hand first in canonical order, "
            "else the topmost of the pile); eliminated_player: the eliminated seat picks them with "
            "a hand_over move.",
            "str",
            ("auto", "eliminated_player"),
        ),
        Flag("anonymous_cards", False, "Show only card classes (S/Z), never ids, of cards seen by others."),
        Flag("reveal_all_at_end", False, "Reveal every surviving player's hand and whole pile at the end."),
        Flag("reveal_eliminated_cards", False, "Reveal eliminated players' cards at the end."),
        Flag("auto_pass", False, "Pass automatically for a player whose only legal move is pass_turn."),
        Flag(
            "deck",
            DEFAULT_DECK,
            'The 25 cards: {"Z": 10 of the 12 J/Q/K, "S": 15 number cards A-10}, in canonical order.',
            "object",
        ),
    )

    def validate_config(self, config: dict | None) -> dict:
        full = super().validate_config(config)
        deck = full["deck"]
        if set(deck) != {"Z", "S"}:
            raise ConfigError('config flag "deck" must be {"Z": [10 face cards], "S": [15 number cards]}')
        for cls, ranks, count in (("Z", Z_RANKS, DECK_Z), ("S", S_RANKS, DECK_S)):
            chosen = deck[cls]
            if (
                not isinstance(chosen, list | tuple)
                or not all(isinstance(card, str) for card in chosen)
                or len(set(chosen)) != count
                or len(chosen) != count
            ):
                raise ConfigError(f'config flag "deck": "{cls}" must list {count} different cards')
            for card in chosen:
                if not cards.is_card(card) or card in cards.JOKERS or cards.rank_of(card) not in ranks:
                    raise ConfigError(f'config flag "deck": {card!r} is not a valid {cls} card ({"/".join(ranks)})')
        return {**full, "deck": {"Z": list(deck["Z"]), "S": list(deck["S"])}}

    # ---- setup and chance ---------------------------------------------------------------
    def setup(self, config: dict | None, seats: int = 4) -> SatoriState:
        config = self.validate_setup(config, seats)
        empty = tuple(() for _ in range(seats))
        return SatoriState(
            config=config,
            seats=seats,
            phase="deal",
            hands=empty,
            piles=empty,
            removed=empty,
            known=tuple(frozenset() for _ in range(seats)),
        )

    def chance_due(self, state: SatoriState) -> str | None:
        return "deal" if state.phase == "deal" else None

    def sample_chance(self, state: SatoriState, rng) -> dict:
        order = canonical_order(state.config)
        z_cards = rng.shuffle(state.config["deck"]["Z"])
        s_cards = rng.shuffle(state.config["deck"]["S"])
        hands = []
        for seat in range(state.seats):
            hand = z_cards[HAND_Z * seat : HAND_Z * (seat + 1)] + s_cards[HAND_S * seat : HAND_S * (seat + 1)]
            hands.append(sorted(hand, key=order.__getitem__))
        set_aside = z_cards[HAND_Z * state.seats :] + s_cards[HAND_S * state.seats :]
        first = rng.choice(state.survivors())
        return {"type": "deal", "first_player": first, "hands": hands, "set_aside": set_aside}

    def _apply_deal(self, state: SatoriState, data: dict) -> SatoriState:
        hands, set_aside, first = data.get("hands"), data.get("set_aside"), data.get("first_player")
        if not isinstance(hands, list) or len(hands) != state.seats or not isinstance(set_aside, list):
            raise MalformedEvent(f'a deal needs "hands" (one list per seat, {state.seats}) and a "set_aside" list')
        if not all(isinstance(hand, list) and all(isinstance(c, str) for c in hand) for hand in hands + [set_aside]):
            raise MalformedEvent("each hand and the set_aside pile must be lists of card ids")
        if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < state.seats:
            raise MalformedEvent(f'a deal needs "first_player": a seat from 0 to {state.seats - 1}')
        if first in state.eliminated:
            raise IllegalMove(f"seat {first} has resigned and cannot play first", code="bad_deal")
        deck = state.config["deck"]
        dealt = [card for hand in hands for card in hand] + list(set_aside)
        if len(dealt) != len(set(dealt)) or set(dealt) != set(deck["Z"]) | set(deck["S"]):
            raise IllegalMove(
                "the hands and set_aside together must hold each of the 25 cards of the set exactly once",
                code="bad_deal",
            )
        for seat, hand in enumerate(hands):
            z_count = sum(card_class(card) == "Z" for card in hand)
            if len(hand) != HAND_Z + HAND_S or z_count != HAND_Z:
                raise IllegalMove(
                    f"seat {seat} must be dealt 2 Z (J/Q/K) and 3 S (number) cards, not {hand}",
                    code="bad_deal",
                )
        state = replace(
            state,
            phase="action",
            active=first,
            first_player=first,
            hands=tuple(tuple(hand) for hand in hands),
            set_aside=tuple(set_aside),
            known=tuple(frozenset(hand) for hand in hands),
        )
        return self._sweep(state)

    # ---- whose move ---------------------------------------------------------------------
    def actors(self, state: SatoriState) -> frozenset[int]:
        if state.phase == "action":
            return frozenset((state.active,))
        if state.phase == "katsu":
            return frozenset(state.pending())
        if state.phase == "hand_over":
            return frozenset((state.challenger,))
        return frozenset()

    def legal_moves(self, state: SatoriState, seat: int) -> list[dict]:
        if seat not in self.actors(state):
            return []
        if state.phase == "katsu":
            return [{"type": "katsu"}, {"type": "decline_katsu"}]
        if state.phase == "hand_over":
            s_options, z_options = self._hand_over_options(state)
            return [
                {"type": "hand_over", "s_card": s, "z_card": z}
                for s in (s_options or [None])
                for z in (z_options or [None])
            ]
        order = canonical_order(state.config)
        hand = state.hands[seat]
        moves = [{"type": "play_card", "card": card} for card in sorted(hand, key=order.__getitem__)]
        if run_length(state.piles[seat]) >= RUN_TO_DECLARE:
            moves.append({"type": "declare_satori"})
        if not hand:
            moves.append({"type": "pass_turn"})
        return moves

    def deadline(self, state: SatoriState) -> Deadline | None:
        if state.phase != "katsu":
            return None
        return Deadline(state.window, state.config["katsu_window_seconds"], state.pending())

    # ---- events -------------------------------------------------------------------------
    actions = (
        Action("play_card", {"card": Param("string", "the id of a card in your hand", max_length=ID_LENGTH)}),
        Action("declare_satori"),
        Action("pass_turn"),
        Action("katsu"),
        Action("decline_katsu"),
        Action(
            "hand_over",
            {
                name: Param(
                    "string", f"the {cls} card handed over, or null", False, max_length=ID_LENGTH, nullable=True
                )
                for name, cls in (("s_card", "S"), ("z_card", "Z"))
            },
        ),
    )
    system_events = ("close_katsu_window",)

    def apply_chance(self, state: SatoriState, data: dict) -> SatoriState:
        if data["type"] != "deal":
            raise MalformedEvent(f"Satori has no chance step {data['type']!r}; the only one is deal")
        return self._apply_deal(state, data)

    def apply_move(self, state: SatoriState, seat: int, data: dict) -> SatoriState:
        return getattr(self, f"_{data['type']}")(state, seat, data)

    def apply_resign(self, state: SatoriState, seat: int, data: dict) -> SatoriState:
        return self._resign(state, seat)

    def apply_close_window(self, state: SatoriState, data: dict) -> SatoriState:
        return self._close_window(state)

    def apply_system(self, state: SatoriState, data: dict) -> SatoriState:
        """``close_katsu_window``: the older close, naming the window or not."""
        window = data.get("window")
        if state.phase != "katsu" or (window is not None and window != state.window):
            raise WindowClosed(f"window {window!r} is not open")
        return self._close_window(state)

    def _check_turn(self, state: SatoriState, seat: int, action: str) -> None:
        if state.phase == "katsu":
            if seat == state.active:
                raise IllegalMove(
                    f"wait: the katsu window on your card is open ({action} comes on your next turn)",
                    code="katsu_window_open",
                )
            raise NotYourTurn(f"a katsu window is open: you may only katsu or decline_katsu, not {action}")
        if state.phase == "hand_over":
            raise NotYourTurn(f"seat {state.challenger} must first hand over cards to seat {state.active}")
        if seat != state.active:
            if seat in state.eliminated:
                raise IllegalMove("you are eliminated and take no more turns", code="eliminated")
            raise NotYourTurn(f"it is seat {state.active}'s turn, not yours")

    def _play_card(self, state: SatoriState, seat: int, data: dict) -> SatoriState:
        self._check_turn(state, seat, "play_card")
        card = require_param(data, "card", str, "the id of a card in your hand")
        hand = state.hands[seat]
        if card not in hand:
            if not hand:
                raise IllegalMove(
                    "your hand is empty: you may only pass_turn (or declare_satori with a run of 3)",
                    code="card_not_in_hand",
                )
            options = " ".join(sorted(hand, key=canonical_order(state.config).__getitem__))
            raise IllegalMove(f"{card} is not in your hand; you can play one of: {options}", code="card_not_in_hand")
        return replace(
            state,
            phase="katsu",
            hands=_with(state.hands, seat, tuple(c for c in hand if c != card)),
            piles=_with(state.piles, seat, (card,) + state.piles[seat]),
            plays=state.plays + 1,
            last_player=seat,
            declined=(),
            claims=(),
        )

    def _declare_satori(self, state: SatoriState, seat: int, data: dict) -> SatoriState:
        self._check_turn(state, seat, "declare_satori")
        run = run_length(state.piles[seat])
        if run < RUN_TO_DECLARE:
            raise IllegalMove(
                f"you cannot declare: your run is {run} (run < 3); you need 3 S cards in a row on top of your pile",
                code="run_too_short",
            )
        return self._finish(state, "declare", reference=seat, declarer=seat)

    def _pass_turn(self, state: SatoriState, seat: int, data: dict) -> SatoriState:
        self._check_turn(state, seat, "pass_turn")
        if state.hands[seat]:
            raise IllegalMove(
                f"you may pass only with an empty hand; you hold {len(state.hands[seat])} card(s), play one",
                code="hand_not_empty",
            )
        return self._end_turn(state, seat)

    def _check_answer(self, state: SatoriState, seat: int, action: str) -> None:
        if state.phase != "katsu":
            raise WindowClosed(f"no katsu window is open: {action} is only possible right after a card is played")
        if seat == state.active:
            raise IllegalMove("you cannot katsu or decline your own card", code="active_player_cannot_katsu")
        if seat in state.eliminated:
            raise IllegalMove("you are eliminated and may not call katsu", code="eliminated")
        if seat in state.declined or seat in state.claims:
            raise IllegalMove("you have already answered this katsu window", code="already_answered")

    def _katsu(self, state: SatoriState, seat: int, data: dict) -> SatoriState:
        self._check_answer(state, seat, "katsu")
        if state.config["katsu_priority"] == "first_received":
            return self._resolve_katsu(state, seat, (seat,))
        state = replace(state, claims=state.claims + (seat,))
        return state if state.pending() else self._close_window(state)

    def _decline_katsu(self, state: SatoriState, seat: int, data: dict) -> SatoriState:
        self._check_answer(state, seat, "decline_katsu")
        state = replace(state, declined=state.declined + (seat,))
        return state if state.pending() else self._close_window(state)

    def _hand_over(self, state: SatoriState, seat: int, data: dict) -> SatoriState:
        if state.phase != "hand_over":
            raise IllegalMove(
                "no hand-over is pending: hand_over follows only a failed katsu", code="no_hand_over_pending"
            )
        if seat != state.challenger:
            raise NotYourTurn(f"seat {state.challenger} must hand over cards to seat {state.active}")
        s_options, z_options = self._hand_over_options(state)
        chosen = []
        for name, options, cls in (("s_card", s_options, "S"), ("z_card", z_options, "Z")):
            card = data.get(name)
            if card is not None and not isinstance(card, str):
                raise MalformedEvent(f'hand_over needs "{name}": a card id or null')
            if options and card not in options:
                raise IllegalMove(
                    f"{name} must be one of your {cls} cards (hand or pile): {' '.join(options)}",
                    code="bad_hand_over",
                )
            if not options and card is not None:
                raise IllegalMove(f"you owe no {cls} card here, so {name} must be null", code="bad_hand_over")
            chosen.append(card)
        return self._transfer(state, tuple(card for card in chosen if card is not None))

    # ---- resolution ---------------------------------------------------------------------
    def _close_window(self, state: SatoriState) -> SatoriState:
        if state.claims:
            nearest = min(state.claims, key=lambda seat: (seat - state.active) % state.seats)
            return self._resolve_katsu(state, nearest, state.claims)
        return self._end_turn(state, state.active)

    def _resolve_katsu(self, state: SatoriState, challenger: int, claimants: tuple[int, ...]) -> SatoriState:
        active = state.active
        card, *rest = state.piles[active]
        piles = _with(state.piles, active, tuple(rest))
        public = state.public | {card}
        success = card_class(card) == "S"
        result = KatsuResult(state.window, active, challenger, claimants, card, success)
        state = replace(
            state,
            piles=piles,
            public=public,
            known=_with(state.known, challenger, state.known[challenger] | {card}),  # the caller held it
            katsu_log=state.katsu_log + (result,),
            claims=(),
        )
        if success:
            state = replace(state, piles=_with(state.piles, challenger, (card,) + state.piles[challenger]))
            return self._end_turn(state, active)
        where = state.config["failed_katsu_revealed_card"]
        if where == "return_to_pile":
            state = replace(state, piles=_with(state.piles, active, (card,) + state.piles[active]))
        elif where == "given_as_zatsunen":
            state = replace(
                state, hands=_with(state.hands, active, state.hands[active] + (card,)), public=state.public - {card}
            )
        else:
            state = replace(state, removed=_with(state.removed, challenger, state.removed[challenger] + (card,)))
        state = replace(state, eliminated=state.eliminated + (challenger,), challenger=challenger, phase="hand_over")
        s_options, z_options = self._hand_over_options(state)
        if state.config["failed_katsu_transfer_choice"] == "auto" or not (s_options or z_options):
            return self._transfer(state, self._auto_hand_over(state))
        if len(state.survivors()) == 1:  # the game is over (case c): nothing left to hand over for
            return self._end_turn(state, active)
        return state

    def _hand_over_options(self, state: SatoriState) -> tuple[list[str], list[str]]:
        """The S and Z cards the eliminated challenger may hand over: hand (canonical order), then pile."""
        order = canonical_order(state.config)
        seat = state.challenger
        pool = sorted(state.hands[seat], key=order.__getitem__) + list(state.piles[seat])
        s_options = [card for card in pool if card_class(card) == "S"]
        z_options = [card for card in pool if card_class(card) == "Z"]
        if state.config["failed_katsu_revealed_card"] == "given_as_zatsunen":
            z_options = []  # the revealed Z card already is the Z card the active player receives
        return s_options, z_options

    def _auto_hand_over(self, state: SatoriState) -> tuple[str, ...]:
        s_options, z_options = self._hand_over_options(state)
        return tuple(options[0] for options in (s_options, z_options) if options)

    def _transfer(self, state: SatoriState, given: tuple[str, ...]) -> SatoriState:
        giver, receiver = state.challenger, state.active
        hands = _with(state.hands, giver, tuple(c for c in state.hands[giver] if c not in given))
        hands = _with(hands, receiver, hands[receiver] + given)
        piles = _with(state.piles, giver, tuple(c for c in state.piles[giver] if c not in given))
        log = state.katsu_log[:-1] + (replace(state.katsu_log[-1], given=given),)
        state = replace(
            state,
            hands=hands,
            piles=piles,
            known=_with(state.known, receiver, state.known[receiver] | set(given)),
            public=state.public - set(given),
            katsu_log=log,
        )
        return self._end_turn(state, receiver)

    def _sweep(self, state: SatoriState) -> SatoriState:
        """Move every eliminated seat's hand and pile out of the game (face down), except the cards
        of a challenger who still owes a hand-over."""
        hands, piles, removed = list(state.hands), list(state.piles), list(state.removed)
        for seat in state.eliminated:
            if seat != state.challenger and (hands[seat] or piles[seat]):
                removed[seat] = removed[seat] + hands[seat] + piles[seat]
                hands[seat], piles[seat] = (), ()
        return replace(state, hands=tuple(hands), piles=tuple(piles), removed=tuple(removed))

    def _end_turn(self, state: SatoriState, previous: int) -> SatoriState:
        """Turn advance (section 4): last survivor, all hands empty, else the next surviving seat."""
        state = self._sweep(replace(state, declined=(), claims=(), challenger=None))
        survivors = state.survivors()
        if len(survivors) == 1:
            return self._finish(state, "last_survivor", reference=None)
        if not any(state.hands[seat] for seat in survivors):
            reference = state.last_player if state.last_player is not None else previous
            return self._finish(state, "empty_hands", reference=reference)
        seat = previous
        while True:
            seat = (seat + 1) % state.seats
            if seat in state.eliminated:
                continue
            only_pass = not state.hands[seat] and run_length(state.piles[seat]) < RUN_TO_DECLARE
            if not (state.config["auto_pass"] and only_pass):
                return replace(state, phase="action", active=seat)

    def _finish(self, state: SatoriState, reason: str, *, reference: int | None, declarer: int | None = None):
        state = self._sweep(replace(state, declined=(), claims=(), challenger=None))
        public = set(state.public)
        survivors = state.survivors()
        if reason != "last_survivor":
            for seat in survivors:
                public.update(state.piles[seat][: run_length(state.piles[seat])])
        if state.config["reveal_all_at_end"]:
            for seat in survivors:
                public.update(state.hands[seat] + state.piles[seat])
        if state.config["reveal_eliminated_cards"]:
            for seat in state.eliminated:
                public.update(state.removed[seat])
        return replace(
            state,
            phase="over",
            ended_by=reason,
            reference=reference,
            declarer=declarer,
            public=frozenset(public),
        )

    def _resign(self, state: SatoriState, seat: int) -> SatoriState:
        if state.phase == "hand_over" and seat == state.challenger:
            return replace(self._transfer(state, self._auto_hand_over(state)), resigned=state.resigned + (seat,))
        if seat in state.eliminated:
            raise IllegalMove(f"seat {seat} is already eliminated", code="already_eliminated")
        state = replace(state, eliminated=state.eliminated + (seat,), resigned=state.resigned + (seat,))
        if len(state.survivors()) == 1:
            return self._finish(state, "last_survivor", reference=None)
        if state.phase == "deal":
            return state
        if state.phase == "hand_over":
            # The receiver left: the hand-over is void; otherwise it is still owed.
            return self._end_turn(state, seat) if seat == state.active else self._sweep(state)
        if seat == state.active:
            return self._end_turn(state, seat)  # a katsu window on a resigned player's card closes unused
        state = self._sweep(replace(state, claims=tuple(c for c in state.claims if c != seat)))
        if state.phase == "katsu" and not state.pending():
            return self._close_window(state)
        return state

    # ---- outcome ------------------------------------------------------------------------
    def runs(self, state: SatoriState) -> list[int | None]:
        return [None if seat in state.eliminated else run_length(state.piles[seat]) for seat in range(state.seats)]

    def outcome(self, state: SatoriState) -> Outcome | None:
        if state.phase != "over":
            return None
        survivors = state.survivors()
        detail = {
            "reason": state.ended_by,
            "eliminated": list(state.eliminated),
            "resigned": list(state.resigned),
        }
        if state.ended_by == "last_survivor":
            winner = survivors[0]
        else:
            runs = self.runs(state)
            best = max(runs[seat] for seat in survivors)
            tied = [seat for seat in survivors if runs[seat] == best]
            winner = max(tied, key=lambda seat: (seat - state.reference) % state.seats)
            detail.update(runs=runs, reference=state.reference, declarer=state.declarer, tied=tied)
        detail["winner"] = winner
        others = tuple(seat for seat in range(state.seats) if seat != winner)
        scores = {seat: 1 if seat == winner else 0 for seat in range(state.seats)}
        return Outcome(((winner,), others), scores, detail)

    # ---- hidden information -------------------------------------------------------------
    def _visible(self, state: SatoriState, seat: int | None) -> frozenset[str]:
        """Card ids ``seat`` may see: the ones it has held, plus public ones unless cards are anonymous."""
        own = state.known[seat] if seat is not None else frozenset()
        return own if state.config["anonymous_cards"] else own | state.public

    def _public_face(self, state: SatoriState, card: str) -> str | None:
        """How a card in someone else's zone looks: its id or class once revealed, else face down."""
        if card not in state.public:
            return None
        return card_class(card) if state.config["anonymous_cards"] else card

    def hidden_from(self, state: SatoriState, seat: int | None) -> frozenset[str]:
        deck = state.config["deck"]
        return frozenset(deck["Z"] + deck["S"]) - self._visible(state, seat)

    def view(self, state: SatoriState, seat: int | None) -> dict:
        order = canonical_order(state.config)
        visible = self._visible(state, seat)
        over = state.phase == "over"
        runs_public = over and state.ended_by != "last_survivor"
        players = []
        for owner in range(state.seats):
            mine = owner == seat
            hand = sorted(state.hands[owner], key=order.__getitem__)
            show_hand = mine or (over and state.config["reveal_all_at_end"])
            players.append(
                {
                    "seat": owner,
                    "eliminated": owner in state.eliminated,
                    "resigned": owner in state.resigned,
                    "hand_size": len(hand),
                    "hand": (hand if mine else [self._public_face(state, c) for c in hand]) if show_hand else None,
                    "pile_size": len(state.piles[owner]),
                    "pile": [c if mine else self._public_face(state, c) for c in state.piles[owner]],
                    "run": (
                        run_length(state.piles[owner])
                        if (mine or runs_public) and owner not in state.eliminated
                        else None
                    ),
                    "removed": [c if mine else self._public_face(state, c) for c in state.removed[owner]],
                }
            )
        window = None
        if state.phase == "katsu":
            window = {
                "id": state.window,
                "seconds": state.config["katsu_window_seconds"],
                "waiting_for": list(state.pending()),
                "declined": list(state.declined),
                "claims": list(state.claims),
            }
        log = []
        for result in state.katsu_log:
            party = seat in (result.active, result.challenger)
            log.append(
                {
                    "window": result.window,
                    "active": result.active,
                    "challenger": result.challenger,
                    "claimants": list(result.claimants),
                    "card": result.card if result.card in visible else card_class(result.card),
                    "class": card_class(result.card),
                    "success": result.success,
                    "given": [c if party and c in visible else card_class(c) for c in result.given],
                }
            )
        return {
            "phase": state.phase,
            "active": state.active if state.phase in ("action", "katsu", "hand_over") else None,
            "first_player": state.first_player,
            "plays": state.plays,
            "last_player": state.last_player,
            "window": window,
            "hand_over": ({"from": state.challenger, "to": state.active} if state.phase == "hand_over" else None),
            "set_aside_size": len(state.set_aside),
            "players": players,
            "katsu_log": log,
            "result": (
                {
                    "reason": state.ended_by,
                    "declarer": state.declarer,
                    "reference": state.reference,
                    "runs": self.runs(state) if runs_public else None,
                }
                if over
                else None
            ),
        }

    def event_view(self, state: SatoriState, event: dict, seat: int | None) -> dict:
        data = event["data"]
        kind = event["kind"]
        visible = self._visible(state, seat)
        if kind == "chance" and data.get("type") == "deal":
            shown = dict(data)
            shown["hands"] = [
                hand if owner == seat or set(hand) <= visible else None for owner, hand in enumerate(data["hands"])
            ]
            shown["set_aside"] = data["set_aside"] if set(data["set_aside"]) <= visible else None
            return {**event, "data": shown}
        if kind == "move" and event["seat"] != seat:
            if data.get("type") == "play_card":
                card = data.get("card")
                if card not in state.public or state.config["anonymous_cards"]:
                    return {**event, "data": {**data, "card": None}}
            elif data.get("type") == "hand_over":
                # A seat fails a katsu at most once, so the hand-over's receiver is the seat that
                # seat challenged without success.
                receivers = {r.active for r in state.katsu_log if r.challenger == event["seat"] and not r.success}
                if seat not in receivers:
                    return {**event, "data": {**data, "s_card": None, "z_card": None}}
        return event

    # ---- serialisation ------------------------------------------------------------------
    def dump_state(self, state: SatoriState) -> dict:
        return {
            "config": state.config,
            "seats": state.seats,
            "phase": state.phase,
            "active": state.active,
            "first_player": state.first_player,
            "hands": [list(h) for h in state.hands],
            "piles": [list(p) for p in state.piles],
            "removed": [list(r) for r in state.removed],
            "set_aside": list(state.set_aside),
            "eliminated": list(state.eliminated),
            "resigned": list(state.resigned),
            "public": sorted(state.public),
            "known": [sorted(k) for k in state.known],
            "plays": state.plays,
            "last_player": state.last_player,
            "declined": list(state.declined),
            "claims": list(state.claims),
            "challenger": state.challenger,
            "katsu_log": [
                {
                    "window": r.window,
                    "active": r.active,
                    "challenger": r.challenger,
                    "claimants": list(r.claimants),
                    "card": r.card,
                    "success": r.success,
                    "given": list(r.given),
                }
                for r in state.katsu_log
            ],
            "ended_by": state.ended_by,
            "declarer": state.declarer,
            "reference": state.reference,
        }

    def load_state(self, data: dict) -> SatoriState:
        def nested(key):
            return tuple(tuple(x) for x in data[key])

        return SatoriState(
            config=data["config"],
            seats=data["seats"],
            phase=data["phase"],
            active=data["active"],
            first_player=data["first_player"],
            hands=nested("hands"),
            piles=nested("piles"),
            removed=nested("removed"),
            set_aside=tuple(data["set_aside"]),
            eliminated=tuple(data["eliminated"]),
            resigned=tuple(data["resigned"]),
            public=frozenset(data["public"]),
            known=tuple(frozenset(k) for k in data["known"]),
            plays=data["plays"],
            last_player=data["last_player"],
            declined=tuple(data["declined"]),
            claims=tuple(data["claims"]),
            challenger=data["challenger"],
            katsu_log=tuple(
                KatsuResult(
                    r["window"],
                    r["active"],
                    r["challenger"],
                    tuple(r["claimants"]),
                    r["card"],
                    r["success"],
                    tuple(r["given"]),
                )
                for r in data["katsu_log"]
            ),
            ended_by=data["ended_by"],
            declarer=data["declarer"],
            reference=data["reference"],
        )


ENGINE = Satori()
