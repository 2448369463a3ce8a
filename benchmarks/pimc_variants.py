"""PIMC variants screened against default PIMC in 2-player Scopa; none is a gain (docs/benchmarks.md).

``RoundPIMC``: each sample's depth-limited search stops at the next refill, so no sample's
search sees the order of the stock (``exact_plays=6``: exact in the last round only).
``SimulatedInferencePIMC``: the opponent's hand is drawn from a posterior whose likelihood
is a simulated PIMC-like opponent (for each hand it may have held, a few samples of the cards
it could not see, each move valued by the depth-limited search, a softmax over the mean
values) instead of the one-ply :class:`~scopa.players.inference.OpponentModel`.
``FusionPIMC``: one level of strategy fusion taken out: after each of its moves and each reply,
its next move is chosen once for every sample in which it would see the same thing, not in
each sample with sight of that sample's hidden cards. The pairings ``scopa-pimc-round``,
``scopa-pimc-round-exact6``, ``scopa-pimc-simulated``, ``scopa-pimc-simulated-t5``,
``scopa-pimc-simulated-deep`` and ``scopa-pimc-fusion`` of benchmarks/strength.py play them
against default PIMC.
``BlindReplyPIMC``: the opponent's reply in each sample is the one an opponent who cannot see
this player's hand or the stock would choose (its best mean over a few re-deals of those
cards), not its best reply with sight of them (pairing ``scopa-pimc-blind``).

Run as a script it measures how well the simulated opponent predicts default PIMC's own
choices in self-play (the share of choices whose top move it predicts and the mean
log-likelihood of the choice at several temperatures), the measure
``python benchmarks/opponent_fit.py`` gives for the one-ply model.

Usage: python benchmarks/pimc_variants.py [--hands 60] [--samples 8] [--depth 4] [--seed 99]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from itertools import accumulate, combinations
from typing import Any

from baselines import PIMC_BEFORE

import scopa_core as core
from scopa.card import bits
from scopa.players import PIMCPlayer
from scopa.players.base import _legal
from scopa.players.inference import _play_records
from scopa.rules import Rules
from scopa.state import State
from scopa.view import PlayerView

#: one play of the opponent's: (history index, card, capture, table before it, both sides'
#: piles before it, the opponent's cards played after it, the seat that captured last before it)
Record = tuple[int, int, int, int, tuple[int, int], int, int]


class RoundPIMC(PIMCPlayer):
    """PIMC whose depth-limited searches stop at the next refill while stock is left."""

    def _sample_values(
        self, pos: tuple[Any, ...], rules: Rules, solver: Any = None
    ) -> list[tuple[int, int, float]]:
        """As PIMC's, searched at most to the end of the round while stock is left."""
        in_hands = sum(core.popcount(h) for h in pos[0])
        depth = self._depth(rules.players)
        if not pos[2] or depth <= in_hands:
            return super()._sample_values(pos, rules, solver)
        saved, self.depth = self.depth, in_hands
        try:
            return super()._sample_values(pos, rules, solver)
        finally:
            self.depth = saved


def opponent_records(view: PlayerView, who: int, plays: int) -> list[Record] | None:
    """The last ``plays`` plays of seat ``who``, latest first, each with the public position
    before it (see :data:`Record`): the library's walk back through the history
    (``_play_records``) with each side's pile and the last capturer added; ``None`` when the
    history is shorter."""
    got = _play_records(view, who, plays)
    if got is None:
        return None
    hist = view.history
    ids = [i for i in range(len(hist) - 1, -1, -1) if hist[i][0] == who]
    out: list[Record] = []
    for (c, cap, table, _, later), idx in zip(got, ids, strict=False):
        piles = [view.captured[0].mask, view.captured[1].mask]
        for seat, move in hist[idx:]:  # take out what was captured from then on
            if move.capture_mask:
                piles[seat & 1] &= ~(move.capture_mask | 1 << move.card.index)
        last = next((hist[j][0] for j in range(idx - 1, -1, -1) if hist[j][1].capture_mask), -1)
        out.append((idx, c, cap, table, (piles[0], piles[1]), later, last))
    return out


def simulated_values(
    solver: Any,
    rng: random.Random,
    rules: Rules,
    held: int,
    mover: int,
    others: int,
    table: int,
    piles: tuple[int, int],
    last: int,
    seen: int,
    samples: int,
    depth: int,
) -> dict[tuple[int, int], float]:
    """The mean value of each move of ``mover`` (2 players) holding ``held`` over ``samples``
    uniform deals of the cards it cannot see (``others`` cards to the other seat, the rest to
    the stock), each valued by the depth-limited search; banked scope left out (a constant)."""
    pool = list(bits(core.FULL & ~(held | seen)))
    totals: dict[tuple[int, int], float] = {}
    for _ in range(samples):
        rng.shuffle(pool)
        hands = [0, 0]
        hands[mover] = held
        hands[1 - mover] = sum(1 << x for x in pool[:others])
        pos = (tuple(hands), table, tuple(pool[others:]), piles, (0, 0), mover, last)
        rows = solver.analyze_depth(pos, rules.core_options, rules.hand_size, depth)
        for c, m, v in rows:
            totals[(c, m)] = totals.get((c, m), 0.0) + v / samples
    return totals


def log_softmax(values: dict[tuple[int, int], float], key: tuple[int, int], temperature: float) -> float:
    """log of the probability of ``key`` under a softmax of ``values`` at ``temperature``."""
    top = max(values.values())
    total = sum(math.exp((v - top) / temperature) for v in values.values())
    return (values[key] - top) / temperature - math.log(total)


class SimulatedInferencePIMC(PIMCPlayer):
    """PIMC (2 players) whose hand posterior uses a simulated PIMC-like opponent as likelihood:
    ``sim_samples`` samples, ``sim_depth`` plays deep, softmax at ``sim_temperature`` points."""

    def __init__(
        self, sim_samples: int = 8, sim_depth: int = 4, sim_temperature: float = 0.2, **options: Any
    ) -> None:
        super().__init__(**options)
        self.sim_samples, self.sim_depth, self.sim_temperature = sim_samples, sim_depth, sim_temperature
        self._sim_solver = core.Solver(2)
        self._sim_rng = random.Random(self.seed)
        #: per recorded play, the log-likelihood of each hand the opponent may have held then
        self._cache: dict[tuple[int, ...], dict[int, float]] = {}

    def _record_loglik(self, view: PlayerView, rec: Record, held: int) -> float:
        idx, c, cap, table, piles, _, last = rec
        me = view.seat
        later_plays = view.history[idx + 1 :]
        mine_then = view.hand_sizes[me] + sum(1 for seat, _ in later_plays if seat == me)
        seen = table | piles[0] | piles[1] | view.out_of_play.mask
        values = simulated_values(
            self._sim_solver, self._sim_rng, view.rules, held, 1 - me, mine_then,
            table, piles, last, seen, self.sim_samples, self.sim_depth,
        )  # fmt: skip
        return log_softmax(values, (c, cap), self.sim_temperature) if (c, cap) in values else -50.0

    def _posterior(self, view: PlayerView) -> Any:
        rules = view.rules
        if rules.players != 2:
            return super()._posterior(view)
        opp = 1 - view.seat
        k = view.hand_sizes[opp]
        records = opponent_records(view, opp, rules.hand_size - k) if k else None
        if not records:
            return None
        hands = [sum(1 << c for c in combo) for combo in combinations(bits(view.unseen.mask), k)]
        logw = [0.0] * len(hands)
        for rec in records:
            idx, c, cap, table, piles, later, _ = rec
            cache = self._cache.setdefault((idx, c, cap, table, *piles), {})
            for i, h in enumerate(hands):
                held = h | later | 1 << c
                if held not in cache:
                    cache[held] = self._record_loglik(view, rec, held)
                logw[i] += cache[held]
        top = max(logw)
        weights = [math.exp(x - top) for x in logw]
        norm = sum(weights)
        return [{opp: h} for h in hands], list(accumulate(w / norm for w in weights))


#: one move of the mover's in one sample (see :meth:`FusionPIMC._sample_rows`): the move, its
#: value from replies too unlikely to group, and per grouped reply the group's key (the
#: mover's move, the reply, the mover's hand after it), the reply's weight and the mover's next
#: moves' values after it
Row = tuple[
    tuple[int, int], float, list[tuple[tuple[int, int, int, int, int], float, list[tuple[int, int, float]]]]
]


class FusionPIMC(PIMCPlayer):
    """PIMC (2 players) with one level of strategy fusion taken out: after each of its moves
    and each reply of the opponent's, its next move is chosen once for all the samples in which
    it would see the same thing (the same reply, the same hand after it), by their summed
    values, instead of in each sample with sight of that sample's hidden cards. The opponent's
    reply is weighed as PIMC's (``reply_weight``); replies less likely than ``min_reply`` keep
    their per-sample value."""

    def __init__(self, min_reply: float = 0.05, **options: Any) -> None:
        super().__init__(**options)
        self.min_reply = min_reply

    def _sample_rows(self, pos: tuple[Any, ...], rules: Rules) -> list[Row]:
        """For each of the mover's moves: its per-sample value part already fixed (replies too
        unlikely to group), and for each grouped reply its group key, its weight and the
        mover's next moves' values after it."""
        opts, block = rules.core_options, rules.hand_size
        exact = self._exact(pos, rules)
        depth = self._depth(rules.players)
        me = pos[5]
        w = self.reply_weight
        out = []
        for c, m in core.legal_moves(pos[0][me], pos[1], opts):
            child = core.apply_move(pos, c, m, opts, block)
            if child[5] == me or not child[0][child[5]] or (not exact and depth < 3):
                return []
            replies = self._minimax_values(child, rules, exact, depth - 1)
            unseen = child[0][me]
            for x in child[2]:
                unseen |= 1 << x
            moves = [(rc, rm) for rc, rm, _ in replies]
            probs = self.model.reply_probabilities(moves, child[1], unseen, opts)
            top = max(range(len(replies)), key=lambda i: replies[i][2])
            fixed = 0.0
            groups = []
            for i, (rc, rm, v) in enumerate(replies):
                p = w * probs[i] + (1 - w) * (i == top)
                if p < self.min_reply:
                    fixed -= p * v
                    continue
                grand = core.apply_move(child, rc, rm, opts, block)
                if grand[5] != me or not grand[0][me]:
                    fixed -= p * v
                    continue
                nexts = self._minimax_values(grand, rules, exact, depth - 2)
                groups.append(((c, m, rc, rm, grand[0][me]), p, nexts))
            out.append(((c, m), fixed, groups))
        return out

    def evaluate(self, view: PlayerView, limit: Any = None) -> dict[Any, tuple[float, float]]:
        rules = view.rules
        if rules.players != 2:
            return super().evaluate(view, limit)
        moves = _legal(view)
        keys = [(m.card.index, m.capture_mask) for m in moves]
        fixed = dict.fromkeys(keys, 0.0)
        #: group -> summed values of the next moves; and each sample's (move, group, weight)
        sums: dict[tuple[int, ...], dict[tuple[int, int], float]] = {}
        members: list[tuple[tuple[int, int], tuple[int, ...], float, dict[tuple[int, int], float]]] = []
        risks = dict.fromkeys(keys, 0)
        nxt = 1 - view.seat
        posterior = self._posterior(view) if self.infer else None
        start = time.perf_counter()
        used = 0
        for _ in range(self.samples):
            pos = self._draw(view, posterior)
            rows = self._sample_rows(pos, rules)
            if not rows:  # nothing to group here: plain PIMC
                return super().evaluate(view, limit)
            for key, part, groups in rows:
                fixed[key] += part
                for g, p, nexts in groups:
                    vals = {(a, b): v for a, b, v in nexts}
                    acc = sums.setdefault(g, {})
                    for k2, v in vals.items():
                        acc[k2] = acc.get(k2, 0.0) + p * v
                    members.append((key, g, p, vals))
            self._count_risks(pos, rules, risks, nxt)
            used += 1
            if self.time_limit is not None and time.perf_counter() - start > self.time_limit:
                break
        choice = {g: max(acc, key=acc.__getitem__) for g, acc in sums.items()}
        totals = dict(fixed)
        for key, g, p, vals in members:
            totals[key] += p * vals[choice[g]]
        self.last_samples = used
        return {m: (totals[k] / used, risks[k] / used) for m, k in zip(moves, keys, strict=True)}


class BlindReplyPIMC(PIMCPlayer):
    """PIMC (2 players) whose opponent replies as a player who cannot see this player's hand
    nor the stock's order would: in each sample, after each of its moves, the opponent's reply
    is the one of the best mean value over ``worlds`` re-deals of the cards it cannot see
    (this player's hand and the stock; none once the stock is out, when it can count them),
    and the move's value is ``blind`` times its value in the sample after that reply plus
    ``1 - blind`` times PIMC's (the best reply and the model's, by ``reply_weight``)."""

    def __init__(self, worlds: int = 4, blind: float = 1.0, **options: Any) -> None:
        super().__init__(**options)
        self.worlds, self.blind = worlds, blind

    def _sample_values(
        self, pos: tuple[Any, ...], rules: Rules, solver: Any = None
    ) -> list[tuple[int, int, float]]:
        opts, block = rules.core_options, rules.hand_size
        exact = self._exact(pos, rules)
        depth = self._depth(rules.players)
        if rules.players != 2 or (not exact and depth < 2):
            return super()._sample_values(pos, rules, solver)
        me = pos[5]
        out = []
        for c, m in core.legal_moves(pos[0][me], pos[1], opts):
            child = core.apply_move(pos, c, m, opts, block)
            if child[5] == me or not child[0][child[5]]:
                return super()._sample_values(pos, rules, solver)
            replies = self._minimax_values(child, rules, exact, depth - 1, solver)
            value = self._weighed(replies, child, self.reply_weight, opts)
            if child[2] and self.blind:
                mine = child[0][me]
                k = core.popcount(mine)
                cards = list(bits(mine)) + list(child[2])
                means = {(rc, rm): 0.0 for rc, rm, _ in replies}
                for _ in range(self.worlds):
                    self._rng.shuffle(cards)
                    hands = list(child[0])
                    hands[me] = sum(1 << x for x in cards[:k])
                    world = (tuple(hands), child[1], tuple(cards[k:]), *child[3:])
                    for rc, rm, v in self._minimax_values(world, rules, exact, depth - 1, solver):
                        means[(rc, rm)] += v
                choice = max(means, key=means.__getitem__)
                truth = {(rc, rm): v for rc, rm, v in replies}[choice]
                value = self.blind * truth + (1 - self.blind) * value
            out.append((c, m, -value))
        return out


class Factory:
    """An arena side: ``cls(seed=seed, **options)`` for each game (a player with a solver
    cannot be deep-copied)."""

    def __init__(self, cls: type, **options: Any) -> None:
        self.cls, self.options = cls, options
        self.__name__ = cls.__name__ + (json.dumps(options) if options else "")

    def __call__(self, seed: int, seat: int) -> Any:
        return self.cls(seed=seed, **self.options)


def predict(
    hands: int,
    samples: int,
    depth: int,
    seed: int,
    temperatures: tuple[float, ...],
    pimc: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Default PIMC self-play (``pimc``: options over its defaults; a test's, without a time
    limit, plays the same moves on a loaded machine): at each choice among two or more moves,
    the simulated opponent from the mover's view (its own hand, uniform deals of the rest)
    predicts the move. Returns the choices, the share whose move it ranks first, the same for
    a uniform guess (``chance``), and the mean log-likelihood of the choices at each
    temperature and under a uniform guess (``uniform``)."""
    rng = random.Random(seed)
    solver = core.Solver(2)
    logliks = dict.fromkeys(temperatures, 0.0)
    hits = n = 0
    chance = uniform = 0.0
    for _ in range(hands):
        s = State.deal("scopa", seed=rng.randrange(1 << 30))
        players = [
            PIMCPlayer(seed=rng.randrange(1 << 30), **{**PIMC_BEFORE, **(pimc or {})}) for _ in range(2)
        ]
        while not s.is_over:
            view = s.view(s.turn)
            move = players[s.turn].choose(view)
            legal = len(s.legal_moves())
            if legal > 1:
                chance += 1 / legal
                uniform -= math.log(legal)
                held, pos = view.hand.mask, s.masks  # the table, piles and last capturer are public
                values = simulated_values(
                    solver, rng, s.rules, held, s.turn, view.hand_sizes[1 - s.turn], pos[1],
                    pos[3], pos[6], core.FULL & ~(view.unseen.mask | held), samples, depth,
                )  # fmt: skip
                key = (move.card.index, move.capture_mask)
                hits += max(values, key=values.__getitem__) == key
                n += 1
                for t in temperatures:
                    logliks[t] += log_softmax(values, key, t)
            s = s.play(move)
    loglik = {t: v / n for t, v in logliks.items()}
    return {"choices": n, "top": hits / n, "chance": chance / n, "uniform": uniform / n, "loglik": loglik}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=60)
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--seed", type=int, default=99)
    args = parser.parse_args()
    t0 = time.perf_counter()
    temps = (0.05, 0.1, 0.2, 0.3, 0.5, 1.0)
    r = predict(args.hands, args.samples, args.depth, args.seed, temps)
    print(f"{r['choices']} choices of {args.hands} hands of PIMC self-play (seed {args.seed});")
    print(f"simulated opponent, {args.samples} samples, {args.depth} plays deep: top move {r['top']:.3f}")
    print(f"(a uniform guess: top move {r['chance']:.3f}, mean log-likelihood {r['uniform']:.3f})")
    print("| temperature | " + " | ".join(str(t) for t in temps) + " |")
    print("|---" * (len(temps) + 1) + "|")
    print("| mean log-likelihood | " + " | ".join(f"{r['loglik'][t]:.3f}" for t in temps) + " |")
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
