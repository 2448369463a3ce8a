"""What a search bounded by a stop flag alone costs against an unbounded one (RULES §8).

A stop flag alone (``Limit(stop=flag)``: the engine's ``stop``, a batch run's jobs on threads,
Ctrl-C in ``scopa solve``) makes ``solve`` and ``analyze`` anytime: they must have an answer
should the flag come. The solver tries the exact search first for
``scopa.solver.EXACT_FIRST_SECONDS`` (most positions are solved in it), then the iterative
deepening for at most ``ID_SECONDS_UNBOUNDED`` in all, then the exact search until the flag is
set. This script times both ways on the same endgames, side by side, each on a fresh solver:
2-player Scopa with 3 cards a hand (most solved in milliseconds) and Scopone scientifico with 6
(some past the first try).

Run: ``python benchmarks/flag_only.py`` (``--count N`` endgames of each kind, default 6).
"""

from __future__ import annotations

import argparse
import random
import time

import scopa
from scopa import Limit, State, StopFlag

#: (game, cards a hand left) of the endgames timed.
KINDS = (("scopa", 3), ("scopone_scientifico", 6))


def endgames(game: str, k: int, count: int, seed: int = 2) -> list[State]:
    """``count`` deals of ``game`` played at random until every hand holds ``k`` cards."""
    rnd = random.Random(seed)
    out = []
    for i in range(count):
        s = State.deal(game, seed=i)
        while sum(len(h) for h in s.hands) > len(s.hands) * k:
            s = s.play(rnd.choice(s.legal_moves()))
        out.append(s)
    return out


def timed(call: str, state: State, flag: bool) -> tuple[float, bool]:
    """Seconds of one ``solve`` or ``analyze`` of ``state`` on a fresh solver, and whether it
    was exact (it must be: nothing sets the flag)."""
    solver = scopa.Solver(64)
    limit = Limit(stop=StopFlag()) if flag else None
    t0 = time.perf_counter()
    result = getattr(solver, call)(state, limit)
    return time.perf_counter() - t0, bool(result.exact)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=6, help="endgames of each kind (default 6)")
    args = ap.parse_args(argv)
    print(f"{'call':8} {'endgames':42} {'unbounded':>10} {'flag only':>10} {'ratio':>6}")
    for call in ("solve", "analyze"):
        for game, k in KINDS:
            states = endgames(game, k, args.count)
            plain = flag = 0.0
            for s in states:
                a, exact_a = timed(call, s, False)
                b, exact_b = timed(call, s, True)
                assert exact_a and exact_b, "a search nothing stopped was not exact"
                plain += a
                flag += b
            what = f"{len(states)} of {game}, {k} cards a hand"
            print(f"{call:8} {what:42} {plain:9.3f}s {flag:9.3f}s {flag / plain:6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
