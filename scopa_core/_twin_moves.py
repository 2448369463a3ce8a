"""The twin's move ordering (the compiled core's ``_solver_moves.pxi``): the main search's
scores with the history heuristic, and the leaf search's cheap order."""

from __future__ import annotations

from scopa_core import _twin as core
from scopa_core._twin_bounds import COINS, SEVEN_COINS, leaves_sweep


def _quick_score(mv: tuple, table: int) -> int:
    c, m = mv
    if m:
        return 100 + 10 * (m == table) + core._popcount(m) + 5 * bool((m | 1 << c) & SEVEN_COINS)
    return c % 10


def quick_order(moves: list, table: int) -> list:
    """The leaf search's cheap ordering: sweeps, captures by size, then lay-downs, high cards
    first (they leave tables that fewer sums capture: less time than low cards first)."""
    return sorted(moves, key=lambda mv: _quick_score(mv, table), reverse=True)


def selection_order(moves: list, table: int, first: tuple | None = None) -> list:
    """:func:`quick_order`'s scores (``first`` above all) in the order the compiled core's move
    loops take them: each step swaps the first best-scored of the rest to the front
    (``select_best``, a selection sort: moves of equal score may change places, so where they
    tie in value the root's best move is the compiled core's).

    >>> selection_order([(1, 0), (2, 0), (3, 0), (2, 0)], 0)  # 3 and 1 swap, then 1 and the last 2
    [(3, 0), (2, 0), (2, 0), (1, 0)]
    """
    scored = [[1 << 20 if mv == first else _quick_score(mv, table), mv] for mv in moves]
    for i in range(len(scored)):
        best = i
        for j in range(i + 1, len(scored)):
            if scored[j][0] > scored[best][0]:
                best = j
        scored[i], scored[best] = scored[best], scored[i]
    return [mv for _, mv in scored]


def move_class(card: int, captured: int) -> int:
    """The history heuristic's slot of a move: its card and how many cards it captures
    (none, one, two, three or more), so a card's lay-downs and its captures are credited apart."""
    return card + 40 * min(core._popcount(captured), 3)


def order_moves(pos: tuple, moves: list, tt_move, history: list[int], opts: int, nplayers: int) -> list:
    """Moves sorted best-first: the table's move, sweeps, settebello, sevens, coins, ...

    Captures that leave the next player a sweep go among the lay-downs; lay-downs that do, last.
    """
    hands, table, stock, cap, scope, turn, last = pos
    nxt = hands[(turn + 1) % nplayers]
    scored = []
    for i, (c, m) in enumerate(moves):
        bit = 1 << c
        if (c, m) == tt_move:
            s = 1 << 30
        elif m:
            took = m | bit
            s = 100000
            if m == table:
                s += 50000
            if took & SEVEN_COINS:
                s += 20000
            s += 3000 * core._popcount(took & core.RANK_MASK[7])
            s += 1000 * core._popcount(took & COINS)
            s += 300 * core._popcount(m)
            s += history[move_class(c, m)]
            if m != table and leaves_sweep(table & ~m, nxt, opts):
                s -= 120000
        else:
            s = history[c] + 100 * (c % 10) - 400 * bool(bit & COINS)
            if leaves_sweep(table | bit, nxt, opts):
                s -= 50000
        scored.append((-s, i, c, m))
    scored.sort()
    return [(c, m) for _, _, c, m in scored]
