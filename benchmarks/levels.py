"""Ratings of the difficulty levels on one scale, from duplicate-deal results of pairs of levels.

Every pair of levels (``--pairs all``) or every adjacent pair (``--pairs adjacent``) plays
``--deals`` duplicate deals in the arena. Each duplicate deal is one game between the two
levels: won by the side with more points over its two hands, or level. A Bradley-Terry fit
of those results (Elo's scale: a 100-point gap means 64% of the deals, level 1 anchored at
1000) gives each level's rating; the 95% intervals come from 200 bootstrap resamples of the
deals. The arena's point differences are printed too.

Run: ``python benchmarks/levels.py --game scopa --deals 1000 --pairs all --jobs 2``.

``--move-times HANDS`` instead times every move of ``HANDS`` hands that each level plays
against itself in this process (one core): the mean, the 99th percentile and the longest move.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time

from run_args import check_run_args

from scopa.arena import arena
from scopa.players import LEVELS


def fit(results: dict[tuple[int, int], tuple[int, int, int]], n: int, iters: int = 500) -> list[float]:
    """Bradley-Terry strengths by the MM algorithm (draws count half to each), as Elo ratings
    with level 1 at 1000."""
    wins = {i: 0.0 for i in range(1, n + 1)}
    games: dict[tuple[int, int], float] = {}
    for (a, b), (wa, wb, d) in results.items():
        wins[a] += wa + d / 2
        wins[b] += wb + d / 2
        games[(a, b)] = wa + wb + d
    p = {i: 1.0 for i in wins}
    for _ in range(iters):
        new = {}
        for i in p:
            denom = 0.0
            for (a, b), g in games.items():
                if i in (a, b):
                    j = b if i == a else a
                    denom += g / (p[i] + p[j])
            new[i] = max(1e-9, wins[i] + 0.5) / max(1e-9, denom + 1.0 / (p[i] + 1.0))  # a weak prior
        s = sum(new.values())
        p = {i: v * len(new) / s for i, v in new.items()}
    base = math.log10(p[1])
    return [1000 + 400 * (math.log10(p[i]) - base) for i in range(1, n + 1)]


def move_times(game: str, hands: int, levels: list[int], seed: int = 1000) -> dict[int, list[float]]:
    """Seconds of every move of ``hands`` hands of ``game`` in which every seat plays the same
    level, for each of ``levels``."""
    import scopa
    from scopa.arena import _play
    from scopa.players import level

    out: dict[int, list[float]] = {}
    for n in levels:
        out[n] = []
        for h in range(hands):
            s = scopa.State.deal(game, seed=seed + h)
            _play(s, [level(n, seed=10 * h + i) for i in range(s.rules.players)], out[n])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="scopa")
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--pairs", choices=["all", "adjacent"], default="adjacent")
    ap.add_argument("--levels", type=int, default=len(LEVELS), help="rate levels 1..N")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--move-times", type=int, metavar="HANDS", help="time the levels' moves instead")
    args = ap.parse_args(argv)
    n = args.levels
    # (checked before any pair plays: --levels 7 ran every other pair, for hours at 1,000 deals,
    # before level 7 was refused; 0 or less ended in a KeyError of the fit; --move-times 0 ran
    # the ratings instead, and -1 a ZeroDivisionError)
    check_run_args(ap, game=args.game)
    low = 1 if args.move_times is not None else 2  # (a rating needs a pair)
    if not low <= n <= len(LEVELS):
        ap.error(f"bad --levels {n}: expected an int in {low}..{len(LEVELS)}")
    if args.move_times is not None and args.move_times < 1:
        ap.error(f"bad --move-times {args.move_times}: expected hands, an int >= 1")
    # (each pair plays seed + 97 a + b, an arena seed < 2**64: 63 bits)
    check_run_args(ap, deals=args.deals, jobs=args.jobs, seed=args.seed, seed_bits=63)
    if args.move_times is not None:
        print(f"{args.game}: every move of {args.move_times} hands a level, each level against itself")
        print("| level | moves | mean | 99th percentile | longest |")
        print("|---|---:|---:|---:|---:|")
        for k, times in move_times(args.game, args.move_times, list(range(1, n + 1))).items():
            times.sort()
            mean = sum(times) / len(times)
            p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
            ms = [f"{1000 * x:.1f} ms" for x in (mean, p99, times[-1])]
            print(f"| {k} | {len(times)} | {' | '.join(ms)} |")
        return 0
    pairs = [
        (a, b) for a in range(1, n + 1) for b in range(a + 1, n + 1) if args.pairs == "all" or b == a + 1
    ]
    per_deal: dict[tuple[int, int], list[int]] = {}
    results: dict[tuple[int, int], tuple[int, int, int]] = {}
    print(f"{args.game}: {args.deals} duplicate deals per pair, seed {args.seed}")
    print("| pair | A - B points per hand (95% CI) | deals won A/B/level | s/move A, B |")
    print("|---|---|---|---|")
    t0 = time.perf_counter()
    for a, b in pairs:
        r = arena(
            args.game, f"level{b}", f"level{a}", deals=args.deals, seed=args.seed + 97 * a + b, jobs=args.jobs
        )
        # the higher level is A here: wins of b, wins of a, level
        results[(b, a)] = r.pair_wins
        per_deal[(b, a)] = [1] * r.pair_wins[0] + [-1] * r.pair_wins[1] + [0] * r.pair_wins[2]
        print(
            f"| level {b} vs level {a} | {r.diff:+.3f} [{r.ci95[0]:+.3f}, {r.ci95[1]:+.3f}] | "
            f"{r.pair_wins[0]}/{r.pair_wins[1]}/{r.pair_wins[2]} | "
            f"{r.seconds_per_move[0]:.3f}, {r.seconds_per_move[1]:.3f} |"
        )
    ratings = fit(results, n)
    rnd = random.Random(args.seed)
    boots: list[list[float]] = []
    for _ in range(200):
        sample = {}
        for key, outcomes in per_deal.items():
            draw = [rnd.choice(outcomes) for _ in outcomes]
            sample[key] = (draw.count(1), draw.count(-1), draw.count(0))
        boots.append(fit(sample, n, iters=200))
    print()
    print(f"| level | rating (level 1 = 1000) | 95% interval | ({time.perf_counter() - t0:.0f} s) |")
    print("|---|---:|---|---|")
    for i in range(n):
        vals = sorted(b[i] for b in boots)
        lo, hi = vals[5], vals[194]
        print(f"| {i + 1} | {ratings[i]:.0f} | [{lo:.0f}, {hi:.0f}] | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
