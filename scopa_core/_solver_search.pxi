# The main search: negamax on the open value with sure-point cutoffs, the transposition table,
# enhanced transposition cutoffs and the history heuristic. The twin's counterpart is
# Solver._search in scopa_core/_twin_solver.py.

cdef int search(SState* S, const Pos* p, const Info* info, int alpha, int beta) noexcept nogil:
    """Negamax on the open value ``w`` of ``p`` (mover's side), fail-soft."""
    cdef int sigma = 1 if (p.turn & 1) == 0 else -1
    cdef int w_lo, w_hi, n, i, j, k, bi, best, v, g, a, depth, bs, sb
    cdef int best_card = -1, tt_card = -1
    cdef uint64_t best_cap = 0, tt_cap = 0, m, neutral
    cdef TTEntry* e
    cdef TTEntry ecopy    # where a shared table's entry is copied (see tt_find)
    cdef Pos child
    cdef Info cinfo
    cdef Key key
    cdef Key etc_keys[ETC_MAX]
    cdef int etc_gain[ETC_MAX]
    cdef int c, idx, nd, jd
    cdef int deferred[DEFER_MAX]
    cdef uint64_t mh = 0
    cdef uint64_t* slot = NULL   # the busy-table slot of the move being searched (deferring nodes)
    cdef bint defer
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
    depth = plays_left(p)
    # the root is always searched here, for the move that proves its bound (the sure-point
    # cutoffs and the leaf search below know no move, and a limited solve reports this one)
    if w_hi <= alpha and depth != S.root_depth:
        return w_hi
    if w_lo >= beta and depth != S.root_depth:
        return w_lo
    sb = sigma * info.B
    if depth < S.leaf_depth and depth != S.root_depth:
        S.nodes -= 1
        # a card neutral here stays neutral below (its suit's bests only rise, decided terms
        # stay decided): the leaf search plays one card per neutral rank in a hand
        S.leaf_neutral = neutral_cards(p, info, S.opts)
        return leaf_search(S, p, alpha + sb, beta + sb) - sb
    neutral = neutral_cards(p, info, S.opts)
    make_key(p, info, neutral, &key)
    scopa_prefetch(S.tt + 2 * (key.h & S.tt_mask))   # the moves are generated while the bucket is fetched
    n = gen_moves(S, p, neutral)
    e = tt_probe(S, &key, &ecopy)
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
                    e = tt_find(S, &etc_keys[i], &ecopy)
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
    if S.thread_no and depth == S.root_depth and n > 1:
        # helper thread k of a parallel solve: its k best-ordered moves go last, so the threads
        # start on different moves and fill the shared table with different subtrees
        for k in range(S.thread_no if S.thread_no < n else n - 1):
            bi = S.sp
            bs = S.mscore[S.sp]
            for i in range(S.sp + 1, S.sp + n):
                if S.mscore[i] > S.mscore[bi]:
                    bi = i
                if S.mscore[i] < bs:
                    bs = S.mscore[i]
            S.mscore[bi] = bs - 1
    S.sp += n
    best = -1000
    # shared by threads (simplified ABDADA): a move another thread is searching now is put
    # off until the other moves are searched (the first move never), so that the threads
    # split a node's moves instead of racing through the same subtree
    defer = S.shared and S.defer_depth > 0 and depth >= S.defer_depth
    nd = 0
    jd = 0
    i = S.sp - n
    while True:
        if i < S.sp:
            select_best(S, i)
            idx = i
            i += 1
        elif jd < nd:
            idx = deferred[jd]   # (jd > 0 from here on: the deferred moves are not put off again)
            jd += 1
        else:
            break
        c = S.mcard[idx]
        m = S.mcap[idx]
        if defer:
            mh = mix64(key.h ^ (<uint64_t>(c + 1) << 58) ^ m) | 1
            slot = &S.busy[mh & (BUSY_SIZE - 1)]
            if jd == 0 and idx > S.sp - n and nd < DEFER_MAX and scopa_load64(slot) == mh:
                deferred[nd] = idx
                nd += 1
                continue
        child = p[0]
        apply_pos(&child, c, m, S.opts)
        node_info(&child, S.opts, &cinfo)
        g = sigma * (cinfo.B - info.B)
        a = alpha if alpha > best else best
        if defer:
            scopa_store64(slot, mh)
            v = g - search(S, &child, &cinfo, g - beta, g - a)
            if scopa_load64(slot) == mh:
                scopa_store64(slot, 0)
        else:
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
                for k in range(S.sp - n, idx):
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


cdef int mtdf_loop(SState* S, const Pos* p, const Info* info, int* lo, int* hi, int guess,
                   int* card, uint64_t* cap) noexcept nogil:
    """MTD(f): null-window searches from ``guess`` until ``lo == hi`` or the search stops,
    narrowing ``[lo, hi]``; ``card``/``cap`` get the move of the last search that proved
    ``lo``. Returns the number of completed searches.

    In a parallel solve (``S.bounds``) the threads pool what each search proves: before a
    search a thread takes the bounds the others proved and picks a test no other thread is
    running, after it gives what it proved; a test the others answer meanwhile is dropped
    (``poll``), and the thread that closes the interval sets the ``done`` word that stops
    the others."""
    cdef int g = guess, beta, it = 0, cand, off, t
    cdef int me = S.thread_no % TEST_SLOTS
    cdef bint taken
    cdef Bounds* b = S.bounds
    while True:
        if b != NULL:
            scopa_lock(&b.lock)
            if b.lo > lo[0]:
                lo[0] = b.lo
                card[0] = b.card
                cap[0] = b.cap
            if b.hi < hi[0]:
                hi[0] = b.hi
        if lo[0] >= hi[0]:
            if b != NULL:
                scopa_unlock(&b.lock)
            break
        if g < lo[0]:
            g = lo[0]
        if g > hi[0]:
            g = hi[0]
        beta = g if g > lo[0] else lo[0] + 1
        if b != NULL:
            # the nearest test to beta, in (lo, hi], that no other thread is running
            for off in range(2 * (hi[0] - lo[0]) + 1):
                cand = beta + ((off + 1) // 2 if off % 2 else -(off // 2))
                if cand <= lo[0] or cand > hi[0]:
                    continue
                taken = False
                for t in range(TEST_SLOTS):
                    if t != me and b.testing[t] == cand:
                        taken = True
                if not taken:
                    beta = cand
                    break
            b.testing[me] = beta
            scopa_unlock(&b.lock)
        S.beta = beta
        S.root_card = -1
        g = search(S, p, info, beta - 1, beta)
        if not S.aborted:
            it += 1
            if g < beta:
                hi[0] = g
            else:
                lo[0] = g
                card[0] = S.root_card
                cap[0] = S.root_cap
        if b != NULL:
            # this test is over: its slot is free, and what it proved is everyone's
            scopa_lock(&b.lock)
            b.testing[me] = NO_TEST
            if not S.aborted:
                # (lo and hi written as poll reads them, outside the lock: whole words)
                if lo[0] > b.lo:
                    scopa_flag_write(&b.lo, lo[0])
                    b.card = card[0]
                    b.cap = cap[0]
                if hi[0] < b.hi:
                    scopa_flag_write(&b.hi, hi[0])
                if b.lo >= b.hi and S.done != NULL:
                    scopa_flag_write(<int*>S.done, 1)
            scopa_unlock(&b.lock)
        if S.aborted:
            if not S.moot:
                break
            S.moot = False
            S.aborted = False
            arm_checks(S)
            g = beta
    return it
