# The solver's shared parts: its state (SState), the table entries' layouts, the precomputed
# tables, the limits' checks (poll) and small helpers. Included by _solver.pxi before the rest.

from libc.string cimport memcpy, memset

cdef enum:
    MOVE_STACK = 48 * 10 * MAX_CAPTURES
    NO_BOUND = 127
    BUSY_SIZE = 4096      # slots of the table of moves being searched (a power of two)
    DEFER_MAX = 64        # moves a node defers at most
    NO_TEST = -1000000    # Bounds.testing: no test
    TEST_SLOTS = 16       # Bounds.testing's slots, by thread number modulo TEST_SLOTS
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
    char lock          # the bucket's spin lock (first slot only) while threads share the table
    char _pad[17]

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

ctypedef struct Bounds:
    # what the threads of a parallel solve have proved of the root's value, under ``lock``
    char lock
    int lo
    int hi
    int card           # the move of the search that proved ``lo`` (-1 for none)
    uint64_t cap
    int testing[TEST_SLOTS]  # the bound each thread is testing now (NO_TEST: none)

ctypedef struct SState:
    TTEntry* tt
    uint64_t tt_mask      # number of buckets - 1 (2 entries per bucket)
    unsigned short epoch  # entries of other epochs are empty
    bint shared           # threads search on this table: entries are read and written under their bucket's lock
    const int* done       # a word another thread of the same solve sets when it has the answer (NULL: none)
    uint64_t* busy        # moves some thread is searching (hashes, BUSY_SIZE slots), while shared
    Bounds* bounds        # the root's bounds that the threads of a parallel solve share (NULL: alone)
    int thread_no         # this thread's number in a parallel solve (0: the caller's); helper k
                          # searches the root's k best-ordered moves last
    int beta              # the null-window test running now: is the root's value >= beta?
    bint moot             # that test was stopped because the other threads answered it
    int defer_depth       # plays left from which a shared search defers moves another thread is on
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

cdef extern from "spinlock.h":
    void scopa_lock(char* l) noexcept nogil
    void scopa_unlock(char* l) noexcept nogil
    uint64_t scopa_load64(const uint64_t* p) noexcept nogil
    void scopa_store64(uint64_t* p, uint64_t v) noexcept nogil

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


cdef bint search_mem_alloc(SState* S) noexcept nogil:
    """A search's own memory besides the main table: the move stack, the capture memo, the
    leaf search's table (a solver's and each helper thread's). False when out of memory."""
    S.mcap = <uint64_t*>malloc(MOVE_STACK * sizeof(uint64_t))
    S.mcard = <signed char*>malloc(MOVE_STACK * sizeof(signed char))
    S.mscore = <int*>malloc(MOVE_STACK * sizeof(int))
    # the capture memo is written now (not lazily zeroed by calloc), so that its pages
    # are mapped before the first solve rather than during it
    S.capcache = <CapEntry*>malloc((1 << CAP_CACHE_BITS) * sizeof(CapEntry))
    if S.capcache != NULL:
        memset(S.capcache, 0, (1 << CAP_CACHE_BITS) * sizeof(CapEntry))
    S.leaftt = <LeafEntry*>scopa_table_alloc(LEAF_TT_BYTES)
    if S.leaftt != NULL:
        memset(S.leaftt, 0, LEAF_TT_BYTES)
    S.lt_min = 6
    S.lt_max = 12
    return S.mcap != NULL and S.mcard != NULL and S.mscore != NULL and S.capcache != NULL and S.leaftt != NULL


cdef void search_mem_free(SState* S) noexcept nogil:
    free(S.mcap)
    free(S.capcache)
    scopa_table_free(S.leaftt)
    free(S.mcard)
    free(S.mscore)



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
    if (S.aborted or (S.node_limit and S.nodes > S.node_limit) or watch_expired(&S.watch)
            or (S.done != NULL and scopa_flag_read(S.done))):
        S.aborted = True
        return True
    if S.bounds != NULL and (S.beta <= scopa_flag_read(&S.bounds.lo) or S.beta > scopa_flag_read(&S.bounds.hi)):
        # a parallel solve's other threads proved what this test asks: on to another one
        S.moot = True
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
