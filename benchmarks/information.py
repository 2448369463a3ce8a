"""What the hidden cards are worth: reference players that see some of them, against Greedy
(or, with ``--opponent pimc``, against default PIMC).

Every reference values the legal moves with the same search as ``PIMCPlayer`` (the exact
solver when at most ``--exact`` plays are left, else an alpha-beta ``--depth`` plays deep
with the evaluation of the open terms) and plays the best average over ``--samples``
samples of what it does not see:

- ``honest``: sees what a person sees (this is PIMC);
- ``sees-played``: sees another hand once its holder has played a card of it (since the hand
  was dealt or refilled), samples the rest as ``honest`` does: the most that inference from
  the plays could learn about the hands, were it perfect;
- ``sees-hands``: also sees the other hands; samples the stock order;
- ``clairvoyant``: sees everything (one search per move, no sampling).

``clairvoyant`` minus ``sees-hands`` is what the stock order is worth (and so roughly what
PIMC's solver, which knows each sample's stock order, can be misled by); ``sees-hands`` minus
``honest`` is what the other hands are worth, and ``sees-played`` minus ``honest`` the part of
it an inference from the plays could at best recover. (A mode that sees only the stock order would
see everything in a 2-player game, where the other hand is what is left.) Each deal is
played twice with the sides swapped, as in the arena.

Against default PIMC (``--opponent pimc``, strictly reproducible: all 128 samples, no time
cap) ``sees-played`` minus ``honest`` bounds what any inference from the plays could add to a
PIMC-like player in a match against PIMC, and ``clairvoyant`` what any information could.

Usage: python benchmarks/information.py [--game scopa] [--deals 1000] [--opponent greedy|pimc]
[MODE...]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from baselines import PIMC_BEFORE
from run_args import check_run_args

from scopa.move import Move
from scopa.players import GreedyPlayer, PIMCPlayer
from scopa.players.base import determinize
from scopa.rules import Rules
from scopa.state import State

MODES = ("honest", "sees-played", "sees-hands", "clairvoyant")


class Reference:
    """A player that is handed the true state and sees the part of it its mode allows."""

    def __init__(self, mode: str, rules: Rules, samples: int, exact: int, depth: int, seed: int) -> None:
        self.mode, self.rules, self.samples = mode, rules, samples
        self.rng = random.Random(seed)
        # PIMC's own valuation of one full position
        self.search = PIMCPlayer(
            samples=1,
            time_limit=None,
            seed=seed,
            exact_plays=exact,
            depth=depth,
            tt_size_mb=16,
            reply_weight=PIMC_BEFORE["reply_weight"],
        )

    def _sample(self, state: State) -> tuple:
        hands, table, stock, captured, scope, turn, last = state.masks
        if self.mode == "honest":
            return determinize(state.view(turn), self.rng).masks
        if self.mode == "sees-played":
            view = state.view(turn)
            full = self.rules.hand_size
            shown = {s: h for s, h in enumerate(hands) if s != turn and 0 < view.hand_sizes[s] < full}
            return determinize(view, self.rng, shown).masks
        # sees-hands: only the order of the stock is sampled
        shuffled = list(stock)
        self.rng.shuffle(shuffled)
        return (hands, table, tuple(shuffled), captured, scope, turn, last)

    def choose(self, state: State) -> Move:
        moves = state.legal_moves()
        if len(moves) == 1:
            return moves[0]
        totals = {(m.card.index, m.capture_mask): 0.0 for m in moves}
        rounds = 1 if self.mode == "clairvoyant" else self.samples
        for _ in range(rounds):
            pos = state.masks if self.mode == "clairvoyant" else self._sample(state)
            for c, m, v in self.search.sample_values(pos, self.rules):
                totals[(c, m)] += v
        return max(moves, key=lambda m: totals[(m.card.index, m.capture_mask)])


def opponent_for(name: str, seed: int) -> GreedyPlayer | PIMCPlayer:
    """The reference's opponent: today's Greedy, or default PIMC without its time cap."""
    if name == "greedy":
        return GreedyPlayer()
    if name == "pimc":
        return PIMCPlayer(seed=seed, time_limit=None)
    raise ValueError(f"unknown opponent {name!r}: expected greedy or pimc")


def run(
    mode: str,
    rules: Rules,
    deals: int,
    samples: int,
    exact: int,
    depth: int,
    seed: int,
    opponent: str = "greedy",
) -> list[float]:
    """Per duplicate deal: the reference's points minus the opponent's, averaged over both games."""
    rng = random.Random(seed)
    out = []
    for _ in range(deals):
        deal_seed, dealer = rng.getrandbits(63), rng.randrange(rules.players)
        total = 0
        for ref_team in (0, 1):
            ref = Reference(mode, rules, samples, exact, depth, deal_seed * 2 + ref_team)
            other = opponent_for(opponent, deal_seed * 2 + 1 - ref_team)
            state = State.deal(rules, seed=deal_seed, dealer=dealer)
            while not state.is_over:
                seat = state.turn
                move = ref.choose(state) if seat % 2 == ref_team else other.choose(state.view(seat))
                state = state.play(move)
            points = state.score().points
            total += points[ref_team] - points[1 - ref_team]
        out.append(total / 2)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("modes", nargs="*", default=list(MODES))
    parser.add_argument("--game", default="scopa")
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=32)
    parser.add_argument("--exact", type=int, default=12)
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--opponent", choices=("greedy", "pimc"), default="greedy")
    args = parser.parse_args(argv)
    # (checked before the first mode runs: an unknown mode was refused only after the modes
    # before it had run, --samples 0 or less played the first legal move every time, and --deals 1
    # or 0 ended in the interval's StatisticsError after the run)
    for mode in args.modes:
        if mode not in MODES:
            parser.error(f"unknown mode {mode!r}: expected one of {', '.join(MODES)}")
    check_run_args(parser, game=args.game)
    for name, low, high, why in (
        ("deals", 2, 10**6, " (an interval needs two)"),
        ("samples", 1, 10**6, ""),
        ("exact", 0, 40, ""),
        ("depth", 1, 40, ""),
    ):
        value = getattr(args, name)
        if not low <= value <= high:
            parser.error(f"bad --{name} {value}: expected an int in {low}..{high:,}{why}")
    check_run_args(parser, seed=args.seed)
    rules = Rules.preset(args.game)
    print(
        f"{args.game}, {args.deals} duplicate deals against {args.opponent}, {args.samples} samples, "
        f"exact from {args.exact} plays left, else depth {args.depth}"
    )
    print(f"| reference | points per hand over {args.opponent} [95% CI] | seconds |")
    print("|---|---|---:|")
    for mode in args.modes:
        t0 = time.perf_counter()
        diffs = run(mode, rules, args.deals, args.samples, args.exact, args.depth, args.seed, args.opponent)
        mean = statistics.mean(diffs)
        half = 1.96 * statistics.stdev(diffs) / len(diffs) ** 0.5
        print(
            f"| {mode} | {mean:+.2f} [{mean - half:+.2f}, {mean + half:+.2f}] | "
            f"{time.perf_counter() - t0:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
