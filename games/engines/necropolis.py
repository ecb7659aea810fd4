"""Necropolis (ネクロポリス): two-player dominoes; bury drawn tiles in a grave row, keep few in the mastaba.

Implements ``shared/rules/necropolis.md`` (seed 001). All 28 tiles of a double-six set form the
face-down necropolis; each seat starts a face-up grave row with one tile. On a turn the active
seat draws and then buries (attaches to an end of its row, a shared pip value lined up) or
entombs (keeps face down in its mastaba) the tile, or buries a mastaba tile, restarts its row, or
exchanges a mastaba tile with the necropolis. The game ends when the necropolis is empty after a
turn or when both seats agree; score = mastaba pips + the current row's start tile + 1, lowest
wins. Chance: ``deal`` (the whole necropolis, top first) and ``exchange_draw`` after an exchange.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from . import cards
from .base import (
    ID_LENGTH,
    Action,
    Engine,
    Flag,
    IllegalMove,
    MalformedEvent,
    NotYourTurn,
    Outcome,
    Param,
    UnexpectedChance,
    require_param,
)

TILES = cards.domino_set(6)
TILE_ORDER = {t: i for i, t in enumerate(TILES)}
ENDS = ("left", "right")
SOURCES = ("necropolis", "mastaba")
EXCHANGE_ORDERS = ("return_then_draw_other", "draw_then_return", "return_then_draw_any")
MAX_MATCH_GAMES = 10
MAX_TURN_LIMIT = 1000
# Worst turn: propose_end, decline_end, then exchange + exchange_draw (or draw + bury) = 4 events.
EVENTS_PER_TURN = 4

Placed = tuple[int, int]  # a tile standing in a grave row: (top, bottom)


_TILE = Param("string", "a tile of your mastaba, e.g. 2-5", max_length=ID_LENGTH)
_END = Param("string", "left or right", choices=ENDS, choice_code="bad_end", max_length=ID_LENGTH)
_TOP = Param("integer", "the pip value to stand on top", False, nullable=True)


@dataclass(frozen=True)
class GameResult:
    """One finished game of a match: who began, why it ended, the scores and what they counted."""

    first: int
    reason: str  # necropolis_empty | agreement | turn_limit
    scores: tuple[int, int]
    mastabas: tuple[tuple[str, ...], tuple[str, ...]]
    start_tiles: tuple[str, str]


@dataclass(frozen=True)
class NecropolisState:
    config: dict
    phase: str  # deal | play | exchange (an exchange_draw is due) | over
    necropolis: tuple[str, ...] = ()  # top first
    graves: tuple[tuple[Placed, ...], tuple[Placed, ...]] = ((), ())
    start_index: tuple[int, int] = (0, 0)
    mastabas: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # kept in set order
    discards: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    active: int = 0
    turn: int = 1
    drawn: str | None = None  # PLACE_DRAWN: the active seat's drawn tile
    proposal: bool = False  # END_PROPOSAL: the active seat proposed, the opponent must answer
    proposed: bool = False  # propose_end already used this turn
    returning: str | None = None  # the tile just put back by an exchange (phase exchange)
    # Tiles each seat put back into the necropolis (it knows their ids, not where they are now)
    # and tiles it drew by exchange, both for the current game: event views use them.
    returned: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    exchange_drawn: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    games: tuple[GameResult, ...] = ()  # finished games of the match
    resigned: int | None = None


def pips(tile_id: str) -> int:
    low, high = cards.tile_ends(tile_id)
    return low + high


def sort_tiles(tiles) -> tuple[str, ...]:
    return tuple(sorted(tiles, key=TILE_ORDER.__getitem__))


def fits(new: Placed, end: Placed) -> bool:
    """The attachment rule: the tops or the bottoms line up (上か下の同じ目が揃う)."""
    return new[0] == end[0] or new[1] == end[1]


def orientations(tile_id: str) -> list[Placed]:
    """The ways a tile can stand, lower value on top first (a double stands one way)."""
    low, high = cards.tile_ends(tile_id)
    return [(low, high)] if low == high else [(low, high), (high, low)]


def _placed_text(placed: Placed) -> str:
    return f"{placed[0]}/{placed[1]}"


def _pair(value, convert=tuple):
    return (convert(value[0]), convert(value[1]))


def _set(pair, seat: int, values) -> tuple:
    out = list(pair)
    out[seat] = values
    return tuple(out)


class Necropolis(Engine):
    slug = "necropolis"
    name = "Necropolis"
    rules_version = "1"
    min_seats = 2
    max_seats = 2
    max_events = MAX_MATCH_GAMES * (1 + EVENTS_PER_TURN * MAX_TURN_LIMIT) + 1
    flags = (
        Flag(
            "exchange_order",
            "return_then_draw_other",
            "Exchange: return the mastaba tile, then draw a different tile (default); draw first "
            "then return (same effect); or return then draw any tile, possibly the same one (A2).",
            "str",
            EXCHANGE_ORDERS,
        ),
        Flag("allow_end_by_agreement", True, "The active seat may propose to end; the opponent accepts or declines."),
        Flag("score_plus_one", True, "Add 1 to each score (the source's '+1'; it never changes the winner)."),
        Flag("mastaba_self_view", True, "A seat's view lists its own mastaba tiles (else only their count)."),
        Flag("show_discarded_graves", False, "Views list the discarded grave tiles (else only their count)."),
        Flag("tie_result", "draw", "Equal scores: the game is drawn.", "str", ("draw",)),
        Flag(
            "match_games",
            1,
            "Not in the source: play N games, the first player alternating, and add up the scores; "
            "the lowest total wins.",
            "int",
            minimum=1,
            maximum=MAX_MATCH_GAMES,
        ),
        Flag(
            "turn_limit",
            200,
            "Not in the source: a game also ends (and is scored) after this many turns, so that "
            "endless exchanges cannot stall it. Without exchanges a game has at most 52 turns.",
            "int",
            minimum=1,
            maximum=MAX_TURN_LIMIT,
        ),
    )

    # ---- setup and chance ---------------------------------------------------------------
    def setup(self, config: dict | None, seats: int = 2) -> NecropolisState:
        return NecropolisState(config=self.validate_setup(config, seats), phase="deal")

    def chance_due(self, state: NecropolisState) -> str | None:
        return {"deal": "deal", "exchange": "exchange_draw"}.get(state.phase)

    def sample_chance(self, state: NecropolisState, rng) -> dict:
        if state.phase == "deal":
            return {"type": "deal", "necropolis": rng.shuffle(TILES)}
        if state.phase == "exchange":
            candidates = self._exchange_candidates(state)
            drawn = rng.choice(candidates)
            rest = list(state.necropolis)
            rest.remove(drawn)
            return {"type": "exchange_draw", "drawn": drawn, "necropolis": rng.shuffle(rest)}
        raise UnexpectedChance("no chance step is due")

    def _exchange_candidates(self, state: NecropolisState) -> list[str]:
        if state.config["exchange_order"] == "return_then_draw_any":
            return list(state.necropolis)
        return [t for t in state.necropolis if t != state.returning]

    def _first(self, state: NecropolisState) -> int:
        """The first player of the current game: seat 0, then alternating in a match."""
        return len(state.games) % 2

    def _apply_chance(self, state: NecropolisState, data: dict) -> NecropolisState:
        due = self.chance_due(state)
        if due is None:
            raise UnexpectedChance("no chance event is due now; the next event must be a move")
        if data["type"] != due:
            raise UnexpectedChance(f"the chance step due now is {due}, not {data['type']!r}")
        if due == "deal":
            return self._apply_deal(state, data)
        return self._apply_exchange_draw(state, data)

    def _apply_deal(self, state: NecropolisState, data: dict) -> NecropolisState:
        pile = _tile_list(data, "necropolis")
        if len(pile) != len(TILES) or set(pile) != set(TILES):
            raise IllegalMove(
                "a deal must list all 28 tiles of the double-six set (0-0 ... 6-6), each once, top first",
                code="bad_deal",
            )
        first = self._first(state)
        starts = [pile[0], pile[1]] if first == 0 else [pile[1], pile[0]]
        return replace(
            state,
            phase="play",
            necropolis=tuple(pile[2:]),
            graves=(tuple(orientations(starts[0])[:1]), tuple(orientations(starts[1])[:1])),
            start_index=(0, 0),
            active=first,
            turn=1,
        )

    def _apply_exchange_draw(self, state: NecropolisState, data: dict) -> NecropolisState:
        drawn = require_param(data, "drawn", str, "the tile drawn from the necropolis, e.g. 2-5")
        pile = _tile_list(data, "necropolis")
        if drawn not in state.necropolis:
            raise IllegalMove(f"{drawn} is not in the necropolis, so it cannot be drawn", code="bad_exchange_draw")
        if drawn not in self._exchange_candidates(state):
            raise IllegalMove(
                f"{drawn} was just returned; the exchange draws a different tile (別の1枚)",
                code="bad_exchange_draw",
            )
        rest = list(state.necropolis)
        rest.remove(drawn)
        if sorted(pile) != sorted(rest):
            raise IllegalMove(
                f"after drawing {drawn} the necropolis must hold exactly its other {len(rest)} tiles",
                code="bad_exchange_draw",
            )
        seat = state.active
        state = replace(
            state,
            phase="play",
            necropolis=tuple(pile),
            mastabas=_set(state.mastabas, seat, sort_tiles(state.mastabas[seat] + (drawn,))),
            exchange_drawn=_set(state.exchange_drawn, seat, sort_tiles(set(state.exchange_drawn[seat]) | {drawn})),
            returning=None,
        )
        return self._end_action(state)

    # ---- turns ------------------------------------------------------------------------
    def actors(self, state: NecropolisState) -> frozenset[int]:
        if state.phase != "play":
            return frozenset()
        return frozenset({1 - state.active if state.proposal else state.active})

    def legal_moves(self, state: NecropolisState, seat: int) -> list[dict]:
        if seat not in self.actors(state):
            return []
        if state.proposal:
            return [{"type": "accept_end"}, {"type": "decline_end"}]
        grave = state.graves[seat]
        if state.drawn is not None:
            moves = [{"type": "bury_drawn", "end": end, "top": top} for end, top in _placements(grave, state.drawn)]
            return moves + [{"type": "entomb_drawn"}]
        moves = []
        if state.config["allow_end_by_agreement"] and not state.proposed:
            moves.append({"type": "propose_end"})
        moves.append({"type": "draw"})
        mastaba = state.mastabas[seat]
        for tile in mastaba:
            moves.extend(
                {"type": "bury_from_mastaba", "tile": tile, "end": end, "top": top}
                for end, top in _placements(grave, tile)
            )
        moves.append({"type": "restart_grave", "source": "necropolis"})
        moves.extend({"type": "restart_grave", "source": "mastaba", "tile": tile} for tile in mastaba)
        moves.extend({"type": "exchange", "tile": tile} for tile in mastaba)
        return moves

    actions = (
        Action("propose_end"),
        Action("accept_end"),
        Action("decline_end"),
        Action("draw"),
        Action("bury_drawn", {"end": _END, "top": _TOP}),
        Action("entomb_drawn"),
        Action("bury_from_mastaba", {"tile": _TILE, "end": _END, "top": _TOP}),
        Action(
            "restart_grave",
            {
                "source": Param(
                    "string", "necropolis or mastaba", choices=SOURCES, choice_code="bad_source", max_length=ID_LENGTH
                ),
                "tile": Param("string", "a tile of your mastaba (source mastaba only)", False, max_length=ID_LENGTH),
            },
        ),
        Action("exchange", {"tile": _TILE}),
    )

    def seat_count(self, state: NecropolisState) -> int:
        return 2

    def apply_chance(self, state: NecropolisState, data: dict) -> NecropolisState:
        return self._apply_chance(state, data)

    def apply_resign(self, state: NecropolisState, seat: int, data: dict) -> NecropolisState:
        return replace(state, phase="over", resigned=seat)

    def open_window(self, state: NecropolisState) -> str | None:
        return None  # Necropolis has no timed windows

    def apply_move(self, state: NecropolisState, seat: int, data: dict) -> NecropolisState:
        action = data["type"]
        if action in ("accept_end", "decline_end"):
            return self._answer_proposal(state, seat, action)
        if state.proposal:
            if seat == state.active:
                raise NotYourTurn("you proposed to end the game; wait for your opponent to accept or decline")
            raise IllegalMove(
                "your opponent proposed to end the game; answer with accept_end or decline_end",
                code="must_answer_proposal",
            )
        if seat != state.active:
            raise NotYourTurn(f"it is seat {state.active}'s turn")
        if action in ("bury_drawn", "entomb_drawn"):
            if state.drawn is None:
                raise IllegalMove(
                    f"{action} places the tile you just drew, and you have not drawn one; draw first",
                    code="no_drawn_tile",
                )
        elif state.drawn is not None:
            raise IllegalMove(
                f"you drew {state.drawn}: bury it with bury_drawn (if it fits) or keep it with entomb_drawn",
                code="tile_pending",
            )
        return getattr(self, f"_{action}")(state, seat, data)

    def _propose_end(self, state: NecropolisState, seat: int, data: dict) -> NecropolisState:
        if not state.config["allow_end_by_agreement"]:
            raise IllegalMove("ending by agreement is switched off in this game", code="end_by_agreement_disabled")
        if state.proposed:
            raise IllegalMove(
                "you already proposed to end the game this turn and it was declined; take an action",
                code="already_proposed",
            )
        return replace(state, proposal=True, proposed=True)

    def _answer_proposal(self, state: NecropolisState, seat: int, action: str) -> NecropolisState:
        if not state.proposal:
            raise IllegalMove(
                f"nobody has proposed to end the game, so there is nothing to {action.split('_')[0]}",
                code="no_proposal",
            )
        if seat == state.active:
            raise NotYourTurn("your opponent must answer your proposal to end the game")
        if action == "accept_end":
            return self._finish_game(replace(state, proposal=False), "agreement")
        return replace(state, proposal=False)

    def _draw(self, state: NecropolisState, seat: int, data: dict) -> NecropolisState:
        if not state.necropolis:
            raise IllegalMove("the necropolis is empty", code="necropolis_empty")
        return replace(state, drawn=state.necropolis[0], necropolis=state.necropolis[1:])

    def _bury_drawn(self, state: NecropolisState, seat: int, data: dict) -> NecropolisState:
        state = self._attach(state, seat, state.drawn, data)
        return self._end_action(replace(state, drawn=None))

    def _entomb_drawn(self, state: NecropolisState, seat: int, data: dict) -> NecropolisState:
        mastaba = sort_tiles(state.mastabas[seat] + (state.drawn,))
        return self._end_action(replace(state, drawn=None, mastabas=_set(state.mastabas, seat, mastaba)))

    def _bury_from_mastaba(self, state: NecropolisState, seat: int, data: dict) -> NecropolisState:
        tile = self._mastaba_tile(state, seat, data)
        state = self._attach(state, seat, tile, data)
        mastaba = tuple(t for t in state.mastabas[seat] if t != tile)
        return self._end_action(replace(state, mastabas=_set(state.mastabas, seat, mastaba)))

    def _restart_grave(self, state: NecropolisState, seat: int, data: dict) -> NecropolisState:
        source = require_param(data, "source", str, "necropolis or mastaba")
        if source not in SOURCES:
            raise IllegalMove(f"a grave restarts from the necropolis or the mastaba, not {source!r}", code="bad_source")
        mastabas, necropolis = state.mastabas, state.necropolis
        if source == "necropolis":
            if "tile" in data:
                raise IllegalMove(
                    'a restart from the necropolis takes its top tile; leave out "tile"', code="tile_not_allowed"
                )
            if not necropolis:
                raise IllegalMove("the necropolis is empty", code="necropolis_empty")
            start, necropolis = necropolis[0], necropolis[1:]
        else:
            start = self._mastaba_tile(state, seat, data)
            mastabas = _set(mastabas, seat, tuple(t for t in mastabas[seat] if t != start))
        cleared = tuple(cards.tile(*placed) for placed in state.graves[seat])
        state = replace(
            state,
            necropolis=necropolis,
            mastabas=mastabas,
            discards=_set(state.discards, seat, state.discards[seat] + cleared),
            graves=_set(state.graves, seat, tuple(orientations(start)[:1])),
            start_index=_set(state.start_index, seat, 0),
        )
        return self._end_action(state)

    def _exchange(self, state: NecropolisState, seat: int, data: dict) -> NecropolisState:
        tile = self._mastaba_tile(state, seat, data)
        if not state.necropolis:
            raise IllegalMove(
                "the necropolis is empty, so there is no other tile to exchange with", code="necropolis_empty"
            )
        return replace(
            state,
            phase="exchange",
            mastabas=_set(state.mastabas, seat, tuple(t for t in state.mastabas[seat] if t != tile)),
            necropolis=state.necropolis + (tile,),
            returning=tile,
            returned=_set(state.returned, seat, sort_tiles(set(state.returned[seat]) | {tile})),
        )

    def _mastaba_tile(self, state: NecropolisState, seat: int, data: dict) -> str:
        tile = require_param(data, "tile", str, "a tile of your mastaba, e.g. 2-5")
        if tile not in state.mastabas[seat]:
            held = " ".join(state.mastabas[seat]) or "nothing"
            raise IllegalMove(f"{tile} is not in your mastaba; it holds {held}", code="tile_not_in_mastaba")
        return tile

    def _attach(self, state: NecropolisState, seat: int, tile: str, data: dict) -> NecropolisState:
        """Stand ``tile`` at one end of the seat's row, tops or bottoms lined up (A10)."""
        end = require_param(data, "end", str, "left or right")
        if end not in ENDS:
            raise IllegalMove(f"a tile goes at the left or the right end of your row, not {end!r}", code="bad_end")
        top = data.get("top")
        if top is not None and (isinstance(top, bool) or not isinstance(top, int)):
            raise MalformedEvent(f'{data["type"]} needs "top": the pip value to stand on top (a number)')
        grave = state.graves[seat]
        end_tile = grave[0] if end == "left" else grave[-1]
        values = cards.tile_ends(tile)
        if top is not None and top not in values:
            raise IllegalMove(f"{tile} has no {top}; put {values[0]} or {values[1]} on top", code="bad_top")
        if not set(values) & set(end_tile):
            raise IllegalMove(
                f"{tile} shares no value with your {end}-end tile {_placed_text(end_tile)}, so it cannot go there",
                code="does_not_fit",
            )
        options = [p for p in orientations(tile) if fits(p, end_tile)]
        if top is None:
            placed = options[0]
        else:
            placed = (top, values[1] if top == values[0] else values[0])
            if not fits(placed, end_tile):
                right = options[0]
                raise IllegalMove(
                    f"{tile} as {_placed_text(placed)} lines up with neither the top nor the bottom of "
                    f"{_placed_text(end_tile)}; stand it as {_placed_text(right)} (top={right[0]})",
                    code="wrong_orientation",
                )
        if end == "left":
            grave, start = (placed,) + grave, state.start_index[seat] + 1
        else:
            grave, start = grave + (placed,), state.start_index[seat]
        return replace(
            state,
            graves=_set(state.graves, seat, grave),
            start_index=_set(state.start_index, seat, start),
        )

    def _end_action(self, state: NecropolisState) -> NecropolisState:
        """After actions 1-5: an empty necropolis (or the turn limit) ends the game, else the turn passes."""
        if not state.necropolis:
            return self._finish_game(state, "necropolis_empty")
        if state.turn >= state.config["turn_limit"]:
            return self._finish_game(state, "turn_limit")
        return replace(state, active=1 - state.active, turn=state.turn + 1, proposed=False)

    def _finish_game(self, state: NecropolisState, reason: str) -> NecropolisState:
        result = GameResult(
            first=self._first(state),
            reason=reason,
            scores=self._scores(state),
            mastabas=state.mastabas,
            start_tiles=_pair([self._start_tile(state, seat) for seat in (0, 1)], str),
        )
        games = state.games + (result,)
        if len(games) < state.config["match_games"]:
            return NecropolisState(config=state.config, phase="deal", games=games)
        return replace(state, phase="over", games=games)

    def _start_tile(self, state: NecropolisState, seat: int) -> str | None:
        grave = state.graves[seat]
        return cards.tile(*grave[state.start_index[seat]]) if grave else None

    def _scores(self, state: NecropolisState) -> tuple[int, int]:
        """score = mastaba pips + pips of the current row's start tile (+1) (section 5, A3, A4)."""
        plus = 1 if state.config["score_plus_one"] else 0
        return _pair(
            [sum(map(pips, state.mastabas[seat])) + pips(self._start_tile(state, seat)) + plus for seat in (0, 1)], int
        )

    def outcome(self, state: NecropolisState) -> Outcome | None:
        if state.phase != "over":
            return None
        totals = [sum(game.scores[seat] for game in state.games) for seat in (0, 1)]
        unfinished = state.resigned is not None and state.graves[0]
        if unfinished:
            totals = [total + score for total, score in zip(totals, self._scores(state), strict=True)]
        detail = {
            "reason": "resign" if state.resigned is not None else state.games[-1].reason,
            "games": [_game_json(game) for game in state.games],
        }
        scores = {0: totals[0], 1: totals[1]}
        if state.resigned is not None:
            detail["resigned"] = state.resigned
            if unfinished:
                detail["unfinished_scores"] = list(self._scores(state))
            return Outcome(((1 - state.resigned,), (state.resigned,)), scores, detail)
        if totals[0] == totals[1]:
            return Outcome(((0, 1),), scores, detail)
        winner = 0 if totals[0] < totals[1] else 1
        return Outcome(((winner,), (1 - winner,)), scores, detail)

    # ---- hidden information -------------------------------------------------------------
    def hidden_from(self, state: NecropolisState, seat: int | None) -> frozenset[str]:
        if state.phase == "over":
            return frozenset()
        hidden = set(state.necropolis)
        for owner in (0, 1):
            if owner != seat:
                hidden.update(state.mastabas[owner])
                if state.drawn is not None and state.active == owner:
                    hidden.add(state.drawn)
        if seat is not None:
            hidden.difference_update(state.returned[seat])
        return frozenset(hidden)

    def view(self, state: NecropolisState, seat: int | None) -> dict:
        over = state.phase == "over"
        players = []
        for owner in (0, 1):
            sees_mastaba = over or (seat == owner and state.config["mastaba_self_view"])
            holding = state.phase == "play" and state.drawn is not None and state.active == owner
            sees_discards = over or state.config["show_discarded_graves"]
            player = {
                "grave": [list(placed) for placed in state.graves[owner]],
                "start_index": state.start_index[owner],
                "start_tile": self._start_tile(state, owner),
                "mastaba_count": len(state.mastabas[owner]),
                "mastaba": list(state.mastabas[owner]) if sees_mastaba else None,
                "holding_drawn": holding,
                "drawn": state.drawn if holding and (seat == owner or over) else None,
                "discarded_count": len(state.discards[owner]),
                "discarded": list(state.discards[owner]) if sees_discards else None,
            }
            if over and state.graves[owner]:
                player["score"] = self._scores(state)[owner]
            players.append(player)
        step = None
        if state.phase == "play":
            step = "end_proposal" if state.proposal else "place_drawn" if state.drawn else "turn_start"
        out = {
            "phase": state.phase,
            "step": step,
            "game": len(state.games) + (0 if over else 1),
            "match_games": state.config["match_games"],
            "active": state.active if state.phase in ("play", "exchange") else None,
            "turn": state.turn,
            "turn_limit": state.config["turn_limit"],
            "necropolis_count": len(state.necropolis),
            "end_proposed": state.proposal,
            "proposed_this_turn": state.proposed,
            "players": players,
            "games": [_game_json(game, tiles=over) for game in state.games],
        }
        if over:
            out["necropolis"] = list(state.necropolis)
            outcome = self.outcome(state)
            out["result"] = outcome.to_json()
        return out

    def event_view(self, state: NecropolisState, event: dict, seat: int | None) -> dict:
        if state.phase == "over":
            return event
        data = event.get("data") or {}
        hidden = self.hidden_from(state, seat)

        def show(tile):
            return None if tile in hidden else tile

        action = data.get("type")
        if event.get("kind") == "chance" and action == "deal":
            pile = data.get("necropolis") or []
            shown = [show(t) if i < 2 else None for i, t in enumerate(pile)]
            return {**event, "data": {**data, "necropolis": shown}}
        if event.get("kind") == "chance" and action == "exchange_draw":
            drawn = data.get("drawn")
            mine = seat is not None and drawn in state.exchange_drawn[seat]
            pile = [None] * len(data.get("necropolis") or [])
            return {**event, "data": {**data, "drawn": show(drawn) if mine else None, "necropolis": pile}}
        if event.get("kind") == "move" and "tile" in data:
            own = event.get("seat") == seat
            tile = show(data["tile"]) if own or action != "exchange" else None
            return {**event, "data": {**data, "tile": tile}}
        return event

    # ---- serialisation ------------------------------------------------------------------
    def dump_state(self, state: NecropolisState) -> dict:
        return {
            "config": state.config,
            "phase": state.phase,
            "necropolis": list(state.necropolis),
            "graves": [[list(placed) for placed in grave] for grave in state.graves],
            "start_index": list(state.start_index),
            "mastabas": [list(m) for m in state.mastabas],
            "discards": [list(d) for d in state.discards],
            "active": state.active,
            "turn": state.turn,
            "drawn": state.drawn,
            "proposal": state.proposal,
            "proposed": state.proposed,
            "returning": state.returning,
            "returned": [list(r) for r in state.returned],
            "exchange_drawn": [list(r) for r in state.exchange_drawn],
            "games": [_game_json(game) for game in state.games],
            "resigned": state.resigned,
        }

    def load_state(self, data: dict) -> NecropolisState:
        return NecropolisState(
            config=data["config"],
            phase=data["phase"],
            necropolis=tuple(data["necropolis"]),
            graves=_pair([tuple(tuple(p) for p in grave) for grave in data["graves"]]),
            start_index=_pair(data["start_index"], int),
            mastabas=_pair(data["mastabas"]),
            discards=_pair(data["discards"]),
            active=data["active"],
            turn=data["turn"],
            drawn=data["drawn"],
            proposal=data["proposal"],
            proposed=data["proposed"],
            returning=data["returning"],
            returned=_pair(data["returned"]),
            exchange_drawn=_pair(data["exchange_drawn"]),
            games=tuple(
                GameResult(
                    first=g["first"],
                    reason=g["reason"],
                    scores=_pair(g["scores"], int),
                    mastabas=_pair(g["mastabas"]),
                    start_tiles=_pair(g["start_tiles"], str),
                )
                for g in data["games"]
            ),
            resigned=data["resigned"],
        )


def _placements(grave: tuple[Placed, ...], tile: str) -> list[tuple[str, int]]:
    """Every (end, top) at which ``tile`` may be buried, left before right, lower top first."""
    out = []
    for end in ENDS:
        end_tile = grave[0] if end == "left" else grave[-1]
        out.extend((end, placed[0]) for placed in orientations(tile) if fits(placed, end_tile))
    return out


def _tile_list(data: dict, name: str) -> list[str]:
    pile = data.get(name)
    if not isinstance(pile, list) or not all(isinstance(t, str) for t in pile):
        raise MalformedEvent(f'{data["type"]} needs "{name}": a list of tiles such as "2-5", top first')
    bad = [t for t in pile if not cards.is_tile(t)]
    if bad:
        raise IllegalMove(f"{bad[0]!r} is not a double-six tile id (a-b with 0 <= a <= b <= 6)", code="bad_tile")
    if len(set(pile)) != len(pile):
        raise IllegalMove(f'"{name}" lists a tile twice', code=f"bad_{data['type']}")
    return pile


def _game_json(game: GameResult, *, tiles: bool = True) -> dict:
    out = {"first": game.first, "reason": game.reason, "scores": list(game.scores)}
    if tiles:
        out["mastabas"] = [list(m) for m in game.mastabas]
        out["start_tiles"] = list(game.start_tiles)
    return out


ENGINE = Necropolis()
