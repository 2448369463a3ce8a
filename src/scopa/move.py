"""Moves and their notation.

A move is the card played and the set of table cards it captures. Notation: the card
alone lays it down (``"7d"``); ``x`` then the captured cards captures them
(``"7dx3c4s"``), written in index order.

>>> m = Move.parse("Qdx5b4s")
>>> str(m), m.is_capture
('Qdx4s5b', True)
>>> Move.parse("7dx3c4s").captures, Move.parse("7d").captures
(CardSet.parse('3c 4s'), CardSet.parse(''))
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import total_ordering

from scopa.card import _BY_TEXT, _NAMES, DECK, Card, CardLike, CardSet, _mask_text, cards_mask
from scopa.errors import CardError, InvalidMoveError, show

__all__ = ["Move"]


@total_ordering
class Move:
    """A card played and the table cards it captures (empty for a lay-down).

    Immutable and hashable; ``Move.parse(str(m)) == m``.

    >>> Move(Card.parse("Kc"), ["Kd"])
    Move.parse('KcxKd')
    """

    __slots__ = ("_card", "_mask")
    _card: Card
    _mask: int

    def __init__(self, card: CardLike, captures: Iterable[CardLike] = ()) -> None:
        try:
            c = Card.parse(card)
            mask = cards_mask(captures, "the captured cards")
        except CardError as exc:
            raise InvalidMoveError(f"bad move: {exc}") from None
        if mask >> c.index & 1:
            raise InvalidMoveError(f"bad move: {c} cannot capture itself")
        object.__setattr__(self, "_card", c)
        object.__setattr__(self, "_mask", mask)

    @classmethod
    def _from_core(cls, card: int, mask: int) -> Move:
        obj = object.__new__(cls)
        object.__setattr__(obj, "_card", DECK[card])
        object.__setattr__(obj, "_mask", mask)
        return obj

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Move is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Move is immutable")

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Move.parse, (str(self),))

    @classmethod
    def parse(cls, text: str | Move) -> Move:
        """Parse move notation: ``"7d"`` or ``"7dx3c4s"`` (suit symbols and any case accepted);
        a :class:`Move` is returned as it is (as :meth:`Card.parse <scopa.Card.parse>` does).

        >>> Move.parse("zz")
        Traceback (most recent call last):
        ...
        scopa.errors.InvalidMoveError: bad move 'zz': unknown card 'zz': expected rank ...
        """
        if text.__class__ is str:  # (notation as written, "7dx3c4s": looked up; the rest below)
            card = _BY_TEXT.get(text[:2])
            if card is not None:
                if len(text) == 2:
                    return cls._from_core(card.index, 0)
                if text[2] in "xX" and len(text) % 2 and len(text) > 3:
                    mask = 0
                    for i in range(3, len(text), 2):
                        c = _BY_TEXT.get(text[i : i + 2])
                        if c is None or mask >> c.index & 1:
                            break
                        mask |= 1 << c.index
                    else:
                        if not mask >> card.index & 1:
                            return cls._from_core(card.index, mask)
        if isinstance(text, Move):
            return text
        if not isinstance(text, str):
            raise InvalidMoveError(f"bad move {show(text)}: expected notation like '7d' or '7dx3c4s'")
        # (an emoji keyboard's variation selectors, as Card.parse drops them: "7dx3♥️" was
        # "captured cards '3♥️' are not whole cards" while "7♦️x3c" was read)
        t = text.strip().replace("\ufe0f", "").replace("\ufe0e", "")
        cut = t.lower().find("x")
        head, sep, tail = (t, "", "") if cut < 0 else (t[:cut], "x", t[cut + 1 :])
        if not head:  # ("x7d", "xxxx": no card played; "unknown card ''" said nothing)
            raise InvalidMoveError(f"bad move {show(text)}: expected notation like '7d' or '7dx3c4s'")
        try:
            card = Card.parse(head)
            caps = [tail[i : i + 2] for i in range(0, len(tail), 2)] if sep else []
            if sep and not tail:  # ("captured cards '' are not whole cards" said less)
                raise CardError(f"nothing after 'x': expected the cards taken, e.g. '{card}x...'")
            if sep and len(tail) % 2:
                raise CardError(f"captured cards {show(tail)} are not whole cards")
            mask = cards_mask(caps, "the captured cards")
        except CardError as exc:
            raise InvalidMoveError(f"bad move {show(text)}: {exc}") from None
        if mask >> card.index & 1:
            raise InvalidMoveError(f"bad move {show(text)}: {card} cannot capture itself")
        return cls._from_core(card.index, mask)

    @property
    def card(self) -> Card:
        """The card played."""
        return self._card

    @property
    def captures(self) -> CardSet:
        """The table cards captured (empty for a lay-down), a :class:`~scopa.card.CardSet` as a
        position's table and hands are: equal to (and hashed as) any set of the same cards."""
        return CardSet._from_mask(self._mask)

    @property
    def capture_mask(self) -> int:
        """The captured cards as a 40-bit mask."""
        return self._mask

    @property
    def is_capture(self) -> bool:
        """True when the move captures."""
        return self._mask != 0

    def notation(self) -> str:
        """Move notation, e.g. ``"7dx3c4s"``."""
        if not self._mask:
            return _NAMES[self._card.index]
        return _NAMES[self._card.index] + "x" + _mask_text(self._mask)

    __str__ = notation

    def __repr__(self) -> str:
        return f"Move.parse('{self.notation()}')"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Move):
            return NotImplemented
        return self._card is other._card and self._mask == other._mask

    def __hash__(self) -> int:
        return hash((self._card.index, self._mask))

    def __lt__(self, other: Move) -> bool:
        if not isinstance(other, Move):
            return NotImplemented
        return (self._card.index, self._mask) < (other._card.index, other._mask)
