"""The stdio engine (``scopa engine``): the protocol of :mod:`scopa.protocol` as JSON lines on
standard input and output, like a chess engine driven over UCI (docs/engine-protocol.md).

The engine keeps reading while it thinks: searches (``solve``, ``analyze``, ``bestmove``,
``evaluate``, ``review``) run one at a time in a worker thread, in the order they came, and
every other request (``hello``, ``ping``, ``legal``, ``play``, ``stop`` ...) is answered at
once, so a reply may overtake an earlier search's. ``stop`` ends the running search and the queued ones, each
answering with what it has. At most ``queue_size`` searches may wait; one more is refused
with a ``Busy`` error.

>>> e = Engine()
>>> e.handle('{"cmd": "legal", "id": 1, "position": "scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1"}')
{'id': 1, 'moves': ['7dx3c4s', 'Kc']}
>>> e.handle('{"cmd": "nope"}')["error"]["type"]
'UnknownCommand'
"""

from __future__ import annotations

import os
import select
import signal
import stat
import sys
import threading
from collections import deque
from collections.abc import Iterator
from typing import IO, Any

from scopa import jsonio
from scopa.limit import StopFlag
from scopa.notation import view_from_json
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

__all__ = ["PROTOCOL_VERSION", "QUEUE_SIZE", "Engine", "serve", "view_from_json"]

#: Searches that may wait while one runs; one more is refused with a ``Busy`` error.
QUEUE_SIZE = 16


class Engine:
    """Answers protocol requests synchronously, one line at a time (the worker thread of
    :func:`serve` is not involved): for embedding the engine in a Python program."""

    def __init__(self, max_time: float | None = DEFAULT_MAX_TIME) -> None:
        self.protocol = Protocol(max_time=max_time)

    def handle(self, line: str | bytes) -> dict[str, Any] | None:
        """The reply to one request line (``None`` for ``quit``)."""
        return self.protocol.handle(line)


class _Session:
    """One run of :func:`serve`: the protocol, the output, and the search worker."""

    def __init__(self, protocol: Protocol, out: IO[str], queue_size: int) -> None:
        self.protocol = protocol
        self.out = out
        self.queue_size = queue_size
        self.lock = threading.Lock()  # one line at a time on the output
        self.cond = threading.Condition()
        self.queue: deque[tuple[Request, StopFlag]] = deque()
        self.running: tuple[Request, StopFlag] | None = None
        self.closing = False
        self.broken = False
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
                self.out.write(text + "\n")
                self.out.flush()
            except (OSError, ValueError):  # the reader went away: stop what runs, then exit
                self.broken = True
                self.stop(None)

    def submit(self, req: Request) -> None:
        with self.cond:  # (never write while holding cond: write may take it to stop searches)
            full = len(self.queue) >= self.queue_size
            if not full:
                self.queue.append((req, StopFlag()))
                self.cond.notify()
        if full:
            busy = f"{self.queue_size} searches already wait (at most {self.queue_size}): send it again later"
            self.write(error_reply(req.id, "Busy", busy))

    def stop(self, search_id: Any) -> int:
        """Set the flags of the running and queued searches (of those with ``search_id``);
        how many were not stopped already."""
        with self.cond:
            return stop_searches([*self.queue, *([self.running] if self.running else [])], search_id)

    def _work(self) -> None:
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

    def close(self) -> None:
        """Let the searches asked for finish (each within its limit), then end the worker."""
        with self.cond:
            self.closing = True
            self.cond.notify_all()
        self.worker.join()


def _lines(stream: IO[Any]) -> Iterator[bytes | str | None]:
    """The lines of ``stream``, each at most MAX_LINE long: a longer line is skipped whole
    and yields ``None`` (so it gets one error reply)."""
    while True:
        line = stream.readline(MAX_LINE + 1)
        if not line:
            return
        if len(line) > MAX_LINE and not line.endswith(b"\n" if isinstance(line, bytes) else "\n"):
            while True:  # skip the rest of the overlong line
                rest = stream.readline(MAX_LINE + 1)
                if not rest or rest.endswith(b"\n" if isinstance(rest, bytes) else "\n"):
                    break
            yield None
            continue
        yield line


class _ReaderWatch:
    """Watches the pipe of the process's standard output: once its reader has gone away (the
    pipe's other end closed), the searches are stopped and serve's loop, blocked reading input,
    is woken with a SIGINT to the main thread, which it takes as that reader's end (status 0,
    not Ctrl-C's 130). Only serve, in the main thread, decides the exit; the watch ends with it."""

    def __init__(self, session: _Session, fd: int) -> None:
        self.session = session
        self.fd = fd
        self.lock = threading.Lock()
        self.serving = True  # False once serve's loop has ended: no more wake-ups
        self.gone = False  # the reader went away while serve's loop ran
        self._wake_r, self._wake_w = os.pipe()
        self.thread = threading.Thread(target=self._run, name="scopa-reader", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        poller = select.poll()
        poller.register(self.fd, 0)  # a pipe's POLLERR (its reader gone) is always reported
        poller.register(self._wake_r, select.POLLIN)
        try:
            while True:
                events = dict(poller.poll())
                if self._wake_r in events:
                    return  # serve has ended
                if events.get(self.fd, 0) & (select.POLLERR | select.POLLHUP | select.POLLNVAL):
                    break
            with self.session.lock:
                self.session.broken = True  # nothing more is written
            self.session.stop(None)
            with self.lock:
                if self.serving:
                    self.gone = True
                    signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)
        finally:
            os.close(self._wake_r)

    def end(self) -> None:
        """Serve's loop has ended (call it in the main thread, where a wake-up may still land)."""
        with self.lock:
            self.serving = False
        try:
            os.write(self._wake_w, b"x")
        except OSError:  # the watch has ended already (its end of the pipe closed)
            pass
        os.close(self._wake_w)


def _reader_watchable(out: IO[str]) -> int | None:
    """The file descriptor of the process's standard output when it is a pipe whose reader can
    go away and serve runs in the main thread with Python's own Ctrl-C handler (so the wake-up
    reaches it); None otherwise (a file, a terminal, a socket, a test's stream, a thread)."""
    if out is not sys.stdout or sys.platform == "win32" or not hasattr(select, "poll"):
        return None
    if threading.current_thread() is not threading.main_thread():
        return None
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return None
    try:
        fd = out.fileno()
        mode = os.fstat(fd).st_mode
    except (OSError, ValueError, AttributeError):
        return None
    return fd if stat.S_ISFIFO(mode) else None


def serve(
    stdin: IO[Any] | None = None,
    stdout: IO[str] | None = None,
    max_time: float | None = DEFAULT_MAX_TIME,
    queue_size: int = QUEUE_SIZE,
) -> int:
    """Serve requests line by line until ``quit``, end of input or the reader of the output
    going away; returns the exit status (130 after Ctrl-C). Input is read as bytes when the
    stream has them, so bytes that are not UTF-8 get an error reply instead of stopping the
    engine. Serving the process's own standard output through a pipe, from the main thread,
    the engine also stops its searches and ends (status 0) as soon as the pipe's reader goes
    away, without waiting for input."""
    if stdin is None:
        stdin = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else sys.stdin
    out = stdout or sys.stdout
    protocol = Protocol(max_time=max_time)
    session = _Session(protocol, out, queue_size)
    fd = _reader_watchable(out)
    watch = _ReaderWatch(session, fd) if fd is not None else None
    status = 0
    try:
        try:
            _serve_lines(session, protocol, stdin)
        finally:
            if watch is not None:
                watch.end()  # (a wake-up sent before this lands here, or in the loop)
    except KeyboardInterrupt:
        session.stop(None)
        status = 0 if watch is not None and watch.gone else 130
    session.close()
    return status


def _serve_lines(session: _Session, protocol: Protocol, stdin: IO[Any]) -> None:
    """serve's loop: each input line's request, until ``quit``, the end of input or a failed
    write."""
    for line in _lines(stdin):
        if line is None:
            session.write(error_reply(None, "ProtocolError", f"a line longer than {MAX_LINE} characters"))
            continue
        if not line.strip():
            continue
        # (the line's end is not part of the request: a line of MAX_LINE characters is taken)
        body = line.rstrip(b"\r\n") if isinstance(line, bytes) else line.rstrip("\r\n")
        try:
            req = protocol.parse(body)
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
