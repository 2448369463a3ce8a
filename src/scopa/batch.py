"""Batch work on any executor: many positions solved, analyzed or reviewed, in parallel.

The one way the package runs many jobs: the work is cut into chunks, each chunk sent to a
:class:`concurrent.futures.Executor` — a local process pool by default, or a Dask cluster
through ``distributed.Client(...).get_executor()`` or the ``"dask://HOST:PORT"`` shorthand —
and the results are yielded as they finish, each with its input's id. In the workers the
solver (and its table) is kept between chunks. The arena and ``scopa batch`` use it too.

>>> import scopa
>>> items = [(i, scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")) for i in range(3)]
>>> sorted((r["id"], r["value"]) for r in solve_many(items, workers=1))
[(0, 4), (1, 4), (2, 4)]
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from scopa import jsonio
from scopa.errors import ScopaError, show
from scopa.state import State

__all__ = [
    "BatchError",
    "analyze_many",
    "executor_for",
    "map_chunks",
    "review_many",
    "run_jsonl",
    "solve_many",
]


class BatchError(ScopaError):
    """A bad batch setting (an executor that cannot be used, a bad chunk size)."""


# ---------------------------------------------------------------------------------- executors


class _Inline(Executor):
    """Runs each job at once in the calling thread (``workers=1``: no process to start)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        f: Future[Any] = Future()
        try:
            f.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # the caller sees it through the future
            f.set_exception(exc)
        return f


def executor_for(executor: Executor | str | None = None, workers: int | None = None) -> tuple[Executor, bool]:
    """The executor to run on, and whether this module made it (and must shut it down):

    - an :class:`~concurrent.futures.Executor`: used as it is (a Dask ``ClientExecutor`` too);
    - ``"dask://HOST:PORT"`` (or ``"tcp://HOST:PORT"``): a Dask cluster's scheduler, through
      ``distributed.Client(...).get_executor()`` (the ``scopa[dask]`` extra);
    - ``None``: a local process pool of ``workers`` processes (every core by default); with
      ``workers=1``, the calling process itself.
    """
    if isinstance(executor, Executor):
        return executor, False
    if isinstance(executor, str):
        address = executor
        if address.startswith("dask://"):
            address = "tcp://" + address[len("dask://") :]
        if not address.startswith(("tcp://", "tls://", "inproc://")):
            raise BatchError(f"bad executor {show(executor)}: expected 'dask://HOST:PORT' or an Executor")
        try:
            from distributed import Client
        except ImportError as exc:
            raise BatchError(
                f"a Dask executor needs the dask extra: pip install 'scopa[dask]' ({exc})"
            ) from None
        return _DaskExecutor(Client(address)), True  # type: ignore[no-untyped-call]
    if executor is not None:
        raise BatchError(f"bad executor {show(executor)}: expected an Executor, 'dask://HOST:PORT' or None")
    if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool) or workers < 1):
        raise BatchError(f"bad workers {show(workers)}: expected an int >= 1 or None")
    n = workers or os.cpu_count() or 1
    if n == 1:
        return _Inline(), True
    return ProcessPoolExecutor(max_workers=n), True


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


def _run_chunk(fn: Callable[[Any], Any], chunk: Sequence[Any]) -> list[Any]:
    return [fn(item) for item in chunk]


def map_chunks(
    fn: Callable[[Any], Any],
    items: Iterable[Any],
    executor: Executor | str | None = None,
    workers: int | None = None,
    chunksize: int | None = None,
    in_flight: int | None = None,
) -> Iterator[Any]:
    """``fn(item)`` for every item, in chunks of ``chunksize`` on the executor, yielded as the
    chunks finish (not in input order: results should carry their ids). At most ``in_flight``
    chunks are submitted at once (default: four per worker), so a long input is read as it
    goes. A local process pool that breaks (a worker killed) is replaced and its unfinished
    chunks run again, so every item's result arrives once; a Dask cluster reruns the chunks of
    a lost worker itself. ``fn`` and the items must pickle (a module-level function)."""
    ex, owned = executor_for(executor, workers)
    size = chunksize or 1
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise BatchError(f"bad chunksize {show(chunksize)}: expected an int >= 1")
    limit = in_flight or 4 * max(1, getattr(ex, "_max_workers", None) or workers or os.cpu_count() or 1)
    it = iter(items)
    pending: dict[Future[Any], list[Any]] = {}
    try:

        def fill() -> None:
            while len(pending) < limit:
                chunk = [x for _, x in zip(range(size), it, strict=False)]
                if not chunk:
                    return
                pending[ex.submit(_run_chunk, fn, chunk)] = chunk

        fill()
        while pending:
            done = next(as_completed(list(pending)))
            chunk = pending.pop(done)
            try:
                results = done.result()
            except BrokenProcessPool:
                if not owned or not isinstance(ex, ProcessPoolExecutor):
                    raise
                # a worker died: a new pool, and every chunk that did not finish runs again
                lost = [chunk, *pending.values()]
                pending.clear()
                ex.shutdown(wait=False, cancel_futures=True)
                ex = ProcessPoolExecutor(max_workers=getattr(ex, "_max_workers", None))
                for c in lost:
                    pending[ex.submit(_run_chunk, fn, c)] = c
                continue
            yield from results
            fill()
    finally:
        if owned:
            # a run read to its end joins its workers; one left early (closed, or failed)
            # cancels what waits and does not wait for the chunks still running
            ex.shutdown(wait=not pending, cancel_futures=True)


# ---------------------------------------------------------------------------------- jobs

_local = threading.local()


def _solver() -> Any:
    """This worker's solver: kept between chunks, so its table serves related positions."""
    from scopa.solver import Solver

    s = getattr(_local, "solver", None)
    if s is None:
        s = _local.solver = Solver(128)
    return s


def _limit(options: Mapping[str, Any]) -> Any:
    from scopa.limit import Limit

    return Limit(time=options.get("time_limit"), nodes=options.get("node_limit"))


def _solve_job(job: tuple[Any, Any, Mapping[str, Any]]) -> dict[str, Any]:
    item_id, pos, options = job
    try:
        r = _solver().solve(State.of(pos), _limit(options))
    except ScopaError as exc:
        return {"id": item_id, "error": {"type": type(exc).__name__, "message": str(exc)}}
    return {
        "id": item_id,
        "value": r.value,
        "best": None if r.best_move is None else str(r.best_move),
        "exact": r.exact,
        "lower": r.lower,
        "upper": r.upper,
        "estimate": round(r.estimate, 4),
        "pv": [str(m) for m in r.pv],
        "nodes": r.nodes,
        "seconds": round(r.seconds, 6),
    }


def _analyze_job(job: tuple[Any, Any, Mapping[str, Any]]) -> dict[str, Any]:
    item_id, pos, options = job
    try:
        a = _solver().analyze(State.of(pos), _limit(options))
    except ScopaError as exc:
        return {"id": item_id, "error": {"type": type(exc).__name__, "message": str(exc)}}
    return {
        "id": item_id,
        "moves": {str(m): v for m, v in a.items()},
        "best": None if a.best_move is None else str(a.best_move),
        "exact": a.exact,
        "lines": [
            {"move": str(m), "lower": v.lower, "upper": v.upper, "estimate": round(v.estimate, 4)}
            for m, v in a.moves.items()
        ],
        "nodes": a.nodes,
        "seconds": round(a.seconds, 6),
    }


def _review_job(job: tuple[Any, Any, Mapping[str, Any]]) -> dict[str, Any]:
    from scopa.records import load_record
    from scopa.review import DEFAULT_TIME, review

    item_id, record, options = job
    try:
        rec = load_record(record) if not hasattr(record, "hands") else record
        r = review(rec, time_limit=options.get("time_limit") or DEFAULT_TIME)
    except ScopaError as exc:
        return {"id": item_id, "error": {"type": type(exc).__name__, "message": str(exc)}}
    return {"id": item_id, **r.to_json()}


def _items(items: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
    for i, item in enumerate(items):
        if isinstance(item, tuple) and len(item) == 2:
            yield item
        else:
            yield i, item


def _many(
    job: Callable[[Any], dict[str, Any]],
    items: Iterable[Any],
    options: dict[str, Any],
    executor: Executor | str | None,
    workers: int | None,
    chunksize: int | None,
) -> Iterator[dict[str, Any]]:
    jobs = ((i, x, options) for i, x in _items(items))
    return map_chunks(job, jobs, executor=executor, workers=workers, chunksize=chunksize or 8)


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
    ``{"id", "value", "best", "exact", "lower", "upper", "estimate", "pv", "nodes", "seconds"}``
    as each finishes (``{"id", "error"}`` for a bad position)."""
    opts = {"time_limit": time_limit, "node_limit": node_limit}
    return _many(_solve_job, items, opts, executor, workers, chunksize)


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
    ``{"id", "moves", "best", "exact", "lines", "nodes", "seconds"}``."""
    opts = {"time_limit": time_limit, "node_limit": node_limit}
    return _many(_analyze_job, items, opts, executor, workers, chunksize)


def review_many(
    items: Iterable[Any],
    *,
    time_limit: float | None = None,
    executor: Executor | str | None = None,
    workers: int | None = None,
    chunksize: int | None = None,
) -> Iterator[dict[str, Any]]:
    """The review (:func:`scopa.review`) of each game record of ``items`` (records, JSON
    records or their text), ``time_limit`` seconds per play: ``{"id", "plays", "summary"}``."""
    return _many(_review_job, items, {"time_limit": time_limit}, executor, workers, chunksize or 1)


def thread_pool(workers: int) -> ThreadPoolExecutor:
    """A pool of threads (the core releases the GIL while it solves): an executor for
    :func:`solve_many` in one process."""
    return ThreadPoolExecutor(max_workers=workers)


# ---------------------------------------------------------------------------------- JSON lines

_JOBS = {
    "solve": (_solve_job, "position", 8),
    "analyze": (_analyze_job, "position", 4),
    "review": (_review_job, "record", 1),
}


def _done_ids(out: str) -> set[Any]:
    """The ids already in the output file; a torn last line (a run killed while writing it) is
    cut off, so a rerun writes it again whole."""
    done: set[Any] = set()
    if not os.path.exists(out):
        return done
    good = 0
    with open(out, "rb") as f:
        data = f.read()
    for raw in data.splitlines(keepends=True):
        if not raw.endswith(b"\n"):
            break
        try:
            obj = json.loads(raw)
        except ValueError:
            break
        if isinstance(obj, dict) and "id" in obj:
            done.add(_key(obj["id"]))
        good += len(raw)
    if good < len(data):
        with open(out, "r+b") as f:
            f.truncate(good)
    return done


def _key(x: Any) -> Any:
    return json.dumps(x, sort_keys=True)


def run_jsonl(
    kind: str,
    src: str,
    out: str,
    *,
    executor: Executor | str | None = None,
    workers: int | None = None,
    time_limit: float | None = None,
    node_limit: int | None = None,
    bad_line: Callable[[int, str], None] | None = None,
    started: Callable[[int], None] | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> tuple[int, int, int]:
    """``scopa batch``: the jobs of the JSON-lines file ``src`` (each line ``{"id": ..., "position":
    P}``, for ``review`` ``{"id": ..., "record": R}``) run ``kind`` (solve, analyze or review) and
    their results are appended to ``out``, one JSON line each with the input's id, written whole.
    Resumable: the ids already in ``out`` are skipped, so a run that was killed loses nothing and
    does nothing twice. A bad input line (not JSON, no id, an id seen before, no position) is
    reported to ``bad_line(line number, message)`` and skipped. Returns (done now, skipped as done
    before, bad lines)."""
    if kind not in _JOBS:
        raise BatchError(f"unknown batch job {show(kind)}: expected one of {', '.join(_JOBS)}")
    job, field, chunk = _JOBS[kind]
    done = _done_ids(out)
    items: list[tuple[Any, Any, dict[str, Any]]] = []
    seen: set[Any] = set()
    bad = skipped = 0
    options = {"time_limit": time_limit, "node_limit": node_limit}
    with open(src, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = jsonio.loads(line)
                if not isinstance(obj, dict) or "id" not in obj or field not in obj:
                    raise BatchError(f"expected an object with 'id' and {show(field)}")
                if not isinstance(obj["id"], (str, int)) or isinstance(obj["id"], bool):
                    raise BatchError(f"bad id {show(obj['id'])}: expected a string or an integer")
                key = _key(obj["id"])
                if key in seen:
                    raise BatchError(f"id {show(obj['id'])} is given twice")
                seen.add(key)
            except ScopaError as exc:
                bad += 1
                if bad_line is not None:
                    bad_line(number, str(exc))
                continue
            if key in done:
                skipped += 1
                continue
            items.append((obj["id"], obj[field], options))
    if started is not None:
        started(len(items))
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    written = 0
    try:
        for result in map_chunks(job, items, executor=executor, workers=workers, chunksize=chunk):
            os.write(fd, (jsonio.dumps(result) + "\n").encode("ascii"))  # one write: a whole line
            written += 1
            if progress is not None:
                progress(result)
    finally:
        os.close(fd)
    return written, skipped, bad
