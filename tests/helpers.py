"""Small independent re-derivations used by the tests (no code shared with the engine)."""

from __future__ import annotations

from itertools import combinations

VALUE = {r: i + 1 for i, r in enumerate("A234567JQK")}


def idx(card: str) -> int:
    return "dcsb".index(card[1]) * 10 + "A234567JQK".index(card[0])


def mask(cards: str | list[str]) -> int:
    if isinstance(cards, str):
        cards = cards.split()
    m = 0
    for c in cards:
        m |= 1 << idx(c)
    return m


def names(m: int) -> list[str]:
    return ["A234567JQK"[i % 10] + "dcsb"[i // 10] for i in range(40) if m >> i & 1]


def brute_captures(card: int, table: int, fewest: bool = False, ace_takes_all: bool = False) -> set[int]:
    """RULES §3 and §7 re-derived by brute force over every subset of the table."""
    v = card % 10 + 1
    cards = [i for i in range(40) if table >> i & 1]
    if ace_takes_all and v == 1:
        aces = [c for c in cards if c % 10 == 0]
        if aces:
            return {1 << c for c in aces}
        return {table} if table else set()
    equal = [c for c in cards if c % 10 + 1 == v]
    if equal:
        return {1 << c for c in equal}
    sets = []
    for k in range(2, len(cards) + 1):
        for combo in combinations(cards, k):
            if sum(c % 10 + 1 for c in combo) == v:
                sets.append(sum(1 << c for c in combo))
        if fewest and sets:
            break
    return set(sets)
