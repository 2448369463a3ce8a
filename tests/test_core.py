"""The low-level core: both implementations, checked against independent re-derivations
and against each other (differential testing)."""

from __future__ import annotations

import os
import random
import re
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import CORES, TWIN_RUN
from helpers import brute_captures, idx, mask
from hypothesis import given
from hypothesis import strategies as st

GEOMETRIES = {
    "scopa": (2, 3, 4),
    "scopa4": (4, 3, 4),
    "scopone": (4, 9, 4),
    "scopone_scientifico": (4, 10, 0),
}
ALL_OPTS = 255


# ---------------------------------------------------------------- captures, RULES §3


def caps(core, card: str, table: str, opts: int = 0) -> list[list[str]]:
    from helpers import names

    return [names(m) for m in core.captures(idx(card), mask(table), opts)]


def test_equal_rank_only(core):
    # RULES §3.1 (seed 000): table 3, 5, J; playing a J takes only the J.
    assert caps(core, "Jc", "3d 5s Jb") == [["Jb"]]


def test_sums_free_rule(core):
    # RULES §3.2 (seed 000): table A, 3, 4, 5; a Q takes A+3+5 or 4+5 under "free".
    assert caps(core, "Qd", "Ac 3s 4b 5c") == [["Ac", "5c", "3s"], ["5c", "4b"]]


def test_sums_fewest_rule(core):
    # RULES §3.2 (seed 002): only 4+5 under "fewest".
    assert caps(core, "Qd", "Ac 3s 4b 5c", core.OPT_FEWEST) == [["5c", "4b"]]
    # Table A, 3, 4, 5, J: a Q takes A+J or 4+5 under "fewest", not A+3+5.
    got = caps(core, "Qd", "Ac 3s 4b 5c Jd", core.OPT_FEWEST)
    assert sorted(map(sorted, got)) == sorted([sorted(["Ac", "Jd"]), sorted(["4b", "5c"])])


def test_single_card_before_sum(core):
    # RULES §3.1 (seeds 001, 003): table 5, 4, A; a 5 must take the 5.
    assert caps(core, "5d", "5c 4s Ab") == [["5c"]]


def test_several_equal_cards_each_a_choice(core):
    # RULES §3.1: "capture exactly one of them (their choice of which)".
    assert caps(core, "7d", "7c 7s 3b 4b") == [["7c"], ["7s"]]


def test_nothing_to_capture(core):
    # RULES §3.4
    assert caps(core, "Kd", "Ac 2s") == []
    assert caps(core, "Ad", "") == []


def test_ace_takes_all(core):
    # RULES §7 ace_takes_all: no ace on the table -> the whole table; an ace -> that ace only.
    o = core.OPT_ACE_TAKES_ALL
    assert caps(core, "Ad", "3c Ks 5b", o) == [["3c", "Ks", "5b"]]
    assert caps(core, "Ad", "Ac 3c As", o) == [["Ac"], ["As"]]
    assert caps(core, "Ad", "", o) == []
    assert caps(core, "Ad", "3c Ks", 0) == []


@pytest.mark.parametrize("seed", range(4 if TWIN_RUN else 12))
def test_captures_match_brute_force(core, seed):
    rnd = random.Random(seed)
    for _ in range(300):
        cards = rnd.sample(range(40), rnd.randint(1, 12))
        card, table = cards[0], sum(1 << c for c in cards[1:])
        for opts in (0, core.OPT_FEWEST, core.OPT_ACE_TAKES_ALL, core.OPT_FEWEST | core.OPT_ACE_TAKES_ALL):
            got = core.captures(card, table, opts)
            assert len(got) == len(set(got))
            assert set(got) == brute_captures(
                card, table, bool(opts & core.OPT_FEWEST), bool(opts & core.OPT_ACE_TAKES_ALL)
            )


def test_king_against_every_lower_card(core):
    # The largest capture list there is: 1698 sets (sized the core's buffers).
    table = ((1 << 40) - 1) & ~core.KINGS
    assert len(core.captures(9, table, 0)) == 1698


def test_legal_moves_compulsory_capture(core):
    # RULES §3.3: a card that can capture may not be laid down; another card may be played.
    moves = core.legal_moves(mask("7d Kc"), mask("3c 4s"), 0)
    assert moves == [(idx("7d"), mask("3c 4s")), (idx("Kc"), 0)]


def test_bad_card_index(core):
    with pytest.raises(ValueError, match="0..39"):
        core.captures(40, 0, 0)


def test_a_card_is_in_one_place(core):
    # RULES §1: found by an audit: a table holding the card played, a hand and a table that
    # share a card, or two piles that do, were taken (the card "captured itself", a shared
    # settebello went to team 0); each is now a ValueError naming the masks, on both cores.
    with pytest.raises(ValueError, match=r"bad table 32: it holds card 5, the card played"):
        core.captures(5, 1 << 5, 0)
    with pytest.raises(ValueError, match=r"bad hand 32 and table 33: they share the cards of mask 32"):
        core.legal_moves(1 << 5, 1 << 5 | 1, 0)
    both = mask("7d Kd")
    with pytest.raises(ValueError, match=rf"bad team 0's pile {both} and team 1's pile {both}: they share"):
        core.score(both, both, 0, 0, core.OPT_RE_BELLO)
    assert core.captures(5, 1 << 15, 0) == [1 << 15]
    assert core.legal_moves(1 << 5, 1 << 15, 0) == [(5, 1 << 15)]


# ---------------------------------------------------------------- apply_move


def test_apply_capture_and_scopa(core):
    # RULES §3.5-6: captured cards and the capturing card go to the pile; an empty table is a scopa.
    pos = ((mask("7d Ad"), mask("Kc")), mask("3c 4s"), (), (0, 0), (0, 0), 0, -1)
    hands, table, stock, cap, scope, turn, last = core.apply_move(pos, idx("7d"), mask("3c 4s"), 0, 3)
    assert table == 0 and cap == (mask("7d 3c 4s"), 0) and scope == (1, 0)
    assert turn == 1 and last == 0 and hands == (mask("Ad"), mask("Kc"))


def test_apply_move_needs_the_card_in_the_movers_hand_and_the_capture_on_the_table(core):
    # found by a fuzzing audit: a card from another seat's hand was played (the cores then
    # disagreed on the scopa), a capture of cards off the table put them in two places
    pos = ((0, mask("7d")), mask("Kc"), (), (0, 0), (0, 0), 0, -1)
    with pytest.raises(ValueError, match=r"^bad card index 6: it is not in the hand of seat 0, to move$"):
        core.apply_move(pos, idx("7d"), mask("Kc"), 0, 1)
    pos = ((mask("7d"), mask("Ac")), mask("3c 4s"), (), (0, 0), (0, 0), 0, -1)
    with pytest.raises(
        ValueError, match=rf"^bad captured cards {mask('3c Ac')}: the cards of mask {mask('Ac')}"
    ):
        core.apply_move(pos, idx("7d"), mask("3c Ac"), 0, 1)


def test_core_messages_name_what_they_refuse(core):
    # a subclass of int, tuple or list is refused with its type named (its repr reads as the
    # type expected); pv is True or False; a card in two places is named
    class Seed(int):
        pass

    with pytest.raises(ValueError, match=r"bad seed 5 \(a Seed, not int\): expected an int"):
        core.shuffle(Seed(5))
    pos = ((1, 2), 0, (), (0, 0), (0, 0), 0, -1)
    for bad in ("no", 1, None):
        with pytest.raises(ValueError, match=r"^bad pv .*: expected True or False$"):
            core.Solver(1).solve(pos, 0, 1, pv=bad)
    with pytest.raises(ValueError, match=r"a card in two places \(card index 0\)"):
        core.Solver(1).solve(((1, 1), 0, (), (0, 0), (0, 0), 0, -1), 0, 1)
    with pytest.raises(
        ValueError, match=r"geometry: 4 players, 0 cards each, 0 on the table: expected 2 or 4"
    ):
        core.deal(4, 0, 0, 1, 1)
    other = next(c for c in CORES if c is not core) if len(CORES) > 1 else None
    if other is not None:
        with pytest.raises(
            ValueError, match=r"\(the other core's StopFlag: compiled and twin each read their own\)"
        ):
            core.Solver(1).solve(pos, 0, 1, stop=other.StopFlag())


def test_a_stop_flag_stops_by_its_set_not_by_a_subclass_is_set(core):
    # found by an audit: the twin called is_set() (a subclass's override stopped it), the
    # compiled search reads the flag's own word; both read the flag's own state now
    import scopa

    class Always(core.StopFlag):
        def is_set(self) -> bool:
            return True

    s = scopa.State.deal("scopa", seed=3)
    for _ in range(20):  # (an endgame both cores solve at once, past the first checks of the flag)
        s = s.play(s.legal_moves()[0])
    r = core.Solver(1).solve(s.masks, s.rules.core_options, s.rules.hand_size, stop=Always())
    assert r[0] is True and r[1] == r[2]  # exact: the flag was never set
    flag = Always()
    flag.set()
    big = scopa.State.deal("scopone_scientifico", seed=3)
    r = core.Solver(1).solve(big.masks, big.rules.core_options, big.rules.hand_size, stop=flag)
    assert r[0] is False  # set: stopped


def test_a_stop_flag_copied_is_itself_and_pickled_a_new_one(core):
    # Found by mutation testing of scopa_core/_twin.py: the twin's copy of a flag as None went
    # unseen here (only test_limits.py's run on the twin read it): a copy that no one sets
    # would stop nothing, so a copy is the flag itself; pickled (in another process) a new one
    import copy
    import pickle

    for is_set in (False, True):
        f = core.StopFlag(set=is_set)
        assert copy.copy(f) is f and copy.deepcopy(f) is f and copy.deepcopy([f])[0] is f
        back = pickle.loads(pickle.dumps(f))
        assert type(back) is core.StopFlag and back is not f and back.is_set() is is_set


def test_last_play_is_not_a_scopa(core):
    # RULES §3.6: the last play of the hand is never a scopa, unless scopa_on_last_play (§7).
    pos = ((0, mask("5c")), mask("5d"), (), (mask("Ad 2d"), 0), (0, 0), 1, 0)
    out = core.apply_move(pos, idx("5c"), mask("5d"), 0, 3)
    assert out[4] == (0, 0) and out[3] == (mask("Ad 2d"), mask("5c 5d")) and out[6] == 1
    out = core.apply_move(pos, idx("5c"), mask("5d"), core.OPT_SCOPA_ON_LAST_PLAY, 3)
    assert out[4] == (0, 1)


def test_end_of_hand_table_to_last_capturer(core):
    # RULES §3.7: the table goes to the last capturing team, and that is not a scopa.
    pos = ((0, mask("Kc")), mask("3d"), (), (mask("Ad 2d"), mask("4d 4c")), (0, 0), 1, 0)
    out = core.apply_move(pos, idx("Kc"), 0, 0, 3)
    assert out[1] == 0 and out[3] == (mask("Ad 2d 3d Kc"), mask("4d 4c")) and out[4] == (0, 0)


def test_ace_sweep_scopa_option(core):
    # RULES §7: an ace's sweep is a scopa only with ace_sweep_is_scopa.
    pos = ((mask("Ad 2c"), mask("Kc")), mask("3c 4s"), (), (0, 0), (0, 0), 0, -1)
    o = core.OPT_ACE_TAKES_ALL
    assert core.apply_move(pos, idx("Ad"), mask("3c 4s"), o, 3)[4] == (0, 0)
    assert core.apply_move(pos, idx("Ad"), mask("3c 4s"), o | core.OPT_ACE_SWEEP_IS_SCOPA, 3)[4] == (1, 0)
    # An ace taking the only (ace) card on the table is an ordinary scopa.
    pos2 = ((mask("Ad 2c"), mask("Kc")), mask("As"), (), (0, 0), (0, 0), 0, -1)
    assert core.apply_move(pos2, idx("Ad"), mask("As"), o, 3)[4] == (1, 0)


def test_refill_blocks_from_seat_to_move(core):
    # RULES §2: when all hands are empty, 3 more each from the stock, first to the seat to move.
    stock = tuple(range(20, 26)) + tuple(range(26, 32))
    pos = ((0, mask("Kc")), mask("Ad"), stock, (0, 0), (0, 0), 1, -1)
    hands, table, st_, cap, scope, turn, last = core.apply_move(pos, idx("Kc"), 0, 0, 3)
    assert turn == 0
    assert hands == (sum(1 << c for c in range(20, 23)), sum(1 << c for c in range(23, 26)))
    assert st_ == tuple(range(26, 32))


# ---------------------------------------------------------------- scoring, RULES §4


def test_primiera_seed_examples(core):
    # RULES §4: 7♥ 7♣ 7♦ 6♠ = 81; 7♠ + three 6s = 75; 7d 6c 7s Ab = 76.
    o = core.OPT_PRIMIERA_ALL_SUITS
    assert core.primiera(mask("7c 7b 7d 6s"), o) == 81
    assert core.primiera(mask("7s 6c 6b 6d"), o) == 75
    assert core.primiera(mask("7d 6c 7s Ab"), o) == 76
    assert core.primiera(mask("7d 6c 7s"), o) == -1
    assert core.primiera(mask("7d 6c 7s"), 0) == 60


def test_score_categories(core):
    a = mask("7d 6d 5d 4d 3d 2d Ac As Ab")
    b = mask("Kd Kc Ks")
    row0, row1 = core.score(a, b, 2, 1, core.OPT_PRIMIERA_ALL_SUITS)
    assert row0 == (1, 1, 1, 1, 2, 0, 0) and row1 == (0, 0, 0, 0, 1, 0, 0)


def test_score_ties_give_nobody(core):
    # RULES §4: 20-20 cards, 5-5 coins, equal primiera: nobody scores.
    a = mask("Ad 2d 3d 4d 5d") | sum(1 << i for i in range(10, 25))
    b = ((1 << 40) - 1) & ~a
    row0, row1 = core.score(a, b, 0, 0, core.OPT_PRIMIERA_ALL_SUITS)
    assert row0[0] == row1[0] == 0 and row0[1] == row1[1] == 0


def test_re_bello_and_napola(core):
    # RULES §7: re bello 1 point; napola 3 for A-2-3 of coins, +1 per further coin in sequence.
    o = core.OPT_RE_BELLO | core.OPT_NAPOLA
    assert core.score(mask("Ad 2d 3d 4d 6d Kd"), 0, 0, 0, o)[0][5:] == (1, 4)
    assert core.score(mask("Ad 2d 4d"), 0, 0, 0, o)[0][6] == 0
    assert core.score(core.COINS, 0, 0, 0, o)[0][6] == 10
    assert core.score(mask("Kd Ad 2d 3d"), 0, 0, 0, 0)[0][5:] == (0, 0)


# ---------------------------------------------------------------- deals and playouts


@pytest.mark.parametrize("game", GEOMETRIES)
def test_deal_geometry(core, game):
    n, hs, ts = GEOMETRIES[game]
    hands, table, stock = core.deal(n, hs, ts, core.OPT_REDEAL_ON_KINGS, 99)
    assert [core.popcount(h) for h in hands] == [hs] * n and core.popcount(table) == ts
    every = table
    for h in hands:
        every |= h
    for c in stock:
        every |= 1 << c
    assert every == core.FULL and len(stock) == 40 - n * hs - ts


def test_a_table_of_three_kings_is_dealt_again_under_its_option_alone(core):
    # RULES §6: three or four kings face up, the deal is collected and dealt again, only under
    # redeal_on_kings. Found by mutation testing of scopa_core/_twin.py: the option's bit 128
    # as 129 (such a table dealt again under `fewest` too) went unseen, so rare is such a table.
    seed, kings = 501, lambda m: bin(m & core.KINGS).count("1")  # (seed 501: Kc Ks Kb on the table)
    first = core.deal(2, 3, 4, 0, seed)
    assert kings(first[1]) == 3 and core.OPT_REDEAL_ON_KINGS == 128
    for opts in range(256):
        got = core.deal(2, 3, 4, opts, seed)
        if opts & 128:
            assert kings(got[1]) < 3 and got[0] != first[0]
        else:
            assert got == first


def test_shuffle_is_a_permutation(core):
    assert sorted(core.shuffle(12345)) == list(range(40))
    assert core.shuffle(1) != core.shuffle(2)


def test_bad_geometry(core):
    with pytest.raises(ValueError, match="geometry"):
        core.deal(3, 3, 4, 0, 1)
    with pytest.raises(ValueError, match=r"bad number of hands -1: expected an int in 0\.\.2147483647"):
        core.playouts(2, 3, 4, 0, -1, 1)


def test_bad_position_tuples(core):
    # The seat to move and the last capturer index the hands and piles: out of range is refused.
    for pos in [
        ((1, 2), 4, (), (0, 0), (0, 0), 7, -1),
        ((1, 2), 4, (), (0, 0), (0, 0), -1, -1),
        ((1, 2), 4, (), (0, 0), (0, 0), 0, 2),
        ((1, 2, 8), 4, (), (0, 0), (0, 0), 0, -1),
    ]:
        with pytest.raises(ValueError, match="bad position tuple"):
            core.apply_move(pos, 0, 0, 0, 3)
        with pytest.raises(ValueError, match="bad position tuple"):
            core.rollouts(pos, 0, 3, 1, 1)


def test_a_bad_stock_or_table_is_named_and_a_full_stock_is_not(core):
    # Found by mutation testing of scopa_core/_checks.py: no test read the stock's message, so
    # its bounds (at most 40 cards, each in 0..39) could move unseen, nor the table's
    said = "the stock must be at most 40 card indexes (ints in 0..39), top first"
    for stock in (tuple(range(40)) + (0,), (40, 5, 6, 7), (-1, 5, 6, 7), (True, 5, 6, 7), 5, "abcd"):
        pos = ((1, 2), 4, stock, (0, 0), (0, 0), 0, -1)
        expected = r"^bad position tuple .*: " + re.escape(said) + "$"
        with pytest.raises(ValueError, match=expected):
            core.apply_move(pos, 0, 0, 0, 2)
        with pytest.raises(ValueError, match=expected):
            core.rollouts(pos, 0, 2, 1, 1, 0)
    said = "the table must be a card mask (an int in 0..2**40-1)"  # (nor its message)
    for table in (1 << 40, -1, True, "4", None):
        pos = ((1, 2), table, (), (0, 0), (0, 0), 0, -1)
        with pytest.raises(ValueError, match=r"^bad position tuple .*: " + re.escape(said) + "$"):
            core.apply_move(pos, 0, 0, 0, 2)
    # 40 cards, and the cards 0 and 39, pass the stock's check: the refusals are later ones'
    full = ((0, 0), 0, tuple(range(40)), (0, 0), (0, 0), 0, -1)
    with pytest.raises(ValueError, match="every hand is empty but the stock is not"):
        core.rollouts(full, 0, 2, 1, 1, 0)
    for card in (0, 39):
        pos = ((mask("5d"), mask("6d")), 0, (card, 11, 12, 13), (0, 0), (0, 0), 0, -1)
        assert core.apply_move(pos, idx("5d"), 0, 0, 2)[2] == (card, 11, 12, 13)


def test_every_deal_geometry_of_whole_refills_deals_and_no_other(core):
    # Found by mutation testing of scopa_core/_checks.py (hands of 1 card refused went unseen):
    # 2 or 4 players, 1..10 cards each, a table that leaves whole refills of the 40 cards
    for n in (1, 2, 3, 4):
        for hs in range(12):
            for ts in range(42):
                ok = (
                    n in (2, 4) and 1 <= hs <= 10 and n * hs + ts <= 40 and (40 - n * hs - ts) % (n * hs) == 0
                )
                if ok:
                    hands, table, stock = core.deal(n, hs, ts, 0, 7)[:3]
                    assert [bin(h).count("1") for h in hands] == [hs] * n and bin(table).count("1") == ts
                    assert len(stock) == 40 - n * hs - ts
                else:
                    with pytest.raises(ValueError, match="bad deal geometry"):
                        core.deal(n, hs, ts, 0, 7)


def test_error_messages_quote_the_input_up_to_their_bounds():
    # Found by mutation testing of scopa_core/_checks.py: short()'s bounds (an int in full up to
    # 128 bits, a string's repr up to 400 characters, 4 levels of nesting, 12 items) had no test
    from scopa_core._checks import short

    assert short((1 << 128) - 1) == str((1 << 128) - 1) and short(-((1 << 128) - 1)).startswith("-3402")
    assert short(1 << 128) == "<int of 129 bits>" and short(-(1 << 128)) == "<negative int of 129 bits>"
    assert short("x" * 398) == repr("x" * 398) and short("x" * 399) != repr("x" * 399)  # (400 with quotes)
    assert len(short("x" * 399)) == len(short("x" * 10**6)) == 400
    assert short([[[[1]]]]) == "[[[[1]]]]" and short([[[[[1]]]]]) == "[[[[[...]]]]]"
    assert short(list(range(12))) == repr(list(range(12))) and short(list(range(13))).endswith(", ...]")


def test_heuristic_rollouts_sweep(core):
    # RULES §4 (a capture of every table card is a scopa): seat 0 holds 7d and Kc, the table
    # 3c 4s; its moves are the sweep 7dx3c4s and laying Kc down. The heuristic policy sweeps
    # on 7 draws in 8 (a random move a quarter of the time), the uniform one on half of them;
    # a sweep finishes +5 for team 0 here, laying the king down +4.
    pos = ((mask("7d Kc"), mask("5d As")), mask("3c 4s"), (), (0, 0), (0, 0), 0, -1)
    opts, block = 0, 3
    assert sorted(core.legal_moves(pos[0][0], pos[1], opts)) == [(idx("7d"), mask("3c 4s")), (idx("Kc"), 0)]
    heur = core.rollouts(pos, opts, block, 400, 5, 1)
    rand = core.rollouts(pos, opts, block, 400, 5, 0)
    assert set(heur) | set(rand) == {4, 5}
    assert heur.count(5) >= 320 and rand.count(5) <= 260
    with pytest.raises(ValueError, match=r"bad rollout policy 2: expected an int in 0\.\.1"):
        core.rollouts(pos, opts, block, 1, 1, 2)


@pytest.mark.parametrize("game", GEOMETRIES)
def test_playouts_are_valid_hands(core, game):
    n_hands = 200 if core.__name__.endswith("_twin") else 5000
    pts, brk = core.playouts(
        *GEOMETRIES[game], core.OPT_PRIMIERA_ALL_SUITS | core.OPT_REDEAL_ON_KINGS, n_hands, 3
    )
    assert pts.shape == (n_hands, 2) and brk.shape == (n_hands, 2, core.NCAT)
    assert (pts == brk.sum(axis=2)).all()
    # carte, denari, settebello, primiera: at most one team each; settebello always someone's.
    assert (brk[:, :, :4].sum(axis=1) <= 1).all() and (brk[:, :, 2].sum(axis=1) == 1).all()
    assert (brk >= 0).all() and pts.dtype == np.int16


# ---------------------------------------------------------------- differential: compiled vs twin

pytestmark_diff = pytest.mark.skipif(len(CORES) < 2, reason="the compiled core is not in this run")


@pytestmark_diff
@given(
    cards=st.lists(st.integers(0, 39), min_size=1, max_size=24, unique=True),
    hand_size=st.integers(0, 10),
    opts=st.integers(0, ALL_OPTS),
)
def test_diff_legal_moves(cards, hand_size, opts):
    tw, cc = CORES
    hand = sum(1 << c for c in cards[:hand_size])
    table = sum(1 << c for c in cards[hand_size:])
    assert cc.legal_moves(hand, table, opts) == tw.legal_moves(hand, table, opts)
    for c in cards[: min(3, hand_size)]:  # (hand cards: a table card cannot be played)
        assert cc.captures(c, table, opts) == tw.captures(c, table, opts)


@pytestmark_diff
@given(st.integers(0, 2**64 - 1))
def test_bit_counts_agree(mask):
    # The build's count and the shift-and-add count, on any 64-bit word, against Python's. In
    # x86-64 POPCNT builds GCC compiles the shift-and-add count to POPCNT too; the builds that
    # really count by shifts and adds (aarch64, MSVC, SCOPA_PORTABLE=1) test it here.
    tw, cc = CORES
    assert cc.popcount(mask) == cc._popcount_portable(mask) == tw.popcount(mask) == bin(mask).count("1")


# setup.py's choice: GCC or Clang builds whose target is x86-64 alone, unless SCOPA_PORTABLE=1
_PLATFORM = sysconfig.get_platform()
POPCNT_BUILD = (
    _PLATFORM.endswith("x86_64")
    and "universal2" not in _PLATFORM
    and "arm64" not in os.environ.get("ARCHFLAGS", "")
    and os.name != "nt"
    and os.environ.get("SCOPA_PORTABLE", "") in ("", "0")
)


@pytestmark_diff
@pytest.mark.skipif(
    not POPCNT_BUILD, reason="POPCNT builds are for x86-64 with GCC or Clang, unless SCOPA_PORTABLE=1"
)
def test_x86_64_build_counts_bits_in_hardware():
    # setup.py builds for x86-64-v2 (POPCNT) by default: 14% faster solving at k = 7.
    assert CORES[1].HARDWARE_POPCOUNT is True


@pytestmark_diff
@given(st.integers(0, 2**64 - 1), st.integers(0, ALL_OPTS))
def test_diff_deal_and_score(seed, opts):
    tw, cc = CORES
    for geo in GEOMETRIES.values():
        assert cc.deal(*geo, opts, seed) == tw.deal(*geo, opts, seed)
    assert cc.shuffle(seed) == tw.shuffle(seed)
    a = seed & tw.FULL
    b = ~a & tw.FULL & (seed >> 20)
    assert cc.score(a, b, seed % 5, seed % 3, opts) == tw.score(a, b, seed % 5, seed % 3, opts)
    assert cc.primiera(a, opts) == tw.primiera(a, opts)


@pytestmark_diff
@pytest.mark.parametrize("game", GEOMETRIES)
@pytest.mark.parametrize("opts", [0, 1 | 64 | 128, 2 | 4 | 8 | 16 | 32, ALL_OPTS])
def test_diff_playouts(game, opts):
    # Same seed, same random numbers, same move order: identical hands, move for move.
    tw, cc = CORES
    a = cc.playouts(*GEOMETRIES[game], opts, 60, 2024)
    b = tw.playouts(*GEOMETRIES[game], opts, 60, 2024)
    assert (a[0] == b[0]).all() and (a[1] == b[1]).all()


@pytestmark_diff
@pytest.mark.parametrize("game", GEOMETRIES)
@pytest.mark.parametrize("policy", [0, 1])
@pytest.mark.parametrize("opts", [0, 2 | 16 | 32, 2 | 4 | 16 | 32 | 128])
def test_diff_rollouts(game, policy, opts):
    # Both rollout policies, under the options the heuristic one weighs (RULES §7: ace takes
    # all, its sweep a scopa or not, re bello, napola): the same finishes in both cores.
    tw, cc = CORES
    n, hs, ts = GEOMETRIES[game]
    for seed in range(4):
        hands, table, stock = cc.deal(n, hs, ts, cc.OPT_REDEAL_ON_KINGS, seed)
        pos = (hands, table, stock, (0, 0), (0, 0), 0, -1)
        assert cc.rollouts(pos, opts, hs, 40, seed, policy) == tw.rollouts(pos, opts, hs, 40, seed, policy)


def test_the_heuristic_playouts_weigh_what_the_options_score():
    # RULES §7 (a variants audit): the heuristic policy gave every capture of the whole table a
    # sweep's weight, an ace taking all that scores no scopa too, and weighed neither the king
    # of coins under re_bello nor napola's cards; the presets' weights are unchanged
    from scopa_core._twin import (
        OPT_ACE_SWEEP_IS_SCOPA,
        OPT_ACE_TAKES_ALL,
        OPT_NAPOLA,
        OPT_RE_BELLO,
        _heuristic_score,
    )

    c = {name: i for i, name in enumerate(f"{r}{s}" for s in "dcsb" for r in "A234567JQK")}

    def gain(table: int, card: str, cap: int, opts: int, base: int = 0) -> int:
        """What ``opts`` add to the move's weight over ``base``."""
        return _heuristic_score(table, c[card], cap, opts) - _heuristic_score(table, c[card], cap, base)

    table = 1 << c["5s"] | 1 << c["6b"]  # (the ace takes it all)
    assert gain(table, "Ac", table, OPT_ACE_TAKES_ALL | OPT_ACE_SWEEP_IS_SCOPA, OPT_ACE_TAKES_ALL) == 300
    assert gain(table, "Ac", table, OPT_ACE_TAKES_ALL) == -300
    kings, threes = 1 << c["Kd"], 1 << c["3d"]
    assert (gain(kings, "Kc", kings, OPT_RE_BELLO), gain(0, "Kd", 0, OPT_RE_BELLO)) == (60, -60)
    assert gain(threes, "3c", threes, OPT_NAPOLA) == 30
    for opts in (0, 1, 8, 64, 128, 1 | 8 | 64 | 128):  # (the options that change no weight)
        for card in range(40):
            for cap in (0, table, kings, threes):
                assert _heuristic_score(table, card, cap, opts) == _heuristic_score(table, card, cap)


@pytestmark_diff
@pytest.mark.parametrize("game", GEOMETRIES)
def test_diff_apply_random_games(game):
    tw, cc = CORES
    rnd = random.Random(game)
    n, hs, ts = GEOMETRIES[game]
    for _ in range(30):
        opts = rnd.randrange(ALL_OPTS + 1)
        hands, table, stock = tw.deal(n, hs, ts, opts, rnd.getrandbits(64))
        pos = (hands, table, stock, (0, 0), (0, 0), 0, -1)
        while any(pos[0]):
            moves = tw.legal_moves(pos[0][pos[5]], pos[1], opts)
            assert cc.legal_moves(pos[0][pos[5]], pos[1], opts) == moves
            card, cap = rnd.choice(moves)
            nxt = tw.apply_move(pos, card, cap, opts, hs)
            assert cc.apply_move(pos, card, cap, opts, hs) == nxt
            pos = nxt


@pytest.mark.parametrize(
    "module", ["_twin", "_twin_bounds", "_twin_horizon", "_twin_moves", "_twin_tt", "_twin_solver"]
)
@pytest.mark.parametrize("no_ext", ["0", "1"])
def test_twin_modules_import_in_any_order(module, no_ext):
    # Each module of the twin can be the first one imported, with either core selected (the
    # solver's helpers once failed with a circular import when imported first).
    import subprocess
    import sys

    # (the compiled core's case catches it: under the twin, the package imports _twin first)
    code = (
        f"import scopa_core.{module}; from scopa_core._twin import Solver; import scopa_core; "
        "print(Solver.__name__, scopa_core.IMPLEMENTATION, 'Solver' in dir(scopa_core._twin))"
    )
    env = {**os.environ, "SCOPA_NO_EXTENSIONS": no_ext}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    name, implementation, listed = out.stdout.split()
    assert name == "Solver" and listed == "True"
    if no_ext == "0" and implementation != "cython":
        pytest.skip("the compiled core is not built here")


def _cythonize_core(c_file: Path, debug: bool) -> Callable[[bool], dict[str, Any]]:
    """The core's C generated at ``c_file`` (outside the source tree) with setup.py's own
    directives for the debug or the release build; setup.py's ``compiler_directives``."""
    import runpy

    from Cython.Compiler import Main

    root = Path(__file__).resolve().parent.parent
    directives = runpy.run_path(str(root / "setup.py"), run_name="setup_directives")["compiler_directives"]
    options = Main.CompilationOptions(
        Main.default_options,
        output_file=str(c_file),
        compiler_directives=directives(debug),
        include_path=[str(root / "scopa_core")],
        language_level=3,
    )
    assert Main.compile(str(root / "scopa_core" / "_core.pyx"), options).num_errors == 0
    return directives


def test_the_debug_build_compiles(tmp_path):
    # setup.py's debug build (SCOPA_DEBUG=1: bounds, wraparound and initialisation checks on,
    # Python's division) once failed in Cython: an int division that only C division types.
    # Its C is generated here with setup.py's own directives, outside the source tree.
    directives = _cythonize_core(tmp_path / "_core.c", debug=True)
    assert (tmp_path / "_core.c").stat().st_size > 100_000
    assert directives(True)["cdivision"] is False and directives(False)["boundscheck"] is False


def test_a_build_of_the_other_mode_regenerates_the_c(tmp_path):
    # An audit: SCOPA_DEBUG=1 after a release build kept the release C (cythonize compares
    # dates, --force too) and the release module, bounds checks off; setup.py notes its mode and
    # forces cythonize when it changes (the C then newer than the module, rebuilt)
    import runpy
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    changed = runpy.run_path(str(root / "setup.py"), run_name="setup_directives")["mode_changed"]
    note = tmp_path / "build" / "mode"
    assert changed("release", str(note)) and note.read_text() == "release"  # (no build before)
    assert not changed("release", str(note))
    assert changed("debug", str(note)) and not changed("debug", str(note))
    assert changed("release", str(note)) and note.read_text() == "release"


def test_a_mode_that_cannot_be_noted_regenerates_the_c_and_builds(tmp_path):
    # A review: setup.py's mode note in a build/ it cannot write (a file named build, a
    # read-only tree built with -b/-t elsewhere) ended the build with a traceback before it
    # began; the C is then regenerated each time (the safe way: the mode is not known)
    import runpy
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    changed = runpy.run_path(str(root / "setup.py"), run_name="setup_directives")["mode_changed"]
    (tmp_path / "build").write_text("not a directory")
    note = tmp_path / "build" / "mode"
    assert changed("release", str(note)) and changed("release", str(note))
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "mode").mkdir()  # (a directory where the note goes: not readable either)
    assert changed("debug", str(tmp_path / "dir" / "mode"))


def test_a_portable_build_after_a_popcnt_one_is_another_mode(tmp_path, monkeypatch):
    # A review: SCOPA_PORTABLE=1 changes the compiler's flags (no -mpopcnt), not the C, so
    # after a POPCNT build build_ext found the module newer than the C and kept it, the build
    # that set out to run on CPUs without POPCNT; the mode setup.py notes says it too
    import runpy
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    monkeypatch.delenv("SCOPA_DEBUG", raising=False)
    modes = {}
    for portable in ("", "0", "1"):
        monkeypatch.setenv("SCOPA_PORTABLE", portable)
        setup = runpy.run_path(str(root / "setup.py"), run_name="setup_directives")
        modes[portable] = setup["build_mode"]()
        assert not (portable == "1" and setup["hardware_popcount"]())
    # (a note of the release build before: "release", the same mode)
    assert modes == {"": "release", "0": "release", "1": "release portable"}, modes


@pytest.mark.skipif(os.name == "nt", reason="MSVC ignores CC: the failing compiler is set through CC")
def test_a_build_without_a_c_compiler_says_how_to_install_the_twin(tmp_path, monkeypatch):
    # The packaging audit: pip install . without a C compiler ended with the compiler's own
    # error ("Command '['/bin/false', ...]' returned non-zero exit status 1"), which named
    # neither the need nor the way round it (SCOPA_NO_EXTENSIONS=1, a build without the core)
    import runpy
    from pathlib import Path

    from setuptools import Distribution, Extension
    from setuptools.errors import PlatformError

    root = Path(__file__).resolve().parent.parent
    build_core = runpy.run_path(str(root / "setup.py"), run_name="setup_directives")["BuildCore"]
    (tmp_path / "tiny.c").write_text("int tiny(void) { return 1; }\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CC", "false")  # (a compiler that fails: none there)
    dist = Distribution({"name": "tiny", "ext_modules": [Extension("tiny", ["tiny.c"])]})
    command = build_core(dist)
    command.build_temp, command.build_lib = str(tmp_path / "temp"), str(tmp_path / "lib")
    command.ensure_finalized()
    with pytest.raises(PlatformError) as info:
        command.run()
    message = str(info.value)
    assert "could not be built" in message and "needs a C compiler" in message, message
    assert "SCOPA_NO_EXTENSIONS=1 pip install" in message and "false" in message, message


_RACE_SCRIPT = """
import random, sys, threading
import scopa_core as core
from scopa_core import _core
assert core.IMPLEMENTATION == "cython" and _core.__file__.startswith(sys.argv[1]), _core.__file__

def position(seed):  # Scopone scientifico played at random down to 20 plays left: a parallel solve
    rng, (hands, table, stock) = random.Random(seed), core.deal(4, 10, 0, 0, seed)
    pos = (hands, table, stock, (0, 0), (0, 0), 0, -1)
    while sum(core.popcount(h) for h in pos[0]) + len(pos[2]) > 20:
        pos = core.apply_move(pos, *rng.choice(core.legal_moves(pos[0][pos[5]], pos[1], 0)), 0, 10)
    return pos

for seed in range(4):
    pos = position(seed)
    want = core.Solver(8).solve(pos, 0, 10, pv=False)[1]
    assert core.Solver(8).solve(pos, 0, 10, threads=2)[1] == want
    flag = core.StopFlag()  # set from another thread while the two search (or after: no matter)
    setter = threading.Timer(0.01 * seed, flag.set)
    setter.start()
    r = core.Solver(8).solve(pos, 0, 10, threads=2, stop=flag)
    setter.join()
    assert r[1] <= want <= r[2], (r, want)
print("solved")
"""


@pytest.mark.skipif(TWIN_RUN, reason="the compiled core's build is checked in the compiled core's run")
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="GCC's ThreadSanitizer, on Linux")
def test_a_threaded_solve_has_no_data_race(tmp_path):
    # An audit of threads (2026-12-06) built the core with ThreadSanitizer: a parallel solve's
    # threads raced on the first slot's lock byte (a shared table's entry copied whole, its lock
    # with it, while other threads spun on that lock) and on the words they set for one another
    # (the stop flag, the done word, the pooled bounds: volatile accesses, a data race in C11).
    # The release C is built here with -fsanitize=thread and run under it: no race reported.
    import shlex
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    cc = shlex.split(sysconfig.get_config_var("CC") or "cc")
    quiet = {"capture_output": True, "text": True}
    try:
        found = subprocess.run([*cc, "-print-file-name=libtsan.so"], **quiet, timeout=60)
    except OSError:
        pytest.skip("no C compiler")
    libtsan = found.stdout.strip()
    if found.returncode != 0 or not os.path.isabs(libtsan):
        pytest.skip("no GCC ThreadSanitizer runtime (libtsan.so)")
    env = {
        **os.environ,
        "LD_PRELOAD": libtsan,
        "TSAN_OPTIONS": "report_signal_unsafe=0",
        "SCOPA_NO_EXTENSIONS": "0",
        "PYTHONPATH": str(tmp_path),
    }
    probe = subprocess.run([sys.executable, "-c", "pass"], env=env, **quiet, timeout=120)
    if probe.returncode != 0 or "ThreadSanitizer" in probe.stderr:
        pytest.skip(f"ThreadSanitizer does not run Python here: {probe.stderr.strip()[-300:]}")
    package = tmp_path / "scopa_core"
    package.mkdir()
    for source in (root / "scopa_core").glob("*.py"):
        (package / source.name).write_bytes(source.read_bytes())
    _cythonize_core(tmp_path / "_core.c", debug=False)
    module = package / ("_core" + (sysconfig.get_config_var("EXT_SUFFIX") or ".so"))
    build = [*cc, "-shared", "-fPIC", "-O1", "-g", "-fsanitize=thread", str(tmp_path / "_core.c")]
    build += ["-I", sysconfig.get_paths()["include"], "-I", str(root / "scopa_core"), "-o", str(module)]
    built = subprocess.run(build, **quiet, timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    script = [sys.executable, "-c", _RACE_SCRIPT, str(package)]  # (in tmp_path: no other scopa_core first)
    run = subprocess.run(script, env=env, cwd=tmp_path, **quiet, timeout=600)
    assert "ThreadSanitizer" not in run.stderr, run.stderr[:6000]
    assert run.returncode == 0 and run.stdout.split() == ["solved"], run.stderr[-3000:]


def test_the_twins_table_holds_no_more_than_its_size_in_memory():
    # The soak audit: the twin capped its table at tt_size_mb * 2**20 / 200 entries, while an
    # entry (a dict slot, a key tuple holding a tuple, a list of two bounds and a move) takes
    # about 460 bytes: 2.3 times the size asked for. A twin table's traced memory per entry is
    # now within the ENTRY_BYTES it is sized by.
    import gc
    import tracemalloc

    import scopa
    from scopa.players import GreedyPlayer
    from scopa_core import _twin_solver

    greedy, st = GreedyPlayer(), scopa.State.deal("scopa", seed=3)
    while sum(len(h) for h in st.hands) + len(st.stock) > 30:
        st = st.play(greedy.choose(st.view(st.turn)))
    sv = _twin_solver.Solver(1)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        sv.solve(st.masks, st.rules.core_options, st.rules.hand_size, node_limit=20_000)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    entries = sv.tt_entries()
    assert entries >= 500, entries
    # a full table of 1 MB, at the bytes an entry took here (10% spare: sizes vary a little
    # with the masks and Python's version); it was 2.4 MB
    assert grown / entries * sv._max_entries <= 1.1 * (1 << 20), (grown, entries, sv._max_entries)
