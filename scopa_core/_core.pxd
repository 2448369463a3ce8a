# cython: language_level=3
"""C-level declarations of the scopa core, for other Cython modules to cimport."""

from libc.stdint cimport uint64_t

cdef extern from "bitops.h":
    int scopa_ctz(uint64_t x) noexcept nogil
    int scopa_popcount(uint64_t x) noexcept nogil
    void scopa_prefetch(const void* p) noexcept nogil
    int scopa_popcount_swar(uint64_t x) noexcept nogil
    int scopa_cpu_supported() noexcept nogil
    int SCOPA_HW_POPCOUNT

cdef enum:
    C_OPT_FEWEST = 1
    C_OPT_ACE_TAKES_ALL = 2
    C_OPT_ACE_SWEEP_IS_SCOPA = 4
    C_OPT_SCOPA_ON_LAST_PLAY = 8
    C_OPT_RE_BELLO = 16
    C_OPT_NAPOLA = 32
    C_OPT_PRIMIERA_ALL_SUITS = 64
    C_OPT_REDEAL_ON_KINGS = 128
    C_NCAT = 7
    # Most sets one card can capture (a king against all 36 lower cards: 1698).
    MAX_CAPTURES = 2048

ctypedef struct Pos:
    uint64_t hands[4]
    uint64_t table
    uint64_t captured[2]
    int scope[2]
    int turn
    int last            # team of the last capture, -1 for none
    int nplayers
    int block           # refill block (the hand size)
    int stock_len
    int stock_pos       # index of the stock's top card in stock[]
    const int* stock    # the stock's cards (owned by the caller), top first from stock_pos

cdef extern from "watch.h":
    double scopa_now() noexcept nogil
    int scopa_flag_read(const int* p) noexcept nogil
    void scopa_flag_write(int* p, int v) noexcept nogil

from cpython.ref cimport PyObject

ctypedef struct Watch:
    # what a long loop of the core watches besides its own work (see watch_expired)
    double deadline     # scopa_now() time to stop at; 0 for none
    const int* stop     # a StopFlag's word, NULL for none
    bint signals        # run Python's signal handlers (calls made in the main thread)
    bint interrupted    # a handler raised: its exception is kept below, for the caller to raise
    PyObject* exc_type  # that exception (owned references, NULL for none)
    PyObject* exc_value
    PyObject* exc_tb

cdef int gen_captures(int card, uint64_t table, int opts, uint64_t* out) noexcept nogil
cdef void apply_pos(Pos* p, int card, uint64_t capture, int opts) noexcept nogil
cdef int primiera_c(uint64_t mask, int opts) noexcept nogil
cdef void score_c(uint64_t cap0, uint64_t cap1, int scope0, int scope1, int opts,
                  int* out) noexcept nogil
cdef uint64_t rng_next(uint64_t* state) noexcept nogil
cdef bint watch_expired(Watch* w) noexcept nogil
