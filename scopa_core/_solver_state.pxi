# The solver's shared parts: its state (SState), the table entries' layouts, the precomputed
# tables, the limits' checks (poll) and small helpers. Included by _solver.pxi before the rest.

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


cdef inline int plays_left(const Pos* p) noexcept nogil:
    """Plays left in the hand: the cards in the hands and in the stock."""
    return p.stock_len - p.stock_pos + scopa_popcount(p.hands[0] | p.hands[1] | p.hands[2] | p.hands[3])
