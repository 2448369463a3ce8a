"""Exact (double-dummy) solving: every hidden card and the stock order known (RULES §8).

Values are the final score difference of the whole hand for the team to move — points
already made (scope, piles) plus everything still to come — under best play by both teams.

>>> import scopa
>>> s = scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
>>> r = scopa.solve(s)
>>> r.value, str(r.best_move), len(r.pv)    # the PV is one of the best lines to the end
(4, '7dx3c4s', 4)
>>> {str(m): v for m, v in scopa.analyze(s).items()}
{'7dx3c4s': 4, 'Kc': 3}
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import scopa_core as core
from scopa.errors import ScopaError
from scopa.move import Move
from scopa.state import State

__all__ = ["SolveResult", "Solver", "analyze", "solve"]


@dataclass(frozen=True)
class SolveResult:
    """The outcome of :meth:`Solver.solve`.

    Attributes:
        value: the exact value (final difference for the team to move), or ``None``
            when ``node_limit`` stopped the search first.
        best_move: a move reaching ``value`` (the best one found so far when inexact;
            ``None`` when the hand is already over).
        pv: the principal variation from ``best_move`` to the end of the hand (empty
            when inexact); replaying it reaches ``value``.
        nodes: positions searched.
        seconds: wall-clock time of the call.
        exact: whether ``value`` is exact.
        lower, upper: bounds that hold for the value (equal to it when exact).
        tt_hit_rate: share of transposition-table probes that found their position.
    """

    value: int | None
    best_move: Move | None
    pv: tuple[Move, ...]
    nodes: int
    seconds: float
    exact: bool
    lower: int
    upper: int
    tt_hit_rate: float


def _check_state(state: State) -> State:
    if not isinstance(state, State):
        raise ScopaError(f"expected a scopa.State, got {type(state).__name__}")
    return state


class Solver:
    """A double-dummy solver with its own transposition table, kept between calls.

    Reuse one ``Solver`` for related positions (the same hand at later points, or the
    moves of one position): its table carries over as long as the rules and the stock
    stay consistent, and is cleared otherwise. Not thread-safe: use one per thread.

    >>> solver = Solver(tt_size_mb=16)
    >>> solver.solve(State.from_string("scopa 7d/Kc 3c4s - -/- 0/0 0 - -")).value
    4
    """

    def __init__(self, tt_size_mb: int = 64) -> None:
        if not isinstance(tt_size_mb, int) or isinstance(tt_size_mb, bool) or not 1 <= tt_size_mb <= 65536:
            raise ScopaError(f"bad tt_size_mb {tt_size_mb!r}: expected an int in 1..65536")
        self.tt_size_mb = tt_size_mb
        self._core = core.Solver(tt_size_mb)

    def clear(self) -> None:
        """Empty the transposition table."""
        self._core.clear()

    def solve(self, state: State, node_limit: int | None = None) -> SolveResult:
        """Solve ``state`` exactly, or within ``node_limit`` positions (then maybe inexact)."""
        _check_state(state)
        if node_limit is not None and (
            not isinstance(node_limit, int) or isinstance(node_limit, bool) or node_limit < 1
        ):
            raise ScopaError(f"bad node_limit {node_limit!r}: expected a positive int or None")
        t0 = time.perf_counter()
        exact, lower, upper, card, cap, pv, nodes = self._core.solve(
            state.masks, state.rules.core_options, state.rules.hand_size, node_limit or 0
        )
        seconds = time.perf_counter() - t0
        probes = self._core.tt_probes
        return SolveResult(
            value=lower if exact else None,
            best_move=None if card < 0 else Move._from_core(card, cap),
            pv=tuple(Move._from_core(c, m) for c, m in pv),
            nodes=nodes,
            seconds=seconds,
            exact=bool(exact),
            lower=lower,
            upper=upper,
            tt_hit_rate=self._core.tt_hits / probes if probes else 0.0,
        )

    def analyze(self, state: State) -> dict[Move, int]:
        """The exact value of every legal move (same perspective as :meth:`solve`)."""
        _check_state(state)
        rows = self._core.analyze(state.masks, state.rules.core_options, state.rules.hand_size)
        return {Move._from_core(c, m): v for c, m, v in rows}


_local = threading.local()


def _default() -> Solver:
    solver = getattr(_local, "solver", None)
    if solver is None:
        solver = _local.solver = Solver()
    return solver


def solve(state: State, node_limit: int | None = None) -> SolveResult:
    """Solve ``state`` with this thread's default :class:`Solver` (a 64 MB table)."""
    return _default().solve(state, node_limit=node_limit)


def analyze(state: State) -> dict[Move, int]:
    """Every legal move's exact value, with this thread's default :class:`Solver`."""
    return _default().analyze(state)
