"""The public solver's bookkeeping (``src/scopa/solver.py``), as a mutation run of the module
found it unpinned (a hand-built result's principal variation: test_solver.py's
test_results_built_by_hand_are_checked): the iterative deepening's budget
at the edges of its share, a best move of card index 0 (the ace of coins) through the table's
answer and the progress lines, and the seconds an exact solve reports. Where a test runs a
search it runs on each core in turn (``scopa.solver`` pointed at the compiled core, then at
the twin)."""

from __future__ import annotations

import importlib
import time
from types import ModuleType

import pytest

import scopa
from scopa import Move, State
from scopa.limit import Clock
from scopa.solver import ID_SHARE, _Deepening

solver_module = importlib.import_module("scopa.solver")

# (RULES §3, §7: the ace of coins, card index 0, takes the ace on the table, a sweep; worth 3,
# the king's lay-down 2: the best move is card 0's, and so is the horizon's choice)
ACE_FIRST = "scopa AdKd/7cQc As - -/- 0/0 0 - -"
# (five plays left: one play deep AdxAs is best, two plays deep it ties with Jbx4cAs3b, which
# the move ordering takes before it)
ACE_THEN_TIE = (
    "scopone_scientifico AdJb/4b/Ac/Kd 4cAs5sKs2b3bQb - 2d3d5d6dQd2c3c5c6cKc2s3s7sQs5b7bKb/"
    "4d7dJd7cJcQc4s6sJsAb6b 0/0 0 1 0"
)
# (one card each and a refill of three from the stock: eight plays left)
STOCK_LEFT = "scopa 7d/Kc 3c4s 6c7sQb3d4d2b -/- 0/0 0 - 1"


@pytest.fixture
def api(core: ModuleType, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """``scopa.solver`` searching on ``core`` (the compiled core, then the twin)."""
    monkeypatch.setattr(solver_module, "core", core)
    return core


class _StillClock(Clock):
    """A clock whose time stands where the test puts it."""

    elapsed = 0.0


def test_a_deeper_depth_gets_what_is_left_of_the_deepenings_time_share():
    # Depth 2 on may use the deepening's share of the time (ID_SHARE of the limit) less the
    # time already spent, not more.
    clock = _StillClock(scopa.Limit(time=100.0))
    clock.elapsed = 5.0
    deepening = _Deepening(clock, 10)
    assert deepening.seconds == pytest.approx(100.0 * ID_SHARE)
    assert deepening.core_args(1) == {"node_limit": 0, "time_limit": 0.0, "stop": None}
    assert deepening.core_args(2)["time_limit"] == pytest.approx(100.0 * ID_SHARE - 5.0)


def test_a_deeper_depth_gets_what_is_left_of_the_deepenings_node_share():
    # The same in nodes: the share (200 of 1000) less the nodes spent, and never 0, which the
    # core reads as no limit at all (1: the search stops at once).
    clock = Clock(scopa.Limit(nodes=1000))
    deepening = _Deepening(clock, 10)
    assert deepening.nodes == 200
    clock.add(50)
    assert deepening.core_args(2)["node_limit"] == 150
    clock.add(250)  # past the share, within the limit
    assert deepening.core_args(2)["node_limit"] == 1


def test_a_depth_expected_to_take_exactly_its_share_still_runs():
    # The next depth runs when its expected cost fits the share: the time (nodes) spent plus
    # the last depth's time (nodes) times the growth (at least 1.5) equal to the share fits.
    clock = _StillClock(scopa.Limit(time=100.0))
    deepening = _Deepening(clock, 3)
    deepening.seconds = 10.0
    clock.elapsed = 4.0
    deepening.record(4.0, 1)
    deepening.record(4.0, 1)  # a growth of 1 (taken as 1.5): 4 + 4 * 1.5 = 10, the share
    assert list(deepening.depths()) == [1, 2, 3]
    clock.elapsed = 4.5
    assert list(deepening.depths()) == [1]
    nodes = Clock(scopa.Limit(nodes=1000))
    deepening = _Deepening(nodes, 3)
    deepening.record(0.0, 10)
    deepening.record(0.0, 20)  # a growth of 2: 40 nodes expected, 160 spent, the share 200
    nodes.add(160)
    assert list(deepening.depths()) == [1, 2, 3]
    nodes.add(1)
    assert list(deepening.depths()) == [1]


def test_a_best_move_of_card_0_is_named_by_the_result_the_pv_and_the_progress(api):
    # RULES §8. The ace of coins is card index 0: a move of it is a move like any other, in
    # the best move, in the PV the table answers with (solved before, then asked again under
    # a node limit: the table's best move stands for the line), and in every progress line.
    s = State.from_string(ACE_FIRST)
    ace = Move.parse("AdxAs")
    assert ace.card.index == 0
    solver = scopa.Solver(1)
    first = solver.solve(s)
    assert first.exact and first.value == 3 and first.best_move == ace and first.pv[0] == ace
    again = solver.solve(s, node_limit=1)
    assert again.exact and again.value == 3 and again.best_move == ace
    assert len(again.pv) >= 1 and again.pv[0] == ace
    infos: list[scopa.SearchInfo] = []
    r = scopa.Solver(1).solve(s, node_limit=10**6, progress=infos.append)
    assert r.exact and r.best_move == ace and r.depth == 4
    assert [i.depth for i in infos] == [1, 2, 3, 4, 4]
    assert all(i.best_move == ace for i in infos)
    infos.clear()
    a = scopa.Solver(1).analyze(s, node_limit=10**6, progress=infos.append)
    assert a == {ace: 3, Move.parse("Kd"): 2} and a.best_move == ace
    assert len(infos) == 5 and all(i.best_move == ace for i in infos)


def test_an_exact_solve_reports_the_seconds_it_took(api):
    # SolveResult.seconds: the wall-clock time of the call, within the time around it.
    s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    solver = scopa.Solver(1)
    t0 = time.perf_counter()
    r = solver.solve(s)
    wall = time.perf_counter() - t0
    assert r.exact and 0.0 <= r.seconds <= wall
    t0 = time.perf_counter()
    a = solver.analyze(s)
    wall = time.perf_counter() - t0
    assert a.exact and 0.0 <= a.seconds <= wall


def test_the_deepening_keeps_its_ace_of_coins_where_a_deeper_depth_ties(api):
    # Each depth searches the previous depth's choice first and keeps it where another move
    # ties with it; card index 0's move too. RULES §8.
    s = State.from_string(ACE_THEN_TIE)
    ace = Move.parse("AdxAs")
    pos, opts, block = s.masks, s.rules.core_options, s.rules.hand_size
    one = api.Solver(1).horizon(pos, opts, block, 1)
    assert Move._from_core(one[1], one[2]) == ace
    tie = api.Solver(1).horizon(pos, opts, block, 2)  # (no first: the ordering's pick)
    assert Move._from_core(tie[1], tie[2]) != ace
    kept = api.Solver(1).horizon(pos, opts, block, 2, first=(0, ace.capture_mask))
    assert kept == (tie[0], 0, ace.capture_mask)
    infos: list[scopa.SearchInfo] = []
    r = scopa.Solver(1).solve(s, node_limit=10**6, progress=infos.append)
    assert r.exact and r.depth == 5
    assert [(i.depth, i.best_move) for i in infos[:2]] == [(1, ace), (2, ace)]


def test_a_bounded_analysis_counts_the_stock_in_the_plays_left(api):
    # RULES §2, §8: the plays left are the cards in hand and in the stock; a bounded analysis
    # (as a bounded solve) deepens to the end of the hand: eight plays here, not two.
    s = State.from_string(STOCK_LEFT)
    infos: list[scopa.SearchInfo] = []
    a = scopa.Solver(1).analyze(s, node_limit=10**6, progress=infos.append)
    assert a.exact and a.depth == 8 and a == scopa.Solver(1).analyze(s)
    assert [i.depth for i in infos] == [*range(1, 9), 8]
    r = scopa.Solver(1).solve(s, node_limit=10**6)
    assert r.exact and r.depth == 8


def test_an_exact_analysis_in_one_thread_is_the_cores_one_analyze_call(api):
    # One thread: every move valued by the core's one analyze call (siblings share its table
    # and first guesses), and the nodes it counts reported; several threads split the moves
    # over solvers of their own, with the same values.
    s = State.from_string("scopa 7dKc3b/2cAs5d 3c4s 6c7sQb3d4d2b -/- 0/0 0 - 1")
    pos, opts, block = s.masks, s.rules.core_options, s.rules.hand_size
    reference = api.Solver(1)
    rows = reference.analyze(pos, opts, block)
    a = scopa.Solver(1).analyze(s)
    assert a.nodes == reference.nodes > 0
    assert a == {Move._from_core(c, m): v for c, m, v in rows} == scopa.Solver(1, threads=2).analyze(s)
