"""scopa_core: the low-level engine of scopa, on ints and 40-bit card masks.

Two implementations share one API: the compiled Cython module ``scopa_core._core`` and
its pure-Python twin ``scopa_core._twin`` (the reference). The compiled one is used
unless the environment sets ``SCOPA_NO_EXTENSIONS=1`` or it cannot be imported, in
which case the twin is used with a :class:`RuntimeWarning`. ``IMPLEMENTATION`` says
which one is loaded: ``"cython"`` or ``"python"``.

API (cards are ``suit * 10 + value - 1`` with suits d, c, s, b; sets of cards are masks):

- ``captures(card, table, opts) -> list[int]``: the sets ``card`` may capture.
- ``legal_moves(hand, table, opts) -> list[tuple[int, int]]``: ``(card, captured)`` moves.
- ``apply_move(pos, card, captured, opts, block) -> pos``: play a move (its card must be in
  the mover's hand and its captured cards on the table; that the rules allow it is unchecked).
- ``score(cap0, cap1, scope0, scope1, opts) -> ((7 ints), (7 ints))``: points per category.
- ``primiera(mask, opts) -> int``: primiera total, -1 when a required suit is missing.
- ``shuffle(seed)``, ``deal(nplayers, hand_size, table_size, opts, seed)``: reproducible deals.
- ``playouts(nplayers, hand_size, table_size, opts, n, seed) -> (points, breakdown)``:
  ``n`` random hands played inside the core, results as numpy arrays.
- ``Solver(tt_size_mb)``: the double-dummy solver (``solve``, ``analyze``, ``horizon``,
  ``analyze_depth`` on position tuples), with node limits, time limits and a ``StopFlag``.
- ``StopFlag()``: set it from any thread to stop the searches that watch it.

Every public function checks its arguments (shapes and ranges of position tuples, card
masks, options) and raises :class:`CoreError` (a ``scopa.ScopaError``, so a :class:`ValueError`)
worded by ``scopa_core._checks``, the same on both cores; calls made from the main thread run
Python's signal handlers from their long loops, so Ctrl-C stops them.
- ``OPT_*`` option bits, ``CATEGORIES``, ``NCAT``, ``popcount`` and card-mask constants.
"""

from __future__ import annotations

import importlib
import os
import warnings
from types import ModuleType

from scopa_core._checks import CoreError  # (both cores raise it)

__all__ = [
    "ACES",
    "CATEGORIES",
    "COINS",
    "CoreError",
    "FULL",
    "IMPLEMENTATION",
    "KINGS",
    "NCAT",
    "OPT_ACE_SWEEP_IS_SCOPA",
    "OPT_ACE_TAKES_ALL",
    "OPT_FEWEST",
    "OPT_NAPOLA",
    "OPT_PRIMIERA_ALL_SUITS",
    "OPT_REDEAL_ON_KINGS",
    "OPT_RE_BELLO",
    "OPT_SCOPA_ON_LAST_PLAY",
    "PRIMIERA_VALUES",
    "RANK_MASK",
    "RE_BELLO",
    "SETTEBELLO",
    "apply_move",
    "captures",
    "deal",
    "legal_moves",
    "playouts",
    "rollouts",
    "popcount",
    "primiera",
    "score",
    "shuffle",
    "Solver",
    "StopFlag",
]


def _load() -> tuple[ModuleType, str]:
    if os.environ.get("SCOPA_NO_EXTENSIONS", "") not in ("", "0"):
        return importlib.import_module("scopa_core._twin"), "python"
    try:
        return importlib.import_module("scopa_core._core"), "cython"
    except ImportError as exc:  # exercised only on a broken build
        warnings.warn(
            f"scopa_core: the compiled core could not be imported ({exc}); "
            "using the pure-Python twin, which is about 100x slower (SCOPA_NO_EXTENSIONS=1 "
            "selects it without this warning)",
            RuntimeWarning,
            stacklevel=3,
        )
        return importlib.import_module("scopa_core._twin"), "python"


_impl, IMPLEMENTATION = _load()
_OWN = ("IMPLEMENTATION", "CoreError")  # (this module's own, not the loaded core's)
globals().update({name: getattr(_impl, name) for name in __all__ if name not in _OWN})
