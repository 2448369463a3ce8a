"""Pure-Python twin of the compiled core (``scopa_core._core``).

It has exactly the same API and gives exactly the same results, move for move and
random number for random number, as the Cython module; it is the reference the
compiled code is tested against, and the fallback where the extension cannot be
built. ``SCOPA_NO_EXTENSIONS=1`` selects it.

Cards are ints ``0..39`` (``suit * 10 + value - 1``, suits d, c, s, b) and sets of
cards are 40-bit masks. See ``scopa_core/__init__.py`` for the whole API.
"""

from __future__ import annotations

import threading

from scopa_core import _checks

# Rule options, packed into one int (the same bits as the compiled core).
OPT_FEWEST = 1
OPT_ACE_TAKES_ALL = 2
OPT_ACE_SWEEP_IS_SCOPA = 4
OPT_SCOPA_ON_LAST_PLAY = 8
OPT_RE_BELLO = 16
OPT_NAPOLA = 32
OPT_PRIMIERA_ALL_SUITS = 64
OPT_REDEAL_ON_KINGS = 128

#: Scoring categories, in the order of :func:`score`'s rows.
CATEGORIES = ("carte", "denari", "settebello", "primiera", "scope", "re_bello", "napola")
NCAT = len(CATEGORIES)

FULL = (1 << 40) - 1
COINS = (1 << 10) - 1
SETTEBELLO = 1 << 6
RE_BELLO = 1 << 9
_M64 = (1 << 64) - 1
PRIMIERA_VALUES = (16, 12, 13, 14, 15, 18, 21, 10, 10, 10)
RANK_MASK = tuple(
    0 if v == 0 else (1 << (v - 1)) | (1 << (v + 9)) | (1 << (v + 19)) | (1 << (v + 29)) for v in range(11)
)
KINGS = RANK_MASK[10]
ACES = RANK_MASK[1]
#: Best primiera value of each 10-bit suit mask (0 for an empty suit).
_SUIT_BEST = tuple(max((PRIMIERA_VALUES[i] for i in range(10) if m >> i & 1), default=0) for m in range(1024))


def _bits(mask: int) -> list[int]:
    """Indexes of the set bits of ``mask``, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def popcount(mask: int) -> int:
    """Number of cards in ``mask``."""
    return bin(_checks.check_word(mask, "mask")).count("1")


def _popcount(mask: int) -> int:
    return bin(mask).count("1")


class StopFlag:
    """A flag that stops the core's searches that watch it, from any thread (as the
    compiled ``StopFlag``).

    >>> f = StopFlag()
    >>> f.is_set(), f.set(), f.is_set(), f
    (False, None, True, StopFlag(set=True))
    """

    __slots__ = ("_set",)

    def __new__(cls, *args: object, **kwargs: object) -> StopFlag:
        # lowered from the start, as the compiled flag's C field is, even before __init__
        self = super().__new__(cls)
        self._set = False
        return self

    def __init__(self, set: bool = False) -> None:  # noqa: A002 - the repr's name
        _checks.check_flag(set, "set")
        self._set = set

    def set(self) -> None:
        """Ask the searches that watch this flag to stop."""
        self._set = True

    def clear(self) -> None:
        """Lower the flag."""
        self._set = False

    def is_set(self) -> bool:
        """Whether the flag is set."""
        return self._set

    def __repr__(self) -> str:
        return f"StopFlag(set={self._set})"

    def __reduce__(self) -> tuple:
        return (_stop_flag, (self._set,))

    def __copy__(self) -> StopFlag:
        return self  # (a copy that no one sets would stop nothing: a Limit deep-copied keeps its flag)

    def __deepcopy__(self, memo: object) -> StopFlag:
        return self


def _stop_flag(is_set: bool) -> StopFlag:
    f = StopFlag()
    if is_set:
        f.set()
    return f


def check_stop(stop: object) -> StopFlag | None:
    """``stop`` if it is a :class:`StopFlag` or None (as the compiled core's check)."""
    if stop is not None and not isinstance(stop, StopFlag):
        raise _checks.bad_stop(stop, StopFlag)
    return stop


def in_main_thread() -> bool:
    """Whether the caller runs in the main thread (where Python runs signal handlers)."""
    return threading.current_thread() is threading.main_thread()


def captures(card: int, table: int, opts: int) -> list[int]:
    """Every set of table cards that ``card`` may capture, as masks, in the core's order.

    An empty list means the card captures nothing and is laid down. Order: the
    single equal-rank cards by index; otherwise the sets of two or more cards whose
    values add up to the card's, in lexicographic order of their index lists.

    Table Ad 3c 4s 5b, playing Qd (value 9): A+3+5 or 4+5 (RULES §3).

    >>> captures(8, 1 << 0 | 1 << 12 | 1 << 23 | 1 << 34, 0) == [
    ...     1 << 0 | 1 << 12 | 1 << 34, 1 << 23 | 1 << 34]
    True
    """
    _checks.check_card(card)
    _checks.check_mask(table, "table")
    _checks.check_off_table(card, table)
    _checks.check_opts(opts)
    return _captures(card, table, opts)


def _captures(card: int, table: int, opts: int) -> list[int]:
    v = card % 10 + 1
    if opts & OPT_ACE_TAKES_ALL and v == 1:
        aces = table & ACES
        if aces:
            return [1 << i for i in _bits(aces)]
        return [table] if table else []
    same = table & RANK_MASK[v]
    if same:
        return [1 << i for i in _bits(same)]
    cands = [i for i in _bits(table) if i % 10 + 1 < v]
    out: list[int] = []
    sizes: list[int] = []

    def dfs(start: int, total: int, mask: int, size: int) -> None:
        for j in range(start, len(cands)):
            c = cands[j]
            t = total + c % 10 + 1
            if t == v:
                if size >= 1:
                    out.append(mask | 1 << c)
                    sizes.append(size + 1)
            elif t < v:
                dfs(j + 1, t, mask | 1 << c, size + 1)

    dfs(0, 0, 0, 0)
    if opts & OPT_FEWEST and out:
        best = min(sizes)
        out = [m for m, k in zip(out, sizes, strict=True) if k == best]
    return out


def legal_moves(hand: int, table: int, opts: int) -> list[tuple[int, int]]:
    """Legal moves ``(card, captured_mask)`` for a hand against a table; 0 = lay down."""
    _checks.check_mask(hand, "hand")
    _checks.check_mask(table, "table")
    _checks.check_apart(hand, "hand", table, "table")
    _checks.check_opts(opts)
    return _legal_moves(hand, table, opts)


def apply_move(pos: tuple, card: int, capture: int, opts: int, block: int) -> tuple:
    """Play ``card`` capturing ``capture`` (0 = lay down) and return the next position.

    ``pos`` is ``(hands, table, stock, captured, scope, turn, last_capture)`` with
    ``hands`` a tuple of masks per seat, ``stock`` a tuple of cards (top first),
    ``captured`` and ``scope`` pairs per team, ``last_capture`` a team or -1. After the
    play, empty hands are refilled from the stock in blocks of ``block`` cards (the
    first block to the seat to move), and at the end of the hand the table goes to
    the last capturer. The arguments' shapes and ranges are checked, and that the card is in
    the mover's hand and the captured cards on the table; that the rules allow the capture is
    not: the caller validates it.
    """
    _checks.check_card(card)
    _checks.check_mask(capture, "captured cards")
    _checks.check_opts(opts)
    _checks.check_tuple(pos, block)
    _checks.check_move_cards(pos[0][pos[5]], pos[1], card, capture, pos[5])
    after = _apply(pos, card, capture, opts, block)
    if max(after[4]) > _checks.MAX_SCOPE:
        raise _checks.CoreError(
            f"bad position tuple {_checks.short(pos)}: a scopa now would pass {_checks.MAX_SCOPE} scope"
        )
    return after


def _apply(pos: tuple, card: int, capture: int, opts: int, block: int) -> tuple:
    hands, table, stock, captured, scope, turn, last = pos
    stock = tuple(stock)
    n = len(hands)
    bit = 1 << card
    hands = tuple(h & ~bit if i == turn else h for i, h in enumerate(hands))
    team = turn & 1
    cap = list(captured)
    sc = list(scope)
    if capture:
        table &= ~capture
        cap[team] |= capture | bit
        last = team
        if table == 0:
            last_play = not stock and not any(hands)
            ace_sweep = opts & OPT_ACE_TAKES_ALL and card % 10 == 0 and not capture & ACES
            if (not last_play or opts & OPT_SCOPA_ON_LAST_PLAY) and (
                not ace_sweep or opts & OPT_ACE_SWEEP_IS_SCOPA
            ):
                sc[team] += 1
    else:
        table |= bit
    turn = (turn + 1) % n
    if not any(hands):
        if stock:
            new = list(hands)
            for k in range(n):
                seat = (turn + k) % n
                m = 0
                for c in stock[k * block : (k + 1) * block]:
                    m |= 1 << c
                new[seat] = m
            hands = tuple(new)
            stock = tuple(stock[n * block :])
        elif table and last >= 0:
            cap[last] |= table
            table = 0
    return (tuple(hands), table, stock, (cap[0], cap[1]), (sc[0], sc[1]), turn, last)


def primiera(mask: int, opts: int) -> int:
    """Primiera total of a pile, or -1 when a suit is missing and all suits are required."""
    _checks.check_mask(mask)
    _checks.check_opts(opts)
    return _primiera(mask, opts)


def _primiera(mask: int, opts: int) -> int:
    total = 0
    for s in range(4):
        best = _SUIT_BEST[(mask >> (10 * s)) & COINS]
        if best == 0 and opts & OPT_PRIMIERA_ALL_SUITS:
            return -1
        total += best
    return total


def _napola(mask: int) -> int:
    run = 0
    while run < 10 and mask >> run & 1:
        run += 1
    return run if run >= 3 else 0


def score(cap0: int, cap1: int, scope0: int, scope1: int, opts: int) -> tuple:
    """Points per category: ``((carte, denari, ..., napola) of team 0, same of team 1)``."""
    _checks.check_mask(cap0, "team 0's pile")
    _checks.check_mask(cap1, "team 1's pile")
    _checks.check_apart(cap0, "team 0's pile", cap1, "team 1's pile")
    _checks.check_int(scope0, "scope", 0, _checks.MAX_SCOPE)
    _checks.check_int(scope1, "scope", 0, _checks.MAX_SCOPE)
    _checks.check_opts(opts)
    return _score(cap0, cap1, scope0, scope1, opts)


def _score(cap0: int, cap1: int, scope0: int, scope1: int, opts: int) -> tuple:
    rows = [[0] * NCAT, [0] * NCAT]
    n0, n1 = _popcount(cap0), _popcount(cap1)
    if n0 != n1:
        rows[0 if n0 > n1 else 1][0] = 1
    d0, d1 = _popcount(cap0 & COINS), _popcount(cap1 & COINS)
    if d0 != d1:
        rows[0 if d0 > d1 else 1][1] = 1
    if cap0 & SETTEBELLO:
        rows[0][2] = 1
    elif cap1 & SETTEBELLO:
        rows[1][2] = 1
    p0, p1 = _primiera(cap0, opts), _primiera(cap1, opts)
    if p0 != p1:
        rows[0 if p0 > p1 else 1][3] = 1
    rows[0][4], rows[1][4] = scope0, scope1
    if opts & OPT_RE_BELLO:
        if cap0 & RE_BELLO:
            rows[0][5] = 1
        elif cap1 & RE_BELLO:
            rows[1][5] = 1
    if opts & OPT_NAPOLA:
        rows[0][6] = _napola(cap0)
        rows[1][6] = _napola(cap1)
    return (tuple(rows[0]), tuple(rows[1]))


class _Rng:
    """splitmix64, the generator of the compiled core."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & _M64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _M64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
        return z ^ (z >> 31)


def _shuffle(rng: _Rng, deck: list[int]) -> None:
    for i in range(len(deck) - 1, 0, -1):
        j = rng.next() % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]


def _deal(rng: _Rng, nplayers: int, hand_size: int, table_size: int, opts: int) -> tuple:
    while True:
        deck = list(range(40))
        _shuffle(rng, deck)
        k = nplayers * hand_size
        table = 0
        for c in deck[k : k + table_size]:
            table |= 1 << c
        if not (opts & OPT_REDEAL_ON_KINGS and _popcount(table & KINGS) >= 3):
            break
    hands = []
    for i in range(nplayers):
        m = 0
        for c in deck[i * hand_size : (i + 1) * hand_size]:
            m |= 1 << c
        hands.append(m)
    return tuple(hands), table, tuple(deck[k + table_size :])


def shuffle(seed: int) -> list[int]:
    """The 40 cards in the order the core's generator shuffles them for ``seed``."""
    _checks.check_seed(seed)
    deck = list(range(40))
    _shuffle(_Rng(seed), deck)
    return deck


def deal(nplayers: int, hand_size: int, table_size: int, opts: int, seed: int) -> tuple:
    """Deal a hand: ``(hands, table, stock)``; seat ``i`` gets the ``i``-th block of the
    shuffled deck, then the table, then the stock (top first). With
    ``OPT_REDEAL_ON_KINGS`` a table with three or more kings is dealt again."""
    _checks.check_geometry(nplayers, hand_size, table_size)
    _checks.check_opts(opts)
    _checks.check_seed(seed)
    return _deal(_Rng(seed), nplayers, hand_size, table_size, opts)


def _heuristic_score(table: int, card: int, cap: int, opts: int = 0) -> int:
    """The heuristic playouts' value of a move: a capture by the cards, coins, sevens and
    settebello it takes (the re bello as the settebello, napola's ace, two and three of coins
    30 each, when the options score them), most for a sweep that scores; a lay-down by what
    it offers."""
    bit = 1 << card
    prize = SETTEBELLO | (RE_BELLO if opts & OPT_RE_BELLO else 0)
    if cap == 0:
        v = -60 if bit & prize else -20 if bit & RANK_MASK[7] else 0
        return v - 5 if bit & COINS else v
    taken = cap | bit
    v = 100 + 10 * _popcount(taken) + 8 * _popcount(taken & COINS) + 15 * _popcount(taken & RANK_MASK[7])
    v += 60 * _popcount(taken & prize)
    if opts & OPT_NAPOLA:
        v += 30 * _popcount(taken & 7)
    ace_all = opts & OPT_ACE_TAKES_ALL and card % 10 == 0 and not table & ACES
    return v + 300 if cap == table and not (ace_all and not opts & OPT_ACE_SWEEP_IS_SCOPA) else v


def _play_out(pos: tuple, opts: int, block: int, rng: _Rng, policy: int = 0) -> tuple:
    """Legal moves until the hand is over: uniformly random (policy 0), or (1) a quarter of
    the time at random and otherwise the first best by :func:`_heuristic_score`."""
    while any(pos[0]):
        moves = _legal_moves(pos[0][pos[5]], pos[1], opts)
        r = rng.next()
        if policy == 0 or (r >> 32) % 4 == 0:
            card, cap = moves[r % len(moves)]
        else:
            table = pos[1]
            card, cap = max(moves, key=lambda mv: _heuristic_score(table, mv[0], mv[1], opts))
        pos = _apply(pos, card, cap, opts, block)
    return pos


def _legal_moves(hand: int, table: int, opts: int) -> list[tuple[int, int]]:
    """:func:`legal_moves` without the checks, for the loops that made their arguments."""
    moves: list[tuple[int, int]] = []
    for c in _bits(hand):
        caps = _captures(c, table, opts)
        if caps:
            moves.extend((c, m) for m in caps)
        else:
            moves.append((c, 0))
    return moves


def rollouts(pos: tuple, opts: int, block: int, n: int, seed: int, policy: int = 0) -> list[int]:
    """Finish the hand from ``pos`` ``n`` times with uniformly random legal moves (``policy``
    0) or heuristic ones (1, see :func:`_play_out`); each finish's final score difference
    (team 0 minus team 1). ``pos`` must be playable (``_checks.check_playable``)."""
    _checks.check_opts(opts)
    _checks.check_tuple(pos, block)
    _checks.check_count(n)
    _checks.check_seed(seed)
    _checks.check_policy(policy)
    _checks.check_playable(pos)
    rng = _Rng(seed)
    out = []
    for _ in range(n):
        end = _play_out(pos, opts, block, rng, policy)
        row0, row1 = _score(end[3][0], end[3][1], end[4][0], end[4][1], opts)
        out.append(sum(row0) - sum(row1))
    return out


def playouts(nplayers: int, hand_size: int, table_size: int, opts: int, n: int, seed: int):
    """Play ``n`` whole hands with uniformly random legal moves; seat 0 leads each hand.

    Returns ``(points, breakdown)``: int16 arrays of shape ``(n, 2)`` (points per team)
    and ``(n, 2, NCAT)`` (points per team and category, see :data:`CATEGORIES`).
    """
    import numpy as np  # imported on first use, as in the compiled core

    _checks.check_geometry(nplayers, hand_size, table_size)
    _checks.check_opts(opts)
    _checks.check_count(n)
    _checks.check_seed(seed)
    rng = _Rng(seed)
    breakdown = np.zeros((n, 2, NCAT), dtype=np.int16)
    for h in range(n):
        hands, table, stock = _deal(rng, nplayers, hand_size, table_size, opts)
        pos = _play_out((hands, table, stock, (0, 0), (0, 0), 0, -1), opts, hand_size, rng)
        captured, scope = pos[3], pos[4]
        breakdown[h] = _score(captured[0], captured[1], scope[0], scope[1], opts)
    return breakdown.sum(axis=2, dtype=np.int16), breakdown


# The solver has its own module; the twin's API includes it (and the plain minimax). It is
# loaded on first use (PEP 562), so that the solver's helper modules, which import this one,
# can be imported first.
_SOLVER_NAMES = ("Solver", "analyze_minimax", "minimax", "replay")


def __getattr__(name: str) -> object:
    if name in _SOLVER_NAMES:
        from scopa_core import _twin_solver

        value = globals()[name] = getattr(_twin_solver, name)  # once: later lookups find it
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_SOLVER_NAMES})
