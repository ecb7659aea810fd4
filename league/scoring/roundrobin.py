"""Round-robin schedules by the Berger tables (FIDE Handbook C.05, Annex 1), single or double."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Pairing:
    """One board of a round: ``first`` takes the first seat (white); ``second`` None is a bye."""

    first: Hashable
    second: Hashable | None

    @property
    def is_bye(self) -> bool:
        return self.second is None


def berger_numbers(n: int) -> list[list[tuple[int, int]]]:
    """The Berger table for ``n`` pairing numbers (n even, n >= 2): rounds of (first, second) boards.

    FIDE C.05 Annex 1: round 1 is 1-n, 2-(n-1), ..., (n/2)-(n/2+1). Each later round adds n/2 to
    every number other than n (counted round 1..n-1), and player n, always on board 1, changes
    colour every round. This reproduces the published tables (e.g. n=6 round 2: 6-4, 5-3, 1-2).
    """
    if n < 2 or n % 2:
        raise ValueError("a Berger table needs an even number of players (add a bye for an odd field)")
    half = n // 2
    boards = [(1, n)] + [(k, n + 1 - k) for k in range(2, half + 1)]
    rounds = [boards]
    for _ in range(n - 2):
        shift = [(_shift(a, half, n), _shift(b, half, n)) for a, b in rounds[-1]]
        # board 1 holds player n: swap so n alternates colour; other boards keep their orientation
        first, second = shift[0]
        shift[0] = (second, first)
        rounds.append(shift)
    return rounds


def _shift(number: int, half: int, n: int) -> int:
    if number == n:
        return n
    return (number - 1 + half) % (n - 1) + 1


def round_robin(players: Sequence[Hashable], *, cycles: int = 1) -> list[list[Pairing]]:
    """Every round of a round robin between ``players`` (in pairing-number order, 1 first).

    An odd field gets a bye: FIDE C.05 Annex 1 pairs it with the table for n+1, where meeting the
    extra number n+1 is the bye. A double round robin (``cycles=2``) repeats the first cycle with
    colours reversed, so each pair meets once in each seat.
    """
    if cycles not in (1, 2):
        raise ValueError("cycles must be 1 (single) or 2 (double round robin)")
    if len(set(players)) != len(players):
        raise ValueError("each player may appear only once")
    if len(players) < 2:
        raise ValueError("a round robin needs at least two players")
    n = len(players) + len(players) % 2
    number = dict(enumerate(players, start=1))  # n+1 on an odd field is missing: the bye
    rounds = []
    for table in berger_numbers(n):
        boards = []
        for a, b in table:
            if a not in number or b not in number:
                boards.append(Pairing(number.get(a, number.get(b)), None))
            else:
                boards.append(Pairing(number[a], number[b]))
        rounds.append(boards)
    if cycles == 2:
        rounds += [[p if p.is_bye else Pairing(p.second, p.first) for p in boards] for boards in rounds]
    return rounds
