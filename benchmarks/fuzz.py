"""Fuzzing campaign: the generators of tests/test_fuzz.py on many more inputs.

Runs ``--inputs`` inputs (default 100,000) across the four targets of tests/test_fuzz.py --
the parsers, the protocol in-process, the core (the twin and the compiled core, each in its own
subprocess, their results compared) and the stdio engine as a subprocess -- and prints a table
of target, inputs, accepted, rejected, other (and the same per parser and per core function).
Every target runs in worker subprocesses watched for crashes and hangs: a worker that dies (a
segfault) or stays silent for ``--hang`` seconds counts its current input as other, and the run
goes on from the next input. The two cores run the same inputs, each in its own workers; where
the compiled core disagrees with the twin (the reference) its row counts the input as other.
The engine's inputs are its request lines (a blank one is accepted when it gets no reply).
Exit status 1 when any input is other; the failures are shown grouped by cause, each with the
command that makes it again (``--replay TARGET:SEED:INDEX``: inputs are deterministic).

Usage: python benchmarks/fuzz.py [--inputs 100000] [--seed 1] [--jobs 2] [--show 5]
       python benchmarks/fuzz.py --replay core:1:12345
       python benchmarks/fuzz.py --replay engine:1:0:130   (a session shorter than 250 lines)
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import queue
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # before benchmarks/: its conftest is not the tests' one

import test_fuzz as fz  # noqa: E402

#: Shares of the inputs: the core's share runs on each core (two rows of the table).
SHARES = {"parsers": 0.35, "protocol": 0.22, "core": 0.15, "engine": 0.13}
CHUNK = {"parsers": 4000, "protocol": 1000, "core": 2500}
ENGINE_SESSION = 250  # lines per engine process (the last of a run takes what is left)


# ------------------------------------------------------------------------------ the workers


def worker(target: str, seed: int, start: int, count: int, core: str | None) -> None:
    """Run inputs ``start .. start + count - 1`` of ``target``, one JSON line per input:
    ``[index, kind, detail, sub-target, fingerprint]`` (the fingerprint for the core only),
    then ``["done"]``."""
    out = sys.stdout
    checker = fz.ProtocolChecker() if target == "protocol" else None
    mod = importlib.import_module(core) if core else None
    for i in range(start, start + count):
        fp = None
        if target == "parsers":
            name, arg = fz.parser_input(seed, i)
            outcome = fz.run_parser(name, arg)
            extra: Any = name
        elif target == "protocol":
            assert checker is not None
            line, info = fz.protocol_input(seed, i)
            outcome = checker.run(line, info)
            extra = None
        else:
            assert mod is not None
            case = fz.core_input(seed, i)
            outcome, fp = fz.call_core(case, mod)
            extra = case.fn
        out.write(json.dumps([i, outcome.kind, outcome.detail, extra, fp]) + "\n")
        out.flush()
    out.write(json.dumps(["done"]) + "\n")
    out.flush()


# ------------------------------------------------------------------------------- supervision


@dataclass
class Row:
    """One line of the table, and its failures: (reproducer, detail)."""

    name: str
    counts: Counter[str] = field(default_factory=Counter)
    others: list[tuple[str, str]] = field(default_factory=list)
    sub: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, repro: str, detail: str, sub: str | None = None) -> None:
        with self.lock:
            self.counts[kind] += 1
            if sub:
                self.sub[sub][kind] += 1
            if kind == fz.OTHER:
                self.others.append((repro, detail))


def sub_target(target: str, seed: int, index: int) -> str | None:
    """The parser or the core function input ``index`` calls (a sub-row of the table)."""
    if target == "parsers":
        return fz.parser_input(seed, index)[0]
    if target == "core":
        return fz.core_input(seed, index).fn
    return None


def supervise(
    target: str, seed: int, start: int, count: int, core: str | None, hang: float
) -> dict[int, tuple[str, str, Any, Any]]:
    """Run a chunk in worker subprocesses: restart after a crash or a hang (that input is
    other). Returns index -> (kind, detail, extra, fingerprint)."""
    results: dict[int, tuple[str, str, Any, Any]] = {}
    nxt = start
    end = start + count
    while nxt < end:
        cmd = [sys.executable, "-X", "faulthandler", str(Path(__file__).resolve()), "--worker", target]
        cmd += ["--seed", str(seed)]
        cmd += ["--start", str(nxt), "--count", str(end - nxt)] + (["--core", core] if core else [])
        with tempfile.TemporaryFile() as err:
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True, cwd=ROOT)
            lines: queue.Queue[str | None] = queue.Queue()

            def read(stream: Any = proc.stdout, sink: queue.Queue[str | None] = lines) -> None:
                for line in stream:
                    sink.put(line)
                sink.put(None)

            threading.Thread(target=read, daemon=True).start()
            finished = False
            failure = ""
            while True:
                try:
                    line = lines.get(timeout=hang)
                except queue.Empty:
                    proc.kill()
                    failure = f"hang: no result within {hang:.0f} s"
                    break
                if line is None:
                    break
                item = json.loads(line)
                if item == ["done"]:
                    finished = True
                    break
                i, kind, detail, extra, fp = item
                results[i] = (kind, detail, extra, fp)
                nxt = i + 1
            proc.wait()
            if finished:
                break
            err.seek(0)
            tail = err.read().decode("utf-8", "replace")[-3000:]
            if not failure:
                failure = f"crash: the worker exited with status {proc.returncode}"
            results[nxt] = (fz.OTHER, f"{failure}\n{tail}", sub_target(target, seed, nxt), None)
            nxt += 1
    return results


def session_lines(seed: int, k: int, count: int = ENGINE_SESSION) -> list[bytes]:
    """The request lines of engine session ``k``, ``count`` of them (a run's last session may
    be shorter than :data:`ENGINE_SESSION`)."""
    rng = fz.rng_for("engine", seed, k)
    lines = fz.engine_lines(rng, count, f"s{k}")
    if k % 20 == 3:  # now and then a line over MAX_LINE, and one of exactly MAX_LINE characters
        lines.insert(rng.randrange(len(lines)), b'{"cmd":"ping","pad":"' + b"x" * (fz.proto.MAX_LINE + 10))
        body = b'{"cmd":"ping","id":"max","x":"'
        lines.insert(rng.randrange(len(lines)), body + b"x" * (fz.proto.MAX_LINE - len(body) - 2) + b'"}')
    return lines


def session_sizes(total: int) -> list[int]:
    """The lines of each engine session of a run of ``total`` engine lines: sessions of
    :data:`ENGINE_SESSION`, the last one what is left (``--inputs 10`` played one of 250).

    >>> session_sizes(1), session_sizes(250), session_sizes(390)
    ([1], [250], [250, 140])
    """
    return [min(ENGINE_SESSION, total - start) for start in range(0, total, ENGINE_SESSION)]


def session_repro(seed: int, k: int, count: int) -> str:
    """The ``--replay`` of engine session ``k`` of ``count`` lines."""
    return f"--replay engine:{seed}:{k}" + ("" if count == ENGINE_SESSION else f":{count}")


def run_engine_sessions(seed: int, sessions: range, row: Row, sizes: list[int]) -> None:
    for k in sessions:
        run = fz.run_engine(session_lines(seed, k, sizes[k]), f"engine session {k}")
        for kind in (fz.ACCEPTED, fz.REJECTED, fz.OTHER):
            with row.lock:
                row.counts[kind] += run.tally.counts[kind]
        for _, detail in run.tally.others:
            with row.lock:
                row.others.append((session_repro(seed, k, sizes[k]), detail))


# ------------------------------------------------------------------------------------ replay


def full(obj: Any) -> str:
    """The whole ``repr`` of an input (ints of any length; the shortened one when it nests too
    deep for ``repr``). Only called once the input has run: the limit it lifts is Python's."""
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)
    try:
        return repr(obj)
    except RecursionError:
        return fz.lit(obj, 20_000) + "  # shortened: it nests too deep to print"


def replay(spec: str) -> int:
    """Make input TARGET:SEED:INDEX again (an engine session of other than 250 lines,
    engine:SEED:INDEX:LINES), run it here, and show it in full."""
    target, seed_s, index_s, *count_s = spec.split(":")
    seed, index = int(seed_s), int(index_s)
    if target == "parsers":
        name, arg = fz.parser_input(seed, index)
        outcome = fz.run_parser(name, arg)
        print(f"{name}({full(arg)})")
    elif target == "protocol":
        line, info = fz.protocol_input(seed, index)
        outcome = fz.ProtocolChecker().run(line, info)
        how = "parse, then execute with an info callback" if info else "handle"
        print(f"scopa.protocol.Protocol(max_time={fz.MAX_TIME}) ({how}): {full(line)}")
    elif target == "core":
        outcomes = fz.run_core(lambda: fz.core_input(seed, index), fz.CORES)
        print(fz.core_input(seed, index).repro("core", full))
        for name, o in outcomes.items():
            print(f"{name}: {o.kind}\n{o.detail}")
        return 1 if any(o.kind == fz.OTHER for o in outcomes.values()) else 0
    elif target == "engine":
        lines = session_lines(seed, index, int(count_s[0]) if count_s else ENGINE_SESSION)
        path = Path(tempfile.gettempdir()) / f"scopa-engine-{seed}-{index}.bin"
        path.write_bytes(b"\n".join(fz.engine_reads(lines)) + b"\n" + fz.LAST_PING + b"\n")
        print(f"{' '.join(fz.ENGINE)} < {path}")
        run = fz.run_engine(lines)
        print(run.tally.failures(20))
        return 1 if run.tally.counts[fz.OTHER] else 0
    else:
        raise SystemExit(f"unknown target {target!r}: expected parsers, protocol, core or engine")
    print(f"{outcome.kind}\n{outcome.detail}")
    return 1 if outcome.kind == fz.OTHER else 0


# -------------------------------------------------------------------------------------- main


def signature(detail: str) -> str:
    """What groups failures of one cause: the innermost frame outside the fuzzer and the
    exception's type; for two cores that differ, what each did (values left out)."""
    frames = re.findall(r'File "([^"]*)", line (\d+)', detail)
    inner = [f"{Path(f).name}:{n}" for f, n in frames if "test_fuzz" not in f and "benchmarks" not in f]
    lines = [ln for ln in detail.strip().splitlines() if ln.strip()] or [""]
    if lines[0].startswith(("crash:", "hang:")):
        return lines[0]
    if frames:
        return f"{inner[-1] if inner else '-'} {lines[-1].split(':')[0]}"
    differ = re.search(r"the twin (.*); the (\w+) core (.*)$", lines[0])
    if differ:
        sides = []
        for side in (differ.group(1), differ.group(3)):
            side = "returned ..." if side.startswith("returned") else re.sub(r"\d+", "N", side)[:70]
            sides.append(side)
        return f"twin {sides[0]}; {differ.group(2)} {sides[1]}"
    return re.sub(r"\d+", "N", re.sub(r"'\w+' object", "'...' object", lines[0]))[:100]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--inputs", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=max(1, min(2, os.cpu_count() or 1)))
    ap.add_argument("--show", type=int, default=5, help="failures shown per cause")
    ap.add_argument("--hang", type=float, default=60.0, help="seconds without a result that make a hang")
    ap.add_argument("--replay", metavar="TARGET:SEED:INDEX")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--count", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--core", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args.worker, args.seed, args.start, args.count, args.core)
        return 0
    # (checked before the campaign: --inputs 0 or -5 ran some 250 inputs under a header saying 0,
    # --jobs 0 ended in the thread pool's ValueError, --hang 0 counted every input a hang, and a
    # --replay without three parts or with a word for a number in an unpacking's ValueError)
    if args.replay is not None:
        parts = args.replay.split(":")
        lines = len(parts) == 4 and parts[0] == "engine" and parts[3].isdigit() and int(parts[3]) >= 1
        if not (len(parts) == 3 or lines) or not all(p.isdigit() for p in parts[1:]):
            ap.error(
                f"bad --replay {args.replay!r}: expected TARGET:SEED:INDEX, like core:1:12345"
                " (engine:SEED:INDEX:LINES for an engine session shorter than 250 lines)"
            )
        return replay(args.replay)
    if args.inputs < 1:
        ap.error(f"bad --inputs {args.inputs}: expected an int >= 1")
    if not 1 <= args.jobs <= 256:
        ap.error(f"bad --jobs {args.jobs}: expected an int in 1..256")
    if not (args.hang > 0 and math.isfinite(args.hang)):
        ap.error(f"bad --hang {args.hang}: expected seconds, a number > 0")
    if args.show < 0:
        ap.error(f"bad --show {args.show}: expected an int >= 0")
    if args.seed < 0:
        ap.error(f"bad --seed {args.seed}: expected an int >= 0")

    t0 = time.perf_counter()
    cores = [m.__name__ for m in fz.CORES]
    n = {t: max(1, int(args.inputs * share)) for t, share in SHARES.items()}
    rows = {"parsers": Row("parsers"), "protocol": Row("protocol")}
    for c in cores:
        rows[c] = Row(f"core ({fz.CORE_NAMES[c]})")
    rows["engine"] = Row("engine (subprocess)")
    version, impl = fz.scopa.__version__, fz.scopa.CORE_IMPLEMENTATION
    print(f"scopa {version}, {impl} core, seed {args.seed}, {args.inputs} inputs, {args.jobs} jobs")

    tasks: list[tuple[str, int, int, str | None]] = []
    for target in ("core", "protocol", "parsers"):
        for start in range(0, n[target], CHUNK[target]):
            count = min(CHUNK[target], n[target] - start)
            for core in cores if target == "core" else [None]:
                tasks.append((target, start, count, core))
    sizes = session_sizes(n["engine"])  # (so many lines: --inputs 10 played one session of 250)
    sessions = len(sizes)
    core_results: dict[str, dict[int, tuple[str, str, Any, Any]]] = defaultdict(dict)

    def run_task(task: tuple[str, int, int, str | None]) -> None:
        target, start, count, core = task
        results = supervise(target, args.seed, start, count, core, args.hang)
        if target == "core":
            assert core is not None
            core_results[core].update(results)
            return
        row = rows[target]
        for i, (kind, detail, extra, _) in sorted(results.items()):
            row.add(kind, f"--replay {target}:{args.seed}:{i}", detail, extra)

    with ThreadPoolExecutor(args.jobs) as pool:
        per = 8  # engine sessions per task, the tasks spread among the others
        engine = [range(k, min(sessions, k + per)) for k in range(0, sessions, per)]
        futures = []
        for k, task in enumerate(tasks):
            futures.append(pool.submit(run_task, task))
            if engine and k % 3 == 2:
                some = engine.pop(0)
                futures.append(pool.submit(run_engine_sessions, args.seed, some, rows["engine"], sizes))
        futures += [pool.submit(run_engine_sessions, args.seed, r, rows["engine"], sizes) for r in engine]
        for f in futures:
            f.result()

    # The core: each core's own outcome; a core that disagrees with the twin is other.
    ref = core_results.get("scopa_core._twin", {})
    for core in cores:
        for i, (kind, detail, fn, fp) in sorted(core_results[core].items()):
            if core != "scopa_core._twin" and kind != fz.OTHER and i in ref and ref[i][3] is not None:
                why = fz.disagreement(fn, ref[i][3], fp, fz.CORE_NAMES[core])
                if why:
                    kind, detail = fz.OTHER, f"the cores differ on {why}"
            rows[core].add(kind, f"--replay core:{args.seed}:{i}", detail, fn)

    elapsed = time.perf_counter() - t0
    print(f"\n{'target':<28}{'inputs':>9}{'accepted':>10}{'rejected':>10}{'other':>8}")
    total: Counter[str] = Counter()
    for row in rows.values():
        c = row.counts
        print(f"{row.name:<28}{sum(c.values()):>9}{c[fz.ACCEPTED]:>10}{c[fz.REJECTED]:>10}{c[fz.OTHER]:>8}")
        for sub, sc in sorted(row.sub.items()):
            print(
                f"  {sub:<26}{sum(sc.values()):>9}{sc[fz.ACCEPTED]:>10}{sc[fz.REJECTED]:>10}{sc[fz.OTHER]:>8}"
            )
        total += c
    print(
        f"{'total':<28}{sum(total.values()):>9}{total[fz.ACCEPTED]:>10}{total[fz.REJECTED]:>10}{total[fz.OTHER]:>8}"
    )
    print(f"\n{elapsed:.0f} s")

    if total[fz.OTHER]:
        print("\nFailures (other) by cause; make one again: python benchmarks/fuzz.py --replay ...")
        for row in rows.values():
            groups: dict[str, list[tuple[str, str]]] = defaultdict(list)
            for repro, detail in row.others:
                groups[signature(detail)].append((repro, detail))
            for sig, items in sorted(groups.items(), key=lambda kv: -len(kv[1])):
                print(f"\n[{row.name}] {len(items)} x {sig}")
                for repro, _ in items[: args.show]:
                    print(f"  {repro}")
                print("    " + items[0][1].strip().replace("\n", "\n    ")[-2500:])
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
