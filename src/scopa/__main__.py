"""The ``scopa`` command (also ``python -m scopa``).

Subcommands:
  solve      solve a position exactly (a built-in end position when none is given)
  play       play a match against the computer in the terminal
  replay     replay a game record, or print it as text
  review     what every play of a recorded game cost
  arena      computer players against each other on duplicate deals
  engine     the JSON-lines engine protocol on stdin/stdout (docs/engine-protocol.md)
  serve      the same protocol over HTTP and WebSocket, and the browser app
  batch      solve, analyze or review JSON lines in parallel, on a Dask cluster too
  simulate   random hands inside the core, mean points per category
  deal       deal a hand and print it, its JSON and its position string
  svg        draw a position as SVG
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import errno
import io
import json
import logging
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from rich.console import Console, ConsoleDimensions
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

import scopa
from scopa import _startup, jsonio
from scopa.arena import MAX_DEALS, MAX_JOBS
from scopa.errors import OptionError, PositionError, RulesError, ScopaError, count, show
from scopa.files import OutputError, failure_reason, read_limited, read_line, write_all, write_atomic
from scopa.players import PLAYERS, level_names
from scopa.protocol import DEFAULT_MAX_TIME, MAX_LINE
from scopa.review import DEFAULT_TIME, MAX_TIME_PER_PLAY
from scopa.simulate import MAX_HANDS
from scopa.solver import MAX_TT_MB
from scopa.terminal import (
    as_typed,
    cards_text,
    in_sentence,
    move_text,
    print_table,
    print_wrapped,
    suits_shown,
    text_shown,
)

#: The built-in example for ``scopa solve``: Scopone scientifico with four cards in each hand.
EXAMPLE = (
    "scopone_scientifico 7dJcQcKs/6d7c6s4b/2dQd4s7s/AdAs2s7b KdJb - "
    "5dJd6c3sJs3b5b6b/3d4dAc2c3c4c5cKc5sQsAb2bQbKb 0/7 0 0 3"
)


#: What a command's position argument may be.
POSITION_HELP = (
    "a file of a position (its JSON or a position string), - for standard input, a JSON string or a "
    "position string"
)

#: The largest position file read: a position's JSON holds at most 1,048,576 characters,
#: 4 bytes each at most in UTF-8.
MAX_POSITION_BYTES = 4 << 20


def parse_position(text: str | None) -> scopa.State:
    """A position from a file (of a JSON position or a position string), standard input
    (``-``), a JSON string or a position string (the example if None)."""
    if text is None:
        return scopa.State.from_string(EXAMPLE)
    # a file (/dev/stdin and other streams too, or a directory), or standard input as "-"
    # (scopa deal | tail -1 | scopa solve -; the batch's input reads - so too)
    if text == "-" or os.path.exists(text):
        where = "standard input" if text == "-" else f"the position file {text!r}"
        source = _stdin() if text == "-" else text
        try:  # (no more than a position's JSON may hold; a directory's error says it is one)
            data = read_limited(source, MAX_POSITION_BYTES)
        except OSError as exc:
            raise PositionError(f"cannot read {where}: {failure_reason(exc)}") from None
        return _position_in(data, where)
    try:
        return scopa.State.of(text)
    except ScopaError as exc:
        record = _is_record(text)
        if record:
            raise PositionError(f"the JSON given is {record}") from None
        if text.lstrip().startswith(("{", "[")) or " " in text.strip():
            raise  # (JSON text or a position string: its own error)
        raise PositionError(
            f"no position file {text!r} (No such file or directory), nor a position: {exc}"
        ) from None


def _stdin() -> Any:
    """Standard input's bytes (none when Python has no standard input: started without one)."""
    return sys.stdin.buffer if sys.stdin is not None else io.BytesIO()


def _position_in(data: bytes, where: str) -> scopa.State:
    """The position a file's bytes (or standard input's) hold, ``where`` naming them in errors."""
    try:
        content = data.decode("utf-8").lstrip("\ufeff").strip()  # (a byte order mark, a line's end)
    except UnicodeDecodeError as exc:
        raise PositionError(f"{where} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if not content:
        raise PositionError(f"{where} is empty: expected a JSON position or a position string")
    if "\n" in content and not content.startswith("{"):
        # (no position string spans lines: the file's text is not quoted whole in the error,
        # which repeated 200 characters of any file named, /etc/shadow's too)
        first = content.split("\n", 1)[0].strip()
        raise PositionError(
            f"{where} holds no position: {content.count(chr(10)) + 1} lines, expected a JSON position or "
            f"a position string on one line, as `scopa deal | tail -1` writes (its first line begins "
            f"{first[:40]!r})"
        )
    try:  # (a JSON position, or a position string as `scopa deal | tail -1` writes it)
        return scopa.State.of(content)
    except ScopaError as exc:
        record = _is_record(content)
        raise PositionError(f"{where} holds {record or f'no position: {exc}'}") from None


def _is_record(text: str) -> str:
    """What a game record's (or a match's) JSON is, said with where its positions are, or ""
    for other text (a teacher's audit gave solve a record: "unknown fields 'format', ...")."""
    if not text.lstrip().startswith("{"):
        return ""
    try:  # (the library's reading: its depth and size bounds, no RecursionError's traceback)
        obj = jsonio.loads(text)
    except ScopaError:
        return ""
    fmt = obj.get("format") if isinstance(obj, dict) else None
    if fmt == "scopa-match":
        return "a match, not a position: its 'position' field is the hand being played"
    if fmt not in ("scopa-record", "scopa-hand"):
        return ""
    what = "a game record" if fmt == "scopa-record" else "a hand's record"
    return (
        f"{what}, not a position: `scopa replay FILE --at N [--hand H]` gives the position after N "
        "plays of a saved game"
    )


# ---------------------------------------------------------------------------- solve

#: Default time limit of ``scopa solve``, seconds (``--time 0`` for none).
SOLVE_SECONDS = 10.0


def _stoppable(
    job: Callable[[scopa.StopFlag], Any], tick: Callable[[], None] | None = None
) -> tuple[Any, bool]:
    """Run ``job(stop)`` in a worker thread, calling ``tick()`` every 0.1 s while it runs; on
    Ctrl-C set the stop flag and take what the job has then. Returns the job's result and
    whether Ctrl-C stopped it."""
    stop = scopa.StopFlag()
    result: list[Any] = []
    failure: list[BaseException] = []
    done = threading.Event()  # (not Thread.join: a join that Ctrl-C interrupts may return early later)

    def work() -> None:
        try:
            result.append(job(stop))
        except BaseException as exc:  # re-raised in the main thread
            failure.append(exc)
        finally:
            done.set()

    threading.Thread(target=work, name="scopa-search", daemon=True).start()
    interrupted = False
    try:
        while not done.wait(0.1):
            if tick is not None:
                tick()
    except KeyboardInterrupt:
        interrupted = True
        stop.set()
        done.wait()
    if failure:
        raise failure[0]
    return result[0], interrupted


def _run_search(
    console: Console, job: Callable[[scopa.StopFlag, Callable[[Any], None]], Any]
) -> tuple[Any, bool]:
    """Run ``job(stop, progress)`` as :func:`_stoppable` does; show a progress line once it
    has run for a second. Returns the job's result and whether Ctrl-C stopped it."""
    latest: list[Any] = []
    t0 = time.perf_counter()
    status = None

    def tick() -> None:
        nonlocal status
        if time.perf_counter() - t0 > 1.0 and console.is_terminal:
            info = latest[-1] if latest else None
            text = "searching"
            if info is not None:
                best = info.best_move
                text = (
                    f"depth {info.depth}, {info.nodes:,} nodes, estimate {info.estimate:+.2f}, "
                    f"best {best}, bounds {info.lower:+d}..{info.upper:+d}"
                )
            if status is None:
                status = console.status(text)
                status.start()
            else:
                status.update(text)

    try:
        return _stoppable(lambda stop: job(stop, latest.append), tick)
    finally:
        if status is not None:
            status.stop()


def _solve(args: argparse.Namespace, console: Console) -> int:
    from scopa.events import play as play_events

    state = parse_position(args.position)
    solver = scopa.Solver(tt_size_mb=args.tt)

    def job(stop: scopa.StopFlag, progress: Callable[[Any], None]) -> tuple[Any, Any]:
        limit = scopa.Limit(time=args.time or None, nodes=args.nodes, stop=stop)
        analysis = solver.analyze(state, limit, progress=progress)
        # the principal variation, from the table the analysis filled (no new limit needed
        # when the analysis was exact; the stop flag still ends it)
        result = solver.solve(state, scopa.Limit(stop=stop)) if analysis.exact and not stop.is_set() else None
        return analysis, result

    (analysis, result), interrupted = _run_search(console, job)
    best = result.best_move if result is not None and result.best_move is not None else analysis.best_move
    value = result.value if result is not None else None
    pv = result.pv if result is not None else ()
    bv = analysis.moves[best] if best is not None else None
    if best is None:  # the hand is over
        value = state.score().difference(state.team_to_move)
    lower = value if value is not None else max(v.lower for v in analysis.moves.values())
    upper = value if value is not None else max(v.upper for v in analysis.moves.values())
    estimate = float(value) if value is not None else (bv.estimate if bv is not None else 0.0)
    order = sorted(analysis.moves.items(), key=lambda kv: -kv[1].estimate)
    if args.json:
        print(
            json.dumps(
                {
                    "position": state.to_string(),
                    "value": value,
                    "exact": value is not None,
                    "lower": lower,
                    "upper": upper,
                    "estimate": round(estimate, 4),
                    "depth": analysis.depth,
                    "best": None if best is None else str(best),
                    "pv": [str(m) for m in pv],
                    "nodes": analysis.nodes + (result.nodes if result is not None else 0),
                    "seconds": round(analysis.seconds + (result.seconds if result is not None else 0), 6),
                    "moves": {str(m): v.value for m, v in order},
                    # (each move's bounds and estimate, as the engine's analyze gives them: what a
                    # search stopped early has of the moves it did not solve; null in "moves")
                    "lines": analysis.lines(),
                }
            )
        )
        if interrupted:  # (the text says it in its result line; the JSON alone on stdout)
            print("stopped (Ctrl-C): the result printed is the best found by then", file=sys.stderr)
        return 130 if interrupted else 0
    team = state.team_to_move
    # (the options too: the values are a variant's rules'; the game by its name, not the preset's
    # identifier: a teacher's audit read "scopone_scientifico" in a header)
    game = state.rules.hand_rules().display_name
    if state.is_over:  # (nobody to move, no move to value: the hand's score)
        sc = state.score()
        console.print(f"[bold]{game}[/], the hand is over")
        console.print(f"Final score {sc.points[0]}-{sc.points[1]} (team 0 - team 1)")
        return 0
    console.print(f"[bold]{game}[/], seat {state.turn} (team {team}) to move")
    deck = suits_shown(console.encoding)
    # (each line wrapped under its first card, not at the first column: a teacher's audit)
    for seat, hand in enumerate(state.hands):
        print_wrapped(console, cards_text(hand, deck), f"  seat {seat}: ")
    print_wrapped(console, cards_text(state.table, deck), "  table:  ")
    # (what the value rests on besides: a teacher's audit read "Value: -4" over two hands and a
    # table, the stock, the piles and the scope unsaid)
    if state.stock:
        print_wrapped(console, cards_text(state.stock, deck).append(" (top first)"), "  stock:  ")
    if any(state.captured) or any(state.scope):
        taken = "; ".join(
            f"team {t} {count(len(state.captured[t]), 'card')}, {count(state.scope[t], 'scopa')}"
            for t in (0, 1)
        )
        print_wrapped(console, taken, "  taken:  ")
    nodes = analysis.nodes + (result.nodes if result is not None else 0)
    seconds = analysis.seconds + (result.seconds if result is not None else 0)
    if value is not None:
        console.print(
            f"Value: [bold]{value:+d}[/] for team {team} (final score difference), "
            f"best move [bold]{best}[/]  ({nodes:,} nodes, {seconds * 1000:.1f} ms)",
            soft_wrap=True,  # (one line: rich wrapped it at 80 columns in a pipe, mid-parenthesis)
        )
    else:
        why = "stopped (Ctrl-C)" if interrupted else "time or node limit reached"
        console.print(
            f"Not solved exactly ({why}): value between {lower:+d} and {upper:+d} for team {team}, "
            f"estimate {estimate:+.2f}, best move so far [bold]{best}[/]  "
            f"(depth {analysis.depth}, {nodes:,} nodes, {seconds:.1f} s)",
            soft_wrap=True,
        )
    if pv:
        table = Table()
        for col in ("play", "seat", "move", "table after"):
            table.add_column(col)
        s = state
        for i, move in enumerate(pv, 1):
            seat = s.turn
            s, events = play_events(s, move)
            # (a teacher's audit: a sweep and the last play's lay-down both read "-", the scopa
            # unmarked and the table's last cards gone unsaid; replay says both)
            after = cards_text(s.table, deck)
            for e in events:
                if e.type == "scopa":
                    after.append("  scopa!", style="bold")
                elif e.type == "table_to_last_capturer" and e.cards:
                    after.append("  (").append_text(cards_text(e.cards, deck))
                    after.append(f" go to team {e.team}, who took last)")
            table.add_row(str(i), str(seat), move_text(move, deck), after)
        print_table(console, "Principal variation", table)
        if s.is_over:
            sc = s.score()
            console.print(f"Final score {sc.points[0]}-{sc.points[1]} (team 0 - team 1)")
    moves = Table()
    moves.add_column("move")
    moves.add_column("value", justify="right")
    for move, v in order:
        moves.add_row(
            str(move), f"{v.value:+d}" if v.exact else f"{v.lower:+d}..{v.upper:+d} (~{v.estimate:+.2f})"
        )
    print_table(console, "Every legal move", moves)
    return 130 if interrupted else 0


# ---------------------------------------------------------------------------- play, replay, review


def _options(pairs: Sequence[str] | None) -> dict[str, Any]:
    """``name=value`` rule options from the command line (``true``/``false``, numbers, words)."""
    from scopa.rules import _BOOL_OPTIONS, _option_value

    out: dict[str, Any] = {}
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise RulesError(f"bad option {pair!r}: expected name=value, like capture_rule=fewest")
        key, value = key.strip(), value.strip()
        if key in out:
            raise RulesError(f"bad option {pair!r}: {key} is given twice")
        if value.lower() in ("true", "false"):
            value = value.lower()
        out[key] = _option_value(value)
        if key in _BOOL_OPTIONS and not isinstance(out[key], bool):
            raise RulesError(f"bad option {pair!r}: {key} is true or false")
    return out


def _play(args: argparse.Namespace, console: Console) -> int:
    from scopa.terminal import start

    if args.load is not None:
        given = [f"--game {args.game!r}"] if args.game else []
        given += [f"--target {args.target}"] if args.target is not None else []
        given += [f"--option {o!r}" for o in args.option or ()]
        if given:
            raise OptionError(f"{', '.join(given)}: not with --load, which keeps the record's rules")
    options = _options(args.option)
    if args.target is not None:
        if "target" in options:
            raise OptionError(f"--target {args.target} and --option target={options['target']}: give one")
        options["target"] = args.target
    rules = scopa.Rules.preset(args.game or "scopone_scientifico", **options)
    game = start(
        rules,
        seed=args.seed,
        seat=args.seat,
        partner=args.partner,
        opponent=args.opponent,
        deck=args.deck or suits_shown(console.encoding),
        save=args.save,
        load=args.load,
        console=console,
        ask=console.input if _interactive(sys.stdin) else _echoing(console),
    )
    return game.run()


def _interactive(stream: object) -> bool:
    """Whether ``stream`` is a terminal (False for a closed or missing one)."""
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):
        return False


#: The characters of a piped answer to ``play`` that are read: the rest of a longer line is read
#: and dropped, so that an endless one (``< /dev/zero``) fills no memory.
MAX_ANSWER = 1000


def _echoing(console: Console) -> Callable[[str], str]:
    """The game's prompt for answers piped in: each answer is written after its prompt, as a
    terminal shows what is typed (a piped game's output ran every answer's reply onto its
    prompt's line: "your move> bad move 'zz'..."); what the terminal cannot show, as ``?``, and
    control characters as a terminal echoes them (``^[``), never written raw."""
    encoding = console.encoding or "utf-8"

    def ask(prompt: str) -> str:
        console.print(prompt, end="")  # (as console.input does; its input() held a line whole)
        try:
            answer = read_line(sys.stdin, MAX_ANSWER)
        except UnicodeError as exc:  # (an encoding no error handler helps: utf-16 without its BOM)
            raise OptionError(f"cannot read standard input as {sys.stdin.encoding}: {exc}") from None
        if answer is None:
            raise EOFError
        shown = as_typed(answer).encode(encoding, "replace").decode(encoding)
        shown = "".join(f"^{chr(ord(c) ^ 0x40)}" if ord(c) < 32 or ord(c) == 127 else c for c in shown)
        console.print(shown, markup=False, highlight=False, emoji=False, soft_wrap=True)
        return answer

    return ask


def _record_json(name: str) -> Any:
    """The decoded JSON of the record file ``name``, or of standard input for ``-`` (as solve
    and svg read a position: a teacher's audit piped a record into replay)."""
    from scopa.records import MAX_RECORD_BYTES, RecordError, read_json, record_file

    if name != "-":
        return read_json(record_file(name))
    try:
        data = read_limited(_stdin(), MAX_RECORD_BYTES)
    except OSError as exc:  # (TooLarge too: its message says the most read)
        raise RecordError(f"cannot read the record on standard input: {failure_reason(exc)}") from None
    if not data.strip():
        raise RecordError("standard input is empty: expected a record (JSON)")
    return read_json(data.removeprefix(b"\xef\xbb\xbf"), "the record on standard input")


def _replay(args: argparse.Namespace, console: Console) -> int:
    from scopa.events import play as play_events
    from scopa.records import load_record, result_line

    if args.text and (args.at is not None or args.json):
        raise OptionError(
            "--text prints the record (or with --hand H, that hand) as text: not with --at or --json"
        )
    if args.json and args.at is None:
        raise OptionError("--json goes with --at N: it prints the position after N plays as JSON")
    record = load_record(_record_json(args.file))
    count_hands = len(record.hands)
    if not count_hands and (args.hand is not None or args.at is not None):  # (an audit: IndexError)
        given = "--hand" if args.hand is not None else "--at"
        raise OptionError(f"bad {given}: the record holds no hands, so no hand's plays to go to")
    if args.hand is not None and not 1 <= args.hand <= count_hands:
        held = count(count_hands, "hand")
        raise OptionError(f"bad --hand {args.hand}: the record holds {held} (1..{count_hands})")
    if args.text:  # (a teacher's audit: --text refused --hand; it prints that hand's block)
        sys.stdout.write(record.text(args.hand))
        return 0
    if args.at is not None:
        # (a position out of a saved game, for solve or svg: a teacher's audit found no way)
        hand = record.hands[(args.hand or 1) - 1]
        if not 0 <= args.at <= len(hand.plays):
            raise OptionError(
                f"bad --at {args.at}: hand {args.hand or 1} has {count(len(hand.plays), 'play')} "
                f"(0 is its deal, {len(hand.plays)} the position after its last play)"
            )
        state = hand.replay()[args.at]
        print(state.to_json() if args.json else state.to_string())
        return 0
    deck = suits_shown(console.encoding)
    names = record.seat_names()  # (its Player tags, as --text and review name the seats)
    n = record.rules.players
    for i, hand in enumerate(record.hands):
        if args.hand is not None and i != args.hand - 1:
            continue
        # (a teacher's audit: "dealt by You", "go to You and Your partner": the game's names are
        # words, said mid-sentence in lower case; a person's name keeps its capital)
        dealt = "dealer unknown" if hand.dealer is None else f"dealt by {in_sentence(names[hand.dealer])}"
        console.rule(f"hand {i + 1}, {dealt}")
        before = hand.deal
        for j, move in enumerate(hand.plays):
            after, events = play_events(before, move)  # (one pass: the position and its events)
            note = hand.annotations.get(j)
            # (a teacher's audit: the marks and comments of an annotated record, a scopa and
            # where the table's last cards went were said by --text and play, not here)
            line = Text(f"{j + 1:>2}. {names[before.turn]}: ").append_text(move_text(move, deck))
            if note is not None and note.mark:
                line.append(note.mark, style="bold")
            if any(e.type == "scopa" for e in events):
                line.append("  scopa!", style="bold")
            line.append("   table ").append_text(cards_text(after.table, deck))
            if note is not None and note.comment:
                line.append(f"   {{{note.comment}}}", style="dim")
            console.print(line)
            for e in events:
                if e.type == "table_to_last_capturer" and e.cards:
                    team = " and ".join(in_sentence(names[seat]) for seat in range(n) if seat % 2 == e.team)
                    console.print(
                        Text("    the table's last cards, ")
                        .append_text(cards_text(e.cards, deck))
                        .append(f", go to {team}, who took last")
                    )
            before = after
        if hand.score is not None:
            console.print(f"Score {hand.score[0]}-{hand.score[1]}")  # (as --text says it)
    if not record.hands:  # (it printed nothing, then "Match 0-0", which --text does not say)
        console.print("The record holds no hands: nothing to replay.")
    elif args.hand is None:  # (as --text: one hand's replay says nothing of the match's score)
        console.print(result_line(record), markup=False)  # (as --text ends)
    return 0


def _review(args: argparse.Namespace, console: Console) -> int:
    from scopa.records import HAND_FORMAT, check_writable, load_record
    from scopa.review import format_text, review

    obj = _record_json(args.file)
    record = load_record(obj)
    # (--annotate writes what it read: a hand's record for a hand's, as Review.annotate gives)
    hand_only = isinstance(obj, dict) and obj.get("format") == HAND_FORMAT[0]
    if args.annotate is not None:
        check_writable(args.annotate)  # (before the review, not after it)
    total = sum(len(h.plays) for h in record.hands)
    err = Console(stderr=True, highlight=False)
    with _progress(err, "[bold]reviewing") as bar:
        task = bar.add_task("review", total=total)
        # (Ctrl-C stops the review: what it reviewed is written, the rest said to be left out)
        result, interrupted = _stoppable(
            lambda stop: review(
                record,
                time_limit=args.time,
                limit=scopa.Limit(stop=stop),
                progress=lambda done, _: bar.update(task, completed=done),
            )
        )
    status = 130 if interrupted else 0
    reviewed = sum(p.reviewed for p in result.plays)
    if args.annotate is not None:
        result.annotate(record.hands[0] if hand_only else record).save(args.annotate)
        err.print(f"annotated record written to {args.annotate}", markup=False)
    if interrupted:
        err.print(f"stopped (Ctrl-C): {reviewed} of {count(total, 'play')} reviewed", markup=False)
    if args.json:
        print(json.dumps(result.to_json()))
        return status
    # (as the text export names the seats: an empty Player tag said ": 0.00 points lost", and a
    # name that is another seat's, "seat 0" for seat 1, gave two seats one name)
    names = record.seat_names()
    # (soft_wrap: a play's line whole, for grep and scripts: rich wrapped it at 80 columns in a pipe)
    console.print(text_shown(format_text(result, names), console.encoding), markup=False, soft_wrap=True)
    plays = f"{reviewed} of {count(total, 'play')}" if interrupted else count(total, "play")
    console.print(
        f"[dim]{plays} of {record.rules.display_name} reviewed in {result.seconds:.1f} s[/]",
        highlight=False,
        soft_wrap=True,
    )
    return status


# ---------------------------------------------------------------------------- arena, engine, misc


def _progress(console: Console, label: str) -> Progress:
    """A progress bar on ``console`` that goes when done, drawn only on a terminal (rich's
    left an empty line in a file or a pipe: an arena's output began with one). Elsewhere it is
    disabled and writes to a console of its own that nothing reads: rich before 14.3 wrote that
    line even for a disabled bar (scopa batch's errors began with it on rich 13)."""
    shown = console.is_terminal
    return Progress(
        TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=console if shown else Console(file=io.StringIO()), transient=True, disable=not shown,
    )  # fmt: skip


def _arena(args: argparse.Namespace, console: Console) -> int:
    from scopa.arena import ArenaInterrupted, arena, side_name

    err = Console(stderr=True, highlight=False)
    try:  # (with --json the bar goes to stderr: stdout holds the JSON alone)
        with _progress(err if args.json else console, "[bold]{task.description}") as bar:
            task = bar.add_task(f"{side_name(args.a)} vs {side_name(args.b)}", total=args.deals)
            result = arena(
                _game_rules(args),
                args.a,
                args.b,
                deals=args.deals,
                seed=args.seed,
                jobs=args.jobs,
                progress=lambda done, total: bar.update(task, completed=done),
            )
        status = 0
    except ArenaInterrupted as stopped:  # (Ctrl-C: the deals that finished are shown)
        if stopped.result is None:
            err.print(f"stopped (Ctrl-C) before any of the {args.deals} deals finished", markup=False)
            return 130
        err.print(f"stopped (Ctrl-C): {stopped.result.deals} of {args.deals} deals played", markup=False)
        if args.json:  # (marked as a run stopped early: "stopped": true, "deals_asked")
            print(json.dumps(stopped.to_json()))
            return 130
        result, status = stopped.result, 130
    if args.json:
        print(json.dumps(result.to_json()))
        return status
    t = Table()
    rows = [
        (
            result.names[i],
            f"{result.points[i]:.3f}",
            str(result.hand_wins[i]),
            str(result.pair_wins[i]),
            f"{result.seconds_per_move[i]:.4f}",
        )
        for i in (0, 1)
    ]
    # (a narrow terminal folds the names and the headings; a figure is never cut: at 40 columns
    # they read "3.7…" and "0.00…")
    for j, col in enumerate(("side", "points/hand", "hands won", "deals won", "s/move")):
        figure = max(len(row[j]) for row in rows) if j else None
        t.add_column(col, justify="right" if j else "left", overflow="fold", min_width=figure)
    for row in rows:
        t.add_row(*row)
    game = scopa.Rules.of(result.game).display_name
    title = f"{game}: {count(result.deals, 'duplicate deal')} ({count(result.games, 'hand')})"
    print_table(console, title, t)
    console.print(
        f"{result.names[0]} - {result.names[1]}: [bold]{result.diff:+.3f}[/] points per hand, "
        f"95% CI [{result.ci95[0]:+.3f}, {result.ci95[1]:+.3f}]"
    )
    return status


def _engine(args: argparse.Namespace, console: Console) -> int:
    from scopa.engine import serve
    from scopa.protocol import schema

    if args.schema:
        print(json.dumps(schema(), indent=2))
        return 0
    return serve(max_time=args.max_time or None)


def _batch(args: argparse.Namespace, console: Console) -> int:
    from scopa.batch import run_jsonl

    err = Console(stderr=True, highlight=False)
    if args.kind == "review" and args.time > MAX_TIME_PER_PLAY:
        most = f"(0, {MAX_TIME_PER_PLAY:g}]"
        raise OptionError(f"bad --time {args.time:g}: expected seconds a play in {most} for review")
    if args.kind == "review" and args.nodes is not None:
        raise OptionError(f"bad --nodes {args.nodes}: a review takes no node limit (its --time is per play)")
    if args.kind != "review" and args.seed:
        raise OptionError(
            f"bad --seed {args.seed}: {args.kind} is an exact search and takes no seed (review does)"
        )
    executor = args.scheduler
    if executor is not None:
        # a client that loses its scheduler logs its failed reconnections with tracebacks (Dask's
        # own logging set up by its import first), and its closed connection too (CI saw
        # distributed.batched's): the run ends with one line saying so. Every Dask logger but
        # those with a level of their own inherits distributed's
        with contextlib.suppress(ImportError):  # (without the extra: run_jsonl says so)
            import distributed  # noqa: F401

            for name in ("distributed", "distributed.client", "tornado.application"):
                logging.getLogger(name).setLevel(logging.CRITICAL)
    if args.output == "-":
        raise OptionError(
            "bad --output '-': expected a file name (results are appended to a file, so that a rerun"
            " resumes the run; standard output cannot be read back)"
        )
    src = args.input
    if src == "-":  # (standard input, as for cat and jq)
        src = "/dev/stdin"
        if not os.path.exists(src):
            raise OptionError("bad input '-': this system has no /dev/stdin to read standard input from")
    todo: list[int] = []  # (the jobs to do, once the run has begun)
    done = 0

    def started(total: int) -> None:
        todo.append(total)
        bar.update(task, total=total)

    def progress(_: Any) -> None:
        nonlocal done
        done += 1
        bar.advance(task)

    try:
        with _progress(err, f"[bold]{args.kind}") as bar:
            task = bar.add_task(args.kind, total=None)
            written, skipped, bad = run_jsonl(
                args.kind,
                src,
                args.output,
                executor=executor,
                workers=args.workers,
                time_limit=args.time or None,
                node_limit=args.nodes,
                chunksize=args.chunksize,
                seed=args.seed,
                bad_line=lambda n, why: print(f"{args.input}:{n}: skipped: {why}", file=sys.stderr),
                started=started,
                progress=progress,
            )
    except KeyboardInterrupt:  # (the results written stay: said, with how to go on, not silence)
        if not todo:
            print(f"stopped (Ctrl-C) before the run began: nothing written to {args.output}", file=sys.stderr)
        else:
            print(
                f"stopped (Ctrl-C): {done} of {todo[0]} jobs done, written to {args.output};"
                " run the same command again to go on",
                file=sys.stderr,
            )
        return 130
    bad_lines = count(bad, "bad line")
    print(f"{written} done, {skipped} already in {args.output}, {bad_lines} skipped", file=sys.stderr)
    return 0


def _serve(args: argparse.Namespace, console: Console) -> int:
    try:
        import uvicorn  # noqa: F401 - (run imports it; without it, one line rather than a traceback)

        from scopa.server import ServerConfig, run
    except ImportError as exc:
        raise ScopaError(
            f"scopa serve needs the server extra: pip install '.[server]' from a clone ({exc})"
        ) from None
    timeout = {} if args.request_timeout is None else {"request_timeout": args.request_timeout}
    config = ServerConfig(
        max_time=args.max_time or None,
        workers=args.workers,
        max_request_bytes=args.max_request_bytes,
        max_in_flight=args.max_in_flight,
        max_queued=args.max_queued,
        cors_origins=tuple(args.cors or ()),
        hosts=tuple(args.allow_host or ()),
        **timeout,
    )
    return run(args.host, args.port, config, log_level=args.log_level)


def _simulate(args: argparse.Namespace, console: Console) -> int:
    rules = _game_rules(args)
    t0 = time.perf_counter()
    try:
        p = scopa.random_playouts(rules, args.hands, seed=args.seed)
    except KeyboardInterrupt:  # (the core plays them all in one call: nothing to show; a line, not silence)
        err = Console(stderr=True, highlight=False)
        err.print(f"stopped (Ctrl-C) before the {args.hands:,} hands were played", markup=False)
        return 130
    dt = time.perf_counter() - t0
    print(
        f"{args.hands:,} random {'hand' if args.hands == 1 else 'hands'} of {rules.hand_rules().display_name}"
        f" (seed {args.seed}), "
        f"{scopa.CORE_IMPLEMENTATION} core: {dt:.3f} s, {args.hands / max(dt, 1e-9):,.0f} hands/s"
    )
    print(f"{'points per hand':<16} {'team 0 (leads)':>14} {'team 1':>8}")
    for name, (a, b) in p.mean_points().items():
        if name in ("re_bello", "napola") and not getattr(rules, name):
            continue  # (a teacher's audit: rows of zeros for options the rules do not score)
        print(f"{name:<16} {a:>14.3f} {b:>8.3f}")
    return 0


def _deal(args: argparse.Namespace, console: Console) -> int:
    if args.deck is not None and args.svg is None:  # (it was taken and did nothing)
        raise OptionError(f"--deck {args.deck} is the picture's: give --svg FILE too")
    s = scopa.State.deal(_game_rules(args), seed=args.seed, dealer=args.dealer)
    if args.svg is not None:  # (first: a reader that stops early, `| head -1`, does not lose the picture)
        from scopa.svg import position

        _write(args.svg, position(s, deck=args.deck or "french"))
    print(s)  # (for people: "Scopone scientifico, seat 1 to move"; the two forms below keep the identifier)
    print(s.to_json())
    print(s.to_string())
    return 0


def _write(path: str, text: str) -> None:
    from scopa.records import check_writable

    check_writable(path, "the picture")  # (an empty name: `--svg ""` wrote nothing without a word)
    try:
        write_atomic(path, text.encode("utf-8"))
    except OSError as exc:
        raise OptionError(f"cannot write the picture to {path!r}: {failure_reason(exc)}") from None


def _svg(args: argparse.Namespace, console: Console) -> int:
    from scopa.svg import position

    state = parse_position(args.position)
    text = position(state, seat=args.seat, deck=args.deck, size=args.size)
    if args.output in (None, "-"):
        sys.stdout.write(text + "\n")
    else:
        _write(args.output, text)
    return 0


def _float(text: str) -> float:
    """``text`` as a float, NaN when it is not a number (every range check refuses NaN)."""
    try:
        return float(text)
    except ValueError:
        return math.nan


def number(text: str) -> int | float:
    """An argparse type: a number as it was typed (``7`` stays 7 in a message, not 7.0); one past
    a float's range, or not a number (``1e400``, ``inf``, ``nan``), named as typed (it was said
    as ``inf``)."""
    try:
        return int(text)
    except ValueError:
        value = float(text)  # (ValueError: argparse says "invalid number value: 'x'")
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"bad number {text!r}: expected a finite number")
    return value


def _seconds(text: str) -> float:
    value = _float(text)
    if not 0 <= value <= 1e6:
        raise argparse.ArgumentTypeError(f"bad seconds {text!r}: expected a number in 0..1e6")
    return value


def _request_timeout(text: str) -> float:
    """An argparse type: ``scopa serve --request-timeout``'s seconds, in (0, 3600]."""
    value = _float(text)
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"bad seconds {text!r}: expected a number in (0, 3600]")
    return value


#: Why a review's --time takes no 0 (a teacher's audit: solve's --time 0 is no limit, review
#: refused 0 without saying why): scopa.review has no unlimited budget a play to give it (its
#: None is the default budget, as batch review's --time 0), and 3600 s a play lets every
#: play's searches finish in the positions measured (the slowest, Scopone 24 plays from the
#: end, about 30 s); said by the help and by the refusal of 0
_NO_UNLIMITED_REVIEW = (
    "a review's budget has no 0 for no limit, as solve's has: for the deepest review give the most,"
    f" {MAX_TIME_PER_PLAY:g}"
)


def _per_play(text: str) -> float:
    """An argparse type: a review's seconds a play, in (0, 3600] (one message for any bad text;
    for 0, solve's "no limit", why a review has none)."""
    value = _float(text)
    if not 0 < value <= MAX_TIME_PER_PLAY:
        why = f" ({_NO_UNLIMITED_REVIEW})" if value == 0 else ""
        raise argparse.ArgumentTypeError(
            f"bad seconds {text!r}: expected seconds a play in (0, {MAX_TIME_PER_PLAY:g}]{why}"
        )
    return value


def _count(most: int | None = None, what: str = "count", unit: str = "") -> Callable[[str], int]:
    """An argparse type: an integer >= 1 of at most 18 digits, and at most ``most``; a bad one
    is named as ``what``, and ``unit`` says what the integer counts (``--tt``'s megabytes: "bad
    count '100000'" said neither what was counted nor in what)."""
    expected = f"an integer in 1..{10**18 - 1:,}" if most is None else f"an integer in 1..{most:,}"
    expected = f"{unit}, {expected}" if unit else expected

    def check(text: str) -> int:
        ok = text.isascii() and text.isdigit() and len(text) <= 18 and int(text) >= 1
        if not ok or (most is not None and int(text) > most):
            raise argparse.ArgumentTypeError(f"bad {what} {text!r}: expected {expected}")
        return int(text)

    return check


_positive = _count()


def _integer(what: str) -> Callable[[str], int]:
    """An argparse type: an integer, its range checked where it is used; a text that is none is
    named as ``what`` (argparse said "invalid int value: 'x'")."""

    def check(text: str) -> int:
        try:
            return int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"bad {what} {text!r}: expected an integer") from None

    return check


def _seed(text: str) -> int:
    """An argparse type: a seed, an integer in 0..2**64-1 (said as the library says it)."""
    digits = text.strip()
    value = digits.lstrip("0") or "0"  # (leading zeros, however many, change nothing)
    if not (digits.isascii() and digits.isdigit() and len(value) <= 20 and int(value) < 1 << 64):
        raise argparse.ArgumentTypeError(f"bad seed {text!r}: expected an integer in 0..2**64-1")
    return int(value)


def _player(names: list[str]) -> Callable[[str], str | tuple[str, dict[str, Any]]]:
    """An argparse type: a player's name among ``names``, or a name with options as the arena
    names a side, ``pimc(samples=32, time_limit=None)`` (each value a Python literal)."""
    expected = f"a name ({', '.join(names)}) or NAME(option=value, ...)"

    def check(text: str) -> str | tuple[str, dict[str, Any]]:
        if text in names:
            return text
        try:
            call = ast.parse(text.strip(), mode="eval").body if len(text) <= 1000 else None
            ok = (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name)
                and call.func.id in names
                and not call.args
                and all(k.arg is not None for k in call.keywords)
            )
            if ok:
                assert isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                given = [str(k.arg) for k in call.keywords]
                twice = sorted({name for name in given if given.count(name) > 1})
                if twice:  # (Python refuses a keyword repeated; the last one was kept, silently)
                    raise argparse.ArgumentTypeError(
                        f"bad player {show(text)}: {', '.join(twice)} given twice: expected each option once"
                    )
                options = {}
                for k in call.keywords:
                    try:
                        options[str(k.arg)] = ast.literal_eval(k.value)
                    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                        # (the form was right: the value is what is wrong, and said so; it read
                        # "expected a name or NAME(option=value, ...)", the form it had)
                        value = ast.get_source_segment(text.strip(), k.value) or "?"
                        raise argparse.ArgumentTypeError(
                            f"bad player {show(text)}: the value of {k.arg} {show(value)} is not a "
                            "Python literal (a number, True, False, None, a string in quotes, or a"
                            " dict of them)"
                        ) from None
                if "seed" in options:  # (the arena's own words spoke of a Python tuple and arena's seed)
                    raise argparse.ArgumentTypeError(
                        f"bad player {show(text)}: the arena seeds each game's players from --seed:"
                        " leave seed out of the options"
                    )
                return call.func.id, options
        except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
            pass
        raise argparse.ArgumentTypeError(f"bad player {show(text)}: expected {expected}")

    return check


def _game_option(parser: argparse.ArgumentParser) -> None:
    """``--game`` and ``--option`` (read by :func:`_game_rules`)."""
    parser.add_argument(
        "--game",
        default="scopone_scientifico",
        choices=scopa.PRESETS,
        help="the game (default scopone_scientifico)",
    )
    _option_argument(parser)


def _option_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--option",
        action="append",
        metavar="NAME=VALUE",
        help="a rule option, e.g. capture_rule=fewest (repeatable)",
    )


def _game_rules(args: argparse.Namespace) -> scopa.Rules:
    """The rules of ``--game`` with its ``--option`` s."""
    return scopa.Rules.preset(args.game, **_options(args.option))


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose failed write of ``--help`` or ``--version`` (a full disk)
    raises, for :func:`main` to say (argparse ignores it: the command ended with status 0);
    options are taken only spelt in full (``--worker`` for ``--workers`` would stop working,
    or change meaning, the day an option beginning the same is added)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def _print_message(self, message: str, file: Any = None) -> None:
        if message and file is not None and file is sys.stdout:
            file.write(message)
        else:  # (a usage error, to standard error: as argparse does)
            super()._print_message(message, file)


def build_parser() -> argparse.ArgumentParser:
    """The command line parser."""
    parser = _Parser(prog="scopa", description="Scopa and Scopone engine")
    parser.add_argument("--version", action="version", version=f"scopa {scopa.__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    solve = sub.add_parser("solve", help="solve a position exactly (a built-in example by default)")
    solve.add_argument("position", nargs="?", help=POSITION_HELP)
    solve.add_argument("--json", action="store_true", help="print the result as JSON")
    solve.add_argument(
        "--tt",
        type=_count(MAX_TT_MB, "table size", "megabytes"),
        default=64,
        metavar="MB",
        help=f"transposition table size in MB, 1 to {MAX_TT_MB} (default 64)",
    )
    solve.add_argument(
        "--time",
        type=_seconds,
        default=SOLVE_SECONDS,
        metavar="SECONDS",
        help=f"time limit (default {SOLVE_SECONDS:g}; 0 for none): then the best result so far",
    )
    solve.add_argument("--nodes", type=_positive, default=None, metavar="N", help="node limit")
    solve.set_defaults(func=_solve)

    play = sub.add_parser("play", help="play a match against the computer")
    play.add_argument(
        "--game", choices=scopa.PRESETS, help="the game (default scopone_scientifico; a record's with --load)"
    )
    play.add_argument(
        "--seat", type=_integer("seat"), help="your seat (default 0; with --load, the record's 'You')"
    )
    players = [*PLAYERS, *level_names()]
    play.add_argument(
        "--opponent", default="pimc", choices=players, help="the opponents' player (default pimc)"
    )
    play.add_argument(
        "--partner", default=None, choices=players, help="your partner's player (4 seats; default pimc)"
    )
    play.add_argument("--seed", type=_seed, default=None, help="the match's seed (default: a random one)")
    play.add_argument(
        "--target", type=_integer("target"), default=None, help="points that win the match (default 11)"
    )
    _option_argument(play)
    play.add_argument(
        "--deck",
        default=None,
        choices=["french", "italian"],
        help="suit symbols or letters (default: the symbols, where the terminal can show them)",
    )
    play.add_argument(
        "--save",
        metavar="FILE",
        help="write the game's record to FILE after every hand, and with the hand so far when the game "
        "is left in one (quit, end of input, Ctrl-C, SIGTERM, the terminal closed); a save that failed "
        "is tried again at the end (status 2 if it fails again)",
    )
    play.add_argument(
        "--load", metavar="FILE", help="resume the game recorded in FILE (its annotations kept by --save)"
    )
    play.set_defaults(func=_play)

    rep = sub.add_parser("replay", help="replay a game record, or print it as text")
    rep.add_argument("file", help="a record (JSON): a match or a single hand; - reads standard input")
    rep.add_argument(
        "--text",
        action="store_true",
        help="print the record as readable text, like PGN (with --hand H, that hand)",
    )
    rep.add_argument(
        "--hand",
        type=_integer("hand"),
        metavar="H",
        help="only hand H of the record (1 is the first; --text too)",
    )
    rep.add_argument(
        "--at",
        type=_integer("play count"),
        metavar="N",
        help="print the position after N plays of the hand (of --hand H, else the first; 0: its deal) "
        "as a position string, for solve or svg",
    )
    rep.add_argument("--json", action="store_true", help="with --at: print the position as JSON")
    rep.set_defaults(func=_replay)

    rev = sub.add_parser(
        "review",
        help="what every play of a recorded game cost",
        description="What every play of a recorded game cost. Ctrl-C stops the review: what it "
        "reviewed is written (and saved with --annotate), the rest left out, status 130.",
    )
    rev.add_argument("file", help="a record (JSON): a match or a single hand; - reads standard input")
    rev.add_argument(
        "--time",
        type=_per_play,
        default=DEFAULT_TIME,
        metavar="SECONDS",
        help=f"budget per play, seconds in (0, {MAX_TIME_PER_PLAY:g}] (default {DEFAULT_TIME:g};"
        f" {_NO_UNLIMITED_REVIEW})",
    )
    rev.add_argument("--json", action="store_true", help="print the review as JSON")
    rev.add_argument("--annotate", metavar="OUT", help="write the record with the review's marks to OUT")
    rev.set_defaults(func=_review)

    ar = sub.add_parser(
        "arena",
        help="players against each other on duplicate deals",
        description="Players against each other on duplicate deals. Ctrl-C stops the run and "
        "shows the deals that finished, status 130.",
    )
    for side in ("a", "b"):
        ar.add_argument(side, type=_player(players), help="a player: NAME or NAME(option=value, ...)")
    _game_option(ar)
    ar.add_argument(
        "--deals",
        type=_count(MAX_DEALS),
        default=100,
        help="duplicate deals, each played twice (default 100)",
    )
    ar.add_argument(
        "--jobs",
        "--workers",
        dest="jobs",
        type=_count(MAX_JOBS),
        default=1,
        help="local processes (default 1)",
    )
    ar.add_argument("--seed", type=_seed, default=0, help="the seed of every deal and player (default 0)")
    ar.add_argument(
        "--json",
        action="store_true",
        help="print the result as JSON (scopa.arena.ArenaResult.to_json; after Ctrl-C, the deals that"
        ' finished, with "stopped": true and "deals_asked")',
    )
    ar.set_defaults(func=_arena)

    eng = sub.add_parser("engine", help="the JSON-lines engine protocol on stdin/stdout")
    eng.add_argument(
        "--max-time",
        type=_seconds,
        default=DEFAULT_MAX_TIME,
        metavar="SECONDS",
        help=f"default and longest search time (default {DEFAULT_MAX_TIME:g}; 0 for no limit)",
    )
    eng.add_argument("--schema", action="store_true", help="print the protocol's JSON Schema and exit")
    eng.set_defaults(func=_engine)

    bat = sub.add_parser("batch", help="solve, analyze or review JSON lines in parallel (resumable)")
    bat.add_argument("kind", choices=["solve", "analyze", "review"])
    bat.add_argument(
        "input",
        help='JSON lines: {"id": ..., "position": P} (review: {"id": ..., "record": R}); - reads stdin',
    )
    bat.add_argument("-o", "--output", required=True, help="JSON lines out, appended; rerun to resume")
    place = bat.add_mutually_exclusive_group()
    place.add_argument(
        "--scheduler",
        metavar="tcp://HOST:PORT",
        help="a Dask scheduler (the dask extra; default: local processes)",
    )
    place.add_argument(
        "--workers",
        "--jobs",
        dest="workers",
        type=_count(MAX_JOBS),
        default=None,
        help="local processes (default: every core)",
    )
    bat.add_argument(
        "--time",
        type=_seconds,
        default=0,
        metavar="SECONDS",
        help=f"seconds per job (review: per play); default 0: none (review: {DEFAULT_TIME:g} s a play)",
    )
    bat.add_argument(
        "--nodes",
        type=_positive,
        default=None,
        metavar="N",
        help="node limit per job (not review; default none)",
    )
    bat.add_argument(
        "--chunksize",
        type=_count(),
        default=None,
        metavar="N",
        help="jobs a worker takes at once (default: 8 solve, 4 analyze, 1 review)",
    )
    bat.add_argument("--seed", type=_seed, default=0, help="review only: every review's seed (default 0)")
    bat.set_defaults(func=_batch)

    srv = sub.add_parser("serve", help="the engine over HTTP and WebSocket, and the browser app")
    srv.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    srv.add_argument(
        "--port", type=_integer("port"), default=8765, help="port (default 8765; 0 for any free one)"
    )
    srv.add_argument(
        "--workers", type=_count(MAX_JOBS), default=2, help="threads that run searches (default 2)"
    )
    srv.add_argument(
        "--max-time",
        type=_seconds,
        default=DEFAULT_MAX_TIME,
        metavar="SECONDS",
        help=f"default and longest search time (default {DEFAULT_MAX_TIME:g}; 0 for no limit)",
    )
    srv.add_argument(
        "--max-request-bytes",
        type=_count(MAX_LINE),
        default=64 * 1024,
        help=f"largest request (default 65536; at most {MAX_LINE}, the protocol's longest line)",
    )
    srv.add_argument(
        "--request-timeout",
        type=_request_timeout,
        metavar="SECONDS",
        # (scopa.server.REQUEST_TIMEOUT: that module is not imported but for scopa serve)
        help="time a client may take to send a whole HTTP request (default 30; at most 3600)",
    )
    srv.add_argument(
        "--max-in-flight", type=_positive, default=8, help="unanswered requests per connection (default 8)"
    )
    srv.add_argument(
        "--max-queued", type=_positive, default=64, help="searches waiting, over all connections (default 64)"
    )
    srv.add_argument(
        "--cors",
        action="append",
        metavar="ORIGIN",
        help=(
            "allow this origin (repeatable; * for any; null, pages opened from files, lets any"
            " site's sandboxed frame in too)"
        ),
    )
    srv.add_argument(
        "--allow-host",
        action="append",
        metavar="NAME",
        help="a name of this machine besides localhost that browsers may use (repeatable)",
    )
    srv.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug"],
        help="the level of the server's log, uvicorn's and scopa's own (default info; the requests on "
        "standard output, the rest on standard error)",
    )
    srv.set_defaults(func=_serve)

    sim = sub.add_parser("simulate", help="random hands inside the core, mean points per category")
    _game_option(sim)
    sim.add_argument(
        "--hands",
        type=_count(MAX_HANDS),
        default=100_000,
        help="hands to play (default 100000; their results take 32 bytes a hand of memory, made first)",
    )
    sim.add_argument("--seed", type=_seed, default=1, help="the random hands' seed (default 1)")
    sim.set_defaults(func=_simulate)

    deal = sub.add_parser("deal", help="deal a hand and print it, its JSON and its position string")
    _game_option(deal)
    deal.add_argument("--seed", type=_seed, default=1, help="the deal's seed (default 1)")
    deal.add_argument("--dealer", type=_integer("dealer"), default=0, help="the dealer's seat (default 0)")
    deal.add_argument("--svg", metavar="FILE", help="also draw the deal as SVG into FILE")
    deal.add_argument(
        "--deck",
        default=None,
        choices=["french", "italian", "spanish"],
        help="the picture's deck, with --svg (default french)",
    )
    deal.set_defaults(func=_deal)

    svg = sub.add_parser("svg", help="draw a position as SVG")
    svg.add_argument("position", help=POSITION_HELP)
    svg.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default standard output)")
    svg.add_argument(
        "--seat", type=_integer("seat"), default=None, help="draw that seat's view (the others face down)"
    )
    svg.add_argument(
        "--deck",
        default="french",
        choices=["french", "italian", "spanish"],
        help="the cards drawn (default french)",
    )
    svg.add_argument(
        "--size", type=number, default=48, help="a card's width in pixels, 8 to 2000 (default 48)"
    )
    svg.set_defaults(func=_svg)
    return parser


#: The narrowest the command's output is drawn (a narrower terminal or ``COLUMNS`` is taken as
#: this wide, and the terminal wraps the lines: narrower, tables cut what a move takes).
MIN_WIDTH = 40


class _Console(Console):
    """rich's console, whose closed pipe ends the command as main's own does (rich exits 1),
    drawn at least :data:`MIN_WIDTH` wide, and as wide as the terminal is now (a width set
    once stayed, the terminal resized; and a terminal narrowed below the least was followed)."""

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError

    @property
    def size(self) -> ConsoleDimensions:
        size = Console.size.fget(self)  # type: ignore[attr-defined]
        return ConsoleDimensions(max(MIN_WIDTH, size.width), size.height)

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        Console.size.fset(self, new_size)  # type: ignore[attr-defined]


class _ClosedStdout(io.TextIOBase):
    """Standard output while the arguments are read, when the command was started with it
    closed: ``--help`` and ``--version`` write to it and are refused (argparse, given none,
    wrote them to standard error and ended with status 0)."""

    written = False

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.written = True
        raise OSError(errno.EBADF, "standard output is closed")


class _WholeWrites(io.RawIOBase):
    """Standard output's file descriptor, each write made whole: after a short write (a file
    size limit, a nearly full disk) the rest is written again, so the error shows; Python's own
    text layer would drop the rest without a word, and the command end with status 0. Not for
    the engine, which writes each reply whole itself (a failed write here keeps its bytes in the
    buffer, and the engine, which ends with 0 when its reader goes, would fail at the last
    flush)."""

    def __init__(self, fd: int, quiet: bool = False) -> None:
        super().__init__()
        self._fd = fd
        self._quiet = quiet  # (standard error: a message that cannot be written is dropped)

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data: Any) -> int:
        try:
            write_all(self._fd, data)
        except OSError:
            if not self._quiet:
                raise
        return memoryview(data).nbytes


def _best_effort_stderr() -> None:
    """Standard error for messages only: one that cannot be written (closed, a full disk, a
    reader gone) drops them, so the command's own work and status stand (a batch run whose
    results were all written ended with status 1 and a traceback when its summary could not be
    said; one whose bad-line messages were paged with ``| head`` stopped at the second)."""
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (for the life of the process)
        return
    if sys.stderr is sys.__stderr__ and isinstance(sys.stderr, io.TextIOWrapper):
        sys.stderr = _whole_writes(sys.stderr, quiet=True)


def _whole_writes(out: io.TextIOWrapper, quiet: bool = False) -> io.TextIOWrapper:
    """``out`` (the process's standard output) written through :class:`_WholeWrites`, with
    its encoding and line buffering, and an escape for a character it cannot encode (a
    terminal that cannot show a suit symbol), not a traceback. ``out`` itself if it has no
    file descriptor."""
    try:
        fd = out.fileno()
    except (OSError, ValueError):
        out.reconfigure(errors="backslashreplace")
        return out
    out.flush()
    raw = _WholeWrites(fd, quiet)
    return io.TextIOWrapper(
        io.BufferedWriter(raw),
        encoding=out.encoding,
        errors="backslashreplace",
        line_buffering=out.line_buffering or quiet,
        write_through=quiet,
    )


def _stdout_error() -> OSError | ValueError | None:
    """What flushing standard output raises, if anything: set when it cannot be written (its
    buffer keeps what a failed write held)."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except (OSError, ValueError) as exc:
        return exc
    return None


def _drop_unwritten(real: bool) -> None:
    """Flush standard output; what cannot be written goes nowhere (the interpreter's last
    flush would fail again, and end the command with 120 instead of its status)."""
    if _stdout_error() is not None:
        _stdout_to_nowhere(real)


def _full(exc: OSError) -> bool:
    """An error of a write to no file of its own (rich writes standard output itself, and a
    failed write may leave nothing in the buffer to fail again): the disk or device full."""
    return exc.filename is None and exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def _stdout_to_nowhere(real: bool) -> None:
    """Let the interpreter's last flush of standard output go nowhere (after a failed write)."""
    if real:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``scopa`` command; returns the exit status."""
    _best_effort_stderr()
    closed = _ClosedStdout() if sys.stdout is None else None
    try:
        if closed is not None:
            sys.stdout = closed
        args = build_parser().parse_args(argv)
    except (OSError, SystemExit) as done:  # --help or --version: a failed write shows
        if closed is not None and closed.written:  # (they exited 0, written to standard error)
            print("scopa: error: standard output is closed: nowhere to write", file=sys.stderr)
            return 2
        failed = done if isinstance(done, OSError) else _stdout_error() if done.code == 0 else None
        if failed is None:
            raise
        _stdout_to_nowhere(sys.stdout is sys.__stdout__ and sys.stdout is not None)
        if isinstance(failed, BrokenPipeError):  # (scopa --help | head -1)
            return 141
        print(f"scopa: error: cannot write to standard output: {failure_reason(failed)}", file=sys.stderr)
        return 2
    finally:
        if closed is not None:
            sys.stdout = None
    if sys.stdin is None:  # (started with its standard input closed: an input that ends at once)
        sys.stdin = open(os.devnull)  # noqa: SIM115 (for the life of the process)
    elif isinstance(sys.stdin, io.TextIOWrapper):  # bytes that are not the locale's text (a
        sys.stdin.reconfigure(errors="surrogateescape")  # half-erased 7♦) get a message, not a traceback
    if sys.stdout is None and not (args.command == "engine" and not args.schema):  # (the engine: status 0)
        print("scopa: error: standard output is closed: nowhere to write", file=sys.stderr)
        return 2
    real = sys.stdout is sys.__stdout__ and isinstance(sys.stdout, io.TextIOWrapper)
    if real and args.command == "engine" and not args.schema:  # (each reply written whole by serve)
        sys.stdout.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    elif real:  # a terminal that cannot show a suit symbol gets an escape, not a traceback
        sys.stdout = _whole_writes(sys.stdout)  # type: ignore[arg-type]
    console = _Console(highlight=False)  # (COLUMNS=0 printed nothing at all: drawn 40 wide now)
    try:
        _startup.ready()  # (Ctrl-C before here: a line and 130, from the package's first import)
        status = int(args.func(args, console))
        if status >= 128:  # (ended by a signal, its terminal closed: the status stands)
            _drop_unwritten(real)
        elif sys.stdout is not None:
            sys.stdout.flush()  # (a failed write shows here, not in the interpreter's last flush)
        return status
    except BrokenPipeError:  # the reader went away (scopa review --json | head): stop quietly
        _stdout_to_nowhere(real)
        return 141  # (128 + SIGPIPE, what a shell reports for a command its pipe stopped)
    except OSError as exc:  # a full disk, an I/O error: on standard output, said in a line
        if not (isinstance(exc, OutputError) or _stdout_error() is not None or _full(exc)):
            raise
        print(f"scopa: error: cannot write to standard output: {failure_reason(exc)}", file=sys.stderr)
        _stdout_to_nowhere(real)
        return 2
    except ScopaError as exc:
        print(f"scopa: error: {exc}", file=sys.stderr)
        return 2
    except MemoryError:
        print(
            "scopa: error: out of memory: ask for less (a smaller --tt, fewer deals or hands)",
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        _drop_unwritten(real)  # (Ctrl-C for a server whose output's reader went: 130, not 120)
        # (a command that has not said so itself: a line, not silence; a server has logged its
        # shutdown, and Ctrl-C is how a game in the terminal is left)
        if args.command not in ("serve", "play"):
            print(f"stopped (Ctrl-C): scopa {args.command} did not finish", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
