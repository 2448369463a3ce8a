"""The twin's static evaluation for depth-limited searches (the compiled core's
``_solver_horizon.pxi``; the search itself is ``Solver._horizon``)."""

from __future__ import annotations

from scopa_core import _twin as core
from scopa_core._twin_bounds import _SUIT_BEST, COINS, KING_COINS, SEVEN_COINS, _napola, _sign, node_info


def _trunc_div(a: int, b: int) -> int:
    """Division rounding toward zero, as in C."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def static_eval(pos: tuple, opts: int, nplayers: int) -> int:
    """Heuristic final difference x 100 (team 0's side) at the horizon; see the compiled
    ``static_eval``: banked points, open card and coin leads over the cards left, an open
    settebello 60 to its holder's team (30 to the mover's team on the table), and so an open
    re bello when ``re_bello`` scores it, an open primiera 40 to the team ahead on its
    current bests, an open napola's sure part."""
    hands, table, stock, cap, scope, turn, last = pos
    info = node_info(pos, opts, nplayers)
    rest = table
    for h in hands:
        rest |= h
    for c in stock:
        rest |= 1 << c
    e = 100 * info[0]
    if info[3] >> 10 & 1:
        d = core._popcount(cap[0]) - core._popcount(cap[1])
        e += _trunc_div(100 * d, core._popcount(rest) + 1)
    if info[3] >> 18 & 1:
        d = core._popcount(cap[0] & COINS) - core._popcount(cap[1] & COINS)
        e += _trunc_div(100 * d, core._popcount(rest & COINS) + 1)
    for prize in (SEVEN_COINS, KING_COINS if opts & core.OPT_RE_BELLO else 0):
        if rest & prize:
            if table & prize:
                e += 30 if turn & 1 == 0 else -30
            else:
                for seat, h in enumerate(hands):
                    if h & prize:
                        e += 60 if seat & 1 == 0 else -60
    if info[3] >> 25 & 1:  # an open napola: its sure part (0 while either team may make it)
        left = rest & COINS
        lo_n = _napola(cap[0]) - _napola(cap[1] | left)
        hi_n = _napola(cap[0] | left) - _napola(cap[1])
        e += 100 * lo_n if lo_n > 0 else 100 * hi_n if hi_n < 0 else 0
    if info[3] >> 24 & 1:
        b0 = sum(_SUIT_BEST[(cap[0] >> (10 * s)) & COINS] for s in range(4))
        b1 = sum(_SUIT_BEST[(cap[1] >> (10 * s)) & COINS] for s in range(4))
        e += 40 * _sign(b0 - b1)
    return e
