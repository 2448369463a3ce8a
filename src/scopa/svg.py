"""Pictures of the game as SVG (like python-chess's ``chess.svg``): cards and positions.

Card faces are drawn by code, with no image files: the rank and a suit glyph in each
corner and a large glyph in the middle, in four colours (coins gold, cups red, swords blue,
clubs green), for three decks: ``french`` (♦ ♥ ♠ ♣), ``italian`` (denari, coppe, spade,
bastoni) and ``spanish`` (oros, copas, espadas, bastos). The court cards (J Q K, counting 8 9
10) carry their names: Fante, Cavallo, Re in the Italian deck; Sota, Caballo, Rey in the
Spanish one.

Every face-up card is one ``<g class="card" data-card="7d">`` element. A face-down card is
``<g class="card back">`` and holds nothing of the card it hides: a view's picture has no
name, id or comment of a card its seat cannot see.

>>> import scopa
>>> svg = card(scopa.Card.parse("7d"))
>>> svg.startswith("<svg") and 'data-card="7d"' in svg
True
>>> s = scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
>>> v = position(s.view(0))
>>> 'data-card="7d"' in v and "2c" not in v and "As" not in v
True
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any
from xml.sax.saxutils import escape as _escape
from xml.sax.saxutils import quoteattr as _quoteattr

from scopa.card import Card
from scopa.errors import OptionError, count, show
from scopa.state import State
from scopa.view import PlayerView

__all__ = ["COLOURS", "DECKS", "MAX_SIZE", "MIN_SIZE", "card", "card_back", "position"]

DECKS = ("french", "italian", "spanish")
"""The decks cards can be drawn in."""
COLOURS = {"d": "#b8860b", "c": "#c62828", "s": "#1565c0", "b": "#2e7d32"}
"""The four colours, by suit letter: coins gold, cups red, swords blue, clubs green."""
_SUIT_NAMES = {
    "french": {"d": "diamonds", "c": "hearts", "s": "spades", "b": "clubs"},
    "italian": {"d": "denari", "c": "coppe", "s": "spade", "b": "bastoni"},
    "spanish": {"d": "oros", "c": "copas", "s": "espadas", "b": "bastos"},
}
_COURTS = {
    "french": {"J": "Jack", "Q": "Queen", "K": "King"},
    "italian": {"J": "Fante", "Q": "Cavallo", "K": "Re"},
    "spanish": {"J": "Sota", "Q": "Caballo", "K": "Rey"},
}
_W, _H = 60.0, 90.0  # a card's own units (2:3)

# Suit glyphs in a 10 x 10 box, by deck and suit letter: SVG fragments (fill set by the caller).
_GLYPHS: dict[str, dict[str, str]] = {
    "french": {
        "d": '<path d="M5 0 L9 5 L5 10 L1 5 Z"/>',
        "c": '<path d="M5 9.6 C1 6.6 0 4.2 0 2.8 C0 1 1.4 0 2.8 0 C3.8 0 4.6 .6 5 1.6 C5.4 .6 6.2 0 7.2 0 '
        'C8.6 0 10 1 10 2.8 C10 4.2 9 6.6 5 9.6 Z"/>',
        "s": '<path d="M5 0 C9 3 10 5.3 10 6.6 C10 8.3 8.7 9.1 7.5 9.1 C6.5 9.1 5.8 8.6 5.4 7.9 L6.1 10 '
        'L3.9 10 L4.6 7.9 C4.2 8.6 3.5 9.1 2.5 9.1 C1.3 9.1 0 8.3 0 6.6 C0 5.3 1 3 5 0 Z"/>',
        "b": '<circle cx="5" cy="2.6" r="2.4"/><circle cx="2.5" cy="6" r="2.4"/>'
        '<circle cx="7.5" cy="6" r="2.4"/>'
        '<path d="M4.5 5.5 L3.6 10 L6.4 10 L5.5 5.5 Z"/>',
    },
    "italian": {
        # a coin: a rosette inside a rim
        "d": '<circle cx="5" cy="5" r="4.8"/><circle cx="5" cy="5" r="3.4" fill="#fff"/>'
        '<circle cx="5" cy="5" r="2.2"/><circle cx="5" cy="5" r=".9" fill="#fff"/>',
        # a goblet
        "c": '<path d="M1 .8 L9 .8 C9 4.4 7.2 5.9 5.7 6.2 L5.7 8 L7.6 9 L7.6 10 L2.4 10 L2.4 9 L4.3 8 '
        'L4.3 6.2 C2.8 5.9 1 4.4 1 .8 Z"/>',
        # a curved sword
        "s": '<path d="M6.6 0 C8.4 2.4 8 5 5.9 7.2 L5.1 6.6 C6.8 4.7 7 2.6 6.6 0 Z"/>'
        '<rect x="2.6" y="6.7" width="5" height="1" transform="rotate(-35 5 7.2)"/>'
        '<path d="M4.9 7.6 L3 9.9 L2.3 9.4 L4.2 7.1 Z"/>',
        # a straight baton with bands
        "b": '<path d="M4.1 10 L4.4 .6 C4.5 .1 5.5 .1 5.6 .6 L5.9 10 Z"/>'
        '<rect x="3.6" y="2.4" width="2.8" height=".8"/><rect x="3.6" y="6.4" width="2.8" height=".8"/>',
    },
    "spanish": {
        # a plain coin with a ring
        "d": '<circle cx="5" cy="5" r="4.8"/>'
        '<circle cx="5" cy="5" r="3.3" fill="none" stroke="#fff" stroke-width=".8"/>',
        # a cup with a wide foot
        "c": '<path d="M1.4 .8 L8.6 .8 C8.6 3.8 7 5.3 5.6 5.6 L5.6 7.8 C7.2 8.3 8.6 9 8.6 10 L1.4 10 '
        'C1.4 9 2.8 8.3 4.4 7.8 L4.4 5.6 C3 5.3 1.4 3.8 1.4 .8 Z"/>',
        # a straight sword
        "s": '<path d="M5 0 L5.7 1 L5.7 7 L4.3 7 L4.3 1 Z"/><rect x="2.4" y="7" width="5.2" height=".9"/>'
        '<rect x="4.4" y="7.9" width="1.2" height="1.5"/><circle cx="5" cy="9.6" r=".5"/>',
        # a knobbly cudgel
        "b": '<path d="M3.8 10 L4 1.6 C4 .2 6.4 .2 6.4 1.8 L6 10 Z"/><circle cx="6.3" cy="3.4" r=".7"/>'
        '<circle cx="3.9" cy="5.2" r=".7"/><circle cx="6.1" cy="7" r=".7"/>',
    },
}


#: The widths (pixels) a card may be drawn at.
MIN_SIZE = 8.0
"""The smallest card width in pixels :func:`position`, :func:`card` and :func:`card_back` draw."""
MAX_SIZE = 2000.0
"""The largest card width in pixels they draw."""


def _check_size(size: object) -> float:
    # (any real number: NumPy's too, a width computed with an array)
    number = isinstance(size, numbers.Real) and not isinstance(size, bool)
    if not (number and MIN_SIZE <= size <= MAX_SIZE):  # type: ignore[operator]
        raise OptionError(
            f"bad size {show(size)}: expected a card's width in pixels, {MIN_SIZE:g} to {MAX_SIZE:g}"
        )
    return float(size)  # type: ignore[arg-type]


def _check_deck(deck: str) -> str:
    if deck not in DECKS:
        raise OptionError(f"unknown deck {show(deck)}: expected one of {', '.join(DECKS)}")
    return deck


def _glyph(deck: str, suit: str, x: float, y: float, size: float) -> str:
    k = size / 10.0
    return (
        f'<g transform="translate({x:.2f} {y:.2f}) scale({k:.3f})" fill="{COLOURS[suit]}">'
        f"{_GLYPHS[deck][suit]}</g>"
    )


def _face(c: Card, deck: str) -> str:
    """The card's drawing in its own units (0 0 60 90), without the outer element."""
    colour = COLOURS[c.suit]
    rank = c.rank
    parts = [
        f'<rect x=".5" y=".5" width="{_W - 1:g}" height="{_H - 1:g}" rx="5" fill="#fff" stroke="#9e9e9e"/>',
        f'<text x="5" y="16" font-family="Helvetica,Arial,sans-serif" font-size="15" font-weight="bold" '
        f'fill="{colour}">{rank}</text>',
        _glyph(deck, c.suit, 4.5, 19.5, 9),
        f'<g transform="rotate(180 {_W / 2:g} {_H / 2:g})">'
        f'<text x="5" y="16" font-family="Helvetica,Arial,sans-serif" font-size="15" font-weight="bold" '
        f'fill="{colour}">{rank}</text>{_glyph(deck, c.suit, 4.5, 19.5, 9)}</g>',
    ]
    if rank in "JQK":
        parts.append(_glyph(deck, c.suit, 17, 24, 26))
        parts.append(
            f'<text x="30" y="66" text-anchor="middle" font-family="Helvetica,Arial,sans-serif" '
            f'font-size="8.5" fill="{colour}">{_COURTS[deck][rank]}</text>'
        )
        parts.append(
            f'<rect x="14" y="20" width="32" height="50" rx="3" fill="none" '
            f'stroke="{colour}" stroke-width=".8"/>'
        )
    else:
        parts.append(_glyph(deck, c.suit, 16, 31, 28))
    return "".join(parts)


#: The ace and the "of" of a card's name, in its deck's language (the browser app's names too)
_ACES = {"french": "ace", "italian": "asso", "spanish": "as"}
_OF = {"french": "of", "italian": "di", "spanish": "de"}


def _label(c: Card, deck: str) -> str:
    # (court cards in lower case, as the ace and the app's names: "Queen of hearts" was alone; a
    # name all in its deck's language, "fante di coppe", as the app's: "fante of coppe" was mixed)
    value = _ACES[deck] if c.rank == "A" else _COURTS[deck].get(c.rank, c.rank).lower()
    return f"{value} {_OF[deck]} {_SUIT_NAMES[deck][c.suit]}"


def _card_g(c: Card, deck: str, x: float, y: float, scale: float, extra: str = "") -> str:
    return (
        f'<g class="card" data-card="{c}" transform="translate({x:.2f} {y:.2f}) scale({scale:.4f})"{extra}>'
        f"<title>{_escape(_label(c, deck))} ({c})</title>{_face(c, deck)}</g>"
    )


def _back_g(x: float, y: float, scale: float) -> str:
    return (
        f'<g class="card back" transform="translate({x:.2f} {y:.2f}) scale({scale:.4f})">'
        f'<rect x=".5" y=".5" width="{_W - 1:g}" height="{_H - 1:g}" rx="5" fill="#283593" stroke="#1a237e"/>'
        f'<rect x="5" y="5" width="{_W - 10:g}" height="{_H - 10:g}" rx="3" fill="none" stroke="#9fa8da" '
        f'stroke-width="1.2"/><path d="M10 10 L50 80 M50 10 L10 80" stroke="#5c6bc0" stroke-width="1.5"/></g>'
    )


def card(c: Card | str, /, *, deck: str = "french", size: float = 60) -> str:
    """One card (a :class:`~scopa.Card` or its text) as an SVG document, ``size`` pixels wide.

    >>> card("Kb", deck="italian").count('data-card="Kb"'), "Re" in card("Kb", deck="italian")
    (1, True)
    """
    cd = Card.parse(c)
    _check_deck(deck)
    size = _check_size(size)
    k = size / _W
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size:g}" height="{_H * k:g}" '
        f'viewBox="0 0 {_W:g} {_H:g}" role="img" aria-label={_quoteattr(_label(cd, deck))}>'
        f"{_card_g(cd, deck, 0, 0, 1)}</svg>"
    )


def card_back(*, size: float = 60) -> str:
    """The back of a card as an SVG document (the same for every card).

    >>> back = card_back(size=40)
    >>> back.startswith('<svg') and 'width="40"' in back, 'class="card back"' in back
    (True, True)
    """
    size = _check_size(size)
    k = size / _W
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size:g}" height="{_H * k:g}" '
        f'viewBox="0 0 {_W:g} {_H:g}" role="img" aria-label="a card face down">{_back_g(0, 0, 1)}</svg>'
    )


def _text_width(text: str, font: float) -> float:
    """About how wide ``text`` is drawn at ``font`` pixels in Helvetica or Arial: 0.6 em a
    letter (their digits and lower case are narrower, M and W wider)."""
    return 0.6 * font * len(text)


def _row(
    cards: Iterable[Card | None], x: float, y: float, scale: float, gap: float, deck: str, hl: Card | None
) -> str:
    out = []
    for i, c in enumerate(cards):
        cx = x + i * gap
        if c is None:
            out.append(_back_g(cx, y, scale))
        else:
            extra = ' data-last="true"' if c is hl else ""
            out.append(_card_g(c, deck, cx, y, scale, extra))
            if c is hl:
                # (in the card's units, as the gaps between cards: the frame stays clear of
                # its neighbours at every size)
                d = 2.4 * scale
                out.append(
                    f'<rect class="last-play" x="{cx - d:.2f}" y="{y - d:.2f}" '
                    f'width="{_W * scale + 2 * d:.2f}" height="{_H * scale + 2 * d:.2f}" '
                    f'rx="{6 * scale:.2f}" fill="none" stroke="#ff6f00" '
                    f'stroke-width="{3 * scale:.2f}"/>'
                )
    return "".join(out)


def position(
    state_or_view: State | PlayerView,
    *,
    seat: int | None = None,
    deck: str = "french",
    size: float = 48,
) -> str:
    """A picture of a position: the table, each hand (face up for ``seat`` and, given a
    State, for every seat; face down otherwise), the stock's size, each team's pile as a
    stack with its count and scope marks, whose turn it is, and the last play highlighted
    (from the history). With a :class:`PlayerView` only what its seat sees is drawn; with a
    State and ``seat``, the other hands are face down as in that seat's view (a view's own
    seat is the only one it takes). The seat drawn from is at the bottom, the next seats in
    order of play counter-clockwise; a finished hand says "hand over" instead of whose turn
    it is. The picture is as wide for every position (a row of ten cards and a pile beside it);
    the table is drawn in rows of up to ten cards, as many rows as it needs (fewer cards a row
    beside four players' side hands), and the picture grows taller with them: no card, pile or
    word lies over another or outside the picture, at any size, and its words are sized with its
    cards (the picture at twice the size is the same picture twice as large). The picture's ``aria-label``
    names every card it shows face up and the last play, and gives the counts of the rest.
    ``size`` is a card's width in pixels (:data:`MIN_SIZE` to :data:`MAX_SIZE`, 8 to 2000). A
    view that cannot occur in play (one built by hand) is a :class:`~scopa.errors.PositionError`.

    >>> s = State.deal("scopa", seed=1)          # seat 1 holds 3d 2c 7c
    >>> svg = position(s, seat=0, size=30)
    >>> svg.count('class="card"'), 'data-card="3d"' in svg       # seat 0's hand and the table
    (7, False)
    >>> position(s, size=3)
    Traceback (most recent call last):
    ...
    scopa.errors.OptionError: bad size 3: expected a card's width in pixels, 8 to 2000
    """
    _check_deck(deck)
    size = _check_size(size)
    if isinstance(state_or_view, State):
        src: Any = state_or_view.view(seat) if seat is not None else state_or_view
    elif isinstance(state_or_view, PlayerView):
        from scopa.players.base import check_view  # (a view built by hand: checked as players do)

        check_view(state_or_view)
        if seat is not None and seat != state_or_view.seat:
            raise OptionError(
                f"bad seat {show(seat)}: the view is seat {state_or_view.seat}'s (draw it with no seat)"
            )
        src = state_or_view
    else:
        raise OptionError(f"cannot draw {show(state_or_view)}: expected a State or a PlayerView")
    is_view = isinstance(src, PlayerView)
    n = src.rules.players
    me = src.seat if is_view else (seat if seat is not None else 0)
    scale = size / _W
    cw, ch = _W * scale, _H * scale
    gap = cw * 1.08  # from a card to the next in a row
    # (the words, margins and marks scale with the cards, as the whole picture does: a teacher's
    # audit found them shrinking below the default size but not growing above it, 13 px words
    # under cards 200 px wide)
    fs = size / 48
    pad = 10 * fs
    width = 15.12 * cw + 24 * fs  # a row of ten cards, and a pile in each corner beside it
    font = 'font-family="Helvetica,Arial,sans-serif" fill="#fff"'
    last = src.history[-1] if src.history else None
    hl = last[1].card if last is not None and not last[1].is_capture else None
    over = _is_over(src, is_view)
    turn = None if over else src.turn  # (nobody is to move once the hand is over)

    # The layout, in three bands. The top one: the seat across the table, the other team's
    # pile in the corner on its left. The middle one: the table in rows (as many as it needs:
    # the picture grows taller) with the stock on its right, and with four players the seats
    # on the left and on the right, their cards fanned. The bottom one: this seat, its team's
    # pile in the corner on its right. Nothing lies over anything else (tests/test_svg.py
    # measures it); the words are sized by _text_width.
    places = {2: ["bottom", "top"], 4: ["bottom", "right", "top", "left"]}[n]
    seats: dict[str, tuple[int, list[Card | None], str]] = {}
    for k in range(n):  # this seat at the bottom, then in order of play, counter-clockwise (RULES §2)
        s = (me + k) % n
        if is_view:
            cards: list[Card | None] = list(src.hand) if s == me else [None] * src.hand_sizes[s]
        else:
            cards = list(src.hands[s])
        seats[places[k]] = (s, cards, f"seat {s}" + (" to move" if s == turn else ""))
    step = 0.03 * cw  # from a pile's card to the next
    pile_h = 5 * step + 0.9 * cw + 38.5 * fs  # the stack, the scope marks, two lines of words
    corner = 2.2 * cw + 12 * fs  # a pile's corner, beside the hands at the top and the bottom
    words = {}
    for team in (0, 1):
        pile, sc = len(src.captured[team]), src.scope[team]
        words[team] = (f"team {team}", f"{count(pile, 'card')}, {count(sc, 'scopa')}")
        marks = 8.5 * fs + 9 * fs * (min(sc, 10) - 1) if sc else 0.0
        need = max(0.6 * cw + 5 * step, marks, *(_text_width(w, 10 * fs) for w in words[team]))
        corner = max(corner, need + 24 * fs)
    top_y = 44 * fs
    band = 0.5 * cw + 8 * fs  # between the bands
    mid_y = top_y + max(ch, pile_h) + band
    side = pad  # the room the side seats take, each side of the table
    if n == 4:
        side_w = [
            max(
                cw + gap * 0.25 * (len(seats[p][1]) - 1) if seats[p][1] else 0,
                _text_width(seats[p][2], 12 * fs),
            )
            for p in ("left", "right")
        ]
        side += max(side_w) + 0.3 * cw
    stock = src.stock_size if is_view else len(src.stock)
    stock_w = max(0.6 * cw, _text_width(f"stock {stock}", 10 * fs)) if stock else 0.0
    stock_room = 0.5 * cw + stock_w if stock else 0.0
    room = width - 2 * side - 2 * stock_room  # for the table, centred
    table = list(src.table)
    most = max(1, min(10, math.floor((room - cw) / gap + 1e-9) + 1))  # cards a row
    rows = max(1, math.ceil(len(table) / most))
    per = math.ceil(len(table) / rows)
    row_gap = 0.15 * cw
    table_h = rows * ch + (rows - 1) * row_gap
    mid_h = max(table_h, ch + 17 * fs if n == 4 else 0.0, 0.9 * cw + 16 * fs if stock else 0.0)
    bottom_y = mid_y + mid_h + band + 10 * fs
    height = bottom_y + max(ch, pile_h) + 12 * fs

    # (the game as people name it, "Scopone scientifico": screen readers spelt the identifier's
    # underscore; a teacher's audit)
    title = f"{src.rules.hand_rules().display_name}: " + ("hand over" if over else f"seat {src.turn} to move")
    title += f"; last play seat {last[0]} {last[1]}" if last is not None else ""
    title_fs = min(13 * fs, (width - 2 * pad) / _text_width(title, 1))  # (a long capture's move)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="scopa-position" width="{width:.0f}" '
        f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" role="img" '
        f"aria-label={_quoteattr(_aria(src, is_view, over, deck))}>",
        f'<rect width="{width:.0f}" height="{height:.0f}" fill="#1b5e20" rx="{10 * fs:.3g}"/>',
        f'<text x="{width / 2:.1f}" y="{18 * fs:.1f}" font-size="{title_fs:g}" text-anchor="middle" {font}>'
        f"{_escape(title)}</text>",
    ]
    for place in places:
        s, cards, label = seats[place]
        if place in ("left", "right"):
            g = gap * 0.25
            row_w = g * max(0, len(cards) - 1) + cw
            x0 = pad if place == "left" else width - pad - row_w
            y0 = mid_y + (mid_h - ch - 17 * fs) / 2 + 17 * fs
        else:
            g = gap if len(cards) < 2 else min(gap, (width - 2 * corner - cw) / (len(cards) - 1))
            row_w = g * max(0, len(cards) - 1) + cw
            x0 = width / 2 - row_w / 2
            y0 = bottom_y if place == "bottom" else top_y
        turn_attr = ' data-turn="true"' if s == turn else ""
        parts.append(f'<g class="seat" data-seat="{s}"{turn_attr}>')
        parts.append(_row(cards, x0, y0, scale, g, deck, None))
        weight = ' font-weight="bold" text-decoration="underline"' if s == turn else ""
        # (the right-hand seat's label ends at the picture's edge: begun at a short row it ran off)
        lx, anchor = (width - pad, ' text-anchor="end"') if place == "right" else (x0, "")
        parts.append(
            f'<text x="{lx:.1f}" y="{y0 - 5 * fs:.1f}" font-size="{12 * fs:g}"{anchor} {font}{weight}>'
            f"{_escape(label)}</text></g>"
        )
    # the table in the middle, in rows of (nearly) equal length
    tw = gap * max(0, per - 1) + cw
    tx = width / 2 - tw / 2
    ty = mid_y + (mid_h - table_h) / 2
    parts.append('<g class="table">')
    for i in range(rows):
        parts.append(_row(table[i * per : (i + 1) * per], tx, ty + i * (ch + row_gap), scale, gap, deck, hl))
    if not table:
        parts.append(
            f'<text x="{width / 2:.1f}" y="{ty + ch / 2:.1f}" font-size="{12 * fs:g}" '
            f'text-anchor="middle" {font}>'
        )
        parts.append("table empty</text>")
    parts.append("</g>")
    # the piles: this seat's team in the bottom right corner, the other in the top left
    for team in (0, 1):
        ours = team == (me & 1)
        pile, sc = len(src.captured[team]), src.scope[team]
        px = width - corner + 14 * fs if ours else 14 * fs
        py = (bottom_y if ours else top_y) + 5 * step
        parts.append(f'<g class="pile" data-team="{team}" data-count="{pile}" data-scope="{sc}">')
        for i in range(min(pile, 6)):
            parts.append(_back_g(px + i * step, py - i * step, scale * 0.6))
        for i in range(min(sc, 10)):
            parts.append(
                f'<circle cx="{px + (5 + 9 * i) * fs:.1f}" cy="{py + 0.9 * cw + 8 * fs:.1f}" '
                f'r="{3.5 * fs:.2f}" fill="#ffd54f"/>'
            )
        lx, anchor = (width - pad, "end") if ours else (px, "start")
        for j, line in enumerate(words[team]):
            parts.append(
                f'<text x="{lx:.1f}" y="{py + 0.9 * cw + (24 + 12 * j) * fs:.1f}" font-size="{10 * fs:g}" '
                f'text-anchor="{anchor}" {font}>{line}</text>'
            )
        parts.append("</g>")
    if stock:
        sx = width / 2 + tw / 2 + 0.5 * cw
        sy = mid_y + (mid_h - 0.9 * cw - 16 * fs) / 2 + 16 * fs
        parts.append(f'<g class="stock" data-count="{stock}">{_back_g(sx, sy, scale * 0.6)}')
        parts.append(
            f'<text x="{sx:.1f}" y="{sy - 6 * fs:.1f}" font-size="{10 * fs:g}" {font}>'
            f"stock {stock}</text></g>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _is_over(src: Any, is_view: bool) -> bool:
    if is_view:
        return bool(sum(src.hand_sizes) == 0 and src.stock_size == 0)
    return bool(src.is_over)


def _cards(cards: Iterable[Card], deck: str) -> str:
    return ", ".join(_label(c, deck) for c in cards) or "empty"


def _aria(src: Any, is_view: bool, over: bool, deck: str) -> str:
    """The picture's text for screen readers: everything it shows face up, by the deck's names
    ("7 of diamonds"), the last play, and the counts."""
    parts = [
        f"{src.rules.hand_rules().display_name}, " + ("hand over" if over else f"seat {src.turn} to move")
    ]
    if src.history:  # (the title says it, and the frame marks a card laid: both hidden by role="img")
        who, move = src.history[-1]
        took = sorted(move.captures, key=lambda c: c.index)
        parts.append(
            f"last play seat {who} {_label(move.card, deck)}"
            + (f" taking {_cards(took, deck)}" if took else " laid on the table")
        )
    parts.append(f"table {_cards(src.table, deck)}")
    for s in range(src.rules.players):
        # (a teacher's audit read "seat 0 holds empty": a hand of no cards holds none)
        if not is_view:
            parts.append(f"seat {s} holds {_cards(src.hands[s], deck) if src.hands[s] else 'no cards'}")
        elif s == src.seat:
            parts.append(f"your hand (seat {s}) {_cards(src.hand, deck)}")
        else:
            parts.append(f"seat {s} holds {count(src.hand_sizes[s], 'card')} face down")
    for team in (0, 1):
        pile, sc = count(len(src.captured[team]), "card"), count(src.scope[team], "scopa")
        parts.append(f"team {team} pile {pile}, {sc}")
    if src.rules.stock_size:  # (the games that deal every card at once have no stock to count)
        parts.append(f"stock {count(src.stock_size if is_view else len(src.stock), 'card')}")
    return "; ".join(parts)
