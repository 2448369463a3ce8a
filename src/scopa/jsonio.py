"""Reading and writing JSON text safely: the one place untrusted JSON is decoded.

Every parser of the package that takes JSON text (positions, views, records, protocol
lines) reads it through :func:`loads`, which bounds what it accepts, and every JSON the
engine writes goes out through :func:`dumps`, which writes strict JSON only:

- text of at most ``max_chars`` characters (bytes must be UTF-8);
- arrays and objects nested at most :data:`MAX_DEPTH` deep (Python's decoder would
  otherwise recurse until it fails);
- no ``NaN`` or ``Infinity`` (Python reads them, strict parsers do not), no string
  holding a lone surrogate such as ``"\\ud800"`` (it cannot be written back as UTF-8), and
  no object giving one key twice (decoders differ on which they keep).

>>> loads('{"a": [1, 2.5, "x"]}')
{'a': [1, 2.5, 'x']}
>>> loads('[NaN]')
Traceback (most recent call last):
...
scopa.jsonio.JSONInputError: not strict JSON: NaN is not a number JSON allows
>>> dumps({"id": 1, "ok": True})
'{"id":1,"ok":true}'
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from scopa.errors import OptionError, ScopaError, as_int, listed, show, unknown_keys

__all__ = [
    "MAX_CHARS",
    "MAX_DEPTH",
    "PIECE_CHARS",
    "JSONInputError",
    "JSONOutputError",
    "check_object",
    "decoded",
    "dumps",
    "dumps_in_pieces",
    "format_problem",
    "has_format",
    "is_utf8",
    "loads",
    "short",
    "utf8_text",
]

MAX_DEPTH = 32
"""Deepest nesting of arrays and objects accepted (positions need 3, records 6)."""
MAX_CHARS = 4 << 20
"""Longest JSON text accepted by default, in characters."""


class JSONInputError(ScopaError):
    """JSON text that cannot be read: not UTF-8, not JSON, too long, too deep, not strict.
    ``why`` is the message without its ``not JSON:`` (for a caller that says so already)."""

    def __init__(self, message: str, why: str | None = None) -> None:
        super().__init__(message)
        self.why = message if why is None else why


class JSONOutputError(ScopaError):
    """A value :func:`dumps` cannot write as strict JSON: a NaN or an infinity (strict JSON has
    no spelling for them), or a container that holds itself."""


def _no_constant(name: str) -> Any:
    raise JSONInputError(f"not strict JSON: {name} is not a number JSON allows")


#: A JSON string: from its quote to the closing one (a backslash escapes the character after
#: it), or to the end of an unterminated text.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.DOTALL)
#: What is not a bracket.
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_DEPTH_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def _too_deep(text: str) -> bool:
    """Whether ``text`` nests arrays or objects more than MAX_DEPTH deep (brackets inside
    strings are skipped; only called when there are that many brackets at all): the depth
    after each bracket, [ and { one deeper, ] and } one shallower, summed by itertools."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(itertools.accumulate(map(_DEPTH_STEP.__getitem__, brackets)), default=0) > MAX_DEPTH


def _finite_float(text: str) -> float:
    x = float(text)
    if not math.isfinite(x):  # 1e400: strict JSON has no infinity, spelt out or overflowing
        raise JSONInputError(f"not strict JSON: the number {text[:40]} is too large for a float")
    return x


def _check_strings(obj: Any) -> None:
    if isinstance(obj, str):
        try:
            obj.encode("utf-8")
        except UnicodeEncodeError:
            raise JSONInputError(
                "not strict JSON: a string holds a lone surrogate (an unpaired \\ud800-\\udfff escape)"
            ) from None
    elif isinstance(obj, list):
        for x in obj:
            _check_strings(x)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            _check_strings(k)
            _check_strings(v)


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) < len(pairs):  # (Python's decoder keeps the last silently, others the first)
        seen: set[str] = set()
        key = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise JSONInputError(f"not strict JSON: the key {show(key)} is given twice in one object")
    return obj


#: The most digits an integer may have (Python's own limit on reading one, by default).
MAX_INT_DIGITS = 4300


def _int(digits: str) -> int:
    n = len(digits) - digits.startswith("-")
    if n > MAX_INT_DIGITS:
        raise JSONInputError(f"an integer of {n} digits: at most {MAX_INT_DIGITS} accepted")
    return int(digits)


def loads(text: str | bytes | bytearray, max_chars: int = MAX_CHARS) -> Any:
    """Decode JSON ``text`` (a str, or UTF-8 bytes) within the bounds of this module;
    raises :class:`JSONInputError` naming what is wrong.

    >>> loads(b'{"cards": ["7d", "Kc"]}')
    {'cards': ['7d', 'Kc']}
    >>> loads('{"a": 1, "a": 2}')
    Traceback (most recent call last):
    ...
    scopa.jsonio.JSONInputError: not strict JSON: the key 'a' is given twice in one object
    """
    if isinstance(text, (bytes, bytearray)):
        if len(text) > 4 * max_chars:
            raise JSONInputError(f"JSON text of {len(text)} bytes: at most {max_chars} characters accepted")
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JSONInputError(f"not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    if not isinstance(text, str):
        raise JSONInputError(f"expected JSON text, got {type(text).__name__}")
    if len(text) > max_chars:
        raise JSONInputError(f"JSON text of {len(text)} characters: at most {max_chars} accepted")
    if not text.strip():  # (json's "Expecting value: line 1 column 4" did not say it was empty)
        raise JSONInputError(f"no JSON: the text is {'empty' if not text else 'blank'}")
    if text.count("[") + text.count("{") > MAX_DEPTH and _too_deep(text):
        raise JSONInputError(f"JSON nested more than {MAX_DEPTH} levels deep")
    try:
        obj = json.loads(
            text,
            parse_constant=_no_constant,
            parse_float=_finite_float,
            parse_int=_int,
            object_pairs_hook=_object,
        )
    except JSONInputError:
        raise
    except (ValueError, RecursionError) as exc:
        raise JSONInputError(f"not JSON: {exc}", str(exc)) from None
    if _SURROGATE_ESCAPE.search(text) or not (text.isascii() or is_utf8(text)):
        _check_strings(obj)  # (else no string can hold one: no surrogate in the text, nor its escape)
    return obj


def utf8_text(data: bytes | bytearray | memoryview, what: str, error: type[ScopaError]) -> str:
    """The text of the UTF-8 bytes ``data``; else ``error`` ("bad {what} ...: not UTF-8 text")
    saying where they fail. The reading of a position's or rules' bytes given for their text.

    >>> utf8_text(b"scopa", "rules", OptionError)
    'scopa'
    >>> utf8_text(b"\\xffscopa", "rules", OptionError)
    Traceback (most recent call last):
    ...
    scopa.errors.OptionError: bad rules b'\\xffscopa': not UTF-8 text (invalid start byte at byte 0)
    """
    try:
        return bytes(data).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"bad {what} {show(data)}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def decoded(
    obj: Any,
    what: str,
    error: type[ScopaError],
    max_chars: int = MAX_CHARS,
    text: bool = True,
) -> Any:
    """``obj`` as a decoded JSON value: JSON text (a str, when ``text``) or UTF-8 bytes read by
    :func:`loads`, anything else as it is; ``error`` naming ``what`` when the text cannot be
    read. The one reading of every ``from_json``: each takes the decoded object, its JSON text
    and that text's UTF-8 bytes alike.

    >>> decoded('{"a": 1}', "the thing", OptionError), decoded({"a": 1}, "the thing", OptionError)
    ({'a': 1}, {'a': 1})
    >>> decoded(b"{", "the thing", OptionError)
    Traceback (most recent call last):
    ...
    scopa.errors.OptionError: the thing b'{' is not valid JSON: Expecting property name ...
    """
    if isinstance(obj, (bytes, bytearray, memoryview)) or (text and isinstance(obj, str)):
        source = bytes(obj) if isinstance(obj, memoryview) else obj
        try:
            return loads(source, max_chars=max_chars)
        except JSONInputError as exc:
            raise error(f"{what} {show(source)} is not valid JSON: {exc.why}") from None
    return obj


#: The escape of a surrogate, ``\ud800`` to ``\udfff`` (any case; an escaped backslash before
#: ``ud800`` matches too, which only costs the check of every string).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")


def is_utf8(text: str) -> bool:
    """Whether ``text`` holds no lone surrogate: a str that can be written as UTF-8 (JSON text
    read from an escape such as ``"\\ud800"`` may hold one).

    >>> is_utf8("7♦"), is_utf8("\\ud800")
    (True, False)
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def has_format(obj: Any, fmt: tuple[str, int]) -> bool:
    """Whether the JSON object ``obj`` carries the format tag ``fmt``: its ``format`` string
    and its ``version``, an int (``1.0`` or ``true`` is not version ``1``).

    >>> has_format({"format": "scopa-match", "version": 1}, ("scopa-match", 1))
    True
    >>> has_format({"format": "scopa-match", "version": True}, ("scopa-match", 1))
    False
    """
    version = obj.get("version")  # (an int: NumPy's too, never a bool or a float)
    return obj.get("format") == fmt[0] and as_int(version) == fmt[1]


def format_problem(obj: Mapping[str, Any], fmt: tuple[str, int]) -> str | None:
    """None if the JSON object ``obj`` carries the format tag ``fmt`` (:func:`has_format`), else
    what it carries against what was expected, a missing field said as such.

    >>> format_problem({"format": "scopa-hand"}, ("scopa-hand", 1))
    "format 'scopa-hand', no version, expected format 'scopa-hand' version 1"
    >>> format_problem({"format": "scopa-hand", "version": 1}, ("scopa-hand", 1)) is None
    True
    """
    if has_format(obj, fmt):
        return None
    got = ", ".join(f"{key} {show(obj[key])}" if key in obj else f"no {key}" for key in ("format", "version"))
    return f"{got}, expected format {fmt[0]!r} version {fmt[1]}"


def check_object(
    obj: Any,
    what: str,
    fields: Sequence[str],
    fmt: tuple[str, int] | None = None,
    error: type[ScopaError] = OptionError,
) -> None:
    """Raise ``error`` unless ``obj`` is a decoded JSON object holding every one of ``fields``
    and no other (but ``format`` and ``version`` with ``fmt``, whose tag it must carry), each
    message naming ``what`` it is.

    >>> check_object({"format": "scopa-review", "version": 1, "plays": []}, "the review",
    ...              ["plays", "hands"], ("scopa-review", 1))
    Traceback (most recent call last):
    ...
    scopa.errors.OptionError: the review lacks hands
    """
    if not isinstance(obj, Mapping):
        raise error(f"{what} must be a JSON object, got {short(obj)}")
    problem = None if fmt is None else format_problem(obj, fmt)
    if problem:
        raise error(f"{what} has {problem}")
    unknown = unknown_keys(obj, [*fields, *(("format", "version") if fmt else ())])
    if unknown:
        raise error(f"unknown {listed('field', unknown)} in {what}")
    missing = [f for f in fields if f not in obj]
    if missing:
        raise error(f"{what} lacks {', '.join(missing)}")


def dumps(obj: Any) -> str:
    """Strict, compact JSON text of ``obj``: ASCII only (so it is UTF-8 whatever it holds);
    a NaN or an infinity, which strict JSON cannot write, is a :class:`JSONOutputError` naming
    the value and where it is (a container that holds itself, and a value JSON has no form
    for, such as a set, are one too).

    >>> print(dumps({"card": "7♦", "value": 1.5}))
    {"card":"7\\u2666","value":1.5}
    >>> dumps({"points": [1.5, float("nan")]})
    Traceback (most recent call last):
    ...
    scopa.jsonio.JSONOutputError: cannot write nan as strict JSON (at ["points"][1]): expected a finite number
    """
    try:
        return json.dumps(obj, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    except TypeError as exc:  # (json's "Object of type set is not JSON serializable")
        raise JSONOutputError(f"cannot write {show(obj)} as JSON: {exc}") from None
    except ValueError as exc:  # (json's "Out of range float values are not JSON compliant")
        where = _non_finite(obj, set())
        if where is None:  # (no such number: a container that holds itself, an int too long)
            why = "a container in it holds itself" if "Circular reference" in str(exc) else str(exc)
            raise JSONOutputError(f"cannot write {show(obj)} as JSON: {why}") from None
        value, path, key = where
        at = f" (a key of the object at {path or 'the top'})" if key else f" (at {path})" if path else ""
        raise JSONOutputError(
            f"cannot write {value!r} as strict JSON{at}: expected a finite number"
        ) from None


PIECE_CHARS = 1 << 15
""":func:`dumps_in_pieces`: about how many characters one call of the C encoder writes."""
#: :func:`dumps_in_pieces`: a list or an object of more items than this is written item by item.
_MANY = 64
_ENCODER = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":"))


class _Whole(Exception):
    """What :func:`dumps_in_pieces` leaves to :func:`dumps` (a key that is not a string)."""


def dumps_in_pieces(obj: Any) -> str:
    """The text :func:`dumps` writes (its errors too), written a piece at a time: each call of
    Python's C encoder holds the GIL until it returns, so a reply of megabytes written in one
    call held up every other thread for its whole length (a server's event loop: 0.4 s for
    10 MB), where a list of many items is written in pieces of about :data:`PIECE_CHARS`
    characters, each a call of its own. As fast as :func:`dumps` on the server's replies.

    >>> reply = {"id": 1, "plays": [{"move": "7dx7c", "loss": 0.5}] * 100}
    >>> dumps_in_pieces(reply) == dumps(reply)
    True
    """
    try:
        out: list[str] = []
        _write(obj, out)
        return "".join(out)
    except (_Whole, TypeError, ValueError, RecursionError):  # (dumps says what is wrong)
        return dumps(obj)


def _is_many(x: Any) -> bool:
    return isinstance(x, (list, tuple, dict)) and len(x) > _MANY


def _is_or_holds_many(x: Any) -> bool:
    return isinstance(x, (list, tuple, dict)) and (len(x) > _MANY or _holds_many(x))


def _holds_many(obj: Mapping[Any, Any] | Sequence[Any]) -> bool:
    """Whether a list or an object of more than :data:`_MANY` items is anywhere in ``obj``
    below objects and lists of fewer (a reply's envelope: ``{"id", "result": {"plays": [...]}}``)."""
    return any(_is_or_holds_many(x) for x in (obj.values() if isinstance(obj, Mapping) else obj))


def _write(obj: Any, out: list[str]) -> None:
    """Append ``obj``'s JSON text to ``out`` in pieces (:func:`dumps_in_pieces`)."""
    if isinstance(obj, dict) and (len(obj) > _MANY or _holds_many(obj)):
        out.append("{")
        for i, (key, value) in enumerate(obj.items()):
            if type(key) is not str:  # (json's own spelling of other keys: left to dumps)
                raise _Whole
            out.append(("," if i else "") + _ENCODER.encode(key) + ":")
            _write(value, out)
        out.append("}")
    elif isinstance(obj, (list, tuple)) and (len(obj) > _MANY or _holds_many(obj)):
        # (the items of a long list are looked at one level only: they are many)
        apart = _is_many if len(obj) > _MANY else _is_or_holds_many
        out.append("[")
        n, i, group, sep = len(obj), 0, 8, ""
        while i < n:
            if apart(obj[i]):  # (a long list in a list: in pieces of its own)
                out.append(sep)
                _write(obj[i], out)
                sep, i = ",", i + 1
                continue
            j = i + 1
            while j < n and j - i < group and not apart(obj[j]):
                j += 1
            text = _ENCODER.encode(obj[i:j])
            out.append(sep + text[1:-1])
            sep = ","
            # (as many items in the next piece as make about PIECE_CHARS characters here)
            group = max(1, min(4096, PIECE_CHARS * (j - i) // max(len(text), 1)))
            i = j
        out.append("]")
    else:
        out.append(_ENCODER.encode(obj))


def _non_finite(obj: Any, seen: set[int]) -> tuple[float, str, bool] | None:
    """The first NaN or infinity in ``obj`` (as :func:`dumps` walks it) and its path, such as
    ``["points"][1]``, and whether it is a key there; None when it holds none (each container
    is looked into once: one that holds itself ends the walk, not Python's recursion)."""
    if isinstance(obj, float):
        return None if math.isfinite(obj) else (obj, "", False)
    if id(obj) in seen or len(seen) > 1 << 20:
        return None
    seen.add(id(obj))
    items: Any = ()
    if isinstance(obj, Mapping):
        items = obj.items()
    elif isinstance(obj, (list, tuple)):
        items = enumerate(obj)
    for key, value in items:
        if isinstance(key, float) and not math.isfinite(key):  # (json writes a float key as text)
            return key, "", True
        found = _non_finite(value, seen)
        if found is not None:
            step = f"[{json.dumps(key)}]" if isinstance(key, str) else f"[{key!r}]"
            return found[0], step + found[1], found[2]
    return None


def short(value: Any, limit: int = 60) -> str:
    """A value read from JSON as JSON spells it, bounded in length, for messages about JSON
    input (``true``, ``null`` and ``"text"``, not Python's ``True``, ``None`` and ``'text'``);
    what JSON has no spelling for is shown as :func:`~scopa.errors.show` shows it.

    >>> short(True), short(None), short("café"), short([1, None]), short(10**5000)
    ('true', 'null', '"café"', '[1, null]', '<int of 16610 bits>')
    >>> short(list(range(100)))
    '[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16...'
    """
    if type(value) in (str, int, float, bool, list, dict) or value is None:
        try:
            text = json.dumps(value, ensure_ascii=False, allow_nan=False)
            text.encode("utf-8")  # (a lone surrogate: escaped instead)
        except UnicodeEncodeError:
            text = json.dumps(value, allow_nan=False)
        except (ValueError, TypeError, RecursionError):  # (an int too long to write, a key not a string)
            return show(value)
        return text if len(text) <= limit else text[: limit - 3] + "..."
    return show(value)
