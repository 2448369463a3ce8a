"""Every example in the README and on the documentation site runs: the ``python`` code blocks of
each page in order, in one namespace per page (blocks with ``>>>`` prompts as doctests, their
output checked; the others executed), the JavaScript clients of the tutorial and of the server page with Node
(the latter, and the server tutorial's curl lines, against a real server), and every `scopa` command
of the shell blocks through the CLI's parser."""

from __future__ import annotations

import doctest
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)


def blocks(page: Path, lang: str) -> list[tuple[int, str]]:
    text = page.read_text(encoding="utf-8")
    return [
        (text[: m.start()].count("\n") + 2, m.group(2)) for m in FENCE.finditer(text) if m.group(1) == lang
    ]


def pages_with(lang: str) -> list[Path]:
    return [p for p in PAGES if blocks(p, lang)]


@pytest.mark.parametrize("page", pages_with("python"), ids=lambda p: str(p.relative_to(ROOT)))
def test_python_examples_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # (run as a script is: a page's work under `if __name__ == "__main__":` runs, as the batch
    # tutorial's must be written for its worker processes; a newcomer's audit ran it unguarded)
    globs: dict[str, object] = {"__name__": "__main__"}
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    parser = doctest.DocTestParser()
    for line, code in blocks(page, "python"):
        where = f"{page.relative_to(ROOT)}:{line}"
        if ">>>" in code:
            test = parser.get_doctest(code, globs, where, str(page), line)
            result = runner.run(test, out=lambda s: sys.stdout.write(s), clear_globs=False)
            globs.update(test.globs)  # (a DocTest runs on a copy of the names it is given)
            assert result.failed == 0, f"a doctest example failed in {where}"
        else:
            exec(compile(code, where, "exec"), globs)  # noqa: S102 - the documentation's own examples


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_the_javascript_client_runs(tmp_path):
    page = ROOT / "docs" / "tutorials" / "javascript.md"
    (line, code), *_ = blocks(page, "js")
    script = tmp_path / "client.mjs"
    script.write_text(code, encoding="utf-8")
    out = subprocess.run(
        ["node", str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, SCOPA_PYTHON=sys.executable),
    )
    assert out.returncode == 0, out.stderr
    assert re.search(r"^points \d+-\d+ cards \d+-\d+$", out.stdout, re.M), out.stdout


def test_the_server_pages_clients_run_against_a_real_server(tmp_path):
    # found by a newcomer's walkthrough: docs/server.md's WebSocket client never ended (its socket
    # was left open: `node` waited for ever, printing nothing), and neither it nor the curl lines
    # of the server tutorial were run by any test; here they run as written, against a
    # `scopa serve` on a free port (the page's 8765 replaced by it)
    pytest.importorskip("uvicorn")
    node, curl = shutil.which("node"), shutil.which("curl")
    if node is None and curl is None:
        pytest.skip("neither Node.js nor curl is installed")
    server = subprocess.Popen(
        [sys.executable, "-m", "scopa", "serve", "--port", "0", "--log-level", "warning"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().split("listening on ")[1].strip()
        if node is not None:
            (_, code), *_ = blocks(ROOT / "docs" / "server.md", "js")
            script = tmp_path / "ws.mjs"
            script.write_text(code.replace("127.0.0.1:8765", url.split("//")[1]), encoding="utf-8")
            version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout
            flags = ["--experimental-websocket"] if int(version.lstrip("v").split(".")[0]) < 22 else []
            out = subprocess.run([node, *flags, str(script)], capture_output=True, text=True, timeout=60)
            assert out.returncode == 0, out.stderr
            assert re.fullmatch(r"played \S+; seat \d to move\n", out.stdout), out.stdout
        if curl is not None:
            lines = [
                line
                for _, code in blocks(ROOT / "docs" / "tutorials" / "server.md", "bash")
                for line in code.splitlines()
                if line.startswith("curl ")
            ]
            assert len(lines) == 2
            for line in lines:
                args = shlex.split(line.replace("http://127.0.0.1:8765", url))
                out = subprocess.run(args, capture_output=True, text=True, timeout=60)
                assert out.returncode == 0 and "error" not in json.loads(out.stdout), (line, out.stdout)
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_every_command_line_of_the_docs_is_one_the_cli_takes():
    # a newcomer's walkthrough tried each command of the docs' shell blocks by hand; this keeps
    # them right: every `scopa` command there (after a pipe, `&&` or `;` too, and with a `$(...)`
    # standing for a position) parses with the CLI's own parser, its command and options spelt so
    import argparse
    import contextlib
    import io

    from scopa.__main__ import build_parser

    position = "scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1"
    commands = []
    for page in [*PAGES, ROOT / "CONTRIBUTING.md"]:
        for line_no, code in blocks(page, "bash"):
            for i, line in enumerate(code.splitlines()):
                line = re.sub(r'"\$\([^)]*\)"', shlex.quote(position), line.split(" #")[0])
                for part in re.split(r"&&|;|\|", line):
                    if part.strip().startswith("scopa "):
                        commands.append((f"{page.relative_to(ROOT)}:{line_no + i}", part.strip()))
    assert len(commands) >= 10
    parser = build_parser()
    subcommands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    for where, command in commands:
        words = shlex.split(command)[1:]
        stderr = io.StringIO()
        try:
            with contextlib.redirect_stderr(stderr):
                parser.parse_args(words)
        except SystemExit as exc:
            assert not exc.code, f"{where}: {command!r}: {stderr.getvalue().strip()}"
        # each option as the parser spells it (argparse would take `--worker` for `--workers`)
        named = subcommands.get(words[0], parser) if words else parser
        spelt = {o for a in named._actions for o in a.option_strings}
        for word in words:
            if word.startswith("-") and word != "-":
                assert word.split("=")[0] in spelt, f"{where}: {command!r}: no option {word!r}"


def test_the_readme_is_a_front_page():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    setup = blocks(ROOT / "README.md", "bash")[0][1].splitlines()
    assert [line.split("#")[0].strip() for line in setup] == ["pip install . && scopa solve", "bash .ci/test"]
    for target in re.findall(r"\]\(([^)#]+)", text):  # every link of the README leads somewhere
        if not target.startswith("http"):
            assert (ROOT / target).exists(), target


def test_the_readme_strength_figures_are_the_documented_ones():
    """The README's strength section repeats figures of docs/benchmarks.md: each interval it quotes
    is there, and its ratings are the first (the current) rating table of each game there."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    bench = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    section = readme.split("## Strength", 1)[1].split("\n## ", 1)[0]
    intervals = re.findall(r"[+-]\d\.\d{3} \[[+-]\d\.\d{3}, [+-]\d\.\d{3}\]", section)
    assert len(intervals) >= 7
    for figure in intervals:
        assert figure in bench, figure
    for game in ("2-player Scopa", "Scopone scientifico"):
        row = re.search(rf"^\| {game} \|(.*)\|$", section, re.M)
        assert row, game
        ratings = [int(x) for x in row.group(1).split("|")]
        table = bench.split(f"| level | rating, {game} |", 1)[1].split("\n\n", 1)[0]
        documented = [int(r) for r in re.findall(r"^\| \d \| (\d+) \|", table, re.M)]
        assert ratings == documented, game


def test_the_command_line_reference_holds_every_command_and_option():
    # docs/cli.md is filled by the site's hook from the CLI's own parser: every command and every
    # option string of it is on the page, each command under its own heading
    pytest.importorskip("markdown")  # (docs/hooks.py is a MkDocs hook: the docs extra)
    import argparse
    import importlib.util

    from scopa.__main__ import build_parser

    spec = importlib.util.spec_from_file_location("scopa_docs_hooks", ROOT / "docs" / "hooks.py")
    assert spec is not None and spec.loader is not None
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert hooks.CLI_MARKER in page and "cli.md" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    text = hooks.on_page_markdown(page)
    assert hooks.CLI_MARKER not in text
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert len(commands.choices) >= 11
    for name, sub in commands.choices.items():
        start = text.index(f"\n## scopa {name}\n")
        section = text[start : text.find("\n## ", start + 1)]
        for action in sub._actions:
            for option in action.option_strings:
                assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", section), (name, option)
    assert re.search(r"(?<![\w-])--version(?![\w-])", text)


def test_the_records_page_example_record_is_a_real_one():
    # found by an audit: the example's score and annotation could not occur in its deal (the
    # page's JSON is elided with "...": what it shows is checked against the hand it names)
    import json

    import scopa

    text = (ROOT / "docs" / "records.md").read_text(encoding="utf-8")
    example = next(code for _, code in blocks(ROOT / "docs" / "records.md", "json"))
    hand = json.loads(example.replace('"..."', '"x"'))["hands"][0]
    m = scopa.Match("scopa", seed=3)
    while not m.hands:  # the page's Python example: the first legal move each time
        m.play(m.state.legal_moves()[0])
    real = m.record().hands[0]
    assert real.deal.to_string().startswith(hand["deal"].split("...")[0])
    shown = [p for p in hand["plays"] if p != "x"]
    assert [str(p) for p in real.plays[: len(shown)]] == shown
    assert list(real.score) == hand["score"] and f"Score {real.score[0]}-{real.score[1]}" in text
    for note in hand["annotations"]:  # a scopa where the page says so
        before = real.deal
        for p in real.plays[: note["play"]]:
            before = before.play(p)
        after = before.play(real.plays[note["play"]])
        assert note["comment"] == "a scopa" and before.table and not after.table


def test_every_public_module_is_on_an_api_page():
    # an audit found scopa.batch on no page: its docstrings and examples were never rendered
    import pkgutil

    import scopa

    shown = {
        m
        for page in (ROOT / "docs" / "api").glob("*.md")
        for m in re.findall(r"^::: ([\w.]+)", page.read_text(), re.M)
    }
    modules = {m.name for m in pkgutil.walk_packages(scopa.__path__, "scopa.")} - {
        "scopa.__main__",
        "scopa._startup",  # (the command's, as __main__ is: Ctrl-C while it starts)
        "scopa._threads",  # (the solver's and PIMC's helper threads: private)
        "scopa.version",
    }
    assert modules - shown == set(), "no API page shows these (docs/api/*.md)"


def test_every_library_name_the_docs_give_is_public_and_rendered():
    # the API pages render what each module's __all__ lists (mkdocs.yml: filters: public); a
    # name the prose gives a user (`scopa.records.annotated`, `scopa.batch.MAX_LOST`) must be one
    import importlib

    found = set()
    for page in PAGES:
        found |= set(re.findall(r"`(scopa(?:\.\w+)+)", page.read_text(encoding="utf-8")))
    found -= {"scopa.animate"}  # (the browser app's localStorage key, docs/app.md)
    assert len(found) > 50
    hidden = []
    for name in sorted(found):
        parts = name.split(".")
        i = len(parts)
        while True:
            try:
                module = importlib.import_module(".".join(parts[:i]))
                break
            except ImportError:
                i -= 1
        if i == len(parts):
            continue
        first = parts[i]
        if not hasattr(module, first) or first not in getattr(module, "__all__", [first]):
            hidden.append(name)
    assert hidden == [], "the docs name these, which are missing or not in their module's __all__"


def test_every_public_constant_has_a_docstring_the_api_pages_render():
    # found by a docs audit: the constants the prose names (`scopa.server.REQUEST_TIMEOUT`,
    # `scopa.batch.MAX_LOST`) had `#:` comments, which mkdocstrings does not read, so the API
    # pages (filters: public, no undocumented members) left them out; a string right after the
    # assignment is the attribute's docstring
    import ast

    checked, bare = [], []
    for path in sorted((ROOT / "src" / "scopa").rglob("*.py")):
        body = ast.parse(path.read_text(encoding="utf-8")).body
        public: list[str] = []
        for node in body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
            ):
                public = [e.value for e in node.value.elts]  # type: ignore[attr-defined]
        for i, node in enumerate(body):
            if isinstance(node, ast.Assign):
                targets = node.targets[0]
                names = (
                    [e.id for e in targets.elts]
                    if isinstance(targets, ast.Tuple)
                    else [getattr(targets, "id", "")]
                )
            elif isinstance(node, ast.AnnAssign):
                names = [getattr(node.target, "id", "")]
            else:
                continue
            for name in names:
                if name.isupper() and name in public:
                    after = body[i + 1] if i + 1 < len(body) else None
                    documented = isinstance(after, ast.Expr) and isinstance(
                        getattr(after, "value", None), ast.Constant
                    )
                    documented = documented and isinstance(after.value.value, str)  # type: ignore[union-attr]
                    checked.append(name)
                    if not documented:
                        bare.append(f"{path.relative_to(ROOT)}: {name}")
    assert len(checked) > 40 and {"REQUEST_TIMEOUT", "MAX_LOST", "MIN_SIZE", "COMMANDS"} <= set(checked)
    assert bare == [], "public constants without a docstring after their assignment"


def test_the_protocol_page_documents_the_match_and_the_events():
    # found by an app audit: engine-protocol.md named neither the match's fields nor the events'
    # (an app reads `scores`, `winner`, `hand_over`'s `points` to show the score: they were only
    # in the JSON Schema); and its way to a finished hand's categories and review runs as written
    import json

    import scopa
    from scopa.events import EVENT_FIELDS, EVENT_TYPES
    from scopa.protocol import Protocol, schema

    page = (ROOT / "docs" / "engine-protocol.md").read_text(encoding="utf-8")
    events = page.split("**Events.**", 1)[1].split("\n\n", 1)[0]
    for kind in EVENT_TYPES:
        said = re.search(rf"`{kind}` \(([^)]*)\)", events)
        assert said and re.findall(r"`(\w+)`", said.group(1)) == list(EVENT_FIELDS[kind]), kind
    described = page.split("**The match**", 1)[1].split("\n\n", 1)[0]
    match = schema()["$defs"]["match"]
    names = [*match["properties"], *match["properties"]["hands"]["items"]["properties"]]
    for name in names:
        assert f"`{name}`" in described, name

    engine = Protocol()

    def ask(req):
        reply = engine.handle(json.dumps(req))
        assert reply is not None and "error" not in reply, reply
        return reply

    m = ask({"cmd": "match_new", "rules": "scopa", "seed": 4, "target": 1})["match"]
    while True:  # the first legal move each time, to the end of the first hand
        before = m["position"]
        move = ask({"cmd": "legal", "position": before})["moves"][0]
        r = ask({"cmd": "match_play", "match": m, "move": move})
        m = r["match"]
        over = [e for e in r["events"] if e["type"] == "hand_over"]
        if over:
            break
    # the hand that play ended, beside the events (the match has dealt the next)
    final = ask({"cmd": "play", "position": before, "move": move})["position"]
    ended = r["hand_over"]
    assert ended["position"] == final and ended["score"] == {
        k: v for k, v in ask({"cmd": "score", "position": final}).items() if k != "id"
    }
    assert ended["score"]["points"] == over[0]["points"] == m["hands"][0]["points"]
    assert m["scores"] == over[0]["points"] and m["winner"] is not None
    hand = m["hands"][0]
    assert ended["record"] == {
        "format": "scopa-hand", "version": 1, "rules": m["rules"], "dealer": m["first_dealer"],
        "deal": hand["deal"], "plays": hand["plays"], "score": hand["points"],
    }  # fmt: skip
    review = ask({"cmd": "review", "record": ended["record"], "time_ms": 1})
    assert len(review["plays"]) == len(hand["plays"])
    record = ask({"cmd": "match_record", "match": m, "tags": {"Player0": "Ada"}})["record"]
    assert scopa.load_record(record) == scopa.Match.from_json(m).record({"Player0": "Ada"})


def test_the_protocol_pages_review_reply_names_its_required_fields():
    # A review: the review row's reply left out "rules", which 639c449 made a required field
    # of the reply (the records page showed it)
    from scopa.protocol import COMMANDS

    page = (ROOT / "docs" / "engine-protocol.md").read_text(encoding="utf-8")
    row = next(line for line in page.splitlines() if line.startswith('| `{"cmd": "review"'))
    reply = row.split(" | ")[1]
    for name in COMMANDS["review"].reply["required"]:
        assert f'"{name}":' in reply, name


def test_the_protocol_pages_requests_table_has_every_command_and_its_fields():
    # (svg came in after the table was written by hand: a command with no row is one no client
    # finds; each of its fields named in its row)
    from scopa.protocol import COMMANDS

    page = (ROOT / "docs" / "engine-protocol.md").read_text(encoding="utf-8")
    table = page.split("## Requests", 1)[1].split("\n\n", 2)[1]
    rows = {}
    for line in table.splitlines():
        found = re.match(r'\| `\{"cmd": "(\w+)"', line)
        if found:
            rows[found.group(1)] = line.split(" | ")[0]
    assert set(rows) == set(COMMANDS)
    searches = ("time_ms", "node_limit", "progress")
    for name, c in COMMANDS.items():
        for f in c.takes:
            if not (f in searches and "+ limits" in rows[name]):
                assert f"`{f}`" in rows[name] or f'"{f}":' in rows[name], (name, f)


def test_the_core_api_page_names_the_twins_own_helpers_rightly():
    # found by a docs audit: docs/api/core.md said the compiled core had "the same functions" as
    # the twin, whose parts rendered there hold minimax, node_info and other helpers of its own
    import importlib

    page = (ROOT / "docs" / "api" / "core.md").read_text(encoding="utf-8")
    said = page.split("has not:", 1)[1].split("and the like", 1)[0]
    helpers = re.findall(r"`(\w+)`", said)
    assert len(helpers) >= 6
    parts = [importlib.import_module(m) for m in re.findall(r"^::: (scopa_core\._twin\w*)", page, re.M)]
    for name in helpers:
        assert any(hasattr(p, name) for p in parts), name
    try:
        compiled = importlib.import_module("scopa_core._core")
    except ImportError:  # (a build without the core: nothing to compare with)
        return
    assert [n for n in helpers if hasattr(compiled, n)] == []


def test_the_design_notes_say_the_first_guess_runs_under_a_node_limit():
    # found by a docs audit: the design notes said the horizon search that gives solve's first
    # MTD(f) guess was skipped under a node_limit; the compiled core runs it (the twin has none)
    import scopa
    import scopa_core

    if scopa_core.IMPLEMENTATION != "cython":
        pytest.skip("the first guess from a horizon search is the compiled solver's")
    text = (ROOT / "docs" / "design-notes.md").read_text(encoding="utf-8")
    assert "under a `node_limit` it is skipped" not in text and "under a limit it runs too" in text
    s = scopa.State.from_string(
        "scopa QsJb/4d7c 5d7dQdKb 3c3dJs5bAd2sQbKs3s2b3b5sKd6s6d4s6bAb 4c5c6cAs4b/2dJdAc2cJcQcKc7s7b"
        " 0/0 1 1 0"
    )
    assert sum(len(h) for h in s.hands) + len(s.stock) >= 20  # (the guess's from 20 plays left)
    nodes = {}
    for plies in (6, 0):
        for limit in (None, 10**9):
            solver = scopa_core.Solver(16)
            solver.guess_plies = plies
            kw = {} if limit is None else {"node_limit": limit}
            exact, *_, n = solver.solve(s.masks, s.rules.core_options, s.rules.hand_size, **kw)
            assert exact
            nodes[plies, limit] = n
    assert nodes[6, 10**9] == nodes[6, None] != nodes[0, 10**9] == nodes[0, None]


def test_the_records_page_says_what_annotate_writes_for_a_hand(tmp_path):
    # found by a docs audit: the page read as if `--annotate` wrote a single hand's record back
    # as `scopa-hand` when it wrote a one-hand match record; Review.annotate gives back what it
    # is given (an API review: it refused a HandRecord, which review() takes), and since
    # 2026-12-07 `--annotate` writes what it read, as the page now says
    import scopa
    from scopa.records import HandRecord, MatchRecord, RecordError, load_record

    text = (ROOT / "docs" / "records.md").read_text(encoding="utf-8")
    assert "writes the format it read" in text and "gives back what it is given" in text
    deal = scopa.State.deal("scopa", seed=1)
    hand = deal.play(deal.legal_moves()[0]).record()
    played, rng = deal, random.Random(0)
    while not played.is_over:  # (a hand played at random: its review marks some plays)
        played = played.play(rng.choice(played.legal_moves()))
    source, out = tmp_path / "hand.json", tmp_path / "out.json"

    def annotate(source, out):
        review = [sys.executable, "-m", "scopa", "review", str(source), "--time", "0.02"]
        run = subprocess.run([*review, "--annotate", str(out)], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        return json.loads(out.read_text(encoding="utf-8"))

    played.record().save(source)
    assert json.loads(source.read_text(encoding="utf-8"))["format"] == "scopa-hand"
    written = annotate(source, out)
    assert written["format"] == "scopa-hand"
    marked = HandRecord.from_json(written)
    assert marked.plays == played.record().plays and marked.annotations, written
    match_source, match_out = tmp_path / "match.json", tmp_path / "match-out.json"
    MatchRecord(hand.rules, (played.record(),)).save(match_source)
    assert annotate(match_source, match_out)["format"] == "scopa-record"
    (again,) = load_record(match_out).hands
    assert again.plays == marked.plays and again.annotations
    review = scopa.review(hand, time_limit=0.02)
    annotated = review.annotate(MatchRecord(hand.rules, (hand,)))
    assert isinstance(annotated, MatchRecord) and annotated.hands[0].plays == hand.plays
    assert review.annotate(hand) == annotated.hands[0]
    other = deal.play(deal.legal_moves()[1]).record()
    with pytest.raises(RecordError, match="not the game reviewed"):
        review.annotate(other)
    with pytest.raises(RecordError, match="expected a scopa.MatchRecord"):
        review.annotate(deal)  # type: ignore[call-overload]
