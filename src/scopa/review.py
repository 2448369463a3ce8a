"""Move-by-move review of a game: what each play cost (the model is DDS's play analyser).

For every play, from the seat that made it:

- the *fair* value: every legal move valued from that seat's view at that moment — what it
  could know: its hand and the public history — by PIMC's evaluation with its inference
  (:meth:`PIMCPlayer.evaluate <scopa.players.PIMCPlayer.evaluate>`), the played move's value,
  the best move's, and the *loss*: the best move's value minus the played one's; where the seat
  can know every card (the stock out and no more than one other hand holding cards) and the
  exact values below are found, the fair values are the exact ones;
- the *double-dummy* value where the position is small enough to solve exactly within the
  budget (with every card known: RULES §8): the played move's exact value, the best, the
  ``dd_loss``;
- a *mark*: ``?`` for a fair loss over :data:`MISTAKE` points, ``??`` over :data:`BLUNDER`;
  and a one-line *reason* where one is simple to name, something the best move does not do
  (missed a sweep, missed the settebello, gave up the settebello, left a scopa: a table a card
  the mover has not seen sweeps for a scopa as the rules score it).

Losses are in the solver's unit: a final score difference for the mover's team, never
negative (0 for a best move). :func:`review` returns plain objects; the command line, the
engine protocol and batch work format them.

At the package level ``scopa.review`` is the function :func:`review`, not this module (so is
``import scopa.review as rv``: Python's ``import a.b as c`` takes the package's attribute);
take this module's other names with ``from scopa.review import Review, DEFAULT_TIME, ...``
(``Review``, ``PlayReview`` and ``load_review`` are also ``scopa.Review`` and so on).

>>> import scopa
>>> s = scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
>>> r = review(s.play("Kc"), time_limit=0.1)
>>> p = r.plays[0]
>>> str(p.move), str(p.best), p.dd_loss, p.mark, p.reason
('Kc', '7dx3c4s', 1, '?', 'missed a sweep')
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, overload

import scopa_core as core
from scopa import jsonio
from scopa.card import bits
from scopa.errors import (
    LimitError,
    OptionError,
    ScopaError,
    as_int,
    check_int,
    check_real,
    check_seed,
    count,
    plain_number,
    real,
    show,
)
from scopa.limit import Clock, Limit
from scopa.match import MAX_HANDS
from scopa.move import Move
from scopa.players.base import sweepers
from scopa.players.pimc import PIMCPlayer
from scopa.records import (
    MAX_COMMENT,
    MAX_RECORD_BYTES,
    Annotation,
    HandRecord,
    MatchRecord,
    ReadOnlyDict,
    RecordError,
    annotated,
    read_json,
    save_json,
)
from scopa.rules import Rules
from scopa.solver import Solver, check_progress
from scopa.state import State
from scopa.view import PlayerView

__all__ = [
    "BLUNDER",
    "DEFAULT_TIME",
    "MAX_REVIEW_PLAYS",
    "MAX_TIME_PER_PLAY",
    "MISTAKE",
    "PlayReview",
    "REVIEW_FORMAT",
    "Review",
    "check_time_per_play",
    "format_text",
    "load_review",
    "review",
]

MISTAKE = 0.5
"""Fair loss (points) above which a play is marked ``?``."""
BLUNDER = 1.5
"""Fair loss (points) above which a play is marked ``??``."""
DEFAULT_TIME = 0.2
"""Default budget per play, seconds: half for the fair evaluation, half for the exact one."""
MAX_TIME_PER_PLAY = 3600.0
"""The most ``time_limit`` may be, seconds per play."""
MAX_REVIEW_PLAYS = 40 * MAX_HANDS
"""The most plays :meth:`Review.from_json` reads (a match's most hands, each of 40 plays)."""

#: Plays left from which the exact solver is tried at all, by seats (2 players: every play,
#: the stock order being known; 4 players: from 6 cards a hand).
_DD_PLAYS = {2: 40, 4: 24}


class _Values(ReadOnlyDict):
    """A play review's values: read-only (a review is a value; it hashes), written as a dict."""

    __slots__ = ()

    _REFUSAL = "a play review's values cannot be changed: make a new one (dataclasses.replace)"


#: The fields of a play's review as JSON (:meth:`PlayReview.to_json`).
_PLAY_FIELDS = (
    "hand", "play", "seat", "team", "move", "best", "value", "best_value", "loss", "dd_best", "dd_loss",
    "mark", "reason", "reviewed", "values", "dd_values",
)  # fmt: skip
REVIEW_FORMAT = ("scopa-review", 1)
"""The format tag of :meth:`Review.to_json`."""


def _moves_to(obj: object, name: str, kind: str, *needed: Move) -> dict[Move, Any]:
    """A JSON object of move notation to numbers (``kind``: "a number" or "an int") as ``{Move:
    value}``, holding ``needed``; :class:`OptionError` quoting the JSON read if it is not one,
    names a move twice, holds what is not a number of its kind or lacks a move needed."""
    if not isinstance(obj, Mapping):
        raise OptionError(f"bad {name} {jsonio.short(obj)}: expected an object of moves to values")
    out: dict[Move, Any] = {}
    for text, value in obj.items():
        try:
            move = Move.parse(text)
        except ScopaError as exc:
            raise OptionError(f"bad {name}: {exc}") from None
        if move in out:
            raise OptionError(f"bad {name}: the move {move} is given twice ({show(text)})")
        if not _number(value) or (kind == "an int" and not isinstance(value, int)):
            raise OptionError(f"bad {name}: {jsonio.short(text)}: {jsonio.short(value)}, expected {kind}")
        out[move] = value
    missing = [str(m) for m in dict.fromkeys(needed) if m not in out]
    if missing:
        raise OptionError(f"bad {name} {jsonio.short(obj)}: expected a value of {', '.join(missing)} too")
    return out


def _same(given: object, written: object) -> bool:
    """A figure read from JSON equals the one written (``1`` is ``1.0``, but not ``true``): in
    lists and objects too, item by item."""
    if isinstance(given, dict) and isinstance(written, dict):
        return given.keys() == written.keys() and all(_same(given[k], v) for k, v in written.items())
    if isinstance(given, list) and isinstance(written, list):
        return len(given) == len(written) and all(map(_same, given, written))
    if isinstance(given, (dict, list)) or isinstance(written, (dict, list)):
        return False
    return (
        (type(given) is bool) == (type(written) is bool)
        and given == written
        and (given is None) == (written is None)
    )


def _number(x: object) -> bool:
    """Whether ``x`` is a finite int or float, not a bool (an int past a float's range, 10**400,
    read from JSON text, is not: math.isfinite raised OverflowError on it)."""
    return math.isfinite(real(x))


def _values(values: object, name: str, kind: str, moves: tuple[Move, ...]) -> _Values:
    """``values`` as a read-only ``{Move: number}`` holding ``moves`` (NumPy's numbers read as
    Python's); else :class:`OptionError`."""
    if isinstance(values, Mapping):
        values = {m: plain_number(v) for m, v in values.items()}
    ok = isinstance(values, Mapping) and all(
        isinstance(m, Move) and _number(v) and (kind == "a number" or isinstance(v, int))
        for m, v in values.items()
    )
    missing = [m for m in moves if m not in values] if ok else []  # type: ignore[operator]
    if not ok or missing:
        raise OptionError(
            f"bad {name} {show(values)}: expected a dict of scopa.Move to {kind}"
            + (f", with {', '.join(map(str, missing))}" if missing else "")
        )
    assert isinstance(values, Mapping)
    return _Values(values)


@dataclass(frozen=True)
class PlayReview:
    """The review of one play.

    Attributes:
        hand, play: where the play is (0-based: the hand in the record, the play in the hand).
        seat, team: who made it.
        move: the move played.
        best: the best move by the fair evaluation.
        values: each legal move's fair value (points for the mover's team).
        loss: the fair value of ``best`` minus that of ``move`` (>= 0).
        dd_values: each legal move's exact value, when solved; else None.
        dd_best: a move with the best exact value, when solved.
        dd_loss: the exact loss (>= 0), when solved.
        mark: ``"?"``, ``"??"`` or None.
        reason: a short reason for the mark, when one is simple to name.
        reviewed: False for a play the review's overall limit left out: then ``best`` is
            the move played, ``values`` holds only it, at 0.0 (nothing was valued), the loss is
            0 and there are no exact values and no mark.

    >>> s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    >>> p = review(s.play("Kc"), time_limit=0.1).plays[0]
    >>> {str(m): v for m, v in p.values.items()}, p.played_value, p.best_value
    ({'7dx3c4s': 4.0, 'Kc': 3.0}, 3.0, 4.0)
    >>> {str(m): v for m, v in p.dd_values.items()}, p.loss, p.dd_loss
    ({'7dx3c4s': 4, 'Kc': 3}, 1.0, 1)
    """

    hand: int
    play: int
    seat: int
    team: int
    move: Move
    best: Move
    values: dict[Move, float]
    loss: float
    dd_values: dict[Move, int] | None
    dd_best: Move | None
    dd_loss: int | None
    mark: str | None
    reason: str | None
    reviewed: bool = True

    def __post_init__(self) -> None:
        # (a review built by hand, or pasted back from its repr: each field of its type and range,
        # the moves among the values; the dicts made read-only, so that a review hashes)
        # (bounded as a record is: a match's hands, a hand's 40 cards; a review read from JSON
        # may say anything, and a hand of 10**400 failed its summary with OverflowError)
        # (each int kept as an int: NumPy's read as theirs, so that the repr pastes back)
        for name, high in (("hand", MAX_HANDS - 1), ("play", 39), ("seat", 3), ("team", 1)):
            object.__setattr__(self, name, check_int(name, getattr(self, name), 0, high))
        if self.team != self.seat & 1:
            raise OptionError(f"bad team {show(self.team)}: seat {self.seat} is on team {self.seat & 1}")
        for name in ("move", "best"):
            if not isinstance(getattr(self, name), Move):
                raise OptionError(f"bad {name} {show(getattr(self, name))}: expected a scopa.Move")
        object.__setattr__(self, "values", _values(self.values, "values", "a number", (self.move, self.best)))
        object.__setattr__(self, "loss", plain_number(self.loss))
        check_real("loss", self.loss, 0, math.inf, "a finite number >= 0", finite=True)
        dd = (self.dd_values, self.dd_best, self.dd_loss)
        if any(x is not None for x in dd):
            if not isinstance(self.dd_best, Move):
                raise OptionError(f"bad dd_best {show(self.dd_best)}: expected a scopa.Move with dd_values")
            object.__setattr__(self, "dd_loss", check_int("dd_loss", self.dd_loss, 0))
            dd_values = _values(self.dd_values, "dd_values", "an int", (self.move, self.dd_best))
            object.__setattr__(self, "dd_values", dd_values)
        if self.mark not in (None, "?", "??"):
            raise OptionError(f"bad mark {show(self.mark)}: expected '?', '??' or None")
        if self.reason is not None and not isinstance(self.reason, str):
            raise OptionError(f"bad reason {show(self.reason)}: expected a string or None")
        if self.reviewed is not True and self.reviewed is not False:
            raise OptionError(f"bad reviewed {show(self.reviewed)}: expected True or False")
        if not self.reviewed and (
            self.best != self.move
            or dict(self.values) != {self.move: 0.0}
            or self.loss != 0
            or any(x is not None for x in (*dd, self.mark, self.reason))
        ):  # (a play left out has nothing valued: its summary counted it nowhere, but worst and annotations)
            raise OptionError(
                f"bad play {show(self)}: a play not reviewed has best the move played, values"
                " only it at 0.0, loss 0, and no dd_values, dd_best, dd_loss, mark or reason"
            )

    @property
    def played_value(self) -> float:
        """The value of the move played, from the mover's view (``values[move]``)."""
        return self.values[self.move]

    @property
    def best_value(self) -> float:
        """The value of the best move, from the mover's view (``values[best]``)."""
        return self.values[self.best]

    def to_json(self) -> dict[str, Any]:
        """The play's entry of a review's JSON ``plays`` (:meth:`from_json` reads it back): its
        place, the moves as notation, the values rounded to 4 decimals."""
        move = str(self.move)
        return {
            "hand": self.hand,
            "play": self.play,
            "seat": self.seat,
            "team": self.team,
            "move": move,
            "best": move if self.best == self.move else str(self.best),
            "value": round(self.played_value, 4),
            "best_value": round(self.best_value, 4),
            "loss": round(self.loss, 4),
            "dd_best": None if self.dd_best is None else str(self.dd_best),
            "dd_loss": self.dd_loss,
            "mark": self.mark,
            "reason": self.reason,
            "reviewed": self.reviewed,
            "values": {str(m): v for m, v in self.values.items()},
            "dd_values": None if self.dd_values is None else {str(m): v for m, v in self.dd_values.items()},
        }

    @classmethod
    def from_json(cls, obj: Any) -> PlayReview:
        """Rebuild a play's review from :meth:`to_json`'s output: the losses from its
        ``values`` and ``dd_values`` (unrounded), which must agree with the rounded figures
        beside them; else :class:`OptionError` naming the field. The object may
        be given decoded, as JSON text or as its UTF-8 bytes."""
        return cls._from_json(obj, "the play")

    @classmethod
    def _from_json(cls, obj: Any, where: str) -> PlayReview:
        """:meth:`from_json`, its messages naming the play as ``where`` (a review's reader names
        its place: "play 3 of the review")."""
        obj = jsonio.decoded(obj, where, OptionError, MAX_RECORD_BYTES)
        jsonio.check_object(obj, where, _PLAY_FIELDS)
        label = where[4:] if where.startswith("the ") else where  # ("bad play: ...", not "bad the play")
        try:
            move, best = Move.parse(obj["move"]), Move.parse(obj["best"])
            values = _moves_to(obj["values"], "values", "a number", move, best)
            dd_best = None if obj["dd_best"] is None else Move.parse(obj["dd_best"])
            dd_values = None
            if obj["dd_values"] is not None:
                needed = (move,) if dd_best is None else (move, dd_best)
                dd_values = _moves_to(obj["dd_values"], "dd_values", "an int", *needed)
            loss = max(0.0, values[best] - values[move])
            dd_loss = None  # (none of the three: a play not solved exactly; dd_loss then checked below)
            if dd_values is not None and dd_best is not None:
                dd_loss = dd_values[dd_best] - dd_values[move]
            elif dd_values is not None or dd_best is not None:
                dd_loss = obj["dd_loss"]  # (one of them lacking: the review built names it)
            play = cls(
                obj["hand"], obj["play"], obj["seat"], obj["team"], move, best, values, loss, dd_values,
                dd_best, dd_loss, obj["mark"], obj["reason"], obj["reviewed"],
            )  # fmt: skip
        except ScopaError as exc:
            raise OptionError(f"bad {label}: {exc}") from None
        written = play.to_json()
        for field in ("value", "best_value", "loss", "dd_loss"):  # (the figures its values give)
            if not _same(obj[field], written[field]):
                raise OptionError(
                    f"bad {label}: {field} {jsonio.short(obj[field])}, but its values give"
                    f" {jsonio.short(written[field])}"
                )
        return play


@dataclass(frozen=True)
class Review:
    """A whole game's review: every play in order, and totals per seat and team. Two reviews
    are equal when their plays, counts and rules are: ``seconds``, how long one took, is left out.

    >>> s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    >>> r = review(s.play("Kc").play("2c").play("7dx3c4s"), time_limit=0.1)
    >>> team = r.summary()["teams"][0]
    >>> team["plays"], team["loss"], team["dd_loss"], team["mistakes"]
    (2, 1.0, 1, 1)
    >>> r.annotations()                          # for a record's annotations: the play marked
    [{0: Annotation(comment='loses 1.00 (missed a sweep); best 7dx3c4s; double-dummy loss 1', mark='?')}]
    """

    plays: tuple[PlayReview, ...]
    hands: int
    players: int
    seconds: float = dataclasses.field(compare=False)  # (how long it took: not part of what it says)
    #: The rules the game was played by (:func:`review` gives its source's; None in a review
    #: built without them, or read from JSON written before reviews carried them).
    rules: Rules | None = None

    def __post_init__(self) -> None:
        # (a review built by hand: its plays in its hands and seats, which its summary and its
        # annotations index by)
        # (a record's most: summary() divides by it; NumPy's ints kept as ints)
        object.__setattr__(self, "hands", check_int("hands", self.hands, 0, MAX_HANDS))
        if as_int(self.players) not in (2, 4):  # (not 2.0, not True)
            raise OptionError(f"bad players {show(self.players)}: expected 2 or 4")
        object.__setattr__(self, "players", as_int(self.players))
        object.__setattr__(self, "seconds", plain_number(self.seconds))
        check_real("seconds", self.seconds, 0, math.inf, "a finite number >= 0", finite=True)
        rules = self.rules
        if rules is not None and (not isinstance(rules, Rules) or rules.players != self.players):
            raise OptionError(
                f"bad rules {show(rules)}: expected the scopa.Rules of a game of {self.players}"
                " players, or None"
            )
        plays = self.plays
        if not isinstance(plays, (tuple, list)) or not all(isinstance(p, PlayReview) for p in plays):
            raise OptionError(f"bad plays {show(plays)}: expected a tuple of PlayReview")
        for p in plays:
            if p.hand >= self.hands or p.seat >= self.players:
                raise OptionError(
                    f"bad plays: {show(p)} is not in the review's {count(self.hands, 'hand')} of"
                    f" {self.players} seats"
                )
        object.__setattr__(self, "plays", tuple(plays))

    def by_seat(self, seat: int) -> list[PlayReview]:
        """The reviews of the plays of ``seat`` (0 to ``players - 1``; NumPy's ints too), in
        order; :class:`~scopa.errors.OptionError` for another seat (a seat "0" or 2 of a
        2-player game gave no plays).

        >>> s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
        >>> [str(p.move) for p in review(s.play("Kc").play("2c"), time_limit=0.1).by_seat(1)]
        ['2c']
        """
        number = as_int(seat)
        if number is None or not 0 <= number < self.players:
            raise OptionError(f"bad seat {show(seat)}: expected a seat in 0..{self.players - 1}")
        return [p for p in self.plays if p.seat == number]

    def summary(self) -> dict[str, Any]:
        """Per seat and per team: the plays reviewed, the points they lost (the fair loss in
        all and per hand reviewed; the exact loss over the plays the solver valued exactly),
        mistakes and blunders (``?`` and ``??`` plays, counted apart); and the five worst plays,
        the biggest loss first. ``hands_reviewed``: every hand of the review, a hand dealt but not
        yet played too, unless a limit cut the review short; then the hands with a play
        reviewed."""

        # (hands the review reached: all when no limit cut it, a hand dealt but not yet played
        # too; else one its limit cut short counts, one it never reached not)
        if all(p.reviewed for p in self.plays):
            reached = self.hands
        else:
            reached = len({p.hand for p in self.plays if p.reviewed})

        def totals(sel: list[PlayReview]) -> dict[str, Any]:
            sel = [p for p in sel if p.reviewed]
            dd = [p.dd_loss for p in sel if p.dd_loss is not None]
            loss = float(sum(p.loss for p in sel))  # (a float with no plays too: it was the int 0)
            return {
                "plays": len(sel),
                "loss": round(loss, 4),
                "loss_per_hand": round(loss / max(1, reached), 4),
                "loss_per_play": round(loss / max(1, len(sel)), 4),
                "dd_plays": len(dd),
                "dd_loss": sum(dd),
                "mistakes": sum(p.mark == "?" for p in sel),
                "blunders": sum(p.mark == "??" for p in sel),
            }

        worst = sorted(self.plays, key=lambda p: (-p.loss, p.hand, p.play))[:5]
        return {
            "hands": self.hands,
            "hands_reviewed": reached,
            "seats": [totals(self.by_seat(s)) for s in range(self.players)],
            "teams": [totals([p for p in self.plays if p.team == t]) for t in (0, 1)],
            "worst": [p.to_json() for p in worst if p.loss > 0],
            "seconds": round(self.seconds, 3),
        }

    def to_json(self) -> dict[str, Any]:
        """``{"format": "scopa-review", "version": 1, "rules": ..., "players": ..., "hands":
        ..., "seconds": ..., "plays": [...], "summary": {...}}``, one entry per play of every
        hand in order, each with every legal move's value (``values``, ``dd_values``)
        unrounded, so that :meth:`from_json` gives back an equal review. ``rules`` as a record
        writes them (a preset's name, or an object with its options), null when unknown.

        >>> s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
        >>> r = review(s.play("Kc"), time_limit=0.1)
        >>> j = r.to_json()
        >>> j["plays"][0]["values"], j["plays"][0]["loss"], j["summary"]["teams"][0]["mistakes"]
        ({'7dx3c4s': 4.0, 'Kc': 3.0}, 1.0, 1)
        >>> j["rules"], Review.from_json(j) == r
        ('scopa', True)
        """
        return {
            "format": REVIEW_FORMAT[0],
            "version": REVIEW_FORMAT[1],
            "rules": None if self.rules is None else self.rules.to_json(),
            "players": self.players,
            "hands": self.hands,
            "seconds": self.seconds,
            "plays": [p.to_json() for p in self.plays],
            "summary": self.summary(),
        }

    @classmethod
    def from_json(cls, obj: Any) -> Review:
        """Rebuild a review from :meth:`to_json`'s output: each play as
        :meth:`PlayReview.from_json` reads it, the summary checked against the plays';
        :class:`OptionError` naming the play and the field that is wrong. A review without
        ``rules`` (written before reviews carried them) is read with none. An ``id`` beside the
        review's fields, an engine reply's or a ``scopa batch review`` line's, is read past. The
        object may be given decoded, as JSON text or as its UTF-8 bytes (:func:`load_review`
        reads a file too).
        """
        obj = jsonio.decoded(obj, "the review", OptionError, MAX_RECORD_BYTES)
        if isinstance(obj, Mapping) and set(obj) == {"id", "error"} and isinstance(obj["error"], Mapping):
            # (a failed job's line, a batch run's or the engine's: it was "no format, no version")
            said = f"{obj['error'].get('type')}: {obj['error'].get('message')}"
            job = jsonio.short(obj["id"])
            raise OptionError(f"not a review: the error of a failed job (id {job}), {said}")
        fields: tuple[str, ...] = ("players", "hands", "seconds", "plays", "summary")
        with_rules = isinstance(obj, Mapping) and "rules" in obj
        fields += ("rules",) if with_rules else ()
        fields += ("id",) if isinstance(obj, Mapping) and "id" in obj else ()  # (a reply's, a line's)
        jsonio.check_object(obj, "the review", fields, REVIEW_FORMAT)
        rules = None
        if with_rules and obj["rules"] is not None:
            try:
                rules = Rules.from_json(obj["rules"])
            except ScopaError as exc:
                raise OptionError(f"bad rules of the review: {exc}") from None
        plays = obj["plays"]
        if not isinstance(plays, list):
            raise OptionError(f"bad plays {jsonio.short(plays)}: expected a list of plays' reviews")
        if len(plays) > MAX_REVIEW_PLAYS:
            raise OptionError(f"a review of {len(plays)} plays: at most {MAX_REVIEW_PLAYS} read")
        read = tuple(PlayReview._from_json(p, f"play {i + 1} of the review") for i, p in enumerate(plays))
        r = cls(read, obj["hands"], obj["players"], obj["seconds"], rules)
        summary = r.summary()
        if not _same(obj["summary"], summary):  # (true is no count of 1)
            raise OptionError(
                f"bad summary {jsonio.short(obj['summary'])}: its plays give {jsonio.short(summary)}"
            )
        return r

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the review as JSON (:meth:`to_json`) to ``path``, atomically (a new file renamed
        over it), for :func:`load_review`. A path that cannot be written raises
        :class:`OptionError` and leaves no file behind, as does a review of more than
        :data:`~scopa.records.MAX_RECORD_BYTES` as JSON (about 2,300 hands of 2-player Scopa), which
        :func:`load_review` would not read back."""
        save_json(path, self.to_json(), "the review", "load_review", OptionError)

    def annotations(self) -> list[dict[int, Annotation]]:
        """Per hand, the marks and reasons as annotations (for :func:`annotate`)."""
        out: list[dict[int, Annotation]] = [{} for _ in range(self.hands)]
        for p in self.plays:
            if p.mark is None:
                continue
            # (the reason is the play's, before the best move: "best 5c (gave up the settebello)"
            # read as if 5c gave it up, a teacher's audit)
            note = f"loses {_loss_text(p.loss)}" + (f" ({p.reason})" if p.reason else "") + f"; best {p.best}"
            if p.dd_loss is not None:
                note += f"; double-dummy loss {p.dd_loss}"
            out[p.hand][p.play] = Annotation(note, p.mark)
        return out

    @overload
    def annotate(self, record: MatchRecord) -> MatchRecord: ...

    @overload
    def annotate(self, record: HandRecord) -> HandRecord: ...

    def annotate(self, record: MatchRecord | HandRecord) -> MatchRecord | HandRecord:
        """``record`` with this review's marks and comments on its plays: a
        :class:`~scopa.records.MatchRecord`, or a :class:`~scopa.records.HandRecord` (the review
        of one hand, as :func:`review` takes it), given back annotated.
        A play that has an annotation already keeps its comment, the review's after it (``" |
        "`` between, the review's alone if both would pass 2,000 characters), unless it ends
        with the review's already (a record this review annotated, annotated again: the same
        record); the mark is the review's. :class:`~scopa.records.RecordError` if ``record`` is
        not the game reviewed (its hands' plays are not the reviewed plays)."""
        if isinstance(record, HandRecord):  # (an API review found one refused)
            return self.annotate(MatchRecord(record.rules, (record,))).hands[0]
        if not isinstance(record, MatchRecord):
            raise RecordError(
                f"bad record {show(record)}: expected a scopa.MatchRecord or a scopa.HandRecord"
            )
        hands = record.hands
        if len(hands) != self.hands:
            raise RecordError(
                f"not the game reviewed: the record has {count(len(hands), 'hand')}, the review {self.hands}"
            )
        for p in self.plays:
            plays = hands[p.hand].plays
            played = str(plays[p.play]) if p.play < len(plays) else "no play"
            if played != str(p.move):
                raise RecordError(
                    f"not the game reviewed: hand {p.hand + 1}, play {p.play + 1} is {p.move} in the"
                    f" review, {played} in the record"
                )
        notes = self.annotations()
        for i, hand_notes in enumerate(notes):
            for play, note in list(hand_notes.items()):
                old = record.hands[i].annotations.get(play)
                if old is not None and old.comment:
                    joined = f"{old.comment} | {note.comment}"
                    if old.comment == note.comment or old.comment.endswith(f" | {note.comment}"):
                        joined = old.comment  # (annotated by this review already: not twice)
                    if len(joined) <= MAX_COMMENT:
                        hand_notes[play] = Annotation(joined, note.mark)
        return annotated(record, notes)


def load_review(source: str | bytes | os.PathLike[str] | Mapping[str, Any] | Review) -> Review:
    """A review from a file path (:meth:`Review.save`, ``scopa review --json``'s output), JSON
    text (or its UTF-8 bytes) or a decoded object (:meth:`Review.from_json`): :class:`OptionError`
    naming the file or the field that is wrong. Files of up to
    :data:`~scopa.records.MAX_RECORD_BYTES` are read, a review of thousands of hands. A
    :class:`Review` is returned as it is.

    >>> s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    >>> r = review(s.play("Kc"), time_limit=0.1)
    >>> load_review(jsonio.dumps(r.to_json())) == r
    True
    >>> load_review("no-such-review.json")
    Traceback (most recent call last):
    ...
    scopa.errors.OptionError: cannot read the review 'no-such-review.json': No such file or directory
    """
    if isinstance(source, Review):
        return source
    return Review.from_json(read_json(source, "the review", OptionError))


def _reason(state: State, move: Move, best: Move) -> str | None:
    """A short reason for a bad play, when one is simple to name."""
    opts = state.rules.core_options
    table = state.table.mask
    legal = state.legal_moves()
    last_play = sum(len(h) for h in state.hands) == 1 and not state.stock
    after, best_after = state.play(move), state.play(best)
    team = state.team_to_move
    if after.scope[team] == state.scope[team] and not last_play:
        if (
            any(m.capture_mask == table for m in legal if m.is_capture)
            and best_after.scope[team] > state.scope[team]
        ):
            return "missed a sweep"
    seven = core.SETTEBELLO
    if not (move.capture_mask | move.card.mask) & seven and move.card.mask != seven:
        if any((m.capture_mask | m.card.mask) & seven and m.is_capture for m in legal) and (
            (best.capture_mask | best.card.mask) & seven and best.is_capture
        ):
            return "missed the settebello"
    unseen = state.view(state.turn).unseen.mask
    if _exposes_settebello(after, unseen, opts) and not _exposes_settebello(best_after, unseen, opts):
        return "gave up the settebello"
    if _concedes_scopa(after, unseen, opts) and not _concedes_scopa(best_after, unseen, opts):
        return "left a scopa"
    return None


def _exposes_settebello(after: State, unseen: int, opts: int) -> bool:
    """Whether the settebello lies on the table ``after`` a play where some card the mover
    has not seen could take it."""
    table = after.table.mask if not after.is_over else 0
    return bool(table & core.SETTEBELLO) and any(
        table & core.SETTEBELLO & cap for c in bits(unseen) for cap in core.captures(c, table, opts)
    )


def _concedes_scopa(after: State, unseen: int, opts: int) -> bool:
    """Whether the next play ``after`` a play could be a scopa (RULES §3, §7) with some card
    the mover has not seen: a sweep of a non-empty table that the rules score (not an ace's
    sweep under ``ace_takes_all`` unless ``ace_sweep_is_scopa``; not the hand's last play
    unless ``scopa_on_last_play``)."""
    table = after.table.mask if not after.is_over else 0
    rules = after.rules
    last_play = not after.stock and sum(len(h) for h in after.hands) == 1
    if not table or (last_play and not rules.scopa_on_last_play):
        return False
    takers = sweepers(table, opts) & unseen
    if rules.ace_takes_all and not rules.ace_sweep_is_scopa and not table & core.ACES:
        takers &= ~core.ACES  # (an ace on a table without one takes it all, and scores no scopa)
    return bool(takers)


def _hands(source: MatchRecord | HandRecord | State) -> list[tuple[State, tuple[Move, ...]]]:
    if isinstance(source, State):
        return [(source.origin, tuple(m for _, m in source.history))]
    if isinstance(source, HandRecord):
        return [(source.deal, source.plays)]
    if isinstance(source, MatchRecord):
        return [(h.deal, h.plays) for h in source.hands]
    raise OptionError(f"cannot review {show(source)} ({type(source).__name__}): expected a record or a State")


def check_time_per_play(time_limit: object, allow_none: bool = False) -> None:
    """Raise :class:`LimitError` unless ``time_limit`` is a review's budget a play: seconds in
    (0, :data:`MAX_TIME_PER_PLAY`] (or None, the default, with ``allow_none``).

    >>> check_time_per_play(0.2), check_time_per_play(None, allow_none=True)
    (None, None)
    >>> check_time_per_play(0)
    Traceback (most recent call last):
    ...
    scopa.errors.LimitError: bad time_limit 0: expected seconds per play in (0, 3600]
    """
    if time_limit is None and allow_none:
        return
    if not 0 < real(time_limit) <= MAX_TIME_PER_PLAY:  # (NumPy's numbers too; NaN for no number)
        expected = f"seconds per play in (0, {MAX_TIME_PER_PLAY:g}]" + (", or None" if allow_none else "")
        raise LimitError(f"bad time_limit {show(time_limit)}: expected {expected}")


def review(
    source: MatchRecord | HandRecord | State,
    *,
    time_limit: float | None = DEFAULT_TIME,
    limit: Limit | None = None,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> Review:
    """Review every play of ``source`` (a record, or a State's history from its origin).

    ``time_limit`` is the budget per play (seconds: half for the fair evaluation, half for the
    exact one; None for :data:`DEFAULT_TIME`, as :func:`~scopa.batch.review_many` takes it);
    ``limit`` may bound the whole review (its stop flag or time, not nodes): the
    play it cuts short and the plays after it are left out, ``reviewed`` False, so the whole
    review stays within the limit. A play whose budget is too short for one whole PIMC sample
    takes one sample's time (as far as the review's own limit allows). ``progress(done, total)`` is
    called as the review begins (``done`` 0: a progress bar learns the total at once) and after
    each play; never for a source of no plays. Reproducible for a ``seed`` when no time limit cuts PIMC's
    sampling (it samples at most 128 times).

    >>> s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    >>> line = s.play("Kc").play("2c").play("7dx3c4s")    # reviewed from s, its origin
    >>> [(str(p.move), p.loss, p.mark) for p in review(line, time_limit=0.1).plays]
    [('Kc', 1.0, '?'), ('2c', 0.0, None), ('7dx3c4s', 0.0, None)]
    >>> from scopa.limit import StopFlag
    >>> [p.reviewed for p in review(line, limit=Limit(stop=StopFlag(set=True))).plays]
    [False, False, False]
    """
    check_time_per_play(time_limit, allow_none=True)
    time_limit = DEFAULT_TIME if time_limit is None else real(time_limit)  # (a float: NumPy's too)
    seed = check_seed(seed, OptionError)
    check_progress(progress)
    lim = Limit.of(limit)
    if lim.nodes is not None:
        raise LimitError(f"bad limit {lim!r}: a review is bounded by a time or a stop flag, not by nodes")
    hands = _hands(source)
    total = sum(len(p) for _, p in hands)
    clock = Clock(lim)
    solver = functools.cache(lambda: Solver(64))  # (made when a play is first solved: 11 ms)
    out: list[PlayReview] = []
    done = 0
    if progress is not None and total:
        progress(done, total)
    over = False  # (once the limit is reached it stays so)
    for h, (start, plays) in enumerate(hands):
        state = start
        for j, move in enumerate(plays):
            over = over or clock.expired
            if over:  # left out, without replaying the rest (each seat plays in turn)
                seat = (start.turn + j) % start.rules.players
                out.append(_left_out(h, j, seat, move))
            else:
                move = state.resolve(move)
                out.append(_review_play(state, move, h, j, time_limit, seed + 1000 * h + j, solver, clock))
                state = state.play(move)
            done += 1
            if progress is not None:
                progress(done, total)
    return Review(tuple(out), len(hands), source.rules.players, clock.elapsed, source.rules)


def _share(seconds: float, clock: Clock) -> Limit:
    """The limit of one half of a play's review: ``seconds``, or less when the review's own
    limit has less left, with its stop flag."""
    left = clock.limit.remaining_time(clock.elapsed)
    return Limit(time=seconds if left is None else max(1e-6, min(seconds, left)), stop=clock.limit.stop)


def _left_out(hand: int, play: int, seat: int, move: Move) -> PlayReview:
    """A play the review's limit left out (``reviewed`` False)."""
    nothing = (None, None, None, None, None)  # (no exact values, best, loss, mark, reason)
    return PlayReview(hand, play, seat, seat & 1, move, move, {move: 0.0}, 0.0, *nothing, False)


def _review_play(
    state: State,
    move: Move,
    hand: int,
    play: int,
    budget: float,
    seed: int,
    solver: Callable[[], Solver],
    clock: Clock,
) -> PlayReview:
    seat = state.turn
    starved = _left_out(hand, play, seat, move)  # (review checked the limit just before)
    legal = state.legal_moves()
    # (a forced play too: its value is the position's, what the review reports of it)
    player = PIMCPlayer(seed=seed, time_limit=budget / 2)
    view = state.view(seat)
    values = {m: v for m, (v, _) in player.evaluate(view, _share(budget / 2, clock)).items()}
    if player.last_samples == 0 and not clock.expired:
        # the play's budget cut PIMC's first sample short (its moves then valued one play deep):
        # one sample valued whole instead, as far as the review's own limit lets it
        player = PIMCPlayer(seed=seed, samples=1, time_limit=None)
        left = clock.limit.remaining_time(clock.elapsed)
        whole = Limit(time=None if left is None else max(1e-6, left), stop=clock.limit.stop)
        values = {m: v for m, (v, _) in player.evaluate(view, whole).items()}
    if clock.expired or player.last_samples == 0:  # the review's limit cut this play's valuation short
        return starved
    dd_values: dict[Move, int] | None = None
    dd_best: Move | None = None
    dd_loss: int | None = None
    plays_left = sum(len(h) for h in state.hands) + len(state.stock)
    if plays_left <= _DD_PLAYS[state.rules.players]:
        a = solver().analyze(state, _share(budget / 2, clock))
        if clock.expired and not a.exact:  # the review's limit cut the exact half short
            return starved
        if a.exact:
            dd_values = {m: v for m, v in a.items() if v is not None}
            dd_best = max(legal, key=lambda m: (dd_values[m], m == move))
            dd_loss = dd_values[dd_best] - dd_values[move]
            if _knows_every_card(view):
                # what the mover could know is everything: its fair values are the exact ones
                # (PIMC's, with its model of the reply, valued a move of exact loss 0 half a
                # point below the best and marked it a mistake)
                values = {m: float(v) for m, v in dd_values.items()}
    best = max(legal, key=lambda m: (values[m], m == move))  # a tie goes to the move played
    loss = max(0.0, values[best] - values[move])
    mark = "??" if loss > BLUNDER else "?" if loss > MISTAKE else None
    reason = _reason(state, move, best) if mark else None
    return PlayReview(
        hand, play, seat, seat & 1, move, best, values, loss, dd_values, dd_best, dd_loss, mark, reason
    )


def _knows_every_card(view: PlayerView) -> bool:
    """Whether every card the seat of ``view`` cannot see is in one place it knows of: the
    stock out, and at most one other hand still holding cards (RULES §8's every card known)."""
    others = sum(1 for seat, n in enumerate(view.hand_sizes) if seat != view.seat and n)
    return view.stock_size == 0 and others <= 1


def _loss_text(loss: float) -> str:
    """A loss to two decimals, or three where two would read as a mark's threshold it passes (a
    teacher's audit: "loses 0.50" marked "?", a mistake being a loss over 0.5).

    >>> _loss_text(0.5027), _loss_text(0.57), _loss_text(0.5), _loss_text(1.5031), _loss_text(0.5000401)
    ('0.503', '0.57', '0.50', '1.503', '0.50004')
    """
    digits = 2
    while digits < 6 and any(float(f"{loss:.{digits}f}") <= limit < loss for limit in (MISTAKE, BLUNDER)):
        digits += 1
    return f"{loss:.{digits}f}"


def format_text(
    r: Review,
    names: Sequence[str] | None = None,
    first_hand: int = 1,
    moves: Callable[[Move], str] = str,
) -> str:
    """A readable report: the marked plays, how many plays a limit left out (when one did),
    then the totals per seat (named by ``names``, one string a seat, or "seat N"); the
    review's hands numbered from ``first_hand`` (a match's hand reviewed alone keeps its
    number); each move written by ``moves`` (notation, ``7dx3c4s``, by default: ``scopa play``
    writes its suit symbols). A review of no plays is one line that says so.

    >>> format_text(review(State.deal("scopa", seed=1)))
    'no plays to review: the hand was dealt, nothing played'
    """
    if not isinstance(r, Review):
        raise OptionError(f"bad review {show(r)}: expected a scopa.review.Review")
    first = as_int(first_hand)
    if first is None or first < 1:
        raise OptionError(f"bad first_hand {show(first_hand)}: expected an int >= 1")
    first_hand = first
    if names is not None and (
        isinstance(names, str) or len(names) != r.players or not all(isinstance(n, str) for n in names)
    ):
        raise OptionError(f"bad names {show(names)}: expected {r.players} strings, one a seat")
    names = list(names or [f"seat {s}" for s in range(r.players)])
    if not callable(moves):
        raise OptionError(f"bad moves {show(moves)}: expected a function of a Move to its text")
    if not r.plays:  # (a teacher's audit: "0.00 points lost per hand over 0 plays", a line a seat)
        dealt = "the hand was dealt, nothing played" if r.hands else "the record holds no hands"
        return f"no plays to review: {dealt}"
    lines = []
    for p in r.plays:
        if p.mark:
            dd = "" if p.dd_loss is None else f", exact loss {p.dd_loss}"
            why = f" — {p.reason}" if p.reason else ""
            lines.append(
                f"hand {p.hand + first_hand}, play {p.play + 1}: {names[p.seat]} {moves(p.move)}{p.mark} "
                f"(best {moves(p.best)}, loses {_loss_text(p.loss)}{dd}){why}"
            )
    left_out = sum(not p.reviewed for p in r.plays)
    if not lines:  # (of the plays reviewed: a limit may have left some out, said below)
        lines.append(f"no play{' reviewed' if left_out else ''} lost more than half a point")
    if left_out:
        stopped = "the review was stopped before them"
        lines.append(f"{left_out} of {count(len(r.plays), 'play')} not reviewed: {stopped}")
    s = r.summary()
    lines.append("")
    for seat, t in enumerate(s["seats"]):
        if not t["plays"]:  # (a seat that made none, or whose plays a limit left out: said so)
            made = any(p.seat == seat for p in r.plays)
            lines.append(f"{names[seat]}: no plays {'reviewed' if made else 'made'}")
            continue
        lines.append(
            f"{names[seat]}: {t['loss_per_hand']:.2f} points lost per hand over {count(t['plays'], 'play')}, "
            f"{count(t['mistakes'], 'mistake')}, {count(t['blunders'], 'blunder')}"
        )
    return "\n".join(lines)
