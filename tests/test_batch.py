"""Batch work (scopa.batch, ``scopa batch``) on a local process pool and on a real Dask cluster
(a ``distributed.LocalCluster`` of 2 worker processes): the same values as one process, every
result once when a worker dies, a killed ``scopa batch`` resumed, the arena with a user's player."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import TWIN_RUN

import scopa
from scopa.arena import arena
from scopa.batch import BatchError, analyze_many, map_chunks, review_many, solve_many

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


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    c = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = distributed.Client(c)
    yield client
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
    with pytest.raises(BatchError, match="bad executor 'ftp://x'"):
        list(solve_many(items, executor="ftp://x"))


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


def test_a_killed_dask_worker_loses_nothing(cluster):
    # A worker is killed (its process, by pid) once the first result is in, so mid-run
    # whatever the machine's speed (a timer could fire after the run, in the next test).
    items = endgames(120, 3 if not TWIN_RUN else 2, seed=2)
    pids = list(cluster.run(os.getpid).values())
    got: list[Any] = []
    after_kill = 0
    for r in solve_many(items, executor=cluster.get_executor(), chunksize=2):
        if not got:
            os.kill(pids[0], signal.SIGKILL)
        else:
            after_kill += 1
        got.append(r["id"])
    assert sorted(got) == list(range(120)), "every result arrives exactly once"
    assert after_kill > 0
    # the nanny starts a new worker: wait for it, so that the next test has the whole cluster
    deadline = time.monotonic() + 60
    while True:
        now = list(cluster.run(os.getpid).values())
        if len(now) == 2 and pids[0] not in now:
            break
        assert time.monotonic() < deadline, f"the killed worker was not replaced: {now}"
        time.sleep(0.2)


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
