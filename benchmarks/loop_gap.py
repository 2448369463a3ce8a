"""How long a long reply's writing holds up an event loop, written in a thread.

Python's C JSON encoder holds the GIL until it returns, so a reply of megabytes written by
``jsonio.dumps`` in a worker thread still stops the server's event loop for its whole length;
``jsonio.dumps_in_pieces`` writes the same text in pieces, letting the loop run between them.
For each writer in turn (``--runs`` times each, interleaved), a reply of ``--plays`` review-like
plays (80,000: about 10 MB) is written in a thread while the loop wakes every millisecond;
prints the writing's seconds and the loop's longest wait.

Run: ``python benchmarks/loop_gap.py --plays 80000 --runs 3``. With ``--table MB`` it measures
instead a solver's transposition table of MB made in a thread (``scopa_core.Solver(MB)``, whose
zeroing once held the GIL throughout: a server's first search in each worker thread):
``python benchmarks/loop_gap.py --table 1024 --runs 3``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from scopa import jsonio


def reply(plays: int) -> dict[str, Any]:
    """A review-like reply of ``plays`` plays (each about 125 characters of JSON)."""
    play = {
        "seat": 0,
        "move": "7dx3c4s",
        "values": {"7dx3c4s": 1.25, "2c": -0.5, "Kc": 0.0, "As": 0.75},
        "best": "7dx3c4s",
        "loss": 0.125,
    }
    return {"id": 1, "result": {"plays": [dict(play, seat=i % 2) for i in range(plays)]}}


async def _gap(write: Callable[[Any], str], obj: Any) -> tuple[float, float, int]:
    """The writing's seconds, the loop's longest wait meanwhile, and the text's length."""
    loop = asyncio.get_running_loop()
    longest = 0.0
    done = False

    async def ticker() -> None:
        nonlocal longest
        last = time.perf_counter()
        while not done:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            longest = max(longest, now - last)
            last = now

    tick = asyncio.create_task(ticker())
    await asyncio.sleep(0.01)
    t0 = time.perf_counter()
    text = await loop.run_in_executor(None, write, obj)
    seconds = time.perf_counter() - t0
    done = True
    await tick
    return seconds, longest, len(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plays", type=int, default=80_000, help="plays in the reply (default 80,000)")
    ap.add_argument("--runs", type=int, default=3, help="runs of each writer, interleaved (default 3)")
    ap.add_argument("--table", type=int, default=None, help="MB of a solver's table to make instead")
    args = ap.parse_args(argv)
    for name in ("plays", "runs"):
        if getattr(args, name) < 1:
            ap.error(f"bad --{name} {getattr(args, name)}: expected an integer >= 1")
    if args.table is not None and not 1 <= args.table <= 65536:
        ap.error(f"bad --table {args.table}: expected MB in 1..65536, as a solver's table")
    if args.table is not None:
        import scopa_core

        def make(mb: int) -> str:
            scopa_core.Solver(mb)
            return ""

        runs = [asyncio.run(_gap(make, args.table)) for _ in range(args.runs)]
        gaps = [r[1] for r in runs]
        print(
            f"a solver's table of {args.table} MB made in a thread ({scopa_core.IMPLEMENTATION} core),"
            f" {args.runs} runs:"
        )
        print(
            f"{statistics.median(r[0] for r in runs):.3f} s (median); the loop's longest wait"
            f" {1000 * statistics.median(gaps):.1f} ms (median), {1000 * max(gaps):.1f} ms (max)"
        )
        return 0
    obj = reply(args.plays)
    writers = {"dumps": jsonio.dumps, "dumps_in_pieces": jsonio.dumps_in_pieces}
    if len({w(obj) for w in writers.values()}) != 1:
        raise SystemExit("the two writers wrote different texts")
    results: dict[str, list[tuple[float, float, int]]] = {name: [] for name in writers}
    for _ in range(args.runs):
        for name, write in writers.items():
            results[name].append(asyncio.run(_gap(write, obj)))
    size = results["dumps"][0][2]
    print(
        f"a reply of {args.plays:,} plays ({size / 1e6:.1f} MB), written in a thread, {args.runs} runs each:"
    )
    print("| writer | seconds (median) | the loop's longest wait (median, max) |")
    print("|---|---:|---:|")
    for name, runs in results.items():
        seconds = statistics.median(r[0] for r in runs)
        gaps = [r[1] for r in runs]
        print(
            f"| `{name}` | {seconds:.3f} "
            f"| {1000 * statistics.median(gaps):.1f} ms, {1000 * max(gaps):.1f} ms |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
