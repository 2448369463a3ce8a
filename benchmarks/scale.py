"""Scale (issue 19): threads in one process, batch solving on local workers and on a Dask
LocalCluster, and the arena on 1 and 2 workers, each pair measured side by side in one run.

Rows:

* ``analyze threads``: ``Solver(threads=2).analyze`` against ``Solver(threads=1)`` on the same
  Scopone scientifico endgames (k = 6 and k = 7 cards a hand, drawn as in
  ``test_bench_solver.py``), alternating which goes first; the values are checked equal.
* ``solve threads``: ``Solver(threads=2).solve`` against ``Solver(threads=1)`` on the same
  endgames (k = 6 and 7), alternating which goes first: the two threads share the table; the
  values are checked equal; totals over the positions, and the median of their ratios.
* ``pimc threads``: a ``PIMCPlayer(threads=2)`` move against ``threads=1`` at k = 5, each of
  its 32 samples solved exactly (``exact_plays=20``); the same move checked.
* ``batch``: ``scopa.batch.solve_many`` on k = 6 endgames in this process (``workers=1``), on a
  local pool of 2 processes, and on a ``distributed.LocalCluster`` of 2 worker processes
  (positions per second, ratio to the one process).
* ``arena``: pimc against greedy, 2-player Scopa, on 1 and 2 workers (deals per second).

Run: ``python benchmarks/scale.py`` (about 12 minutes on 2 cores); ``--quick`` for a smoke run,
``--solve-only`` for the solve rows alone.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

import scopa
from scopa import State
from scopa.arena import arena
from scopa.batch import solve_many


def endgame(seed: int, k: int) -> State:
    rnd = random.Random(seed)
    s = State.deal("scopone_scientifico", seed=rnd.getrandbits(32), dealer=rnd.randrange(4))
    while sum(len(h) for h in s.hands) > 4 * k:
        s = s.play(rnd.choice(s.legal_moves()))
    return s


def timed(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0


def analyze_threads(k: int, n: int) -> str:
    ones, twos = [], []
    for i in range(n):
        s = endgame(7000 + 100 * k + i, k)
        order = (1, 2) if i % 2 == 0 else (2, 1)
        got = {}
        for t in order:
            got[t], secs = timed(scopa.Solver(256, threads=t).analyze, s)
            (ones if t == 1 else twos).append(secs)
        assert dict(got[1]) == dict(got[2]), "threads changed a value"
    m1, m2 = statistics.median(ones), statistics.median(twos)
    return f"| analyze, k={k} | {n} | {m1:.3f} s | {m2:.3f} s | {m1 / m2:.2f}x |"


def solve_row(k: int, n: int) -> str:
    ones, twos = [], []
    for i in range(n):
        s = endgame(7000 + 100 * k + i, k)
        got = {}
        for t in (1, 2) if i % 2 == 0 else (2, 1):
            got[t], secs = timed(scopa.Solver(256, threads=t).solve, s)
            (ones if t == 1 else twos).append(secs)
        assert got[1].value == got[2].value, "threads changed a value"
    t1, t2 = sum(ones), sum(twos)
    per = statistics.median(a / b for a, b in zip(ones, twos, strict=True))
    return (
        f"| `Solver(threads=2).solve`, k={k} | {n} | {t1:.3f} s | {t2:.3f} s | {t1 / t2:.2f}x "
        f"(median of the positions' {per:.2f}x) |"
    )


def pimc_threads(n: int) -> str:
    from scopa.players import PIMCPlayer

    players = {t: PIMCPlayer(samples=32, seed=1, threads=t, time_limit=None, exact_plays=20) for t in (1, 2)}
    warm = endgame(899, 5)
    for p in players.values():  # the solvers (one a thread) made before the clock
        p.choose(warm.view(warm.turn))
    ones, twos = [], []
    for i in range(n):
        s = endgame(900 + i, 5)  # 20 plays left: each sample solved exactly
        view = s.view(s.turn)
        order = (1, 2) if i % 2 == 0 else (2, 1)
        got = {}
        for t in order:
            players[t]._rng.seed(i)  # the same samples for both
            got[t], secs = timed(players[t].choose, view)
            (ones if t == 1 else twos).append(secs)
        assert got[1] == got[2], "threads changed PIMC's move"
    m1, m2 = statistics.median(ones), statistics.median(twos)
    label = "PIMC move, k=5 (samples solved exactly), 32 samples"
    return f"| {label} | {n} | {m1:.3f} s | {m2:.3f} s | {m1 / m2:.2f}x |"


def batch_rows(n: int, k: int) -> list[str]:
    items = [(i, endgame(8000 + i, k)) for i in range(n)]
    rows = []
    results = {}
    # the pools first, the one-process run (which fills this process's solver and table) last:
    # a worker once was a fork of this process, its table and all (now a new interpreter)
    try:
        from distributed import Client, LocalCluster
    except ImportError:  # pragma: no cover - scopa[dask] not installed
        Client = None  # type: ignore[assignment,misc]
    t0 = time.perf_counter()
    out = {r["id"]: r["value"] for r in solve_many(items, workers=2)}
    results["local pool, 2 processes"] = (out, time.perf_counter() - t0)
    if Client is not None:
        cluster_args = {
            "n_workers": 2,
            "threads_per_worker": 1,
            "processes": True,
            "host": "127.0.0.1",
            "dashboard_address": "127.0.0.1:0",
        }
        with LocalCluster(**cluster_args) as cluster:
            with Client(cluster) as client:
                client.run(lambda: __import__("scopa"))  # workers warmed (imported) before the clock
                t0 = time.perf_counter()
                out = {r["id"]: r["value"] for r in solve_many(items, executor=client.get_executor())}
                results["Dask LocalCluster, 2 workers"] = (out, time.perf_counter() - t0)
    t0 = time.perf_counter()
    out = {r["id"]: r["value"] for r in solve_many(items, workers=1)}
    results["this process (workers=1)"] = (out, time.perf_counter() - t0)
    ref, base = results["this process (workers=1)"]
    for label in ("this process (workers=1)", "local pool, 2 processes", "Dask LocalCluster, 2 workers"):
        if label not in results:
            continue
        out, secs = results[label]
        assert out == ref, f"{label} gave other values"
        rows.append(f"| {label} | {n} k={k} | {secs:.1f} s | {n / secs:.2f} | {base / secs:.2f}x |")
    return rows


def arena_rows(deals: int) -> list[str]:
    rows = []
    base = None
    for jobs in (1, 2):
        t0 = time.perf_counter()
        r = arena("scopa", "pimc", "greedy", deals=deals, seed=5, jobs=jobs)
        secs = time.perf_counter() - t0
        base = base or secs
        rate = f"{deals / secs:.2f} | {base / secs:.2f}x"
        rows.append(f"| {jobs} | {deals} | {secs:.1f} s | {rate} | {r.diff:+.3f} |")
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--solve-only", action="store_true", help="only the solve threads rows")
    args = ap.parse_args(argv)
    q = args.quick
    print(f"{os.cpu_count()} CPUs, {scopa.CORE_IMPLEMENTATION} core")
    print("| work | positions | 1 thread | 2 threads | speed-up |")
    print("|---|---:|---:|---:|---:|")
    print(solve_row(6, 4 if q else 10), flush=True)
    print(solve_row(7, 1 if q else 6), flush=True)
    if args.solve_only:
        return 0
    print(analyze_threads(6, 4 if q else 10), flush=True)
    print(analyze_threads(7, 1 if q else 3), flush=True)
    print(pimc_threads(2 if q else 6), flush=True)
    print()
    print("| batch solve on | positions | wall | positions/s | vs one process |")
    print("|---|---:|---:|---:|---:|")
    for row in batch_rows(8 if q else 60, 5 if q else 6):
        print(row, flush=True)
    print()
    print("| arena workers | deals | wall | deals/s | vs 1 worker | pimc - greedy |")
    print("|---:|---:|---:|---:|---:|---:|")
    for row in arena_rows(4 if q else 60):
        print(row, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
