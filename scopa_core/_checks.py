"""Validation of the core's inputs, shared by both cores (the one place their errors are written).

Every public function of ``scopa_core`` checks its arguments before it touches them: a
position tuple's shape and ranges (:func:`check_tuple`), and for the functions that play a
position on (the solver, ``rollouts``) that it can occur in play (:func:`check_playable`).
The twin calls these functions directly; the compiled core runs a fast test in C and calls
them only to word the error, so both cores raise the same :class:`CoreError` (a
``scopa.ScopaError``, so a :class:`ValueError`) with the same message. Messages quote the
input, shortened (:func:`short`): a hostile input cannot make an error message huge, nor make
its ``repr`` fail (Python refuses to print ints of more than 4300 digits).

>>> check_tuple(((1, 2), 4, (), (0, 0), (0, 0), 0, -1), 3)
>>> try:
...     check_tuple(((1, 2), 4, (), (0, 0), (0, -1), 0, -1), 3)
... except CoreError as exc:
...     print(exc)
bad position tuple ((1, 2), 4, (), (0, 0), (0, -1), 0, -1): scope must be two ints in 0..255
"""

from __future__ import annotations

import reprlib
from typing import Any

__all__ = [
    "MAX_COUNT",
    "CoreError",
    "ScopaError",
    "MAX_SCOPE",
    "bad_stop",
    "check_block",
    "check_card",
    "check_count",
    "check_flag",
    "check_geometry",
    "check_int",
    "check_mask",
    "check_move_cards",
    "check_opts",
    "check_playable",
    "check_seed",
    "check_seconds",
    "check_tuple",
    "check_word",
    "short",
]

#: Most scope a team may have banked in a position the core takes (more than any hand can
#: make: the solver's sentinels, +-1000, stay far outside every reachable value).
MAX_SCOPE = 255
#: Most hands ``playouts`` and ``rollouts`` play in one call.
MAX_COUNT = (1 << 31) - 1
_MASK_LIMIT = 1 << 40


class ScopaError(ValueError):
    """Base class of every error scopa raises for bad input: ``scopa.ScopaError`` (defined
    here, below ``scopa``, so that the core's own errors can be of it). Each kind of bad input
    has its subclass, a :class:`ValueError` too, whose message quotes the input.

    >>> import scopa
    >>> try:
    ...     scopa.Rules.preset("scopa", target=0)
    ... except scopa.ScopaError as e:
    ...     print(type(e).__name__, isinstance(e, ValueError), e)
    RulesError True bad target 0: expected an int in 1..10000
    """


ScopaError.__module__ = "scopa.errors"  # (where users name it, and where pickle finds it)


class CoreError(ScopaError):
    """A bad argument to a function of ``scopa_core``: a position tuple's shape or ranges, a
    card mask, an option, a count, a limit (``scopa_core.CoreError``)."""


CoreError.__module__ = "scopa_core"


class _Short(reprlib.Repr):
    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = 4
        self.maxtuple = self.maxlist = 12
        self.maxstring = 400
        self.maxother = 60

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 128:
            return f"<{'negative ' if x < 0 else ''}int of {x.bit_length()} bits>"
        return repr(x)


_SHORT = _Short()


def short(obj: Any) -> str:
    """A ``repr`` of ``obj`` bounded in length, safe for any input.

    >>> short(10 ** 5000), short(-(10 ** 5000)), short(list(range(100)))
    ('<int of 16610 bits>', '<negative int of 16610 bits>', '[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, ...]')
    """
    try:
        base: Any
        for base in (int, tuple, list):  # (a subclass's repr may read as the type expected)
            if isinstance(obj, base) and type(obj) is not base and type(obj) is not bool:
                return f"{_SHORT.repr(base(obj))} (a {type(obj).__name__}, not {base.__name__})"
        return _SHORT.repr(obj)
    except Exception:  # a user type whose repr fails
        return f"<{type(obj).__name__}>"


def bad_stop(stop: Any, flag_type: type) -> CoreError:
    """The error for a ``stop`` that is not ``flag_type`` (the loaded core's StopFlag) or
    None; a StopFlag of the other core is named as one."""
    other = ""
    kind = type(stop)
    if kind.__name__ == "StopFlag" and kind.__module__.startswith("scopa_core.") and kind is not flag_type:
        other = " (the other core's StopFlag: compiled and twin each read their own)"
    return CoreError(f"bad stop {short(stop)}{other}: expected a scopa_core.StopFlag or None")


def _is_int(x: Any) -> bool:
    return type(x) is int


def _seq(x: Any) -> bool:
    return type(x) is tuple or type(x) is list


def check_int(x: Any, what: str, lo: int, hi: int) -> int:
    """``x`` if it is an int in ``lo..hi``, else CoreError naming ``what``."""
    if not _is_int(x) or not lo <= x <= hi:
        raise CoreError(f"bad {what} {short(x)}: expected an int in {lo}..{hi}")
    return int(x)


def check_mask(x: Any, what: str = "card mask") -> int:
    """``x`` if it is a 40-bit card mask (an int in 0..2**40-1)."""
    if not _is_int(x) or not 0 <= x < _MASK_LIMIT:
        raise CoreError(f"bad {what} {short(x)}: expected a card mask, an int in 0..2**40-1")
    return int(x)


def check_apart(a: int, what_a: str, b: int, what_b: str) -> None:
    """CoreError unless the card masks ``a`` and ``b`` (already checked) share no card: a
    card is in one place."""
    if a & b:
        raise CoreError(
            f"bad {what_a} {a} and {what_b} {b}: they share the cards of mask {a & b}, "
            "and a card is in one place"
        )


def check_flag(x: Any, what: str) -> bool:
    """``x`` if it is True or False, else CoreError naming ``what``."""
    if x is not True and x is not False:
        raise CoreError(f"bad {what} {short(x)}: expected True or False")
    return x


def check_move_cards(hand: int, table: int, card: int, capture: int, turn: int) -> None:
    """CoreError unless ``card`` is in ``hand`` (of seat ``turn``, to move) and the cards of
    ``capture`` are on ``table`` (all already checked): what a move needs to be played at all.

    >>> try:
    ...     check_move_cards(0b10, 0b100, 0, 0, 1)
    ... except CoreError as exc:
    ...     print(exc)
    bad card index 0: it is not in the hand of seat 1, to move
    """
    if not hand >> card & 1:
        raise CoreError(f"bad card index {card}: it is not in the hand of seat {turn}, to move")
    if capture & ~table:
        raise CoreError(
            f"bad captured cards {capture}: the cards of mask {capture & ~table} are not on the table"
        )


def check_off_table(card: int, table: int) -> None:
    """CoreError if the (already checked) ``table`` mask holds ``card``, the card played."""
    if table >> card & 1:
        raise CoreError(
            f"bad table {table}: it holds card {card}, the card played (expected a table without it)"
        )


def check_card(x: Any) -> int:
    """``x`` if it is a card index (0..39)."""
    return check_int(x, "card index", 0, 39)


def check_opts(x: Any) -> int:
    """``x`` if it is an option word (the ``OPT_*`` bits, 0..255)."""
    return check_int(x, "rule options", 0, 255)


def check_block(x: Any) -> int:
    """``x`` if it is a refill size (cards dealt to each seat at a refill, 1..10)."""
    return check_int(x, "refill size", 1, 10)


def check_count(x: Any, what: str = "number of hands") -> int:
    """``x`` if it is a count of hands to play (0..2**31-1)."""
    return check_int(x, what, 0, MAX_COUNT)


def check_policy(x: Any) -> int:
    """``x`` if it is a rollout policy: 0 (uniformly random moves) or 1 (heuristic)."""
    return check_int(x, "rollout policy", 0, 1)


def check_seconds(x: Any, what: str = "time_limit") -> float:
    """``x`` as float seconds if it is a finite number >= 0 (0: no time limit)."""
    ok = (type(x) is int or type(x) is float) and 0 <= x <= 1e9
    if not ok:
        raise CoreError(f"bad {what} {short(x)}: expected seconds, a number in 0..1e9 (0 for none)")
    return float(x)


def check_word(x: Any, what: str = "seed") -> int:
    """``x`` if it is a 64-bit word (an int in 0..2**64-1): a seed, or the argument of
    ``popcount``."""
    if not _is_int(x) or not 0 <= x < 1 << 64:
        raise CoreError(f"bad {what} {short(x)}: expected an int in 0..2**64-1")
    return int(x)


def check_seed(x: Any) -> int:
    """``x`` if it is a seed of the core's generator (an int in 0..2**64-1)."""
    return check_word(x, "seed")


def check_geometry(nplayers: Any, hand_size: Any, table_size: Any) -> None:
    """Raise CoreError unless 2 or 4 players, ``hand_size`` cards each and ``table_size``
    on the table leave a stock of whole refills."""
    ok = all(_is_int(x) for x in (nplayers, hand_size, table_size))
    if ok:
        n, hs, ts = nplayers, hand_size, table_size
        ok = (
            n in (2, 4)
            and 1 <= hs <= 10
            and 0 <= ts
            and n * hs + ts <= 40
            and (40 - n * hs - ts) % (n * hs) == 0
        )
    if not ok:
        raise CoreError(
            f"bad deal geometry: {short(nplayers)} players, {short(hand_size)} cards each, "
            f"{short(table_size)} on the table: expected 2 or 4 players, 1..10 cards each and a "
            "table that leave a stock of whole refills (of players x cards) in the 40 cards"
        )


def check_tuple(pos: Any, block: Any) -> None:
    """Raise CoreError unless ``pos`` has the shape the core reads:
    ``(hands, table, stock, captured, scope, turn, last_capture)`` with 2 or 4 hands (card
    masks), a table mask, a stock of at most 40 card indexes, two pile masks, two scope
    counts in 0..MAX_SCOPE, a seat to move among the hands and a last capturer -1, 0 or 1;
    and ``block``, the refill size, one that makes the stock whole refills. Tuples or lists; ints only
    (not bools). Cards may still repeat: :func:`check_playable` checks that."""

    def bad(why: str) -> CoreError:
        return CoreError(f"bad position tuple {short(pos)}: {why}")

    if not _seq(pos) or len(pos) != 7:
        raise bad("expected (hands, table, stock, captured, scope, turn, last_capture)")
    hands, table, stock, captured, scope, turn, last = pos
    if not _seq(hands) or len(hands) not in (2, 4) or not all(_mask(h) for h in hands):
        raise bad("hands must be 2 or 4 card masks (ints in 0..2**40-1), one per seat")
    if not _mask(table):
        raise bad("the table must be a card mask (an int in 0..2**40-1)")
    if not _seq(stock) or len(stock) > 40 or not all(_is_int(c) and 0 <= c < 40 for c in stock):
        raise bad("the stock must be at most 40 card indexes (ints in 0..39), top first")
    if not _seq(captured) or len(captured) != 2 or not all(_mask(m) for m in captured):
        raise bad("captured must be two card masks, one per team")
    if not _seq(scope) or len(scope) != 2 or not all(_is_int(s) and 0 <= s <= MAX_SCOPE for s in scope):
        raise bad(f"scope must be two ints in 0..{MAX_SCOPE}")
    n = len(hands)
    if not _is_int(turn) or not 0 <= turn < n:
        raise bad(f"the seat to move must be an int in 0..{n - 1}")
    if not _is_int(last) or not -1 <= last <= 1:
        raise bad("the last capturer must be -1 (none), 0 or 1")
    check_block(block)
    if len(stock) % (n * block):
        raise bad(f"a stock of {len(stock)} cards is not whole refills of {block} cards for {n} seats")


def _mask(x: Any) -> bool:
    return _is_int(x) and 0 <= x < _MASK_LIMIT


def _popcount(m: int) -> int:
    return bin(m).count("1")


def check_playable(pos: Any) -> None:
    """Raise CoreError unless ``pos`` (already through :func:`check_tuple`) can be played
    on: every card in one place only, and hand sizes a round leaves: from the seat to move
    on, k >= 1 cards, then k - 1 for the seats that already played; or every hand empty and
    no stock.

    >>> check_playable(((1, 2), 4, (), (0, 0), (0, 0), 0, -1))
    >>> try:
    ...     check_playable(((0, 2), 4, (), (0, 0), (0, 0), 0, -1))  # seat 0 to move, no card
    ... except CoreError as exc:
    ...     print(str(exc).split(": ")[1])
    from the seat to move on, hands hold k >= 1 cards, then k - 1 for the seats that already played
    """
    hands, table, stock, captured, _, turn, _ = pos
    seen = 0
    for m in (*hands, table, *captured, *(1 << c for c in stock)):
        if m & seen:
            twice = (m & seen & -(m & seen)).bit_length() - 1
            raise CoreError(f"impossible position {short(pos)}: a card in two places (card index {twice})")
        seen |= m
    n = len(hands)
    if any(hands):
        sizes = [_popcount(hands[(turn + i) % n]) for i in range(n)]
        k = sizes[0]
        if k == 0 or any(s not in (k, k - 1) for s in sizes) or sizes != sorted(sizes, reverse=True):
            raise CoreError(
                f"impossible position {short(pos)}: from the seat to move on, hands hold k >= 1 cards, "
                "then k - 1 for the seats that already played"
            )
    elif stock:
        raise CoreError(f"impossible position {short(pos)}: every hand is empty but the stock is not")
