"""Game records: save a game, load it, replay it, annotate it (like python-chess's ``chess.pgn``).

A *match record* holds the rules, the target, tags (PGN's Seven Tag Roster is the model:
``Event``, ``Site``, ``Date``, ``Round``, the players' names, ``Result``) and its hands in
order. A *hand record* holds the dealer, the deal exactly (every hand, the table and the
stock order, as a position string), the plays in move notation (the seats follow from the
rules), the hand's score once it is over, and annotations per play (a comment, a mark like
PGN's ``?``, ``??``, ``!``). A single hand is a valid record on its own. The JSON formats
(``scopa-record`` and ``scopa-hand``, version 1) are described in docs/records.md, with a
JSON Schema in the package (:func:`schema`).

Loading validates by replaying every play: an illegal move, a deal with a card missing or
twice, or a score that does not match the replay is refused with :class:`RecordError`,
naming the hand, the play and the reason. The records made in memory are checked by the same
rules (a :class:`HandRecord` replays its plays when made, unless made from the
:class:`~scopa.state.State` they lead to), so that what the library writes loads back.

>>> import scopa
>>> s = scopa.State.deal("scopa", seed=2, dealer=1)
>>> for _ in range(4):
...     s = s.play(s.legal_moves()[0])
>>> rec = s.record()
>>> len(rec.plays), rec.score is None, load_record(rec.to_json()).replay()[0][-1] == s
(4, True, True)
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import scopa_core as core
from scopa import jsonio
from scopa import match as _match
from scopa.errors import (
    OptionError,
    PositionError,
    ScopaError,
    as_int,
    count,
    int_pair,
    listed,
    plain_int,
    plain_str,
    show,
    unknown_keys,
)
from scopa.files import IS_A_DIRECTORY, TooLarge, check_atomic, failure_reason, read_limited, write_atomic
from scopa.move import Move
from scopa.rules import Rules
from scopa.state import State

__all__ = [
    "HAND_FORMAT",
    "MARKS",
    "MAX_RECORD_BYTES",
    "RECORD_FORMAT",
    "Annotation",
    "HandRecord",
    "MatchRecord",
    "RecordError",
    "annotated",
    "load_record",
    "schema",
]

RECORD_FORMAT = ("scopa-record", 1)
"""Name and version of a match record's JSON format."""
HAND_FORMAT = ("scopa-hand", 1)
"""Name and version of a hand record's JSON format (a hand on its own)."""
MARKS = ("!!", "!", "!?", "?!", "?", "??")
"""The marks an annotation may carry, as in PGN."""
#: The tags a record may carry (others are kept too), in PGN's order.
TAGS = ("Event", "Site", "Date", "Round", "Player0", "Player1", "Player2", "Player3", "Result")
MAX_RECORD_BYTES = 32 << 20
"""The most bytes (32 MiB) of a record file (and characters of record JSON text) :func:`load_record`
reads, and so the most :meth:`MatchRecord.save` writes: a match of
:data:`scopa.match.MAX_HANDS` hands takes about 13 MB."""
_TAG_NAME = re.compile(r"[A-Za-z0-9_]{1,40}")  # PGN's tag names
_RESERVED_TAGS = ("Rules", "Target")  # the text export writes them from the record's rules
_MAX_TAG = 500
#: Most characters of a play in a record's JSON (the schema's ``maxLength``; a play's notation
#: takes at most a card and the table it captures, far fewer)
MAX_PLAY = 64
#: Most characters of an annotation's comment.
MAX_COMMENT = 2000


class RecordError(PositionError):
    """A record that cannot be read, or whose replay fails (naming the hand and the play)."""


@dataclass(frozen=True)
class Annotation:
    """A comment and/or a mark (one of :data:`MARKS`) on one play.

    >>> Annotation("a scopa", "!")
    Annotation(comment='a scopa', mark='!')
    >>> Annotation(mark="?!?")
    Traceback (most recent call last):
    ...
    scopa.records.RecordError: bad mark '?!?': expected one of !!, !, !?, ?!, ?, ??
    """

    comment: str | None = None
    mark: str | None = None

    def __post_init__(self) -> None:
        for name in ("comment", "mark"):  # (NumPy's strings kept as strs: the repr pastes back)
            object.__setattr__(self, name, plain_str(getattr(self, name)))
        if self.mark is not None and (not isinstance(self.mark, str) or self.mark not in MARKS):
            raise RecordError(f"bad mark {show(self.mark)}: expected one of {', '.join(MARKS)}")
        if self.comment is not None and (
            not isinstance(self.comment, str) or len(self.comment) > MAX_COMMENT
        ):
            raise RecordError(
                f"bad comment {show(self.comment)}: expected a string of at most {MAX_COMMENT} characters"
            )
        if self.comment is not None and not jsonio.is_utf8(self.comment):
            raise RecordError(f"bad comment {show(self.comment)}: {_SURROGATE}")
        if self.comment is None and self.mark is None:
            raise RecordError("an empty annotation: expected a comment, a mark or both")


_SURROGATE = "it holds a lone surrogate (\\ud800-\\udfff), which cannot be written as UTF-8"


def check_tags(tags: Any) -> dict[str, str]:
    """``tags`` as a dict, checked as :func:`load_record` checks a record's tags (and as
    :class:`MatchRecord` does when made): names of PGN's kind (letters, digits and ``_``,
    at most 40; not ``Rules`` or ``Target``, which the text export writes from the rules),
    values strings of at most 500 characters with no control character (a tag is one line
    of the text export), no bidirectional control and no lone surrogate. Raises
    :class:`RecordError` naming the tag."""
    if not isinstance(tags, Mapping):
        raise RecordError(f"bad tags {show(tags)}: expected an object of strings")
    out: dict[str, str] = {}
    for name, value in tags.items():
        if not isinstance(name, str) or not _TAG_NAME.fullmatch(name):
            raise RecordError(f"bad tag name {show(name)}: expected letters, digits or '_' (1 to 40 of them)")
        if name in _RESERVED_TAGS:
            raise RecordError(
                f"bad tag name {show(name)}: the text export writes [{name}] from the record's rules"
            )
        if not isinstance(value, str) or len(value) > _MAX_TAG:
            raise RecordError(
                f"bad tag {name} {show(value)}: expected a string of at most {_MAX_TAG} characters"
            )
        bad = next(
            (c for c in value if unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp") or c in _BIDI), None
        )
        if bad is not None:
            if unicodedata.category(bad) == "Cs":
                why = _SURROGATE
            elif bad in _BIDI:  # (an override turned a seat's line of the text export round)
                why = f"it holds the bidirectional control {bad!r} (it would reorder the text around it)"
            else:
                why = f"it holds the control character {bad!r} (a tag is one line of text)"
            raise RecordError(f"bad tag {name} {show(value)}: {why}")
        out[plain_str(name)] = plain_str(value)  # (NumPy's strings kept as strs)
    return out


#: The bidirectional embedding, override and isolate controls (U+202A..U+202E, U+2066..U+2069).
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _check_score(score: Any, name: str = "score") -> tuple[int, int] | None:
    """A hand's score: None, or two ints (not bools, not floats; NumPy's read as ints) as a tuple
    (``name``: the field, in the message)."""
    if score is None:
        return None
    points = int_pair(score)
    if points is None or min(points) < 0:
        raise RecordError(f"bad {name} {show(score)}: expected two ints (the points per team) or null")
    return points


def _replay(deal: State, plays: Sequence[Move | str], where: str | None = None) -> tuple[list[Move], State]:
    """The legal moves ``plays`` (moves or move notation) stand for, and the position after
    them, each checked where it is made; a :class:`RecordError` names the play (and ``where``)."""

    def at(j: int, play: Move | str) -> str:  # (as JSON gives it)
        text = f"play {j + 1} ({show(str(play) if isinstance(play, Move) else play)})"
        return text if where is None else f"{where}, {text}"

    state, made, exc = deal._replay(plays)  # (each play checked where it is made)
    if exc is not None:
        play = plays[made]
        if state.is_over:
            raise RecordError(f"{at(made, play)}: the hand is already over")
        raise RecordError(f"{at(made, play)}: {exc}")
    return [m for _, m in state.history[len(deal._history) :]], state


def _score_mismatch(
    state: State, score: tuple[int, int] | None, shown: Any, name: str = "score"
) -> str | None:
    """Why ``score`` (given as ``shown``, in the field ``name``) is not the score of the hand
    that ends in ``state``, or None when it is (None for a hand not over)."""
    if state.is_over:
        points = list(state.score().points)
        if score is None:
            return f"no {name!r}, but the hand is over: expected {points}"
        if list(score) != points:
            return f"{name} {show(shown)}, but the replay gives {points}"
    elif score is not None:
        return f"{name} {show(shown)} for a hand that is not over"
    return None


def _check_index(i: Any, plays: int) -> int:
    """The index of an annotated play: an int (not a bool; NumPy's read as an int) in
    ``0..plays - 1``."""
    index = as_int(i)
    if index is None or not 0 <= index < plays:
        expected = f"a play index in 0..{plays - 1}" if plays else "none: the hand has no plays"
        raise RecordError(f"annotation at play index {show(i)}: expected {expected}")
    return index


def _at(i: int) -> str:
    """An annotated play, named by its index (as a record's ``play`` field) and its number (as
    the messages of plays count, from 1)."""
    return f"annotation at play index {i} (play {i + 1})"


def _check_notes(notes: Any, plays: int) -> dict[int, Annotation]:
    """Annotations by play index, checked: an index of one of the ``plays`` plays, an Annotation."""
    if not isinstance(notes, Mapping):
        raise RecordError(f"bad annotations {show(notes)}: expected {{play index: Annotation}}")
    out: dict[int, Annotation] = {}
    for key, note in notes.items():
        i = _check_index(key, plays)
        if not isinstance(note, Annotation):
            raise RecordError(f"{_at(i)}: expected an Annotation, got {show(note)}")
        out[i] = note
    return dict(sorted(out.items()))


class ReadOnlyDict(dict):  # type: ignore[type-arg]
    """A dict that cannot be changed: a record's tags and annotations (records are values, kept
    in sets and as keys: a change would change their hash). Equal to, written and pickled as a
    plain dict; ``dict(d)`` is a copy to change.

    >>> d = ReadOnlyDict({"Event": "x"})
    >>> d == {"Event": "x"}, d
    (True, {'Event': 'x'})
    >>> d["Event"] = "y"
    Traceback (most recent call last):
    ...
    TypeError: a record's tags and annotations cannot be changed: make a new record (dataclasses.replace)
    """

    __slots__ = ()

    #: the refusal's message (a subclass names what it holds)
    _REFUSAL = "a record's tags and annotations cannot be changed: make a new record (dataclasses.replace)"

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(self._REFUSAL)

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = _refuse

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))

    def __reduce__(self) -> Any:  # (pickle and copy: not item by item through __setitem__)
        return (type(self), (dict(self),))


def _rules_differ(deal: State, rules: Rules) -> bool:
    """Whether a hand's deal is not played by ``rules`` (the target only matters to the match)."""
    if deal.rules == rules:  # (the usual case: no Rules to make)
        return False
    return deal.rules.replace(target=rules.target) != rules


def _is_deal(state: State) -> str | None:
    """Why ``state`` is not the start of a hand (every card once, full hands, nothing
    played), or None when it is."""
    hands, table, stock, piles, scope, _, _ = state.masks
    if piles[0] or piles[1] or any(scope):
        return "cards were already captured (a position after plays, not a deal)"
    sizes = [core.popcount(h) for h in hands]
    held = sum(sizes) + core.popcount(table) + len(stock)
    if held != 40:
        return f"it holds {held} of the 40 cards"
    if any(k != state.rules.hand_size for k in sizes):
        return f"every hand must hold {state.rules.hand_size} cards"
    if core.popcount(table) != state.rules.table_size:
        return f"the table must hold {state.rules.table_size} cards"
    if state.dealer is None:
        return "its dealer is not given"
    kings = core.popcount(table & core.RANK_MASK[10])
    if state.rules.redeal_on_kings and kings >= 3:
        return f"{kings} kings are dealt face up, and the rules (redeal_on_kings) deal those again (RULES §6)"
    return None


@dataclass(frozen=True)
class HandRecord:
    """One hand: its deal, its plays, its score once over, annotations by play index.

    Attributes:
        deal: the position the hand starts from (a deal: every card once, full hands).
        plays: the plays in order.
        score: the hand's points per team once it is over, else None.
        annotations: ``{play index (0-based): Annotation}``.

    >>> deal = State.deal("scopa", seed=1)
    >>> h = HandRecord(deal, (Move.parse("3dx3c"), Move.parse("Qc")))
    >>> h.score, h.final().turn, len(h.replay())          # unfinished: no score yet
    (None, 1, 3)
    >>> h.annotate({0: Annotation("takes the three", "!")}).to_json()["annotations"]
    [{'play': 0, 'mark': '!', 'comment': 'takes the three'}]
    >>> HandRecord(deal, (Move.parse("Qc"),))
    Traceback (most recent call last):
    ...
    scopa.records.RecordError: play 1 ('Qc'): illegal move 'Qc': Qc is not in the hand of seat 1 (3d 2c 7c)
    """

    deal: State
    plays: tuple[Move, ...] = ()
    score: tuple[int, int] | None = None
    annotations: Mapping[int, Annotation] = field(default_factory=dict)
    #: (internal) the position after the plays, when the caller has it: no replay is needed
    _final: dataclasses.InitVar[State | None] = None

    def __hash__(self) -> int:
        """A hand record is a value: equal records hash alike (its annotations too)."""
        return hash((self.deal, self.plays, self.score, self.annotations))

    def __post_init__(self, _final: State | None) -> None:
        if not isinstance(self.deal, State):
            raise RecordError(f"bad deal {show(self.deal)}: expected a State")
        why = _is_deal(self.deal)
        if why is not None:
            raise RecordError(f"bad deal {show(self.deal.to_string())}: {why}")
        if not isinstance(self.plays, (list, tuple)):
            raise RecordError(f"bad plays {show(self.plays)}: expected a list or tuple of scopa.Move")
        for j, m in enumerate(self.plays):
            if not isinstance(m, Move):
                raise RecordError(f"bad play {j + 1} {show(m)}: expected a scopa.Move (Move.parse reads one)")
        object.__setattr__(self, "plays", tuple(self.plays))
        object.__setattr__(self, "score", _check_score(self.score))
        object.__setattr__(self, "annotations", ReadOnlyDict(_check_notes(self.annotations, len(self.plays))))
        end = _final
        if not (
            isinstance(end, State)
            and end.origin == self.deal
            and [(c, m) for _, c, m in end._history] == [(p._card.index, p._mask) for p in self.plays]
        ):
            end = _replay(self.deal, self.plays)[1]
        why = _score_mismatch(end, self.score, self.score)
        if why is not None:
            raise RecordError(why)

    @property
    def rules(self) -> Rules:
        """The rules of the hand (its deal's)."""
        return self.deal.rules

    @property
    def dealer(self) -> int | None:
        """The dealer's seat (its deal's; ``None`` when the deal does not say)."""
        return self.deal.dealer

    @classmethod
    def from_state(cls, state: State) -> HandRecord:
        """The record of ``state``'s hand so far: its :attr:`State.origin` and history."""
        if not isinstance(state, State):
            raise RecordError(f"bad state {show(state)}: expected a scopa.State")
        why = _is_deal(state.origin)
        if why is not None:
            raise RecordError(
                f"cannot record {show(state.to_string())}: its history does not start from a deal ({why})"
            )
        score = state.score().points if state.is_over else None
        return cls(state.origin, tuple(m for _, m in state.history), score, _final=state)

    def replay(self) -> list[State]:
        """The hand's positions: the deal, then the position after each play."""
        states = [self.deal]
        for m in self.plays:  # (legal: checked when the record was made)
            states.append(states[-1]._after(m))
        return states

    def final(self) -> State:
        """The position after the last play (with its history)."""
        return self.replay()[-1]

    def annotate(self, notes: Mapping[int, Annotation]) -> HandRecord:
        """A copy with ``notes`` added (replacing those on the same plays)."""
        if not isinstance(notes, Mapping):
            raise RecordError(f"bad notes {show(notes)}: expected a mapping of play indices to Annotations")
        return dataclasses.replace(self, annotations={**self.annotations, **notes})

    def to_json(self, standalone: bool = True) -> dict[str, Any]:
        """The hand as JSON (``scopa-hand`` version 1 when ``standalone``; inside a match
        record without the format and the rules)."""
        out: dict[str, Any] = {}
        if standalone:
            out = {"format": HAND_FORMAT[0], "version": HAND_FORMAT[1], "rules": self.rules.to_json()}
        out["dealer"] = self.dealer
        out["deal"] = self.deal.to_string()
        out["plays"] = [str(m) for m in self.plays]
        out["score"] = None if self.score is None else list(self.score)
        # (checked again: the dict is the record's own, and a caller may have changed it since)
        notes = _check_notes(self.annotations, len(self.plays))
        if notes:
            out["annotations"] = [
                {
                    "play": i,
                    **({"mark": a.mark} if a.mark is not None else {}),
                    **({"comment": a.comment} if a.comment is not None else {}),
                }
                for i, a in notes.items()
            ]
        return out

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the hand's record as JSON (``scopa-hand``) to ``path``, as
        :meth:`MatchRecord.save` writes a match's (atomically; :func:`load_record` reads it back
        as a match record of one hand, :meth:`from_json` as the hand).

        >>> import tempfile; from pathlib import Path
        >>> hand = State.deal("scopa", seed=1).play("3dx3c").record()
        >>> path = Path(tempfile.mkdtemp()) / "hand.json"
        >>> hand.save(path)
        >>> HandRecord.from_json(path.read_bytes()) == hand, load_record(path).hands == (hand,)
        (True, True)
        """
        save_json(path, self.to_json(), "the hand's record")

    @classmethod
    def from_json(cls, obj: Any, rules: Rules | str | bytes | Mapping[str, Any] | None = None) -> HandRecord:
        """Read and validate a hand record (the rules come from the match record around it,
        in any form :meth:`Rules.of <scopa.Rules.of>` takes, or from the hand's own ``rules``),
        decoded or as JSON text or its UTF-8 bytes."""
        if rules is None:
            return cls._from_json(obj, None, "the hand")
        rules = Rules.of(rules)
        obj = jsonio.decoded(obj, "the hand", RecordError, MAX_RECORD_BYTES)
        if isinstance(obj, Mapping) and "format" in obj and "rules" in obj:  # (not "unknown fields")
            raise RecordError(
                "the hand: a hand record of its own (it has its format and rules): expected it without"
                " rules=, or a match record's hand (HandRecord.to_json(standalone=False)) with them"
            )
        return cls._from_json(obj, rules, "the hand")

    @classmethod
    def _from_json(cls, obj: Any, rules: Rules | None, where: str) -> HandRecord:
        """:meth:`from_json`, its messages naming the hand ``where`` (a match record's "hand 2")."""
        if rules is not None and not isinstance(rules, Rules):
            raise RecordError(f"bad rules {show(rules)}: expected a scopa.Rules or None (Rules.preset(name))")
        return cls._read(jsonio.decoded(obj, where, RecordError, MAX_RECORD_BYTES), rules, where)[0]

    @classmethod
    def _read(
        cls,
        obj: Any,
        rules: Rules | None = None,
        where: str = "the hand",
        check_deal: Callable[[State], None] | None = None,
        score_field: str = "score",
    ) -> tuple[HandRecord, State]:
        """:meth:`from_json`, and the position after the last play, replayed once;
        ``check_deal`` (for a match's own checks) sees the deal before the plays are read;
        ``score_field``: the field holding the hand's points (a match's JSON says ``points``)."""
        if not isinstance(obj, Mapping):
            raise RecordError(f"{where}: expected a JSON object, got {show(obj)}")
        allowed = {"dealer", "deal", "plays", score_field, "annotations"}
        standalone = rules is None  # (a hand record of its own: its rules' target is its own too)
        if rules is None:
            allowed |= {"format", "version", "rules"}
            problem = jsonio.format_problem(obj, HAND_FORMAT)
            if problem:
                raise RecordError(f"{where}: not a hand record: {problem}")
            try:
                rules = Rules.from_json(obj.get("rules"))
            except ScopaError as exc:
                raise RecordError(f"{where}: {exc}") from None
        unknown = unknown_keys(obj, allowed)
        if unknown:
            raise RecordError(f"{where}: unknown {listed('field', unknown)}")
        text = obj.get("deal")
        if not isinstance(text, str):
            raise RecordError(f"{where}: 'deal' must be a position string, got {show(text)}")
        try:
            deal = State.from_string(text)
        except ScopaError as exc:
            raise RecordError(f"{where}: bad deal: {exc}") from None
        if _rules_differ(deal, rules):
            raise RecordError(f"{where}: the deal's rules {show(deal.rules.to_json())} are not the record's")
        if standalone and deal.rules.target != rules.target:  # (it was the deal's, without a word)
            raise RecordError(
                f"{where}: the deal's target {deal.rules.target} is not the record's rules' ({rules.target})"
            )
        why = _is_deal(deal)
        if why is not None:
            raise RecordError(f"{where}: bad deal {show(text)}: {why}")
        dealer = plain_int(obj.get("dealer", deal.dealer))  # (NumPy's integers too)
        if not isinstance(dealer, int) or isinstance(dealer, bool):
            raise RecordError(f"{where}: bad dealer {show(dealer)}: expected the deal's seat, {deal.dealer}")
        if dealer != deal.dealer:
            raise RecordError(f"{where}: dealer {show(dealer)} is not the deal's ({deal.dealer})")
        if check_deal is not None:
            check_deal(deal)
        if "plays" not in obj:
            raise RecordError(f"{where}: no 'plays': expected a list of moves (empty before the first play)")
        plays = obj["plays"]
        if not isinstance(plays, list) or len(plays) > 40:
            raise RecordError(f"{where}: 'plays' must be a list of at most 40 moves, got {show(plays)}")
        for j, play in enumerate(plays):  # (as the schema says: a play padded past it was read)
            if isinstance(play, str) and len(play) > MAX_PLAY:
                raise RecordError(
                    f"{where}, play {j + 1} ({show(play)}): a play of {len(play)} characters, "
                    f"expected move notation of at most {MAX_PLAY}"
                )
        moves, state = _replay(deal, plays, where)
        raw_score = obj.get(score_field)
        try:
            score = _check_score(raw_score, score_field)
        except RecordError as exc:
            raise RecordError(f"{where}: {exc}") from None
        why = _score_mismatch(state, score, raw_score, score_field)
        if why is not None:
            raise RecordError(f"{where}: {why}")
        notes: dict[int, Annotation] = {}
        raw = obj.get("annotations", [])
        if not isinstance(raw, list):
            raise RecordError(f"{where}: 'annotations' must be a list")
        for a in raw:
            if not isinstance(a, Mapping) or set(a) - {"play", "mark", "comment"} or "play" not in a:
                raise RecordError(
                    f"{where}: bad annotation {show(a)}: expected {{'play', 'mark', 'comment'}}"
                )
            try:
                i = _check_index(a["play"], len(moves))
            except RecordError as exc:
                raise RecordError(f"{where}: {exc}") from None
            if i in notes:
                twice = f"two annotations at play index {i} (play {i + 1})"
                raise RecordError(f"{where}: {twice}: expected one a play")
            for key, what in (("mark", f"one of {', '.join(MARKS)}"), ("comment", "a string")):
                if key in a and a[key] is None:  # (left out when there is none, as the schema says)
                    raise RecordError(f"{where}, {_at(i)}: {key} null: expected {what}, or no {key!r} key")
            try:
                notes[i] = Annotation(a.get("comment"), a.get("mark"))
            except RecordError as exc:
                raise RecordError(f"{where}, {_at(i)}: {exc}") from None
        try:
            return cls(deal, tuple(moves), score, notes, state), state
        except RecordError as exc:
            raise RecordError(f"{where}: {exc}") from None


@dataclass(frozen=True)
class MatchRecord:
    """A match: rules, target, tags and its hands in order (the last may be unfinished).

    >>> import scopa
    >>> m = scopa.Match("scopa", seed=1)
    >>> while not m.history:                     # one hand
    ...     _ = m.play(m.state.legal_moves()[0])
    >>> rec = m.record({"Event": "demo"})
    >>> rec.scores, rec.winner, len(rec.hands), dict(rec.tags)
    ((4, 0), None, 1, {'Event': 'demo'})
    >>> rec.text().splitlines()[:5]
    ['[Event "demo"]', '[Rules "scopa"]', '[Target "11"]', '', 'Hand 1 (dealer: seat 0)']
    """

    rules: Rules
    hands: tuple[HandRecord, ...] = ()
    tags: Mapping[str, str] = field(default_factory=dict)

    def __hash__(self) -> int:
        """A record is a value: equal records hash alike (its tags too), so records can be kept
        in sets and as keys.

        >>> from scopa.rules import Rules
        >>> len({MatchRecord(Rules.preset("scopa"), tags={"Event": "x"}) for _ in range(3)})
        1
        """
        return hash((self.rules, self.hands, self.tags))

    def __post_init__(self) -> None:
        """Checks what :meth:`from_json` checks short of a replay: at most
        :data:`scopa.match.MAX_HANDS` hands of the record's rules, only the last unfinished,
        none after the match is won, the tags (:func:`check_tags`). A decided match gets its
        ``Result`` tag (the scores, ``"11-7"``) unless it has one."""
        if not isinstance(self.rules, Rules):  # (a value's fields hold values: docs/api/formats.md)
            raise RecordError(f"bad record rules {show(self.rules)}: expected a Rules")
        try:
            if isinstance(self.hands, (str, bytes, Mapping)):  # (not its letters or keys: "" was no hands)
                raise TypeError
            hands = tuple(self.hands)
        except TypeError:
            raise RecordError(
                f"bad record hands {show(self.hands)}: expected a tuple of HandRecords"
            ) from None
        if len(hands) > _match.MAX_HANDS:
            raise RecordError(
                f"a record of {len(hands)} hands: a match holds at most {_match.MAX_HANDS} "
                "(scopa.match.MAX_HANDS)"
            )
        scores = [0, 0]
        for i, h in enumerate(hands):
            if not isinstance(h, HandRecord):
                raise RecordError(f"hand {i + 1}: expected a HandRecord, got {show(h)}")
            if _rules_differ(h.deal, self.rules):
                raise RecordError(
                    f"hand {i + 1}: the deal's rules {show(h.rules.to_json())} are not the record's"
                )
            if max(scores) >= self.rules.target and scores[0] != scores[1]:
                raise RecordError(f"hand {i + 1}: the match was already won {scores[0]}-{scores[1]}")
            before = hands[i - 1].dealer if i else None  # (a hand record's deal has its dealer)
            if before is not None and h.dealer != (before + 1) % self.rules.players:  # RULES §5
                raise RecordError(
                    f"hand {i + 1}: dealt by seat {h.dealer}, but the dealer moves one seat on after"
                    f" each hand: expected seat {(before + 1) % self.rules.players}"
                )
            if h.score is None:
                if i < len(hands) - 1:
                    raise RecordError(f"hand {i + 1}: unfinished, but more hands follow")
            else:
                scores = [scores[0] + h.score[0], scores[1] + h.score[1]]
        tags = check_tags(self.tags)
        a, b = scores
        if max(a, b) >= self.rules.target and a != b:
            tags.setdefault("Result", f"{a}-{b}")
        object.__setattr__(self, "hands", hands)
        object.__setattr__(self, "tags", ReadOnlyDict(tags))

    @property
    def target(self) -> int:
        """The points that win the match (its rules' ``target``)."""
        return self.rules.target

    @property
    def scores(self) -> tuple[int, int]:
        """Points per team over the finished hands."""
        done = [h.score for h in self.hands if h.score is not None]
        return (sum(s[0] for s in done), sum(s[1] for s in done))

    @property
    def winner(self) -> int | None:
        """The winning team once the record's hands decide the match (RULES §5), else None."""
        a, b = self.scores
        return (0 if a > b else 1) if max(a, b) >= self.target and a != b else None

    def replay(self) -> list[list[State]]:
        """The positions of every hand, in order (see :meth:`HandRecord.replay`)."""
        return [h.replay() for h in self.hands]

    def to_json(self) -> dict[str, Any]:
        """The record as JSON (``scopa-record`` version 1)."""
        return {
            "format": RECORD_FORMAT[0],
            "version": RECORD_FORMAT[1],
            "rules": self.rules.to_json(),
            "target": self.target,
            "tags": check_tags(self.tags),  # (again: the dict may have been changed since)
            "hands": [h.to_json(standalone=False) for h in self.hands],
        }

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the record as JSON to ``path`` (atomically: a new file renamed over it). A path
        that cannot be written raises :class:`OptionError` and leaves no file behind; a record
        of more than :data:`MAX_RECORD_BYTES` (which :func:`load_record` would not read back)
        raises :class:`RecordError`."""
        save_json(path, self.to_json())

    @classmethod
    def from_json(cls, obj: Any) -> MatchRecord:
        """Read and validate a match record (every hand replayed), decoded or as JSON text or
        its UTF-8 bytes (:func:`load_record` reads a file too, and takes a hand record)."""
        obj = jsonio.decoded(obj, "the record", RecordError, MAX_RECORD_BYTES)
        if not isinstance(obj, Mapping):
            raise RecordError(f"a record must be a JSON object, got {show(obj)}")
        problem = jsonio.format_problem(obj, RECORD_FORMAT)
        if problem:
            raise RecordError(f"not a match record: {problem}")
        unknown = unknown_keys(obj, ("format", "version", "rules", "target", "tags", "hands"))
        if unknown:
            raise RecordError(f"unknown {listed('field', unknown)} in the record")
        try:
            rules = Rules.from_json(obj.get("rules"))
        except ScopaError as exc:
            raise RecordError(f"bad record rules: {exc}") from None
        target = plain_int(obj.get("target", rules.target))  # (NumPy's integers too)
        if not isinstance(target, int) or isinstance(target, bool):  # (11.0 "differed from 11")
            raise RecordError(
                f"bad record target {show(target)}: expected an integer, its rules' {rules.target}"
            )
        if target != rules.target:
            raise RecordError(
                f"record target {show(target)} differs from its rules' {rules.target} "
                "(a target other than the preset's goes in 'rules')"
            )
        tags = check_tags(obj.get("tags", {}))
        if "hands" not in obj:
            raise RecordError(
                "no 'hands' in the record: expected a list of hand records (empty before the first deal)"
            )
        raw = obj["hands"]
        if not isinstance(raw, list):
            raise RecordError(f"'hands' must be a list of hand records, got {show(raw)}")
        if len(raw) > _match.MAX_HANDS:
            raise RecordError(
                f"a record of {len(raw)} hands: a match holds at most {_match.MAX_HANDS} "
                "(scopa.match.MAX_HANDS)"
            )
        hands = tuple(HandRecord._from_json(h, rules, f"hand {i + 1}") for i, h in enumerate(raw))
        return cls(rules, hands, tags)  # (which checks the order of the hands and the match's end)

    def text(self, hand: int | None = None) -> str:
        """A readable export, one hand a block, like a PGN movetext (``scopa replay --text``);
        with ``hand`` (1 is the first), the tags and that hand's block only (``--text --hand H``),
        without the match's score.

        >>> from scopa import Match
        >>> m = Match("scopa", seed=1)
        >>> for _ in range(40):
        ...     _ = m.play(m.state.legal_moves()[0])
        >>> record = m.record()
        >>> record.text(2).splitlines()[3]
        'Hand 2 (dealer: seat 1)'
        >>> record.text(3)
        Traceback (most recent call last):
        ...
        scopa.records.RecordError: bad hand 3: the record holds 2 hands (1..2)
        """
        if hand is not None:
            number = as_int(hand)
            if number is None or isinstance(hand, bool) or not 1 <= number <= len(self.hands):
                n = len(self.hands)
                held = f"{count(n, 'hand')} (1..{n})" if n else "no hands"
                raise RecordError(f"bad hand {show(hand)}: the record holds {held}")
            hand = number
        return _text(self, hand)

    def seat_names(self) -> list[str]:
        """Each seat's name as :meth:`text` and ``scopa review`` write it: its ``PlayerN`` tag,
        else ``seat N``, with its seat after it where the name could be read as another's.

        >>> MatchRecord(Rules.preset("scopa"), tags={"Player0": "Ann", "Player1": ""}).seat_names()
        ['Ann', 'seat 1']
        """
        return _seat_names(self)


def save_json(
    path: str | os.PathLike[str],
    obj: Any,
    what: str = "the record",
    reader: str = "load_record",
    error: type[ScopaError] = RecordError,
) -> None:
    """Write ``obj`` as JSON to ``path`` whole or not at all (:func:`scopa.files.write_atomic`:
    a temporary file of its own renamed over it); ``what`` names it in messages, and ``reader``
    the function that reads it back: ``error`` if it is past what that reads
    (:data:`MAX_RECORD_BYTES`), :class:`OptionError` if ``path`` cannot be written."""
    if isinstance(path, (str, os.PathLike)) and not os.fspath(path):  # (it said "Is a directory")
        raise OptionError(f"cannot write {what} to '': expected a file name")
    data = (json.dumps(obj, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    if len(data) > MAX_RECORD_BYTES:
        raise error(
            f"{what} takes {len(data)} bytes as JSON: {reader} reads at most {MAX_RECORD_BYTES} "
            "(scopa.records.MAX_RECORD_BYTES)"
        )
    try:
        write_atomic(path, data)
    except (OSError, TypeError, ValueError) as exc:
        raise OptionError(f"cannot write {what} to {show(_path_text(path))}: {failure_reason(exc)}") from None


def check_writable(path: str | os.PathLike[str], what: str = "the record") -> None:
    """Raise :class:`OptionError` now if a record (or ``what`` else is named) could not be saved to
    ``path`` later (an empty name, its directory missing or not writable, or ``path`` a
    directory; a directory that takes no new file, as ``/proc`` as root, tried by making the
    save's temporary file there and removing it): for the command line, which saves after a
    hand or a long review."""
    try:
        p = Path(path)
        where = p.parent if str(p.parent) else Path(".")
        real = Path(os.path.realpath(path)).parent  # (where a link's file is: write_atomic writes there)
        reason = None
        if not os.fspath(path):  # (Path("") is ".", a directory this would not say)
            reason = "expected a file name"
        elif os.fspath(path) == "-":  # (it wrote a file named "-" where svg -o - is standard output)
            reason = (
                "standard output holds the command's own text: expected a file name (./- for a file named -)"
            )
        elif p.is_dir():
            reason = IS_A_DIRECTORY
        elif p.exists() and not p.is_file():  # a device or a pipe (/dev/stdout): written into as it is
            if not os.access(path, os.W_OK):
                reason = "it is not writable"
        elif not real.is_dir():  # (a link's: the directory of the file it points to)
            linked = p.is_symlink()
            reason = f"no directory {real} (where the link points)" if linked else f"no directory {where}"
        elif p.is_file() and not os.access(path, os.W_OK):
            reason = "it is not writable"  # (as write_atomic would refuse it)
        elif not os.access(real, os.W_OK):
            reason = f"the directory {where} is not writable"
        else:  # (what the bits do not tell, /proc as root: said as the save would say it)
            check_atomic(path)
    except OSError as exc:
        reason = failure_reason(exc)
    except (TypeError, ValueError) as exc:
        reason = str(exc)
    if reason is not None:
        raise OptionError(f"cannot write {what} to {show(_path_text(path))}: {reason}")


def _path_text(path: object) -> str:
    """A path as text for a message (whatever was given as one)."""
    if isinstance(path, (str, bytes, os.PathLike)):
        try:
            return os.fsdecode(path)
        except TypeError:  # (a PathLike whose __fspath__ gives neither str nor bytes)
            pass
    return repr(path)


def record_file(name: str) -> Path | str:
    """A record's file name as a user gives it (the command line's): for :func:`load_record`
    to read as a path, never as JSON text; an empty one stays ``""``, which it refuses
    (``Path("")`` would be the directory ".").

    >>> isinstance(record_file("game.json"), Path), record_file("")
    (True, '')
    """
    return Path(name) if name else name


def load_record(
    source: str | bytes | os.PathLike[str] | Mapping[str, Any] | MatchRecord | HandRecord,
) -> MatchRecord:
    """A record from a file path, JSON text (or its UTF-8 bytes) or a decoded object: a match
    record, or a single hand record (returned as a match record of one hand). Validated by
    replaying every play. A :class:`MatchRecord` is returned as it is, a :class:`HandRecord` as
    a match record of one hand (as :meth:`State.of <scopa.State.of>` takes a State).

    >>> hand = State.deal("scopa", seed=1).play("3dx3c").record()
    >>> rec = load_record(hand.to_json())        # a hand record: a match record of one hand
    >>> len(rec.hands), rec.hands[0] == hand
    (1, True)
    >>> load_record(dict(hand.to_json(), plays=["Qc"]))
    Traceback (most recent call last):
    ...
    scopa.records.RecordError: the hand, play 1 ('Qc'): illegal move 'Qc': Qc is not in the hand of seat 1 ...
    """
    if isinstance(source, MatchRecord):
        return source
    if isinstance(source, HandRecord):
        return MatchRecord(source.rules, (source,))
    obj = read_json(source)
    if isinstance(obj, Mapping) and obj.get("format") == HAND_FORMAT[0]:
        hand = HandRecord.from_json(obj)
        return MatchRecord(hand.rules, (hand,))
    if isinstance(obj, Mapping) and obj.get("format") != RECORD_FORMAT[0]:  # (either is taken here)
        raise RecordError(
            f"not a match record nor a hand record: format {show(obj.get('format'))}, expected "
            f"{show(RECORD_FORMAT[0])} or {show(HAND_FORMAT[0])} (version {RECORD_FORMAT[1]})"
        )
    return MatchRecord.from_json(obj)


def read_json(
    source: str | bytes | os.PathLike[str] | Mapping[str, Any],
    what: str = "the record",
    error: type[ScopaError] = RecordError,
) -> Any:
    """``source`` decoded: a file path's JSON, JSON text (a string that starts with ``{``, or
    UTF-8 bytes, as every ``from_json`` takes them), or an object as it is; at most
    :data:`MAX_RECORD_BYTES`. ``error`` naming ``what`` and the file when it cannot be read or is
    not JSON (:func:`load_record`'s and :func:`scopa.review.load_review`'s reading)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return jsonio.decoded(source, what, error, MAX_RECORD_BYTES)
    obj: Any = _json_text(source, what, error) if isinstance(source, str) else source
    if obj is not _NOT_TEXT and not isinstance(obj, os.PathLike):
        return obj
    assert not isinstance(source, Mapping)
    name = show(_path_text(source))
    if source == "":  # (not "No such file", nor, as Path(""), the directory ".")
        raise error(f"cannot read {what} '': expected a file name")
    try:
        data = read_limited(source, MAX_RECORD_BYTES)
    except TooLarge as exc:
        raise error(f"cannot read {what} {name}: {exc} (scopa.records.MAX_RECORD_BYTES)") from None
    except (OSError, TypeError, ValueError) as exc:  # (ValueError: a path with a NUL character;
        # TypeError: a PathLike whose __fspath__ gives neither str nor bytes, as save_json says it)
        raise error(f"cannot read {what} {name}: {failure_reason(exc)}") from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # a UTF-8 byte order mark (editors on Windows write one)
    try:
        return jsonio.loads(data, max_chars=MAX_RECORD_BYTES)
    except jsonio.JSONInputError as exc:
        raise error(f"{what} {name} is not valid JSON: {exc.why}") from None


#: What :func:`_json_text` gives for a string that is not JSON text (a path).
_NOT_TEXT: Any = object()


def _json_text(text: str, what: str, error: type[ScopaError]) -> Any:
    """``text`` decoded when it is JSON text, else :data:`_NOT_TEXT` (a path): an object's
    text (``{...}``, ``error`` when it is not valid JSON), or an array's (no record, but
    JSON: refused as such, not taken for a file name; ``[draft] game.json`` stays a name)."""
    start = text.lstrip()[:1]
    if start not in ("{", "["):
        return _NOT_TEXT
    try:
        return jsonio.loads(text, max_chars=MAX_RECORD_BYTES)
    except jsonio.JSONInputError as exc:
        if start == "[":
            return _NOT_TEXT
        raise error(f"{what} {show(text)} is not valid JSON: {exc.why}") from None


def record_of(hands: Iterable[State], rules: Rules, tags: Mapping[str, str] | None = None) -> MatchRecord:
    """A match record of the hands whose last positions are ``hands`` (each with its history)."""
    return MatchRecord(rules, tuple(HandRecord.from_state(h) for h in hands), dict(tags or {}))


def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of both record formats, shipped in the package."""
    text = resources.files("scopa").joinpath("record.schema.json").read_text(encoding="utf-8")
    result: dict[str, Any] = json.loads(text)
    return result


# ---------------------------------------------------------------------------------- text


def _seat_names(record: MatchRecord) -> list[str]:
    """What the text export calls each seat: its ``PlayerN`` tag, else (or when it is empty)
    ``seat N``; a name that could be read as another line's (``table``, ``stock``, another
    seat's ``seat N``, another seat's name, or a name ending as one with its seat added does,
    ``... (seat N)``) gets its seat after it, so every hand line says whose it is.

    >>> from scopa.rules import Rules
    >>> _seat_names(MatchRecord(Rules.preset("scopa"), tags={"Player0": "table", "Player1": ""}))
    ['table (seat 0)', 'seat 1']
    >>> tags = {"Player0": "table (seat 1)", "Player1": "table"}
    >>> _seat_names(MatchRecord(Rules.preset("scopa"), tags=tags))
    ['table (seat 1) (seat 0)', 'table (seat 1)']
    >>> _seat_names(MatchRecord(Rules.preset("scopa"), tags={"Player0": "You", "Player1": "Bo (seat 1)"}))
    ['You', 'Bo (seat 1)']
    """
    n = record.rules.players
    names = [record.tags.get(f"Player{i}") or f"seat {i}" for i in range(n)]
    taken = {"table", "stock"} | {f"seat {i}" for i in range(n)}

    def own_seat_added(name: str, i: int) -> bool:
        # a name that already ends with its own seat ("Opponent (seat 1)", as `scopa play`
        # names seat 1) reads as that seat's, unless what it adds the seat to is a name too
        base = name[: -len(f" (seat {i})")]
        return name.endswith(f" (seat {i})") and base not in taken and base not in names

    return [
        name
        if name not in taken - {f"seat {i}"}
        and names.count(name) == 1
        and (not _SEATED.search(name) or own_seat_added(name, i))
        else f"{name} (seat {i})"
        for i, name in enumerate(names)
    ]


#: A name as the text export writes one with its seat added.
_SEATED = re.compile(r" \(seat \d+\)$")


def _quoted(value: str) -> str:
    """A tag value between double quotes, escaped as PGN does (a backslash before ``\\``
    and ``"``); tags hold no control character (:func:`check_tags`), so it is one line."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _one_line(text: str) -> str:
    """``text`` with its line breaks (one space for a CR LF), other control characters and
    bidirectional controls as spaces.

    >>> _one_line("a\\r\\nb\\tc")
    'a b c'
    """
    text = text.replace("\r\n", "\n")
    # (and the bidirectional controls, which a tag may not hold: in a comment one turned the
    # plays after it on its line round)
    return "".join(" " if unicodedata.category(c) in ("Cc", "Zl", "Zp") or c in _BIDI else c for c in text)


def _text(record: MatchRecord, only: int | None = None) -> str:
    lines = []
    tags = check_tags(record.tags)  # (again: a record's dict may have been changed since it was made)
    for key in (*TAGS, *sorted(set(tags) - set(TAGS))):
        if key in tags:
            lines.append(f"[{key} {_quoted(tags[key])}]")
    lines.append(f'[Rules "{record.rules.hand_rules()}"]')  # (less the target: its own tag says it)
    lines.append(f'[Target "{record.target}"]')
    names = _seat_names(record)
    for i, hand in enumerate(record.hands):
        if only is not None and i != only - 1:
            continue
        lines.append("")
        deal = hand.deal
        lines.append(f"Hand {i + 1} (dealer: {names[hand.dealer or 0]})")  # (any name: not "You deals")
        for seat, h in enumerate(deal.hands):
            lines.append(f"  {names[seat]}: {h}")
        lines.append(f"  table: {deal.table or '-'}")
        if deal.stock:
            lines.append(f"  stock: {' '.join(str(c) for c in deal.stock)}")
        lines.append(_movetext(hand))
        if hand.score is not None:
            lines.append(f"Score {hand.score[0]}-{hand.score[1]}")
    if record.hands and only is None:  # (one hand's text: the match's score is no part of it)
        lines.append("")
        lines.append(result_line(record))
    return "\n".join(lines) + "\n"


def result_line(record: MatchRecord) -> str:
    """The match's score, and its winner once it is won: the last line of
    :meth:`MatchRecord.text` and of ``scopa replay`` (one wording: a teacher's audit read
    "match 1-0: team 0 wins" in one and "Match 1-0, team 0 wins" in the other).

    >>> from scopa.match import Match
    >>> m = Match("scopa", seed=1)
    >>> result_line(m.record())
    'Match 0-0'
    """
    a, b = record.scores
    return f"Match {a}-{b}" + (f", team {record.winner} wins" if record.winner is not None else "")


def _movetext(hand: HandRecord) -> str:
    """The plays, numbered by round (one play per seat), with marks and {comments}."""
    n = hand.rules.players
    parts: list[str] = []
    notes = _check_notes(hand.annotations, len(hand.plays))  # (again, as tags)
    for j, m in enumerate(hand.plays):
        a = notes.get(j)
        text = str(m) + (a.mark if a and a.mark else "")
        # (a round's number with its first play: a line broke between them)
        parts.append(f"{j // n + 1}. {text}" if j % n == 0 else text)
        if a and a.comment:
            parts.append("{" + _one_line(a.comment).replace("}", ")") + "}")
    words: list[str] = []
    line = ""
    for p in parts:  # wrap at 80 columns, as PGN does
        if line and len(line) + 1 + len(p) > 80:
            words.append(line)
            line = p
        else:
            line = f"{line} {p}" if line else p
    if line:
        words.append(line)
    return "\n".join(words) if words else "(no plays)"


def annotated(record: MatchRecord, notes: Sequence[Mapping[int, Annotation]]) -> MatchRecord:
    """``record`` with ``notes[i]`` added to hand ``i`` (a :class:`MatchRecord`; a hand's record
    is ``MatchRecord(rules, (hand,))``)."""
    if not isinstance(record, MatchRecord):
        raise RecordError(
            f"bad record {show(record)}: expected a scopa.MatchRecord"
            + (", MatchRecord(hand.rules, (hand,)) for a hand" if isinstance(record, HandRecord) else "")
        )
    if isinstance(notes, (str, bytes)) or not isinstance(notes, Sequence):
        raise RecordError(f"bad notes {show(notes)}: expected a sequence of mappings, one a hand")
    if len(notes) > len(record.hands):  # (they were dropped without a word)
        raise RecordError(
            f"bad notes: {len(notes)} hands' notes for a record of {count(len(record.hands), 'hand')};"
            " expected one mapping a hand, at most"
        )
    hands = tuple(h.annotate(notes[i]) if i < len(notes) else h for i, h in enumerate(record.hands))
    return dataclasses.replace(record, hands=hands)
