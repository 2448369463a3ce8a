"""Immutable game states: one hand of Scopa or Scopone in progress.

>>> from scopa import Rules, State
>>> s = State.deal(Rules.preset("scopa"), seed=7, dealer=1)
>>> s.turn, [len(h) for h in s.hands], len(s.table), len(s.stock)
(0, [3, 3], 4, 30)
>>> s2 = s.play(s.legal_moves()[0])
>>> s2.turn, len(s.hands[0])          # s is unchanged
(1, 3)
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import scopa_core as core
from scopa import jsonio
from scopa.card import DECK, Card, CardLike, CardSet, card_indices, cards_mask
from scopa.errors import (
    AmbiguousMoveError,
    CardError,
    IllegalMoveError,
    InvalidMoveError,
    PositionError,
    ScopaError,
    as_int,
    check_seed,
    count,
    plain_int,
    show,
)
from scopa.move import Move
from scopa.rules import Rules
from scopa.scoring import HandScore

if TYPE_CHECKING:
    from scopa.records import HandRecord
    from scopa.view import PlayerView

__all__ = ["State"]


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


class State:
    """A position of one hand: hands, table, stock, piles, scope, the seat to move.

    States are immutable and hashable; :meth:`play` returns a new one. Build one with
    :meth:`deal`, :meth:`from_json`, :meth:`from_string` or :meth:`from_cards`, or give a
    position to the class as to :meth:`of` (as python-chess's ``Board(fen)``):
    ``State("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")``.

    >>> s = State.deal("scopa", seed=1)          # dealer 0: seat 1 leads
    >>> [str(m) for m in s.legal_moves()]
    ['3dx3c', '2c', '7c']
    >>> s = s.play("3dx3c")                      # move notation, or a Move
    >>> s.turn, s.captured[1], str(s.table)
    (0, CardSet.parse('3d 3c'), '5s Ks 6b')
    >>> while not s.is_over:
    ...     s = s.play(s.legal_moves()[0])
    >>> s.score().points, len(s.history)
    ((3, 1), 36)
    """

    __slots__ = (
        "_rules",
        "_opts",
        "_hands",
        "_table",
        "_stock",
        "_captured",
        "_scope",
        "_turn",
        "_last",
        "_dealer",
        "_history",
        "_origin",
        "_moves",
    )
    _rules: Rules
    _opts: int
    _hands: tuple[int, ...]
    _table: int
    _stock: tuple[int, ...]
    _captured: tuple[int, int]
    _scope: tuple[int, int]
    _turn: int
    _last: int
    _dealer: int | None
    _history: tuple[tuple[int, int, int], ...]
    _origin: State | None
    _moves: tuple[tuple[int, Move], ...] | None  # (the history as Moves, once made: see history)

    # ------------------------------------------------------------------ construction

    @classmethod
    def _make(
        cls,
        rules: Rules,
        pos: tuple[Any, ...],
        dealer: int | None,
        history: tuple[tuple[int, int, int], ...] = (),
        origin: State | None = None,
        opts: int | None = None,
        moves: tuple[tuple[int, Move], ...] | None = None,
    ) -> State:
        obj = object.__new__(cls)
        hands, table, stock, captured, scope, turn, last = pos
        put = object.__setattr__
        put(obj, "_rules", rules)
        put(obj, "_opts", rules.core_options if opts is None else opts)
        put(obj, "_hands", hands)
        put(obj, "_table", table)
        put(obj, "_stock", stock)
        put(obj, "_captured", captured)
        put(obj, "_scope", scope)
        put(obj, "_turn", turn)
        put(obj, "_last", last)
        put(obj, "_dealer", dealer)
        put(obj, "_history", history)
        put(obj, "_origin", origin)
        put(obj, "_moves", moves)
        return obj

    def __init__(self, position: State | str | bytes | Mapping[str, Any] | None = None) -> None:
        # (an API audit: State() made an object whose first use was an AttributeError, and
        # State(text) was Python's TypeError "State() takes no arguments")
        try:
            object.__getattribute__(self, "_rules")
        except AttributeError:
            pass
        else:  # (__init__ called again on a made State would change it under its hash)
            raise AttributeError("State is immutable: play() returns a new State")
        if position is None:
            raise PositionError(
                "State() needs a position: State(text or JSON), as State.of takes one, or "
                "State.deal(rules, seed=...), State.from_string, State.from_json, State.from_cards"
            )
        other = type(self).of(position)
        for name in State.__slots__:
            object.__setattr__(self, name, getattr(other, name))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("State is immutable: play() returns a new State")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("State is immutable: play() returns a new State")

    def __reduce__(self) -> tuple[object, tuple[Any, ...]]:
        origin = None if self._origin is None else self._origin.to_string()
        return (_restore, (self.to_string(), self._history, origin))

    @classmethod
    def deal(cls, rules: Rules | str, seed: int | None = None, dealer: int = 0) -> State:
        """Deal a new hand. The same ``seed`` always gives the same deal.

        The seat after ``dealer`` plays first (RULES §2). With ``rules.redeal_on_kings``
        a table with three or more kings is dealt again (RULES §6). ``seed=None``
        draws a random seed.
        """
        rules = Rules.of(rules)
        n = rules.players
        seat = as_int(dealer)
        if seat is None or not 0 <= seat < n:
            raise PositionError(f"bad dealer {show(dealer)}: expected a seat in 0..{n - 1}")
        dealer = seat
        if seed is None:
            seed = secrets.randbits(64)
        seed = check_seed(seed, PositionError)
        blocks, table, stock = core.deal(n, rules.hand_size, rules.table_size, rules.core_options, seed)
        first = (dealer + 1) % n
        hands = [0] * n
        for i, block in enumerate(blocks):
            hands[(first + i) % n] = block
        return cls._make(rules, (tuple(hands), table, tuple(stock), (0, 0), (0, 0), first, -1), dealer)

    @classmethod
    def from_cards(
        cls,
        rules: Rules | str,
        hands: Sequence[Iterable[CardLike]],
        turn: int,
        table: Iterable[CardLike] = (),
        stock: Iterable[CardLike] = (),
        captured: Sequence[Iterable[CardLike]] = ((), ()),
        scope: Sequence[int] = (0, 0),
        last_capture: int | None = None,
        dealer: int | None = None,
    ) -> State:
        """Build and validate a position from its parts (the fields of the JSON format).

        Raises :class:`CardError` for unknown or duplicate cards and :class:`PositionError`
        for a position that cannot occur in play.

        >>> s = State.from_cards("scopa", [["7d"], ["Kc"]], turn=0, table=["3c", "4s"])
        >>> [str(m) for m in s.legal_moves()]
        ['7dx3c4s']
        """
        rules = Rules.of(rules)
        n = rules.players
        if isinstance(hands, (str, bytes)) or not isinstance(hands, Sequence) or len(hands) != n:
            raise PositionError(f"bad hands {show(hands)}: expected {n} hands, one per seat")
        seen = 0
        taken: list[tuple[int, str]] = []  # (each mask taken, and where: the cards are apart)

        def take(cards: Iterable[CardLike], what: str) -> int:
            nonlocal seen
            mask = cards_mask(cards, what)
            if mask & seen:
                dup = mask & seen
                card = DECK[(dup & -dup).bit_length() - 1]
                first = next(w for m, w in taken if m & card.mask)
                raise CardError(f"duplicate card {show(str(card))}: in {first} and in {what}")
            taken.append((mask, what))
            seen |= mask
            return mask

        hand_masks = tuple(take(h, f"seat {i}'s hand") for i, h in enumerate(hands))
        table_mask = take(table, "the table")
        try:
            stock_list = None if isinstance(stock, (str, bytes)) else list(stock)
        except TypeError:
            stock_list = None
        if stock_list is None:
            raise CardError(f"the stock: expected a list of cards, top first, got {show(stock)}")
        take(stock_list, "the stock")
        stock_cards = card_indices(stock_list)
        if isinstance(captured, (str, bytes)) or not isinstance(captured, Sequence) or len(captured) != 2:
            raise PositionError(f"bad captured {show(captured)}: expected two piles, one per team")
        piles = (take(captured[0], "team 0's pile"), take(captured[1], "team 1's pile"))
        most = rules.most_scope
        # (NumPy's integers too, read as the ints they are: plain_int)
        turn, last_capture, dealer = plain_int(turn), plain_int(last_capture), plain_int(dealer)
        if (
            isinstance(scope, (str, bytes))
            or not isinstance(scope, Sequence)
            or len(scope) != 2
            or not all(_is_int(x) and 0 <= x <= most for x in map(plain_int, scope))
        ):
            raise PositionError(
                f"bad scope {show(scope)}: expected two ints in 0..{most}, one per team "
                f"(a team makes at most {most} plays in a hand of {rules.game})"
            )
        if not _is_int(turn) or not 0 <= turn < n:
            raise PositionError(f"bad turn {show(turn)}: expected a seat in 0..{n - 1}")
        if last_capture is not None and (not _is_int(last_capture) or last_capture not in (0, 1)):
            raise PositionError(f"bad last_capture {show(last_capture)}: expected 0, 1 or null")
        if dealer is not None and (not _is_int(dealer) or not 0 <= dealer < n):
            raise PositionError(f"bad dealer {show(dealer)}: expected a seat in 0..{n - 1} or null")
        pos = (
            hand_masks,
            table_mask,
            stock_cards,
            piles,
            (plain_int(scope[0]), plain_int(scope[1])),
            turn,
            -1 if last_capture is None else last_capture,
        )
        _check_position(rules, pos, dealer)
        return cls._make(rules, pos, dealer)

    # ------------------------------------------------------------------ views

    @property
    def rules(self) -> Rules:
        """The rules this hand is played under."""
        return self._rules

    @property
    def turn(self) -> int:
        """The seat to move."""
        return self._turn

    @property
    def team_to_move(self) -> int:
        """The team of the seat to move (seats 0, 2: team 0; seats 1, 3: team 1)."""
        return self._turn & 1

    @property
    def hands(self) -> tuple[CardSet, ...]:
        """Each seat's hand."""
        return tuple(CardSet._from_mask(h) for h in self._hands)

    @property
    def table(self) -> CardSet:
        """The cards face up on the table."""
        return CardSet._from_mask(self._table)

    @property
    def stock(self) -> tuple[Card, ...]:
        """The undealt cards, top first (only Scopa and Scopa for 4 have a stock)."""
        return tuple(DECK[i] for i in self._stock)

    @property
    def captured(self) -> tuple[CardSet, CardSet]:
        """Each team's pile of captured cards."""
        return (CardSet._from_mask(self._captured[0]), CardSet._from_mask(self._captured[1]))

    @property
    def scope(self) -> tuple[int, int]:
        """Each team's scope so far."""
        return self._scope

    @property
    def last_capture(self) -> int | None:
        """The team that made the last capture, or ``None`` before any capture."""
        return None if self._last < 0 else self._last

    @property
    def dealer(self) -> int | None:
        """The dealer's seat, or ``None`` when unknown (a position given without it)."""
        return self._dealer

    @property
    def is_over(self) -> bool:
        """True once every card is played (and the table went to the last capturer)."""
        return not self._stock and not any(self._hands)

    @property
    def masks(self) -> tuple[Any, ...]:
        """The raw position for the core: ``(hands, table, stock, captured, scope, turn, last)``."""
        return (self._hands, self._table, self._stock, self._captured, self._scope, self._turn, self._last)

    # ------------------------------------------------------------------ play

    def legal_moves(self) -> list[Move]:
        """Every legal move of the seat to move (RULES §3), in the core's order.

        Empty once the hand is over.
        """
        return [
            Move._from_core(c, m)
            for c, m in core.legal_moves(self._hands[self._turn], self._table, self._opts)
        ]

    def resolve(self, move: Move | Card | str) -> Move:
        """The legal :class:`Move` meant by ``move``; raises if it is not legal.

        A string naming only a card (``"7d"``), or a :class:`Card`, stands for that card's one
        legal move, if it has exactly one; otherwise :class:`AmbiguousMoveError` lists its
        captures.
        """
        if isinstance(move, Card):  # (as its name: an API review found a Card refused)
            move = str(move)
        if isinstance(move, str):
            parsed = Move.parse(move)
            by_card_alone = not parsed.is_capture
        elif isinstance(move, Move):
            parsed, by_card_alone = move, False
        else:
            raise InvalidMoveError(f"bad move {show(move)}: expected a Move, move notation or a Card")
        if self.is_over:
            raise IllegalMoveError(f"illegal move {show(str(parsed))}: the hand is over")
        card = parsed.card
        hand = self._hands[self._turn]
        if not hand >> card.index & 1:
            raise IllegalMoveError(
                f"illegal move {show(str(parsed))}: {card} is not in the hand of seat {self._turn} "
                f"({CardSet._from_mask(hand)})"
            )
        caps = core.captures(card.index, self._table, self._opts)
        if not by_card_alone and (parsed._mask in caps if caps else not parsed._mask):
            return parsed  # (one of the options below: the same card, a legal capture or none)
        options = [Move._from_core(card.index, m) for m in caps] or [Move._from_core(card.index, 0)]
        if by_card_alone:
            if len(options) == 1:
                return options[0]
            raise AmbiguousMoveError(
                f"ambiguous move {show(str(parsed))}: {card} can capture in several ways: "
                + ", ".join(str(m) for m in options)
            )
        if parsed in options:
            return parsed
        if not caps:
            why = f"{card} captures nothing here, so it is laid down: {card}"
        elif not parsed.is_capture:
            why = f"{card} must capture (RULES §3.3): " + ", ".join(str(m) for m in options)
        else:
            why = f"the legal captures with {card} are " + ", ".join(str(m) for m in options)
        # (the table, not the position: the message may be shown to a player, who must not see
        # the other hands or the stock)
        table = str(CardSet._from_mask(self._table)) or "empty"
        raise IllegalMoveError(f"illegal move {show(str(parsed))} (table {table}): {why}")

    def play(self, move: Move | Card | str) -> State:
        """The state after ``move`` (a :class:`Move`, move notation or a :class:`Card`, as
        :meth:`resolve` reads it); ``self`` is unchanged.

        Raises :class:`IllegalMoveError` (or :class:`AmbiguousMoveError`) when the move
        is not legal, :class:`InvalidMoveError` when the notation cannot be parsed.
        """
        return self._after(self.resolve(move))

    def _after(self, m: Move) -> State:
        """:meth:`play` of a move already resolved (legal here: :meth:`resolve` gave it)."""
        card, mask = m._card.index, m._mask
        pos = core.apply_move(self.masks, card, mask, self._opts, self._rules.hand_size)
        moves = self._moves
        return State._make(
            self._rules,
            pos,
            self._dealer,
            self._history + ((self._turn, card, mask),),
            self._origin if self._origin is not None else (None if self._history else self),
            self._opts,
            # (the history's Moves, once asked for, carried along: a game's views, one a play,
            # need not make them all again each time)
            None if moves is None or m.__class__ is not Move else moves + ((self._turn, m),),
        )

    def _replay(self, plays: Sequence[str | Move]) -> tuple[State, int, ScopaError | None]:
        """``plays`` made in order, each checked as :meth:`play` checks it, without a State
        made for each (a position's JSON history replayed, in ``notation``): the state after
        the plays made, how many, and the error of the next one (None when all are made). A
        capture or a lay-down that is legal as written moves the masks on; anything else (a
        card alone that captures, a move that is not legal, the hand over) goes through
        :meth:`play`, which resolves it or raises."""
        base, pos, opts, block = self, self.masks, self._opts, self._rules.hand_size
        added: list[tuple[int, int, int]] = []
        for done, move in enumerate(plays):
            try:
                m = Move.parse(move) if isinstance(move, str) else move
                if isinstance(m, Move):
                    card, mask, turn = m._card.index, m._mask, pos[5]
                    if pos[0][turn] >> card & 1:
                        caps = core.captures(card, pos[1], opts)
                        if mask in caps if caps else not mask:
                            pos = core.apply_move(pos, card, mask, opts, block)
                            added.append((turn, card, mask))
                            continue
                base = base._extended(pos, added).play(move)
            except ScopaError as exc:
                return base._extended(pos, added), done, exc
            pos, added = base.masks, []
        return base._extended(pos, added), len(plays), None

    def _extended(self, pos: tuple[Any, ...], added: list[tuple[int, int, int]]) -> State:
        """This state moved on to ``pos`` by the plays ``added``, checked: :meth:`_after`'s
        State after the last of them."""
        if not added:
            return self
        return State._make(
            self._rules,
            pos,
            self._dealer,
            self._history + tuple(added),
            self._origin if self._origin is not None else (None if self._history else self),
            self._opts,
        )

    @property
    def history(self) -> tuple[tuple[int, Move], ...]:
        """The plays made from this State's :attr:`origin`, in order: ``(seat, move)`` pairs.

        A dealt hand records every play; a position read from a string, or from JSON without
        a ``history`` field, starts with an empty one. The history is carried along but is
        not part of the position: states that differ only in history are equal.
        """
        moves = self._moves
        if moves is None:
            moves = tuple((seat, Move._from_core(c, m)) for seat, c, m in self._history)
            object.__setattr__(self, "_moves", moves)
        return moves

    @property
    def origin(self) -> State:
        """The position the :attr:`history` starts from (the deal, for a dealt hand); this
        state itself when the history is empty."""
        return self if self._origin is None or not self._history else self._origin

    def undo(self) -> State:
        """The position before the last play, with its history; raises
        :class:`PositionError` when there is no play to undo.

        >>> s = State.deal("scopa", seed=3)
        >>> s.play(s.legal_moves()[0]).undo() == s
        True
        """
        if not self._history or self._origin is None:
            raise PositionError(f"nothing to undo: no play is recorded before {show(self.to_string())}")
        state = self._origin
        for _, card, cap in self._history[:-1]:
            state = state.play(Move._from_core(card, cap))
        return state

    def record(self) -> HandRecord:
        """The record of this hand so far, from its deal (:attr:`origin`) through every play
        (see :mod:`scopa.records`); raises :class:`PositionError` when the history does not
        start from a deal."""
        from scopa.records import HandRecord

        return HandRecord.from_state(self)

    def view(self, seat: int) -> PlayerView:
        """What ``seat`` sees: its own hand, the table, the piles, the scope, the public
        history, and only the sizes of the other hands and of the stock."""
        from scopa.view import PlayerView

        n = self._rules.players
        index = as_int(seat)  # (NumPy's integers too)
        if index is None or not 0 <= index < n:
            raise PositionError(f"bad seat {show(seat)}: expected a seat in 0..{n - 1}")
        return PlayerView._from_state(self, index)

    def score(self) -> HandScore:
        """The score of the piles as they stand: the hand's final score once :attr:`is_over`."""
        return HandScore._from_masks(
            self._rules, self._captured[0], self._captured[1], self._scope, checked=True
        )

    # ------------------------------------------------------------------ formats

    def to_dict(self) -> dict[str, Any]:
        """The JSON position format as a dict (see :meth:`to_json`)."""
        from scopa.notation import state_to_dict

        return state_to_dict(self)

    def to_json(self) -> str:
        """The position as JSON *text* (format version 2, see docs/notation.md); :meth:`to_dict`
        gives the object, as ``Match.to_json()`` and the records' ``to_json()`` give theirs (put
        ``to_dict()`` in a JSON document of your own, not this text)."""
        from scopa.notation import state_to_json

        return state_to_json(self)

    @classmethod
    def from_json(cls, obj: str | bytes | Mapping[str, Any]) -> State:
        """Parse a JSON position (text, UTF-8 bytes, or an already-decoded dict)."""
        from scopa.notation import state_from_json

        return state_from_json(obj)

    def to_string(self) -> str:
        """The compact one-line position string (see docs/notation.md)."""
        from scopa.notation import state_to_string

        return state_to_string(self)

    @classmethod
    def from_string(cls, text: str) -> State:
        """Parse a compact position string."""
        from scopa.notation import state_from_string

        return state_from_string(text)

    @classmethod
    def of(cls, position: State | str | bytes | Mapping[str, Any]) -> State:
        """A position given any way the library takes one: a State (itself), JSON text (a
        string starting with ``{``), a position string, either as UTF-8 bytes, or a decoded
        JSON object.

        >>> import json
        >>> s = State.of("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
        >>> State.of(s.to_json()) == State.of(json.loads(s.to_json())) == State.of(s) == s
        True
        >>> State.of(s.to_json().encode()) == State.of(s.to_string().encode()) == s
        True
        >>> State.of(7)
        Traceback (most recent call last):
        ...
        scopa.errors.PositionError: bad position 7: expected a State, a position string or a JSON position
        """
        if isinstance(position, State):
            return position
        if isinstance(position, (bytes, bytearray)):
            position = jsonio.utf8_text(position, "position", PositionError)
        if isinstance(position, str):
            if position.lstrip().startswith("{"):
                return cls.from_json(position)
            return cls.from_string(position)
        if isinstance(position, Mapping):
            return cls.from_json(position)
        raise PositionError(
            f"bad position {show(position)}: expected a State, a position string or a JSON position"
        )

    # ------------------------------------------------------------------ identity

    def _key(self) -> tuple[Any, ...]:
        return (self._rules, self.masks, self._dealer)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"State.from_string({self.to_string()!r})"

    def _repr_svg_(self) -> str:
        """The position as SVG, every hand face up (Jupyter shows it): :func:`scopa.svg.position`."""
        from scopa.svg import position

        return position(self)

    def __str__(self) -> str:
        # (the game as people name it, with its rule options, as solve's line and the pictures'
        # titles say them: a teacher's audit read "scopa" over a deal of scopa with napola, and
        # "scopone_scientifico" where solve said "Scopone scientifico"; repr is the identifier's)
        lines = [f"{self._rules.hand_rules().display_name}, seat {self._turn} to move"]
        for i, h in enumerate(self.hands):
            lines.append(f"  seat {i}: {h or '-'}")
        lines.append(f"  table: {self.table or '-'}")
        if self._stock:
            lines.append(f"  stock: {count(len(self._stock), 'card')}")
        for t in (0, 1):
            pile, scope = count(len(self.captured[t]), "card"), count(self._scope[t], "scopa")
            lines.append(f"  team {t}: {pile}, {scope}")
        return "\n".join(lines)


def require_state(state: object) -> State:
    """``state`` if it is a :class:`State`, else a :class:`PositionError` naming it (the one
    check of the functions that take a State).

    >>> require_state("scopa")
    Traceback (most recent call last):
    ...
    scopa.errors.PositionError: bad state 'scopa': expected a scopa.State
    """
    if not isinstance(state, State):
        raise PositionError(f"bad state {show(state)}: expected a scopa.State")
    return state


def _restore(text: str, history: tuple[tuple[int, int, int], ...], origin: str | None = None) -> State:
    s = State.from_string(text)
    start = None if origin is None else State.from_string(origin)
    return State._make(s._rules, s.masks, s._dealer, history, start)


def _check_position(rules: Rules, pos: tuple[Any, ...], dealer: int | None) -> None:
    """Raise :class:`PositionError` unless the position can occur in play."""
    hands, table, stock, piles, scope, turn, last = pos
    n, hs = rules.players, rules.hand_size
    sizes = [core.popcount(h) for h in hands]
    for seat, k in enumerate(sizes):
        if k > hs:
            raise PositionError(f"seat {seat}'s hand holds {k} cards: at most {hs} in {rules.game}")
    block = n * hs
    if stock and not rules.stock_size:
        raise PositionError(
            f"the stock holds {count(len(stock), 'card')}: {rules.game} deals every card at once, "
            "so it has none"
        )
    if len(stock) % block:
        raise PositionError(
            f"the stock holds {count(len(stock), 'card')}: expected a multiple of {block} "
            f"(whole refills of {hs} cards for {n} seats)"
        )
    if len(stock) > rules.stock_size:
        raise PositionError(f"the stock holds {len(stock)} cards: at most {rules.stock_size} in {rules.game}")
    if not any(sizes):
        if stock:
            raise PositionError("every hand is empty but the stock is not: refills are dealt at once")
        if table and last >= 0:
            raise PositionError(
                "every card is played but the table is not empty: it goes to the last capturer"
            )
    else:
        k = sizes[turn]
        order = [sizes[(turn + i) % n] for i in range(n)]
        played = sum(1 for s in order if s == k - 1)
        if k == 0 or any(s not in (k, k - 1) for s in order) or order != sorted(order, reverse=True):
            raise PositionError(
                f"hand sizes {sizes} with seat {turn} to move cannot occur: from the seat to move "
                "on, hands hold k cards, then k-1 for the seats that already played this round"
            )
        if dealer is not None:
            first = (dealer + 1) % n
            if (turn - first) % n != played:
                raise PositionError(
                    f"hand sizes {sizes} with seat {turn} to move: {count(played, 'seat')} already played "
                    f"this round, but dealer {dealer} means the round started at seat {first}"
                )
    # each seat has played the cards dealt to it that it no longer holds (RULES §3)
    rounds = (40 - rules.table_size - len(stock)) // block
    plays = [0, 0]
    for seat, k in enumerate(sizes):
        plays[seat % 2] += rounds * hs - k
    for team in (0, 1):
        # each scopa is one of the team's plays (a position may leave captured cards out
        # of the piles, so their size says nothing more than that one is not empty)
        if scope[team] > plays[team]:
            raise PositionError(
                f"team {team} has {count(scope[team], 'scopa')} but has made "
                f"{count(plays[team], 'play')} this hand: "
                "each scopa is one of its plays"
            )
        if scope[team] and not piles[team]:
            raise PositionError(f"team {team} has {count(scope[team], 'scopa')} but an empty pile")
    if last < 0 and (piles[0] or piles[1]):
        raise PositionError("last_capture is null but a pile holds cards: give the team that captured last")
    if last >= 0 and not piles[last]:
        raise PositionError(f"last_capture is team {last} but its pile is empty")
