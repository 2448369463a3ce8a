# The transposition table: canonical keys (neutral cards of one rank reassigned in a fixed
# order), 2-way buckets with depth-preferred replacement, bounds merged on store. The twin's
# counterpart is scopa_core/_twin_tt.py.

cdef void make_key(const Pos* p, const Info* info, uint64_t neutral, Key* k) noexcept nogil:
    """The table key of ``p``: hands and table in canonical form, the summary, the hash.

    For each rank, the neutral cards of that rank in hands and on the table are swapped
    so that the lowest suits go to the lowest seats (the table last): positions equal up
    to such swaps, which have equal values, get one key.
    """
    cdef uint64_t cls, bits, inplay
    cdef int v, loc, j
    cdef int cnt[5]
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


cdef inline TTEntry* tt_slot(SState* S, const Key* k) noexcept nogil:
    """The entry of this exact key (fully verified) in its bucket, or NULL; a shared table's
    caller holds the bucket's lock."""
    cdef TTEntry* e = S.tt + 2 * (k.h & S.tt_mask)
    cdef int i
    for i in range(2):
        if (e[i].w[0] == k.w[0] and e[i].w[1] == k.w[1] and e[i].sig_a == k.sig_a
                and e[i].sig_b == k.sig_b and e[i].epoch == S.epoch):
            return &e[i]
    return NULL


cdef TTEntry* tt_find(SState* S, const Key* k, TTEntry* copy) noexcept nogil:
    """The entry of this exact key, or NULL. Alone on its table, the entry itself; on a table
    that threads share, a copy of it in ``copy``, taken under its bucket's lock (another
    thread may rewrite the slot at any time)."""
    cdef TTEntry* b
    cdef TTEntry* e
    if not S.shared:
        return tt_slot(S, k)
    b = S.tt + 2 * (k.h & S.tt_mask)
    scopa_lock(&b.lock)
    e = tt_slot(S, k)
    if e != NULL:
        # field by field, not the lock: a copy of the whole entry read the first slot's lock
        # byte, which other threads spinning on it write at the same time (a data race)
        copy.w[0] = e.w[0]
        copy.w[1] = e.w[1]
        copy.sig_a = e.sig_a
        copy.sig_b = e.sig_b
        copy.capture = e.capture
        copy.lower = e.lower
        copy.upper = e.upper
        copy.card = e.card
        copy.depth = e.depth
        copy.epoch = e.epoch
    scopa_unlock(&b.lock)
    return copy if e != NULL else NULL


cdef inline TTEntry* tt_probe(SState* S, const Key* k, TTEntry* copy) noexcept nogil:
    cdef TTEntry* e = tt_find(S, k, copy)
    S.probes += 1
    if e != NULL:
        S.hits += 1
    return e


cdef void tt_store(SState* S, const Key* k, int best, int alpha, int beta, int card,
                   uint64_t capture, int depth) noexcept nogil:
    """Merge a search result into the table (the probe's entry may have been replaced since),
    under the bucket's lock when threads share the table."""
    cdef TTEntry* b = S.tt + 2 * (k.h & S.tt_mask)
    if S.shared:
        scopa_lock(&b.lock)
        tt_merge(S, k, best, alpha, beta, card, capture, depth)
        scopa_unlock(&b.lock)
    else:
        tt_merge(S, k, best, alpha, beta, card, capture, depth)


cdef inline void tt_merge(SState* S, const Key* k, int best, int alpha, int beta, int card,
                          uint64_t capture, int depth) noexcept nogil:
    cdef TTEntry* found = tt_slot(S, k)
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
