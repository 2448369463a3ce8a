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

from libc.string cimport memset

cdef enum:
    MOVE_STACK = 48 * 10 * MAX_CAPTURES
    NO_BOUND = 127
    ETC_MAX = 32          # children whose keys the enhanced transposition cutoffs make and prefetch at once
    NO_GAIN = -100000

ctypedef struct Info:
    int B          # banked difference, team 0 minus team 1
    int lo         # range of the open value W (team 0's side)
    int hi
    uint64_t sig_a # summary of undecided terms + seat to move, last capturer, stock length
    uint64_t sig_b # primiera bests per suit and team while primiera is open

ctypedef struct Key:
    uint64_t m[5]      # canonical hands of seats 0..3 and table
    uint64_t w[2]      # the same packed: bit planes of each card's place (see make_key)
    uint64_t sig_a
    uint64_t sig_b
    uint64_t h         # hash of all of the above

ctypedef struct TTEntry:
    # 64 bytes: a bucket of two entries fills two adjacent cache lines
    uint64_t w[2]      # Key.w
    uint64_t sig_a
    uint64_t sig_b
    uint64_t capture   # best move: captured mask
    signed char lower
    signed char upper
    signed char card   # best move: card, -1 for none
    unsigned char depth
    unsigned short epoch   # valid only when equal to SState.epoch (clearing bumps the epoch)
    char _pad[18]

ctypedef struct CapEntry:
    uint64_t key       # smaller table cards | value << 40 | fewest rule << 44 | 1 << 63; 0 empty
    int n
    uint64_t caps[7]

ctypedef struct LeafEntry:
    # 32 bytes, two to a cache line
    uint64_t k0        # exact key of a position without stock (see leaf_search)
    uint64_t k1
    uint64_t capture   # best move: captured mask
    unsigned int k2    # bits 0-18: the rest of the key; 19-24: best move's card + 1; 25-30: plays left
    unsigned short epoch
    signed char lower  # bounds on team 0's final difference minus the position's scope difference
    signed char upper

ctypedef struct SState:
    TTEntry* tt
    uint64_t tt_mask      # number of buckets - 1 (2 entries per bucket)
    unsigned short epoch  # entries of other epochs are empty
    int opts
    int nplayers
    int block
    long long nodes
    long long main_nodes  # nodes of the main search (the rest are leaf_search nodes)
    long long node_limit
    long long next_check  # nodes at which poll() looks at the limits next
    Watch watch           # deadline, stop flag and signal handlers (see poll)
    int root_depth        # plays left at the root of the current search (no other node has as many)
    int root_card         # the root's best move in the last search() of it (-1 for none)
    uint64_t root_cap
    long long probes
    long long hits
    bint aborted
    int leaf_depth        # leaf_search takes over below this many plays left
    int etc_depth         # plays left from which enhanced transposition cutoffs are tried
    int iid_depth         # plays left from which moves with no table move are ordered by a shallow search
    int iid_plies
    int guess_plies       # depth of the horizon search that gives MTD(f) its first guess (0: guess 0)
    int guess_min         # plays left from which solve() asks that search for a guess
    uint64_t leaf_neutral # neutral cards at the leaf search's root: they stay neutral below it
    int hist[160]        # history: cutoffs by card and move class (see move_class)
    CapEntry* capcache    # 2**CAP_CACHE_BITS remembered sums (see solver_captures)
    LeafEntry* leaftt     # 2 * 2**LEAF_TT_BITS bounds of leaf-search positions (buckets of two)
    int lt_min
    int lt_max
    long long lt_hits
    # move stack shared by all plies
    uint64_t* mcap
    signed char* mcard
    int* mscore
    int sp

cdef extern from "table_alloc.h":
    void* scopa_table_alloc(size_t size) nogil
    void scopa_table_free(void* p) nogil

DEF CAP_CACHE_BITS = 14
DEF LEAF_TT_BITS = 14
DEF LEAF_KEY_BITS = 0x7FFFF
cdef size_t LEAF_TT_BYTES = 2 * (1 << LEAF_TT_BITS) * sizeof(LeafEntry)   # buckets of two
cdef int PRIM_CODE[22]
# SUM_SETS[v][0:SUM_SETS_N[v]]: the sets of two or more distinct ranks below v that add up
# to v, as rank masks (bit r - 1 for rank r), smaller sets first (at most 9, for v = 10)
cdef unsigned short SUM_SETS[11][9]
cdef int SUM_SETS_N[11]
cdef int PRIM_ABOVE[22]   # PRIM_ABOVE[b]: the ranks (a 10-bit mask) whose primiera value is above b


cdef void _init_solver_tables():
    cdef int i, r, v, size, total, n
    for v in range(11):
        SUM_SETS_N[v] = 0
        for size in range(2, 5):
            for i in range(1 << 9):
                if scopa_popcount(i) != size:
                    continue
                total = 0
                for r in range(9):
                    if (i >> r) & 1:
                        total += r + 1
                if total == v:
                    n = SUM_SETS_N[v]
                    SUM_SETS[v][n] = i
                    SUM_SETS_N[v] = n + 1
    for i in range(22):
        PRIM_CODE[i] = 0
        PRIM_ABOVE[i] = 0
        for r in range(10):
            if PRIM[r] > i:
                PRIM_ABOVE[i] |= 1 << r
    PRIM_CODE[10] = 1
    PRIM_CODE[12] = 2
    PRIM_CODE[13] = 3
    PRIM_CODE[14] = 4
    PRIM_CODE[15] = 5
    PRIM_CODE[16] = 6
    PRIM_CODE[18] = 7
    PRIM_CODE[21] = 8

_init_solver_tables()


cdef enum:
    # nodes between two looks at the clock, the stop flag and the signal handlers: the node
    # count is compared with S.next_check at every node, the rest happens this rarely
    CHECK_EVERY = 4096


cdef void arm_checks(SState* S) noexcept nogil:
    """Set the node count of the next poll(): CHECK_EVERY on, or just past the node limit."""
    S.next_check = S.nodes + CHECK_EVERY
    if S.node_limit and S.next_check > S.node_limit + 1:
        S.next_check = S.node_limit + 1


cdef bint poll(SState* S) noexcept nogil:
    """Called when the node count reaches S.next_check: whether the search must stop now
    (it already stopped, the node limit is passed, or the watch expired: a stop flag, the
    deadline, or a signal handler that raised)."""
    if S.aborted or (S.node_limit and S.nodes > S.node_limit) or watch_expired(&S.watch):
        S.aborted = True
        return True
    arm_checks(S)
    return False


cdef inline int sgn(int x) noexcept nogil:
    return (x > 0) - (x < 0)


cdef inline uint64_t mix64(uint64_t z) noexcept nogil:
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline bint is_over(const Pos* p) noexcept nogil:
    return p.stock_pos >= p.stock_len and not any_hand(p)


cdef inline uint64_t stock_mask(const Pos* p) noexcept nogil:
    cdef uint64_t m = 0
    cdef int i
    for i in range(p.stock_pos, p.stock_len):
        m |= <uint64_t>1 << p.stock[i]
    return m


cdef bint leaves_sweep_c(uint64_t table, uint64_t next_hand, int opts) noexcept nogil:
    """Whether a player holding ``next_hand`` might capture the whole table: never False
    when such a sweep exists (a sound test for bounds), sometimes True when the "fewest"
    rule would forbid it."""
    cdef uint64_t m = next_hand
    cdef int values = 0, total = 0
    if not table:
        return False
    while m:
        values |= 1 << (scopa_ctz(m) % 10 + 1)
        m &= m - 1
    if (opts & C_OPT_ACE_TAKES_ALL) and (values & 2) and not (table & C_ACES):
        return True
    m = table
    while m:
        total += scopa_ctz(m) % 10 + 1
        m &= m - 1
    if scopa_popcount(table) == 1:
        return (values >> total) & 1
    return total <= 10 and ((values >> total) & 1) and not (table & rank_mask[total])


cdef void node_info(const Pos* p, int opts, Info* out) noexcept nogil:
    """Banked points, the open value's range and the undecided-term summary (see the twin)."""
    cdef uint64_t rest = p.table | p.hands[0] | p.hands[1] | p.hands[2] | p.hands[3] | stock_mask(p)
    cdef uint64_t c0 = p.captured[0], c1 = p.captured[1], pile, coins_left
    cdef int B = p.scope[0] - p.scope[1], lo = 0, hi = 0
    cdef int r, d, a, b, t, s, have, left, mn, mx, n0, n1, total, k, seat
    cdef bint none_min, none_max, requires
    cdef int tmin[2]
    cdef int tmax[2]
    cdef int plays[2]
    cdef int stock_left = p.stock_len - p.stock_pos
    cdef uint64_t sig_a = <uint64_t>p.turn | (<uint64_t>(p.last + 1) << 2) | (<uint64_t>stock_left << 4)
    cdef uint64_t sig_b = 0, codes = 0
    # carte
    r = scopa_popcount(rest)
    d = scopa_popcount(c0) - scopa_popcount(c1)
    a = sgn(d - r)
    b = sgn(d + r)
    if a == b:
        B += a
    else:
        lo += a
        hi += b
        sig_a |= (<uint64_t>1 << 10) | (<uint64_t>((d + 64) & 127) << 11)
    # denari
    r = scopa_popcount(rest & C_COINS)
    d = scopa_popcount(c0 & C_COINS) - scopa_popcount(c1 & C_COINS)
    a = sgn(d - r)
    b = sgn(d + r)
    if a == b:
        B += a
    else:
        lo += a
        hi += b
        sig_a |= (<uint64_t>1 << 18) | (<uint64_t>((d + 16) & 31) << 19)
    # settebello, re bello
    if rest & C_SETTEBELLO:
        lo -= 1
        hi += 1
    elif c0 & C_SETTEBELLO:
        B += 1
    elif c1 & C_SETTEBELLO:
        B -= 1
    if opts & C_OPT_RE_BELLO:
        if rest & C_RE_BELLO:
            lo -= 1
            hi += 1
        elif c0 & C_RE_BELLO:
            B += 1
        elif c1 & C_RE_BELLO:
            B -= 1
    # primiera
    requires = (opts & C_OPT_PRIMIERA_ALL_SUITS) != 0
    for t in range(2):
        pile = c0 if t == 0 else c1
        mn = 0
        mx = 0
        none_min = False
        none_max = False
        for s in range(4):
            have = suit_best[(pile >> (10 * s)) & C_COINS]
            left = suit_best[(rest >> (10 * s)) & C_COINS]
            codes |= <uint64_t>PRIM_CODE[have] << (4 * (2 * s + t))
            mn += have
            mx += have if have > left else left
            if have == 0:
                none_min = True
                if left == 0:
                    none_max = True
        tmin[t] = -1 if (requires and none_min) else mn
        tmax[t] = -1 if (requires and none_max) else mx
    if tmin[0] > tmax[1]:
        B += 1
    elif tmin[1] > tmax[0]:
        B -= 1
    elif not (tmin[0] == tmax[0] and tmax[0] == tmin[1] and tmin[1] == tmax[1]):
        if tmax[1] > tmin[0]:
            lo -= 1
        if tmax[0] > tmin[1]:
            hi += 1
        sig_a |= <uint64_t>1 << 24
        sig_b = codes
    # napola
    if opts & C_OPT_NAPOLA:
        n0 = napola_c(c0)
        n1 = napola_c(c1)
        coins_left = rest & C_COINS
        if not coins_left:
            B += n0 - n1
        else:
            lo += n0 - napola_c(c1 | coins_left)
            hi += napola_c(c0 | coins_left) - n1
            sig_a |= (<uint64_t>1 << 25) | ((c0 & C_COINS) << 26) | ((c1 & C_COINS) << 36)
    # future scope
    plays[0] = stock_left // 2
    plays[1] = stock_left // 2
    total = stock_left
    for seat in range(p.nplayers):
        k = scopa_popcount(p.hands[seat])
        plays[seat & 1] += k
        total += k
    if total and not (opts & C_OPT_SCOPA_ON_LAST_PLAY):
        plays[((p.turn + total - 1) % p.nplayers) & 1] -= 1
        if total > 1 and not leaves_sweep_c(p.table, p.hands[p.turn], opts):
            plays[p.turn & 1] -= 1    # the play now cannot sweep either
    elif total and not leaves_sweep_c(p.table, p.hands[p.turn], opts):
        plays[p.turn & 1] -= 1
    hi += plays[0]
    lo -= plays[1]
    out.B = B
    out.lo = lo
    out.hi = hi
    out.sig_a = sig_a
    out.sig_b = sig_b


cdef inline int piles_difference(uint64_t c0, uint64_t c1, int s0, int s1, int opts) noexcept nogil:
    """Final score difference (team 0 minus team 1) of closed piles and scope: the sum
    over the categories of :func:`score_c`, without filling its table."""
    cdef int d = s0 - s1
    d += sgn(scopa_popcount(c0) - scopa_popcount(c1))
    d += sgn(scopa_popcount(c0 & C_COINS) - scopa_popcount(c1 & C_COINS))
    if c0 & C_SETTEBELLO:
        d += 1
    elif c1 & C_SETTEBELLO:
        d -= 1
    d += sgn(primiera_c(c0, opts) - primiera_c(c1, opts))
    if opts & C_OPT_RE_BELLO:
        if c0 & C_RE_BELLO:
            d += 1
        elif c1 & C_RE_BELLO:
            d -= 1
    if opts & C_OPT_NAPOLA:
        d += napola_c(c0) - napola_c(c1)
    return d


cdef inline int final_difference_c(const Pos* p, int opts) noexcept nogil:
    return piles_difference(p.captured[0], p.captured[1], p.scope[0], p.scope[1], opts)


cdef void make_key(const Pos* p, const Info* info, uint64_t neutral, Key* k) noexcept nogil:
    """The table key of ``p``: hands and table in canonical form, the summary, the hash.

    For each rank, the neutral cards of that rank in hands and on the table are swapped
    so that the lowest suits go to the lowest seats (the table last): positions equal up
    to such swaps, which have equal values, get one key.
    """
    cdef uint64_t cls, bits, inplay
    cdef int v, loc, j, cnt[5]
    k.m[0] = p.hands[0]
    k.m[1] = p.hands[1]
    k.m[2] = p.hands[2]
    k.m[3] = p.hands[3]
    k.m[4] = p.table
    inplay = (p.hands[0] | p.hands[1] | p.hands[2] | p.hands[3] | p.table) & neutral
    for v in range(1, 11):
        cls = inplay & rank_mask[v]
        if scopa_popcount(cls) < 2:
            continue
        for loc in range(5):
            cnt[loc] = scopa_popcount(k.m[loc] & cls)
            k.m[loc] &= ~cls
        bits = cls
        for loc in range(5):
            for j in range(cnt[loc]):
                k.m[loc] |= bits & (~bits + 1)
                bits &= bits - 1
    # each card's place as a 3-bit code in three 40-bit planes (0 elsewhere, 1-4 the
    # hands, 5 the table), the planes packed into two words
    cls = k.m[0] | k.m[2] | k.m[4]
    bits = k.m[1] | k.m[2]
    k.w[0] = cls | (bits << 40)
    k.w[1] = (bits >> 24) | ((k.m[3] | k.m[4]) << 16)
    k.sig_a = info.sig_a
    k.sig_b = info.sig_b
    k.h = mix64(k.w[0] ^ mix64(k.w[1] ^ mix64(info.sig_a ^ mix64(info.sig_b))))


cdef TTEntry* tt_find(SState* S, const Key* k) noexcept nogil:
    """The entry of this exact key (fully verified), or NULL."""
    cdef TTEntry* e = S.tt + 2 * (k.h & S.tt_mask)
    cdef int i
    for i in range(2):
        if (e[i].w[0] == k.w[0] and e[i].w[1] == k.w[1] and e[i].sig_a == k.sig_a
                and e[i].sig_b == k.sig_b and e[i].epoch == S.epoch):
            return &e[i]
    return NULL


cdef inline TTEntry* tt_probe(SState* S, const Key* k) noexcept nogil:
    cdef TTEntry* e = tt_find(S, k)
    S.probes += 1
    if e != NULL:
        S.hits += 1
    return e


cdef void tt_store(SState* S, const Key* k, int best, int alpha, int beta, int card,
                   uint64_t capture, int depth) noexcept nogil:
    """Merge a search result into the table (the probe's entry may have been replaced since)."""
    cdef TTEntry* found = tt_find(S, k)
    cdef TTEntry* e
    cdef int lower = -NO_BOUND, upper = NO_BOUND
    if found != NULL:
        e = found
        lower = e.lower
        upper = e.upper
    else:
        e = S.tt + 2 * (k.h & S.tt_mask)
        if e[0].epoch == S.epoch and e[0].depth > depth:
            e = e + 1   # keep the deeper entry, replace the other slot
        e.w[0] = k.w[0]
        e.w[1] = k.w[1]
        e.sig_a = k.sig_a
        e.sig_b = k.sig_b
        e.depth = depth
        e.epoch = S.epoch
    if best <= alpha:
        if best < upper:
            upper = best
    elif best >= beta:
        if best > lower:
            lower = best
    else:
        lower = best
        upper = best
    e.lower = lower
    e.upper = upper
    e.card = card
    e.capture = capture


cdef uint64_t neutral_cards(const Pos* p, const Info* info, int opts) noexcept nogil:
    """Cards whose suit no longer matters (see the twin's ``neutral_cards``)."""
    cdef uint64_t neutral = C_FULL & ~C_SETTEBELLO
    cdef int s, low, b0, b1
    if opts & C_OPT_RE_BELLO:
        neutral &= ~C_RE_BELLO
    if (info.sig_a >> 18) & 1 or (info.sig_a >> 25) & 1:
        neutral &= ~C_COINS
    if (info.sig_a >> 24) & 1:
        for s in range(4):
            b0 = suit_best[(p.captured[0] >> (10 * s)) & C_COINS]
            b1 = suit_best[(p.captured[1] >> (10 * s)) & C_COINS]
            low = b0 if b0 < b1 else b1
            neutral &= ~(<uint64_t>PRIM_ABOVE[low] << (10 * s))
    return neutral


cdef inline int rank_captures(int v, uint64_t m, bint fewest, uint64_t* out) noexcept nogil:
    """The sets of the smaller table cards ``m`` that add up to ``v``, from the list of
    rank sets that add up to ``v`` (no search); -1 when ``m`` holds two cards of one rank.
    Under the fewest-cards rule only the smallest sets are kept."""
    cdef uint64_t ranks = (m | (m >> 10) | (m >> 20) | (m >> 30)) & 1023, spread
    cdef int i, n = 0, size = 0
    cdef unsigned int rs
    if scopa_popcount(ranks) != scopa_popcount(m):
        return -1
    for i in range(SUM_SETS_N[v]):
        rs = SUM_SETS[v][i]
        if rs & ~ranks:
            continue
        if fewest:
            if n and scopa_popcount(rs) > size:
                break
            size = scopa_popcount(rs)
        spread = rs
        spread |= spread << 10
        out[n] = (spread | (spread << 20)) & m
        n += 1
    return n


cdef inline int solver_captures(SState* S, int card, uint64_t table, uint64_t* out) noexcept nogil:
    """:func:`captures_of` with the sets that add up read off the list of rank sets that
    add up to the card's value when the smaller table cards have distinct ranks (as play
    leaves them: 3-5% faster than the memo below at k = 6 and 7 with POPCNT); with repeated
    ranks (from a deal), remembered per (smaller table cards, value, fewest-cards rule)."""
    cdef int n = quick_captures(card, table, S.opts, out), i
    cdef uint64_t key
    cdef CapEntry* e
    if n >= 0:
        return n
    if card % 10 == 0:
        return gen_captures(card, table, S.opts, out)   # the ace that takes all
    n = rank_captures(card % 10 + 1, table & below_mask[card % 10 + 1], S.opts & C_OPT_FEWEST, out)
    if n >= 0:
        return n
    key = (table & below_mask[card % 10 + 1]) | (<uint64_t>(card % 10 + 1) << 40) \
        | (<uint64_t>(S.opts & C_OPT_FEWEST) << 44) | (<uint64_t>1 << 63)
    e = S.capcache + ((key * <uint64_t>0x9E3779B97F4A7C15) >> (64 - CAP_CACHE_BITS))
    if e.key == key:
        for i in range(e.n):
            out[i] = e.caps[i]
        return e.n
    n = gen_captures(card, table, S.opts, out)
    if n <= 7:
        e.key = key
        e.n = n
        for i in range(n):
            e.caps[i] = out[i]
    return n


cdef inline bint stood_for(uint64_t hand, uint64_t neutral, int c) noexcept nogil:
    """Whether ``c`` is a ``neutral`` card and a lower neutral card of its rank in ``hand``
    stands for it: the two play alike, so only the lowest one's moves are searched."""
    return (neutral >> c) & 1 and (hand & neutral & rank_mask[c % 10 + 1] & ((<uint64_t>1 << c) - 1)) != 0


cdef inline int plays_left(const Pos* p) noexcept nogil:
    """Plays left in the hand: the cards in the hands and in the stock."""
    return p.stock_len - p.stock_pos + scopa_popcount(p.hands[0] | p.hands[1] | p.hands[2] | p.hands[3])


cdef int gen_moves(SState* S, const Pos* p, uint64_t neutral) noexcept nogil:
    """Write the legal moves at S.sp, one per class of moves equal up to swapping
    neutral cards of one rank (see the twin's ``prune_equivalent``); return how many."""
    cdef uint64_t hand = p.hands[p.turn]
    cdef uint64_t m = hand, x, alt, low
    cdef int c, v, i, j, n = 0, k
    cdef int first[11]
    cdef int count[11]
    cdef int base = S.sp
    for v in range(11):
        count[v] = -1
    while m:
        c = scopa_ctz(m)
        m &= m - 1
        v = c % 10 + 1
        if stood_for(hand, neutral, c):
            continue
        if count[v] < 0:
            first[v] = base + n
            k = solver_captures(S, c, p.table, S.mcap + base + n)
            if k == 0:
                S.mcap[base + n] = 0
                k = 1
            else:
                # keep the canonical capture of each class: no captured neutral card
                # has a lower equivalent card left on the table
                j = 0
                for i in range(k):
                    x = S.mcap[base + n + i] & neutral
                    alt = 0
                    while x and not alt:
                        low = x & (~x + 1)
                        x &= x - 1
                        alt = p.table & ~S.mcap[base + n + i] & neutral & \
                            rank_mask[scopa_ctz(low) % 10 + 1] & (low - 1)
                    if not alt:
                        S.mcap[base + n + j] = S.mcap[base + n + i]
                        j += 1
                k = j
            count[v] = k
            for i in range(k):
                S.mcard[base + n + i] = c
            n += k
        else:
            k = count[v]
            for i in range(k):
                S.mcap[base + n + i] = S.mcap[first[v] + i]
                S.mcard[base + n + i] = c
            n += k
    return n


cdef inline int move_class(int card, uint64_t capture) noexcept nogil:
    """The history heuristic's slot of a move: its card and how many cards it captures
    (none, one, two, three or more), so a card's lay-downs and its captures of each size are
    credited apart (5% fewer nodes at k = 6, 1.3% at k = 7, than by card alone)."""
    cdef int k = scopa_popcount(capture)
    return card + 40 * (k if k < 3 else 3)


cdef void score_moves(SState* S, const Pos* p, int n, int tt_card, uint64_t tt_cap) noexcept nogil:
    """The main search's ordering scores: the table move, then captures (sweeps, the
    settebello, sevens, coins, size, history by card and size), then lay-downs (history,
    high cards first, coins kept). A capture that leaves the next player a possible sweep
    loses 120000, which puts it among the lay-downs (after them unless its bonuses and
    history are high: 1-2% fewer nodes and 3-5% less time at k = 6 and 7); a lay-down that
    does loses 50000, which puts it last."""
    cdef int i, c, s
    cdef uint64_t m, took, bit
    cdef uint64_t nxt = p.hands[(p.turn + 1) % p.nplayers]
    for i in range(S.sp, S.sp + n):
        c = S.mcard[i]
        m = S.mcap[i]
        bit = <uint64_t>1 << c
        if c == tt_card and m == tt_cap:
            s = 1 << 30
        elif m:
            took = m | bit
            s = 100000
            if m == p.table:
                s += 50000
            if took & C_SETTEBELLO:
                s += 20000
            s += 3000 * scopa_popcount(took & rank_mask[7])
            s += 1000 * scopa_popcount(took & C_COINS)
            s += 300 * scopa_popcount(m)
            s += S.hist[move_class(c, m)]
            if m != p.table and leaves_sweep_c(p.table & ~m, nxt, S.opts):
                s -= 120000
        else:
            # high cards first, as in the leaf search (without a penalty for sevens: k = 6
            # 2.8%, k = 7 7.6% fewer nodes), coins kept
            s = S.hist[c] + 100 * (c % 10)   # move_class(c, 0)
            if bit & C_COINS:
                s -= 400
            if leaves_sweep_c(p.table | bit, nxt, S.opts):
                s -= 50000
        S.mscore[i] = s


cdef inline void select_best(SState* S, int i) noexcept nogil:
    """Selection step of the move loops: bring the best-scored move of S[i:S.sp] to i."""
    cdef int j, bi = i, bs = S.mscore[i]
    for j in range(i + 1, S.sp):
        if S.mscore[j] > bs:
            bs = S.mscore[j]
            bi = j
    if bi != i:
        S.mscore[bi], S.mscore[i] = S.mscore[i], S.mscore[bi]
        S.mcard[bi], S.mcard[i] = S.mcard[i], S.mcard[bi]
        S.mcap[bi], S.mcap[i] = S.mcap[i], S.mcap[bi]


cdef int leaf_moves(SState* S, const Pos* p, uint64_t neutral) noexcept nogil:
    """Every legal move at S.sp with the leaf search's cheap ordering score (sweeps, then
    captures by size and the settebello, then lay-downs, high cards first), one card for each
    rank of ``neutral`` cards in the hand (as :func:`gen_moves`); how many."""
    cdef uint64_t hand = p.hands[p.turn], table = p.table, m
    cdef int base = S.sp, n = 0, c, k, i
    while hand:
        c = scopa_ctz(hand)
        hand &= hand - 1
        if stood_for(p.hands[p.turn], neutral, c):
            continue
        k = solver_captures(S, c, table, S.mcap + base + n)
        if k == 0:
            S.mcap[base + n] = 0
            S.mcard[base + n] = c
            S.mscore[base + n] = c % 10   # high cards first: 5% less time than low first at k = 6 and 7
            n += 1
            continue
        for i in range(base + n, base + n + k):
            m = S.mcap[i]
            S.mcard[i] = c
            S.mscore[i] = 100 + 10 * (m == table) + scopa_popcount(m) \
                + 5 * ((m | (<uint64_t>1 << c)) & C_SETTEBELLO != 0)
        n += k
    return n


cdef inline bint leaf_entry_is(const SState* S, const LeafEntry* e, uint64_t k0, uint64_t k1,
                               unsigned int k2) noexcept nogil:
    """Whether the leaf-table entry ``e`` holds the position keyed (k0, k1, k2) in this epoch."""
    return e.k0 == k0 and e.k1 == k1 and (e.k2 & LEAF_KEY_BITS) == k2 and e.epoch == S.epoch


cdef inline bint in_last_round(const Pos* p) noexcept nogil:
    """No stock left and at most one card in each hand: every play is forced but for
    the choice of capture."""
    return p.stock_pos >= p.stock_len and p.hands[p.turn] != 0 and (p.hands[0] & (p.hands[0] - 1)) == 0 \
        and (p.hands[1] & (p.hands[1] - 1)) == 0 and (p.hands[2] & (p.hands[2] - 1)) == 0 \
        and (p.hands[3] & (p.hands[3] - 1)) == 0


cdef int last_round(SState* S, Pos* p, int alpha, int beta) noexcept nogil:
    """Team 0's final difference from a position :func:`in_last_round` (``p`` is
    consumed), by alpha-beta in team 0's terms over the capture choices only. The forced
    plays run on local copies of the table and piles (no stock is left to refill from)."""
    cdef int n, i, v, best, c, team, turn = p.turn, last = p.last, s0 = p.scope[0], s1 = p.scope[1]
    cdef int left = scopa_popcount(p.hands[0] | p.hands[1] | p.hands[2] | p.hands[3])
    cdef int opts = S.opts
    cdef bint maximize
    cdef uint64_t table = p.table, c0 = p.captured[0], c1 = p.captured[1], bit, m
    cdef uint64_t* caps = S.mcap + S.sp
    cdef Pos child
    while True:
        S.nodes += 1
        if left == 0:
            if table and last >= 0:
                if last == 0:
                    c0 |= table
                else:
                    c1 |= table
            return piles_difference(c0, c1, s0, s1, opts)
        if p.hands[turn] == 0:
            # a position where the seat to move holds no card (not from a real deal):
            # the generic search (not in_last_round, so no loop) decides what it means
            p.table, p.captured[0], p.captured[1], p.scope[0], p.scope[1] = table, c0, c1, s0, s1
            p.turn, p.last = turn, last
            return (1 if (turn & 1) == 0 else -1) * leaf_search(S, p, -1000, 1000)
        c = scopa_ctz(p.hands[turn])
        n = solver_captures(S, c, table, caps)
        if n > 1:
            break
        bit = <uint64_t>1 << c
        p.hands[turn] = 0
        left -= 1
        if n:
            m = caps[0]
            team = turn & 1
            table &= ~m
            if team == 0:
                c0 |= m | bit
            else:
                c1 |= m | bit
            last = team
            if table == 0 and sweep_is_scopa(c, m, left == 0, opts):
                if team == 0:
                    s0 += 1
                else:
                    s1 += 1
        else:
            table |= bit
        turn += 1
        if turn == p.nplayers:
            turn = 0
    p.table, p.captured[0], p.captured[1], p.scope[0], p.scope[1] = table, c0, c1, s0, s1
    p.turn, p.last = turn, last
    maximize = (turn & 1) == 0
    best = -1000 if maximize else 1000
    S.sp += n
    for i in range(n):
        child = p[0]
        apply_pos(&child, c, caps[i], opts)
        if maximize:
            v = last_round(S, &child, alpha if alpha > best else best, beta)
            if v > best:
                best = v
                if best >= beta:
                    break
        else:
            v = last_round(S, &child, alpha, beta if beta < best else best)
            if v < best:
                best = v
                if best <= alpha:
                    break
    S.sp -= n
    return best


cdef inline int last_round_mover(SState* S, Pos* p, int alpha, int beta) noexcept nogil:
    """:func:`last_round` on the mover's side (``p`` is consumed), as :func:`leaf_search`."""
    if (p.turn & 1) == 0:
        return last_round(S, p, alpha, beta)
    return -last_round(S, p, -beta, -alpha)


cdef int leaf_search(SState* S, const Pos* p, int alpha, int beta) noexcept nogil:
    """Plain alpha-beta on the final difference (mover's side) for the last few plays,
    where the main table's canonical keys and score bookkeeping cost more than they save.
    Without stock and with ``lt_min``..``lt_max`` plays left, bounds and the best move go
    to a small two-way table keyed by every card's place (1 MB, so it stays in the cache):
    the same position reached by plays in another order is searched once. The scope made so
    far only adds to the final difference, so the key leaves it out and the bounds are kept
    without it: positions that differ only in the scope share an entry (7% fewer nodes at
    k = 7)."""
    cdef int sigma = 1 if (p.turn & 1) == 0 else -1
    cdef int n, i, best = -1000, v, a
    cdef Pos child
    if in_last_round(p):
        child = p[0]
        return last_round_mover(S, &child, alpha, beta)
    S.nodes += 1
    if S.nodes >= S.next_check and poll(S):
        return 0
    if is_over(p):
        return sigma * final_difference_c(p, S.opts)
    cdef LeafEntry* e = NULL
    cdef uint64_t k0 = 0, k1 = 0, h, best_cap = 0
    cdef unsigned int k2 = 0
    cdef int left, lower, upper, tt_card = -1, best_card = -1, ds
    if p.stock_pos >= p.stock_len:
        left = scopa_popcount(p.hands[0] | p.hands[1] | p.hands[2] | p.hands[3])
        if S.lt_min <= left <= S.lt_max:
            # each card's place as a 3-bit code (hands 1-4, table 5, piles 6-7) in three
            # 40-bit planes packed into two words, then seat to move, last capturer,
            # and rules
            k0 = p.hands[0] | p.hands[2] | p.table | p.captured[1]
            k1 = p.hands[1] | p.hands[2] | p.captured[0] | p.captured[1]
            h = p.hands[3] | p.table | p.captured[0] | p.captured[1]
            k0 |= k1 << 40
            k1 = (k1 >> 24) | (h << 16)
            k2 = <unsigned int>p.turn | (<unsigned int>(p.last + 1) << 2) \
                | (<unsigned int>(S.opts & 255) << 11)
            # multiplicative hashing, top bits: cheaper than mix64 and as good here
            h = ((k0 * <uint64_t>0x9E3779B97F4A7C15) ^ (k1 * <uint64_t>0xC2B2AE3D27D4EB4F)
                 ^ (k2 * <uint64_t>0x165667B19E3779F9)) >> (64 - LEAF_TT_BITS)
            e = S.leaftt + 2 * h
            scopa_prefetch(e)   # the moves are generated while the bucket is fetched
    n = leaf_moves(S, p, S.leaf_neutral)
    if e != NULL:
        if not leaf_entry_is(S, e, k0, k1, k2):
            e += 1
            if not leaf_entry_is(S, e, k0, k1, k2):
                e = NULL
        if e != NULL:
            S.lt_hits += 1
            # a missing bound is no bound at all, whatever the scope (a real bound of +-127
            # could be within the window once the scope difference is that large)
            ds = p.scope[0] - p.scope[1]
            lower = e.lower + ds if e.lower != -NO_BOUND else -1000
            upper = e.upper + ds if e.upper != NO_BOUND else 1000
            if sigma == -1:
                lower, upper = -upper, -lower
            if lower >= beta:
                return lower
            if upper <= alpha:
                return upper
            if lower == upper:
                return lower
            if lower > alpha:
                alpha = lower
            if upper < beta:
                beta = upper
            tt_card = <int>((e.k2 >> 19) & 63) - 1
            best_cap = e.capture
        else:
            # claim a slot: the first unless it holds a bigger position of this epoch
            e = S.leaftt + 2 * h
            if e.epoch == S.epoch and (e.k2 >> 25) > <unsigned int>left:
                e += 1
            e.k0 = k0
            e.k1 = k1
            e.k2 = k2 | (<unsigned int>left << 25)
            e.epoch = S.epoch
            e.lower = -NO_BOUND
            e.upper = NO_BOUND
    if tt_card >= 0:
        for i in range(S.sp, S.sp + n):
            if S.mcard[i] == tt_card and S.mcap[i] == best_cap:
                S.mscore[i] = 1 << 20
                break
    S.sp += n
    for i in range(S.sp - n, S.sp):
        select_best(S, i)
        child = p[0]
        if p.stock_pos >= p.stock_len:
            play_on(&child, S.mcard[i], S.mcap[i], S.opts, False)   # a hand holds two or more cards: not the last play
        else:
            apply_pos(&child, S.mcard[i], S.mcap[i], S.opts)
        a = alpha if alpha > best else best
        if in_last_round(&child):
            v = -last_round_mover(S, &child, -beta, -a)   # leaf_search's first step, without another copy
        else:
            v = -leaf_search(S, &child, -beta, -a)
        if S.aborted:
            S.sp -= n
            return 0
        if v > best:
            best = v
            best_card = S.mcard[i]
            best_cap = S.mcap[i]
            if best >= beta:
                break
    S.sp -= n
    if n and e != NULL and leaf_entry_is(S, e, k0, k1, k2):
        # team 0's bounds without the scope difference (small numbers, whatever the scope):
        # a fail-high is a lower bound for the mover, a fail-low an upper one
        v = best - sigma * (p.scope[0] - p.scope[1])
        if best >= beta:
            lower = v
            upper = NO_BOUND
        elif best <= alpha:
            lower = -NO_BOUND
            upper = v
        else:
            lower = v
            upper = v
        if sigma == -1:
            lower, upper = -upper, -lower
        if lower > e.lower:
            e.lower = lower
        if upper < e.upper:
            e.upper = upper
        e.k2 = k2 | (<unsigned int>(best_card + 1) << 19) | (<unsigned int>left << 25)
        e.capture = best_cap
    return best


cdef inline int trunc_div(int a, int b) noexcept nogil:
    """Division rounding toward zero (C's), spelled out so the twin can match it."""
    return a / b


cdef int static_eval(const Pos* p, int opts) noexcept nogil:
    """A heuristic final difference (team 0 minus team 1) x 100, for the horizon search.

    Banked points count in full; an open card or coin count by its lead over the cards
    left; an open settebello 60 to the team holding it (30 to the mover's team when it
    lies on the table); an open primiera 40 to the team ahead on its current bests.
    """
    cdef Info info
    cdef uint64_t rest = p.table | p.hands[0] | p.hands[1] | p.hands[2] | p.hands[3] | stock_mask(p)
    cdef int e, d, s, seat, b0 = 0, b1 = 0
    node_info(p, opts, &info)
    e = 100 * info.B
    if (info.sig_a >> 10) & 1:
        d = scopa_popcount(p.captured[0]) - scopa_popcount(p.captured[1])
        e += trunc_div(100 * d, scopa_popcount(rest) + 1)
    if (info.sig_a >> 18) & 1:
        d = scopa_popcount(p.captured[0] & C_COINS) - scopa_popcount(p.captured[1] & C_COINS)
        e += trunc_div(100 * d, scopa_popcount(rest & C_COINS) + 1)
    if rest & C_SETTEBELLO:
        if p.table & C_SETTEBELLO:
            e += 30 if (p.turn & 1) == 0 else -30
        else:
            for seat in range(p.nplayers):
                if p.hands[seat] & C_SETTEBELLO:
                    e += 60 if (seat & 1) == 0 else -60
    if (info.sig_a >> 24) & 1:
        for s in range(4):
            b0 += suit_best[(p.captured[0] >> (10 * s)) & C_COINS]
            b1 += suit_best[(p.captured[1] >> (10 * s)) & C_COINS]
        e += 40 * sgn(b0 - b1)
    return e


cdef int horizon_search(SState* S, const Pos* p, int plies, int alpha, int beta) noexcept nogil:
    """Alpha-beta to ``plies`` plays ahead, then :func:`static_eval`; x 100, mover's side."""
    cdef int sigma = 1 if (p.turn & 1) == 0 else -1
    cdef int n, i, best = -1000000, v
    cdef Pos child
    S.nodes += 1
    if S.nodes >= S.next_check and poll(S):
        return 0
    if is_over(p):
        return sigma * 100 * final_difference_c(p, S.opts)
    if plies <= 0:
        return sigma * static_eval(p, S.opts)
    n = leaf_moves(S, p, 0)
    S.sp += n
    for i in range(S.sp - n, S.sp):
        select_best(S, i)
        child = p[0]
        apply_pos(&child, S.mcard[i], S.mcap[i], S.opts)
        v = -horizon_search(S, &child, plies - 1, -beta, -(alpha if alpha > best else best))
        if S.aborted:
            S.sp -= n
            return 0
        if v > best:
            best = v
            if best >= beta:
                break
    S.sp -= n
    return best


cdef int search(SState* S, const Pos* p, const Info* info, int alpha, int beta) noexcept nogil:
    """Negamax on the open value ``w`` of ``p`` (mover's side), fail-soft."""
    cdef int sigma = 1 if (p.turn & 1) == 0 else -1
    cdef int w_lo, w_hi, n, i, j, k, bi, best, v, g, a, depth, bs, sb
    cdef int best_card = -1, tt_card = -1
    cdef uint64_t best_cap = 0, tt_cap = 0, m, neutral
    cdef TTEntry* e
    cdef Pos child
    cdef Info cinfo
    cdef Key key
    cdef Key etc_keys[ETC_MAX]
    cdef int etc_gain[ETC_MAX]
    cdef int c
    S.nodes += 1
    if S.nodes >= S.next_check and poll(S):
        return 0
    if is_over(p):
        return sigma * (final_difference_c(p, S.opts) - info.B)
    if sigma == 1:
        w_lo = info.lo
        w_hi = info.hi
    else:
        w_lo = -info.hi
        w_hi = -info.lo
    if w_hi <= alpha:
        return w_hi
    if w_lo >= beta:
        return w_lo
    depth = plays_left(p)
    sb = sigma * info.B
    if depth < S.leaf_depth:
        S.nodes -= 1
        # a card neutral here stays neutral below (its suit's bests only rise, decided terms
        # stay decided): the leaf search plays one card per neutral rank in a hand
        S.leaf_neutral = neutral_cards(p, info, S.opts)
        return leaf_search(S, p, alpha + sb, beta + sb) - sb
    neutral = neutral_cards(p, info, S.opts)
    make_key(p, info, neutral, &key)
    scopa_prefetch(S.tt + 2 * (key.h & S.tt_mask))   # the moves are generated while the bucket is fetched
    n = gen_moves(S, p, neutral)
    e = tt_probe(S, &key)
    if e != NULL:
        if e.lower >= beta or e.upper <= alpha or e.lower == e.upper:
            if depth == S.root_depth:
                S.root_card = e.card
                S.root_cap = e.capture
            if e.lower >= beta:
                return e.lower
            if e.upper <= alpha:
                return e.upper
            return e.lower
        tt_card = e.card
        tt_cap = e.capture
    S.main_nodes += 1
    if depth >= S.etc_depth:
        # enhanced transposition cutoff: a child already known to refute the window. The
        # children's keys are made and their buckets prefetched first, ETC_MAX at a time,
        # then looked up, so the table's cache misses overlap.
        j = 0
        while j < n:
            k = n - j if n - j < ETC_MAX else ETC_MAX
            for i in range(k):
                child = p[0]
                apply_pos(&child, S.mcard[S.sp + j + i], S.mcap[S.sp + j + i], S.opts)
                etc_gain[i] = NO_GAIN
                if is_over(&child):
                    continue
                node_info(&child, S.opts, &cinfo)
                etc_gain[i] = sigma * (cinfo.B - info.B)
                make_key(&child, &cinfo, neutral_cards(&child, &cinfo, S.opts), &etc_keys[i])
                scopa_prefetch(S.tt + 2 * (etc_keys[i].h & S.tt_mask))
            for i in range(k):
                if etc_gain[i] != NO_GAIN:
                    e = tt_find(S, &etc_keys[i])
                    if e != NULL and etc_gain[i] - e.upper >= beta:
                        if depth == S.root_depth:
                            S.root_card = S.mcard[S.sp + j + i]
                            S.root_cap = S.mcap[S.sp + j + i]
                        return etc_gain[i] - e.upper
            j += k
    score_moves(S, p, n, tt_card, tt_cap)
    if tt_card < 0 and depth >= S.iid_depth and n > 1:
        # no table move this deep: order by a shallow search with the static evaluation
        S.sp += n
        for i in range(S.sp - n, S.sp):
            child = p[0]
            apply_pos(&child, S.mcard[i], S.mcap[i], S.opts)
            S.mscore[i] = (1 << 24) - horizon_search(S, &child, S.iid_plies, -1000000, 1000000)
        S.sp -= n
        if S.aborted:
            return 0
    S.sp += n
    best = -1000
    for i in range(S.sp - n, S.sp):
        select_best(S, i)
        c = S.mcard[i]
        m = S.mcap[i]
        child = p[0]
        apply_pos(&child, c, m, S.opts)
        node_info(&child, S.opts, &cinfo)
        g = sigma * (cinfo.B - info.B)
        a = alpha if alpha > best else best
        v = g - search(S, &child, &cinfo, g - beta, g - a)
        if S.aborted:
            S.sp -= n
            return 0
        if v > best:
            best = v
            best_card = c
            best_cap = m
            if best >= beta:
                # history: the cutting move gains, the moves tried before it lose as much
                # (3% fewer nodes at k = 7 than crediting the cutting move alone)
                for k in range(S.sp - n, i):
                    j = move_class(S.mcard[k], S.mcap[k])
                    S.hist[j] -= depth * depth
                    if S.hist[j] < -(1 << 14):
                        S.hist[j] = -(1 << 14)
                j = move_class(c, m)
                S.hist[j] += depth * depth
                if S.hist[j] > (1 << 14):
                    for j in range(160):
                        S.hist[j] >>= 1   # age the history, keep it below the ordering bonuses
                break
    S.sp -= n
    tt_store(S, &key, best, alpha, beta, best_card, best_cap, depth)
    if depth == S.root_depth:
        S.root_card = best_card
        S.root_cap = best_cap
    return best


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

    def __cinit__(self, tt_size_mb=64):
        cdef uint64_t n_buckets = 1
        _checks.check_int(tt_size_mb, "tt_size_mb", 1, 65536)
        while n_buckets * 2 * 2 * sizeof(TTEntry) <= <uint64_t>tt_size_mb * (1 << 20):
            n_buckets *= 2
        self.tt_size_mb = tt_size_mb
        self.S.tt = <TTEntry*>scopa_table_alloc(n_buckets * 2 * sizeof(TTEntry))
        # the big table is zeroed first: the small hot tables written after it stay in the cache
        if self.S.tt != NULL:
            memset(self.S.tt, 0, n_buckets * 2 * sizeof(TTEntry))
        self.S.mcap = <uint64_t*>malloc(MOVE_STACK * sizeof(uint64_t))
        self.S.mcard = <signed char*>malloc(MOVE_STACK * sizeof(signed char))
        self.S.mscore = <int*>malloc(MOVE_STACK * sizeof(int))
        # the capture memo is written now (not lazily zeroed by calloc), so that its pages
        # are mapped before the first solve rather than during it
        self.S.capcache = <CapEntry*>malloc((1 << CAP_CACHE_BITS) * sizeof(CapEntry))
        if self.S.capcache != NULL:
            memset(self.S.capcache, 0, (1 << CAP_CACHE_BITS) * sizeof(CapEntry))
        self.S.leaftt = <LeafEntry*>scopa_table_alloc(LEAF_TT_BYTES)
        if self.S.leaftt != NULL:
            memset(self.S.leaftt, 0, LEAF_TT_BYTES)
        self.S.lt_min = 6
        self.S.lt_max = 12
        if (self.S.tt == NULL or self.S.mcap == NULL or self.S.mcard == NULL or self.S.mscore == NULL
                or self.S.capcache == NULL or self.S.leaftt == NULL):
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
        self._clear()

    def __dealloc__(self):
        scopa_table_free(self.S.tt)
        free(self.S.mcap)
        free(self.S.capcache)
        scopa_table_free(self.S.leaftt)
        free(self.S.mcard)
        free(self.S.mscore)

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
            raise ValueError(f"table must be a 40-bit mask without card {c}, got {t!r}")
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
            raise ValueError(f"bad stop {_checks.short(stop)}: expected a scopa_core.StopFlag or None")
        # claimed before anything is written (self.stock, the table): no Python code runs
        # between the check and the claim, so the GIL makes the two one step
        self._idle()
        self._busy = True
        try:
            pos_from_tuple(p, self.stock, pos, block)
            if not playable(p):
                _checks.check_playable(pos)
        except BaseException:
            self._busy = False
            raise
        watch_start(&self.S.watch, time_limit, stop)
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
        return tt_find(&self.S, &key)

    cdef tuple _mtdf(self, const Pos* p, const Info* info, int lo, int hi, int guess):
        """Null-window searches from ``guess`` until ``lo == hi`` or the search stops:
        ``(lo, hi, card, capture)``, the move of the last search that proved ``lo``
        (card -1 when none did)."""
        cdef int g = guess, beta, card = -1
        cdef uint64_t cap = 0
        if g < lo:
            g = lo
        if g > hi:
            g = hi
        while lo < hi:
            beta = g if g > lo else lo + 1
            self.S.root_card = -1
            g = self._search(p, info, beta - 1, beta)
            if self.S.aborted:
                break
            self.iterations += 1
            if g < beta:
                hi = g
            else:
                lo = g
                card = self.S.root_card
                cap = self.S.root_cap
        return lo, hi, card, cap

    def solve(self, pos, opts, block, node_limit=0, time_limit=0.0, stop=None, guess=None,
              bint pv=True) -> tuple:
        """Solve a position tuple: ``(exact, lower, upper, best_card, best_capture, pv, nodes)``.

        Values are the final score difference for the team to move; ``pv`` is a list of
        ``(card, capture)`` (empty when ``pv`` is False). The search stops early at
        ``node_limit`` nodes, ``time_limit`` seconds or when ``stop`` (a
        :class:`StopFlag`) is set: ``exact`` is then False and ``[lower, upper]`` holds the
        value, and the best move is one proven to reach ``lower`` (card -1 when no
        completed search proved one). A stop during the principal variation's search
        leaves the value exact and the PV shorter. ``guess`` (the expected value, for the
        team to move) is the first null-window search's test; by default a horizon search
        guesses from ``guess_min`` plays left, a level hand below.
        """
        cdef Pos p
        cdef Info info
        cdef int sigma, lo, hi, card = -1, v, est, wguess = 0, base
        cdef uint64_t cap = 0
        cdef TTEntry* e
        if guess is not None and not is_int_in(guess, -10000, 10001):
            _checks.check_int(guess, "guess", -10000, 10000)
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
                raise ValueError(f"bad first {_checks.short(first)}: expected a (card, capture) move or None")
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

    def analyze(self, pos, opts, block) -> list:
        """Exact value of every legal move: ``[(card, capture, value), ...]``."""
        cdef Pos p
        cdef Pos child
        cdef Info info
        cdef Info cinfo
        cdef int sigma, lo, hi
        self._begin(pos, opts, block, &p, 0, 0, None)
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
                if self.S.aborted:   # only a signal handler stops it (it raises below)
                    return []
                out.append((c, m, sigma * cinfo.B - lo))
            return out
        finally:
            self._end()
