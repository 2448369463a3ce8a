"""Position formats: JSON (version 2) and the compact one-line position string.

JSON::

    {"rules": "scopone_scientifico",
     "hands": [["7d","Kc"], ["As","2b"], ["3c","4d"], ["5s","6b"]],
     "table": ["Qd"], "stock": [], "captured": [["Ad"], ["2d"]], "scope": [0, 1],
     "turn": 0, "last_capture": 1, "dealer": 3}

The position string has nine space-separated fields, in the JSON's order: rules, hands,
table, stock, captured, scope, turn, last_capture, dealer. Cards are written without
separators (every card is two characters), lists of lists are joined by ``/``, an empty
list or a null is ``-``, and options follow the preset after ``;``::

    scopone_scientifico 7dKc/As2b/4d3c/5s6b Qd - Ad/2d 0/1 0 1 3
    scopa;target=16;capture_rule=fewest 7d/Kc 3c4s - -/- 0/0 0 - -

(Each list of cards is written in index order, ranks within suits, and a string that lists
them in another order reads the same; but the stock, which is written top first: its order
is the order of the refills.)

>>> from scopa import State
>>> s = State.from_string("scopone_scientifico 7dKc/As2b/3c4d/5s6b Qd - Ad/2d 0/1 0 1 3")
>>> s.to_string()
'scopone_scientifico 7dKc/As2b/4d3c/5s6b Qd - Ad/2d 0/1 0 1 3'
>>> State.from_json(s.to_json()) == s == State.from_string(s.to_string())
True
>>> State.from_string("scopa;capture_rule=fewest;target=16 7d/Kc 3c4s - -/- 0/0 0 - -").to_string()
'scopa;target=16;capture_rule=fewest 7d/Kc 3c4s - -/- 0/0 0 - -'
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping
from typing import Any

from scopa import jsonio
from scopa.card import _NAMES, CardSet, _mask_names, _mask_text, cards_mask
from scopa.errors import PositionError, ScopaError, count, listed, plain_int, show, unknown_keys
from scopa.move import Move
from scopa.rules import _NUMBER, Rules
from scopa.state import State, require_state
from scopa.view import PlayerView, stand_ins

__all__ = [
    "FORMAT_VERSION",
    "state_from_json",
    "state_from_string",
    "state_to_dict",
    "state_to_json",
    "state_to_string",
    "view_from_json",
    "view_to_dict",
]

FORMAT_VERSION = 2
"""Version of the JSON position format: 2 adds the optional ``history`` (version 1
positions, without it, are read as before)."""

_FIELDS = ("rules", "hands", "table", "stock", "captured", "scope", "turn", "last_capture", "dealer")
_FIELDS_V2 = (*_FIELDS, "history")
_REQUIRED = ("rules", "hands", "turn")
#: Longest position string accepted (a full position with every option set is under 400).
MAX_STRING = 2000
#: A negative number in a position string (refused by its range): a minus, then the digits of a
#: number (``_NUMBER``, the rules' own).
_NEGATIVE = re.compile(r"-[1-9][0-9]{0,5}")  # (not "-0": one number, one spelling)


def state_to_dict(state: State) -> dict[str, Any]:
    """The JSON position format of ``state`` as a dict: every field, and ``history`` when the
    state has one (``{"start": position string, "plays": [move, ...]}``).

    >>> d = state_to_dict(State.from_string("scopa 7d/Kc 3c4s - -/- 0/0 0 - -").play("7dx3c4s"))
    >>> d["captured"], d["scope"], d["history"]
    ([['7d', '3c', '4s'], []], [1, 0], {'start': 'scopa 7d/Kc 3c4s - -/- 0/0 0 - -', 'plays': ['7dx3c4s']})
    """
    require_state(state)
    d = _position_dict(state)
    if state.history and state.origin is not state:
        d["history"] = {"start": state.origin.to_string(), "plays": [str(m) for _, m in state.history]}
    return d


def _position_dict(state: State) -> dict[str, Any]:
    """:func:`state_to_dict` without the history (the position string has none)."""
    hands, table, stock, piles, scope, turn, last = state.masks
    d: dict[str, Any] = {
        "rules": state.rules.to_json(),
        "hands": [_mask_names(h) for h in hands],
        "table": _mask_names(table),
        "stock": [_NAMES[c] for c in stock],
        "captured": [_mask_names(piles[0]), _mask_names(piles[1])],
        "scope": list(scope),
        "turn": turn,
        "last_capture": None if last < 0 else last,
        "dealer": state.dealer,
    }
    return d


def state_to_json(state: State) -> str:
    """The JSON position format of ``state`` as compact text.

    >>> state_to_json(State.from_string("scopa 7d/Kc 3c4s - -/- 0/0 0 - -"))
    '{"rules":"scopa","hands":[["7d"],["Kc"]],"table":["3c","4s"],"stock":[],"captured":[[],[]],...}'
    """
    return json.dumps(state_to_dict(state), ensure_ascii=False, separators=(",", ":"))


def state_from_json(obj: str | bytes | Mapping[str, Any]) -> State:
    """Parse a JSON position: text, bytes, or an already-decoded mapping.

    >>> state_from_json({"rules": "scopa", "hands": [["7d"], ["Kc"]], "table": ["3c", "4s"], "turn": 0})
    State.from_string('scopa 7d/Kc 3c4s - -/- 0/0 0 - -')
    >>> state_from_json('{"rules": "scopa", "hands": [["7d"], ["7d"]], "turn": 0}')
    Traceback (most recent call last):
    ...
    scopa.errors.CardError: duplicate card '7d': in seat 0's hand and in seat 1's hand
    """
    obj = jsonio.decoded(obj, "position", PositionError, 1 << 20)
    if not isinstance(obj, Mapping):
        raise PositionError(f"a JSON position must be an object, got {show(obj)}")
    unknown = unknown_keys(obj, _FIELDS_V2)
    if unknown:
        raise PositionError(
            f"unknown {listed('field', unknown)} in position: expected {', '.join(_FIELDS_V2)}"
        )
    missing = [f for f in _REQUIRED if f not in obj]
    if missing:
        raise PositionError(f"position lacks required {listed('field', [repr(f) for f in missing])}")
    rules = Rules.from_json(obj["rules"])
    for key in ("hands", "table", "stock", "captured", "scope"):
        if key in obj and not isinstance(obj[key], list):
            raise PositionError(f"field {show(key)} must be a list, got {show(obj[key])}")
    for key in ("hands", "captured"):
        for item in obj.get(key, ()):
            if not isinstance(item, list):
                raise PositionError(
                    f"field {show(key)} must be a list of card lists, got {show(item)} inside"
                )
    state = State.from_cards(
        rules,
        obj["hands"],
        turn=obj["turn"],
        table=obj.get("table", ()),
        stock=obj.get("stock", ()),
        captured=obj.get("captured", ((), ())),
        scope=obj.get("scope", (0, 0)),
        last_capture=obj.get("last_capture"),
        dealer=obj.get("dealer"),
    )
    if "history" in obj:
        return _with_history(state, obj["history"])
    return state


def _with_history(state: State, history: Any) -> State:
    """``state`` with its history: the ``start`` position replayed through ``plays``, which
    must lead to ``state`` exactly."""
    if not isinstance(history, Mapping) or set(history) - {"start", "plays"} or "start" not in history:
        raise PositionError(
            f"bad history {_short(history)}: expected {{'start': position, 'plays': [move, ...]}}"
        )
    plays = history.get("plays", [])
    if not isinstance(plays, list) or len(plays) > 40 or not all(isinstance(p, str) for p in plays):
        raise PositionError(f"bad history plays {_short(plays)}: expected a list of at most 40 moves")
    start = history["start"]
    if isinstance(start, str):
        s = state_from_string(start)
    elif isinstance(start, Mapping) and "history" not in start:
        s = state_from_json(start)
    else:
        raise PositionError(f"bad history start {_short(start)}: expected a position string or object")
    s, made, exc = s._replay(plays)
    if exc is not None:
        raise PositionError(f"bad history: play {made + 1} ({show(plays[made])}) cannot be made: {exc}")
    if s != state or s.rules != state.rules:
        raise PositionError(
            f"bad history: its plays lead to {show(s.to_string())}, "
            f"not to this position {show(state.to_string())}"
        )
    return s


def _short(x: Any) -> str:
    from scopa_core._checks import short

    return short(x)


# ---------------------------------------------------------------------- position string


def _cards(mask: int) -> str:
    """A position string's field of cards: their names joined, ``-`` for none."""
    return _mask_text(mask) or "-"


def state_to_string(state: State) -> str:
    """The compact one-line position string of ``state``.

    >>> state_to_string(State.deal("scopa", seed=1))     # the stock top first
    'scopa Qc7sQs/3d2c7c 3c5sKs6b QbAb6d3s5dJc4cAs5b7d6cAcKd3bJb2b2dAd4bJsJdQd4dKb4s2s7b5cKc6s -/- 0/0 1 - 0'
    """
    require_state(state)
    hands, table, stock, piles, scope, turn, last = state.masks
    dealer = state.dealer
    return " ".join(
        [
            str(state.rules),
            "/".join([_cards(h) for h in hands]),
            _cards(table),
            "".join([_NAMES[c] for c in stock]) or "-",  # (the stock in its order, top first)
            f"{_cards(piles[0])}/{_cards(piles[1])}",
            f"{scope[0]}/{scope[1]}",
            str(turn),
            "-" if last < 0 else str(last),
            "-" if dealer is None else str(dealer),
        ]
    )


def _split_cards(text: str, what: str) -> list[str]:
    if text == "-":
        return []
    if not text:
        raise PositionError(f"bad {what} {show(text)}: expected cards like 7dKc, or - for none")
    if len(text) % 2:
        raise PositionError(f"bad {what} {show(text)}: cards are two characters each, like 7dKc")
    return [text[i : i + 2] for i in range(0, len(text), 2)]


def _int_field(text: str, what: str, nullable: bool) -> int | None:
    if nullable and text == "-":
        return None
    if not _NUMBER.fullmatch(text):
        if _NEGATIVE.fullmatch(text):
            return int(text)  # (a number: the position's checks say the range it must be in)
        if text.isascii() and text.isdigit():
            raise PositionError(f"bad {what} {show(text)}: expected a number of at most 6 digits")
        raise PositionError(f"bad {what} {show(text)}: expected a number{' or -' if nullable else ''}")
    if text[0] == "0" and len(text) > 1:  # (one number, one spelling: as "-0" is refused)
        raise PositionError(f"bad {what} {show(text)}: expected a number without leading zeros, {int(text)}")
    return int(text)


def state_from_string(text: str) -> State:
    """Parse a compact position string (see the module docstring).

    >>> s = state_from_string("scopa 7d/Kc 3c4s - -/- 0/0 0 - -")
    >>> s.hands, str(s.table), s.turn
    ((CardSet.parse('7d'), CardSet.parse('Kc')), '3c 4s', 0)
    >>> state_from_string("scopa 7d/Kc 3c4s - -/- 0/0 2 - -")
    Traceback (most recent call last):
    ...
    scopa.errors.PositionError: bad turn 2: expected a seat in 0..1 (in position string 'scopa 7d/Kc ...')
    """
    if not isinstance(text, str):
        raise PositionError(f"a position string must be a str, got {show(text)}")
    if len(text) > MAX_STRING:
        raise PositionError(f"position string of {len(text)} characters: at most {MAX_STRING} accepted")
    fields = text.split()
    if len(fields) != len(_FIELDS):
        raise PositionError(
            f"bad position string {show(text)}: expected {len(_FIELDS)} space-separated fields "
            f"({' '.join(_FIELDS)}), got {len(fields)}"
        )
    rules_t, hands_t, table_t, stock_t, cap_t, scope_t, turn_t, last_t, dealer_t = fields
    try:
        rules = Rules.parse(rules_t)
        captured = cap_t.split("/")
        scope = scope_t.split("/")
        if len(captured) != 2 or len(scope) != 2:
            raise PositionError(
                f"bad captured {show(cap_t)} or scope {show(scope_t)}: expected two fields joined by /"
            )
        return State.from_cards(
            rules,
            [_split_cards(h, f"seat {i}'s hand") for i, h in enumerate(hands_t.split("/"))],
            turn=_int_field(turn_t, "turn", False),  # type: ignore[arg-type]
            table=_split_cards(table_t, "table"),
            stock=_split_cards(stock_t, "stock"),
            captured=[_split_cards(p, f"team {i}'s pile") for i, p in enumerate(captured)],
            scope=[_int_field(x, "scope", False) for x in scope],  # type: ignore[misc]
            last_capture=_int_field(last_t, "last_capture", True),
            dealer=_int_field(dealer_t, "dealer", True),
        )
    except ScopaError as exc:
        if isinstance(exc, PositionError) and repr(text) in str(exc):
            raise
        raise type(exc)(f"{exc} (in position string {show(text)})") from None


# ---------------------------------------------------------------------- player views


def _history_from_json(
    obj: object, players: int, table: int, piles: tuple[int, int], turn: int
) -> tuple[tuple[int, Move], ...]:
    """The optional ``history`` of a view: ``[[seat, "move"], ...]``, the hand's plays in order.
    Every played card must now be on the table or in a pile, every captured card (and the card
    that took it) in the capturer's team's pile; the seats play in turn, the last before the
    seat to move (an API audit: a history of one seat's plays, or of a capture in the other
    team's pile, was taken)."""
    both = piles[0] | piles[1]
    if not isinstance(obj, list) or len(obj) > 40:
        raise PositionError(f"bad history {show(obj)}: expected a list of at most 40 [seat, move] pairs")
    out: list[tuple[int, Move]] = []
    played = 0
    for item in obj:
        if (
            not isinstance(item, list)
            or len(item) != 2
            or not isinstance(item[0], int)
            or isinstance(item[0], bool)
            or not 0 <= item[0] < players
            or not isinstance(item[1], str)
        ):
            raise PositionError(f"bad history entry {show(item)}: expected [seat in 0..{players - 1}, move]")
        try:
            move = Move.parse(item[1])
        except ScopaError as exc:  # (said "bad move 'zz'" alone: which entry, of what)
            raise type(exc)(f"bad history entry {show(item)}: {exc}") from None
        if not move.card.mask & (table | both) & ~played or move.capture_mask & ~both:
            raise PositionError(
                f"bad history entry {show(item)}: the played card must now be on the table or in a pile, "
                "played once, and the captured cards in a pile"
            )
        if move.capture_mask and (move.capture_mask | move.card.mask) & ~piles[item[0] % 2]:
            raise PositionError(
                f"bad history entry {show(item)}: seat {item[0]} captured for team {item[0] % 2}, "
                f"but its cards are not all in that team's pile"
            )
        if out and item[0] != (out[-1][0] + 1) % players:
            raise PositionError(
                f"bad history entry {show(item)}: seat {(out[-1][0] + 1) % players} plays after seat "
                f"{out[-1][0]}, expected the seats in turn"
            )
        played |= move.card.mask
        out.append((item[0], move))
    if out and (out[-1][0] + 1) % players != turn:
        raise PositionError(
            f"bad history: its last play is seat {out[-1][0]}'s, so seat {(out[-1][0] + 1) % players} "
            f"is to move, not seat {turn}"
        )
    return tuple(out)


def view_to_dict(view: PlayerView) -> dict[str, Any]:
    """The JSON view format of ``view`` (see :func:`view_from_json`): nothing in it that the
    seat cannot see.

    >>> s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    >>> view_to_dict(s.view(1))["hands"]
    [2, ['2c', 'As']]
    >>> view_to_dict(s)
    Traceback (most recent call last):
    ...
    scopa.errors.PositionError: bad view State.from_string(...): expected a scopa.PlayerView (a seat's: ...)
    """
    if not isinstance(view, PlayerView):
        hint = " (a seat's: state.view(seat))" if isinstance(view, State) else ""
        raise PositionError(f"bad view {show(view)}: expected a scopa.PlayerView{hint}")
    return {
        "rules": view.rules.to_json(),
        "seat": view.seat,
        "hands": [
            _mask_names(view.hand.mask) if i == view.seat else k for i, k in enumerate(view.hand_sizes)
        ],
        "table": _mask_names(view.table.mask),
        "stock": view.stock_size,
        "captured": [_mask_names(view.captured[0].mask), _mask_names(view.captured[1].mask)],
        "scope": list(view.scope),
        "turn": view.turn,
        "last_capture": view.last_capture,
        "dealer": view.dealer,
        "history": [[seat, str(m)] for seat, m in view.history],
        # (a composed position's cards out of play, which the seat knows: only when there are some)
        **({"out_of_play": _mask_names(view.out_of_play.mask)} if view.out_of_play else {}),
    }


def view_from_json(obj: object) -> PlayerView:
    """A player view: the JSON position format with every hand but the viewer's given as its
    number of cards, and the stock as its length; ``seat``, the viewer (default: the seat to
    move); optionally ``history``, the plays of the hand so far as ``[[seat, "move"], ...]``
    (PIMC reads the opponent's hand from them), and ``out_of_play``, the cards of a composed
    position known to be out of the game (without it every unaccounted card may be hidden).

    >>> v = view_from_json({"rules": "scopa", "hands": [["7d", "Kc"], 1], "table": ["3c", "As"],
    ...                     "stock": 0, "turn": 0, "history": [[1, "As"]]})
    >>> v.hand_sizes, str(v.hand), [(seat, str(m)) for seat, m in v.history]
    ((2, 1), '7d Kc', [(1, 'As')])
    """
    obj = jsonio.decoded(obj, "view", PositionError, 1 << 20)
    if not isinstance(obj, Mapping):
        raise PositionError(f"a view must be a JSON object, got {show(obj)}")
    d = dict(obj)
    unknown = unknown_keys(d, (*_FIELDS, "history", "seat", "out_of_play"))
    if unknown:
        raise PositionError(
            f"unknown {listed('field', unknown)} in view: expected {', '.join(_FIELDS)}, seat, history,"
            " out_of_play"
        )
    missing = [f for f in _REQUIRED if f not in d]  # (as a position's: not "bad turn None")
    if missing:
        raise PositionError(f"view lacks required {listed('field', [repr(f) for f in missing])}")
    rules = Rules.from_json(d.get("rules"))
    # (NumPy's integers read as ints, as a position's are: an API audit found a view's refused)
    turn = plain_int(d.get("turn"))
    hands = d.get("hands")
    n = rules.players
    if not isinstance(turn, int) or isinstance(turn, bool) or not 0 <= turn < n:
        raise PositionError(f"bad turn {_short(turn)}: expected a seat in 0..{n - 1}")
    me = plain_int(d.get("seat", turn))
    if not isinstance(me, int) or isinstance(me, bool) or not 0 <= me < n:
        raise PositionError(f"bad seat {_short(me)}: expected the viewer's seat in 0..{n - 1}")
    if not isinstance(hands, list) or len(hands) != n:
        raise PositionError(f"bad hands {_short(hands)}: expected {n} entries, one per seat")
    hands = [h if seat == me else plain_int(h) for seat, h in enumerate(hands)]
    for seat, h in enumerate(hands):
        if seat == me and not isinstance(h, list):
            what = "the seat to move" if me == turn else "the viewer"
            raise PositionError(f"seat {seat}'s hand ({what}) must be a list of cards, got {_short(h)}")
        if seat != me and (not isinstance(h, int) or isinstance(h, bool) or not 0 <= h <= 10):
            whose = (
                f" (the viewer is seat {me}: only its own hand is a list of cards)"
                if isinstance(h, list)
                else ""
            )
            raise PositionError(
                f"seat {seat}'s hand must be a number of cards in 0..10, got {_short(h)}{whose}"
            )
    stock = plain_int(d.get("stock", 0))
    if not isinstance(stock, int) or isinstance(stock, bool) or not 0 <= stock <= 40:
        raise PositionError(f"'stock' in a view must be its number of cards in 0..40, got {show(stock)}")
    # Validate everything else through a full position with stand-in hidden cards.
    own = hands[me]
    known = cards_mask(own, f"seat {me}'s hand")
    table = d.get("table") or []
    if not isinstance(table, list):
        raise PositionError(f"field 'table' must be a list, got {show(table)}")
    known |= cards_mask(table, "the table")
    captured = d.get("captured") or []
    if not isinstance(captured, list):
        raise PositionError(f"field 'captured' must be a list, got {show(captured)}")
    for pile in captured:
        known |= cards_mask(pile if isinstance(pile, list) else [], "a pile")
    out = d.get("out_of_play", [])
    if not isinstance(out, list):
        raise PositionError(f"field 'out_of_play' must be a list of cards, got {show(out)}")
    out_mask = cards_mask(out, "out_of_play")
    if out_mask & known:
        both = _mask_names(out_mask & known)
        raise PositionError(
            f"out_of_play {listed('card', both, be=True)} in the view too:"
            " expected cards in no hand, pile or table"
        )
    free = [c for c in range(40) if not (known | out_mask) >> c & 1]
    need = sum(h for seat, h in enumerate(hands) if seat != me) + stock
    if need > len(free):
        raise PositionError(
            f"the view hides {count(need, 'card')} but only {count(len(free), 'card')}"
            f" {'is' if len(free) == 1 else 'are'} unaccounted for"
        )
    sizes = [len(h) if seat == me else h for seat, h in enumerate(hands)]
    masks, stand_in_stock = stand_ins(sizes, me, 0, free, stock)
    full = dict(d)
    full["hands"] = [h if seat == me else _mask_names(masks[seat]) for seat, h in enumerate(hands)]
    full["stock"] = [_NAMES[c] for c in stand_in_stock]
    full.pop("history", None)
    full.pop("seat", None)
    full.pop("out_of_play", None)
    v = State.from_json(full).view(me)
    piles = (v.captured[0].mask, v.captured[1].mask)
    history = _history_from_json(d.get("history", []), n, v.table.mask, piles, turn)
    # every unaccounted card may be hidden, but those the view says are out of play
    return dataclasses.replace(v, out_of_play=CardSet._from_mask(out_mask), history=history)
