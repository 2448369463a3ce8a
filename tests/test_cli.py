"""The ``scopa`` command: a real subprocess, as users run it."""

from __future__ import annotations

import json
import subprocess
import sys

import scopa


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scopa", *args], capture_output=True, text=True, timeout=120)


def test_simulate():
    out = run("simulate", "--game", "scopa", "--hands", "500", "--seed", "4")
    assert out.returncode == 0, out.stderr
    assert "500 random hands of scopa (seed 4)" in out.stdout
    assert f"{scopa.CORE_IMPLEMENTATION} core" in out.stdout
    total = [line for line in out.stdout.splitlines() if line.startswith("total")][0].split()
    p = scopa.random_playouts("scopa", 500, seed=4).mean_points()["total"]
    assert (float(total[1]), float(total[2])) == (round(p[0], 3), round(p[1], 3))


def test_deal_prints_round_tripping_formats():
    out = run("deal", "--game", "scopone", "--seed", "9", "--dealer", "2")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    s = scopa.State.from_json(json.loads(lines[-2]))
    assert s == scopa.State.from_string(lines[-1]) == scopa.State.deal("scopone", seed=9, dealer=2)


def test_bad_input_is_a_clear_error():
    out = run("deal", "--dealer", "9")
    assert out.returncode == 2 and "bad dealer 9" in out.stderr
    out = run("simulate", "--game", "poker")
    assert out.returncode == 2 and "invalid choice: 'poker'" in out.stderr


def test_bad_numbers_and_files_are_one_line_errors(tmp_path):
    # Found by an audit: each was a traceback, a silent default or a broken output.
    bad = tmp_path / "b.json"
    bad.write_bytes(b"\xff\xfe{}")
    cases = [
        (("play", "--game", "scopa", "--target", "0"), "bad target 0"),
        (("simulate", "--hands", "0"), "bad count '0': expected an integer in 1..2,147,483,647"),
        (("simulate", "--hands", "2147483648"), "bad count '2147483648'"),
        (("svg", "scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1", "--size", "0"), "bad size 0.0"),
        (("svg", "scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1", "--size", "nan"), "bad size nan"),
        (
            ("arena", "greedy", "random", "--jobs", "100000"),
            "bad count '100000': expected an integer in 1..256",
        ),
        (("arena", "greedy", "random", "--deals", "1000000000000"), "bad count '1000000000000'"),
        (("solve", str(bad)), "not UTF-8"),
        (("svg", str(bad)), "not UTF-8"),
    ]
    for args, message in cases:
        out = run(*args)
        assert out.returncode == 2 and "Traceback" not in out.stderr, (args, out.stderr)
        assert message in out.stderr, (args, out.stderr)
