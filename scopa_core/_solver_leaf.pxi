# The leaf search (the last plays, plain alpha-beta on the final difference, with its small
# exact-key table) and the last round (forced plays in a loop). The twin's counterpart is
# Solver._leaf in scopa_core/_twin_solver.py.

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
    cdef int left = 0, lower, upper, tt_card = -1, best_card = -1, ds  # (left: set where e is)
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
