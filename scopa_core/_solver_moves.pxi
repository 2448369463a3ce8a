# Move generation and ordering: the search's own capture enumeration (rank sets, a memo), one
# move per class of equivalent moves, the main search's ordering scores and the leaf search's.
# The twin's counterpart is scopa_core/_twin_moves.py.

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
