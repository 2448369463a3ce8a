"""The stdio engine (``scopa engine``): the protocol of :mod:`scopa.protocol` as JSON lines on
standard input and output, like a chess engine driven over UCI (docs/engine-protocol.md).

The engine keeps reading while it thinks: searches (``solve``, ``analyze``, ``bestmove``,
``evaluate``, ``review``) run one at a time in a worker thread, in the order they came, and
every other request (``hello``, ``ping``, ``legal``, ``play``, ``stop`` ...) is answered at
once, so a reply may overtake an earlier search's. ``stop`` ends the running search and the queued ones, each
answering with what it has. At most ``queue_size`` searches may wait (a search ``stop``
reached does not: it is answered as soon as the worker comes to it); one more is refused with
a ``Busy`` error.

>>> e = Engine()
>>> e.handle('{"cmd": "legal", "id": 1, "position": "scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1"}')
{'id': 1, 'moves': ['7dx3c4s', 'Kc']}
>>> e.handle('{"cmd": "nope"}')["error"]["type"]
'UnknownCommand'
"""

from __future__ import annotations

import io
import os
import select
import signal
import stat
import sys
import threading
import time
from collections import deque
from itertools import islice
from typing import IO, Any

from scopa import jsonio
from scopa.files import OutputError, read_lines, write_all
from scopa.limit import StopFlag
from scopa.protocol import (
    DEFAULT_MAX_TIME,
    MAX_LINE,
    PROTOCOL_VERSION,
    Protocol,
    Request,
    RequestError,
    error_reply,
    stop_searches,
)

__all__ = ["PROTOCOL_VERSION", "QUEUE_SIZE", "Engine", "serve"]

QUEUE_SIZE = 16
"""Searches that may wait while one runs; one more is refused with a ``Busy`` error."""

#: Seconds between two looks at Python's signal handlers while the main thread waits for the
#: searches to end (after the end of input or a Ctrl-C).
CLOSE_POLL = 0.05

#: After a Ctrl-C, how long a reply may wait to be written (its output's reader alive but not
#: reading: a full pipe) before the engine ends without it, in seconds.
WRITE_GRACE = 1.0


class Engine:
    """Answers protocol requests synchronously, one line at a time (the worker thread of
    :func:`serve` is not involved): for embedding the engine in a Python program.

    >>> e = Engine()
    >>> e.handle('{"cmd": "ping", "id": 7}')
    {'id': 7, 'pong': True}
    >>> e.handle('{"cmd": "deal", "id": 8, "rules": "scopa", "seed": 1}')["position"]["hands"]
    [['Qc', '7s', 'Qs'], ['3d', '2c', '7c']]
    """

    def __init__(self, max_time: float | None = DEFAULT_MAX_TIME) -> None:
        self.protocol = Protocol(max_time=max_time)

    def handle(self, line: str | bytes) -> dict[str, Any] | None:
        """The reply to one request line (``None`` for ``quit``)."""
        return self.protocol.handle(line)


class _Session:
    """One run of :func:`serve`: the protocol, the output, and the search worker."""

    def __init__(self, protocol: Protocol, out: IO[str], queue_size: int, out_fd: int | None = None) -> None:
        self.protocol = protocol
        self.out = out
        self.out_fd = out_fd  # (the process's standard output: each reply written whole to it)
        self.queue_size = queue_size
        self.lock = threading.Lock()  # one line at a time on the output
        self.cond = threading.Condition()
        self.queue: deque[tuple[Request, StopFlag]] = deque()
        self.running: tuple[Request, StopFlag] | None = None
        self.closing = False
        self.broken = False
        self.failure: OSError | None = None  # a write that failed but for a reader gone (a full disk)
        self.done = False  # the worker has ended, its replies written
        self.writing_since: float | None = None  # (when the write under way began)
        self.worker = threading.Thread(target=self._work, name="scopa-engine-search", daemon=True)
        self.worker.start()

    def write(self, reply: dict[str, Any]) -> None:
        try:
            text = jsonio.dumps(reply)
        except (TypeError, ValueError) as exc:  # never expected: replies are made of JSON values
            text = jsonio.dumps(error_reply(reply.get("id"), "InternalError", f"unwritable reply: {exc}"))
        with self.lock:
            if self.broken:
                return
            try:
                self.writing_since = time.monotonic()
                if self.out_fd is not None:  # (Python's file may drop a short write's rest unsaid)
                    write_all(self.out_fd, (text + "\n").encode("ascii"))
                else:
                    self.out.write(text + "\n")
                    self.out.flush()
            except (OSError, ValueError) as exc:  # the reader went away: stop what runs, then exit
                self.broken = True
                if isinstance(exc, OSError) and not isinstance(exc, BrokenPipeError):
                    self.failure = exc  # (not a reader gone: serve raises it once it ends)
                self.stop(None)
            finally:
                self.writing_since = None

    def submit(self, req: Request) -> None:
        with self.cond:  # (never write while holding cond: write may take it to stop searches)
            # (the head of the queue of an idle worker is about to run: it does not wait; nor does
            # a search a stop reached, answered as soon as the worker comes to it: an audit found
            # a search sent right behind the stop of a full queue refused, Busy, "16 searches
            # already wait"; the stopped ones are bounded apart, as many again)
            ahead = islice(self.queue, 0 if self.running is not None else 1, None)
            waiting = sum(1 for _, f in ahead if not f.is_set())
            held = len(self.queue) >= 2 * self.queue_size
            full = waiting >= self.queue_size or held
            if not full:
                flag = StopFlag()
                if self.broken:  # the reader went away while this request was read: stopped at once
                    flag.set()
                self.queue.append((req, flag))
                self.cond.notify()
        if full:
            if waiting >= self.queue_size:
                busy = f"{waiting} searches already wait (at most {self.queue_size}): send it again later"
            else:
                busy = (
                    f"{len(self.queue)} searches stopped or waiting are still to be answered (at most "
                    f"{2 * self.queue_size}): send it again later"
                )
            self.write(error_reply(req.id, "Busy", busy))

    def stop(self, search_id: Any) -> int:
        """Set the flags of the running and queued searches (of those with ``search_id``);
        how many were not stopped already."""
        with self.cond:
            return stop_searches([*self.queue, *([self.running] if self.running else [])], search_id)

    def _work(self) -> None:
        try:
            while True:
                with self.cond:
                    while not self.queue and not self.closing:
                        self.cond.wait()
                    if not self.queue:
                        return
                    self.running = self.queue.popleft()
                req, flag = self.running
                reply = self.protocol.execute(req, flag, self.write)
                with self.cond:
                    self.running = None
                    self.cond.notify_all()
                if reply is not None:
                    self.write(reply)
        finally:
            with self.cond:
                self.done = True
                self.cond.notify_all()

    def close(self, interrupted: bool = False) -> None:
        """Let the searches asked for finish (each within its limit), then end the worker. A
        Ctrl-C ends the wait (KeyboardInterrupt) whichever thread the signal reached: the
        wait is of at most ``CLOSE_POLL`` seconds at a time, after which the main thread runs
        Python code, and so the signal's handler. The wait is on the worker's own ``done``,
        not ``Thread.join``: a join interrupted by Ctrl-C may take the live worker for ended
        (CPython 3.11's lock handling), and the process then exited before the stopped
        searches' replies were written. ``interrupted`` (after a Ctrl-C, the searches
        stopped): the wait ends too once a reply has waited ``WRITE_GRACE`` seconds to be
        written (an output nobody reads: a full pipe), and nothing more is written."""
        with self.cond:
            self.closing = True
            self.cond.notify_all()
            while not self.done:
                since = self.writing_since
                if interrupted and since is not None and time.monotonic() - since > WRITE_GRACE:
                    self.broken = True  # (the worker, stuck writing, ends with the process)
                    return
                self.cond.wait(CLOSE_POLL)


class _ReaderWatch:
    """Watches the pipe of the process's standard output: once its reader has gone away (the
    pipe's other end closed), nothing more is written, the searches are stopped and serve's
    input (:class:`_WatchedInput`) ends, so serve ends with status 0 without waiting for
    another line. No signal is involved: Ctrl-C stays Python's own (status 130)."""

    def __init__(self, session: _Session, fd: int) -> None:
        self.session = session
        self.fd = fd
        # the watch wakes serve's input on ``gone_r``; serve's end wakes the watch on ``done_r``
        self.gone_r, self._gone_w = os.pipe()
        self._done_r, self._done_w = os.pipe()
        self.thread = threading.Thread(target=self._run, name="scopa-reader", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        poller = select.poll()
        poller.register(self.fd, 0)  # a pipe's POLLERR (its reader gone) is always reported
        poller.register(self._done_r, select.POLLIN)
        while True:
            events = dict(poller.poll())
            if self._done_r in events:
                return  # serve has ended
            if events.get(self.fd, 0) & (select.POLLERR | select.POLLHUP | select.POLLNVAL):
                break
        with self.session.lock:
            self.session.broken = True  # nothing more is written
        self.session.stop(None)
        os.write(self._gone_w, b"x")

    def end(self) -> None:
        """Serve has ended: the watch ends, and its pipes are closed."""
        os.write(self._done_w, b"x")
        self.thread.join()
        for fd in (self.gone_r, self._gone_w, self._done_r, self._done_w):
            os.close(fd)


class _WatchedInput:
    """Serve's input read from its file descriptor, waiting on it, on the watch (``gone``, when
    the output is a pipe) and on the signal wakeup pipe (``wake``) at once: ``readline`` gives
    ``b""`` (the end) as soon as the reader of the output has gone away, even while no input
    comes, and returns to Python code, which runs a signal's handler, whichever thread the
    signal reached."""

    def __init__(self, fd: int, gone: int | None = None, wake: int | None = None) -> None:
        self.fd = fd
        self.poller = select.poll()
        self.poller.register(fd, select.POLLIN)
        if gone is not None:
            self.poller.register(gone, select.POLLIN)
        self.gone = gone
        # the signal wakeup pipe (see _SignalWake): a Ctrl-C taken by another thread wakes the wait
        self.wake = wake
        if wake is not None:
            self.poller.register(wake, select.POLLIN)
        self.buffer = bytearray()
        self.ended = False

    def readline(self, limit: int) -> bytes:
        """The next line, or its first ``limit`` bytes (as a binary stream's ``readline``)."""
        while True:
            end = self.buffer.find(b"\n", 0, limit)
            if end >= 0 or len(self.buffer) >= limit or self.ended:
                size = end + 1 if end >= 0 else min(limit, len(self.buffer))
                line = bytes(self.buffer[:size])
                del self.buffer[:size]
                return line
            events = dict(self.poller.poll())
            if self.gone is not None and self.gone in events:
                return b""  # the reader of the output has gone away: the input ends here
            if self.wake is not None and self.wake in events:
                _drain(self.wake)  # (a signal: back in Python code, this thread runs its handler)
                if self.fd not in events:
                    continue
            chunk = os.read(self.fd, 1 << 16)
            self.ended = not chunk
            self.buffer += chunk


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 512):
            pass
    except BlockingIOError:
        pass


class _SignalWake:
    """A pipe Python writes a byte to whenever a signal arrives (``signal.set_wakeup_fd``), for
    the main thread's wait on its input. The kernel may hand a process's Ctrl-C to any of its
    threads that does not block it (a search thread, a native thread of NumPy's BLAS); Python
    runs the handler in the main thread, but a main thread asleep in ``poll`` was only woken
    when the signal reached it itself: otherwise serve went on waiting for input, its search
    running (about one Ctrl-C in eight under load). Made in the main thread only; :meth:`end`
    puts back the wakeup fd it replaced."""

    def __init__(self) -> None:
        self.fd, self._w = os.pipe()
        os.set_blocking(self.fd, False)
        os.set_blocking(self._w, False)
        self._old = signal.set_wakeup_fd(self._w, warn_on_full_buffer=False)

    @classmethod
    def start(cls) -> _SignalWake | None:
        if threading.current_thread() is not threading.main_thread():
            return None
        return cls()

    def end(self) -> None:
        signal.set_wakeup_fd(self._old)
        os.close(self.fd)
        os.close(self._w)


def _own_input(stdin: IO[Any] | None) -> int | None:
    """The file descriptor of the process's standard input when serve reads it itself (no
    ``stdin`` given) and can wait on it with ``poll`` (a pipe, a terminal, a file, a socket);
    None otherwise (a test's stream, an input given, no ``poll``)."""
    if stdin is not None or not hasattr(select, "poll"):
        return None
    try:
        fd = sys.stdin.fileno()
        os.fstat(fd)
    except (OSError, ValueError, AttributeError):
        return None
    return fd


def _own_output(out: IO[str]) -> int | None:
    """The file descriptor of the process's standard output, flushed, for replies written
    whole; None for another stream (a test's, a caller's)."""
    if out is not sys.stdout:
        return None
    try:
        out.flush()
        fd = out.fileno()
        os.fstat(fd)
    except (OSError, ValueError, AttributeError):
        return None
    return fd


def _reader_watchable(fd: int | None) -> int | None:
    """``fd``, the process's standard output (:func:`_own_output`), when it is a pipe whose
    reader can go away; None otherwise (a file, a terminal, a socket, a test's stream)."""
    try:
        return fd if fd is not None and stat.S_ISFIFO(os.fstat(fd).st_mode) else None
    except OSError:
        return None


def serve(
    stdin: IO[Any] | None = None,
    stdout: IO[str] | None = None,
    max_time: float | None = DEFAULT_MAX_TIME,
    queue_size: int = QUEUE_SIZE,
) -> int:
    """Serve requests line by line until ``quit``, end of input or the reader of the output
    going away; returns the exit status (130 after Ctrl-C). A write that fails other than
    by the reader going away (a full disk) stops the searches and ends serve with
    :class:`scopa.files.OutputError`. Input is read as bytes when the
    stream has them, so bytes that are not UTF-8 get an error reply instead of stopping the
    engine. Serving the process's own standard input (``stdin`` not given), it reads file
    descriptor 0 itself, waiting on it with ``poll`` so that a Ctrl-C ends it whichever thread
    the signal reached; so input a caller has already buffered in ``sys.stdin`` is not seen
    (pass ``stdin`` to serve that stream). Its output a pipe (``stdout`` not given either), the
    engine also stops its searches and ends (status 0) as soon as the pipe's reader goes away,
    without waiting for input."""
    out = stdout or sys.stdout
    if out is None:  # (started with its standard output closed: nobody to answer)
        return 0
    if stdin is None and sys.stdin is None:  # (started with its standard input closed)
        stdin = io.BytesIO()  # an input that ends at once, as an empty one does
    protocol = Protocol(max_time=max_time)
    own_fd = _own_output(out)
    session = _Session(protocol, out, queue_size, own_fd)
    in_fd = _own_input(stdin)
    out_fd = _reader_watchable(own_fd) if in_fd is not None else None
    watch = _ReaderWatch(session, out_fd) if out_fd is not None else None
    source: Any = stdin
    wake = _SignalWake.start() if in_fd is not None else None
    if in_fd is not None:
        gone = watch.gone_r if watch is not None else None
        source = _WatchedInput(in_fd, gone, wake.fd if wake is not None else None)
    elif source is None:  # (no poll, or a standard input without a file descriptor)
        source = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else sys.stdin
    status = 0
    try:
        try:
            _serve_lines(session, protocol, source)
            session.close()  # (the searches asked for end within their limits, or at the watch's stop)
        except KeyboardInterrupt:  # (waiting for input, or for the searches after its end)
            session.stop(None)
            status = 130
            session.close(interrupted=True)
    finally:
        if watch is not None:
            watch.end()
        if wake is not None:
            wake.end()
    if session.failure is not None and status == 0:
        raise OutputError(session.failure.errno, session.failure.strerror)
    return status


def _serve_lines(session: _Session, protocol: Protocol, stdin: IO[Any]) -> None:
    """serve's loop: each input line's request, until ``quit``, the end of input or a failed
    write."""
    for line in read_lines(stdin, MAX_LINE):  # (an overlong line: None, one error reply)
        if line is None:
            session.write(error_reply(None, "ProtocolError", f"a line longer than {MAX_LINE} bytes"))
            continue
        if not line.strip():
            continue
        try:
            req = protocol.parse(line)
        except RequestError as exc:
            session.write(exc.reply)
            continue
        if req.cmd == "quit":
            break
        if req.cmd == "stop":
            session.write({"id": req.id, "stopped": session.stop(req.args.get("search"))})
        elif req.is_search:
            session.submit(req)
        else:
            reply = protocol.execute(req)
            if reply is not None:
                session.write(reply)
        if session.broken:
            break
