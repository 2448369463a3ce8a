"""The threads a search spreads over, and how the thread that asked waits for them.

The calling thread waits for the helpers' results in short slices (:func:`gather`), not in one
blocking wait: between slices it takes Ctrl-C, a simulated one too
(``_thread.interrupt_main()``, which does not wake a blocking wait), and passes on a stop
flag it watches to the helpers' own; whatever it raises sets the helpers' flag, so their
searches end within milliseconds instead of running on. A helper thread made for one call
(:func:`daemon_call`) is a daemon: a search running in a daemon thread never holds up the
interpreter's exit (a thread pool's workers are joined at exit, a search's whole length).

>>> import scopa_core as core
>>> halt = core.StopFlag()
>>> gather([daemon_call(pow, 2, 10), daemon_call(abs, -3)], halt)
[1024, 3]
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, wait
from typing import Any

__all__ = ["POLL", "daemon_call", "gather"]

POLL = 0.01
"""Seconds the calling thread waits at a time for its helpers before it looks again (a stop
flag it watches reaches the helpers' searches that much later)."""


def daemon_call(fn: Callable[..., Any], /, *args: Any) -> Future[Any]:
    """``fn(*args)`` run in a new daemon thread: its future."""
    future: Future[Any] = Future()

    def run() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(fn(*args))
        except BaseException as exc:  # noqa: BLE001 - handed to the thread that waits
            future.set_exception(exc)

    threading.Thread(target=run, daemon=True, name="scopa-search").start()
    return future


def gather(futures: Sequence[Future[Any]], halt: Any, stop: Any = None) -> list[Any]:
    """The results of ``futures``, in order, once all are done, waited for :data:`POLL`
    seconds at a time; ``stop`` (a flag or None) set meanwhile sets ``halt``, the flag the
    helpers' searches watch, and so does anything this raises (the first helper's error, as
    soon as it comes; Ctrl-C), so that no search runs on after it."""
    try:
        pending = set(futures)
        while pending:
            if stop is not None and stop.is_set():
                halt.set()
            done, pending = wait(pending, timeout=POLL, return_when=FIRST_EXCEPTION)
            for f in done:  # (a helper's error at once: the others stop, not run to their end)
                error = f.exception()
                if error is not None:
                    raise error
        return [f.result() for f in futures]
    except BaseException:
        halt.set()
        raise
