"""Fuzzing: no input -- a protocol line, a position, a core tuple -- may crash the process, hang
it or corrupt memory, and the engine answers every line.

Every input is classified *accepted* (it returns), *rejected* (the documented refusal: a
``ScopaError`` from a parser, an error reply naming a scopa exception, a ``ValueError`` from
the core) or *other* (any other exception, an ``InternalError`` reply, a reply that breaks the
protocol's schema or cannot be written as strict JSON, a parser call or a reply slower than
``SLOW``, the two cores disagreeing, a crash). Every test asserts that nothing is *other* and
prints its counts. The targets:

1. the parsers: ``State.from_string``, ``State.from_json``, ``view_from_json``, ``Move.parse``,
   ``Card.parse``, ``CardSet.parse``, ``Rules.from_json`` (what they accept must read back);
2. the protocol in-process: ``Protocol(max_time=0.05).handle`` on str and bytes lines;
3. the core functions on both cores, the twin the reference;
4. the stdio engine, ``python -m scopa engine``, as a subprocess.

Inputs come from hypothesis strategies and from a mutation fuzzer seeded with valid inputs
(deals of the four presets and states played on from them: their strings, JSON and views, a
valid request of every command, the core's tuples), mutated at the JSON level (huge and
negative ints, floats, NaN and Infinity as text, arrays 1000 deep, unicode digits, lone
surrogates, long strings, wrong types, unknown keys) and at the text level (byte flips,
truncation, duplication, invalid UTF-8). Every generator is deterministic from its seed: input
``index`` of a run with ``seed`` comes from ``rng_for(target, seed, index)`` alone, so any input
can be made again by itself. ``benchmarks/fuzz.py`` runs the same generators on 100,000 inputs
and more, each target in subprocesses (a crash there is counted, not fatal).
"""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
import textwrap
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from conftest import CORES, TWIN_RUN
from hypothesis import given, settings
from hypothesis import strategies as st

import scopa
import scopa_core
import scopa_core._twin as twin
from scopa import Card, CardSet, Move, Rules, ScopaError, State, jsonio
from scopa import protocol as proto
from scopa.match import Match
from scopa.notation import view_from_json, view_to_dict
from scopa.records import MatchRecord, load_record
from scopa.view import PlayerView
from scopa_core import _checks

try:
    import jsonschema
except ImportError:  # not among the test extras: the protocol's checks need it
    jsonschema = None

ACCEPTED, REJECTED, OTHER = "accepted", "rejected", "other"
#: A parser call or a protocol reply taking longer than this (seconds) is a hang (a guard, not
#: a speed target: replies take milliseconds, searches are capped at MAX_TIME).
SLOW = 5.0
#: The protocol's and the engine's cap on a search, seconds.
MAX_TIME = 0.05


def _subclasses(cls: type) -> set[str]:
    return {cls.__name__}.union(*(_subclasses(c) for c in cls.__subclasses__()))


#: Error types a reply may name: the protocol's own (UnknownCommand, Busy) and the names of the
#: library's exceptions (ProtocolError, CardError, PositionError, RecordError ...).
#: (Not the core's CoreError: the library checks what it gives the core, so one that reaches a
#: user is a check the library missed.)
REFUSALS = frozenset({"UnknownCommand", "Busy"} | _subclasses(ScopaError) - {"CoreError"})
CORE_NAMES = {"scopa_core._twin": "twin", "scopa_core._core": "compiled"}


# ------------------------------------------------------------------------------------- outcomes


@dataclass
class Outcome:
    """What one input did: ``kind`` is accepted, rejected or other; ``detail`` says why an
    other is one (the exception and its traceback, or the check that failed)."""

    kind: str
    detail: str = ""


@dataclass
class Tally:
    """Counts of one target's outcomes, and its first few failures with their reproducers."""

    name: str
    counts: Counter[str] = field(default_factory=Counter)
    others: list[tuple[str, str]] = field(default_factory=list)
    keep: int = 20

    def add(self, outcome: Outcome, repro: Callable[[], str] | str) -> Outcome:
        self.counts[outcome.kind] += 1
        if outcome.kind == OTHER and len(self.others) < self.keep:
            self.others.append((repro if isinstance(repro, str) else repro(), outcome.detail))
        return outcome

    @property
    def inputs(self) -> int:
        return sum(self.counts.values())

    def row(self) -> str:
        c = self.counts
        kinds = f"{c[ACCEPTED]} accepted, {c[REJECTED]} rejected, {c[OTHER]} other"
        return f"{self.name}: {self.inputs} inputs, {kinds}"

    def failures(self, limit: int = 5) -> str:
        parts = [self.row()]
        for repro, detail in self.others[:limit]:
            parts.append(f"--- {repro}\n{textwrap.indent(detail.strip(), '    ')}")
        return "\n".join(parts)

    def check(self) -> None:
        print(self.row())
        assert self.counts[OTHER] == 0, self.failures()


def run_hypothesis(check: Callable[[], None], *tallies: Tally) -> None:
    """Run a hypothesis test that feeds ``tallies``: their counts are printed even when
    hypothesis reports a failure (with the smallest failing input it finds), then checked."""
    try:
        check()
    finally:
        for tally in tallies:
            print(tally.row())
    for tally in tallies:
        tally.check()


def lit(obj: Any, limit: int = 400) -> str:
    """A short Python literal of ``obj`` for a reproducer (``_checks.short`` for the huge
    and the deep)."""
    if isinstance(obj, (str, bytes)) and len(obj) <= limit:
        return repr(obj)
    if isinstance(obj, (str, bytes)):
        return f"{obj[: limit // 2]!r} ... ({len(obj)} long) ... {obj[-limit // 4 :]!r}"
    text = _checks.short(obj)
    return text if len(text) <= limit else text[:limit] + "..."


def _error(exc: BaseException) -> str:
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=-8))


# ------------------------------------------------------------------------------ hostile values


class Raw:
    """A hostile JSON token: its ``text``, written as is into JSON text, and the ``value`` a
    decoder would make of it, put into already decoded objects."""

    __slots__ = ("text", "value")

    def __init__(self, text: str, value: Any) -> None:
        self.text = text
        self.value = value

    def __repr__(self) -> str:
        return f"Raw({lit(self.text, 60)})"


def nested(depth: int, kind: type = list) -> Any:
    """A list (or tuple, or dict) nested ``depth`` deep."""
    x: Any = kind() if kind is not dict else {}
    for _ in range(depth - 1):
        x = [x] if kind is list else (x,) if kind is tuple else {"a": x}
    return x


class IntSub(int):
    """An int subclass: the core takes plain ints only."""

    def __repr__(self) -> str:
        return f"IntSub({int(self)})"


class TupleSub(tuple):
    """A tuple subclass: the core takes plain tuples and lists only."""

    def __repr__(self) -> str:
        return f"TupleSub({tuple(self)!r})"


HUGE = 10**5000
DEEP_LIST = nested(1000)
DEEP_DICT = nested(1000, dict)
DEEP_TUPLE = nested(1000, tuple)
NAN, INF = float("nan"), float("inf")
#: Digits that ``str.isdigit`` accepts and ``int`` refuses (or reads as another number).
ODD_DIGITS = ["²", "٣", "¹²", "³", "٠", "𝟘", "߁", "०", "٣٣", "1²", "Ⅻ", "½", "１"]
HUGE_INTS = [2**31 - 1, 2**31, 2**32, 2**53 - 1, 2**53, 2**53 + 1, 2**62, 2**63 - 1, 2**63, 2**64 - 1, 2**64]

JSON_HOSTILE: list[Any] = [
    *(0, -1, 1, 2, 3, 4, 9, 10, 11, 18, 19, 39, 40, 41, 255, 256, 1000, 1001, 10**18, 10**30),
    *HUGE_INTS,
    *(-(2**63), -(2**64)),
    Raw("1" + "0" * 5000, HUGE),
    Raw("-1" + "0" * 5000, -HUGE),
    Raw("9" * 4301, 10**4301 - 1),
    *(0.5, -0.0, 1.0, 3.0, 1e308, 1e-320, 5e-324, 2.0**63),
    Raw("1e999", INF),
    Raw("NaN", NAN),
    Raw("Infinity", INF),
    Raw("-Infinity", -INF),
    *(True, False, None),
    *("", " ", "-", "x", "null", "true", "7d", "Kc", "7dx3c4s", "scopa", "scopone", "pimc", "-1", "0x10"),
    *ODD_DIGITS,
    *("7\u0301d", "7♦", "Ｋｃ", "ß", "İ", "\x00", "\n", "\u2028", "\ufeff", "\U0001f0a1", "\x85"),
    *("\ud800", "\udfff", "a\udc00b"),
    *("A" * 10_000, "7d" * 1000, "9" * 5000, "/" * 200, "scopa " * 300),
    *([], {}, [[]], [None], [0, 0], [0] * 50, list(range(300)), ["7d"] * 41, ["7d", "7d"], [["7d"]]),
    *({"preset": "scopa"}, {"preset": "scopa", "target": 10**30}, {"": 0}, {"cmd": "ping"}),
    Raw("[" * 1000 + "]" * 1000, DEEP_LIST),
    Raw('{"a":' * 1000 + "{}" + "}" * 1000, DEEP_DICT),
    Raw("[" * 33 + "]" * 33, nested(33)),
    Raw("[" * 31 + "]" * 31, nested(31)),
    Raw('"\\ud800"', "\ud800"),
    Raw('"\\udfff\\ud800"', "\udfff\ud800"),
    Raw('"\\u0000"', "\x00"),
]
#: Tokens spliced into text: each may break the JSON, the position string or the numbers in it.
TEXT_TOKENS = [
    *ODD_DIGITS,
    *("9" * 1500, "1" + "0" * 400, "-1", "+1", "1e3", "0x1", "1_0", "00", "0" * 7, "2147483648", "1001"),
    *("NaN", "Infinity", "-Infinity", "1e999", "null", "true", "[", "]", "{", "}", ",", ":", '"', "\\"),
    *('"\\ud800"', "\\ud800", "\\u0000", "\\", "\\x", "\t", "\r", "\x0b", "\x1c", "\u3000", "\x85", "\u00a0"),
    *("/", "//", ";", "=", ";target=", "x", "-", "7d", "7♦", "Ｋｃ", "ß", "İ", "\x00", "\ufeff"),
    *("[" * 40, "[" * 1000, "]" * 40, "A" * 3000),
]
INVALID_UTF8 = [
    b"\xff",
    b"\xfe",
    b"\x80",
    b"\xc0\x80",
    b"\xc3",
    b"\xe2\x82",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
]
#: Valid UTF-8 that JSON readers trip on: a byte order mark, NUL, a line separator.
ODD_UTF8 = [b"\xef\xbb\xbf", b"\x00", b"\xe2\x80\xa8", b"\xc2\x85"]
CORE_HOSTILE: list[Any] = [
    *(-1, 0, 1, 2, 3, 4, 9, 10, 11, 39, 40, 41, 255, 256, 1000, 1001, 2**40 - 1, 2**40),
    *HUGE_INTS,
    *(-(2**63), -(2**64), HUGE, -HUGE),
    *(True, False, None, 0.0, 3.0, -0.5, NAN, INF, "1", "", "\ud800", b"\x00"),
    *([], (), [0], (0,), (0, 0), (0, 0, 0), (0,) * 7, [0] * 41, (1,) * 41, {}, {0: 0}),
    *(DEEP_TUPLE, DEEP_LIST, IntSub(3), TupleSub((0, 0)), np.int64(3), np.uint64(2**64 - 1)),
]


# ------------------------------------------------------------------------------------ the corpus


def view_dict(state: State) -> dict[str, Any]:
    """The JSON view of the seat to move (as tests/test_engine_cli.py builds one): the other
    hands as their sizes, the stock as its length, and the hand's plays so far."""
    d = state.to_dict()
    d["hands"] = [h if seat == state.turn else len(h) for seat, h in enumerate(d["hands"])]
    d["stock"] = len(d["stock"])
    d["history"] = [[seat, str(m)] for seat, m in state.history][-40:]
    return d


def plays_left(pos: Any) -> int:
    return len(pos[2]) + sum(bin(h).count("1") for h in pos[0])


@dataclass
class Corpus:
    """Valid inputs to mutate: states (dealt, played on, over), their formats, and core tuples."""

    states: list[State]
    live: list[State]  # states with a move to make
    small: list[State]  # live states with at most 8 plays left (cheap to solve exactly)
    strings: list[str]
    dicts: list[dict[str, Any]]
    views: list[dict[str, Any]]
    moves: list[str]
    rules: list[Any]
    tuples: list[tuple[Any, int, int]]  # (position tuple, options, refill size)
    matches: list[tuple[dict[str, Any], list[str]]]  # a match's JSON, the legal moves now
    records: list[dict[str, Any]]  # game records: single hands and short matches
    long_record: dict[str, Any]  # a record of 60 hands


RULE_VARIANTS = [
    {},
    {"capture_rule": "fewest"},
    {"ace_takes_all": True, "ace_sweep_is_scopa": True},
    {"re_bello": True, "napola": True, "scopa_on_last_play": True, "target": 21},
    {"primiera_requires_all_suits": False, "redeal_on_kings": False, "target": 31},
]


def _crafted_tuples(rnd: random.Random) -> list[tuple[Any, int, int]]:
    """Playable core tuples no game reaches: big hands and tables, many scope, odd refills."""
    out: list[tuple[Any, int, int]] = []
    for i in range(24):
        n = 2 if i % 2 else 4
        k = rnd.randint(1, 8 if n == 2 else 5)
        cards = rnd.sample(range(40), 40)
        turn = rnd.randrange(n)
        played = rnd.randrange(n)  # seats after the seat to move that already played (k - 1 cards)
        hands = [0] * n
        for j in range(n):
            size = k - 1 if 0 < n - j <= played else k
            for _ in range(size):
                hands[(turn + j) % n] |= 1 << cards.pop()
        table = 0
        for _ in range(rnd.randint(0, 8)):
            table |= 1 << cards.pop()
        block = rnd.randint(1, 10)
        stock: tuple[int, ...] = ()
        if i % 3 == 0 and len(cards) >= n * block:
            stock = tuple(cards.pop() for _ in range(n * block))
        piles = [0, 0]
        for c in cards:
            piles[rnd.randrange(2)] |= 1 << c
        scope = (rnd.choice([0, 0, 1, 3, 100, 255]) if piles[0] else 0, rnd.choice([0, 3]) if piles[1] else 0)
        last = rnd.choice([t for t in (0, 1) if piles[t]] or [-1])
        opts = rnd.randrange(256) & ~twin.OPT_ACE_SWEEP_IS_SCOPA
        out.append(((tuple(hands), table, stock, tuple(piles), scope, turn, last), opts, block))
    # a sweep with 255 scope already banked: the core must refuse to count a 256th
    out.append((((1 << 6, 1 << 9), 1 << 2 | 1 << 13, (), (1 << 39, 0), (255, 0), 0, 0), 0, 3))
    return out


@lru_cache(maxsize=1)
def corpus() -> Corpus:
    """The seed inputs (fixed: the same for every run)."""
    rnd = random.Random(20240601)
    states: list[State] = []
    for game in scopa.PRESETS:
        for i in range(6):
            rules = Rules.preset(game, **RULE_VARIANTS[i % len(RULE_VARIANTS)])
            s = State.deal(rules, seed=i, dealer=i % rules.players)
            states.append(s)
            for stop in sorted(rnd.sample(range(1, 41), 4)):
                t = s
                while not t.is_over and len(t.history) < stop:
                    t = t.play(rnd.choice(t.legal_moves()))
                states.append(t)
    states.append(State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1"))
    live = [s for s in states if not s.is_over]
    small = [s for s in live if plays_left(s.masks) <= 8]
    moves = sorted({str(m) for s in live for m in s.legal_moves()})
    rules = sorted({json.dumps(s.rules.to_json(), sort_keys=True) for s in states})
    tuples = [(s.masks, s.rules.core_options, s.rules.hand_size) for s in states] + _crafted_tuples(rnd)
    views = [view_dict(s) for s in live]
    views += [view_to_dict(s.view(seat)) for s in live[::3] for seat in range(s.rules.players)]
    records = [s.record().to_json() for s in states[::4] if s.history]
    matches = []
    for game in scopa.PRESETS:
        for i, plays in enumerate((0, 7, 40, 120)):
            m = Match(Rules.preset(game, target=rnd.choice([1, 3, 11])), seed=i, dealer=i % 2)
            for _ in range(plays):
                if m.is_over:
                    break
                m.play(rnd.choice(m.state.legal_moves()))
            matches.append((m.to_json(), [] if m.is_over else [str(x) for x in m.state.legal_moves()]))
            records.append(m.record().to_json())
    long = Match(Rules.preset("scopa", target=10_000), seed=9)
    while len(long.hands) < 60:
        long.play(rnd.choice(long.state.legal_moves()))
    return Corpus(
        states=states,
        live=live,
        small=small,
        strings=[s.to_string() for s in states],
        dicts=[s.to_dict() for s in states],
        views=views,
        moves=moves,
        rules=[json.loads(r) for r in rules],
        tuples=tuples,
        matches=matches,
        records=records,
        long_record=long.record().to_json(),
    )


# ------------------------------------------------------------------------------------ mutations


def materialize(obj: Any) -> Any:
    """``obj`` with every :class:`Raw` token replaced by its value (an already decoded object)."""
    if isinstance(obj, Raw):
        return obj.value
    if isinstance(obj, list):
        return [materialize(x) for x in obj]
    if isinstance(obj, dict):
        return {k: materialize(v) for k, v in obj.items()}
    return obj


def dump(obj: Any, ascii_only: bool = True) -> str:
    """JSON text of a tree that may hold :class:`Raw` tokens, NaN and lone surrogates."""
    if isinstance(obj, Raw):
        return obj.text
    if obj is None or isinstance(obj, bool):
        return json.dumps(obj)
    if isinstance(obj, int):
        return str(obj) if obj.bit_length() < 10_000 else "1" + "0" * 5000
    if isinstance(obj, float):
        if math.isnan(obj):
            return "NaN"
        if math.isinf(obj):
            return "Infinity" if obj > 0 else "-Infinity"
        return repr(obj)
    if isinstance(obj, str):
        return json.dumps(obj, ensure_ascii=ascii_only)
    if isinstance(obj, (list, tuple)):
        return "[" + ",".join(dump(x, ascii_only) for x in obj) + "]"
    if isinstance(obj, dict):
        return (
            "{" + ",".join(f"{dump(str(k), ascii_only)}:{dump(v, ascii_only)}" for k, v in obj.items()) + "}"
        )
    return json.dumps(str(obj))


def encode(text: str) -> bytes:
    """UTF-8 bytes of ``text``; a lone surrogate becomes the invalid bytes of its code point."""
    return text.encode("utf-8", "surrogatepass")


def _paths(obj: Any, path: tuple[Any, ...] = (), depth: int = 0) -> Iterator[tuple[Any, ...]]:
    yield path
    if depth > 8:
        return
    if isinstance(obj, list):
        for i, x in enumerate(obj[:60]):
            yield from _paths(x, (*path, i), depth + 1)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, (*path, k), depth + 1)


def _get(obj: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        obj = obj[p]
    return obj


def _copy(obj: Any) -> Any:
    if isinstance(obj, list):
        return [_copy(x) for x in obj]
    if isinstance(obj, dict):
        return {k: _copy(v) for k, v in obj.items()}
    return obj


def pick(pool: list[Any], rng: random.Random) -> Any:
    """A value of ``pool``, copied when it is a list or a dict (mutations change trees in
    place: the pool must stay as it is, so that every input depends on its seed alone)."""
    x = rng.choice(pool)
    return x if x is DEEP_LIST else _copy(x)  # (the deep one is never changed in place)


FIELD_NAMES = sorted(
    {"cmd", "id", "hands", "table", "stock", "captured", "scope", "turn", "last_capture", "dealer"}
    | {"rules", "history", "preset", "target", "capture_rule", "napola", "game", "postion"}
    | set(proto.FIELDS)
)


def hostile(rng: random.Random, like: Any = None) -> Any:
    """A hostile JSON value; sometimes one made from ``like`` (a neighbour of its value)."""
    r = rng.random()
    if r < 0.15 and isinstance(like, int) and not isinstance(like, bool):
        return like + rng.choice([-1, 1, -like - 1, like, 1 << rng.randrange(70), -(1 << rng.randrange(70))])
    if r < 0.3 and isinstance(like, str) and like:
        return mutate_text(like, rng, rng.randint(1, 3))
    if r < 0.38 and like is not None:
        return rng.choice([[like], {"x": like}, str(like)[:100], [like, like]])
    return pick(JSON_HOSTILE, rng)


def mutate_tree(obj: Any, rng: random.Random, n: int) -> Any:
    """``n`` JSON-level mutations of ``obj`` (a copy): replace, delete, insert or wrap a value."""
    obj = _copy(obj)
    for _ in range(n):
        paths = list(_paths(obj))
        path = rng.choice(paths)
        target = _get(obj, path)
        op = rng.random()
        if not path or op < 0.45:  # replace
            new = hostile(rng, target)
            if not path:
                if rng.random() < 0.3:
                    return new
                continue
            _get(obj, path[:-1])[path[-1]] = new
        elif op < 0.6:  # delete
            parent = _get(obj, path[:-1])
            del parent[path[-1]]
        elif op < 0.8:  # insert into the container at path (or its parent)
            box = target if isinstance(target, (list, dict)) else _get(obj, path[:-1])
            if isinstance(box, list):
                box.insert(rng.randint(0, len(box)), hostile(rng) if rng.random() < 0.7 else _copy(target))
            else:
                key = rng.choice(FIELD_NAMES) if rng.random() < 0.7 else mutate_text("id", rng, 2)
                box[key] = hostile(rng)
        else:  # wrap or duplicate
            parent = _get(obj, path[:-1])
            parent[path[-1]] = [target] if rng.random() < 0.5 else {"preset": target}
    return obj


def mutate_text(text: str, rng: random.Random, n: int) -> str:
    """``n`` character-level mutations of ``text``."""
    for _ in range(n):
        i = rng.randint(0, len(text))
        j = min(len(text), i + rng.randint(1, 12))
        op = rng.random()
        if op < 0.25:
            text = text[:i] + rng.choice(TEXT_TOKENS) + text[i:]
        elif op < 0.4:
            text = text[:i] + text[j:]
        elif op < 0.5:
            text = text[:j] + text[i:j] * rng.randint(1, 3) + text[j:]
        elif op < 0.6:
            text = text[:i]
        elif op < 0.75 and text:
            k = rng.randrange(len(text))
            text = (
                text[:k] + chr(rng.choice([rng.randrange(32, 127), rng.randrange(0x10000)])) + text[k + 1 :]
            )
        elif op < 0.85:
            text = text.swapcase() if rng.random() < 0.5 else text[::-1]
        else:
            digits = [k for k, ch in enumerate(text) if ch.isdigit()]
            if digits:
                k = rng.choice(digits)
                text = text[:k] + rng.choice(ODD_DIGITS) + text[k + 1 :]
    return text


def mutate_bytes(data: bytes, rng: random.Random, n: int) -> bytes:
    """``n`` byte-level mutations: flips, invalid UTF-8, deletions, duplications, truncation."""
    b = bytearray(data)
    for _ in range(n):
        i = rng.randint(0, len(b))
        j = min(len(b), i + rng.randint(1, 16))
        op = rng.random()
        if op < 0.25 and b:
            k = rng.randrange(len(b))
            b[k] ^= 1 << rng.randrange(8)
        elif op < 0.45:
            b[i:i] = rng.choice(INVALID_UTF8 if rng.random() < 0.8 else ODD_UTF8)
        elif op < 0.55 and b:
            b[rng.randrange(len(b))] = rng.randrange(256)
        elif op < 0.65:
            del b[i:j]
        elif op < 0.75:
            b[j:j] = b[i:j] * rng.randint(1, 4)
        elif op < 0.85:
            del b[i:]
        else:
            b[i:i] = encode(rng.choice(TEXT_TOKENS))
    return bytes(b)


def mutate_position_string(text: str, rng: random.Random) -> str:
    """Mutations of a position string's fields: hostile tokens (odd digits, numbers thousands of
    digits long, rule options), fields dropped, doubled or swapped, odd whitespace."""
    fields = text.split(" ")
    for _ in range(rng.randint(1, 3)):
        k = rng.randrange(len(fields))
        op = rng.random()
        if op < 0.4:
            parts = fields[k].split("/")
            j = rng.randrange(len(parts))
            parts[j] = rng.choice(
                [*ODD_DIGITS, *("-", "", "0", "1", "3", "-1", "18", "19", "255", "256", "1001", "2147483648")]
                + ["9" * 7, "9" * rng.choice([50, 500, 1500]), "7d7d", "7♦", "Ｋｃ", "xx", "0/0/0"]
            )
            fields[k] = "/".join(parts)
        elif op < 0.55:
            fields[0] = rng.choice(fields[0].split(";")[:1]) + rng.choice(
                [";target=16", ";target=²", ";target=" + "9" * 1500, ";target=0", ";target=10001"]
                + [";capture_rule=fewest", ";capture_rule=²", ";napola=true", ";napola=1", ";=1", ";x=y"]
                + [";target", ";game=scopone", ";preset=scopa", ";ace_sweep_is_scopa=true", ";", ";;"]
                + [";target=1;target=2", ";__class__=1", ";redeal_on_kings=false", ";target=-5"]
            )
        elif op < 0.65:
            del fields[k]
        elif op < 0.75:
            fields.insert(k, fields[k])
        elif op < 0.85:
            j = rng.randrange(len(fields))
            fields[k], fields[j] = fields[j], fields[k]
        else:
            fields[k] = mutate_text(fields[k], rng, 1)
    sep = rng.choice([" "] * 6 + ["  ", "\t", "\u3000", "\x1c", "\x85", "\n"])
    return sep.join(fields)


# ------------------------------------------------------------------------------- 1. the parsers

PARSERS: dict[str, Callable[[Any], Any]] = {
    "State.from_string": State.from_string,
    "State.from_json": State.from_json,
    "view_from_json": view_from_json,
    "Move.parse": Move.parse,
    "Card.parse": Card.parse,
    "CardSet.parse": CardSet.parse,
    "Rules.from_json": Rules.from_json,
    # and the protocol's other readers (load_record given objects only: it reads a string as a path)
    "Match.from_json": Match.from_json,
    "load_record": load_record,
}


def read_back(value: Any) -> str | None:
    """Why an accepted value cannot be written out and read back (None when it can)."""
    if isinstance(value, State):
        jsonio.dumps(value.to_dict())
        for how, back in (
            ("to_string", lambda: State.from_string(value.to_string())),
            ("to_json", lambda: State.from_json(value.to_json())),
            ("to_dict", lambda: State.from_json(value.to_dict())),
        ):
            if back() != value:
                return f"State.{how} does not read back as the same state"
    elif isinstance(value, Move):
        if Move.parse(str(value)) != value:
            return "str(move) does not read back"
    elif isinstance(value, Card):
        if Card.parse(str(value)) is not value:
            return "str(card) does not read back"
    elif isinstance(value, CardSet):
        if CardSet.parse(str(value)) != value:
            return "str(cards) does not read back"
    elif isinstance(value, Rules):
        jsonio.dumps(value.to_json())
        if Rules.from_json(value.to_json()) != value:
            return "rules.to_json() does not read back"
    elif isinstance(value, PlayerView):
        value.legal_moves()
        view_from_json(jsonio.loads(jsonio.dumps(view_to_dict(value))))
    elif isinstance(value, Match):
        if Match.from_json(jsonio.loads(jsonio.dumps(value.to_json()))).to_json() != value.to_json():
            return "match.to_json() does not read back"
    elif isinstance(value, MatchRecord):
        if load_record(jsonio.loads(jsonio.dumps(value.to_json()))).to_json() != value.to_json():
            return "record.to_json() does not read back"
    else:
        return f"returned a {type(value).__name__}"
    return None


def run_parser(name: str, arg: Any) -> Outcome:
    """Call one parser: accepted (and read back), rejected (a ScopaError) or other."""
    t0 = time.perf_counter()
    try:
        value = PARSERS[name](arg)
    except scopa_core.CoreError as exc:  # (a check the library missed: see REFUSALS)
        return Outcome(OTHER, _error(exc))
    except ScopaError as exc:
        try:
            if not str(exc):
                return Outcome(OTHER, f"{type(exc).__name__} with an empty message")
        except Exception as exc2:
            return Outcome(OTHER, "the error's message fails:\n" + _error(exc2))
        outcome = Outcome(REJECTED)
    except Exception as exc:
        return Outcome(OTHER, _error(exc))
    else:
        try:
            why = read_back(value)
        except Exception as exc:
            return Outcome(OTHER, "accepted, but fails to read back:\n" + _error(exc))
        outcome = Outcome(OTHER, why) if why else Outcome(ACCEPTED)
    elapsed = time.perf_counter() - t0
    if elapsed > SLOW:
        return Outcome(OTHER, f"took {elapsed:.2f} s")
    return outcome


def parser_case(rng: random.Random) -> tuple[str, Any]:
    """A mutated input for a random parser."""
    c = corpus()
    name = rng.choices(list(PARSERS), weights=[25, 25, 18, 8, 6, 6, 12, 8, 8])[0]
    mutate = rng.random() < 0.9
    if name == "State.from_string":
        text = rng.choice(c.strings)
        if mutate:
            text = mutate_position_string(text, rng)
            if rng.random() < 0.3:
                text = mutate_text(text, rng, rng.randint(1, 3))
        return name, text
    if name in ("State.from_json", "view_from_json"):
        obj = rng.choice(c.dicts if name == "State.from_json" else c.views)
        if mutate:
            obj = mutate_tree(obj, rng, rng.randint(1, 3))
        how = rng.random()
        if how < 0.5:
            return name, materialize(obj)
        text = dump(obj, ascii_only=rng.random() < 0.5)
        if how < 0.8:
            return name, mutate_text(text, rng, rng.randint(1, 2)) if rng.random() < 0.3 else text
        data = encode(text)
        return name, mutate_bytes(data, rng, rng.randint(1, 2)) if rng.random() < 0.5 else data
    if name == "Rules.from_json":
        obj = rng.choice(c.rules + list(scopa.PRESETS))
        return name, materialize(mutate_tree(obj, rng, rng.randint(1, 2))) if mutate else obj
    if name in ("Match.from_json", "load_record"):
        obj = rng.choice([m for m, _ in c.matches] if name == "Match.from_json" else c.records)
        obj = mutate_tree(obj, rng, rng.randint(1, 3)) if mutate else obj
        value = materialize(obj)
        return name, value if isinstance(value, dict) else {"format": value}
    if name == "Move.parse":
        text = rng.choice(c.moves)
    elif name == "Card.parse":
        text = str(rng.choice(scopa.DECK))
    else:
        text = " ".join(str(x) for x in rng.sample(scopa.DECK, rng.randint(0, 12))) or "-"
    if not mutate:
        return name, text
    if rng.random() < 0.12:
        return name, materialize(hostile(rng))
    return name, mutate_text(text, rng, rng.randint(1, 3))


# ------------------------------------------------------------------------------- 2. the protocol


def _ids(rng: random.Random) -> Any:
    return rng.choice([1, 7, -3, 2**53 - 1, "a", "req-1", "", "é", None])


def request_seed(rng: random.Random) -> dict[str, Any]:
    """A valid request of a random command (searches kept short: at most MAX_TIME anyway)."""
    c = corpus()
    cmd = rng.choice(list(proto.COMMANDS))
    req: dict[str, Any] = {"cmd": cmd}
    if rng.random() < 0.85:
        req["id"] = _ids(rng)

    def position(states: list[State]) -> Any:
        s = rng.choice(states)
        return s.to_string() if rng.random() < 0.5 else s.to_dict()

    if cmd == "legal":
        req["position"] = position(c.states)
    elif cmd == "play":
        s = rng.choice(c.live)
        req["position"] = s.to_string() if rng.random() < 0.5 else s.to_dict()
        req["move"] = str(rng.choice(s.legal_moves()))
    elif cmd in ("solve", "analyze"):
        req["position"] = position(c.small if rng.random() < 0.5 else c.live)
        if rng.random() < 0.6:
            req["node_limit"] = rng.choice([1, 10, 100, 2000])
        if rng.random() < 0.4:
            req["time_ms"] = rng.choice([1, 5, 20, 50])
        if rng.random() < 0.3:
            req["progress"] = rng.random() < 0.7
    elif cmd in ("bestmove", "evaluate"):
        req["view"] = rng.choice([v for v in c.views if v.get("seat", v["turn"]) == v["turn"]])
        if rng.random() < 0.8:
            req["player"] = rng.choice(list(scopa.players.PLAYERS)) if cmd == "bestmove" else "pimc"
        if rng.random() < 0.5:
            req["seed"] = rng.randrange(1 << 64)
        if rng.random() < 0.6:
            req["time_ms"] = rng.choice([1, 5, 20])
        if rng.random() < 0.2:
            req["node_limit"] = rng.choice([1, 100, 2000])
    elif cmd in ("view", "score", "svg"):
        s = rng.choice(c.states)
        req["position"] = s.to_string() if rng.random() < 0.5 else s.to_dict()
        if cmd == "view" or cmd == "svg" and rng.random() < 0.5:
            req["seat"] = rng.randrange(s.rules.players)
        if cmd == "svg" and rng.random() < 0.5:
            req["deck"] = rng.choice(["french", "italian", "spanish"])
        if cmd == "svg" and rng.random() < 0.5:
            req["size"] = rng.choice([8, 30, 48.5, 2000])
    elif cmd in ("deal", "match_new"):
        rules = rng.choice(c.rules + list(scopa.PRESETS))
        req["rules"] = rules
        if rng.random() < 0.6:
            req["seed"] = rng.randrange(1 << 64)
        if rng.random() < 0.5:
            req["dealer"] = rng.randrange(Rules.from_json(rules).players)
        if cmd == "match_new" and rng.random() < 0.5:
            req["target"] = rng.choice([1, 11, 21, 10_000])
            if isinstance(rules, dict) and "target" in rules:  # (a target given twice: the same)
                req["target"] = rules["target"]
    elif cmd == "match_play":
        match, moves = rng.choice([(m, ms) for m, ms in c.matches if ms])
        req["match"] = match
        req["move"] = rng.choice(moves)
    elif cmd == "match_resume":
        req["record"] = rng.choice(c.records)
        if rng.random() < 0.5:
            req["seed"] = rng.randrange(1 << 64)
    elif cmd == "match_record":
        req["match"] = rng.choice(c.matches)[0]
        if rng.random() < 0.5:
            req["tags"] = rng.choice([{}, {"Event": "fuzz", "Player0": "Ada"}, {"Round": "1"}])
    elif cmd == "review":
        req["record"] = c.long_record if rng.random() < 0.02 else rng.choice(c.records)
        if rng.random() < 0.5:
            req["time_ms"] = rng.choice([1, 5, 20])
        if rng.random() < 0.3:
            req["seed"] = rng.randrange(1 << 20)
        if rng.random() < 0.3:
            req["progress"] = rng.random() < 0.7
    elif cmd == "stop" and rng.random() < 0.5:
        req["search"] = _ids(rng) or 1
    return req


def protocol_line(rng: random.Random, mutate: bool = True) -> str | bytes:
    """A request line (str or bytes): a valid request, mutated at the JSON level, the text
    level or the byte level."""
    req: Any = request_seed(rng)
    if mutate and rng.random() < 0.85:
        req = mutate_tree(req, rng, rng.randint(1, 3))
    text = dump(req, ascii_only=rng.random() < 0.6)
    if mutate and rng.random() < 0.1 and text.startswith("{"):  # a key twice: the last one counts
        key = rng.choice(["cmd", "id", "position", "move", "node_limit", "time_ms"])
        text = "{" + dump(key) + ":" + dump(hostile(rng)) + "," + text[1:]
    if mutate and rng.random() < 0.25:
        text = mutate_text(text, rng, rng.randint(1, 3))
    if rng.random() < 0.5:
        return text
    data = encode(text)
    if mutate and rng.random() < 0.3:
        data = mutate_bytes(data, rng, rng.randint(1, 3))
    return data


def _text_depth(text: str) -> int:
    """How deep the arrays and objects of JSON ``text`` nest (brackets inside strings skipped;
    a key given twice counts with both its values, as the text holds them)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (ch == "\\", ch != '"')
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _utf8_strings(obj: Any) -> bool:
    """Whether every string in ``obj`` can be written as UTF-8 (no lone surrogate)."""
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            try:
                x.encode("utf-8")
            except UnicodeEncodeError:
                return False
        elif isinstance(x, dict):
            stack.extend(x)
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return True


def _no_constant(name: str) -> Any:
    raise ValueError(name)


def _finite(text: str) -> float:
    x = float(text)
    if math.isinf(x):  # strict JSON has no infinity, spelt out (above) or overflowing (1e999)
        raise ValueError(text)
    return x


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError("a key twice")
    return dict(pairs)


def expected_id(line: str | bytes) -> Any:
    """The id a reply to ``line`` must carry: the request's, when the line is strict JSON
    that the protocol may read (UTF-8, at most MAX_LINE characters, 32 deep, no lone
    surrogate, no number that overflows a float, no object with a key twice) and the id is
    valid (a string of at most 256 characters, an integer within 2**53-1, or null); None
    otherwise."""
    try:
        text = line.decode("utf-8") if isinstance(line, bytes) else line
        if len(text) > proto.MAX_LINE or _text_depth(text) > jsonio.MAX_DEPTH:
            return None
        obj = json.loads(
            text, parse_constant=_no_constant, parse_float=_finite, object_pairs_hook=_unique_keys
        )
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict) or not _utf8_strings(obj):
        return None
    x = obj.get("id")
    if (type(x) is str and len(x) <= 256) or (type(x) is int and abs(x) <= 2**53 - 1):
        return x
    return None


def _is_quit(line: str | bytes) -> bool:
    try:
        obj = json.loads(line, parse_constant=_no_constant, object_pairs_hook=_unique_keys)
    except (ValueError, RecursionError):
        return False
    return isinstance(obj, dict) and obj.get("cmd") == "quit"


def same_id(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


class ProtocolChecker:
    """Runs lines through one :class:`scopa.protocol.Protocol` and checks each reply."""

    def __init__(self, max_time: float = MAX_TIME) -> None:
        if jsonschema is None:
            raise RuntimeError("the protocol checks need jsonschema")
        self.protocol = proto.Protocol(max_time=max_time)
        self.validator = jsonschema.Draft202012Validator(proto.schema())

    def schema_error(self, message: Any) -> str | None:
        """Why ``message`` (a reply or an info line) is not valid (None when it is)."""
        try:
            text = jsonio.dumps(message)
        except Exception as exc:
            return "the reply cannot be written as strict JSON:\n" + _error(exc)
        decoded = json.loads(text)
        error = jsonschema.exceptions.best_match(self.validator.iter_errors(decoded))
        if error is not None:
            return f"the reply breaks the schema: {error.message[:500]} at {list(error.absolute_path)}"
        return None

    def run(self, line: str | bytes, info: bool = False) -> Outcome:
        """Handle one line (with ``info``, as parse then execute, collecting info lines)."""
        infos: list[dict[str, Any]] = []
        t0 = time.perf_counter()
        try:
            if info:
                try:
                    req = self.protocol.parse(line)
                except proto.RequestError as exc:
                    reply = exc.reply
                else:
                    reply = self.protocol.execute(req, None, infos.append)
            else:
                reply = self.protocol.handle(line)
        except Exception as exc:
            return Outcome(OTHER, "an exception escaped the protocol:\n" + _error(exc))
        elapsed = time.perf_counter() - t0
        if elapsed > SLOW:
            return Outcome(OTHER, f"the reply took {elapsed:.2f} s: {lit(reply, 300)}")
        return self.check(line, reply, infos)

    def check(self, line: str | bytes, reply: Any, infos: list[Any]) -> Outcome:
        if reply is None:
            if _is_quit(line):
                return Outcome(ACCEPTED)
            return Outcome(OTHER, "no reply (None) to a line that is not quit")
        if not isinstance(reply, dict):
            return Outcome(OTHER, f"the reply is a {type(reply).__name__}: {lit(reply)}")
        why = self.schema_error(reply)
        if why:
            return Outcome(OTHER, f"{why}\nreply: {lit(reply, 600)}")
        want = expected_id(line)
        if not same_id(reply.get("id"), want):
            return Outcome(OTHER, f"the reply's id is {lit(reply.get('id'))}, expected {lit(want)}")
        for message in infos:
            why = self.schema_error(message)
            if why or not same_id(message.get("id"), want):
                return Outcome(OTHER, f"bad info line ({why or 'wrong id'}): {lit(message, 600)}")
        error = reply.get("error")
        if error is None:
            return Outcome(ACCEPTED)
        if error["type"] in REFUSALS:
            return Outcome(REJECTED)
        return Outcome(OTHER, f"{error['type']}: {error['message'][:2000]}")


# ----------------------------------------------------------------------------------- 3. the core

SOLVER_CALLS = ("solve", "analyze", "horizon", "analyze_depth")
CORE_CALLS = (
    "captures",
    "legal_moves",
    "apply_move",
    "score",
    "primiera",
    "popcount",
    "shuffle",
    "deal",
    "playouts",
    "rollouts",
    *SOLVER_CALLS,
)
GEOMETRY = {"scopa": (2, 3, 4), "scopa4": (4, 3, 4), "scopone": (4, 9, 4), "scopone_scientifico": (4, 10, 0)}


class Flag:
    """A stand-in for a StopFlag, made for each core when the call is made (``set`` or not;
    ``foreign``: the other core's flag, which the core must refuse)."""

    def __init__(self, is_set: bool, foreign: bool = False) -> None:
        self.is_set = is_set
        self.foreign = foreign

    def __repr__(self) -> str:
        return f"Flag(set={self.is_set}{', foreign' if self.foreign else ''})"

    def make(self, core: ModuleType) -> Any:
        if self.foreign:
            others = [m for m in CORES if m is not core]
            if not others:
                return "a StopFlag of another core"
            core = others[0]
        flag = core.StopFlag()
        if self.is_set:
            flag.set()
        return flag


@dataclass
class CoreCase:
    """One core call: ``fn`` (a function, or a method of a fresh ``Solver(1)``) and its
    arguments; or, for ``fn == "sequence"``, the solver calls ``steps`` made on one Solver (its
    table reused, refused calls in between)."""

    fn: str
    args: list[Any]
    kwargs: dict[str, Any]
    steps: list[CoreCase] = field(default_factory=list)

    def call(self, core: ModuleType, solver: Any = None) -> Any:
        if self.fn == "sequence":
            solver = core.Solver(1)
            out: list[tuple[str, Any, ValueError | None]] = []
            for step in self.steps:
                try:
                    out.append((step.fn, step.call(core, solver), None))
                except ValueError as exc:
                    out.append((step.fn, None, exc))
            return out
        args = [a.make(core) if isinstance(a, Flag) else a for a in self.args]
        kwargs = {k: v.make(core) if isinstance(v, Flag) else v for k, v in self.kwargs.items()}
        if self.fn in (*SOLVER_CALLS, "clear"):
            return getattr(solver or core.Solver(1), self.fn)(*args, **kwargs)
        return getattr(core, self.fn)(*args, **kwargs)

    def repro(self, core: str = "scopa_core._core", show: Callable[[Any], str] | None = None) -> str:
        """The call as Python (its arguments shortened, unless ``show`` writes them)."""
        if self.fn == "sequence":
            return f"s = {core}.Solver(1); " + "; ".join(step.repro("s", show) for step in self.steps)
        show = show or (lambda a: lit(a, 300))
        args = [show(a) for a in self.args] + [f"{k}={show(v)}" for k, v in self.kwargs.items()]
        if core == "s":
            target = f"s.{self.fn}"
        elif self.fn in SOLVER_CALLS:
            target = f"{core}.Solver(1).{self.fn}"
        else:
            target = f"{core}.{self.fn}"
        return f"{target}({', '.join(args)})"


def _random_mask(rng: random.Random, most: int = 10) -> int:
    m = 0
    for c in rng.sample(range(40), rng.randint(0, most)):
        m |= 1 << c
    return m


def core_seed(rng: random.Random, fn: str | None = None) -> CoreCase:
    """A valid call of a random core function (or of ``fn``), on a corpus position."""
    c = corpus()
    fn = fn or rng.choice(CORE_CALLS)
    if fn == "clear":
        return CoreCase(fn, [], {})
    pos, opts, block = rng.choice(c.tuples)
    hand = pos[0][pos[5]]
    moves = twin._legal_moves(hand, pos[1], opts) if hand else [(rng.randrange(40), 0)]
    if fn == "captures":
        return CoreCase(fn, [rng.randrange(40), rng.choice([pos[1], _random_mask(rng, 14)]), opts], {})
    if fn == "legal_moves":
        return CoreCase(fn, [hand, pos[1], opts], {})
    if fn == "apply_move":
        return CoreCase(fn, [pos, *rng.choice(moves), opts, block], {})
    if fn == "score":
        return CoreCase(fn, [*pos[3], *pos[4], opts], {})
    if fn == "primiera":
        return CoreCase(fn, [rng.choice(pos[3]), opts], {})
    if fn == "popcount":
        return CoreCase(fn, [rng.getrandbits(rng.choice([8, 40, 64]))], {})
    if fn == "shuffle":
        return CoreCase(fn, [rng.getrandbits(64)], {})
    geometry = list(rng.choice(list(GEOMETRY.values())))
    if fn == "deal":
        return CoreCase(fn, [*geometry, opts, rng.getrandbits(64)], {})
    if fn == "playouts":
        return CoreCase(fn, [*geometry, opts, rng.randint(0, 4), rng.getrandbits(64)], {})
    if fn == "rollouts":
        args = [pos, opts, block, rng.randint(0, 8), rng.getrandbits(64)]
        if rng.random() < 0.5:
            args.append(rng.randint(0, 1))  # the playout policy: uniform or heuristic
        return CoreCase(fn, args, {})
    if fn == "analyze":
        s = rng.choice(c.small)
        return CoreCase(fn, [s.masks, s.rules.core_options, s.rules.hand_size], {})
    kwargs: dict[str, Any] = {"node_limit": rng.choice([1, 10, 100, 500, 2000])}
    if rng.random() < 0.3:
        kwargs["time_limit"] = rng.choice([0, 0.0, 0.001, 0.05])
    if rng.random() < 0.2:
        kwargs["stop"] = Flag(rng.random() < 0.5)
    args = [pos, opts, block]
    if fn == "solve":
        if rng.random() < 0.3:
            kwargs["guess"] = rng.randint(-30, 30)
        if rng.random() < 0.3:
            kwargs["pv"] = rng.random() < 0.5
        if rng.random() < 0.3:
            kwargs["threads"] = rng.randint(1, 3)
    else:
        args.append(rng.randint(1, 6))
        if fn == "horizon" and rng.random() < 0.3:
            kwargs["first"] = rng.choice(moves)
    return CoreCase(fn, args, kwargs)


def _mutate_pos(pos: Any, rng: random.Random) -> Any:
    """One mutation of a position tuple (or the same tuple when none applies)."""
    parts: list[Any] = [list(x) if isinstance(x, (tuple, list)) else x for x in pos]
    hands, table, turn = parts[0], parts[1], parts[5]
    op = rng.random()
    if op < 0.1:
        return pick(CORE_HOSTILE, rng)
    if op < 0.2:  # shorter or longer than the format
        k = rng.randint(0, 6)
        return tuple(pos[:k]) if rng.random() < 0.7 else (*pos, pick(CORE_HOSTILE, rng))
    k = rng.randrange(7)
    if op < 0.5:
        parts[k] = pick(CORE_HOSTILE, rng)
    elif op < 0.7 and isinstance(parts[k], list):
        seq = parts[k]
        sub = rng.random()
        if sub < 0.4 and seq:
            seq[rng.randrange(len(seq))] = pick(CORE_HOSTILE, rng)
        elif sub < 0.6 and seq:
            del seq[rng.randrange(len(seq)) :]
        elif sub < 0.8:
            seq.append(pick(CORE_HOSTILE, rng) if rng.random() < 0.5 else (seq[0] if seq else 0))
        elif seq:
            seq[rng.randrange(len(seq))] = rng.choice([-1, 0, 1, 40, 2**40, 255, 256, 1000, 2**31])
    elif op < 0.8 and isinstance(hands, list) and hands and type(turn) is int:
        # the seat to move with no cards, or a card in two places
        seat = turn % len(hands)
        if rng.random() < 0.5:
            hands[seat] = 0
        elif type(hands[seat]) is int and type(table) is int:
            parts[1] = table | (hands[seat] & -hands[seat])
    elif op < 0.9:  # scope past 2**31, past 1000, past 255
        parts[4] = [rng.choice([2**31, 2**32, 1000, 1001, 255, 256, -1]), rng.choice([0, 2**31])]
    else:  # other seats, last capturer
        parts[5] = rng.choice([-1, 2, 4, 5, True])
        parts[6] = rng.choice([-2, -1, 0, 1, 2, None])
    as_tuple = rng.random() < 0.8
    return tuple(tuple(p) if as_tuple and isinstance(p, list) else p for p in parts)


def mutate_core(case: CoreCase, rng: random.Random) -> CoreCase:
    """One to three mutations of a core call's arguments (hostile values in any argument and
    inside the position tuple)."""
    args, kwargs = list(case.args), dict(case.kwargs)
    for _ in range(rng.randint(1, 3)):
        slots = len(args) + len(kwargs) + 1
        k = rng.randrange(slots)
        if k < len(args) and isinstance(args[k], tuple) and len(args[k]) == 7 and rng.random() < 0.7:
            args[k] = _mutate_pos(args[k], rng)
        elif k < len(args):
            args[k] = pick(CORE_HOSTILE, rng) if rng.random() < 0.8 else _bump(args[k], rng)
        elif case.fn in SOLVER_CALLS:
            key = rng.choice(["node_limit", "time_limit", "stop", "guess", "pv", "first"])
            if case.fn != "solve" and key in ("guess", "pv"):
                key = "first" if case.fn == "horizon" else "node_limit"
            if case.fn != "horizon" and key == "first":
                key = "stop"
            if case.fn == "analyze":
                continue
            kwargs[key] = pick([*CORE_HOSTILE, Flag(True, foreign=True), Flag(False), Flag(True)], rng)
    return CoreCase(case.fn, args, kwargs)


def _bump(x: Any, rng: random.Random) -> Any:
    if type(x) is int:
        return x + rng.choice([-1, 1, 1 << 40, 1 << 64, -(1 << 64)])
    return x


def _valid_int(x: Any, lo: int, hi: int) -> bool:
    return type(x) is int and lo <= x <= hi


def bounded(case: CoreCase) -> CoreCase:
    """The call with its cost bounded whatever the mutations made of it: few hands in
    playouts and rollouts, a node limit on every search, analyze only with few plays left."""
    args, kwargs = list(case.args), dict(case.kwargs)
    if case.fn == "playouts" and len(args) > 4 and _valid_int(args[4], 21, 1 << 62):
        args[4] = 20
    if case.fn == "rollouts" and len(args) > 3 and _valid_int(args[3], 31, 1 << 62):
        args[3] = 30
    fn = case.fn
    if fn == "analyze":
        try:
            _checks.check_tuple(args[0], args[2])
            _checks.check_playable(args[0])
            big = plays_left(args[0]) > 8
        except Exception:
            big = False  # refused: cheap
        if big:
            fn, kwargs = "solve", {"node_limit": 500}
    if fn in SOLVER_CALLS and fn != "analyze":
        n = kwargs.get("node_limit", 0)
        if _valid_int(n, 0, (1 << 62) - 1) and not 1 <= n <= 2000:
            kwargs["node_limit"] = 2000
        t = kwargs.get("time_limit")
        if isinstance(t, (int, float)) and not isinstance(t, bool) and 0.2 < t <= 1e9:
            kwargs["time_limit"] = 0.2
    return CoreCase(fn, args, kwargs)


def core_case(rng: random.Random) -> CoreCase:
    """A core call, mutated; one in ten a sequence of solver calls on one Solver."""
    if rng.random() < 0.1:
        steps = []
        for _ in range(rng.randint(2, 4)):
            step = core_seed(rng, rng.choice([*SOLVER_CALLS, "solve", "clear"]))
            if rng.random() < 0.5:
                step = mutate_core(step, rng)
            steps.append(bounded(step))
        return CoreCase("sequence", [], {}, steps)
    case = core_seed(rng)
    if rng.random() < 0.8:
        case = mutate_core(case, rng)
    return bounded(case)


def _plain(x: Any) -> Any:
    """A result as plain JSON values (for comparing cores, across processes too)."""
    if isinstance(x, np.ndarray):
        return {"dtype": str(x.dtype), "shape": list(x.shape), "data": x.tolist()}
    if isinstance(x, (tuple, list)):
        return [_plain(v) for v in x]
    return x


def fingerprint(fn: str, result: Any, exc: BaseException | None) -> list[Any]:
    """What the two cores must agree on: the exception's type and message, or the part of
    the result that does not depend on the search's order (a limited search may stop in a
    different place on each core: its bounds must overlap)."""
    if exc is not None:
        return ["raise", type(exc).__name__, str(exc)]
    if fn == "sequence":
        return ["ok", [[step, fingerprint(step, r, e)] for step, r, e in result]]
    if fn == "solve":
        return ["ok", [result[0], result[1], result[2]]]
    if fn == "horizon":
        return ["ok", None if result is None else result[0]]
    return ["ok", _plain(result)]


def _describe(fp: list[Any]) -> str:
    """What a core did, from its fingerprint, in words (the position tuple left out)."""
    if fp[0] != "raise":
        return f"returned {lit(fp[1], 300)}"
    message = str(fp[2]) if len(fp) > 2 else ""
    if message.startswith("bad position tuple ("):
        head, sep, reason = message.rpartition("): ")
        message = (
            f"bad position tuple <pos>: {reason}" if sep else "bad position tuple <pos> (no reason given)"
        )
    return f"raised {fp[1]}: {message[:300]}"


def disagreement(fn: str, a: list[Any], b: list[Any], core: str = "compiled") -> str | None:
    """How fingerprint ``b`` of ``core`` disagrees with ``a``, the twin's (None: it agrees)."""
    if a[0] == "raise" or b[0] == "raise":
        ok = a == b
    elif fn == "sequence":
        whys = [disagreement(step, x, y, core) for (step, x), (_, y) in zip(a[1], b[1], strict=True)]
        return next((f"step {k} of the sequence, {w}" for k, w in enumerate(whys) if w), None)
    elif fn == "solve":
        (ea, la, ha), (eb, lb, hb) = a[1], b[1]
        ok = la == lb if ea and eb else max(la, lb) <= min(ha, hb)
    elif fn in ("horizon", "analyze_depth"):
        ok = a[1] is None or b[1] is None or a[1] == b[1]
    else:
        ok = a[1] == b[1]
    return None if ok else f"{fn}: the twin {_describe(a)}; the {core} core {_describe(b)}"


def invariant(case: CoreCase, result: Any) -> str | None:
    """Why a core's result is impossible (None when it is not): bounds out of order, a best
    move that is not legal, a principal variation that does not replay to the value, a
    position tuple the core itself would refuse."""
    fn = case.fn
    if fn == "sequence":
        whys = [
            invariant(step, r) if e is None else None
            for step, (_, r, e) in zip(case.steps, result, strict=True)
        ]
        return next((f"step {k}: {w}" for k, w in enumerate(whys) if w), None)
    if fn in SOLVER_CALLS or fn in ("rollouts", "apply_move"):
        pos, opts, block = case.args[0], case.args[1], case.args[2] if fn != "apply_move" else case.args[4]
        if fn == "apply_move":
            opts = case.args[3]
    if fn == "apply_move":
        try:
            _checks.check_tuple(result, block)
        except ValueError as exc:
            return f"apply_move returned a bad tuple: {exc}"
        return None
    if fn == "rollouts":
        ok = isinstance(result, list) and len(result) == case.args[3] and all(type(d) is int for d in result)
        return None if ok else f"rollouts returned {lit(result)}"
    if fn == "playouts":
        points, breakdown = result
        n = case.args[4]
        ok = points.shape == (n, 2) and breakdown.shape == (n, 2, twin.NCAT) and points.dtype == np.int16
        return None if ok else "playouts returned arrays of the wrong shape"
    if fn not in SOLVER_CALLS:
        return None
    hands, table, turn = pos[0], pos[1], pos[5]
    legal = twin._legal_moves(hands[turn], table, opts)
    if fn == "solve":
        exact, lower, upper, card, cap, pv, nodes = result
        if lower > upper or exact != (lower == upper) or nodes < 0:
            return f"solve returned bounds {lower}..{upper} with exact={exact}"
        if card != -1 and (card, cap) not in legal:
            return f"solve's best move ({card}, {cap}) is not legal"
        p = pos
        for c, m in pv:
            if (c, m) not in twin._legal_moves(p[0][p[5]], p[1], opts):
                return f"solve's principal variation plays an illegal move ({c}, {m})"
            p = twin._apply(p, c, m, opts, block)
        if exact and pv and len(pv) == plays_left(pos) and twin.replay(pos, pv, opts, block) != lower:
            return "solve's principal variation does not replay to its value"
        return None
    if fn == "horizon":
        if result is not None and tuple(result[1:]) not in legal:
            return f"horizon's move {result[1:]} is not legal"
        return None
    if fn in ("analyze", "analyze_depth") and result is not None:
        if [(c, m) for c, m, _ in result] != legal:
            return f"{fn} does not value every legal move once, in order"
    return None


def call_core(case: CoreCase, core: ModuleType) -> tuple[Outcome, list[Any]]:
    """One core's outcome on ``case`` and its fingerprint."""
    try:
        result = case.call(core)
    except scopa_core.CoreError as exc:  # (a bare ValueError is other: the core raises its own)
        try:
            text = str(exc)
        except Exception as exc2:
            return Outcome(OTHER, "the error's message fails:\n" + _error(exc2)), ["raise"]
        return Outcome(REJECTED), fingerprint(case.fn, None, exc) if text else ["raise", "empty"]
    except Exception as exc:
        return Outcome(OTHER, _error(exc)), fingerprint(case.fn, None, exc)
    try:
        why = invariant(case, result)
        fp = fingerprint(case.fn, result, None)
    except Exception as exc:
        return Outcome(OTHER, "the result cannot be checked:\n" + _error(exc)), ["bad"]
    return (Outcome(OTHER, why) if why else Outcome(ACCEPTED)), fp


def run_core(make: Callable[[], CoreCase], cores: list[ModuleType]) -> dict[str, Outcome]:
    """``make()``'s call on each core (a fresh copy of its arguments for each): each core's
    outcome, a core other than the twin counting as other when it disagrees with the twin."""
    outcomes: dict[str, Outcome] = {}
    ref: list[Any] | None = None
    for core in cores:
        case = make()
        outcome, fp = call_core(case, core)
        if core is twin:
            ref = fp
        elif ref is not None and outcome.kind != OTHER:
            why = disagreement(case.fn, ref, fp, CORE_NAMES.get(core.__name__, core.__name__))
            if why:
                outcome = Outcome(OTHER, f"the cores differ on {why}")
        outcomes[core.__name__] = outcome
    return outcomes


# ------------------------------------------------------------------------------ 4. the engine

ENGINE = [sys.executable, "-m", "scopa", "engine", "--max-time", str(MAX_TIME)]
LAST_PING = b'{"cmd":"ping","id":"last"}'


def engine_lines(rng: random.Random, n: int, tag: str) -> list[bytes]:
    """``n`` mutated request lines as bytes (blank ones, invalid UTF-8 and odd endings among
    them); each seed request gets a unique id, which the mutations may break."""
    out = []
    for i in range(n):
        r = rng.random()
        if r < 0.03:
            out.append(rng.choice([b"", b"   ", b"\t", b"\r", b"\x0c"]))
            continue
        req: Any = request_seed(rng)
        req["id"] = f"{tag}-{i}"
        if req["cmd"] == "stop" and i and rng.random() < 0.6:  # stop one of the searches just asked for
            req["search"] = f"{tag}-{i - rng.randint(1, min(i, 6))}"
        if rng.random() < 0.85:
            req = mutate_tree(req, rng, rng.randint(1, 3))
        data = encode(dump(req, ascii_only=rng.random() < 0.6))
        if rng.random() < 0.3:
            data = mutate_bytes(data, rng, rng.randint(1, 3))
        if rng.random() < 0.05:
            data += b"\r"
        out.append(data)
    return out


@dataclass
class EngineRun:
    """The outcome of one engine session: a tally per line and the session's own failures."""

    tally: Tally
    seconds: float
    stderr: str
    errors: Counter[str] = field(default_factory=Counter)  # error replies by type


def engine_reads(lines: list[bytes]) -> list[bytes]:
    """The lines as the engine reads them (split at newlines), a valid quit made a ping."""
    out = []
    for chunk in lines:
        for line in chunk.split(b"\n"):
            if len(line) <= proto.MAX_LINE and _is_quit(line):
                try:
                    if proto.Protocol().parse(line).cmd == "quit":
                        line = b'{"cmd":"ping","id":"quit"}'
                except proto.RequestError:
                    pass
            out.append(line)
    return out


def run_engine(lines: list[bytes], name: str = "engine", timeout: float | None = None) -> EngineRun:
    """Feed ``lines`` and a last ping to ``python -m scopa engine``, then end its input: every
    non-blank line must get one reply (schema-valid, carrying the request's id when it could
    be read), a blank line none, the ping its pong, and the engine must exit with status 0.
    Replies may come out of order (searches run in a worker thread), so they are matched to
    the lines by their ids."""
    tally = Tally(name)
    sent = engine_reads(lines)
    want: Counter[str] = Counter()
    for line in sent:
        if line.strip():
            want[json.dumps(expected_id(line) if len(line) <= proto.MAX_LINE else None)] += 1
        else:  # a blank line: accepted when it gets no reply (the counts of replies below tell)
            tally.counts[ACCEPTED] += 1
    payload = b"\n".join(sent) + b"\n" + LAST_PING + b"\n"
    timeout = timeout or 60 + 0.2 * len(sent)
    checker = ProtocolChecker()
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(ENGINE, input=payload, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        tally.counts[OTHER] += sum(want.values())
        tally.others.append((name, f"the engine did not finish within {timeout:.0f} s"))
        return EngineRun(tally, time.perf_counter() - t0, (exc.stderr or b"").decode("utf-8", "replace"))
    seconds = time.perf_counter() - t0
    replies: list[tuple[str, Outcome]] = []  # (id, outcome) of each reply but info lines
    errors: Counter[str] = Counter()
    for out_line in proc.stdout.splitlines():
        try:
            reply = json.loads(out_line)
        except ValueError:
            tally.add(Outcome(OTHER, f"not JSON: {lit(out_line)}"), name)
            continue
        why = checker.schema_error(reply) if isinstance(reply, dict) else "not an object"
        if why:
            tally.add(Outcome(OTHER, f"{why}: {lit(reply, 600)}"), name)
            continue
        if "info" in reply:
            continue
        error = reply.get("error")
        if error is not None:
            errors[error["type"]] += 1
        if error is None:
            outcome = Outcome(ACCEPTED)
        elif error["type"] in REFUSALS:
            outcome = Outcome(REJECTED)
        else:
            outcome = Outcome(OTHER, f"{error['type']}: {error['message'][:2000]}")
        replies.append((json.dumps(reply.get("id")), outcome))
    want[json.dumps("last")] += 1
    got = Counter(key for key, _ in replies)
    extra, missing = got - want, want - got
    unexpected = dict(extra)
    for key, outcome in replies:
        if extra[key] > 0:  # a reply whose id no request line had
            extra[key] -= 1
            outcome = Outcome(OTHER, f"a reply with id {key}: replies missing for ids {dict(missing)}")
        if key != json.dumps("last"):
            tally.add(outcome, name)
    unanswered = sum(missing.values()) - sum(unexpected.values())
    if unanswered > 0 or missing[json.dumps("last")]:
        tally.counts[OTHER] += max(unanswered, 1)
        tally.others.append(
            (name, f"no reply to {unanswered} line(s): ids {dict(list(missing.items())[:10])}")
        )
    if proc.returncode != 0:
        tally.counts[OTHER] += 1
        tally.others.append(
            (name, f"exit status {proc.returncode}: {proc.stderr.decode('utf-8', 'replace')[-3000:]}")
        )
    return EngineRun(tally, seconds, proc.stderr.decode("utf-8", "replace"), errors)


# ------------------------------------------------------------------------ cases by their number

TARGETS = ("parsers", "protocol", "core", "engine")


def rng_for(target: str, seed: int, index: int) -> random.Random:
    """The generator of input ``index`` of a run with ``seed``: each input can be made again alone."""
    return random.Random(f"{target}/{seed}/{index}")


def parser_input(seed: int, index: int) -> tuple[str, Any]:
    return parser_case(rng_for("parsers", seed, index))


def protocol_input(seed: int, index: int) -> tuple[str | bytes, bool]:
    rng = rng_for("protocol", seed, index)
    return protocol_line(rng), rng.random() < 0.3


def core_input(seed: int, index: int) -> CoreCase:
    return core_case(rng_for("core", seed, index))


# ===================================================================================== the tests

N_PARSERS = 1500 if TWIN_RUN else 4000
N_PROTOCOL = 300 if TWIN_RUN else 1200
N_CORE = 800 if TWIN_RUN else 2000
N_ENGINE = 120 if TWIN_RUN else 300
HYPOTHESIS = 100 if TWIN_RUN else 250
needs_jsonschema = pytest.mark.skipif(jsonschema is None, reason="needs jsonschema")


def test_corpus_is_valid():
    # The seeds are valid inputs: the parsers accept them, the core plays on its tuples.
    c = corpus()
    assert {s.rules.game for s in c.states} == set(scopa.PRESETS) and c.small and c.live
    for text, d, s in zip(c.strings, c.dicts, c.states, strict=True):
        assert State.from_string(text) == s == State.from_json(d)
    for v in c.views:
        view_from_json(v)
    for pos, _, block in c.tuples:
        _checks.check_tuple(pos, block)
        _checks.check_playable(pos)
    for core in CORES:
        for pos, opts, block in c.tuples[:40]:
            if any(pos[0]):
                core.rollouts(pos, opts, block, 2, 1)


def test_parsers_mutation_fuzz():
    tally = Tally("parsers (mutation)")
    per = Counter()
    for i in range(N_PARSERS):
        name, arg = parser_input(1, i)
        per[name] += 1
        tally.add(run_parser(name, arg), lambda name=name, arg=arg, i=i: f"#{i} {name}({lit(arg)})")
    print(dict(per))
    tally.check()


def test_parsers_roundtrip_the_corpus():
    tally = Tally("parsers (seeds)")
    c = corpus()
    for name, args in (
        ("State.from_string", c.strings),
        ("State.from_json", c.dicts + [s.to_json() for s in c.states]),
        ("view_from_json", c.views),
        ("Move.parse", c.moves),
        ("Card.parse", [str(x) for x in scopa.DECK] + ["7♦", "kC", " Qs "]),
        ("Rules.from_json", c.rules),
        ("Match.from_json", [m for m, _ in c.matches]),
        ("load_record", [*c.records, c.long_record]),
    ):
        for arg in args:
            tally.add(run_parser(name, arg), f"{name}({lit(arg)})")
    tally.check()
    assert tally.counts[REJECTED] == 0


json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30)
    | st.sampled_from([x for x in JSON_HOSTILE if not isinstance(x, Raw)])
)
json_values = st.recursive(
    json_scalars,
    lambda kids: st.lists(kids, max_size=6) | st.dictionaries(st.text(max_size=12), kids, max_size=6),
    max_leaves=20,
)
card_texts = st.text(alphabet="A234567JQKajqkdcsbDCSBx♦♥♠♣ /-,²٣", max_size=12)


@st.composite
def position_objects(draw: st.DrawFn) -> Any:
    """A corpus position (dict) with hypothesis' values in some of its fields."""
    c = corpus()
    d = dict(draw(st.sampled_from(c.dicts + c.views)))
    for key in draw(st.lists(st.sampled_from([*d, "history", "extra"]), max_size=3)):
        d[key] = draw(json_values)
    return d


def _hypothesis_settings(n: int) -> Callable[[Any], Any]:
    return settings(max_examples=n, derandomize=True, database=None)


def test_parsers_hypothesis():
    tally = Tally("parsers (hypothesis)")

    @_hypothesis_settings(HYPOTHESIS)
    @given(
        st.sampled_from(list(PARSERS)),
        json_values
        | card_texts
        | position_objects()
        | st.sampled_from(corpus().strings).map(lambda s: s[:-3]),
    )
    def check(name: str, arg: Any) -> None:
        outcome = tally.add(run_parser(name, arg), f"{name}({lit(arg)})")
        assert outcome.kind != OTHER, outcome.detail

    run_hypothesis(check, tally)


@needs_jsonschema
def test_protocol_mutation_fuzz():
    tally = Tally("protocol (mutation)")
    checker = ProtocolChecker()
    for i in range(N_PROTOCOL):
        line, info = protocol_input(1, i)
        tally.add(
            checker.run(line, info),
            lambda line=line, i=i: f"#{i} Protocol(max_time=0.05).handle({lit(line)})",
        )
    tally.check()


@needs_jsonschema
def test_protocol_answers_every_valid_request():
    # Unmutated requests of every command: all accepted (a valid quit answers None).
    tally = Tally("protocol (seeds)")
    checker = ProtocolChecker()
    rng = random.Random(5)
    seen = Counter()
    for i in range(150 if TWIN_RUN else 300):
        line = protocol_line(rng, mutate=False)
        seen[json.loads(line)["cmd"]] += 1
        tally.add(checker.run(line, info=i % 2 == 0), f"handle({lit(line)})")
    print(dict(seen))
    assert set(seen) == set(proto.COMMANDS)
    tally.check()
    assert tally.counts[REJECTED] == 0


request_objects = st.fixed_dictionaries(
    {"cmd": st.sampled_from(list(proto.COMMANDS)) | json_values},
    optional={
        "id": st.none() | st.integers() | st.text(max_size=300) | json_values,
        "position": st.sampled_from(corpus().strings) | position_objects() | json_values,
        "view": position_objects() | json_values,
        "move": st.sampled_from(corpus().moves) | card_texts | json_values,
        "time_ms": st.floats(min_value=-1, max_value=100) | json_values,
        "node_limit": st.integers(min_value=-5, max_value=2**64) | json_values,
        "progress": st.booleans() | json_values,
        "player": st.sampled_from(list(scopa.players.PLAYERS)) | json_values,
        "seed": st.integers(min_value=-1, max_value=2**65) | json_values,
        "search": json_values,
        "extra": json_values,
    },
)


@needs_jsonschema
def test_protocol_hypothesis():
    tally = Tally("protocol (hypothesis)")
    checker = ProtocolChecker()

    @_hypothesis_settings(HYPOTHESIS)
    @given(request_objects, st.booleans(), st.booleans())
    def check(req: dict[str, Any], as_bytes: bool, ascii_only: bool) -> None:
        text = dump(req, ascii_only)
        line: str | bytes = encode(text) if as_bytes else text
        outcome = tally.add(checker.run(line, info=as_bytes), f"handle({lit(line)})")
        assert outcome.kind != OTHER, outcome.detail

    run_hypothesis(check, tally)


def test_core_mutation_fuzz():
    tallies = {core.__name__: Tally(f"core {CORE_NAMES[core.__name__]} (mutation)") for core in CORES}
    calls = Counter()
    for i in range(N_CORE):
        calls[core_input(1, i).fn] += 1
        for name, outcome in run_core(lambda i=i: core_input(1, i), CORES).items():
            tallies[name].add(outcome, lambda i=i, name=name: f"#{i} " + core_input(1, i).repro(name))
    print(dict(calls))
    for tally in tallies.values():
        print(tally.row())
    for tally in tallies.values():
        tally.check()


# (indices, not sampled_from(CORE_HOSTILE): hypothesis before 6.96 wrote that strategy's repr
# with HUGE in it, which Python since 3.10.7 refuses to convert to a string)
core_ints = st.integers() | st.integers(0, len(CORE_HOSTILE) - 1).map(lambda i: CORE_HOSTILE[i])


@st.composite
def core_calls(draw: st.DrawFn) -> CoreCase:
    """A corpus call with hypothesis' values in one or two of its arguments."""
    case = core_seed(random.Random(draw(st.integers(0, 10**6))))
    args = list(case.args)
    for k in draw(st.lists(st.integers(0, len(args) - 1), max_size=2)):
        if isinstance(args[k], tuple) and len(args[k]) == 7 and draw(st.booleans()):
            pos = list(args[k])
            j = draw(st.integers(0, 6))
            pos[j] = draw(core_ints | st.tuples(core_ints, core_ints) | st.lists(core_ints, max_size=5))
            args[k] = tuple(pos)
        else:
            args[k] = draw(core_ints | st.floats() | st.none() | st.text(max_size=3))
    return bounded(CoreCase(case.fn, args, case.kwargs))


def test_core_hypothesis():
    tallies = {core.__name__: Tally(f"core {CORE_NAMES[core.__name__]} (hypothesis)") for core in CORES}

    @_hypothesis_settings(HYPOTHESIS)
    @given(core_calls())
    def check(case: CoreCase) -> None:
        # the same case for each core: nothing here is mutated in place
        outcomes = run_core(lambda: case, CORES)
        for name, outcome in outcomes.items():
            tallies[name].add(outcome, case.repro(name))
            assert outcome.kind != OTHER, f"{case.repro(name)}: {outcome.detail}"

    run_hypothesis(check, *tallies.values())


@needs_jsonschema
def test_engine_subprocess_answers_every_line():
    # Mutated lines, invalid UTF-8, blank lines, a line over MAX_LINE and one of exactly
    # MAX_LINE characters: one reply each (searches queue: extras get Busy), then the last
    # ping, then exit status 0 at the end of input.
    rng = random.Random(3)
    lines = engine_lines(rng, N_ENGINE, "t")
    lines += [b"\xff\xfe", b'{"cmd":"ping","id":"\xed\xa0\x80"}', b"[" * 1000 + b"]" * 1000, b"   "]
    lines += [b'{"cmd":"ping","id":"long","pad":"' + b"x" * proto.MAX_LINE + b'"}']
    body = b'{"cmd":"ping","id":"max","pad":"'  # MAX_LINE characters: the longest line accepted
    lines += [body + b"x" * (proto.MAX_LINE - len(body) - 2) + b'"}']
    full = State.deal("scopone_scientifico", seed=1).to_string().encode()  # no search ends early
    lines += [b'{"cmd":"solve","id":' + str(i).encode() + b',"position":"' + full + b'"}' for i in range(20)]
    run = run_engine(lines, "engine (subprocess)")
    print(f"{run.tally.row()} in {run.seconds:.1f} s; errors {dict(run.errors)}")
    run.tally.check()
    assert run.tally.counts[ACCEPTED] > 10 and run.tally.counts[REJECTED] > 10
    assert run.errors["Busy"] > 0  # the 20 searches at the end overflow the queue of 16


# ------------------------------------------------------------------------ known crash causes

SMALL = "scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1"
#: The fields of a position string with every number in it: scope, turn, last_capture, dealer.
NUMBERED = "scopa 7d/Kc 3c - As/- {scope}/0 {turn} {last} {dealer}"


def _position_string(field: str, value: str) -> str:
    if field == "target":
        return f"scopa;target={value} 7dKc/2cAs 3c4s - -/- 0/0 0 - 1"
    values = {"scope": "0", "turn": "0", "last": "0", "dealer": "-", field: value}
    return NUMBERED.format(**values)


def _refused_by_every_core(call: Callable[[ModuleType], Any], match: str) -> str:
    """Call on each core: each raises the same CoreError (a ScopaError), matching ``match``;
    its message."""
    messages = []
    for core in CORES:
        with pytest.raises(ScopaError, match=match) as info:
            call(core)
        assert type(info.value) is scopa_core.CoreError
        messages.append(str(info.value))
    assert len(set(messages)) == 1, messages
    return messages[0]


def _pid(x: Any) -> str:
    """A short test id for a parameter (huge ints and long strings included)."""
    text = _checks.short(x)
    return text if len(text) <= 24 else f"{text[:12]}..{len(text)}"


def _handle(line: str | bytes) -> dict[str, Any]:
    reply = proto.Protocol(max_time=MAX_TIME).handle(line)
    assert isinstance(reply, dict)
    jsonio.dumps(reply)
    return reply


@pytest.mark.parametrize("digit", ["²", "٣", "¹", "٠", "𝟘", "٣٣"])
@pytest.mark.parametrize("field", ["scope", "turn", "last", "dealer", "target"])
def test_regression_digits_that_int_refuses(field, digit):
    # str.isdigit() accepts them, int() does not: a refusal that names the text.
    assert digit.isdigit() or digit.isnumeric()
    text = _position_string(field, digit)
    with pytest.raises(ScopaError, match=repr(digit)):
        State.from_string(text)
    reply = _handle(json.dumps({"cmd": "legal", "id": 1, "position": text}))
    assert (
        reply["error"]["type"] in ("PositionError", "RulesError") and repr(digit) in reply["error"]["message"]
    )


@pytest.mark.parametrize(
    "number", ["9" * 1500, "1" + "0" * 1900, "9" * 3000, "2147483648", "0000007"], ids=_pid
)
@pytest.mark.parametrize("field", ["scope", "turn", "last", "dealer", "target"])
def test_regression_numbers_thousands_of_digits_long(field, number):
    text = _position_string(field, number)
    with pytest.raises(ScopaError) as info:
        State.from_string(text)
    message = str(info.value)
    assert number[:50] in message or "at most 2000" in message
    reply = _handle(json.dumps({"cmd": "legal", "id": 2, "position": text}))
    assert reply["id"] == 2 and reply["error"]["type"] in ("PositionError", "RulesError", "ProtocolError")


def test_regression_json_nested_1000_deep():
    deep = "[" * 1000 + "]" * 1000
    objects = '{"a":' * 1000 + "0" + "}" * 1000
    for line in (
        deep,
        objects,
        '{"cmd":"legal","id":1,"position":' + deep + "}",
        '{"cmd":"ping","x":' + objects + "}",
    ):
        for form in (line, line.encode()):
            reply = _handle(form)
            assert (
                reply["error"]["type"] == "ProtocolError"
                and "nested more than 32" in reply["error"]["message"]
            )
            assert reply["id"] is None
    for parse in (State.from_json, view_from_json):
        for text in (deep, objects, '{"rules":"scopa","hands":' + deep + ',"turn":0}'):
            with pytest.raises(scopa.PositionError, match="nested more than 32"):
                parse(text)
    # the same nesting already decoded: refused, and the message stays short
    for bad in (
        {"rules": "scopa", "hands": [DEEP_LIST, []], "turn": 0},
        {"rules": DEEP_DICT, "hands": [[], []], "turn": 0},
        {"rules": "scopa", "hands": [["7d"], ["Kc"]], "table": DEEP_LIST, "turn": 0},
    ):
        for parse in (State.from_json, view_from_json):
            with pytest.raises(ScopaError) as info:
                parse(bad)
            assert len(str(info.value)) < 5000


@pytest.mark.parametrize(
    "raw_id",
    ['"\\ud800"', '"\\udfff"', '"a\\udc00"', "NaN", "Infinity", "-Infinity", "1e999", "1.5", "true"]
    + [str(2**53), str(-(2**53)), str(2**64), "1" + "0" * 5000, '"' + "x" * 257 + '"', "[1]", "{}"],
    ids=_pid,
)
def test_regression_ids_that_cannot_be_written_back(raw_id):
    # A lone surrogate cannot be written as UTF-8, NaN is not JSON, 2**53 is past what
    # JavaScript holds exactly: the request is refused with a null id, and the reply is
    # strict JSON.
    line = '{"cmd":"ping","id":' + raw_id + "}"
    for form in (line, line.encode()):
        reply = _handle(form)
        assert reply["id"] is None and reply["error"]["type"] == "ProtocolError", reply
    raw = '{"cmd":"ping","id":"\ud800"}'.encode("utf-8", "surrogatepass")  # the surrogate, unescaped
    reply = _handle(raw)
    assert reply["id"] is None and "not UTF-8" in reply["error"]["message"]


@pytest.mark.parametrize(
    "n", [2**62, 2**63 - 1, 2**63, 2**63 + 1, 2**64, 2**64 + 1, 10**30, -(2**63), 0], ids=_pid
)
def test_regression_node_limit_past_2_63(n):
    s = State.from_string(SMALL)
    reply = _handle(json.dumps({"cmd": "solve", "id": 3, "position": SMALL, "node_limit": n}))
    assert (
        reply["id"] == 3 and reply["error"]["type"] == "ProtocolError" and str(n) in reply["error"]["message"]
    )
    with pytest.raises(scopa.LimitError, match=f"bad node_limit {n}"):
        scopa.solve(s, node_limit=n)
    if n > 0:  # the core takes 0 for no limit
        message = _refused_by_every_core(
            lambda core: core.Solver(1).solve(s.masks, s.rules.core_options, 3, node_limit=n),
            "bad node_limit",
        )
        assert str(n) in message
        _refused_by_every_core(
            lambda core: core.Solver(1).horizon(s.masks, s.rules.core_options, 3, 2, node_limit=n),
            "bad node_limit",
        )


@pytest.mark.parametrize(
    "data",
    [b"\xff", b"\xfe\xff", b"\xc0\x80", b'{"cmd":"ping","id":"\xc3"}', b'{"cmd":"ping","id":"\xed\xa0\x80"}']
    + [b'{"cmd":"legal","id":1,"position":"scopa \xf4\x90\x80\x80 - - -/- 0/0 0 - -"}', b"\x80" * 100],
    ids=_pid,
)
def test_regression_undecodable_bytes(data):
    reply = _handle(data)
    assert reply["id"] is None and reply["error"]["type"] == "ProtocolError"
    assert "not UTF-8" in reply["error"]["message"]
    for parse in (State.from_json, view_from_json):
        with pytest.raises(scopa.PositionError, match="not UTF-8"):
            parse(data)


@pytest.mark.parametrize("scope", [2**31, 2**31 - 1, 2**32, 2**63, 2**64, 1000, 1001, 256, 19])
def test_regression_scope_counts_past_2_31_and_1000(scope):
    d = {"rules": "scopa", "hands": [["7d"], ["Kc"]], "table": ["3c"], "captured": [["As"], []]}
    d.update(scope=[0, scope], turn=0, last_capture=0)
    with pytest.raises(scopa.PositionError, match=rf"bad scope \[0, {scope}\]"):
        State.from_json(d)
    reply = _handle(json.dumps({"cmd": "solve", "id": 4, "position": d}))
    assert reply["id"] == 4 and reply["error"]["type"] == "PositionError"
    if scope < 10**6:
        with pytest.raises(scopa.PositionError, match="bad scope"):
            State.from_string(f"scopa 7d/Kc 3c - -/As 0/{scope} 0 1 -")
    # the core: at most 255 scope a team (the solver's bounds stay far from its sentinels)
    pos = ((1 << 6, 1 << 39), 1 << 12, (), (1 << 20, 1 << 21), (scope, 0), 0, 0)
    calls = {
        "apply_move": lambda core: core.apply_move(pos, 6, 0, 0, 3),
        "rollouts": lambda core: core.rollouts(pos, 0, 3, 3, 1),
        "score": lambda core: core.score(0, 0, scope, 0, 0),
        "solve": lambda core: core.Solver(1).solve(pos, 0, 3),
        "analyze": lambda core: core.Solver(1).analyze(pos, 0, 3),
        "horizon": lambda core: core.Solver(1).horizon(pos, 0, 3, 2),
    }
    for fn, call in calls.items():
        if scope > _checks.MAX_SCOPE:
            assert "scope" in _refused_by_every_core(call, "bad")
        else:
            assert len({repr(fingerprint(fn, call(core), None)) for core in CORES}) == 1


def test_regression_a_scopa_past_255_scope():
    # 7d sweeps 3c + 4s with 255 scope banked: the 256th is refused, on every core.
    pos = ((1 << 6, 1 << 39), 1 << 12 | 1 << 23, (), (1 << 20, 1 << 21), (255, 0), 0, 0)
    _refused_by_every_core(
        lambda core: core.apply_move(pos, 6, 1 << 12 | 1 << 23, 0, 3), "would pass 255 scope"
    )


SHORT_TUPLES = [
    (),
    ((1, 2),),
    ((1, 2), 4, (), (0, 0), (0, 0), 0),
    ((1, 2), 4, (), (0, 0), (0, 0), 0, -1, 0),
    ((1,), 4, (), (0, 0), (0, 0), 0, -1),
    ((1, 2, 4), 8, (), (0, 0), (0, 0), 0, -1),
    ((1, 2), 4, (), (0,), (0, 0), 0, -1),
    ((1, 2), 4, (), (0, 0), (0,), 0, -1),
    ((1, 2), 4, (), (), (), 0, -1),
    ((1, 2), 4, [3] * 41, (0, 0), (0, 0), 0, -1),
    [[1, 2], 4, [], [0, 0], [0, 0], 0, -1, None],
]


@pytest.mark.parametrize("pos", SHORT_TUPLES, ids=lambda p: f"len{len(p)}")
def test_regression_tuples_shorter_than_their_format(pos):
    # Shorter than (hands, table, stock, captured, scope, turn, last_capture), or longer, or
    # with parts of the wrong length: refused, with the same message on every core.
    for call in (
        lambda core: core.apply_move(pos, 0, 0, 0, 1),
        lambda core: core.rollouts(pos, 0, 1, 2, 1),
        lambda core: core.Solver(1).solve(pos, 0, 1),
        lambda core: core.Solver(1).analyze(pos, 0, 1),
        lambda core: core.Solver(1).horizon(pos, 0, 1, 2),
        lambda core: core.Solver(1).analyze_depth(pos, 0, 1, 2),
    ):
        _refused_by_every_core(call, "bad position tuple")


@pytest.mark.parametrize("block", [0, 11, -1, 2**31, 2**63, 2**64, HUGE, True, 3.0, "3", None], ids=_pid)
def test_regression_refill_size_out_of_range(block):
    s = State.deal("scopa", seed=1)
    pos, opts = s.masks, s.rules.core_options
    card, capture = twin.legal_moves(pos[0][pos[5]], pos[1], opts)[0]
    for call in (
        lambda core: core.apply_move(pos, card, capture, opts, block),
        lambda core: core.rollouts(pos, opts, block, 2, 1),
        lambda core: core.Solver(1).solve(pos, opts, block, node_limit=100),
        lambda core: core.Solver(1).horizon(pos, opts, block, 2, node_limit=100),
        lambda core: core.Solver(1).analyze_depth(pos, opts, block, 2, node_limit=100),
    ):
        _refused_by_every_core(call, "refill size")


def test_regression_seat_to_move_without_cards():
    # Seat 0 to move with no card while seat 1 holds one: refused, not played on.
    pos = ((0, 1 << 39), 1 << 12, (), (1 << 20, 0), (0, 0), 0, 0)
    for call in (
        lambda core: core.rollouts(pos, 0, 3, 5, 1),
        lambda core: core.Solver(1).solve(pos, 0, 3),
        lambda core: core.Solver(1).analyze(pos, 0, 3),
        lambda core: core.Solver(1).horizon(pos, 0, 3, 3),
        lambda core: core.Solver(1).analyze_depth(pos, 0, 3, 3),
    ):
        assert "seat to move" in _refused_by_every_core(call, "impossible position")


@pytest.mark.parametrize("n", [2**31, 2**32, 2**63, 2**64, HUGE, -1, True, 1.0], ids=_pid)
def test_regression_huge_rollout_counts(n):
    s = State.deal("scopa", seed=2)
    _refused_by_every_core(lambda core: core.rollouts(s.masks, 0, 3, n, 1), "bad number of hands")
    _refused_by_every_core(lambda core: core.playouts(2, 3, 4, 0, n, 1), "bad number of hands")


# ---------------------------------------------------------------- one Solver, two threads

_THREADS = r"""
import importlib, json, os, random, sys, threading, time
from scopa import State

core = importlib.import_module(sys.argv[1])
trials, hammer = int(sys.argv[2]), float(sys.argv[3])
deal = State.deal("scopone_scientifico", seed=1)
FULL = (deal.masks, deal.rules.core_options, 10)
rnd = random.Random(1)
small = []
for i in range(4):
    s = State.deal(["scopa", "scopa4", "scopone", "scopone_scientifico"][i % 4], seed=i)
    while sum(len(h) for h in s.hands) + len(s.stock) > 7:
        s = s.play(rnd.choice(s.legal_moves()))
    small.append((s.masks, s.rules.core_options, s.rules.hand_size))
expected = [core.Solver(1).solve(*c)[:3] for c in small]
BUSY = "searching for another thread"
bad = []


def say(**items):
    print(json.dumps(items), flush=True)


def call(solver, out, key, *args, **kwargs):
    t0 = time.monotonic()
    try:
        out[key] = ("ok", solver.solve(*args, **kwargs)[:3])
    except RuntimeError as exc:
        out[key] = ("busy" if BUSY in str(exc) else "error", repr(exc))
    except Exception as exc:
        out[key] = ("error", repr(exc))
    out[key + " time"] = (t0, time.monotonic())


def hung(*threads):
    if any(t.is_alive() for t in threads):
        bad.append("hang: a search ran on after its stop flag was set")
        say(bad=bad)
        os._exit(3)


# 1. Forced interleavings: thread A pauses at its n-th Python call inside solve() (the checks
# of its arguments, its claim on the solver, ...) while thread B starts a long search on the same
# solver, then goes on. The two may not search at once: one of them gets RuntimeError (or B's
# search is over before A claims the solver).
for n in range(1, trials + 1):
    solver = core.Solver(1)
    flags = {k: core.StopFlag() for k in "AB"}
    paused, go = threading.Event(), threading.Event()
    out = {}
    seen = [0]

    def hook(frame, event, arg, n=n, paused=paused, go=go, seen=seen, out=out):
        if event == "call" and not paused.is_set():
            seen[0] += 1
            if seen[0] == n:
                paused.set()
                go.wait(5)
                out["A resumed"] = time.monotonic()

    def a(solver=solver, out=out, flags=flags):
        sys.setprofile(hook)
        try:
            call(solver, out, "A", *FULL, stop=flags["A"])
        finally:
            sys.setprofile(None)

    ta = threading.Thread(target=a)
    ta.start()
    if not paused.wait(2):  # fewer Python calls than n: every instant was tried
        flags["A"].set()
        ta.join(10)
        hung(ta)
        break
    tb = threading.Thread(target=call, args=(solver, out, "B", *FULL), kwargs={"stop": flags["B"]})
    tb.start()
    time.sleep(0.05)  # B is in its search, or refused
    go.set()
    time.sleep(0.1)
    for f in flags.values():
        f.set()
    ta.join(10)
    tb.join(10)
    hung(ta, tb)
    kinds = sorted(out[k][0] for k in "AB")
    overlap = out["B time"][1] > out.get("A resumed", 0)
    if "error" in kinds or (kinds == ["ok", "ok"] and overlap):
        bad.append(f"pause at Python call {n}: A {out['A'][0]} {out['A'][1]}, B {out['B'][0]} {out['B'][1]}")
    for i, c in enumerate(small):
        got = solver.solve(*c)[:3]
        if got != expected[i]:
            bad.append(f"after the pause at call {n}: {c} gives {got}, not {expected[i]}")
    say(trial=n, kinds=kinds)

# 2. Both threads at once, at random, for a while.
shared = core.Solver(1)
sys.setswitchinterval(1e-6)
counts = {"ok": 0, "busy": 0, "error": 0}
stop_at = time.monotonic() + hammer


def hammer_work(k):
    r = random.Random(k)
    while time.monotonic() < stop_at:
        i = r.randrange(len(small))
        out = {}
        call(shared, out, "x", *small[i])
        kind, value = out["x"]
        counts[kind] += 1
        if kind == "ok" and value != expected[i]:
            bad.append(f"two threads at once: {small[i]} gives {value}, not {expected[i]}")
        elif kind == "error":
            bad.append(f"two threads at once: {value}")


threads = [threading.Thread(target=hammer_work, args=(k,)) for k in range(2)]
for t in threads:
    t.start()
for t in threads:
    t.join(60)
hung(*threads)
say(bad=bad[:20], **counts)
"""


@pytest.mark.parametrize("core", CORES, ids=lambda m: CORE_NAMES[m.__name__])
def test_one_core_solver_from_two_threads_never_corrupts_memory(core):
    # One core Solver called from two threads at once: the second caller gets RuntimeError,
    # whatever instant it comes at; the first one's search and every later one are right.
    # (In a subprocess: two searches on one table may crash the process or never end.)
    hammer = 1.0 if TWIN_RUN or core is twin else 3.0
    proc = subprocess.run(
        [sys.executable, "-c", _THREADS, core.__name__, "40", str(hammer)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    log = proc.stdout.splitlines()
    assert proc.returncode == 0, (
        f"exit status {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    )
    report = json.loads(log[-1])
    print(f"{CORE_NAMES[core.__name__]}: {len(log) - 1} forced interleavings; at random {report}")
    assert report["bad"] == []
    assert report["ok"] > 0 and report["busy"] > 0 and len(log) > 1


@needs_jsonschema
def test_review_of_a_long_record_within_the_time_cap():
    # Every search the protocol runs is capped at max_time; a review of a record of 60 hands
    # (a 27 kB line) must be answered within SLOW too.
    line = json.dumps({"cmd": "review", "id": "r", "record": corpus().long_record})
    outcome = ProtocolChecker().run(line)
    assert outcome.kind == ACCEPTED, outcome.detail
