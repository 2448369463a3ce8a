"""Batch work on any executor: many positions solved, analyzed or reviewed, in parallel.

The one way the package runs many jobs: the work is cut into chunks, each chunk sent to a
:class:`concurrent.futures.Executor` — a local pool of processes by default (each a new
interpreter, :data:`START_METHOD`: a script needs its ``if __name__ == "__main__":``), or a
Dask cluster through ``distributed.Client(...).get_executor()`` or the ``"dask://HOST:PORT"``
shorthand — and the results are yielded as they finish, each with its input's id. In the workers the
solver (and its table, 128 MB) is kept between chunks; with ``workers=1`` the jobs run in the
calling thread, which keeps its solver after the run, for the next one, until the thread ends (as
:func:`scopa.solve` keeps its own). The arena and ``scopa batch`` use it too.

>>> import scopa
>>> items = [(i, scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")) for i in range(3)]
>>> sorted((r["id"], r["value"]) for r in solve_many(items, workers=1))
[(0, 4), (1, 4), (2, 4)]
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import inspect
import json
import multiprocessing
import multiprocessing.spawn
import os
import signal
import stat
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import (
    FIRST_COMPLETED,
    CancelledError,
    Executor,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    wait,
)
from concurrent.futures.process import BrokenProcessPool
from itertools import islice
from multiprocessing.reduction import ForkingPickler
from types import FrameType
from typing import Any
from urllib.parse import urlsplit

from scopa import jsonio
from scopa.errors import OptionError, ScopaError, article, as_int, check_seed, show
from scopa.files import IS_A_DIRECTORY, failure_reason, read_lines, write_all
from scopa.limit import Limit, StopFlag
from scopa.state import State

__all__ = [
    "CONNECT_TIMEOUT",
    "FETCH_TIMEOUT",
    "MAX_LOST",
    "MAX_WORKERS",
    "PARENT_POLL",
    "START_METHOD",
    "BatchError",
    "analyze_many",
    "executor_for",
    "map_chunks",
    "review_many",
    "run_jsonl",
    "solve_many",
    "thread_pool",
]


class BatchError(ScopaError):
    """A bad batch setting (an executor that cannot be used, a bad chunk size), an input or
    output file that cannot be used (an output holding another kind's results), a chunk whose
    worker keeps dying, or one its executor cancelled."""


MAX_LOST = 3
"""How many times a chunk may be lost with its worker process before the run gives up on it
(the last time it ran alone, so it is the cause): :class:`BatchError`."""
CONNECT_TIMEOUT = 10.0
"""Seconds to wait for a Dask scheduler to take the connection (one that takes it and then
never answers, or has no workers, is waited for: Ctrl-C stops the wait)."""
MAX_WORKERS = 256
"""The most local worker processes or threads a run starts (as the arena's ``jobs``)."""

# ---------------------------------------------------------------------------------- executors


class _Inline(Executor):
    """Runs each job at once in the calling thread (``workers=1``: no process to start)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        f: Future[Any] = Future()
        try:
            f.set_result(fn(*args, **kwargs))
        except Exception as exc:  # the caller sees it through the future; Ctrl-C stops at once
            f.set_exception(exc)
        return f


def _address(executor: str) -> str:
    address = executor
    if address.startswith("dask://"):
        address = "tcp://" + address[len("dask://") :]
    if address.startswith(("tcp://", "tls://")):
        try:  # (a port out of range was found only by the connection's 10 s timeout)
            parts = urlsplit(address)
            port_ok = parts.port is None or parts.port > 0
        except ValueError:
            port_ok = False
        if not port_ok or not parts.hostname or parts.path or parts.query or parts.fragment:
            raise BatchError(
                f"bad executor {show(executor)}: expected a Dask scheduler's address, 'tcp://HOST:PORT'"
                " with a port in 1..65535"
            )
    elif not address.startswith("inproc://"):
        raise BatchError(
            f"bad executor {show(executor)}: expected a Dask scheduler's address, 'tcp://HOST:PORT'"
            " (or 'dask://HOST:PORT', tls://, inproc://), or from Python an Executor"
        )
    return address


def _check_executor(executor: Executor | str | None, workers: int | None) -> int | None:
    """``workers`` as an int (or None); raises BatchError for a bad ``executor`` or ``workers``
    (before anything is started)."""
    if isinstance(executor, str):
        _address(executor)
    elif executor is not None and not isinstance(executor, Executor):
        raise BatchError(f"bad executor {show(executor)}: expected an Executor, 'dask://HOST:PORT' or None")
    if workers is None:
        return None
    n = _check_workers(workers, " or None")
    if executor is not None:  # (it was ignored: the executor has its own workers)
        raise BatchError(
            f"bad workers {show(workers)} with an executor: workers is the number of local"
            " processes when no executor is given; expected None"
        )
    return n


def _check_workers(workers: object, or_none: str = "") -> int:
    n = as_int(workers)
    if n is None or not 1 <= n <= MAX_WORKERS:
        raise BatchError(f"bad workers {show(workers)}: expected an int in 1..{MAX_WORKERS}{or_none}")
    return n


PARENT_POLL = 0.5
"""Seconds between a local worker's looks at whether the process that made its pool is alive."""

START_METHOD = "spawn"
"""How the run's own local pool starts its worker processes, on every system: each a new
interpreter (as on macOS and Windows), never a fork of the calling process, which may hold
threads (a Dask client's, a server's, a caller's own: Python 3.12 warns that a fork then may
deadlock the child). A worker finds the jobs' function and classes by importing their
modules; a script's own are found by importing the script again, hence the
``if __name__ == "__main__":`` it needs (docs/tutorials/batch.md)."""


def _worker_init() -> None:
    """A local worker's initializer. Ctrl-C reaches the whole process group, but only the
    parent handles it (it stops the workers), so no worker prints a KeyboardInterrupt: SIGINT,
    held back since the worker started (:func:`_ctrl_c_held`: its imports take a few tenths of a
    second), is ignored from here on. And
    a worker ends when its parent is gone (killed, or ended by a signal it does not handle,
    such as ``timeout``'s SIGTERM): an orphan would wait for work forever, holding the
    parent's standard output and error open."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # (a SIGINT held back until now is dropped: ignored)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    parent = os.getppid()
    threading.Thread(target=_watch_parent, args=(parent,), name="scopa-parent-watch", daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:  # (an orphan is given another parent: init or a subreaper)
        time.sleep(PARENT_POLL)
    os._exit(1)


def _unguarded_call() -> tuple[str, int] | None:
    """Where the script run as ``__main__`` started this run outside ``if __name__ ==
    "__main__":``, as its path and line (the line of its top level that led here); None when it
    did so under that guard, or the run was not started from a script's top level (a notebook,
    Python's prompt, ``python -c``, a thread), or the script cannot be read. A local worker
    imports the script again (:data:`START_METHOD`) and, unguarded, its top level starts the run
    again there, which multiprocessing refuses: each worker dies as it starts."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    # (where multiprocessing's spawn does not run __main__ again in a worker, nothing is
    # started there: a package's __main__.py run by python -m, a directory or zip run, IPython's
    # launcher, a frozen Windows program; multiprocessing.spawn.get_preparation_data and prepare)
    name = getattr(getattr(main, "__spec__", None), "name", None)
    if name is not None and (name == "__main__" or name.endswith(".__main__")):
        return None
    frozen = sys.platform == "win32" and (multiprocessing.spawn.WINEXE or multiprocessing.spawn.WINSERVICE)
    if frozen or isinstance(path, str) and os.path.splitext(os.path.basename(path))[0] == "ipython":
        return None
    frame: Any = sys._getframe()
    line = None
    while frame is not None:  # (the outermost frame of the script's top level: its line)
        if main is not None and frame.f_globals is vars(main) and frame.f_code.co_name == "<module>":
            line = frame.f_lineno
        frame = frame.f_back
    if not isinstance(path, str) or line is None:
        return None
    try:
        with open(path, "rb") as f:
            tree = ast.parse(f.read(), path)
    except (OSError, SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_main_test(node.test) and node.body:
            if node.body[0].lineno <= line <= (node.body[-1].end_lineno or line):
                return None
    return path, line


def _is_main_test(test: ast.expr) -> bool:
    """Whether ``test`` is ``__name__ == "__main__"`` (either way round)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = (test.left, test.comparators[0])
    names = [x.id for x in sides if isinstance(x, ast.Name)]
    texts = [x.value for x in sides if isinstance(x, ast.Constant)]
    return names == ["__name__"] and texts == ["__main__"]


def _unreadable_main() -> str | None:
    """The path of the script run as ``__main__`` when a local worker cannot run it again, as
    it does first (:data:`START_METHOD`): it is not a file (``'<stdin>'``, a script read from
    standard input, or a file gone since); None when it is one, or there is no such script
    (``python -c``, Python's prompt, a module run by ``python -m``: see :func:`_unguarded_call`)."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if getattr(getattr(main, "__spec__", None), "name", None) is not None or not isinstance(path, str):
        return None
    if getattr(sys, "frozen", False):  # (a frozen program's __main__ is no file, and its workers start)
        return None
    # (a relative path is taken from where this process started, as spawn's get_preparation_data
    # does: __main__'s path is absolute since Python 3.9, unless a program set it)
    here = getattr(multiprocessing.process, "ORIGINAL_DIR", None)
    full = path if os.path.isabs(path) or here is None else os.path.join(here, path)
    return None if os.path.isfile(full) else path


def _check_guard() -> None:
    """A BatchError saying so if the run's own pool broke because a worker cannot run the
    script that started it again (:func:`_unreadable_main`), or because that script has no
    ``if __name__ == "__main__":`` around its run (:func:`_unguarded_call`)."""
    path = _unreadable_main()
    if path is not None:
        raise _unreadable_error(path, "died as they started")
    where = _unguarded_call()
    if where is not None:
        path, line = where
        raise BatchError(
            f"the local worker processes died as they started: each imports the script {path!r}"
            f" again (a new interpreter), and its line {line} starts this run there too, outside"
            ' `if __name__ == "__main__":`, which multiprocessing refuses; expected the script\'s'
            ' run under `if __name__ == "__main__":` (docs/tutorials/batch.md)'
        )


def _unreadable_error(path: str, what: str) -> BatchError:
    """The error of local workers that cannot run the script ``path`` again (``what`` they do)."""
    return BatchError(
        f"the local worker processes {what}: each runs the script {path!r}"
        " again first (a new interpreter), and it is not a file there (a script read from"
        " standard input, or a file gone since); expected the script in a file, python -c,"
        " or workers=1 (the arena's jobs=1), in this process (docs/tutorials/batch.md)"
    )


def _pool(n: int) -> ProcessPoolExecutor:
    context = multiprocessing.get_context(START_METHOD)
    return ProcessPoolExecutor(max_workers=n, initializer=_worker_init, mp_context=context)


@contextlib.contextmanager
def _ctrl_c_held(held: bool) -> Iterator[None]:
    """Ctrl-C held back while the calling thread submits to the run's own pool (``held``), which
    starts its worker processes then, and taken when the submission is done:

    - a new worker takes no Ctrl-C while it imports, until :func:`_worker_init` ignores it:
      SIGINT is blocked in this thread, whose signal mask a new process keeps (each worker
      starting printed a KeyboardInterrupt's traceback; Python's resource tracker starts its
      own process so);
    - this process takes it after the submission, not inside it: SIGINT's handler only notes it
      meanwhile (in the main thread, the one it raises KeyboardInterrupt in), since another
      thread (NumPy's, a progress bar's) takes SIGINT while this one blocks it. Raised inside,
      it left a worker that never got its start (an ``EOFError`` traceback) or a chunk running
      that the run did not know of, its pool's shutdown waiting for it to its end.

    Unix; elsewhere only the handler waits."""
    if not held:
        yield
        return
    came: list[tuple[int, FrameType | None]] = []
    handler = signal.getsignal(signal.SIGINT)
    main = threading.current_thread() is threading.main_thread()
    previous = handler if callable(handler) and main else None
    if previous is not None:
        signal.signal(signal.SIGINT, lambda signum, frame: came.append((signum, frame)))
    mask = (
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        if hasattr(signal, "pthread_sigmask")
        else None
    )
    try:
        yield
    finally:
        if mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # (one waiting is noted now)
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
            if came:
                previous(*came[0])


def _end_a_worker_importing_main() -> None:
    """End this process quietly (status 1) if it is a worker process still importing the
    script, before its first job, and about to start a pool of its own: a script that starts
    a run outside ``if __name__ == "__main__":`` starts it again there, which multiprocessing
    refuses with a traceback each worker printed above the run's own BatchError, in the
    script's process, that says why and what to do (a players' audit; :func:`_check_guard`).
    A run there that starts no process (``workers=1``, threads, Dask) goes on as before: the
    worker is the script's own pool's, not this run's."""
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        raise SystemExit(1)


def executor_for(executor: Executor | str | None = None, workers: int | None = None) -> tuple[Executor, bool]:
    """The executor to run on, and whether this module made it (and must shut it down):

    - an :class:`~concurrent.futures.Executor`: used as it is (a Dask ``ClientExecutor`` too);
    - ``"dask://HOST:PORT"`` (or ``"tcp://HOST:PORT"``): a Dask cluster's scheduler, through
      ``distributed.Client(...).get_executor()`` (the ``dask`` extra); a scheduler that
      does not take the connection within :data:`CONNECT_TIMEOUT` seconds raises
      :class:`BatchError` (one that takes it and then does not answer is waited for);
    - ``None``: a local process pool of ``workers`` processes (every core by default, at most
      :data:`MAX_WORKERS`), each a new interpreter (:data:`START_METHOD`); with
      ``workers=1``, the calling process itself. ``workers`` with an executor is a BatchError.
    """
    workers = _check_executor(executor, workers)
    if isinstance(executor, Executor):
        return executor, False
    if isinstance(executor, str):
        address = _address(executor)
        try:
            from distributed import Client
        except ImportError as exc:
            raise BatchError(
                f"a Dask executor needs the dask extra: pip install '.[dask]' from a clone ({exc})"
            ) from None
        try:
            client = Client(address, timeout=CONNECT_TIMEOUT)  # type: ignore[no-untyped-call]
        except (OSError, ValueError, TypeError) as exc:  # (TypeError: tls:// without its security)
            raise BatchError(
                f"cannot connect to the Dask scheduler {show(executor)}: {exc};"
                " expected a running scheduler at that address (and for tls://, a Client's security"
                " settings: from Python, pass the Client's get_executor())"
            ) from None
        return _DaskExecutor(client), True
    n = workers or min(os.cpu_count() or 1, MAX_WORKERS)  # (every core, up to the bound)
    if n == 1:
        return _Inline(), True
    path = _unreadable_main()
    if path is not None:  # (said before any starts: each printed spawn's traceback as it died)
        raise _unreadable_error(path, "cannot start")
    _end_a_worker_importing_main()  # (the one run it ends: its own pool, which would be refused)
    return _pool(n), True


class _DaskExecutor(Executor):
    """A Dask client's executor that closes its client on shutdown."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.inner = client.get_executor()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = self.inner.submit(fn, *args, **kwargs)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.inner.shutdown(wait=wait)
        self.client.close()


def _client_executor(ex: Executor) -> Any:
    """The Dask ``ClientExecutor`` of ``ex`` (a client's ``get_executor()``, or the executor made
    from ``"dask://HOST:PORT"``), whose chunks the run submits through its client; None for
    another executor."""
    inner = ex.inner if isinstance(ex, _DaskExecutor) else ex
    cls = type(inner)
    if (
        cls.__name__ == "ClientExecutor"
        and cls.__module__.split(".")[0] == "distributed"
        and hasattr(inner, "_client")
        and hasattr(inner, "_futures")  # (another version's: its own submit, as any executor's)
    ):
        return inner
    return None


FETCH_TIMEOUT = 60.0
"""Seconds a finished chunk's results are fetched from a Dask cluster before the fetch is given
up and tried again (a fetch that fails :data:`MAX_LOST` times is a :class:`BatchError`)."""


class _FetchFailed(Exception):
    """The results of a chunk that finished on a Dask cluster could not be fetched."""


class _DaskChunk(Future[Any]):
    """A chunk submitted to a Dask cluster through its client, settled by the run itself from
    the Dask future (:meth:`settle`). Dask's own ``concurrent.futures`` wrapper
    (``distributed.cfexecutor``) settles its future once, from a coroutine of the client; when
    fetching the result fails there (a connection that times out or closes, a worker lost while
    its result is gathered), the coroutine ends with the error and the future stays pending for
    ever: the run waited for ever for a chunk that had finished."""

    def __init__(self, dask_future: Any) -> None:
        super().__init__()
        self.dask = dask_future
        self.fetch_errors = 0
        self.retry_at = 0.0
        self.add_done_callback(_cancel_on_cluster)

    def settle(self) -> bool:
        """Settles this future from its Dask future if that one is done (a result fetched, an
        error, a cancel); True once settled. A fetch that fails is tried again (False), and
        after :data:`MAX_LOST` failures settles it with :class:`_FetchFailed`."""
        if self.done():
            return True
        d = self.dask
        if not d.done() or time.monotonic() < self.retry_at:
            return False  # (pending, running, or lost with its worker: Dask runs it again)
        if d.status == "finished":
            try:
                value = d.result(timeout=FETCH_TIMEOUT)
            except Exception as exc:
                if d.status == "finished":  # (else it was lost, or erred, while fetched)
                    self.fetch_errors += 1
                    if self.fetch_errors >= MAX_LOST:
                        self.set_exception(_FetchFailed(f"{type(exc).__name__}: {exc}"))
                        return True
                    self.retry_at = time.monotonic() + CANCEL_POLL
                return False
            self.set_result(value)
        elif d.status == "error":
            error = d.exception()
            self.set_exception(error.with_traceback(d.traceback()))
        elif d.status == "cancelled":
            self.cancel()
        else:
            return False
        return True


def _cancel_on_cluster(f: Future[Any]) -> None:
    """A chunk's Dask task is cancelled with its future (a run left early, Ctrl-C)."""
    d = getattr(f, "dask", None)
    if f.cancelled() and d is not None and d.status in ("pending", "lost"):
        d.cancel()


def _dask_submit(cfex: Any, fn: Callable[..., Any], *args: Any) -> _DaskChunk:
    """``cfex.submit(fn, *args)`` for the ClientExecutor ``cfex``, as a :class:`_DaskChunk`: a
    task of a key of its own (``pure=False``: a chunk run again is run again, not found under
    the key of the run that was lost; the executor's own ``pure=`` wins), that the executor's
    shutdown waits for or cancels as its own."""
    if getattr(cfex, "_shutdown", False):
        raise RuntimeError("cannot schedule new futures after shutdown")
    options = {"pure": False, **getattr(cfex, "_kwargs", {})}
    d = cfex._client.submit(fn, *args, **options)
    cfex._futures.add(d)
    return _DaskChunk(d)


def _shutdown(ex: Executor, early: bool) -> None:
    """Shut down an executor this module made. A run read to its end joins its workers; one
    left early (closed, failed or interrupted) cancels what waits and stops a local pool's
    workers at once (they would otherwise finish their chunks, and the interpreter's exit
    would wait for them)."""
    if not early:
        ex.shutdown(wait=True)
        return
    if isinstance(ex, ProcessPoolExecutor):
        processes = list((getattr(ex, "_processes", None) or {}).values())
        for p in processes:
            p.kill()
        for p in processes:
            p.join(10)
        ex.shutdown(wait=True, cancel_futures=True)
    else:
        ex.shutdown(wait=False, cancel_futures=True)


def _lost_by_dask(exc: BaseException) -> bool:
    """Whether ``exc`` is the ValueError of Dask's executor wrapper (``distributed.cfexecutor``,
    which cannot unpack the outcome of a task whose worker was killed while its result was
    gathered), not one of the job's: the chunk was lost with its worker and runs again."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    where = tb.tb_frame.f_code.co_filename.replace("\\", "/") if tb is not None else ""
    return isinstance(exc, ValueError) and where.endswith("distributed/cfexecutor.py")


def _cluster_threads(ex: Executor) -> int | None:
    """The threads of a Dask executor's cluster (every worker's), so that a large cluster gets
    chunks enough to keep it busy; None for another executor or a cluster not reached."""
    client = getattr(ex, "client", None) or getattr(ex, "_client", None)
    try:
        threads = sum(client.nthreads().values())  # type: ignore[union-attr]
    except Exception:  # (not a Dask client, or the scheduler did not answer)
        return None
    return threads if isinstance(threads, int) and threads > 0 else None


#: Seconds between looks for a chunk its executor cancelled without a word (see _first_done).
CANCEL_POLL = 0.5


def _first_done(pending: Iterable[Future[Any]]) -> Future[Any]:
    """A future of ``pending`` that has finished, or that its executor cancelled: a pool shut
    down with ``cancel_futures`` cancels its waiting futures without waking their waiters, so
    ``as_completed`` would wait for them for ever."""
    futures = list(pending)
    chunks = [f for f in futures if isinstance(f, _DaskChunk)]
    if chunks:
        return _first_done_on_dask(chunks)
    while True:
        done, _ = wait(futures, timeout=CANCEL_POLL, return_when=FIRST_COMPLETED)
        if done:
            return next(iter(done))
        for f in futures:
            if f.cancelled():
                return f


def _first_done_on_dask(chunks: list[_DaskChunk]) -> _DaskChunk:
    """A chunk of ``chunks`` (on a Dask cluster) settled: waits on their Dask futures."""
    from distributed import wait as dask_wait

    while True:
        for f in chunks:
            if f.settle():
                return f
        waiting = [f.dask for f in chunks if not f.dask.done()]
        if not waiting:  # (every finished one's fetch failed: tried again after a pause)
            time.sleep(CANCEL_POLL)
            continue
        try:
            dask_wait(waiting, timeout=CANCEL_POLL, return_when="FIRST_COMPLETED")  # type: ignore[no-untyped-call]
        except (TimeoutError, asyncio.TimeoutError):  # (not the same class before Python 3.11)
            pass
        except CancelledError:  # (its FuturesCancelledError: the cancelled chunk is settled next)
            if not any(f.cancelled() for f in waiting):
                raise


def _run_chunk(fn: Callable[[Any], Any], chunk: Sequence[Any]) -> list[Any]:
    return [fn(item) for item in chunk]


class _NotLoaded(Exception):
    """A chunk that a local worker process could not load: ``fn`` or a class of its items is
    not found in a new interpreter (defined in a notebook, at Python's prompt, in ``python -c``,
    or under a script's ``if __name__ == "__main__":``), or, when ``found``, found but its
    loading raised (an item's ``__setstate__``, a module that fails on import)."""

    def __init__(self, text: str, found: bool) -> None:
        super().__init__(text, found)  # (both in args: the exception is pickled back)
        self.found = found

    def __str__(self) -> str:
        return str(self.args[0])


class _NotReturned(Exception):
    """What a local worker process ran cannot come back to the run: the results of its chunk,
    or the exception a job raised, do not pickle there (or, results, load here); the pool's
    own sending broke the pool, and the chunk ran three times, as if its worker had died."""


def _round_trips(exc: BaseException) -> str | None:
    """None if ``exc`` comes back whole through pickle, else why not."""
    try:
        ForkingPickler.loads(ForkingPickler.dumps(exc))
    except Exception as why:  # (an __init__ of other arguments than args, an attribute that
        return f"{type(why).__name__}: {why}"  # does not pickle)
    return None


def _pickled(fn: Callable[[Any], Any], chunk: list[Any], shown: list[Any]) -> bytes:
    """``(fn, chunk)`` pickled for a local worker process (:func:`_run_pickled`), here, where a
    function or an item that does not pickle is a BatchError (the pool's own pickling, in its
    thread, made it the chunk's PicklingError)."""
    try:
        return bytes(ForkingPickler.dumps((fn, chunk)))
    except Exception as exc:  # (PicklingError, TypeError, AttributeError: whatever it holds)
        raise BatchError(
            f"cannot send the chunk of items {show(shown)} to the worker processes"
            f" ({type(exc).__name__}: {exc}): expected a function defined at the top level of a"
            " module (not a lambda, nor one defined in another function), and items that pickle;"
            " or workers=1 (the arena's jobs=1), in this process"
        ) from None


def _run_pickled(data: bytes) -> bytes:
    """:func:`_run_chunk` in a local worker process, of the chunk :func:`_pickled` made; its
    results pickled here (:func:`_results` loads them). A chunk that cannot be loaded here is
    :class:`_NotLoaded`, and results or a job's exception that cannot go back are
    :class:`_NotReturned`, which the run says (the pool's own loading and sending broke the
    pool: the chunk was lost 3 times, as a crash, with a traceback each time)."""
    try:
        fn, chunk = ForkingPickler.loads(data)
    except Exception as exc:
        # (pickle looks a function or class up by its module and name: AttributeError when the
        # module has no such name, ModuleNotFoundError when there is no such module)
        missing = isinstance(exc, (AttributeError, ModuleNotFoundError))
        raise _NotLoaded(f"{type(exc).__name__}: {exc}", found=not missing) from None
    try:
        out = _run_chunk(fn, chunk)
    except Exception as exc:
        why = _round_trips(exc)
        if why is None:
            raise
        raise _NotReturned(
            f"a job raised {type(exc).__qualname__}: {show(str(exc))}, which cannot be sent back to"
            f" this process ({why}): expected exceptions that pickle (an exception whose __init__"
            " takes its args as given to Exception.__init__, and attributes that pickle)"
        ) from exc  # (the job's exception goes along, in the pool's traceback text)
    try:
        return bytes(ForkingPickler.dumps(out))  # (loaded by _results: a failure is named there)
    except Exception as why:
        raise _NotReturned(
            f"its results cannot be sent back to this process ({type(why).__name__}: {why}):"
            " expected results that pickle"
        ) from None


def _results(future: Future[Any]) -> list[Any]:
    """The results of a chunk's finished ``future``: :func:`_run_pickled`'s come as bytes."""
    out = future.result()
    if not isinstance(out, bytes):
        return out  # type: ignore[no-any-return]
    try:
        return ForkingPickler.loads(out)  # type: ignore[no-any-return]
    except Exception as why:
        raise _NotReturned(
            f"its results cannot be loaded in this process ({type(why).__name__}: {why}): expected"
            " results that load as they were pickled"
        ) from None


#: On a Dask worker: the stop flags of the jobs running there, by the id of their run; and the
#: runs stopped lately (a chunk that starts after its run was stopped stops at once).
_dask_stops: dict[str, list[StopFlag]] = {}
_dask_stopped: deque[str] = deque(maxlen=1000)
_dask_lock = threading.Lock()


def _run_chunk_on_dask(run: str, fn: Callable[[Any], Any], chunk: Sequence[Any]) -> list[Any]:
    """:func:`_run_chunk` on a Dask worker for the run ``run``: the stop flag of each bounded
    job of :func:`solve_many`, :func:`analyze_many`, :func:`review_many` and :func:`run_jsonl`
    (its options' ``"stop"``; a review, or a time or node limit) is made this process's
    (:func:`_stop`: a job in a worker's thread takes it) and registered under ``run``, so that
    the run, ended early (Ctrl-C, an error), sets it (:func:`_stop_run`) and the job stops: Dask
    cannot stop a running task, which ran to its end (a chunk of 8 solves at 30 s: 4 minutes).
    A job with no limit is left without the flag, which would cost its search (a solve bounded
    by a flag alone is anytime, about twice as slow: docs/solver.md): it runs to its end."""
    pid = os.getpid()
    mine: dict[int, dict[str, Any]] = {}
    jobs = []
    for job in chunk:
        if (
            isinstance(job, tuple)
            and len(job) == 3
            and isinstance(job[2], dict)
            and isinstance(job[2].get("stop"), StopFlag)
            and (
                fn is _review_job
                or job[2].get("time_limit") is not None
                or job[2].get("node_limit") is not None
            )
        ):
            options = mine.setdefault(id(job[2]), {**job[2], "stop_pid": pid})
            job = (job[0], job[1], options)
        jobs.append(job)
    flags = [options["stop"] for options in mine.values()]
    with _dask_lock:
        _dask_stops.setdefault(run, []).extend(flags)
        if run in _dask_stopped:
            for flag in flags:
                flag.set()
    try:
        return [fn(job) for job in jobs]
    finally:
        with _dask_lock:
            left = [f for f in _dask_stops.get(run, []) if all(f is not g for g in flags)]
            if left:
                _dask_stops[run] = left
            else:
                _dask_stops.pop(run, None)


async def _stop_run(run: str) -> None:
    """On a Dask worker: sets the stop flags of the run ``run``'s jobs running there (a
    coroutine: Dask's ``Client.run`` waits for a function's outcome, for a coroutine's need not)."""
    with _dask_lock:
        _dask_stopped.append(run)
        for flag in _dask_stops.get(run, []):
            flag.set()


def _stop_on_workers(cfex: Any, run: str) -> None:
    """Stops the jobs of the run ``run`` running on the Dask cluster of the ClientExecutor
    ``cfex`` (:func:`_stop_run` on every worker; not waited for). A cluster that cannot be
    reached is left as it is: its chunks run to their end, as Dask's do."""
    if getattr(cfex._client, "status", None) != "running":
        return  # (a client that lost its scheduler: a connection would be tried for seconds)
    try:
        cfex._client.run(_stop_run, run, wait=False)
    except Exception:
        pass


def _count(value: Any, what: str) -> int | None:
    n = None if value is None else as_int(value)
    if value is not None and (n is None or n < 1):
        raise BatchError(f"bad {what} {show(value)}: expected an int >= 1 or None")
    return n


def _iterator(items: Iterable[Any], expected: str) -> Iterator[Any]:
    try:
        return iter(items)
    except TypeError:
        raise BatchError(f"bad items {show(items)}: expected {expected}") from None


def map_chunks(
    fn: Callable[[Any], Any],
    items: Iterable[Any],
    executor: Executor | str | None = None,
    workers: int | None = None,
    chunksize: int | None = None,
    in_flight: int | None = None,
    *,
    name: Callable[[Any], Any] | None = None,
) -> Iterator[Any]:
    """``fn(item)`` for every item, in chunks of ``chunksize`` on the executor, yielded as the
    chunks finish (not in input order: results should carry their ids). At most ``in_flight``
    chunks are submitted at once (default: four per local worker or per thread of a Dask
    cluster, counted at the start; one in the calling process), so a
    long input is read as it goes. ``fn`` and the items must pickle (a module-level function),
    and on local worker processes, each a new interpreter (:data:`START_METHOD`), be found there:
    a function or class defined in a notebook, at Python's prompt or in ``python -c`` is not
    (a script's own, outside its ``if __name__ == "__main__":``, is: the workers import it).

    Bad arguments raise :class:`BatchError` at the call, before anything runs. A chunk that
    does not pickle, or that a local worker cannot load, ends the run with a BatchError saying
    so; so do a local worker's results, or an exception a job raised there, that cannot be sent
    back (the job's traceback in the error's chain). A chunk whose
    ``fn`` raises ends the run with that exception, after the results already finished are
    yielded; so does Ctrl-C (KeyboardInterrupt), at once, and a local pool's workers are then
    stopped (they ignore Ctrl-C themselves, so only this process reports it).

    A local process pool of the run's own that breaks (a worker killed) is replaced and its
    unfinished chunks run again (a ProcessPoolExecutor passed in is the caller's: one that
    breaks raises BatchError), so every item's result arrives once; a chunk lost a second
    time then runs alone,
    and one lost :data:`MAX_LOST` (3) times raises :class:`BatchError` naming its items (its
    worker died each time: a crash in native code, ``os._exit``, the out-of-memory killer)
    instead of breaking the pool forever. A Dask cluster reruns the chunks of a lost worker
    itself; a chunk it gives up on (its KilledWorker), or one the executor cancels (a client
    that lost its scheduler, a pool shut down under the run), raises BatchError. On Dask the run
    fetches each chunk's results itself, trying a failed fetch again (:data:`FETCH_TIMEOUT`
    seconds a try at most): one that fails :data:`MAX_LOST` times raises BatchError. Such a
    message shows a chunk's items, or ``name(item)`` of each when ``name`` is given (called in
    this process: an id, where the items are large)."""
    if not callable(fn):
        raise BatchError(f"bad fn {show(fn)}: expected a function of one item")
    if name is not None and not callable(name):
        raise BatchError(f"bad name {show(name)}: expected a function of one item, or None")
    size = _count(chunksize, "chunksize") or 1
    in_flight = _count(in_flight, "in_flight")
    workers = _check_executor(executor, workers)
    it = _iterator(items, "an iterable")
    return _run_lazy(fn, it, executor, workers, size, in_flight, name)


def _run_lazy(
    fn: Callable[[Any], Any],
    it: Iterator[Any],
    executor: Executor | str | None,
    workers: int | None,
    size: int,
    in_flight: int | None,
    name: Callable[[Any], Any] | None,
    stop: StopFlag | None = None,
) -> Iterator[Any]:
    ex, owned = executor_for(executor, workers)  # started at the first result asked for
    yield from _run(fn, it, ex, owned, size, in_flight, name, stop)


def _run(
    fn: Callable[[Any], Any],
    it: Iterator[Any],
    ex: Executor,
    owned: bool,
    size: int,
    in_flight: int | None,
    name: Callable[[Any], Any] | None,
    stop: StopFlag | None = None,
) -> Generator[Any, None, None]:
    """map_chunks on an executor already made (shut down at the end when ``owned``);
    ``name(item)`` is what an error message shows of an item; ``stop``, the flag of the
    jobs' limits, is set when the run ends early (an error, Ctrl-C, its results no longer
    asked for): the jobs running in this process's threads stop (those of other processes
    are theirs: a worker process gets a flag of its own)."""
    n_workers = getattr(ex, "_max_workers", None)
    if isinstance(ex, _Inline):
        limit = 1  # each chunk's results are handed over before the next one runs
    else:
        limit = in_flight or 4 * max(1, n_workers or _cluster_threads(ex) or os.cpu_count() or 1)
    pending: dict[Future[Any], tuple[list[Any], int]] = {}  # chunk, times lost with its worker
    alone: deque[tuple[list[Any], int]] = deque()  # chunks lost twice: each runs by itself
    held: list[tuple[list[Any], int]] = []  # chunks a broken pool refused: for the next pool
    ready: list[Any] = []  # results not yet yielded
    idle_breaks = 0  # pools found broken with nothing running in them, one after another
    started = False  # a chunk has finished: the workers start (a broken pool is no missing guard)
    on_dask = _client_executor(ex)  # (its chunks go through its client: see _DaskChunk)
    run_id = uuid.uuid4().hex  # (on Dask, the name its workers know the run's stop flags by)

    def shown(chunk: list[Any]) -> list[Any]:
        """What an error message shows of a chunk's items (their ids)."""
        return [x if name is None else name(x) for x in chunk]

    def submit(chunk: list[Any], lost: int) -> None:
        if held:  # (the pool is broken: the rest wait for the next one too)
            held.append((chunk, lost))
            return
        try:
            if on_dask is not None:
                pending[_dask_submit(on_dask, _run_chunk_on_dask, run_id, fn, chunk)] = (chunk, lost)
            elif isinstance(ex, ProcessPoolExecutor):
                data = _pickled(fn, chunk, shown(chunk))
                with _ctrl_c_held(owned):  # (the pool starts its workers as it needs them)
                    pending[ex.submit(_run_pickled, data)] = (chunk, lost)
            else:
                pending[ex.submit(_run_chunk, fn, chunk)] = (chunk, lost)
        except BrokenProcessPool:  # (a worker died since the last look: its chunk's future says
            if not owned or not isinstance(ex, ProcessPoolExecutor):  # which, in step)
                raise _callers_pool_broke(chunk) from None
            held.append((chunk, lost))

    def _callers_pool_broke(chunk: list[Any]) -> BatchError:
        return BatchError(
            f"the process pool passed in as the executor broke (a worker process died: killed, a"
            f" crash, os._exit or out of memory; the chunk of items {show(shown(chunk))} was in it):"
            " a pool of the caller's is not replaced and runs nothing more; expected workers that"
            " stay, or no executor (the run's own pool is replaced and its lost chunks run again);"
            " the results finished so far were handed over"
        )

    def renew(chunks: list[tuple[list[Any], int]]) -> None:
        """A new pool for a broken one, and ``chunks`` (with the times each was lost) run on it."""
        nonlocal ex
        pending.clear()
        _shutdown(ex, True)  # (joined: a broken pool's thread left running at the interpreter's
        ex = _pool(n_workers or 1)  # exit can print "Exception ignored ... Bad file descriptor")
        for c, k in chunks:
            if k >= MAX_LOST - 1:
                alone.append((c, k))
            else:
                submit(c, k)

    def fill() -> None:
        if alone:
            if not pending:
                submit(*alone.popleft())
            return
        while len(pending) < limit and not held:
            chunk = list(islice(it, size))
            if not chunk:
                return
            submit(chunk, 0)

    def finished() -> None:
        """Moves the results of the chunks that have finished out of ``pending`` into ``ready``."""
        for f in [f for f in pending if f.done() and not f.cancelled() and f.exception() is None]:
            try:
                ready.extend(_results(f))
            except _NotReturned:  # (left for step to say, unless the run is ending anyway)
                continue
            del pending[f]

    def guard() -> None:
        # the run's own pool broke before any chunk finished: a script without its main guard?
        if owned and isinstance(ex, ProcessPoolExecutor) and not started:
            try:
                _check_guard()
            except BatchError as exc:  # (the error alone: not "during handling of" the pool's)
                raise exc from None

    def step() -> None:
        nonlocal ex, started
        done = _first_done(pending)
        chunk, lost = pending.pop(done)
        try:
            ready.extend(_results(done))
            started = True
            return
        except _NotReturned as exc:
            raise BatchError(
                f"the chunk of items {show(shown(chunk))} ran, but {exc}; the results finished so far"
                " were handed over"
            ) from exc
        except _NotLoaded as exc:
            if exc.found:
                raise BatchError(
                    f"a worker process could not load the chunk of items {show(shown(chunk))} ({exc}):"
                    " loading its function or items there raised; expected items that load as they"
                    " were pickled, or workers=1 (the arena's jobs=1), in this process; the results"
                    " finished so far were handed over"
                ) from None
            raise BatchError(
                f"a worker process could not load the chunk of items {show(shown(chunk))} ({exc}):"
                " a worker is a new interpreter, which finds a function or a class by importing"
                " its module, and one defined in a notebook, at Python's prompt, in python -c or"
                ' under `if __name__ == "__main__":` is not there; expected the function (the'
                " arena's players) in a module the workers can import (a .py file, imported), or"
                " workers=1 (the arena's jobs=1), in this process; the results finished so far"
                " were handed over"
            ) from None
        except BrokenProcessPool:
            if not owned or not isinstance(ex, ProcessPoolExecutor):
                raise _callers_pool_broke(chunk) from None
            guard()
        except ValueError as exc:  # (a Dask executor's, the caller's or one made from dask://)
            if not _lost_by_dask(exc):
                raise
            if lost + 1 >= MAX_LOST:
                names = shown(chunk)
                raise BatchError(
                    f"the chunk of items {show(names)} was lost {lost + 1} times with its Dask worker"
                    " (it died running them: a crash, os._exit or out of memory): expected its jobs"
                    " to return or raise; the run is given up"
                ) from None
            submit(chunk, lost + 1)  # (Dask has replaced the worker: the chunk runs again there)
            return
        except _FetchFailed as exc:
            names = shown(chunk)
            raise BatchError(
                f"the results of the chunk of items {show(names)} could not be fetched from the Dask"
                f" cluster ({MAX_LOST} tries, {FETCH_TIMEOUT:g} s each at most; the last: {exc}):"
                " expected a scheduler and workers that answer; the results finished so far were"
                " handed over (scopa batch: rerun to resume)"
            ) from None
        except CancelledError:
            raise BatchError(
                "a chunk was cancelled by its executor (a Dask client that lost its scheduler, or an"
                " executor shut down under the run): expected it to run; the results finished so far"
                " were handed over (scopa batch: rerun to resume)"
            ) from None
        except Exception as exc:
            if type(exc).__name__ != "KilledWorker":  # (distributed's: not imported without Dask)
                raise
            names = shown(chunk)
            raise BatchError(
                f"the chunk of items {show(names)} was lost with every Dask worker that ran it (Dask's"
                " KilledWorker):"
                " expected its jobs to return or raise (a crash, os._exit or out of memory kills the"
                " worker); the run is given up"
            ) from None
        # a worker died: the chunks that finished are kept, the others run again on a new pool
        # (and those the broken pool refused, which never ran)
        by_itself = not pending
        finished()
        lost_now = [(chunk, lost + 1), *((c, k + 1) for c, k in pending.values()), *held]
        held.clear()
        if by_itself and lost + 1 >= MAX_LOST:
            pending.clear()
            _shutdown(ex, True)
            names = shown(chunk)
            raise BatchError(
                f"the chunk of items {show(names)} was lost {lost + 1} times with its worker process"
                " (it died running them, the last time alone: a crash, os._exit or out of memory):"
                " expected its jobs to return or raise; the run is given up"
            )
        renew(lost_now)

    def handover() -> list[Any]:
        out = ready[:]
        ready.clear()
        return out

    early = True
    try:
        while True:
            try:
                fill()
                if not pending and held:  # (the pool broke with nothing running: a worker gone idle)
                    guard()
                    idle_breaks += 1
                    if idle_breaks >= MAX_LOST:
                        raise BatchError(
                            f"the local process pool broke {idle_breaks} times with no job running in"
                            " it (its workers ended: killed, or out of memory): expected workers that"
                            " stay; the run is given up"
                        )
                    refused = held[:]
                    held.clear()
                    renew(refused)
                    continue
                if not pending:
                    break
                idle_breaks = 0
                step()
            except BaseException:
                # an error or Ctrl-C: first hand over what has finished, so nothing done is lost
                finished()
                if ready:
                    yield from handover()
                raise
            yield from handover()
        early = False
    finally:
        if early and stop is not None:
            stop.set()  # (after the results finished were handed over: the rest are not wanted)
        if early and on_dask is not None and stop is not None and pending:
            _stop_on_workers(on_dask, run_id)  # (the chunks running: Dask cannot stop them)
        if owned:
            _shutdown(ex, early and bool(pending))
        else:
            for f in pending:
                f.cancel()  # the chunks not started yet; the executor is the caller's


# ---------------------------------------------------------------------------------- jobs

_local = threading.local()


def _solver() -> Any:
    """This worker's solver: kept between chunks, so its table serves related positions."""
    from scopa.solver import Solver

    s = getattr(_local, "solver", None)
    if s is None:
        s = _local.solver = Solver(128)
    return s


def _with_stop(options: Mapping[str, Any]) -> tuple[dict[str, Any], StopFlag]:
    """``options`` with a new stop flag for a run's jobs, and the process that made it (which
    :func:`_stop` reads); and the flag, which the run sets when it ends early."""
    stop = StopFlag()
    return {**options, "stop": stop, "stop_pid": os.getpid()}, stop


def _stop(options: Mapping[str, Any]) -> StopFlag | None:
    """The run's stop flag, for a job running in a thread of the process that made it (a
    thread pool's: set when the run ends early, it stops the job); None elsewhere: a worker
    process's copy is never set, its processes are stopped instead, and a job in the calling
    thread is stopped by Ctrl-C itself (a flag alone would cost an unbounded solve its
    anytime search: docs/solver.md). On a Dask worker, :func:`_run_chunk_on_dask` makes a
    bounded job's flag the worker's, and the run sets it there when it ends early."""
    stop = options.get("stop")
    here = (
        options.get("stop_pid") == os.getpid() and threading.current_thread() is not threading.main_thread()
    )
    return stop if here else None


def _limit(options: Mapping[str, Any]) -> Limit:
    """A job's limit: the run's time and node limits, and its stop flag (:func:`_stop`)."""
    stop = _stop(options)
    return Limit.of(
        None if stop is None else Limit(stop=stop), options.get("time_limit"), options.get("node_limit")
    )


def _error(item_id: Any, exc: BaseException) -> dict[str, Any]:
    return {"id": item_id, "error": {"type": type(exc).__name__, "message": str(exc)}}


# A job's bad input gives an error record for its item: a ScopaError, or another ValueError
# (UnicodeError among them) or an OSError (a record file that cannot be read). Anything else
# (KeyboardInterrupt, MemoryError, a TypeError of a programming error) ends the run.
_ITEM_ERRORS = (ValueError, OSError)


def _solve_job(job: tuple[Any, Any, Mapping[str, Any]]) -> dict[str, Any]:
    item_id, pos, options = job
    try:
        r = _solver().solve(State.of(pos), _limit(options))
    except _ITEM_ERRORS as exc:
        return _error(item_id, exc)
    return {"id": item_id, **r.to_json()}


def _analyze_job(job: tuple[Any, Any, Mapping[str, Any]]) -> dict[str, Any]:
    item_id, pos, options = job
    try:
        a = _solver().analyze(State.of(pos), _limit(options))
    except _ITEM_ERRORS as exc:
        return _error(item_id, exc)
    return {"id": item_id, **a.to_json()}


def _review_job(job: tuple[Any, Any, Mapping[str, Any]]) -> dict[str, Any]:
    from scopa.records import HandRecord, MatchRecord, RecordError, load_record
    from scopa.review import DEFAULT_TIME, review

    item_id, record, options = job
    try:
        if isinstance(record, (MatchRecord, HandRecord, State)):
            rec: MatchRecord | HandRecord | State = record
        elif isinstance(record, str) and "\n" in record and not record.lstrip().startswith("{"):
            raise RecordError(
                f"bad record {show(record)}: expected a record, its JSON (an object, or its text"
                " starting with '{') or a file name (a record's text() form cannot be read back)"
            )
        else:
            if isinstance(record, (str, os.PathLike)) and not str(record).lstrip().startswith("{"):
                _check_regular_file(record)
            rec = load_record(record)
        time_limit = options.get("time_limit")
        stop = _stop(options)
        r = review(
            rec,
            time_limit=DEFAULT_TIME if time_limit is None else time_limit,
            seed=options.get("seed", 0),
            limit=None if stop is None else Limit(stop=stop),
        )
    except _ITEM_ERRORS as exc:
        return _error(item_id, exc)
    return {"id": item_id, **r.to_json()}


def _check_regular_file(path: str | os.PathLike[str]) -> None:
    """RecordError unless ``path`` names a regular file (or none: load_record says so): a job
    reading a named pipe or a terminal would wait for ever, holding its worker."""
    from scopa.records import RecordError

    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return  # (load_record's own message: no such file, a NUL in the name)
    if not stat.S_ISREG(mode):
        raise RecordError(f"cannot read the record {show(os.fspath(path))}: expected a regular file")


def _id_key(item_id: Any) -> Any:
    """What an id is, for telling two apart: an integer as an int (NumPy's too), a string as a
    str, anything else with its type (True is not 1, nor 1.0: their results differ).

    >>> _id_key(True) == _id_key(1), _id_key(1.0) == _id_key(1)
    (False, False)
    """
    if isinstance(item_id, bool):
        return (bool, item_id)
    if isinstance(item_id, str):
        return (str, str(item_id))
    number = as_int(item_id)
    return (int, number) if number is not None else (type(item_id), item_id)


def _items(items: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
    """Each item's (id, item): a pair's own id, else the item's index. An id given twice (a
    pair's, or a pair's and an index) raises BatchError as the run reads it, as ``scopa batch``
    refuses the line: the two results could not be told apart. Only the pairs' ids are held
    (items alone stream as before: their indexes differ)."""
    pair_ids: set[Any] = set()
    pairs_at: set[int] = set()  # (the indexes of the pairs: an index not here was an item's id)
    for i, item in enumerate(items):
        if not (isinstance(item, tuple) and len(item) == 2):
            if (int, i) in pair_ids:
                raise _given_twice(i, i)
            yield i, item
            continue
        item_id, job = item
        try:
            key = _id_key(item_id)
            repeated = key in pair_ids
        except TypeError:  # (an id that cannot be hashed is the caller's to tell apart)
            yield item_id, job
            continue
        if repeated or (key[0] is int and 0 <= key[1] < i and key[1] not in pairs_at):
            raise _given_twice(item_id, i)
        pair_ids.add(key)
        pairs_at.add(i)
        yield item_id, job


def _given_twice(item_id: Any, index: int) -> BatchError:
    return BatchError(
        f"bad items: id {show(item_id)} is given twice (item {index}): expected each id once,"
        " so that each result tells its item"
    )


def _check_limits(time_limit: Any, node_limit: Any) -> None:
    Limit.of(None, time_limit, node_limit)  # LimitError naming the bad one


def _many(
    kind: str,
    items: Iterable[Any],
    options: dict[str, Any],
    executor: Executor | str | None,
    workers: int | None,
    chunksize: int | None,
) -> Iterator[dict[str, Any]]:
    job, _, default_chunk, _ = _JOBS[kind]  # (the chunk `scopa batch` takes for this kind too)
    expected = "an iterable of (id, item) pairs or of items (a single item goes in a list)"
    if isinstance(items, (str, bytes, bytearray, Mapping, State)):
        raise BatchError(f"bad items {show(items)}: expected {expected}")
    size = _count(chunksize, "chunksize") or default_chunk
    workers = _check_executor(executor, workers)
    it = _iterator(items, expected)
    options, stop = _with_stop(options)
    jobs = ((i, x, options) for i, x in _items(it))
    return _run_lazy(job, jobs, executor, workers, size, None, _job_id, stop)


def _job_id(job: tuple[Any, Any, Mapping[str, Any]]) -> Any:
    return job[0]


def solve_many(
    items: Iterable[Any],
    *,
    time_limit: float | None = None,
    node_limit: int | None = None,
    executor: Executor | str | None = None,
    workers: int | None = None,
    chunksize: int | None = None,
) -> Iterator[dict[str, Any]]:
    """Solve every position of ``items`` — ``(id, position)`` pairs, or positions (their index
    is then the id), each a State, a position string or a JSON position — and yield
    the id and :meth:`SolveResult.to_json <scopa.solver.SolveResult.to_json>`'s fields, ``{"id",
    "value", "exact", "lower", "upper", "estimate", "depth", "best", "pv", "nodes", "seconds"}``
    as each finishes (``{"id", "error"}`` for a bad position). Bad limits or settings raise
    (LimitError, BatchError) at the call, before any job runs; an id given twice (a pair's, or
    a pair's and a position's index) ends the run with a BatchError as it is read. See
    :func:`map_chunks` for how the run meets errors, Ctrl-C and dying workers.

    >>> results = list(solve_many(["scopa 7d/Kc 3c4s - -/- 0/0 0 - -", "scopa 7d/Kc"], workers=1))
    >>> results[0]["id"], results[0]["value"], results[0]["pv"]
    (0, 4, ['7dx3c4s', 'Kc'])
    >>> results[1]["error"]["type"]              # a bad position is a result, not an exception
    'PositionError'
    """
    _check_limits(time_limit, node_limit)
    opts = {"time_limit": time_limit, "node_limit": node_limit}
    return _many("solve", items, opts, executor, workers, chunksize)


def analyze_many(
    items: Iterable[Any],
    *,
    time_limit: float | None = None,
    node_limit: int | None = None,
    executor: Executor | str | None = None,
    workers: int | None = None,
    chunksize: int | None = None,
) -> Iterator[dict[str, Any]]:
    """Every legal move's value of each position (as :func:`solve_many` takes them):
    the id and :meth:`Analysis.to_json <scopa.solver.Analysis.to_json>`'s fields, ``{"id", "moves",
    "exact", "best", "depth", "nodes", "seconds", "lines"}``, as the engine's ``analyze`` replies.

    >>> [r] = analyze_many([("a", "scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")], workers=1)
    >>> r["id"], r["moves"], r["best"]
    ('a', {'7dx3c4s': 4, 'Kc': 3}, '7dx3c4s')
    """
    _check_limits(time_limit, node_limit)
    opts = {"time_limit": time_limit, "node_limit": node_limit}
    return _many("analyze", items, opts, executor, workers, chunksize)


def review_many(
    items: Iterable[Any],
    *,
    time_limit: float | None = None,
    seed: int = 0,
    executor: Executor | str | None = None,
    workers: int | None = None,
    chunksize: int | None = None,
) -> Iterator[dict[str, Any]]:
    """The review (:func:`scopa.review`) of each game record of ``items`` (as :func:`solve_many`
    takes them), ``time_limit`` seconds per play (default ``scopa.review.DEFAULT_TIME``), each
    with ``seed`` (as :func:`scopa.review`'s: the same review for a seed when no time limit cuts
    its evaluations short):
    the ``id`` and :meth:`Review.to_json <scopa.review.Review.to_json>`'s fields (``plays``,
    ``summary``, ...; :meth:`Review.from_json <scopa.review.Review.from_json>` reads them back,
    the ``id`` read past). A record is a ``MatchRecord`` or ``HandRecord`` (or a State), a decoded
    JSON record, the JSON text of one (a string starting with ``{``) or the name of a record file
    (a regular file); the ``text()`` form is for reading and cannot be read back.

    >>> s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1").play("Kc")
    >>> [r] = review_many([("g", s)], time_limit=0.1, workers=1)
    >>> [(p["move"], p["best"], p["mark"]) for p in r["plays"]], r["summary"]["teams"][0]["mistakes"]
    ([('Kc', '7dx3c4s', '?')], 1)
    >>> from scopa.review import Review
    >>> Review.from_json(r).plays[0].dd_loss
    1
    """
    from scopa.review import check_time_per_play

    check_time_per_play(time_limit, allow_none=True)
    seed = check_seed(seed, OptionError)
    return _many("review", items, {"time_limit": time_limit, "seed": seed}, executor, workers, chunksize)


def thread_pool(workers: int) -> ThreadPoolExecutor:
    """A pool of threads (the core releases the GIL while it solves): an executor for
    :func:`solve_many` in one process."""
    return ThreadPoolExecutor(max_workers=_check_workers(workers))


# ---------------------------------------------------------------------------------- JSON lines

#: Each kind's job, its input field, its default chunk size, and the field every result of it
#: holds (an error result holds "error" instead).
_JOBS = {
    "solve": (_solve_job, "position", 8, "value"),
    "analyze": (_analyze_job, "position", 4, "moves"),
    "review": (_review_job, "record", 1, "plays"),
}

#: Keys of an input line that would be the run's settings (refused: a line cannot set them).
_RUN_SETTINGS = frozenset(
    {"time_limit", "node_limit", "time", "nodes", "time_ms", "limit", "chunksize", "workers", "executor"}
)

#: The largest integer id (JavaScript's exact integers, as the protocol's ids).
MAX_INT_ID = 2**53 - 1


def _scan_output(out: str, src: str, kind: str) -> tuple[set[Any], int | None, bool]:
    """The ids already in the output file; the length to cut it to (None: nothing to cut);
    and whether its last line lacks its newline (a whole result: the newline is added).
    Only a torn last line (a run killed while writing it: no newline, not complete JSON, and
    begun as every result line is, ``{"id":``) is cut, so a rerun writes it again whole.
    Anything else that is not a result line of this ``kind`` (a JSON object with an id and
    the kind's result or an error) raises BatchError
    and the file is left as it is: it is not an earlier run's output. A file that is not a
    regular one (``/dev/stdout``) is not read."""
    done: set[Any] = set()
    try:
        st = os.stat(out)
    except FileNotFoundError:
        # (its folder is looked at now, so a missing one is said before the input's bad lines)
        folder = os.path.dirname(out) or "."
        if not os.path.isdir(folder):
            raise BatchError(
                f"cannot write the output {show(out)}: its folder {show(folder)} does not exist"
            ) from None
        return done, None, False
    except OSError as exc:
        raise BatchError(f"cannot use the output {show(out)}: {failure_reason(exc)}") from None
    if stat.S_ISDIR(st.st_mode):
        raise BatchError(f"cannot use the output {show(out)}: {IS_A_DIRECTORY}")
    try:
        same = os.path.samefile(src, out)
    except OSError:
        same = False
    if same:
        raise BatchError(f"the output {show(out)} is the input file: expected another file for the results")
    if not stat.S_ISREG(st.st_mode):
        return done, None, False
    try:
        with open(out, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise BatchError(f"cannot read the output {show(out)}: {failure_reason(exc)}") from None
    good = 0
    field = _JOBS[kind][3]
    for number, raw in enumerate(data.splitlines(keepends=True), 1):
        whole = raw.endswith(b"\n")
        if raw.strip():
            try:
                obj = jsonio.loads(raw, max_chars=max(jsonio.MAX_CHARS, len(raw)))
            except ScopaError:
                if not whole and raw.startswith(_RESULT_START):
                    return done, good, False  # torn: cut off
                obj = None
            if not isinstance(obj, dict) or "id" not in obj or not ({field, "error"} & obj.keys()):
                line = show(raw.decode("utf-8", "replace").rstrip("\r\n"))
                raise BatchError(
                    f"the output {show(out)} is not {article(kind)} {kind} results"
                    f" file: its line {number} {line} is"
                    f" not a JSON object with an id and {show(field)} (or 'error'); expected the JSON"
                    f" lines of an earlier {kind} run (the file is left as it is)"
                )
            done.add(_key(obj["id"]))
        good += len(raw)
    return done, None, bool(data) and not data.endswith(b"\n")


#: How every result line begins (its id first, JSON without spaces): only a last line that
#: begins so is taken for one torn by a killed run (an audit: `json.dump`'s file of one line,
#: no newline and a NaN, given as the output by mistake, was cut to nothing).
_RESULT_START = b'{"id":'


def _key(x: Any) -> Any:
    return json.dumps(x, sort_keys=True)


#: The longest input line read (a job's JSON holds at most jsonio.MAX_CHARS characters, 4
#: bytes each at most); a longer one is a bad line, read no further than that.
MAX_LINE_BYTES = 4 * jsonio.MAX_CHARS


def _job_lines(src: str, field: str) -> Iterator[tuple[int, Any, str | None]]:
    """Each non-blank line of the input ``src``: (its number, the job object, None), or (its
    number, None, why it is a bad line). An input that cannot be read raises BatchError."""
    try:
        # (standard input from where it stands: opened again by its name, a file would be read
        # from its start on Linux, whatever a command before this one read of it)
        with os.fdopen(os.dup(0), "rb") if src in _STDIN else open(src, "rb") as f:
            for number, raw in enumerate(read_lines(f, MAX_LINE_BYTES), 1):
                if not isinstance(raw, bytes):  # (read no further: a line too long is None)
                    yield number, None, f"a line longer than {MAX_LINE_BYTES} bytes: expected one job"
                    continue
                if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                    raw = raw[3:]  # a UTF-8 byte order mark
                if not raw.strip():
                    continue
                try:
                    yield number, _job(raw, field), None
                except ScopaError as exc:
                    yield number, None, str(exc)
    except OSError as exc:
        raise BatchError(f"cannot read the input {show(src)}: {failure_reason(exc)}") from None


#: The names of standard input that the command line gives (``-``) or a user may.
_STDIN = ("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0")


def _job(raw: bytes, field: str) -> dict[str, Any]:
    """One input line's job object, or a ScopaError saying why the line is bad."""
    obj = jsonio.loads(raw)  # not UTF-8: a bad line (JSONInputError)
    if not isinstance(obj, dict) or "id" not in obj or field not in obj:
        raise BatchError(f"expected an object with 'id' and {show(field)}")
    setting = next((k for k in obj if k in _RUN_SETTINGS), None)
    if setting is not None:  # (your own notes are let through, but a limit would be ignored)
        raise BatchError(
            f"{show(setting)} is the run's setting, not a line's: give it to the run (scopa batch"
            f" --time, --nodes, --chunksize); expected 'id' and {show(field)}"
        )
    item_id = obj["id"]
    if (
        not isinstance(item_id, (str, int))
        or isinstance(item_id, bool)
        or (isinstance(item_id, int) and abs(item_id) > MAX_INT_ID)
    ):
        raise BatchError(f"bad id {jsonio.short(item_id)}: expected a string or an integer within ±(2**53-1)")
    return obj


def _jobs_once(src: str, field: str, done: set[Any]) -> Iterator[tuple[int, Any, str | None]]:
    """:func:`_job_lines` with each id's later lines bad (an id given twice) and the jobs done
    before as None with no reason: (number, the job to run, None), (number, None, why it is
    a bad line) or (number, None, None)."""
    seen: set[Any] = set()
    for number, obj, why in _job_lines(src, field):
        if obj is not None:
            key = _key(obj["id"])
            if key in seen:
                why = f"id {jsonio.short(obj['id'])} is given twice"
                obj = None
            else:
                seen.add(key)
                if key in done:
                    obj = None
        yield number, obj, why


def _count_jobs(
    src: str,
    field: str,
    done: set[Any],
    bad_line: Callable[[int, str], None] | None,
    keep: list[tuple[Any, Any]] | None = None,
) -> tuple[int, int, int]:
    """The input's first reading: (jobs to run, jobs done before, bad lines), each bad line
    reported to ``bad_line``. Only the ids are kept, not the jobs: :func:`_read_jobs` reads a
    file again as the run goes, so a long input is never held whole; an input that cannot be
    read twice (a pipe, ``/dev/stdin``) has its jobs' (id, item) kept in ``keep``."""
    todo = skipped = bad = 0
    for number, obj, why in _jobs_once(src, field, done):
        if why is not None:
            bad += 1
            if bad_line is not None:
                bad_line(number, why)
        elif obj is None:
            skipped += 1
        else:
            todo += 1
            if keep is not None:
                keep.append((obj["id"], obj[field]))
    return todo, skipped, bad


def _read_jobs(
    src: str, field: str, done: set[Any], options: dict[str, Any]
) -> Iterator[tuple[Any, Any, dict[str, Any]]]:
    """The jobs to run, read as the run asks for them: the lines :func:`_count_jobs` counted."""
    for _, obj, _why in _jobs_once(src, field, done):
        if obj is not None:
            yield obj["id"], obj[field], options


def _write(fd: int, data: bytes, out: str) -> None:
    try:
        write_all(fd, data)
    except OSError as exc:
        raise BatchError(f"cannot write the output {show(out)}: {failure_reason(exc)}") from None


def run_jsonl(
    kind: str,
    src: str,
    out: str,
    *,
    executor: Executor | str | None = None,
    workers: int | None = None,
    time_limit: float | None = None,
    node_limit: int | None = None,
    chunksize: int | None = None,
    seed: int = 0,
    bad_line: Callable[[int, str], None] | None = None,
    started: Callable[[int], None] | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> tuple[int, int, int]:
    """``scopa batch``: the jobs of the JSON-lines file ``src`` (each line ``{"id": ..., "position":
    P}``, for ``review`` ``{"id": ..., "record": R}``) run ``kind`` (solve, analyze or review) and
    their results are appended to ``out``, one JSON line each with the input's id, written whole.
    Resumable: the ids already in ``out`` are skipped, so a run that was killed loses nothing and
    does nothing twice. ``chunksize`` jobs go to a worker at once (by default 8 to solve, 4 to
    analyze, 1 review). ``seed`` is every review's (:func:`review_many`); solve and analyze,
    exact searches, take none (0). A bad input line (not UTF-8, not JSON, too long, no id, an id seen
    before or not a string or an integer within ±(2**53-1), no position, a run's setting such
    as ``time_limit``; other keys, your own notes, are let through) is reported to
    ``bad_line(line number, message)`` and skipped. Returns (done now, skipped as done before,
    bad lines). The input file is read twice (counted, then read as the run goes): it must not
    change while the run goes.

    Raises BatchError, before anything is written, for an input that cannot be read, an output
    that cannot be written, is the input itself or is not a results file of this ``kind`` (only
    a torn last line, from a run killed while writing it, is cut off), or a Dask scheduler that
    does not take the connection;
    LimitError for a bad limit.

    >>> import pathlib, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> src = pathlib.Path(tmp.name, "in.jsonl")
    >>> _ = src.write_text('{"id": 1, "position": "scopa 7d/Kc 3c4s - -/- 0/0 0 - -"}\\n{"id": 2}\\n')
    >>> run_jsonl("solve", str(src), f"{src}.out", workers=1, bad_line=print)
    2 expected an object with 'id' and 'position'
    (1, 0, 1)
    >>> run_jsonl("solve", str(src), f"{src}.out", workers=1, bad_line=print)   # id 1 is done
    2 expected an object with 'id' and 'position'
    (0, 1, 1)
    >>> tmp.cleanup()
    """
    if not isinstance(kind, str) or kind not in _JOBS:
        raise BatchError(f"unknown batch job {show(kind)}: expected one of {', '.join(_JOBS)}")
    for name, hook in (("bad_line", bad_line), ("started", started), ("progress", progress)):
        if hook is not None and not callable(hook):
            raise BatchError(f"bad {name} {show(hook)}: expected a function or None")
    for name, path in (("input", src), ("output", out)):
        if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
            raise BatchError(f"bad {name} {show(path)}: expected a file name")
    src, out = os.fspath(src), os.fspath(out)
    seed = check_seed(seed, OptionError)
    if kind != "review" and seed:
        raise BatchError(f"bad seed {show(seed)}: {kind} is an exact search and takes no seed; expected 0")
    if kind == "review":
        from scopa.review import check_time_per_play

        check_time_per_play(time_limit, allow_none=True)
        if node_limit is not None:
            raise BatchError(
                f"bad node_limit {show(node_limit)}: a review takes no node limit; expected None"
            )
    else:
        _check_limits(time_limit, node_limit)
    workers = _check_executor(executor, workers)
    job, field, chunk, _ = _JOBS[kind]
    chunk = _count(chunksize, "chunksize") or chunk
    done, cut, newline = _scan_output(out, src, kind)
    options, stop = _with_stop({"time_limit": time_limit, "node_limit": node_limit, "seed": seed})
    try:  # (a file is read twice, a pipe once, and so is standard input whatever it is: a file
        # given as /dev/stdin, opened again, is read from its start on Linux, from where the
        # last reading ended on macOS: the second reading found no job there)
        again = stat.S_ISREG(os.stat(src).st_mode) and src not in _STDIN
    except OSError:
        again = False  # (_count_jobs says why it cannot be read)
    kept: list[tuple[Any, Any]] | None = None if again else []
    # (the executor first: a scheduler that does not answer is said before the input is read,
    # an audit waited for a long input's reading and then for the connection's timeout; a
    # process pool starts its processes at the first job)
    ex, owned = executor_for(executor, workers)
    try:
        todo, skipped, bad = _count_jobs(src, field, done, bad_line, kept)
        try:
            fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as exc:
            raise BatchError(f"cannot write the output {show(out)}: {failure_reason(exc)}") from None
    except BaseException:
        if owned:
            _shutdown(ex, True)
        raise
    if kept is None:
        jobs = _read_jobs(src, field, done, options)
    else:
        jobs = ((item_id, item, options) for item_id, item in kept)
    run = _run(job, jobs, ex, owned, chunk, None, _job_id, stop)
    written = 0
    try:
        if cut is not None:
            try:
                os.ftruncate(fd, cut)  # the torn last line
            except OSError as exc:
                raise BatchError(
                    f"cannot cut the torn last line of {show(out)}: {failure_reason(exc)}"
                ) from None
        elif newline:
            _write(fd, b"\n", out)
        if started is not None:
            started(todo)
        for result in run:
            _write(fd, (jsonio.dumps(result) + "\n").encode("ascii"), out)  # a whole line at once
            written += 1
            if progress is not None:
                progress(result)
    finally:
        if inspect.getgeneratorstate(run) == inspect.GEN_CREATED and owned:
            _shutdown(ex, True)  # never started: _run's own cleanup does not run
        run.close()
        os.close(fd)
    return written, skipped, bad
