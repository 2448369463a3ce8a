"""A match: hands played until a team reaches the target (RULES §5).

>>> from scopa import Match, Rules
>>> m = Match(Rules.preset("scopa", target=3), seed=1)
>>> while not m.is_over:
...     _ = m.play(m.state.legal_moves()[0])
>>> m.winner in (0, 1) and max(m.scores) >= 3 and m.scores[0] != m.scores[1]
True
>>> Match.from_json(m.to_json()).scores == m.scores
True
"""

from __future__ import annotations

import contextlib
import hashlib
import secrets
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from scopa import jsonio
from scopa.card import Card
from scopa.errors import (
    IllegalMoveError,
    OptionError,
    PositionError,
    ScopaError,
    as_int,
    check_seed,
    count,
    listed,
    show,
    unknown_keys,
)
from scopa.events import Event
from scopa.events import play as play_events
from scopa.move import Move
from scopa.rules import MAX_TARGET, Rules
from scopa.scoring import HandScore
from scopa.state import State

if TYPE_CHECKING:
    from scopa.records import MatchRecord

__all__ = ["MATCH_FORMAT", "MAX_HANDS", "Match"]

MATCH_FORMAT = ("scopa-match", 1)
"""Name and version of the match's JSON format (see :meth:`Match.to_json`)."""
MAX_HANDS = 2 * MAX_TARGET + 1000
"""The most hands a match holds (a :class:`Match`, its JSON, a match record). Every hand
gives at least one point (the settebello, RULES §4), so a match reaches any target
(at most :data:`scopa.rules.MAX_TARGET`) within ``2 * target - 1`` hands; the rest is room
for the hands played while the teams are level (RULES §5). A match still level after
``MAX_HANDS`` hands stops there: no further hand is dealt and :meth:`Match.play` refuses."""


def _same(value: Any, expected: Any) -> bool:
    """Whether a JSON ``value`` is ``expected`` (an int, None, or a list of them) with the same
    types: ``1.0`` or ``true`` is not ``1``."""
    if isinstance(expected, list):
        return (
            isinstance(value, list)
            and len(value) == len(expected)
            and all(_same(v, e) for v, e in zip(value, expected, strict=True))
        )
    if expected is None:
        return value is None
    return bool(as_int(value) == expected)  # (NumPy's integers too, as a position's: an API audit)


def _derive(seed: int, what: str) -> int:
    """A 64-bit number derived from the match seed, for one use (a hand's deal, the first
    dealer): every hand's deal follows from the seed and the hand's number alone, so a
    match can be rebuilt from its JSON without any other state."""
    digest = hashlib.sha256(f"scopa-match:{seed}:{what}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _first_dealer(obj: Mapping[str, Any], rules: Rules) -> int | None:
    """The first dealer of a match JSON without a seed or a ``first_dealer``: the dealer of
    its first hand (the first of ``hands``, else ``position``'s), as :meth:`Match.from_record`
    takes it; None when it cannot be read (the hand's own check then says why)."""
    from scopa.notation import state_from_json

    hands = obj.get("hands")
    try:
        if isinstance(hands, list) and hands:
            first = hands[0]
            text = first.get("deal") if isinstance(first, Mapping) else None
            dealer = State.from_string(text).dealer if isinstance(text, str) else None
        else:
            position = obj.get("position")
            if isinstance(position, (Mapping, str, bytes)):
                dealer = state_from_json(position).origin.dealer
            else:
                dealer = None
    except ScopaError:
        return None
    return dealer if dealer is not None and dealer < rules.players else None


#: the matches a thread is changing now (by id), and the lock around the set
_CHANGING: set[int] = set()
_CHANGING_LOCK = threading.Lock()


@contextlib.contextmanager
def _changing(match: Match) -> Iterator[None]:
    """``match`` changed by this call alone: a call while another thread's changes it is an
    :class:`OptionError` (threads that share a match must take turns)."""
    key = id(match)
    with _CHANGING_LOCK:
        if key in _CHANGING:
            raise OptionError(
                "this Match is being changed by another thread: threads that share a match must take"
                " turns (a lock of their own around each play and undo)"
            )
        _CHANGING.add(key)
    try:
        yield
    finally:
        with _CHANGING_LOCK:
            _CHANGING.discard(key)


class Match:
    """Hands of one game played to ``rules.target``, with the dealer moving on each hand.

    The match is won at the end of a hand by the team with more points once one or
    both teams have reached the target; while they are level, more hands are played.
    The first dealer is drawn from ``seed`` unless ``dealer`` is given; each hand's deal
    comes from ``seed`` and the hand's number, so a match is reproducible (``seed=None``
    draws a seed, kept in :attr:`seed`). A match holds at most :data:`MAX_HANDS` hands.

    A match changes as it is played: threads that share one must take turns (a lock of their
    own around each call); a play or an undo made while another thread's changes the match is
    refused (:class:`OptionError`, the match left as the other makes it: without a lock the
    two were applied over each other, the match silently broken). What it hands out (its
    states, its hands' scores, its rules) are immutable values that any thread may keep and
    read.

    Its :attr:`rules`, :attr:`seed` and :attr:`first_dealer` are fixed, and :attr:`history`
    and :attr:`hands` are tuples of the hands so far: a match changes only by its own methods.

    >>> m = Match("scopa", seed=1)
    >>> m.dealer, m.state.turn
    (0, 1)
    >>> while not m.history:                     # play one hand
    ...     _ = m.play(m.state.legal_moves()[0])
    >>> m.history[0].points, m.dealer, m
    ((4, 0), 1, <Match scopa to 11: 4-0 after 1 hand>)
    """

    def __init__(self, rules: Rules | str, seed: int | None = None, dealer: int | None = None) -> None:
        self._rules = rules = Rules.of(rules)
        if seed is None:
            seed = secrets.randbits(53)  # (a JSON number JavaScript holds exactly: below 2**53)
        seed = check_seed(seed, PositionError)
        self._seed = seed
        n = rules.players
        if dealer is None:
            dealer = _derive(seed, "dealer") % n
        elif (seat := as_int(dealer)) is None or not 0 <= seat < n:
            raise PositionError(f"bad dealer {show(dealer)}: expected a seat in 0..{n - 1}")
        else:
            dealer = seat
        self._first_dealer = dealer
        self._history: list[HandScore] = []
        self._hands: list[State] = []
        self._scores = (0, 0)
        self._state = self._deal(0)
        self._seed_from = 0  # the first hand the seed deals (those before: a record's own deals)

    def __copy__(self) -> Match:
        """A match that goes on apart from this one (its lists of hands its own: a shallow copy
        shared them, and a hand finished on the copy broke the original)."""
        new = object.__new__(type(self))  # (a subclass's copy is its own)
        new.__dict__.update(self.__dict__)
        new._history = list(self._history)
        new._hands = list(self._hands)
        return new

    def copy(self) -> Match:
        """:meth:`__copy__`: a match that goes on apart from this one.

        >>> m = Match("scopa", seed=3)
        >>> c = m.copy(); _ = c.play(c.state.legal_moves()[0])
        >>> len(m.state.history), len(c.state.history)
        (0, 1)
        """
        return self.__copy__()

    @property
    def rules(self) -> Rules:
        """The rules of every hand (fixed for the match: a new :class:`Match` plays others)."""
        return self._rules

    @property
    def seed(self) -> int:
        """The match's seed: the hands still to come are dealt from it, and so were all the
        hands so far from :attr:`seed_from` on."""
        return self._seed

    @property
    def seed_from(self) -> int:
        """The number (from 0) of the first hand the seed deals: 0 unless the match was resumed
        from a record of other deals (its hands are the record's own up to its last one in it),
        or rebuilt from JSON without a seed (then a seed was drawn for the hands after the
        current one)."""
        return self._seed_from

    @property
    def first_dealer(self) -> int:
        """The dealer of the first hand."""
        return self._first_dealer

    @property
    def history(self) -> tuple[HandScore, ...]:
        """The :class:`HandScore` of each finished hand, in order."""
        return tuple(self._history)

    @property
    def hands(self) -> tuple[State, ...]:
        """Each finished hand's last position, in order (its ``origin`` is the deal and its
        ``history`` every play)."""
        return tuple(self._hands)

    def _deal(self, number: int) -> State:
        dealer = (self.first_dealer + number) % self.rules.players
        return State.deal(self.rules, seed=_derive(self.seed, f"hand {number}"), dealer=dealer)

    @property
    def state(self) -> State:
        """The current hand (the last, finished one once the match is over)."""
        return self._state

    @property
    def dealer(self) -> int:
        """The dealer of the current hand."""
        d = self._state.dealer
        assert d is not None
        return d

    @property
    def scores(self) -> tuple[int, int]:
        """Points per team over the finished hands."""
        return self._scores

    @property
    def is_over(self) -> bool:
        """True once a team has won."""
        return self.winner is not None

    def _stopped(self) -> bool:
        """Whether the match has stopped (won, or undecided at :data:`MAX_HANDS`): its current
        state is then its last finished hand's end, not a hand of its own."""
        return self.is_over or self._at_limit()

    def _at_limit(self) -> bool:
        """Whether the match has played :data:`MAX_HANDS` hands without a winner (and so stops)."""
        return len(self._hands) >= MAX_HANDS and not self.is_over

    @property
    def winner(self) -> int | None:
        """The winning team, or ``None`` while the match goes on (RULES §5)."""
        a, b = self._scores
        if max(a, b) >= self.rules.target and a != b:
            return 0 if a > b else 1
        return None

    def play(self, move: Move | Card | str) -> State:
        """Play a move in the current hand; at the hand's end score it and deal the next.

        Returns the new current state. Raises :class:`IllegalMoveError` (and changes
        nothing) for an illegal move or once the match is over.
        """
        return self.play_events(move)[0]

    def play_events(self, move: Move | Card | str) -> tuple[State, list[Event]]:
        """:meth:`play`, and what the play did (:func:`scopa.events.play`): at the end of a
        hand also ``hand_over`` and then ``match_over`` (with the winner) or ``deal`` (the
        next hand, with its dealer)."""
        with _changing(self):
            return self._play_events(move)

    def _play_events(self, move: Move | Card | str) -> tuple[State, list[Event]]:
        if self.is_over:
            raise IllegalMoveError(f"the match is over: team {self.winner} won {self._scores}")
        if self._at_limit():
            raise self._limit_reached()
        nxt, events = play_events(self._state, move)
        if nxt.is_over:
            self._finish(nxt)
            if self.winner is not None:
                events.append(Event("match_over", team=self.winner, points=self._scores))
            elif not self._at_limit():
                nxt = self._deal(len(self._hands))
                events.append(Event("deal", seat=nxt.dealer))
        self._state = nxt
        return nxt, events

    def _limit_reached(self) -> IllegalMoveError:
        """What a play is told once the match has stopped undecided at :data:`MAX_HANDS`."""
        return IllegalMoveError(
            f"the match stops undecided at {self._scores[0]}-{self._scores[1]} after {len(self._hands)} "
            f"hands, the most a match holds (scopa.match.MAX_HANDS = {MAX_HANDS})"
        )

    def _finish(self, final: State) -> None:
        score = final.score()
        self._history.append(score)
        self._hands.append(final)
        p = score.points
        self._scores = (self._scores[0] + p[0], self._scores[1] + p[1])

    def play_out(self, choose: Callable[[State], Move | Card | str]) -> int:
        """Play the rest of the match, asking ``choose(state)`` for every move; return the
        winner. A match that stops undecided at :data:`MAX_HANDS` raises :class:`IllegalMoveError`
        naming the limit, as :meth:`play` does, without asking ``choose`` about the hand over.

        Each play is made as :meth:`play` makes it, one at a time: when ``choose`` raises, or
        gives a move that is not legal (:class:`IllegalMoveError`), the error propagates and the
        plays made before it stand (the match is where ``choose`` was asked; :meth:`undo` takes
        them back one by one)."""
        if not callable(choose):
            raise OptionError(f"bad choose {show(choose)}: expected a function (state) -> move")
        while not self.is_over:
            if self._at_limit():
                raise self._limit_reached()
            self.play(choose(self._state))
        winner = self.winner
        assert winner is not None
        return winner

    def undo(self) -> State:
        """Take back the last play: in the current hand, or, at a hand's start (or once the
        match is over), the last play of the hand before, which is then unfinished again.
        Returns the new current state; raises :class:`PositionError` with nothing to undo."""
        with _changing(self):
            return self._undo()

    def _undo(self) -> State:
        state = self._state
        if state.history and not self._stopped():
            self._state = state.undo()
            return self._state
        if not self._hands:
            raise PositionError("nothing to undo: no play has been made in this match")
        last = self._hands.pop()
        score = self._history.pop()
        p = score.points
        self._scores = (self._scores[0] - p[0], self._scores[1] - p[1])
        self._state = last.undo()
        return self._state

    def record(self, tags: Mapping[str, str] | None = None) -> MatchRecord:
        """The match as a record (:mod:`scopa.records`): every finished hand, then the current
        one as far as it has gone (when a play has been made in it)."""
        from scopa.records import HandRecord, MatchRecord

        if tags is not None and not isinstance(tags, Mapping):
            raise OptionError(f"bad tags {show(tags)}: expected a mapping of tag names to strings")
        hands = [HandRecord.from_state(h) for h in self._hands]
        if self._state.history and not self._stopped():
            hands.append(HandRecord.from_state(self._state))
        return MatchRecord(self.rules, tuple(hands), dict(tags or {}))

    @classmethod
    def from_record(cls, record: MatchRecord, seed: int | None = None) -> Match:
        """A match resumed from a record: its finished hands, and its last hand as the current
        one when unfinished; the hands still to come are dealt from ``seed`` (drawn when None)."""
        from scopa.records import MatchRecord

        if not isinstance(record, MatchRecord):
            hint = " (load_record gives one; a HandRecord is one hand: Match.from_record needs a match)"
            raise OptionError(f"bad record {show(record)}: expected a scopa.MatchRecord{hint}")
        first = record.hands[0].dealer if record.hands else None
        m = cls(record.rules, seed=seed, dealer=first)
        n = record.rules.players
        for i, h in enumerate(record.hands):
            final = h.final()
            if h.dealer != (m.first_dealer + i) % n:
                raise PositionError(
                    f"bad record: hand {i + 1} is dealt by seat {h.dealer}, not by the next dealer"
                )
            if h.deal != m._deal(i):  # (a record of a match played from this seed keeps it)
                m._seed_from = i + 1  # (the hands to come dealt from the seed, as they will be again)
            if final.is_over:
                m._finish(final)
                m._state = final
            else:
                m._state = final
        if m._state.is_over and not m._stopped():
            m._state = m._deal(len(m._hands))
        return m

    # ------------------------------------------------------------------ JSON

    def to_json(self) -> dict[str, Any]:
        """The match as JSON (format ``scopa-match`` version 1): ``rules``, ``target``,
        ``seed``, ``first_dealer``, ``scores``, ``hands_played``, ``dealer``, ``winner``,
        ``position`` (the current hand, with its history) and ``hands`` (each finished
        hand: its deal as a position string, its plays and its points; at most
        :data:`MAX_HANDS`). A client holds it and sends it back: :meth:`from_json` rebuilds
        the match and checks every hand.

        ``seed_from`` (:attr:`seed_from`, left out when 0) is the first hand the seed deals,
        those before it being a record's own deals (a match resumed from a record of other
        deals, or rebuilt from JSON without a seed): :meth:`from_json` checks the deals from it
        on against the seed, and deals the hands to come from it, the same for every request
        that sends the match back."""
        seed = {"seed": self.seed, **({"seed_from": self._seed_from} if self._seed_from else {})}
        return {
            "format": MATCH_FORMAT[0],
            "version": MATCH_FORMAT[1],
            "rules": self.rules.to_json(),
            "target": self.rules.target,
            **seed,
            "first_dealer": self.first_dealer,
            "scores": list(self._scores),
            "hands_played": len(self._hands),
            "dealer": self.dealer,
            "winner": self.winner,
            "position": self._state.to_dict(),
            "hands": [
                {
                    "deal": h.origin.to_string(),
                    "plays": [str(m) for _, m in h.history],
                    "points": list(s.points),
                }
                for h, s in zip(self._hands, self._history, strict=True)
            ],
        }

    @classmethod
    def from_json(cls, obj: str | bytes | Mapping[str, Any]) -> Match:
        """Rebuild a match from :meth:`to_json`'s output, replaying every hand: a deal that is
        not the hand's (by the seed and the hand's number), an illegal play, a hand's points
        or the scores that do not match the replay, more than :data:`MAX_HANDS` hands, or a
        current position that does not continue the match raise :class:`PositionError`
        naming the hand.

        Without a ``seed`` (or with ``null``), any deal by the dealer in turn is accepted;
        a seed is drawn for the hands after the current one (:attr:`seed_from`), which
        :meth:`to_json` gives. With ``seed_from`` (an int in 0..MAX_HANDS, with a seed), the
        hands before it may be any deals by the dealer in turn. The object
        may be given decoded, as JSON text or as its UTF-8 bytes (at most
        :data:`~scopa.records.MAX_RECORD_BYTES`)."""
        from scopa.notation import state_from_json
        from scopa.records import MAX_RECORD_BYTES

        obj = jsonio.decoded(obj, "match", PositionError, MAX_RECORD_BYTES)
        if not isinstance(obj, Mapping):
            raise PositionError(f"a match must be a JSON object, got {show(obj)}")
        fields = (
            "format", "version", "rules", "target", "seed", "seed_from", "first_dealer", "scores",
            "hands_played", "dealer", "winner", "position", "hands",
        )  # fmt: skip
        problem = jsonio.format_problem(obj, MATCH_FORMAT)
        if problem and isinstance(obj.get("format"), str) and obj["format"] != MATCH_FORMAT[0]:
            # (another format's object said to be one first: a record sent as a match was
            # "unknown field 'tags' in match")
            raise PositionError(f"not a match: {problem}")
        unknown = unknown_keys(obj, fields)
        if unknown:
            raise PositionError(f"unknown {listed('field', unknown)} in match")
        if problem:
            raise PositionError(f"not a match: {problem}")
        rules = Rules.from_json(obj.get("rules"))
        if "target" in obj and not _same(obj["target"], rules.target):
            raise PositionError(f"match target {show(obj['target'])} differs from its rules' {rules.target}")
        dealer = obj.get("first_dealer")
        if dealer is None and obj.get("seed") is None:
            dealer = _first_dealer(obj, rules)
        m = cls(rules, seed=obj.get("seed"), dealer=dealer)
        hands = obj.get("hands", [])
        if not isinstance(hands, list):
            raise PositionError(f"match 'hands' must be a list of finished hands, got {show(hands)}")
        if obj.get("seed") is None:  # (every hand so far its own; the seed drawn deals the next)
            if obj.get("seed_from") is not None:
                raise PositionError(f"bad match: seed_from {show(obj['seed_from'])} without a seed")
            m._seed_from = len(hands) + 1
        elif obj.get("seed_from") is not None:
            first = as_int(obj["seed_from"])
            if first is None or not 0 <= first <= MAX_HANDS:
                raise PositionError(
                    f"bad match: seed_from {show(obj['seed_from'])}: expected an int in 0..{MAX_HANDS}"
                )
            m._seed_from = first
        if len(hands) > MAX_HANDS:
            raise PositionError(
                f"a match of {len(hands)} hands: a match holds at most {MAX_HANDS} (scopa.match.MAX_HANDS)"
            )
        for i, hand in enumerate(hands):
            m._replay_hand(i, hand)
        if m.is_over and len(hands) == 0:
            raise PositionError("bad match: over without any hand")
        position = obj.get("position")
        if position is None:
            raise PositionError("match lacks its 'position' (the current hand)")
        if isinstance(position, str) and not position.lstrip().startswith("{"):  # (it was "not valid JSON")
            raise PositionError(
                f"bad match position {show(position)}: expected a JSON position object (or its text),"
                " not a position string"
            )
        try:
            state = state_from_json(position)
        except ScopaError as exc:
            raise PositionError(f"bad match position: {exc}") from None
        if m._stopped():
            if state != m._state:
                why = "is over" if m.is_over else f"stops after {MAX_HANDS} hands (scopa.match.MAX_HANDS)"
                raise PositionError(f"bad match position: the match {why}, so it must be the last hand's end")
        else:
            try:
                m._read_hand(len(hands), {"deal": state.origin.to_string(), "plays": []})
            except PositionError as exc:
                if state.history:
                    raise
                # (a position after plays without its history reads as a deal, and was refused
                # as one: "cards were already captured", not naming what was missing)
                raise PositionError(
                    "bad match position: it has no 'history' (the hand's plays since its deal, as"
                    f" match_new and match_play give it) and is not the hand's deal: {exc}"
                ) from None
            if state.is_over:
                raise PositionError(f"bad match position: hand {len(hands) + 1} is over but not in 'hands'")
            m._state = state
        for key, value in (
            ("scores", list(m._scores)),
            ("hands_played", len(m._hands)),
            ("winner", m.winner),
            ("dealer", m.dealer),
        ):
            if key in obj and not _same(obj[key], value):
                raise PositionError(f"bad match: {key} {show(obj[key])}, but the hands give {show(value)}")
        return m

    def _check_deal(self, i: int, deal: State) -> None:
        """Hand ``i``'s deal (a deal, read as a record's: every card once, nothing played
        yet) is by the dealer in turn and, when the match's hands come from its seed, the
        seed's deal of hand ``i`` (:meth:`_deal`)."""
        if deal.dealer != (self.first_dealer + i) % self.rules.players:
            raise PositionError(
                f"bad match: hand {i + 1} is dealt by seat {deal.dealer}, not by the dealer in turn"
            )
        if i >= self._seed_from and deal != self._deal(i):
            raise PositionError(
                f"bad match: hand {i + 1}'s deal {show(deal.to_string())} is not the one seed {self.seed} "
                f"deals for it (the hands the seed does not deal come before 'seed_from', {self._seed_from})"
            )

    def _read_hand(self, i: int, obj: Mapping[str, Any]) -> State:
        """Hand ``i`` read as a record's (its deal, checked by :meth:`_check_deal` before its
        plays are replayed, once, and their points checked): the position after its plays."""
        from scopa.records import HandRecord, RecordError

        try:
            _, state = HandRecord._read(
                obj, self.rules, f"hand {i + 1}", lambda d: self._check_deal(i, d), score_field="points"
            )
            return state
        except RecordError as exc:
            raise PositionError(f"bad match: {exc}") from None

    def _replay_hand(self, i: int, hand: Any) -> None:
        if self.is_over:
            raise PositionError(f"bad match: hand {i + 1} follows the end of the match")
        if not isinstance(hand, Mapping) or set(hand) - {"deal", "plays", "points"}:
            raise PositionError(f"bad hand {i + 1}: expected {{'deal', 'plays', 'points'}}")
        plays = hand.get("plays")
        if not isinstance(plays, list):
            raise PositionError(f"bad hand {i + 1}: 'plays' must be a list of moves, got {show(plays)}")
        state = self._read_hand(i, {"deal": hand.get("deal"), "plays": plays, "points": hand.get("points")})
        if not state.is_over:
            raise PositionError(f"bad hand {i + 1}: its plays do not finish the hand")
        self._finish(state)
        self._state = state if self._stopped() else self._deal(len(self._hands))

    def __eq__(self, other: object) -> bool:
        """Matches are equal when they would go on alike: the same rules, seed (the deals to
        come), hands played and position with its history. A match changes as it is played, so
        it is not hashable (as a list is not)."""
        if not isinstance(other, Match):
            return NotImplemented
        return self.seed == other.seed and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<Match {self.rules.game} to {self.rules.target}: {self._scores[0]}-{self._scores[1]} "
            f"after {count(len(self._history), 'hand')}>"
        )
