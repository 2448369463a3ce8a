# Double-dummy solver of the compiled core, included into _core.pyx (one extension, so the
# move generator and apply_pos inline into the search). The pure-Python twin with the same
# algorithm and API is scopa_core/_twin_solver.py; its docstring explains the score split.
#
# Search: negamax alpha-beta on the open value w (the final difference minus the banked
# points, from the mover's side), null-window MTD(f) iterations at the root, sure-point
# cutoffs from the range of w, a 2-way bucketed transposition table of bounds keyed by the
# cards in play in canonical form (neutral cards of one rank, whose suits no longer matter,
# reassigned in a fixed order, so positions equal up to such swaps share an entry) plus the
# undecided-term summary, full key verified, depth-preferred replacement; a plain
# alpha-beta for the last plays (below leaf_depth) on the final difference, with a small
# cache-resident table of its own keyed by every card's place (piles included) but not the
# scope, whose difference its bounds leave out, and the last round played out by a loop of
# forced plays; move ordering: table move, else (20 plays left and more) a one-ply search
# with the static evaluation, then captures (sweeps, settebello, sevens, coins, history by
# card and move class), lay-downs high cards first; captures that leave the next player a
# sweep among the lay-downs, lay-downs that do last.

# The solver is split by concern, as DDS splits its own; each part is included here in the
# order the later ones need the earlier ones:
#   _solver_state.pxi    the state, the table layouts, precomputed tables, limits' checks
#   _solver_bounds.pxi   sure-point bounds and the score split
#   _solver_tt.pxi       the transposition table and its canonical keys
#   _solver_moves.pxi    move generation and ordering
#   _solver_leaf.pxi     the leaf search and the last round
#   _solver_horizon.pxi  the depth-limited search and its static evaluation
#   _solver_search.pxi   the main search
# and below, the Solver class: the API (solve, analyze, horizon, analyze_depth).

include "_solver_state.pxi"
include "_solver_bounds.pxi"
include "_solver_tt.pxi"
include "_solver_moves.pxi"
include "_solver_leaf.pxi"
include "_solver_horizon.pxi"
include "_solver_search.pxi"


# plays left from which a solve with threads > 1 searches on several threads: below, a
# search takes milliseconds and starting the threads costs more than they gain
DEF PARALLEL_MIN_PLAYS_C = 20
PARALLEL_MIN_PLAYS = PARALLEL_MIN_PLAYS_C


cdef struct HelperRun:
    # what a helper thread runs on, with no Python object in it: its thread holds no GIL
    SState* S
    Pos* p
    Info* info
    int* lo
    int* hi
    int* card
    uint64_t* cap
    int guess
    int iterations
    PyThread_type_lock finished   # held while the thread runs: released as it ends


cdef void _helper_thread(void* arg) noexcept nogil:
    """A helper thread's body (started by ``PyThread_start_new_thread``, no Python in it):
    MTD(f) on the shared table until it is done or stopped, then the lock released."""
    cdef HelperRun* r = <HelperRun*>arg
    r.iterations = mtdf_loop(r.S, r.p, r.info, r.lo, r.hi, r.guess, r.card, r.cap)
    PyThread_release_lock(r.finished)


cdef class _SolveHelper:
    """A helper thread of a parallel solve: a search state of its own (move stack, capture
    memo, leaf table, history) on the solver's main table, shared under bucket locks.

    Its thread is a bare C thread: started and waited for without running any Python code,
    so no KeyboardInterrupt can land between the two and leave it running on a search
    state that the solver has let go."""

    cdef SState S
    cdef Pos p
    cdef Info info
    cdef int lo, hi, guess, card, iterations
    cdef uint64_t cap
    cdef unsigned short last_epoch
    cdef HelperRun run_state
    cdef bint running

    def __cinit__(self):
        memset(&self.S, 0, sizeof(SState))
        self.running = False
        self.run_state.finished = PyThread_allocate_lock()
        if self.run_state.finished == NULL or not search_mem_alloc(&self.S):
            # (what was allocated is freed by __dealloc__, which runs after a failed __cinit__)
            raise MemoryError("cannot allocate a helper thread's search memory")
        self.last_epoch = 0

    def __dealloc__(self):
        self.wait()
        search_mem_free(&self.S)
        if self.run_state.finished != NULL:
            PyThread_free_lock(self.run_state.finished)

    cdef bint start(self) noexcept:
        """Run :meth:`setup`'s search on a new thread; False when no thread could be made."""
        cdef HelperRun* r = &self.run_state
        r.S = &self.S
        r.p = &self.p
        r.info = &self.info
        r.lo = &self.lo
        r.hi = &self.hi
        r.card = &self.card
        r.cap = &self.cap
        r.guess = self.guess
        r.iterations = 0
        PyThread_acquire_lock(r.finished, WAIT_LOCK)   # free while no thread runs
        # (an unsigned thread id: PYTHREAD_INVALID_THREAD_ID, (unsigned long)-1, when it failed)
        if PyThread_start_new_thread(_helper_thread, r) == <unsigned long>-1:
            PyThread_release_lock(r.finished)
            return False
        self.running = True
        return True

    cdef void wait(self) noexcept:
        """Wait for the thread :meth:`start` started, if any (without the GIL, and without
        being interrupted: the search stops on the solver's ``done`` word)."""
        if not self.running:
            return
        with nogil:
            PyThread_acquire_lock(self.run_state.finished, WAIT_LOCK)
        PyThread_release_lock(self.run_state.finished)
        self.iterations = self.run_state.iterations
        self.running = False

    cdef void setup(self, const SState* main, const Pos* p, const Info* info, int lo, int hi,
                    int guess, int number, int* done, Bounds* bounds) noexcept:
        """Copy the main search's rules, tuning, table, limits and history, keeping this
        helper's own memory (move stack, capture memo, leaf table); reset its counters."""
        cdef SState* S = &self.S
        cdef SState own = self.S
        if main.epoch < self.last_epoch:
            # the epoch wrapped around: entries of an old epoch could pass for current ones
            memset(own.leaftt, 0, LEAF_TT_BYTES)
        self.last_epoch = main.epoch
        S[0] = main[0]
        S.mcap = own.mcap
        S.mcard = own.mcard
        S.mscore = own.mscore
        S.capcache = own.capcache
        S.leaftt = own.leaftt
        S.shared = True
        S.done = done
        S.bounds = bounds
        S.thread_no = number
        S.moot = False
        S.leaf_neutral = 0
        S.nodes = 0
        S.main_nodes = 0
        S.node_limit = 0
        S.probes = 0
        S.hits = 0
        S.lt_hits = 0
        S.aborted = False
        S.sp = 0
        S.root_depth = plays_left(p)
        S.root_card = -1
        S.root_cap = 0
        # the caller's deadline and stop flag (its StopFlag is kept alive by the call); the
        # signal handlers, and what they raise, are the main thread's
        S.watch.signals = False
        S.watch.interrupted = False
        S.watch.exc_type = S.watch.exc_value = S.watch.exc_tb = NULL
        arm_checks(S)
        self.p = p[0]
        self.info = info[0]
        self.lo = lo
        self.hi = hi
        self.guess = guess
        self.card = -1
        self.cap = 0
        self.iterations = 0


cdef class Solver:
    """Double-dummy solver with a reusable transposition table (compiled).

    ``Solver(tt_size_mb)``; ``solve``, ``analyze``, ``horizon`` and ``analyze_depth`` on
    position tuples, as in ``scopa_core._twin.Solver``. The table is kept between calls on
    positions with the same rules and a stock that continues the previous one (so related
    positions reuse it), and cleared otherwise.

    The searches stop early at a node limit, a time limit or a :class:`StopFlag` where the
    method takes them, and, when called from the main thread, run Python's signal handlers
    every few thousand nodes (Ctrl-C raises KeyboardInterrupt within milliseconds). An
    interrupted call leaves the solver usable: its table holds only proven bounds. One
    solver searches for one caller at a time: a call made while another thread's call runs
    raises RuntimeError instead of sharing the table.
    """

    cdef SState S
    cdef int stock[40]
    cdef int stock_len
    cdef readonly int tt_size_mb
    cdef object _context
    cdef bint _dirty
    cdef readonly long long nodes
    cdef readonly long long tt_hits
    cdef readonly long long tt_probes
    cdef readonly long long main_nodes
    cdef readonly long long leaf_tt_hits
    cdef readonly int iterations
    cdef bint _busy
    cdef object _stop_ref    # the StopFlag whose word S.watch reads, kept alive during a call
    cdef TTEntry _copy       # where _entry copies an entry of a shared table
    cdef list _helpers       # the helper threads' search states of a parallel solve (kept for reuse)
    cdef int _done           # set when one thread of a parallel solve is done: the others stop

    def __cinit__(self, tt_size_mb=64):
        cdef uint64_t n_buckets = 1
        _checks.check_int(tt_size_mb, "tt_size_mb", 1, 65536)
        while n_buckets * 2 * 2 * sizeof(TTEntry) <= <uint64_t>tt_size_mb * (1 << 20):
            n_buckets *= 2
        self.tt_size_mb = tt_size_mb
        self.S.tt = <TTEntry*>scopa_table_alloc(n_buckets * 2 * sizeof(TTEntry))
        # the big table is zeroed first: the small hot tables written after it stay in the cache
        if self.S.tt != NULL:
            zero_checking_signals(<char*>self.S.tt, n_buckets * 2 * sizeof(TTEntry))
        ok = search_mem_alloc(&self.S)
        self.S.busy = <uint64_t*>malloc(BUSY_SIZE * sizeof(uint64_t))
        self.S.defer_depth = 18
        if self.S.tt == NULL or not ok or self.S.busy == NULL:
            raise MemoryError(f"cannot allocate a {tt_size_mb} MB transposition table")
        self.S.tt_mask = n_buckets - 1
        self.S.epoch = 1
        self.S.leaf_depth = 13
        self.S.etc_depth = 16
        self.S.iid_depth = 20   # below, the history ordering does better (k = 6: 3% fewer nodes, k = 7: 1%)
        self.S.iid_plies = 1
        self.S.guess_plies = 6
        self.S.guess_min = 20
        self.S.leaf_neutral = 0
        self._context = None
        self._dirty = False
        self._busy = False
        self._stop_ref = None
        self._helpers = []
        self._done = 0
        self._clear()

    def __dealloc__(self):
        scopa_table_free(self.S.tt)
        search_mem_free(&self.S)
        free(self.S.busy)

    property leaf_tt_min:
        """Plays left from which the leaf search keeps bounds in its small exact-key table."""
        def __get__(self):
            return self.S.lt_min
        def __set__(self, value):
            self._idle()
            self.S.lt_min = int_arg(value, "leaf_tt_min", 0, 1000)

    property leaf_tt_max:
        """Plays left up to which the leaf search keeps bounds in that table."""
        def __get__(self):
            return self.S.lt_max
        def __set__(self, value):
            self._idle()
            self.S.lt_max = int_arg(value, "leaf_tt_max", 0, 1000)

    cdef int _idle(self) except -1:
        if self._busy:
            raise RuntimeError("this Solver is searching for another thread: use one per thread, "
                               "or scopa.Solver, which waits")
        return 0

    def clear(self):
        """Empty the transposition table and the history heuristic."""
        self._idle()
        self._clear()

    cdef void _clear(self):
        if self._dirty:
            # a new epoch empties the table at once; the memory is wiped only when the
            # 16-bit epoch wraps around
            self.S.epoch += 1
            if self.S.epoch == 0:
                memset(self.S.tt, 0, (self.S.tt_mask + 1) * 2 * sizeof(TTEntry))
                memset(self.S.leaftt, 0, LEAF_TT_BYTES)
                self.S.epoch = 1
        self._dirty = False
        memset(self.S.hist, 0, sizeof(self.S.hist))
        self._context = None

    property defer_depth:
        """Plays left from which a parallel solve's threads put off a move another thread is
        searching (0: never)."""
        def __get__(self):
            return self.S.defer_depth
        def __set__(self, value):
            self._idle()
            self.S.defer_depth = int_arg(value, "defer_depth", 0, 1000)

    property leaf_depth:
        """The plain leaf search takes over below this many plays left (a tuning knob)."""
        def __get__(self):
            return self.S.leaf_depth
        def __set__(self, value):
            self._idle()
            self.S.leaf_depth = int_arg(value, "leaf_depth", 0, 1000)

    property iid_depth:
        """Plays left from which moves without a table move are ordered by a shallow search."""
        def __get__(self):
            return self.S.iid_depth
        def __set__(self, value):
            self._idle()
            self.S.iid_depth = int_arg(value, "iid_depth", 0, 1000)

    property iid_plies:
        """Depth of that shallow ordering search."""
        def __get__(self):
            return self.S.iid_plies
        def __set__(self, value):
            self._idle()
            self.S.iid_plies = int_arg(value, "iid_plies", 0, 1000)

    property guess_plies:
        """Depth of the horizon search whose value, scaled, is solve()'s first MTD(f)
        guess (0: the guess is a level hand)."""
        def __get__(self):
            return self.S.guess_plies
        def __set__(self, value):
            self._idle()
            self.S.guess_plies = int_arg(value, "guess_plies", 0, 1000)

    property guess_min:
        """Plays left from which solve() asks the horizon search for its first guess
        (below, the guess is a level hand: the horizon search would cost more than it saves)."""
        def __get__(self):
            return self.S.guess_min
        def __set__(self, value):
            self._idle()
            self.S.guess_min = int_arg(value, "guess_min", 0, 1000)

    property etc_depth:
        """Plays left from which enhanced transposition cutoffs are tried (a tuning knob)."""
        def __get__(self):
            return self.S.etc_depth
        def __set__(self, value):
            self._idle()
            self.S.etc_depth = int_arg(value, "etc_depth", 0, 1000)

    def _captures(self, card, table, opts) -> list:
        """The sets ``card`` may capture from ``table`` as the search generates them (from
        the rank sets that add up, a direct count, or the capture memo): for the tests, which
        check them against :func:`captures`."""
        cdef int n, i
        cdef int c = int_arg(card, "card index", 0, 39)
        cdef uint64_t t = mask_arg(table, "table")
        if (t >> c) & 1:
            _checks.check_off_table(c, t)
        self._idle()
        self.S.opts = int_arg(opts, "rule options", 0, 255)
        n = solver_captures(&self.S, c, t, self.S.mcap)
        return [self.S.mcap[i] for i in range(n)]

    def tt_entries(self) -> int:
        """Number of filled slots in the transposition table."""
        cdef uint64_t i, n = 0
        self._idle()
        for i in range((self.S.tt_mask + 1) * 2):
            if self.S.tt[i].epoch == self.S.epoch and self.S.tt[i].depth != 0:
                n += 1
        return n

    # -------------------------------------------------------------- one call at a time

    cdef int _begin(self, object pos, object opts, object block, Pos* p, object node_limit,
                    object time_limit, object stop) except -1:
        """Check a call's arguments, claim the solver and set up ``p`` and the limits.
        Nothing changes before every argument is checked: a refused call leaves the solver
        as it was. Pair with :meth:`_end` (in a ``finally``)."""
        cdef int o = int_arg(opts, "rule options", 0, 255)
        cdef long long nl
        if not is_int_in(node_limit, 0, 1 << 62):
            _checks.check_int(node_limit, "node_limit", 0, (1 << 62) - 1)
        nl = node_limit
        _checks.check_seconds(time_limit)
        if stop is not None and not isinstance(stop, StopFlag):
            raise _checks.bad_stop(stop, StopFlag)
        if self._busy:   # (a bad position is refused as the twin refuses it, busy or not)
            _checks.check_tuple(pos, block)
            _checks.check_playable(pos)
        # claimed before anything is written (self.stock, the table): no Python code runs
        # between the check and the claim, so the GIL makes the two one step
        self._idle()
        self._busy = True
        try:
            pos_from_tuple(p, self.stock, pos, block)
            if not playable(p):
                _checks.check_playable(pos)
            watch_start(&self.S.watch, time_limit, stop)
        except BaseException:   # (a refusal, or a Ctrl-C in watch_start's Python: never busy for good)
            self.S.watch.stop = NULL
            self._busy = False
            raise
        self._stop_ref = stop
        stock = tuple(pos[2])
        ctx = self._context
        key = (o, p.block, p.nplayers)
        same = (
            ctx is not None
            and ctx[0] == key
            and len(stock) <= len(ctx[1])
            and ctx[1][len(ctx[1]) - len(stock):] == stock
        )
        if not same:
            self._clear()
            self._context = (key, stock)
        self.S.opts = o
        self.S.block = p.block
        self.S.nplayers = p.nplayers
        self._dirty = True
        self.S.sp = 0
        self.S.nodes = 0
        self.S.main_nodes = 0
        self.iterations = 0
        self.S.probes = 0
        self.S.hits = 0
        self.S.lt_hits = 0
        self.S.aborted = False
        self.S.node_limit = nl
        self.S.root_depth = plays_left(p)
        self.S.root_card = -1
        self.S.root_cap = 0
        arm_checks(&self.S)
        return 0

    cdef int _end(self) except -1:
        """Release the solver after a call; raise what a signal handler raised during it."""
        cdef bint interrupted = self.S.watch.interrupted
        self.S.watch.stop = NULL
        self.S.node_limit = 0
        self._stop_ref = None
        self._busy = False
        self.nodes = self.S.nodes
        self.main_nodes = self.S.main_nodes
        self.leaf_tt_hits = self.S.lt_hits
        self.tt_hits = self.S.hits
        self.tt_probes = self.S.probes
        if interrupted:
            raise_pending(&self.S.watch)
        return 0

    cdef int _search(self, const Pos* p, const Info* info, int alpha, int beta):
        cdef int v
        with nogil:
            v = search(&self.S, p, info, alpha, beta)
        return v

    cdef TTEntry* _entry(self, const Pos* p, const Info* info):
        cdef Key key
        make_key(p, info, neutral_cards(p, info, self.S.opts), &key)
        return tt_find(&self.S, &key, &self._copy)

    cdef tuple _mtdf(self, const Pos* p, const Info* info, int lo, int hi, int guess):
        """Null-window searches from ``guess`` until ``lo == hi`` or the search stops:
        ``(lo, hi, card, capture)``, the move of the last search that proved ``lo``
        (card -1 when none did)."""
        cdef int card = -1, it
        cdef uint64_t cap = 0
        with nogil:
            it = mtdf_loop(&self.S, p, info, &lo, &hi, guess, &card, &cap)
        self.iterations += it
        return lo, hi, card, cap

    cdef tuple _mtdf_threads(self, const Pos* p, const Info* info, int lo, int hi, int guess,
                             int threads):
        """:meth:`_mtdf` on ``threads`` threads sharing the table: each helper runs MTD(f)
        from another first guess with its root moves in another order; all pool the bounds
        they prove (``mtdf_loop``), and a move another thread is searching is put off
        (``search``). When the bounds meet, every thread stops. A stop, a deadline or
        Ctrl-C stops the main thread, which then stops the helpers: the pooled bounds are
        the result, as a single thread's would be."""
        cdef _SolveHelper h
        cdef int k
        cdef long long extra = 0
        cdef Bounds b
        cdef int lo_main = lo, hi_main = hi, card_main = -1, it
        cdef uint64_t cap_main = 0
        while len(self._helpers) < threads - 1:
            self._helpers.append(_SolveHelper())
        helpers = self._helpers[: threads - 1]
        memset(&b, 0, sizeof(Bounds))
        b.lo = lo
        b.hi = hi
        b.card = -1
        for k in range(TEST_SLOTS):
            b.testing[k] = NO_TEST
        self._done = 0
        memset(self.S.busy, 0, BUSY_SIZE * sizeof(uint64_t))
        # From here to the end no Python code runs (a signal handler's exception is kept by
        # the search, raised by _end): ``b`` lives on this frame, and every thread that uses
        # it is waited for before it returns.
        self.S.shared = True
        self.S.done = &self._done
        self.S.bounds = &b
        self.S.thread_no = 0
        self.S.moot = False
        for k in range(threads - 1):
            h = helpers[k]
            # each helper tests another bound first (guess + 1, + 2, ...), so the threads
            # prove different bounds at once (k = 7: 1.39x on 2 threads, 1.19x from one guess)
            h.setup(&self.S, p, info, lo, hi, guess + k + 1, k + 1, &self._done, &b)
            h.start()   # (a thread that cannot be made leaves its share to the others)
        with nogil:
            it = mtdf_loop(&self.S, p, info, &lo_main, &hi_main, guess, &card_main, &cap_main)
        scopa_flag_write(&self._done, 1)
        for k in range(threads - 1):
            h = helpers[k]
            h.wait()
        self.S.shared = False
        self.S.done = NULL
        self.S.bounds = NULL
        self.iterations += it
        out = (lo_main, hi_main, card_main, cap_main)
        for k in range(threads - 1):
            h = helpers[k]
            extra += h.S.nodes
            self.iterations += h.iterations
            h.S.bounds = NULL
        self.S.nodes += extra
        if b.lo >= b.hi and not self.S.watch.interrupted:
            # the threads together proved the value: the main thread stopped for that, not
            # for a limit
            self.S.aborted = False
            return b.lo, b.hi, b.card, b.cap
        lo2, hi2, card, cap = out
        if b.lo > lo2:
            lo2, card, cap = b.lo, b.card, b.cap
        return lo2, min(hi2, b.hi), card, cap

    def solve(self, pos, opts, block, node_limit=0, time_limit=0.0, stop=None, guess=None,
              pv=True, threads=1) -> tuple:
        """Solve a position tuple: ``(exact, lower, upper, best_card, best_capture, pv, nodes)``.

        Values are the final score difference for the team to move; ``pv`` is a list of
        ``(card, capture)`` (empty when ``pv`` is False). The search stops early at
        ``node_limit`` nodes, ``time_limit`` seconds or when ``stop`` (a
        :class:`StopFlag`) is set: ``exact`` is then False and ``[lower, upper]`` holds the
        value, and the best move is one proven to reach ``lower`` (card -1 when no
        completed search proved one). A stop during the principal variation's search
        leaves the value exact and the PV shorter. ``guess`` (the expected value, for the
        team to move) is the first null-window search's test; by default a horizon search
        guesses from ``guess_min`` plays left, a level hand below. ``threads`` > 1 searches
        positions of ``PARALLEL_MIN_PLAYS`` plays left or more on that many threads sharing
        the table (lazy SMP) unless a ``node_limit`` is given: the value is the same, the
        best move and the PV may be another move of that value, and ``nodes`` counts every
        thread's positions.
        """
        cdef Pos p
        cdef Info info
        cdef int sigma, lo, hi, card = -1, v, est, wguess = 0, base
        cdef uint64_t cap = 0
        cdef TTEntry* e
        cdef int nthreads
        if guess is not None and not is_int_in(guess, -10000, 10001):
            _checks.check_int(guess, "guess", -10000, 10000)
        nthreads = _checks.check_int(threads, "threads", 1, 256)
        if pv is not True and pv is not False:
            _checks.check_flag(pv, "pv")
        self._begin(pos, opts, block, &p, node_limit, time_limit, stop)
        try:
            sigma = 1 if (p.turn & 1) == 0 else -1
            if is_over(&p):
                v = sigma * final_difference_c(&p, self.S.opts)
                return (True, v, v, -1, 0, [], 0)
            node_info(&p, self.S.opts, &info)
            lo, hi = (info.lo, info.hi) if sigma == 1 else (-info.hi, -info.lo)
            base = sigma * info.B
            if guess is not None:
                wguess = <int>guess - base
            elif self.S.guess_plies > 0 and plays_left(&p) >= self.S.guess_min:
                # The horizon search's estimate of the open part runs about 2/3 of the true one
                # (its evaluation discounts open terms), and null-window tests above the value
                # cost the most: guess floor(1.5 x that estimate). 14% fewer nodes at k = 6 and 7
                # than guessing 0 (19% at k = 6 with a limit). Under a limit the guess's search
                # counts against it, and stops with it.
                with nogil:
                    est = horizon_search(&self.S, &p, self.S.guess_plies, -1000000, 1000000)
                wguess = (3 * (est - 100 * base) + 20000000) // 200 - 100000
            if nthreads > 1 and not self.S.node_limit and plays_left(&p) >= PARALLEL_MIN_PLAYS_C:
                lo, hi, card, cap = self._mtdf_threads(&p, &info, lo, hi, wguess, nthreads)
            else:
                lo, hi, card, cap = self._mtdf(&p, &info, lo, hi, wguess)
            if self.S.aborted:
                e = self._entry(&p, &info)
                if e != NULL:
                    lo = max(lo, e.lower)
                    hi = min(hi, e.upper)
                if lo < hi:
                    moves = legal_moves(p.hands[p.turn], p.table, self.S.opts)
                    if (card, cap) not in moves:   # the table key is canonical: check the move
                        card, cap = -1, 0
                    return (False, base + lo, base + hi, card, cap, [], self.S.nodes)
                # exact after all, through the table's bounds: on to the PV (its first step
                # past the node and time limits, below)
            trivial = (info.lo if sigma == 1 else -info.hi) == lo
            line = self._pv(&p, &info, lo, 40) if pv else []
            moves = legal_moves(p.hands[p.turn], p.table, self.S.opts)
            if pv and not line and not trivial and card < 0:
                # the limit cut the PV before its first move: that one step (on a table that
                # holds the value) is searched past the node and time limits, not a stop
                self.S.node_limit = 0
                self.S.watch.deadline = 0
                self.S.aborted = False
                arm_checks(&self.S)
                line = self._pv(&p, &info, lo, 1)
            if line:
                card, cap = line[0]
            elif trivial:
                card, cap = moves[0]   # the value is the least any line can give: every move reaches it
            elif (card, cap) not in moves:
                card, cap = -1, 0
            return (True, base + lo, base + lo, card, cap, line, self.S.nodes)
        finally:
            self._end()

    cdef list _pv(self, const Pos* root, const Info* root_info, int target, int max_len):
        """The principal variation to the end of the hand (at most ``max_len`` moves), or as
        much of it as the limits let the search prove."""
        cdef Pos p = root[0]
        cdef Pos child
        cdef Info info = root_info[0]
        cdef Info cinfo
        cdef int sigma, g, need, v
        cdef TTEntry* e
        pv = []
        while not is_over(&p) and len(pv) < max_len:
            sigma = 1 if (p.turn & 1) == 0 else -1
            e = self._entry(&p, &info)
            tt_move = (-1, 0)
            if e != NULL:
                tt_move = (<int>e.card, e.capture)
            moves = sorted(legal_moves(p.hands[p.turn], p.table, self.S.opts), key=tt_move.__ne__)
            for c, m in moves:
                child = p
                apply_pos(&child, c, m, self.S.opts)
                node_info(&child, self.S.opts, &cinfo)
                g = sigma * (cinfo.B - info.B)
                need = g - target
                v = self._search(&child, &cinfo, need, need + 1)
                if self.S.aborted:
                    return pv
                if v <= need:
                    pv.append((c, m))
                    p = child
                    info = cinfo
                    target = need
                    break
            else:
                raise RuntimeError("principal variation lost: inconsistent transposition table")
        return pv

    def horizon(self, pos, opts, block, plies, node_limit=0, time_limit=0.0, stop=None,
                first=None):
        """The best move and its value by an alpha-beta ``plies`` plays deep (the move
        included) with the heuristic evaluation of the open terms at the horizon (as
        :meth:`analyze_depth`): ``(value, card, capture)``, the value in points (a float)
        for the team to move, exact where the hand ends within the horizon; ``None`` when
        the limits stopped it first. ``first``, a ``(card, capture)`` move, is searched
        first (the previous depth's choice, in iterative deepening). ``None`` for a
        position that is over.
        """
        cdef Pos p
        cdef Pos child
        cdef int n, i, v, best = -1000000, plies_c, fc = -1, base
        cdef uint64_t fm = 0
        cdef int best_card = -1
        cdef uint64_t best_cap = 0
        plies_c = int_arg(plies, "plies", 1, 1000)
        if first is not None:
            if not is_seq(first) or len(first) != 2:
                raise _checks.CoreError(f"bad first {_checks.short(first)}: expected a (card, capture) move or None")
            fc = int_arg(first[0], "card index", 0, 39)
            fm = mask_arg(first[1], "captured cards")
        self._begin(pos, opts, block, &p, node_limit, time_limit, stop)
        try:
            if is_over(&p):
                return None
            n = leaf_moves(&self.S, &p, 0)
            for i in range(n):
                if self.S.mcard[i] == fc and self.S.mcap[i] == fm:
                    self.S.mscore[i] = 1 << 20
            self.S.sp = n
            with nogil:
                for i in range(n):
                    select_best(&self.S, i)
                    child = p
                    apply_pos(&child, self.S.mcard[i], self.S.mcap[i], self.S.opts)
                    v = -horizon_search(&self.S, &child, plies_c - 1, -1000000, -best)
                    if self.S.aborted:
                        break
                    if v > best:
                        best = v
                        best_card = self.S.mcard[i]
                        best_cap = self.S.mcap[i]
            self.S.sp = 0
            if self.S.aborted:
                return None
            return (best / 100.0, best_card, best_cap)
        finally:
            self._end()

    def analyze_depth(self, pos, opts, block, plies, node_limit=0, time_limit=0.0, stop=None):
        """Every legal move's value from an alpha-beta ``plies`` plays deep (the move
        included) with a heuristic evaluation of the open terms at the horizon:
        ``[(card, capture, value), ...]``, values in points (floats) for the team to move.
        Exact where the hand ends within the horizon. ``None`` when the limits stopped it
        before every move was valued.
        """
        cdef Pos p
        cdef Pos child
        cdef int v, plies_c = int_arg(plies, "plies", 1, 1000)
        self._begin(pos, opts, block, &p, node_limit, time_limit, stop)
        try:
            out = []
            for c, m in legal_moves(p.hands[p.turn], p.table, self.S.opts):
                child = p
                apply_pos(&child, c, m, self.S.opts)
                with nogil:
                    v = -horizon_search(&self.S, &child, plies_c - 1, -1000000, 1000000)
                if self.S.aborted:
                    return None
                out.append((c, m, v / 100.0))
            return out
        finally:
            self._end()

    def analyze(self, pos, opts, block, node_limit=0, time_limit=0.0, stop=None):
        """Exact value of every legal move: ``[(card, capture, value), ...]``; ``None`` when
        the limits (as ``solve``'s) stopped it before every move was valued."""
        cdef Pos p
        cdef Pos child
        cdef Info info
        cdef Info cinfo
        cdef int sigma, lo, hi
        self._begin(pos, opts, block, &p, node_limit, time_limit, stop)
        try:
            sigma = 1 if (p.turn & 1) == 0 else -1
            node_info(&p, self.S.opts, &info)
            out = []
            for c, m in legal_moves(p.hands[p.turn], p.table, self.S.opts):
                child = p
                apply_pos(&child, c, m, self.S.opts)
                if is_over(&child):
                    out.append((c, m, sigma * final_difference_c(&child, self.S.opts)))
                    continue
                node_info(&child, self.S.opts, &cinfo)
                lo, hi = (cinfo.lo, cinfo.hi) if sigma == -1 else (-cinfo.hi, -cinfo.lo)
                # the previous move's value is the first guess: siblings' values are close
                self.S.root_depth = plays_left(&child)
                lo, hi, _, _ = self._mtdf(&child, &cinfo, lo, hi,
                                          sigma * cinfo.B - out[len(out) - 1][2] if out else 0)
                if self.S.aborted:   # (a signal handler's error is raised below)
                    return None
                out.append((c, m, sigma * cinfo.B - lo))
            return out
        finally:
            self._end()
