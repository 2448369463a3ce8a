# The depth-limited search with the static evaluation of the open terms at the horizon: the
# first MTD(f) guess, the ordering of moves deep in the tree, and the anytime searches'
# iterative deepening. The twin's counterpart is Solver._horizon and static_eval.

@cython.cdivision(True)
cdef inline int trunc_div(int a, int b) noexcept nogil:
    """Division rounding toward zero (C's, in the debug build too, whose other divisions are
    Python's), spelled out so the twin can match it."""
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
