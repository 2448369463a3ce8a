"""The ``scopa`` command (also ``python -m scopa``).

Subcommands:
  simulate   play many random hands inside the core and print points per hand by category
  deal       deal a hand and print it with its JSON and position string
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

import scopa
from scopa.errors import ScopaError


def _simulate(args: argparse.Namespace) -> int:
    rules = scopa.Rules.preset(args.game)
    t0 = time.perf_counter()
    p = scopa.random_playouts(rules, args.hands, seed=args.seed)
    dt = time.perf_counter() - t0
    print(
        f"{args.hands:,} random hands of {rules.game} (seed {args.seed}), "
        f"{scopa.CORE_IMPLEMENTATION} core: {dt:.3f} s, {args.hands / max(dt, 1e-9):,.0f} hands/s"
    )
    print(f"{'points per hand':<16} {'team 0 (leads)':>14} {'team 1':>8}")
    for name, (a, b) in p.mean_points().items():
        print(f"{name:<16} {a:>14.3f} {b:>8.3f}")
    return 0


def _deal(args: argparse.Namespace) -> int:
    s = scopa.State.deal(scopa.Rules.preset(args.game), seed=args.seed, dealer=args.dealer)
    print(s)
    print(s.to_json())
    print(s.to_string())
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="scopa", description="Scopa and Scopone engine")
    parser.add_argument("--version", action="version", version=f"scopa {scopa.__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    sim = sub.add_parser("simulate", help="random hands inside the core, mean points per category")
    sim.add_argument("--game", default="scopone_scientifico", choices=scopa.PRESETS)
    sim.add_argument("--hands", type=int, default=100_000)
    sim.add_argument("--seed", type=int, default=1)
    sim.set_defaults(func=_simulate)
    deal = sub.add_parser("deal", help="deal a hand and print it, its JSON and its position string")
    deal.add_argument("--game", default="scopone_scientifico", choices=scopa.PRESETS)
    deal.add_argument("--seed", type=int, default=1)
    deal.add_argument("--dealer", type=int, default=0)
    deal.set_defaults(func=_deal)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``scopa`` command; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except ScopaError as exc:
        print(f"scopa: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
