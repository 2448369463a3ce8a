"""Mutation testing: do the tests notice when a line of a module changes?

Each mutant changes one thing in one module of ``src/scopa`` (a comparison flipped, ``+`` for
``-``, ``and`` for ``or``, an ``if`` negated, a ``not`` dropped, an int one off, a bool flipped,
a ``return X`` made ``return None``, a ``raise`` made ``pass``; error messages, reprs and
annotations are left alone), and the tests given run against it with ``pytest -x``: a mutant
they pass *survived*, a sign that no test pins what the line does (or that the change is
equivalent: a bound no input reaches, a message's wording). The checkout is never written to:
the mutants are made in a copy of it in a temporary directory, with the compiled core this Python
imports (built in place, or installed from a wheel as CI does).

    python benchmarks/mutation.py src/scopa/scoring.py --tests tests/test_rules_spec.py --max 100
    python benchmarks/mutation.py src/scopa/notation.py --list
    python benchmarks/mutation.py src/scopa/notation.py --only 39,65 --tests tests/test_state.py

``--max N`` runs N mutants spread evenly over the module (the ids stay those of ``--list``, so a
mutant found to survive can be run again alone with ``--only``); ``--json FILE`` appends a line
a mutant; ``--env SCOPA_NO_EXTENSIONS=1`` runs the tests on the twin. A mutant whose tests run
past ``--timeout`` counts as killed (a mutant that hangs a test is noticed), so give the
timeout room on a loaded machine.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: What the copy leaves out: the repository's history, build products, caches.
SKIP = shutil.ignore_patterns(
    ".git",
    "build",
    "site",
    "__pycache__",
    ".hypothesis",
    "*.egg-info",
    ".benchmarks",
    ".mypy_cache",
    ".ruff_cache",
)

_FLIP_COMPARE: dict[type, type] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_FLIP_ARITHMETIC: dict[type, type] = {ast.Add: ast.Sub, ast.Sub: ast.Add}


@dataclass(frozen=True)
class Mutant:
    """One change: the source's bytes ``start:end`` (on line ``line``, in ``where``) replaced
    by ``text``."""

    id: int
    line: int
    where: str
    what: str
    start: int
    end: int
    text: str

    def apply(self, source: bytes) -> bytes:
        return source[: self.start] + self.text.encode() + source[self.end :]


class _Finder(ast.NodeVisitor):
    """The mutants of a module's source, in the order of the nodes visited."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.starts = [0]
        for line in source.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))
        self.found: list[tuple[int, int, int, str, str, str]] = []
        self.names: list[str] = []
        self.quiet = 0  # (inside a __repr__: its text is a message)

    def _span(self, node: ast.AST) -> tuple[int, int]:
        start = self.starts[node.lineno - 1] + node.col_offset  # type: ignore[attr-defined]
        end = self.starts[node.end_lineno - 1] + node.end_col_offset  # type: ignore[attr-defined]
        return start, end

    def _add(self, node: ast.AST, text: str, what: str) -> None:
        if not self.quiet:
            start, end = self._span(node)
            where = ".".join(self.names) or "<module>"
            self.found.append((start, end, node.lineno, where, what, text))  # type: ignore[attr-defined]

    def _source(self, node: ast.AST) -> str:
        start, end = self._span(node)
        return self.source[start:end].decode()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.names.append(node.name)
        self.quiet += node.name == "__repr__"
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self.visit(default)
        for statement in node.body:  # (not the annotations or decorators)
            self.visit(statement)
        self.quiet -= node.name == "__repr__"
        self.names.pop()

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.names.append(node.name)
        for statement in node.body:
            self.visit(statement)
        self.names.pop()

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        """An f-string is a message: left alone."""

    def visit_Raise(self, node: ast.Raise) -> None:
        self._add(node, "pass", "raise -> pass")  # (nothing inside: the message)

    def visit_Return(self, node: ast.Return) -> None:
        value = node.value
        if value is not None and not (isinstance(value, ast.Constant) and value.value is None):
            self._add(node, "return None", f"return {ast.unparse(value)[:50]} -> return None")
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        for i, op in enumerate(node.ops):
            new = _FLIP_COMPARE.get(type(op))
            if new is not None:
                ops = [*node.ops[:i], new(), *node.ops[i + 1 :]]
                changed = ast.Compare(left=node.left, ops=ops, comparators=node.comparators)
                what = f"{type(op).__name__} -> {new.__name__} in `{ast.unparse(node)[:60]}`"
                self._add(node, f"({ast.unparse(changed)})", what)
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        new = _FLIP_ARITHMETIC.get(type(node.op))
        if new is not None and not (isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)):
            changed = ast.BinOp(left=node.left, op=new(), right=node.right)
            what = f"{type(node.op).__name__} -> {new.__name__} in `{ast.unparse(node)[:60]}`"
            self._add(node, f"({ast.unparse(changed)})", what)
        self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        new = ast.Or if isinstance(node.op, ast.And) else ast.And
        changed = ast.BoolOp(op=new(), values=node.values)
        what = f"{type(node.op).__name__} -> {new.__name__} in `{ast.unparse(node)[:60]}`"
        self._add(node, f"({ast.unparse(changed)})", what)
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if isinstance(node.op, ast.Not):
            self._add(node, f"({self._source(node.operand)})", f"drop the not of `{ast.unparse(node)[:60]}`")
        self.generic_visit(node)

    def _negate(self, test: ast.expr, kind: str) -> None:
        self._add(test, f"(not ({self._source(test)}))", f"negate the {kind} `{ast.unparse(test)[:60]}`")

    def visit_If(self, node: ast.If) -> None:
        self._negate(node.test, "if")
        self.generic_visit(node)

    def visit_While(self, node: ast.While) -> None:
        self._negate(node.test, "while")
        self.generic_visit(node)

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self._negate(node.test, "conditional")
        self.generic_visit(node)

    def visit_comprehension(self, node: ast.comprehension) -> None:
        for test in node.ifs:
            self._negate(test, "filter")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        value = node.value
        if isinstance(value, bool):
            self._add(node, str(not value), f"{value} -> {not value}")
        elif isinstance(value, int):
            self._add(node, f"({value + 1})", f"{value} -> {value + 1}")
            self._add(node, f"({value - 1})", f"{value} -> {value - 1}")


def mutants(path: Path) -> list[Mutant]:
    """Every mutant of the module at ``path`` that compiles, numbered in source order."""
    source = path.read_bytes()
    finder = _Finder(source)
    finder.visit(ast.parse(source))
    out: list[Mutant] = []
    for start, end, line, where, what, text in sorted(finder.found, key=lambda f: (f[0], f[1], f[4])):
        m = Mutant(len(out), line, where, what, start, end, text)
        try:
            compile(m.apply(source), str(path), "exec")
        except SyntaxError:  # (a flip the grammar does not take where it stands)
            continue
        out.append(m)
    return out


def spread(found: list[Mutant], n: int | None) -> list[Mutant]:
    """``n`` of ``found`` taken evenly over the module (all of them when there are no more)."""
    if n is None or len(found) <= n:
        return found
    return [found[int(i * len(found) / n)] for i in range(n)]


def _with_compiled_core(target: Path) -> None:
    """Put the compiled core this Python imports into ``target`` (a copy's ``scopa_core``) when
    the checkout has none built in place (a wheel installed elsewhere, as in CI)."""
    spec = importlib.util.find_spec("scopa_core")
    for where in (spec.submodule_search_locations or []) if spec else []:
        for built in Path(where).glob("_core.*"):
            if built.suffix in (".so", ".pyd") and not (target / built.name).exists():
                shutil.copy2(built, target / built.name)


def run(
    module: str,
    tests: list[str],
    chosen: list[Mutant],
    timeout: float,
    env: dict[str, str],
) -> Iterator[tuple[Mutant, str, float, str]]:
    """Each mutant of ``chosen`` made in a copy of the checkout and ``tests`` run on it: the
    mutant, ``"killed"``, ``"killed (timeout)"`` or ``"survived"``, the seconds and pytest's
    last line."""
    with tempfile.TemporaryDirectory(prefix="scopa-mutation-") as tmp:
        copy = Path(tmp) / "repo"
        shutil.copytree(ROOT, copy, ignore=SKIP, symlinks=True)
        _with_compiled_core(copy / "scopa_core")
        target = copy / module
        pristine = target.read_bytes()
        run_env = dict(
            os.environ, PYTHONPATH=f"{copy / 'src'}{os.pathsep}{copy}", PYTHONDONTWRITEBYTECODE="1"
        )
        run_env.update(env)
        command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
        for m in chosen:
            target.write_bytes(m.apply(pristine))
            t0 = time.perf_counter()
            proc = subprocess.Popen(
                command,
                cwd=copy,
                env=run_env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            try:
                out, _ = proc.communicate(timeout=timeout)
                status = "survived" if proc.returncode == 0 else "killed"
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
                out, _ = proc.communicate()
                status = "killed (timeout)"
            finally:
                target.write_bytes(pristine)
            lines = out.decode(errors="replace").strip().splitlines()
            yield m, status, time.perf_counter() - t0, lines[-1] if lines else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "module", help="a module's path from the repository's root, e.g. src/scopa/scoring.py"
    )
    parser.add_argument(
        "--tests", nargs="+", default=["tests"], help="the test files to run (default: tests)"
    )
    parser.add_argument("--max", type=int, default=None, help="run this many mutants, spread over the module")
    parser.add_argument("--only", default="", help="run these mutants (ids of --list, comma-separated)")
    parser.add_argument("--list", action="store_true", help="list the mutants and run none")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds a mutant's tests may take")
    parser.add_argument("--json", type=Path, default=None, help="append a JSON line a mutant to this file")
    parser.add_argument("--env", nargs="*", default=[], help="NAME=VALUE set for the tests")
    args = parser.parse_args(argv)
    path = (ROOT / args.module).resolve()
    if not path.is_file() or path.suffix != ".py" or ROOT not in path.parents:
        parser.error(f"no module {args.module!r} in {ROOT}")
    module = str(path.relative_to(ROOT))
    found = mutants(path)
    if args.only:
        try:
            ids = {int(x) for x in args.only.split(",")}
        except ValueError:
            parser.error(f"--only {args.only!r}: expected mutant ids like 3,17")
        chosen = [m for m in found if m.id in ids]
    else:
        chosen = spread(found, args.max)
    if args.list:
        for m in chosen:
            print(f"#{m.id:<4d} line {m.line:<5d} {m.where:32s} {m.what}")
        print(f"{len(chosen)} of {len(found)} mutants")
        return 0
    env = {}
    for item in args.env:
        name, sep, value = item.partition("=")
        if not sep:
            parser.error(f"--env {item!r}: expected NAME=VALUE")
        env[name] = value
    survived = 0
    t0 = time.perf_counter()
    for m, status, seconds, last in run(module, args.tests, chosen, args.timeout, env):
        survived += status == "survived"
        print(f"#{m.id:<4d} line {m.line:<5d} {status:16s} {seconds:6.1f} s  {m.what}", flush=True)
        if args.json is not None:
            with args.json.open("a") as fh:
                fh.write(
                    json.dumps(
                        {
                            **asdict(m),
                            "module": module,
                            "status": status,
                            "seconds": round(seconds, 1),
                            "last": last,
                        }
                    )
                    + "\n"
                )
    print(
        f"{module}: {len(chosen)} of {len(found)} mutants run, {len(chosen) - survived} killed,"
        f" {survived} survived ({time.perf_counter() - t0:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
