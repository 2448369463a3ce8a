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

Searches can be bounded (``time_limit`` seconds, ``node_limit`` positions, or a
:class:`~scopa.limit.Limit` with a :class:`~scopa.limit.StopFlag`). A bounded search is
*anytime*: it first runs an iterative-deepening alpha-beta to growing depths with the
heuristic evaluation of the open scoring terms (what PIMC uses), then the exact search
from that estimate, and when the limit stops it returns the most it knows: a legal best
move, bounds that hold, and an estimate.

>>> full = scopa.State.deal("scopone_scientifico", seed=5)
>>> r = scopa.solve(full, time_limit=0.2)
>>> r.exact, r.best_move in full.legal_moves(), r.lower <= r.estimate <= r.upper, r.depth >= 1
(False, True, True, True)
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, wait
from dataclasses import dataclass, field
from typing import Any

import scopa_core as core
from scopa._threads import daemon_call, gather
from scopa.card import Card
from scopa.errors import OptionError, ScopaError, alternatives, as_int, check_int, check_real, show
from scopa.limit import Clock, CoreLimits, Limit
from scopa.move import Move
from scopa.records import ReadOnlyDict
from scopa.state import State, require_state

__all__ = [
    "EXACT_FIRST_SECONDS",
    "Analysis",
    "MoveValue",
    "SearchInfo",
    "SolveResult",
    "Solver",
    "analyze",
    "solve",
]

#: Share of a bounded search's time and nodes that the iterative deepening may use before
#: the exact search starts.
ID_SHARE = 0.2
EXACT_FIRST_SECONDS = 0.05
"""With only a stop flag (no time or node limit), the exact search is tried first for this
long (seconds): most positions are solved well within it."""
#: With only a stop flag, the iterative deepening then takes at most this long in all (seconds),
#: and the exact search runs until the flag is set.
ID_SECONDS_UNBOUNDED = 0.25


def _check_value(obj: object, value: object, lower: object, upper: object, estimate: object) -> float:
    """The checks that :class:`SolveResult`, :class:`MoveValue` and :class:`SearchInfo` share:
    int bounds in order, an estimate within them, an exact value equal to both; the estimate
    as a float. The value and the bounds are set on ``obj`` as ints (NumPy's read as theirs)."""
    value = check_int("value", value, none=True)
    lower, upper = check_int("lower", lower), check_int("upper", upper)
    for name, x in (("value", value), ("lower", lower), ("upper", upper)):
        if hasattr(obj, name):  # (SearchInfo has no value)
            object.__setattr__(obj, name, x)
    if lower > upper:
        raise OptionError(f"bad bounds in {show(obj)}: lower {lower} is above upper {upper}")
    est = check_real("estimate", estimate, lower, upper, f"a number in lower..upper ({lower}..{upper})")
    if value is not None and not value == lower == upper == est:
        raise OptionError(
            f"bad value {value} in {show(obj)}: an exact value is equal to lower, upper and estimate"
        )
    return est


def _check_move(x: object, name: str) -> None:
    if x is not None and not isinstance(x, Move):
        raise OptionError(f"bad {name} {show(x)}: expected a scopa.Move or None")


def _check_search_figures(nodes: object, seconds: object, depth: object) -> tuple[int, float, int]:
    """``nodes``, ``seconds`` and ``depth`` checked: as an int, a float and an int."""
    n, d = check_int("nodes", nodes, 0), check_int("depth", depth, 0)
    return n, check_real("seconds", seconds, 0, math.inf, "a finite number of seconds >= 0", finite=True), d


@dataclass(frozen=True)
class SolveResult:
    """The outcome of :meth:`Solver.solve`.

    Attributes:
        value: the exact value (final difference for the team to move), or ``None``
            when a limit stopped the search first.
        best_move: a move reaching ``value`` when exact; when not, the move the search
            proved reaches ``lower``, or else the deepest depth-limited search's choice. A
            legal move whenever the hand is not over (``None`` then).
        pv: the principal variation from ``best_move``: a best line to the end of the
            hand, whose replay reaches ``value``. Under a limit it is the part of that line
            the search proved before the limit hit: possibly shorter even when ``exact``
            (every move of it a best move; ``best_move`` at least), empty when inexact.
        nodes: positions searched by this call (a solver's table may answer positions
            searched by earlier calls: see :meth:`Solver.solve`).
        seconds: wall-clock time of the call.
        exact: whether ``value`` is exact.
        lower, upper: bounds that hold for the value (equal to it when exact).
        tt_hit_rate: share of transposition-table probes that found their position.
        estimate: the best guess of the value: the exact value when exact, else the
            deepest completed depth-limited search's, within ``lower..upper``.
        depth: plays deep of the deepest completed depth-limited search (0: none ran).

    Two results are equal when they say the same of the position: ``nodes``, ``seconds`` and
    ``tt_hit_rate``, what the search cost, are left out of ``==`` and the hash.

    >>> s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    >>> r = solve(s)
    >>> r.exact, r.lower == r.value == r.upper, r.estimate
    (True, True, 4.0)
    >>> end = s
    >>> for move in r.pv:                        # the PV replays to the value
    ...     end = end.play(move)
    >>> end.is_over, end.score().points
    (True, (4, 0))
    """

    value: int | None
    best_move: Move | None
    pv: tuple[Move, ...]
    # (the search's measurements, not what it found: two results are equal by what they say of
    # the position, however long each search took and however much of it a table answered)
    nodes: int = field(compare=False)
    seconds: float = field(compare=False)
    exact: bool
    lower: int
    upper: int
    tt_hit_rate: float = field(compare=False)
    estimate: float
    depth: int = 0

    def __post_init__(self) -> None:
        # (a result built by hand: each field of its type and range, the bounds in order, an
        # exact value equal to them; the solver's own results hold by construction)
        if self.exact is not True and self.exact is not False:
            raise OptionError(f"bad exact {show(self.exact)}: expected True or False")
        check_int("value", self.value, none=True)  # (first: its own message for a value of no kind)
        if self.exact != (self.value is not None):
            raise OptionError(
                f"bad value {show(self.value)} with exact={self.exact}: expected an int when exact,"
                " None when not"
            )
        est = _check_value(self, self.value, self.lower, self.upper, self.estimate)
        _check_move(self.best_move, "best_move")
        pv = self.pv
        if not isinstance(pv, (tuple, list)) or not all(isinstance(m, Move) for m in pv):
            raise OptionError(f"bad pv {show(pv)}: expected a tuple of scopa.Move")
        nodes, seconds, depth = _check_search_figures(self.nodes, self.seconds, self.depth)
        rate = check_real("tt_hit_rate", self.tt_hit_rate, 0, 1, "a share in 0..1")
        object.__setattr__(self, "pv", tuple(pv))
        object.__setattr__(self, "nodes", nodes)
        object.__setattr__(self, "depth", depth)
        object.__setattr__(self, "estimate", est)
        object.__setattr__(self, "seconds", seconds)
        object.__setattr__(self, "tt_hit_rate", rate)

    def to_json(self) -> dict[str, Any]:
        """The result as the engine's ``solve`` reply and ``scopa batch solve``'s lines give it:
        ``value`` (null when inexact), ``exact``, ``lower``, ``upper``, ``estimate`` (to 4
        decimals), ``depth``, ``best`` (null when the hand is over), ``pv``, ``nodes`` and
        ``seconds`` (to the microsecond). A report, rounded and without ``tt_hit_rate``: there is
        no ``from_json`` (a review's or an arena result's JSON reads back whole).

        >>> j = solve(State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")).to_json()
        >>> j["value"], j["exact"], j["best"], len(j["pv"])
        (4, True, '7dx3c4s', 4)
        """
        return {
            "value": self.value,
            "exact": self.exact,
            "lower": self.lower,
            "upper": self.upper,
            "estimate": round(self.estimate, 4),
            "depth": self.depth,
            "best": None if self.best_move is None else str(self.best_move),
            "pv": [str(m) for m in self.pv],
            "nodes": self.nodes,
            "seconds": round(self.seconds, 6),
        }


@dataclass(frozen=True)
class MoveValue:
    """What :meth:`Solver.analyze` knows of one move: its exact value, or bounds and an
    estimate when a limit stopped the search first.

    >>> MoveValue(value=None, lower=-2, upper=5, estimate=1.5).exact
    False
    """

    value: int | None
    lower: int
    upper: int
    estimate: float

    def __post_init__(self) -> None:
        # (a value built by hand: int bounds in order, the estimate within them, an exact value
        # equal to both and to the estimate)
        estimate = _check_value(self, self.value, self.lower, self.upper, self.estimate)
        object.__setattr__(self, "estimate", estimate)

    @property
    def exact(self) -> bool:
        """Whether ``value`` is exact (then ``lower == upper == value == estimate``)."""
        return self.value is not None


class _Moves(ReadOnlyDict):
    """An analysis's moves: read-only (an analysis is a value), written as a dict."""

    __slots__ = ()

    _REFUSAL = "an analysis's moves cannot be changed: analyze again"


class Analysis(Mapping[Move, "int | None"]):
    """Every legal move's value: a mapping from :class:`~scopa.move.Move` to its exact
    value (``None`` for a move a limit left unsolved), in the order of
    :meth:`State.legal_moves <scopa.state.State.legal_moves>`, and each move's
    :class:`MoveValue` in :attr:`moves`.

    An exact analysis compares equal to the plain dict of values; two analyses are equal when
    their moves' :class:`MoveValue` are (bounds and estimates too). An analysis is a value: its
    fields and its moves cannot be changed. A move may be looked up by its notation too; one
    that is not legal here is a KeyError naming the legal ones.

    >>> import scopa
    >>> a = scopa.analyze(scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1"))
    >>> a == {Move.parse("7dx3c4s"): 4, Move.parse("Kc"): 3}, a.exact, str(a.best_move)
    (True, True, '7dx3c4s')
    >>> a.moves[Move.parse("Kc")], a["Kc"], "7d" in a
    (MoveValue(value=3, lower=3, upper=3, estimate=3.0), 3, False)
    >>> a["7d"]
    Traceback (most recent call last):
    ...
    KeyError: "'7d' is not a legal move here: expected 7dx3c4s or Kc"
    >>> a.nodes = 0
    Traceback (most recent call last):
    ...
    AttributeError: an analysis cannot be changed: analyze again
    """

    __slots__ = ("moves", "nodes", "seconds", "depth")

    def __init__(self, values: Mapping[Move, MoveValue], nodes: int, seconds: float, depth: int = 0) -> None:
        # (an analysis built by hand: checked whole before any field is set)
        if not isinstance(values, Mapping) or not all(
            isinstance(m, Move) and isinstance(v, MoveValue) for m, v in values.items()
        ):
            raise OptionError(f"bad values {show(values)}: expected a mapping of scopa.Move to MoveValue")
        nodes, seconds, depth = _check_search_figures(nodes, seconds, depth)
        init = object.__setattr__  # (an analysis is a value: __setattr__ refuses, below)
        #: ``{move: MoveValue}`` for every legal move (read-only).
        self.moves: dict[Move, MoveValue]
        init(self, "moves", _Moves(values))
        #: positions searched by this call.
        self.nodes: int
        init(self, "nodes", nodes)
        #: wall-clock time of the call.
        self.seconds: float
        init(self, "seconds", seconds)
        #: plays deep of the deepest completed depth-limited search (0: none ran).
        self.depth: int
        init(self, "depth", depth)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("an analysis cannot be changed: analyze again")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("an analysis cannot be changed: analyze again")

    def __reduce__(self) -> tuple[Any, ...]:  # (pickle and copy: through the constructor)
        return (type(self), (dict(self.moves), self.nodes, self.seconds, self.depth))

    def __eq__(self, other: object) -> bool:
        # (two analyses by their moves' values, bounds and estimates: cut short by two limits,
        # every value None, they compared equal as mappings; a plain dict by the values alone)
        if isinstance(other, Analysis):
            return self.moves == other.moves
        return Mapping.__eq__(self, other)

    __hash__ = None  # type: ignore[assignment]

    def __getitem__(self, move: Move | Card | str) -> int | None:
        if isinstance(move, Card):  # (as its name: a card's one legal move, as State.play takes it)
            move = str(move)
        value = self.moves.get(move) if isinstance(move, Move) else None
        if value is None and isinstance(move, str):
            with contextlib.suppress(ScopaError):
                value = self.moves.get(Move.parse(move))
        if value is None:
            legal = [str(m) for m in self.moves]
            expected = f"expected {alternatives(legal)}" if legal else "the hand is over"
            raise KeyError(f"{show(move)} is not a legal move here: {expected}")
        return value.value

    def __iter__(self) -> Iterator[Move]:
        return iter(self.moves)

    def __len__(self) -> int:
        return len(self.moves)

    @property
    def exact(self) -> bool:
        """Whether every move's value is exact."""
        return all(v.exact for v in self.moves.values())

    @property
    def best_move(self) -> Move | None:
        """The move with the highest value, or when some are inexact the highest estimate
        (the first in move order among equals); ``None`` when the hand is over."""
        best: Move | None = None
        for m, v in self.moves.items():
            if best is None or v.estimate > self.moves[best].estimate:
                best = m
        return best

    def lines(self) -> list[dict[str, Any]]:
        """Every move as JSON, the best estimate first (move order among equals): ``move``,
        ``value`` (null unsolved), ``lower``, ``upper``, ``estimate`` (to 4 decimals) and
        ``exact``; the ``lines`` of the engine's ``analyze`` and of ``scopa solve --json``.

        >>> import scopa
        >>> scopa.analyze(scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")).lines()[1]
        {'move': 'Kc', 'value': 3, 'lower': 3, 'upper': 3, 'estimate': 3.0, 'exact': True}
        """
        order = sorted(self.moves.items(), key=lambda mv: -mv[1].estimate)
        return [
            {
                "move": str(m),
                "value": v.value,
                "lower": v.lower,
                "upper": v.upper,
                "estimate": round(v.estimate, 4),
                "exact": v.exact,
            }
            for m, v in order
        ]

    def to_json(self) -> dict[str, Any]:
        """The analysis as the engine's ``analyze`` reply and ``scopa batch analyze``'s lines
        give it: ``moves`` (each legal move's exact value, null where a limit left it unsolved),
        ``exact``, ``best``, ``depth``, ``nodes``, ``seconds`` (to the microsecond) and
        ``lines`` (:meth:`lines`: each move's bounds and estimate, the best first).

        >>> import scopa
        >>> a = scopa.analyze(scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1"))
        >>> j = a.to_json()
        >>> j["moves"], j["best"], j["exact"], len(j["lines"])
        ({'7dx3c4s': 4, 'Kc': 3}, '7dx3c4s', True, 2)
        """
        best = self.best_move
        return {
            "moves": {str(m): v.value for m, v in self.moves.items()},
            "exact": self.exact,
            "best": None if best is None else str(best),
            "depth": self.depth,
            "nodes": self.nodes,
            "seconds": round(self.seconds, 6),
            "lines": self.lines(),
        }

    def __repr__(self) -> str:
        """The constructor's call that makes an equal analysis (the repr pastes back, as the
        other values' do; it was ``<Analysis exact {7dx3c4s: 4, Kc: 3}>``).

        >>> import scopa
        >>> a = scopa.analyze(scopa.State.from_string("scopa 7d/2c 3c4s - -/- 0/0 0 - 1"))
        >>> repr(a).split(", nodes=")[0]
        "Analysis({Move.parse('7dx3c4s'): MoveValue(value=4, lower=4, upper=4, estimate=4.0)}"
        >>> eval(repr(a)) == a
        True
        """
        return (
            f"{type(self).__name__}({dict(self.moves)!r}, nodes={self.nodes!r}, seconds={self.seconds!r},"
            f" depth={self.depth!r})"
        )


@dataclass(frozen=True)
class SearchInfo:
    """Progress of a bounded search, passed to a ``progress`` callback after each depth of
    the iterative deepening and at the end (like UCI's ``info`` lines).

    Attributes:
        depth: plays deep of the deepest completed depth-limited search.
        nodes: positions searched so far.
        seconds: time so far.
        estimate: the current estimate of the value.
        best_move: the current best move.
        lower, upper: the bounds proved so far.
        exact: whether the value is known exactly.

    >>> s = State.from_string("scopa 7dKc3b/2cAs5d 3c4s 6c7sQb3d4d2b -/- 0/0 0 - 1")
    >>> infos = []
    >>> r = Solver(tt_size_mb=1).solve(s, node_limit=100_000, progress=infos.append)
    >>> [(i.depth, i.estimate) for i in infos[6:]]          # deeper, closer to the value
    [(7, 3.31), (8, 3.31), (9, 4.12), (10, 4.12), (11, 4.66), (12, 5.0), (12, 5.0)]
    >>> last = infos[-1]
    >>> last.exact, last.lower, last.upper, str(last.best_move)
    (True, 5, 5, '7dx3c4s')
    """

    depth: int
    nodes: int
    seconds: float
    estimate: float
    best_move: Move | None
    lower: int
    upper: int
    exact: bool

    def __post_init__(self) -> None:
        # (progress built by hand, to test a callback: each field of its type and range)
        if self.exact is not True and self.exact is not False:
            raise OptionError(f"bad exact {show(self.exact)}: expected True or False")
        estimate = _check_value(self, None, self.lower, self.upper, self.estimate)
        if self.exact and self.lower != self.upper:
            raise OptionError(f"bad bounds in {show(self)}: an exact value has lower equal to upper")
        _check_move(self.best_move, "best_move")
        nodes, seconds, depth = _check_search_figures(self.nodes, self.seconds, self.depth)
        object.__setattr__(self, "estimate", estimate)
        object.__setattr__(self, "seconds", seconds)
        object.__setattr__(self, "nodes", nodes)
        object.__setattr__(self, "depth", depth)


Progress = Callable[[SearchInfo], None]


def check_progress(progress: object) -> None:
    """Raise :class:`OptionError` unless ``progress`` is None or callable (checked at the call,
    not when the first report is due)."""
    if progress is not None and not callable(progress):
        raise OptionError(f"bad progress {show(progress)}: expected a function or None")


def _clamp(x: float, lo: int, hi: int) -> float:
    return float(min(max(x, lo), hi))


class _Deepening:
    """Iterative deepening for the anytime searches: depth 1 always (every move valued
    one play deep), then deeper while the next depth is expected to fit its budget."""

    def __init__(self, clock: Clock, plays: int) -> None:
        self.clock = clock
        self.plays = plays
        lim = clock.limit
        self.seconds = None if lim.time is None else lim.time * ID_SHARE
        self.nodes = None if lim.nodes is None else max(1, int(lim.nodes * ID_SHARE))
        #: only a stop flag bounds the search (the exact search is tried first)
        self.flag_only = self.seconds is None and self.nodes is None
        if self.flag_only:
            self.seconds = ID_SECONDS_UNBOUNDED
        self.costs: list[tuple[float, int]] = []

    def depths(self) -> Iterator[int]:
        for d in range(1, self.plays + 1):
            if d > 1 and not self._fits():
                return
            yield d

    def core_args(self, depth: int) -> CoreLimits:
        """The next depth's limits: none at depth 1, else the iterative deepening's budget."""
        if depth == 1:
            return {"node_limit": 0, "time_limit": 0.0, "stop": None}
        args = self.clock.core_args()
        if self.seconds is not None:
            budget = self.seconds - self.clock.elapsed
            args["time_limit"] = max(1e-6, min(args["time_limit"] or budget, budget))
        if self.nodes is not None:
            args["node_limit"] = max(1, min(args["node_limit"] or self.nodes, self.nodes - self.clock.nodes))
        return args

    def record(self, seconds: float, nodes: int) -> None:
        self.costs.append((seconds, nodes))

    def _fits(self) -> bool:
        if self.clock.expired or not self.costs:
            return not self.clock.expired
        (t1, n1), growth_t, growth_n = self.costs[-1], 3.0, 3.0
        if len(self.costs) >= 2:
            t0, n0 = self.costs[-2]
            growth_t = max(1.5, t1 / t0) if t0 > 1e-4 else 3.0
            growth_n = max(1.5, n1 / n0) if n0 > 0 else 3.0
        if self.seconds is not None and self.clock.elapsed + t1 * growth_t > self.seconds:
            return False
        return not (self.nodes is not None and self.clock.nodes + n1 * growth_n > self.nodes)


def core_solver(tt_size_mb: int) -> Any:
    """The core's solver with a table of ``tt_size_mb`` MB: an OptionError when this machine
    cannot give that much memory (the compiled core allocates it at once, the twin as it fills)."""
    try:
        return core.Solver(tt_size_mb)
    except MemoryError:
        raise OptionError(
            f"bad tt_size_mb {tt_size_mb}: this machine cannot give a {tt_size_mb} MB transposition "
            "table (ask for less)"
        ) from None


#: The largest transposition table the core takes, in MB (64 GiB).
MAX_TT_MB = 65536


def check_tt_size(tt_size_mb: object) -> int:
    """``tt_size_mb`` if it is a transposition table size the core takes (an int of MB in
    1..:data:`MAX_TT_MB`); else :class:`~scopa.errors.OptionError`. The solver's and PIMC's."""
    size = as_int(tt_size_mb)
    if size is None or not 1 <= size <= MAX_TT_MB:
        raise OptionError(f"bad tt_size_mb {show(tt_size_mb)}: expected an int in 1..{MAX_TT_MB}")
    return size


class Solver:
    """A double-dummy solver with its own transposition table, kept between calls.

    Reuse one ``Solver`` for related positions (the same hand at later points, or the
    moves of one position): its table carries over as long as the rules and the stock
    stay consistent, and is cleared otherwise. It may be shared between threads: a call
    waits while another thread's call runs (use one per thread to search in parallel), as
    long as its limit lets it: a call with a time limit or a stop flag that runs out while it
    waits answers then from a small table of its own (a legal best move, bounds, an estimate;
    ``seconds`` counts the wait), and one without a limit, or with a node limit only, waits
    its turn.

    A limit counts what *this* call searches: a position an earlier call solved may be
    answered from the table at once, so a tight ``node_limit`` can still give an exact
    result, and ``nodes`` reports only this call's positions.

    ``threads=N`` (0: every core) searches on N threads: ``solve`` shares the table between
    them (from 20 plays left, without a node limit; the compiled core only), an exact
    ``analyze`` splits the moves. Values never depend on the threads; where several moves
    have the best value, which one ``best_move`` and the PV name may vary from run to run.

    A copy (``copy.copy``, ``copy.deepcopy``, a pickle sent to another process) is a new
    solver of the same size and threads, with a table of its own, empty: the repr is the call
    that makes one.

    >>> solver = Solver(tt_size_mb=16)
    >>> solver.solve(State.from_string("scopa 7d/Kc 3c4s - -/- 0/0 0 - -")).value
    4
    >>> solver
    Solver(tt_size_mb=16, threads=1)
    """

    def __init__(self, tt_size_mb: int = 64, threads: int = 1) -> None:
        tt_size_mb = check_tt_size(tt_size_mb)
        n_threads = as_int(threads)
        if n_threads is None or not 0 <= n_threads <= 256:
            raise OptionError(f"bad threads {show(threads)}: expected an int in 0..256 (0: every core)")
        threads = n_threads
        self._threads_given = threads  # (0: every core of the machine it runs on)
        self.tt_size_mb = tt_size_mb
        #: threads a search uses: ``solve`` shares its table between them (positions of 20
        #: plays left and more, without a node limit), an exact ``analyze`` splits the moves
        #: over them (each with a table of its own)
        self.threads = threads or os.cpu_count() or 1
        self._core = core_solver(tt_size_mb)
        self._helpers: list[Any] = []
        self._lock = threading.Lock()
        self._owner: int | None = None  # the thread whose call holds the lock

    def __repr__(self) -> str:
        return f"{type(self).__name__}(tt_size_mb={self.tt_size_mb}, threads={self._threads_given})"

    #: what a copy or a pickle leaves out and makes anew: the table, the helpers, the lock
    _OWN = ("_core", "_helpers", "_lock", "_owner")

    def __getstate__(self) -> dict[str, Any]:
        # (a researcher's audit: pickle and deepcopy raised Cython's TypeError, and copy.copy
        # gave a second name for the same table and lock)
        return {k: v for k, v in self.__dict__.items() if k not in self._OWN}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self._threads_given == 0:  # (every core of the machine it is made again on)
            self.threads = os.cpu_count() or 1
        self._core = core_solver(self.tt_size_mb)
        self._helpers = []
        self._lock = threading.Lock()
        self._owner = None

    @contextlib.contextmanager
    def _claimed(self, clock: Clock | None = None) -> Iterator[bool]:
        """The solver for one call, True once it holds it: another thread's call waits; a call
        from the thread whose call runs (a ``progress`` callback that uses this solver) is an
        OptionError, not a wait for ever. A bounded call (its ``clock``) waits only as long as
        its time limit and its stop flag let it, then holds nothing (False): its caller answers
        from a small table of its own (a call sharing a solver waited for another's whole
        search, its limit and its flag unheeded, and said it took 0 seconds)."""
        me = threading.get_ident()
        if self._owner == me:
            raise OptionError(
                "this Solver is searching already, in this thread: a progress callback cannot "
                "use the solver it reports on (use another Solver)"
            )
        held = False
        try:  # (taken inside: an exception just after it is taken releases it)
            held = self._acquire(clock)
            if held:
                self._owner = me
            yield held
        finally:
            if held:
                self._owner = None
                self._lock.release()

    def _acquire(self, clock: Clock | None) -> bool:
        """Take the lock: at once, else waiting as long as the limit of ``clock`` lets the call
        (its time and its flag: a node limit does not count the wait), polled every 10 ms."""
        if self._lock.acquire(blocking=False):
            return True
        if clock is None:
            self._lock.acquire()
            return True
        lim = clock.limit
        while True:
            if lim.stopped:
                return False
            left = lim.remaining_time(clock.elapsed)
            if left is not None and left <= 0:
                return False
            if self._lock.acquire(timeout=0.01 if left is None else min(0.01, left)):
                return True

    def clear(self) -> None:
        """Empty the transposition table."""
        with self._claimed():
            self._core.clear()

    # ------------------------------------------------------------------ solve

    def solve(
        self,
        state: State,
        limit: Limit | None = None,
        *,
        time_limit: float | None = None,
        node_limit: int | None = None,
        progress: Progress | None = None,
    ) -> SolveResult:
        """Solve ``state`` exactly, or as far as ``limit`` / ``time_limit`` (seconds) /
        ``node_limit`` (positions) let it: then the result is inexact with bounds, an
        estimate and a legal best move (see :class:`SolveResult`). ``progress`` is called
        with a :class:`SearchInfo` after each depth of a bounded search's iterative
        deepening and at its end. Ctrl-C raises KeyboardInterrupt within milliseconds."""
        require_state(state)
        check_progress(progress)
        lim = Limit.of(limit, time_limit, node_limit)
        if not lim.bounded:
            with self._claimed():
                return self._exact_solve(state)
        clock = Clock(lim)  # (the call's time counts from here, a wait for the solver too)
        with self._claimed(clock) as held:
            if held:
                return self._anytime_solve(state, clock, progress)
        return Solver(1)._anytime_solve(state, clock, progress)  # (its limit ran out while waiting)

    def _exact_solve(self, state: State) -> SolveResult:
        t0 = time.perf_counter()
        exact, lower, upper, card, cap, pv, nodes = self._core.solve(
            state.masks, state.rules.core_options, state.rules.hand_size, threads=self.threads
        )
        return self._result(lower, upper, card, cap, pv, nodes, time.perf_counter() - t0, True, lower, 0)

    def _result(
        self,
        lower: int,
        upper: int,
        card: int,
        cap: int,
        pv: list[tuple[int, int]],
        nodes: int,
        seconds: float,
        exact: bool,
        estimate: float,
        depth: int,
    ) -> SolveResult:
        probes = self._core.tt_probes
        if exact and card >= 0 and not pv:  # (a value the table knew: its best move, at least)
            pv = [(card, cap)]
        return SolveResult(
            value=lower if exact else None,
            best_move=None if card < 0 else Move._from_core(card, cap),
            pv=tuple(Move._from_core(c, m) for c, m in pv),
            nodes=nodes,
            seconds=seconds,
            exact=exact,
            lower=lower,
            upper=upper,
            tt_hit_rate=self._core.tt_hits / probes if probes else 0.0,
            estimate=float(lower) if exact else _clamp(estimate, lower, upper),
            depth=depth,
        )

    def _anytime_solve(self, state: State, clock: Clock, progress: Progress | None) -> SolveResult:
        pos, opts, block = state.masks, state.rules.core_options, state.rules.hand_size
        if state.is_over:
            result = self._exact_solve(state)
            if progress is not None:  # (its one line, at the end)
                lo, hi, spent = result.lower, result.upper, result.seconds
                progress(self._info(clock, 0, result.estimate, (-1, 0), lo, hi, True, spent))
            return result
        plays = sum(len(h) for h in state.hands) + len(state.stock)
        deepening = _Deepening(clock, plays)
        estimate, best, depth = 0.0, (-1, 0), 0
        if deepening.flag_only:
            # a flag alone: the exact search first, briefly (an audit: easy positions solved in
            # 3 ms took the whole deepening first, 0.25 to 0.64 s, and a flag set in it lost them)
            args = {**clock.core_args(), "time_limit": EXACT_FIRST_SECONDS}
            known, lower, upper, card, cap, pv, nodes = self._core.solve(
                pos, opts, block, threads=self.threads, **args
            )
        else:  # the bounds before any search (or from the table): a call that stops at once
            known, lower, upper, card, cap, pv, nodes = self._core.solve(
                pos, opts, block, node_limit=1, pv=False
            )
        clock.add(nodes)
        for d in [] if known else deepening.depths():
            t = time.perf_counter()
            r = self._core.horizon(
                pos, opts, block, d, first=best if best[0] >= 0 else None, **deepening.core_args(d)
            )
            clock.add(self._core.nodes)
            if r is None:
                break
            deepening.record(time.perf_counter() - t, self._core.nodes)
            estimate, best, depth = r[0], (r[1], r[2]), d
            if progress is not None:
                progress(self._info(clock, depth, estimate, best, lower, upper, False))
            if d >= plays:  # the horizon is past the end of the hand: the value is exact
                break
        exact = deepening.flag_only and known  # (the exact search's first try: its line is whole)
        if not exact:
            # (the first call's move, when it gave one, reaches its lower bound: the table proved
            # it; an audit saw a bound of 5 from the table beside the horizon's choice, worth 4)
            proved, proved_lower = (card, cap), lower
            card, cap = -1, 0
            if known or not clock.expired:
                # (the core guesses from its own horizon search, scaled as tuned for unbounded
                # solves; a level-hand guess costs 19% more nodes at k = 6)
                exact, lower, upper, card, cap, pv, nodes = self._core.solve(
                    pos, opts, block, threads=self.threads, **clock.core_args()
                )
                clock.add(nodes)
            if card < 0 and proved[0] >= 0 and lower == proved_lower:
                card, cap = proved
        if card < 0:
            card, cap = best
        result = self._result(lower, upper, card, cap, pv, clock.nodes, clock.elapsed, exact, estimate, depth)
        if progress is not None:  # (its seconds the reply's: a JS audit saw the line's past them)
            spent = result.seconds
            progress(self._info(clock, depth, result.estimate, (card, cap), lower, upper, exact, spent))
        return result

    @staticmethod
    def _info(
        clock: Clock,
        depth: int,
        estimate: float,
        best: tuple[int, int],
        lower: int,
        upper: int,
        exact: bool,
        seconds: float | None = None,
    ) -> SearchInfo:
        """A progress line; ``seconds`` the clock's unless given (the last line's, the result's)."""
        return SearchInfo(
            depth=depth,
            nodes=clock.nodes,
            seconds=clock.elapsed if seconds is None else seconds,
            estimate=_clamp(estimate, lower, upper),
            best_move=Move._from_core(*best) if best[0] >= 0 else None,
            lower=lower,
            upper=upper,
            exact=exact,
        )

    # ------------------------------------------------------------------ analyze

    def analyze(
        self,
        state: State,
        limit: Limit | None = None,
        *,
        time_limit: float | None = None,
        node_limit: int | None = None,
        progress: Progress | None = None,
    ) -> Analysis:
        """Every legal move's exact value (same perspective as :meth:`solve`), or as far as
        the limit lets the search go: each move then has its value when it was solved,
        otherwise bounds and an estimate (see :class:`Analysis`). A bounded analysis first
        values every move by iterative deepening, then solves the moves best first."""
        require_state(state)
        check_progress(progress)
        lim = Limit.of(limit, time_limit, node_limit)
        if not lim.bounded:
            with self._claimed():
                t0 = time.perf_counter()
                rows, nodes = self._exact_rows(state)
                values = {Move._from_core(c, m): MoveValue(v, v, v, float(v)) for c, m, v in rows}
                return Analysis(values, nodes, time.perf_counter() - t0)
        clock = Clock(lim)  # (as solve's: a wait for the solver counts)
        with self._claimed(clock) as held:
            if held:
                return self._anytime_analyze(state, clock, progress)
        return Solver(1)._anytime_analyze(state, clock, progress)

    def _exact_rows(self, state: State) -> tuple[list[tuple[int, int, int]], int]:
        """Every move's exact value: in this thread, or split over :attr:`threads` threads,
        each solving its share of the moves on a table of its own (the core releases the GIL
        while it searches); values and order are the same either way."""
        pos, opts, block = state.masks, state.rules.core_options, state.rules.hand_size
        moves = core.legal_moves(pos[0][pos[5]], pos[1], opts)
        n = min(self.threads, len(moves))
        if n <= 1:
            rows = self._core.analyze(pos, opts, block)
            assert rows is not None  # no limit was given
            return rows, self._core.nodes
        while len(self._helpers) < n - 1:
            self._helpers.append(core_solver(self.tt_size_mb))
        solvers = [self._core, *self._helpers[: n - 1]]
        sigma = 1 if pos[5] & 1 == 0 else -1
        out: dict[int, int] = {}
        nodes = [0] * n

        # (the helper threads do not see Ctrl-C, which the main thread's search polls for: the
        # flag stops theirs when this thread's wait is interrupted, or one of them fails)
        halt = core.StopFlag()

        def work(k: int) -> None:
            sv = solvers[k]
            for i in range(k, len(moves), n):
                if halt.is_set():
                    return
                c, m = moves[i]
                child = core.apply_move(pos, c, m, opts, block)
                if not any(child[0]) and not child[2]:
                    row0, row1 = core.score(child[3][0], child[3][1], child[4][0], child[4][1], opts)
                    out[i] = sigma * (sum(row0) - sum(row1))
                    continue
                r = sv.solve(child, opts, block, stop=halt, pv=False)
                out[i] = -r[1]  # the next seat is on the other team
                nodes[k] += r[6]

        # (daemon threads, waited for a slice at a time: a simulated Ctrl-C reaches this thread,
        # which a pool's blocking wait kept from it to the analysis's end; and an analysis in a
        # daemon thread no longer holds up the interpreter's exit, as a pool's joined workers did)
        helpers: list[Future[None]] = []
        try:
            for k in range(n):  # (started inside: a Ctrl-C between two starts stops the first)
                helpers.append(daemon_call(work, k))
            gather(helpers, halt)
        except BaseException:
            halt.set()
            raise
        finally:
            wait(helpers)  # (stopped by then: each helper's search ends in milliseconds)
        return [(c, m, out[i]) for i, (c, m) in enumerate(moves)], sum(nodes)

    def _anytime_analyze(self, state: State, clock: Clock, progress: Progress | None) -> Analysis:
        pos, opts, block = state.masks, state.rules.core_options, state.rules.hand_size
        moves = core.legal_moves(pos[0][pos[5]], pos[1], opts)
        if not moves:
            over = Analysis({}, 0, clock.elapsed)
            if progress is not None:  # (the hand is over: its one line, with its final value)
                v = self._exact_solve(state).lower
                progress(self._info(clock, 0, float(v), (-1, 0), v, v, True, over.seconds))
            return over
        plays = sum(len(h) for h in state.hands) + len(state.stock)
        deepening = _Deepening(clock, plays)
        if deepening.flag_only and progress is None:
            # a flag alone: every move's exact value first, briefly, as solve does (a review
            # found batch analyses 100 times slower with the run's flag in their limits)
            first = {**clock.core_args(), "time_limit": EXACT_FIRST_SECONDS}
            rows = self._core.analyze(pos, opts, block, **first)
            clock.add(self._core.nodes)
            if rows is not None:
                values = {Move._from_core(c, m): MoveValue(v, v, v, float(v)) for c, m, v in rows}
                return Analysis(values, clock.nodes, clock.elapsed)
        estimates = {mv: 0.0 for mv in moves}
        depth = 0
        lower = upper = 0
        if progress is not None:  # the position's bounds before any search, for the info lines
            _, lower, upper, _, _, _, nodes = self._core.solve(pos, opts, block, node_limit=1, pv=False)
            clock.add(nodes)
        for d in deepening.depths():
            t = time.perf_counter()
            rows = self._core.analyze_depth(pos, opts, block, d, **deepening.core_args(d))
            clock.add(self._core.nodes)
            if rows is None:
                break
            deepening.record(time.perf_counter() - t, self._core.nodes)
            estimates = {(c, m): v for c, m, v in rows}
            depth = d
            if progress is not None:
                best = max(moves, key=lambda mv: estimates[mv])
                progress(self._info(clock, depth, estimates[best], best, lower, upper, False))
            if d >= plays:
                break
        results: dict[tuple[int, int], MoveValue] = {}
        for mv in sorted(moves, key=lambda mv: -estimates[mv]):
            child = core.apply_move(pos, mv[0], mv[1], opts, block)
            est = estimates[mv]
            searching = not clock.expired
            if searching:
                args = clock.core_args()
                r = self._core.solve(child, opts, block, guess=-round(est), pv=False, **args)
            else:
                r = self._core.solve(child, opts, block, node_limit=1, pv=False)
            clock.add(r[6])
            exact, lo, hi = r[0] and r[1] == r[2], -r[2], -r[1]
            results[mv] = MoveValue(
                lo if exact else None, lo, hi, float(lo) if exact else _clamp(est, lo, hi)
            )
        values = {Move._from_core(*mv): results[mv] for mv in moves}
        out = Analysis(values, clock.nodes, clock.elapsed, depth)
        if progress is not None:
            best_move = out.best_move
            assert best_move is not None
            bv = out.moves[best_move]
            progress(
                self._info(
                    clock,
                    depth,
                    bv.estimate,
                    (best_move.card.index, best_move.capture_mask),
                    bv.lower,
                    bv.upper,
                    out.exact,
                    seconds=out.seconds,
                )
            )
        return out


_local = threading.local()


def _default() -> Solver:
    """This thread's default solver; within a call of it (from a ``progress`` callback) another
    one, kept for such calls."""
    solvers: list[Solver] = _local.__dict__.setdefault("solvers", [])
    me = threading.get_ident()
    for solver in solvers:
        if solver._owner != me:
            return solver
    solvers.append(Solver())
    return solvers[-1]


def solve(
    state: State,
    limit: Limit | None = None,
    *,
    time_limit: float | None = None,
    node_limit: int | None = None,
    progress: Progress | None = None,
) -> SolveResult:
    """Solve ``state`` with this thread's default :class:`Solver` (a 64 MB table); see
    :meth:`Solver.solve`. A thread's first call (of this or :func:`analyze`) makes that solver
    before the limit's clock starts, about 0.1 s more: make a :class:`Solver` ahead when the
    first answer's time counts.

    >>> s = State.from_string("scopone_scientifico 7dKc/As2b/3c4d/5s6b Qd - Ad/2d 0/1 0 1 3")
    >>> r = solve(s)                             # four hands of two cards: 8 plays to the end
    >>> r.value, r.exact, len(r.pv)
    (-5, True, 8)
    """
    return _default().solve(state, limit, time_limit=time_limit, node_limit=node_limit, progress=progress)


def analyze(
    state: State,
    limit: Limit | None = None,
    *,
    time_limit: float | None = None,
    node_limit: int | None = None,
    progress: Progress | None = None,
) -> Analysis:
    """Every legal move's value with this thread's default :class:`Solver`; see
    :meth:`Solver.analyze`.

    >>> s = State.from_string("scopa 7dKc3b/2cAs5d 3c4s 6c7sQb3d4d2b -/- 0/0 0 - 1")
    >>> a = analyze(s)                           # the stock's order known: one refill to come
    >>> {str(m): v for m, v in a.items()}, str(a.best_move)
    ({'7dx3c4s': 5, 'Kc': 4, '3bx3c': 4}, '7dx3c4s')
    """
    return _default().analyze(state, limit, time_limit=time_limit, node_limit=node_limit, progress=progress)
