# cython: language_level=3
# Other directives (boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False)
# come from setup.py, which turns the checks back on for SCOPA_DEBUG=1 builds.
"""Compiled core of scopa: capture enumeration, moves, scoring and playouts on 40-bit masks.

Same API and same results as the pure-Python twin ``scopa_core._twin`` (the reference).
Cards are ints ``0..39`` (``suit * 10 + value - 1``, suits d, c, s, b); sets of cards
are masks. The ``cdef`` functions declared in ``_core.pxd`` run without the GIL.
"""

cimport cython
from libc.stdint cimport uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memset
from cpython.pythread cimport (
    PyThread_acquire_lock,
    PyThread_allocate_lock,
    PyThread_free_lock,
    PyThread_get_thread_ident,
    PyThread_release_lock,
    PyThread_start_new_thread,
    PyThread_type_lock,
    WAIT_LOCK,
)
import threading

from scopa_core import _checks

cdef extern from "Python.h":
    int PyErr_CheckSignals()
    void PyErr_Fetch(PyObject** ptype, PyObject** pvalue, PyObject** ptb)
    void PyErr_Restore(PyObject* ptype, PyObject* pvalue, PyObject* ptb)

if not scopa_cpu_supported():
    # before any code that may count bits: a build for x86-64 CPUs with POPCNT (every
    # x86-64 CPU since 2008-2009, the x86-64-v2 level) would stop on an illegal instruction
    raise ImportError(
        "scopa_core._core was built for x86-64 CPUs with the POPCNT instruction (x86-64-v2) "
        "and this CPU has none: rebuild it with SCOPA_PORTABLE=1 (for example "
        "SCOPA_PORTABLE=1 pip install --no-binary scopa scopa), or set SCOPA_NO_EXTENSIONS=1"
    )

#: True when this build counts bits with the CPU's POPCNT instruction (see setup.py).
HARDWARE_POPCOUNT = SCOPA_HW_POPCOUNT != 0

OPT_FEWEST = C_OPT_FEWEST
OPT_ACE_TAKES_ALL = C_OPT_ACE_TAKES_ALL
OPT_ACE_SWEEP_IS_SCOPA = C_OPT_ACE_SWEEP_IS_SCOPA
OPT_SCOPA_ON_LAST_PLAY = C_OPT_SCOPA_ON_LAST_PLAY
OPT_RE_BELLO = C_OPT_RE_BELLO
OPT_NAPOLA = C_OPT_NAPOLA
OPT_PRIMIERA_ALL_SUITS = C_OPT_PRIMIERA_ALL_SUITS
OPT_REDEAL_ON_KINGS = C_OPT_REDEAL_ON_KINGS

CATEGORIES = ("carte", "denari", "settebello", "primiera", "scope", "re_bello", "napola")
NCAT = C_NCAT

cdef uint64_t C_FULL = (<uint64_t>1 << 40) - 1
cdef uint64_t C_COINS = 1023
cdef uint64_t C_SETTEBELLO = <uint64_t>1 << 6
cdef uint64_t C_RE_BELLO = <uint64_t>1 << 9
cdef uint64_t C_ACES = 1 | (<uint64_t>1 << 10) | (<uint64_t>1 << 20) | (<uint64_t>1 << 30)
cdef uint64_t C_KINGS = C_ACES << 9
FULL = C_FULL
COINS = C_COINS
SETTEBELLO = C_SETTEBELLO
RE_BELLO = C_RE_BELLO
ACES = C_ACES
KINGS = C_KINGS

cdef int PRIM[10]
PRIM[:] = [16, 12, 13, 14, 15, 18, 21, 10, 10, 10]
PRIMIERA_VALUES = tuple(PRIM)

# rank_mask[v]: the four cards of capture value v (1..10).
cdef uint64_t rank_mask[11]
# suit_best[m]: best primiera value in a 10-bit suit mask (0 if empty).
cdef int suit_best[1024]
# below_mask[v]: the cards of capture value below v; suit_sum[m]: the capture values of
# a 10-bit suit mask added up.
cdef uint64_t below_mask[11]
cdef int suit_sum[1024]


cdef void _init_tables():
    cdef int v, m, i, best
    rank_mask[0] = 0
    below_mask[0] = 0
    for v in range(1, 11):
        rank_mask[v] = C_ACES << (v - 1)
        below_mask[v] = below_mask[v - 1] | rank_mask[v - 1]
    for m in range(1024):
        suit_sum[m] = 0
        for i in range(10):
            if (m >> i) & 1:
                suit_sum[m] += i + 1
    for m in range(1024):
        best = 0
        for i in range(10):
            if (m >> i) & 1 and PRIM[i] > best:
                best = PRIM[i]
        suit_best[m] = best

_init_tables()
RANK_MASK = tuple(rank_mask[v] for v in range(11))


# ----------------------------------------------------------------------------------------
# Stopping long loops: a StopFlag another thread sets, a deadline, and Python's signal
# handlers (Ctrl-C), all read by watch_expired every few thousand nodes or hands.

cdef unsigned long MAIN_THREAD = <unsigned long>threading.main_thread().ident


cdef class StopFlag:
    """A flag that stops the core's searches that watch it, from any thread.

    ``set()`` it and every search given this flag returns at its next check (within a few
    thousand nodes) with what it has; ``clear()`` it to use it again. A copy is the flag itself
    (``copy.deepcopy`` of a :class:`~scopa.Limit` keeps its flag); a pickled one, in another
    process, is a new flag in the same state.

    >>> f = StopFlag()
    >>> f.is_set(), f.set(), f.is_set(), f
    (False, None, True, StopFlag(set=True))
    """

    cdef int word

    def __init__(self, set=False):
        _checks.check_flag(set, "set")
        scopa_flag_write(&self.word, 1 if set else 0)

    def set(self) -> None:
        """Ask the searches that watch this flag to stop."""
        scopa_flag_write(&self.word, 1)

    def clear(self) -> None:
        """Lower the flag."""
        scopa_flag_write(&self.word, 0)

    def is_set(self) -> bool:
        """Whether the flag is set."""
        return scopa_flag_read(&self.word) != 0

    def __repr__(self) -> str:
        return f"StopFlag(set={self.is_set()})"

    def __reduce__(self):
        return (_stop_flag, (self.is_set(),))

    def __copy__(self):
        return self  # (a copy that no one sets would stop nothing: a Limit deep-copied keeps its flag)

    def __deepcopy__(self, memo):
        return self


def _stop_flag(bint is_set):
    f = StopFlag()
    if is_set:
        f.set()
    return f


cdef bint signals_pending(Watch* w) noexcept with gil:
    """Run Python's pending signal handlers (the GIL taken): True when one raised, its
    exception then kept in ``w`` (and the error indicator cleared) for the caller to raise
    once its loop has unwound (:func:`raise_pending`)."""
    if PyErr_CheckSignals() == 0:
        return False
    PyErr_Fetch(&w.exc_type, &w.exc_value, &w.exc_tb)
    w.interrupted = True
    return True


cdef int zero_checking_signals(char* p, size_t size) except -1:
    """Zero ``size`` bytes at ``p`` a block of 32 MB at a time without the GIL (other threads
    run meanwhile: an event loop's thread was held up for seconds by the zeroing of a 1 GB
    table in another thread), running Python's signal handlers between blocks, so that
    Ctrl-C stops the zeroing of a table of gigabytes (the exception raised; the caller's
    deallocation frees the memory)."""
    cdef size_t block = <size_t>32 << 20
    cdef size_t done = 0
    while done < size:
        if size - done < block:
            block = size - done
        with nogil:
            memset(p + done, 0, block)
        done += block
        if done < size and PyErr_CheckSignals() != 0:
            return -1
    return 0


cdef int raise_pending(Watch* w) except -1:
    """Raise the exception a signal handler raised during the loop watched by ``w``."""
    PyErr_Restore(w.exc_type, w.exc_value, w.exc_tb)   # steals the references
    w.exc_type = w.exc_value = w.exc_tb = NULL
    w.interrupted = False
    return -1


cdef bint watch_expired(Watch* w) noexcept nogil:
    """Whether a loop watched by ``w`` must stop now: its flag is set, its deadline passed,
    or a signal handler raised (then ``w.interrupted``)."""
    if w.stop != NULL and scopa_flag_read(w.stop):
        return True
    if w.deadline > 0 and scopa_now() >= w.deadline:
        return True
    return w.signals and signals_pending(w)


cdef int watch_start(Watch* w, object time_limit, object stop) except -1:
    """Set up ``w`` for a call: ``time_limit`` seconds (0 for none), a StopFlag or None;
    signal handlers run only from the main thread (Python delivers signals there)."""
    cdef double t
    if stop is not None and not isinstance(stop, StopFlag):
        raise _checks.bad_stop(stop, StopFlag)
    t = _checks.check_seconds(time_limit)
    w.deadline = scopa_now() + t if t > 0 else 0.0
    w.stop = &(<StopFlag>stop).word if stop is not None else NULL
    w.signals = PyThread_get_thread_ident() == MAIN_THREAD
    w.interrupted = False
    w.exc_type = w.exc_value = w.exc_tb = NULL
    return 0


cdef inline uint64_t lowbit(uint64_t m) noexcept nogil:
    return m & (~m + 1)


cdef inline int singles(uint64_t m, uint64_t* out) noexcept nogil:
    """Write each card of ``m`` as a one-card capture; return how many."""
    cdef int n = 0
    while m:
        out[n] = lowbit(m)
        n += 1
        m &= m - 1
    return n


cdef void _dfs(const int* cands, int nc, int start, int total, uint64_t mask, int size,
               int v, uint64_t* out, int* n) noexcept nogil:
    cdef int j, c, t
    for j in range(start, nc):
        c = cands[j]
        t = total + c % 10 + 1
        if t == v:
            if size >= 1:
                out[n[0]] = mask | (<uint64_t>1 << c)
                n[0] += 1
        elif t < v:
            _dfs(cands, nc, j + 1, t, mask | (<uint64_t>1 << c), size + 1, v, out, n)


cdef int gen_captures(int card, uint64_t table, int opts, uint64_t* out) noexcept nogil:
    """Write the sets ``card`` may capture to ``out`` (room for MAX_CAPTURES); return how many."""
    cdef int v = card % 10 + 1
    cdef int n = 0, nc = 0, c, i, k, best
    cdef uint64_t m
    cdef int cands[40]
    if (opts & C_OPT_ACE_TAKES_ALL) and v == 1:
        if table & C_ACES:
            return singles(table & C_ACES, out)
        if table:
            out[0] = table
            return 1
        return 0
    if table & rank_mask[v]:
        return singles(table & rank_mask[v], out)
    m = table & below_mask[v]
    if (m & (m - 1)) == 0 or suit_sum[m & 1023] + suit_sum[(m >> 10) & 1023] \
            + suit_sum[(m >> 20) & 1023] + suit_sum[(m >> 30) & 1023] < v:
        return 0   # fewer than two smaller cards, or not enough value among them
    while m:
        c = scopa_ctz(m)
        m &= m - 1
        cands[nc] = c
        nc += 1
    _dfs(cands, nc, 0, 0, 0, 0, v, out, &n)
    if (opts & C_OPT_FEWEST) and n > 1:
        best = 40
        for i in range(n):
            c = scopa_popcount(out[i])
            if c < best:
                best = c
        k = 0
        for i in range(n):
            if scopa_popcount(out[i]) == best:
                out[k] = out[i]
                k += 1
        n = k
    return n


cdef inline int quick_captures(int card, uint64_t table, int opts, uint64_t* out) noexcept nogil:
    """The two commonest outcomes of :func:`gen_captures`, for the hot loops: a card of
    equal rank on the table, or fewer than two smaller cards. -1 when sets that add up
    must be enumerated (or for the ace under "ace takes all")."""
    cdef int v = card % 10 + 1
    cdef uint64_t m
    if v == 1 and (opts & C_OPT_ACE_TAKES_ALL):
        return -1
    if table & rank_mask[v]:
        return singles(table & rank_mask[v], out)
    m = table & below_mask[v]
    return 0 if (m & (m - 1)) == 0 else -1


cdef inline int captures_of(int card, uint64_t table, int opts, uint64_t* out) noexcept nogil:
    """:func:`gen_captures` with :func:`quick_captures`' cases inline."""
    cdef int n = quick_captures(card, table, opts, out)
    return n if n >= 0 else gen_captures(card, table, opts, out)


cdef inline bint any_hand(const Pos* p) noexcept nogil:
    return (p.hands[0] | p.hands[1] | p.hands[2] | p.hands[3]) != 0


cdef inline bint sweep_is_scopa(int card, uint64_t capture, bint last_play, int opts) noexcept nogil:
    """Whether ``card`` capturing ``capture`` and emptying the table scores a scopa
    (RULES §5: not on the hand's last play, nor by an ace taking all, unless the options say so)."""
    cdef bint ace_sweep = (opts & C_OPT_ACE_TAKES_ALL) and card % 10 == 0 and not (capture & C_ACES)
    return ((not last_play) or (opts & C_OPT_SCOPA_ON_LAST_PLAY)) and (
        (not ace_sweep) or (opts & C_OPT_ACE_SWEEP_IS_SCOPA))


cdef inline void play_on(Pos* p, int card, uint64_t capture, int opts, bint last_play) noexcept nogil:
    """Play ``card`` capturing ``capture`` (0 = lay down) and pass the turn, without
    refilling or closing the hand: all of :func:`apply_pos` when ``last_play`` is False and
    cards stay in the hands (the solver's leaf search calls it so)."""
    cdef uint64_t bit = <uint64_t>1 << card
    cdef int team = p.turn & 1
    p.hands[p.turn] &= ~bit
    if capture:
        p.table &= ~capture
        p.captured[team] |= capture | bit
        p.last = team
        if p.table == 0 and sweep_is_scopa(card, capture, last_play, opts):
            p.scope[team] += 1
    else:
        p.table |= bit
    p.turn += 1
    if p.turn == p.nplayers:
        p.turn = 0


cdef void apply_pos(Pos* p, int card, uint64_t capture, int opts) noexcept nogil:
    """Play ``card`` capturing ``capture`` (0 = lay down); refill and close the hand as needed."""
    cdef int k, j, seat
    cdef uint64_t m
    play_on(p, card, capture, opts, p.stock_pos >= p.stock_len
            and ((p.hands[0] | p.hands[1] | p.hands[2] | p.hands[3]) & ~(<uint64_t>1 << card)) == 0)
    if not any_hand(p):
        if p.stock_pos < p.stock_len:
            for k in range(p.nplayers):
                seat = (p.turn + k) % p.nplayers
                m = 0
                for j in range(p.block):
                    m |= <uint64_t>1 << p.stock[p.stock_pos]
                    p.stock_pos += 1
                p.hands[seat] = m
        elif p.table and p.last >= 0:
            p.captured[p.last] |= p.table
            p.table = 0


cdef int primiera_c(uint64_t mask, int opts) noexcept nogil:
    cdef int s, best, total = 0
    for s in range(4):
        best = suit_best[(mask >> (10 * s)) & C_COINS]
        if best == 0 and (opts & C_OPT_PRIMIERA_ALL_SUITS):
            return -1
        total += best
    return total


cdef inline int napola_c(uint64_t mask) noexcept nogil:
    cdef int run = 0
    while run < 10 and (mask >> run) & 1:
        run += 1
    return run if run >= 3 else 0


cdef void score_c(uint64_t cap0, uint64_t cap1, int scope0, int scope1, int opts,
                  int* out) noexcept nogil:
    """Points per category into ``out[0:NCAT]`` (team 0) and ``out[NCAT:2*NCAT]`` (team 1)."""
    cdef int i, a, b
    for i in range(2 * C_NCAT):
        out[i] = 0
    a = scopa_popcount(cap0)
    b = scopa_popcount(cap1)
    if a != b:
        out[0 if a > b else C_NCAT] = 1
    a = scopa_popcount(cap0 & C_COINS)
    b = scopa_popcount(cap1 & C_COINS)
    if a != b:
        out[1 if a > b else C_NCAT + 1] = 1
    if cap0 & C_SETTEBELLO:
        out[2] = 1
    elif cap1 & C_SETTEBELLO:
        out[C_NCAT + 2] = 1
    a = primiera_c(cap0, opts)
    b = primiera_c(cap1, opts)
    if a != b:
        out[3 if a > b else C_NCAT + 3] = 1
    out[4] = scope0
    out[C_NCAT + 4] = scope1
    if opts & C_OPT_RE_BELLO:
        if cap0 & C_RE_BELLO:
            out[5] = 1
        elif cap1 & C_RE_BELLO:
            out[C_NCAT + 5] = 1
    if opts & C_OPT_NAPOLA:
        out[6] = napola_c(cap0)
        out[C_NCAT + 6] = napola_c(cap1)


cdef uint64_t rng_next(uint64_t* state) noexcept nogil:
    """splitmix64."""
    cdef uint64_t z
    state[0] += 0x9E3779B97F4A7C15ULL
    z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef void shuffle_c(uint64_t* rng, int* deck) noexcept nogil:
    cdef int i, j, t
    for i in range(40):
        deck[i] = i
    for i in range(39, 0, -1):
        j = <int>(rng_next(rng) % <uint64_t>(i + 1))
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t


cdef void deal_c(uint64_t* rng, Pos* p, int* deck, int nplayers, int hand_size, int table_size,
                 int opts) noexcept nogil:
    """Deal a fresh hand into ``p`` from a shuffle into ``deck`` (40 ints, which then holds
    the stock); seat 0 to move, no captures yet."""
    cdef int i, j, k = nplayers * hand_size
    cdef uint64_t m
    while True:
        shuffle_c(rng, deck)
        m = 0
        for i in range(k, k + table_size):
            m |= <uint64_t>1 << deck[i]
        if not ((opts & C_OPT_REDEAL_ON_KINGS) and scopa_popcount(m & C_KINGS) >= 3):
            break
    p.table = m
    for i in range(4):
        p.hands[i] = 0
    for i in range(nplayers):
        m = 0
        for j in range(i * hand_size, (i + 1) * hand_size):
            m |= <uint64_t>1 << deck[j]
        p.hands[i] = m
    p.stock = deck
    p.stock_pos = k + table_size
    p.stock_len = 40
    p.captured[0] = 0
    p.captured[1] = 0
    p.scope[0] = 0
    p.scope[1] = 0
    p.turn = 0
    p.last = -1
    p.nplayers = nplayers
    p.block = hand_size


# ----------------------------------------------------------------------------------------
# Python API (the same as scopa_core._twin). Every function checks its arguments first
# (scopa_core._checks words the errors, the same for both cores); the cdef functions
# above trust theirs.

cdef object MASK_LIMIT = 1 << 40
cdef object SEED_LIMIT = 1 << 64


cdef inline bint is_int_in(object x, object lo, object hi):
    """Whether ``x`` is an int (not a bool, nor another int type) with ``lo <= x < hi``."""
    return type(x) is int and lo <= x < hi


cdef inline uint64_t mask_arg(object x, str what) except? 0xFFFFFFFFFFFFFFFF:
    if not is_int_in(x, 0, MASK_LIMIT):
        _checks.check_mask(x, what)
    return <uint64_t>x


cdef inline int int_arg(object x, str what, int lo, int hi) except? -99999:
    if not is_int_in(x, lo, hi + 1):
        _checks.check_int(x, what, lo, hi)
    return <int>x


cdef inline uint64_t word_arg(object x, str what) except? 0:
    if not is_int_in(x, 0, SEED_LIMIT):
        _checks.check_word(x, what)
    return <uint64_t>x


def popcount(mask) -> int:
    """Number of cards in ``mask`` (any 64-bit word)."""
    return scopa_popcount(word_arg(mask, "mask"))


def _popcount_portable(mask) -> int:
    """Number of cards in ``mask`` by the shift-and-add count that builds without POPCNT
    use (SCOPA_PORTABLE=1 or MSVC); for the tests, which check it against the others."""
    return scopa_popcount_swar(word_arg(mask, "mask"))


def captures(card, table, opts) -> list:
    """Every set of table cards that ``card`` may capture, as masks, in the core's order.

    An empty list means the card captures nothing and is laid down.
    """
    cdef uint64_t buf[MAX_CAPTURES]
    cdef int i, n
    cdef int c = int_arg(card, "card index", 0, 39)
    cdef uint64_t t = mask_arg(table, "table")
    if (t >> c) & 1:
        _checks.check_off_table(c, t)
    cdef int o = int_arg(opts, "rule options", 0, 255)
    n = gen_captures(c, t, o, buf)
    return [buf[i] for i in range(n)]


def legal_moves(hand, table, opts) -> list:
    """Legal moves ``(card, captured_mask)`` for a hand against a table; 0 = lay down."""
    cdef uint64_t buf[MAX_CAPTURES]
    cdef int c, i, n
    cdef uint64_t m = mask_arg(hand, "hand")
    cdef uint64_t t = mask_arg(table, "table")
    if m & t:
        _checks.check_apart(m, "hand", t, "table")
    cdef int o = int_arg(opts, "rule options", 0, 255)
    out = []
    while m:
        c = scopa_ctz(m)
        m &= m - 1
        n = gen_captures(c, t, o, buf)
        if n == 0:
            out.append((c, 0))
        else:
            for i in range(n):
                out.append((c, buf[i]))
    return out


cdef bint is_seq(object x):
    return type(x) is tuple or type(x) is list


cdef bint fill_pos(Pos* p, int* stock_buf, object pos, object block) except -1:
    """Fill ``p`` from a position tuple when it has the shape and ranges of
    ``_checks.check_tuple`` (its stock copied into ``stock_buf``, 40 ints); False otherwise."""
    cdef int i, n, b
    if not is_seq(pos) or len(pos) != 7:
        return False
    hands, table, stock, captured, scope, turn, last = pos
    if not is_seq(hands) or not is_seq(stock) or not is_seq(captured) or not is_seq(scope):
        return False
    n = len(hands)
    if (n != 2 and n != 4) or len(stock) > 40 or len(captured) != 2 or len(scope) != 2:
        return False
    for i in range(n):
        if not is_int_in(hands[i], 0, MASK_LIMIT):
            return False
        p.hands[i] = hands[i]
    for i in range(n, 4):
        p.hands[i] = 0
    if not is_int_in(table, 0, MASK_LIMIT):
        return False
    p.table = table
    for i in range(len(stock)):
        if not is_int_in(stock[i], 0, 40):
            return False
        stock_buf[i] = stock[i]
    for i in range(2):
        if not is_int_in(captured[i], 0, MASK_LIMIT) or not is_int_in(scope[i], 0, _checks.MAX_SCOPE + 1):
            return False
        p.captured[i] = captured[i]
        p.scope[i] = scope[i]
    if not is_int_in(turn, 0, n) or not is_int_in(last, -1, 2) or not is_int_in(block, 1, 11):
        return False
    b = block
    if len(stock) % (n * b):
        return False
    p.nplayers = n
    p.turn = turn
    p.last = last
    p.block = b
    p.stock_len = len(stock)
    p.stock_pos = 0
    p.stock = stock_buf
    return True


cdef int pos_from_tuple(Pos* p, int* stock_buf, object pos, object block) except -1:
    """Fill ``p`` from a position tuple (see the twin's ``apply_move``), or raise CoreError
    as ``_checks.check_tuple`` words it."""
    if not fill_pos(p, stock_buf, pos, block):
        _checks.check_tuple(pos, block)
        raise _checks.CoreError(f"bad position tuple {_checks.short(pos)}")   # not reached: the check raises
    return 0


cdef tuple pos_to_tuple(const Pos* p):
    cdef int i
    return (
        tuple([p.hands[i] for i in range(p.nplayers)]),
        p.table,
        tuple([p.stock[i] for i in range(p.stock_pos, p.stock_len)]),
        (p.captured[0], p.captured[1]),
        (p.scope[0], p.scope[1]),
        p.turn,
        p.last,
    )


def apply_move(pos, card, capture, opts, block) -> tuple:
    """Play ``card`` capturing ``capture`` (0 = lay down) and return the next position.

    ``pos`` is ``(hands, table, stock, captured, scope, turn, last_capture)``; see the
    twin's docstring. The arguments' shapes and ranges are checked, and that the card is in
    the mover's hand and the captured cards on the table; that the rules allow the capture
    is not: the caller validates it.
    """
    cdef Pos p
    cdef int stock[40]
    cdef int c = int_arg(card, "card index", 0, 39)
    cdef uint64_t m = mask_arg(capture, "captured cards")
    cdef int o = int_arg(opts, "rule options", 0, 255)
    pos_from_tuple(&p, stock, pos, block)
    if not (p.hands[p.turn] >> c) & 1 or m & ~p.table:
        _checks.check_move_cards(p.hands[p.turn], p.table, c, m, p.turn)
    apply_pos(&p, c, m, o)
    if p.scope[0] > _checks.MAX_SCOPE or p.scope[1] > _checks.MAX_SCOPE:
        raise _checks.CoreError(f"bad position tuple {_checks.short(pos)}: a scopa now would pass "
                         f"{_checks.MAX_SCOPE} scope")
    return pos_to_tuple(&p)


def primiera(mask, opts) -> int:
    """Primiera total of a pile, or -1 when a suit is missing and all suits are required."""
    return primiera_c(mask_arg(mask, "card mask"), int_arg(opts, "rule options", 0, 255))


def score(cap0, cap1, scope0, scope1, opts) -> tuple:
    """Points per category: ``((carte, denari, ..., napola) of team 0, same of team 1)``."""
    cdef int out[2 * C_NCAT]
    cdef int i
    cdef uint64_t p0 = mask_arg(cap0, "team 0's pile"), p1 = mask_arg(cap1, "team 1's pile")
    if p0 & p1:
        _checks.check_apart(p0, "team 0's pile", p1, "team 1's pile")
    score_c(p0, p1,
            int_arg(scope0, "scope", 0, _checks.MAX_SCOPE), int_arg(scope1, "scope", 0, _checks.MAX_SCOPE),
            int_arg(opts, "rule options", 0, 255), out)
    return (tuple([out[i] for i in range(C_NCAT)]),
            tuple([out[C_NCAT + i] for i in range(C_NCAT)]))


cdef uint64_t seed_arg(object seed) except? 0:
    return word_arg(seed, "seed")


def shuffle(seed) -> list:
    """The 40 cards in the order the core's generator shuffles them for ``seed``."""
    cdef int deck[40]
    cdef uint64_t rng = seed_arg(seed)
    shuffle_c(&rng, deck)
    return [deck[i] for i in range(40)]


def deal(nplayers, hand_size, table_size, opts, seed) -> tuple:
    """Deal a hand: ``(hands, table, stock)`` (see the twin's docstring)."""
    cdef Pos p
    cdef int deck[40]
    _checks.check_geometry(nplayers, hand_size, table_size)
    cdef int o = int_arg(opts, "rule options", 0, 255)
    cdef uint64_t rng = seed_arg(seed)
    deal_c(&rng, &p, deck, nplayers, hand_size, table_size, o)
    t = pos_to_tuple(&p)
    return t[0], t[1], t[2]


ctypedef struct Scratch:
    uint64_t* caps      # capture sets per rank of the hand
    uint64_t* mcap      # the moves: captured masks ...
    int* mcard          # ... and cards
    int cap_start[11]
    int cap_count[11]


cdef int scratch_init(Scratch* s) except -1:
    s.caps = <uint64_t*>malloc(10 * MAX_CAPTURES * sizeof(uint64_t))
    s.mcap = <uint64_t*>malloc(10 * MAX_CAPTURES * sizeof(uint64_t))
    s.mcard = <int*>malloc(10 * MAX_CAPTURES * sizeof(int))
    if s.caps == NULL or s.mcap == NULL or s.mcard == NULL:
        scratch_free(s)
        raise MemoryError()
    return 0


cdef void scratch_free(Scratch* s) noexcept nogil:
    free(s.caps)
    free(s.mcap)
    free(s.mcard)
    s.caps = NULL
    s.mcap = NULL
    s.mcard = NULL


cdef int list_moves(Pos* p, int opts, Scratch* s) noexcept nogil:
    """The legal moves into s.mcard/mcap (the twin's order); return their number."""
    cdef uint64_t m = p.hands[p.turn]
    cdef int v, c, i, n = 0, used = 0
    for v in range(11):
        s.cap_count[v] = -1
    while m:
        c = scopa_ctz(m)
        m &= m - 1
        v = c % 10 + 1
        if s.cap_count[v] < 0:
            s.cap_start[v] = used
            s.cap_count[v] = captures_of(c, p.table, opts, s.caps + used)
            used += s.cap_count[v]
        if s.cap_count[v] == 0:
            s.mcard[n] = c
            s.mcap[n] = 0
            n += 1
        else:
            for i in range(s.cap_count[v]):
                s.mcard[n] = c
                s.mcap[n] = s.caps[s.cap_start[v] + i]
                n += 1
    return n


cdef int choose_random(Pos* p, int opts, uint64_t* rng, Scratch* s) noexcept nogil:
    """Pick a uniformly random legal move; return its index into s.mcard/mcap."""
    cdef int n = list_moves(p, opts, s)
    return <int>(rng_next(rng) % <uint64_t>n)


cdef inline int heuristic_score(const Pos* p, int c, uint64_t cap, int opts) noexcept nogil:
    """The heuristic playouts' value of a move (the twin's ``_heuristic_score``): a capture
    by the cards, coins, sevens and settebello it takes (the re bello as the settebello, and
    napola's ace, two and three of coins 30 each, when the options score them), most for a
    sweep that scores (not an ace taking all, unless ``ace_sweep_is_scopa``); a lay-down by
    what it offers (sevens, settebello, a coin)."""
    cdef uint64_t card = <uint64_t>1 << c
    cdef uint64_t taken
    cdef uint64_t prize = C_SETTEBELLO | (C_RE_BELLO if opts & C_OPT_RE_BELLO else 0)
    cdef int v
    if cap == 0:
        v = 0
        if card & prize:
            v -= 60
        elif card & rank_mask[7]:
            v -= 20
        if card & C_COINS:
            v -= 5
        return v
    taken = cap | card
    v = (100 + 10 * scopa_popcount(taken) + 8 * scopa_popcount(taken & C_COINS)
         + 15 * scopa_popcount(taken & rank_mask[7]))
    v += 60 * scopa_popcount(taken & prize)
    if opts & C_OPT_NAPOLA:
        v += 30 * scopa_popcount(taken & 7)
    if cap == p.table and not (
        opts & C_OPT_ACE_TAKES_ALL and c % 10 == 0 and not (p.table & C_ACES)
        and not (opts & C_OPT_ACE_SWEEP_IS_SCOPA)
    ):
        v += 300
    return v


cdef int choose_heuristic(Pos* p, int opts, uint64_t* rng, Scratch* s) noexcept nogil:
    """One draw: a quarter of the time a uniformly random legal move, otherwise the first of
    the best by :func:`heuristic_score`; return its index into s.mcard/mcap."""
    cdef int n = list_moves(p, opts, s)
    cdef uint64_t r = rng_next(rng)
    cdef int i, k = 0, v, best
    if (r >> 32) % 4 == 0:
        return <int>(r % <uint64_t>n)
    best = heuristic_score(p, s.mcard[0], s.mcap[0], opts)
    for i in range(1, n):
        v = heuristic_score(p, s.mcard[i], s.mcap[i], opts)
        if v > best:
            best = v
            k = i
    return k


cdef inline void play_out(Pos* p, int opts, uint64_t* rng, Scratch* s, int policy) noexcept nogil:
    """Legal moves until the hand is over: uniformly random (policy 0) or heuristic (1)."""
    cdef int k
    while any_hand(p):
        if policy == 1:
            k = choose_heuristic(p, opts, rng, s)
        else:
            k = choose_random(p, opts, rng, s)
        apply_pos(p, s.mcard[k], s.mcap[k], opts)


DEF SIGNAL_HANDS = 1024   # hands between two checks of Python's signal handlers in playouts and rollouts


def playouts(nplayers, hand_size, table_size, opts, n, seed):
    """Play ``n`` whole hands with uniformly random legal moves; seat 0 leads each hand.

    Returns ``(points, breakdown)``: int16 arrays of shape ``(n, 2)`` and ``(n, 2, NCAT)``.
    The loop runs in C without the GIL; from the main thread it runs Python's signal
    handlers every 1024 hands, so Ctrl-C stops it.
    """
    cdef Pos p
    cdef int deck[40]
    cdef Py_ssize_t h, count
    cdef int i, nplay, hs, ts, o
    cdef int sc[2 * C_NCAT]
    cdef Scratch scratch
    cdef Watch watch
    import numpy as np   # imported on first use: plain solving and play never load it

    _checks.check_geometry(nplayers, hand_size, table_size)
    o = int_arg(opts, "rule options", 0, 255)
    count = _checks.check_count(n)
    cdef uint64_t rng = seed_arg(seed)
    nplay, hs, ts = nplayers, hand_size, table_size
    breakdown = np.zeros((count, 2, C_NCAT), dtype=np.int16)
    cdef short[:, :, ::1] out = breakdown
    watch_start(&watch, 0, None)
    scratch_init(&scratch)
    with nogil:
        for h in range(count):
            if h % SIGNAL_HANDS == SIGNAL_HANDS - 1 and watch.signals and watch_expired(&watch):
                break
            deal_c(&rng, &p, deck, nplay, hs, ts, o)
            play_out(&p, o, &rng, &scratch, 0)
            score_c(p.captured[0], p.captured[1], p.scope[0], p.scope[1], o, sc)
            for i in range(C_NCAT):
                out[h, 0, i] = sc[i]
                out[h, 1, i] = sc[C_NCAT + i]
    scratch_free(&scratch)
    if watch.interrupted:
        raise_pending(&watch)
    return breakdown.sum(axis=2, dtype=np.int16), breakdown


def rollouts(pos, opts, block, n, seed, policy=0) -> list:
    """Finish the hand from ``pos`` ``n`` times with uniformly random legal moves
    (``policy`` 0) or heuristic ones (1: a quarter of the moves at random, the others the
    best by a fixed score that favours sweeps, captures of many cards, coins, sevens and
    settebello, and does not lay those down).

    Returns each finish's final score difference (team 0 minus team 1), in C without
    the GIL; the twin gives the same numbers for the same seed. ``pos`` must be playable
    (``_checks.check_playable``). From the main thread Ctrl-C stops it (as ``playouts``).
    """
    cdef Pos start, p
    cdef int stock[40]
    cdef Py_ssize_t h, count
    cdef int sc[2 * C_NCAT]
    cdef int i, d, o
    cdef Scratch scratch
    cdef Watch watch
    o = int_arg(opts, "rule options", 0, 255)
    pos_from_tuple(&start, stock, pos, block)
    count = _checks.check_count(n)
    cdef uint64_t rng = seed_arg(seed)
    cdef int pol = _checks.check_policy(policy)
    if not playable(&start):
        _checks.check_playable(pos)
    cdef int* diffs = <int*>malloc((count if count > 0 else 1) * sizeof(int))
    if diffs == NULL:
        raise MemoryError(f"cannot allocate the results of {count} rollouts")
    watch_start(&watch, 0, None)
    scratch_init(&scratch)
    with nogil:
        for h in range(count):
            if h % SIGNAL_HANDS == SIGNAL_HANDS - 1 and watch.signals and watch_expired(&watch):
                break
            p = start
            play_out(&p, o, &rng, &scratch, pol)
            score_c(p.captured[0], p.captured[1], p.scope[0], p.scope[1], o, sc)
            d = 0
            for i in range(C_NCAT):
                d += sc[i] - sc[C_NCAT + i]
            diffs[h] = d
    scratch_free(&scratch)
    if watch.interrupted:
        free(diffs)
        raise_pending(&watch)
    out = [diffs[h] for h in range(count)]
    free(diffs)
    return out


cdef bint playable(const Pos* p) noexcept nogil:
    """Whether ``p`` can be played on (as ``_checks.check_playable``): every card in one
    place only, and hand sizes a round leaves."""
    cdef uint64_t seen = 0, m
    cdef int i, k, size, prev
    for i in range(p.nplayers + 3 + p.stock_len):
        if i < p.nplayers:
            m = p.hands[i]
        elif i == p.nplayers:
            m = p.table
        elif i <= p.nplayers + 2:
            m = p.captured[i - p.nplayers - 1]
        else:
            m = <uint64_t>1 << p.stock[i - p.nplayers - 3]
        if m & seen:
            return False
        seen |= m
    if any_hand(p):
        k = scopa_popcount(p.hands[p.turn])
        prev = k
        for i in range(p.nplayers):
            size = scopa_popcount(p.hands[(p.turn + i) % p.nplayers])
            if k == 0 or size > prev or size < k - 1:
                return False
            prev = size
        return True
    return p.stock_len == 0


include "_solver.pxi"
