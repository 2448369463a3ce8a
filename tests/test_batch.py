"""Batch work (scopa.batch, ``scopa batch``) on a local process pool and on a real Dask cluster
(a ``distributed.LocalCluster`` of 2 worker processes): the same values as one process, every
result once when a worker dies, a killed ``scopa batch`` resumed, the arena with a user's player."""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import json
import math
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import TWIN_RUN

import scopa
from scopa.arena import arena
from scopa.batch import BatchError, analyze_many, map_chunks, review_many, run_jsonl, solve_many

distributed = pytest.importorskip("distributed")


def endgames(count: int, k: int, seed: int = 0) -> list[tuple[int, str]]:
    """Scopone scientifico deals played at random until every hand holds k cards (RULES §2)."""
    rnd = random.Random(seed)
    out = []
    for i in range(count):
        s = scopa.State.deal("scopone_scientifico", seed=rnd.getrandbits(32), dealer=rnd.randrange(4))
        while sum(len(h) for h in s.hands) > 4 * k:
            s = s.play(rnd.choice(s.legal_moves()))
        out.append((i, s.to_string()))
    return out


class CapturesFirst:
    """A user's own player: the capture that takes most cards, else the lowest card."""

    def choose(self, view: scopa.PlayerView) -> scopa.Move:
        moves = view.legal_moves()
        caps = [m for m in moves if m.is_capture]
        if caps:
            return max(caps, key=lambda m: len(m.captures))
        return min(moves, key=lambda m: m.card.value)


#: Seconds a test on a Dask cluster may take before it is failed as hung (they take seconds; one
#: hung for 19 minutes on a loaded machine, until interrupted): a generous bound, not a timing.
HANG_GUARD = float(os.environ.get("SCOPA_TEST_HANG_GUARD", "300"))


@pytest.fixture
def hang_guard() -> Iterator[None]:
    """Fails the test, with every thread's stack on standard error, if it runs longer than
    HANG_GUARD seconds (SIGALRM interrupts the wait of the main thread; where there is no
    SIGALRM, or off the main thread, faulthandler_timeout's stacks and .ci/test's deadline remain)."""
    import faulthandler

    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def hung(signum: int, frame: Any) -> None:
        faulthandler.dump_traceback(all_threads=True)
        pytest.fail(f"hung: the test ran more than {HANG_GUARD:g} s (its threads' stacks are above)")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.setitimer(signal.ITIMER_REAL, HANG_GUARD)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _local_cluster() -> Any:
    # (this machine's addresses only, the web pages on a free port: dashboard_address=None still
    # took 8787, and a second cluster warned that it was in use)
    return distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0"
    )


@pytest.fixture(scope="module")
def shared_cluster() -> Iterator[Any]:
    c = _local_cluster()
    client = distributed.Client(c)
    yield client
    client.close()
    c.close()


@pytest.fixture
def cluster(shared_cluster: Any, hang_guard: None) -> Any:
    """The module's cluster (2 workers; a test that kills a worker takes a cluster of its own,
    fresh_cluster), for a test that fails as hung after HANG_GUARD seconds."""
    shared_cluster.wait_for_workers(2, timeout=120)
    return shared_cluster


@pytest.fixture
def fresh_cluster(hang_guard: None) -> Iterator[Any]:
    """A cluster of the test's own, for a test that kills its workers (so that a worker killed,
    and the nanny restarting it on a loaded machine, cannot stall the tests that follow)."""
    c = _local_cluster()
    client = distributed.Client(c)
    try:
        yield client
    finally:
        client.close()
        c.close()


def test_same_values_on_a_local_pool_and_in_one_process():
    items = endgames(40, 2)
    one = {r["id"]: r["value"] for r in solve_many(items, workers=1)}
    two = {r["id"]: r["value"] for r in solve_many(items, workers=2)}
    assert one == two and len(one) == 40 and None not in one.values()
    exact = {i: scopa.solve(scopa.State.from_string(p)).value for i, p in items[:10]}
    assert all(one[i] == v for i, v in exact.items())
    a = next(analyze_many([("x", items[0][1])], workers=1))
    assert a["id"] == "x" and max(a["moves"].values()) == one[0]
    bad = list(solve_many([("bad", "scopa 7d")], workers=1))
    assert bad[0]["id"] == "bad" and bad[0]["error"]["type"] == "PositionError"
    # (the command line's user reads it too: the Executor is said to be Python's, a CLI audit)
    with pytest.raises(
        BatchError, match="bad executor 'ftp://x'.* inproc://\\), or from Python an Executor$"
    ):
        list(solve_many(items, executor="ftp://x"))
    # refused at once, before a connection (port 99999 waited the 10 s connect timeout)
    for bad in ("tcp://127.0.0.1:99999", "dask://h:0", "tcp://h:x", "tcp://:8786", "tls://h:1/path"):
        with pytest.raises(
            BatchError, match=f"bad executor '{bad}': .*'tcp://HOST:PORT' with a port in 1..65535"
        ):
            list(solve_many(items, executor=bad))


def test_batch_results_are_the_engines_replies():
    # the engine, `scopa batch` and the library wrote a solve's and an analysis's JSON each its
    # own way: batch lacked `depth`, and its analysis `lines` lacked `value` and `exact` and were
    # in move order, the engine's best first. One to_json each now, under every transport.
    from scopa.protocol import Protocol

    pos = "scopa 7dKc3b/2cAs5d 3c4s 6c7sQb3d4d2b -/- 0/0 0 - 1"
    proto = Protocol()
    for cmd, many in (("solve", solve_many), ("analyze", analyze_many)):
        for limit in ({}, {"node_limit": 300}):  # (exact, and cut short: every field either way)
            [batch] = many([("p", pos)], workers=1, **limit)
            reply = proto.execute(proto.parse({"id": 1, "cmd": cmd, "position": pos, **limit}))
            assert reply is not None and reply.pop("id") == 1 and batch.pop("id") == "p", reply
            assert list(batch) == list(reply), cmd  # (the same fields, in the same order)
            key = "value" if cmd == "solve" else "moves"
            if not limit:
                assert batch[key] == reply[key] and batch["exact"] and reply["exact"]
    lines = next(analyze_many([("p", pos)], workers=1))["lines"]
    assert lines[0]["estimate"] == max(x["estimate"] for x in lines) and set(lines[0]) == {
        "move", "value", "lower", "upper", "estimate", "exact",
    }  # fmt: skip


def _slow_square(x: int) -> tuple[int, int]:
    time.sleep(0.05)
    return x, x * x


def test_a_finished_run_leaves_no_worker_behind():
    # A run read to its end joins its pool's processes before the generator returns (they
    # were once left to the interpreter's exit, which could print an ignored OSError).
    import multiprocessing

    before = set(multiprocessing.active_children())
    assert sorted(map_chunks(_slow_square, range(8), workers=2)) == [(x, x * x) for x in range(8)]
    assert set(multiprocessing.active_children()) <= before


#: Set in the calling process by the test below: a forked worker would find it set too.
_SET_IN_THE_CALLER: list[str] = []


def _seen_in_the_worker(_: int) -> list[str]:
    return list(_SET_IN_THE_CALLER)


def test_a_local_pools_workers_are_new_interpreters_not_forks_of_the_caller():
    # The run's own pool forked the calling process (Linux's default before Python 3.14), threads
    # and all (pytest's faulthandler watchdog here, a Dask client's, a server's, a caller's own):
    # Python 3.12 warns that the child may deadlock. Its workers now start as new interpreters
    # (START_METHOD, as on macOS and Windows), which import what they run: nothing of the
    # caller's memory is in them.
    _SET_IN_THE_CALLER.append("forked")
    try:
        got = list(map_chunks(_seen_in_the_worker, range(4), workers=2, chunksize=1))
    finally:
        _SET_IN_THE_CALLER.clear()
    assert got == [[], [], [], []]


@pytest.mark.skipif(
    sys.version_info < (3, 12), reason="Python 3.12 is the first to warn of fork with threads"
)
def test_a_batch_run_with_a_thread_running_forks_nothing(tmp_path):
    # The warning itself, in a program of its own: a thread runs while a local pool starts its
    # workers. (-W error does not make that warning an error: the interpreter drops it once
    # issued; "always" shows it, a module's DeprecationWarning being hidden by default.)
    script = tmp_path / "threaded.py"
    script.write_text(
        textwrap.dedent(
            """
            import threading
            from scopa.batch import map_chunks

            if __name__ == "__main__":
                done = threading.Event()
                threading.Thread(target=done.wait, daemon=True).start()
                print(sorted(map_chunks(abs, range(-6, 0), workers=2, chunksize=1)))
                done.set()
            """
        )
    )
    ran = _guarded([sys.executable, "-W", "always::DeprecationWarning", str(script)])
    assert ran.returncode == 0 and ran.stdout == "[1, 2, 3, 4, 5, 6]\n", ran.stderr
    assert "fork" not in ran.stderr, ran.stderr


def test_a_chunk_that_cannot_be_sent_or_loaded_is_a_batch_error_saying_so(tmp_path):
    # A function (or a player's class) defined in a notebook, at the prompt or in python -c is
    # not in a new interpreter: the pool's own loading killed the worker, three times, and the
    # run said "lost 3 times ... a crash", each worker's traceback on standard error. A lambda
    # was the pool's PicklingError. Both are BatchErrors that say what to do.
    code = textwrap.dedent(
        """
        from scopa.arena import arena
        from scopa.batch import BatchError, map_chunks

        def double(x):
            return 2 * x

        class Lowest:
            def choose(self, view):
                return min(view.legal_moves(), key=lambda m: m.card.value)

        for run in (
            lambda: list(map_chunks(double, range(4), workers=2)),
            lambda: arena("scopa", Lowest(), "greedy", deals=2, jobs=2),
            lambda: list(map_chunks(lambda x: x, range(4), workers=2)),
        ):
            try:
                run()
            except BatchError as exc:
                print("BatchError:", exc)
        """
    )
    done = _guarded([sys.executable, "-c", code])
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    fn, player, unpicklable = done.stdout.splitlines()
    assert fn.startswith("BatchError: a worker process could not load the chunk of items [")
    assert "Can't get attribute 'double' on <module '__main__'" in fn and "python -c" in fn
    assert "a worker process could not load" in player and "Can't get attribute 'Lowest'" in player
    assert unpicklable.startswith("BatchError: cannot send the chunk of items [0] to the worker processes")
    # a player of a module the workers import plays there as here
    here = arena("scopa", CapturesFirst(), "greedy", deals=4, seed=3)
    there = arena("scopa", CapturesFirst(), "greedy", deals=4, seed=3, jobs=2)
    assert (there.diff, there.points, there.categories) == (here.diff, here.points, here.categories)


def test_what_cannot_come_back_from_a_worker_is_a_batch_error_saying_so(tmp_path):
    # A job raising an exception whose __init__ takes other arguments than its args (a common
    # pattern), or returning a result that does not pickle or load back, broke the pool's
    # sending: the chunk ran three times and the run said "lost 3 times ... a crash, os._exit or
    # out of memory". An item found but whose loading raised was said to be a function defined
    # in a notebook. Each is now a BatchError that says what happened (the job's own traceback
    # in its chain), after the results finished so far; the arena's messages name deals.
    (tmp_path / "jobs.py").write_text(
        textwrap.dedent(
            """
            import threading

            class Odd(Exception):
                def __init__(self, text, code):
                    super().__init__(text)
                    self.code = code

            class Half:  # pickles, but does not load: __reduce__ gives one of two arguments
                def __init__(self, a, b):
                    self.a = a
                def __reduce__(self):
                    return (Half, (self.a,))

            class Brittle:  # pickles, but its loading raises (found all the same)
                def __init__(self):
                    self.x = 1
                def __setstate__(self, state):
                    raise ValueError("cannot be loaded")

            def odd(x):
                if x == 5:
                    raise Odd("bad item 5", 2)
                return x

            def half(x):
                return Half(x, 1)

            def lock(x):
                return threading.Lock()

            def ident(x):
                return x
            """
        )
    )
    (tmp_path / "run.py").write_text(
        textwrap.dedent(
            """
            import traceback
            import jobs
            from scopa.batch import BatchError, map_chunks

            if __name__ == "__main__":
                for fn, items in ((jobs.odd, range(8)), (jobs.half, [1]), (jobs.lock, [1]),
                                  (jobs.ident, [jobs.Brittle()])):
                    got = []
                    try:
                        for x in map_chunks(fn, items, workers=2, chunksize=1, in_flight=1):
                            got.append(x)
                    except BatchError as exc:
                        chain = "".join(traceback.format_exception(exc))
                        print(sorted(got), "|", exc, "|", "raise Odd(" in chain)
            """
        )
    )
    done = _guarded([sys.executable, str(tmp_path / "run.py")], cwd=tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    odd, half, lock, brittle = done.stdout.splitlines()
    ran = "the chunk of items [5] ran, but"
    assert odd.startswith(f"[0, 1, 2, 3, 4] | {ran} a job raised Odd: 'bad item 5',")
    assert "which cannot be sent back to this process (TypeError: " in odd
    assert "expected exceptions that pickle" in odd
    assert odd.endswith("| True")  # (the job's traceback, from its worker, in the error's chain)
    ran = "the chunk of items [1] ran, but its results cannot"
    assert half.startswith(f"[] | {ran} be loaded in this process")
    assert lock.startswith(f"[] | {ran} be sent back to this process")
    assert "cannot pickle '_thread.lock' object" in lock
    assert "could not load the chunk of items [<jobs.Brittle object" in brittle
    assert "ValueError: cannot be loaded" in brittle
    assert "loading its function or items there raised" in brittle
    assert "notebook" not in brittle
    # the arena names a chunk's deals, not their tuples of rules, players and seeds
    code = textwrap.dedent(
        """
        from scopa.arena import arena
        from scopa.batch import BatchError

        class Lowest:
            def choose(self, view):
                return min(view.legal_moves(), key=lambda m: m.card.value)

        try:
            arena("scopa", Lowest(), "greedy", deals=2, jobs=2)
        except BatchError as exc:
            print(exc)
        """
    )
    done = _guarded([sys.executable, "-c", code])
    assert done.stdout.startswith("a worker process could not load the chunk of items ['deal "), done.stderr


def test_a_script_without_its_main_guard_is_told_so(tmp_path):
    # The local workers are new interpreters that import the script (spawn, since the pool
    # stopped forking): one that starts its run outside `if __name__ == "__main__":` starts it
    # again in every worker, which multiprocessing refuses, and the run said "lost 3 times ... a
    # crash, os._exit or out of memory". It names the script, the line and the guard.
    script = tmp_path / "unguarded.py"
    body = (
        "from scopa.batch import map_chunks\n\n"
        "def run():\n    return sorted(map_chunks(abs, range(-4, 0), workers=2))\n\n"
    )
    script.write_text(body + "print(run())\n")
    done = _guarded([sys.executable, str(script)])
    assert done.returncode == 1, done.stderr
    # (the error's line, not the last: the resource tracker may warn of semaphores after it)
    last = next(x for x in done.stderr.splitlines() if x.startswith("scopa.batch.BatchError: "))
    assert last.startswith("scopa.batch.BatchError: the local worker processes died as they started")
    assert f"the script {str(script)!r} again" in last and "its line 6 starts this run" in last
    # the workers end quietly: the run's error is the one traceback (each worker printed
    # multiprocessing's RuntimeError, some 40 lines, above it: the open list)
    assert done.stderr.count("Traceback") == 1 and "RuntimeError" not in done.stderr, done.stderr
    # the same script guarded runs; so does one whose run is a function called under the guard
    script.write_text(body + 'if __name__ == "__main__":\n    print(run())\n')
    done = _guarded([sys.executable, str(script)])
    assert done.returncode == 0 and done.stdout == "[1, 2, 3, 4]\n", done.stderr
    # a run that starts no process, at a script's top level, runs in the workers of the script's
    # own pool as they import it (only a run's own pool ends them: a review found the first
    # version ending any run there, and the pool broken)
    script.write_text(
        "import concurrent.futures as cf, multiprocessing\n"
        "from scopa.batch import map_chunks\n\n"
        "TOP = list(map_chunks(abs, [-1], workers=1))\n\n"
        "def double(x):\n    return 2 * x\n\n"
        'if __name__ == "__main__":\n'
        '    with cf.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as ex:\n'
        "        print(TOP, list(ex.map(double, range(4))))\n"
    )
    done = _guarded([sys.executable, str(script)])
    assert done.returncode == 0 and done.stdout == "[1] [0, 2, 4, 6]\n", done.stderr


def test_a_script_a_worker_cannot_run_again_is_told_so(tmp_path):
    # A local worker runs the script of __main__ again first (spawn): a script read from
    # standard input ('<stdin>') or removed since it started is not a file there, each worker
    # died as it started, and the run said "lost 3 times ... a crash, os._exit or out of
    # memory", with the arena's runs too. It says the script is not a file and what to do, and
    # says it before any worker starts (each printed spawn's traceback as it died: the players
    # audit), with its own traceback alone (not "during handling of" the broken pool's)
    told = "scopa.batch.BatchError: the local worker processes cannot start: each runs the script"
    runs = [
        "from scopa.batch import solve_many\n"
        "print(list(solve_many(['scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1'], workers=2)))\n",
        "from scopa.arena import arena\nprint(arena('scopa', 'random', 'random', deals=2, jobs=2))\n",
    ]
    for run in runs:
        script = tmp_path / "from_stdin.py"
        script.write_text(run)
        with open(script) as stdin:
            done = _guarded([sys.executable, "-"], stdin=stdin, cwd=tmp_path)
        assert done.returncode == 1, done.stderr
        last = next(x for x in done.stderr.splitlines() if x.startswith("scopa.batch.BatchError: "))
        assert last.startswith(f"{told} '<stdin>' again first") and "not a file there" in last, last
        assert "expected the script in a file, python -c, or workers=1" in last
        assert done.stderr.count("Traceback") == 1 and "spawn" not in done.stderr, done.stderr
    # a script that removes itself before its run
    script = tmp_path / "gone.py"
    script.write_text(
        "import os\nfrom scopa.batch import map_chunks\n\n"
        'if __name__ == "__main__":\n    os.remove("gone.py")\n'
        "    print(sorted(map_chunks(abs, range(-4, 0), workers=2)))\n"
    )
    done = _guarded([sys.executable, "gone.py"], cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert f"{told} {str(script)!r} again first" in done.stderr, done.stderr  # (__file__ is absolute)
    # one that stays, started by a relative path, whose run moves to another directory: it is
    # still a file (the chunk is lost to its os._exit, three times)
    (tmp_path / "elsewhere").mkdir()
    script = tmp_path / "moves.py"
    script.write_text(
        "import os\nfrom scopa.batch import BatchError, map_chunks\n\n"
        "def fn(x):\n    os._exit(1)\n\n"
        'if __name__ == "__main__":\n    os.chdir("elsewhere")\n'
        "    try:\n        list(map_chunks(fn, [7], workers=2))\n"
        "    except BatchError as exc:\n        print(exc)\n"
    )
    done = _guarded([sys.executable, "moves.py"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lost = "the chunk of items [7] was lost 3 times with its worker process"
    assert done.stdout.startswith(lost), done.stdout


def test_a_script_gone_once_the_workers_start_is_told_so_when_they_die(monkeypatch, tmp_path):
    # (a script checked as a file when the pool is made, removed before its workers start: the
    # broken pool's check says so, in the past tense)
    import types

    from scopa.batch import _check_guard

    main = types.ModuleType("__main__")
    main.__file__ = str(tmp_path / "gone.py")
    monkeypatch.setitem(sys.modules, "__main__", main)
    with pytest.raises(BatchError, match=r"processes died as they started: each runs the script '.*gone.py'"):
        _check_guard()


def test_a_frozen_program_is_not_told_its_script_is_no_file(monkeypatch, tmp_path):
    # (a review: PyInstaller's and cx_Freeze's __main__.__file__ is a path that is not on disk,
    # and their workers start all the same; on Linux too, not only Windows' frozen programs)
    import types

    from scopa.batch import _unreadable_main

    main = types.ModuleType("__main__")
    main.__file__ = str(tmp_path / "_MEI12345" / "app.py")
    monkeypatch.setitem(sys.modules, "__main__", main)
    assert _unreadable_main() == main.__file__
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert _unreadable_main() is None
    monkeypatch.delattr(sys, "frozen")
    main.__file__ = __file__  # (a file: nothing to say)
    assert _unreadable_main() is None
    del main.__file__  # (python -c, Python's prompt)
    assert _unreadable_main() is None


def test_a_package_run_by_python_m_is_not_told_of_a_missing_guard(tmp_path):
    # A package's __main__.py (python -m pkg) is not run again in a spawned worker
    # (multiprocessing skips it), so its run needs no guard; a worker dying there (os._exit, a
    # crash, out of memory) was said to be the missing `if __name__ == "__main__":`, and its
    # chunk was not run again.
    pkg = tmp_path / "unguardedpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "jobs.py").write_text(
        "import os\n\ndef fn(x):\n    if x == 3:\n        os._exit(1)\n    return x\n"
    )
    (pkg / "__main__.py").write_text(
        "from scopa.batch import BatchError, map_chunks\n"
        "from unguardedpkg.jobs import fn\n\n"
        "try:\n    list(map_chunks(fn, range(6), workers=2))\n"
        "except BatchError as exc:\n    print(exc)\n"
    )
    path = os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])
    done = _guarded(
        [sys.executable, "-m", "unguardedpkg"], cwd=tmp_path, env={**os.environ, "PYTHONPATH": path}
    )
    assert done.returncode == 0, done.stderr
    lost = "the chunk of items [3] was lost 3 times with its worker process"
    assert done.stdout.startswith(lost), done.stdout


@pytest.mark.parametrize("test", ['__name__ == "__main__"', '"__main__" == __name__'])
def test_a_guarded_script_whose_first_chunk_kills_its_worker_is_not_told_of_a_guard(tmp_path, test):
    # The pool breaking before any chunk finished is what a missing guard looks like; a script
    # that has its guard (either way round) is not told of one: its chunk, the only one, is
    # run again and given up after its third loss.
    script = tmp_path / "guarded.py"
    script.write_text(
        "import os\nfrom scopa.batch import BatchError, map_chunks\n\n"
        "def fn(x):\n    os._exit(1)\n\n"
        f"if {test}:\n"
        "    try:\n        list(map_chunks(fn, [7], workers=2))\n"
        "    except BatchError as exc:\n        print(exc)\n"
    )
    done = _guarded([sys.executable, str(script)])
    assert done.returncode == 0, done.stderr
    lost = "the chunk of items [7] was lost 3 times with its worker process"
    assert done.stdout.startswith(lost), done.stdout


def test_a_killed_worker_of_the_local_pool_loses_nothing():
    # A worker process killed mid-run breaks the pool: a new one runs the lost chunks again.
    results: list[tuple[int, int]] = []
    killed = []

    def kill_one() -> None:
        time.sleep(0.5)
        import multiprocessing

        for child in multiprocessing.active_children():
            os.kill(child.pid, signal.SIGKILL)  # type: ignore[arg-type]
            killed.append(child.pid)
            break

    threading.Thread(target=kill_one).start()
    for r in map_chunks(_slow_square, range(100), workers=2, chunksize=2):
        results.append(r)
    assert killed, "no worker was killed"
    assert sorted(results) == [(x, x * x) for x in range(100)]


def test_batch_on_a_dask_cluster(cluster):
    # 300 endgames: the same values on the cluster as in one process
    items = endgames(300, 2 if TWIN_RUN else 3, seed=1)
    here = {r["id"]: r["value"] for r in solve_many(items[:300], workers=1)}
    there = {r["id"]: r["value"] for r in solve_many(items, executor=cluster.get_executor())}
    assert there == here and len(there) == 300
    address = cluster.scheduler.address
    via_url = {
        r["id"]: r["value"] for r in solve_many(items[:20], executor="dask://" + address.split("://")[1])
    }
    assert via_url == {i: here[i] for i, _ in items[:20]}


def test_a_killed_dask_worker_loses_nothing(fresh_cluster):
    # A worker is killed (its process, by pid) once the first result is in, so mid-run
    # whatever the machine's speed (a timer could fire after the run, in the next test). On a
    # cluster of its own: the test that ran next on a shared one hung once for 19 minutes, on a
    # loaded machine.
    items = endgames(120, 3 if not TWIN_RUN else 2, seed=2)
    pids = list(fresh_cluster.run(os.getpid).values())
    got: list[Any] = []
    after_kill = 0
    for r in solve_many(items, executor=fresh_cluster.get_executor(), chunksize=2):
        if not got:
            os.kill(pids[0], signal.SIGKILL)
        else:
            after_kill += 1
        got.append(r["id"])
    assert sorted(got) == list(range(120)), "every result arrives exactly once"
    assert after_kill > 0


def _busy_threads(dask_worker: Any) -> int:
    return len(dask_worker.active_threads)


def test_a_run_left_early_stops_its_chunks_running_on_dask(fresh_cluster):
    # Ctrl-C (here: the run's results no longer asked for) cancelled the chunks waiting, but
    # those running went on to their end on their workers: Dask cannot stop a running task (two
    # full Scopone deals at time_limit=3600 held both workers for an hour). The run's bounded
    # jobs now hold its stop flag on the workers too, and the run sets it there when it ends
    # early. On a cluster of its own: on the old code its workers stayed busy.
    deals = [(i, scopa.State.deal("scopone_scientifico", seed=i).to_string()) for i in range(4)]
    ex = fresh_cluster.get_executor()
    run = solve_many([("easy", EASY), *deals], time_limit=3600, executor=ex, chunksize=1)
    assert next(run)["id"] == "easy"
    busy = fresh_cluster.run(_busy_threads)
    assert sum(busy.values()) >= 1, busy  # (a deal is running)
    run.close()
    deadline = time.monotonic() + 120  # (a hang guard: the solves stop within milliseconds)
    while sum(busy.values()):
        assert time.monotonic() < deadline, f"the chunks running went on after the run ended: {busy}"
        time.sleep(0.2)
        busy = fresh_cluster.run(_busy_threads)


def test_a_hung_dask_test_fails_with_its_stacks(tmp_path):
    # A test on the cluster that hangs fails after HANG_GUARD seconds (here 10) with a message
    # and every thread's stack, instead of running the suite to .ci/test's deadline (it ran 19
    # minutes once, until interrupted). The hung test runs in a pytest of its own, with this
    # module's fixtures (-p test_batch).
    (tmp_path / "test_hangs.py").write_text(
        "import threading\n\n\ndef test_hangs(cluster):\n    threading.Event().wait()\n"
    )
    here = os.path.dirname(os.path.abspath(__file__))
    # (without the outer run's PYTEST_ADDOPTS: its -k deselected test_hangs, exit code 5)
    outer = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    env = {**outer, "SCOPA_TEST_HANG_GUARD": "10", "PYTHONPATH": os.pathsep.join(
        [here, *filter(None, [os.environ.get("PYTHONPATH")])]
    )}  # fmt: skip
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
             "-p", "test_batch", "--rootdir", str(tmp_path), str(tmp_path / "test_hangs.py")],
            capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path,
        )  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        raise AssertionError("the hung test was not failed by the guard") from exc
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Failed: hung: the test ran more than 10 s" in done.stdout, done.stdout
    assert "in test_hangs" in done.stdout + done.stderr  # (its stack)


def test_a_dask_worker_finds_the_tests_conftest():
    # A Dask worker that runs a function of this file (a user's player, below) imports this file,
    # and so `from conftest import TWIN_RUN`, with the tests' sys.path: test_cli, test_limits and
    # test_benchmark_tools put benchmarks/ on it, whose conftest has no TWIN_RUN. Inserted first,
    # it made the worker's import fail once they were collected with this file (the user's
    # player's test then hung; found by a CLI audit): they add it after tests/ now.
    from importlib.machinery import PathFinder

    spec = PathFinder.find_spec("conftest", sys.path)  # (what a fresh process with this path imports)
    assert spec is not None and spec.origin is not None
    assert os.path.dirname(os.path.abspath(spec.origin)) == os.path.dirname(os.path.abspath(__file__))


def test_arena_of_a_users_player_on_the_cluster(cluster):
    r = arena("scopa", CapturesFirst(), "greedy", deals=16, seed=3, executor=cluster.get_executor())
    assert r.names == ("CapturesFirst", "greedy") and r.deals == 16 and r.games == 32
    local = arena("scopa", CapturesFirst(), "greedy", deals=16, seed=3)
    assert (r.diff, r.points, r.categories) == (local.diff, local.points, local.categories)
    assert set(r.categories) == set(scopa.CATEGORIES) and sum(sum(x) for x in r.categories.values()) > 0

    def factory(seed: int, seat: int) -> scopa.players.Player:
        return scopa.players.RandomPlayer(seed=seed)

    f = arena("scopa", factory, "random", deals=6, seed=1)
    assert f.names == ("factory", "random")


def test_review_many(cluster):
    m = scopa.Match("scopa", seed=5)
    while not m.hands:
        m.play(m.state.legal_moves()[0])
    rec = m.record().to_json()
    out = list(review_many([("g", rec)], time_limit=0.02, executor=cluster.get_executor()))
    assert out[0]["id"] == "g" and len(out[0]["plays"]) == 36


def test_review_many_gives_each_review_its_time_limit_or_the_default_and_its_seed(monkeypatch, tmp_path):
    import importlib

    module = importlib.import_module("scopa.review")  # (scopa.review is the function)
    seen: list[Any] = []
    review = module.review

    def recorded(rec: Any, time_limit: Any, seed: Any = None, limit: Any = None) -> Any:
        seen.append((time_limit, seed))
        return review(rec, time_limit=time_limit, seed=seed, limit=limit)

    monkeypatch.setattr(module, "review", recorded)
    s = scopa.State.from_string(EASY).play("Kc")
    [r] = review_many([("g", s)], workers=1)
    [r2] = review_many([("h", s)], time_limit=0.05, seed=7, workers=1)
    assert "error" not in r and "error" not in r2 and r["plays"][0]["move"] == "Kc"
    # each review's seed too (the researcher's audit: review_many had none, always 0, where
    # scopa.review and the protocol's review take one), and scopa batch review's --seed
    assert seen == [(module.DEFAULT_TIME, 0), (0.05, 7)]
    from scopa.__main__ import main

    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    from scopa.records import HandRecord

    dealt = scopa.State.deal("scopa", seed=1)
    dealt = dealt.play(dealt.legal_moves()[0])  # (a record starts from a deal)
    src.write_text(json.dumps({"id": 1, "record": HandRecord.from_state(dealt).to_json()}) + "\n")
    assert main(["batch", "review", str(src), "-o", str(out), "--workers", "1", "--seed", "9"]) == 0
    assert seen[-1] == (module.DEFAULT_TIME, 9), seen
    assert json.loads(out.read_text())["plays"][0]["move"] == str(dealt.history[0][1])
    with pytest.raises(scopa.OptionError, match=r"bad seed -1: expected an int in 0..2\*\*64-1"):
        review_many([("g", s)], seed=-1, workers=1)
    with pytest.raises(BatchError, match="bad seed 3: solve is an exact search and takes no seed"):
        run_jsonl("solve", str(src), str(tmp_path / "solved.jsonl"), seed=3, workers=1)
    assert main(["batch", "analyze", str(src), "-o", str(tmp_path / "a.jsonl"), "--seed", "3"]) == 2


def test_the_batch_command_resumes_after_being_killed(tmp_path):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    items = endgames(80, 4 if not TWIN_RUN else 2, seed=4)
    with open(src, "w") as f:
        for i, p in items:
            f.write(json.dumps({"id": i, "position": p}) + "\n")
        f.write("{not json\n")
    cmd = [sys.executable, "-m", "scopa", "batch", "solve", str(src), "-o", str(out), "--workers", "1"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while (not out.exists() or out.read_text().count("\n") < 10) and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.kill()
    proc.wait()
    partial = out.read_text()
    assert 10 <= partial.count("\n") < 80, "the run was not killed mid-way"
    with open(out, "a") as f:
        f.write('{"id": 999, "val')  # as if killed while writing a line
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "in.jsonl:81: skipped" in done.stderr
    lines = out.read_text().splitlines()
    ids = [json.loads(line)["id"] for line in lines]
    assert sorted(ids) == list(range(80)), "complete, and nothing twice"
    values = {json.loads(line)["id"]: json.loads(line)["value"] for line in lines}
    assert values == {r["id"]: r["value"] for r in solve_many(items, workers=1)}


# ---------------------------------------------------------------------------------- defects of an audit

EASY = "scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1"


def _write_jobs(path: Any, count: int, position: str = EASY) -> None:
    with open(path, "w") as f:
        for i in range(count):
            f.write(json.dumps({"id": i, "position": position}) + "\n")


def _guarded(cmd: list[str], timeout: float = 120, **kw: Any) -> subprocess.CompletedProcess[str]:
    """Runs ``cmd`` in its own process group; a hang guard kills the whole group (its workers too)."""
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, **kw
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"hung: {cmd}")
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def test_resume_never_cuts_an_output_that_is_not_results(tmp_path):
    # Only a torn last line is cut; a file that is not an earlier run's output (notes, the input
    # itself, a bad line in the middle, one JSON document) is a BatchError and is left as it is.
    src = tmp_path / "in.jsonl"
    _write_jobs(src, 5)
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\nline two\n")
    with pytest.raises(BatchError, match=r"'.*notes.txt' is not a solve results file: its line 1 'my notes'"):
        run_jsonl("solve", str(src), str(notes), workers=1)
    assert notes.read_text() == "my notes\nline two\n"
    before = src.read_text()
    with pytest.raises(BatchError, match="is the input file"):
        run_jsonl("solve", str(src), str(src), workers=1)
    assert src.read_text() == before
    out = tmp_path / "out.jsonl"
    assert run_jsonl("solve", str(src), str(out), workers=1) == (5, 0, 0)
    lines = out.read_text().splitlines(keepends=True)
    for bad in ("garbage\n", "[1, 2]\n", '{"no id": 1}\n', "\xff\n"):
        broken = tmp_path / "broken.jsonl"
        broken.write_text("".join(lines[:2]) + bad + "".join(lines[2:]), encoding="latin-1")
        data = broken.read_bytes()
        with pytest.raises(BatchError, match="its line 3 .* is not a JSON object with an id and 'value'"):
            run_jsonl("solve", str(src), str(broken), workers=1)
        assert broken.read_bytes() == data
    single = tmp_path / "settings.json"
    single.write_text('{"config": 1}')  # one complete JSON document, no newline: not cut
    with pytest.raises(BatchError, match="not a solve results file"):
        run_jsonl("solve", str(src), str(single), workers=1)
    assert single.read_text() == '{"config": 1}'
    # found by an audit: one line begun with "{", not JSON (json.dump's NaN, a dict's repr) and
    # without a newline was taken for a torn result and cut to nothing
    for text in ('{"model": "precious", "loss": NaN}', "{'a': 1}"):
        single.write_text(text)
        with pytest.raises(BatchError, match="not a solve results file"):
            run_jsonl("solve", str(src), str(single), workers=1)
        assert single.read_text() == text
    # found by an audit: a copy of the input, another job's input, or another kind's results
    # were taken as results (every id "already done", or results appended to a job file)
    copy = tmp_path / "copy.jsonl"
    copy.write_text(src.read_text())
    with pytest.raises(
        BatchError, match=r"not a solve results file: its line 1 .* an id and 'value' \(or 'error'\)"
    ):
        run_jsonl("solve", str(src), str(copy), workers=1)
    assert copy.read_text() == src.read_text()
    with pytest.raises(BatchError, match="not an analyze results file: its line 1 .* an id and 'moves'"):
        run_jsonl("analyze", str(src), str(out), workers=1)  # (out holds solve results)
    assert out.read_text() == "".join(lines)
    # a torn last line is cut and written again; a whole last result missing its newline is kept
    out.write_text("".join(lines[:3]) + '{"id": 3, "val')
    assert run_jsonl("solve", str(src), str(out), workers=1) == (2, 3, 0)
    assert sorted(json.loads(line)["id"] for line in out.read_text().splitlines()) == [0, 1, 2, 3, 4]
    out.write_text("".join(lines[:4]) + lines[4].rstrip("\n"))
    assert run_jsonl("solve", str(src), str(out), workers=1) == (0, 5, 0)
    assert out.read_text() == "".join(lines)


def _interrupt_at_2(x: int) -> int:
    _calls.append(x)
    if x == 2:
        raise KeyboardInterrupt
    return x


def _exit_at_2(x: int) -> int:
    _calls.append(x)
    if x == 2:
        raise SystemExit(3)
    return x


_calls: list[int] = []


@pytest.mark.parametrize("fn", [_interrupt_at_2, _exit_at_2])
def test_ctrl_c_in_the_calling_process_stops_at_once(fn):
    # workers=1: a KeyboardInterrupt (or SystemExit) ends the run at once; it once ended only
    # the chunk it was raised in, and the next chunks ran (four Ctrl-C to stop scopa batch).
    _calls.clear()
    got = []
    with pytest.raises((KeyboardInterrupt, SystemExit)):
        for r in map_chunks(fn, range(10), workers=1):
            got.append(r)
    assert _calls == [0, 1, 2] and got == [0, 1]


def _full_deals(path: Path, n: int) -> None:
    """Batch input of ``n`` whole Scopone scientifico deals (each solve far longer than a test)."""
    with open(path, "w") as f:
        for i in range(n):
            s = scopa.State.deal("scopone_scientifico", seed=i)
            f.write(json.dumps({"id": i, "position": s.to_string()}) + "\n")


@contextlib.contextmanager
def _group(cmd: list[str]) -> Iterator[subprocess.Popen[str]]:
    """``cmd`` started as the leader of a process group of its own; whatever is left of the group
    (a worker that outlived the parent, once) killed at the end."""
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@pytest.mark.parametrize("workers", ["1", "2"])
def test_one_ctrl_c_stops_the_batch_command_quietly(tmp_path, workers):
    # Ctrl-C (SIGINT to the whole process group, as a terminal sends it) during 40-card deals
    # that take far longer than the test: one press stops the run, exit 130, no traceback (the
    # workers ignore SIGINT, the parent stops them), and no worker is left holding stderr.
    src, out = tmp_path / "full.jsonl", tmp_path / "out.jsonl"
    _full_deals(src, 40)  # five chunks: each Ctrl-C once ended only one
    cmd = [sys.executable, "-m", "scopa", "batch", "solve", str(src), "-o", str(out), "--workers", workers]
    with _group(cmd) as proc:
        deadline = time.monotonic() + 60
        while not out.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        time.sleep(1.0)  # the solves are running
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)  # hang guard
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err


def _children(pid: int) -> list[int]:
    """The pids of ``pid``'s child processes (from /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry))
    return out


def _starting_workers(pid: int) -> list[int]:
    """The pids of ``pid``'s worker processes that have begun as new interpreters (from /proc)."""
    out = []
    for child in _children(pid):
        try:
            with open(f"/proc/{child}/cmdline", "rb") as f:
                if b"spawn_main" in f.read():
                    out.append(child)
        except OSError:
            continue
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds the workers in /proc (Linux)")
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_the_workers_of_a_killed_batch_command_end_with_it(tmp_path, how):
    # the parent killed (SIGKILL) or ended by a signal it does not handle (SIGTERM, as from
    # timeout or docker stop): its local pool's workers end too, within a second or so, instead of
    # waiting for work forever holding its output open (the reader of its output would hang)
    src, out = tmp_path / "full.jsonl", tmp_path / "out.jsonl"
    _full_deals(src, 8)
    cmd = [sys.executable, "-m", "scopa", "batch", "solve", str(src), "-o", str(out), "--workers", "2"]
    workers: list[int] = []
    with _group(cmd) as proc:
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
            workers = [p for p in _children(proc.pid) if _alive(p)]
        assert len(workers) >= 2, proc.stderr.read() if proc.poll() is not None and proc.stderr else workers
        time.sleep(1.0)  # the workers are solving deals that take far longer than the test
        proc.send_signal(how)
        _, err = proc.communicate(timeout=60)  # the output closes: no worker holds it
        deadline = time.monotonic() + 30
        while any(_alive(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(p) for p in workers), "a worker outlived its parent"
    assert proc.returncode == -how


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds the workers in /proc (Linux)")
def test_a_worker_takes_no_ctrl_c_while_it_starts(tmp_path):
    # A worker is a new interpreter, its imports taking tenths of a second before its
    # initializer ignores SIGINT: Ctrl-C then (the terminal sends it to the whole group) printed
    # a KeyboardInterrupt's traceback from each worker starting. The run starts its workers with
    # SIGINT blocked. Here SIGINT goes to the workers alone, again and again from the moment
    # they exist, and the run goes on to its end as if nothing had come.
    src, out = tmp_path / "easy.jsonl", tmp_path / "out.jsonl"
    src.write_text("".join(json.dumps({"id": i, "position": EASY}) + "\n" for i in range(40)))
    cmd = [sys.executable, "-m", "scopa", "batch", "solve", str(src), "-o", str(out), "--workers", "2"]
    sent = 0
    with _group([*cmd, "--chunksize", "1"]) as proc:
        deadline = time.monotonic() + 120  # (a hang guard)
        while proc.poll() is None and time.monotonic() < deadline:
            for pid in _starting_workers(proc.pid):
                try:
                    os.kill(pid, signal.SIGINT)
                    sent += 1
                except ProcessLookupError:
                    pass
            time.sleep(0.01)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert sent > 0 and len(out.read_text().splitlines()) == 40


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds the workers in /proc (Linux)")
def test_ctrl_c_as_the_workers_start_stops_the_run_at_once(tmp_path):
    # Ctrl-C to the whole group as the first worker starts: the KeyboardInterrupt came inside
    # the pool's submit (SIGINT taken by another thread of the command: NumPy's), and left a
    # worker that never got its start (its EOFError's traceback), or the chunk's future not yet
    # the run's, the pool then shut down as one that had finished, waiting for that chunk (a
    # full deal: hours). The Ctrl-C is taken once the submission is done.
    src, out = tmp_path / "full.jsonl", tmp_path / "out.jsonl"
    _full_deals(src, 8)
    cmd = [sys.executable, "-m", "scopa", "batch", "solve", str(src), "-o", str(out), "--workers", "2"]
    with _group(cmd) as proc:
        deadline = time.monotonic() + 60
        while not _starting_workers(proc.pid) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.002)
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)  # hang guard
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err


def test_a_pool_that_breaks_between_two_submissions_is_replaced(monkeypatch):
    # seen once in a loop of the test below: a worker died while the run submitted chunks (a
    # pool replaced, its first chunk killing a worker at once), and the next submission raised
    # BrokenProcessPool out of the run. The chunks a broken pool refuses run on the next pool;
    # here the pool refuses while nothing runs in it (a worker gone idle), the same path's end
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    import scopa.batch

    calls, refuse = [0], set()

    class Refusing(ProcessPoolExecutor):
        def submit(self, *args, **kwargs):  # type: ignore[override]
            calls[0] += 1
            if calls[0] in refuse or -1 in refuse and calls[0] > 1:
                raise BrokenProcessPool("a worker ended (the test)")
            return super().submit(*args, **kwargs)

    spawn = multiprocessing.get_context(scopa.batch.START_METHOD)  # (as the run's own: no fork)
    monkeypatch.setattr(scopa.batch, "_pool", lambda n: Refusing(max_workers=n, mp_context=spawn))
    refuse.update({2, 3, 7})
    got = list(scopa.batch.map_chunks(abs, range(-12, 0), workers=2, chunksize=1, in_flight=2))
    assert sorted(got) == list(range(1, 13)) and calls[0] == 12 + 3  # (each refused chunk once more)
    calls[0], refuse = 0, {-1}  # (every pool refuses all but the first chunk: given up)
    with pytest.raises(scopa.batch.BatchError, match="the local process pool broke 3 times with no job"):
        list(scopa.batch.map_chunks(abs, range(-12, 0), workers=2, chunksize=1, in_flight=2))


def _exit_at_3(x: int) -> int:
    if x == 3:
        os._exit(1)
    return x


def test_a_process_pool_passed_in_that_breaks_is_a_batch_error():
    # The run replaces a pool of its own that breaks, not one passed in: the caller's
    # BrokenProcessPool came out of the run. It is a BatchError naming the pool now, after the
    # results that finished; the pool is broken for good.
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn"))  # (no fork: 3.12 warns)
    got: list[int] = []
    try:
        with pytest.raises(BatchError, match=r"the process pool passed in as the executor broke \(a worker"):
            for x in map_chunks(_exit_at_3, range(40), executor=pool, chunksize=1):
                got.append(x)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    assert 3 not in got and len(set(got)) == len(got)


def test_a_chunk_that_keeps_killing_its_worker_raises(tmp_path):
    # A chunk whose worker dies every time (os._exit, a crash in native code) once broke the
    # pool forever: the pool was replaced and the chunk rerun without end. It runs alone after
    # its second loss and raises BatchError naming its items after the third. (A script, as
    # the docs ask, its function found by the workers importing it again: under python -c no
    # worker could load it, and every chunk was lost.)
    script = tmp_path / "killer.py"
    script.write_text(
        textwrap.dedent(
            """
            import os
            from scopa.batch import BatchError, map_chunks

            def fn(x):
                if x == 3:
                    os._exit(1)
                return x

            if __name__ == "__main__":
                got = []
                try:
                    for r in map_chunks(fn, range(6), workers=2):
                        got.append(r)
                except BatchError as exc:
                    print("BatchError:", exc)
                print(sorted(got))
            """
        )
    )
    done = _guarded([sys.executable, str(script)])
    assert done.returncode == 0, done.stderr
    assert "BatchError: the chunk of items [3] was lost 3 times with its worker process" in done.stdout
    got = json.loads(done.stdout.splitlines()[-1])
    assert 3 not in got and len(set(got)) == len(got)


def test_a_job_raising_a_non_scopa_error_gives_an_error_record(monkeypatch):
    # An item whose job raises a ValueError (UnicodeError too) or an OSError becomes an error
    # record for that item; a programming error (TypeError) still ends the run.
    import scopa.records

    def unreadable(source: Any) -> Any:
        if source == "latin1.json":
            raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
        if source == "gone.json":
            raise PermissionError(13, "Permission denied")
        raise TypeError("a bug")

    monkeypatch.setattr(scopa.records, "load_record", unreadable)
    out = {r["id"]: r for r in review_many([("a", "latin1.json"), ("b", "gone.json")], workers=1)}
    assert out["a"]["error"]["type"] == "UnicodeDecodeError"
    assert out["b"]["error"] == {"type": "PermissionError", "message": "[Errno 13] Permission denied"}
    with pytest.raises(TypeError, match="a bug"):
        list(review_many([("c", "other.json")], workers=1))


def _type_error_at_5(x: int) -> int:
    _calls.append(x)
    if x == 5:
        raise TypeError("a bug")
    return x


def test_results_finished_before_an_error_are_handed_over():
    # In the calling process one chunk runs at a time and its results are yielded before the
    # next runs (four ran before any was yielded: an error in one lost the others' results).
    _calls.clear()
    got = []
    with pytest.raises(TypeError):
        for r in map_chunks(_type_error_at_5, range(20), workers=1):
            got.append(r)
    assert got == [0, 1, 2, 3, 4] and _calls == [0, 1, 2, 3, 4, 5]


def test_bad_limits_and_settings_raise_at_the_call(tmp_path):
    # They once became an error record per item (written to the output, then taken as done).
    for kw, match in [
        ({"time_limit": -1}, "bad time_limit -1"),
        ({"time_limit": math.nan}, "bad time_limit nan"),
        ({"node_limit": 0}, "bad node_limit 0"),
    ]:
        with pytest.raises(scopa.LimitError, match=match):
            solve_many([EASY], **kw)
        with pytest.raises(scopa.LimitError, match=match):
            analyze_many([EASY], **kw)
    for t in (0, -1, math.nan, math.inf, True):
        with pytest.raises(scopa.LimitError, match="bad time_limit .*: expected seconds per play"):
            review_many(["x.json"], time_limit=t)
    with pytest.raises(BatchError, match="bad chunksize 0: expected an int >= 1"):
        solve_many([EASY], chunksize=0)
    with pytest.raises(BatchError, match="bad chunksize 0"):
        map_chunks(abs, [1], chunksize=0)
    with pytest.raises(BatchError, match="bad in_flight 0"):
        map_chunks(abs, [1], in_flight=0)
    with pytest.raises(BatchError, match="bad name 'id': expected a function of one item, or None"):
        map_chunks(abs, [1], name="id")  # type: ignore[arg-type]
    with pytest.raises(BatchError, match="bad fn 3: expected a function of one item"):
        map_chunks(3, [1], workers=1)  # type: ignore[arg-type]
    with pytest.raises(BatchError, match="bad items 5: expected an iterable"):
        solve_many(5)  # type: ignore[arg-type]
    with pytest.raises(BatchError, match="bad items 'scopa 7dKc"):
        solve_many(EASY)
    with pytest.raises(BatchError, match="bad workers 0"):
        solve_many([EASY], workers=0)
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write_jobs(src, 3)
    with pytest.raises(scopa.LimitError, match="bad time_limit -1"):
        run_jsonl("solve", str(src), str(out), workers=1, time_limit=-1)
    with pytest.raises(BatchError, match="bad node_limit 5"):
        run_jsonl("review", str(src), str(out), workers=1, node_limit=5)
    assert not out.exists()


def test_an_id_given_twice_ends_the_run():
    # two results of one id could not be told apart: refused as `scopa batch` refuses the line
    with pytest.raises(BatchError, match=r"bad items: id .a. is given twice \(item 2\): expected each id"):
        list(solve_many([("a", EASY), ("b", EASY), ("a", EASY)], workers=1))
    # an index is an id too: the second item's index 1 is the first item's own id
    with pytest.raises(BatchError, match=r"id 1 is given twice \(item 1\)"):
        list(analyze_many([(1, EASY), EASY], workers=1))
    with pytest.raises(BatchError, match="id 'g' is given twice"):
        list(review_many([("g", EASY), ("g", EASY)], time_limit=0.1, workers=1))
    # NumPy's integers and strings are the ids they equal (the project reads them as ints, strs)
    np = pytest.importorskip("numpy")
    with pytest.raises(BatchError, match=r"id 1 is given twice \(item 1\)"):
        list(solve_many([(np.int64(1), EASY), EASY], workers=1))
    with pytest.raises(BatchError, match=r"id 'a' is given twice \(item 1\)"):
        list(solve_many([(np.str_("a"), EASY), ("a", EASY)], workers=1))
    # a pair's id that is a later item's index: refused at that item
    with pytest.raises(BatchError, match=r"id 2 is given twice \(item 2\)"):
        list(solve_many([(2, EASY), EASY, EASY], workers=1))
    assert [r["id"] for r in solve_many([EASY, EASY, (5, EASY)], workers=1)] == [0, 1, 5]
    # ids of other types are other ids (True is not 1), and an unhashable id is let through
    got = list(solve_many([(1, EASY), (True, EASY), (1.5, EASY), ([1], EASY)], workers=1))
    assert sorted(map(repr, (r["id"] for r in got))) == ["1", "1.5", "True", "[1]"]


def test_file_errors_are_one_line_errors(tmp_path, capsys, monkeypatch):
    from scopa.__main__ import main

    monkeypatch.chdir(tmp_path)
    _write_jobs(tmp_path / "in.jsonl", 2)
    (tmp_path / "adir").mkdir()
    for args, message in [
        (
            ["nonexist.jsonl", "-o", "o.jsonl"],
            "cannot read the input 'nonexist.jsonl': No such file or directory",
        ),
        (["adir", "-o", "o.jsonl"], "cannot read the input 'adir': it is a directory; expected a file"),
        (["in.jsonl", "-o", str(tmp_path)], "it is a directory; expected a file"),
        (["in.jsonl", "-o", "/nonexistent/o.jsonl"], "cannot write the output '/nonexistent/o.jsonl'"),
    ]:
        assert main(["batch", "solve", *args, "--workers", "1"]) == 2
        err = capsys.readouterr().err
        assert err.strip().startswith("scopa: error: ") and message in err and "Traceback" not in err
    assert not (tmp_path / "o.jsonl").exists()
    # a line that is not UTF-8 is a bad line like any other (ids are not mangled)
    with open(tmp_path / "mixed.jsonl", "wb") as f:
        f.write(b'{"id": "caf\xe9", "position": "' + EASY.encode() + b'"}\n')
        f.write(b'{"id": "ok", "position": "' + EASY.encode() + b'"}\n')
    lines: list[tuple[int, str]] = []
    n = run_jsonl(
        "solve", "mixed.jsonl", "r.jsonl", workers=1, bad_line=lambda i, why: lines.append((i, why))
    )
    assert n == (1, 0, 1) and lines[0][0] == 1 and "not UTF-8" in lines[0][1]


def test_a_missing_output_folder_is_said_before_the_inputs_bad_lines(tmp_path):
    src = tmp_path / "in.jsonl"
    _write_jobs(src, 2)
    with open(src, "a") as f:
        f.write("not json\n")
    lines: list[tuple[int, str]] = []
    out = tmp_path / "missing" / "o.jsonl"
    with pytest.raises(
        BatchError, match=r"cannot write the output .*o\.jsonl': its folder .*missing' does not exist"
    ):
        run_jsonl("solve", str(src), str(out), workers=1, bad_line=lambda i, why: lines.append((i, why)))
    assert lines == [] and not out.parent.exists()


def test_a_line_too_long_is_a_bad_line_read_no_further(tmp_path, monkeypatch):
    import scopa.batch

    monkeypatch.setattr(scopa.batch, "MAX_LINE_BYTES", 200)
    job = b'{"id": "ok", "position": "' + EASY.encode() + b'"}'
    assert len(job) <= 200
    with open(tmp_path / "in.jsonl", "wb") as f:
        f.write(b'{"id": "long", "position": "' + b"x" * 300_000 + b'"}\n')  # (read 200 bytes and skipped)
        f.write(b" " * (200 - len(job)) + job + b"\n")  # (200 bytes and its line end: read)
        f.write(b" " * (201 - len(job)) + job + b"\n")  # (201 bytes: too long by one)
        f.write(job)  # (the last line, no line end)
    lines: list[tuple[int, str]] = []
    n = run_jsonl(
        "solve", str(tmp_path / "in.jsonl"), str(tmp_path / "r.jsonl"), workers=1,
        bad_line=lambda i, why: lines.append((i, why)),
    )  # fmt: skip
    assert lines == [
        (1, "a line longer than 200 bytes: expected one job"),
        (3, "a line longer than 200 bytes: expected one job"),
        (4, 'id "ok" is given twice'),
    ]
    assert n == (1, 0, 3)
    assert [json.loads(x)["id"] for x in (tmp_path / "r.jsonl").read_text().splitlines()] == ["ok"]


def test_a_byte_order_mark_starts_the_input_alone_and_a_line_needs_an_id_and_its_item(tmp_path):
    bom = b"\xef\xbb\xbf"
    with open(tmp_path / "in.jsonl", "wb") as f:
        f.write(bom + json.dumps({"id": 1, "position": EASY}).encode() + b"\n")  # (the file's: read)
        f.write(bom + json.dumps({"id": 2, "position": EASY}).encode() + b"\n")  # (a line's: bad)
        for bad in ({"id": 3}, {"position": EASY}, [3, EASY]):
            f.write(json.dumps(bad).encode() + b"\n")
    lines: list[tuple[int, str]] = []
    n = run_jsonl(
        "solve", str(tmp_path / "in.jsonl"), str(tmp_path / "r.jsonl"), workers=1,
        bad_line=lambda i, why: lines.append((i, why)),
    )  # fmt: skip
    assert n == (1, 0, 4) and [i for i, _ in lines] == [2, 3, 4, 5]
    assert all(why == "expected an object with 'id' and 'position'" for _, why in lines[1:])
    assert [json.loads(x)["id"] for x in (tmp_path / "r.jsonl").read_text().splitlines()] == [1]


def test_an_unreachable_scheduler_is_a_batch_error(tmp_path, monkeypatch):
    import scopa.batch

    monkeypatch.setattr(scopa.batch, "CONNECT_TIMEOUT", 1.0)
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write_jobs(src, 2)
    with pytest.raises(BatchError, match="cannot connect to the Dask scheduler 'tcp://127.0.0.1:1'"):
        run_jsonl("solve", str(src), str(out), executor="tcp://127.0.0.1:1")
    assert not out.exists()
    # before the input is read (an audit waited for a long input's reading, then for the
    # timeout): here a named pipe nobody writes to, whose reading would wait for ever
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    failed: list[BaseException] = []

    def run() -> None:
        try:
            run_jsonl("solve", str(fifo), str(tmp_path / "o.jsonl"), executor="tcp://127.0.0.1:1")
        except BaseException as exc:  # (handed to the test's thread)
            failed.append(exc)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(60)
    if t.is_alive():  # (the reading waits: a writer that closes at once ends it)
        with open(fifo, "w"):
            pass
        t.join(60)
        pytest.fail("the named pipe was read before the scheduler was asked")
    assert len(failed) == 1 and "cannot connect to the Dask scheduler" in str(failed[0]), failed
    with pytest.raises(BatchError, match="cannot connect to the Dask scheduler"):
        list(solve_many([EASY], executor="dask://127.0.0.1:1"))
    # a tls:// address needs a Client's security settings (distributed's TypeError was a traceback)
    with pytest.raises(BatchError, match=r"'tls://127.0.0.1:1': .*for tls://, a Client's security settings"):
        list(solve_many([EASY], executor="tls://127.0.0.1:1"))


def test_review_many_takes_a_records_json_text():
    # "its JSON text" is a string starting with "{"; the text() form is an error record saying
    # so (it was read as a file name: "File name too long").
    m = scopa.Match("scopa", seed=5)
    while not m.hands:
        m.play(m.state.legal_moves()[0])
    rec = m.record()
    items = [("json", json.dumps(rec.to_json())), ("hand", rec.hands[0]), ("text", rec.text())]
    out = {r["id"]: r for r in review_many(items, time_limit=0.01, workers=1)}
    assert len(out["json"]["plays"]) == 36 and len(out["hand"]["plays"]) == 36
    assert out["text"]["error"]["type"] == "RecordError"
    assert "text() form cannot be read back" in out["text"]["error"]["message"]


def test_a_record_path_that_is_not_a_regular_file_is_an_error_not_a_wait(tmp_path):
    # found by an audit: a batch review of {"record": "/dev/stdin"} (or a named pipe) waited
    # for ever, holding its worker
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[Any] = []
    worker = threading.Thread(target=lambda: got.extend(review_many([str(fifo)], workers=1)), daemon=True)
    worker.start()
    worker.join(120)  # (a guard against the wait, not a speed target)
    assert got and got[0]["error"]["type"] == "RecordError", got
    assert got[0]["error"]["message"] == f"cannot read the record {str(fifo)!r}: expected a regular file"


def test_the_api_and_scopa_batch_send_the_same_chunks_by_default(tmp_path):
    # found by a review: analyze_many sent 8 positions a chunk, `scopa batch analyze` 4
    class Inline(cf.Executor):
        def __init__(self) -> None:
            self.sizes: list[int] = []

        def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def,override]
            self.sizes.append(len(args[1]))  # (_run_chunk(job, chunk))
            f: cf.Future[Any] = cf.Future()
            f.set_result(fn(*args, **kwargs))
            return f

    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": i, "position": EASY}) + "\n" for i in range(10)))
    for kind, many, want in (("solve", solve_many, [8, 2]), ("analyze", analyze_many, [4, 4, 2])):
        api, cli = Inline(), Inline()
        assert len(list(many([EASY] * 10, executor=api))) == 10
        run_jsonl(kind, src, tmp_path / f"{kind}.jsonl", executor=cli)
        assert api.sizes == cli.sizes == want, kind
    # and one review a chunk (a record of one play here)
    m = scopa.Match("scopa", seed=5)
    m.play(m.state.legal_moves()[0])
    rec = m.record().to_json()
    src.write_text("".join(json.dumps({"id": i, "record": rec}) + "\n" for i in range(3)))
    api, cli = Inline(), Inline()
    assert len(list(review_many([rec] * 3, time_limit=0.02, executor=api))) == 3
    run_jsonl("review", src, tmp_path / "review.jsonl", executor=cli, time_limit=0.02)
    assert api.sizes == cli.sizes == [1, 1, 1]
    assert all("plays" in json.loads(x) for x in (tmp_path / "review.jsonl").read_text().splitlines())


def test_a_chunk_dask_loses_with_its_worker_runs_again(tmp_path, monkeypatch):
    # Seen in CI: when a Dask worker is killed while its result is gathered, Dask's executor
    # wrapper (distributed/cfexecutor.py) fails the future with a ValueError of its own
    # ("not enough values to unpack"). The chunk is then run again, as a lost one is; a
    # ValueError of the job itself still ends the run.
    import importlib.util

    fake = tmp_path / "distributed" / "cfexecutor.py"
    fake.parent.mkdir()
    fake.write_text("def cascade():\n    typ, exc, tb = ('lost', None)\n")
    spec = importlib.util.spec_from_file_location("fake_cfexecutor", fake)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    class LosesFirst(_CountingExecutor):
        def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def,override]
            if self.calls:
                return super().submit(fn, *args, **kwargs)
            self.calls += 1
            f: cf.Future[Any] = cf.Future()
            try:
                module.cascade()
            except ValueError as exc:
                f.set_exception(exc)
            return f

    ex = LosesFirst()
    assert sorted(map_chunks(abs, [-1, -2, -3], executor=ex, chunksize=1)) == [1, 2, 3]
    assert ex.calls == 4
    with pytest.raises(ValueError, match="math domain error"):
        list(map_chunks(math.sqrt, [-1.0], executor=LosesFirst(), chunksize=1))

    # the executor made from "dask://HOST:PORT" (scopa batch --scheduler) runs it again too
    import distributed

    class Client:
        def __init__(self, address: str, timeout: float) -> None:
            self.inner = LosesFirst()

        def get_executor(self) -> cf.Executor:
            return self.inner

        def close(self) -> None:
            pass

    monkeypatch.setattr(distributed, "Client", Client)
    assert sorted(map_chunks(abs, [-1, -2, -3], executor="dask://127.0.0.1:1", chunksize=1)) == [1, 2, 3]

    class AlwaysLoses(LosesFirst):
        def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def,override]
            self.calls = 0
            return super().submit(fn, *args, **kwargs)

    ex = AlwaysLoses()
    with pytest.raises(scopa.batch.BatchError, match=r"items \[-1\] was lost 3 times with its Dask worker"):
        list(map_chunks(abs, [-1], executor=ex, chunksize=1))


def _in_a_thread(run: Any, guard: float = 300) -> list[Any]:
    """``run()``'s outcome, run in a thread so that a hang fails the test after ``guard`` seconds
    (a generous bound, not a timing) instead of stalling the suite: [result] or [exception]."""
    out: list[Any] = []

    def target() -> None:
        try:
            out.append(run())
        except BaseException as exc:
            out.append(exc)

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(guard)
    assert not t.is_alive(), f"the run hung: no outcome in {guard} s"
    return out


def test_a_chunk_whose_result_cannot_be_fetched_from_dask_does_not_hang(cluster, monkeypatch):
    # Dask's concurrent.futures wrapper settles a future once, from a coroutine of the client:
    # when fetching a finished chunk's result raised there (a connection timing out, as on a
    # loaded machine), the coroutine ended with the error (logged by tornado) and the chunk's
    # future stayed pending for ever, so the run waited for ever. The run now fetches the results
    # itself: a failed fetch is tried again, and one failing every time is a BatchError.
    fetches = 0
    gather = cluster.scheduler.gather

    async def flaky(**kwargs: Any) -> Any:
        nonlocal fetches
        fetches += 1
        if fetches == 1:
            raise OSError("Timed out trying to connect (injected)")
        return await gather(**kwargs)

    monkeypatch.setattr(cluster.scheduler, "gather", flaky)
    items = list(range(12))
    [got] = _in_a_thread(lambda: sorted(map_chunks(abs, items, executor=cluster.get_executor(), chunksize=2)))
    assert got == items and fetches > 1

    async def broken(**kwargs: Any) -> Any:
        raise OSError("Timed out trying to connect (injected)")

    monkeypatch.setattr(cluster.scheduler, "gather", broken)
    [err] = _in_a_thread(lambda: list(solve_many([("a", EASY)], executor=cluster.get_executor())))
    assert isinstance(err, BatchError), err
    assert str(err).startswith(
        "the results of the chunk of items ['a'] could not be fetched from the Dask cluster (3 tries,"
    ), err
    assert "OSError: Timed out trying to connect (injected)" in str(err)


class _CountingExecutor(cf.Executor):
    """An executor that runs each job at once in the caller's thread and counts its submits."""

    def __init__(self) -> None:
        self.calls = 0

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def,override]
        self.calls += 1
        f: cf.Future[Any] = cf.Future()
        f.set_result(fn(*args, **kwargs))
        return f


def test_a_chunk_dask_gives_up_on_or_a_cancelled_chunk_is_a_batch_error(cluster):
    # Found by an audit: Dask's KilledWorker (a chunk whose workers kept dying) and the
    # CancelledError of a client that lost its scheduler ended a run with a traceback
    from distributed.scheduler import KilledWorker

    class GivesUp(cf.Executor):
        def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def,override]
            f: cf.Future[Any] = cf.Future()
            f.set_exception(KilledWorker("_run_chunk-1", SimpleNamespace(address="tcp://127.0.0.1:1"), 3))
            return f

    with pytest.raises(BatchError, match=r"the chunk of items \['a'\] was lost with every Dask worker"):
        list(solve_many([("a", EASY)], executor=GivesUp()))
    # a chunk cancelled under the run (here: the caller's pool shut down mid-run; the pool
    # cancels without waking the run, which waited for ever: the run goes on in a thread, so
    # that a hang fails the test instead of stalling the suite)
    pool = cf.ThreadPoolExecutor(1)
    got: list[Any] = []
    raised: list[BaseException] = []

    def run() -> None:
        try:
            for x in map_chunks(_slower_square, range(6), executor=pool, chunksize=1, in_flight=6):
                got.append(x)
                pool.shutdown(wait=False, cancel_futures=True)  # (at the first: 4 chunks still wait)
        except BaseException as exc:
            raised.append(exc)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(60)
    assert not t.is_alive(), "the run waited for ever for a cancelled chunk"
    assert len(raised) == 1 and isinstance(raised[0], BatchError), raised
    assert "a chunk was cancelled by its executor" in str(raised[0])
    assert got  # (what finished was handed over first)
    # a cluster is kept busy by its own size (the audit's 20-thread worker ran 8 chunks at once,
    # four per core of the calling machine): the in-flight limit counts the cluster's threads
    assert scopa.batch._cluster_threads(cluster.get_executor()) == 2
    assert scopa.batch._cluster_threads(cf.ThreadPoolExecutor(1)) is None

    class BigCluster(_CountingExecutor):  # (a client whose cluster has 50 threads)
        client = SimpleNamespace(nthreads=lambda: {"w1": 30, "w2": 20})

    big = BigCluster()
    first = next(iter(map_chunks(abs, range(1000), executor=big)))
    assert first in range(1000) and big.calls == 200  # four chunks a thread went out at once


def _slower_square(x: int) -> tuple[int, int]:
    time.sleep(0.5)
    return x, x * x


def _fresh_token(_: int) -> str:
    return uuid.uuid4().hex


def test_a_job_raising_on_a_dask_cluster_ends_the_run_and_each_chunk_is_a_task_of_its_own(cluster):
    # A chunk whose job raises settles with the job's exception (the run ends with it), not
    # left pending; and each chunk is a task of its own key (pure=False), so two chunks of the
    # same items are run twice, not found under one key
    ex = cluster.get_executor()
    [err] = _in_a_thread(lambda: list(map_chunks(_type_error_at_5, [5], executor=ex)))
    assert isinstance(err, TypeError) and str(err) == "a bug", err
    [tokens] = _in_a_thread(lambda: list(map_chunks(_fresh_token, [0, 0, 0, 0], executor=ex)))
    assert len(set(tokens)) == 4, tokens


def _wait_for_file(path: str) -> str:
    """Wait until ``path`` exists (at most 120 s, a hang guard): a chunk that cannot finish
    before the test lets it."""
    deadline = time.monotonic() + 120
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.01)
    return path


def test_a_chunk_cancelled_on_the_cluster_while_the_run_waits_is_a_batch_error(cluster, tmp_path):
    # Dask's wait raises its CancelledError for a chunk cancelled while the run waits on it:
    # the run settles that chunk as cancelled and says so, as for any executor's cancel
    ex = cluster.get_executor()
    go = tmp_path / "go"  # (the chunk runs until then: it cannot finish before its cancel)

    def cancel() -> None:  # (the chunk, once submitted)
        deadline = time.monotonic() + 120  # (a hang guard)
        while not ex._futures and time.monotonic() < deadline:
            time.sleep(0.01)
        cluster.cancel(list(ex._futures))

    threading.Thread(target=cancel, daemon=True).start()
    try:
        [err] = _in_a_thread(lambda: list(map_chunks(_wait_for_file, [str(go)], executor=ex)))
    finally:
        go.touch()  # (the worker's thread ends its chunk)
    assert isinstance(err, BatchError) and "a chunk was cancelled by its executor" in str(err), err


def test_an_executor_of_another_kind_named_clientexecutor_is_used_through_its_submit():
    # Only Dask's own ClientExecutor has its chunks submitted through its client; any other
    # executor (a user's, of whatever name) through its submit
    class ClientExecutor(_CountingExecutor):
        pass

    ex = ClientExecutor()
    assert sorted(map_chunks(abs, range(-3, 0), executor=ex)) == [1, 2, 3] and ex.calls == 3


def test_settings_out_of_range_and_bad_hooks_are_batch_errors(tmp_path, monkeypatch):
    # Found by an audit: workers=10**6 started that many processes (the CLI stops at 256)
    for bad in (257, 10**6):
        with pytest.raises(BatchError, match=rf"bad workers {bad}: expected an int in 1\.\.256"):
            solve_many([EASY], workers=bad)
        with pytest.raises(BatchError, match=rf"bad workers {bad}"):
            scopa.batch.thread_pool(bad)
    for bad in (0, "a", True):
        with pytest.raises(BatchError, match="bad workers"):
            scopa.batch.thread_pool(bad)  # type: ignore[arg-type]
    # workers with an executor was ignored without a word
    with scopa.batch.thread_pool(1) as pool:
        with pytest.raises(
            BatchError, match="bad workers 2 with an executor: workers is the number of local"
        ):
            list(solve_many([EASY], executor=pool, workers=2))
        with pytest.raises(BatchError, match="bad workers 3 with an executor"):
            run_jsonl("solve", str(tmp_path / "in"), str(tmp_path / "out"), executor=pool, workers=3)
    # by default every core, but no more than the bound (a machine of 1,000 cores)
    monkeypatch.setattr(os, "cpu_count", lambda: 1000)
    pool, owned = scopa.batch.executor_for()
    try:
        assert owned and pool._max_workers == 256  # type: ignore[attr-defined]
    finally:
        pool.shutdown()
    # and one, in this process, where the number of cores is not known
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert isinstance(scopa.batch.executor_for()[0], scopa.batch._Inline)
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write_jobs(src, 2)
    with pytest.raises(BatchError, match=r"unknown batch job \['solve'\]"):
        run_jsonl(["solve"], str(src), str(out))  # type: ignore[arg-type]
    for hook in ("bad_line", "started", "progress"):
        with pytest.raises(BatchError, match=f"bad {hook} 5: expected a function or None"):
            run_jsonl("solve", str(src), str(out), workers=1, **{hook: 5})  # type: ignore[arg-type]
    assert not out.exists()


def test_an_input_line_setting_a_limit_or_with_an_id_too_large_is_a_bad_line(tmp_path):
    # Found by an audit: a line's own "time_limit" was ignored without a word, and an id of 401
    # digits was written back (no JavaScript client reads it)
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text(
        "\n".join(
            json.dumps(x)
            for x in (
                {"id": "ok", "position": EASY},
                {"id": "limit", "position": EASY, "time_limit": 0.001},
                {"id": 10**400, "position": EASY},
                {"id": -(2**53), "position": EASY},
                {"id": 2**53 - 1, "position": EASY},
                {"id": "noted", "position": EASY, "expected": 4, "source": "a book"},  # (notes pass)
                {"id": True, "position": EASY},
                {"id": None, "position": EASY},
            )
        )
        + "\n"
    )
    bad: list[tuple[int, str]] = []
    got = run_jsonl("solve", str(src), str(out), workers=1, bad_line=lambda n, w: bad.append((n, w)))
    assert got == (3, 0, 5)
    assert bad[0][0] == 2 and bad[0][1].startswith("'time_limit' is the run's setting, not a line's")
    assert [n for n, _ in bad] == [2, 3, 4, 7, 8]
    assert all("expected a string or an integer within" in w for _, w in bad[1:])
    # the ids as the input spells them (they were Python's: True, None)
    assert [w.split(":")[0] for _, w in bad[3:]] == ["bad id true", "bad id null"]
    ids = sorted(map(str, (json.loads(x)["id"] for x in out.read_text().splitlines())))
    assert ids == [str(2**53 - 1), "noted", "ok"]


def test_the_batch_command_takes_a_node_limit_and_a_chunk_size(tmp_path, monkeypatch):
    # Found by an audit: run_jsonl took a node limit the command could not give, and chunks were
    # 8 positions whatever the input (8 slow positions ran on one worker of two)
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    with open(src, "w") as f:
        for i, p in endgames(3, 4 if not TWIN_RUN else 3, seed=9):
            f.write(json.dumps({"id": i, "position": p}) + "\n")
    cmd = [sys.executable, "-m", "scopa", "batch", "solve", str(src), "-o", str(out), "--workers", "1"]
    done = subprocess.run([*cmd, "--nodes", "1"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    results = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(results) == 3 and not any(r["exact"] for r in results), results
    sizes: list[int] = []
    run = scopa.batch._run

    def spy(fn: Any, it: Any, ex: Any, owned: bool, size: int, *rest: Any) -> Any:
        sizes.append(size)
        return run(fn, it, ex, owned, size, *rest)

    monkeypatch.setattr(scopa.batch, "_run", spy)
    assert run_jsonl("analyze", str(src), str(tmp_path / "a.jsonl"), workers=1, chunksize=1) == (3, 0, 0)
    assert run_jsonl("analyze", str(src), str(tmp_path / "b.jsonl"), workers=1) == (3, 0, 0)
    assert sizes == [1, 4]
    with pytest.raises(BatchError, match="bad chunksize 0"):
        run_jsonl("analyze", str(src), str(tmp_path / "c.jsonl"), workers=1, chunksize=0)


def test_a_long_input_file_is_read_as_the_run_goes_and_a_pipe_once(tmp_path):
    # Found by an audit: the whole input was parsed before the run began (about 3 KB a line,
    # some 3 GB for a million positions); a file is now counted, then read again as the run
    # goes, holding only the ids. 3,000 lines of JSON positions held some 6 MB before, 0.8 now.
    import tracemalloc

    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    pos = scopa.State.of(EASY).to_dict()
    with open(src, "w") as f:
        for i in range(3000):
            f.write(json.dumps({"id": f"item-{i}", "position": pos}) + "\n")
        f.write(json.dumps({"id": "item-7", "position": pos}) + "\n")  # (given twice: a bad line)
    bad: list[int] = []
    totals: list[int] = []
    tracemalloc.start()
    try:
        got = run_jsonl(
            "solve", str(src), str(out), workers=1, bad_line=lambda n, _: bad.append(n), started=totals.append
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert got == (3000, 0, 1) and bad == [3001] and totals == [3000]
    assert peak < 3_000_000, f"{peak:,} bytes at the peak"
    ids = [json.loads(line)["id"] for line in out.read_text().splitlines()]
    assert len(ids) == len(set(ids)) == 3000
    # an input that cannot be read twice (a pipe) is read once, as before
    piped = tmp_path / "piped.jsonl"
    lines = "".join(json.dumps({"id": i, "position": EASY}) + "\n" for i in range(5)) + "{bad\n"
    done = subprocess.run(
        [sys.executable, "-m", "scopa", "batch", "solve", "/dev/stdin", "-o", str(piped), "--workers", "1"],
        input=lines, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0 and "/dev/stdin:6: skipped" in done.stderr, done.stderr
    assert "5 done, 0 already" in done.stderr
    assert sorted(json.loads(line)["id"] for line in piped.read_text().splitlines()) == [0, 1, 2, 3, 4]
    # "-" is standard input (it was a file named "-"); an output "-" is refused (not resumable)
    dashed = tmp_path / "dashed.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "scopa", "batch", "solve", "-", "-o", str(dashed), "--workers", "1"],
        input=lines, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0 and "-:6: skipped" in done.stderr, done.stderr
    assert sorted(json.loads(line)["id"] for line in dashed.read_text().splitlines()) == [0, 1, 2, 3, 4]
    done = subprocess.run(
        [sys.executable, "-m", "scopa", "batch", "solve", "-", "-o", "-"],
        input=lines, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2 and "bad --output '-': expected a file name" in done.stderr, done.stderr


def test_losing_the_scheduler_ends_scopa_batch_with_one_line(tmp_path):
    # A real scheduler and worker (processes), a run, and the scheduler killed under it: the
    # command ends with its one line, status 2, and the results so far kept. Dask's client logged
    # its failed reconnections with tracebacks before it (found by an audit).
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "2s"}
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env}
    scheduler = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", str(port),
         "--no-dashboard"], **quiet,
    )  # fmt: skip
    worker = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--no-dashboard"],
        **quiet,
    )  # fmt: skip
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    deals = (scopa.State.deal("scopa", seed=i).to_string() for i in range(2000))
    src.write_text("".join(json.dumps({"id": i, "position": p}) + "\n" for i, p in enumerate(deals)))
    run = None
    try:
        run = subprocess.Popen(
            [sys.executable, "-m", "scopa", "batch", "solve", str(src), "-o", str(out),
             "--scheduler", address, "--time", "0.05"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip
        deadline = time.monotonic() + 120
        while not (out.exists() and out.read_text().count("\n") >= 8) and time.monotonic() < deadline:
            assert run.poll() is None, run.communicate()[1]
            time.sleep(0.1)
        scheduler.kill()
        _, err = run.communicate(timeout=120)
    finally:
        for p in (run, worker, scheduler):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
    assert run.returncode == 2, err
    assert err.startswith(
        "scopa: error: a chunk was cancelled by its executor (a Dask client that lost its"
    ), err
    assert "Traceback" not in err and err.count("\n") == 1, err
    done = [json.loads(line)["id"] for line in out.read_text().splitlines()]
    assert len(done) == len(set(done)) >= 8


@pytest.mark.skipif(os.name == "nt", reason="SIGINT to a child process is a POSIX thing")
def test_ctrl_c_stops_the_solves_running_in_a_thread_pool():
    # An audit: on a thread pool, Ctrl-C ended the run but the solves already running went on
    # (Python waits for a pool's threads before it exits): two whole Scopone deals, days. The
    # run's stop flag, in every job's limit, is set when the run ends early.
    code = textwrap.dedent(
        """
        import scopa
        from scopa.batch import solve_many, thread_pool
        deal = scopa.State.deal("scopone_scientifico", seed=1).to_string()
        with thread_pool(2) as pool:
            results = solve_many([deal, deal], executor=pool)
            print("started", flush=True)
            for r in results:
                print(r, flush=True)
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "started\n"
    time.sleep(1.0)  # (the two solves run)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=60)  # (a hang guard: it takes a fraction of a second)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert time.monotonic() - t0 < 60 and "KeyboardInterrupt" in err, err


def test_only_a_job_in_a_thread_of_the_run_takes_its_stop_flag():
    # the run's flag is for a thread pool's jobs; a worker process's copy would never be set,
    # and a flag alone costs an unbounded solve its anytime search (docs/solver.md)
    from scopa.batch import _stop

    flag = scopa.StopFlag()
    options = {"stop": flag, "stop_pid": os.getpid()}
    assert _stop(options) is None  # (the calling thread: Ctrl-C stops its job itself)
    got: list[Any] = []
    t = threading.Thread(target=lambda: got.extend([_stop(options), _stop({**options, "stop_pid": -1})]))
    t.start()
    t.join()
    assert got == [flag, None]


def test_standard_input_is_read_once_even_from_a_file(tmp_path):
    # a review: "-" (given as /dev/stdin) redirected from a file was a regular file, opened twice:
    # on macOS the second opening goes on from where the first reading ended, and found no job
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text("".join(json.dumps({"id": i, "position": p}) + "\n" for i, p in endgames(3, 1)))
    code = textwrap.dedent(
        f"""
        import scopa.batch as b
        def twice(*args, **kwargs):
            raise AssertionError("standard input read a second time")
        b._read_jobs = twice
        print(b.run_jsonl("solve", "/dev/stdin", {str(out)!r}, workers=1))
        """
    )
    with open(src, "rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-c", code], stdin=stdin, capture_output=True, text=True, timeout=120
        )
    assert done.returncode == 0 and done.stdout.strip() == "(3, 0, 0)", done.stderr
    # and from where it stands: a file partly read before (`head -n 1 >/dev/null; scopa batch
    # solve - ...`) was read from its start on Linux, opened again by its name (the open list)
    first = src.read_bytes().index(b"\n") + 1
    fd = os.open(src, os.O_RDONLY)
    try:
        os.lseek(fd, first, os.SEEK_SET)
        out.unlink()
        done = subprocess.run(
            [sys.executable, "-m", "scopa", "batch", "solve", "-", "-o", str(out), "--workers", "1"],
            stdin=fd, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    finally:
        os.close(fd)
    assert done.returncode == 0, done.stderr
    assert sorted(json.loads(line)["id"] for line in out.read_text().splitlines()) == [1, 2]


def _square(x):
    return x * x


def test_workers_and_in_flight_that_are_integers_of_another_type_are_read_as_ints():
    # (as_int takes what has __index__ and is not an int, NumPy's integers, for workers and
    # in_flight; their checked int was dropped and the object itself compared with ints: a
    # TypeError from the pool or the run, a traceback)
    from concurrent.futures import ThreadPoolExecutor

    from scopa.batch import executor_for, map_chunks

    class Index:
        def __init__(self, n):
            self.n = n

        def __index__(self):
            return self.n

    assert sorted(map_chunks(_square, range(5), workers=Index(1))) == [0, 1, 4, 9, 16]
    ex, owned = executor_for(None, Index(1))
    assert owned and not hasattr(ex, "_max_workers")  # (the calling process: workers=1)
    with ThreadPoolExecutor(2) as pool:
        assert sorted(map_chunks(_square, range(5), executor=pool, in_flight=Index(2))) == [0, 1, 4, 9, 16]
