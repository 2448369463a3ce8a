"""What one player sees of a hand: the information set a computer player decides on.

>>> import scopa
>>> s = scopa.State.deal("scopone_scientifico", seed=7, dealer=3)
>>> v = s.view(0)
>>> len(v.hand), v.hand_sizes, v.stock_size, len(v.unseen)
(10, (10, 10, 10, 10), 0, 30)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import scopa_core as core
from scopa.card import CardSet
from scopa.errors import PositionError, plain_int, show
from scopa.move import Move
from scopa.rules import Rules

__all__ = ["PlayerView"]


@dataclass(frozen=True)
class PlayerView:
    """A seat's view of a hand in progress: nothing hidden from that seat is in it.

    Attributes:
        rules: the rules of the hand.
        seat: the seat this view belongs to.
        turn: the seat to move.
        hand: this seat's own cards.
        table: the cards face up on the table.
        captured: each team's pile (piles are public in these games).
        scope: each team's scope.
        history: every play so far, in order, as ``(seat, move)``.
        hand_sizes: how many cards each seat holds.
        stock_size: how many cards are left in the stock.
        last_capture: the team that captured last, or ``None``.
        dealer: the dealer's seat, or ``None`` when unknown.
        out_of_play: cards in no hand, pile, table or stock (only in composed positions).

    >>> import scopa
    >>> v = scopa.State.deal("scopa", seed=1).play("3dx3c").view(0)
    >>> v.hand, v.history, v.hand_sizes, v.stock_size
    (CardSet.parse('Qc 7s Qs'), ((1, Move.parse('3dx3c')),), (3, 2), 30)
    >>> [str(m) for m in v.legal_moves()], len(v.unseen)    # seat 1's two cards and the stock
    (['Qc', '7s', 'Qs'], 32)
    """

    rules: Rules
    seat: int
    turn: int
    hand: CardSet
    table: CardSet
    captured: tuple[CardSet, CardSet]
    scope: tuple[int, int]
    history: tuple[tuple[int, Move], ...]
    hand_sizes: tuple[int, ...]
    stock_size: int
    last_capture: int | None
    dealer: int | None
    out_of_play: CardSet

    def __post_init__(self) -> None:
        # (a view built by hand with NumPy's integers: kept as the ints they are, so that its
        # checks take them and its repr pastes back)
        for name in ("seat", "turn", "stock_size", "last_capture", "dealer"):
            value = getattr(self, name)
            if type(value) is not int and value is not None:
                object.__setattr__(self, name, plain_int(value))
        for name in ("scope", "hand_sizes"):
            value = getattr(self, name)
            if isinstance(value, tuple) and any(type(x) is not int for x in value):
                object.__setattr__(self, name, tuple(map(plain_int, value)))
        history = self.history
        if isinstance(history, tuple) and any(
            isinstance(p, tuple) and len(p) == 2 and type(p[0]) is not int for p in history
        ):  # (a play's seat as NumPy's integer, as the other seats are taken)
            pairs = tuple(
                (plain_int(p[0]), p[1]) if isinstance(p, tuple) and len(p) == 2 else p for p in history
            )
            object.__setattr__(self, "history", pairs)
        # (each field of its kind here, so that == and hash work on any view: a NumPy array as
        # stock_size made == NumPy's ValueError, a list as history made hash a TypeError; whether
        # the fields make a position that can occur in play is checked at the view's first use)
        why = field_problem(self)
        if why is not None:
            raise PositionError(f"bad view: {why}")

    @classmethod
    def _from_state(cls, state: object, seat: int) -> PlayerView:
        from scopa.state import State

        assert isinstance(state, State)
        hands, table, stock, piles, scope, turn, last = state.masks
        known = table | piles[0] | piles[1]
        for h in hands:
            known |= h
        for c in stock:
            known |= 1 << c
        # A state's view can occur in play by construction: made without __init__'s checks of each
        # field (a third of its cost), and players need not check it again
        # (scopa.players.base.check_view). A copy made by dataclasses.replace is checked.
        view = cls.__new__(cls)
        view.__dict__.update(
            rules=state.rules,
            seat=seat,
            turn=turn,
            hand=CardSet._from_mask(hands[seat]),
            table=CardSet._from_mask(table),
            captured=(CardSet._from_mask(piles[0]), CardSet._from_mask(piles[1])),
            scope=scope,
            history=state.history,
            hand_sizes=tuple(core.popcount(h) for h in hands),
            stock_size=len(stock),
            last_capture=None if last < 0 else last,
            dealer=state.dealer,
            out_of_play=CardSet._from_mask(core.FULL & ~known),
            _from_play=True,
        )
        return view

    def _check(self) -> None:
        """A view built by hand (``dataclasses.replace``, the constructor) is checked once, as a
        position is, before it answers (its cards as a list, its seat 5, ended in an
        AttributeError or no moves); a state's view can occur in play by construction."""
        if not self.__dict__.get("_from_play"):
            from scopa.players.base import check_view

            check_view(self)
            object.__setattr__(self, "_from_play", True)

    def to_json(self) -> dict[str, Any]:
        """The JSON view format of this view, as a dict (:func:`scopa.notation.view_to_dict`):
        what the engine's ``view`` reply holds, nothing hidden from the seat.

        >>> import scopa
        >>> v = scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1").view(1)
        >>> v.to_json()["hands"], PlayerView.from_json(v.to_json()) == v
        ([2, ['2c', 'As']], True)
        """
        from scopa.notation import view_to_dict

        self._check()  # (built by hand, a hand given as a list was an AttributeError here)
        return view_to_dict(self)

    @classmethod
    def from_json(cls, obj: object) -> PlayerView:
        """A view from its JSON format, decoded, as JSON text or as its UTF-8 bytes
        (:func:`scopa.notation.view_from_json`, which says the format); raises
        :class:`~scopa.errors.PositionError` naming what is wrong."""
        from scopa.notation import view_from_json

        return view_from_json(obj)

    def _repr_svg_(self) -> str:
        """What this seat sees, as SVG (Jupyter shows it): :func:`scopa.svg.position`."""
        from scopa.svg import position

        return position(self)

    @property
    def unseen(self) -> CardSet:
        """The cards this seat cannot see: the other hands and the stock, in some order."""
        self._check()
        seen = self.hand.mask | self.table.mask | self.captured[0].mask | self.captured[1].mask
        return CardSet._from_mask(core.FULL & ~seen & ~self.out_of_play.mask)

    @property
    def team(self) -> int:
        """This seat's team."""
        self._check()  # (a view built by hand with a seat "x" said "unsupported operand type(s) for &")
        return self.seat & 1

    def legal_moves(self) -> list[Move]:
        """The legal moves of this seat when it is to move (empty otherwise)."""
        self._check()
        if self.turn != self.seat:
            return []
        return [
            Move._from_core(c, m)
            for c, m in core.legal_moves(self.hand.mask, self.table.mask, self.rules.core_options)
        ]


def _seat(x: object, n: int) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x < n


def field_problem(v: PlayerView) -> str | None:
    """Why a field of the view is not of its kind or range, or None (the rest of what makes a
    view one that can occur in play: :func:`scopa.players.base.check_view`)."""
    if not isinstance(v.rules, Rules):
        return f"rules {show(v.rules)}: expected a scopa.Rules"
    n = v.rules.players
    for name in ("seat", "turn"):
        if not _seat(getattr(v, name), n):
            return f"{name} {show(getattr(v, name))}: expected a seat in 0..{n - 1}"
    sets = (v.hand, v.table, *v.captured, v.out_of_play) if isinstance(v.captured, tuple) else ()
    if len(sets) != 5 or not all(isinstance(s, CardSet) for s in sets):
        return "hand, table, captured (two piles) and out_of_play must be CardSets"
    sizes = v.hand_sizes
    if not (isinstance(sizes, tuple) and len(sizes) == n and all(_seat(k, 11) for k in sizes)):
        return f"hand_sizes {show(sizes)}: expected {n} ints in 0..10"
    if not _seat(v.stock_size, 41):
        return f"stock_size {show(v.stock_size)}: expected an int in 0..40"
    scope = v.scope
    if not (isinstance(scope, tuple) and len(scope) == 2 and all(_seat(x, 256) for x in scope)):
        return f"scope {show(scope)}: expected two ints"
    if not (v.last_capture is None or _seat(v.last_capture, 2)):
        return f"last_capture {show(v.last_capture)}: expected 0, 1 or None"
    if not (v.dealer is None or _seat(v.dealer, n)):
        return f"dealer {show(v.dealer)}: expected a seat in 0..{n - 1} or None"
    history = v.history
    if not isinstance(history, tuple) or not all(
        isinstance(p, tuple) and len(p) == 2 and _seat(p[0], n) and isinstance(p[1], Move) for p in history
    ):
        return f"history {show(history)}: expected a tuple of (seat, Move) pairs"
    return None


def stand_ins(
    sizes: tuple[int, ...] | list[int], seat: int, own: int, free: list[int], stock: int
) -> tuple[list[int], list[int]]:
    """The position a view stands for when its hidden cards are dealt from ``free`` (card
    indexes, unaccounted for) in order: each seat's hand as a mask (``seat``'s own is
    ``own``), then a stock of ``stock`` cards. The view's checks build it (its caller has
    checked that ``free`` holds enough cards).

    >>> stand_ins((2, 1), 0, 0b11, [5, 6, 7, 8], 2)
    ([3, 32], [6, 7])
    """
    hands, at = [], 0
    for s, k in enumerate(sizes):
        if s == seat:
            hands.append(own)
        else:
            hands.append(sum(1 << c for c in free[at : at + k]))
            at += k
    return hands, free[at : at + stock]
