"""Card and domino tile ids shared by the engines: ``10H``, ``AS``, ``QC``, ``JK1``; tiles ``a-b``."""

from __future__ import annotations

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
JOKERS = ("JK1", "JK2")
RANK_VALUE = {rank: index + 1 for index, rank in enumerate(RANKS)}  # A=1 ... K=13


def card(rank: str, suit: str) -> str:
    return f"{rank}{suit}"


def rank_of(card_id: str) -> str:
    return card_id[:-1]


def suit_of(card_id: str) -> str:
    return card_id[-1]


def value(card_id: str) -> int:
    """Face value with A=1, J=11, Q=12, K=13 (jokers have none)."""
    return RANK_VALUE[rank_of(card_id)]


def is_card(token: object) -> bool:
    if not isinstance(token, str):
        return False
    if token in JOKERS:
        return True
    return len(token) >= 2 and token[-1] in SUITS and token[:-1] in RANK_VALUE


def suit_cards(suit: str) -> tuple[str, ...]:
    """The 13 cards of one suit, A to K."""
    return tuple(card(rank, suit) for rank in RANKS)


def standard_deck(jokers: int = 0) -> tuple[str, ...]:
    """52 cards suit by suit (S, H, D, C), A to K, then ``jokers`` jokers."""
    return tuple(c for suit in SUITS for c in suit_cards(suit)) + JOKERS[:jokers]


def sort_by_value(cards) -> list[str]:
    """Cards in a stable display order: by value, then suit order."""
    return sorted(
        cards, key=lambda c: (RANK_VALUE.get(rank_of(c), 99), SUITS.index(suit_of(c)) if c[-1] in SUITS else 9, c)
    )


def tile(a: int, b: int) -> str:
    low, high = sorted((a, b))
    return f"{low}-{high}"


def tile_ends(tile_id: str) -> tuple[int, int]:
    low, high = tile_id.split("-")
    return int(low), int(high)


def is_tile(token: object, top: int = 6) -> bool:
    if not isinstance(token, str) or token.count("-") != 1:
        return False
    low, high = token.split("-")
    if not (low.isdigit() and high.isdigit()):
        return False
    return 0 <= int(low) <= int(high) <= top and token == f"{int(low)}-{int(high)}"


def domino_set(top: int = 6) -> tuple[str, ...]:
    """A double-``top`` set: every tile ``a-b`` with ``0 <= a <= b <= top``."""
    return tuple(tile(a, b) for a in range(top + 1) for b in range(a, top + 1))
