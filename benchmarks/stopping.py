"""How fast a search stops (RULES §8): the delay from Ctrl-C to the KeyboardInterrupt in the
caller of each long call of the core, and how long a call with ``time_limit=0.5`` takes. The
limits issue's bound for both is 1 s; the tests check that the searches stop (with hang guards
of many seconds), this script measures how fast, so a loaded machine cannot fail a test.

Run: ``python benchmarks/stopping.py --rounds 5`` on the compiled core, and the same with
``SCOPA_NO_EXTENSIONS=1`` on the twin (its children inherit the variable); ``--quick`` for one
round of each. The table lists, for each call, the median and the worst of its rounds.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable

import scopa
import scopa_core
from scopa import State

#: Long calls of the core (each would run for minutes), as code for a fresh interpreter.
LONG_CALLS = {
    "solve": "scopa.Solver(16).solve(scopa.State.deal('scopone_scientifico', seed=1))",
    "solve on 2 threads": "scopa.Solver(16, threads=2)"
    ".solve(scopa.State.deal('scopone_scientifico', seed=1))",
    "analyze": "scopa.Solver(16).analyze(scopa.State.deal('scopone_scientifico', seed=1))",
    "analyze on 2 threads": "scopa.Solver(16, threads=2)"
    ".analyze(scopa.State.deal('scopone_scientifico', seed=1))",
    "playouts": "scopa.random_playouts('scopone_scientifico', 50_000_000, seed=1)",
    "rollouts": "scopa_core.rollouts(scopa.State.deal('scopa', seed=1).masks, 0, 3, 20_000_000, 1)",
    "pimc": "scopa.players.PIMCPlayer(samples=10**9, time_limit=None, exact_plays=40)"
    ".choose(scopa.State.deal('scopone_scientifico', seed=1).view(1))",
}

#: How long a child may run on after its SIGINT before it is killed.
GRACE = 30.0


class StillRunning(RuntimeError):
    """A child process did not exit within :data:`GRACE` seconds of its SIGINT (it was killed)."""


def popen(args: list[str], env: dict[str, str] | None = None, group: bool = False) -> subprocess.Popen[str]:
    """Start ``args`` with SIGINT at its default: a shell that starts a job in the background
    (``&``) leaves SIGINT ignored in it, Python then installs no handler, and the child would
    ignore the Ctrl-C (the tests and this script may themselves be such a job). With ``group``
    it leads a process group of its own, for Ctrl-C to the group as a terminal sends it."""
    return subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=group,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def end_group(proc: subprocess.Popen[str]) -> None:
    """Kill whatever is left of the process group ``proc`` leads (:func:`popen` with ``group``:
    a worker that outlived its parent too), and wait for ``proc``."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def communicate(proc: subprocess.Popen[str]) -> tuple[str, str]:
    """The output of ``proc`` once it exits; if it has not within :data:`GRACE` seconds, kill
    it (never left running) and raise :class:`StillRunning`."""
    try:
        return proc.communicate(timeout=GRACE)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        raise StillRunning(
            f"still running {GRACE:.0f} s after SIGINT, killed; stderr: {err[-2000:]}"
        ) from None


def interrupt(code: str, wait: float = 0.5) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Run ``code`` in a fresh interpreter, send it SIGINT ``wait`` seconds after it is busy,
    and time how long it takes to exit after the signal."""
    script = textwrap.dedent(
        f"""
        import sys, time
        import scopa, scopa_core, scopa.players
        print("ready", flush=True)
        {code}
        print("finished", flush=True)
        """
    )
    proc = popen([sys.executable, "-c", script], dict(os.environ))
    assert proc.stdout is not None
    if proc.stdout.readline().strip() != "ready":
        proc.kill()
        raise RuntimeError(f"the child did not start: {proc.communicate()[1][-2000:]}")
    time.sleep(wait)  # well inside the long call
    t0 = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    out, err = communicate(proc)
    return time.perf_counter() - t0, subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def time_limited_calls(seed: int) -> list[tuple[str, Callable[[], object]]]:
    """``solve`` and ``analyze`` with ``time_limit=0.5`` (a fresh solver each) on a full
    Scopone scientifico deal, a 2-player Scopa deal and an endgame of 8 cards a hand."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from anytime import endgame, full_deal

    two = State.deal("scopa", seed=seed)
    sets = [("full deal", full_deal(seed)), ("scopa deal", two), ("k = 8", endgame(seed, 8))]
    calls: list[tuple[str, Callable[[], object]]] = []
    for name, s in sets:
        calls.append((f"solve, {name}", lambda s=s: scopa.Solver(16).solve(s, time_limit=0.5)))
        calls.append((f"analyze, {name}", lambda s=s: scopa.Solver(16).analyze(s, time_limit=0.5)))
    return calls


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--rounds", type=int, default=5, help="Ctrl-C rounds a call and seeds of the time-limited set"
    )
    ap.add_argument("--quick", action="store_true", help="one round of each")
    args = ap.parse_args(argv)
    rounds = 1 if args.quick else args.rounds
    print(f"scopa {scopa.__version__}, {scopa_core.IMPLEMENTATION} core, {rounds} rounds")
    print("\n| Ctrl-C during | rounds | median ms | worst ms | within 1 s |\n|---|---:|---:|---:|---|")
    for name, code in LONG_CALLS.items():
        delays = []
        for _ in range(rounds):
            delay, done = interrupt(code)
            if "KeyboardInterrupt" not in done.stderr or "finished" in done.stdout:
                raise RuntimeError(f"{name}: no KeyboardInterrupt: {done.stderr[-2000:]}")
            delays.append(delay)
        worst = max(delays)
        print(
            f"| {name} | {rounds} | {1000 * statistics.median(delays):.0f} | {1000 * worst:.0f} | "
            f"{'yes' if worst < 1.0 else 'NO'} |"
        )
    times: dict[str, list[float]] = {}
    for seed in range(rounds):
        for name, call in time_limited_calls(seed):
            t0 = time.perf_counter()
            call()
            times.setdefault(name, []).append(time.perf_counter() - t0)
    print("\n| `time_limit=0.5` | positions | median s | worst s | within 1 s |\n|---|---:|---:|---:|---|")
    for name, ts in times.items():
        ok = "yes" if max(ts) < 1.0 else "NO"
        print(f"| {name} | {len(ts)} | {statistics.median(ts):.3f} | {max(ts):.3f} | {ok} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
