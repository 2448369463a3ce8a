"""The engine protocol and the command line, driven as real subprocesses."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import scopa
from scopa.arena import ArenaResult, arena

EXAMPLE_JSON = {
    "rules": "scopone_scientifico",
    "hands": [["7d", "Kc"], ["As", "2b"], ["3c", "4d"], ["5s", "6b"]],
    "table": ["Qd"],
    "stock": [],
    "captured": [["Ad"], ["2d"]],
    "scope": [0, 1],
    "turn": 0,
    "last_capture": 1,
    "dealer": 3,
}
SMALL = "scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1"


def run(*args: str, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "scopa", *args], input=stdin, capture_output=True, text=True, timeout=timeout
    )


def test_engine_session_of_every_command():
    view = dict(EXAMPLE_JSON, hands=[["7d", "Kc"], 2, 2, 2], stock=0)
    requests = [
        {"cmd": "hello", "id": "h"},
        {"cmd": "legal", "id": 1, "position": SMALL},
        {"cmd": "play", "id": 2, "position": SMALL, "move": "7dx3c4s"},
        {"cmd": "solve", "id": 3, "position": EXAMPLE_JSON},
        {"cmd": "analyze", "id": 4, "position": SMALL},
        {"cmd": "bestmove", "id": 5, "view": view, "player": "pimc", "time_ms": 200, "seed": 1},
        {"cmd": "bestmove", "id": 6, "view": view, "player": "greedy"},
        {"cmd": "solve", "id": 7, "position": EXAMPLE_JSON, "node_limit": 3},
        {"cmd": "ping", "id": 8},
        {"cmd": "quit"},
        {"cmd": "hello", "id": "never answered"},
    ]
    out = run("engine", stdin="\n".join(json.dumps(r) for r in requests) + "\n")
    assert out.returncode == 0, out.stderr
    replies = {r["id"]: r for r in (json.loads(line) for line in out.stdout.splitlines())}
    assert sorted(replies, key=str) == sorted(["h", 1, 2, 3, 4, 5, 6, 7, 8], key=str)  # quit: no more
    hello, legal, play, solve, analyze = (replies[k] for k in ("h", 1, 2, 3, 4))
    best, greedy, limited = replies[5], replies[6], replies[7]
    assert hello["version"] == scopa.__version__ and hello["protocol"] == 2
    assert hello["presets"] == list(scopa.PRESETS) and hello["options"]["capture_rule"] == "free"
    assert legal == {"id": 1, "moves": ["7dx3c4s", "Kc"]}
    assert scopa.State.from_json(play["position"]) == scopa.State.from_string(SMALL).play("7dx3c4s")
    expected = scopa.solve(scopa.State.from_json(EXAMPLE_JSON))
    # the best move is one of the optimal ones (which, when several are, is the search's tie-break)
    optimal = {
        str(m) for m, v in scopa.analyze(scopa.State.from_json(EXAMPLE_JSON)).items() if v == expected.value
    }
    assert solve["value"] == expected.value and solve["best"] in optimal
    assert solve["exact"] and len(solve["pv"]) == 8 and solve["nodes"] > 0
    assert analyze["moves"] == {"7dx3c4s": 4, "Kc": 3} and analyze["exact"] and analyze["best"] == "7dx3c4s"
    assert best["move"] in ("7d", "Kc") and greedy["move"] in ("7d", "Kc")
    assert limited["lower"] <= expected.value <= limited["upper"]
    assert limited["best"] in ("7d", "Kc") and replies[8]["pong"] is True


@pytest.mark.parametrize(
    "line, kind, fragment",
    [
        ("this is not json", "ProtocolError", "not JSON"),
        ("[1, 2]", "ProtocolError", "JSON object"),
        ('{"cmd": "fly", "id": 9}', "UnknownCommand", 'unknown command "fly"'),
        ('{"cmd": "legal", "id": 9}', "ProtocolError", "needs a 'position'"),
        ('{"cmd": "legal", "id": 9, "position": "scopa 7d"}', "PositionError", "9 space-separated"),
        (
            '{"cmd": "legal", "id": 9, "position": {"rules": "scopa", "hands": [["7d"], ["7d"]], "turn": 0}}',
            "CardError",
            "duplicate card '7d'",
        ),
        (f'{{"cmd": "play", "id": 9, "position": "{SMALL}", "move": "Kcx3c"}}', "IllegalMoveError", "Kcx3c"),
        (f'{{"cmd": "play", "id": 9, "position": "{SMALL}", "move": "zz"}}', "InvalidMoveError", "'zz'"),
        (
            f'{{"cmd": "play", "id": 9, "position": "{SMALL}", "move": 7}}',
            "ProtocolError",
            "'move' must be a string",
        ),
        (
            '{"cmd": "legal", "id": 9, "position": {"rules": "poker", "hands": [], "turn": 0}}',
            "RulesError",
            "unknown game 'poker'",
        ),
        (
            '{"cmd": "bestmove", "id": 9, "view": {"rules": "scopa", "hands": [2, ["7d"]], "turn": 0}}',
            "PositionError",
            "seat to move",
        ),
        (
            '{"cmd": "bestmove", "id": 9, "player": "nobody", '
            '"view": {"rules": "scopa", "hands": [["7d"], 1], "turn": 0}}',
            "ProtocolError",
            "'player' must be one of random, greedy, pimc, ismcts, level1, level2, level3, level4, level5, "
            'level6, got "nobody"',
        ),
        (
            '{"cmd": "bestmove", "id": 9, "time_ms": -5, "view": {"rules": "scopa", "hands": [["7d"], 1], '
            '"turn": 0}}',
            "ProtocolError",
            "time_ms",
        ),
        (
            '{"cmd": "bestmove", "id": 9, "view": {"rules": "scopa", "hands": [["7d"], 1], "turn": 0, '
            '"history": 3}}',
            "PositionError",
            "bad history 3",
        ),
        (
            '{"cmd": "bestmove", "id": 9, "view": {"rules": "scopa", "hands": [["7d"], 1], "turn": 0, '
            '"history": [[5, "Kc"]]}}',
            "PositionError",
            "bad history entry [5, 'Kc']",
        ),
        (  # (an audit: said "bad move 'zz'" alone, not where)
            '{"cmd": "bestmove", "id": 9, "view": {"rules": "scopa", "hands": [["7d"], 1], "turn": 0, '
            '"history": [[1, "zz"]]}}',
            "InvalidMoveError",
            "bad history entry [1, 'zz']: bad move 'zz'",
        ),
        (  # (an audit: "only 1 cards are unaccounted for")
            '{"cmd": "bestmove", "id": 9, "view": {"rules": "scopa", "hands": [["7d"], 2], "turn": 0, '
            '"table": ["Ad","2d","3d","4d","5d","6d","Jd","Qd","Kd","Ac","2c","3c","4c","5c","6c","7c","Jc",'
            '"Qc","Kc","As","2s","3s","4s","5s","6s","7s","Js","Qs","Ks","Ab","2b","3b","4b","5b","6b","7b",'
            '"Jb","Qb"]}}',
            "PositionError",
            "the view hides 2 cards but only 1 card is unaccounted for",
        ),
        (
            '{"cmd": "bestmove", "id": 9, "view": {"rules": "scopa", "hands": [["7d"], 1], "turn": 0, '
            '"table": ["Kc"], "history": [[1, "Kcx2c"]]}}',
            "PositionError",
            "the played card must now be on the table",
        ),
        (
            '{"cmd": "bestmove", "id": 9, "view": {"rules": "scopa", "hands": [["7d"], 1], "turn": 0, '
            '"table": ["Kc"], "history": [[1, "Kc"], [0, "Kc"]]}}',
            "PositionError",
            "played once",
        ),
        (
            '{"cmd": "bestmove", "id": 9, "view": {"rules": "scopa", "hands": [["7d"], 1], "turn": 0, '
            '"history": [[1, "Zz"]]}}',
            "InvalidMoveError",
            "'Zz'",
        ),
    ],
)
def test_engine_errors_keep_it_serving(line, kind, fragment):
    out = run("engine", stdin=line + '\n{"cmd": "hello", "id": "after"}\n')
    assert out.returncode == 0, out.stderr
    error, after = (json.loads(x) for x in out.stdout.splitlines())
    assert error["error"]["type"] == kind and fragment in error["error"]["message"]
    assert error["id"] in (9, None) and after["id"] == "after"


def test_solve_command_default_example_and_json():
    out = run("solve")
    assert out.returncode == 0, out.stderr
    assert "Principal variation" in out.stdout and "Every legal move" in out.stdout
    from scopa.__main__ import EXAMPLE

    r = scopa.solve(scopa.State.from_string(EXAMPLE))
    assert f"Value: {r.value:+d}" in out.stdout
    # one line in a pipe too (rich wrapped it at 80 columns, mid-parenthesis: a newcomer's audit)
    line = next(x for x in out.stdout.splitlines() if x.startswith("Value: "))
    assert line.endswith(" ms)") and "best move " in line, line
    js = run("solve", "--json", SMALL)
    data = json.loads(js.stdout)
    assert data["value"] == 4 and data["best"] == "7dx3c4s" and data["moves"] == {"7dx3c4s": 4, "Kc": 3}
    assert [(x["move"], x["value"], x["exact"]) for x in data["lines"]] == [
        ("7dx3c4s", 4, True),
        ("Kc", 3, True),
    ]
    # stopped early, each move's bounds and estimate (an audit: the text said them, the JSON
    # had only nulls)
    data = json.loads(run("solve", "--json", "--nodes", "1", SMALL).stdout)
    assert data["exact"] is False and data["moves"] == {"7dx3c4s": None, "Kc": None}
    # (an audit: the engine's replies and batch's lines give the depth searched, this did not)
    bigger = "scopa 7dKc3b/2cAs5d 3c4s 6c7sQb3d4d2b -/- 0/0 0 - 1"
    deep = json.loads(run("solve", "--json", "--nodes", "300", bigger).stdout)
    fresh = scopa.Solver().analyze(scopa.State.from_string(bigger), node_limit=300)
    assert not deep["exact"] and deep["depth"] == fresh.depth > 0, (deep, fresh)
    for x in data["lines"]:
        assert x["value"] is None and x["exact"] is False and x["lower"] <= x["estimate"] <= x["upper"], x
    assert {x["move"] for x in data["lines"]} == {"7dx3c4s", "Kc"}


def test_solve_command_reads_files_and_json(tmp_path):
    f = tmp_path / "p.json"
    f.write_text(json.dumps(EXAMPLE_JSON))
    a = json.loads(run("solve", "--json", str(f)).stdout)
    b = json.loads(run("solve", "--json", json.dumps(EXAMPLE_JSON)).stdout)
    # (the time, and the depth and nodes: the exact search is tried first for a short time,
    # which the twin on a loaded machine may run out of, then deepens to the same value)
    timed = {"seconds": a["seconds"], "depth": a["depth"], "nodes": a["nodes"]}
    assert a["exact"] and b["exact"] and a == dict(b, **timed)
    assert a["value"] == scopa.solve(scopa.State.from_json(EXAMPLE_JSON)).value
    bad = run("solve", "scopa 7d/7d - - -/- 0/0 0 - -")
    assert bad.returncode == 2 and "duplicate card '7d'" in bad.stderr


def test_arena_command():
    out = run("arena", "greedy", "random", "--game", "scopa", "--deals", "10", "--seed", "3")
    assert out.returncode == 0, out.stderr
    assert "10 duplicate deals (20 hands)" in out.stdout and "95% CI" in out.stdout
    assert out.stdout.startswith("Scopa: 10 duplicate") and out.stderr == ""  # (no progress bar's empty line)
    refused = run("arena", "greedy", "random", "--game", "scopa", "--deals", "2", "--seed", "-1")
    assert refused.returncode == 2 and refused.stderr.endswith(
        "scopa arena: error: argument --seed: bad seed '-1': expected an integer in 0..2**64-1\n"
    )  # (an audit: the one option refused after argparse, without the usage and in other words)
    assert refused.stderr.startswith("usage: scopa arena")
    for command in (("deal",), ("simulate",), ("play",)):
        for bad in ("x", "-1", str(1 << 64), "1e3"):
            out = run(*command, "--seed", bad)
            expected = f"bad seed '{bad}': expected an integer in 0..2**64-1"
            assert out.returncode == 2 and expected in out.stderr, out.stderr
    assert run("deal", "--game", "scopa", "--seed", str((1 << 64) - 1)).returncode == 0
    # --json: the result alone on stdout, as ArenaResult.to_json writes it (the bar on stderr)
    out = run("arena", "greedy", "random", "--game", "scopa", "--deals", "10", "--seed", "3", "--json")
    assert out.returncode == 0, out.stderr
    got = ArenaResult.from_json(json.loads(out.stdout))
    expected = arena("scopa", "greedy", "random", deals=10, seed=3)
    assert got == expected  # (the times differ: == leaves them out)
    assert out.stdout.count("\n") == 1


def test_arena_command_takes_players_with_options_as_the_results_name_them():
    # a researcher's audit: `scopa arena` took only names; a side is now also spelt as the
    # results name it, NAME(option=value, ...), and gives the API's result for (name, options)
    spec = "pimc(samples=4, time_limit=None)"
    out = run("arena", spec, "greedy", "--game", "scopa", "--deals", "3", "--seed", "5", "--json")
    assert out.returncode == 0, out.stderr
    got = ArenaResult.from_json(json.loads(out.stdout))
    expected = arena("scopa", ("pimc", {"samples": 4, "time_limit": None}), "greedy", deals=3, seed=5)
    assert got == expected
    assert got.names == (spec, "greedy")
    for bad, said in [
        ("pimc(1)", "bad player 'pimc(1)': expected a name (random, greedy"),
        ("chess(depth=3)", "bad player 'chess(depth=3)'"),
        ("__import__('os')", "bad player \"__import__('os')\""),
        ("pimc(samples=10**3)", "bad player 'pimc(samples=10**3)'"),  # (literals only)
        ("pimc(samples=4", "bad player 'pimc(samples=4'"),
        ("pimc(**{'a': 1})", "bad player"),
    ]:
        out = run("arena", bad, "greedy", "--deals", "1")
        assert out.returncode == 2 and "argument a: " + said in out.stderr, out.stderr
    # the player's own checks, after the parser's
    out = run("arena", "pimc(samples=-1)", "greedy", "--game", "scopa", "--deals", "1")
    assert out.returncode == 2 and "bad samples -1: expected an int >= 1" in out.stderr, out.stderr


def test_play_command_through_a_match():
    # A short match against the greedy computer: numbers, notation, hint, undo, errors.
    script = ["hint", "1", "undo", "zz", "99"] + ["1"] * 400
    out = run(
        "play",
        "--game",
        "scopa",
        "--opponent",
        "greedy",
        "--seed",
        "4",
        "--target",
        "3",
        stdin="\n".join(script) + "\n",
    )
    assert out.returncode == 0, out.stderr
    assert "hint:" in out.stdout and "Hand score" in out.stdout
    assert "bad move 'zz'" in out.stdout and ("You win" in out.stdout or "The computer wins" in out.stdout)


def test_engine_view_history_feeds_pimc_inference():
    # The opponent (seat 1) laid down the ace of swords while the settebello lay on the table:
    # with the history in the view PIMC infers it holds no seven (RULES §4), without it it cannot.
    from scopa.engine import Engine
    from scopa.notation import view_from_json
    from scopa.players.inference import OpponentModel, hand_posterior

    view = {
        "rules": "scopa",
        "hands": [["3s", "4b"], 2],
        "table": ["7d", "Jb", "2c", "As"],
        "stock": 12,
        "turn": 0,
        "dealer": 1,
    }
    with_history = dict(view, history=[[0, "2c"], [1, "As"]])
    assert hand_posterior(view_from_json(view), OpponentModel()) is None
    hands, weights = hand_posterior(view_from_json(with_history), OpponentModel())
    sevens = sum(1 << (10 * suit + 6) for suit in range(4))
    assert sum(w for h, w in zip(hands, weights, strict=True) if h & sevens) < 0.05
    # a history the rules cannot have produced (the ace "captured" nothing it could) is ignored
    odd = dict(view, table=["7d", "Jb", "2c"], captured=[[], ["As", "Kc"]], last_capture=1)
    odd["history"] = [[0, "2c"], [1, "AsxKc"]]
    assert hand_posterior(view_from_json(odd), OpponentModel()) is None
    reply = Engine().handle(json.dumps({"cmd": "bestmove", "id": 1, "view": with_history, "seed": 3}))
    assert reply is not None and reply["id"] == 1 and isinstance(reply["move"], str)
