"""The exceptions of scopa. All are :class:`ValueError` subclasses under :class:`ScopaError`."""

from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, overload

import numpy as np

from scopa_core._checks import CoreError, ScopaError  # (below scopa: the core raises them too)

__all__ = [
    "AmbiguousMoveError",
    "CardError",
    "CoreError",
    "IllegalMoveError",
    "InvalidMoveError",
    "LimitError",
    "OptionError",
    "PositionError",
    "RulesError",
    "ScopaError",
]


_PLURALS = {"scopa": "scope"}  # (the Italian words the text uses; the others take an "s")


def count(n: int, word: str) -> str:
    """``n`` and ``word``, the word in the plural unless ``n`` is 1 (for messages and text): an
    "s" added, or the Italian plural of the game's words (a scopa, two scope).

    >>> count(1, "hand"), count(0, "hand"), count(3, "blunder")
    ('1 hand', '0 hands', '3 blunders')
    >>> count(1, "scopa"), count(2, "scopa")
    ('1 scopa', '2 scope')
    """
    return f"{n} {word if n == 1 else _PLURALS.get(word, word + 's')}"


def listed(word: str, items: Sequence[str], *, be: bool = False) -> str:
    """``word`` and ``items``, the word in the plural unless there is one item (for messages
    that name what is wrong: "unknown field 'zz'", "unknown fields 'a', 'b'"), with ``be``
    followed by "is" or "are".

    >>> listed("field", ["'zz'"]), listed("card", ["7d", "Kc"], be=True)
    ("field 'zz'", 'cards 7d, Kc are')
    """
    one = len(items) == 1
    return f"{word}{'' if one else 's'} {', '.join(items)}{(' is' if one else ' are') * be}"


def alternatives(items: Sequence[str]) -> str:
    """``items`` as choices in a message: "a", "a or b", "a, b or c".

    >>> alternatives(["weights"]), alternatives(["2s", "7s", "JsxJc"])
    ('weights', '2s, 7s or JsxJc')
    """
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def unknown_keys(obj: Mapping[Any, Any], allowed: Iterable[str]) -> list[str]:
    """The keys of ``obj`` not in ``allowed``, each as :func:`show` writes it, sorted (keys of
    any type: a decoded mapping may hold ints as keys).

    >>> unknown_keys({"turn": 0, "zz": 1, 1: 2}, ["turn"])
    ["'zz'", '1']
    """
    known = set(allowed)
    return sorted(show(k) for k in obj if not (isinstance(k, str) and k in known))


def show(x: object) -> str:
    """A ``repr`` of a bad input for an error message, bounded in length and safe for any input
    (an int of thousands of digits, a list nested a thousand deep, a ``repr`` that fails)."""
    from scopa_core._checks import short

    return short(x)


def as_int(value: object) -> int | None:
    """``value`` as an int if it is an integer: an int (not a bool), or an integer of another
    type, such as NumPy's (what has ``__index__``; NumPy's bools do not); else None. The one
    reading of an int argument of the Python API: a researcher's seeds and counts are often
    NumPy's, which are not ints.

    >>> import numpy as np
    >>> as_int(3), as_int(np.int64(3)), as_int(True), as_int(3.0), as_int(np.bool_(True))
    (3, 3, None, None, None)
    """
    if type(value) is int:
        return value
    if isinstance(value, (bool, float, str, bytes, np.bool_)) or not hasattr(type(value), "__index__"):
        return None  # (older NumPy's bools have an __index__, deprecated: 1.23's does)
    try:
        return int(operator.index(value))  # type: ignore[arg-type]
    except Exception:  # (what its __index__ raises: not an integer after all)
        return None


def as_bool(value: object) -> bool | None:
    """``value`` as a bool if it is True or False, Python's or NumPy's (what an option grid
    made with NumPy holds), else None: the one reading of a boolean argument of the Python API.

    >>> import numpy as np
    >>> as_bool(True), as_bool(np.bool_(False)), as_bool(1), as_bool("true"), as_bool(None)
    (True, False, None, None, None)
    """
    if value is True or value is False:
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    return None


def int_pair(value: object) -> tuple[int, int] | None:
    """``value`` as a pair of ints if it is a list or a tuple of two integers (not bools;
    NumPy's read as ints, :func:`as_int`), else None: a pair one per team (scores, scope).

    >>> import numpy as np
    >>> int_pair([np.int64(2), 3]), int_pair((1, True)), int_pair([1, 2, 3]), int_pair("ab")
    ((2, 3), None, None, None)
    """
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        return None
    a, b = as_int(value[0]), as_int(value[1])
    return None if a is None or b is None else (a, b)


def plain_int(value: Any) -> Any:
    """``value``, or the int it stands for if it is an integer of another type than int
    (NumPy's, :func:`as_int`): what a player's options keep and the arena's names write, so a
    repr pastes back.

    >>> import numpy as np
    >>> plain_int(np.int64(3)), plain_int(True), plain_int("x")
    (3, True, 'x')
    """
    n = as_int(value)
    return value if n is None else n


def plain_str(value: Any) -> Any:
    """``value`` as Python's str if it is a str of a subclass (NumPy's ``np.str_``, a pandas
    cell), else as it is: what a value object keeps of a string it is given, so that its repr
    pastes back with ``from scopa import *`` alone and a cached value is not taken over by it.

    >>> import numpy as np
    >>> plain_str(np.str_("scopa")), type(plain_str(np.str_("scopa"))), plain_str(3)
    ('scopa', <class 'str'>, 3)
    """
    return str.__str__(value) if isinstance(value, str) and type(value) is not str else value


def plain_number(value: Any) -> Any:
    """``value`` as Python's number if it is NumPy's (or another type's) integer or float: an
    int (:func:`as_int`) or a float; else as it is, and so is a number past a float's range (what
    a result built by hand keeps, so that its repr pastes back and its checks read it as the
    number it is, or refuse it).

    >>> import numpy as np
    >>> plain_number(np.int64(3)), plain_number(np.float32(0.5)), plain_number(True), plain_number("x")
    (3, 0.5, True, 'x')
    """
    n = as_int(value)
    if n is not None:
        return n
    if type(value) is float or isinstance(value, bool) or not isinstance(value, numbers.Real):
        return value
    try:  # (NumPy's float64, a float's subclass; its float32 and float16, only Real; a Fraction)
        return float(value)
    except (OverflowError, ValueError, TypeError):  # (a Fraction past a float's range: as it is)
        return value


@overload
def check_seed(
    seed: object, error: type[ScopaError], *, none: Literal[False] = False, bits: int = 64
) -> int: ...
@overload
def check_seed(seed: object, error: type[ScopaError], *, none: bool, bits: int = 64) -> int | None: ...
def check_seed(seed: object, error: type[ScopaError], *, none: bool = False, bits: int = 64) -> int | None:
    """``seed`` as an int if it is one in 0..2**bits-1 (:func:`as_int`: NumPy's integers too;
    or None, when ``none``), else ``error`` saying
    so: the one check of a deal's, a match's, a run's and a player's seed (Python's random
    takes -7 as 7: a negative seed would repeat a positive one's deals). Players take 128 bits:
    the arena derives theirs from 63-bit deal seeds.

    >>> check_seed(-7, OptionError)
    Traceback (most recent call last):
    ...
    scopa.errors.OptionError: bad seed -7: expected an int in 0..2**64-1
    """
    if seed is None and none:
        return None
    n = as_int(seed)
    if n is None or not 0 <= n < 1 << bits:
        raise error(
            f"bad seed {show(seed)}: expected an int in 0..2**{bits}-1" + (" or None" if none else "")
        )
    return n


@overload
def check_int(
    name: str, value: object, low: int | None = None, high: int | None = None, *, none: Literal[False] = False
) -> int: ...
@overload
def check_int(
    name: str, value: object, low: int | None = None, high: int | None = None, *, none: bool
) -> int | None: ...
def check_int(
    name: str, value: object, low: int | None = None, high: int | None = None, *, none: bool = False
) -> int | None:
    """``value`` as an int if it is an integer (:func:`as_int`: an int, not a bool, or NumPy's)
    from ``low`` to ``high`` (either None: unbounded), or None when ``none``; else
    :class:`OptionError` saying so (a field of a result built by hand, which keeps the int
    returned, so that its repr pastes back).

    >>> import numpy as np
    >>> check_int("seat", np.int64(3), 0, 3)
    3
    >>> check_int("seat", 4, 0, 3)
    Traceback (most recent call last):
    ...
    scopa.errors.OptionError: bad seat 4: expected an int in 0..3
    >>> check_int("depth", True, 0)
    Traceback (most recent call last):
    ...
    scopa.errors.OptionError: bad depth True: expected an int >= 0
    """
    if value is None and none:
        return None
    n = as_int(value)
    if n is None or (low is not None and n < low) or (high is not None and n > high):
        if low is not None and high is not None:
            bounds = f" in {low}..{high}"
        else:
            bounds = f" >= {low}" if low is not None else f" <= {high}" if high is not None else ""
        raise OptionError(f"bad {name} {show(value)}: expected an int{bounds}" + (" or None" if none else ""))
    return n


def real(value: object) -> float:
    """``value`` as a float if it is an int or a float (not a bool; NumPy's integers too, as
    :func:`as_int` reads them), else NaN; an int past a float's range (10**400, which JSON text
    may hold) is NaN too, not an OverflowError.

    >>> import numpy as np
    >>> real(3), real(True), real("3"), real(10**400), real(np.int64(2))
    (3.0, nan, nan, nan, 2.0)
    """
    value = plain_number(value)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return math.nan
    try:
        return float(value)
    except OverflowError:
        return math.nan


def check_real(
    name: str,
    value: object,
    low: float,
    high: float,
    expected: str,
    *,
    finite: bool = False,
    above: bool = False,
) -> float:
    """``value`` as a float if it is an int or a float (not a bool) from ``low`` to ``high``
    (greater than ``low`` with ``above``; never NaN; never infinite with ``finite``), else
    :class:`OptionError` ("bad {name} {value}: expected {expected}").

    >>> check_real("loss", -1, 0, math.inf, "a number >= 0")
    Traceback (most recent call last):
    ...
    scopa.errors.OptionError: bad loss -1: expected a number >= 0
    >>> check_real("ci95", -math.inf, -math.inf, 0, "a number <= 0")
    -inf
    """
    as_float = real(value)
    if not low <= as_float <= high or (above and as_float == low) or (finite and not math.isfinite(as_float)):
        raise OptionError(f"bad {name} {show(value)}: expected {expected}")
    return as_float


def article(word: str) -> str:
    """The indefinite article before ``word`` in these messages, by its first letter (command
    and kind names are lower-case English words).

    >>> article("evaluate"), article("review")
    ('an', 'a')
    """
    return "an" if word[:1] in ("a", "e", "i", "o", "u") else "a"


class CardError(ScopaError):
    """An unknown card, or a card given twice where each card may appear once."""


class RulesError(ScopaError):
    """An unknown preset, an unknown rule option, or a bad option value."""


class PositionError(ScopaError):
    """A position that cannot occur in play, or a malformed position (JSON or string)."""


class LimitError(ScopaError):
    """A bad search limit: a time, a node count or a stop flag that cannot be used."""


class OptionError(ScopaError):
    """A bad argument where no more specific error fits: a count, a budget, a weight or a
    flag of the wrong type or out of range, an unknown player, level or deck, an object of
    the wrong kind, a file that cannot be written."""


class InvalidMoveError(ScopaError):
    """Move notation that cannot be parsed."""


class IllegalMoveError(ScopaError):
    """A well-formed move that is not legal in the position."""


class AmbiguousMoveError(IllegalMoveError):
    """A move given by card alone when that card has several legal captures."""
