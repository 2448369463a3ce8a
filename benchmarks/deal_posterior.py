"""What PIMC's inference of four hands costs (``scopa.players.inference.deal_posterior``).

It weighs ``candidates`` deals of the other three hands by their seats' plays (docs/players.md).
This script times it on one Scopone scientifico position 14 plays into a hand, at the default 512
candidates and at the most, 100,000: the best of several runs each. With a searcher's limit
(``give_up``) it is also cut short; here it runs whole.

Run: ``python benchmarks/deal_posterior.py`` (``--repeat N`` runs of the default, default 50).
``--limit MS`` also times fresh seeded PIMC players' moves at that time limit, at 512 and at
100,000 candidates (a move's time past its limit is the inference's longest stretch between two
askings of ``give_up``, which this prints too for 100,000: it runs whole, asked and told no).
"""

from __future__ import annotations

import argparse
import random
import time
import timeit

from scopa import State
from scopa.players.inference import OpponentModel, deal_posterior


def position() -> State:
    """The position timed: a deal of Scopone scientifico (seed 21), 14 random plays into it."""
    s = State.deal("scopone_scientifico", seed=21, dealer=0)
    rng = random.Random(4)
    for _ in range(14):
        s = s.play(rng.choice(s.legal_moves()))
    return s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=50, help="runs at 512 candidates (100,000: a tenth)")
    parser.add_argument("--limit", type=float, default=None, help="PIMC's moves timed at this limit, ms")
    args = parser.parse_args()
    s = position()
    view, model = s.view(s.turn), OpponentModel()
    for n, runs in ((512, args.repeat), (100_000, max(1, args.repeat // 10))):
        best = min(
            timeit.repeat(lambda n=n: deal_posterior(view, model, random.Random(1), n), number=1, repeat=runs)
        )
        print(f"{n:>7,} candidates: {best * 1000:.2f} ms (best of {runs})")
    if args.limit is not None:
        from scopa.players import PIMCPlayer

        for n in (512, 100_000):
            times = []
            for _ in range(12):
                player = PIMCPlayer(time_limit=args.limit / 1000, seed=1, candidates=n)
                start = time.perf_counter()
                player.choose(view)
                times.append(round((time.perf_counter() - start) * 1000, 1))
            print(f"{n:>7,} candidates, PIMC at {args.limit:g} ms: {times} ms a move")
        asked: list[float] = []
        start = time.perf_counter()

        def give_up() -> bool:
            asked.append(time.perf_counter())
            return False

        deal_posterior(view, model, random.Random(1), 100_000, give_up)
        marks = [start, *asked, time.perf_counter()]
        gap = max(b - a for a, b in zip(marks, marks[1:], strict=False))
        print(f"100,000 candidates: give_up asked {len(asked)} times, at most {gap * 1000:.1f} ms apart")


if __name__ == "__main__":
    main()
