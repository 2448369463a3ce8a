"""Tune the greedy player's weights: each variant against the default weights, or against the
greedy player of before the rebuild, on the same duplicate deals.

Usage: python benchmarks/greedy_tune.py [--game scopa] [--option re_bello ...] [--deals 1000]
[--against default|chance|flat] [--jobs 2] VARIANT...   where a VARIANT sets weights, e.g.
``sweep=3,partner=0.3`` (see ``scopa.players.GreedyWeights``); ``default`` is the default weights;
each ``--option`` turns a rule option on (RULES §7: ``re_bello``, ``napola``, ...).
"""

from __future__ import annotations

import argparse
import dataclasses
import time

from baselines import ChanceGreedy, FlatRiskGreedy
from run_args import check_run_args

from scopa.arena import arena
from scopa.errors import ScopaError
from scopa.players import GreedyPlayer, GreedyWeights
from scopa.rules import _BOOL_OPTIONS, Rules


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
    parser.add_argument("--option", action="append", default=[], choices=_BOOL_OPTIONS)
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
    check_run_args(parser, game=args.game, deals=args.deals, jobs=args.jobs, seed=args.seed)
    try:
        rules = Rules.preset(args.game).replace(**{name: True for name in args.option})
    except ScopaError as exc:
        parser.error(f"bad --option for {args.game}: {exc}")
    other = {"default": GreedyPlayer(), "chance": ChanceGreedy(), "flat": FlatRiskGreedy()}[args.against]
    for text in args.variants:
        t0 = time.perf_counter()
        r = arena(rules, GreedyPlayer(weights[text]), other, deals=args.deals, seed=args.seed, jobs=args.jobs)
        shown = ["scope", *(c for c in args.option if c in r.categories)]
        print(
            f"{text:<32} {r.diff:+.3f} [{r.ci95[0]:+.3f}, {r.ci95[1]:+.3f}]"
            + "".join(f"  {c} {r.categories[c][0]:.2f}-{r.categories[c][1]:.2f}" for c in shown)
            + f"  ({time.perf_counter() - t0:.0f} s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
