"""Pure-Python twin of the double-dummy solver (``scopa_core._core.Solver``).

The same algorithm as the compiled solver (RULES §8): negamax alpha-beta over the
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

_PRIM_CODE = {0: 0, 10: 1, 12: 2, 13: 3, 14: 4, 15: 5, 16: 6, 18: 7, 21: 8}
_SUIT_BEST = core._SUIT_BEST
COINS = core.COINS
SEVEN_COINS = core.SETTEBELLO
KING_COINS = core.RE_BELLO


def check_position(pos: tuple, block: int) -> None:
    """Raise ValueError unless ``pos`` can be solved: the shape and ranges of
    ``_checks.check_tuple`` and a playable position (``_checks.check_playable``)."""
    _checks.check_tuple(pos, block)
    _checks.check_playable(pos)


_BUSY = "this Solver is searching for another thread: use one per thread, or scopa.Solver, which waits"


class SolverAborted(Exception):
    """Raised inside the search when a limit stops it (node limit, time limit, stop flag)."""


#: nodes between two looks at the clock and the stop flag (the node count is compared with
#: the next check at every node)
CHECK_EVERY = 1024


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


def quick_order(moves: list, table: int) -> list:
    """The leaf search's cheap ordering: sweeps, captures by size, then lay-downs, high cards
    first (they leave tables that fewer sums capture: less time than low cards first)."""

    def score(mv: tuple) -> int:
        c, m = mv
        if m:
            return 100 + 10 * (m == table) + core._popcount(m) + 5 * bool((m | 1 << c) & SEVEN_COINS)
        return c % 10

    return sorted(moves, key=score, reverse=True)


def _trunc_div(a: int, b: int) -> int:
    """Division rounding toward zero, as in C."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def static_eval(pos: tuple, opts: int, nplayers: int) -> int:
    """Heuristic final difference x 100 (team 0's side) at the horizon; see the compiled
    ``static_eval``: banked points, open card and coin leads over the cards left, an open
    settebello 60 to its holder's team (30 to the mover's team on the table), an open
    primiera 40 to the team ahead on its current bests."""
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
    if rest & SEVEN_COINS:
        if table & SEVEN_COINS:
            e += 30 if turn & 1 == 0 else -30
        else:
            for seat, h in enumerate(hands):
                if h & SEVEN_COINS:
                    e += 60 if seat & 1 == 0 else -60
    if info[3] >> 24 & 1:
        b0 = sum(_SUIT_BEST[(cap[0] >> (10 * s)) & COINS] for s in range(4))
        b1 = sum(_SUIT_BEST[(cap[1] >> (10 * s)) & COINS] for s in range(4))
        e += 40 * _sign(b0 - b1)
    return e


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


class Solver:
    """Double-dummy solver with a reusable transposition table (pure-Python twin).

    The same API as the compiled solver: node limits, time limits and stop flags where a
    method takes them (signals need no help here: Python runs their handlers between
    bytecodes), and one caller at a time.
    """

    def __init__(self, tt_size_mb: int = 64) -> None:
        _checks.check_int(tt_size_mb, "tt_size_mb", 1, 65536)
        self.tt_size_mb = tt_size_mb
        self._max_entries = tt_size_mb * (1 << 20) // 200
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
        #: the plain leaf search takes over below this many plays left (as in the compiled solver)
        self.leaf_depth = 11

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
        self._busy = True
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
            or (self._stop is not None and self._stop.is_set())
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
        if w_hi <= alpha:
            return w_hi
        if w_lo >= beta:
            return w_lo
        depth = len(stock) + sum(core._popcount(h) for h in hands)
        sb = sigma * B
        if depth < self.leaf_depth:
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
    ) -> tuple:
        """Solve a position tuple; see ``scopa_core._core.Solver.solve``.

        Returns ``(exact, lower, upper, best_card, best_capture, pv, nodes)``: values are
        the final difference for the team to move; ``pv`` a list of ``(card, capture)``.
        """
        if guess is not None:
            _checks.check_int(guess, "guess", -10000, 10000)
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
                raise ValueError(f"bad first {_checks.short(first)}: expected a (card, capture) move or None")
            _checks.check_card(first[0])
            _checks.check_mask(first[1], "captured cards")
            first = (first[0], first[1])
        self._begin(pos, opts, block, node_limit, time_limit, stop)
        try:
            if not pos[2] and not any(pos[0]):
                return None
            moves = quick_order(core._legal_moves(pos[0][pos[5]], pos[1], opts), pos[1])
            if first in moves:
                moves.remove(first)
                moves.insert(0, first)
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

    def analyze(self, pos: tuple, opts: int, block: int) -> list[tuple[int, int, int]]:
        """Exact value of every legal move: ``[(card, capture, value), ...]``."""
        self._begin(pos, opts, block, 0, 0, None)
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
