"""The generic engine harness: random playthroughs with invariants, in the manner of OpenSpiel.

``check_engine(engine)`` runs every check below for every allowed seat count and many seeds. Each
check is also usable on its own, so an engine's own tests can run it on chosen configs.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

from games.engines.base import Engine, RuleError
from games.engines.chance import ChanceStream

# Positions can have hundreds of legal moves (Turn Thief: any card declared as any card), so each
# step checks a deterministic sample; across the steps and seeds of a run every kind is covered.
SAMPLE = 40

GARBAGE_MOVES = (
    {},
    {"type": "no_such_action"},
    {"type": 7},
    {"type": "resign_now_please", "card": "AS"},
)


# json.dumps with these arguments builds this same encoder on every call, and so does
# JSONEncoder.encode (its C encoder, per call); the harness encodes millions of moves, so the C
# encoder is built once. No circular-reference markers: states, views and moves are trees.
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
_C_ENCODE = (
    json.encoder.c_make_encoder(
        None, _ENCODER.default, json.encoder.encode_basestring, None, ":", ",", True, False, True
    )
    if json.encoder.c_make_encoder is not None
    else None
)


def canonical(obj) -> str:
    if _C_ENCODE is None:
        return _ENCODER.encode(obj)
    return "".join(_C_ENCODE(obj, 0))


class SeenMoves:
    """Every move listed so far, by canonical JSON, in first-seen order (sampled by position)."""

    def __init__(self) -> None:
        self.by_key: dict[str, dict] = {}
        self.keys: list[str] = []

    def add(self, encoded: list[str], moves: list[dict]) -> None:
        by_key = self.by_key
        for key, move in zip(encoded, moves, strict=True):
            if key not in by_key:
                by_key[key] = move
                self.keys.append(key)


def random_playthrough(engine: Engine, seats: int, seed: int, config: dict | None = None, *, checks: bool = True):
    """Play one game with random legal choices; returns ``(events, states)``.

    With ``checks`` every step is verified: legal moves unique and stable, empty for seats that
    may not act, every listed move accepted, unlisted ones rejected, serialisation round-trips,
    and no view leaks a hidden card.
    """
    chooser = random.Random(seed)
    secret = seed.to_bytes(8, "big")
    state = engine.setup(config, seats)
    events: list[dict] = []
    states = [state]
    seen_moves = SeenMoves()
    while engine.outcome(state) is None:
        assert len(events) < engine.max_events, f"{engine.slug}: no end after {len(events)} events"
        due = engine.chance_due(state)
        if due:
            data = engine.sample_chance(state, ChanceStream(secret, len(events) + 1))
            event = {"kind": "chance", "data": data}
        else:
            actors = sorted(engine.actors(state))
            deadline = engine.deadline(state)
            if checks:
                checked = _check_moves(engine, state, seats, seen_moves, chooser)
            if deadline is not None and (not actors or chooser.random() < 0.1):
                event = {"kind": "system", "data": {"type": "close_window", "window": deadline.window}}
            else:
                assert actors, f"{engine.slug}: nobody may act, no chance due, no window open"
                seat = chooser.choice(actors)
                # With checks, the moves (listed twice in the same order) and their encodings
                # come from _check_moves; the list of moves seen so far serves only its checks.
                moves = checked[seat][0] if checks else engine.legal_moves(state, seat)
                assert moves, f"{engine.slug}: seat {seat} may act but has no legal move"
                move = chooser.choice(moves)
                if checks:
                    seen_moves.add(checked[seat][1], moves)
                event = {"kind": "move", "seat": seat, "data": move}
        state = engine.apply(state, event)
        events.append(event)
        states.append(state)
        if checks:
            assert engine.load_state(json.loads(canonical(engine.dump_state(state)))) == state
            # Every past event is rescanned now and then (a revealed card can become hidden again);
            # rescanning at every step would make long games quadratic.
            full = len(events) % 100 == 0 or engine.outcome(state) is not None
            check_no_leaks(engine, state, events if full else events[-1:], seats)
    return events, states


def _check_moves(
    engine: Engine, state, seats: int, seen_moves: SeenMoves, chooser: random.Random
) -> dict[int, tuple[list[dict], list[str]]]:
    """Check every seat's legal moves here; returns each seat's moves (as a list) and their canonical JSON."""
    actors = engine.actors(state)
    checked = {}
    for seat in range(seats):
        sequence = engine.legal_moves(state, seat)
        assert isinstance(sequence, Sequence), f"legal_moves must return a Sequence, not {type(sequence).__name__}"
        moves = list(sequence)
        encoded = [canonical(m) for m in moves]
        if moves:  # the moves are the caller's: changing one changes nothing a later call lists
            _scribble(engine.legal_moves(state, seat)[len(moves) // 2])
        assert list(engine.legal_moves(state, seat)) == moves, (
            "legal moves must come in a stable order (and not share data with what a caller got before)"
        )
        checked[seat] = (moves, encoded)
        listed = set(encoded)
        assert len(listed) == len(encoded), f"duplicate legal moves for seat {seat}"
        if seat not in actors:
            assert not moves, f"seat {seat} may not act but has legal moves"
        lazy = type(sequence) is not list
        if lazy:
            _check_lazy(sequence, moves)
        for move in moves if len(moves) <= SAMPLE else chooser.sample(moves, SAMPLE):
            engine.apply(state, {"kind": "move", "seat": seat, "data": move})
        # Sampled by position, not by filtering them all: some games list thousands of distinct moves.
        order = seen_moves.keys
        keys = order if len(order) <= SAMPLE else [order[i] for i in chooser.sample(range(len(order)), SAMPLE)]
        for move in [seen_moves.by_key[key] for key in keys if key not in listed] + list(GARBAGE_MOVES):
            if lazy:
                assert move not in sequence, f"seat {seat}: {move} is not listed, but `in` finds it"
            try:
                engine.apply(state, {"kind": "move", "seat": seat, "data": move})
            except RuleError as error:
                assert error.code and error.message
            else:
                raise AssertionError(f"seat {seat}: unlisted move {move} was accepted")
    return checked


def _scribble(move: dict) -> None:
    """Change a move the way a caller may (a new field, an item added to each list it holds)."""
    for value in move.values():
        if isinstance(value, list):
            value.append("scribbled")
    move["scribbled"] = True


def _check_lazy(sequence: Sequence, moves: list[dict]) -> None:
    """A lazy Sequence of moves keeps the contract (``games/engines/base.py``) at evenly spread
    positions (the first and last among them): indexing (negative too) gives what iteration gave,
    ``in`` and ``index`` find each listed move. The game's random choices are left alone."""
    count = len(moves)
    assert len(sequence) == count and bool(sequence) == bool(moves)
    positions = {*range(0, count, max(1, count // SAMPLE)), count - 1} if count else ()
    for position in positions:
        move = moves[position]
        assert sequence[position] == move and sequence[position - count] == move, f"move {position} differs"
        assert move in sequence and sequence.index(move) == position and sequence.count(move) == 1
    for outside in (count, -count - 1):
        try:
            sequence[outside]
        except IndexError:
            continue
        raise AssertionError(f"index {outside} of {count} moves must raise IndexError")


def check_no_leaks(engine: Engine, state, events: list[dict], seats: int) -> None:
    """No seat's view of the state or of any event contains a card hidden from that seat."""
    for seat in [*range(seats), None]:
        hidden = engine.hidden_from(state, seat)
        if not hidden:
            continue
        # The view and the event views as one JSON text (one encoder call).
        text = canonical([engine.view(state, seat), *(engine.event_view(state, e, seat) for e in events)])
        # A token without a quote appears as '"token"' in the text exactly when it is one of the
        # pieces between two consecutive quotes; one split finds them all at once, and the hidden
        # set is asked about each piece (no set of the pieces is built when nothing leaked).
        pieces = text.split('"')[1:-1]
        if hidden.isdisjoint(pieces) and not any('"' in token for token in hidden):
            continue
        quoted = set(pieces)
        leaked = sorted(token for token in hidden if (token in quoted if '"' not in token else f'"{token}"' in text))
        assert not leaked, f"seat {seat} can see hidden {leaked}"


def check_replay_equals_live(engine: Engine, seats: int, seed: int, config: dict | None = None) -> list[dict]:
    """Replaying a game's events (through JSON) reaches the state play reached; returns the events."""
    events, states = random_playthrough(engine, seats, seed, config, checks=False)
    replayed = engine.replay(config, seats, json.loads(canonical(events)))
    assert replayed == states[-1]
    return events


def check_deterministic(
    engine: Engine, seats: int, seed: int, config: dict | None = None, first: list[dict] | None = None
) -> None:
    """The same seed plays the same game; ``first`` is a game of that seed played already."""
    if first is None:
        first, _ = random_playthrough(engine, seats, seed, config, checks=False)
    second, _ = random_playthrough(engine, seats, seed, config, checks=False)
    assert canonical(first) == canonical(second)


def check_outcome(engine: Engine, state, seats: int) -> None:
    outcome = engine.outcome(state)
    assert outcome is not None
    ranked = [seat for group in outcome.ranking for seat in group]
    assert sorted(ranked) == list(range(seats)), f"ranking must name every seat once: {outcome.ranking}"
    assert all(group for group in outcome.ranking)
    assert set(outcome.scores) <= set(range(seats))
    json.loads(canonical(outcome.to_json()))


def check_engine(engine: Engine, *, seeds: int = 30, config: dict | None = None) -> None:
    """Every harness check, at every allowed seat count, over ``seeds`` random games."""
    engine.describe()
    engine.validate_config(config)
    for seats in range(engine.min_seats, engine.max_seats + 1):
        for seed in range(seeds):
            _, states = random_playthrough(engine, seats, seed, config)
            check_outcome(engine, states[-1], seats)
            if seed < 5:
                # The game replayed is the first of the two the determinism check compares.
                played = check_replay_equals_live(engine, seats, seed, config)
                check_deterministic(engine, seats, seed, config, first=played)
