"""Tune the greedy player's weights: each variant against the default weights, or against the
greedy player of before the rebuild, on the same duplicate deals.

Usage: python benchmarks/greedy_tune.py [--game scopa] [--deals 1000] [--against default|chance|flat]
[--jobs 2] VARIANT...   where a VARIANT sets weights, e.g. ``sweep=3,partner=0.3`` (see
``scopa.players.GreedyWeights``); ``default`` is the default weights.
"""

from __future__ import annotations

import argparse
import dataclasses
import time

from baselines import ChanceGreedy, FlatRiskGreedy

from scopa.arena import MAX_DEALS, MAX_JOBS, arena
from scopa.players import GreedyPlayer, GreedyWeights
from scopa.rules import PRESETS


def variant(text: str) -> GreedyWeights:
    """``GreedyWeights`` from ``name=value,...`` (``default``: the defaults)."""
    if text == "default":
        return GreedyWeights()
    items = [item.split("=", 1) for item in text.split(",")]
    if not all(len(pair) == 2 for pair in items):
        raise ValueError("a weight without '=value'")
    pairs = dict(items)
    return dataclasses.replace(GreedyWeights(), **{k: float(v) for k, v in pairs.items()})


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("variants", nargs="+")
    parser.add_argument("--game", default="scopa")
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--against", choices=["default", "chance", "flat"], default="default")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    # (every variant read before the first runs: a misspelt weight, 'sweep' without a value or a
    # negative weight ended in a traceback after the variants before it had run, 1,000 deals each)
    weights = {}
    names = ", ".join(f.name for f in dataclasses.fields(GreedyWeights))
    for text in args.variants:
        try:
            weights[text] = variant(text)
        except (ValueError, TypeError) as exc:
            parser.error(f"bad variant {text!r} ({exc}): expected 'default' or name=value,... of {names}")
    if args.game not in PRESETS:
        parser.error(f"bad --game {args.game!r}: expected one of {', '.join(PRESETS)}")
    if not 1 <= args.deals <= MAX_DEALS:
        parser.error(f"bad --deals {args.deals}: expected an int in 1..{MAX_DEALS:,}")
    if not 1 <= args.jobs <= MAX_JOBS:
        parser.error(f"bad --jobs {args.jobs}: expected an int in 1..{MAX_JOBS} (processes)")
    if not 0 <= args.seed < 2**64:
        parser.error(f"bad --seed {args.seed}: expected an int in 0..2**64-1")
    other = {"default": GreedyPlayer(), "chance": ChanceGreedy(), "flat": FlatRiskGreedy()}[args.against]
    for text in args.variants:
        t0 = time.perf_counter()
        r = arena(
            args.game, GreedyPlayer(weights[text]), other, deals=args.deals, seed=args.seed, jobs=args.jobs
        )
        scope = r.categories["scope"]
        print(
            f"{text:<32} {r.diff:+.3f} [{r.ci95[0]:+.3f}, {r.ci95[1]:+.3f}]"
            f"  scope {scope[0]:.2f}-{scope[1]:.2f}"
            f"  ({time.perf_counter() - t0:.0f} s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
