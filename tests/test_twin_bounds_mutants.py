"""The solver's sure-point bounds and score split (RULES §8; the twin's
``scopa_core/_twin_bounds.py``, the compiled core's ``_solver_bounds.pxi``), as a mutation run
of the twin's module found them unpinned: the table key's summary of the undecided terms, the
banked points the horizon's evaluation counts, and the sweep test the bounds and the move
ordering use."""

from __future__ import annotations

import random

import pytest
from conftest import TWIN_RUN
from helpers import brute_captures

GEOMETRIES = {
    "scopa": (2, 3, 4),
    "scopa4": (4, 3, 4),
    "scopone": (4, 9, 4),
    "scopone_scientifico": (4, 10, 0),
}
# (fewest, ace_takes_all + ace_sweep_is_scopa, scopa_on_last_play, re_bello, napola,
# primiera_requires_all_suits, and mixes of them)
OPTION_SETS = [0, 64, 16, 32, 16 | 64, 1 | 64, 2 | 4, 8 | 64, 16 | 32 | 64, 255 & ~128]


def _bits(mask: int) -> list[int]:
    return [i for i in range(40) if mask >> i & 1]


def _popcount(mask: int) -> int:
    return bin(mask).count("1")


def _piles_family(rnd: random.Random, n: int, count: int) -> list[tuple]:
    """``count`` positions with the same cards in play (hands, table, seat to move; no stock)
    and the captured cards split otherwise between the teams: a few swapped between the
    piles (often two of one suit, so the card and coin counts stay), one moved across, the
    scope and the last capturer changed."""
    deck = list(range(40))
    rnd.shuffle(deck)
    k = rnd.randint(1, 3 if n == 2 else 2)
    behind = rnd.randrange(n)  # seats (the last ones before the mover's turn) that already played
    turn = rnd.randrange(n)
    hands = [0] * n
    for i in range(n):
        size = k if i < n - behind else k - 1
        for _ in range(size):
            hands[(turn + i) % n] |= 1 << deck.pop()
    table = 0
    for _ in range(rnd.randint(0, 4)):
        table |= 1 << deck.pop()
    # each suit mostly with one team or shared, so that suits go missing and primiera is close
    lean = [rnd.choice([0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0]) for _ in range(4)]
    c0 = c1 = 0
    for c in deck:
        if rnd.random() < lean[c // 10]:
            c0 |= 1 << c
        else:
            c1 |= 1 << c
    scope = [rnd.randint(0, 2), rnd.randint(0, 2)]
    last = rnd.randrange(2)
    out = [((*hands,), table, (), (c0, c1), (*scope,), turn, last)]
    for _ in range(count - 1):
        for _ in range(rnd.randint(1, 3)):
            op = rnd.random()
            if op < 0.6 and c0 and c1:  # two cards swapped, of one suit where there are
                a = rnd.choice(_bits(c0))
                same = [b for b in _bits(c1) if b // 10 == a // 10]
                b = rnd.choice(same if same and op < 0.45 else _bits(c1))
                c0, c1 = (c0 & ~(1 << a)) | 1 << b, (c1 & ~(1 << b)) | 1 << a
            elif op < 0.8 and c0 | c1:  # one card to the other pile
                a = rnd.choice(_bits(c0 | c1))
                c0, c1 = c0 ^ (1 << a), c1 ^ (1 << a)
            elif op < 0.9:
                scope[rnd.randrange(2)] = rnd.randint(0, 2)
            else:
                last = 1 - last
        out.append(((*hands,), table, (), (c0, c1), (*scope,), turn, last))
    return out


def test_the_table_keeps_apart_positions_whose_piles_differ(core, twin):
    # RULES §8: a position's value counts the piles already made (RULES §4: cards, coins,
    # settebello, primiera, and RULES §7's re bello and napola). The table is kept between
    # solves of one hand, and its key holds only the cards in play and a summary of the
    # undecided terms; the sure-point bounds take a term for decided when no card in play can
    # change it. Families of positions with the same cards in play and other piles (suits
    # missing from a pile, under primiera_requires_all_suits too), through one solver, every
    # node through the table and the bounds (no leaf search), against plain minimax: a
    # primiera banked for a team that still lacks a suit, or every term taken for open, gave
    # wrong values.
    rnd = random.Random(2412)
    checked = 0
    for f in range(120 if TWIN_RUN else 200):
        opts = OPTION_SETS[f % len(OPTION_SETS)]
        n = 4 if f % 6 == 5 else 2
        solver = core.Solver(4)
        solver.leaf_depth = 0
        for pos in _piles_family(rnd, n, 10):
            ref = twin.minimax(pos, opts, 3)
            exact, lower, upper = solver.solve(pos, opts, 3)[:3]
            assert exact and lower == upper == ref, (pos, opts)
            checked += 1
    assert checked >= 1200


# A suit's cards above a pair of neighbours in primiera value (RULES §4: 7 21, 6 18, A 16,
# 5 15, 4 14, 3 13, 2 12), by rank index (A = 0): the pair is each team's best of the suit
# while those are still in play.
_NEIGHBOURS = {(1, 2): [0, 3, 4, 5, 6], (3, 4): [0, 5, 6], (5, 6): []}


def _deal_places(rnd: random.Random, n: int, k: int, at_least: int) -> tuple[int, list[int]]:
    """The seat to move and a place for each card in play (a seat, or -1 for the table):
    hands a round leaves (k, then k - 1 for the seats that already played), 0 to 3 table
    cards, and at least ``at_least`` places."""
    behind = rnd.randrange(n)
    turn = rnd.randrange(n)
    places = []
    for i in range(n):
        places += [(turn + i) % n] * (k if i < n - behind else k - 1)
    places += [-1] * rnd.randint(0, 3)
    places += [-1] * max(0, at_least - len(places))
    rnd.shuffle(places)
    return turn, places


def _neighbour_pair(rnd: random.Random, n: int) -> tuple[tuple, tuple]:
    """Two positions with the same cards in play, team 0 best in a suit with one of two
    neighbours in primiera value and team 1 with the other, then the other way round."""
    (x, y), above = rnd.choice(list(_NEIGHBOURS.items()))
    s = rnd.randrange(4)
    x, y = 10 * s + x, 10 * s + y
    high = [10 * s + i for i in above]
    deck = [c for c in range(40) if c not in (x, y, *high)]
    rnd.shuffle(deck)
    turn, places = _deal_places(rnd, n, 3 if n == 2 else 2, len(high))
    inplay = high + [deck.pop() for _ in range(len(places) - len(high))]
    rnd.shuffle(inplay)
    hands, table = [0] * n, 0
    for c, p in zip(inplay, places, strict=True):
        if p < 0:
            table |= 1 << c
        else:
            hands[p] |= 1 << c
    c0 = c1 = 0
    for c in deck:
        if rnd.random() < 0.5:
            c0 |= 1 << c
        else:
            c1 |= 1 << c
    scope, last = (rnd.randint(0, 2), rnd.randint(0, 2)), rnd.randrange(2)
    return (
        ((*hands,), table, (), (c0 | 1 << x, c1 | 1 << y), scope, turn, last),
        ((*hands,), table, (), (c0 | 1 << y, c1 | 1 << x), scope, turn, last),
    )


def test_the_table_keeps_apart_primiera_bests_one_step_apart(core, twin):
    # RULES §4, primiera: a suit's best of 7 is worth 21 and of 6 18, of 5 15 and of 4 14, of
    # 3 13 and of 2 12. Two positions with the same cards in play whose teams hold such
    # neighbours as their bests of a suit the other way round keep their own values through one
    # solver (the table's key holds each team's best per suit while primiera is open). RULES §8.
    rnd = random.Random(1)
    differ = 0
    for i in range(200 if TWIN_RUN else 300):
        n = 4 if i % 4 == 3 else 2
        opts = OPTION_SETS[i % len(OPTION_SETS)]
        first, second = _neighbour_pair(rnd, n)
        refs = twin.minimax(first, opts, 3), twin.minimax(second, opts, 3)
        solver = core.Solver(4)
        solver.leaf_depth = 0
        got = solver.solve(first, opts, 3)[1], solver.solve(second, opts, 3)[1]
        assert got == refs, (first, second, opts)
        differ += refs[0] != refs[1]
    assert differ >= 30


def test_coins_stay_apart_from_their_rank_while_denari_is_open(core, twin):
    # docs/solver.md: cards of one rank are interchangeable in the table and the move
    # generation only when their suit no longer matters, "not coins while denari is open"
    # (RULES §4: most coins, 6 of 10). The mover holds a jack or a queen of coins and one of
    # another suit, the coins captured so far split evenly, so laying down or capturing with
    # one or the other may differ; every node through the table (no leaf search), against
    # plain minimax (RULES §8).
    rnd = random.Random(1)
    for i in range(1200 if TWIN_RUN else 1500):
        n = 4 if i % 3 == 2 else 2
        opts = OPTION_SETS[i % len(OPTION_SETS)]
        rank = rnd.choice([7, 8])
        other = 10 * rnd.randint(1, 3) + rank
        deck = [c for c in range(40) if c not in (rank, other)]
        rnd.shuffle(deck)
        k = rnd.randint(2, 3) if n == 2 else 2
        turn, places = _deal_places(rnd, n, k, 0)
        hands, table = [0] * n, 0
        hands[turn] = 1 << rank | 1 << other
        places.remove(turn)
        places.remove(turn)
        for p in places:
            if p < 0:
                table |= 1 << deck.pop()
            else:
                hands[p] |= 1 << deck.pop()
        c0 = c1 = 0
        coins = [c for c in deck if c < 10]
        for j, c in enumerate(coins):
            if j % 2:
                c0 |= 1 << c
            else:
                c1 |= 1 << c
        for c in deck:
            if c >= 10:
                if rnd.random() < 0.5:
                    c0 |= 1 << c
                else:
                    c1 |= 1 << c
        pos = ((*hands,), table, (), (c0, c1), (rnd.randint(0, 2), rnd.randint(0, 2)), turn, rnd.randrange(2))
        solver = core.Solver(4)
        solver.leaf_depth = 0
        assert solver.solve(pos, opts, 3)[1] == twin.minimax(pos, opts, 3), (pos, opts)


# RULES §4: primiera values by rank index (A, 2, ..., 7, J, Q, K)
_PRIMIERA = (16, 12, 13, 14, 15, 18, 21, 10, 10, 10)


def _trunc(a: int, b: int) -> int:
    return abs(a) // b if a >= 0 else -(abs(a) // b)


def _documented_evaluation(twin, pos: tuple, opts: int) -> tuple[int, int]:
    """The depth-limited search's evaluation (x 100, team 0's side) as ``static_eval``'s
    docstring gives it: the banked points; an open card or coin lead over the cards (coins)
    left + 1; an open settebello (and re bello under that option) 60 to its holder's team,
    30 to the mover's team on the table; an open primiera 40 to the team ahead on its current
    bests; an open napola's sure part. A term is open when the cards in play can still change
    it: its value with all of them to team 0 is not its value with all of them to team 1.
    Also how many terms are open."""
    hands, table, stock, (c0, c1), (s0, s1), turn = pos[:6]
    rest = table | sum(1 << c for c in stock)
    for h in hands:
        rest |= h
    low = [a - b for a, b in zip(*twin.score(c0, c1 | rest, 0, 0, opts), strict=True)]
    high = [a - b for a, b in zip(*twin.score(c0 | rest, c1, 0, 0, opts), strict=True)]
    e = 100 * (s0 - s1)
    opened = 0
    for term, (lo, hi) in enumerate(zip(low, high, strict=True)):
        opened += lo != hi
        if lo == hi:
            e += 100 * lo
        elif term in (0, 1):  # carte, denari
            within = (1 << 40) - 1 if term == 0 else (1 << 10) - 1
            d = _popcount(c0 & within) - _popcount(c1 & within)
            e += _trunc(100 * d, _popcount(rest & within) + 1)
        elif term in (2, 5):  # settebello, re bello
            card = 1 << (6 if term == 2 else 9)
            if table & card:
                e += 30 if turn % 2 == 0 else -30
            for seat, h in enumerate(hands):
                if h & card:
                    e += 60 if seat % 2 == 0 else -60
        elif term == 3:  # primiera
            bests = [
                sum(
                    max([_PRIMIERA[i] for i in range(10) if pile >> (10 * s + i) & 1], default=0)
                    for s in range(4)
                )
                for pile in (c0, c1)
            ]
            e += 40 * ((bests[0] > bests[1]) - (bests[0] < bests[1]))
        elif term == 6:  # napola: what team 0 is sure of, or team 1
            e += 100 * lo if lo > 0 else 100 * hi if hi < 0 else 0
    return e, opened


def test_the_horizons_evaluation_is_the_documented_one(core, twin):
    # One ply deep, each move is worth the evaluation of the position it leaves (or, the hand
    # over, its score: RULES §4, §7), for the team to move. The terms' split between banked
    # and open and their fields read back by the evaluation: a card lead counted only for an
    # odd lead, a primiera lead counted while primiera was decided, no card or coin lead at all,
    # moved it. (On the compiled core too, whose evaluation is the twin's.)
    rnd = random.Random(78)
    decided = opened = 0
    for i in range(160 if TWIN_RUN else 240):
        game = list(GEOMETRIES)[i % 4]
        opts = OPTION_SETS[(i // 4) % len(OPTION_SETS)]
        n, hand_size, table_size = GEOMETRIES[game]
        hands, table, stock = twin.deal(n, hand_size, table_size, opts, rnd.getrandbits(64))
        pos = (hands, table, stock, (0, 0), (0, 0), rnd.randrange(n), -1)
        left = rnd.randint(2, 16)
        while sum(_popcount(h) for h in pos[0]) + len(pos[2]) > left:
            c, m = rnd.choice(twin.legal_moves(pos[0][pos[5]], pos[1], opts))
            pos = twin.apply_move(pos, c, m, opts, hand_size)
        sigma = 1 if pos[5] % 2 == 0 else -1
        values = core.Solver(1).analyze_depth(pos, opts, hand_size, 1)
        assert values is not None
        for c, m, v in values:
            child = twin.apply_move(pos, c, m, opts, hand_size)
            if child[2] or any(child[0]):
                expected, open_terms = _documented_evaluation(twin, child, opts)
                decided += not open_terms
                opened += open_terms > 0
            else:
                row0, row1 = twin.score(*child[3], *child[4], opts)
                expected = 100 * (sum(row0) - sum(row1))
            assert v == sigma * expected / 100, (pos, opts, c, m)
    assert decided >= 20 and opened >= 300


@pytest.mark.parametrize("opts", [0, 1, 2, 2 | 4, 1 | 2])
def test_the_sweep_test_finds_a_sweep_exactly_where_a_card_takes_the_whole_table(opts):
    # RULES §3 (equal rank first, else a sum) and §7 (ace_takes_all): whether a hand holds a
    # card that captures the whole table. The bounds count a scopa for the play now only when
    # it can sweep (docs/solver.md), and the ordering puts last the lay-downs that leave the
    # next player a sweep: never False where a sweep exists, and (fewest rule aside, which it
    # does not weigh) never True where none does. Against a brute force over the table's subsets.
    from scopa_core._twin_bounds import leaves_sweep

    rnd = random.Random(opts)
    sweeps = 0
    for _ in range(4000):
        table_cards = rnd.sample(range(40), rnd.choice([0, 1, 1, 2, 2, 3, 4]))
        table = sum(1 << c for c in table_cards)
        rest = [c for c in range(40) if not table >> c & 1]
        hand_cards = rnd.sample(rest, rnd.randint(0, 4))
        hand = sum(1 << c for c in hand_cards)
        takes_all = any(table in brute_captures(c, table, ace_takes_all=bool(opts & 2)) for c in hand_cards)
        if opts & 1:  # RULES §3.2 "fewest": a sweep the rule allows is one of these
            allowed = any(
                table in brute_captures(c, table, fewest=True, ace_takes_all=bool(opts & 2))
                for c in hand_cards
            )
            assert takes_all or not allowed
        assert leaves_sweep(table, hand, opts) == (table != 0 and takes_all), (table_cards, hand_cards)
        sweeps += takes_all
    assert sweeps > 200


def test_a_solve_stopped_at_its_first_node_reports_the_sure_point_range(core, twin):
    # docs/solver.md, sure-point cutoffs: "the range each open term can still reach, plus at
    # most one scopa per play still to make (not the hand's last play, nor the current play
    # when the mover has no sweep)". A solve stopped by its node limit at the first node has
    # proved nothing more and reports that range (RULES §8, for the team to move). Each term's
    # extremes are its values with every card in play to one team or to the other (no term
    # falls for a team as its pile grows: RULES §4, §7). Any looser range kept the values
    # exact, with more nodes searched and wider bounds reported under a limit.
    rnd = random.Random(31)
    checked = with_stock = 0
    for i in range(200 if TWIN_RUN else 300):
        game = list(GEOMETRIES)[i % 4]
        opts = [o for o in OPTION_SETS if not o & 1][(i // 4) % 8]  # (the fewest rule aside)
        n, hand_size, table_size = GEOMETRIES[game]
        hands, table, stock = twin.deal(n, hand_size, table_size, opts, rnd.getrandbits(64))
        pos = (hands, table, stock, (0, 0), (0, 0), rnd.randrange(n), -1)
        for _ in range(rnd.randrange(40)):
            if not (pos[2] or any(pos[0])):
                break
            c, m = rnd.choice(twin.legal_moves(pos[0][pos[5]], pos[1], opts))
            pos = twin.apply_move(pos, c, m, opts, hand_size)
        hands, table, stock, (c0, c1), (s0, s1), turn, _ = pos
        total = sum(_popcount(h) for h in hands) + len(stock)
        if not total:
            continue
        rest = table | sum(1 << c for c in stock)
        for h in hands:
            rest |= h
        low = twin.score(c0, c1 | rest, 0, 0, opts)
        high = twin.score(c0 | rest, c1, 0, 0, opts)
        lo0 = s0 - s1 + sum(low[0]) - sum(low[1])
        hi0 = s0 - s1 + sum(high[0]) - sum(high[1])
        may_sweep = set(range(total))  # play i is made by seat (turn + i) % n
        if not opts & 8:  # RULES §3.6: the last play is no scopa
            may_sweep.discard(total - 1)
        if not any(
            table in brute_captures(c, table, ace_takes_all=bool(opts & 2)) for c in _bits(hands[turn])
        ):
            may_sweep.discard(0)
        future = [0, 0]
        for p in may_sweep:
            future[(turn + p) % n % 2] += 1
        lo0, hi0 = lo0 - future[1], hi0 + future[0]
        expected = (lo0, hi0) if turn % 2 == 0 else (-hi0, -lo0)
        exact, lower, upper = core.Solver(1).solve(pos, opts, hand_size, node_limit=1)[:3]
        assert (lower, upper) == expected, (pos, opts, exact)
        checked += 1
        with_stock += bool(stock)
    assert checked >= 150 and with_stock >= 40
