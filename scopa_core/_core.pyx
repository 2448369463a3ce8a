# cython: language_level=3
# Other directives (boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False)
# come from setup.py, which turns the checks back on for SCOPA_DEBUG=1 builds.
"""Compiled core of scopa: capture enumeration, moves, scoring and playouts on 40-bit masks.

Same API and same results as the pure-Python twin ``scopa_core._twin`` (the reference).
Cards are ints ``0..39`` (``suit * 10 + value - 1``, suits d, c, s, b); sets of cards
are masks. The ``cdef`` functions declared in ``_core.pxd`` run without the GIL.
"""

from libc.stdint cimport uint64_t
from libc.stdlib cimport malloc, free

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
# Python API (the same as scopa_core._twin)

def popcount(mask: int) -> int:
    """Number of cards in ``mask``."""
    return scopa_popcount(<uint64_t>mask)


def _popcount_portable(mask: int) -> int:
    """Number of cards in ``mask`` by the shift-and-add count that builds without POPCNT
    use (SCOPA_PORTABLE=1 or MSVC); for the tests, which check it against the others."""
    return scopa_popcount_swar(<uint64_t>mask)


def captures(int card, uint64_t table, int opts) -> list:
    """Every set of table cards that ``card`` may capture, as masks, in the core's order.

    An empty list means the card captures nothing and is laid down.
    """
    cdef uint64_t buf[MAX_CAPTURES]
    cdef int i, n
    if not 0 <= card < 40:
        raise ValueError(f"card index must be in 0..39, got {card}")
    n = gen_captures(card, table & C_FULL, opts, buf)
    return [buf[i] for i in range(n)]


def legal_moves(uint64_t hand, uint64_t table, int opts) -> list:
    """Legal moves ``(card, captured_mask)`` for a hand against a table; 0 = lay down."""
    cdef uint64_t buf[MAX_CAPTURES]
    cdef int c, i, n
    cdef uint64_t m = hand & C_FULL
    out = []
    table &= C_FULL
    while m:
        c = scopa_ctz(m)
        m &= m - 1
        n = gen_captures(c, table, opts, buf)
        if n == 0:
            out.append((c, 0))
        else:
            for i in range(n):
                out.append((c, buf[i]))
    return out


cdef void pos_from_tuple(Pos* p, int* stock_buf, tuple pos, int block) except *:
    """Fill ``p`` from a position tuple; its stock is copied into ``stock_buf`` (40 ints)."""
    hands, table, stock, captured, scope, turn, last = pos
    cdef int i
    p.nplayers = len(hands)
    if p.nplayers not in (2, 4) or len(stock) > 40 or not (0 <= turn < p.nplayers and -1 <= last <= 1):
        raise ValueError(f"bad position tuple {pos!r}: expected 2 or 4 hands, at most 40 stock cards, "
                         "a seat to move among the hands and a last capturer -1, 0 or 1")
    for i in range(4):
        p.hands[i] = hands[i] if i < p.nplayers else 0
    p.table = table
    p.stock_len = len(stock)
    p.stock_pos = 0
    for i in range(p.stock_len):
        stock_buf[i] = stock[i]
    p.stock = stock_buf
    p.captured[0] = captured[0]
    p.captured[1] = captured[1]
    p.scope[0] = scope[0]
    p.scope[1] = scope[1]
    p.turn = turn
    p.last = last
    p.block = block


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


def apply_move(tuple pos, int card, uint64_t capture, int opts, int block) -> tuple:
    """Play ``card`` capturing ``capture`` (0 = lay down) and return the next position.

    ``pos`` is ``(hands, table, stock, captured, scope, turn, last_capture)``; see the
    twin's docstring. The move is not checked: the caller validates it.
    """
    cdef Pos p
    cdef int stock[40]
    pos_from_tuple(&p, stock, pos, block)
    apply_pos(&p, card, capture, opts)
    return pos_to_tuple(&p)


def primiera(uint64_t mask, int opts) -> int:
    """Primiera total of a pile, or -1 when a suit is missing and all suits are required."""
    return primiera_c(mask, opts)


def score(uint64_t cap0, uint64_t cap1, int scope0, int scope1, int opts) -> tuple:
    """Points per category: ``((carte, denari, ..., napola) of team 0, same of team 1)``."""
    cdef int out[2 * C_NCAT]
    cdef int i
    score_c(cap0, cap1, scope0, scope1, opts, out)
    return (tuple([out[i] for i in range(C_NCAT)]),
            tuple([out[C_NCAT + i] for i in range(C_NCAT)]))


def shuffle(uint64_t seed) -> list:
    """The 40 cards in the order the core's generator shuffles them for ``seed``."""
    cdef int deck[40]
    cdef uint64_t rng = seed
    shuffle_c(&rng, deck)
    return [deck[i] for i in range(40)]


def _check_geometry(int nplayers, int hand_size, int table_size):
    if nplayers not in (2, 4) or hand_size < 1 or table_size < 0 or \
            nplayers * hand_size + table_size > 40 or \
            (40 - nplayers * hand_size - table_size) % (nplayers * hand_size):
        raise ValueError(
            f"bad deal geometry: {nplayers} players, {hand_size} cards each, "
            f"{table_size} on the table")


def deal(int nplayers, int hand_size, int table_size, int opts, uint64_t seed) -> tuple:
    """Deal a hand: ``(hands, table, stock)`` (see the twin's docstring)."""
    cdef Pos p
    cdef int deck[40]
    cdef uint64_t rng = seed
    _check_geometry(nplayers, hand_size, table_size)
    deal_c(&rng, &p, deck, nplayers, hand_size, table_size, opts)
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


cdef int choose_random(Pos* p, int opts, uint64_t* rng, Scratch* s) noexcept nogil:
    """Pick a uniformly random legal move (the twin's order); return its index into s.mcard/mcap."""
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
    return <int>(rng_next(rng) % <uint64_t>n)


cdef inline void play_out(Pos* p, int opts, uint64_t* rng, Scratch* s) noexcept nogil:
    """Random legal moves until the hand is over."""
    cdef int k
    while any_hand(p):
        k = choose_random(p, opts, rng, s)
        apply_pos(p, s.mcard[k], s.mcap[k], opts)


def playouts(int nplayers, int hand_size, int table_size, int opts, Py_ssize_t n, uint64_t seed):
    """Play ``n`` whole hands with uniformly random legal moves; seat 0 leads each hand.

    Returns ``(points, breakdown)``: int16 arrays of shape ``(n, 2)`` and ``(n, 2, NCAT)``.
    The loop runs in C without the GIL.
    """
    cdef Pos p
    cdef int deck[40]
    cdef uint64_t rng = seed
    cdef Py_ssize_t h
    cdef int i
    cdef int sc[2 * C_NCAT]
    cdef Scratch scratch
    import numpy as np   # imported on first use: plain solving and play never load it

    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    _check_geometry(nplayers, hand_size, table_size)
    breakdown = np.zeros((n, 2, C_NCAT), dtype=np.int16)
    cdef short[:, :, ::1] out = breakdown
    scratch_init(&scratch)
    with nogil:
        for h in range(n):
            deal_c(&rng, &p, deck, nplayers, hand_size, table_size, opts)
            play_out(&p, opts, &rng, &scratch)
            score_c(p.captured[0], p.captured[1], p.scope[0], p.scope[1], opts, sc)
            for i in range(C_NCAT):
                out[h, 0, i] = sc[i]
                out[h, 1, i] = sc[C_NCAT + i]
    scratch_free(&scratch)
    return breakdown.sum(axis=2, dtype=np.int16), breakdown


def rollouts(tuple pos, int opts, int block, Py_ssize_t n, uint64_t seed) -> list:
    """Finish the hand from ``pos`` ``n`` times with uniformly random legal moves.

    Returns each finish's final score difference (team 0 minus team 1), in C without
    the GIL; the twin gives the same numbers for the same seed.
    """
    cdef Pos start, p
    cdef int stock[40]
    cdef uint64_t rng = seed
    cdef Py_ssize_t h
    cdef int sc[2 * C_NCAT]
    cdef int i, d
    cdef Scratch scratch
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    pos_from_tuple(&start, stock, pos, block)
    cdef int* diffs = <int*>malloc((n if n > 0 else 1) * sizeof(int))
    if diffs == NULL:
        raise MemoryError()
    scratch_init(&scratch)
    with nogil:
        for h in range(n):
            p = start
            play_out(&p, opts, &rng, &scratch)
            score_c(p.captured[0], p.captured[1], p.scope[0], p.scope[1], opts, sc)
            d = 0
            for i in range(C_NCAT):
                d += sc[i] - sc[C_NCAT + i]
            diffs[h] = d
    scratch_free(&scratch)
    out = [diffs[h] for h in range(n)]
    free(diffs)
    return out


include "_solver.pxi"
