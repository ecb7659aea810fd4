"""Necropolis: keep the score (own mastaba pips + start tile pips + 1; lower wins) down.

Each turn takes the biggest sure gain: bury a mastaba tile (gains its pips), or restart the grave
with a mastaba tile (the tile moves from mastaba to start: gains the old start's pips), or restart
from the necropolis when the start tile is heavy; otherwise draw, and bury the drawn tile where it
fits rather than entomb it. An end is proposed or accepted only when we are ahead by our estimate
of the opponent's hidden mastaba (six pips a tile: the average of a double-six set).
"""

from __future__ import annotations

import random

from .common import Move, first_of, tile_pips

AVERAGE_TILE = 6
HEAVY_START = 9  # restarting from the necropolis draws about AVERAGE_TILE: worth it above this
LEAD_TO_END = 3


def _score(player: dict) -> int:
    mastaba = player.get("mastaba")
    hidden = AVERAGE_TILE * player["mastaba_count"]
    return (hidden if mastaba is None else sum(tile_pips(t) for t in mastaba)) + tile_pips(player["start_tile"]) + 1


def choose(view: dict, moves: list[Move], rng: random.Random, seat: int) -> Move:
    me, them = view["players"][seat], view["players"][1 - seat]
    ahead = _score(them) - _score(me)
    if first_of(moves, "accept_end"):
        return first_of(moves, "accept_end" if ahead > 0 else "decline_end")
    buried = first_of(moves, "bury_drawn")
    if buried is not None:
        return buried
    if first_of(moves, "entomb_drawn"):
        return first_of(moves, "entomb_drawn")
    if ahead >= LEAD_TO_END and first_of(moves, "propose_end"):
        return first_of(moves, "propose_end")
    start = tile_pips(me["start_tile"]) if me.get("start_tile") else 0
    gains: list[tuple[int, Move]] = []
    for move in moves:
        if move["type"] == "bury_from_mastaba":
            gains.append((tile_pips(move["tile"]), move))
        elif move["type"] == "restart_grave" and move.get("source") == "mastaba":
            gains.append((start, move))
        elif move["type"] == "restart_grave" and start >= HEAVY_START:
            gains.append((start - AVERAGE_TILE, move))
    gains = [(gain, move) for gain, move in gains if gain > 0]
    if gains:
        return max(gains, key=lambda pair: pair[0])[1]
    rest = [move for move in moves if move["type"] != "propose_end"] or moves
    return first_of(moves, "draw", "decline_end") or rng.choice(rest)
