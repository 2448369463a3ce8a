# Sure-point bounds and the score split: the banked points, the range of the open value and
# the summary of the undecided scoring terms (node_info), and the final difference of closed
# piles. The twin's counterpart is scopa_core/_twin_bounds.py.

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
