"""Chance outcomes derived from a game's secret seed: an HMAC-SHA256 stream and fair shuffles.

The outcome of the chance event at position ``seq`` is drawn from
``HMAC-SHA256(key=seed, msg="kifu/<seq>/<block>")`` for block = 0, 1, 2, ... Integers below ``n``
come from 64-bit words by rejection sampling (no modulo bias), and shuffles are Fisher-Yates from
the last index down. Anyone holding the revealed seed can re-derive every chance event.

Every draw is bounded: ``n`` is at most 2**48, so a word is rejected with probability below
2**-16, and after ``_ATTEMPTS`` rejected words in a row (probability below 2**-512, never seen)
the last one is used modulo ``n``. The rules samplers built on this stream never retry until
lucky either (``tests/engines/test_every_config.py``).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")
_WORD = 2**64
_LARGEST = 2**48  # randbelow's bound: a rejection is then rarer than 1 in 65536
_ATTEMPTS = 32


class ChanceStream:
    """A deterministic stream of random words for one chance event of one game."""

    def __init__(self, seed: bytes, seq: int) -> None:
        self._seed = seed
        self._seq = seq
        self._block = 0
        self._buffer = b""

    def _word(self) -> int:
        if len(self._buffer) < 8:
            message = f"kifu/{self._seq}/{self._block}".encode()
            self._buffer += hmac.new(self._seed, message, hashlib.sha256).digest()
            self._block += 1
        word, self._buffer = self._buffer[:8], self._buffer[8:]
        return int.from_bytes(word, "big")

    def randbelow(self, n: int) -> int:
        """A uniform integer in ``[0, n)``, ``0 < n <= 2**48``; at most ``_ATTEMPTS`` words."""
        if not 0 < n <= _LARGEST:
            raise ValueError(f"n must be from 1 to 2**48, not {n}")
        limit = _WORD - (_WORD % n)
        for _ in range(_ATTEMPTS):
            word = self._word()
            if word < limit:
                break
        return word % n

    def shuffle(self, items: Sequence[T]) -> list[T]:
        """A uniformly shuffled copy of ``items`` (Fisher-Yates)."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.randbelow(i + 1)
            out[i], out[j] = out[j], out[i]
        return out

    def choice(self, items: Sequence[T]) -> T:
        return items[self.randbelow(len(items))]
