"""Mekuri Hinmin (めくり貧民): two-player shedding with reach declarations, draw-two chains, 3-beats-joker.

Implements ``shared/rules/mekuri-hinmin.md`` (seed 004). The acting player is always in one
*situation* of spec §3 (respond, lead, post_draw, attack_pending, post_accept, going_out_window,
opening_joker). Every draw goes through a queue: when the draw pile runs dry and the discard pile
can be reshuffled, the queue stops at a ``reshuffle`` chance node and resumes after it (§4.7), so
all follow-up situations are set *before* the cards are drawn. A record may hold a whole match
(``match_games`` games); the previous loser chooses the first player and the up-card handling.

Two bounds that the spec leaves open keep every game finite (the contract needs a true bound on
events): a tie may be proposed at most once per position by each player, and a game that reaches
``auto_tie_after_events`` events ends in a tie (the seed's "endless games are drawn").
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

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
    UnexpectedChance,
    evolve,
    require_param,
)

RANK_ORDER = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
STRENGTH = {rank: index + 3 for index, rank in enumerate(RANK_ORDER)}  # 3..15; a joker is 16
JOKER_STRENGTH = 16
RANK_NAMES = {value: name for name, value in STRENGTH.items()}
# The ranks a single 8 of another suit may be played on, without and with eight_counts_ace_two_low.
EIGHT_TARGETS = {False: ("3", "4", "5", "6", "7"), True: ("3", "4", "5", "6", "7", "A", "2")}
SUITS = cards.SUITS
PLAY_SITUATIONS = ("respond", "lead", "post_draw", "post_accept", "opening_joker")
TIE_ACTIONS = ("propose_tie", "accept_tie", "reject_tie")
MAX_MATCH_GAMES = 20
# The situations (spec §3) in which each action of a turn may be taken.
ACTION_SITUATIONS = {
    "play": PLAY_SITUATIONS,
    "pass_and_draw": ("respond", "opening_joker"),
    "end_pass": ("post_draw", "post_accept"),
    "counter_two": ("attack_pending",),
    "cancel_two_with_joker": ("attack_pending",),
    "accept_draw": ("attack_pending",),
    "counter_going_out": ("going_out_window",),
    "accept_going_out": ("going_out_window",),
}
MAX_GAME_EVENTS = 5000


class OptionalFlag(Flag):
    """A flag whose value may also be null (JSON ``null``), e.g. an optional limit."""

    def validate(self, value):
        return None if value is None else super().validate(value)


# ---- cards and shapes ------------------------------------------------------------------------
def is_joker(card_id: str) -> bool:
    return card_id in cards.JOKERS


def _strength(card_id: str) -> int:
    return JOKER_STRENGTH if is_joker(card_id) else STRENGTH[cards.rank_of(card_id)]


def _rank(card_id: str) -> str | None:
    return None if is_joker(card_id) else cards.rank_of(card_id)


def _sort_key(card_id: str) -> tuple:
    return (_strength(card_id), 9 if is_joker(card_id) else SUITS.index(card_id[-1]), card_id)


def build_deck(jokers: int) -> tuple[str, ...]:
    return tuple(f"{r}{s}" for s in SUITS for r in RANK_ORDER) + cards.JOKERS[:jokers]


DECKS = {jokers: frozenset(build_deck(jokers)) for jokers in (0, 1, 2)}
_PACKS = {jokers: build_deck(jokers) for jokers in (0, 1, 2)}  # in build_deck's order (what is shuffled)
# Each card's strength, rank and sort key, read once: the move generator asks for them constantly.
_STRENGTH = {c: _strength(c) for c in DECKS[2]}
_RANK = {c: _rank(c) for c in DECKS[2]}
_SORT_KEY = {c: _sort_key(c) for c in DECKS[2]}


def strength(card_id: str) -> int:
    try:
        return _STRENGTH[card_id]
    except KeyError:
        return _strength(card_id)


def rank(card_id: str) -> str | None:
    try:
        return _RANK[card_id]
    except KeyError:
        return _rank(card_id)


def sort_cards(ids) -> list[str]:
    try:
        return sorted(ids, key=_SORT_KEY.__getitem__)
    except KeyError:
        return sorted(ids, key=_sort_key)


_CARD = Param("string", "the id of a card in your hand", max_length=ID_LENGTH)
_CARDS = Param("list", "card ids from your hand", max_length=54)
_REACH = Param("boolean", "declare reach with this play", False, nullable=True)


@dataclass(frozen=True)
class Shape:
    """One reading of a play (§3.1): single, set(n) or straight(n)."""

    kind: str  # single | set | straight
    size: int
    value: int  # single: card strength; set: rank strength (16 = pair of jokers); straight: high
    low: int = 0
    high: int = 0
    suit: str | None = None
    jokers: int = 0


def shapes_of(ids, config: dict) -> list[Shape]:
    """Every valid reading of ``ids``, a set before a straight (1 natural + 2 jokers is both)."""
    n = len(ids)
    if n == 1:
        single = _SINGLES.get(ids[0])
        if single is not None:
            return [single]
    jokers = sum(1 for c in ids if is_joker(c))
    naturals = [c for c in ids if not is_joker(c)]
    if n == 1:
        return [Shape("single", 1, strength(ids[0]), jokers=jokers)]
    out = []
    if 2 <= n <= 5:
        if not naturals and n == 2:
            out.append(Shape("set", 2, JOKER_STRENGTH, jokers=2))
        elif naturals and len({rank(c) for c in naturals}) == 1:
            if not (n == 5 and config["quintet_requires_four_naturals"] and len(naturals) != 4):
                out.append(Shape("set", n, STRENGTH[rank(naturals[0])], jokers=jokers))
    if n >= 3 and naturals and len({c[-1] for c in naturals}) == 1:
        values = sorted(strength(c) for c in naturals)
        if len(set(values)) == len(values) and values[-1] - values[0] + 1 <= n:
            # Jokers fill the gaps, then take the lowest values left (「一番弱い数字となる」).
            extra = n - (values[-1] - values[0] + 1)
            low = max(3, values[0] - extra)
            high = low + n - 1
            if high <= 15:
                out.append(Shape("straight", n, high, low, high, naturals[0][-1], jokers))
    return out


# A single card's one reading, made once per card (shapes are immutable).
_SINGLES = {c: Shape("single", 1, _STRENGTH[c], jokers=int(is_joker(c))) for c in DECKS[2]}


def pick_shape(shapes: list[Shape], kind: str | None) -> Shape | None:
    """The reading that answers a top play of ``kind`` (any reading on a lead: a set first)."""
    for shape in shapes:
        if kind is None or shape.kind == kind:
            return shape
    return shapes[0] if shapes else None


def describe_shape(shape: Shape) -> str:
    if shape.kind == "single":
        return "single card"
    if shape.kind == "set":
        return {2: "pair", 3: "triple", 4: "quartet", 5: "quintet"}[shape.size]
    return f"{shape.size}-card straight"


def _swap(pair: tuple, seat: int, value) -> tuple:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


# ---- state ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class MekuriState:
    config: dict
    phase: str  # choose_first | deal | upcard_choice | upcard_reshuffle | play | over
    game: int = 1
    chooser: int | None = None  # previous loser: picks the first player and the up-card handling
    first_player: int | None = None
    hands: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    draw_pile: tuple[str, ...] = ()  # top first
    discard: tuple[str, ...] = ()
    field: tuple[str, ...] = ()  # every card played since the last flush, the top play last
    top: tuple[str, ...] = ()  # the play to answer; () on a free lead
    top_kind: str | None = None
    top_owner: int | None = None  # None: the initial up-card
    designated: str | None = None  # suit named with a single 8
    pending: int = 0  # draw-two attack waiting for ``to_move`` (or the value of a final 2)
    to_move: int | None = None
    situation: str | None = None
    drawn: tuple[str, ...] = ()  # cards of this turn's pass_and_draw
    opening: str | None = None  # joker1 | joker2 while the kept joker up-card is answered (§3.6)
    reach: tuple[int | None, int | None] = (None, None)  # the declarer's turn number it lasts through
    turns: tuple[int, int] = (0, 0)
    finisher: int | None = None
    final_play: tuple[str, ...] = ()
    draw_queue: tuple[tuple[int, int, str], ...] = ()  # (seat, cards still to draw, why)
    reshuffles: int = 0
    tie_offer: int | None = None
    tie_blocked: tuple[bool, bool] = (False, False)
    game_events: int = 0
    results: tuple[tuple, ...] = ()  # (winner or None, reason, revealed hands or None) per game
    resigned: int | None = None
    public: frozenset[str] = frozenset()  # every card that has been face up
    seen: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())  # privately seen cards


class MekuriHinmin(Engine):
    slug = "mekuri-hinmin"
    name = "Mekuri Hinmin"
    rules_version = "1"
    min_seats = 2
    max_seats = 2
    max_events = MAX_MATCH_GAMES * MAX_GAME_EVENTS + 1
    flags = (
        Flag("deck_jokers", 2, "Jokers in the pack: 2 (54 cards), 1 (53) or 0 (52).", "int", (0, 1, 2)),
        Flag("initial_hand_size", 5, "Cards dealt to each player.", "int", minimum=5, maximum=10),
        Flag(
            "first_game_first_player",
            "random",
            "Who plays first in a game without a previous loser: random, or seat 0 (fixed_seat).",
            "str",
            ("random", "fixed_seat"),
        ),
        Flag(
            "first_game_special_upcard",
            "reshuffle",
            "A joker or 2 up-card when nobody lost before: reshuffle and flip again, or keep it.",
            "str",
            ("reshuffle", "as_is"),
        ),
        Flag("initial_two_as_is_draw", 2, "Cards each player draws on a kept 2 up-card.", "int", (1, 2)),
        Flag(
            "initial_two_after_draw",
            "first_player_free_lead",
            "After the draws on a kept 2: flush it and the first player leads, or answer the 2.",
            "str",
            ("first_player_free_lead", "play_on_two"),
        ),
        Flag("post_draw_must_use_drawn", True, "A play after pass_and_draw must include a drawn card."),
        Flag(
            "straight_beat_rule",
            "no_overlap",
            "How a straight beats a straight: low > old high, low >= old low + 2, or low > old low.",
            "str",
            ("no_overlap", "skip_one", "higher_low"),
        ),
        Flag("straight_follow_same_suit", False, "An answering straight must have the same suit."),
        Flag("cross_type_beats", False, "Sets and straights never answer each other.", choices=(False,)),
        Flag("quintet_requires_four_naturals", False, "A quintet must be four naturals and one joker."),
        Flag(
            "eight_suit_choice_scope",
            "any_single_eight",
            "Which single 8 may name a suit: any, or only one played on a 3-7 up-card.",
            "str",
            ("any_single_eight", "special_play_only"),
        ),
        Flag("eight_designation_requires_higher", True, "After a named suit the card must be above 8."),
        Flag("eight_counts_ace_two_low", False, "An 8 may also be played on an A or a 2 of another suit."),
        Flag("final_two_always_attacks", True, "A single 2 that empties the hand always attacks."),
        Flag("two_max_stack", 16, "The largest draw-two penalty.", "int", (2, 4, 8, 16)),
        Flag(
            "three_on_joker_next_leader",
            "three_player",
            "Who leads after 3s beat jokers: the 3's player or the opponent.",
            "str",
            ("three_player", "opponent"),
        ),
        Flag("joker_on_joker", False, "A single joker may be played on a single joker."),
        Flag("natural_threes_only", True, "Only natural 3s beat jokers (a 3 with a joker does not)."),
        Flag("pair_of_twos_final_cancellable", False, "A final natural pair of 2s is voided by a joker pair."),
        Flag("false_out_penalty", 5, "Cards drawn for a false declaration.", "int", minimum=1, maximum=20),
        Flag("auto_accept_if_no_counter", False, "The server accepts a going-out when no counter is held."),
        Flag("auto_end_pass", False, "The server ends a pass when no legal play is left."),
        Flag(
            "reach_feasibility_check",
            "none",
            "none, or single_combination: the hand left after a reach must form one valid play.",
            "str",
            ("none", "single_combination"),
        ),
        Flag("reshuffle_includes_field", False, "A reshuffle also takes the field cards under the top play."),
        Flag("discard_pile_browsable", True, "Players may look through the discard pile."),
        OptionalFlag(
            "auto_tie_after_reshuffles",
            None,
            "A game is tied when the draw pile runs out after this many reshuffles (null: never).",
            "int",
            minimum=0,
            maximum=1000,
        ),
        OptionalFlag(
            "reach_think_time_s",
            None,
            "Advisory thinking time after a reach (seconds).",
            "float",
            minimum=1,
            maximum=3600,
        ),
        Flag("reveal_hands_at_end", False, "Show both hands when a game ends."),
        Flag("match_games", 1, "Games in the match (the record holds all of them).", "int", minimum=1, maximum=20),
        Flag(
            "auto_tie_after_events",
            2000,
            "A game still running after this many events is tied (endless games are drawn).",
            "int",
            minimum=50,
            maximum=MAX_GAME_EVENTS,
        ),
    )

    # ---- setup and chance ---------------------------------------------------------------
    def setup(self, config: dict | None, seats: int = 2) -> MekuriState:
        return MekuriState(config=self.validate_setup(config, seats), phase="deal")

    def chance_due(self, state: MekuriState) -> str | None:
        if state.phase in ("deal", "upcard_reshuffle"):
            return state.phase
        if state.phase == "play" and state.draw_queue:
            return "reshuffle"
        return None

    def sample_chance(self, state: MekuriState, rng) -> dict:
        due = self.chance_due(state)
        if due == "deal":
            first = state.first_player
            if first is None:
                first = 0 if state.config["first_game_first_player"] == "fixed_seat" else rng.randbelow(2)
            deck = rng.shuffle(_PACKS[state.config["deck_jokers"]])
            size = state.config["initial_hand_size"]
            return {
                "type": "deal",
                "first_player": first,
                "hands": [deck[:size], deck[size : 2 * size]],
                "upcard": deck[2 * size],
                "draw_pile": deck[2 * size + 1 :],
            }
        if due == "upcard_reshuffle":
            pile = rng.shuffle(state.draw_pile + state.top)
            return {"type": "upcard_reshuffle", "upcard": pile[0], "draw_pile": pile[1:]}
        if due == "reshuffle":
            return {"type": "reshuffle", "draw_pile": rng.shuffle(self._reshuffle_source(state))}
        raise UnexpectedChance("no chance event is due now")

    def _reshuffle_source(self, state: MekuriState) -> tuple[str, ...]:
        if state.config["reshuffle_includes_field"]:
            return state.discard + state.field[: len(state.field) - len(state.top)]
        return state.discard

    def _apply_chance(self, state: MekuriState, data: dict) -> MekuriState:
        due = self.chance_due(state)
        if due is None:
            raise UnexpectedChance("no chance event is due now")
        if data["type"] != due:
            raise UnexpectedChance(f"the next chance event must be {due!r}, not {data['type']!r}")
        if due == "deal":
            return self._apply_deal(state, data)
        if due == "upcard_reshuffle":
            upcard, pile = data.get("upcard"), data.get("draw_pile")
            if not isinstance(upcard, str) or not isinstance(pile, list):
                raise MalformedEvent("an upcard_reshuffle needs an upcard and a draw_pile list")
            if sorted([upcard, *pile], key=str) != sorted(state.draw_pile + state.top, key=str):
                raise IllegalMove(
                    "the up-card and the new draw pile must be exactly the old draw pile plus the old up-card",
                    code="bad_reshuffle",
                )
            state = evolve(state, draw_pile=tuple(pile), top=(upcard,), field=(upcard,), public=state.public | {upcard})
            return self._start_with_upcard(state)
        pile = data.get("draw_pile")
        if not isinstance(pile, list):
            raise MalformedEvent("a reshuffle needs a draw_pile list")
        source = self._reshuffle_source(state)
        if sorted(pile, key=str) != sorted(source, key=str):
            raise IllegalMove(
                f"the new draw pile must be a shuffle of the {len(source)} cards being reshuffled", code="bad_reshuffle"
            )
        field = state.top if state.config["reshuffle_includes_field"] else state.field
        state = evolve(state, draw_pile=tuple(pile), discard=(), field=field, reshuffles=state.reshuffles + 1)
        return self._settle(state)

    def _apply_deal(self, state: MekuriState, data: dict) -> MekuriState:
        first, hands, upcard, pile = (data.get(k) for k in ("first_player", "hands", "upcard", "draw_pile"))
        if isinstance(first, bool) or first not in (0, 1):
            raise MalformedEvent("a deal needs first_player 0 or 1")
        if not (isinstance(hands, list) and len(hands) == 2 and all(isinstance(h, list) for h in hands)):
            raise MalformedEvent("a deal needs two hands (lists of cards)")
        if not isinstance(upcard, str) or not isinstance(pile, list):
            raise MalformedEvent("a deal needs an upcard and a draw_pile list")
        expected_first = state.first_player
        if expected_first is None and state.config["first_game_first_player"] == "fixed_seat":
            expected_first = 0
        if expected_first is not None and first != expected_first:
            raise IllegalMove(f"seat {expected_first} was chosen to play first, not seat {first}", code="bad_deal")
        size = state.config["initial_hand_size"]
        if any(len(hand) != size for hand in hands):
            raise IllegalMove(f"each player must be dealt {size} cards", code="bad_deal")
        deck = _PACKS[state.config["deck_jokers"]]
        dealt = [*hands[0], *hands[1], upcard, *pile]
        try:  # every card of the pack (its cards are distinct): as many as the pack, and all of them
            complete = len(dealt) == len(deck) and DECKS[state.config["deck_jokers"]] == set(dealt)
        except TypeError:  # an unhashable value: not the pack either
            complete = False
        if not complete:
            raise IllegalMove(
                f"hands, up-card and draw pile must hold the {len(deck)} cards of the pack once each",
                code="bad_deal",
            )
        hands = (tuple(hands[0]), tuple(hands[1]))
        state = evolve(
            state,
            phase="play",
            first_player=first,
            hands=hands,
            draw_pile=tuple(pile),
            top=(upcard,),
            field=(upcard,),
            public=state.public | {upcard},
            seen=(state.seen[0] | set(hands[0]), state.seen[1] | set(hands[1])),
        )
        return self._start_with_upcard(state)

    def _start_with_upcard(self, state: MekuriState) -> MekuriState:
        upcard = state.top[0]
        if is_joker(upcard) or rank(upcard) == "2":
            if state.chooser is not None:
                return evolve(state, phase="upcard_choice")
            if state.config["first_game_special_upcard"] == "reshuffle":
                return evolve(state, phase="upcard_reshuffle")
        return self._start_as_is(state)

    def _start_as_is(self, state: MekuriState) -> MekuriState:
        first = state.first_player
        state = evolve(state, phase="play", top_kind="single", top_owner=None)
        upcard = state.top[0]
        if is_joker(upcard):
            return self._give_turn(state, first, "opening_joker", opening="joker1")
        if rank(upcard) == "2":
            count = state.config["initial_two_as_is_draw"]
            state = self._queue(state, first, count, "opening")
            state = self._queue(state, 1 - first, count, "opening")
            if state.config["initial_two_after_draw"] == "first_player_free_lead":
                state = self._flush(state)
                return self._settle(self._give_turn(state, first, "lead"))
            return self._settle(self._give_turn(state, first, "respond"))
        return self._give_turn(state, first, "respond")

    # ---- draws --------------------------------------------------------------------------
    def _queue(self, state: MekuriState, seat: int, count: int, why: str) -> MekuriState:
        return evolve(state, draw_queue=state.draw_queue + ((seat, count, why),)) if count > 0 else state

    def _settle(self, state: MekuriState) -> MekuriState:
        """Run queued draws until done or a reshuffle is due; a leader without cards draws first."""
        state = self._run_draws(state)
        if state.phase == "play" and not state.draw_queue and state.situation == "lead":
            seat = state.to_move
            if not state.hands[seat]:
                # Only after a penalty cut short by total exhaustion (§4.7): the owed penalty is drawn.
                state = self._run_draws(self._queue(state, seat, state.config["false_out_penalty"], "penalty"))
                if state.phase == "play" and not state.draw_queue and not state.hands[seat]:
                    return self._end_game(state, None, "exhausted")
        return state

    def _run_draws(self, state: MekuriState) -> MekuriState:
        if not state.draw_queue:
            return state
        queue = list(state.draw_queue)
        hands, seen, pile, drawn = list(state.hands), list(state.seen), state.draw_pile, state.drawn
        while queue:
            seat, count, why = queue[0]
            got = pile[:count]
            pile = pile[len(got) :]
            hands[seat] = hands[seat] + got
            seen[seat] = seen[seat] | set(got)
            if why == "pass":
                drawn = drawn + got
            count -= len(got)
            if count and self._reshuffle_source(state):
                limit = state.config["auto_tie_after_reshuffles"]
                if limit is not None and state.reshuffles >= limit:
                    state = evolve(state, hands=tuple(hands), seen=tuple(seen), draw_pile=pile, draw_queue=())
                    return self._end_game(state, None, "reshuffle_limit")
                queue[0] = (seat, count, why)
                break
            queue.pop(0)  # done, or nothing left anywhere: the rest is forgiven
        return evolve(state, hands=tuple(hands), seen=tuple(seen), draw_pile=pile, drawn=drawn, draw_queue=tuple(queue))

    # ---- turn helpers -------------------------------------------------------------------
    def _give_turn(self, state: MekuriState, seat: int, situation: str, *, opening: str | None = None) -> MekuriState:
        """Hand the action to ``seat``; a new turn ends the previous player's turn and may lapse a reach."""
        reach, turns = state.reach, state.turns
        previous = state.to_move
        if seat != previous:
            if previous is not None and situation != "going_out_window":
                lasts = reach[previous]
                if lasts is not None and lasts <= turns[previous]:
                    reach = _swap(reach, previous, None)  # 「リーチ棒を戻して」
            turns = _swap(turns, seat, turns[seat] + 1)
        return evolve(state, to_move=seat, situation=situation, drawn=(), opening=opening, reach=reach, turns=turns)

    def _flush(self, state: MekuriState) -> MekuriState:
        return evolve(
            state,
            discard=state.discard + state.field,
            field=(),
            top=(),
            top_kind=None,
            top_owner=None,
            designated=None,
            pending=0,
        )

    def _declare(self, state: MekuriState, seat: int) -> MekuriState:
        return evolve(state, reach=_swap(state.reach, seat, state.turns[seat] + 1))

    def _lay(
        self, state: MekuriState, seat: int, played: list[str], kind: str, designated: str | None = None, **changes
    ) -> MekuriState:
        """``seat`` lays ``played`` as the top play (``changes``: more fields set in the same copy)."""
        hand = tuple(c for c in state.hands[seat] if c not in played)
        top = tuple(played)
        return evolve(
            state,
            hands=_swap(state.hands, seat, hand),
            field=state.field + top,
            top=top,
            top_kind=kind,
            top_owner=seat,
            designated=designated,
            public=state.public.union(top),
            **changes,
        )

    def _is_threes(self, state: MekuriState, ids) -> bool:
        naturals = [c for c in ids if not is_joker(c)]
        if not naturals or any(rank(c) != "3" for c in naturals):
            return False
        return len(naturals) == len(ids) or not state.config["natural_threes_only"]

    def _beats_jokers(self, state: MekuriState, ids) -> bool:
        top = state.top
        return bool(top) and all(is_joker(c) for c in top) and len(ids) == len(top) and self._is_threes(state, ids)

    def _cancellable(self, state: MekuriState, final) -> bool:
        if any(is_joker(c) for c in final):
            return True
        if all(rank(c) == "2" for c in final):
            return len(final) == 1 or (len(final) == 2 and state.config["pair_of_twos_final_cancellable"])
        return False

    # ---- after a card leaves a hand (§4.1, §4.4, §4.6) ----------------------------------
    def _after_play(self, state: MekuriState, seat: int, played, *, beat_jokers: bool) -> MekuriState:
        opponent = 1 - seat
        empty = not state.hands[seat]
        penalty = state.config["false_out_penalty"]
        if beat_jokers:
            state = self._flush(state)  # 「必然、場を流すことになる」
            leader = seat if state.config["three_on_joker_next_leader"] == "three_player" else opponent
            if empty:
                if state.reach[seat] is not None:
                    return self._end_game(state, seat, "going_out")
                state = self._queue(state, seat, penalty, "penalty")
            return self._settle(self._give_turn(state, leader, "lead"))
        if empty:
            if state.reach[seat] is not None:
                if self._cancellable(state, played):
                    state = evolve(state, finisher=seat, final_play=tuple(played))
                    return self._settle(self._give_turn(state, opponent, "going_out_window"))
                return self._end_game(state, seat, "going_out")
            state = self._queue(state, seat, penalty, "penalty")  # 嘘の宣言: the play stands
        return self._settle(self._give_turn(state, opponent, "attack_pending" if state.pending else "respond"))

    # ---- actors, moves ------------------------------------------------------------------
    _actors_cache: tuple | None = None  # (state, actors): the state is held so its id() stays unique

    def actors(self, state: MekuriState) -> frozenset[int]:
        cached = self._actors_cache
        if cached is not None and cached[0] is state:
            return cached[1]  # the referee, bots and legal_moves ask several times per state
        if state.phase in ("choose_first", "upcard_choice"):
            seats = frozenset((state.chooser,))
        elif state.phase != "play" or state.draw_queue:
            seats = frozenset()
        elif state.tie_offer is not None:
            seats = frozenset((1 - state.tie_offer,))
        elif self._may_propose_tie(state, 1 - state.to_move):
            seats = frozenset((state.to_move, 1 - state.to_move))
        else:
            seats = frozenset((state.to_move,))
        self._actors_cache = (state, seats)
        return seats

    def _may_propose_tie(self, state: MekuriState, seat: int) -> bool:
        return (
            state.phase == "play"
            and not state.draw_queue
            and state.tie_offer is None
            and state.situation != "going_out_window"
            and not state.tie_blocked[seat]
        )

    def legal_moves(self, state: MekuriState, seat: int) -> list[dict]:
        if seat not in self.actors(state):
            return []
        if state.phase == "choose_first":
            return [{"type": "choose_first_player", "player": p} for p in (0, 1)]
        if state.phase == "upcard_choice":
            return [{"type": "choose_initial_upcard_handling", "option": o} for o in ("reshuffle", "as_is")]
        if state.tie_offer is not None:
            return [{"type": "accept_tie"}, {"type": "reject_tie"}]
        moves: list[dict] = []
        if seat == state.to_move:
            situation = state.situation
            hand = state.hands[seat]
            if situation in PLAY_SITUATIONS:
                moves.extend(self._play_moves(state, seat))
            if situation in ("respond", "opening_joker"):
                moves.append({"type": "pass_and_draw"})
            elif situation in ("post_draw", "post_accept"):
                moves.append({"type": "end_pass"})
            elif situation == "attack_pending":
                for c in sort_cards(hand):
                    reach_options = (False, True) if len(hand) > 1 and self._feasible(state, seat, [c]) else (False,)
                    if rank(c) == "2":
                        moves.extend({"type": "counter_two", "card": c, "declare_reach": r} for r in reach_options)
                    elif is_joker(c):
                        moves.extend(
                            {"type": "cancel_two_with_joker", "card": c, "declare_reach": r} for r in reach_options
                        )
                moves.append({"type": "accept_draw"})
            elif situation == "going_out_window":
                for combo in self._going_out_counters(state, seat):
                    reach_options = (
                        (False, True) if len(hand) > len(combo) and self._feasible(state, seat, combo) else (False,)
                    )
                    moves.extend(
                        {"type": "counter_going_out", "cards": list(combo), "declare_reach": r} for r in reach_options
                    )
                moves.append({"type": "accept_going_out"})
        if self._may_propose_tie(state, seat):
            moves.append({"type": "propose_tie"})
        return moves

    def _play_moves(self, state: MekuriState, seat: int) -> list[dict]:
        hand = state.hands[seat]
        situation = state.situation
        if situation != "lead" and (state.top_kind == "single" or situation == "post_accept"):
            # Only single cards can answer: every card of the hand, in the order of the general case.
            ordered = sorted(hand, key=lambda c: (_STRENGTH[c], c))
            return self._offered_plays(state, seat, self._answering_singles(state, ordered), judged=True)
        jokers = [c for c in hand if is_joker(c)]
        candidates: set[frozenset[str]] = set()
        if situation == "lead" or state.top_kind == "single" or situation == "post_accept":
            candidates.update(frozenset((c,)) for c in hand)
        if situation == "lead":
            set_sizes, straight_sizes = range(2, 6), range(3, 14)
        elif situation == "post_accept" or state.top_kind == "single":
            set_sizes, straight_sizes = (), ()
        elif state.top_kind == "set":
            set_sizes, straight_sizes = (len(state.top),), ()
        else:
            set_sizes, straight_sizes = (), (len(state.top),)
        if set_sizes:
            by_rank: dict[str, list[str]] = {}
            for c in hand:
                if not is_joker(c):
                    by_rank.setdefault(rank(c), []).append(c)
            for naturals in by_rank.values():
                for n in set_sizes:
                    for j in range(min(2, len(jokers), n - 1) + 1):
                        for picked in combinations(naturals, n - j) if n - j <= len(naturals) else ():
                            candidates.update(frozenset(picked + jk) for jk in combinations(jokers, j))
            if 2 in set_sizes and len(jokers) >= 2:
                candidates.add(frozenset(jokers[:2]))
        for suit in SUITS if straight_sizes else ():
            have = {strength(c): c for c in hand if not is_joker(c) and c[-1] == suit}
            if not have:
                continue
            for n in straight_sizes:
                if n > len(have) + len(jokers):
                    continue  # some rank of every run would be missing with no joker to fill it
                # Only the runs (lowest value 3 .. 16 - n) that hold a card of the hand; the
                # candidates are a set, sorted below, so the order they are found in is free.
                for low in {low for v in have for low in range(max(3, v - n + 1), min(v, 16 - n) + 1)}:
                    present = [v for v in range(low, low + n) if v in have]
                    missing = n - len(present)
                    if not present or missing > len(jokers):
                        continue
                    for extra in range(len(jokers) - missing + 1):
                        for replaced in combinations(present, extra):
                            naturals = frozenset(have[v] for v in present if v not in replaced)
                            if naturals:
                                candidates.update(naturals | set(jk) for jk in combinations(jokers, missing + extra))
        ordered = sorted((sort_cards(c) for c in candidates), key=lambda cs: (len(cs), [_STRENGTH[c] for c in cs], cs))
        return self._offered_plays(state, seat, ordered)

    def _answering_singles(self, state: MekuriState, ordered: list[str]) -> list[list[str]]:
        """``[card]`` for each card of ``ordered`` that ``_single_answers`` accepts, in that order. The
        common case - a natural top card, no named suit - reads the top card once for all cards."""
        top = state.top[0] if state.top else None
        if top is None or top in cards.JOKERS or state.designated is not None or state.situation == "post_accept":
            return [[c] for c in ordered if self._single_answers(state, c)]
        if state.situation == "post_draw" and state.config["post_draw_must_use_drawn"]:
            ordered = [c for c in ordered if c in state.drawn]
        top_rank, top_suit, top_strength = _RANK[top], top[-1], _STRENGTH[top]
        eights = top_rank in self._eight_targets(state)  # an 8 of another suit answers a low card
        jokers = cards.JOKERS
        return [
            [c]
            for c in ordered
            if c in jokers
            or _RANK[c] == top_rank
            or (c[-1] == top_suit and _STRENGTH[c] > top_strength)
            or (eights and _RANK[c] == "8")
        ]

    def _single_answers(self, state: MekuriState, card: str) -> bool:
        """Whether ``_judge_play`` accepts the single ``card`` where only single cards can answer
        (not on a lead; a single top card, or after accepting a draw): its checks in its order,
        without building the card's shapes or a refusal."""
        if state.situation == "post_accept":
            return card in cards.JOKERS or _RANK[card] == "2"
        if state.situation == "post_draw" and state.config["post_draw_must_use_drawn"] and card not in state.drawn:
            return False
        return self._single_refusal(state, card) is None

    def _offered_plays(
        self, state: MekuriState, seat: int, ordered: list[list[str]], judged: bool = False
    ) -> list[dict]:
        """The play moves of the candidate card lists that the rules accept, with their options
        (``judged``: every candidate is known to be accepted)."""
        hand = state.hands[seat]
        top_shape = None if judged else self._top_shape(state)
        final_two_attacks = state.config["final_two_always_attacks"]
        any_reach = state.config["reach_feasibility_check"] == "none"  # _feasible without the call
        may_name_suit = None  # asked at the first single 8
        moves = []
        for played in ordered:
            if not judged and self._judge_play(state, seat, played, top_shape, explain=False)[1] is not None:
                continue
            left = len(hand) - len(played)
            reach_options = (False, True) if left and (any_reach or self._feasible(state, seat, played)) else (False,)
            card_rank = rank(played[0]) if len(played) == 1 else None
            if card_rank == "2":
                attacks = (True,) if not left and final_two_attacks else (True, False)
                moves += (
                    {"type": "play", "cards": played, "declare_reach": r, "attack": attack}
                    for r in reach_options
                    for attack in attacks
                )
                continue
            if card_rank == "8":
                if may_name_suit is None:
                    may_name_suit = self._may_name_suit(state)
                if may_name_suit:
                    for r in reach_options:
                        moves.append({"type": "play", "cards": played, "declare_reach": r})
                        moves += ({"type": "play", "cards": played, "declare_reach": r, "suit": suit} for suit in SUITS)
                    continue
            moves += ({"type": "play", "cards": played, "declare_reach": r} for r in reach_options)
        return moves

    def _going_out_counters(self, state: MekuriState, seat: int) -> list[tuple[str, ...]]:
        hand = sort_cards(state.hands[seat])
        final = state.final_play
        jokers_in_final = sum(1 for c in final if is_joker(c))
        if jokers_in_final:
            pool = [c for c in hand if rank(c) == "3" or (is_joker(c) and not state.config["natural_threes_only"])]
            return [combo for combo in combinations(pool, jokers_in_final) if self._is_threes(state, combo)]
        if len(final) == 1:
            return [(c,) for c in hand if rank(c) == "2" or is_joker(c)]
        jokers = tuple(c for c in hand if is_joker(c))
        return [jokers] if len(jokers) == 2 else []

    def _feasible(self, state: MekuriState, seat: int, played) -> bool:
        if state.config["reach_feasibility_check"] == "none":
            return True
        rest = [c for c in state.hands[seat] if c not in played]
        return bool(rest) and bool(shapes_of(rest, state.config))

    def _may_name_suit(self, state: MekuriState) -> bool:
        if state.config["eight_suit_choice_scope"] == "any_single_eight":
            return True
        return (
            state.top_kind == "single"
            and state.situation != "lead"
            and not is_joker(state.top[0])
            and rank(state.top[0]) in self._eight_targets(state)
        )

    def _eight_targets(self, state: MekuriState) -> tuple[str, ...]:
        return EIGHT_TARGETS[state.config["eight_counts_ace_two_low"]]

    # ---- legality of a play (§3.2) ------------------------------------------------------
    def _top_shape(self, state: MekuriState) -> Shape | None:
        """The reading of a top set or straight that an answer must beat (None for a single or none)."""
        if not state.top or state.top_kind in (None, "single"):
            return None
        return pick_shape(shapes_of(state.top, state.config), state.top_kind)

    def _judge_play(
        self, state: MekuriState, seat: int, played: list[str], top_shape: Shape | None = None, explain: bool = True
    ) -> tuple[Shape | None, tuple | None]:
        """``(shape, None)`` for a legal play, else ``(None, (code, message))``; ``top_shape`` is
        ``_top_shape(state)`` when the caller has it already. Without ``explain`` a single card's
        refusal may come without its message (None)."""
        shapes = shapes_of(played, state.config)
        if not shapes:
            return None, (
                "invalid_shape",
                f"{' '.join(played)} is not a valid play: play one card, a set of one rank (jokers wild) "
                "or a same-suit run of 3 or more consecutive ranks",
            )
        situation = state.situation
        if situation == "post_accept":
            if len(played) == 1 and (is_joker(played[0]) or rank(played[0]) == "2"):
                return shapes[0], None
            return None, (
                "two_or_joker_only",
                "after taking the draw-two cards you may only play a single 2 or a single joker, or end_pass",
            )
        if situation == "lead":
            return pick_shape(shapes, None), None
        if situation == "post_draw" and state.config["post_draw_must_use_drawn"]:
            if not set(played) & set(state.drawn):
                drawn = " ".join(state.drawn) or "none"
                return None, (
                    "must_use_drawn_card",
                    f"after pass_and_draw your play must include a card you just drew ({drawn}); otherwise end_pass",
                )
        shape = pick_shape(shapes, state.top_kind)
        error = self._answer_error(state, played, shape, top_shape, explain)
        return (None, error) if error else (shape, None)

    def _answer_error(
        self, state: MekuriState, played: list[str], shape: Shape, top_shape: Shape | None = None, explain: bool = True
    ) -> tuple | None:
        top = state.top
        if state.top_kind == "single":
            if len(played) > 1:
                return ("multi_card_on_single", f"the top play {top[0]} is a single card: answer with one card")
            return self._single_error(state, played[0], explain)
        if top_shape is None:
            top_shape = pick_shape(shapes_of(top, state.config), state.top_kind)
        wanted = describe_shape(top_shape)
        if len(played) == 1:
            return ("single_on_multi", f"a single card cannot answer a {wanted}: answer with a stronger {wanted}")
        if shape.kind != top_shape.kind:
            return (
                "wrong_shape",
                f"a {shape.kind} cannot answer a {top_shape.kind}: answer with a stronger {wanted} or pass",
            )
        if shape.size != top_shape.size:
            return ("wrong_size", f"the top play is a {wanted}: answer with exactly {top_shape.size} cards")
        if shape.kind == "set":
            if top_shape.jokers == top_shape.size:
                if self._is_threes(state, played):
                    return None
                return ("only_threes_beat_jokers", "a pair of jokers can be beaten only by a pair of natural 3s")
            if shape.value > top_shape.value:
                return None
            if shape.value == top_shape.value:
                return ("same_rank", f"a {wanted} of the same rank may not be played: play a higher {wanted}")
            return ("not_stronger", f"your {describe_shape(shape)} is weaker than the top {wanted}")
        if state.config["straight_follow_same_suit"] and shape.suit != top_shape.suit:
            return ("wrong_suit", f"an answering straight must be in {top_shape.suit} like the top straight")
        rule = state.config["straight_beat_rule"]
        names = RANK_NAMES
        if rule == "no_overlap" and shape.low <= top_shape.high:
            if shape.high >= top_shape.low:
                return (
                    "shares_ranks",
                    f"your straight shares ranks with the top straight {names[top_shape.low]}-{names[top_shape.high]}: "
                    f"its lowest rank must be above {names[top_shape.high]}",
                )
            return ("not_stronger", "your straight is weaker than the top straight")
        if rule == "skip_one" and shape.low < top_shape.low + 2:
            return ("not_stronger", f"an answering straight must start at least two ranks above {names[top_shape.low]}")
        if rule == "higher_low" and shape.low <= top_shape.low:
            return ("not_stronger", f"an answering straight must start above {names[top_shape.low]}")
        return None

    def _single_error(self, state: MekuriState, card: str, explain: bool = True) -> tuple | None:
        """``(code, message)`` when ``card`` may not answer the single top card, else None; without
        ``explain`` the message is None (the move generator asks only whether, for every card)."""
        code = self._single_refusal(state, card)
        if code is None:
            return None
        return (code, self._single_message(state, card, code) if explain else None)

    def _single_refusal(self, state: MekuriState, card: str) -> str | None:
        top = state.top[0]
        if is_joker(top):
            if self._is_threes(state, [card]):
                return None
            if is_joker(card):
                return None if state.config["joker_on_joker"] else "joker_on_joker"
            return "only_three_beats_joker"
        if is_joker(card):
            return None
        top_rank, top_suit = rank(top), top[-1]
        card_rank, card_suit = rank(card), card[-1]
        if state.designated is not None:
            if card_rank == top_rank:
                return None
            if card_suit == state.designated:
                if strength(card) > STRENGTH["8"] or not state.config["eight_designation_requires_higher"]:
                    return None
                return "not_stronger"
            return "must_follow_designated_suit"
        if card_rank == top_rank:
            return None
        if card_suit == top_suit and strength(card) > strength(top):
            return None
        low = top_rank in self._eight_targets(state)
        if card_rank == "8":
            return None if low else "eight_only_on_low"
        return "not_stronger" if card_suit == top_suit else "wrong_suit"

    def _single_message(self, state: MekuriState, card: str, code: str) -> str:
        """What ``_single_refusal``'s ``code`` for ``card`` tells the player."""
        top = state.top[0]
        if code == "joker_on_joker":
            return "a joker may not be played on a joker; only a natural 3 beats it"
        if code == "only_three_beats_joker":
            return f"only a natural 3 beats the joker {top}"
        if state.designated is not None:
            named = state.designated
            hint = f"on the 8 that named {named} play a {named} card stronger than 8, any 8 or a joker"
            if code == "not_stronger":
                return f"{card} is not stronger than 8; {hint}"
            return f"{card} is not {named}; {hint}"
        top_rank, top_suit = rank(top), top[-1]
        low = top_rank in self._eight_targets(state)
        hint = f"on {top} play a {top_suit} card stronger than {top_rank}, any {top_rank}"
        hint += ", any 8 or a joker" if low else " or a joker"
        if code == "eight_only_on_low":
            return f"an 8 of another suit may be played only on a 3 to 7; {hint}"
        if code == "not_stronger":
            return f"{card} is not stronger than {top}; {hint}"
        return f"{card} matches neither the suit nor the rank of {top}; {hint}"

    # ---- apply --------------------------------------------------------------------------
    actions = (
        Action(
            "choose_first_player",
            {"player": Param("integer", "the seat (0 or 1) who plays first", choices=(0, 1), choice_code="bad_player")},
        ),
        Action(
            "choose_initial_upcard_handling",
            {
                "option": Param(
                    "string",
                    "reshuffle or as_is",
                    choices=("reshuffle", "as_is"),
                    choice_code="bad_option",
                    max_length=16,
                )
            },
        ),
        Action(
            "play",
            {
                "cards": _CARDS,
                "declare_reach": _REACH,
                "attack": Param("boolean", "a single 2: the opponent draws 2 (true) or not", False, nullable=True),
                "suit": Param(
                    "string",
                    "a single 8: the suit to name",
                    False,
                    choices=SUITS,
                    max_length=ID_LENGTH,
                    nullable=True,
                    type_code="bad_suit",
                    choice_code="bad_suit",
                ),
            },
        ),
        Action("pass_and_draw"),
        Action("end_pass"),
        Action("counter_two", {"card": _CARD, "declare_reach": _REACH}),
        Action("cancel_two_with_joker", {"card": _CARD, "declare_reach": _REACH}),
        Action("accept_draw"),
        Action("counter_going_out", {"cards": _CARDS, "declare_reach": _REACH}),
        Action("accept_going_out"),
        *(Action(name) for name in TIE_ACTIONS),
    )
    system_events = ("accept_going_out", "end_pass")

    def seat_count(self, state: MekuriState) -> int:
        return 2

    def apply_chance(self, state: MekuriState, data: dict) -> MekuriState:
        return self._apply_chance(state, data)

    def apply_move(self, state: MekuriState, seat: int, data: dict) -> MekuriState:
        return self._apply_move(state, seat, data)

    def apply_resign(self, state: MekuriState, seat: int, data: dict) -> MekuriState:
        return evolve(state, phase="over", resigned=seat, draw_queue=(), tie_offer=None)

    def apply_close_window(self, state: MekuriState, data: dict) -> MekuriState:
        if state.situation == "going_out_window":
            return self._end_game(state, state.finisher, "going_out")
        return self._end_pass(state, state.to_move)

    def apply_system(self, state: MekuriState, data: dict) -> MekuriState:
        """``accept_going_out`` / ``end_pass`` sent by the server when the player has no other choice."""
        kind = data["type"]
        flag = "auto_accept_if_no_counter" if kind == "accept_going_out" else "auto_end_pass"
        current = self.deadline(state)
        wanted = ("going_out_window",) if kind == "accept_going_out" else ("post_draw", "post_accept")
        if not state.config[flag] or current is None or state.situation not in wanted:
            raise IllegalMove(
                f"the server may send {kind} only with {flag} and when the player has no other choice",
                code="auto_action_not_due",
            )
        if kind == "accept_going_out":
            return self._end_game(state, state.finisher, "going_out")
        return self._end_pass(state, state.to_move)

    def after_event(self, before: MekuriState, after: MekuriState, kind: str, data: dict) -> MekuriState:
        new = after
        if new.phase == "over" or len(new.results) != len(before.results):
            return new
        blocked = new.tie_blocked if data["type"] in TIE_ACTIONS else (False, False)
        new = evolve(new, game_events=new.game_events + 1, tie_blocked=blocked)
        if new.game_events >= new.config["auto_tie_after_events"]:
            new = self._end_game(new, None, "event_limit")
        return new

    def deadline(self, state: MekuriState) -> Deadline | None:
        if state.phase != "play" or state.draw_queue or state.tie_offer is not None:
            return None
        seat = state.to_move
        window = f"game-{state.game}-event-{state.game_events}"
        if state.situation == "going_out_window" and state.config["auto_accept_if_no_counter"]:
            if not self._going_out_counters(state, seat):
                return Deadline(f"{window}-accept", 0, (seat,))
        if state.situation in ("post_draw", "post_accept") and state.config["auto_end_pass"]:
            if not self._play_moves(state, seat):
                return Deadline(f"{window}-end-pass", 0, (seat,))
        return None

    def _apply_move(self, state: MekuriState, seat: int, data: dict) -> MekuriState:
        action = data["type"]
        if state.phase == "choose_first":
            if action != "choose_first_player":
                raise IllegalMove(
                    "before the deal the previous loser chooses who plays first (choose_first_player)",
                    code="choose_first_player_expected",
                )
            if seat != state.chooser:
                raise NotYourTurn(f"seat {state.chooser} lost the previous game and chooses who plays first")
            player = require_param(data, "player", int, "the seat (0 or 1) who plays first")
            if player not in (0, 1):
                raise IllegalMove(f"player must be seat 0 or 1, not {player}", code="bad_player")
            return evolve(state, phase="deal", first_player=player)
        if state.phase == "upcard_choice":
            if action != "choose_initial_upcard_handling":
                raise IllegalMove(
                    f"the up-card is {state.top[0]}: the chooser must pick reshuffle or as_is first",
                    code="upcard_choice_expected",
                )
            if seat != state.chooser:
                raise NotYourTurn(f"seat {state.chooser} lost the previous game and decides about the up-card")
            option = require_param(data, "option", str, '"reshuffle" or "as_is"')
            if option == "reshuffle":
                return evolve(state, phase="upcard_reshuffle")
            if option == "as_is":
                return self._start_as_is(state)
            raise IllegalMove(f'option must be "reshuffle" or "as_is", not {option!r}', code="bad_option")
        if action in ("choose_first_player", "choose_initial_upcard_handling"):
            raise IllegalMove(f"{action} is only possible before play starts", code="not_now")
        if action in TIE_ACTIONS:
            return self._apply_tie(state, seat, action)
        if state.tie_offer is not None:
            raise IllegalMove(
                f"seat {state.tie_offer} proposed a tie: seat {1 - state.tie_offer} must accept_tie or "
                "reject_tie first",
                code="tie_offer_pending",
            )
        if seat != state.to_move:
            raise NotYourTurn(f"it is seat {state.to_move}'s turn")
        situation = state.situation
        if situation not in ACTION_SITUATIONS[action]:
            raise IllegalMove(f"{action} is not possible now: {self._situation_hint(state)}", code="not_now")
        if action == "play":
            return self._play(state, seat, data)
        if action == "pass_and_draw":
            state = evolve(state, situation="post_draw", drawn=())
            return self._settle(self._queue(state, seat, len(state.top), "pass"))
        if action == "end_pass":
            return self._end_pass(state, seat)
        if action in ("counter_two", "cancel_two_with_joker"):
            return self._answer_attack(state, seat, data)
        if action == "accept_draw":
            taken = state.pending
            state = evolve(state, situation="post_accept", pending=0)
            return self._settle(self._queue(state, seat, taken, "attack"))
        if action == "counter_going_out":
            return self._counter_going_out(state, seat, data)
        return self._end_game(state, state.finisher, "going_out")

    def _situation_hint(self, state: MekuriState) -> str:
        return {
            "respond": "answer the top play with play, or pass_and_draw",
            "lead": "the field is empty and you must lead with play",
            "post_draw": "play including a drawn card, or end_pass",
            "attack_pending": f"you face a draw of {state.pending}: counter_two, cancel_two_with_joker or accept_draw",
            "post_accept": "play a single 2 or a joker, or end_pass",
            "going_out_window": "the opponent went out: counter_going_out or accept_going_out",
            "opening_joker": "play a natural 3 on the joker up-card, or pass_and_draw",
        }[state.situation]

    def _cards_param(self, state: MekuriState, seat: int, data: dict, name: str = "cards") -> list[str]:
        played = require_param(data, name, list, "a list of card ids from your hand")
        if not played or not all(isinstance(c, str) for c in played):
            raise MalformedEvent(f'"{name}" must be a non-empty list of card ids')
        deck = DECKS[state.config["deck_jokers"]]
        for c in played:
            if c not in deck:
                raise IllegalMove(f"{c} is not a card of this pack", code="unknown_card")
        if len(set(played)) != len(played):
            raise IllegalMove("a card may be named only once", code="duplicate_card")
        missing = [c for c in played if c not in state.hands[seat]]
        if missing:
            hand = " ".join(sort_cards(state.hands[seat])) or "no cards"
            raise IllegalMove(f"{' '.join(missing)} not in your hand; you hold {hand}", code="card_not_in_hand")
        return sort_cards(played)

    def _reach_param(self, state: MekuriState, seat: int, data: dict, played) -> bool:
        declare = data.get("declare_reach")
        if declare is None:
            return False
        if not isinstance(declare, bool):
            raise MalformedEvent("declare_reach must be true or false")
        if declare:
            if len(state.hands[seat]) == len(played):
                raise IllegalMove(
                    "a reach is declared on a play that leaves cards in hand, not on the play that empties it",
                    code="reach_needs_cards_left",
                )
            if not self._feasible(state, seat, played):
                raise IllegalMove(
                    "reach_feasibility_check: the cards left must form one valid play to declare reach",
                    code="reach_not_feasible",
                )
        return declare

    def _play(self, state: MekuriState, seat: int, data: dict) -> MekuriState:
        played = self._cards_param(state, seat, data)
        declare = self._reach_param(state, seat, data, played)
        attack, suit = data.get("attack"), data.get("suit")
        if attack is not None and not isinstance(attack, bool):
            raise MalformedEvent("attack must be true, false or absent")
        if suit is not None and suit not in SUITS:
            raise IllegalMove(f"suit must be one of {', '.join(SUITS)}, not {suit!r}", code="bad_suit")
        shape, error = self._judge_play(state, seat, played)
        if error is not None:
            raise IllegalMove(error[1], code=error[0])
        single = played[0] if len(played) == 1 else None
        last = len(played) == len(state.hands[seat])
        is_two = single is not None and rank(single) == "2"
        if is_two:
            if last and state.config["final_two_always_attacks"]:
                if attack is False:
                    raise IllegalMove("a 2 played as your last card always attacks", code="final_two_attacks")
                attack = True
            elif attack is None:
                raise IllegalMove("a single 2 needs attack: true (opponent draws 2) or false", code="attack_required")
        elif attack is not None:
            raise IllegalMove("attack is only chosen when playing a single 2", code="attack_not_allowed")
        if suit is not None:
            if single is None or rank(single) != "8":
                raise IllegalMove("a suit may be named only with a single 8", code="suit_not_allowed")
            if not self._may_name_suit(state):
                raise IllegalMove(
                    "eight_suit_choice_scope: only an 8 played on a 3-7 up-card may name a suit",
                    code="suit_not_allowed",
                )
        beat_jokers = self._beats_jokers(state, played)
        state = self._lay(state, seat, played, shape.kind, suit, pending=2 if attack else 0)
        if declare:
            state = self._declare(state, seat)
        return self._after_play(state, seat, played, beat_jokers=beat_jokers)

    def _end_pass(self, state: MekuriState, seat: int) -> MekuriState:
        if state.opening == "joker1" and state.situation == "post_draw":
            return self._give_turn(state, 1 - seat, "opening_joker", opening="joker2")
        state = self._flush(state)  # 「次に相手が好きなカードを台札として出す」
        return self._settle(self._give_turn(state, 1 - seat, "lead"))

    def _answer_attack(self, state: MekuriState, seat: int, data: dict) -> MekuriState:
        action = data["type"]
        card = require_param(data, "card", str, "the id of a card in your hand")
        played = self._cards_param(state, seat, {"type": action, "cards": [card]})
        if action == "counter_two" and rank(card) != "2":
            raise IllegalMove(f"{card} is not a 2: counter_two needs a natural 2", code="not_a_two")
        if action == "cancel_two_with_joker" and not is_joker(card):
            raise IllegalMove(f"{card} is not a joker", code="not_a_joker")
        declare = self._reach_param(state, seat, data, played)
        pending = min(2 * state.pending, state.config["two_max_stack"]) if action == "counter_two" else 0
        state = self._lay(state, seat, played, "single", pending=pending)
        if declare:
            state = self._declare(state, seat)
        return self._after_play(state, seat, played, beat_jokers=False)

    def _counter_going_out(self, state: MekuriState, seat: int, data: dict) -> MekuriState:
        played = self._cards_param(state, seat, data)
        final = state.final_play
        finisher = state.finisher
        options = [sort_cards(combo) for combo in self._going_out_counters(state, seat)]
        if played not in options:
            raise IllegalMove(self._counter_hint(state), code="bad_counter")
        declare = self._reach_param(state, seat, data, played)
        penalty = state.config["false_out_penalty"]
        previous_pending = state.pending
        kind = "single" if len(played) == 1 else "set"
        reach = _swap(state.reach, finisher, None)
        state = self._lay(state, seat, played, kind, reach=reach, finisher=None, final_play=(), pending=0)
        if declare:
            state = self._declare(state, seat)
        empty = not state.hands[seat]
        if any(is_joker(c) for c in final):
            # The 3s beat the joker(s): the going-out is void, and the field is flushed (§4.4).
            state = self._queue(state, finisher, penalty, "penalty")
            state = self._flush(state)
            if empty:
                if state.reach[seat] is not None:
                    return self._end_game(state, seat, "going_out")
                state = self._queue(state, seat, penalty, "penalty")
            leader = seat if state.config["three_on_joker_next_leader"] == "three_player" else finisher
            return self._settle(self._give_turn(state, leader, "lead"))
        if rank(played[0]) == "2":
            # 「2で即応酬された場合は4枚取りなので合計9枚引く」: the doubled draw, then the penalty.
            attack = min(2 * previous_pending, state.config["two_max_stack"]) if previous_pending else 2
            state = self._queue(state, finisher, attack, "attack")
            state = self._queue(state, finisher, penalty, "penalty")
            then = "post_accept"
        else:
            attack = 0
            state = self._queue(state, finisher, penalty, "penalty")
            then = "respond"
        if empty:
            if state.reach[seat] is not None:
                state = evolve(state, finisher=seat, final_play=tuple(played), pending=attack)
                return self._settle(self._give_turn(state, finisher, "going_out_window"))
            state = self._queue(state, seat, penalty, "penalty")
        return self._settle(self._give_turn(state, finisher, then))

    def _counter_hint(self, state: MekuriState) -> str:
        final = state.final_play
        jokers = sum(1 for c in final if is_joker(c))
        if jokers == 2:
            return "the final play contains 2 jokers: exactly two natural 3s are required to void it"
        if jokers == 1:
            return "the final play contains a joker: exactly one natural 3 voids it"
        if len(final) == 1:
            return "a final 2 is voided only by a single natural 2 or a single joker"
        return "a final pair of 2s is voided only by the pair of jokers"

    def _apply_tie(self, state: MekuriState, seat: int, action: str) -> MekuriState:
        if action == "propose_tie":
            if state.tie_offer is not None:
                raise IllegalMove("a tie proposal is already waiting for an answer", code="tie_offer_pending")
            if state.situation == "going_out_window":
                raise IllegalMove("answer the going-out first (counter_going_out or accept_going_out)", code="not_now")
            if state.tie_blocked[seat]:
                raise IllegalMove(
                    "you already proposed a tie in this position; play on before proposing again",
                    code="tie_already_proposed",
                )
            return evolve(state, tie_offer=seat, tie_blocked=_swap(state.tie_blocked, seat, True))
        if state.tie_offer is None:
            raise IllegalMove("no tie has been proposed", code="no_tie_offer")
        if seat == state.tie_offer:
            raise NotYourTurn("your tie proposal waits for the opponent's answer")
        if action == "accept_tie":
            return self._end_game(evolve(state, tie_offer=None), None, "agreement")
        return evolve(state, tie_offer=None)

    # ---- end of a game and of the match -------------------------------------------------
    def _end_game(self, state: MekuriState, winner: int | None, reason: str) -> MekuriState:
        revealed = None
        public = state.public
        if state.config["reveal_hands_at_end"]:
            revealed = (tuple(sort_cards(state.hands[0])), tuple(sort_cards(state.hands[1])))
            public = public | set(state.hands[0]) | set(state.hands[1])
        results = state.results + ((winner, reason, revealed),)
        state = evolve(state, results=results, public=public, draw_queue=(), tie_offer=None, tie_blocked=(False, False))
        if len(results) >= state.config["match_games"]:
            return evolve(state, phase="over")
        chooser = 1 - winner if winner is not None else state.chooser
        return MekuriState(
            config=state.config,
            phase="choose_first" if chooser is not None else "deal",
            game=state.game + 1,
            chooser=chooser,
            results=results,
            public=public,
            seen=state.seen,
        )

    def _tally(self, state: MekuriState) -> list[dict]:
        tally = [{"wins": 0, "losses": 0, "ties": 0} for _ in (0, 1)]
        for winner, _reason, _hands in state.results:
            for seat in (0, 1):
                key = "ties" if winner is None else ("wins" if seat == winner else "losses")
                tally[seat][key] += 1
        return tally

    def outcome(self, state: MekuriState) -> Outcome | None:
        if state.phase != "over":
            return None
        tally = self._tally(state)
        wins = (tally[0]["wins"], tally[1]["wins"])
        detail = {"games": self._results_json(state), "tally": tally}
        if state.resigned is not None:
            detail["reason"] = "resign"
            detail["resigned"] = state.resigned
            loser = state.resigned
            return Outcome(((1 - loser,), (loser,)), {0: wins[0], 1: wins[1]}, detail)
        detail["reason"] = state.results[-1][1]
        if wins[0] == wins[1]:
            return Outcome(((0, 1),), {0: wins[0], 1: wins[1]}, detail)
        best = 0 if wins[0] > wins[1] else 1
        return Outcome(((best,), (1 - best,)), {0: wins[0], 1: wins[1]}, detail)

    def _results_json(self, state: MekuriState) -> list[dict]:
        out = []
        for number, (winner, reason, hands) in enumerate(state.results, start=1):
            item = {"game": number, "winner": winner, "reason": reason}
            if hands is not None:
                item["hands"] = [list(h) for h in hands]
            out.append(item)
        return out

    # ---- hidden information -------------------------------------------------------------
    def _all_revealed(self, state: MekuriState) -> bool:
        return state.phase == "over" and state.config["reveal_hands_at_end"]

    def hidden_from(self, state: MekuriState, seat: int | None) -> frozenset[str]:
        # A card id that the seat has ever seen (face up for all, or privately) appears in the record
        # it may read, so only ids it has never seen can be hidden from it in the id-level sense.
        hidden = set(state.draw_pile)
        if not self._all_revealed(state):
            for owner in (0, 1):
                if owner != seat:
                    hidden.update(state.hands[owner])
        hidden -= state.public
        if seat is not None:
            hidden -= state.seen[seat]
        return frozenset(hidden)

    def view(self, state: MekuriState, seat: int | None) -> dict:
        tally = self._tally(state)
        players = []
        for owner in (0, 1):
            shown = owner == seat or self._all_revealed(state)
            player = {
                "hand": sort_cards(state.hands[owner]) if shown else None,
                "hand_size": len(state.hands[owner]),
                "reach": state.reach[owner] is not None,
                **tally[owner],
            }
            if owner == seat and state.situation == "post_draw" and state.to_move == seat:
                player["just_drawn"] = list(state.drawn)
            players.append(player)
        browsable = state.config["discard_pile_browsable"]
        return {
            "phase": state.phase,
            "game": state.game,
            "match_games": state.config["match_games"],
            "chooser": state.chooser,
            "first_player": state.first_player,
            "to_move": state.to_move if state.phase == "play" else None,
            "situation": state.situation if state.phase == "play" else None,
            "opening": state.opening,
            "players": players,
            "top": list(state.top),
            "top_kind": state.top_kind,
            "top_owner": state.top_owner,
            "designated_suit": state.designated,
            "pending_draw": state.pending if state.situation == "attack_pending" else 0,
            "field": list(state.field),
            "discard": list(state.discard) if browsable else None,
            "discard_size": len(state.discard),
            "draw_pile_size": len(state.draw_pile),
            "reshuffles": state.reshuffles,
            "going_out": (
                {"finisher": state.finisher, "cards": list(state.final_play)}
                if state.situation == "going_out_window"
                else None
            ),
            "tie_offer": state.tie_offer,
            "reach_think_time_s": state.config["reach_think_time_s"],
            "results": self._results_json(state),
        }

    def event_view(self, state: MekuriState, event: dict, seat: int | None) -> dict:
        data = event.get("data") or {}
        if event.get("kind") != "chance" or data.get("type") not in ("deal", "upcard_reshuffle", "reshuffle"):
            return event
        shown = dict(data)
        pile = data.get("draw_pile")
        shown["draw_pile"] = None  # its order is secret from everybody
        shown["draw_pile_size"] = len(pile) if isinstance(pile, list) else None
        if data["type"] == "deal":
            hands = data.get("hands") or [None, None]
            shown["hands"] = [hands[owner] if owner == seat or self._all_revealed(state) else None for owner in (0, 1)]
        return {**event, "data": shown}

    # ---- serialisation ------------------------------------------------------------------
    def dump_state(self, state: MekuriState) -> dict:
        return {
            "config": state.config,
            "phase": state.phase,
            "game": state.game,
            "chooser": state.chooser,
            "first_player": state.first_player,
            "hands": [list(h) for h in state.hands],
            "draw_pile": list(state.draw_pile),
            "discard": list(state.discard),
            "field": list(state.field),
            "top": list(state.top),
            "top_kind": state.top_kind,
            "top_owner": state.top_owner,
            "designated": state.designated,
            "pending": state.pending,
            "to_move": state.to_move,
            "situation": state.situation,
            "drawn": list(state.drawn),
            "opening": state.opening,
            "reach": list(state.reach),
            "turns": list(state.turns),
            "finisher": state.finisher,
            "final_play": list(state.final_play),
            "draw_queue": [list(item) for item in state.draw_queue],
            "reshuffles": state.reshuffles,
            "tie_offer": state.tie_offer,
            "tie_blocked": list(state.tie_blocked),
            "game_events": state.game_events,
            "results": [
                [winner, reason, None if hands is None else [list(h) for h in hands]]
                for winner, reason, hands in state.results
            ],
            "resigned": state.resigned,
            "public": sorted(state.public),
            "seen": [sorted(s) for s in state.seen],
        }

    def load_state(self, data: dict) -> MekuriState:
        return MekuriState(
            config=data["config"],
            phase=data["phase"],
            game=data["game"],
            chooser=data["chooser"],
            first_player=data["first_player"],
            hands=(tuple(data["hands"][0]), tuple(data["hands"][1])),
            draw_pile=tuple(data["draw_pile"]),
            discard=tuple(data["discard"]),
            field=tuple(data["field"]),
            top=tuple(data["top"]),
            top_kind=data["top_kind"],
            top_owner=data["top_owner"],
            designated=data["designated"],
            pending=data["pending"],
            to_move=data["to_move"],
            situation=data["situation"],
            drawn=tuple(data["drawn"]),
            opening=data["opening"],
            reach=tuple(data["reach"]),
            turns=tuple(data["turns"]),
            finisher=data["finisher"],
            final_play=tuple(data["final_play"]),
            draw_queue=tuple((seat, count, why) for seat, count, why in data["draw_queue"]),
            reshuffles=data["reshuffles"],
            tie_offer=data["tie_offer"],
            tie_blocked=tuple(data["tie_blocked"]),
            game_events=data["game_events"],
            results=tuple(
                (winner, reason, None if hands is None else (tuple(hands[0]), tuple(hands[1])))
                for winner, reason, hands in data["results"]
            ),
            resigned=data["resigned"],
            public=frozenset(data["public"]),
            seen=(frozenset(data["seen"][0]), frozenset(data["seen"][1])),
        )


ENGINE = MekuriHinmin()
