"""Cards and sets of cards.

A card is written rank letter + suit letter (RULES §1): ``7d`` is the settebello.
Suits: ``d`` coins (denari, ♦), ``c`` cups (coppe, ♥), ``s`` swords (spade, ♠),
``b`` clubs (bastoni, ♣). Ranks: ``A 2 3 4 5 6 7 J Q K`` with capture values 1..10.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence, Set
from functools import total_ordering
from typing import TypeAlias, TypeVar

from scopa.errors import CardError, as_int, show

__all__ = ["Card", "CardLike", "CardSet", "DECK", "RANKS", "SUITS", "bits", "cards_mask"]

SUITS = "dcsb"
"""The suit letters in index order: d coins (denari), c cups, s swords, b clubs (bastoni)."""
RANKS = "A234567JQK"
"""The rank letters in index order, ace to king (J, Q, K count 8, 9, 10)."""
_SUIT_SYMBOLS = {"♦": "d", "♥": "c", "♠": "s", "♣": "b", "♢": "d", "♡": "c", "♤": "s", "♧": "b"}
_PRIMIERA = (16, 12, 13, 14, 15, 18, 21, 10, 10, 10)
_SUIT_NAMES = ("coins", "cups", "swords", "clubs")
_T = TypeVar("_T")


@total_ordering
class Card:
    """One of the 40 cards. Instances are unique: ``Card.parse("7d") is Card.from_index(6)``.

    >>> c = Card.parse("7♦")
    >>> c, str(c), c.index, c.value, c.primiera_value
    (Card.parse('7d'), '7d', 6, 7, 21)
    >>> Card.parse("kC") == Card.parse("Kc")
    True
    """

    __slots__ = ("index",)
    index: int

    def __new__(cls, index: int) -> Card:  # noqa: D102 - use parse() or from_index()
        i = as_int(index)
        if i is None or not 0 <= i < 40:
            raise CardError(f"card index must be an int in 0..39, got {show(index)}")
        return DECK[i]

    @classmethod
    def _make(cls, index: int) -> Card:
        obj = object.__new__(cls)
        object.__setattr__(obj, "index", index)
        return obj

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __delattr__(self, name: str) -> None:  # (del card.index emptied the deck's own card)
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[type[Card], tuple[int]]:
        return (Card, (self.index,))

    @classmethod
    def from_index(cls, index: int) -> Card:
        """The card with bit index ``index`` (``suit * 10 + value - 1``).

        >>> Card.from_index(39)
        Card.parse('Kb')
        """
        return cls(index)

    @classmethod
    def parse(cls, text: str | Card) -> Card:
        """Parse ``"7d"``, ``"7D"``, ``"7♦"``; raises :class:`CardError` otherwise.

        >>> Card.parse("Q♠")
        Card.parse('Qs')
        """
        if isinstance(text, Card):
            return text
        if text.__class__ is str:  # (the usual spellings, looked up: the rest parsed below)
            card = _BY_TEXT.get(text)
            if card is not None:
                return card
        if not isinstance(text, str):
            raise CardError(f"a card must be a string like '7d', got {show(text)}")
        t = text.strip().replace("\ufe0f", "").replace("\ufe0e", "")  # (an emoji keyboard's ♦️)
        if len(t) != 2:
            raise CardError(f"unknown card {show(text)}: expected rank A234567JQK + suit dcsb, like '7d'")
        rank, suit = t[0].upper(), _SUIT_SYMBOLS.get(t[1], t[1].lower())
        r, s = RANKS.find(rank), SUITS.find(suit)
        if r < 0 or s < 0:
            raise CardError(f"unknown card {show(text)}: expected rank A234567JQK + suit dcsb, like '7d'")
        return DECK[s * 10 + r]

    @property
    def suit(self) -> str:
        """Suit letter: ``d``, ``c``, ``s`` or ``b``."""
        return SUITS[self.index // 10]

    @property
    def suit_name(self) -> str:
        """English suit name: coins, cups, swords or clubs."""
        return _SUIT_NAMES[self.index // 10]

    @property
    def rank(self) -> str:
        """Rank letter: ``A 2 3 4 5 6 7 J Q K``."""
        return RANKS[self.index % 10]

    @property
    def value(self) -> int:
        """Capture value, 1 (ace) to 10 (king)."""
        return self.index % 10 + 1

    @property
    def primiera_value(self) -> int:
        """Primiera value (RULES §1): 7→21, 6→18, A→16, 5..2→15..12, J Q K→10."""
        return _PRIMIERA[self.index % 10]

    @property
    def mask(self) -> int:
        """The card's bit, ``1 << index``."""
        return 1 << self.index

    def __str__(self) -> str:
        return RANKS[self.index % 10] + SUITS[self.index // 10]

    def __repr__(self) -> str:
        return f"Card.parse('{self}')"

    def _repr_svg_(self) -> str:
        """The card's face as SVG (Jupyter shows it): :func:`scopa.svg.card`."""
        from scopa.svg import card

        return card(self)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return self.index

    def __lt__(self, other: Card) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.index < other.index


DECK: tuple[Card, ...] = tuple(Card._make(i) for i in range(40))
"""The 40 cards in index order."""

#: Each card's name (``str(card)``), by index.
_NAMES: tuple[str, ...] = tuple(str(c) for c in DECK)

CardLike: TypeAlias = Card | str


def _spellings() -> dict[str, Card]:
    """Every two-character spelling :meth:`Card.parse` reads (``"7d"``, ``"7D"``, ``"7♦"``,
    ``"kc"``...), checked against it: a fast path for the cards of positions and moves."""
    ranks = {ch for r in RANKS for ch in (r, r.lower(), r.upper())}
    suits = {ch for s in SUITS for ch in (s, s.upper())} | set(_SUIT_SYMBOLS)
    out: dict[str, Card] = {}
    for r in ranks:
        for s in suits:
            try:
                out[r + s] = Card.parse(r + s)
            except CardError:
                pass
    return out


_BY_TEXT: dict[str, Card] = {}
_BY_TEXT.update(_spellings())


def _by_suit(items: Sequence[_T]) -> list[tuple[tuple[_T, ...], ...]]:
    """For each suit, a table of its 1,024 subsets: at ``m`` (the suit's 10 bits of a mask) the
    items of the suit's cards in ``m``, ascending (``items`` by card index)."""
    out = []
    for suit in range(4):
        table: list[tuple[_T, ...]] = [()] * 1024
        for m in range(1, 1024):
            top = m.bit_length() - 1
            table[m] = table[m ^ 1 << top] + (items[10 * suit + top],)
        out.append(tuple(table))
    return out


# (a mask's cards by suit, 10 bits at a time: four look-ups, not a Python loop over its cards)
_INDEXES = _by_suit(range(40))
_NAMES_BY_SUIT = _by_suit(_NAMES)
_TEXT_BY_SUIT = [tuple("".join(names) for names in table) for table in _NAMES_BY_SUIT]


def bits(mask: int) -> Iterator[int]:
    """Indexes of the cards in ``mask`` (a 40-bit card mask: an int, or NumPy's), ascending.
    Raises :class:`CardError` for anything else.

    >>> list(bits(0b1010))
    [1, 3]
    """
    if mask.__class__ is not int or not 0 <= mask < 1 << 40:
        number = as_int(mask)
        if number is None or not 0 <= number < 1 << 40:
            raise CardError(f"bad card mask {show(mask)}: expected an int in 0..2**40-1")
        mask = number
    a, b, c, d = _INDEXES
    return iter(a[mask & 1023] + b[mask >> 10 & 1023] + c[mask >> 20 & 1023] + d[mask >> 30])


def _mask_names(mask: int) -> list[str]:
    """The names of the cards of ``mask`` (a 40-bit card mask), ascending.

    >>> _mask_names(0b1000001)
    ['Ad', '7d']
    """
    a, b, c, d = _NAMES_BY_SUIT
    return [*a[mask & 1023], *b[mask >> 10 & 1023], *c[mask >> 20 & 1023], *d[mask >> 30]]


def _mask_text(mask: int) -> str:
    """The names of the cards of ``mask`` (a 40-bit card mask), ascending, joined: ``"Ad7d"``."""
    a, b, c, d = _TEXT_BY_SUIT
    return a[mask & 1023] + b[mask >> 10 & 1023] + c[mask >> 20 & 1023] + d[mask >> 30]


def cards_mask(cards: Iterable[CardLike], what: str = "cards") -> int:
    """Mask of ``cards`` (Cards or card strings); raises :class:`CardError` on a duplicate.

    >>> cards_mask(["Ad", "7d"])
    65
    """
    if isinstance(cards, CardSet):
        return cards.mask
    if isinstance(cards, str):
        raise CardError(f"{what}: expected a list of cards, got the string {show(cards)}")
    if isinstance(cards, (bytes, bytearray, memoryview)):  # (an API audit: "got 55", its first byte)
        raise CardError(f"{what}: expected a list of cards, got the bytes {show(cards)}")
    try:
        items = iter(cards)
    except TypeError:
        expected = "a list of cards (Cards or card strings)"
        raise CardError(f"{what}: expected {expected}, got {show(cards)}") from None
    mask = 0
    spelt = _BY_TEXT.get
    for c in items:
        card = (spelt(c) if c.__class__ is str else None) or Card.parse(c)
        bit = 1 << card.index
        if mask & bit:
            raise CardError(f"duplicate card {show(str(card))} in {what}")
        mask |= bit
    return mask


def card_indices(cards: Iterable[CardLike]) -> tuple[int, ...]:
    """The indices of ``cards`` (Cards or card strings), in their order (each is parsed as
    :meth:`Card.parse` does: a card already checked, as the stock in :meth:`State.from_cards`)."""
    spelt = _BY_TEXT.get
    return tuple(((spelt(c) if c.__class__ is str else None) or Card.parse(c)).index for c in cards)


class CardSet(Set[Card]):
    """An immutable set of cards backed by a 40-bit mask, iterated in index order.

    It compares equal to any set of the same cards.

    >>> s = CardSet.parse("7d Kc Ad")
    >>> s, len(s), Card.parse("Kc") in s, str(s)
    (CardSet.parse('Ad 7d Kc'), 3, True, 'Ad 7d Kc')
    >>> s == {Card.parse("Ad"), Card.parse("7d"), Card.parse("Kc")}
    True
    """

    __slots__ = ("mask", "_hash_value")
    mask: int
    _hash_value: int  # set by the first hash() (not Set's own _hash method)

    def __init__(self, cards: Iterable[CardLike] | int = ()) -> None:
        if isinstance(cards, bool):
            raise CardError(f"expected cards or a card mask, got {show(cards)}")
        number = as_int(cards)  # (a mask: an int, or NumPy's)
        if number is not None:
            if not 0 <= number < 1 << 40:
                raise CardError(f"a card mask must be in 0..2**40-1, got {show(cards)}")
            mask = number
        else:
            mask = cards_mask(cards)  # type: ignore[arg-type]
        object.__setattr__(self, "mask", mask)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("CardSet is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("CardSet is immutable")

    @classmethod
    def parse(cls, text: str | CardSet) -> CardSet:
        """Parse space- or comma-separated cards (``"7d Kc"``), or ``""``/``"-"`` for none; a
        :class:`CardSet` is returned as it is (as :meth:`Card.parse` does)."""
        if isinstance(text, CardSet):
            return text
        if not isinstance(text, str):
            raise CardError(f"cards must be a string like '7d Kc', got {show(text)}")
        parts = text.replace(",", " ").split()
        if parts == ["-"]:
            parts = []
        try:
            return cls(parts)
        except CardError as exc:
            raise CardError(f"{exc}: {show(text)}") from None

    @classmethod
    def _from_mask(cls, mask: int) -> CardSet:
        obj = object.__new__(cls)
        object.__setattr__(obj, "mask", mask)
        return obj

    def __contains__(self, card: object) -> bool:
        if isinstance(card, str):
            try:
                card = Card.parse(card)
            except CardError:
                return False
        return isinstance(card, Card) and bool(self.mask >> card.index & 1)

    def __iter__(self) -> Iterator[Card]:
        return (DECK[i] for i in bits(self.mask))

    def __len__(self) -> int:
        return bin(self.mask).count("1")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CardSet):
            return self.mask == other.mask
        return Set.__eq__(self, other)

    def __hash__(self) -> int:
        # equal to any set of the same cards, so hashed as one: a frozenset's hash depends only
        # on its members' hashes, and a Card's hash is its index; kept after the first call
        try:
            return self._hash_value
        except AttributeError:
            value = hash(frozenset(bits(self.mask)))
            object.__setattr__(self, "_hash_value", value)
            return value

    def __reduce__(self) -> tuple[type[CardSet], tuple[int]]:
        return (CardSet, (self.mask,))

    def __copy__(self) -> CardSet:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> CardSet:
        return self

    # The set operators and isdisjoint on masks (Set's mixins iterate the other operand: a
    # string was taken as its characters, so cs.isdisjoint("7d") was True and cs | "Kb" said
    # "unknown card 'K'"). The other operand may be any iterable of cards (what is no card in
    # it is a CardError: it was left out); not an iterable, an operator is not defined for it (a
    # TypeError, as for a set) and isdisjoint says so (a CardError).

    def _other_mask(self, other: object, what: str) -> int | None:
        if isinstance(other, CardSet):
            return other.mask
        if isinstance(other, (str, bytes, bytearray, memoryview)):
            kind = "string" if isinstance(other, str) else "bytes"
            raise CardError(
                f"{what}: expected cards (a CardSet, Cards or card strings), got the {kind} {show(other)}"
                + (" (CardSet.parse reads one)" if kind == "string" else "")
            )
        if not isinstance(other, Iterable):
            return None
        mask = 0
        for c in other:
            mask |= 1 << Card.parse(c).index
        return mask

    def __or__(self, other: object) -> CardSet:
        mask = self._other_mask(other, "CardSet |")
        return NotImplemented if mask is None else CardSet._from_mask(self.mask | mask)

    __ror__ = __or__

    def __and__(self, other: object) -> CardSet:
        mask = self._other_mask(other, "CardSet &")
        return NotImplemented if mask is None else CardSet._from_mask(self.mask & mask)

    __rand__ = __and__

    def __xor__(self, other: object) -> CardSet:
        mask = self._other_mask(other, "CardSet ^")
        return NotImplemented if mask is None else CardSet._from_mask(self.mask ^ mask)

    __rxor__ = __xor__

    def __sub__(self, other: object) -> CardSet:
        mask = self._other_mask(other, "CardSet -")
        return NotImplemented if mask is None else CardSet._from_mask(self.mask & ~mask)

    def __rsub__(self, other: object) -> CardSet:
        mask = self._other_mask(other, "- CardSet")
        return NotImplemented if mask is None else CardSet._from_mask(mask & ~self.mask)

    def isdisjoint(self, other: Iterable[object]) -> bool:
        """Whether ``other`` (cards) has no card of this set."""
        mask = self._other_mask(other, "CardSet.isdisjoint")
        if mask is None:
            raise CardError(f"CardSet.isdisjoint: expected cards, got {show(other)}")
        return not self.mask & mask

    def __str__(self) -> str:
        return " ".join(_mask_names(self.mask))

    def __repr__(self) -> str:
        return f"CardSet.parse('{self}')"
