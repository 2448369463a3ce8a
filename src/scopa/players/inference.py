"""Inference about the opponent's hidden hand (2 players) from its plays since its last refill.

An opponent that takes the settebello when it can, does not lay down a seven for nothing and
avoids leaving a sweep tells something about the cards it keeps. :func:`hand_posterior`
weighs every hand the opponent may hold by the likelihood of its plays since it was dealt
those cards, under :class:`OpponentModel`: a softmax over a one-ply value of each legal
move, the value a sensible player puts on what a move takes and risks. PIMC draws its
samples of the opponent's hand from that posterior (``PIMCPlayer(infer=True)``).

>>> import scopa
>>> s = scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
>>> OpponentModel().move_value(6, s.table.mask, s.table.mask)  # 7d sweeps 3c 4s
2.88
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, fields
from functools import lru_cache
from itertools import combinations
from typing import Any

import numpy as np

import scopa_core as core
from scopa.card import bits
from scopa.errors import OptionError, plain_number, show
from scopa.players.base import MAX_CANDIDATES, check_budget, check_number, check_view, sweep_scores, sweepers
from scopa.view import PlayerView

__all__ = ["OpponentModel", "deal_posterior", "hand_posterior", "sweepers"]

_SEVENS = core.RANK_MASK[7]
_SIXES = core.RANK_MASK[6]


@dataclass(frozen=True)
class OpponentModel:
    """A generic one-ply model of a sensible opponent's choice among its legal moves.

    A move's value (roughly in points): a capture is worth ``capture`` plus ``card`` per card
    taken, ``coin`` per coin, ``seven`` per seven and ``six`` per six (primiera), ``settebello``
    for the seven of coins and ``sweep`` for a scopa; a lay-down loses what it offers (the
    settebello, a seven, a six, a coin). A move that leaves a table some card the opponent
    cannot see could sweep loses ``risk_lay`` (after a lay-down) or ``risk_capture``. The
    opponent plays each legal move with probability proportional to exp(value / temperature).
    The defaults were tuned on 2-player Scopa (see the README's strength section).

    >>> OpponentModel(temperature=0)
    Traceback (most recent call last):
    ...
    scopa.errors.OptionError: bad OpponentModel temperature 0: expected a finite number > 0
    """

    temperature: float = 0.1
    capture: float = 0.4
    card: float = 0.05
    coin: float = 0.08
    settebello: float = 1.0
    seven: float = 0.25
    six: float = 0.08
    sweep: float = 1.0
    risk_lay: float = 0.7
    risk_capture: float = 0.3

    def __post_init__(self) -> None:
        for f in fields(self):
            name, value = f"OpponentModel {f.name}", getattr(self, f.name)
            if f.name == "temperature":
                check_number(name, value, 0, math.inf, "a finite number > 0", above=True)
            else:
                check_number(name, value, -math.inf, math.inf, "a finite number")
            # (NumPy's as Python's number: the repr pastes back, asdict writes as JSON)
            object.__setattr__(self, f.name, plain_number(value))

    def move_value(self, card: int, capture: int, table: int, opts: int = 0) -> float:
        """The value of playing ``card`` (an index) capturing ``capture`` (a mask, 0 to lay it
        down) on ``table`` under the core rule options ``opts``, before the sweep risk: a
        sweep's weight only for a sweep that scores (not an ace taking all, unless
        ``ace_sweep_is_scopa``), and the king of coins weighed as the settebello when
        ``re_bello`` scores it (RULES §7).

        >>> import scopa
        >>> m, table = OpponentModel(), scopa.CardSet.parse("5s 6b").mask  # (the ace of coins takes all)
        >>> [m.move_value(0, table, table, scopa.Rules("scopa", ace_takes_all=True, **o).core_options)
        ...  for o in ({}, {"ace_sweep_is_scopa": True})]
        [0.71, 1.71]
        """
        bit = 1 << card
        prize = core.SETTEBELLO | (core.RE_BELLO if opts & core.OPT_RE_BELLO else 0)
        if capture:
            took = capture | bit
            v = self.capture + self.card * core.popcount(took) + self.coin * core.popcount(took & core.COINS)
            v += self.seven * core.popcount(took & _SEVENS) + self.six * core.popcount(took & _SIXES)
            v += self.settebello * core.popcount(took & prize)
            if sweep_scores(card, capture, table, opts, False):
                v += self.sweep
            return round(v, 10)
        v = 0.0
        if bit & prize:
            v -= self.settebello
        if bit & _SEVENS:
            v -= self.seven
        if bit & _SIXES:
            v -= self.six
        if bit & core.COINS:
            v -= self.coin
        return v

    def move_logits(
        self, moves: list[tuple[int, int]], table: int, opts: int
    ) -> list[tuple[float, float, int]]:
        """For each ``(card, capture)`` of ``moves`` on ``table``: its log-weight (value over
        temperature) when no card the mover cannot see sweeps the table it leaves, its
        log-weight when one does, and the mask of the cards that would sweep that table.

        >>> import scopa
        >>> s = scopa.State.from_string("scopa 2bQb/KsAs Js - -/- 0/0 0 - 1")
        >>> two = scopa.Card.parse("2b").index  # laid down by Js it makes 12: kings sweep
        >>> opts = s.rules.core_options
        >>> safe, risky, sweep = OpponentModel().move_logits([(two, 0)], s.table.mask, opts)[0]
        >>> safe, risky, str(scopa.CardSet._from_mask(sweep))
        (0.0, -7.0, 'Kd Kc Ks Kb')
        """
        return [self._logit(card, capture, table, opts) for card, capture in moves]

    def _logit(self, card: int, capture: int, table: int, opts: int) -> tuple[float, float, int]:
        """:meth:`move_logits` of one move."""
        inv_t = 1.0 / self.temperature
        v = self.move_value(card, capture, table, opts) * inv_t
        after = (table & ~capture) if capture else (table | 1 << card)
        risk = (self.risk_capture if capture else self.risk_lay) * inv_t
        return v, v - risk, sweepers(after, opts)

    def _cached_logits(
        self, moves: list[tuple[int, int]], table: int, opts: int, cache: dict[tuple[int, int, int, int], Any]
    ) -> list[tuple[float, float, int]]:
        """:meth:`move_logits`, each move's looked up in ``cache`` first (a player's many samples
        ask for the same moves on the same tables); ``cache`` must hold this model's only."""
        out = []
        for card, capture in moves:
            key = (card, capture, table, opts)
            logit = cache.get(key)
            if logit is None:
                logit = cache[key] = self._logit(card, capture, table, opts)
            out.append(logit)
        return out

    def reply_probabilities(
        self, moves: list[tuple[int, int]], table: int, unseen: int, opts: int
    ) -> list[float]:
        """The probability the model gives each of ``moves`` (the mover's legal moves on
        ``table``) when ``unseen`` are the cards the mover cannot see.

        >>> import scopa
        >>> s = scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
        >>> moves = [(m.card.index, m.capture_mask) for m in s.legal_moves()]  # 7dx3c4s, Kc
        >>> probs = OpponentModel().reply_probabilities(moves, s.table.mask, 0, s.rules.core_options)
        >>> [round(p, 6) for p in probs]
        [1.0, 0.0]
        """
        if not moves:
            raise OptionError("no moves to weigh: expected the mover's legal moves (at least one)")
        return _probabilities(self.move_logits(moves, table, opts), unseen)


def _probabilities(logits: list[tuple[float, float, int]], unseen: int) -> list[float]:
    """The softmax of :meth:`OpponentModel.move_logits`' ``logits`` (not empty) when ``unseen``
    are the cards the mover cannot see."""
    logs = [b if sw & unseen else a for a, b, sw in logits]
    top = max(logs)
    weights = [math.exp(x - top) for x in logs]
    total = sum(weights)
    return [w / total for w in weights]


def _check_model(model: object) -> None:
    if not isinstance(model, OpponentModel):
        raise OptionError(f"bad model {show(model)}: expected an OpponentModel")


def _play_records(view: PlayerView, who: int, plays: int) -> list[tuple[int, int, int, int, int]] | None:
    """The last ``plays`` plays of seat ``who``, latest first, each as (card, capture, table
    before it, both piles before it, ``who``'s cards played after it), rebuilt by walking the
    public history back; ``None`` when the history is shorter, or does not fit the cards (a
    composed view's: a table then that holds a card now out of sight, or one the seat held
    then)."""
    table = view.table.mask
    piles = [view.captured[0].mask, view.captured[1].mask]
    seen = table | piles[0] | piles[1]  # where every card on a table then is now
    later = 0  # the seat's cards played after the point reached walking back
    records: list[tuple[int, int, int, int, int]] = []
    if plays <= 0:
        return records
    for seat, move in reversed(view.history):
        c, cap = move.card.index, move.capture_mask
        if cap:
            table |= cap
            piles[seat & 1] &= ~(cap | 1 << c)
        else:
            table &= ~(1 << c)
        if table & ~seen or (later | 1 << c) & table:
            return None
        if seat == who:
            records.append((c, cap, table, piles[0] | piles[1], later))
            later |= 1 << c
            if len(records) == plays:
                return records
    return None


def hand_posterior(view: PlayerView, model: OpponentModel) -> tuple[list[int], list[float]] | None:
    """Every hand the opponent may hold (2 players), as masks, with its posterior probability
    given the opponent's plays since its last refill, under ``model``; ``None`` when there
    is nothing to infer from (four players, no play of the opponent's with its current cards
    yet, or a composed view whose history does not reach back to its last refill or does not
    fit the rules).
    Likelihoods are summed as logarithms, so any temperature > 0 works.

    The table and piles before each of those plays are rebuilt from the public history; at
    each, the opponent held the candidate hand plus the cards it played from then on.

    >>> import scopa
    >>> s = scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    >>> hand_posterior(s.view(0), OpponentModel()) is None  # no play yet
    True
    """
    _check_model(model)
    rules = check_view(view).rules
    if rules.players != 2:
        return None
    opp = 1 - view.seat
    k = view.hand_sizes[opp]
    plays = rules.hand_size - k
    if k == 0 or plays <= 0:
        return None
    opts = rules.core_options
    records = _play_records(view, opp, plays)
    if records is None:
        return None
    pool = list(bits(view.unseen.mask))
    hands = [sum(1 << c for c in combo) for combo in combinations(pool, k)]
    logw = [0.0] * len(hands)
    for c, cap, table_t, piles_t, later_t in records:

        def options(card: int, table_t: int = table_t) -> list[tuple[float, float, int]]:
            # each move of ``card``: (log-weight if safe, if some unseen card sweeps, sweepers)
            return model.move_logits(core.legal_moves(1 << card, table_t, opts), table_t, opts)

        held = later_t | 1 << c  # held then besides the candidate hand
        # unseen by the opponent then, before taking out the candidate hand
        hidden = core.FULL & ~(held | table_t | piles_t | view.out_of_play.mask)
        moves_c = core.legal_moves(1 << c, table_t, opts)
        if (c, cap) not in moves_c:
            return None  # a history that does not fit the rules (a composed view): no inference
        options_c = options(c)
        played = options_c[moves_c.index((c, cap))]
        per_card = {x: options(x) for x in pool}
        held_moves = [o for x in bits(held) for o in (options_c if x == c else options(x))]
        for i, h in enumerate(hands):
            unseen = hidden & ~h
            logs = [b if sw & unseen else a for a, b, sw in held_moves]
            for x in bits(h):
                logs += [b if sw & unseen else a for a, b, sw in per_card[x]]
            top = max(logs)  # log-sum-exp, so that no weight overflows or vanishes
            log_total = top + math.log(sum(math.exp(x - top) for x in logs))
            logw[i] += (played[1] if played[2] & unseen else played[0]) - log_total
    top = max(logw)
    weights = [math.exp(x - top) for x in logw]
    norm = sum(weights)
    return hands, [w / norm for w in weights]


@lru_cache(maxsize=1 << 16)
def _card_logsum(model: OpponentModel, card: int, table: int, hidden: int, opts: int) -> float:
    """log of the sum over ``card``'s legal moves on ``table`` of exp(log-weight), the sweep
    risk judged on ``hidden`` (-inf if it has none, which a card in hand always has)."""
    logs = [
        b if sw & hidden else a
        for a, b, sw in model.move_logits(core.legal_moves(1 << card, table, opts), table, opts)
    ]
    if not logs:
        return -math.inf
    top = max(logs)
    return top + math.log(sum(math.exp(x - top) for x in logs))


#: candidates drawn at a time by :func:`deal_posterior` (between two, its ``give_up`` is asked)
_CHUNK = 8192


def _never() -> bool:
    """A ``give_up`` that never does."""
    return False


def deal_posterior(
    view: PlayerView,
    model: OpponentModel,
    rng: random.Random,
    candidates: int = 512,
    give_up: Callable[[], bool] | None = None,
) -> tuple[list[dict[int, int]], list[float]] | None:
    """Four players (or three): ``candidates`` deals of the other seats' hands, drawn
    uniformly from the cards ``view`` cannot see, each with its weight (summing to 1): the
    likelihood, under ``model``, of every other seat's plays since its current cards were
    dealt — the partner's and the opponents' alike. Each deal is ``{seat: hand mask}``.
    ``None`` with two players (:func:`hand_posterior` enumerates those hands exactly), when
    no other seat has played with its current cards yet, or when the history does not reach
    back that far or does not fit the rules (a composed view); and when ``give_up`` (asked
    before the candidates are drawn, between chunks of them, after each seat's hands, at each
    play weighed, before the deals are made and between chunks of them) says so: a searcher's
    time or stop flag, which the weighing of many candidates would outlast.

    An importance sample, not an enumeration (the hands of three seats are far too many).
    At each recorded play the seat held its candidate hand plus the cards it played from
    then on; its sweep risk is judged on every card it could not see then, its own candidate
    hand included (the one approximation: the rare table that only its own cards could
    sweep still counts as risky).

    >>> import random, scopa
    >>> s = scopa.State.deal("scopone_scientifico", seed=2)
    >>> deal_posterior(s.view(s.turn), OpponentModel(), random.Random(1)) is None  # no play yet
    True
    >>> for _ in range(3):
    ...     s = s.play(s.legal_moves()[0])
    >>> deals, weights = deal_posterior(s.view(s.turn), OpponentModel(), random.Random(1), 64)
    >>> len(deals), round(sum(weights), 9), sorted(deals[0])
    (64, 1.0, [1, 2, 3])
    """
    _check_model(model)
    rules = check_view(view).rules
    if rules.players == 2:
        return None
    candidates = check_budget("candidates", candidates, most=MAX_CANDIDATES)
    if not isinstance(rng, random.Random):
        raise OptionError(f"bad rng {show(rng)}: expected a random.Random")
    if give_up is not None and not callable(give_up):
        raise OptionError(f"bad give_up {show(give_up)}: expected a function of no argument or None")
    stopped = give_up or _never
    opts = rules.core_options
    others = [j for j in range(rules.players) if j != view.seat]
    records = {}
    for j in others:
        k = view.hand_sizes[j]
        got = _play_records(view, j, rules.hand_size - k if k else 0)
        if got is None:
            return None
        for c, cap, table_t, _, _ in got:
            if (c, cap) not in core.legal_moves(1 << c, table_t, opts):
                return None  # a history that does not fit the rules
        records[j] = got
    if not any(records.values()) or stopped():
        return None
    pool = np.array(list(bits(view.unseen.mask)), dtype=np.int64)
    np_rng = np.random.default_rng(rng.getrandbits(64))
    drawn = np.empty((candidates, len(pool)), dtype=np.int64)
    for lo in range(0, candidates, _CHUNK):  # (the same numbers as drawn at once, give_up heard)
        if lo and stopped():
            return None
        hi = min(candidates, lo + _CHUNK)
        drawn[lo:hi] = pool[np.argsort(np_rng.random((hi - lo, len(pool))), axis=1)]
    powers = np.left_shift(np.int64(1), np.arange(40, dtype=np.int64))
    logw = np.zeros(candidates)
    hands = {}
    at = 0
    for j in others:
        k = view.hand_sizes[j]
        cards = drawn[:, at : at + k]  # (each candidate's hand for seat j, a card a column)
        # (each hand's mask an OR of its cards' bits, and below the sum of its cards' weights
        # gathered: a 0/1 matrix of 40 columns a candidate and its products took 60 ms and 32 MB
        # for 100,000 candidates, give_up not asked meanwhile)
        hands[j] = np.bitwise_or.reduce(powers[cards], axis=1) if k else np.zeros(candidates, np.int64)
        at += k
        if stopped():
            return None
        for c, cap, table_t, piles_t, later_t in records[j]:
            if stopped():
                return None
            known = later_t | 1 << c  # held then, besides the candidate hand
            hidden = core.FULL & ~(known | table_t | piles_t | view.out_of_play.mask)
            logs = np.full(40, -np.inf)
            for x in (*pool.tolist(), *bits(known)):
                logs[x] = _card_logsum(model, x, table_t, hidden, opts)
            top = float(logs.max())
            each = np.exp(logs - top)
            base = float(sum(each[x] for x in bits(known)))
            pool_each = np.zeros(40)
            pool_each[pool] = each[pool]
            a, b, sw = model.move_logits([(c, cap)], table_t, opts)[0]
            played = b if sw & hidden else a
            logw += played - top - np.log(base + pool_each[cards].sum(axis=1))
    weights = np.exp(logw - logw.max())
    weights /= weights.sum()
    if stopped():
        return None
    # the deals made a chunk at a time, give_up heard between (100,000 of them took 70 ms made
    # at once after its last question: PIMC's time limit ran 9 times over at 20 ms, an audit)
    deals: list[dict[int, int]] = []
    for lo in range(0, candidates, _CHUNK):
        if lo and stopped():
            return None
        columns = [hands[j][lo : lo + _CHUNK].tolist() for j in others]  # (Python ints, a column a seat)
        deals += [dict(zip(others, row, strict=True)) for row in zip(*columns, strict=True)]
    return deals, weights.tolist()
