# The depth-limited search with the static evaluation of the open terms at the horizon: the
# first MTD(f) guess, the ordering of moves deep in the tree, and the anytime searches'
# iterative deepening. The twin's counterpart is Solver._horizon and static_eval.

@cython.cdivision(True)
cdef inline int trunc_div(int a, int b) noexcept nogil:
    """Division rounding toward zero (C's, in the debug build too, whose other divisions are
    Python's), spelled out so the twin can match it."""
    return a / b


cdef inline int open_prize(const Pos* p, uint64_t card) noexcept nogil:
    """An open prize card's share of static_eval: 60 to the team holding it, 30 to the mover's
    team when it lies on the table (0 in the stock)."""
    cdef int seat
    if p.table & card:
        return 30 if (p.turn & 1) == 0 else -30
    for seat in range(p.nplayers):
        if p.hands[seat] & card:
            return 60 if (seat & 1) == 0 else -60
    return 0


cdef int static_eval(const Pos* p, int opts) noexcept nogil:
    """A heuristic final difference (team 0 minus team 1) x 100, for the horizon search.

    Banked points count in full; an open card or coin count by its lead over the cards
    left; an open settebello 60 to the team holding it (30 to the mover's team when it
    lies on the table), and so an open re bello when ``re_bello`` scores it; an open
    primiera 40 to the team ahead on its current bests; of an open napola the points one
    team is sure of whatever the coins left do.
    """
    cdef Info info
    cdef uint64_t rest = p.table | p.hands[0] | p.hands[1] | p.hands[2] | p.hands[3] | stock_mask(p)
    cdef uint64_t coins_left
    cdef int e, d, s, b0 = 0, b1 = 0, lo_n, hi_n
    node_info(p, opts, &info)
    e = 100 * info.B
    if (info.sig_a >> 10) & 1:
        d = scopa_popcount(p.captured[0]) - scopa_popcount(p.captured[1])
        e += trunc_div(100 * d, scopa_popcount(rest) + 1)
    if (info.sig_a >> 18) & 1:
        d = scopa_popcount(p.captured[0] & C_COINS) - scopa_popcount(p.captured[1] & C_COINS)
        e += trunc_div(100 * d, scopa_popcount(rest & C_COINS) + 1)
    if rest & C_SETTEBELLO:
        e += open_prize(p, C_SETTEBELLO)
    if opts & C_OPT_RE_BELLO and rest & C_RE_BELLO:  # (RULES §7: a point, as the settebello)
        e += open_prize(p, C_RE_BELLO)
    if (info.sig_a >> 25) & 1:  # an open napola: its sure part (0 while either team may make it)
        coins_left = rest & C_COINS
        lo_n = napola_c(p.captured[0]) - napola_c(p.captured[1] | coins_left)
        hi_n = napola_c(p.captured[0] | coins_left) - napola_c(p.captured[1])
        if lo_n > 0:
            e += 100 * lo_n
        elif hi_n < 0:
            e += 100 * hi_n
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
