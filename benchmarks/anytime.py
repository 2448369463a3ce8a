"""Quality of the anytime answer: how often a bounded solve's best move is an optimal move.

Two sets (RULES §8): full Scopone scientifico deals, and k = 7 endgames (Scopone
scientifico deals played randomly until every hand holds 7 cards, as in
test_bench_solver.py). For each position and each time limit a fresh ``scopa.Solver``
solves it with ``time_limit=t``. On the k = 7 set the optimal moves come from an exact
``analyze``; a full deal cannot be solved, so there the reference is the answer with the
longest time limit (agreement with it is reported instead).

Run: ``python benchmarks/anytime.py --deals 100 --endgames 100 --times 0.1,1,10 --jobs 2``
(about 45 minutes of CPU for the whole set at these times); ``--quick`` for a smoke run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import scopa
from scopa import State
from scopa.batch import START_METHOD  # (workers as the batch runs start theirs: no fork)


def endgame(seed: int, k: int = 7) -> State:
    rnd = random.Random(seed)
    s = State.deal("scopone_scientifico", seed=rnd.getrandbits(32), dealer=rnd.randrange(4))
    while sum(len(h) for h in s.hands) > 4 * k:
        s = s.play(rnd.choice(s.legal_moves()))
    return s


def full_deal(seed: int) -> State:
    rnd = random.Random(seed)
    return State.deal("scopone_scientifico", seed=rnd.getrandbits(32), dealer=rnd.randrange(4))


def run_one(job: tuple[str, int, tuple[float, ...]]) -> dict[str, object]:
    kind, seed, times = job
    s = endgame(seed) if kind == "k7" else full_deal(seed)
    row: dict[str, object] = {"kind": kind, "seed": seed, "answers": {}}
    if kind == "k7":
        t0 = time.perf_counter()
        exact = scopa.Solver(256).analyze(s)
        best = max(exact.values())
        row["optimal"] = [str(m) for m, v in exact.items() if v == best]
        row["exact_seconds"] = time.perf_counter() - t0
    for t in times:
        r = scopa.Solver(256).solve(s, time_limit=t)
        row["answers"][t] = {  # type: ignore[index]
            "best": str(r.best_move),
            "exact": r.exact,
            "depth": r.depth,
            "seconds": r.seconds,
            "bounds": r.upper - r.lower,
        }
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--endgames", type=int, default=100)
    ap.add_argument("--times", default="0.1,1,10")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="4 positions a set, times 0.05,0.2")
    args = ap.parse_args(argv)
    # (checked before the pool starts: a word in --times ended in float()'s ValueError, a time of
    # 0 in the solver's LimitError from a worker, --jobs 0 in the pool's ValueError)
    try:
        times = tuple(float(x) for x in args.times.split(","))
    except ValueError:
        times = ()
    if not times or not all(0 < t <= 1e9 for t in times):  # (NaN fails too)
        ap.error(f"bad --times {args.times!r}: expected seconds in (0, 1e9] between commas, like 0.1,1,10")
    for name in ("deals", "endgames"):
        if getattr(args, name) < 0:
            ap.error(f"bad --{name} {getattr(args, name)}: expected an int >= 0")
    if not 1 <= args.jobs <= 256:
        ap.error(f"bad --jobs {args.jobs}: expected an int in 1..256 (processes)")
    if args.seed < 0:
        ap.error(f"bad --seed {args.seed}: expected an int >= 0")
    if args.quick:
        args.deals = args.endgames = 4
        times = (0.05, 0.2)
    jobs = [("full", args.seed * 100000 + i, times) for i in range(args.deals)]
    jobs += [("k7", args.seed * 100000 + 50000 + i, times) for i in range(args.endgames)]
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs, mp_context=get_context(START_METHOD)) as pool:
        rows = list(pool.map(run_one, jobs))
    wall = time.perf_counter() - t0
    print(
        f"{len(rows)} positions, {wall:.0f} s wall on {args.jobs} processes, {scopa.CORE_IMPLEMENTATION} core"
    )
    print("| set | time limit | positions | best move optimal | exact | median depth | worst call (s) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    longest = max(times)
    for kind, label in (("full", "full Scopone scientifico deal"), ("k7", "k = 7 endgame")):
        sel = [r for r in rows if r["kind"] == kind]
        if not sel:
            continue
        for t in times:
            answers = [r["answers"][t] for r in sel]  # type: ignore[index]
            if kind == "k7":
                good = sum(a["best"] in r["optimal"] for a, r in zip(answers, sel, strict=True))  # type: ignore[operator]
                measure = f"{100 * good / len(sel):.0f}%"
            else:
                ref = [r["answers"][longest]["best"] for r in sel]  # type: ignore[index]
                good = sum(a["best"] == b for a, b in zip(answers, ref, strict=True))
                measure = f"{100 * good / len(sel):.0f}% (vs the {longest:g} s answer)"
            exact = sum(bool(a["exact"]) for a in answers)
            depth = statistics.median(int(a["depth"]) for a in answers)
            worst = max(float(a["seconds"]) for a in answers)
            print(f"| {label} | {t:g} s | {len(sel)} | {measure} | {exact} | {depth:g} | {worst:.2f} |")
    k7 = [r for r in rows if r["kind"] == "k7"]
    if k7:
        secs = sorted(float(r["exact_seconds"]) for r in k7)  # type: ignore[arg-type]
        print(
            f"k = 7 exact analyze (the reference): median {statistics.median(secs):.2f} s, "
            f"worst {secs[-1]:.2f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
