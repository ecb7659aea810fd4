"""Single-elimination brackets: standard seeding (1 v N, the top seeds meet last; byes to the top)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence


def bracket_size(entrants: int) -> int:
    """The smallest power of two that holds every entrant (the rest of the slots are byes)."""
    if entrants < 2:
        raise ValueError("a bracket needs at least two entrants")
    size = 1
    while size < entrants:
        size *= 2
    return size


def seeding_order(size: int) -> list[int]:
    """Seeds in bracket-line order for a bracket of ``size`` (a power of two).

    The standard construction (as in tennis and most published brackets): start from [1, 2] and
    repeatedly replace each seed s by the pair (s, next_size + 1 - s). Each first-round match is
    then s v size + 1 - s (1 v 8, 4 v 5, 2 v 7, 3 v 6 for 8), seeds 1 and 2 can meet only in the
    final, 1-4 only in the semi-finals, and so on.
    """
    if size < 2 or size & (size - 1):
        raise ValueError("a bracket size is a power of two, at least 2")
    order = [1, 2]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for s in order for seed in (s, total - s)]
    return order


def first_round(entrants: Sequence[Hashable]) -> list[tuple[Hashable, Hashable | None]]:
    """First-round matches for ``entrants`` in seed order (best first); None is a bye.

    Seeds above the entrant count are empty slots, and since seed s meets size + 1 - s, the byes
    fall to the top seeds (6 entrants: 1 and 2 have byes, 4 v 5 and 3 v 6 play).
    """
    size = bracket_size(len(entrants))
    order = seeding_order(size)
    seat = {seed: entrants[seed - 1] for seed in range(1, len(entrants) + 1)}
    return [(seat[order[i]], seat.get(order[i + 1])) for i in range(0, size, 2)]


def next_round(winners: Sequence[Hashable]) -> list[tuple[Hashable, Hashable]]:
    """The next round from the previous round's winners in bracket order (adjacent lines meet)."""
    if len(winners) < 2 or len(winners) % 2:
        raise ValueError("a bracket round needs an even number of winners, at least two")
    return [(winners[i], winners[i + 1]) for i in range(0, len(winners), 2)]
