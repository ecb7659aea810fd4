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
import struct
from collections.abc import Sequence
from functools import lru_cache
from operator import lt
from typing import TypeVar

try:  # CPython's own SHA-256 (3.12 on: _sha2): copying and finishing its state is some ten times
    from _sha2 import sha256 as _sha256  # cheaper than OpenSSL 3's, and a block does both twice
except ImportError:
    try:
        from _sha256 import sha256 as _sha256
    except ImportError:
        from hashlib import sha256 as _sha256

T = TypeVar("T")
_WORD = 2**64
_LARGEST = 2**48  # randbelow's bound: a rejection is then rarer than 1 in 65536
_ATTEMPTS = 32
_WORDS = struct.Struct(">4Q")
_HMAC_BLOCK = 64  # SHA-256's block size in bytes
_IPAD = bytes(byte ^ 0x36 for byte in range(256))  # a key byte to the inner pad's byte
_OPAD = bytes(byte ^ 0x5C for byte in range(256))
_LIMITED = 1024  # randbelow's rejection limits of n below this are read from a table
_LIMITS = tuple(_WORD - (_WORD % n) if n else 0 for n in range(_LIMITED))


@lru_cache(maxsize=64)
def _keyed(seed: bytes) -> tuple:
    """The inner and outer SHA-256 states of HMAC-SHA256 keyed with ``seed`` (RFC 2104), before any
    message: a block copies them (they are never updated themselves), which skips hashing the key
    pads for every block; a game's chance events share one."""
    key = hashlib.sha256(seed).digest() if len(seed) > _HMAC_BLOCK else seed
    key = key.ljust(_HMAC_BLOCK, b"\0")
    inner = _sha256(key.translate(_IPAD))
    outer = _sha256(key.translate(_OPAD))
    return inner, outer


class ChanceStream:
    """A deterministic stream of random words for one chance event of one game."""

    def __init__(self, seed: bytes, seq: int) -> None:
        self._seed = seed
        self._seq = seq
        self._block = 0
        self._words: list[int] = []  # the unread 64-bit words of the last block, next one last
        self._keyed = _keyed(bytes(seed))

    def _refill(self) -> list[int]:
        """The next block's four words (in ``self._words``, also returned)."""
        self._words = self._blocks(1)[::-1]
        return self._words

    def _blocks(self, count: int) -> list[int]:
        """The words of the next ``count`` blocks, in the order they are read."""
        inner_key, outer_key = self._keyed
        prefix = f"kifu/{self._seq}/".encode()  # the message is prefix + the block's number
        digests = []
        for block in range(self._block, self._block + count):
            inner = inner_key.copy()
            inner.update(b"%s%d" % (prefix, block))
            outer = outer_key.copy()
            outer.update(inner.digest())  # HMAC = H(key ^ opad, H(key ^ ipad, message))
            digests.append(outer.digest())
        self._block += count
        # A block is 32 bytes: four big-endian words, read first to last.
        words = _WORDS if count == 1 else struct.Struct(f">{4 * count}Q")
        return list(words.unpack(b"".join(digests)))

    def _word(self) -> int:
        return (self._words or self._refill()).pop()

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
        if len(out) > _LARGEST:
            raise ValueError(f"at most 2**48 items can be shuffled, not {len(out)}")
        words = self._words
        if len(words) < len(out) - 1:
            # The blocks the shuffle will read (one word per card but the first, unless a word is
            # rejected: then more are read below), hashed at once; the unread words stay next.
            fresh = self._blocks(-(-(len(out) - 1 - len(words)) // 4))
            fresh.reverse()
            words = self._words = fresh + words
        count = len(out)
        if count < _LIMITED and len(words) >= count - 1:
            # The common case at once: the next count - 1 words, none rejected (each is below 2**-48
            # for a pack of cards), checked in one pass; then the swaps need no test.
            drawn = words[:-count:-1] if count > 1 else []
            if all(map(lt, drawn, _LIMITS[count:1:-1])):
                del words[len(words) - len(drawn) :]
                for n, value in zip(range(count, 1, -1), drawn, strict=True):
                    j = value % n
                    out[n - 1], out[j] = out[j], out[n - 1]
                return out
        limits = _LIMITS
        for i in range(count - 1, 0, -1):
            # randbelow(i + 1), inlined: a deck's shuffle draws some fifty of them.
            n = i + 1
            limit = limits[n] if n < _LIMITED else _WORD - (_WORD % n)
            if not words:
                words = self._refill()
            value = words.pop()
            if value >= limit:  # below 2**-48 for a pack of cards; randbelow's retries, as there
                for _ in range(_ATTEMPTS - 1):
                    if not words:
                        words = self._refill()
                    value = words.pop()
                    if value < limit:
                        break
            j = value % n
            out[i], out[j] = out[j], out[i]
        return out

    def choice(self, items: Sequence[T]) -> T:
        return items[self.randbelow(len(items))]
