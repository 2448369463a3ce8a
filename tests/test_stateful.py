"""Model-based stateful tests (hypothesis.stateful) of a Match, a State and the engine protocol.

Each machine keeps a model of its own beside the object under test: the plays made, each hand
simulated card by card from its deal (RULES §3), and each finished hand scored from its piles
(RULES §4, §7), independently of the engine; after every step the engine must agree with it.

The default runs are small (the suite runs this file on both cores). Run them harder with
``SCOPA_STATEFUL_EXAMPLES`` (examples per machine) and ``SCOPA_STATEFUL_STEPS`` (steps per example):

    SCOPA_STATEFUL_EXAMPLES=2000 SCOPA_STATEFUL_STEPS=120 pytest tests/test_stateful.py
"""

from __future__ import annotations

import copy
import json
import os
import pickle
from typing import Any

import jsonschema
import pytest
from conftest import TWIN_RUN
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

import scopa
from scopa import Match, Move, Rules, ScopaError, State
from scopa.errors import PositionError
from scopa.events import play as play_events
from scopa.protocol import Protocol, schema
from scopa.records import HandRecord, load_record

EXAMPLES = int(os.environ.get("SCOPA_STATEFUL_EXAMPLES", "0")) or (12 if TWIN_RUN else 25)
STEPS = int(os.environ.get("SCOPA_STATEFUL_STEPS", "0")) or (25 if TWIN_RUN else 50)
SETTINGS = settings(
    max_examples=EXAMPLES,
    stateful_step_count=STEPS,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)

# ----------------------------------------------------------------------------------- the model

VALUE = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "J": 8, "Q": 9, "K": 10}  # RULES §1
PRIMIERA = {"A": 16, "2": 12, "3": 13, "4": 14, "5": 15, "6": 18, "7": 21, "J": 10, "Q": 10, "K": 10}
SUITS = "dcsb"
DECK = [r + s for s in SUITS for r in VALUE]
GEOMETRY = {"scopa": (2, 3, 4), "scopa4": (4, 3, 4), "scopone": (4, 9, 4), "scopone_scientifico": (4, 10, 0)}


def rules_strategy(max_target: int = 4) -> st.SearchStrategy[Rules]:
    """Every preset with every rule option (RULES §7; docs/rules.md §9), to a small target so matches end."""

    @st.composite
    def build(draw: Any) -> Rules:
        opts: dict[str, Any] = {
            "capture_rule": draw(st.sampled_from(["free", "fewest"])),
            "primiera_requires_all_suits": draw(st.booleans()),
            "redeal_on_kings": draw(st.booleans()),
            "ace_takes_all": draw(st.booleans()),
            "re_bello": draw(st.booleans()),
            "napola": draw(st.booleans()),
            "scopa_on_last_play": draw(st.booleans()),
            "target": draw(st.integers(1, max_target)),
        }
        if opts["ace_takes_all"]:
            opts["ace_sweep_is_scopa"] = draw(st.booleans())
        return Rules.preset(draw(st.sampled_from(scopa.PRESETS)), **opts)

    return build()


def captures(card: str, table: set[str], rules: Rules) -> list[frozenset[str]]:
    """The legal captures of ``card`` on ``table`` (RULES §3, §7): [frozenset()] to lay it down."""
    v = VALUE[card[0]]
    equal = [t for t in table if VALUE[t[0]] == v]
    if equal:  # RULES §3.1
        return [frozenset([t]) for t in equal]
    if rules.ace_takes_all and v == 1 and table:  # RULES §7 (no ace on the table here)
        return [frozenset(table)]
    cards = sorted(table, key=lambda c: VALUE[c[0]])
    sums: list[frozenset[str]] = []

    def grow(start: int, chosen: list[str], left: int) -> None:
        if left == 0:
            if len(chosen) >= 2:
                sums.append(frozenset(chosen))
            return
        for j in range(start, len(cards)):
            w = VALUE[cards[j][0]]
            if w > left:
                break
            grow(j + 1, [*chosen, cards[j]], left - w)

    grow(0, [], v)  # RULES §3.2
    if sums and rules.capture_rule == "fewest":
        least = min(map(len, sums))
        sums = [s for s in sums if len(s) == least]
    return sums or [frozenset()]


class HandModel:
    """One hand simulated from its deal, card by card, with sets of card names."""

    def __init__(self, deal: State) -> None:
        self.rules = deal.rules
        self.n, self.hs, _ = GEOMETRY[deal.rules.game]
        self.hands = [{str(c) for c in h} for h in deal.hands]
        self.table = {str(c) for c in deal.table}
        self.stock = [str(c) for c in deal.stock]
        self.piles = [{str(c) for c in p} for p in deal.captured]
        self.scope = list(deal.scope)
        self.turn = deal.turn
        self.last = deal.last_capture
        self.plays: list[str] = []

    def legal(self) -> set[tuple[str, frozenset[str]]]:
        return {(c, cap) for c in self.hands[self.turn] for cap in captures(c, self.table, self.rules)}

    @property
    def over(self) -> bool:
        return not self.stock and not any(self.hands)

    def play(self, move: Move) -> list[dict[str, Any]]:
        """Play ``move``; return the events it should give (docs/engine-protocol.md, Events)."""
        card, caps = str(move.card), frozenset(str(c) for c in move.captures)
        assert (card, caps) in self.legal(), f"the engine played {move}, illegal in the model"
        self.plays.append(str(move))
        team = self.turn % 2
        events: list[dict[str, Any]] = []
        scope = list(self.scope)
        self.hands[self.turn].discard(card)
        if caps:
            events.append({"type": "capture", "seat": self.turn, "team": team, "card": card, "cards": caps})
            self.table -= caps
            self.piles[team] |= caps | {card}
            self.last = team
            if not self.table:  # RULES §3.6
                last_play = not self.stock and not any(self.hands)
                ace_sweep = self.rules.ace_takes_all and card[0] == "A" and not any(c[0] == "A" for c in caps)
                if (not last_play or self.rules.scopa_on_last_play) and (
                    not ace_sweep or self.rules.ace_sweep_is_scopa
                ):
                    self.scope[team] += 1
        else:
            events.append({"type": "lay_down", "seat": self.turn, "team": team, "card": card})
            self.table.add(card)
        if self.scope != scope:
            events.append({"type": "scopa", "seat": self.turn, "team": team})
        self.turn = (self.turn + 1) % self.n
        if not any(self.hands):
            if self.stock:  # RULES §2: refills, the seat to move first
                for k in range(self.n):
                    seat = (self.turn + k) % self.n
                    self.hands[seat] = set(self.stock[k * self.hs : (k + 1) * self.hs])
                    events.append({"type": "refill", "seat": seat, "count": self.hs})
                self.stock = self.stock[self.n * self.hs :]
            elif self.table and self.last is not None:  # RULES §3.7
                events.append(
                    {"type": "table_to_last_capturer", "team": self.last, "cards": frozenset(self.table)}
                )
                self.piles[self.last] |= self.table
                self.table = set()
        if self.over:
            events.append({"type": "hand_over", "points": total(self.score())})
        return events

    def check(self, state: State) -> None:
        assert [{str(c) for c in h} for h in state.hands] == self.hands
        assert {str(c) for c in state.table} == self.table
        assert [str(c) for c in state.stock] == self.stock
        assert [{str(c) for c in p} for p in state.captured] == self.piles
        assert list(state.scope) == self.scope
        assert state.turn == self.turn
        assert state.last_capture == self.last
        assert state.is_over == self.over
        assert [str(m) for _, m in state.history] == self.plays
        got = {(str(m.card), frozenset(str(c) for c in m.captures)) for m in state.legal_moves()}
        assert got == (set() if self.over else self.legal())

    def score(self) -> dict[str, tuple[int, int]]:
        """The hand's points per category (RULES §4, §7), from the piles and the scope."""
        return score_piles(self.rules, self.piles, self.scope)


def score_piles(rules: Rules, piles: list[set[str]], scope: list[int]) -> dict[str, tuple[int, int]]:
    def one(a: bool, b: bool) -> tuple[int, int]:
        return (int(a), int(b))

    cards = [len(p) for p in piles]
    coins = [sum(c[1] == "d" for c in p) for p in piles]

    def primiera(p: set[str]) -> int | None:
        best = {s: max((PRIMIERA[c[0]] for c in p if c[1] == s), default=None) for s in SUITS}
        if rules.primiera_requires_all_suits and None in best.values():
            return None
        return sum(v for v in best.values() if v is not None)

    t = [primiera(p) for p in piles]
    if t[0] is None and t[1] is None:
        prim = (0, 0)
    elif t[1] is None:
        prim = (1, 0)
    elif t[0] is None:
        prim = (0, 1)
    else:
        prim = one(t[0] > t[1], t[1] > t[0])

    def napola(p: set[str]) -> int:
        run = 0
        for r in VALUE:
            if r + "d" not in p:
                break
            run += 1
        return run if run >= 3 else 0

    out = {
        "carte": one(cards[0] > 20, cards[1] > 20),
        "denari": one(coins[0] > 5, coins[1] > 5),
        "settebello": one("7d" in piles[0], "7d" in piles[1]),
        "primiera": prim,
        "scope": (scope[0], scope[1]),
        "re_bello": one("Kd" in piles[0], "Kd" in piles[1]) if rules.re_bello else (0, 0),
        "napola": (napola(piles[0]), napola(piles[1])) if rules.napola else (0, 0),
    }
    return out


def event_key(e: dict[str, Any]) -> dict[str, Any]:
    """An event as the model writes one: cards as sets, points as tuples."""
    out = dict(e)
    if "cards" in out:
        out["cards"] = frozenset(out["cards"])
    if "points" in out:
        out["points"] = tuple(out["points"])
    return out


def total(score: dict[str, tuple[int, int]]) -> tuple[int, int]:
    return (sum(v[0] for v in score.values()), sum(v[1] for v in score.values()))


def forty_cards(state: State) -> None:
    """RULES §1: every state holds the 40 cards, each once."""
    names = [str(c) for h in state.hands for c in h]
    names += [str(c) for c in state.table] + [str(c) for c in state.stock]
    names += [str(c) for p in state.captured for c in p]
    assert sorted(names) == sorted(DECK)


def check_deal(state: State, dealer: int) -> None:
    """A fresh deal (RULES §2, §6) by ``dealer``."""
    n, hs, ts = GEOMETRY[state.rules.game]
    assert state.dealer == dealer and state.turn == (dealer + 1) % n
    assert not state.history and state.origin == state
    assert [len(h) for h in state.hands] == [hs] * n and len(state.table) == ts
    assert len(state.stock) == 40 - ts - n * hs and state.captured == (scopa.CardSet(), scopa.CardSet())
    if state.rules.redeal_on_kings:
        assert sum(str(c)[0] == "K" for c in state.table) < 3


def check_views(state: State) -> None:
    """Each seat's view shows its own hand, the public cards, and only the sizes of the rest."""
    for seat in range(state.rules.players):
        v = state.view(seat)
        assert v.hand == state.hands[seat] and v.table == state.table and v.captured == state.captured
        assert v.hand_sizes == tuple(len(h) for h in state.hands) and v.stock_size == len(state.stock)
        assert v.history == state.history
        hidden = set().union(*(set(h) for i, h in enumerate(state.hands) if i != seat), state.stock)
        assert set(v.unseen) == hidden
        d = v.to_json()
        assert all(isinstance(h, int) for i, h in enumerate(d["hands"]) if i != seat)
        assert isinstance(d.get("stock", 0), int)
        text = json.dumps(d)
        for c in hidden:
            assert f'"{c}"' not in text, f"seat {seat}'s view shows {c}"
        assert scopa.PlayerView.from_json(d) == v


def junk_moves() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.sampled_from(["", "zz", "7dx", "7d x", "x7d", "11d", "7dx7d", "7dx3c3c", "7d7c", "-", "pass"]),
        st.text(max_size=8),
        st.sampled_from([None, 7, 7.0, b"7d", ["7d"], {"card": "7d"}, True]),
    )


def bad_moves(state: State, draw: Any) -> Any:
    """A move that is not legal here (or junk); None when none was found for this state."""
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return draw(junk_moves())
    mine = set(state.hands[state.turn])
    others = [c for c in DECK if scopa.Card.parse(c) not in mine]
    if kind == 1:  # a card not in the hand of the seat to move
        return draw(st.sampled_from(others))
    legal = {str(m) for m in state.legal_moves()}
    if not mine:
        return draw(st.sampled_from(others))
    card = str(draw(st.sampled_from(sorted(mine))))
    table = sorted(str(c) for c in state.table)
    if kind == 2 and table:  # the card with a wrong capture
        caps = draw(st.lists(st.sampled_from(table), min_size=1, max_size=4, unique=True))
        text = card + "x" + "".join(caps)
    else:
        text = card  # laid down (or ambiguous)
    try:
        parsed = Move.parse(text)
    except ScopaError:
        return text
    if kind == 2 and parsed in state.legal_moves():
        return None
    if kind != 2 and sum(t.startswith(card) for t in legal) == 1:
        return None
    return text
    return text


# ----------------------------------------------------------------------------------- 1. a match


def finished(m: Match) -> bool:
    """Whether ``m`` is won, or stopped undecided at scopa.match.MAX_HANDS hands."""
    return m.is_over or len(m.hands) >= scopa.match.MAX_HANDS


class MatchMachine(RuleBasedStateMachine):
    """A Match played, undone, copied, saved and resumed, against the model."""

    @initialize(rules=rules_strategy(), seed=st.integers(0, 2**64 - 1), dealer=st.none() | st.integers(0, 3))
    def start(self, rules: Rules, seed: int, dealer: int | None) -> None:
        self._begin(rules, seed, dealer)

    def _begin(self, rules: Rules, seed: int, dealer: int | None) -> None:
        if dealer is not None:
            dealer %= rules.players
        self.explicit_dealer = dealer is not None
        self.match = Match(rules, seed=seed, dealer=dealer)
        self.rules = rules
        self.n = rules.players
        self.first = self.match.first_dealer
        if dealer is not None:
            assert self.first == dealer
        self.deals: list[State] = [self.match.state]
        self.model = HandModel(self.match.state)
        self.points: list[tuple[int, int]] = []  # each finished hand's, by the model
        self.finished_plays: list[list[str]] = []  # each finished hand's plays, by the model
        self.seen_deals: dict[int, State] = {0: self.match.state}
        self.shadows: list[tuple[str, Match]] = []

    # -------------------------------------------------------------- the model's view

    @property
    def scores(self) -> tuple[int, int]:
        return (sum(p[0] for p in self.points), sum(p[1] for p in self.points))

    @property
    def winner(self) -> int | None:  # RULES §5
        a, b = self.scores
        if max(a, b) >= self.rules.target and a != b:
            return 0 if a > b else 1
        return None

    @property
    def stopped(self) -> bool:
        """The match stops undecided after scopa.match.MAX_HANDS hands (docs/records.md)."""
        return self.winner is None and len(self.points) >= scopa.match.MAX_HANDS

    @property
    def done(self) -> bool:
        return self.winner is not None or self.stopped

    def _apply_model(self, move: Move) -> list[dict[str, Any]]:
        events = self.model.play(move)
        if self.model.over:
            self.points.append(total(self.model.score()))
            self.finished_plays.append(list(self.model.plays))
            if self.stopped:
                event("match: stopped at MAX_HANDS")
            elif self.winner is None:
                i = len(self.points)
                deal = self.match.state
                check_deal(deal, (self.first + i) % self.n)
                if i in self.seen_deals:  # a hand dealt again after an undo: the same deal
                    assert deal == self.seen_deals[i]
                self.seen_deals[i] = deal
                self.deals.append(deal)
                self.model = HandModel(deal)
                events.append({"type": "deal", "seat": deal.dealer})
            elif self.winner is not None:
                events.append({"type": "match_over", "team": self.winner, "points": self.scores})
        return events

    def _play_all(self, move: Move | str) -> None:
        state_before = self.match.state
        after, events = self.match.play_events(move)
        resolved = state_before.resolve(move)
        for _, other in self.shadows:
            other_after, other_events = other.play_events(move)
            assert other_after == after and other_events == events
        finished = len(self.points)
        expected = self._apply_model(resolved)
        assert [event_key(e.to_json()) for e in events] == [event_key(e) for e in expected]
        assert after is self.match.state
        kinds = [e.type for e in events]
        assert ("hand_over" in kinds) == (len(self.points) > finished)
        if len(self.points) > finished:
            event("match: a hand ended")
        if self.winner is not None:
            assert kinds[-1] == "match_over" and events[-1].team == self.winner
            event("match: won")

    # -------------------------------------------------------------- rules

    @precondition(lambda self: not self.done)
    @rule(i=st.integers(0, 10**6))
    def play_legal(self, i: int) -> None:
        moves = self.match.state.legal_moves()
        self._play_all(moves[i % len(moves)])

    @precondition(lambda self: not self.done)
    @rule(choices=st.lists(st.integers(0, 10**6), min_size=10, max_size=40))
    def play_many(self, choices: list[int]) -> None:
        """Several plays at once, to reach the ends of hands and of the match."""
        for i in choices:
            if self.done:
                break
            moves = self.match.state.legal_moves()
            self._play_all(moves[i % len(moves)])

    @precondition(lambda self: not self.done)
    @rule(i=st.integers(0, 10**6), how=st.sampled_from(["str", "notation", "card"]))
    def play_legal_as_text(self, i: int, how: str) -> None:
        moves = self.match.state.legal_moves()
        m = moves[i % len(moves)]
        text = {"str": str(m), "notation": m.notation(), "card": str(m.card)}[how]
        if how == "card" and sum(x.card == m.card for x in moves) > 1:
            before = self.match.to_json()
            with pytest.raises(scopa.AmbiguousMoveError):
                self.match.play(text)
            assert self.match.to_json() == before
            return
        self._play_all(text)

    @rule(data=st.data())
    def play_illegal(self, data: st.DataObject) -> None:
        state = self.match.state
        move = bad_moves(state, data.draw) if not self.done else data.draw(st.sampled_from(DECK))
        if move is None:
            return
        before = self.match.to_json()
        try:
            self.match.play(move)
        except ScopaError:
            pass
        else:  # (junk text that happened to be a legal move)
            self.match.undo()
            assert self.match.to_json() == before
            self._play_all(move)
            return
        assert self.match.to_json() == before
        assert self.match.state is state

    @rule(k=st.integers(2, 45))
    def undo_many(self, k: int) -> None:
        """Several plays taken back, across the ends of hands."""
        for _ in range(k):
            if not self.model.plays and len(self.deals) == 1 and len(self.points) < len(self.deals):
                break
            self.undo()

    @rule()
    def undo(self) -> None:
        before = self.match.to_json()
        if len(self.points) == len(self.deals):  # the match is over: its last hand is finished
            self.points.pop()
            plays = self.finished_plays.pop()[:-1]
        elif self.model.plays:
            plays = self.model.plays[:-1]
        elif len(self.deals) > 1:  # at a hand's start: the hand before is unfinished again
            event("match: undo across a hand's end")
            self.deals.pop()
            self.points.pop()
            plays = self.finished_plays.pop()[:-1]
        else:
            with pytest.raises(PositionError):
                self.match.undo()
            assert self.match.to_json() == before
            return
        state = self.match.undo()
        for _, other in self.shadows:
            assert other.undo() == state
        self.model = HandModel(self.deals[-1])
        for p in plays:
            self.model.play(Move.parse(p))
        assert state is self.match.state

    @rule(how=st.sampled_from(["dict", "text", "bytes"]))
    def json_round_trip(self, how: str) -> None:
        obj = self.match.to_json()
        src: Any = {"dict": obj, "text": json.dumps(obj), "bytes": json.dumps(obj).encode()}[how]
        again = Match.from_json(src)
        assert again.to_json() == obj and again == self.match
        self._shadow("json", again)

    @rule()
    def record_round_trip(self) -> None:
        rec = self.match.record({"Event": "stateful"})
        assert load_record(rec.to_json()) == rec
        assert load_record(json.dumps(rec.to_json())) == rec
        assert rec.scores == self.scores and rec.winner == self.winner
        assert len(rec.hands) == len(self.points) + (1 if self.model.plays and not self.model.over else 0)
        for h, final in zip(rec.hands, self.match.hands, strict=False):
            assert h.final() == final and HandRecord.from_json(h.to_json()) == h
        if rec.hands or not self.explicit_dealer:
            resumed = Match.from_record(load_record(rec.to_json()), seed=self.match.seed)
            assert resumed.to_json() == self.match.to_json()
            self._shadow("record", resumed)

    @rule(seed=st.integers(0, 2**64 - 1), choices=st.lists(st.integers(0, 10**6), max_size=40))
    def resume_with_another_seed(self, seed: int, choices: list[int]) -> None:
        """A match resumed from its record with another seed: the same hands so far; the hands
        to come dealt from that seed, from the hand after the last one not the seed's
        (``seed_from``, in its JSON)."""
        rec = self.match.record()
        if not rec.hands:
            return
        other = Match.from_record(rec, seed=seed)
        assert other.scores == self.match.scores and other.winner == self.match.winner
        assert other.hands == self.match.hands and other.history == self.match.history
        if self.model.plays or self.done:  # (the record holds the hand in play)
            assert other.state == self.match.state and other.state.history == self.match.state.history
        mine = [Match(self.rules, seed=seed, dealer=self.first)._deal(i) for i in range(len(rec.hands))]
        differ = [i for i, (h, d) in enumerate(zip(rec.hands, mine, strict=True)) if h.deal != d]
        assert other.seed_from == (differ[-1] + 1 if differ else 0) and other.to_json()["seed"] == seed
        for i in choices:
            obj = other.to_json()
            again = Match.from_json(obj)
            assert again == other and again.to_json() == obj
            if finished(other):
                break
            moves = other.state.legal_moves()
            other.play(moves[i % len(moves)])
            forty_cards(other.state)

    @rule(how=st.sampled_from(["copy", "copy()", "deepcopy", "pickle"]), i=st.integers(0, 10**6))
    def copies_go_apart(self, how: str, i: int) -> None:
        def make() -> Match:
            if how == "copy":
                return copy.copy(self.match)
            if how == "copy()":
                return self.match.copy()
            if how == "deepcopy":
                return copy.deepcopy(self.match)
            return pickle.loads(pickle.dumps(self.match))

        before = self.match.to_json()
        other = make()
        assert other.to_json() == before
        # whatever is done to the copy leaves the original as it was
        for _ in range(3):
            if finished(other):
                break
            moves = other.state.legal_moves()
            other.play(moves[i % len(moves)])
        try:
            other.undo()
            other.undo()
        except PositionError:
            pass
        assert self.match.to_json() == before
        self._shadow(how, make())

    @rule(data=st.data())
    def corrupt_json_is_refused(self, data: st.DataObject) -> None:
        obj = copy.deepcopy(self.match.to_json())
        before = copy.deepcopy(obj)
        key = data.draw(
            st.sampled_from(
                ["scores", "hands_played", "winner", "dealer", "first_dealer", "seed", "target", "play"]
            )
        )
        if key == "scores":
            obj["scores"][data.draw(st.integers(0, 1))] += data.draw(st.sampled_from([-1, 1, 5]))
        elif key == "hands_played":
            obj["hands_played"] += data.draw(st.sampled_from([-1, 1]))
        elif key == "winner":
            obj["winner"] = data.draw(st.sampled_from([0, 1, None]).filter(lambda w: w != obj["winner"]))
        elif key in ("dealer", "first_dealer"):
            obj[key] = (obj[key] + data.draw(st.integers(1, self.n - 1))) % self.n
        elif key == "seed":
            obj["seed"] = (obj["seed"] + 1) % 2**64
        elif key == "target":
            obj["target"] += 1
        else:
            hands = [h for h in obj["hands"] if h["plays"]]
            if not hands:
                return
            h = data.draw(st.sampled_from(hands))
            h["plays"] = h["plays"][:-1]
        with pytest.raises(ScopaError):
            Match.from_json(obj)
        assert self.match.to_json() == before

    def _shadow(self, kind: str, other: Match) -> None:
        self.shadows = [*self.shadows[-2:], (kind, other)]

    # -------------------------------------------------------------- invariants

    @invariant()
    def agrees_with_the_model(self) -> None:
        m = self.match
        state = m.state
        forty_cards(state)
        # the current hand, card by card
        if self.done:
            assert state is m.hands[-1] and state.is_over
        self.model.check(state)
        # every finished hand: its points by the model, the history, the scores (RULES §4, §5)
        assert len(m.history) == len(m.hands) == len(self.points)
        for final, hs, pts, plays in zip(m.hands, m.history, self.points, self.finished_plays, strict=True):
            forty_cards(final)
            assert [str(mv) for _, mv in final.history] == plays
            assert final.is_over and final.score() == hs
            model = score_piles(self.rules, [{str(c) for c in p} for p in final.captured], list(final.scope))
            assert total(model) == pts == hs.points
            for name, pair in model.items():
                assert getattr(hs, name) == pair, name
        assert m.scores == self.scores
        assert m.winner == self.winner and m.is_over == (self.winner is not None)
        running = (0, 0)
        for pts in self.points[:-1]:  # no hand follows the one that decides the match
            running = (running[0] + pts[0], running[1] + pts[1])
            assert not (max(running) >= self.rules.target and running[0] != running[1])
        # the dealer moves on each hand (RULES §5)
        assert m.first_dealer == self.first
        assert m.dealer == (self.first + len(self.deals) - 1) % self.n
        for i, final in enumerate(m.hands):
            assert final.origin.dealer == (self.first + i) % self.n
        obj = m.to_json()
        assert obj["hands_played"] == len(m.hands) and obj["scores"] == list(self.scores)
        assert obj["winner"] == self.winner and obj["dealer"] == m.dealer
        assert len(obj["hands"]) == len(m.hands)
        check_views(state)
        for kind, other in self.shadows:
            assert other.to_json() == obj, kind
            assert other == m


TestMatch = MatchMachine.TestCase
TestMatch.settings = SETTINGS


class LimitedMatchMachine(MatchMachine):
    """The match machine with scopa.match.MAX_HANDS made small and targets larger: matches stop
    undecided at the limit (docs/records.md), and are undone, saved and resumed there."""

    @initialize(
        rules=rules_strategy(max_target=30),
        seed=st.integers(0, 2**64 - 1),
        dealer=st.none() | st.integers(0, 3),
        limit=st.integers(1, 3),
    )
    def start(self, rules: Rules, seed: int, dealer: int | None, limit: int) -> None:  # type: ignore[override]
        self.saved_limit = scopa.match.MAX_HANDS
        scopa.match.MAX_HANDS = limit
        self._begin(rules, seed, dealer)

    def teardown(self) -> None:
        if hasattr(self, "saved_limit"):
            scopa.match.MAX_HANDS = self.saved_limit


TestLimitedMatch = LimitedMatchMachine.TestCase
TestLimitedMatch.settings = SETTINGS


# ----------------------------------------------------------------------------------- 2. a state


class StateMachine(RuleBasedStateMachine):
    """One hand played and undone, its positions written and read back, against the model."""

    @initialize(rules=rules_strategy(), seed=st.integers(0, 2**64 - 1), dealer=st.integers(0, 3))
    def start(self, rules: Rules, seed: int, dealer: int) -> None:
        self.state = State.deal(rules, seed=seed, dealer=dealer % rules.players)
        check_deal(self.state, dealer % rules.players)
        self.trail = [self.state]  # the states since the origin of the current history
        self.dealt = True  # the history starts at the deal
        self.model = HandModel(self.state)

    @precondition(lambda self: not self.state.is_over)
    @rule(choices=st.lists(st.integers(0, 10**6), min_size=1, max_size=40))
    def play_many(self, choices: list[int]) -> None:
        for i in choices:
            if self.state.is_over:
                break
            self.play(i)

    @precondition(lambda self: not self.state.is_over)
    @rule(i=st.integers(0, 10**6))
    def play(self, i: int) -> None:
        moves = self.state.legal_moves()
        before = self.state
        self.state, events = play_events(before, moves[i % len(moves)])
        assert self.state == before.play(moves[i % len(moves)])
        assert self.state.undo() == before  # (before is unchanged: states are values)
        expected = self.model.play(moves[i % len(moves)])
        assert [event_key(e.to_json()) for e in events] == [event_key(e) for e in expected]
        self.trail.append(self.state)

    @rule(data=st.data())
    def play_illegal(self, data: st.DataObject) -> None:
        move = (
            bad_moves(self.state, data.draw) if not self.state.is_over else data.draw(st.sampled_from(DECK))
        )
        if move is None:
            return
        text = self.state.to_json()
        try:
            after = self.state.play(move)
        except ScopaError:
            assert self.state.to_json() == text
            return
        self.model.play(after.history[-1][1])
        self.state = after
        self.trail.append(after)

    @rule()
    def undo(self) -> None:
        if len(self.trail) == 1:
            with pytest.raises(PositionError):
                self.state.undo()
            return
        self.state = self.state.undo()
        assert self.state == self.trail[-2]
        self.trail.pop()
        plays = self.model.plays[:-1]
        self.model = HandModel(self.trail[0])
        for p in plays:
            self.model.play(Move.parse(p))

    @rule(how=st.sampled_from(["text", "dict", "bytes", "of"]))
    def json_round_trip(self, how: str) -> None:
        text = self.state.to_json()
        src: Any = {"text": text, "dict": self.state.to_dict(), "bytes": text.encode(), "of": text}[how]
        again = State.of(src) if how == "of" else State.from_json(src)
        assert again == self.state and again.history == self.state.history
        assert again.origin == self.state.origin and again.to_json() == text
        self.state = again  # (it goes on as the original would: the invariants check it)
        self.trail[-1] = again

    @rule()
    def string_round_trip(self) -> None:
        """A position string has no history: the state read back starts a new one (documented)."""
        again = State.from_string(self.state.to_string())
        assert again == self.state and again.to_string() == self.state.to_string()
        assert again.history == () and again.origin is again
        self.state = again
        self.trail = [again]
        self.dealt = False
        self.model = HandModel(again)

    @rule(how=st.sampled_from(["pickle", "copy", "deepcopy"]))
    def copies(self, how: str) -> None:
        fn = {"pickle": lambda s: pickle.loads(pickle.dumps(s)), "copy": copy.copy, "deepcopy": copy.deepcopy}
        again = fn[how](self.state)
        assert again == self.state and again.history == self.state.history
        assert again.origin == self.state.origin and hash(again) == hash(self.state)
        self.state = again
        self.trail[-1] = again

    @rule()
    def record(self) -> None:
        try:
            rec = self.state.record()
        except ScopaError:
            assert not self.dealt, "a dealt hand's history starts at a deal: it has a record"
            return
        assert rec.final() == self.state and rec.plays == tuple(m for _, m in self.state.history)
        assert HandRecord.from_json(rec.to_json()) == rec
        assert load_record(rec.to_json()).hands[0] == rec

    @invariant()
    def agrees_with_the_model(self) -> None:
        s = self.state
        forty_cards(s)
        self.model.check(s)
        assert len(s.history) == len(self.trail) - 1
        assert s.origin == self.trail[0]
        assert [m for _, m in s.history] == [t.history[-1][1] for t in self.trail[1:]]
        seats = [seat for seat, _ in s.history]
        assert seats == [t.turn for t in self.trail[:-1]]
        d = s.to_dict()
        assert ("history" in d) == bool(s.history)
        assert State.from_string(s.to_string()) == s
        if s.is_over:
            assert s.legal_moves() == []
            assert total(self.model.score()) == s.score().points
        check_views(s)


TestState = StateMachine.TestCase
TestState.settings = SETTINGS


# ----------------------------------------------------------------------------------- 3. the protocol

VALIDATOR = jsonschema.Draft202012Validator(schema())


class ProtocolMachine(RuleBasedStateMachine):
    """An engine session of match_new, then match_play requests carrying the match the previous
    reply gave, with bad requests between them; a Match played alongside is the model."""

    def send(self, request: Any, as_bytes: bool = False) -> dict[str, Any]:
        line = request if isinstance(request, (str, bytes)) else json.dumps(request)
        if as_bytes and isinstance(line, str):
            line = line.encode()
        reply = self.protocol.handle(line)
        assert isinstance(reply, dict)
        errors = list(VALIDATOR.iter_errors(json.loads(json.dumps(reply))))
        assert not errors, f"{errors[0].message} in {reply}"
        if isinstance(request, dict) and "id" in request:
            got, want = reply["id"], request["id"]
            assert type(got) is type(want) and got == want
        return reply

    @initialize(
        rules=rules_strategy(),
        seed=st.integers(0, 2**53 - 1),
        dealer=st.none() | st.integers(0, 3),
        as_object=st.booleans(),
    )
    def start(self, rules: Rules, seed: int, dealer: int | None, as_object: bool) -> None:
        self.protocol = Protocol()
        target = rules.target
        req: dict[str, Any] = {"cmd": "match_new", "id": 1, "seed": seed}
        if as_object:
            req["rules"] = rules.to_json()
        else:  # the preset's other options, by name alone, and the target as its field
            rules = Rules.preset(rules.game, target=target)
            req["rules"], req["target"] = rules.game, target
        if dealer is not None:
            dealer %= rules.players
            req["dealer"] = dealer
        reply = self.send(req)
        assert "error" not in reply, reply
        self.ref = Match(rules, seed=seed, dealer=dealer)
        assert reply["match"] == self.ref.to_json()
        self.match_json = reply["match"]
        self.next_id = 2

    def _id(self, draw: Any) -> Any:
        self.next_id += 1
        return draw(st.sampled_from([self.next_id, f"r{self.next_id}", None, -self.next_id]))

    @precondition(lambda self: not self.ref.is_over)
    @rule(i=st.integers(0, 10**6), data=st.data())
    def match_play(self, i: int, data: st.DataObject) -> None:
        self._match_play(i, data)

    @precondition(lambda self: not self.ref.is_over)
    @rule(choices=st.lists(st.integers(0, 10**6), min_size=1, max_size=40), data=st.data())
    def match_play_many(self, choices: list[int], data: st.DataObject) -> None:
        for i in choices:
            if self.ref.is_over:
                break
            self._match_play(i, data)

    def _match_play(self, i: int, data: st.DataObject) -> None:
        moves = self.ref.state.legal_moves()
        move = moves[i % len(moves)]
        req = {"cmd": "match_play", "id": self._id(data.draw), "match": self.match_json, "move": str(move)}
        reply = self.send(req, as_bytes=data.draw(st.booleans()))
        assert "error" not in reply, reply
        _, events = self.ref.play_events(move)
        assert reply["match"] == self.ref.to_json()
        assert reply["events"] == [e.to_json() for e in events]
        ended = any(e.type == "hand_over" for e in events)
        assert ("hand_over" in reply) == ended
        if ended:
            event("protocol: a hand ended")
            final = self.ref.hands[-1]
            assert reply["hand_over"]["position"] == final.to_dict()
            assert reply["hand_over"]["score"]["points"] == list(self.ref.history[-1].points)
            assert HandRecord.from_json(reply["hand_over"]["record"]).final() == final
        self.match_json = reply["match"]

    @rule(data=st.data())
    def bad_request(self, data: st.DataObject) -> None:
        m = self.match_json
        state = self.ref.state
        kind = data.draw(st.integers(0, 9))
        rid = self._id(data.draw)
        bad: Any
        if kind == 0:  # an illegal move (or any, once the match is over)
            move = bad_moves(state, data.draw) if not self.ref.is_over else data.draw(st.sampled_from(DECK))
            if move is None or not isinstance(move, str):
                move = "zz"
            try:
                state.resolve(move)
                if not self.ref.is_over:
                    return  # (legal after all)
            except ScopaError:
                pass
            bad = {"cmd": "match_play", "id": rid, "match": m, "move": move}
        elif kind == 1:  # an unknown field
            bad = {"cmd": "match_play", "id": rid, "match": m, "move": "7d", "mvoe": "7d"}
        elif kind == 2:  # a missing field
            bad = {"cmd": "match_play", "id": rid, "match": m}
        elif kind == 3:  # a corrupted match
            mm = copy.deepcopy(m)
            mm["scores"][0] += 1
            bad = {"cmd": "match_play", "id": rid, "match": mm, "move": "7d"}
        elif kind == 4:  # a match of the wrong type
            bad = {
                "cmd": "match_play",
                "id": rid,
                "match": data.draw(st.sampled_from([None, 1, "m", [m]])),
                "move": "7d",
            }
        elif kind == 5:  # not JSON
            bad = data.draw(
                st.sampled_from(["{", "not json", b"\xff\xfe", '{"cmd": "match_play", "cmd": "ping"}', "[1]"])
            )
        elif kind == 6:  # an unknown command
            bad = {"cmd": data.draw(st.sampled_from(["match_plya", "", 7, None])), "id": rid}
        elif kind == 7:  # a position string for the match's position
            mm = dict(m)
            mm["position"] = State.from_json(m["position"]).to_string()
            bad = {"cmd": "match_play", "id": rid, "match": mm, "move": "7d"}
        elif kind == 8:  # a move of the wrong type
            bad = {
                "cmd": "match_play",
                "id": rid,
                "match": m,
                "move": data.draw(st.sampled_from([None, 7, ["7d"], {}])),
            }
        else:  # a match with its position's history cut
            mm = copy.deepcopy(m)
            if "history" not in mm["position"]:
                return
            del mm["position"]["history"]
            bad = {"cmd": "match_play", "id": rid, "match": mm, "move": "7d"}
        before = copy.deepcopy(m)
        reply = self.send(bad)
        assert "error" in reply, (bad, reply)
        assert reply["error"]["type"] not in ("InternalError",), reply
        assert self.match_json == before  # (the client's match: nothing took it apart)

    @rule(data=st.data())
    def match_record_and_resume(self, data: st.DataObject) -> None:
        reply = self.send({"cmd": "match_record", "id": self._id(data.draw), "match": self.match_json})
        assert "error" not in reply, reply
        assert reply["record"] == self.ref.record().to_json()
        assert load_record(reply["record"]) == self.ref.record()
        rec = reply["record"]
        if rec["hands"]:
            again = self.send(
                {"cmd": "match_resume", "id": self._id(data.draw), "record": rec, "seed": self.ref.seed}
            )
            assert "error" not in again, again
            assert again["match"] == self.match_json
            if data.draw(st.booleans()):
                self.match_json = again["match"]

    @rule(data=st.data())
    def view_and_legal(self, data: st.DataObject) -> None:
        pos = self.match_json["position"]
        seat = data.draw(st.integers(0, self.ref.rules.players - 1))
        reply = self.send({"cmd": "view", "id": self._id(data.draw), "position": pos, "seat": seat})
        assert "error" not in reply, reply
        assert reply["view"] == self.ref.state.view(seat).to_json()
        reply = self.send({"cmd": "legal", "id": self._id(data.draw), "position": pos})
        assert reply["moves"] == [str(m) for m in self.ref.state.legal_moves()]

    @invariant()
    def holds_the_model(self) -> None:
        assert Match.from_json(self.match_json) == self.ref
        assert self.match_json == self.ref.to_json()


TestProtocol = ProtocolMachine.TestCase
TestProtocol.settings = SETTINGS


def test_the_model_plays_the_seed_examples() -> None:
    """The model itself, on the examples of RULES §3."""
    free, fewest = Rules.preset("scopa"), Rules.preset("scopa", capture_rule="fewest")
    assert captures("Jd", {"3c", "5c", "Jc"}, free) == [frozenset({"Jc"})]
    assert set(captures("Qd", {"Ac", "3c", "4c", "5c"}, free)) == {
        frozenset({"Ac", "3c", "5c"}),
        frozenset({"4c", "5c"}),
    }
    assert captures("Qd", {"Ac", "3c", "4c", "5c"}, fewest) == [frozenset({"4c", "5c"})]
    assert set(captures("Qd", {"Ac", "3c", "4c", "5c", "Jc"}, fewest)) == {
        frozenset({"Ac", "Jc"}),
        frozenset({"4c", "5c"}),
    }
    assert captures("5d", {"5c", "4c", "Ac"}, free) == [frozenset({"5c"})]
    assert total(score_piles(free, [set(DECK), set()], [1, 0])) == (5, 0)  # RULES §4
    every = Rules.preset("scopa", napola=True, re_bello=True, primiera_requires_all_suits=False)
    assert total(score_piles(every, [set(DECK[10:]), set(DECK[:10])], [0, 2])) == (2, 15)  # RULES §7
