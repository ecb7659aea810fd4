"""Turn Thief: shed the highest card with an honest declaration (preferring our own faction's
suit, whose owner - us - takes the next turn when nobody doubts); doubt only a declaration we
know is false (the declared card is in our hand or in the dead pile by our own discard); never
take a card by ``get``: every card taken adds to the hand sum that decides the ranking."""

from __future__ import annotations

import random

from .common import Move, first_of, rank, suit, value

OWN_SUIT_BONUS = 3  # an honest discard of our own suit is worth about three pips of shedding


def choose(view: dict, moves: list[Move], rng: random.Random, seat: int) -> Move:
    discards = [move for move in moves if move.get("type") == "discard"]
    if discards:
        faction = view["factions"][seat]
        honest = [
            move
            for move in discards
            if move["declared_suit"] == suit(move["card"]) and move["declared_rank"] == rank(move["card"])
        ] or discards
        return max(honest, key=lambda m: value(m["card"]) + OWN_SUIT_BONUS * (suit(m["card"]) == faction))
    reaction = view.get("reaction") or {}
    if reaction.get("declared_rank"):
        declared = f"{reaction['declared_rank']}{reaction['declared_suit']}"
        known_elsewhere = set((view.get("hands") or [None] * 4)[seat] or []) | set(view.get("my_dead_cards") or [])
        if declared in known_elsewhere:
            doubt = first_of(moves, "call_doubt")
            if doubt is not None:
                return doubt
    return first_of(moves, "call_none") or rng.choice(moves)
