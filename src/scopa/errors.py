"""The exceptions of scopa. All are :class:`ValueError` subclasses under :class:`ScopaError`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

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


def check_seed(seed: object, error: type[ScopaError], *, none: bool = False, bits: int = 64) -> int | None:
    """``seed`` if it is an int in 0..2**bits-1 (or None, when ``none``), else ``error`` saying
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
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 1 << bits:
        raise error(
            f"bad seed {show(seed)}: expected an int in 0..2**{bits}-1" + (" or None" if none else "")
        )
    return seed


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
