"""Mekuri Hinmin: shed the largest legal group, weakest cards first, and always with a reach
declaration when one is allowed (going out needs a reach in effect, and an unused reach costs
nothing); answer a draw-two with a counter or a joker if possible, cancel a going-out when we
can, never offer or accept a tie, and pass only when nothing can be played."""

from __future__ import annotations

import random

from .common import Move, first_of, rank

STRENGTH = {**{str(n): n for n in range(3, 11)}, "J": 11, "Q": 12, "K": 13, "A": 14, "2": 15}


def _strength(card: str) -> int:
    return 16 if card.startswith("JK") else STRENGTH[rank(card)]


def _play_key(move: Move, hand_size: int) -> tuple:
    cards = move["cards"]
    return (
        len(cards) == hand_size,  # going out wins the game
        len(cards),
        -max(_strength(card) for card in cards),  # keep jokers, 2s and aces for later
        bool(move.get("declare_reach")),
        move.get("attack") is not False,  # a 2 played as a single should make them draw
    )


def choose(view: dict, moves: list[Move], rng: random.Random, seat: int) -> Move:
    if first_of(moves, "reject_tie"):
        return first_of(moves, "reject_tie")
    for kind, option in (("choose_first_player", "player"), ("choose_initial_upcard_handling", "option")):
        listed = [move for move in moves if move["type"] == kind]
        if listed:  # go first ourselves; keep a special up-card out of the opening
            preferred = seat if kind == "choose_first_player" else "reshuffle"
            return next((m for m in listed if m[option] == preferred), listed[0])
    answers = [m for m in moves if m["type"] in ("counter_going_out", "counter_two", "cancel_two_with_joker")]
    if answers:
        return max(answers, key=lambda m: bool(m.get("declare_reach")))
    hand = view["players"][seat].get("hand") or []
    plays = [move for move in moves if move["type"] == "play"]
    if plays:
        suits = [card[-1] for card in hand if not card.startswith("JK")]
        best = max(plays, key=lambda m: _play_key(m, len(hand)))
        if best.get("suit") is not None:  # a single 8: name the suit we hold most of
            reach = best.get("declare_reach")
            eights = [m for m in plays if m["cards"] == best["cards"] and m.get("declare_reach") == reach]
            best = max(eights, key=lambda m: suits.count(m.get("suit")) if m.get("suit") else -1)
        return best
    return first_of(moves, "accept_going_out", "accept_draw", "end_pass", "pass_and_draw") or rng.choice(moves)
