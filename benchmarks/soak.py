"""Soak ``scopa serve``: its memory over many requests, to tell a leak from a plateau.

Starts ``scopa serve`` on a free port, sends ``--requests`` requests of one kind one after
another (over one kept-alive HTTP connection to ``POST /api``, or over one WebSocket) after
``--warmup`` more, and reads the server's resident memory (``VmRSS`` of ``/proc/PID/status``,
Linux) every ``--every`` requests. Prints each reading and the least-squares slope of the
readings in bytes a request, over all of them and over their second half (a leak keeps its
slope; an allocator settling down does not).

Run: ``python benchmarks/soak.py --requests 200000 --every 20000 --cmd solve --via http``
(``--cmd``: ``ping`` the event loop alone, ``legal`` the thread pool, ``solve`` and
``bestmove`` the search pool too).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

from load import serve

import scopa

#: A 2-player end position (the last two cards each), quick to solve: the requests' cost is the
#: server's own, not the search's.
POSITION = "scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1"

REQUESTS: dict[str, dict[str, Any]] = {
    "ping": {"cmd": "ping"},
    "legal": {"cmd": "legal", "position": POSITION},
    "solve": {"cmd": "solve", "position": POSITION},
    "bestmove": {"cmd": "bestmove", "player": "greedy"},  # (and the view of the seat to move)
}


def rss(pid: int) -> int:
    """The resident memory of process ``pid`` in bytes."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def slope(points: list[tuple[int, int]]) -> float:
    """The least-squares slope of (requests, bytes) points, bytes a request (0 for fewer than 2)."""
    if len(points) < 2:
        return 0.0
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else 0.0


@contextlib.contextmanager
def connection(base: str, via: str) -> Iterator[Callable[[dict[str, Any]], dict[str, Any]]]:
    """One kept-alive HTTP connection to ``POST /api``, or one WebSocket: its ``ask(request)``."""
    if via == "http":
        host, port = base.removeprefix("http://").rsplit(":", 1)
        conn = http.client.HTTPConnection(host, int(port), timeout=60)

        def ask_http(req: dict[str, Any]) -> dict[str, Any]:
            conn.request("POST", "/api", body=json.dumps(req).encode())
            reply: dict[str, Any] = json.loads(conn.getresponse().read())
            return reply

        with contextlib.closing(conn):
            yield ask_http
    else:
        from websockets.sync.client import connect

        with connect(base.replace("http://", "ws://") + "/ws", max_size=2**22) as ws:

            def ask_ws(req: dict[str, Any]) -> dict[str, Any]:
                ws.send(json.dumps(req))
                reply: dict[str, Any] = json.loads(ws.recv(timeout=60))
                return reply

            yield ask_ws


def soak(args: argparse.Namespace) -> list[tuple[int, int]]:
    """Runs the soak; returns the (requests sent after the warm-up, RSS bytes) readings."""
    with serve() as (server, base):
        template = REQUESTS[args.cmd]
        if args.cmd == "bestmove":
            state = scopa.State.from_string(POSITION)
            template = {**template, "view": state.view(state.turn).to_json()}
        readings: list[tuple[int, int]] = []
        t0 = time.perf_counter()
        with connection(base, args.via) as ask:
            for i in range(-args.warmup, args.requests + 1):
                if i >= 0 and i % args.every == 0:
                    readings.append((i, rss(server.pid)))
                    print(f"{i:>10,} requests  RSS {readings[-1][1] / 2**20:8.2f} MiB", flush=True)
                if i == args.requests:
                    break
                reply = ask({**template, "id": i})
                if reply.get("id") != i or "error" in reply:
                    raise RuntimeError(f"request {i}: {reply}")
        seconds = time.perf_counter() - t0
    half = readings[len(readings) // 2 :]
    print(
        f"{args.requests:,} {args.cmd} requests over {args.via} (after {args.warmup:,} to warm up) in "
        f"{seconds:.1f} s: RSS {readings[0][1] / 2**20:.2f} -> {readings[-1][1] / 2**20:.2f} MiB; slope "
        f"{slope(readings):.1f} bytes a request over every reading, {slope(half):.1f} over the second half"
    )
    return readings


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=100_000, help="requests measured (default 100,000)")
    ap.add_argument("--warmup", type=int, default=10_000, help="requests sent first, unmeasured")
    ap.add_argument("--every", type=int, default=10_000, help="requests between two readings")
    ap.add_argument("--cmd", choices=sorted(REQUESTS), default="solve", help="the request sent")
    ap.add_argument(
        "--via",
        choices=("http", "ws"),
        default="http",
        help="one kept-alive HTTP connection or one WebSocket",
    )
    args = ap.parse_args(argv)
    for name in ("requests", "every"):
        if getattr(args, name) < 1:
            ap.error(f"bad --{name} {getattr(args, name)}: expected an integer >= 1")
    if args.warmup < 0:
        ap.error(f"bad --warmup {args.warmup}: expected an integer >= 0")
    if not sys.platform.startswith("linux"):
        ap.error("the soak reads the server's memory from /proc: Linux only")
    soak(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
