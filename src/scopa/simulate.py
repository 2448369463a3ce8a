"""Random playouts run inside the core: many whole hands per second, results as numpy arrays."""

from __future__ import annotations

import math
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import scopa_core as core
from scopa.errors import OptionError, as_int, check_seed, show
from scopa.rules import Rules
from scopa.scoring import CATEGORIES
from scopa_core._checks import MAX_COUNT

if TYPE_CHECKING:  # numpy is imported by the core on the first playout only
    import numpy as np
    import numpy.typing as npt

__all__ = ["Playouts", "random_playouts"]


@dataclass(frozen=True, eq=False)
class Playouts:
    """Results of :func:`random_playouts`. Two are equal when their rules and arrays are;
    like the arrays they hold, they cannot be hashed. The repr sums them up (the arrays are
    not written out). The arrays are read-only (``p.points.copy()`` for one to change), in its
    copies and pickles too: a result :func:`random_playouts` made stays the one made (arrays
    given by hand are viewed, not copied: their owner may still change them).

    >>> random_playouts("scopa", 3, seed=1) == random_playouts("scopa", 3, seed=1)
    True
    >>> random_playouts({"preset": "scopa", "napola": True}, 1000, seed=1)
    <Playouts of 1000 hands, rules {'preset': 'scopa', 'napola': True}: mean points 2.64 and 2.63>

    Attributes:
        rules: the rules played.
        points: int16 array ``(n, 2)``, each hand's points per team (seat 0 leads, so
            team 0 is the leading side).
        breakdown: int16 array ``(n, 2, len(CATEGORIES))``, points per team and category.
    """

    rules: Rules
    points: npt.NDArray[np.int16]
    breakdown: npt.NDArray[np.int16]

    __hash__ = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        # (results built by hand: Playouts("scopa", [1], [2]) was taken, its repr a TypeError of
        # list indices; only the kinds and shapes are checked, not the sums, which cost a pass)
        import numpy as np

        if not isinstance(self.rules, Rules):
            raise OptionError(f"bad rules {show(self.rules)}: expected a scopa.Rules")
        n = len(self.points) if isinstance(self.points, np.ndarray) and self.points.ndim else 0
        for name, array, shape in (
            ("points", self.points, (n, 2)),
            ("breakdown", self.breakdown, (n, 2, len(CATEGORIES))),
        ):
            if not isinstance(array, np.ndarray) or array.dtype.kind not in "iu" or array.shape != shape:
                got = (
                    f"an array of {array.dtype} of shape {array.shape}"
                    if isinstance(array, np.ndarray)
                    else show(array)
                )
                want = "(n, 2)" if name == "points" else f"{shape} (n = {n} hands, as in points)"
                raise OptionError(f"bad {name}: expected a numpy array of ints of shape {want}, got {got}")
            # (read-only views: a researcher's audit wrote p.points[:] = 0, and the results'
            # repr and equality changed with it; arrays given by hand are viewed, not copied)
            view = array.view()
            view.flags.writeable = False
            object.__setattr__(self, name, view)

    def __reduce__(self) -> tuple[type[Playouts], tuple[Rules, Any, Any]]:
        # (made again through __post_init__: a pickle or a deep copy had writable arrays)
        return (type(self), (self.rules, self.points, self.breakdown))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Playouts):
            return NotImplemented
        import numpy as np  # loaded already: the arrays are numpy's

        return (
            self.rules == other.rules
            and np.array_equal(self.points, other.points)
            and np.array_equal(self.breakdown, other.breakdown)
        )

    def __repr__(self) -> str:
        n = len(self.points)
        mean = f": mean points {self.points[:, 0].mean():.2f} and {self.points[:, 1].mean():.2f}" if n else ""
        return f"<Playouts of {n} hands, rules {self.rules.to_json()!r}{mean}>"

    def mean_points(self) -> dict[str, tuple[float, float]]:
        """Mean points per hand per category (and ``"total"``), per team; NaN for playouts of
        no hands (without NumPy's "Mean of empty slice" warning).

        >>> random_playouts("scopa", 0).mean_points()["total"]
        (nan, nan)
        """
        if not len(self.points):
            return {c: (math.nan, math.nan) for c in (*CATEGORIES, "total")}
        out = {
            c: (float(self.breakdown[:, 0, i].mean()), float(self.breakdown[:, 1, i].mean()))
            for i, c in enumerate(CATEGORIES)
        }
        out["total"] = (float(self.points[:, 0].mean()), float(self.points[:, 1].mean()))
        return out


#: The most hands one call plays (the core's count is a 32-bit int).
MAX_HANDS = MAX_COUNT


def random_playouts(rules: Rules | str, n: int, seed: int | None = None) -> Playouts:
    """Play ``n`` whole hands with uniformly random legal moves inside the core.

    Reproducible for a given ``seed``; the compiled core and the Python twin give the
    same results.

    >>> p = random_playouts("scopone_scientifico", 1000, seed=1)
    >>> p.points.shape, bool((p.points == p.breakdown.sum(axis=2)).all())
    ((1000, 2), True)
    """
    r = Rules.of(rules)
    hands = as_int(n)
    if hands is None or not 0 <= hands <= MAX_HANDS:
        raise OptionError(f"bad number of hands {show(n)}: expected an int in 0..{MAX_HANDS}")
    n = hands
    if seed is None:
        seed = secrets.randbits(64)
    seed = check_seed(seed, OptionError)
    try:
        points, breakdown = core.playouts(r.players, r.hand_size, r.table_size, r.core_options, n, seed)
    except MemoryError:  # (the arrays are made before the first hand: nothing was played)
        need = n * 2 * (1 + len(CATEGORIES)) * 2 / 2**30
        raise OptionError(
            f"bad number of hands {show(n)}: their results need {need:,.1f} GiB, more than"
            " this machine could allocate: expected fewer hands (or several calls)"
        ) from None
    for array in (points, breakdown):  # (the arrays under the result's views too: an API audit
        array.flags.writeable = False  # changed a result through p.points.base)
    return Playouts(r, points, breakdown)
