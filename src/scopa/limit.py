"""How long a search may run: one :class:`Limit` for the solver, the players, the review,
the engine protocol and the command line, and one way to stop a search early.

A limit holds a time (seconds), a node count and a :class:`StopFlag`; any may be left out.
The flag is the one way to stop a search: the core's search loop reads it every few
thousand nodes. Ctrl-C on the command line, the engine's ``stop`` request, a closed
WebSocket and a cancelled batch job all set it; a time limit and a node limit stop the
search by themselves.

>>> lim = Limit(time=0.5)
>>> lim
Limit(time=0.5)
>>> lim.remaining_time(elapsed=0.2)
0.3
>>> Limit(nodes=0)
Traceback (most recent call last):
...
scopa.errors.LimitError: bad nodes 0: expected an int in 1..2**62-1 or None
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import TypedDict

import scopa_core as core
from scopa.errors import LimitError, as_bool, as_int, plain_number, real, show

__all__ = ["Clock", "CoreLimits", "Limit", "StopFlag"]


class StopFlag(core.StopFlag):
    """A flag that stops the searches that watch it, from any thread: ``set()``,
    ``clear()``, ``is_set()``. A subclass of the loaded core's own type
    (``scopa_core.StopFlag``, which its search loops read directly) whose constructor raises
    :class:`~scopa.errors.LimitError` for a bad ``set``.

    >>> StopFlag(set=True)
    StopFlag(set=True)
    """

    __slots__ = ()

    def __init__(self, set: bool = False) -> None:  # noqa: A002 - the repr's name
        flag = as_bool(set)
        if flag is None:
            raise LimitError(f"bad set {show(set)}: expected True or False")
        super().__init__(flag)

    def __reduce__(self) -> tuple[type[StopFlag], tuple[bool]]:
        return (StopFlag, (self.is_set(),))


_NODE_MAX = (1 << 62) - 1
_TIME_MAX = 1e9


@dataclass(frozen=True)
class Limit:
    """What may stop a search: ``time`` seconds, ``nodes`` positions searched, or ``stop``
    being set. ``Limit()`` has no limit: the search runs to its end.

    Attributes:
        time: seconds (a number > 0), or None.
        nodes: positions (an int >= 1), or None.
        stop: a :class:`StopFlag`, or None.

    >>> import scopa
    >>> flag = StopFlag()
    >>> lim = Limit(time=2, stop=flag)
    >>> lim, lim.stopped
    (Limit(time=2.0, stop=StopFlag(set=False)), False)
    >>> flag.set()                               # from any thread: the searches stop
    >>> r = scopa.solve(scopa.State.deal("scopone_scientifico", seed=5), lim)
    >>> lim.stopped, r.exact, r.value
    (True, False, None)
    """

    time: float | None = None
    nodes: int | None = None
    stop: StopFlag | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.time is not None:
            object.__setattr__(self, "time", _check_time(self.time, "time"))
        if self.nodes is not None:
            object.__setattr__(self, "nodes", _check_nodes(self.nodes, "nodes"))
        if self.stop is not None and not isinstance(self.stop, core.StopFlag):
            raise LimitError(f"bad stop {show(self.stop)}: expected a scopa.StopFlag or None")

    @classmethod
    def of(
        cls,
        limit: Limit | None = None,
        time_limit: float | None = None,
        node_limit: int | None = None,
    ) -> Limit:
        """One limit from a ``limit`` and the ``time_limit`` / ``node_limit`` keywords the
        functions also take (the tighter of each, when both give one)."""
        if limit is not None and not isinstance(limit, Limit):
            raise LimitError(f"bad limit {show(limit)}: expected a scopa.Limit or None")
        if time_limit is not None:
            _check_time(time_limit, "time_limit")
        if node_limit is not None:
            _check_nodes(node_limit, "node_limit")
        base = limit or cls()
        t = _tighter(base.time, time_limit)
        n = _tighter(base.nodes, node_limit)
        return cls(time=t, nodes=None if n is None else int(n), stop=base.stop)

    @property
    def bounded(self) -> bool:
        """Whether anything may stop the search early (a time, a node count or a flag)."""
        return self.time is not None or self.nodes is not None or self.stop is not None

    @property
    def stopped(self) -> bool:
        """Whether the flag is set."""
        return self.stop is not None and self.stop.is_set()

    def remaining_time(self, elapsed: float) -> float | None:
        """Seconds left after ``elapsed`` seconds (never below 0), or None without a time
        limit; ``elapsed`` that is not a number >= 0 is a :class:`LimitError`."""
        given, elapsed = elapsed, plain_number(elapsed)  # (NumPy's numbers too)
        number = isinstance(elapsed, (int, float)) and not isinstance(elapsed, bool)
        if not (number and 0 <= elapsed < math.inf):
            raise LimitError(f"bad elapsed {show(given)}: expected seconds, a finite number >= 0")
        if self.time is None:
            return None
        if elapsed >= self.time:  # (before subtracting: an int too large for a float is no error)
            return 0.0
        return round(self.time - elapsed, 9)

    def remaining_nodes(self, used: int) -> int | None:
        """Nodes left after ``used`` (at least 1), or None without a node limit; ``used`` that
        is not an int >= 0 is a :class:`LimitError`."""
        n = as_int(used)  # (NumPy's integers too)
        if n is None or n < 0:
            raise LimitError(f"bad used {show(used)}: expected nodes, an int >= 0")
        if self.nodes is None:
            return None
        return max(1, self.nodes - n)

    def __repr__(self) -> str:
        parts = [f"{k}={v!r}" for k, v in (("time", self.time), ("nodes", self.nodes)) if v is not None]
        if self.stop is not None:
            parts.append(f"stop={self.stop!r}")
        return f"Limit({', '.join(parts)})"


def _check_time(given: object, what: str) -> float:
    t = real(given)  # (NumPy's numbers too; NaN for what is no number, or past a float's range)
    if not 0 < t <= _TIME_MAX:  # (NaN and infinities fail it)
        raise LimitError(f"bad {what} {show(given)}: expected seconds, a number in (0, 1e9], or None")
    return t


def _check_nodes(n: object, what: str) -> int:
    nodes = as_int(n)
    if nodes is None or not 1 <= nodes <= _NODE_MAX:
        raise LimitError(f"bad {what} {show(n)}: expected an int in 1..2**62-1 or None")
    return nodes


def _tighter(a: float | int | None, b: float | int | None) -> float | int | None:
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)


class CoreLimits(TypedDict):
    """The limit keywords of the core's searches."""

    node_limit: int
    time_limit: float
    stop: StopFlag | None


class Clock:
    """Time and nodes spent against a :class:`Limit`, for searches made of several core
    calls: what each call may still use, and whether the limit is reached.

    >>> c = Clock(Limit(nodes=100))
    >>> c.add(60); c.core_args()["node_limit"], c.expired
    (40, False)
    >>> c.add(40); c.expired
    True
    """

    def __init__(self, limit: Limit) -> None:
        self.limit = limit
        self.start = time.perf_counter()
        self.nodes = 0

    @property
    def elapsed(self) -> float:
        """Seconds since the clock started."""
        return time.perf_counter() - self.start

    def add(self, nodes: int) -> None:
        """Count ``nodes`` more positions searched."""
        self.nodes += nodes

    @property
    def expired(self) -> bool:
        """Whether the limit is reached: its time, its nodes, or its flag."""
        lim = self.limit
        if lim.stopped:
            return True
        if lim.nodes is not None and self.nodes >= lim.nodes:
            return True
        return lim.time is not None and self.elapsed >= lim.time

    def core_args(self, share: float = 1.0) -> CoreLimits:
        """The limits of the next core call: ``share`` of what is left of the time and the
        nodes, and the flag (``node_limit``, ``time_limit`` and ``stop`` keywords; 0 for
        none, as the core takes them)."""
        lim = self.limit
        t = lim.remaining_time(self.elapsed)
        n = lim.remaining_nodes(self.nodes)
        return {
            "node_limit": 0 if n is None else max(1, min(n, int(n * share))),  # (n * 1.0 may round up)
            "time_limit": 0.0 if t is None else max(1e-6, t * share),
            "stop": lim.stop,
        }
