"""Twenty-Two (22) and its Gambling Cucumber variant: a "last trick loses" game with elimination.

Implements ``shared/rules/twenty-two.md`` (seed 001, 「22(Twenty-Two)【ルール】」 and
【ギャンブルきゅうり】). A game is a series of deals. Each deal: a dealer (drawn by card or picked),
the deal (7 cards at first, later the value of the losing card, cut down equally when the pack is
short), one exchange each from the dealer's left (the dealer last), then tricks of single cards or
sets. A follow must *beat* the bar position by position (sorted high to low, equal counts) or be a
*low play* (the N lowest ranks in hand). When every active hand holds one card the server plays
the final trick at once: the highest rank loses the deal (ties all lose) and keeps that card as a
penalty, which never returns to the pack. Reaching the threshold eliminates; the last player left
wins.

The gambling variant is the same engine with ``stakes_enabled`` (``variant`` picks the presets of
the spec's table): antes at setup, an optional buy-back window after an elimination (once per
player, only while at least ``buyback_min_survivors`` others remain), and the pot to the lowest
total once at most ``end_when_active_at_most`` players remain. Every chip movement is an entry of
the append-only ``ledger`` (ante, buy_back, pot_award, pot_carry), so balances + pot is constant.

Card ids: ``10H``, ``AS``. With two packs (7-8 players by default, ``num_packs``) every id carries
its pack, ``AS#1`` and ``AS#2`` (the spec's naming), so ids stay unique; the first pack is ``#1``
too, so one id never means two cards. Suits and packs never matter to the rules.

Decisions beyond the spec: ``num_packs = 0`` and ``max_lead_set = 0`` mean "automatic" (1 pack up
to 6 players, 4 cards per pack); ``fixed_7`` deals ``first_deal_size`` (7) every time; a dealer
draw's redraw rounds draw again from the whole pack (cards differ within a round), and should
``PLAIN_ROUNDS`` (8) rounds leave a tie the server samples only rounds that do not all show one
rank (each shrinks the tie, so every draw ends within 8 + seats - 1 rounds). A tie no draw can
break - the pack left holds a single rank, e.g. late in a long game (``elimination_threshold =
100``) with only the 2s outside the penalty piles - is not in the spec (§5 "ties redraw"): the due
chance step is then ``dealer_pick`` (as under ``dealer_selection = random``), the dealer picked at
random among the tied players, since the seed lets the dealer be chosen by any method
(「ディーラーの决定方法は、じゃんけんでもなんでも」, and for tied losers
「じゃんけんなど好きな方法でもよいでしょう」); the deal then goes on and the shrinking pack ends the game. Under
``all_at_least_highest`` "the highest card on the table" counts every card of the trick, low plays
included; the tricks of a deal stay on view until the next deal. A resignation is in ``_resign``
and the redaction of card ids reused by later deals in ``event_view``. ``Outcome.scores`` are the
penalty totals (lower is better), or in the gambling variant each player's net chips.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations, repeat
from math import comb
from operator import ge

from .base import (
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
    SubsetMoves,
    UnexpectedChance,
    WindowClosed,
    evolve,
    require_param,
)

RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("S", "H", "D", "C")
STRENGTH = {name: index + 2 for index, name in enumerate(RANK_NAMES)}  # 2 .. A=14
FACE = {14: "A", 13: "K", 12: "Q", 11: "J"}


def _pack(packs: int) -> tuple[str, ...]:
    """Every card of the game in a stable order (pack, suit, rank); ``#p`` suffixes with two packs."""
    suffixes = [""] if packs == 1 else [f"#{p}" for p in range(1, packs + 1)]
    return tuple(f"{r}{s}{x}" for x in suffixes for s in SUITS for r in RANK_NAMES)


PACKS = {packs: _pack(packs) for packs in (1, 2)}
RANK: dict[str, int] = {c: STRENGTH[c.split("#")[0][:-1]] for pack in PACKS.values() for c in pack}
ORDER: dict[str, int] = {
    c: i for pack in PACKS.values() for i, c in enumerate(sorted(pack, key=lambda c: (RANK[c], c)))
}


def rank_of(card: str) -> int:
    """Strength 2..14 (A high); suits and packs never matter."""
    return RANK[card]


def penalty_value(rank: int, scheme: str) -> int:
    """22: A 11, K/Q/J 10, pips at face. Cucumber: A 14, K 13, Q 12, J 11, pips at face."""
    if scheme == "cucumber":
        return rank
    return 11 if rank == 14 else min(rank, 10)


# Each card's penalty value under each scheme (views total every pile for every seat).
PENALTY = {scheme: {c: penalty_value(RANK[c], scheme) for c in RANK} for scheme in ("twenty_two", "cucumber")}


def _sorted(cards) -> tuple[str, ...]:
    return tuple(sorted(cards, key=ORDER.__getitem__))


def _rank_name(rank: int) -> str:
    return FACE.get(rank, str(rank))


# ---- state ------------------------------------------------------------------------------------
_CARDS = Param("list", "card ids from your hand", max_length=54)


@dataclass(frozen=True)
class Play:
    seat: int
    cards: tuple[str, ...]
    beat: bool  # a beat sets the bar; a low play never does


@dataclass(frozen=True)
class Trick:
    plays: tuple[Play, ...]
    winner: int


@dataclass(frozen=True)
class DealResult:
    deal: int
    final_cards: tuple[tuple[int, str], ...]  # (seat, card) revealed at once
    losers: tuple[int, ...]
    reached: tuple[int, ...]  # losers whose total reached the threshold (E)
    bought_back: tuple[int, ...] = ()
    eliminated: tuple[int, ...] = ()
    revealed_discards: tuple[tuple[str, ...], ...] | None = None


@dataclass(frozen=True)
class LedgerEntry:
    kind: str  # ante | buy_back | pot_award | pot_carry
    seat: int | None
    amount: int
    deal: int


@dataclass(frozen=True)
class TwentyTwoState:
    config: dict
    seats: int
    packs: int
    phase: str  # dealer | deal | exchange | play | buy_back | over
    status: tuple[str, ...]  # per seat: active | out | resigned
    hands: tuple[tuple[str, ...], ...]
    discards: tuple[tuple[str, ...], ...]  # exchange discards (and a resigned hand): owner only
    penalties: tuple[tuple[str, ...], ...]  # penalty piles, public, out of the pack for good
    eliminated_in: tuple[int | None, ...]
    buy_backs: tuple[int, ...]
    balances: tuple[int, ...]
    exchanged: tuple[int | None, ...]  # public count exchanged this deal
    deal_no: int = 0
    deal_size: int = 0  # cards each in the current (or last) deal
    dealer: int | None = None
    draw_pool: tuple[int, ...] = ()
    next_size: int = 7  # hand size before the short-pack cut
    last_draw: tuple[tuple[tuple[int, str], ...], ...] = ()
    stock: tuple[str, ...] = ()  # top first
    exchange_queue: tuple[int, ...] = ()
    leader: int | None = None
    trick: tuple[Play, ...] = ()
    bar: tuple[str, ...] = ()
    bar_setter: int | None = None
    tricks: tuple[Trick, ...] = ()  # completed tricks of the current (or just finished) deal
    kept_out: tuple[str, ...] = ()  # bought-back cards under buyback_card_disposition = keep_out
    results: tuple[DealResult, ...] = ()
    undecided: tuple[int, ...] = ()  # buy-back window: eligible seats still to answer
    eligible: tuple[int, ...] = ()
    bought: tuple[int, ...] = ()
    pot: int = 0
    ledger: tuple[LedgerEntry, ...] = ()
    resigned_order: tuple[int, ...] = ()
    ended_by: str | None = None
    winners: tuple[int, ...] = ()


PRESETS = {
    "twenty_two": {},
    "gambling_cucumber": {
        "stakes_enabled": True,
        "card_values": "cucumber",
        "elimination_threshold": 30,
        "deal_size_rule": "fixed_7",
    },
    "gambling_22": {"stakes_enabled": True},
}
PLAIN_ROUNDS = 8  # dealer-draw rounds sampled from the whole pack before only narrowing ones
MAX_SEATS = 8


class TwentyTwo(Engine):
    _hidden_cache: tuple | None = None  # (state, seat, ids): the state is held so its id() stays unique
    _actors_cache: tuple | None = None
    _active_cache: tuple | None = None  # (status, active seats): the status tuple held, as above
    _waiting_cache: tuple | None = None
    # (penalties, kept_out, packs, cards, the cards as a set): the tuples held, as above
    _available_cache: tuple | None = None
    slug = "twenty-two"
    name = "Twenty-Two"
    rules_version = "1"
    min_seats = 2
    max_seats = MAX_SEATS
    # Every deal but a fully bought-back one adds >= 2 penalty points; a player collects at most
    # threshold - 1 + 14 before going out; each buy-back undoes <= 14 points (7 deals). A deal has
    # <= 2 chance events, 8 exchanges, 13 tricks of 8 plays and 8 buy-back answers.
    max_events = (MAX_SEATS * (100 - 1 + 14) // 2 + MAX_SEATS * 3 * 8 + 1) * (2 + 8 + 13 * 8 + 8) + MAX_SEATS

    flags = (
        Flag(
            "variant",
            "twenty_two",
            "Preset: twenty_two (pagat's 22), gambling_cucumber (stakes, Cucumber card values, out at 30, "
            "7-card deals) or gambling_22 (stakes on 22). Flags given explicitly override the preset.",
            "str",
            tuple(PRESETS),
        ),
        Flag("num_packs", 0, "Packs: 1 or 2; 0 = automatic (1 pack for 2-6 players, 2 for 7-8).", "int", (0, 1, 2)),
        Flag("dealer_selection", "card_draw", "How dealers are chosen when needed.", "str", ("card_draw", "random")),
        Flag("first_deal_size", 7, "Cards each in the first deal.", "int", minimum=1, maximum=13),
        Flag(
            "deal_size_rule",
            "loser_card_value",
            "Hand size of later deals: the losing card's penalty value, or fixed_7 (always first_deal_size).",
            "str",
            ("loser_card_value", "fixed_7"),
        ),
        Flag("exchange_enabled", True, "Each player may exchange cards with the stock once per deal."),
        Flag("max_lead_set", 0, "Largest set that may be led; 0 = 4 per pack.", "int", minimum=0, maximum=8),
        Flag(
            "set_follow_rule",
            "pairwise",
            "A set follow beats the bar position by position, or every card >= the highest card on the table.",
            "str",
            ("pairwise", "all_at_least_highest"),
        ),
        Flag(
            "trick_winner_rule",
            "last_bar_setter",
            "Trick winner: the last player to beat the bar, or the last to play the highest single card.",
            "str",
            ("last_bar_setter", "highest_single_card"),
        ),
        Flag("card_values", "twenty_two", "Penalty values.", "str", ("twenty_two", "cucumber")),
        Flag("elimination_threshold", 22, "A total at or above this eliminates.", "int", minimum=2, maximum=100),
        Flag(
            "no_survivor_rule",
            "co_winners",
            "Nobody left: everyone out in the last deal wins, or the lowest total among them.",
            "str",
            ("co_winners", "lowest_total"),
        ),
        Flag("reveal_exchange_discards_at_deal_end", False, "Show the exchange discards when a deal ends."),
        Flag("stakes_enabled", False, "Gambling: antes, buy-backs and a pot (section 8.1)."),
        Flag("stake", 1, "Chips of the ante and of a buy-back.", "int", minimum=1, maximum=1_000_000),
        Flag("starting_chips", 0, "Each player's balance before the ante.", "int", minimum=0, maximum=1_000_000_000),
        Flag("allow_negative_balance", True, "Balances may go below zero (else a buy-back must be affordable)."),
        Flag("buyback_enabled", True, "A player who reaches the threshold may pay a stake to stay in."),
        Flag("buyback_limit_per_player", 1, "Buy-backs each player may make per game.", "int", minimum=0, maximum=3),
        Flag(
            "buyback_min_survivors",
            4,
            "Buy-back only while at least this many others stay active after the deal.",
            "int",
            minimum=0,
            maximum=8,
        ),
        Flag(
            "end_when_active_at_most",
            2,
            "Gambling: the game ends once at most this many players are active.",
            "int",
            minimum=1,
            maximum=7,
        ),
        Flag("pot_award", "lowest_total", "Who takes the pot.", "str", ("lowest_total",)),
        Flag("pot_split", "equal", "How tied pot winners share.", "str", ("equal",)),
        Flag(
            "split_remainder",
            "carry_to_next_game",
            "Indivisible chips stay in the pot.",
            "str",
            ("carry_to_next_game",),
        ),
        Flag(
            "buyback_card_disposition",
            "return_to_pack",
            "The card that caused a bought-back elimination goes back to the pack or stays out of play.",
            "str",
            ("return_to_pack", "keep_out"),
        ),
        Flag(
            "buy_back_seconds",
            60,
            "Seconds the buy-back window stays open; undecided players then decline. 0 = no limit.",
            "float",
            minimum=0,
            maximum=86400,
        ),
    )

    # ---- config and setup ---------------------------------------------------------------------
    def validate_config(self, config: dict | None) -> dict:
        full = super().validate_config(config)
        given = config or {}
        for name, value in PRESETS[full["variant"]].items():
            if name not in given:
                full[name] = value
        if full["stakes_enabled"] and not full["allow_negative_balance"] and full["starting_chips"] < full["stake"]:
            raise ConfigError("starting_chips must cover the ante (stake) when balances may not go negative")
        return full

    def check_config_seats(self, config: dict, seats: int) -> None:
        if config["stakes_enabled"] and not 3 <= seats <= 7:
            raise ConfigError(f"the gambling variant is played by 3-7 players, not {seats}", code="bad_seat_count")
        if config["stakes_enabled"] and config["end_when_active_at_most"] >= seats:
            raise ConfigError(f"end_when_active_at_most must be below the number of players ({seats})")

    def setup(self, config: dict | None, seats: int) -> TwentyTwoState:
        config = self.validate_setup(config, seats)
        packs = config["num_packs"] or (2 if seats >= 7 else 1)
        none = tuple(None for _ in range(seats))
        empty = tuple(() for _ in range(seats))
        state = TwentyTwoState(
            config=config,
            seats=seats,
            packs=packs,
            phase="dealer",
            status=("active",) * seats,
            hands=empty,
            discards=empty,
            penalties=empty,
            eliminated_in=none,
            buy_backs=(0,) * seats,
            balances=(config["starting_chips"],) * seats,
            exchanged=none,
            draw_pool=tuple(range(seats)),
            next_size=config["first_deal_size"],
        )
        if config["stakes_enabled"]:
            stake = config["stake"]
            state = evolve(
                state,
                balances=tuple(b - stake for b in state.balances),
                pot=stake * seats,
                ledger=tuple(LedgerEntry("ante", s, stake, 0) for s in range(seats)),
            )
        return state

    # ---- small queries ------------------------------------------------------------------------
    def _active(self, state: TwentyTwoState) -> tuple[int, ...]:
        status = state.status
        cached = self._active_cache
        if cached is not None and cached[0] is status:
            return cached[1]  # the status changes only when a player goes out or resigns
        active = tuple(s for s in range(state.seats) if status[s] == "active")
        self._active_cache = (status, active)
        return active

    def _next_active(self, state: TwentyTwoState, seat: int) -> int:
        for step in range(1, state.seats + 1):
            candidate = (seat + step) % state.seats
            if state.status[candidate] == "active":
                return candidate
        raise AssertionError("no active seat")

    def _available(self, state: TwentyTwoState) -> tuple[str, ...]:
        """The pack for the next deal or draw: every card except penalty piles and kept-out cards."""
        cached = self._available_cache
        if cached is not None and cached[0] is state.penalties and cached[1] is state.kept_out:
            if cached[2] == state.packs:
                return cached[3]  # the piles change only at the end of a deal; asked several times a deal
        out = set(state.kept_out).union(*state.penalties)
        available = tuple(c for c in PACKS[state.packs] if c not in out)
        self._available_cache = (state.penalties, state.kept_out, state.packs, available, frozenset(available))
        return available

    def _hand_size(self, state: TwentyTwoState) -> int:
        active = len(self._active(state))
        return min(state.next_size, len(self._available(state)) // active)

    def _max_lead(self, state: TwentyTwoState) -> int:
        return state.config["max_lead_set"] or 4 * state.packs

    def _to_play(self, state: TwentyTwoState) -> int | None:
        if not state.trick:
            return state.leader
        return _next_to_play(state.trick, state.seats, state.status)

    def total(self, state: TwentyTwoState, seat: int) -> int:
        scheme = state.config["card_values"]
        return sum(map(PENALTY[scheme].__getitem__, state.penalties[seat]))

    # ---- chance -------------------------------------------------------------------------------
    def chance_due(self, state: TwentyTwoState) -> str | None:
        if state.phase == "dealer":
            if state.config["dealer_selection"] == "random" or not self._draw_can_decide(state):
                return "dealer_pick"
            return "dealer_draw"
        return "deal" if state.phase == "deal" else None

    def _draw_can_decide(self, state: TwentyTwoState) -> bool:
        """Whether a card draw can break a tie: only if the pack left holds two ranks or more.

        The pool never outnumbers the pack (``_choose_dealer`` ends the game first), so with two
        ranks every tie can be narrowed round by round; with one rank every draw ties everyone.
        """
        return len({rank_of(c) for c in self._available(state)}) > 1

    def sample_chance(self, state: TwentyTwoState, rng) -> dict:
        if state.phase == "dealer":
            pool = state.draw_pool
            if self.chance_due(state) == "dealer_pick":
                return {"type": "dealer_pick", "dealer": pool[rng.randbelow(len(pool))]}
            rounds, available = [], self._available(state)
            # Plain rounds first, as earlier versions drew (so their revealed seeds still verify),
            # then only rounds that leave fewer tied: at most PLAIN_ROUNDS + seats - 1 in all.
            for number in range(PLAIN_ROUNDS + len(pool) - 1):
                if number < PLAIN_ROUNDS:
                    drawn = rng.shuffle(available)[: len(pool)]
                else:
                    drawn = _narrowing_draw(available, len(pool), rng)
                rounds.append([{"seat": s, "card": c} for s, c in zip(pool, drawn, strict=True)])
                top = max(rank_of(c) for c in drawn)
                pool = tuple(s for s, c in zip(pool, drawn, strict=True) if rank_of(c) == top)
                if len(pool) == 1:
                    break
            return {"type": "dealer_draw", "rounds": rounds}
        if state.phase != "deal":
            raise UnexpectedChance("no chance step is due now")
        size, order = self._hand_size(state), self._deal_order(state)
        shuffled = rng.shuffle(self._available(state))
        hands: list[list[str] | None] = [None] * state.seats
        for seat in order:
            hands[seat] = []
        for i in range(size * len(order)):  # one at a time, clockwise from the dealer's left
            hands[order[i % len(order)]].append(shuffled[i])
        stock = shuffled[size * len(order) :]
        return {"type": "deal", "dealer": state.dealer, "hand_size": size, "hands": hands, "stock": stock}

    def _deal_order(self, state: TwentyTwoState) -> tuple[int, ...]:
        """Active seats clockwise from the dealer's left, the dealer last (deal and exchange order)."""
        order, seat = [], state.dealer
        for _ in range(len(self._active(state))):
            seat = self._next_active(state, seat)
            order.append(seat)
        return tuple(order)

    def _apply_chance(self, state: TwentyTwoState, data: dict) -> TwentyTwoState:
        due = self.chance_due(state)
        if due is None:
            raise UnexpectedChance("no chance event is due now: " + self._waiting_for(state))
        if data["type"] != due:
            raise MalformedEvent(f"the chance step due now is {due!r}, not {data['type']!r}")
        if due == "dealer_pick":
            dealer = data.get("dealer")
            if dealer not in state.draw_pool or isinstance(dealer, bool):
                raise IllegalMove(
                    f"dealer_pick must name one of seats {list(state.draw_pool)}, not {dealer!r}",
                    code="bad_dealer_pick",
                )
            return evolve(state, phase="deal", dealer=dealer, last_draw=())
        if due == "dealer_draw":
            return self._apply_dealer_draw(state, data)
        return self._apply_deal(state, data)

    def _apply_dealer_draw(self, state: TwentyTwoState, data: dict) -> TwentyTwoState:
        rounds = data.get("rounds")
        if not isinstance(rounds, list) or not rounds:
            raise MalformedEvent('dealer_draw needs "rounds": a list of rounds of {"seat", "card"} draws')
        available, pool, parsed = set(self._available(state)), set(state.draw_pool), []

        def bad(message: str):
            raise IllegalMove(message, code="bad_dealer_draw")

        for number, draws in enumerate(rounds, start=1):
            if not isinstance(draws, list) or not all(
                isinstance(d, dict) and isinstance(d.get("seat"), int) and isinstance(d.get("card"), str) for d in draws
            ):
                raise MalformedEvent(f'dealer_draw round {number} must be a list of {{"seat": s, "card": c}}')
            seats, drawn = [d["seat"] for d in draws], [d["card"] for d in draws]
            if sorted(seats) != sorted(pool):
                bad(f"round {number} of the dealer draw must be drawn by seats {sorted(pool)}, each once")
            if len(set(drawn)) != len(drawn) or not set(drawn) <= available:
                bad(f"round {number} of the dealer draw must use different cards from the pack (not penalty cards)")
            top = max(rank_of(c) for c in drawn)
            pool = {s for s, c in zip(seats, drawn, strict=True) if rank_of(c) == top}
            parsed.append(tuple((s, c) for s, c in zip(seats, drawn, strict=True)))
            last = number == len(rounds)
            if last and len(pool) > 1:
                bad(f"the last round of the dealer draw must have one highest card; seats {sorted(pool)} tie")
            if not last and len(pool) == 1:
                bad(f"round {number} already has a single highest card; no further round may follow")
        return evolve(state, phase="deal", dealer=pool.pop(), last_draw=tuple(parsed))

    def _apply_deal(self, state: TwentyTwoState, data: dict) -> TwentyTwoState:
        hands, stock = data.get("hands"), data.get("stock")
        if not isinstance(hands, list) or len(hands) != state.seats or not isinstance(stock, list):
            raise MalformedEvent(f'a deal needs "hands" (one entry per seat, {state.seats}) and a "stock" list')
        size, active = self._hand_size(state), self._active(state)

        def bad(message: str):
            raise IllegalMove(message, code="bad_deal")

        if data.get("dealer") != state.dealer:
            bad(f"the dealer of this deal is seat {state.dealer}, not {data.get('dealer')!r}")
        if data.get("hand_size") != size:
            bad(f"this deal is {size} cards each, not {data.get('hand_size')!r}")
        dealt: list[str] = list(stock)
        for seat, hand in enumerate(hands):
            if seat not in active:
                if hand is not None:
                    bad(f"seat {seat} is out of the game and gets no hand (null)")
                continue
            if not isinstance(hand, list) or len(hand) != size:
                bad(f"seat {seat} must get exactly {size} cards")
            dealt.extend(hand)
        # A permutation of the pack left (whose cards are distinct): as many cards, and the same set.
        available = self._available(state)
        if (
            not all(map(isinstance, dealt, repeat(str)))
            or len(dealt) != len(available)
            or set(dealt) != self._available_cache[4]  # _available's cards as a set, made once a deal
        ):
            bad("the hands and the stock must hold every card of the pack once, except the penalty piles")
        empty = ((),) * state.seats
        dealt_state = {
            "deal_no": state.deal_no + 1,
            "deal_size": size,
            "hands": tuple(_sorted(h) if h is not None else () for h in hands),
            "stock": tuple(stock),
            "discards": empty,
            "exchanged": (None,) * state.seats,
            "tricks": (),
            "trick": (),
            "bar": (),
            "bar_setter": None,
            "leader": self._next_active(state, state.dealer),
        }
        if state.config["exchange_enabled"]:  # the dealer and the seats in play are those of ``state``
            return evolve(state, phase="exchange", exchange_queue=self._deal_order(state), **dealt_state)
        return self._start_play(evolve(state, **dealt_state))

    # ---- turns --------------------------------------------------------------------------------
    def actors(self, state: TwentyTwoState) -> frozenset[int]:
        cached = self._actors_cache
        if cached is not None and cached[0] is state:
            return cached[1]  # bots and the harness ask many times per state
        if state.phase == "exchange":
            seats = frozenset(state.exchange_queue[:1])
        elif state.phase == "play":
            seat = self._to_play(state)
            seats = frozenset() if seat is None else frozenset((seat,))
        elif state.phase == "buy_back":
            seats = frozenset(state.undecided)
        else:
            seats = frozenset()
        self._actors_cache = (state, seats)
        return seats

    def legal_moves(self, state: TwentyTwoState, seat: int) -> Sequence[dict]:
        if seat not in self.actors(state):
            return []
        hand = state.hands[seat]
        if state.phase == "exchange":
            # Every subset of at most as many cards as the stock holds, by size then in hand order
            # (up to 2,048), lazily: each move is built when it is asked for.
            return SubsetMoves("exchange", "cards", hand, len(state.stock))
        if state.phase == "buy_back":
            moves = [{"type": "buy_back"}] if self._can_afford(state, seat) else []
            return moves + [{"type": "decline_buy_back"}]
        if not state.trick:
            moves, largest = [], min(self._max_lead(state), len(hand) - 1)
            by_rank: dict[int, list[str]] = {}
            for card in hand:
                by_rank.setdefault(RANK[card], []).append(card)
            if largest == 1 or len(by_rank) == len(hand):  # no set to lead: single cards by rank
                if largest < 1:
                    return moves
                return [{"type": "lead", "cards": [card]} for rank in sorted(by_rank) for card in by_rank[rank]]
            for rank in sorted(by_rank):
                same = by_rank[rank]
                for k in range(1, min(len(same), largest) + 1):
                    moves.extend({"type": "lead", "cards": [*c]} for c in combinations(same, k))
            return moves
        # _follow_kind for every candidate at once: the bar, the hand's lowest ranks and each card's
        # rank are looked up once, not once per candidate.
        size = len(state.trick[0].cards)
        ranks = list(map(RANK.__getitem__, hand))
        if state.config["set_follow_rule"] == "pairwise":
            need = sorted(RANK[c] for c in state.bar)
        else:
            need = [max(RANK[c] for p in state.trick for c in p.cards)] * size
        if size == 1:  # as below, for one card: a beat, or the lowest rank of the hand
            least, low = need[0], min(ranks, default=None)
            return [
                {"type": "follow", "cards": [card]}
                for card, rank in zip(hand, ranks, strict=True)
                if rank >= least or rank == low
            ]
        lowest = sorted(ranks)[:size]
        return [
            {"type": "follow", "cards": [*cards]}
            for cards, candidate in zip(combinations(hand, size), combinations(ranks, size), strict=True)
            if all(map(ge, ascending := sorted(candidate), need)) or ascending == lowest
        ]

    def deadline(self, state: TwentyTwoState) -> Deadline | None:
        seconds = state.config["buy_back_seconds"]
        if state.phase != "buy_back" or not seconds:
            return None
        return Deadline(f"buy-back-{state.deal_no}", seconds, state.undecided)

    def _waiting_for(self, state: TwentyTwoState) -> str:
        cached = self._waiting_cache
        if cached is not None and cached[0] is state:
            return cached[1]
        text = self._describe_wait(state)
        self._waiting_cache = (state, text)
        return text

    def _describe_wait(self, state: TwentyTwoState) -> str:
        if state.phase in ("dealer", "deal"):
            return f"the {self.chance_due(state)} chance event is due"
        if state.phase == "exchange":
            return f"seat {state.exchange_queue[0]} is to exchange"
        if state.phase == "play":
            seat = self._to_play(state)
            return f"seat {seat} is to {'follow' if state.trick else 'lead'}"
        if state.phase == "buy_back":
            return f"seats {list(state.undecided)} are to decide on a buy-back"
        return "the game is over"

    actions = (
        Action("exchange", {"cards": _CARDS}),
        Action("lead", {"cards": _CARDS}),
        Action("follow", {"cards": _CARDS}),
        Action("buy_back"),
        Action("decline_buy_back"),
    )
    system_events = ("buy_back_timeout",)

    def apply_chance(self, state: TwentyTwoState, data: dict) -> TwentyTwoState:
        return self._apply_chance(state, data)

    def apply_resign(self, state: TwentyTwoState, seat: int, data: dict) -> TwentyTwoState:
        return self._resign(state, seat)

    def apply_close_window(self, state: TwentyTwoState, data: dict) -> TwentyTwoState:
        for seat in state.undecided:
            state = self._decide_buy_back(state, seat, False)
        return state

    def apply_system(self, state: TwentyTwoState, data: dict) -> TwentyTwoState:
        """``buy_back_timeout``: one seat's buy-back decision ran out of time."""
        seat = data.get("seat")
        if state.phase != "buy_back" or seat not in state.undecided or isinstance(seat, bool):
            raise WindowClosed(f"seat {seat!r} has no open buy-back decision")
        return self._decide_buy_back(state, seat, False)

    def apply_move(self, state: TwentyTwoState, seat: int, data: dict) -> TwentyTwoState:
        action = data["type"]
        if state.phase == "play":  # actors(state) in short: the one seat to lead or follow
            trick = state.trick
            if seat != (_next_to_play(trick, state.seats, state.status) if trick else state.leader):
                raise NotYourTurn(f"it is not your turn: {self._waiting_for(state)}")
            if action == "follow" and trick:
                return self._follow(state, seat, self._cards_param(state, seat, data))
            if action == "lead" and not trick:
                return self._lead(state, seat, self._cards_param(state, seat, data))
        elif seat not in self.actors(state):
            raise NotYourTurn(f"it is not your turn: {self._waiting_for(state)}")
        if state.phase == "buy_back":
            if action not in ("buy_back", "decline_buy_back"):
                raise IllegalMove("answer the buy-back offer with buy_back or decline_buy_back", code="wrong_action")
            return self._decide_buy_back(state, seat, action == "buy_back")
        expected = "exchange" if state.phase == "exchange" else ("follow" if state.trick else "lead")
        if action != expected:
            raise IllegalMove(f"you cannot {action} now: you are to {expected}", code="wrong_action")
        cards = self._cards_param(state, seat, data)
        if action == "exchange":
            return self._exchange(state, seat, cards)
        if action == "lead":
            return self._lead(state, seat, cards)
        return self._follow(state, seat, cards)

    def _cards_param(self, state: TwentyTwoState, seat: int, data: dict) -> tuple[str, ...]:
        # The action's schema (base.apply, before this) has checked that a given "cards" is a list
        # of strings; a missing one is refused here.
        cards = data.get("cards")
        if type(cards) is list and len(cards) == 1 and cards[0] in state.hands[seat]:
            return (cards[0],)  # the common case, as below
        cards = require_param(data, "cards", list, "a list of card ids from your hand")
        if len(cards) > 1 and len(set(cards)) != len(cards):
            raise IllegalMove("a card may be named only once", code="duplicate_card")
        hand = state.hands[seat]
        for card in cards:
            if card not in hand:
                missing = [c for c in cards if c not in hand]
                hand = " ".join(state.hands[seat])
                raise IllegalMove(f"{', '.join(missing)} not in your hand; your hand: {hand}", code="card_not_in_hand")
        return _sorted(cards) if len(cards) > 1 else tuple(cards)

    def _exchange(self, state: TwentyTwoState, seat: int, cards: tuple[str, ...]) -> TwentyTwoState:
        k = len(cards)
        if k > len(state.stock):
            if not state.stock:
                message = "the stock is empty: no exchange is possible; exchange no cards ([])"
            else:
                message = f"you may exchange at most {len(state.stock)} cards: that is all the stock holds"
            raise IllegalMove(message, code="exchange_exceeds_stock")
        kept = tuple(c for c in state.hands[seat] if c not in cards)
        state = evolve(
            state,
            hands=_put(state.hands, seat, _sorted(kept + state.stock[:k])),
            stock=state.stock[k:],
            discards=_put(state.discards, seat, state.discards[seat] + cards),
            exchanged=_put(state.exchanged, seat, k),
            exchange_queue=state.exchange_queue[1:],
        )
        return state if state.exchange_queue else self._start_play(state)

    def _start_play(self, state: TwentyTwoState) -> TwentyTwoState:
        state = evolve(state, phase="play", exchange_queue=())
        return self._maybe_final_trick(state)

    def _lead(self, state: TwentyTwoState, seat: int, cards: tuple[str, ...]) -> TwentyTwoState:
        if len(cards) != 1:  # one card is of one rank, and the most a lead may be is at least 1
            if not cards:
                raise IllegalMove("lead at least one card", code="empty_lead")
            if len({RANK[c] for c in cards}) > 1:
                raise IllegalMove("a set lead must be cards of one rank", code="lead_mixed_ranks")
            most = self._max_lead(state)
            if len(cards) > most:
                raise IllegalMove(f"you may lead at most {most} cards", code="lead_too_large")
        if len(cards) >= len(state.hands[seat]):
            raise IllegalMove(
                f"a lead must leave at least one card in your hand: lead at most {len(state.hands[seat]) - 1}",
                code="lead_must_leave_card",
            )
        return self._played(state, seat, cards, True, ())

    def _follow_kind(self, state: TwentyTwoState, hand, cards) -> str | None:
        """``"beat"``, ``"low"`` or None for a follow of ``cards`` from ``hand`` (section 3.1).

        ``legal_moves`` applies the same test to every candidate at once."""
        if len(cards) == 1:  # as below, for one card
            value = RANK[cards[0]]
            if state.config["set_follow_rule"] == "pairwise":
                beat = value >= RANK[state.bar[0]]
            else:
                beat = value >= max(RANK[c] for p in state.trick for c in p.cards)
            if beat:
                return "beat"
            return "low" if value == min(map(RANK.__getitem__, hand)) else None
        rank = RANK.__getitem__
        ranks = sorted(map(rank, cards))  # compared low to high: the same pairs as high to low
        if state.config["set_follow_rule"] == "pairwise":
            beat = all(map(ge, ranks, sorted(map(rank, state.bar))))
        else:
            beat = ranks[0] >= max(RANK[c] for p in state.trick for c in p.cards)
        if beat:
            return "beat"
        return "low" if ranks == sorted(map(rank, hand))[: len(cards)] else None

    def _follow(self, state: TwentyTwoState, seat: int, cards: tuple[str, ...]) -> TwentyTwoState:
        size = len(state.trick[0].cards)
        if len(cards) != size:
            raise IllegalMove(f"follow with exactly {size} card(s), as many as were led", code="wrong_card_count")
        kind = self._follow_kind(state, state.hands[seat], cards)
        if kind is None:
            bar = " ".join(_rank_name(r) for r in sorted((rank_of(c) for c in state.bar), reverse=True))
            if state.config["set_follow_rule"] == "all_at_least_highest":
                top = max(rank_of(c) for p in state.trick for c in p.cards)
                need = f"every card at least {_rank_name(top)}"
            else:
                need = f"at least {bar} position by position" if size > 1 else f"at least {bar}"
            lowest = sorted(state.hands[seat], key=rank_of)[:size]
            low = " ".join(_rank_name(rank_of(c)) for c in lowest)
            raise IllegalMove(
                f"{' '.join(cards)} is neither a beat ({need}) nor your {size} lowest card(s) ({low})",
                code="follow_neither_beat_nor_lowest",
            )
        return self._played(state, seat, cards, kind == "beat", state.trick)

    def _played(
        self, state: TwentyTwoState, seat: int, cards: tuple[str, ...], beat: bool, trick: tuple[Play, ...]
    ) -> TwentyTwoState:
        """``seat`` plays ``cards`` (checked) onto ``trick``: ``_after_play`` of the state with the
        play, in one copy of the state (the play and the end of a trick are most of a game's events)."""
        hand = state.hands[seat]
        if len(cards) == 1:
            at = hand.index(cards[0])
            hands = _put(state.hands, seat, hand[:at] + hand[at + 1 :])
        else:
            hands = _put(state.hands, seat, tuple([c for c in hand if c not in cards]))
        play = object.__new__(Play)  # a frozen dataclass's __init__ sets each field the slow way
        play.__dict__.update(seat=seat, cards=cards, beat=beat)
        trick = (*trick, play)
        bar, bar_setter = (cards, seat) if beat else (state.bar, state.bar_setter)
        if _next_to_play(trick, state.seats, state.status) is not None:
            return evolve(state, hands=hands, trick=trick, bar=bar, bar_setter=bar_setter)
        winner = self._trick_winner(state, trick, bar_setter)
        leader = winner if state.status[winner] == "active" else self._next_active(state, winner)
        done = object.__new__(Trick)  # as the play above
        done.__dict__.update(plays=trick, winner=winner)
        tricks = (*state.tricks, done)
        state = evolve(state, hands=hands, tricks=tricks, trick=(), bar=(), bar_setter=None, leader=leader)
        return self._maybe_final_trick(state)

    def _trick_winner(self, state: TwentyTwoState, trick: tuple[Play, ...], bar_setter: int) -> int:
        if state.config["trick_winner_rule"] == "last_bar_setter":
            return bar_setter
        top = max(RANK[c] for p in trick for c in p.cards)
        return [p.seat for p in trick if any(RANK[c] == top for c in p.cards)][-1]

    def _after_play(self, state: TwentyTwoState) -> TwentyTwoState:
        if self._to_play(state) is not None:
            return state
        winner = self._trick_winner(state, state.trick, state.bar_setter)
        leader = winner if state.status[winner] == "active" else self._next_active(state, winner)
        state = evolve(
            state,
            tricks=state.tricks + (Trick(state.trick, winner),),
            trick=(),
            bar=(),
            bar_setter=None,
            leader=leader,
        )
        return self._maybe_final_trick(state)

    def _maybe_final_trick(self, state: TwentyTwoState) -> TwentyTwoState:
        if state.trick:
            return state
        hands, status = state.hands, state.status
        for seat in range(state.seats):
            if len(hands[seat]) != 1 and status[seat] == "active":
                return state
        active = self._active(state)
        final = tuple((s, state.hands[s][0]) for s in active)
        top = max(rank_of(c) for _, c in final)
        losers = tuple(s for s, c in final if rank_of(c) == top)
        penalties = list(state.penalties)
        for seat, card in final:
            if seat in losers:
                penalties[seat] = penalties[seat] + (card,)
        state = evolve(state, penalties=tuple(penalties))
        threshold = state.config["elimination_threshold"]
        reached = tuple(s for s in losers if self.total(state, s) >= threshold)
        revealed = state.discards if state.config["reveal_exchange_discards_at_deal_end"] else None
        empty = tuple(() for _ in range(state.seats))
        result = DealResult(state.deal_no, final, losers, reached, revealed_discards=revealed)
        state = evolve(
            state,
            results=state.results + (result,),
            hands=empty,
            discards=empty,
            stock=(),
            leader=None,
            next_size=self._next_size(state, top),
        )
        eligible = ()
        config = state.config
        if config["stakes_enabled"] and config["buyback_enabled"]:
            survivors = len(active) - len(reached)
            if survivors >= config["buyback_min_survivors"]:
                limit = config["buyback_limit_per_player"]
                eligible = tuple(s for s in reached if state.buy_backs[s] < limit)
        if eligible:
            return evolve(state, phase="buy_back", eligible=eligible, undecided=eligible, bought=())
        return self._finish_deal(state)

    def _next_size(self, state: TwentyTwoState, losing_rank: int) -> int:
        if state.config["deal_size_rule"] == "fixed_7":
            return state.config["first_deal_size"]
        return penalty_value(losing_rank, state.config["card_values"])

    # ---- buy-back (gambling) ------------------------------------------------------------------
    def _can_afford(self, state: TwentyTwoState, seat: int) -> bool:
        return state.config["allow_negative_balance"] or state.balances[seat] >= state.config["stake"]

    def _decide_buy_back(self, state: TwentyTwoState, seat: int, buy: bool) -> TwentyTwoState:
        if buy and not self._can_afford(state, seat):
            raise IllegalMove(
                f"a buy-back costs {state.config['stake']} chips and you hold {state.balances[seat]}",
                code="buy_back_unaffordable",
            )
        state = evolve(state, undecided=tuple(s for s in state.undecided if s != seat))
        if buy:
            stake = state.config["stake"]
            state = evolve(
                state,
                bought=state.bought + (seat,),
                buy_backs=_put(state.buy_backs, seat, state.buy_backs[seat] + 1),
                balances=_put(state.balances, seat, state.balances[seat] - stake),
                pot=state.pot + stake,
                ledger=state.ledger + (LedgerEntry("buy_back", seat, stake, state.deal_no),),
            )
        return state if state.undecided else self._finish_deal(state)

    def _finish_deal(self, state: TwentyTwoState) -> TwentyTwoState:
        """Apply buy-backs and eliminations of the deal just scored, then end or go to the next deal."""
        result = state.results[-1]
        status, eliminated_in = list(state.status), list(state.eliminated_in)
        penalties, kept_out = list(state.penalties), state.kept_out
        out = []
        for seat in result.reached:
            if status[seat] != "active":
                continue  # resigned during the buy-back window
            if seat in state.bought:
                card = penalties[seat][-1]
                penalties[seat] = penalties[seat][:-1]  # the total reverts to before this deal
                if state.config["buyback_card_disposition"] == "keep_out":
                    kept_out = kept_out + (card,)
            else:
                status[seat], eliminated_in[seat] = "out", result.deal
                out.append(seat)
        result = evolve(result, bought_back=state.bought, eliminated=tuple(out))
        state = evolve(
            state,
            status=tuple(status),
            eliminated_in=tuple(eliminated_in),
            penalties=tuple(penalties),
            kept_out=kept_out,
            results=state.results[:-1] + (result,),
            undecided=(),
            eligible=(),
            bought=(),
        )
        if self._game_ends(state):
            return self._end(state, "eliminations")
        losers = tuple(s for s in result.losers if state.status[s] == "active")
        return self._choose_dealer(state, losers or self._active(state))

    def _choose_dealer(self, state: TwentyTwoState, pool: tuple[int, ...]) -> TwentyTwoState:
        if self._hand_size(state) < 1:
            return self._end(state, "pack_exhausted")
        if len(pool) == 1:
            return evolve(state, phase="deal", dealer=pool[0], draw_pool=(), last_draw=())
        return evolve(state, phase="dealer", dealer=None, draw_pool=pool)

    # ---- end of game --------------------------------------------------------------------------
    def _game_ends(self, state: TwentyTwoState) -> bool:
        active = len(self._active(state))
        if state.config["stakes_enabled"]:
            return active <= state.config["end_when_active_at_most"]
        return active <= 1

    def _end(self, state: TwentyTwoState, reason: str) -> TwentyTwoState:
        """Game over: pick the winners (section 5.1/5.6, or 8.1.2 step 3) and pay out the pot."""
        active = self._active(state)
        lowest_wins = state.config["stakes_enabled"] or reason == "pack_exhausted"
        if active:
            pool = active
        else:  # only eliminations can empty the table: everyone left went out in the last deal
            pool = state.results[-1].eliminated
            lowest_wins = lowest_wins or state.config["no_survivor_rule"] == "lowest_total"
        if lowest_wins and pool:
            best = min(self.total(state, s) for s in pool)
            winners = tuple(s for s in pool if self.total(state, s) == best)
        else:
            winners = pool
        state = evolve(state, phase="over", ended_by=reason, winners=winners, dealer=None, draw_pool=())
        if state.config["stakes_enabled"] and winners and state.pot:
            share, rest = divmod(state.pot, len(winners))
            balances, ledger = list(state.balances), list(state.ledger)
            for seat in winners:
                balances[seat] += share
                ledger.append(LedgerEntry("pot_award", seat, share, state.deal_no))
            if rest:
                ledger.append(LedgerEntry("pot_carry", None, rest, state.deal_no))
            state = evolve(state, balances=tuple(balances), ledger=tuple(ledger), pot=rest)
        return state

    # ---- system events ------------------------------------------------------------------------
    def _resign(self, state: TwentyTwoState, seat: int) -> TwentyTwoState:
        """A resigning player drops out at once, ranked below everyone else, and play goes on.

        Not in the source (an organiser's rule): their hand leaves play face down for the rest of
        the deal, their penalty pile stays out of the pack, cards they already put on the current
        trick stay there (so the bar stands); if they would win a trick the lead passes to the next
        active player clockwise. The gambling pot keeps their stakes. When too few players remain
        the game ends as after an elimination, without scoring the interrupted deal.
        """
        if state.status[seat] != "active":
            raise IllegalMove(f"seat {seat} is no longer in the game", code="not_in_game")
        state = evolve(
            state,
            status=_put(state.status, seat, "resigned"),
            resigned_order=state.resigned_order + (seat,),
            hands=_put(state.hands, seat, ()),
            discards=_put(state.discards, seat, state.discards[seat] + state.hands[seat]),
            exchange_queue=tuple(s for s in state.exchange_queue if s != seat),
            draw_pool=tuple(s for s in state.draw_pool if s != seat),
            undecided=tuple(s for s in state.undecided if s != seat),
        )
        if state.phase != "buy_back" and self._game_ends(state):
            return self._end(state, "resignation")
        if state.leader == seat and not state.trick:
            state = evolve(state, leader=self._next_active(state, seat))
        if state.phase == "dealer":
            return self._choose_dealer(state, state.draw_pool or self._active(state))
        if state.phase == "deal" and state.dealer == seat:
            return self._choose_dealer(state, self._active(state))
        if state.phase == "exchange":
            return state if state.exchange_queue else self._start_play(state)
        if state.phase == "play":
            return self._after_play(state) if state.trick else self._maybe_final_trick(state)
        if state.phase == "buy_back" and not state.undecided:
            return self._finish_deal(state)
        return state

    # ---- outcome ------------------------------------------------------------------------------
    def outcome(self, state: TwentyTwoState) -> Outcome | None:
        if state.phase != "over":
            return None
        totals = {s: self.total(state, s) for s in range(state.seats)}
        resigned = {s: i for i, s in enumerate(state.resigned_order)}

        def key(seat: int) -> tuple:
            if state.status[seat] == "active":
                return (0, 0, totals[seat])
            if state.status[seat] == "out":
                return (1, -state.eliminated_in[seat], totals[seat])
            return (2, -resigned[seat], 0)

        ranking: list[tuple[int, ...]] = [state.winners] if state.winners else []
        rest: list[tuple[int, ...]] = []
        for seat in sorted((s for s in range(state.seats) if s not in state.winners), key=key):
            if rest and key(rest[-1][0]) == key(seat):
                rest[-1] = rest[-1] + (seat,)
            else:
                rest.append((seat,))
        ranking.extend(rest)
        detail = {
            "reason": state.ended_by,
            "winners": list(state.winners),
            "deals": state.deal_no,
            "totals": [totals[s] for s in range(state.seats)],
            "penalty_piles": [list(p) for p in state.penalties],
            "eliminated_in_deal": list(state.eliminated_in),
            "resigned": list(state.resigned_order),
        }
        if state.config["stakes_enabled"]:
            start = state.config["starting_chips"]
            net = {s: state.balances[s] - start for s in range(state.seats)}
            detail.update(
                pot=state.pot,
                balances=list(state.balances),
                net=[net[s] for s in range(state.seats)],
                ledger=[_ledger_json(e) for e in state.ledger],
            )
            return Outcome(tuple(ranking), net, detail)
        return Outcome(tuple(ranking), totals, detail)

    # ---- hidden information -------------------------------------------------------------------
    def hidden_from(self, state: TwentyTwoState, seat: int | None) -> frozenset[str]:
        cached = self._hidden_cache
        if cached is not None and cached[0] is state and cached[1] == seat:
            return cached[2]  # views of one state ask for this once per event
        if state.phase == "over":
            hidden = frozenset()
        else:
            found = set(state.stock)
            for owner in range(state.seats):
                if owner != seat:
                    found.update(state.hands[owner])
                    found.update(state.discards[owner])
            hidden = frozenset(found)
        self._hidden_cache = (state, seat, hidden)
        return hidden

    def view(self, state: TwentyTwoState, seat: int | None) -> dict:
        """What ``seat`` may see. Cards of earlier deals (dealer draws, final tricks) that are hidden
        now, being back in play, are shown as null (see ``event_view``)."""
        over = state.phase == "over"
        hidden = self.hidden_from(state, seat)
        players = []
        for owner in range(state.seats):
            mine = over or owner == seat
            player = {
                "seat": owner,
                "status": state.status[owner],
                "hand_count": len(state.hands[owner]),
                "hand": list(state.hands[owner]) if mine else None,
                "exchanged": state.exchanged[owner],
                "discards": list(state.discards[owner]) if mine else None,
                "penalty_pile": list(state.penalties[owner]),
                "total": self.total(state, owner),
                "eliminated_in_deal": state.eliminated_in[owner],
            }
            if state.config["stakes_enabled"]:
                player.update(balance=state.balances[owner], buy_backs=state.buy_backs[owner])
            players.append(player)
        to_play = self._to_play(state) if state.phase == "play" else None
        out = {
            "phase": state.phase,
            "deal": state.deal_no,
            "dealer": state.dealer,
            "packs": state.packs,
            "hand_size": state.deal_size,
            "next_hand_size": self._hand_size(state) if state.phase in ("dealer", "deal") else None,
            "to_act": sorted(self.actors(state)),
            "players": players,
            "stock_count": len(state.stock),
            "stock": list(state.stock) if over else None,
            "exchange_queue": list(state.exchange_queue),
            "leader": state.leader,
            "trick": {
                "plays": [_play_json(p) for p in state.trick],
                "bar": list(state.bar),
                "bar_setter": state.bar_setter,
                "to_play": to_play,
            },
            "tricks": [_trick_json(t) for t in state.tricks],
            "dealer_draw": [[{"seat": s, "card": _shown(c, hidden)} for s, c in r] for r in state.last_draw],
            "draw_pool": list(state.draw_pool),
            "results": [_result_json(r, hidden) for r in state.results],
            "kept_out": list(state.kept_out),
            "ended_by": state.ended_by,
            "winners": list(state.winners),
        }
        if state.config["stakes_enabled"]:
            out.update(
                pot=state.pot,
                ledger=[_ledger_json(e) for e in state.ledger],
                buy_back={"eligible": list(state.eligible), "undecided": list(state.undecided)},
            )
        return out

    def event_view(self, state: TwentyTwoState, event: dict, seat: int | None) -> dict:
        """``event`` as ``seat`` may see it now.

        A deal shows a player only their own hand (and the stock's size); another player's
        exchange shows only how many cards were exchanged. Card ids are reused from deal to deal,
        so any id hidden from ``seat`` *now* (in another hand, the stock or a discard pile) is also
        blanked to null in older events, e.g. a card seen on a trick in deal 1 that is now in
        someone's hand. After the game everything is public.
        """
        if state.phase == "over":
            return event
        data, kind = event.get("data", {}), event.get("kind")
        if kind == "chance" and data.get("type") == "deal":
            hands = data.get("hands") or []
            data = {
                **data,
                "hands": [h if owner == seat else None for owner, h in enumerate(hands)],
                "stock": None,
                "stock_count": len(data.get("stock") or []),
            }
        elif kind == "move" and data.get("type") == "exchange" and event.get("seat") != seat:
            data = {"type": "exchange", "cards": None, "count": len(data.get("cards") or [])}
        hidden = self.hidden_from(state, seat)
        return {**event, "data": _redact(data, hidden) if hidden else data}

    # ---- serialisation ------------------------------------------------------------------------
    def dump_state(self, state: TwentyTwoState) -> dict:
        out = {}
        for name in TwentyTwoState.__dataclass_fields__:
            value = getattr(state, name)
            if name in ("trick",):
                value = [_play_json(p) for p in value]
            elif name == "tricks":
                value = [_trick_json(t) for t in value]
            elif name == "results":
                value = [_result_json(r) for r in value]
            elif name == "ledger":
                value = [_ledger_json(e) for e in value]
            elif name != "config":
                value = _listify(value)
            out[name] = value
        return out

    def load_state(self, data: dict) -> TwentyTwoState:
        fields = {}
        for name in TwentyTwoState.__dataclass_fields__:
            value = data[name]
            if name == "trick":
                value = tuple(_play(p) for p in value)
            elif name == "tricks":
                value = tuple(Trick(tuple(_play(p) for p in t["plays"]), t["winner"]) for t in value)
            elif name == "results":
                value = tuple(_result(r) for r in value)
            elif name == "ledger":
                value = tuple(LedgerEntry(e["kind"], e["seat"], e["amount"], e["deal"]) for e in value)
            elif name != "config":
                value = _tuplify(value)
            fields[name] = value
        return TwentyTwoState(**fields)


# ---- helpers ------------------------------------------------------------------------------------
def _narrowing_draw(available: tuple[str, ...], count: int, rng) -> list[str]:
    """``count`` different cards of ``available`` in random order, uniform among the draws that do
    not all show one rank - so the highest rank is drawn by fewer than ``count`` players and the
    tie shrinks. A draw of one rank throughout decides nothing (the players would simply draw
    again), so the server never samples one, and a dealer draw takes at most ``count - 1`` rounds.

    Needs ``count >= 2`` and two ranks in ``available``. One pass over the cards: each is taken with
    probability (valid draws containing it) / (valid draws still possible), then the drawn cards
    are shuffled among the seats; bounded, no retry.
    """
    left = Counter(rank_of(c) for c in available)  # ranks of the cards not passed yet
    remaining, chosen = len(available), []
    for card in available:
        need = count - len(chosen)
        if not need:
            break
        left[rank_of(card)] -= 1
        remaining -= 1
        take = _mixed_completions([*chosen, card], left, remaining, need - 1)
        skip = _mixed_completions(chosen, left, remaining, need)
        if rng.randbelow(take + skip) < take:
            chosen.append(card)
    return rng.shuffle(chosen)


def _mixed_completions(chosen: list[str], left: Counter, remaining: int, need: int) -> int:
    """Ways to add ``need`` of the ``remaining`` cards (ranks counted in ``left``) to ``chosen``
    so that the whole draw shows at least two ranks."""
    ranks = {rank_of(c) for c in chosen}
    if len(ranks) > 1:
        return comb(remaining, need)
    if ranks:
        return comb(remaining, need) - comb(left[ranks.pop()], need)
    return comb(remaining, need) - sum(comb(n, need) for n in left.values())


def _next_to_play(trick: tuple[Play, ...], seats: int, status: tuple[str, ...]) -> int | None:
    """The next active seat clockwise after the last play of ``trick`` that has not played in it."""
    played = [p.seat for p in trick]
    seat = played[-1]
    for _ in range(seats):
        seat = (seat + 1) % seats
        if status[seat] == "active" and seat not in played:
            return seat
    return None


def _put(values: tuple, index: int, value) -> tuple:
    return values[:index] + (value,) + values[index + 1 :]


def _redact(obj, hidden: frozenset[str]):
    if isinstance(obj, dict) and isinstance(obj.get("cards"), list) and len(obj) == 2:
        if hidden.isdisjoint(obj["cards"]):  # the common case: a lead or follow still public
            return obj
    if isinstance(obj, str):
        return None if obj in hidden else obj
    if isinstance(obj, list | tuple):
        if all(type(x) is str for x in obj):
            return [None if x in hidden else x for x in obj]
        return [_redact(x, hidden) for x in obj]
    if isinstance(obj, dict):
        return {k: (v if k == "type" else _redact(v, hidden)) for k, v in obj.items()}
    return obj


def _listify(value):
    if isinstance(value, tuple):
        return [_listify(v) for v in value]
    return value


def _tuplify(value):
    if isinstance(value, list):
        return tuple(_tuplify(v) for v in value)
    return value


def _play_json(play: Play) -> dict:
    return {"seat": play.seat, "cards": list(play.cards), "beat": play.beat}


def _play(data: dict) -> Play:
    return Play(data["seat"], tuple(data["cards"]), data["beat"])


def _trick_json(trick: Trick) -> dict:
    return {"plays": [_play_json(p) for p in trick.plays], "winner": trick.winner}


def _shown(card: str, hidden: frozenset[str]) -> str | None:
    return None if card in hidden else card


def _result_json(result: DealResult, hidden: frozenset[str] = frozenset()) -> dict:
    revealed = result.revealed_discards
    return {
        "deal": result.deal,
        "final_cards": [[s, _shown(c, hidden)] for s, c in result.final_cards],
        "losers": list(result.losers),
        "reached": list(result.reached),
        "bought_back": list(result.bought_back),
        "eliminated": list(result.eliminated),
        "revealed_discards": None if revealed is None else [[_shown(c, hidden) for c in d] for d in revealed],
    }


def _result(data: dict) -> DealResult:
    return DealResult(
        data["deal"],
        _tuplify(data["final_cards"]),
        tuple(data["losers"]),
        tuple(data["reached"]),
        tuple(data["bought_back"]),
        tuple(data["eliminated"]),
        _tuplify(data["revealed_discards"]),
    )


def _ledger_json(entry: LedgerEntry) -> dict:
    return {"kind": entry.kind, "seat": entry.seat, "amount": entry.amount, "deal": entry.deal}


ENGINE = TwentyTwo()
__all__ = ["ENGINE", "PACKS", "TwentyTwo", "TwentyTwoState", "penalty_value", "rank_of"]
