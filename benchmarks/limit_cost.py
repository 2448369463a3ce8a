"""What the limits cost the compiled solver: the same searches with and without them.

The core polls its stop flag and Ctrl-C every 4,096 nodes in every search, limited or not;
with a time limit it also reads the clock there, with a node limit it compares a count. This
script solves the same Scopone scientifico endgames (k = 5 and k = 6, drawn as in
``test_bench_solver.py``) through the core's ``Solver.solve`` with ``guess=0`` (so that every
mode searches the same tree: the node counts are checked equal) in four modes, in rounds, the
mode order rotating each round, and prints each mode's median wall time over the rounds and its
ratio to the unlimited one:

* ``none``: no limit (the flag and signal poll only);
* ``time``: ``time_limit=1e6`` (never reached: the clock read at each poll);
* ``nodes``: ``node_limit=2**61`` (never reached);
* ``stop``: a ``StopFlag`` that is never set.

For the instruction counts behind these figures (callgrind, collecting inside ``solve`` only)
see docs/benchmarks.md.

Run: ``python benchmarks/limit_cost.py --rounds 7`` (about 3 minutes).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

import scopa_core._core as core
from scopa import State


def positions(k: int, n: int) -> list[tuple[object, ...]]:
    out = []
    for i in range(n):
        rnd = random.Random(1000 * k + i)
        s = State.deal("scopone_scientifico", seed=rnd.getrandbits(32), dealer=rnd.randrange(4))
        while sum(len(h) for h in s.hands) > 4 * k:
            s = s.play(rnd.choice(s.legal_moves()))
        out.append(s.masks)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--k5", type=int, default=15)
    ap.add_argument("--k6", type=int, default=6)
    args = ap.parse_args(argv)
    rules = State.deal("scopone_scientifico", seed=0).rules
    opts, block = rules.core_options, rules.hand_size
    pos = positions(5, args.k5) + positions(6, args.k6)
    modes = {
        "none": {},
        "time": {"time_limit": 1e6},
        "nodes": {"node_limit": 1 << 61},
        "stop": {"stop": core.StopFlag()},
    }
    solver = core.Solver(128)
    seconds: dict[str, list[float]] = {m: [] for m in modes}
    nodes: dict[str, int] = {}
    names = list(modes)
    for r in range(args.rounds):
        order = names[r % len(names) :] + names[: r % len(names)]
        for m in order:
            total = 0
            t0 = time.perf_counter()
            for p in pos:
                solver.clear()
                out = solver.solve(p, opts, block, guess=0, **modes[m])
                total += out[6]
            seconds[m].append(time.perf_counter() - t0)
            assert nodes.setdefault(m, total) == total
    assert len(set(nodes.values())) == 1, f"the modes searched different trees: {nodes}"
    base = statistics.median(seconds["none"])
    head = f"{len(pos)} positions (k=5: {args.k5}, k=6: {args.k6}), {nodes['none']:,} nodes a round"
    print(f"{head}, {args.rounds} rounds")
    print("| limit | median s a round | min | max | vs none |")
    print("|---|---:|---:|---:|---:|")
    for m in names:
        s = seconds[m]
        med = statistics.median(s)
        print(f"| {m} | {med:.3f} | {min(s):.3f} | {max(s):.3f} | {med / base:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
