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

from scopa.arena import arena
from scopa.players import GreedyPlayer, GreedyWeights


def variant(text: str) -> GreedyWeights:
    """``GreedyWeights`` from ``name=value,...`` (``default``: the defaults)."""
    if text == "default":
        return GreedyWeights()
    pairs = dict(item.split("=", 1) for item in text.split(","))
    return dataclasses.replace(GreedyWeights(), **{k: float(v) for k, v in pairs.items()})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("variants", nargs="+")
    parser.add_argument("--game", default="scopa")
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--against", choices=["default", "chance", "flat"], default="default")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    other = {"default": GreedyPlayer(), "chance": ChanceGreedy(), "flat": FlatRiskGreedy()}[args.against]
    for text in args.variants:
        t0 = time.perf_counter()
        r = arena(
            args.game, GreedyPlayer(variant(text)), other, deals=args.deals, seed=args.seed, jobs=args.jobs
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
