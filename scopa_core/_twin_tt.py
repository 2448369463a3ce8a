"""The twin's transposition-table keys (the compiled core's ``_solver_tt.pxi``): neutral
cards, canonical keys, and the pruning of moves equal up to swapping neutral cards."""

from __future__ import annotations

from scopa_core import _twin as core
from scopa_core._twin_bounds import _SUIT_BEST, COINS, KING_COINS, SEVEN_COINS


def neutral_cards(pos: tuple, info: tuple, opts: int) -> int:
    """Cards whose suit no longer matters: two of the same rank are interchangeable.

    A card is neutral when it is not the settebello (nor the re bello under that
    option), is not a coin unless denari (and napola) are decided, and cannot change
    either team's primiera (decided, or both teams already hold at least its
    primiera value in its suit). Swapping two neutral cards of one rank maps the game
    onto itself, so moves that differ only by such a swap have equal values.
    """
    sig_a = info[3]
    c0, c1 = pos[3]
    neutral = core.FULL & ~SEVEN_COINS
    if opts & core.OPT_RE_BELLO:
        neutral &= ~KING_COINS
    if sig_a >> 18 & 1 or sig_a >> 25 & 1:
        neutral &= ~COINS
    if sig_a >> 24 & 1:
        for s in range(4):
            low = min(_SUIT_BEST[(c0 >> (10 * s)) & COINS], _SUIT_BEST[(c1 >> (10 * s)) & COINS])
            for i in range(10):
                if core.PRIMIERA_VALUES[i] > low:
                    neutral &= ~(1 << (10 * s + i))
    return neutral


def prune_equivalent(moves: list, table: int, neutral: int) -> list:
    """Keep one move of each set of moves that differ only by swapping neutral cards of
    one rank: the lowest card of each rank in the hand, the lowest table cards captured."""
    out = []
    seen_rank = {}
    for c, m in moves:
        rank = c % 10
        if neutral >> c & 1:
            first = seen_rank.setdefault(rank, c)
            if first != c:
                continue
        redundant = False
        x = m & neutral
        while x and not redundant:
            low = x & -x
            i = low.bit_length() - 1
            x ^= low
            alt = table & ~m & neutral & core.RANK_MASK[i % 10 + 1] & (low - 1)
            redundant = alt != 0
        if not redundant:
            out.append((c, m))
    return out


def make_key(pos: tuple, info: tuple, neutral: int) -> tuple:
    """The table key: hands and table in canonical form (for each rank, the neutral cards
    in hands and on the table reassigned lowest suit to lowest seat, the table last, so
    positions equal up to such swaps share a key) and the summary of undecided terms."""
    hands, table = pos[0], pos[1]
    locs = list(hands) + [0] * (4 - len(hands)) + [table]
    inplay = 0
    for m in locs:
        inplay |= m
    inplay &= neutral
    for v in range(1, 11):
        cls = inplay & core.RANK_MASK[v]
        if core._popcount(cls) < 2:
            continue
        counts = [core._popcount(m & cls) for m in locs]
        locs = [m & ~cls for m in locs]
        bits = cls
        for loc, k in enumerate(counts):
            for _ in range(k):
                low = bits & -bits
                locs[loc] |= low
                bits ^= low
    return (tuple(locs), info[3], info[4])
