"""What a play did, in order: the events a game app shows (RULES §3-§5).

:func:`play` makes a move and says what happened — a capture (with the cards) or a card laid
on the table, a scopa, the refill of the hands from the stock, the last capturer taking the
table at the end of the hand, and the hand being over — so a client never has to diff
positions to find out.

>>> from scopa import State
>>> s = State.from_string("scopa 7d/Kc 3c4s - -/- 0/0 0 - -")
>>> after, events = play(s, "7dx3c4s")
>>> for e in events:
...     print(e.to_json())
{'type': 'capture', 'seat': 0, 'team': 0, 'card': '7d', 'cards': ['3c', '4s']}
{'type': 'scopa', 'seat': 0, 'team': 0}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scopa import jsonio
from scopa.card import Card, CardSet
from scopa.errors import OptionError, listed, plain_int, plain_str, show, unknown_keys
from scopa.move import Move
from scopa.state import State, require_state

__all__ = ["EVENT_FIELDS", "EVENT_TYPES", "Event", "play"]

EVENT_TYPES = (
    "capture",
    "lay_down",
    "scopa",
    "refill",
    "table_to_last_capturer",
    "hand_over",
    "match_over",
    "deal",
)
"""Every event type, in the order they can happen within one play (a play is a ``capture`` or a
``lay_down``, never both; the last two, a match's: :meth:`Match.play_events
<scopa.match.Match.play_events>` after a hand's ``hand_over``)."""
EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "capture": ("seat", "team", "card", "cards"),
    "lay_down": ("seat", "team", "card"),
    "scopa": ("seat", "team"),
    "refill": ("seat", "count"),
    "table_to_last_capturer": ("team", "cards"),
    "hand_over": ("points",),
    "match_over": ("team", "points"),
    "deal": ("seat",),
}
"""The fields each event type has, every one of them (an event's other fields are None), in
the order :meth:`Event.to_json` writes them; the protocol's schema requires them."""

#: what each field holds, when its type has it
_EXPECTED = {
    "seat": "a seat in 0..3",
    "team": "0 or 1",
    "card": "a Card",
    "cards": "a CardSet of at least one card",
    "count": "an int in 1..10",
    "points": "a tuple of two ints of at least 0",
}


def _valid(name: str, value: object) -> bool:
    """Whether ``value`` is what the field ``name`` holds (see :data:`_EXPECTED`)."""
    if name in ("seat", "team", "count"):
        low, high = {"seat": (0, 3), "team": (0, 1), "count": (1, 10)}[name]
        return type(value) is int and low <= value <= high
    if name == "card":
        return isinstance(value, Card)
    if name == "cards":
        return isinstance(value, CardSet) and bool(value)
    return isinstance(value, tuple) and len(value) == 2 and all(type(x) is int and x >= 0 for x in value)


@dataclass(frozen=True)
class Event:
    """One thing a play did.

    Attributes:
        type: one of :data:`EVENT_TYPES`.
        seat: the seat concerned (the player for ``capture``, ``lay_down`` and ``scopa``, the
            seat dealt to for ``refill``, the next hand's dealer for ``deal``), or None.
        team: the team concerned (the capturer's; the last capturer's for
            ``table_to_last_capturer``; the winner for ``match_over``), or None.
        card: the card played (``capture``; ``lay_down``: the card laid on the table).
        cards: the cards taken (``capture``: from the table; ``table_to_last_capturer``: the
            table's last cards).
        count: cards dealt (``refill``).
        points: the hand's points per team (``hand_over``); the match's scores (``match_over``).

    >>> Event("refill", seat=1, count=3).to_json()
    {'type': 'refill', 'seat': 1, 'count': 3}
    >>> Event("scopa", seat=1, team=0)
    Traceback (most recent call last):
    ...
    scopa.errors.OptionError: bad scopa event's team 0: seat 1 plays for team 1
    """

    type: str
    seat: int | None = None
    team: int | None = None
    card: Card | None = None
    cards: CardSet | None = None
    count: int | None = None
    points: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        # (an event built by hand or read from JSON has the fields of its type, each of its kind)
        object.__setattr__(self, "type", plain_str(self.type))  # (NumPy's strings: as strs)
        if not isinstance(self.type, str) or self.type not in EVENT_FIELDS:
            raise OptionError(f"bad event type {show(self.type)}: expected one of {', '.join(EVENT_TYPES)}")
        wanted = EVENT_FIELDS[self.type]
        for name in ("seat", "team", "count"):  # (NumPy's integers kept as ints: the repr pastes back)
            object.__setattr__(self, name, plain_int(getattr(self, name)))
        if isinstance(self.points, tuple):  # (a list is refused as before: points are a pair)
            object.__setattr__(self, "points", tuple(map(plain_int, self.points)))
        for name in ("seat", "team", "card", "cards", "count", "points"):
            value = getattr(self, name)
            if value is None and name in wanted:
                raise OptionError(f"bad {self.type} event: its {name} is missing")
            if value is not None and name not in wanted:
                raise OptionError(
                    f"bad {self.type} event: a {self.type} event has no {name} (got {show(value)})"
                )
        for name, expected in _EXPECTED.items():
            value = getattr(self, name)
            if value is not None and not _valid(name, value):
                raise OptionError(f"bad {self.type} event's {name} {show(value)}: expected {expected}")
        if self.seat is not None and self.team is not None and self.team != self.seat % 2:
            raise OptionError(
                f"bad {self.type} event's team {self.team}: seat {self.seat} plays for team {self.seat % 2}"
            )
        if self.card is not None and self.cards is not None and self.card in self.cards:
            raise OptionError(f"bad {self.type} event: its card {self.card} is among the cards it takes")
        if self.type == "match_over" and self.team is not None and self.points is not None:
            mine, theirs = self.points[self.team], self.points[1 - self.team]
            if mine <= theirs:  # (RULES §5: the team with more points wins; level, play goes on)
                raise OptionError(
                    f"bad match_over event: team {self.team} wins with {mine} points to {theirs}:"
                    " expected the winner to have more"
                )

    @classmethod
    def from_json(cls, obj: Any) -> Event:
        """Inverse of :meth:`to_json`. Raises :class:`OptionError` naming the bad field (an
        unknown type, a field its type has not or lacks, a bad seat, team, count or points, a
        team that is not its seat's, a ``match_over``'s team without more points than the other)
        and :class:`CardError` for a card that is none. The
        object may be given decoded, as JSON text or as its UTF-8 bytes.

        >>> e = Event.from_json({"type": "capture", "seat": 0, "team": 0, "card": "3d", "cards": ["3c"]})
        >>> e.card, e.cards, Event.from_json(e.to_json()) == e
        (Card.parse('3d'), CardSet.parse('3c'), True)
        """
        obj = jsonio.decoded(obj, "event", OptionError)
        if not isinstance(obj, Mapping):
            raise OptionError(f"bad event {show(obj)}: expected an object with a 'type'")
        odd = unknown_keys(obj, ("type", "seat", "team", "card", "cards", "count", "points"))
        if odd:
            raise OptionError(f"bad event {show(obj)}: unknown {listed('field', odd)}")
        if "type" not in obj:  # (it was a TypeError: Event() missing its 'type' argument)
            raise OptionError(f"bad event {show(obj)}: no 'type': expected one of {', '.join(EVENT_TYPES)}")
        fields = dict(obj)
        card, cards, points = fields.get("card"), fields.get("cards"), fields.get("points")
        if isinstance(card, str):
            fields["card"] = Card.parse(card)
        if isinstance(cards, list) and all(isinstance(c, str) for c in cards):
            fields["cards"] = CardSet(cards)
        if isinstance(points, list):
            fields["points"] = tuple(points)
        return cls(**fields)

    def to_json(self) -> dict[str, Any]:
        """The event as a JSON object: ``{"type": ..., ...}`` with the fields it has."""
        out: dict[str, Any] = {"type": self.type}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.team is not None:
            out["team"] = self.team
        if self.card is not None:
            out["card"] = str(self.card)
        if self.cards is not None:
            out["cards"] = [str(c) for c in self.cards]
        if self.count is not None:
            out["count"] = self.count
        if self.points is not None:
            out["points"] = list(self.points)
        return out


def play(state: State, move: Move | Card | str) -> tuple[State, list[Event]]:
    """The position after ``move`` and what the play did, in order (see the module).

    >>> s = State.from_string("scopa -/As 2cKc - 3c4s7d/- 0/0 1 0 1")   # the hand's last play
    >>> after, events = play(s, "As")
    >>> [e.type for e in events], events[1].cards, events[2].points, after.is_over
    (['lay_down', 'table_to_last_capturer', 'hand_over'], CardSet.parse('2c Kc As'), (3, 0), True)
    """
    m = require_state(state).resolve(move)
    after = state._after(m)  # (m is legal: resolve gave it)
    seat, team = state.turn, state.turn & 1
    events: list[Event] = []
    if m.is_capture:
        events.append(
            Event("capture", seat=seat, team=team, card=m.card, cards=CardSet._from_mask(m.capture_mask))
        )
    else:  # (two app audits: a card laid said nothing, "events": [], and apps read the move)
        events.append(Event("lay_down", seat=seat, team=team, card=m.card))
    if after.scope[team] > state.scope[team]:
        events.append(Event("scopa", seat=seat, team=team))
    if len(after.masks[2]) < len(state.masks[2]):  # (the stocks' sizes: no Cards made)
        n = state.rules.players
        first = after.turn
        for k in range(n):
            events.append(Event("refill", seat=(first + k) % n, count=state.rules.hand_size))
    if after.is_over:
        table_left = state.table.mask & ~m.capture_mask
        if not m.is_capture:
            table_left |= m.card.mask
        if table_left and after.last_capture is not None:
            events.append(
                Event("table_to_last_capturer", team=after.last_capture, cards=CardSet._from_mask(table_left))
            )
        events.append(Event("hand_over", points=after.score().points))
    return after, events
