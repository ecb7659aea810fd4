"""Every engine under every config: seeded random play across every flag value and seat count.

One flag is varied at a time (the rest at their defaults): numbers at their minimum, middle and
maximum (a missing maximum stands in as 10**9, a ``None`` default is tried too), every choice of
an enum, both booleans. For each config and each seat count ``validate_setup`` and ``setup`` must
agree (issue 26: a config accepted at creation must not fail at the start), and one random game is
played to its end under a step guard (``engine.max_events``) and a time guard (SIGALRM, so that a
sampler that never returns fails instead of hanging). At checked steps - every step of a game's
opening, then every ``CHECK_EVERY``-th - every seat's legal moves are listed, a sample of every
actor's moves must apply, every seat and the spectator get a JSON view, and cards or tiles are
conserved where the engine's state lays out its zones. Bounded to stay well under a minute.
"""

from __future__ import annotations

import json
import random
import signal
import zlib
from collections import Counter
from contextlib import contextmanager

import pytest

from games.engines import all_engines, cards
from games.engines.base import Engine, Flag, RuleError
from games.engines.chance import ChanceStream

from .harness import check_outcome

ENGINES = all_engines()
CHECKED_OPENING = 40  # steps of every game checked in full
CHECK_EVERY = 15  # then every CHECK_EVERY-th step
MOVE_SAMPLE = 4  # moves tried per acting seat at a checked step
GAME_SECONDS = 20  # time guard of one game (a few hundred ms expected; generous for a busy machine)
UNBOUNDED = 10**9  # the "maximum" tried for a numeric flag that has none
SEAT_COUNTS_PER_CONFIG = 3  # seat counts a config is played at (rotating; validate_setup sees them all)
EXTRA_VALUES = {("nine-card", "suits"): [{"oya": "D", "ko": "C"}]}
# Flags that are only valid together with another: the companion values tried with them.
COMPANIONS = {("kazekami-kyoko", "series_game", "2"): {"series_length": 2}}  # keyed by the value's JSON


def flag_values(engine: Engine, flag: Flag) -> list:
    if flag.choices is not None:
        values = list(flag.choices)
    elif flag.kind == "bool":
        values = [False, True]
    elif flag.kind in ("int", "float"):
        low = flag.minimum if flag.minimum is not None else 0
        high = flag.maximum if flag.maximum is not None else UNBOUNDED
        middle = (low + high) // 2 if flag.kind == "int" else (low + high) / 2
        values = [low, middle, high]
    else:
        values = []
    if flag.default is None:
        values.append(None)
    return values + EXTRA_VALUES.get((engine.slug, flag.name), [])


def configs(engine: Engine) -> list[dict]:
    return [
        {**COMPANIONS.get((engine.slug, flag.name, json.dumps(value)), {}), flag.name: value}
        for flag in engine.flags
        for value in flag_values(engine, flag)
    ]


class TooSlow(Exception):
    pass


@contextmanager
def time_guard(seconds: float, what: str):
    def expired(signum, frame):
        raise TooSlow(f"{what}: still running after {seconds}s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# ---- conservation: every card or tile of the game in exactly one zone -----------------------------
def _twenty_two(engine, state):
    from games.engines.twenty_two import PACKS

    if state.phase not in ("exchange", "play"):
        return None  # between deals the cards are gathered in to be shuffled
    zones = [*state.hands, *state.discards, *state.penalties, state.stock, state.kept_out]
    zones += [p.cards for p in state.trick] + [p.cards for t in state.tricks for p in t.plays]
    return zones, PACKS[state.packs]


def _nine_card(engine, state):
    from games.engines.nine_card import _suits

    if state.phase == "deal":
        return None
    zones = [*state.hands, *state.set_aside, *state.played, [c for c in state.pending if c is not None]]
    return zones, [c for suit in _suits(state.config) for c in cards.suit_cards(suit)]


def _satori(engine, state):
    if state.phase == "deal":
        return None
    deck = state.config["deck"]
    return [*state.hands, *state.piles, *state.removed, state.set_aside], deck["Z"] + deck["S"]


def _turn_thief(engine, state):
    from games.engines.turn_thief import play_deck

    if state.phase == "deal":
        return None
    pending = [state.pending.card] if state.pending is not None else []
    return [*state.hands, state.dead, pending], play_deck(state.config)


def _one_two_three_four(engine, state):
    from games.engines.one_two_three_four import DECK

    if state.phase != "play":
        return None
    start = [state.start_card] if state.start_card is not None else []
    zones = [*state.hands, *state.face_down, state.stock, start, *(entry.cards for entry in state.table)]
    return zones, DECK


def _necropolis(engine, state):
    from games.engines.necropolis import TILES

    if state.phase == "deal":
        return None
    graves = [[cards.tile(*placed) for placed in grave] for grave in state.graves]
    drawn = [t for t in (state.drawn,) if t is not None]
    return [state.necropolis, *graves, *state.mastabas, *state.discards, drawn], TILES


def _mekuri_hinmin(engine, state):
    from games.engines.mekuri_hinmin import build_deck

    if state.phase in ("choose_first", "deal"):
        return None
    zones = [*state.hands, state.draw_pile, state.discard, state.field]  # the top play is on the field
    return zones, build_deck(state.config["deck_jokers"])


CONSERVATION = {
    "twenty-two": _twenty_two,
    "nine-card": _nine_card,
    "satori": _satori,
    "turn-thief": _turn_thief,
    "1234": _one_two_three_four,
    "necropolis": _necropolis,
    "mekuri-hinmin": _mekuri_hinmin,
}


def check_conservation(engine: Engine, state) -> None:
    zones = CONSERVATION.get(engine.slug)
    laid_out = zones(engine, state) if zones else None
    if laid_out is None:
        return
    held, deck = laid_out
    counted = Counter(c for zone in held for c in zone)
    expected = Counter(deck)
    assert counted == expected, f"cards not conserved: extra {counted - expected}, missing {expected - counted}"


# ---- one game ---------------------------------------------------------------------------------
def check_step(engine: Engine, state, seats: int, chooser: random.Random) -> None:
    actors = engine.actors(state)
    for seat in range(seats):
        moves = engine.legal_moves(state, seat)
        if seat not in actors:
            assert not moves, f"seat {seat} may not act but is offered {list(moves)[:3]}"
            continue
        for move in moves if len(moves) <= MOVE_SAMPLE else chooser.sample(moves, MOVE_SAMPLE):
            try:
                engine.apply(state, {"kind": "move", "seat": seat, "data": move})
            except RuleError as error:
                raise AssertionError(f"seat {seat} is offered {move} but apply refuses it: {error.code}") from None
    viewers = [*range(seats), None]
    for seat in viewers:
        engine.view(state, seat)
    json.dumps(engine.view(state, chooser.choice(viewers)))  # one of them through JSON (views grow long)
    check_conservation(engine, state)


def play_checked(engine: Engine, config: dict, seats: int, seed: int) -> int:
    """One random game to its end with the checks above; returns its number of events."""
    chooser, secret = random.Random(seed), seed.to_bytes(8, "big")
    state = engine.setup(config, seats)
    events = 0
    while engine.outcome(state) is None:
        assert events < engine.max_events, f"no end after {events} events (max_events)"
        if events < CHECKED_OPENING or events % CHECK_EVERY == 0:
            check_step(engine, state, seats, chooser)
        if engine.chance_due(state):
            event = {"kind": "chance", "data": engine.sample_chance(state, ChanceStream(secret, events + 1))}
        else:
            actors, deadline = sorted(engine.actors(state)), engine.deadline(state)
            if deadline is not None and (not actors or chooser.random() < 0.1):
                event = {"kind": "system", "data": {"type": "close_window", "window": deadline.window}}
            else:
                assert actors, "nobody may act, no chance is due and no window is open"
                seat = chooser.choice(actors)
                moves = engine.legal_moves(state, seat)
                assert moves, f"seat {seat} may act but is offered no move"
                event = {"kind": "move", "seat": seat, "data": chooser.choice(moves)}
        state = engine.apply(state, event)
        events += 1
    check_step(engine, state, seats, chooser)
    check_outcome(engine, state, seats)
    return events


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_every_flag_value_and_seat_count(engine):
    played = 0
    for number, config in enumerate(configs(engine)):
        engine.validate_config(config)  # every tried value is one the flag allows
        playable = []
        for seats in range(engine.min_seats, engine.max_seats + 1):
            try:
                engine.validate_setup(config, seats)
            except RuleError as error:
                with pytest.raises(RuleError) as refused:  # setup refuses exactly what creation refuses
                    engine.setup(config, seats)
                assert refused.value.code == error.code, f"{engine.slug} {config} at {seats} seats"
            else:
                playable.append(seats)
        assert playable, f"{engine.slug} accepts {config} but no seat count can play it"
        # A rotating choice of seat counts, so that each is played with many configs.
        chosen = {playable[(number + k * len(playable) // SEAT_COUNTS_PER_CONFIG) % len(playable)] for k in range(3)}
        for seats in sorted(chosen):
            where = f"{engine.slug} {config} at {seats} seats"
            seed = zlib.crc32(where.encode())
            with time_guard(GAME_SECONDS, where):
                try:
                    play_checked(engine, config, seats, seed)
                except AssertionError as error:
                    raise AssertionError(f"{where}, seed {seed}: {error}") from None
            played += 1
    assert played


# ---- regressions of issue 26 ------------------------------------------------------------------
def every_offered_move_applies(engine: Engine, config: dict, seats: int, seed: int) -> None:
    """A random game in which every move offered to every seat, at every step, is applied."""
    chooser, secret = random.Random(seed), seed.to_bytes(8, "big")
    state = engine.setup(config, seats)
    for events in range(engine.max_events):
        if engine.outcome(state) is not None:
            return
        if engine.chance_due(state):
            event = {"kind": "chance", "data": engine.sample_chance(state, ChanceStream(secret, events + 1))}
        else:
            offered = [
                (seat, move) for seat in sorted(engine.actors(state)) for move in engine.legal_moves(state, seat)
            ]
            for seat, move in offered:
                engine.apply(state, {"kind": "move", "seat": seat, "data": move})
            seat, move = chooser.choice(offered)
            event = {"kind": "move", "seat": seat, "data": move}
        state = engine.apply(state, event)
    raise AssertionError(f"no end after {engine.max_events} events")


def _twenty_two_with_only_twos_left(seats: int = 4):
    """Seats 0 and 1 tied losers drawing for dealer; every card but the four 2s in penalty piles."""
    from dataclasses import replace

    from games.engines.twenty_two import ENGINE, PACKS, rank_of

    rest = [c for c in PACKS[1] if rank_of(c) != 2]
    piles = [(rest[0],), (rest[1],)] + [tuple(rest[2 + i :: seats - 2]) for i in range(seats - 2)]
    state = ENGINE.setup({"elimination_threshold": 100}, seats)
    state = replace(
        state,
        status=("active", "active") + ("out",) * (seats - 2),
        eliminated_in=(None, None) + (3,) * (seats - 2),
        penalties=tuple(piles),
        deal_no=3,
        next_size=10,
        draw_pool=(0, 1),
    )
    assert ENGINE._available(state) == ("2S", "2H", "2D", "2C")
    return ENGINE, state


def test_twenty_two_tie_no_draw_can_break_is_picked_and_the_game_ends():
    engine, state = _twenty_two_with_only_twos_left()
    assert engine.chance_due(state) == "dealer_pick"  # was dealer_draw, which no event can satisfy
    tie = [[{"seat": 0, "card": "2S"}, {"seat": 1, "card": "2H"}]]
    with pytest.raises(RuleError) as error:
        engine.apply(state, {"kind": "chance", "data": {"type": "dealer_draw", "rounds": tie}})
    assert error.value.code == "malformed_event"  # the step due is dealer_pick
    dealers = set()
    for seq in range(1, 30):
        with time_guard(5, "dealer pick"):
            data = engine.sample_chance(state, ChanceStream(b"issue-26", seq))
        assert data["type"] == "dealer_pick"
        dealers.add(engine.apply(state, {"kind": "chance", "data": data}).dealer)
    assert dealers == {0, 1}  # either tied player, at random
    events, chooser, secret = 0, random.Random(1), b"issue-26"
    with time_guard(10, "playing on from the tie"):
        while engine.outcome(state) is None:
            assert events < 200
            if engine.chance_due(state):
                data = engine.sample_chance(state, ChanceStream(secret, events + 1))
                state = engine.apply(state, {"kind": "chance", "data": data})
            else:
                seat = min(engine.actors(state))
                move = chooser.choice(engine.legal_moves(state, seat))
                state = engine.apply(state, {"kind": "move", "seat": seat, "data": move})
            events += 1
    assert engine.outcome(state).detail["reason"] == "pack_exhausted"


@pytest.mark.parametrize("plain_rounds", [8, 0])
@pytest.mark.parametrize("cards_left", [("2S", "2H", "2D", "2C", "3S"), ("2S", "3S", "3H", "3D")])
def test_twenty_two_dealer_draw_is_bounded_when_most_rounds_tie(cards_left, plain_rounds, monkeypatch):
    """Few ranks left: plain rounds often tie everyone; narrowing rounds (all of them with
    ``PLAIN_ROUNDS = 0``) end the draw within the bound, and apply accepts every draw."""
    from dataclasses import replace

    from games.engines import twenty_two
    from games.engines.twenty_two import ENGINE, PACKS

    monkeypatch.setattr(twenty_two, "PLAIN_ROUNDS", plain_rounds)

    seats = len(cards_left) - 1
    rest = [c for c in PACKS[1] if c not in cards_left]
    state = ENGINE.setup({"elimination_threshold": 100}, seats + 1)
    state = replace(
        state,
        status=("active",) * seats + ("out",),
        eliminated_in=(None,) * seats + (3,),
        penalties=((),) * seats + (tuple(rest),),
        deal_no=3,
        draw_pool=tuple(range(seats)),
    )
    assert ENGINE.chance_due(state) == "dealer_draw"
    dealers = Counter()
    for seq in range(1, 200):
        with time_guard(5, "dealer draw"):
            data = ENGINE.sample_chance(state, ChanceStream(b"bounded", seq))
        assert len(data["rounds"]) <= plain_rounds + seats - 1
        dealt = ENGINE.apply(state, {"kind": "chance", "data": data})
        assert dealt.phase == "deal"
        dealers[dealt.dealer] += 1
    assert set(dealers) == set(range(seats))


def test_twenty_two_narrowing_draw_is_uniform_over_draws_of_two_ranks():
    from games.engines.twenty_two import _narrowing_draw

    drawn = Counter(tuple(_narrowing_draw(("2S", "2H", "3S"), 2, ChanceStream(b"u", seq))) for seq in range(800))
    # {2S, 2H} ties both players again, so it is never drawn; the other 4 orders ~200 times each.
    assert set(drawn) == {("2S", "3S"), ("3S", "2S"), ("2H", "3S"), ("3S", "2H")}
    assert all(140 < count < 260 for count in drawn.values()), drawn


@pytest.mark.parametrize("punctuation", [True, False])
def test_kyoko_offers_only_answers_that_fit_max_part_length_1(punctuation):
    from games.engines.kazekami_kyoko import ENGINE

    config = {"max_part_length": 1, "enforce_punctuation": punctuation, "max_story_moves": 40}
    for seed in range(3):
        every_offered_move_applies(ENGINE, config, 2, seed)


@pytest.mark.parametrize(
    "slug, config, seats",
    [
        ("twenty-two", {"stakes_enabled": True}, 2),
        ("twenty-two", {"stakes_enabled": True}, 8),
        ("twenty-two", {"variant": "gambling_cucumber"}, 8),
        ("twenty-two", {"stakes_enabled": True, "end_when_active_at_most": 4}, 4),
        ("believers", {"min_players": 4}, 3),
        ("believers", {"max_players": 3}, 5),
    ],
)
def test_configs_that_setup_refuses_are_refused_at_creation(slug, config, seats):
    from games.engines import get_engine
    from games.errors import ServiceError
    from games.services import game_create

    engine = get_engine(slug)
    engine.check_seats(seats)
    engine.validate_config(config)  # each alone is fine: the seat count and the config clash
    with pytest.raises(RuleError) as at_setup:
        engine.setup(config, seats)
    with pytest.raises(RuleError) as at_creation:
        engine.validate_setup(config, seats)
    assert at_creation.value.code == at_setup.value.code
    # The service's check runs before it touches the database (unwrapped from its transaction).
    with pytest.raises(ServiceError) as refused:
        game_create.__wrapped__(engine_slug=slug, config=config, seats=[None] * seats, created_by=None)
    assert (refused.value.status, refused.value.code) == (400, at_setup.value.code)


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.slug)
def test_non_string_config_keys_and_non_finite_numbers_are_config_errors(engine):
    for config in ({1: True}, {None: 1}, {("a",): 1, "b": 2}):
        with pytest.raises(RuleError) as error:
            engine.validate_config(config)
        assert error.value.code == "unknown_config_flag"
    for flag in engine.flags:
        if flag.kind in ("int", "float"):
            for value in (float("nan"), float("inf"), float("-inf")):
                with pytest.raises(RuleError) as error:
                    engine.validate_config({flag.name: value})
                assert error.value.code == "invalid_config", (flag.name, value)
            try:  # an int too large for a float is compared, not converted
                engine.validate_config({flag.name: 10**400})
            except RuleError:
                pass
