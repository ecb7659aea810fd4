"""1234 (nueng-song-sam-si): the Thai card game of plays beating the target by 1 to 4, with match play.

Implements ``shared/rules/1234.md`` (seed 001). Each player holds up to 5 cards; on their turn
they ``play`` cards totalling T+1..T+4 (T becomes that total), lay a ``pass_combo`` (one of five
patterns, T unchanged) or, only when neither is possible, ``drop_out``. After a play or pass the
player refills to 5 (at most 3 cards); when a refill empties the stock the game ends and the
highest card among the players still in wins. Turn order runs to the right: seat i, then i-1.

Automatic drop-outs (``auto_drop_out``, default) are made inside ``apply``: the state never waits
on a player without a legal move. A record may still carry the spec's system line
``{"type": "drop_out", "seat": k}`` right after the event that caused it; it confirms the drop-out
and changes nothing else. With a ``scoring_mode`` other than ``none`` several games form a match:
the previous winner deals the next game (one ``deal`` chance event per game).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import combinations

from . import cards
from .base import (
    Action,
    Engine,
    Flag,
    IllegalMove,
    MalformedEvent,
    NotYourTurn,
    Outcome,
    Param,
    evolve,
    require_param,
)

DECK = cards.standard_deck()
DECK_SET = frozenset(DECK)
# Per card, looked up once instead of parsed on every use in the move generator.
_VALUE = {c: cards.value(c) for c in DECK}
_ORDER = {c: index for index, c in enumerate(cards.sort_by_value(DECK))}
# Rank and suit counts as 4-bit fields of one integer (see pass_sizes).
_RANK_BIT = {c: 1 << 4 * cards.RANKS.index(cards.rank_of(c)) for c in DECK}
_SUIT_BIT = {c: 1 << 4 * cards.SUITS.index(cards.suit_of(c)) for c in DECK}
_FIELDS = [4 * index for index in range(len(cards.RANKS))]
_AT_LEAST = {k: sum((8 - k) << shift for shift in _FIELDS) for k in (2, 3, 4)}
_RANK_TOPS = sum(8 << shift for shift in _FIELDS)
_NUMBER_TOPS = sum(8 << 4 * cards.RANKS.index(r) for r in cards.RANKS if cards.RANK_VALUE[r] <= 10)
_FACE_FIELDS = sum(15 << 4 * cards.RANKS.index(r) for r in cards.RANKS if cards.RANK_VALUE[r] > 10)
_ACE_FIELD = 15 << 4 * cards.RANKS.index("A")


def _subsets(size: int, picked: int | None = None) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """The subsets of ``picked`` of ``size`` positions (every non-empty one if None) as
    ``(bit mask, positions)``, in the order ``combinations`` gives them size by size."""
    found = _SUBSETS.get((size, picked))
    if found is None:
        found = _SUBSETS[size, picked] = tuple(
            (sum(1 << i for i in chosen), chosen)
            for n in (range(1, size + 1) if picked is None else (picked,))
            for chosen in combinations(range(size), n)
        )
    return found


_SUBSETS: dict[tuple[int, int | None], tuple] = {}


def _subset_sums(hand, bits: dict[str, int]) -> list[int]:
    """The sum of ``bits`` over every subset of ``hand``, indexed by bit mask (bit i: the i-th card)."""
    sums = [0]
    for value in map(bits.__getitem__, hand):
        sums += [total + value for total in sums]
    return sums


MAX_MATCH_GAMES = 100
MODES = ("none", "winner_plus", "loser_minus", "chips")
PATTERNS = {
    "P1": "one Ace",
    "P2": "a pair of number cards (A-10) and one face card (J/Q/K)",
    "P3": "three cards of one suit",
    "P4": "three cards of one rank",
    "P5": "two pairs of number cards (A-10), no face cards",
}


_CARDS = Param("list", "card ids from your hand", max_length=52, item_code="not_a_card")


@dataclass(frozen=True)
class TableEntry:
    """Cards laid face up in the middle this game: a ``play`` or a ``pass_combo``."""

    seat: int
    kind: str
    cards: tuple[str, ...]


@dataclass(frozen=True)
class GameResult:
    """How one game of the match ended and what it changed in the totals."""

    game: int
    dealer: int
    reason: str  # last_player | stock_empty
    winners: tuple[int, ...]
    hand_sums: tuple[int, ...]  # per seat: final hand, or the face-down hand of a drop-out
    deltas: tuple[int | float, ...]
    compared: tuple[int, ...] = ()  # stock end: the seats whose hands were compared openly


@dataclass(frozen=True)
class State:
    config: dict
    seats: int
    phase: str  # deal (a deal is due) | play | over (the match is over)
    game: int = 0
    dealer: int | None = None
    hands: tuple[tuple[str, ...], ...] = ()
    face_down: tuple[tuple[str, ...], ...] = ()  # hands laid down by drop-outs
    out: tuple[int, ...] = ()  # seats dropped out of this game, in order
    stock: tuple[str, ...] = ()  # top card first
    start_card: str | None = None
    target: int = 0
    table: tuple[TableEntry, ...] = ()
    to_move: int | None = None
    unconfirmed: tuple[int, ...] = ()  # automatic drop-outs a record may still confirm
    resigned: tuple[int, ...] = ()
    totals: tuple[int | float, ...] = ()
    results: tuple[GameResult, ...] = ()


def total(hand) -> int:
    return sum(map(_VALUE.__getitem__, hand))


def pass_pattern(hand, allow_quads: bool = True) -> str | None:
    """The pass pattern (P1..P5) the cards form exactly, or None."""
    return _pattern(
        len(hand), sum(map(_RANK_BIT.__getitem__, hand)), sum(map(_SUIT_BIT.__getitem__, hand)), allow_quads
    )


def _pattern(size: int, ranks: int, suits: int, allow_quads: bool) -> str | None:
    """``pass_pattern`` of ``size`` cards whose rank and suit counts are ``ranks`` and ``suits``.

    A count is a 4-bit field of one integer, one field per rank (or suit): adding 8 - k to every
    field sets a field's top bit exactly where its count is at least k (counts stay below 16).
    """
    if size == 1:
        return "P1" if ranks & _ACE_FIELD else None
    if size == 3:
        if (ranks + _AT_LEAST[3]) & _RANK_TOPS:
            return "P4"
        if (suits + _AT_LEAST[3]) & _RANK_TOPS:  # suits use the first four fields
            return "P3"
        if (ranks + _AT_LEAST[2]) & _NUMBER_TOPS and ranks & _FACE_FIELDS:  # a number pair, a face card
            return "P2"
    if size == 4 and not ranks & _FACE_FIELDS:
        pairs = (ranks + _AT_LEAST[2]) & _NUMBER_TOPS
        if pairs.bit_count() == 2 or (allow_quads and (ranks + _AT_LEAST[4]) & _NUMBER_TOPS):
            return "P5"
    return None


def hand_order(hand) -> tuple[str, ...]:
    """Cards in display order (``cards.sort_by_value``): by value, then suit."""
    return tuple(sorted(hand, key=_ORDER.__getitem__))


def pass_sizes(hand, allow_quads: bool = True) -> tuple[int, ...]:
    """The sizes (1, 3, 4) of the pass patterns some cards of ``hand`` form, read from its rank and
    suit counts (as in ``_pattern``) instead of trying each combination."""
    ranks = sum(map(_RANK_BIT.__getitem__, hand))
    sizes = (1,) if ranks & _ACE_FIELD else ()  # P1
    number_pairs = (ranks + _AT_LEAST[2]) & _NUMBER_TOPS
    if (
        (ranks + _AT_LEAST[3]) & _RANK_TOPS  # P4
        or (sum(map(_SUIT_BIT.__getitem__, hand)) + _AT_LEAST[3]) & _RANK_TOPS  # P3 (suits use four fields)
        or (number_pairs and ranks & _FACE_FIELDS)  # P2: a pair of number cards and a face card
    ):
        sizes += (3,)
    if number_pairs.bit_count() >= 2 or (allow_quads and (ranks + _AT_LEAST[4]) & _NUMBER_TOPS):  # P5
        sizes += (4,)
    return sizes


def has_play(hand, target: int) -> bool:
    """Whether some cards of ``hand`` total ``target`` + 1 to 4 (the reachable totals as bits)."""
    reachable = 1
    for card in hand:
        reachable |= reachable << _VALUE[card]
    return bool((reachable >> (target + 1)) & 0b1111)


class OneTwoThreeFour(Engine):
    slug = "1234"
    name = "1234"
    rules_version = "1"
    min_seats = 2
    max_seats = 5
    # Per game: 1 deal, at most one play/pass per stock card (each draws at least one), at most
    # n-1 drop-out lines; plus one resign per seat over the match.
    max_events = MAX_MATCH_GAMES * (1 + 49 + 4) + 5
    flags = (
        Flag("scoring_mode", "none", "none: one game, winner only; or a match (section 5).", "str", MODES),
        Flag("match_games", 5, "Games in a match (scoring modes only).", "int", minimum=1, maximum=MAX_MATCH_GAMES),
        Flag("target_score", 0, "winner_plus: the match ends when someone reaches it (0: off).", "int", minimum=0),
        Flag("penalty_limit", 0, "loser_minus: the match ends when someone reaches it (0: off).", "int", minimum=0),
        Flag("starting_chips", 50, "chips: everyone's chips at the start.", "int", minimum=1, maximum=1_000_000),
        Flag("chips_partial_payment", True, "chips: a loser who cannot pay in full pays all they have."),
        Flag(
            "shared_win_rounding",
            "down",
            "Shared winners split each loser's amount equally: rounded down, or exact (fractions).",
            "str",
            ("down", "exact"),
        ),
        Flag(
            "next_dealer_on_shared_win",
            "nearest_right",
            "Shared winners: the next dealer is the one nearest the previous dealer to the right (A12).",
            "str",
            ("nearest_right", "nearest_left"),
        ),
        Flag("reveal_dropped_hands", True, "Scoring modes: show drop-outs' face-down hands at game end."),
        Flag("p5_allow_quads", True, "Four of a kind counts as two pairs (A5)."),
        Flag("auto_drop_out", True, "The engine drops out a player who has no legal play or pass (A4)."),
        Flag(
            "tiebreak_missing_card",
            "loses",
            "Stock end: a player out of cards in the comparison loses it, or the comparison stops (A8).",
            "str",
            ("loses", "ignored"),
        ),
        Flag("full_tie", "shared_win", "Identical ranks all the way down: a shared win (A8).", "str", ("shared_win",)),
        # At most 5 x 10 cards dealt plus the start card: the stock always has a card.
        Flag("hand_limit", 5, "Cards dealt and the hand limit.", "int", minimum=1, maximum=10),
        Flag("refill_count", 3, "Most cards drawn in one refill.", "int", minimum=1, maximum=10),
    )

    # ---- setup and chance ---------------------------------------------------------------
    def setup(self, config: dict | None, seats: int) -> State:
        config = self.validate_setup(config, seats)
        start = config["starting_chips"] if config["scoring_mode"] == "chips" else 0
        return State(config=config, seats=seats, phase="deal", totals=(start,) * seats)

    def chance_due(self, state: State) -> str | None:
        return "deal" if state.phase == "deal" else None

    def sample_chance(self, state: State, rng) -> dict:
        dealer = self._next_dealer(state)
        if dealer is None:
            dealer = rng.randbelow(state.seats)
        deck = rng.shuffle(DECK)
        size = state.config["hand_limit"]
        hands = [deck[i * size : (i + 1) * size] for i in range(state.seats)]
        rest = deck[state.seats * size :]
        return {"type": "deal", "dealer": dealer, "hands": hands, "start_card": rest[0], "stock": rest[1:]}

    def _next_dealer(self, state: State) -> int | None:
        """The previous winner deals (A12 for shared winners); None before the first game."""
        if not state.results:
            return None
        winners, previous = state.results[-1].winners, state.results[-1].dealer
        step = -1 if state.config["next_dealer_on_shared_win"] == "nearest_right" else 1
        for distance in range(state.seats):
            seat = (previous + step * distance) % state.seats
            if seat in winners:
                return seat
        raise AssertionError("a finished game has a winner")

    def _apply_deal(self, state: State, data: dict) -> State:
        n, size = state.seats, state.config["hand_limit"]
        dealer, hands = data.get("dealer"), data.get("hands")
        start, stock = data.get("start_card"), data.get("stock")
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < n:
            raise MalformedEvent(f'a deal needs "dealer": a seat from 0 to {n - 1}')
        if not (isinstance(hands, list) and len(hands) == n and all(isinstance(h, list) for h in hands)):
            raise MalformedEvent(f'a deal needs "hands": {n} lists of cards, seat 0 first')
        if not isinstance(stock, list) or not isinstance(start, str):
            raise MalformedEvent('a deal needs "start_card" (a card) and "stock" (a list of cards, top first)')
        required = self._next_dealer(state)
        if required is not None and dealer != required:
            raise IllegalMove(
                f"the previous game's winner deals: the dealer must be seat {required}, not {dealer}",
                code="wrong_dealer",
            )
        for seat, hand in enumerate(hands):
            if len(hand) != size:
                raise IllegalMove(f"each player is dealt {size} cards; seat {seat} got {len(hand)}", code="bad_deal")
        dealt = [c for hand in hands for c in hand] + [start] + list(stock)
        bad = [c for c in dealt if not isinstance(c, str) or c not in DECK_SET]
        if bad:
            raise IllegalMove(f"{bad[0]!r} is not a card of the 52-card deck (no jokers)", code="bad_deal")
        doubled = sorted({c for c, count in Counter(dealt).items() if count > 1})
        missing = sorted(set(DECK) - set(dealt))
        if doubled or missing:
            what = f"dealt twice: {' '.join(doubled)}" if doubled else f"missing: {' '.join(missing)}"
            raise IllegalMove(f"hands, start card and stock must be the 52 cards once each ({what})", code="bad_deal")
        state = evolve(
            state,
            phase="play",
            game=state.game + 1,
            dealer=dealer,
            hands=tuple(hand_order(h) for h in hands),
            face_down=((),) * n,
            out=(),
            stock=tuple(stock),
            start_card=start,
            target=cards.value(start),
            table=(),
            unconfirmed=(),
        )
        # The first player is the dealer's right-hand neighbour (with 2 players: the non-dealer).
        return self._give_turn(state, (dealer - 1) % n)

    # ---- turns ------------------------------------------------------------------------
    def actors(self, state: State) -> frozenset[int]:
        return frozenset() if state.phase != "play" else frozenset((state.to_move,))

    def legal_moves(self, state: State, seat: int) -> list[dict]:
        if state.phase != "play" or seat != state.to_move:
            return []
        hand = state.hands[seat]
        low, high = state.target + 1, state.target + 4
        totals = _subset_sums(hand, _VALUE)
        moves = [
            {"type": "play", "cards": [hand[i] for i in picked]}
            for mask, picked in _subsets(len(hand))
            if low <= totals[mask] <= high
        ]
        quads = state.config["p5_allow_quads"]
        sizes = pass_sizes(hand, quads)
        if sizes:
            ranks, suits = _subset_sums(hand, _RANK_BIT), _subset_sums(hand, _SUIT_BIT)
            moves += [
                {"type": "pass_combo", "cards": [hand[i] for i in picked]}
                for size in sizes
                for mask, picked in _subsets(len(hand), size)
                if _pattern(size, ranks[mask], suits[mask], quads)
            ]
        return moves or [{"type": "drop_out"}]

    def _can_move(self, state: State, seat: int) -> bool:
        """Whether ``legal_moves`` offers more than drop_out (true when it is not ``seat``'s turn)."""
        if state.phase != "play" or seat != state.to_move:
            return True
        hand = state.hands[seat]
        return has_play(hand, state.target) or bool(pass_sizes(hand, state.config["p5_allow_quads"]))

    actions = (
        Action("play", {"cards": _CARDS}),
        Action("pass_combo", {"cards": _CARDS}),
        Action("drop_out"),
    )
    system_events = ("drop_out",)
    system_events_after_over = ("drop_out",)

    def apply_chance(self, state: State, data: dict) -> State:
        if data["type"] != "deal":
            raise MalformedEvent(f"1234 has no chance step {data['type']!r}; the only one is deal")
        return self._apply_deal(state, data)

    def apply_system(self, state: State, data: dict) -> State:
        return self._confirm_drop_out(state, data)

    def apply_resign(self, state: State, seat: int, data: dict) -> State:
        return self._resign(evolve(state, unconfirmed=()), seat)

    def open_window(self, state: State) -> str | None:
        return None  # 1234 has no timed windows

    def apply_move(self, state: State, seat: int, data: dict) -> State:
        state = evolve(state, unconfirmed=()) if state.unconfirmed else state
        action = data["type"]
        if seat != state.to_move:
            raise NotYourTurn(f"it is seat {state.to_move}'s turn, not seat {seat}'s")
        if action == "drop_out":
            if self._can_move(state, seat):
                raise IllegalMove(
                    "you may drop out only when you can neither play nor pass; you have a legal move",
                    code="drop_out_not_allowed",
                )
            return self._drop_out(state, seat)
        chosen = self._chosen_cards(state, seat, data)
        if action == "play":
            self._check_play(state, chosen)
        elif pass_pattern(chosen, state.config["p5_allow_quads"]) is None:
            patterns = "; ".join(f"{code}: {text}" for code, text in PATTERNS.items())
            raise IllegalMove(
                f"{' '.join(chosen)} is not a pass pattern. The patterns are {patterns}",
                code="not_a_pass_pattern",
            )
        return self._lay_down(state, seat, action, chosen)

    def _chosen_cards(self, state: State, seat: int, data: dict) -> tuple[str, ...]:
        chosen = require_param(data, "cards", list, "a list of card ids from your hand")
        if not chosen:
            raise IllegalMove(f"{data['type']} needs at least one card", code="no_cards")
        for card in chosen:
            if not isinstance(card, str) or card not in DECK_SET:
                raise IllegalMove(f"{card!r} is not a card id such as 10H, AS or QC", code="not_a_card")
        if len(set(chosen)) != len(chosen):
            raise IllegalMove("each card may be named only once", code="duplicate_card")
        hand = state.hands[seat]
        missing = [c for c in chosen if c not in hand]
        if missing:
            raise IllegalMove(
                f"{' '.join(missing)} not in your hand; your hand is {' '.join(hand)}", code="card_not_in_hand"
            )
        return hand_order(chosen)

    def _check_play(self, state: State, chosen: tuple[str, ...]) -> None:
        low, high = state.target + 1, state.target + 4
        value = total(chosen)
        if low <= value <= high:
            return
        shown = "+".join(chosen)
        if value < low:
            raise IllegalMove(
                f"{shown} = {value} is too low: a play must total {low} to {high} (T = {state.target}, plus 1 to 4)",
                code="play_sum_too_low",
            )
        raise IllegalMove(
            f"{shown} = {value} is too high: a play must total {low} to {high} (T = {state.target}, plus 1 to 4)",
            code="play_sum_too_high",
        )

    def _lay_down(self, state: State, seat: int, action: str, chosen: tuple[str, ...]) -> State:
        kept = tuple(c for c in state.hands[seat] if c not in chosen)
        need = min(state.config["refill_count"], state.config["hand_limit"] - len(kept))
        drawn, stock = state.stock[:need], state.stock[need:]
        hands = list(state.hands)
        hands[seat] = hand_order(kept + drawn)
        state = evolve(
            state,
            hands=tuple(hands),
            stock=stock,
            table=state.table + (TableEntry(seat, action, chosen),),
            target=total(chosen) if action == "play" else state.target,
        )
        if not stock:
            return self._end_game(state, "stock_empty")
        return self._give_turn(state, self._next_seat(state, seat))

    def _next_seat(self, state: State, seat: int) -> int:
        """The next seat to the right (seat - 1) that is still in the game."""
        for step in range(1, state.seats + 1):
            candidate = (seat - step) % state.seats
            if candidate not in state.out:
                return candidate
        raise AssertionError("nobody left in the game")

    def _give_turn(self, state: State, seat: int) -> State:
        """Hand the turn to ``seat``; with auto_drop_out, drop out players who cannot move (A4)."""
        while True:
            state = evolve(state, to_move=seat)
            if not state.config["auto_drop_out"] or self._can_move(state, seat):
                return state
            state = self._lay_face_down(state, seat)
            state = evolve(state, unconfirmed=state.unconfirmed + (seat,))
            if state.phase != "play":
                return state
            seat = self._next_seat(state, seat)

    def _drop_out(self, state: State, seat: int) -> State:
        state = self._lay_face_down(state, seat)
        if state.phase != "play":
            return state
        return self._give_turn(state, self._next_seat(state, seat))

    def _lay_face_down(self, state: State, seat: int) -> State:
        """``seat`` leaves the game; ends it when one player is left."""
        hands, face_down = list(state.hands), list(state.face_down)
        face_down[seat], hands[seat] = hands[seat], ()
        state = evolve(state, hands=tuple(hands), face_down=tuple(face_down), out=state.out + (seat,))
        if state.seats - len(state.out) == 1:
            return self._end_game(state, "last_player")
        return state

    def _confirm_drop_out(self, state: State, data: dict) -> State:
        seat = data.get("seat")
        if seat not in state.unconfirmed or isinstance(seat, bool):
            raise IllegalMove(
                f"seat {seat!r} has not just been dropped out automatically; a system drop_out line only "
                "records an automatic drop-out right after the event that caused it",
                code="no_automatic_drop_out",
            )
        return evolve(state, unconfirmed=tuple(s for s in state.unconfirmed if s != seat))

    def _resign(self, state: State, seat: int) -> State:
        """A resigning seat drops out at once and ranks last; the match ends after this game."""
        if seat in state.resigned:
            raise IllegalMove(f"seat {seat} has already resigned", code="already_resigned")
        state = evolve(state, resigned=state.resigned + (seat,))
        if state.phase == "deal":
            return evolve(state, phase="over")
        if seat in state.out:
            return state
        state = self._lay_face_down(state, seat)
        if state.phase == "play" and state.to_move == seat:
            state = self._give_turn(state, self._next_seat(state, seat))
        return state

    # ---- end of a game and of the match ---------------------------------------------------
    def _end_game(self, state: State, reason: str) -> State:
        n = state.seats
        active = [s for s in range(n) if s not in state.out]
        winners = tuple(active) if reason == "last_player" else self._best_hands(state, active)
        sums = tuple(total(state.face_down[s]) if s in state.out else total(state.hands[s]) for s in range(n))
        deltas = self._settle(state, winners, sums)
        compared = tuple(active) if reason == "stock_empty" else ()
        result = GameResult(state.game, state.dealer, reason, winners, sums, deltas, compared)
        totals = tuple(t + d for t, d in zip(state.totals, deltas, strict=True))
        state = evolve(state, to_move=None, results=state.results + (result,), totals=totals)
        return evolve(state, phase="over" if self._match_over(state) else "deal")

    def _best_hands(self, state: State, active: list[int]) -> tuple[int, ...]:
        """Highest card wins; then the second highest, and so on (A8). Suits never count."""
        keys = {s: sorted((cards.value(c) for c in state.hands[s]), reverse=True) for s in active}
        best = list(active)
        for index in range(max(len(k) for k in keys.values())):
            present = [s for s in best if len(keys[s]) > index]
            if len(present) < len(best) and state.config["tiebreak_missing_card"] == "ignored":
                break
            best = present
            top = max(keys[s][index] for s in best)
            best = [s for s in best if keys[s][index] == top]
            if len(best) == 1:
                break
        return tuple(best)

    def _settle(self, state: State, winners: tuple[int, ...], sums: tuple[int, ...]) -> tuple:
        config, n = state.config, state.seats
        deltas = [0] * n
        losers = [s for s in range(n) if s not in winners]
        mode = config["scoring_mode"]
        for loser in losers:
            amount = sums[loser]
            if mode == "loser_minus":
                deltas[loser] += amount
                continue
            if mode == "none":
                continue
            if mode == "chips" and config["chips_partial_payment"]:
                amount = min(amount, max(state.totals[loser], 0))
            share = self._share(config, amount, len(winners))
            for winner in winners:
                deltas[winner] += share
            if mode == "chips":
                deltas[loser] -= share * len(winners)
        return tuple(deltas)

    def _share(self, config: dict, amount: int, ways: int) -> int | float:
        if config["shared_win_rounding"] == "down" or amount % ways == 0:
            return amount // ways
        return amount / ways

    def _match_over(self, state: State) -> bool:
        config = state.config
        mode = config["scoring_mode"]
        if mode == "none" or state.resigned or len(state.results) >= config["match_games"]:
            return True
        if mode == "winner_plus":
            return bool(config["target_score"]) and max(state.totals) >= config["target_score"]
        if mode == "loser_minus":
            return bool(config["penalty_limit"]) and max(state.totals) >= config["penalty_limit"]
        return min(state.totals) <= 0

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != "over":
            return None
        mode = state.config["scoring_mode"]
        n = state.seats
        last = state.results[-1] if state.results else None
        detail = {
            "reason": "resign" if last is None else last.reason,
            "scoring_mode": mode,
            "games": [self._result_json(state, r) for r in state.results],
            "resigned": list(state.resigned),
        }
        staying = [s for s in range(n) if s not in state.resigned]
        if mode == "none":
            winners = set(last.winners) if last else set(staying)
            scores = {s: int(s in winners) for s in range(n)}
            groups = [[s for s in staying if s in winners], [s for s in staying if s not in winners]]
        else:
            scores = {s: state.totals[s] for s in range(n)}
            sign = 1 if mode == "loser_minus" else -1
            levels = sorted({sign * state.totals[s] for s in staying})
            groups = [[s for s in staying if sign * state.totals[s] == level] for level in levels]
            detail["totals"] = list(state.totals)
        groups.append(list(state.resigned))
        ranking = tuple(tuple(sorted(g)) for g in groups if g)
        return Outcome(ranking, scores, detail)

    # ---- hidden information -------------------------------------------------------------
    def _finished(self, state: State) -> GameResult | None:
        if state.results and state.results[-1].game == state.game:
            return state.results[-1]
        return None

    def _hand_shown(self, state: State, viewer: int | None, owner: int) -> bool:
        """Live hands are private; at a stock end every hand still in the game is compared openly."""
        if viewer == owner:
            return True
        result = self._finished(state)
        return result is not None and result.reason == "stock_empty" and owner not in state.out

    def _face_down_shown(self, state: State, viewer: int | None, owner: int) -> bool:
        if viewer == owner:
            return True
        config = state.config
        return self._finished(state) is not None and config["scoring_mode"] != "none" and config["reveal_dropped_hands"]

    def hidden_from(self, state: State, seat: int | None) -> frozenset[str]:
        hidden = set(state.stock)
        for owner in range(len(state.hands)):
            if not self._hand_shown(state, seat, owner):
                hidden.update(state.hands[owner])
            if not self._face_down_shown(state, seat, owner):
                hidden.update(state.face_down[owner])
        return frozenset(hidden)

    def view(self, state: State, seat: int | None) -> dict:
        players = []
        for owner in range(state.seats):
            hand = state.hands[owner] if state.hands else ()
            laid = state.face_down[owner] if state.face_down else ()
            players.append(
                {
                    "seat": owner,
                    "hand_size": len(hand),
                    "hand": list(hand) if state.hands and self._hand_shown(state, seat, owner) else None,
                    "dropped_out": owner in state.out,
                    "face_down_size": len(laid),
                    "face_down": list(laid) if laid and self._face_down_shown(state, seat, owner) else None,
                    "resigned": owner in state.resigned,
                    "total": state.totals[owner],
                }
            )
        result = self._finished(state)
        return {
            "phase": state.phase,
            "game": state.game,
            "scoring_mode": state.config["scoring_mode"],
            "dealer": state.dealer,
            "to_move": state.to_move,
            "target": state.target if state.game else None,
            "play_range": [state.target + 1, state.target + 4] if state.phase == "play" else None,
            "start_card": state.start_card,
            "stock_count": len(state.stock),
            "table": [{"seat": e.seat, "type": e.kind, "cards": list(e.cards)} for e in state.table],
            "drop_outs": list(state.out),
            "players": players,
            "result": None if result is None else self._result_json(state, result, seat),
            "results": [self._result_json(state, r, seat) for r in state.results],
            "next_dealer": self._next_dealer(state) if state.phase == "deal" else None,
        }

    def _result_json(self, state: State, result: GameResult, seat: int | None = None) -> dict:
        """A game's result without card ids (ids are reused by the next deal)."""
        scored = state.config["scoring_mode"] != "none"  # losers' sums are settled openly
        sums = [
            value if owner == seat or owner in result.compared or (scored and owner not in result.winners) else None
            for owner, value in enumerate(result.hand_sums)
        ]
        return {
            "game": result.game,
            "dealer": result.dealer,
            "reason": result.reason,
            "winners": list(result.winners),
            "hand_sums": sums,
            "deltas": list(result.deltas),
        }

    def event_view(self, state: State, event: dict, seat: int | None) -> dict:
        data = event["data"]
        if event["kind"] == "chance" and data.get("type") == "deal":
            data = dict(data)
            hands = data.get("hands") or []
            data["hands"] = [h if owner == seat else [None] * len(h) for owner, h in enumerate(hands)]
            data["stock"] = [None] * len(data.get("stock") or [])
        # Card ids of earlier games of a match come back in later deals: hide whatever is hidden now.
        hidden = self.hidden_from(state, seat)
        return {**event, "data": _mask(data, hidden)}

    # ---- serialisation ------------------------------------------------------------------
    def dump_state(self, state: State) -> dict:
        return {
            "config": state.config,
            "seats": state.seats,
            "phase": state.phase,
            "game": state.game,
            "dealer": state.dealer,
            "hands": [list(h) for h in state.hands],
            "face_down": [list(h) for h in state.face_down],
            "out": list(state.out),
            "stock": list(state.stock),
            "start_card": state.start_card,
            "target": state.target,
            "table": [[e.seat, e.kind, list(e.cards)] for e in state.table],
            "to_move": state.to_move,
            "unconfirmed": list(state.unconfirmed),
            "resigned": list(state.resigned),
            "totals": list(state.totals),
            "results": [
                [r.game, r.dealer, r.reason, list(r.winners), list(r.hand_sums), list(r.deltas), list(r.compared)]
                for r in state.results
            ],
        }

    def load_state(self, data: dict) -> State:
        return State(
            config=data["config"],
            seats=data["seats"],
            phase=data["phase"],
            game=data["game"],
            dealer=data["dealer"],
            hands=tuple(tuple(h) for h in data["hands"]),
            face_down=tuple(tuple(h) for h in data["face_down"]),
            out=tuple(data["out"]),
            stock=tuple(data["stock"]),
            start_card=data["start_card"],
            target=data["target"],
            table=tuple(TableEntry(s, k, tuple(c)) for s, k, c in data["table"]),
            to_move=data["to_move"],
            unconfirmed=tuple(data["unconfirmed"]),
            resigned=tuple(data["resigned"]),
            totals=tuple(data["totals"]),
            results=tuple(
                GameResult(g, d, r, tuple(w), tuple(s), tuple(x), tuple(c)) for g, d, r, w, s, x, c in data["results"]
            ),
        )


def _mask(obj, hidden: frozenset[str]):
    if isinstance(obj, str):
        return None if obj in hidden else obj
    if isinstance(obj, list):
        return [_mask(item, hidden) for item in obj]
    if isinstance(obj, dict):
        return {key: _mask(value, hidden) for key, value in obj.items()}
    return obj


ENGINE = OneTwoThreeFour()
