"""Pure-Python twin of the double-dummy solver (``scopa_core._core.Solver``).

The same algorithm as the compiled solver (RULES §8), split as it is: the bounds in
``_twin_bounds``, the table keys in ``_twin_tt``, move ordering in ``_twin_moves``, the static
evaluation in ``_twin_horizon``, and here the searches and the API: negamax alpha-beta over the
open part of the score, null-window (MTD(f)) searches, a transposition table of
bounds keyed by the cards still in play and a summary of the undecided scoring terms,
sure-point cutoffs and move ordering. It is the reference the compiled solver is
tested against, with :func:`minimax` (plain, no pruning) as the ground truth.
The compiled solver adds speed-only refinements that leave every value unchanged, so
node counts differ: the leaf search's exact-position table, one card per neutral rank in
the leaf search, and ``solve``'s first MTD(f) guess from a horizon search.

Scores are split in two. *Banked* points (``B``, team 0 minus team 1) are already
certain: the scope made so far and every scoring term whose outcome no longer depends
on the cards still to be played. The *open* value ``W = final difference - B`` depends
only on the cards in play (hands, table, stock), the seat to move, the last capturer
and a summary of the undecided terms, which together form the table's key.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from scopa_core import _checks
from scopa_core import _twin as core
from scopa_core._twin_bounds import final_difference, leaves_sweep, node_info
from scopa_core._twin_horizon import static_eval
from scopa_core._twin_moves import move_class, order_moves, quick_order, selection_order
from scopa_core._twin_tt import make_key, neutral_cards, prune_equivalent

__all__ = [
    "Solver",
    "SolverAborted",
    "analyze_minimax",
    "check_position",
    "final_difference",
    "leaves_sweep",
    "minimax",
    "node_info",
    "replay",
]


def check_position(pos: tuple, block: int) -> None:
    """Raise CoreError unless ``pos`` can be solved: the shape and ranges of
    ``_checks.check_tuple`` and a playable position (``_checks.check_playable``)."""
    _checks.check_tuple(pos, block)
    _checks.check_playable(pos)


_BUSY = "this Solver is searching for another thread: use one per thread, or scopa.Solver, which waits"


#: What one table entry takes in Python: a dict slot, its key (a tuple of the position's masks,
#: which holds a tuple of them) and its value (a list: two bounds and a move tuple); about 460
#: bytes measured with tracemalloc (tests/test_core.py), so ``tt_size_mb``
#: bounds the table's memory as the compiled core's does (it assumed 200: 2.3 times over).
ENTRY_BYTES = 512


class SolverAborted(Exception):
    """Raised inside the search when a limit stops it (node limit, time limit, stop flag)."""


#: nodes between two looks at the clock and the stop flag (the node count is compared with
#: the next check at every node)
CHECK_EVERY = 1024


class Solver:
    """Double-dummy solver with a reusable transposition table (pure-Python twin).

    The same API as the compiled solver: node limits, time limits and stop flags where a
    method takes them (signals need no help here: Python runs their handlers between
    bytecodes), and one caller at a time. As in any Python code, a KeyboardInterrupt
    raised while the garbage collector runs Python code (an object's ``__del__``, a gc
    callback) is lost (CPython prints "Exception ignored"), so now and then a second
    Ctrl-C is needed; the compiled core raises it from its own loop.
    """

    def __init__(self, tt_size_mb: int = 64) -> None:
        _checks.check_int(tt_size_mb, "tt_size_mb", 1, 65536)
        self.tt_size_mb = tt_size_mb
        self._max_entries = tt_size_mb * (1 << 20) // ENTRY_BYTES
        self._tt: dict[tuple, list] = {}
        self._context: tuple | None = None
        self.nodes = 0
        self.tt_hits = 0
        self.tt_probes = 0
        self.iterations = 0
        self._limit = 0
        self._next_check = CHECK_EVERY
        self._deadline = 0.0
        self._stop: core.StopFlag | None = None
        self._busy = False
        self._claim = threading.Lock()
        self._root_depth = -1
        self._root_move: tuple[int, int] | None = None
        self._history = [0] * 160
        self._leaf_depth = 11

    @property
    def leaf_depth(self) -> int:
        """The plain leaf search takes over below this many plays left (a tuning knob, as in
        the compiled solver, which also has others, and more counters, for its benchmarks)."""
        return self._leaf_depth

    @leaf_depth.setter
    def leaf_depth(self, value: int) -> None:
        self._idle()
        self._leaf_depth = _checks.check_int(value, "leaf_depth", 0, 1000)

    def _idle(self) -> None:
        """Refuse a call while another thread's search runs (as the compiled core does)."""
        if self._busy:
            raise RuntimeError(_BUSY)

    def _captures(self, card: int, table: int, opts: int) -> list[int]:
        """The sets ``card`` may capture from ``table`` (the compiled solver's test hook, which
        checks its own generator against :func:`captures`; here that function, its checks too)."""
        return core.captures(card, table, opts)

    def clear(self) -> None:
        """Empty the transposition table."""
        if not self._claim.acquire(blocking=False):
            raise RuntimeError(_BUSY)
        try:
            self._tt.clear()
            self._context = None
            self._history = [0] * 160
        finally:
            self._claim.release()

    def tt_entries(self) -> int:
        """Number of positions in the transposition table."""
        self._idle()
        return len(self._tt)

    # ------------------------------------------------------------------ one call at a time

    def _begin(self, pos: tuple, opts: int, block: int, node_limit: int, time_limit: float, stop) -> None:
        """Check a call's arguments, claim the solver, set up the limits (see the compiled
        ``_begin``); pair with :meth:`_end`."""
        _checks.check_opts(opts)
        _checks.check_int(node_limit, "node_limit", 0, (1 << 62) - 1)
        seconds = _checks.check_seconds(time_limit)  # (in the compiled core's order)
        core.check_stop(stop)
        check_position(pos, block)
        # one step, whatever thread runs: a lock taken without waiting (a second caller is refused)
        if not self._claim.acquire(blocking=False):
            raise RuntimeError(_BUSY)
        try:
            self._busy = True
            self._setup(pos, opts, block, node_limit, seconds, stop)
        except BaseException:  # (a Ctrl-C here: the solver is not left claimed for good)
            self._busy = False
            self._claim.release()
            raise

    def _setup(self, pos: tuple, opts: int, block: int, node_limit: int, seconds: float, stop) -> None:
        stock = tuple(pos[2])
        ctx = self._context
        same = (
            ctx is not None
            and ctx[0] == (opts, block, len(pos[0]))
            and len(stock) <= len(ctx[1])
            and ctx[1][len(ctx[1]) - len(stock) :] == stock
        )
        if not same:
            self._tt.clear()
            self._context = ((opts, block, len(pos[0])), stock)
        self._opts, self._block, self._n = opts, block, len(pos[0])
        self.nodes = self.tt_hits = self.tt_probes = self.iterations = 0
        self._limit = node_limit
        self._deadline = time.monotonic() + seconds if seconds > 0 else 0.0
        self._stop = stop
        self._root_depth = len(stock) + sum(core._popcount(h) for h in pos[0])
        self._arm()

    def _end(self) -> None:
        self._limit = 0
        self._deadline = 0.0
        self._stop = None
        self._busy = False
        self._claim.release()

    def _arm(self) -> None:
        self._next_check = self.nodes + CHECK_EVERY
        if self._limit and self._next_check > self._limit + 1:
            self._next_check = self._limit + 1

    def _poll(self) -> None:
        """Called when the node count reaches the next check: raise SolverAborted when a
        limit is reached (the node limit, the deadline, the stop flag)."""
        if (
            (self._limit and self.nodes > self._limit)
            # (the flag's own field, as the compiled search reads its C word: a subclass's is_set
            # does not stop a search on either core)
            or (self._stop is not None and self._stop._set)
            or (self._deadline and time.monotonic() >= self._deadline)
        ):
            raise SolverAborted
        self._arm()

    # ------------------------------------------------------------------ search

    def _leaf(self, pos: tuple, alpha: int, beta: int) -> int:
        """Plain alpha-beta on the final difference (mover's side) for the last plays."""
        self.nodes += 1
        if self.nodes >= self._next_check:
            self._poll()
        hands, table, stock, turn = pos[0], pos[1], pos[2], pos[5]
        if not stock and not any(hands):
            d = final_difference(pos, self._opts)
            return d if turn & 1 == 0 else -d
        best = -1000
        for c, m in quick_order(core._legal_moves(hands[turn], table, self._opts), table):
            v = -self._leaf(core._apply(pos, c, m, self._opts, self._block), -beta, -max(alpha, best))
            if v > best:
                best = v
                if best >= beta:
                    break
        return best

    def _search(self, pos: tuple, info: tuple, alpha: int, beta: int) -> int:
        self.nodes += 1
        if self.nodes >= self._next_check:
            self._poll()
        hands, table, stock = pos[0], pos[1], pos[2]
        B, lo, hi, sig_a, sig_b = info
        sigma = 1 if pos[5] & 1 == 0 else -1
        if not stock and not any(hands):
            return sigma * (final_difference(pos, self._opts) - B)
        w_lo, w_hi = (lo, hi) if sigma == 1 else (-hi, -lo)
        depth = len(stock) + sum(core._popcount(h) for h in hands)
        # the root is always searched here, for the move that proves its bound (the sure-point
        # cutoffs and the leaf search below know no move, and a limited solve reports this one)
        root = depth == self._root_depth
        if w_hi <= alpha and not root:
            return w_hi
        if w_lo >= beta and not root:
            return w_lo
        sb = sigma * B
        if depth < self.leaf_depth and not root:
            self.nodes -= 1
            return self._leaf(pos, alpha + sb, beta + sb) - sb
        opts, n = self._opts, self._n
        neutral = neutral_cards(pos, info, opts)
        key = make_key(pos, info, neutral)
        self.tt_probes += 1
        entry = self._tt.get(key)
        tt_move = None
        if entry is not None:
            self.tt_hits += 1
            lower, upper = entry[0], entry[1]
            if lower >= beta or upper <= alpha or lower == upper:
                if depth == self._root_depth:
                    self._root_move = entry[2]
                return lower if lower >= beta or upper > alpha else upper
            tt_move = entry[2]
        moves = core._legal_moves(hands[pos[5]], table, opts)
        moves = prune_equivalent(moves, table, neutral)
        moves = order_moves(pos, moves, tt_move, self._history, opts, n)
        best = -1000
        best_move = moves[0]
        for i, (c, m) in enumerate(moves):
            child = core._apply(pos, c, m, opts, self._block)
            cinfo = node_info(child, opts, n)
            g = sigma * (cinfo[0] - B)
            a = max(alpha, best)
            v = g - self._search(child, cinfo, g - beta, g - a)
            if v > best:
                best, best_move = v, (c, m)
                if best >= beta:
                    # the cutting move gains, the moves tried before it lose as much
                    for c2, m2 in moves[:i]:
                        j = move_class(c2, m2)
                        self._history[j] = max(self._history[j] - depth * depth, -(1 << 14))
                    j = move_class(c, m)
                    self._history[j] += depth * depth
                    if self._history[j] > 1 << 14:
                        self._history = [x >> 1 for x in self._history]
                    break
        self._store(key, entry, best, alpha, beta, best_move)
        if depth == self._root_depth:
            self._root_move = best_move
        return best

    def _store(self, key: tuple, entry: list | None, best: int, alpha: int, beta: int, move: tuple) -> None:
        lower, upper = (entry[0], entry[1]) if entry is not None else (-1000, 1000)
        if best <= alpha:
            upper = min(upper, best)
        elif best >= beta:
            lower = max(lower, best)
        else:
            lower = upper = best
        if entry is None and len(self._tt) >= self._max_entries:
            self._tt.clear()
        self._tt[key] = [lower, upper, move]

    def _mtdf(self, pos: tuple, info: tuple, lo: int, hi: int, guess: int) -> tuple[int, int]:
        """Null-window searches until ``lo == hi``; returns the final ``(lo, hi)``.

        ``self._bounds`` holds the bounds proved so far, should a limit stop it, and
        ``self._proved`` the move of the last search that proved ``lo`` (None if none did).
        """
        g = min(max(guess, lo), hi)
        self._bounds = (lo, hi)
        self._proved: tuple[int, int] | None = None
        while lo < hi:
            beta = g if g > lo else lo + 1
            self._root_move = None
            g = self._search(pos, info, beta - 1, beta)
            self.iterations += 1
            if g < beta:
                hi = g
            else:
                lo = g
                self._proved = self._root_move
            self._bounds = (lo, hi)
        return lo, hi

    def _root(self, pos: tuple) -> tuple[tuple, int, int, int]:
        info = node_info(pos, self._opts, self._n)
        sigma = 1 if pos[5] & 1 == 0 else -1
        lo, hi = info[1], info[2]
        w_lo, w_hi = (lo, hi) if sigma == 1 else (-hi, -lo)
        return info, sigma, w_lo, w_hi

    # ------------------------------------------------------------------ API

    def solve(
        self,
        pos: tuple,
        opts: int,
        block: int,
        node_limit: int = 0,
        time_limit: float = 0.0,
        stop=None,
        guess: int | None = None,
        pv: bool = True,
        threads: int = 1,
    ) -> tuple:
        """Solve a position tuple; see ``scopa_core._core.Solver.solve``.

        Returns ``(exact, lower, upper, best_card, best_capture, pv, nodes)``: values are
        the final difference for the team to move; ``pv`` a list of ``(card, capture)``.
        ``threads`` is checked as the compiled core checks it; the twin searches in one
        thread (its values are the same on any number).
        """
        if guess is not None:
            _checks.check_int(guess, "guess", -10000, 10000)
        _checks.check_int(threads, "threads", 1, 256)
        _checks.check_flag(pv, "pv")
        self._begin(pos, opts, block, node_limit, time_limit, stop)
        try:
            info, sigma, w_lo, w_hi = self._root(pos)
            base = sigma * info[0]
            if not pos[2] and not any(pos[0]):
                v = sigma * final_difference(pos, opts)
                return (True, v, v, -1, 0, [], 0)
            lo, hi = w_lo, w_hi
            moves = core._legal_moves(pos[0][pos[5]], pos[1], opts)
            try:
                lo, hi = self._mtdf(pos, info, lo, hi, 0 if guess is None else guess - base)
            except SolverAborted:
                lo, hi = self._bounds
                entry = self._tt.get(make_key(pos, info, neutral_cards(pos, info, opts)))
                if entry is not None:
                    lo, hi = max(lo, entry[0]), min(hi, entry[1])
                if lo < hi:
                    c, m = self._proved if self._proved in moves else (-1, 0)  # type: ignore[misc]
                    return (False, base + lo, base + hi, c, m, [], self.nodes)
                # exact after all, through the table's bounds: on to the PV (as the compiled solver)
            line = self._pv(pos, info, lo) if pv else []
            if pv and not line and lo != w_lo and self._proved not in moves:
                # the limit cut the PV before its first move: that step is searched past the
                # node and time limits, not a stop (as in the compiled solver)
                self._limit, self._deadline = 0, 0.0
                self._arm()
                line = self._pv(pos, info, lo, 1)
            if line:
                c, m = line[0]
            elif lo == w_lo:  # the least any line can give: every move reaches it
                c, m = moves[0]
            else:
                c, m = self._proved if self._proved in moves else (-1, 0)  # type: ignore[misc]
            return (True, base + lo, base + lo, c, m, line, self.nodes)
        finally:
            self._end()

    def _pv(self, pos: tuple, info: tuple, target: int, max_len: int = 40) -> list:
        """The principal variation of a solved position whose open value is ``target``
        (at most ``max_len`` moves, as much of it as the limits let the search prove)."""
        pv: list[tuple[int, int]] = []
        opts, n = self._opts, self._n
        while (pos[2] or any(pos[0])) and len(pv) < max_len:
            sigma = 1 if pos[5] & 1 == 0 else -1
            entry = self._tt.get(make_key(pos, info, neutral_cards(pos, info, opts)))
            moves = order_moves(
                pos,
                core._legal_moves(pos[0][pos[5]], pos[1], opts),
                entry[2] if entry else None,
                self._history,
                opts,
                n,
            )
            for c, m in moves:
                child = core._apply(pos, c, m, opts, self._block)
                cinfo = node_info(child, opts, n)
                g = sigma * (cinfo[0] - info[0])
                need = g - target  # this move reaches target iff w(child) <= need
                try:
                    v = self._search(child, cinfo, need, need + 1)
                except SolverAborted:
                    return pv
                if v <= need:
                    pv.append((c, m))
                    pos, info, target = child, cinfo, need
                    break
            else:  # pragma: no cover - would mean an inconsistent table
                raise RuntimeError("principal variation lost: inconsistent transposition table")
        return pv

    def _horizon(self, pos: tuple, plies: int, alpha: int, beta: int) -> int:
        self.nodes += 1
        if self.nodes >= self._next_check:
            self._poll()
        hands, table, turn = pos[0], pos[1], pos[5]
        sigma = 1 if turn & 1 == 0 else -1
        if not pos[2] and not any(hands):
            return sigma * 100 * final_difference(pos, self._opts)
        if plies <= 0:
            return sigma * static_eval(pos, self._opts, self._n)
        best = -1000000
        for c, m in quick_order(core._legal_moves(hands[turn], table, self._opts), table):
            child = core._apply(pos, c, m, self._opts, self._block)
            v = -self._horizon(child, plies - 1, -beta, -max(alpha, best))
            if v > best:
                best = v
                if best >= beta:
                    break
        return best

    def horizon(
        self,
        pos: tuple,
        opts: int,
        block: int,
        plies: int,
        node_limit: int = 0,
        time_limit: float = 0.0,
        stop=None,
        first: tuple[int, int] | None = None,
    ) -> tuple[float, int, int] | None:
        """The best move and its value by a ``plies``-deep alpha-beta with the heuristic
        evaluation at the horizon: ``(value, card, capture)``, or None when the limits
        stopped it or the hand is over; see the compiled solver."""
        _checks.check_int(plies, "plies", 1, 1000)
        if first is not None:
            if type(first) not in (tuple, list) or len(first) != 2:
                raise _checks.CoreError(
                    f"bad first {_checks.short(first)}: expected a (card, capture) move or None"
                )
            _checks.check_card(first[0])
            _checks.check_mask(first[1], "captured cards")
            first = (first[0], first[1])
        self._begin(pos, opts, block, node_limit, time_limit, stop)
        try:
            if not pos[2] and not any(pos[0]):
                return None
            # (the root in the compiled core's order of scores: where moves tie, its best move,
            # but for one card's captures of equal size, which the compiled solver generates by
            # rank sets, not in captures()' order: there the two may name different best moves)
            moves = selection_order(core._legal_moves(pos[0][pos[5]], pos[1], opts), pos[1], first)
            best, best_move = -1000000, moves[0]
            try:
                for c, m in moves:
                    child = core._apply(pos, c, m, opts, block)
                    v = -self._horizon(child, plies - 1, -1000000, -best)
                    if v > best:
                        best, best_move = v, (c, m)
            except SolverAborted:
                return None
            return (best / 100.0, best_move[0], best_move[1])
        finally:
            self._end()

    def analyze_depth(
        self,
        pos: tuple,
        opts: int,
        block: int,
        plies: int,
        node_limit: int = 0,
        time_limit: float = 0.0,
        stop=None,
    ) -> list[tuple[int, int, float]] | None:
        """Every legal move's value from a ``plies``-deep alpha-beta with a heuristic
        evaluation at the horizon (points, for the team to move), or None when the limits
        stopped it first; see the compiled solver."""
        _checks.check_int(plies, "plies", 1, 1000)
        self._begin(pos, opts, block, node_limit, time_limit, stop)
        try:
            out = []
            for c, m in core._legal_moves(pos[0][pos[5]], pos[1], opts):
                child = core._apply(pos, c, m, opts, block)
                out.append((c, m, -self._horizon(child, plies - 1, -1000000, 1000000) / 100.0))
            return out
        except SolverAborted:
            return None
        finally:
            self._end()

    def analyze(
        self,
        pos: tuple,
        opts: int,
        block: int,
        node_limit: int = 0,
        time_limit: float = 0.0,
        stop=None,
    ) -> list[tuple[int, int, int]] | None:
        """Exact value of every legal move: ``[(card, capture, value), ...]``; ``None`` when
        the limits (as :meth:`solve`'s) stopped it before every move was valued."""
        self._begin(pos, opts, block, node_limit, time_limit, stop)
        try:
            info, sigma, _, _ = self._root(pos)
            out = []
            for c, m in core._legal_moves(pos[0][pos[5]], pos[1], opts):
                child = core._apply(pos, c, m, opts, block)
                cinfo = node_info(child, opts, self._n)
                csigma = -sigma
                if not child[2] and not any(child[0]):
                    out.append((c, m, sigma * final_difference(child, opts)))
                    continue
                clo, chi = (cinfo[1], cinfo[2]) if csigma == 1 else (-cinfo[2], -cinfo[1])
                self._root_depth = len(child[2]) + sum(core._popcount(h) for h in child[0])
                # the previous move's value is the first guess: siblings' values are close
                w, _ = self._mtdf(child, cinfo, clo, chi, sigma * cinfo[0] - out[-1][2] if out else 0)
                out.append((c, m, sigma * cinfo[0] - w))
            return out
        except SolverAborted:
            return None
        finally:
            self._end()


def minimax(pos: tuple, opts: int, block: int) -> int:
    """Plain minimax, no pruning and no table: the final difference for the team to move.

    The ground truth the solvers are tested against; only for small endgames.
    """
    hands, table, stock, cap, scope, turn, last = pos
    if not stock and not any(hands):
        d = final_difference(pos, opts)
        return d if turn & 1 == 0 else -d
    best = -1000
    for c, m in core._legal_moves(hands[turn], table, opts):
        child = core._apply(pos, c, m, opts, block)
        v = minimax(child, opts, block)
        # the next seat is always on the other team
        best = max(best, -v)
    return best


def analyze_minimax(pos: tuple, opts: int, block: int) -> list[tuple[int, int, int]]:
    """Plain-minimax value of every legal move, for tests."""
    out = []
    for c, m in core._legal_moves(pos[0][pos[5]], pos[1], opts):
        out.append((c, m, -minimax(core._apply(pos, c, m, opts, block), opts, block)))
    return out


def replay(pos: tuple, pv: Sequence[tuple[int, int]], opts: int, block: int) -> int:
    """Play ``pv`` from ``pos`` and return the final difference for the root's team to move."""
    sigma = 1 if pos[5] & 1 == 0 else -1
    for c, m in pv:
        pos = core._apply(pos, c, m, opts, block)
    return sigma * final_difference(pos, opts)
