"""Nine Card (9カード): two players, simultaneous commits, paradigm shifts, best of three rounds.

Implements ``shared/rules/nine-card.md``. Seat 0 is the Oya, seat 1 the Ko. Each turn both seats
commit a card face down (the opponent sees only that a commit happened); when both have committed
the cards are revealed into the grids, and after turns 3, 6 and 9 the round is resolved:
paradigm shifts (three consecutive values in one player's column; with ``horizontal_ps`` also the
rows in round 3) flip the mode HIGH/LOW once per shift, so an even count cancels (A3), and the new
mode already applies to the round in which it happens (A2).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

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
    Outcome,
    Param,
    require_param,
)

HAND_SIZE = 9
TURNS = 9
ROLE = ("Oya", "Ko")


@dataclass(frozen=True)
class RoundResult:
    round: int
    totals: tuple[int, int]
    column_ps: tuple[bool, bool]
    row_ps: tuple[int, int]
    mode: str
    winner: int | None  # None = drawn round


@dataclass(frozen=True)
class NineCardState:
    config: dict
    phase: str  # deal | commit | over
    hands: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    set_aside: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    played: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # revealed cards in turn order
    pending: tuple[str | None, str | None] = (None, None)  # committed, not yet revealed
    turn: int = 1
    mode: str = "HIGH"
    wins: tuple[int, int] = (0, 0)
    rounds: tuple[RoundResult, ...] = ()
    ended_by: str | None = None  # rounds | resign | timeout
    forfeits: tuple[int, ...] = ()  # seats that resigned or ran out of time


def is_run(values: list[int]) -> bool:
    """Three consecutive values in any order, ace low only (rule 7, A4: no Q-K-A wrap)."""
    low, mid, high = sorted(values)
    return mid == low + 1 and high == mid + 1


def _suits(config: dict) -> tuple[str, str]:
    return config["suits"]["oya"], config["suits"]["ko"]


class NineCard(Engine):
    slug = "nine-card"
    name = "Nine Card"
    rules_version = "1"
    min_seats = 2
    max_seats = 2
    max_events = 1 + 2 * TURNS + 1
    flags = (
        Flag("horizontal_ps", False, "Rows of the 3x3 grid also cause paradigm shifts in round 3."),
        Flag(
            "suits",
            {"oya": "S", "ko": "H"},
            "The suit each player uses (any two different suits).",
            kind="object",
        ),
        Flag("match_tiebreak", "draw", "Equal round wins: the game is drawn.", "str", ("draw",)),
        Flag("reveal_at_end", False, "Show unplayed and set-aside cards once the game is over."),
        Flag("show_set_aside_to_owner", False, "Let each player see their own 4 set-aside cards."),
        Flag(
            "commit_seconds",
            0,
            "Seconds each turn stays open for commits; a seat that has not committed in time "
            "forfeits the game (both late: drawn). 0 means no limit.",
            "float",
            minimum=0,
            maximum=86400,
        ),
    )

    def validate_config(self, config: dict | None) -> dict:
        full = super().validate_config(config)
        suits = full["suits"]
        if set(suits) != {"oya", "ko"} or not all(s in cards.SUITS for s in suits.values()):
            raise ConfigError('config flag "suits" must be {"oya": S|H|D|C, "ko": S|H|D|C}')
        if suits["oya"] == suits["ko"]:
            raise ConfigError('config flag "suits" needs two different suits')
        return full

    # ---- setup and chance ---------------------------------------------------------------
    def setup(self, config: dict | None, seats: int = 2) -> NineCardState:
        return NineCardState(config=self.validate_setup(config, seats), phase="deal")

    def chance_due(self, state: NineCardState) -> str | None:
        return "deal" if state.phase == "deal" else None

    def sample_chance(self, state: NineCardState, rng) -> dict:
        hands, set_aside = [], []
        for suit in _suits(state.config):
            shuffled = rng.shuffle(cards.suit_cards(suit))
            hands.append(shuffled[:HAND_SIZE])
            set_aside.append(shuffled[HAND_SIZE:])
        return {"type": "deal", "hands": hands, "set_aside": set_aside}

    def _apply_deal(self, state: NineCardState, data: dict) -> NineCardState:
        hands, set_aside = data.get("hands"), data.get("set_aside")
        if not (isinstance(hands, list) and isinstance(set_aside, list)) or not (len(hands) == len(set_aside) == 2):
            raise MalformedEvent("a deal needs two hands and two set_aside piles")
        for seat, suit in enumerate(_suits(state.config)):
            hand, aside = hands[seat], set_aside[seat]
            if not (isinstance(hand, list) and isinstance(aside, list)):
                raise MalformedEvent("hands and set_aside piles must be lists of cards")
            if len(hand) != HAND_SIZE or len(aside) != 13 - HAND_SIZE:
                raise IllegalMove(
                    f"the {ROLE[seat]} must get 9 cards in hand and 4 set aside",
                    code="bad_deal",
                )
            if sorted(hand + aside, key=str) != sorted(cards.suit_cards(suit)):
                raise IllegalMove(
                    f"the {ROLE[seat]}'s hand and set-aside cards must be the 13 cards of {suit}",
                    code="bad_deal",
                )
        return replace(
            state,
            phase="commit",
            hands=(tuple(hands[0]), tuple(hands[1])),
            set_aside=(tuple(set_aside[0]), tuple(set_aside[1])),
        )

    # ---- turns ------------------------------------------------------------------------
    def actors(self, state: NineCardState) -> frozenset[int]:
        if state.phase != "commit":
            return frozenset()
        return frozenset(seat for seat in (0, 1) if state.pending[seat] is None)

    def legal_moves(self, state: NineCardState, seat: int) -> list[dict]:
        if seat not in self.actors(state):
            return []
        return [{"type": "commit_card", "card": c} for c in cards.sort_by_value(state.hands[seat])]

    def deadline(self, state: NineCardState) -> Deadline | None:
        seconds = state.config["commit_seconds"]
        if state.phase != "commit" or not seconds:
            return None
        return Deadline(f"turn-{state.turn}", seconds, tuple(sorted(self.actors(state))))

    actions = (Action("commit_card", {"card": Param("string", "the id of a card in your hand", max_length=ID_LENGTH)}),)

    def seat_count(self, state: NineCardState) -> int:
        return 2

    def apply_chance(self, state: NineCardState, data: dict) -> NineCardState:
        if data["type"] != "deal":
            raise MalformedEvent(f"Nine Card has no chance step {data['type']!r}")
        return self._apply_deal(state, data)

    def apply_resign(self, state: NineCardState, seat: int, data: dict) -> NineCardState:
        return replace(state, phase="over", ended_by="resign", forfeits=(seat,))

    def apply_close_window(self, state: NineCardState, data: dict) -> NineCardState:
        late = tuple(seat for seat in (0, 1) if state.pending[seat] is None)
        return replace(state, phase="over", ended_by="timeout", forfeits=late)

    def apply_move(self, state: NineCardState, seat: int, data: dict) -> NineCardState:
        card = require_param(data, "card", str, "the id of a card in your hand")
        if state.pending[seat] is not None:
            raise IllegalMove(
                f"you have already committed a card for turn {state.turn}; a commit is final",
                code="already_committed",
            )
        if card not in state.hands[seat]:
            options = " ".join(cards.sort_by_value(state.hands[seat]))
            raise IllegalMove(
                f"{card} is not in your hand; you can commit one of: {options}",
                code="card_not_in_hand",
            )
        hands = list(state.hands)
        hands[seat] = tuple(c for c in state.hands[seat] if c != card)
        pending = list(state.pending)
        pending[seat] = card
        state = replace(state, hands=tuple(hands), pending=tuple(pending))
        if None in state.pending:
            return state
        return self._reveal(state)

    def _reveal(self, state: NineCardState) -> NineCardState:
        played = tuple(state.played[seat] + (state.pending[seat],) for seat in (0, 1))
        state = replace(state, played=played, pending=(None, None))
        if state.turn % 3 == 0:
            state = self._resolve_round(state, state.turn // 3)
        if state.phase != "over":
            state = replace(state, turn=state.turn + 1)
        return state

    def _resolve_round(self, state: NineCardState, rnd: int) -> NineCardState:
        columns = [[cards.value(c) for c in state.played[seat][3 * (rnd - 1) : 3 * rnd]] for seat in (0, 1)]
        totals = (sum(columns[0]), sum(columns[1]))
        column_ps = (is_run(columns[0]), is_run(columns[1]))
        row_ps = [0, 0]
        if rnd == 3 and state.config["horizontal_ps"]:
            for seat in (0, 1):
                values = [cards.value(c) for c in state.played[seat]]
                row_ps[seat] = sum(is_run(values[k::3]) for k in range(3))
        shifts = sum(column_ps) + sum(row_ps)
        mode = state.mode
        if shifts % 2 == 1:
            mode = "LOW" if mode == "HIGH" else "HIGH"
        winner = None
        if totals[0] != totals[1]:
            higher = 0 if totals[0] > totals[1] else 1
            winner = higher if mode == "HIGH" else 1 - higher
        wins = list(state.wins)
        if winner is not None:
            wins[winner] += 1
        result = RoundResult(rnd, totals, column_ps, tuple(row_ps), mode, winner)
        over = max(wins) >= 2 or rnd == 3
        return replace(
            state,
            mode=mode,
            wins=tuple(wins),
            rounds=state.rounds + (result,),
            phase="over" if over else state.phase,
            ended_by="rounds" if over else None,
        )

    # ---- outcome ------------------------------------------------------------------------
    def outcome(self, state: NineCardState) -> Outcome | None:
        if state.phase != "over":
            return None
        scores = {0: state.wins[0], 1: state.wins[1]}
        detail = {"reason": state.ended_by, "rounds": [_round_json(r) for r in state.rounds]}
        if state.ended_by in ("resign", "timeout"):
            detail["forfeits"] = list(state.forfeits)
            if len(state.forfeits) == 1:
                loser = state.forfeits[0]
                return Outcome(((1 - loser,), (loser,)), scores, detail)
            return Outcome(((0, 1),), scores, detail)
        if state.wins[0] == state.wins[1]:
            return Outcome(((0, 1),), scores, detail)
        winner = 0 if state.wins[0] > state.wins[1] else 1
        return Outcome(((winner,), (1 - winner,)), scores, detail)

    # ---- hidden information -------------------------------------------------------------
    def _shows_set_aside(self, state: NineCardState, viewer: int | None, owner: int) -> bool:
        if state.phase == "over" and state.config["reveal_at_end"]:
            return True
        return viewer == owner and state.config["show_set_aside_to_owner"]

    def _shows_hand(self, state: NineCardState, viewer: int | None, owner: int) -> bool:
        return viewer == owner or (state.phase == "over" and state.config["reveal_at_end"])

    def hidden_from(self, state: NineCardState, seat: int | None) -> frozenset[str]:
        hidden: set[str] = set()
        for owner in (0, 1):
            if not self._shows_hand(state, seat, owner):
                hidden.update(state.hands[owner])
            if not self._shows_set_aside(state, seat, owner):
                hidden.update(state.set_aside[owner])
            if state.pending[owner] is not None and not self._shows_hand(state, seat, owner):
                hidden.add(state.pending[owner])
        return frozenset(hidden)

    def view(self, state: NineCardState, seat: int | None) -> dict:
        rnd = min((state.turn - 1) // 3 + 1, 3)
        players = []
        for owner in (0, 1):
            played = state.played[owner]
            player = {
                "role": ROLE[owner],
                "suit": _suits(state.config)[owner],
                "grid": [list(played[3 * c : 3 * c + 3]) for c in range(3)],
                "round_wins": state.wins[owner],
                "hand_size": len(state.hands[owner]),
                "committed": state.pending[owner] is not None,
                "hand": cards.sort_by_value(state.hands[owner]) if self._shows_hand(state, seat, owner) else None,
                "set_aside": (
                    cards.sort_by_value(state.set_aside[owner]) if self._shows_set_aside(state, seat, owner) else None
                ),
            }
            if self._shows_hand(state, seat, owner):
                player["committed_card"] = state.pending[owner]
            players.append(player)
        return {
            "phase": state.phase,
            "turn": state.turn,
            "round": rnd,
            "row": (state.turn - 1) % 3 + 1,
            "mode": state.mode,
            "players": players,
            "rounds": [_round_json(r) for r in state.rounds],
        }

    def event_view(self, state: NineCardState, event: dict, seat: int | None) -> dict:
        data = event["data"]
        if event["kind"] == "chance" and data.get("type") == "deal":
            shown = dict(data)
            shown["hands"] = [
                data["hands"][owner] if self._shows_hand(state, seat, owner) else None for owner in (0, 1)
            ]
            shown["set_aside"] = [
                data["set_aside"][owner] if self._shows_set_aside(state, seat, owner) else None for owner in (0, 1)
            ]
            return {**event, "data": shown}
        if event["kind"] == "move" and not self._shows_hand(state, seat, event["seat"]):
            if data.get("card") not in state.played[event["seat"]]:
                return {**event, "data": {"type": data["type"], "card": None}}
        return event

    # ---- serialisation ------------------------------------------------------------------
    def dump_state(self, state: NineCardState) -> dict:
        return {
            "config": state.config,
            "phase": state.phase,
            "hands": [list(h) for h in state.hands],
            "set_aside": [list(h) for h in state.set_aside],
            "played": [list(h) for h in state.played],
            "pending": list(state.pending),
            "turn": state.turn,
            "mode": state.mode,
            "wins": list(state.wins),
            "rounds": [_round_json(r) for r in state.rounds],
            "ended_by": state.ended_by,
            "forfeits": list(state.forfeits),
        }

    def load_state(self, data: dict) -> NineCardState:
        def pair(key):
            return tuple(tuple(x) for x in data[key])

        return NineCardState(
            config=data["config"],
            phase=data["phase"],
            hands=pair("hands"),
            set_aside=pair("set_aside"),
            played=pair("played"),
            pending=tuple(data["pending"]),
            turn=data["turn"],
            mode=data["mode"],
            wins=tuple(data["wins"]),
            rounds=tuple(
                RoundResult(
                    r["round"], tuple(r["totals"]), tuple(r["column_ps"]), tuple(r["row_ps"]), r["mode"], r["winner"]
                )
                for r in data["rounds"]
            ),
            ended_by=data["ended_by"],
            forfeits=tuple(data["forfeits"]),
        )


def _round_json(result: RoundResult) -> dict:
    return {
        "round": result.round,
        "totals": list(result.totals),
        "column_ps": list(result.column_ps),
        "row_ps": list(result.row_ps),
        "mode": result.mode,
        "winner": result.winner,
    }


ENGINE = NineCard()
