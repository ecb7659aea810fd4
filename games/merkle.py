"""Merkle trees of the checkpoint log: root, inclusion proof and its check (RFC 9162, section 2.1).

Written by hand, on purpose: it is a few lines of hashing over the standard library, and an
outsider re-implements exactly these lines to check a record, so they must be short and follow a
published definition. The PyPI packages for it are unmaintained (merkletools) or bring their own
storage engines and formats (pymerkle) for what is here forty lines.

The tree is Certificate Transparency's (RFC 6962 / RFC 9162): a leaf hashes as
``sha256(0x00 || leaf)``, an inner node as ``sha256(0x01 || left || right)`` (the prefixes keep a
leaf from passing for a node), and a tree of ``n`` leaves splits at the largest power of two
below ``n``, so any batch size works without padding. Pure: no Django, no database.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

EMPTY_ROOT = hashlib.sha256(b"").digest()


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than ``n`` (n > 1)."""
    return 1 << ((n - 1).bit_length() - 1)


def root(leaves: Sequence[bytes]) -> bytes:
    """The Merkle tree hash of ``leaves`` (already leaf-hashed), RFC 9162 section 2.1.1."""
    if not leaves:
        return EMPTY_ROOT
    if len(leaves) == 1:
        return leaves[0]
    k = _split(len(leaves))
    return node_hash(root(leaves[:k]), root(leaves[k:]))


def inclusion_proof(leaves: Sequence[bytes], index: int) -> list[bytes]:
    """The audit path of leaf ``index`` (RFC 9162 section 2.1.3.1): sibling hashes, lowest first."""
    if not 0 <= index < len(leaves):
        raise IndexError(f"leaf {index} is not in a tree of {len(leaves)}")
    if len(leaves) == 1:
        return []
    k = _split(len(leaves))
    if index < k:
        return inclusion_proof(leaves[:k], index) + [root(leaves[k:])]
    return inclusion_proof(leaves[k:], index - k) + [root(leaves[:k])]


def inclusion_verify(leaf: bytes, index: int, size: int, proof: Sequence[bytes], expected_root: bytes) -> bool:
    """True when ``proof`` shows ``leaf`` (leaf-hashed) at ``index`` of a tree of ``size`` leaves
    whose root is ``expected_root`` (RFC 9162 section 2.1.3.2, step by step)."""
    if not 0 <= index < size:
        return False
    fn, sn, value = index, size - 1, leaf
    for sibling in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            value = node_hash(sibling, value)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            value = node_hash(value, sibling)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and value == expected_root
