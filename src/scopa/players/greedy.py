"""The greedy club player: its own move, the next player's likely reply, and the answer to it.

A club player does not search; it looks at the table it leaves. :class:`GreedyPlayer` rates
each legal move in points:

1. what the move takes (:meth:`GreedyWeights.value` of the cards, a sweep);
2. minus what the next player, an opponent, is expected to take from the table it leaves: its
   hand is drawn uniformly from the cards the mover cannot see, and it plays its best capture
   (:func:`reply_outcomes`, exact hypergeometric odds, no sampling);
3. plus what the answer to that reply is expected to take: in 2-player games the mover's own
   best capture with the cards it keeps; in 4-player games the partner's best capture, its hand
   drawn like the opponent's (the partner does not see the mover's hand).

The rules of the Scopone manuals (Chitarrella's and Saracino's) come out of these three terms
or are added to them:

- *do not give a sweep*, *do not lay down what the opponent can take*, and the *dead-rank
  count* (a rank whose other cards are all seen cannot be taken by its equal): term 2 counts
  exactly which unseen cards could take the table left, and how likely the opponent holds one;
- *keep the matching card of a rank the opponents hold*, *keep pairs* (lay down a rank you can
  retake): term 3 in 2-player games;
- *play to the partner* and *answer the partner's lay-down*: term 3 in 4-player games values
  the tables the partner can take from;
- the *spariglio*: with four players the team that leads (the dealer's opponents) gains from
  captures by a sum of several cards, which break the pairing of the ranks, and the dealer's
  team from captures of one card (``spariglio``, counted for or against a capture of two or
  more cards when the dealer is known).

>>> import scopa
>>> s = scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
>>> g = GreedyPlayer()
>>> str(g.choose(s.view(0)))
'7dx3c4s'
>>> GreedyWeights().value(scopa.CardSet.parse("7d 7c").mask)  # two cards, a coin, two sevens
1.84
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from functools import cached_property, lru_cache
from math import comb

import scopa_core as core
from scopa.card import bits
from scopa.errors import CardError, IllegalMoveError, OptionError, RulesError, plain_number, show
from scopa.limit import Limit
from scopa.move import Move
from scopa.players.base import _legal, check_number, sweep_scores
from scopa.view import PlayerView

__all__ = ["GreedyPlayer", "GreedyWeights", "expected_gain", "reply_outcomes"]

_SEVENS = core.RANK_MASK[7]
_SIXES = core.RANK_MASK[6]
_ACES = core.RANK_MASK[1]
_NAPOLA = 0b111  # (the ace, two and three of coins: indices 0-2)
_VALUE_OPTIONS = core.OPT_RE_BELLO | core.OPT_NAPOLA  # (the options that change a card's value)


@dataclass(frozen=True)
class GreedyWeights:
    """The greedy player's values, in points per hand.

    ``card``, ``coin``, ``seven``, ``six``, ``ace`` and ``settebello`` value the cards taken
    (the majority of cards and of coins, primiera, the settebello); with the rule options
    that score them (RULES §7), ``re_bello`` values the king of coins and ``napola`` each of
    the ace, two and three of coins; ``sweep`` is a scopa's
    point and the tempo of an empty table; ``lay_risk`` is the share of a laid-down card's
    value counted as lost later; ``follow`` weighs the mover's own answer (2 players),
    ``partner`` the partner's (4 players); ``spariglio`` is the bonus (leading team) or
    malus (dealer's team) of a capture of several cards. Tuned by the arena (docs/players.md).

    >>> GreedyWeights(sweep=-1)
    Traceback (most recent call last):
    ...
    scopa.errors.OptionError: bad GreedyWeights sweep -1: expected a finite number >= 0
    """

    card: float = 0.06
    coin: float = 0.12
    seven: float = 0.3
    six: float = 0.12
    ace: float = 0.05
    settebello: float = 1.0
    sweep: float = 2.0
    lay_risk: float = 0.5
    follow: float = 1.0
    partner: float = 0.5
    spariglio: float = 0.2
    re_bello: float = 0.5
    napola: float = 0.5

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            check_number(f"GreedyWeights {f.name}", value, 0, math.inf, "a finite number >= 0")
            # (NumPy's as Python's number: the repr pastes back, asdict writes as JSON)
            object.__setattr__(self, f.name, plain_number(value))

    @cached_property
    def card_values(self) -> tuple[float, ...]:
        """:meth:`value` of each card, by index (under the preset rules: no re bello or napola)."""
        return tuple(self.value(1 << c) for c in range(40))

    def values_under(self, opts: int) -> tuple[float, ...]:
        """:meth:`value` of each card, by index, under the core rule options ``opts``."""
        key = opts & _VALUE_OPTIONS
        if not key:
            return self.card_values
        got = self._option_values.get(key)
        if got is None:
            got = self._option_values[key] = tuple(self.value(1 << c, key) for c in range(40))
        return got

    @cached_property
    def _option_values(self) -> dict[int, tuple[float, ...]]:
        return {}

    def value(self, mask: int, opts: int = 0) -> float:
        """What the cards of ``mask`` are worth when taken, under the core rule options
        ``opts`` (the king of coins with ``re_bello``, the ace, two and three of coins with
        ``napola``).

        >>> import scopa
        >>> kd, w = scopa.CardSet.parse("Kd").mask, GreedyWeights()
        >>> w.value(kd), w.value(kd, scopa.Rules.preset("scopa").replace(re_bello=True).core_options)
        (0.18, 0.68)
        """
        v = (
            self.card * core.popcount(mask)
            + self.coin * core.popcount(mask & core.COINS)
            + self.seven * core.popcount(mask & _SEVENS)
            + self.six * core.popcount(mask & _SIXES)
            + self.ace * core.popcount(mask & _ACES)
        )
        if mask & core.SETTEBELLO:
            v += self.settebello
        if opts & core.OPT_RE_BELLO and mask & core.RE_BELLO:
            v += self.re_bello
        if opts & core.OPT_NAPOLA:
            v += self.napola * core.popcount(mask & _NAPOLA)
        return round(v, 10)


#: per weights, ``(table, opts, sweeps)`` -> each rank's most valuable capture (see _by_rank):
#: the tables of the last CAPTURE_WEIGHTS weights used, CAPTURE_ENTRIES entries in all at
#: most (about 60 MB), so that tuning, a new GreedyWeights a trial, does not grow it for ever
_CAPTURES: dict[GreedyWeights, dict[tuple[int, int, bool], tuple[tuple[float, int] | None, ...]]] = {}
CAPTURE_WEIGHTS = 4
CAPTURE_ENTRIES = 1 << 16


def _by_rank(table: int, opts: int, w: GreedyWeights, sweeps: bool) -> tuple[tuple[float, int] | None, ...]:
    """For each rank 1-10 (at index rank - 1) the most valuable capture of a card of that rank
    on ``table``, without the card itself: (value, captured mask), or ``None`` when such a
    card can only be laid down. Captures depend on the rank only."""
    cache = _CAPTURES.get(w)
    if cache is None:
        # (threads share the tables, a server's: each step is one that another thread's cannot
        # break, a key another thread dropped first, a dict it grew during an iteration)
        while len(_CAPTURES) >= CAPTURE_WEIGHTS:
            try:
                _CAPTURES.pop(next(iter(_CAPTURES)), None)  # the weights first kept
            except (StopIteration, RuntimeError):
                break
        cache = _CAPTURES.setdefault(w, {})
    key = (table, opts, sweeps)
    got = cache.get(key)
    if got is None:
        kept = list(_CAPTURES.values())
        if sum(map(len, kept)) >= CAPTURE_ENTRIES:
            for tables in kept:
                tables.clear()
        best: list[tuple[float, int] | None] = []
        for rank in range(1, 11):
            top: tuple[float, int] | None = None
            # a card of the rank that is not on the table, the lowest (if all four are, none is
            # unseen)
            free = core.RANK_MASK[rank] & ~table
            card = (free & -free).bit_length() - 1
            for cap in core.captures(card, table, opts) if card >= 0 else ():
                v = w.value(cap, opts) + (
                    w.sweep if sweeps and sweep_scores(card, cap, table, opts, False) else 0.0
                )
                if top is None or v > top[0]:
                    top = (v, cap)
            best.append(top)
        got = cache[key] = tuple(best)
    return got


@lru_cache(maxsize=1024)
def _odds(u: int, h: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """For a hand of ``h`` cards drawn from ``u``: the chance that the i-th card holds it and
    none of the i before it (C(u-i-1, h-1) / C(u, h)), and the chance that it holds none of
    the first n (C(u-n, h) / C(u, h))."""
    total = comb(u, h)
    return (
        tuple(comb(u - i - 1, h - 1) / total for i in range(u)),
        tuple(comb(u - n, h) / total for n in range(u + 1)),
    )


def _cards(
    unseen: int, table: int, opts: int, w: GreedyWeights, sweeps: bool
) -> tuple[list[tuple[float, int, int]], list[int]]:
    """The cards of ``unseen`` that capture on ``table``, as (value taken, table left, card)
    from the most valuable (the lowest card first among equal values, to 1e-9), and the
    others (those that can only be laid down)."""
    best = _by_rank(table, opts, w, sweeps)
    values = w.values_under(opts)
    takes: list[tuple[float, int, int]] = []
    lays: list[int] = []
    for c in bits(unseen):
        top = best[c % 10]
        if top is None:
            lays.append(c)
        else:
            takes.append((round(top[0] + values[c], 9), table & ~top[1], c))
    takes.sort(key=lambda t: -t[0])
    return takes, lays


def _reply_outcomes(
    table: int, unseen: int, hand_size: int, opts: int, w: GreedyWeights, sweeps: bool = True
) -> list[tuple[float, float, int, int]]:
    """:func:`reply_outcomes` without the argument checks."""
    u = core.popcount(unseen)
    h = min(hand_size, u)
    if h <= 0:
        return []
    takes, lays = _cards(unseen, table, opts, w, sweeps)
    first, none = _odds(u, h)
    out = [(first[i], v, left, c) for i, (v, left, c) in enumerate(takes) if first[i] > 0]
    if lays and none[len(takes)] > 0:
        each = none[len(takes)] / len(lays)
        out += [(each, 0.0, table | 1 << c, c) for c in lays]
    return out


def _expected_gain(
    table: int, unseen: int, hand_size: int, opts: int, w: GreedyWeights, sweeps: bool = True
) -> float:
    """:func:`expected_gain` without the argument checks."""
    u = core.popcount(unseen)
    h = min(hand_size, u)
    if h <= 0:
        return 0.0
    takes, _ = _cards(unseen, table, opts, w, sweeps)
    first = _odds(u, h)[0]
    return round(sum(first[i] * v for i, (v, _, _) in enumerate(takes)), 10)


def _check_reply(
    table: object, unseen: object, hand_size: object, opts: object, w: object, sweeps: object
) -> None:
    """Raise a :class:`~scopa.errors.ScopaError` subclass unless the arguments of
    :func:`reply_outcomes` make sense."""
    for name, x in (("table", table), ("unseen", unseen)):
        if type(x) is not int or not 0 <= x < 1 << 40:
            raise CardError(f"bad {name} {show(x)}: expected a card mask, an int in 0..2**40-1")
    if table & unseen:  # type: ignore[operator]
        raise CardError(f"bad unseen {show(unseen)}: expected no card of the table {show(table)}")
    if type(hand_size) is not int or hand_size < 0:
        raise OptionError(f"bad hand_size {show(hand_size)}: expected an int >= 0")
    if type(opts) is not int or not 0 <= opts <= 255:
        raise RulesError(f"bad opts {show(opts)}: expected rule options, an int in 0..255")
    if not isinstance(w, GreedyWeights):
        raise OptionError(f"bad weights {show(w)}: expected a GreedyWeights")
    if not isinstance(sweeps, bool):
        raise OptionError(f"bad sweeps {show(sweeps)}: expected True or False")


def reply_outcomes(
    table: int, unseen: int, hand_size: int, opts: int, w: GreedyWeights, sweeps: bool = True
) -> list[tuple[float, float, int, int]]:
    """What a player whose ``hand_size`` cards are drawn uniformly from ``unseen`` does on
    ``table`` if it plays its most valuable capture, else lays down one of its cards at
    random: each outcome as (probability, value taken, table left, card played). The
    probabilities sum to
    1 (to 0 when it holds no card). ``sweeps``: whether clearing the table scores a sweep
    (not on the last play of the hand).

    The capturing cards are ordered by what they take; the i-th (from 0) is the one played
    when the hand holds it and none before it: C(u-i-1, h-1) / C(u, h) for ``u`` unseen cards.

    >>> import scopa
    >>> table, unseen = scopa.CardSet.parse("3c 4s").mask, scopa.CardSet.parse("7b Kd").mask
    >>> [(p, v) for p, v, _, _ in reply_outcomes(table, unseen, 1, 0, GreedyWeights())]
    [(0.5, 2.48), (0.5, 0.0)]
    """
    _check_reply(table, unseen, hand_size, opts, w, sweeps)
    return _reply_outcomes(table, unseen, hand_size, opts, w, sweeps)


def expected_gain(
    table: int, unseen: int, hand_size: int, opts: int, w: GreedyWeights, sweeps: bool = True
) -> float:
    """The expected value taken by the player of :func:`reply_outcomes`.

    >>> import scopa
    >>> table, unseen = scopa.CardSet.parse("3c 4s").mask, scopa.CardSet.parse("7b Kd").mask
    >>> expected_gain(table, unseen, 1, 0, GreedyWeights())
    1.24
    """
    _check_reply(table, unseen, hand_size, opts, w, sweeps)
    return _expected_gain(table, unseen, hand_size, opts, w, sweeps)


class GreedyPlayer:
    """The club player: one move ahead, with the opponent's likely reply and the answer to it
    (the module's three terms and the manuals' rules). Deterministic; about 0.2 ms a move on
    average in 2-player Scopa and 1.3 ms in Scopone scientifico (docs/players.md).

    >>> import scopa
    >>> s = scopa.State.from_string("scopa 2bQb/KsAs Js - -/- 0/0 0 - 1")
    >>> str(GreedyPlayer().choose(s.view(0)))  # the 2 would leave Js+2 for a king
    'Qb'
    """

    def __init__(self, weights: GreedyWeights | None = None) -> None:
        if weights is not None and not isinstance(weights, GreedyWeights):
            raise OptionError(f"bad GreedyPlayer weights {show(weights)}: expected a GreedyWeights")
        self.weights = weights or GreedyWeights()

    def __repr__(self) -> str:
        return (
            "GreedyPlayer()" if self.weights == GreedyWeights() else f"GreedyPlayer(weights={self.weights!r})"
        )

    def choose(self, view: PlayerView, limit: Limit | None = None) -> Move:
        """The best move by :meth:`score` (the first in move order among equals); it decides
        at once, so ``limit`` changes nothing."""
        Limit.of(limit)
        return max(_legal(view), key=lambda m: self._score(view, m))

    def score(self, view: PlayerView, move: Move | str) -> float:
        """The greedy rating of ``move`` (a legal move of ``view``'s seat, or its notation)
        in points (higher is better).

        >>> import scopa
        >>> s = scopa.State.from_string("scopa 2bQb/KsAs Js - -/- 0/0 0 - 1")
        >>> GreedyPlayer().score(s.view(0), "Qb") > GreedyPlayer().score(s.view(0), "2b")
        True
        """
        moves = _legal(view)
        parsed = Move.parse(move) if isinstance(move, str) else move
        if parsed not in moves:
            raise IllegalMoveError(
                f"cannot rate {show(move)}: expected a legal move of seat {view.seat}, one of "
                + ", ".join(str(m) for m in moves)
            )
        return self._score(view, parsed)

    def _score(self, view: PlayerView, move: Move) -> float:
        w = self.weights
        rules = view.rules
        opts = rules.core_options
        players = rules.players
        table = view.table.mask
        bit = 1 << move.card.index
        unseen = view.unseen.mask
        plays_left = sum(view.hand_sizes) + view.stock_size
        if move.is_capture:
            after = table & ~move.capture_mask
            s = w.value(move.capture_mask | bit, opts)
            if sweep_scores(move.card.index, move.capture_mask, table, opts, plays_left <= 1):
                s += w.sweep  # (RULES §3.6, §7: not an ace taking all, nor the last play, by default)
            if players == 4 and view.dealer is not None and core.popcount(move.capture_mask) > 1:
                s += w.spariglio if (view.seat - view.dealer) % 2 else -w.spariglio
        else:
            after = table | bit
            s = -w.lay_risk * w.value(bit, opts)
        if plays_left <= 1:
            return s

        def hand_of(seat: int) -> int:
            k = view.hand_sizes[seat]
            return k if k or not view.stock_size else min(rules.hand_size, view.stock_size // players)

        last_sweeps = bool(opts & core.OPT_SCOPA_ON_LAST_PLAY)  # (a sweep on the last play scores too)
        replies = _reply_outcomes(
            after, unseen, hand_of((view.seat + 1) % players), opts, w, plays_left > 2 or last_sweeps
        )
        s -= sum(p * v for p, v, _, _ in replies)
        answer_sweeps = plays_left > 3 or last_sweeps
        if players == 2 and w.follow:
            mine = view.hand.mask & ~bit
            if mine:
                s += w.follow * sum(
                    p * self._own_best(left, mine, opts, answer_sweeps) for p, _, left, _ in replies
                )
        elif players == 4 and w.partner and plays_left > 2:
            mate = hand_of((view.seat + 2) % 4)
            s += w.partner * sum(
                p * _expected_gain(left, unseen & ~(1 << c), mate, opts, w, answer_sweeps)
                for p, _, left, c in replies
            )
        return round(s, 10)

    def _own_best(self, table: int, hand: int, opts: int, sweeps: bool) -> float:
        """The value of the best capture among the cards of ``hand`` on ``table`` (0 if none)."""
        by_rank = _by_rank(table, opts, self.weights, sweeps)
        values = self.weights.values_under(opts)
        best = 0.0
        for c in bits(hand):
            take = by_rank[c % 10]
            if take is not None and take[0] + values[c] > best:
                best = take[0] + values[c]
        return best
