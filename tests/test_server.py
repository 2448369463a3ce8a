"""``scopa serve``: a real uvicorn server on a free localhost port, driven over ``POST /api``
and the ``/ws`` WebSocket as a web app would, with its limits (docs/server.md)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from game_client import play_hand, play_match

import scopa
from scopa.protocol import schema

pytest.importorskip("uvicorn")
pytest.importorskip("starlette")
from websockets.sync.client import ClientConnection, connect  # noqa: E402

VALIDATOR = jsonschema.Draft202012Validator(schema())
FULL = scopa.State.deal("scopone_scientifico", seed=5).to_string()
SMALL = "scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1"


class Server:
    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "scopa", "serve", "--port", "0", "--log-level", "warning", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line.startswith("scopa serve: listening on http://127.0.0.1:"), line + self.proc.stderr.read()
        self.base = line.split("listening on ")[1].strip()
        self.ws_url = self.base.replace("http://", "ws://") + "/ws"
        for _ in range(100):  # until uvicorn accepts
            try:
                self.get("/health")
                break
            except OSError:
                time.sleep(0.05)

    def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any], Any]:
        req = urllib.request.Request(self.base + path, headers=headers or {})
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, dict(r.headers), json.loads(r.read())

    def post(self, body: bytes | dict[str, Any]) -> tuple[int, dict[str, Any]]:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        req = urllib.request.Request(
            self.base + "/api", data=data, headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                status, reply = r.status, json.loads(r.read())
        except urllib.error.HTTPError as exc:
            status, reply = exc.code, json.loads(exc.read())
        VALIDATOR.validate(reply)
        return status, reply

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def server() -> Iterator[Any]:
    started: list[Server] = []

    def start(*args: str) -> Server:
        s = Server(*args)
        started.append(s)
        return s

    yield start
    for s in started:
        s.stop()


def ws_recv(ws: ClientConnection, timeout: float = 30) -> dict[str, Any]:
    reply = json.loads(ws.recv(timeout=timeout))
    VALIDATOR.validate(reply)
    return reply


def test_game_loop_over_http(server):
    s = server()
    status, _, health = s.get("/health")
    assert status == 200 and health["status"] == "ok" and health["version"] == scopa.__version__

    def ask(req: dict[str, Any]) -> dict[str, Any]:
        status, reply = s.post({**req, "id": "x"})
        assert status == 200 and "error" not in reply and reply["id"] == "x", reply
        return reply

    for game in ("scopa", "scopone_scientifico"):
        play_hand(ask, game, seed=3, player="greedy")
    play_match(ask, "scopa", target=3, seed=8)
    status, reply = s.post(b'{"cmd": "legal", "id": 1, "position": "nope"}')
    assert status == 400 and reply["error"]["type"] == "PositionError" and reply["id"] == 1


def test_game_loop_over_websocket_with_requests_in_flight(server):
    # Several requests in flight on one socket, replies matched by id: a cheap request sent
    # after a search is answered before it.
    s = server()
    with connect(s.ws_url) as ws:
        ws.send(json.dumps({"cmd": "solve", "id": "slow", "position": FULL, "time_ms": 1500}))
        ws.send(json.dumps({"cmd": "legal", "id": "quick", "position": SMALL}))
        first = ws_recv(ws)
        assert first["id"] == "quick" and first["moves"] == ["7dx3c4s", "Kc"]
        slow = ws_recv(ws)
        assert slow["id"] == "slow" and slow["exact"] is False

        counter = iter(range(10**6))

        def ask(req: dict[str, Any]) -> dict[str, Any]:
            req_id = next(counter)
            ws.send(json.dumps({**req, "id": req_id}))
            reply = ws_recv(ws)
            assert reply["id"] == req_id and "error" not in reply, reply
            return reply

        play_hand(ask, "scopa", seed=21, player="pimc", time_ms=50)
        play_hand(ask, "scopone_scientifico", seed=22, player="greedy")


def wait_running(s: Server, n: int) -> None:
    deadline = time.monotonic() + 5
    while s.get("/health")[2]["searches_running"] < n and time.monotonic() < deadline:
        time.sleep(0.02)
    assert s.get("/health")[2]["searches_running"] == n


def test_a_client_that_disconnects_cancels_its_searches(server):
    s = server("--workers", "1")
    with connect(s.ws_url) as ws:
        ws.send(json.dumps({"cmd": "solve", "id": 1, "position": FULL, "time_ms": 8000}))
        ws.send(json.dumps({"cmd": "analyze", "id": 2, "position": FULL, "time_ms": 8000}))
        wait_running(s, 1)
    t0 = time.monotonic()
    while time.monotonic() - t0 < 5:
        h = s.get("/health")[2]
        if h["searches_running"] == 0 and h["searches_waiting"] == 0:
            break
        time.sleep(0.05)
    assert time.monotonic() - t0 < 2.0, "the disconnected client's searches went on"
    status, reply = s.post({"cmd": "solve", "id": 3, "position": SMALL})
    assert status == 200 and reply["value"] == 4  # the worker is free again


def test_stop_over_websocket(server):
    s = server()
    with connect(s.ws_url) as ws:
        ws.send(json.dumps({"cmd": "solve", "id": "long", "position": FULL, "time_ms": 9000}))
        time.sleep(0.5)
        ws.send(json.dumps({"cmd": "stop", "id": "s"}))
        replies = {r["id"]: r for r in (ws_recv(ws), ws_recv(ws))}
        assert replies["s"]["stopped"] == 1 and replies["long"]["exact"] is False
        assert replies["long"]["best"] is not None


def test_request_size_and_queue_limits(server):
    s = server("--workers", "1", "--max-queued", "2", "--max-in-flight", "3", "--max-request-bytes", "2000")
    big = json.dumps({"cmd": "legal", "id": 1, "position": "x" * 3000}).encode()
    status, reply = s.post(big)
    assert (
        status == 413
        and reply["error"]["type"] == "ProtocolError"
        and "2000 bytes" in reply["error"]["message"]
    )
    with connect(s.ws_url) as ws:
        ws.send(big.decode())
        assert "larger than 2000 bytes" in ws_recv(ws)["error"]["message"]
        ws.send(json.dumps({"cmd": "solve", "id": 0, "position": FULL, "time_ms": 5000}))
        wait_running(s, 1)
        for i in range(1, 4):  # 2 more wait for the worker; in flight: at most 3 on one connection
            ws.send(json.dumps({"cmd": "solve", "id": i, "position": FULL, "time_ms": 5000}))
        busy = ws_recv(ws)
        assert busy["id"] == 3 and busy["error"]["type"] == "Busy" and "in flight" in busy["error"]["message"]
        with connect(s.ws_url) as other:  # 1 running + 2 waiting: the queue is full for everyone
            other.send(json.dumps({"cmd": "solve", "id": "x", "position": FULL, "time_ms": 100}))
            reply = ws_recv(other)
            assert reply["error"]["type"] == "Busy" and "searches already wait" in reply["error"]["message"]
            other.send(json.dumps({"cmd": "ping", "id": "p"}))
            assert ws_recv(other) == {"id": "p", "pong": True}  # cheap requests still served
        ws.send(json.dumps({"cmd": "stop", "id": "s"}))
        got = [ws_recv(ws) for _ in range(4)]
        assert {r["id"] for r in got} == {0, 1, 2, "s"}


def test_cors_is_configurable(server):
    s = server("--cors", "http://app.example")
    _, headers, _ = s.get("/health", headers={"Origin": "http://app.example"})
    assert headers.get("access-control-allow-origin") == "http://app.example"
    _, headers, _ = s.get("/health", headers={"Origin": "http://other.example"})
    assert "access-control-allow-origin" not in {k.lower() for k in headers}
