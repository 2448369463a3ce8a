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
naming the hand, the play and the reason.

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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from scopa import jsonio
from scopa.errors import PositionError, ScopaError, show
from scopa.move import Move
from scopa.rules import Rules
from scopa.state import State

__all__ = [
    "HAND_FORMAT",
    "MARKS",
    "RECORD_FORMAT",
    "Annotation",
    "HandRecord",
    "MatchRecord",
    "RecordError",
    "load_record",
    "schema",
]

#: Name and version of a match record's JSON format.
RECORD_FORMAT = ("scopa-record", 1)
#: Name and version of a hand record's JSON format (a hand on its own).
HAND_FORMAT = ("scopa-hand", 1)
#: The marks an annotation may carry, as in PGN.
MARKS = ("!!", "!", "!?", "?!", "?", "??")
#: The tags a record may carry (others are kept too), in PGN's order.
TAGS = ("Event", "Site", "Date", "Round", "Player0", "Player1", "Player2", "Player3", "Result")
_MAX_HANDS = 1000


class RecordError(PositionError):
    """A record that cannot be read, or whose replay fails (naming the hand and the play)."""


@dataclass(frozen=True)
class Annotation:
    """A comment and/or a mark (one of :data:`MARKS`) on one play."""

    comment: str | None = None
    mark: str | None = None

    def __post_init__(self) -> None:
        if self.mark is not None and self.mark not in MARKS:
            raise RecordError(f"bad mark {show(self.mark)}: expected one of {', '.join(MARKS)}")
        if self.comment is not None and (not isinstance(self.comment, str) or len(self.comment) > 2000):
            raise RecordError(
                f"bad comment {show(self.comment)}: expected a string of at most 2000 characters"
            )


def _is_deal(state: State) -> str | None:
    """Why ``state`` is not the start of a hand (every card once, full hands, nothing
    played), or None when it is."""
    held = sum(len(h) for h in state.hands) + len(state.table) + len(state.stock)
    if held != 40:
        return f"it holds {held} of the 40 cards"
    if any(len(p) for p in state.captured) or any(state.scope):
        return "cards were already captured"
    if any(len(h) != state.rules.hand_size for h in state.hands):
        return f"every hand must hold {state.rules.hand_size} cards"
    if len(state.table) != state.rules.table_size:
        return f"the table must hold {state.rules.table_size} cards"
    if state.dealer is None:
        return "its dealer is not given"
    return None


@dataclass(frozen=True)
class HandRecord:
    """One hand: its deal, its plays, its score once over, annotations by play index.

    Attributes:
        deal: the position the hand starts from (a deal: every card once, full hands).
        plays: the plays in order.
        score: the hand's points per team once it is over, else None.
        annotations: ``{play index (0-based): Annotation}``.
    """

    deal: State
    plays: tuple[Move, ...] = ()
    score: tuple[int, int] | None = None
    annotations: Mapping[int, Annotation] = field(default_factory=dict)

    @property
    def rules(self) -> Rules:
        return self.deal.rules

    @property
    def dealer(self) -> int | None:
        return self.deal.dealer

    @classmethod
    def from_state(cls, state: State) -> HandRecord:
        """The record of ``state``'s hand so far: its :attr:`State.origin` and history."""
        why = _is_deal(state.origin)
        if why is not None:
            raise RecordError(
                f"cannot record {show(state.to_string())}: its history does not start from a deal ({why})"
            )
        score = state.score().points if state.is_over else None
        return cls(state.origin, tuple(m for _, m in state.history), score)

    def replay(self) -> list[State]:
        """The hand's positions: the deal, then the position after each play."""
        states = [self.deal]
        for m in self.plays:
            states.append(states[-1].play(m))
        return states

    def final(self) -> State:
        """The position after the last play (with its history)."""
        return self.replay()[-1]

    def annotate(self, notes: Mapping[int, Annotation]) -> HandRecord:
        """A copy with ``notes`` added (replacing those on the same plays)."""
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
        if self.annotations:
            out["annotations"] = [
                {
                    "play": i,
                    **({"mark": a.mark} if a.mark else {}),
                    **({"comment": a.comment} if a.comment else {}),
                }
                for i, a in sorted(self.annotations.items())
            ]
        return out

    @classmethod
    def from_json(cls, obj: Any, rules: Rules | None = None, where: str = "the hand") -> HandRecord:
        """Read and validate a hand record (the rules come from the match record around it,
        or from the hand's own ``rules``)."""
        if not isinstance(obj, Mapping):
            raise RecordError(f"{where}: expected a JSON object, got {type(obj).__name__}")
        allowed = {"dealer", "deal", "plays", "score", "annotations"}
        if rules is None:
            allowed |= {"format", "version", "rules"}
            if (obj.get("format"), obj.get("version")) != HAND_FORMAT:
                raise RecordError(f"{where}: not a hand record (format {show(obj.get('format'))})")
            try:
                rules = Rules.from_json(obj.get("rules"))
            except ScopaError as exc:
                raise RecordError(f"{where}: {exc}") from None
        unknown = sorted(set(obj) - allowed)
        if unknown:
            raise RecordError(f"{where}: unknown field(s) {', '.join(map(repr, unknown))}")
        text = obj.get("deal")
        if not isinstance(text, str):
            raise RecordError(f"{where}: 'deal' must be a position string, got {show(text)}")
        try:
            deal = State.from_string(text)
        except ScopaError as exc:
            raise RecordError(f"{where}: bad deal: {exc}") from None
        if deal.rules.replace(target=rules.target) != rules:  # (the target only matters to the match)
            raise RecordError(f"{where}: the deal's rules {show(deal.rules.to_json())} are not the record's")
        why = _is_deal(deal)
        if why is not None:
            raise RecordError(f"{where}: bad deal {show(text)}: {why}")
        if "dealer" in obj and obj["dealer"] != deal.dealer:
            raise RecordError(f"{where}: dealer {show(obj['dealer'])} is not the deal's ({deal.dealer})")
        plays = obj.get("plays", [])
        if not isinstance(plays, list) or len(plays) > 40:
            raise RecordError(f"{where}: 'plays' must be a list of at most 40 moves")
        state = deal
        moves = []
        for j, text_move in enumerate(plays):
            if state.is_over:
                raise RecordError(f"{where}, play {j + 1} ({show(text_move)}): the hand is already over")
            try:
                m = state.resolve(text_move)
            except ScopaError as exc:
                raise RecordError(f"{where}, play {j + 1} ({show(text_move)}): {exc}") from None
            moves.append(m)
            state = state.play(m)
        score = obj.get("score")
        if state.is_over:
            points = list(state.score().points)
            if score != points:
                raise RecordError(f"{where}: score {show(score)}, but the replay gives {points}")
        elif score is not None:
            raise RecordError(f"{where}: a score {show(score)} for a hand that is not over")
        notes: dict[int, Annotation] = {}
        raw = obj.get("annotations", [])
        if not isinstance(raw, list):
            raise RecordError(f"{where}: 'annotations' must be a list")
        for a in raw:
            if not isinstance(a, Mapping) or set(a) - {"play", "mark", "comment"} or "play" not in a:
                raise RecordError(
                    f"{where}: bad annotation {show(a)}: expected {{'play', 'mark', 'comment'}}"
                )
            i = a["play"]
            if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(moves):
                raise RecordError(
                    f"{where}: annotation of play {show(i)}: expected a play index in 0..{len(moves) - 1}"
                )
            notes[i] = Annotation(a.get("comment"), a.get("mark"))
        return cls(deal, tuple(moves), None if score is None else (score[0], score[1]), notes)


@dataclass(frozen=True)
class MatchRecord:
    """A match: rules, target, tags and its hands in order (the last may be unfinished)."""

    rules: Rules
    hands: tuple[HandRecord, ...] = ()
    tags: Mapping[str, str] = field(default_factory=dict)

    @property
    def target(self) -> int:
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
        tags = dict(self.tags)
        if self.winner is not None:
            tags.setdefault("Result", f"{self.scores[0]}-{self.scores[1]}")
        return {
            "format": RECORD_FORMAT[0],
            "version": RECORD_FORMAT[1],
            "rules": self.rules.to_json(),
            "target": self.target,
            "tags": tags,
            "hands": [h.to_json(standalone=False) for h in self.hands],
        }

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the record as JSON to ``path`` (atomically: a new file renamed over it)."""
        _save(path, self.to_json())

    @classmethod
    def from_json(cls, obj: Any) -> MatchRecord:
        """Read and validate a match record (every hand replayed)."""
        if not isinstance(obj, Mapping):
            raise RecordError(f"a record must be a JSON object, got {type(obj).__name__}")
        if (obj.get("format"), obj.get("version")) != RECORD_FORMAT:
            raise RecordError(
                f"not a match record: format {show(obj.get('format'))} version {show(obj.get('version'))}, "
                f"expected {show(RECORD_FORMAT[0])} version {RECORD_FORMAT[1]}"
            )
        unknown = sorted(set(obj) - {"format", "version", "rules", "target", "tags", "hands"})
        if unknown:
            raise RecordError(f"unknown field(s) {', '.join(map(repr, unknown))} in the record")
        try:
            rules = Rules.from_json(obj.get("rules"))
            if "target" in obj:
                rules = rules.replace(target=obj["target"])
        except ScopaError as exc:
            raise RecordError(f"bad record rules: {exc}") from None
        tags = obj.get("tags", {})
        if not isinstance(tags, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) and len(v) <= 500 for k, v in tags.items()
        ):
            raise RecordError(f"bad tags {show(tags)}: expected an object of strings")
        raw = obj.get("hands", [])
        if not isinstance(raw, list) or len(raw) > _MAX_HANDS:
            raise RecordError(f"'hands' must be a list of at most {_MAX_HANDS} hands")
        hands = []
        for i, h in enumerate(raw):
            rec = HandRecord.from_json(h, rules, where=f"hand {i + 1}")
            if i < len(raw) - 1 and rec.score is None:
                raise RecordError(f"hand {i + 1}: unfinished, but more hands follow")
            hands.append(rec)
        record = cls(rules, tuple(hands), dict(tags))
        scores = [0, 0]
        for i, h in enumerate(hands):
            if max(scores) >= rules.target and scores[0] != scores[1]:
                raise RecordError(f"hand {i + 1}: the match was already won {scores[0]}-{scores[1]}")
            if h.score is not None:
                scores = [scores[0] + h.score[0], scores[1] + h.score[1]]
        return record

    def text(self) -> str:
        """A readable export, one hand a block, like a PGN movetext (``scopa replay --text``)."""
        return _text(self)


def _save(path: str | os.PathLike[str], obj: Any) -> None:
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, p)


def load_record(source: str | os.PathLike[str] | Mapping[str, Any]) -> MatchRecord:
    """A record from a file path, JSON text or a decoded object: a match record, or a single
    hand record (returned as a match record of one hand). Validated by replaying every play."""
    obj: Any = source
    if isinstance(source, (str, os.PathLike)) and not (
        isinstance(source, str) and source.lstrip().startswith("{")
    ):
        try:
            text = Path(source).read_text(encoding="utf-8")
        except OSError as exc:
            raise RecordError(f"cannot read the record {show(str(source))}: {exc.strerror}") from None
        obj = text
    if isinstance(obj, str):
        try:
            obj = jsonio.loads(obj)
        except jsonio.JSONInputError as exc:
            raise RecordError(f"the record is not valid JSON: {exc}") from None
    if isinstance(obj, Mapping) and obj.get("format") == HAND_FORMAT[0]:
        hand = HandRecord.from_json(obj)
        return MatchRecord(hand.rules, (hand,))
    return MatchRecord.from_json(obj)


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
    n = record.rules.players
    return [record.tags.get(f"Player{i}", f"seat {i}") for i in range(n)]


def _text(record: MatchRecord) -> str:
    lines = []
    tags = record.to_json()["tags"]
    for key in (*TAGS, *sorted(set(tags) - set(TAGS))):
        if key in tags:
            lines.append(f'[{key} "{tags[key]}"]')
    lines.append(f'[Rules "{_rules_text(record.rules)}"]')
    lines.append(f'[Target "{record.target}"]')
    names = _seat_names(record)
    for i, hand in enumerate(record.hands):
        lines.append("")
        deal = hand.deal
        lines.append(f"Hand {i + 1}: {names[hand.dealer or 0]} deals")
        for seat, h in enumerate(deal.hands):
            lines.append(f"  {names[seat]}: {h}")
        lines.append(f"  table: {deal.table or '-'}")
        if deal.stock:
            lines.append(f"  stock: {' '.join(str(c) for c in deal.stock)}")
        lines.append(_movetext(hand))
        if hand.score is not None:
            lines.append(f"Score {hand.score[0]}-{hand.score[1]}")
    if record.hands:
        a, b = record.scores
        lines.append("")
        lines.append(f"Match {a}-{b}" + (f", team {record.winner} wins" if record.winner is not None else ""))
    return "\n".join(lines) + "\n"


def _rules_text(rules: Rules) -> str:
    opts = rules.changed_options()
    opts.pop("target", None)
    return rules.game + "".join(f"; {k}={v}" for k, v in opts.items())


def _movetext(hand: HandRecord) -> str:
    """The plays, numbered by round (one play per seat), with marks and {comments}."""
    n = hand.rules.players
    parts: list[str] = []
    for j, m in enumerate(hand.plays):
        if j % n == 0:
            parts.append(f"{j // n + 1}.")
        a = hand.annotations.get(j)
        text = str(m) + (a.mark if a and a.mark else "")
        parts.append(text)
        if a and a.comment:
            parts.append("{" + a.comment.replace("}", ")") + "}")
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
    """``record`` with ``notes[i]`` added to hand ``i``."""
    hands = tuple(h.annotate(notes[i]) if i < len(notes) else h for i, h in enumerate(record.hands))
    return dataclasses.replace(record, hands=hands)
