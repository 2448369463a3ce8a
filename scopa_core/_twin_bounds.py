"""The twin's sure-point bounds and score split (the compiled core's ``_solver_bounds.pxi``):
the banked points, the open value's range and the undecided-term summary of a position, the
final difference, and whether a table can be swept."""

from __future__ import annotations

from scopa_core import _twin as core

_PRIM_CODE = {0: 0, 10: 1, 12: 2, 13: 3, 14: 4, 15: 5, 16: 6, 18: 7, 21: 8}
_SUIT_BEST = core._SUIT_BEST
COINS = core.COINS
SEVEN_COINS = core.SETTEBELLO
KING_COINS = core.RE_BELLO


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def _napola(mask: int) -> int:
    run = 0
    while run < 10 and mask >> run & 1:
        run += 1
    return run if run >= 3 else 0


def node_info(pos: tuple, opts: int, nplayers: int) -> tuple[int, int, int, int, int]:
    """``(B, lo, hi, sig_a, sig_b)`` of a position, team 0's perspective.

    ``B`` is the banked difference, ``[lo, hi]`` the range of the open value ``W``, and
    ``sig_a``/``sig_b`` the summary of the undecided terms (with the seat to move, the
    last capturer and the stock's length) that completes the table key.
    """
    hands, table, stock, cap, scope, turn, last = pos
    in_hands = 0
    for h in hands:
        in_hands |= h
    stock_mask = 0
    for c in stock:
        stock_mask |= 1 << c
    rest = in_hands | table | stock_mask
    c0, c1 = cap
    B = scope[0] - scope[1]
    lo = hi = 0
    sig_a = turn | (last + 1) << 2 | len(stock) << 4
    sig_b = 0
    # carte and denari: decided once the remaining cards cannot change the sign.
    for within, flag, width in ((core.FULL, 10, 7), (COINS, 18, 5)):
        r = core._popcount(rest & within)
        d = core._popcount(c0 & within) - core._popcount(c1 & within)
        a, b = _sign(d - r), _sign(d + r)
        if a == b:
            B += a
        else:
            lo += a
            hi += b
            offset = 1 << (width - 1)
            sig_a |= (1 << flag) | ((d + offset) & (2 * offset - 1)) << (flag + 1)
    # settebello and re bello: open while the card is in play.
    for card_bit, on in ((SEVEN_COINS, True), (KING_COINS, bool(opts & core.OPT_RE_BELLO))):
        if not on:
            continue
        if rest & card_bit:
            lo -= 1
            hi += 1
        elif c0 & card_bit:
            B += 1
        elif c1 & card_bit:
            B -= 1
    # primiera: bounds on each team's total; open while they overlap.
    requires = bool(opts & core.OPT_PRIMIERA_ALL_SUITS)
    t_min, t_max, codes = [], [], 0
    for t, pile in enumerate((c0, c1)):
        mn = mx = 0
        none_min = none_max = False
        for s in range(4):
            have = _SUIT_BEST[(pile >> (10 * s)) & COINS]
            left = _SUIT_BEST[(rest >> (10 * s)) & COINS]
            codes |= _PRIM_CODE[have] << (4 * (2 * s + t))
            mn += have
            mx += max(have, left)
            if have == 0:
                none_min = True
                if left == 0:
                    none_max = True
        t_min.append(-1 if requires and none_min else mn)
        t_max.append(-1 if requires and none_max else mx)
    if t_min[0] > t_max[1]:
        B += 1
    elif t_min[1] > t_max[0]:
        B -= 1
    elif t_min[0] == t_max[0] == t_min[1] == t_max[1]:
        pass
    else:
        lo -= 1 if t_max[1] > t_min[0] else 0
        hi += 1 if t_max[0] > t_min[1] else 0
        sig_a |= 1 << 24
        sig_b = codes
    # napola: open while coins are in play.
    if opts & core.OPT_NAPOLA:
        n0, n1 = _napola(c0), _napola(c1)
        coins_left = rest & COINS
        if not coins_left:
            B += n0 - n1
        else:
            lo += n0 - _napola(c1 | coins_left)
            hi += _napola(c0 | coins_left) - n1
            sig_a |= (1 << 25) | (c0 & COINS) << 26 | (c1 & COINS) << 36
    # future scope: at most one per play still to make (the last play excepted).
    plays = [0, 0]
    total = len(stock)
    for seat, h in enumerate(hands):
        k = core._popcount(h)
        plays[seat & 1] += k
        total += k
    plays[0] += len(stock) // 2
    plays[1] += len(stock) // 2
    can_sweep_now = leaves_sweep(table, hands[turn], opts)
    if total and not opts & core.OPT_SCOPA_ON_LAST_PLAY:
        plays[((turn + total - 1) % nplayers) & 1] -= 1
        if total > 1 and not can_sweep_now:
            plays[turn & 1] -= 1  # the play now cannot sweep either
    elif total and not can_sweep_now:
        plays[turn & 1] -= 1
    hi += plays[0]
    lo -= plays[1]
    return B, lo, hi, sig_a, sig_b


def final_difference(pos: tuple, opts: int) -> int:
    """Final score difference (team 0 minus team 1) of a finished hand."""
    row0, row1 = core._score(pos[3][0], pos[3][1], pos[4][0], pos[4][1], opts)
    return sum(row0) - sum(row1)


def leaves_sweep(table: int, next_hand: int, opts: int) -> bool:
    """Whether a player holding ``next_hand`` might capture the whole ``table``.

    Never False when such a sweep exists (so it is sound for bounds), sometimes True
    when the "fewest" rule would forbid it; also the move-ordering test for lay-downs.
    """
    if not table:
        return False
    values = 0
    m = next_hand
    while m:
        low = m & -m
        values |= 1 << ((low.bit_length() - 1) % 10 + 1)
        m ^= low
    if opts & core.OPT_ACE_TAKES_ALL and values & 2 and not table & core.ACES:
        return True
    total = 0
    m = table
    while m:
        low = m & -m
        total += (low.bit_length() - 1) % 10 + 1
        m ^= low
    if core._popcount(table) == 1:
        return bool(values >> total & 1)
    return total <= 10 and bool(values >> total & 1) and not table & core.RANK_MASK[total]
