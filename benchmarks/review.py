"""The review's speed, and a check of it on games where the loser is known to blunder.

1. Speed: a whole 2-player Scopa hand and a whole Scopone scientifico hand reviewed at the
   default budget (``scopa.review.DEFAULT_TIME`` per play), in seconds.
2. Check: PIMC against Random on ``--deals`` duplicate deals of 2-player Scopa (each deal
   played twice, the sides swapped), every game reviewed at ``--time`` per play; the mean
   loss per play the review gives each side (Random's must be far larger), fair and exact.

Run: ``python benchmarks/review.py --deals 200 --time 0.05 --jobs 2``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import scopa
from scopa.batch import START_METHOD  # (workers as the batch runs start theirs: no fork)
from scopa.players import PIMCPlayer, RandomPlayer
from scopa.review import DEFAULT_TIME, MAX_TIME_PER_PLAY, review


def whole_hand(game: str, seed: int) -> scopa.State:
    s = scopa.State.deal(game, seed=seed, dealer=0)
    players = [PIMCPlayer(seed=seed * 10 + i, time_limit=0.05) for i in range(s.rules.players)]
    while not s.is_over:
        s = s.play(players[s.turn].choose(s.view(s.turn)))
    return s


def speed(seeds: int) -> list[tuple[str, float, int]]:
    out = []
    for game in ("scopa", "scopone_scientifico"):
        for seed in range(seeds):
            s = whole_hand(game, seed)
            t0 = time.perf_counter()
            review(s, time_limit=DEFAULT_TIME)
            out.append((game, time.perf_counter() - t0, len(s.history)))
    return out


def duplicate(job: tuple[int, float]) -> list[tuple[str, float, int | None]]:
    """Both games of one deal, PIMC holding seat 0, then seat 1; each play's (side, loss, dd_loss)."""
    seed, per_play = job
    rows: list[tuple[str, float, int | None]] = []
    for pimc_seat in (0, 1):
        s = scopa.State.deal("scopa", seed=seed, dealer=1)
        players = {pimc_seat: PIMCPlayer(seed=seed, time_limit=0.05), 1 - pimc_seat: RandomPlayer(seed=seed)}
        while not s.is_over:
            s = s.play(players[s.turn].choose(s.view(s.turn)))
        for p in review(s, time_limit=per_play, seed=seed).plays:
            rows.append(("pimc" if p.seat == pimc_seat else "random", p.loss, p.dd_loss))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--time", type=float, default=0.05, help="review budget per play in the check")
    ap.add_argument("--speed-hands", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    # (checked before the speed rows, a minute of reviews: --deals 0 ended in a StatisticsError,
    # --time 0 in the review's LimitError from a worker, --speed-hands 0 in an IndexError)
    for name, value in (("deals", args.deals), ("speed-hands", args.speed_hands)):
        if value < 1:
            ap.error(f"bad --{name} {value}: expected an int >= 1")
    if not 0 < args.time <= MAX_TIME_PER_PLAY:  # (NaN fails too)
        ap.error(f"bad --time {args.time}: expected seconds per play in (0, {MAX_TIME_PER_PLAY:g}]")
    if not 1 <= args.jobs <= 256:
        ap.error(f"bad --jobs {args.jobs}: expected an int in 1..256 (processes)")
    print(f"review at the default budget ({DEFAULT_TIME:g} s per play), {scopa.CORE_IMPLEMENTATION} core:")
    print("| game | hands | plays a hand | seconds a hand (median) | worst |")
    print("|---|---:|---:|---:|---:|")
    rows = speed(args.speed_hands)
    for game in ("scopa", "scopone_scientifico"):
        secs = [t for g, t, _ in rows if g == game]
        plays = [n for g, _, n in rows if g == game]
        print(f"| {game} | {len(secs)} | {plays[0]} | {statistics.median(secs):.1f} | {max(secs):.1f} |")
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs, mp_context=get_context(START_METHOD)) as pool:
        jobs = [(s, args.time) for s in range(args.deals)]
        results = [r for deal in pool.map(duplicate, jobs) for r in deal]
    print()
    print(
        f"PIMC (50 ms a move) against Random, {args.deals} duplicate deals of 2-player Scopa "
        f"({2 * args.deals} hands), reviewed at {args.time:g} s per play ({time.perf_counter() - t0:.0f} s):"
    )
    print("| side | plays | loss per play | loss per hand | marked | exact loss per play (solved) |")
    print("|---|---:|---:|---:|---:|---:|")
    for side in ("pimc", "random"):
        sel = [r for r in results if r[0] == side]
        dd = [r[2] for r in sel if r[2] is not None]
        marked = sum(1 for r in sel if r[1] > 0.5)
        print(
            f"| {side} | {len(sel)} | {statistics.mean(r[1] for r in sel):.3f} | "
            f"{sum(r[1] for r in sel) / (2 * args.deals):.2f} | {marked} | "
            f"{statistics.mean(dd):.3f} ({len(dd)}) |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
