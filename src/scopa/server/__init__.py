"""The engine over HTTP and WebSocket (``scopa serve``): an ASGI app on Starlette, served by uvicorn.

A thin transport over :mod:`scopa.protocol`, like the stdio engine:

- ``POST /api`` takes one protocol request (a JSON object) and returns its reply;
- ``/ws`` is a WebSocket carrying the same JSON messages, several in flight at once, each
  reply matched to its request by ``id``: a cheap request sent after a search is answered
  before it; ``stop`` stops this connection's searches; closing the socket stops them too;
  a browser's handshake is taken from the server's own pages and the ``cors_origins`` only,
  and so is a browser's ``POST /api`` (a request with an ``Origin`` header); a request that
  reached a loopback address answers only to a name of this machine in its ``Host`` (so a
  page whose name was made to point to 127.0.0.1, DNS rebinding, is not the server's own);
- ``GET /health`` says the server is up, with its limits and its load;
- ``GET /cards/DECK/CARD.svg`` one card's picture (``back.svg`` the back), the card as the
  notation writes it (``7d``);
- ``GET /`` serves the browser app, when the package ships it.

Searches (``solve``, ``analyze``, ``bestmove``, ``evaluate``, ``review``) run off the event
loop in a bounded pool of worker threads (the core releases the GIL while it searches), each with a
time limit (``max_time``: the default and the most a request may ask), so a slow request
never blocks the others. Limits against abuse: the request size, the requests in flight on
one connection and the searches waiting in all; over a limit a client gets an error reply
(HTTP 413 or 429 over ``/api``), never a crash. Needs the ``server`` extra
(``pip install '.[server]'`` from a clone).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import errno
import ipaddress
import logging
import os
import re
import select
import socket
import stat
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import resources
from typing import Any
from urllib.parse import quote, urlsplit

from scopa import jsonio
from scopa.batch import MAX_WORKERS
from scopa.card import Card
from scopa.errors import OptionError, ScopaError, show
from scopa.limit import StopFlag
from scopa.protocol import (
    DEFAULT_MAX_TIME,
    MAX_LINE,
    Protocol,
    Request,
    RequestError,
    check_max_time,
    error_reply,
    stop_searches,
)
from scopa.version import __version__

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "INLINE_BYTES",
    "MAX_REQUEST_TIMEOUT",
    "REQUEST_TIMEOUT",
    "SHUTDOWN_GRACE",
    "ServerConfig",
    "create_app",
    "run",
]

log = logging.getLogger("scopa.server")

#: A search's progress callback: it gets each info line (a reply-like dict).
Info = Callable[[dict[str, Any]], None]

#: uvicorn closes a WebSocket (1009, message too big) on a message larger than this many
#: times ``max_request_bytes`` (and 1 MiB); a smaller one over the limit gets an error reply.
WS_FRAME_FACTOR = 16

#: The error a binary WebSocket message gets: requests are JSON text, one per text message.
BINARY_REFUSED = "a binary WebSocket message: send each request as JSON in a text message"

#: Answered as soon as they are read, whatever else the connection waits for (not counted in
#: its ``max_in_flight``): ``ping`` (at once, even during a search) and ``hello``.
INSTANT = ("ping", "hello")
INLINE_BYTES = 4096
"""A request of at most this many bytes whose command is one of :data:`INSTANT` or ``stop`` is
read on the event loop, not in its thread pool, where requests are read (reading a record or
a match replays it: many long ones held a ping up for seconds); its JSON is decoded first
(a few microseconds) and checked as decoded, every other request read in the pool as before."""
_INLINE_COMMANDS = (*INSTANT, "stop")

SHUTDOWN_GRACE = 5
"""At shutdown (Ctrl-C, SIGTERM) the searches are stopped and their replies sent, then the
connections closed: a client that neither finishes its request nor reads its replies holds
the server's end up for at most this many seconds."""
#: How long shutdown waits for the stopped searches' replies to go out, seconds at most.
REPLY_GRACE = 1.0
REQUEST_TIMEOUT = 30.0
"""The default of :attr:`ServerConfig.request_timeout`: seconds a client may take to send a
whole HTTP request (its headers and its body), counted from the connection's start or from
the end of the response before; the longest :data:`MAX_REQUEST_TIMEOUT`."""
MAX_REQUEST_TIMEOUT = 3600.0
"""The longest :attr:`ServerConfig.request_timeout`, seconds."""


@dataclass(frozen=True)
class ServerConfig:
    """The server's settings.

    Attributes:
        max_time: default and longest search time, seconds (None: no limit).
        workers: threads that run searches.
        max_request_bytes: largest request (an HTTP body or a WebSocket message).
        max_in_flight: requests one connection may have unanswered at once.
        max_queued: searches that may wait for a worker, over every connection.
        cors_origins: origins allowed to call the server from a browser (``["*"]`` for any):
            each ``*``, ``null``, or as a browser sends it, ``scheme://host[:port]`` with no
            path, a lower-case host, no port of the scheme's own and none outside 1-65535
            (anything else would never match: an OptionError).
        hosts: names besides ``localhost`` (and ``*.localhost``) and loopback addresses that
            a request reaching a loopback address may give in its ``Host`` header (a name
            of ``/etc/hosts`` for 127.0.0.1, a reverse proxy's public name); without a port,
            in any case.
        request_timeout: seconds a client may take to send a whole HTTP request, headers
            and body, from the connection's start or the end of the response before (a
            WebSocket's handshake too; not its messages, nor the time a search takes): a
            client slower than that is answered 408 and closed (one that sent nothing,
            closed), so clients that send part of a request and wait cannot hold connections
            for ever. Kept by :func:`run` (``scopa serve``), whose HTTP protocol it is: the
            app of :func:`create_app` served by another server has that server's timeouts.

    Each number is an int >= 1 (``max_time`` seconds in (0, 1e6] or None, ``request_timeout``
    seconds in (0, 3600]); ``workers`` at most 256; ``max_request_bytes`` at most 1 MiB, the
    protocol's longest line (:data:`MAX_LINE`).
    """

    max_time: float | None = DEFAULT_MAX_TIME
    workers: int = 2
    max_request_bytes: int = 64 * 1024
    max_in_flight: int = 8
    max_queued: int = 64
    cors_origins: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()
    request_timeout: float = REQUEST_TIMEOUT

    def __post_init__(self) -> None:
        check_max_time(self.max_time, OptionError)  # (the engine's range: the protocol refused more)
        timeout = self.request_timeout
        if (
            isinstance(timeout, bool)
            or not isinstance(timeout, (int, float))
            or not 0 < timeout <= MAX_REQUEST_TIMEOUT
        ):
            raise OptionError(f"bad request_timeout {show(timeout)}: expected seconds in (0, 3600]")
        for name, most in (("workers", MAX_WORKERS), ("max_request_bytes", MAX_LINE), ("max_in_flight", None),
                           ("max_queued", None)):  # fmt: skip
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1 or (most and value > most):
                expected = f"an int in 1..{most}" if most else "an int >= 1"
                raise OptionError(f"bad {name} {show(value)}: expected {expected}")
        for name in ("hosts", "cors_origins"):  # a tuple, once (a generator would be used up)
            given = getattr(self, name)
            if isinstance(given, (str, bytes, Mapping)) or not isinstance(given, Iterable):
                raise OptionError(f"bad {name} {show(given)}: expected a tuple of strings")
            object.__setattr__(self, name, tuple(given))
        for host in self.hosts:  # (names match in any case: kept in lower case)
            if not isinstance(host, str) or _HOST.fullmatch(host.lower()) is None:
                raise OptionError(
                    f"bad host {show(host)}: expected a name as a Host header gives it, without a port "
                    "(e.g. scopa.local)"
                )
        object.__setattr__(self, "hosts", tuple(h.lower() for h in self.hosts))
        for origin in self.cors_origins:
            if not isinstance(origin, str) or not (origin in ("*", "null") or _is_origin(origin)):
                raise OptionError(
                    f"bad origin {show(origin)}: expected '*', 'null' or scheme://host[:port] as a browser "
                    "sends it, with no path, a lower-case host and no default port (e.g. "
                    "https://app.example or http://localhost:3000)"
                )


#: An origin as a browser's ``Origin`` header has it: a scheme, ``://``, a host (a name, an
#: address or a bracketed IPv6 address) and perhaps a port.
_ORIGIN = re.compile(r"([a-z][a-z0-9+.-]*)://(?:[^/\s?#@:\[\]A-Z]+|\[[0-9a-f:.]+\])(?::([1-9][0-9]{0,4}))?")

#: A host name as ``ServerConfig.hosts`` takes it: letters, digits, dots and dashes, lower-case.
_HOST = re.compile(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*")

#: The ports a browser leaves out of an origin, its scheme's own.
_DEFAULT_PORTS = {"http": 80, "ws": 80, "https": 443, "wss": 443}


def _is_origin(text: str) -> bool:
    """Whether ``text`` is an origin a browser may send: a lower-case host, and a port, if any,
    in 1..65535 and not the scheme's own (which the browser leaves out)."""
    m = _ORIGIN.fullmatch(text) if text.isascii() else None  # (a browser sends a name in punycode)
    if m is None or m.group(2) is None:
        return m is not None
    port = int(m.group(2))
    return port <= 65535 and port != _DEFAULT_PORTS.get(m.group(1))


#: How often a search that waits for a worker looks whether it was stopped, seconds.
_WAIT_POLL = 0.05


class _Slot:
    """A reserved place among the searches that may wait: ``waiting`` until a worker takes it
    (``running``), or ``released`` when its request is given up first. ``queued``: its work
    item is in the pool's queue (where a released one stays, dead, until a worker drops it)."""

    __slots__ = ("dead", "queued", "state")

    def __init__(self) -> None:
        self.state = "waiting"
        self.queued = False
        self.dead = False


class _Searches:
    """The bounded pool of search threads and its waiting count."""

    def __init__(self, config: ServerConfig, protocol: Protocol) -> None:
        self.config = config
        self.protocol = protocol
        self.pool = ThreadPoolExecutor(max_workers=config.workers, thread_name_prefix="scopa-search")
        self.lock = threading.Lock()
        self.waiting = 0
        self.running = 0
        self.dead = 0  # work items of released searches still in the pool's queue
        self.closing = False
        self._active: dict[int, tuple[Request, StopFlag]] = {}
        # searches stopped while they waited are answered here, one at a time (a thread of
        # their own: each thread that searches keeps a solver and its table)
        self.stopped_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="scopa-stopped")

    def stop_all(self) -> None:
        """Stop every search running or waiting, and those asked for from now on (the server
        is shutting down). Called from a signal handler on the event loop's thread, which may
        hold ``lock``: so it takes no lock (a dict's values are copied in one step)."""
        self.closing = True
        for _, flag in list(self._active.values()):
            flag.set()

    def queued(self) -> int:
        """The searches that wait for a worker: those reserved beyond the free workers (a
        reservation a free worker is about to take does not wait)."""
        with self.lock:
            return self._queued()

    def _queued(self) -> int:  # (under lock)
        return max(0, self.waiting - max(0, self.config.workers - self.running))

    def busy_text(self) -> str:
        """Why :meth:`try_reserve` refused: searches wait, or searches given up hold the queue."""
        with self.lock:
            if self.dead >= self.config.max_queued:
                return (
                    f"{self.dead} searches given up still hold the queue until a worker is free: "
                    "try again later"
                )
        return _waiting_text(self.config.max_queued)

    def try_reserve(self) -> _Slot | None:
        """A place for one more search, or None when ``max_queued`` already wait (or as
        many searches given up still fill the pool's queue: they hold their requests)."""
        with self.lock:
            if self._queued() >= self.config.max_queued or self.dead >= self.config.max_queued:
                return None
            self.waiting += 1
            return _Slot()

    def release(self, slot: _Slot) -> bool:
        """Give up a reservation whose search no worker has taken (a no-op once one has);
        whether it is given up (now or before)."""
        with self.lock:
            if slot.state == "waiting":
                slot.state = "released"
                self.waiting -= 1
                if slot.queued:
                    slot.dead = True
                    self.dead += 1
            return slot.state == "released"

    def _run(self, req: Request, flag: StopFlag, slot: _Slot, info: Info | None) -> dict[str, Any] | None:
        with self.lock:
            if slot.state != "waiting":
                if slot.dead:
                    slot.dead = False
                    self.dead -= 1
                return None  # given up before a worker took it: nothing to search for
            slot.state = "running"
            self.waiting -= 1
            self.running += 1
        try:
            return self.protocol.execute(req, flag, info)
        finally:
            with self.lock:
                self.running -= 1

    async def run(
        self, req: Request, flag: StopFlag, slot: _Slot, info: Info | None = None
    ) -> dict[str, Any] | None:
        """Run a reserved search in the pool (``info`` gets its progress lines, from the
        worker's thread); cancelling the awaiting task sets its flag, and gives up its place
        if no worker took it yet."""
        loop = asyncio.get_running_loop()
        with self.lock:
            self._active[id(flag)] = (req, flag)
        if self.closing:
            flag.set()
        try:
            if not (flag.is_set() and self.release(slot)):  # (stopped already: not queued at all)
                with self.lock:
                    slot.queued = True
                future = loop.run_in_executor(self.pool, self._run, req, flag, slot, info)
                while True:
                    done, _ = await asyncio.wait([future], timeout=_WAIT_POLL)
                    if done:
                        result = future.result()
                        if result is not None:
                            return result
                        break  # (given up before the worker came to it: a stop released it)
                    if flag.is_set() and self.release(slot):
                        break
            # stopped before a worker took it: answered now, with what a search stopped at
            # once has (not in the pool, whose workers are all busy)
            answer = self.protocol.execute
            return await loop.run_in_executor(self.stopped_pool, answer, req, flag, info)
        except asyncio.CancelledError:
            flag.set()
            raise
        finally:
            self.release(slot)
            with self.lock:
                self._active.pop(id(flag), None)


def _origin_allowed(
    origin: str | None, host: str | None, allowed: tuple[str, ...], scheme: str = "http"
) -> bool:
    """Whether a WebSocket handshake or a ``POST /api`` may go on: from a client that is not
    a browser (no ``Origin``), from the server's own pages (an origin of the request's scheme,
    ``http`` for ``ws``, and of the host asked for), or from an origin given with ``--cors``
    (``*`` for any). Browsers do not hold WebSockets to the same-origin policy: without this
    any web page could use a local server.

    >>> _origin_allowed("http://127.0.0.1:8765", "127.0.0.1:8765", ())
    True
    >>> _origin_allowed("https://evil.example", "127.0.0.1:8765", ())
    False
    >>> _origin_allowed("https://127.0.0.1:8765", "127.0.0.1:8765", ())  # (not this server's scheme)
    False
    >>> _origin_allowed("https://app.example", "127.0.0.1:8765", ("https://app.example",))
    True
    """
    if origin is None or "*" in allowed or origin in allowed:
        return True
    own = {"ws": "http", "wss": "https"}.get(scheme, scheme)
    return bool(host) and origin.lower() == f"{own}://{host}".lower()


def _is_local_name(host: str, extra: tuple[str, ...] = ()) -> bool:
    """Whether a ``Host`` header names this machine: ``localhost`` or a name under it, a
    loopback address (``127.0.0.1``, ``[::1]``) or one of ``extra``, with any port; a name
    written fully qualified, with its root's dot (``localhost.``), is the same name.

    >>> [_is_local_name(h) for h in ("localhost:8765", "127.0.0.2", "[::1]:80", "evil.example:8765")]
    [True, True, True, False]
    >>> [_is_local_name(h) for h in ("localhost.:8765", "evil.example.", "localhost..", ".")]
    [True, False, False, False]
    """
    try:
        name = urlsplit("//" + host).hostname
    except ValueError:  # (a bracket left open)
        return False
    if name and name.endswith(".") and not name.endswith(".."):  # (an audit: "localhost." was refused)
        name = name[:-1]
    if not name:
        return False
    if name == "localhost" or name.endswith(".localhost") or name in extra:
        return True
    return _is_loopback(name)


def _is_loopback(address: str) -> bool:
    """Whether ``address`` is a loopback address, an IPv4 one written as IPv6 too (a
    dual-stack socket, ``--host ::``, sees 127.0.0.1 as ``::ffff:127.0.0.1``).

    >>> [_is_loopback(a) for a in ("127.0.1.1", "::1", "::ffff:127.0.0.1", "10.0.0.1", "x")]
    [True, True, True, False, False]
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return (mapped or ip).is_loopback


class _LocalNames:
    """ASGI middleware: a request that reached the server on a loopback address must name
    this machine in its ``Host`` header (:func:`_is_local_name`), else HTTP 403 (a WebSocket
    handshake too). A page of any site whose name was made to resolve to 127.0.0.1 (DNS
    rebinding) would otherwise be the server's own origin to it. A request without ``Host``
    (HTTP/1.0: not a browser's) and requests that reached another address of the machine
    are not checked: their names are the network's."""

    def __init__(self, app: Any, hosts: tuple[str, ...]) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        server: Any = scope.get("server") if scope["type"] in ("http", "websocket") else None
        given = dict(scope.get("headers") or ()).get(b"host") if server else None
        if given is not None and _is_loopback(str(server[0])):
            host = given.decode("latin-1")
            if not _is_local_name(host, self.hosts):
                log.warning("refused: Host %r is not a name of this machine (scopa serve --allow-host)", host)
                why = (
                    f"Host {host!r} is not a name of this machine: a server on a loopback address answers "
                    "localhost, a loopback address or a name given with --allow-host (a reverse proxy's "
                    "public name too)"
                )
                await _refuse(scope, receive, send, 403, why)
                return
        await self.app(scope, receive, send)


CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self' blob:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
"""The Content-Security-Policy of the app's pages (any ``text/html`` response): its own scripts,
styles, pictures and connections (the WebSocket ``/ws`` and ``POST /api``: ``'self'`` takes
``ws:``/``wss:`` of the same host) and nothing else, no inline script or style, no plugin, not
framed by another site's page (a click made on it through a frame: ``frame-ancestors``).
``data:`` pictures for the page's empty icon (``<link rel="icon" href="data:,">``); ``blob:``
connections for reading back the record the download link holds (a ``blob:`` URL is made by
the page itself: another site's cannot be read)."""


class _SecurityHeaders:
    """ASGI middleware: every HTTP response (and a WebSocket handshake's refusal) says
    ``X-Content-Type-Options: nosniff`` (a browser takes its ``Content-Type`` as it is: a 404
    naming the address asked for, or a reply quoting a request, is never read as a page), and
    an HTML one, the app's page, carries :data:`CONTENT_SECURITY_POLICY`. A header the response
    already has is kept."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Any) -> None:
            if message["type"] in ("http.response.start", "websocket.http.response.start"):
                headers = list(message.get("headers") or [])
                names = {name.lower() for name, _ in headers}
                if b"x-content-type-options" not in names:
                    headers.append((b"x-content-type-options", b"nosniff"))
                kind = next((v for n, v in headers if n.lower() == b"content-type"), b"")
                if kind.lower().startswith(b"text/html") and b"content-security-policy" not in names:
                    headers.append((b"content-security-policy", CONTENT_SECURITY_POLICY.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def _refuse(scope: Any, receive: Any, send: Any, status: int, why: str) -> None:
    """Answer an HTTP request or a WebSocket handshake with ``status`` and ``why`` in plain
    text (a handshake through the ASGI denial response; a server without it can only close,
    which the client sees as a 403 without a body)."""
    from starlette.responses import PlainTextResponse

    if scope["type"] == "websocket" and "websocket.http.response" not in scope.get("extensions", {}):
        await send(
            {"type": "websocket.close", "code": 1008, "reason": why.encode()[:120].decode(errors="ignore")}
        )
        return
    await PlainTextResponse(why, status_code=status)(scope, receive, send)


def _origin_refusal(origin: str | None) -> str:
    """Why a request from ``origin`` is refused, with the ``--cors`` that would take it."""
    if origin == "null" or _is_origin(origin or ""):
        return f"origin {origin!r} is not allowed: start the server with --cors {origin}"
    return f"origin {origin!r} is not allowed, nor an origin as a browser sends it (scheme://host[:port])"


def _cheap(protocol: Protocol, req: Request) -> dict[str, Any]:
    """The reply to a request that is not a search (never ``None``: quit is handled apart)."""
    reply = protocol.execute(req)
    assert reply is not None
    return reply


def _cheap_text(protocol: Protocol, req: Request) -> str:
    """:func:`_cheap`'s reply as JSON text, made in the thread that runs it and in pieces
    (:func:`scopa.jsonio.dumps_in_pieces`): a reply can be megabytes (a match's record, a
    review), and written on the event loop, or in one call of the C encoder, which holds the
    GIL, it held up every other client's replies (a ping 0.41 s during 12 MB of replies)."""
    return jsonio.dumps_in_pieces(_cheap(protocol, req))


async def _parse(protocol: Protocol, data: str | bytes, size: int) -> Request:
    """A request of ``size`` bytes read: on the event loop for a short ping, hello or stop
    (:data:`INLINE_BYTES`), else in a thread (reading a record or a match replays its plays).
    Raises RequestError."""
    if size <= INLINE_BYTES:
        try:
            obj = jsonio.loads(data)
        except (jsonio.JSONInputError, ValueError):
            obj = None  # (refused as the pool's reading would refuse it: said there)
        if isinstance(obj, dict) and obj.get("cmd") in _INLINE_COMMANDS:
            return protocol.parse(obj)  # (the object decoded: not decoded again)
    return await asyncio.get_running_loop().run_in_executor(None, protocol.parse, data)


def _waiting_text(n: int) -> str:
    return f"{n} search{'es' if n != 1 else ''} already wait{'s' if n == 1 else ''}: try again later"


def _busy(req_id: Any, message: str) -> dict[str, Any]:
    return error_reply(req_id, "Busy", message)


class _AnyMethod:
    """An ASGI app around a route's handler: Starlette routes an app (not a function) with
    every HTTP method, so the handler answers OPTIONS, TRACE and made-up methods too (else
    they would fall through to the app's static files: a plain-text 405)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)


def create_app(config: ServerConfig | None = None) -> Any:
    """The ASGI app (a Starlette application) serving the protocol with ``config``."""
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.middleware.cors import CORSMiddleware
    from starlette.requests import ClientDisconnect
    from starlette.requests import Request as HTTPRequest
    from starlette.responses import JSONResponse, RedirectResponse, Response
    from starlette.routing import Mount, Route, WebSocketRoute, request_response
    from starlette.websockets import WebSocket, WebSocketDisconnect

    cfg = config or ServerConfig()
    protocol = Protocol(
        max_time=cfg.max_time,
        max_time_option="scopa serve --max-time",
        max_request_bytes=cfg.max_request_bytes,
    )
    searches = _Searches(cfg, protocol)

    def respond(
        reply: dict[str, Any] | str, status: int = 200, headers: dict[str, str] | None = None
    ) -> Response:
        """A JSON response of ``reply``, or of its JSON text made already."""
        text = reply if isinstance(reply, str) else jsonio.dumps(reply)
        return Response(text, status_code=status, media_type="application/json", headers=headers)

    async def encoded(reply: dict[str, Any]) -> str:
        """``reply``'s JSON text, made in a thread and in pieces (:func:`_cheap_text`)."""
        return await asyncio.get_running_loop().run_in_executor(None, jsonio.dumps_in_pieces, reply)

    async def api(request: HTTPRequest) -> Response:
        if request.method != "POST":  # (not the browser app's 404: /api is the engine's)
            reply = error_reply(None, "ProtocolError", f"{request.method} /api: send requests with POST")
            return Response(
                jsonio.dumps(reply), status_code=405, media_type="application/json", headers={"Allow": "POST"}
            )
        origin = request.headers.get("origin")
        if not _origin_allowed(origin, request.headers.get("host"), cfg.cors_origins, request.url.scheme):
            # (a browser reads no reply it may not, but a form or a text/plain POST from any page
            # would still run: a page of another origin must not spend this server's workers)
            log.warning("api refused: origin %r is not allowed (scopa serve --cors)", origin)
            return respond(error_reply(None, "ProtocolError", _origin_refusal(origin)), 403)
        too_large = error_reply(
            None,
            "ProtocolError",
            f"a request larger than {cfg.max_request_bytes} bytes (the server's --max-request-bytes)",
        )
        declared = request.headers.get("content-length", "")
        chunked = "transfer-encoding" in request.headers  # (then its Content-Length is not the body's)
        if declared.isdigit() and not chunked and int(declared) > cfg.max_request_bytes:
            return respond(too_large, 413)  # (at once: not after waiting for a body it will refuse)
        body = b""
        try:
            async for chunk in request.stream():
                body += chunk
                if len(body) > cfg.max_request_bytes:
                    return respond(too_large, 413)
        except ClientDisconnect:  # gone before its request was whole: no one to answer
            return Response(status_code=400)
        try:
            req = await _parse(protocol, body, len(body))
        except RequestError as exc:
            return respond(exc.reply, 400)
        if req.cmd == "quit":
            return respond(error_reply(req.id, "ProtocolError", "quit has no meaning over HTTP"), 400)
        if req.cmd in INSTANT:
            return respond(_cheap(protocol, req))
        if not req.is_search:
            return respond(await asyncio.get_running_loop().run_in_executor(None, _cheap_text, protocol, req))
        slot = searches.try_reserve()
        if slot is None:
            return respond(_busy(req.id, searches.busy_text()), 429, {"Retry-After": "1"})
        flag = StopFlag()
        task = asyncio.ensure_future(searches.run(req, flag, slot))
        while not task.done():  # a client that goes away stops its search
            await asyncio.wait([task], timeout=0.2)
            if not task.done() and await request.is_disconnected():
                flag.set()
        result = task.result()
        assert result is not None
        return respond(await encoded(result))

    async def health(request: HTTPRequest) -> Response:
        return JSONResponse(
            {
                "status": "ok",
                "version": __version__,
                "workers": cfg.workers,
                "searches_running": searches.running,
                "searches_waiting": searches.queued(),
                "searches_given_up": searches.dead,
                "max_time_ms": None if cfg.max_time is None else cfg.max_time * 1000,
            }
        )

    async def ws(websocket: WebSocket) -> None:
        origin = websocket.headers.get("origin")
        if not _origin_allowed(origin, websocket.headers.get("host"), cfg.cors_origins, websocket.url.scheme):
            log.warning("ws refused: origin %r is not allowed (scopa serve --cors)", origin)
            await _refuse(websocket.scope, websocket.receive, websocket.send, 403, _origin_refusal(origin))
            return
        await websocket.accept()
        loop = asyncio.get_running_loop()
        send_lock = asyncio.Lock()
        # this connection's searches, from the moment each is read: a stop, or the socket
        # closing, reaches it even before its task has started
        mine: dict[int, tuple[Request, StopFlag, _Slot]] = {}
        tasks: set[asyncio.Task[None]] = set()
        peer = f"{websocket.client.host}:{websocket.client.port}" if websocket.client else "?"
        log.info("ws %s connected", peer)

        async def send(reply: dict[str, Any] | str) -> None:
            text = reply if isinstance(reply, str) else jsonio.dumps(reply)
            async with send_lock:
                await websocket.send_text(text)

        async def search(req: Request, flag: StopFlag, slot: _Slot) -> dict[str, Any] | None:
            sent: list[concurrent.futures.Future[None]] = []

            def info(line: dict[str, Any]) -> None:  # from the worker's thread, in order
                with contextlib.suppress(RuntimeError):  # (the loop is closing)
                    sent.append(asyncio.run_coroutine_threadsafe(send(line), loop))

            try:
                reply = await searches.run(req, flag, slot, info)
            finally:
                mine.pop(id(flag), None)
            for f in sent:  # the info lines go before the reply
                await asyncio.wrap_future(f)
            return reply

        async def answer(req: Request, flag: StopFlag | None, slot: _Slot | None) -> None:
            try:
                if flag is not None and slot is not None:
                    reply = await search(req, flag, slot)
                    text = None if reply is None else await encoded(reply)
                else:
                    text = await loop.run_in_executor(None, _cheap_text, protocol, req)
                if text is not None:
                    await send(text)
            except (WebSocketDisconnect, RuntimeError):
                pass  # the socket closed while the reply was on its way

        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                data = message.get("text")
                if data is None:  # a binary frame: the protocol's messages are text
                    await send(error_reply(None, "ProtocolError", BINARY_REFUSED))
                    continue
                size = len(data)
                if size <= cfg.max_request_bytes:
                    size = len(data.encode("utf-8", "surrogatepass"))  # the limit is in bytes
                if size > cfg.max_request_bytes:
                    await send(
                        error_reply(
                            None,
                            "ProtocolError",
                            f"a message larger than {cfg.max_request_bytes} bytes"
                            " (the server's --max-request-bytes)",
                        )
                    )
                    continue
                try:  # (one message of this connection at a time)
                    req = await _parse(protocol, data, size)
                except RequestError as exc:
                    await send(exc.reply)
                    continue
                if req.cmd in INSTANT:  # (not counted in flight: ping answers even then)
                    await send(_cheap(protocol, req))
                    continue
                if req.cmd == "quit":
                    with contextlib.suppress(RuntimeError, WebSocketDisconnect):
                        await websocket.close()
                    break
                if req.cmd == "stop":
                    n = stop_searches([(r, f) for r, f, _ in mine.values()], req.args.get("search"))
                    for _, halted, held in list(mine.values()):  # (their places given back now:
                        if halted.is_set():  # a search sent right behind the stop of a full queue
                            searches.release(held)  # was Busy, the places given back 50 ms later)
                    await send({"id": req.id, "stopped": n})
                    continue
                live = sum(1 for t in tasks if not t.done())
                if live >= cfg.max_in_flight:
                    await send(
                        _busy(
                            req.id,
                            f"{live} requests of this connection in flight (at most {cfg.max_in_flight})",
                        )
                    )
                    continue
                flag = slot = None
                if req.is_search:
                    slot = searches.try_reserve()
                    if slot is None:
                        await send(_busy(req.id, searches.busy_text()))
                        continue
                    flag = StopFlag()
                    mine[id(flag)] = (req, flag, slot)
                task = asyncio.ensure_future(answer(req, flag, slot))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
        except WebSocketDisconnect:
            pass
        except RuntimeError as exc:  # (a reply the read loop sent, to a client that went meanwhile)
            if "once a close message has been sent" not in str(exc):  # (starlette's words, 0.37 on)
                raise
        finally:
            stopped = len(mine)
            for _, flag, slot in list(mine.values()):  # a client that disconnects cancels its searches
                flag.set()
                searches.release(slot)
            for task in list(tasks):
                task.cancel()
            log.info("ws %s closed (%d searches stopped)", peer, stopped)

    async def card_svg(request: HTTPRequest) -> Response:
        # one SVG per card and deck, from scopa.svg: the app draws what the library draws
        from scopa import svg

        deck, name = request.path_params["deck"], request.path_params["name"]
        try:
            svg._check_deck(deck)  # (the back's too: every deck has the same back)
            if name == "back":
                text = svg.card_back()
            else:
                card = Card.parse(name)
                if str(card) != name:  # (one address a card: 7d, not 7D or 7♦)
                    raise OptionError(
                        f"card {show(name)} is not written as the notation writes it: expected like 7d"
                    )
                text = svg.card(card, deck=deck)
        except ScopaError as exc:
            return Response(str(exc), status_code=404, media_type="text/plain")
        headers = {"Cache-Control": "max-age=3600"}  # (nosniff: every response, _SecurityHeaders)
        return Response(text, media_type="image/svg+xml", headers=headers)

    async def no_card(request: HTTPRequest) -> Response:
        path = show(request.url.path)
        why = f"no card picture at {path}: expected /cards/DECK/CARD.svg, like /cards/french/7d.svg"
        return Response(why, status_code=404, media_type="text/plain")

    async def no_ws(websocket: WebSocket) -> None:
        # (a handshake anywhere else was a 403 without a word, as an origin refused)
        why = f"no WebSocket at {show(websocket.scope['path'])}: the protocol's WebSocket is /ws"
        await _refuse(websocket.scope, websocket.receive, websocket.send, 404, why)

    async def ws_over_http(request: HTTPRequest) -> Response:
        why = "/ws is a WebSocket: open it with a WebSocket client (new WebSocket(url) in a browser)"
        return Response(why, status_code=426, media_type="text/plain", headers={"Upgrade": "websocket"})

    routes: list[Any] = [
        Route("/api", _AnyMethod(request_response(api))),  # (every method: POST, or a JSON 405)
        Route("/health", health, methods=["GET"]),
        Route("/cards/{deck}/{name}.svg", card_svg, methods=["GET"]),
        Route("/cards/{rest:path}", no_card, methods=["GET"]),  # (not the app's bare Not Found)
        Route("/cards", no_card, methods=["GET"]),
        WebSocketRoute("/ws", ws),
        Route("/ws", ws_over_http),
        WebSocketRoute("/{rest:path}", no_ws),
    ]
    static = resources.files("scopa.server").joinpath("static")
    has_app = static.is_dir() and static.joinpath("index.html").is_file()

    def no_such(scope: Any) -> Response:
        # (POST /api/, a slash too many, was "Method Not Allowed" from the app's files, and a
        # GET of an address with nothing a bare "Not Found": neither said where things are)
        app_at = " and the app at /" if has_app else ""
        why = (
            f"no such address: {scope['method']} {show(scope['path'])}: the protocol is POST /api"
            f" and the WebSocket /ws; GET /health, /cards/DECK/CARD.svg{app_at}"
        )
        return Response(why, status_code=404, media_type="text/plain")

    async def nowhere(scope: Any, receive: Any, send: Any) -> None:
        # the router's own answer where no route's pattern matches: an address with a newline,
        # which their ".*" does not take ("/x%0Ay" was a bare "Not Found", a handshake a 403)
        if scope["type"] == "websocket":
            await no_ws(WebSocket(scope, receive, send))
        else:
            await no_such(scope)(scope, receive, send)

    if has_app:
        import anyio
        from starlette.exceptions import HTTPException
        from starlette.staticfiles import StaticFiles

        class AppFiles(StaticFiles):
            """The app's files; any other address, whatever the method, a 404 saying so."""

            async def get_response(self, path: str, scope: Any) -> Response:
                if scope["method"] not in ("GET", "HEAD"):
                    try:
                        _, found = await anyio.to_thread.run_sync(self.lookup_path, path)
                    except (OSError, ValueError):
                        found = None
                    if found is None:
                        return no_such(scope)
                try:
                    response = await super().get_response(path, scope)
                except HTTPException as exc:
                    if exc.status_code != 404:
                        raise
                    return no_such(scope)
                if response.status_code == 307:  # a directory's address without its slash
                    response = await self.to_directory(path, scope)
                return response

            async def to_directory(self, path: str, scope: Any) -> Response:
                """The redirect of a directory's address without its ``/`` (``/.``, ``/a/..``):
                to the directory's own path, not to the URL Starlette builds of the request,
                whose host is the request's ``Host`` header (any name under ``--host 0.0.0.0``)
                and whose path keeps the dots."""
                found, _ = await anyio.to_thread.run_sync(self.lookup_path, path)
                if not found:  # (gone since)
                    return no_such(scope)
                inside = os.path.relpath(found, os.path.realpath(str(static)))
                where = "" if inside == "." else quote(inside.replace(os.sep, "/")) + "/"
                query = scope.get("query_string", b"").decode("latin-1")
                to = scope.get("root_path", "") + "/" + where + ("?" + query if query else "")
                return RedirectResponse(to, status_code=307)

        routes.append(Mount("/", app=AppFiles(directory=str(static), html=True), name="app"))
    # (the headers outermost: the Host check's refusals and CORS's answers say nosniff too)
    middleware = [Middleware(_SecurityHeaders), Middleware(_LocalNames, hosts=cfg.hosts)]
    if cfg.cors_origins:
        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=list(cfg.cors_origins),
                allow_methods=["GET", "POST"],
                allow_headers=["Content-Type"],
            )
        )

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        yield
        searches.stop_all()
        searches.pool.shutdown(wait=False, cancel_futures=True)
        searches.stopped_pool.shutdown(wait=False, cancel_futures=True)

    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    app.router.default = nowhere
    app.state.searches = searches
    return app


def run(
    host: str = "127.0.0.1", port: int = 8765, config: ServerConfig | None = None, log_level: str = "info"
) -> int:
    """Serve the app with uvicorn until interrupted. The socket is bound first, so
    ``port=0`` picks a free port; the line ``scopa serve: listening on http://HOST:PORT``
    on standard output says which."""
    import uvicorn

    cfg = config or ServerConfig()
    if not isinstance(port, int) or isinstance(port, bool) or not 0 <= port <= 65535:
        raise OptionError(f"bad port {port!r}: expected an int in 0..65535 (0 for any free one)")
    if not isinstance(host, str) or not host.strip():  # (--host "$UNSET" listened on every address)
        raise OptionError(f"bad host {show(host)}: expected an address or a name, like 127.0.0.1")
    levels = uvicorn.config.LOG_LEVELS
    level = levels.get(log_level.lower()) if isinstance(log_level, str) else log_level
    if not isinstance(level, int) or isinstance(level, bool):
        raise OptionError(f"bad log_level {show(log_level)}: expected one of {', '.join(levels)} or a number")
    sock = _listen(host, port)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if sock.family == socket.AF_INET6 else host
    print(f"scopa serve: listening on http://{shown}:{bound}", flush=True)
    app = create_app(cfg)
    uv = uvicorn.Config(
        app,
        log_level=level,
        log_config=_log_config(level),
        ws_max_size=max(cfg.max_request_bytes * WS_FRAME_FACTOR, 1 << 20),
        # (no permessage-deflate: a client's compressed frames inflate about 1,000 times, and
        # uvicorn decodes every frame of what it reads at once: 32 clients sending 10 MB in all
        # made the server hold 3 GB)
        ws_per_message_deflate=False,
        ws=_ws_protocol(),
        http=_http_protocol(cfg.request_timeout),
        lifespan="on",
        timeout_graceful_shutdown=SHUTDOWN_GRACE,
    )
    _stopping_server(uv, app.state.searches).run(sockets=[sock])
    return 0


def _ws_protocol() -> Any:
    """uvicorn's WebSocket protocol (websockets' sans-I/O one), made to stop reading a client
    while what the server writes to it waits in its buffer: uvicorn answers each ping frame
    with a pong written whatever the buffer holds, so a client that sent pings and read
    nothing made the server hold every pong (1.5 GB in 40 s). Reading goes on once the buffer
    has drained. ``"auto"`` for a uvicorn without that protocol (its own waits for each pong
    to be written)."""
    try:
        from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
    except ImportError:  # pragma: no cover - (uvicorn before 0.35)
        return "auto"

    class Protocol(WebSocketsSansIOProtocol):
        writes_paused = False

        def pause_writing(self) -> None:
            super().pause_writing()
            self.writes_paused = True
            self.transport.pause_reading()

        def resume_writing(self) -> None:
            super().resume_writing()
            self.writes_paused = False
            if not getattr(self, "read_paused", False):  # (uvicorn's own pause: a message unread)
                self.transport.resume_reading()

        async def receive(self) -> Any:
            message = await super().receive()
            if self.writes_paused:  # (uvicorn resumed reading once its queue was empty)
                self.transport.pause_reading()
            return message

    return Protocol


def _http_protocol(request_timeout: float = REQUEST_TIMEOUT) -> Any:
    """uvicorn's h11 HTTP protocol, made to hand a WebSocket the bytes that came after its
    handshake: uvicorn (0.55) rebuilt the handshake alone for the WebSocket protocol, so the
    frames a client sent in the same packet (it need not wait for the 101 to be read) were
    lost, and so were the replies to them. httptools' protocol, uvicorn's choice when
    installed, loses them too: this one is used whatever is installed.

    It also times requests out (:attr:`ServerConfig.request_timeout`): uvicorn's h11 protocol
    has no timeout for a request's headers or body, so a client that sent part of a request
    (or nothing after connecting) held its connection for as long as it liked, and a few
    thousand such clients every descriptor the server had."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class Protocol(H11Protocol):
        request_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self.watch()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self.watch()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self.watch()

        def connection_lost(self, exc: Exception | None) -> None:
            self.unwatch()
            super().connection_lost(exc)

        def watch(self) -> None:
            """Time the request being sent, if one is (the client's turn: its request line,
            headers or body); else no timer (a response being made or sent, a WebSocket)."""
            sending = self.conn.their_state in (h11.IDLE, h11.SEND_BODY)
            if not sending or self.transport.is_closing() or self.transport.get_protocol() is not self:
                self.unwatch()
            elif self.request_timer is None:
                self.request_timer = self.loop.call_later(request_timeout, self.timed_out)

        def unwatch(self) -> None:
            if self.request_timer is not None:
                self.request_timer.cancel()
                self.request_timer = None

        def timed_out(self) -> None:
            self.request_timer = None
            if self.transport.is_closing() or self.transport.get_protocol() is not self:
                return
            begun = self.conn.their_state is h11.SEND_BODY or bool(self.conn.trailing_data[0])
            if begun and self.conn.our_state in (h11.IDLE, h11.SEND_RESPONSE):
                # (part of a request, and no response begun: say why before closing; an app
                # waiting for the body is told the client is gone, its answer dropped)
                body = f"408 Request Timeout: no whole request in {request_timeout:g} s\n".encode()
                self.transport.write(
                    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
                    b"x-content-type-options: nosniff\r\nconnection: close\r\n"
                    b"content-length: " + str(len(body)).encode() + b"\r\n\r\n" + body
                )
            self.transport.close()

        def handle_websocket_upgrade(self, event: Any) -> None:
            self.unwatch()
            rest = bytes(self.conn.trailing_data[0])  # (what h11 read past the handshake)
            super().handle_websocket_upgrade(event)
            websocket: Any = self.transport.get_protocol()
            if rest and websocket is not self:
                websocket.data_received(rest)

    return Protocol


def _listen(host: str, port: int) -> socket.socket:
    """A TCP socket listening on ``host`` and ``port``; else an OptionError that says why."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # (IPPROTO_TCP named: asyncio turns Nagle's algorithm off only on sockets whose proto says
    # TCP; with it on, every reply after the first on a kept-alive connection waited about
    # 40 ms for the client's delayed acknowledgement)
    sock = _ListeningSocket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as exc:  # the port is taken, the address is not this machine's or unknown
        sock.close()
        raise OptionError(f"cannot listen on {host!r} port {port}: {exc.strerror or exc}") from None
    return sock


#: After an accept that failed for want of file descriptors (or memory), how long the listening
#: socket says it has no connection waiting, seconds: less than asyncio's own pause before it
#: tries again (a second), more than the rest of the loop that met the failure takes.
ACCEPT_PAUSE = 0.1

#: The errors of an accept that asyncio takes for the system out of resources.
_OUT_OF_RESOURCES = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


class _ListeningSocket(socket.socket):
    """The server's listening socket, whose ``accept`` fails once per lack of file descriptors.
    asyncio (3.11 to 3.14: CPython issue 151615) goes on accepting after an accept failed for
    want of them, up to the backlog (2,048) times a turn of its loop, and logs each failure with
    its traceback and schedules a retry of its own for each: with the descriptors used up (more
    clients than ``ulimit -n``: the server does not bound them) the log took 2.5 million lines in
    10 s, and grew. Here, for :data:`ACCEPT_PAUSE` seconds after such a failure, an accept finds
    no connection waiting, which ends asyncio's loop: one line and one retry a second."""

    paused_until = 0.0

    def accept(self) -> tuple[socket.socket, Any]:
        if time.monotonic() < self.paused_until:
            raise BlockingIOError(errno.EAGAIN, "accepting again shortly: out of file descriptors")
        try:
            return super().accept()
        except OSError as exc:
            if exc.errno in _OUT_OF_RESOURCES:
                self.paused_until = time.monotonic() + ACCEPT_PAUSE
            raise


def _stopping_server(config: Any, searches: _Searches) -> Any:
    """uvicorn's server, whose Ctrl-C (or SIGTERM) stops every search at once: uvicorn waits
    for the open connections before the app's shutdown, and a ``POST /api`` search holds its
    connection until it ends (forever under ``--max-time 0``)."""
    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            searches.stop_all()
            super().handle_exit(sig, frame)

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            # (no new connection; the stopped searches' replies sent before uvicorn closes the
            # WebSockets: it closed them first, and a stopped search's reply was lost)
            for server in self.servers:
                server.close()
            loop = asyncio.get_running_loop()
            until = loop.time() + REPLY_GRACE
            while searches._active and loop.time() < until and not self.force_exit:
                await asyncio.sleep(0.02)
            await asyncio.sleep(0.05)  # (the replies written)
            await super().shutdown(sockets)
            if self.force_exit and not self.lifespan.shutdown_event.is_set():
                # (a second Ctrl-C: uvicorn skips the app's shutdown, whose lifespan task,
                # cancelled as the loop closed, was logged as an error with tracebacks; the
                # app's shutdown stops the searches and lets the pools go, at once)
                await self.lifespan.shutdown()

    return Server(config)


class _BestEffortHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """A log handler that drops a line it cannot write (its reader gone: the pipe of a program
    that read the listening line and closed), not a traceback on standard error per request;
    and one that never waits to write. To a pipe, a terminal or a socket a line is written only
    as far as there is room for it now (:func:`_write_now`): the event loop writes most of the
    log, and a pipe whose reader was alive but read nothing (a program that read the listening
    line only) filled after about 1,100 requests, and the server then answered no one, nor
    Ctrl-C or SIGTERM. The lines dropped so are counted and said in a line once there is room
    again. A regular file is written as before (a write to it does not wait for a reader)."""

    def __init__(self, stream: Any = None) -> None:
        super().__init__(stream)
        self.dropped = 0  # lines not written, the pipe full
        self.cut = False  # a line was written in part: the next begins on a line of its own

    def emit(self, record: logging.LogRecord) -> None:
        fd = _waiting_fd(self.stream)
        if fd is None:
            super().emit(record)
            return
        try:
            encoding = getattr(self.stream, "encoding", None) or "utf-8"
            line = (self.format(record) + self.terminator).encode(encoding, "backslashreplace")
            if self.dropped:
                said = f"scopa serve: {self.dropped} lines of the log dropped: its reader did not read them\n"
                line = said.encode("ascii") + line
            if self.cut:
                line = b"\n" + line
            written = _write_now(fd, line)
            if written == 0:
                self.dropped += 1
            else:
                self.dropped, self.cut = 0, written < len(line)
        except Exception:
            self.handleError(record)

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - (logging's name)
        if not isinstance(sys.exc_info()[1], OSError):  # (a bug of a log call is still said)
            super().handleError(record)


def _waiting_fd(stream: Any) -> int | None:
    """The file descriptor of ``stream`` when a write to it may wait for a reader (a pipe, a
    terminal, a socket) and ``poll`` can tell whether it has room; None otherwise (a regular
    file, a stream without one, a system without ``poll``)."""
    if not hasattr(select, "poll"):  # pragma: no cover - (Windows)
        return None
    try:
        fd = stream.fileno()
        return None if stat.S_ISREG(os.fstat(fd).st_mode) else int(fd)
    except (AttributeError, OSError, ValueError):
        return None


def _write_now(fd: int, data: bytes) -> int:
    """Write ``data`` to ``fd`` without waiting: in parts of at most ``select.PIPE_BUF`` bytes
    (a pipe takes such a part whole once it has room), each only while ``fd`` has room for it;
    how many bytes were written. An OSError when the reader has gone (EPIPE)."""
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    done = 0
    while done < len(data):
        if not poller.poll(0):
            break
        done += os.write(fd, data[done : done + select.PIPE_BUF])
    return done


class _ClientNoise(logging.Filter):
    """uvicorn's tracebacks for what a client did (any client could fill the log with them):
    one line each, without the traceback: a text frame that is not UTF-8 (uvicorn's
    websockets-sansio implementation), a request cut short at shutdown, its client too slow."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.exc_info:
            return True
        message, kind = record.getMessage(), record.exc_info[0]
        if message.startswith("Invalid UTF-8 sequence received from client"):
            said = "a client sent a text frame that is not UTF-8 (closed with 1007)"
        elif message.startswith("Exception in ASGI application") and kind is asyncio.CancelledError:
            said = "a request was cut short at shutdown (its client had not finished it or read its reply)"
        else:
            return True
        record.exc_info, record.exc_text, record.msg, record.args = None, None, said, ()
        return True


def _log_config(level: int) -> dict[str, Any]:
    """uvicorn's logging, its handlers best effort, with scopa's own log (``scopa.server``:
    the requests refused, the WebSockets opened and closed) at the same level and in the same
    form, and every other logger's warnings (asyncio's) through the same best-effort handler."""
    import copy

    import uvicorn.config

    out = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    for handler in out["handlers"].values():
        handler["class"] = f"{__name__}._BestEffortHandler"
    out.setdefault("filters", {})["client_noise"] = {"()": f"{__name__}._ClientNoise"}
    out["loggers"].setdefault("uvicorn.error", {})["filters"] = ["client_noise"]
    out["loggers"]["scopa"] = {"handlers": ["default"], "level": level, "propagate": False}
    # every other logger too (asyncio's "socket.send() raised exception.", a line per write to a
    # client gone): without a handler of the root's it went to logging's last resort, a write to
    # standard error that waits for room, and so held the event loop up on a pipe nobody read
    out["root"] = {"handlers": ["default"], "level": max(level, logging.WARNING)}
    return out
