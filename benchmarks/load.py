"""Load on ``scopa serve``: many WebSocket clients playing whole 2-player hands at once.

Each client connects to ``/ws`` and plays ``--hands`` whole hands of Scopa: ``deal``, then
for every play ``legal``, ``view``, ``bestmove`` (PIMC at ``--time-ms``) and ``play``, then
``score``. The server runs with ``--workers`` search threads, so the clients' searches
queue for them while their cheap requests (``legal``, ``play``) are answered meanwhile:
their latency is what an app feels while searches run.

Run: ``python benchmarks/load.py --clients 50 --hands 2 --workers 2 --time-ms 50``.

``--http-pings N`` also sends N ``ping`` requests one after another on one kept-alive HTTP
connection to ``POST /api`` and prints their median round trip (each was about 44 ms while the
server left Nagle's algorithm on; well under 1 ms since).

``--slow-clients N`` first opens N connections that each send half a request line and wait,
asks ``/health`` meanwhile, and prints how the server answered them and when the last was
closed (``--request-timeout``, the server's, decides when): run
``python benchmarks/load.py --clients 0 --slow-clients 500 --request-timeout 2``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

from websockets.asyncio.client import connect


async def client(url: str, number: int, hands: int, time_ms: float, stats: dict[str, Any]) -> None:
    async with connect(url, max_size=2**22) as ws:
        counter = iter(range(10**9))

        async def ask(req: dict[str, Any]) -> dict[str, Any]:
            req_id = next(counter)
            t0 = time.perf_counter()
            await ws.send(json.dumps({**req, "id": req_id}))
            reply = json.loads(await ws.recv())
            elapsed = time.perf_counter() - t0
            stats["latency"].setdefault(req["cmd"], []).append(elapsed)
            if "error" in reply or reply.get("id") != req_id:
                stats["errors"].append(reply)
                raise RuntimeError(reply)
            return reply

        for h in range(hands):
            try:
                position = (await ask({"cmd": "deal", "rules": "scopa", "seed": number * 1000 + h}))[
                    "position"
                ]
                while any(position["hands"]) or position["stock"]:
                    await ask({"cmd": "legal", "position": position})
                    view = (await ask({"cmd": "view", "position": position, "seat": position["turn"]}))[
                        "view"
                    ]
                    bm = {"cmd": "bestmove", "view": view, "player": "pimc", "time_ms": time_ms, "seed": h}
                    move = (await ask(bm))["move"]
                    position = (await ask({"cmd": "play", "position": position, "move": move}))["position"]
                await ask({"cmd": "score", "position": position})
                stats["hands"] += 1
            except RuntimeError:
                return


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


async def main_async(args: argparse.Namespace, url: str) -> dict[str, Any]:
    stats: dict[str, Any] = {"hands": 0, "errors": [], "latency": {}}
    t0 = time.perf_counter()
    await asyncio.gather(*(client(url, i, args.hands, args.time_ms, stats) for i in range(args.clients)))
    stats["seconds"] = time.perf_counter() - t0
    return stats


def http_pings(address: str, n: int) -> None:
    """``n`` pings one after another on one kept-alive connection to ``POST /api``."""
    import http.client

    host, port = address.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    times = []
    for i in range(n):
        t = time.perf_counter()
        conn.request("POST", "/api", body=json.dumps({"cmd": "ping", "id": i}).encode())
        reply = json.loads(conn.getresponse().read())
        assert reply == {"id": i, "pong": True}, reply
        times.append(time.perf_counter() - t)
    conn.close()
    print(
        f"{n} pings on one kept-alive HTTP connection: median {1000 * statistics.median(times):.2f} ms, "
        f"p99 {1000 * pct(times, 0.99):.2f} ms, total {sum(times):.2f} s"
    )


def slow_clients(address: str, n: int) -> None:
    """``n`` connections that each send half a request line and wait for the server to end them."""
    import socket

    host, port = address.rsplit(":", 1)
    t0 = time.perf_counter()
    socks = []
    for _ in range(n):
        sock = socket.create_connection((host, int(port)), timeout=120)
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: local")
        socks.append(sock)
    t = time.perf_counter()
    with urllib.request.urlopen(f"http://{address}/health", timeout=60) as r:
        r.read()
    health = time.perf_counter() - t
    answers: dict[str, int] = {}
    for sock in socks:
        got = b""
        while chunk := sock.recv(65536):
            got += chunk
        status = got.split(b"\r\n", 1)[0].decode() or "closed without an answer"
        answers[status] = answers.get(status, 0) + 1
        sock.close()
    print(
        f"{n} clients sending half a request line: {answers}; the last closed "
        f"{time.perf_counter() - t0:.2f} s after the first connected; "
        f"/health meanwhile {1000 * health:.1f} ms"
    )


@contextlib.contextmanager
def serve(*options: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``scopa serve`` on a free port with ``options``, once it accepts: its process and its
    ``http://HOST:PORT``; stopped at the end."""
    server = subprocess.Popen(
        [sys.executable, "-m", "scopa", "serve", "--port", "0", "--log-level", "warning", *options],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        if "listening on " not in line:
            raise RuntimeError(f"scopa serve did not start: {line!r}")
        base = line.split("listening on ")[1].strip()
        for _ in range(100):  # until uvicorn accepts
            try:
                with urllib.request.urlopen(base + "/health", timeout=10) as r:
                    r.read()
                break
            except OSError:
                time.sleep(0.05)
        yield server, base
    finally:
        server.terminate()
        server.wait(10)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--hands", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--time-ms", type=float, default=50)
    ap.add_argument("--http-pings", type=int, default=0, help="pings on one kept-alive HTTP connection")
    ap.add_argument("--slow-clients", type=int, default=0, help="connections that send half a request")
    ap.add_argument("--request-timeout", type=float, default=30.0, help="the server's (scopa serve's)")
    args = ap.parse_args(argv)
    options = [
        "--workers", str(args.workers), "--max-in-flight", "8", "--max-queued", str(max(1, 4 * args.clients)),
        "--request-timeout", str(args.request_timeout),
    ]  # fmt: skip
    with serve(*options) as (_, base):
        address = base.removeprefix("http://")
        if args.slow_clients:
            slow_clients(address, args.slow_clients)
        if args.http_pings:
            http_pings(address, args.http_pings)
        if not args.clients:
            return 0
        stats = asyncio.run(main_async(args, base.replace("http://", "ws://") + "/ws"))
    lat = stats["latency"]
    print(
        f"{args.clients} WebSocket clients x {args.hands} hands of scopa, bestmove pimc at "
        f"{args.time_ms:g} ms, server with {args.workers} search workers: {stats['hands']} hands "
        f"completed in {stats['seconds']:.1f} s, {len(stats['errors'])} errors"
    )
    print("| request | replies | p50 (ms) | p99 (ms) | max (ms) |")
    print("|---|---:|---:|---:|---:|")
    for cmd in ("legal", "play", "view", "bestmove"):
        v = lat.get(cmd, [])
        if v:
            print(
                f"| {cmd} | {len(v)} | {1000 * statistics.median(v):.1f} | {1000 * pct(v, 0.99):.1f} "
                f"| {1000 * max(v):.1f} |"
            )
    for e in stats["errors"][:5]:
        print("error:", e)
    return 1 if stats["errors"] or stats["hands"] != args.clients * args.hands else 0


if __name__ == "__main__":
    sys.exit(main())
