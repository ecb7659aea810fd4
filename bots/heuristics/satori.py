"""The Satori: play distracting (Z) cards first so the enlightenment (S) cards end on top of the
pile as a run; declare satori as soon as the run is 3; never call katsu (a wrong call is an
instant loss, and from a seat's view a face-down card is as likely Z as the deal allows)."""

from __future__ import annotations

import random

from .common import Move, first_of, rank

Z_RANKS = {"J", "Q", "K"}  # the default deck's Zatsunen cards: the face cards


def choose(view: dict, moves: list[Move], rng: random.Random, seat: int) -> Move:
    declare = first_of(moves, "declare_satori")
    if declare is not None:
        return declare
    plays = [move for move in moves if move.get("type") == "play_card"]
    if plays:
        distractions = [move for move in plays if rank(move["card"]) in Z_RANKS]
        return (distractions or plays)[0]
    return first_of(moves, "decline_katsu", "pass_turn", "hand_over") or rng.choice(moves)
