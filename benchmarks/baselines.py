"""The greedy players the rebuilt :class:`~scopa.players.GreedyPlayer` is measured against.

``ChanceGreedy`` is the one-ply greedy player as it was before the rebuild (its capture risk
weighed by the chance of a sweep); ``FlatRiskGreedy`` is the same with the older rule that
marked every capture leaving a sweepable table down by the same 4,000 (the greedy player the
strength issue measured). Used by benchmarks/strength.py and benchmarks/greedy_tune.py only.
``PIMC_BEFORE`` holds 2-player PIMC's options from before ``tie=0`` and ``reply_weight=0.25``
became its defaults: the PIMC screens of benchmarks/ were measured against those.
"""

from __future__ import annotations

import scopa_core as core
from scopa.limit import Limit
from scopa.move import Move
from scopa.players.base import _legal, leaves_sweep, sweep_chance
from scopa.view import PlayerView

#: 2-player PIMC's options before its defaults became tie 0 and reply_weight 0.25 (+0.076
#: [+0.034, +0.118] points per hand over these on 3,000 duplicate deals): the benchmarks that
#: measured PIMC against itself or its variants keep them, so their documented figures repeat
PIMC_BEFORE: dict[str, float] = {"tie": 0.05, "reply_weight": 0.5}

SEVENS = core.RANK_MASK[7]
SIXES = core.RANK_MASK[6]


class ChanceGreedy:
    """The greedy player of 0.x before the rebuild (one-ply rules), kept to measure against.

    Captures before lay-downs: a sweep first, then the settebello, sevens, coins, sixes and
    many cards. A capture that leaves a table the next player could sweep is marked down by
    the chance that the next player holds a sweeping card (the unseen cards dealt uniformly,
    :func:`~scopa.players.base.sweep_chance`): below a safe lay-down once that chance is
    above about a half, below other captures sooner. Never a lay-down that leaves a table
    some unseen card could sweep when another move avoids it. Lay-downs: not the settebello,
    nor sevens or coins; keep pairs (lay down a rank you hold twice, so you can retake it)
    and prefer ranks whose other cards are all seen (nobody can take them by equal rank).
    """

    #: A capture that may leave the next player a sweep is marked down by 4,000 and this much
    #: per unit of the chance that the next player holds a sweeping card.
    CAPTURE_SWEEP_RISK = 20_000

    def choose(self, view: PlayerView, limit: Limit | None = None) -> Move:
        """The best move by the rules above (the first in move order among equals); it
        decides at once, so ``limit`` changes nothing."""
        moves = _legal(view)
        return max(moves, key=lambda m: self.score(view, m))

    def score(self, view: PlayerView, move: Move) -> int:
        """The greedy rating of ``move`` (higher is better)."""
        opts = view.rules.core_options
        table = view.table.mask
        card = move.card.index
        bit = 1 << card
        unseen = view.unseen.mask
        last_play = sum(view.hand_sizes) == 1 and view.stock_size == 0
        if move.is_capture:
            took = move.capture_mask | bit
            after = table & ~move.capture_mask
            s = 10_000
            if not after and not last_play:
                s += 5_000
            if took & core.SETTEBELLO:
                s += 3_000
            s += 300 * core.popcount(took & SEVENS)
            s += 150 * core.popcount(took & core.COINS)
            s += 60 * core.popcount(took & SIXES)
            s += 20 * core.popcount(took)
        else:
            after = table | bit
            s = 0
            if bit & core.SETTEBELLO:
                s -= 3_000
            if bit & SEVENS:
                s -= 300
            if bit & core.COINS:
                s -= 150
            rank = core.RANK_MASK[card % 10 + 1]
            if core.popcount(view.hand.mask & rank) >= 2:
                s += 80  # keep pairs: we can retake it
            if not unseen & rank:
                s += 40  # a dead rank: nobody can take it alone
            s -= card % 10  # lay down low cards first
        if not after or last_play:
            return s
        if move.is_capture:
            nxt = (view.seat + 1) % view.rules.players
            chance = sweep_chance(after, unseen, view.hand_sizes[nxt], opts)
            if chance > 0:
                s -= 4_000 + round(self.CAPTURE_SWEEP_RISK * chance)
        elif leaves_sweep(after, unseen, opts):
            s -= 20_000
        return s


class FlatRiskGreedy(ChanceGreedy):
    """The greedy player before its capture risk was weighed by the chance of a sweep."""

    CAPTURE_SWEEP_RISK = 0
