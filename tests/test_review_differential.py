"""The review (docs/records.md "Review", scopa.review's docstrings) against a plain minimax.

Independent of the review's code: a brute-force minimax written here over the public API alone
(``State.legal_moves``, ``State.play``, ``State.is_over``, ``State.score().points``) values
every legal move of small endgames (the stock out, or one refill left with two players; at most
three cards a hand), first checked against ``scopa.solve`` and ``scopa.analyze``. Then every play
of lines played from those endgames (best moves, worst moves, random moves) is reviewed and each
figure the docs define for a play is compared with the minimax's:

- ``dd_values`` (every legal move's exact value), ``dd_best`` and ``dd_loss``, on every play;
- where the mover can know every card (the stock out and at most one other hand holding cards:
  2-player Scopa's last round, the last plays of a 4-player hand) the fair ``values`` are the exact
  ones, so ``best``, ``loss``, ``played_value``, ``best_value`` and the ``mark`` (``?`` over
  ``MISTAKE``, ``??`` over ``BLUNDER``) follow from the minimax too;
- on every play the fair figures agree with one another (the loss is the best value minus the
  played one, never negative, the mark follows the loss), and a reason names something the best
  move does that the play does not (or the reverse);
- the summary's per-seat and per-team totals are the sums of the plays'.

Also: the exact values of consecutive plays chain to the hand's final score; under a budget too
short to solve, what the review still calls exact is the minimax's; a review cut short by its
limit values the plays before the cut as the minimax does and leaves the rest out as documented;
a match record's hands are reviewed in order and summed per hand. And properties: a line of best
moves loses nothing, a review is the same twice (a fixed seed, no time limit cutting PIMC's 128
samples), goes to JSON and back, and ``Review.annotate`` puts its marks on the plays that lost
points.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from conftest import TWIN_RUN
from hypothesis import given, settings
from hypothesis import strategies as st

import scopa
from scopa import Card, Match, Move, Rules, State
from scopa.records import HandRecord, MatchRecord, load_record
from scopa.review import BLUNDER, MISTAKE, PlayReview, Review, load_review, review

# RULES §7, docs/rules.md §9: one rule option at a time, and all of them together.
OPTIONS: list[dict[str, Any]] = [
    {},
    {"napola": True},
    {"re_bello": True},
    {"ace_takes_all": True},
    {"ace_takes_all": True, "ace_sweep_is_scopa": True},
    {"scopa_on_last_play": True},
    {"capture_rule": "fewest"},
    {"primiera_requires_all_suits": False},
    {
        "napola": True,
        "re_bello": True,
        "ace_takes_all": True,
        "ace_sweep_is_scopa": True,
        "scopa_on_last_play": True,
        "capture_rule": "fewest",
        "primiera_requires_all_suits": False,
    },
]
SETTEBELLO = Card.parse("7d")
REASONS = {None, "missed a sweep", "missed the settebello", "gave up the settebello", "left a scopa"}
# The review's budget a play: generous, so that the endgames here are solved (and PIMC's 128
# samples run to the end, for the reviews compared twice); they take milliseconds.
TIME = 5.0


# --- the reference: plain minimax over the public API --------------------------------------------


class Minimax:
    """Exact values by brute force. RULES §8: the final difference of the hand's points (the piles
    and scope already made included), each team maximising its own; kept here for team 0."""

    def __init__(self) -> None:
        self.memo: dict[State, int] = {}

    def value0(self, s: State) -> int:
        v = self.memo.get(s)
        if v is None:
            if s.is_over:
                points = s.score().points  # RULES §4: the hand's final score
                v = points[0] - points[1]
            else:
                children = [self.value0(s.play(m)) for m in s.legal_moves()]
                v = max(children) if s.team_to_move == 0 else min(children)
            self.memo[s] = v
        return v

    def value(self, s: State) -> int:
        """For the team to move, as ``scopa.solve`` gives it."""
        v = self.value0(s)
        return v if s.team_to_move == 0 else -v

    def moves(self, s: State) -> dict[Move, int]:
        """Every legal move's value for the mover's team."""
        sign = 1 if s.team_to_move == 0 else -1
        return {m: sign * self.value0(s.play(m)) for m in s.legal_moves()}


def rerooted(s: State) -> State:
    """The same position with no history: a review of it starts there."""
    return State.from_cards(
        s.rules,
        [list(h) for h in s.hands],
        turn=s.turn,
        table=list(s.table),
        stock=list(s.stock),
        captured=[list(c) for c in s.captured],
        scope=s.scope,
        last_capture=s.last_capture,
        dealer=s.dealer,
    )


def endgame(game: str, options: dict[str, Any], seed: int, per_hand: int, stock: int = 0) -> State:
    """A random deal played at random until at most ``stock`` cards are left in the stock and
    ``per_hand`` in each hand (a few plays more at random), as a position of its own."""
    rules = Rules.preset(game, **options)
    rnd = random.Random(seed)
    while True:
        s = State.deal(rules, seed=rnd.getrandbits(32), dealer=rnd.randrange(rules.players))
        extra = rnd.randrange(rules.players)
        while not s.is_over and (len(s.stock) > stock or max(len(h) for h in s.hands) > per_hand):
            s = s.play(rnd.choice(s.legal_moves()))
        for _ in range(extra if not stock else 0):
            if sum(len(h) for h in s.hands) > 2:
                s = s.play(rnd.choice(s.legal_moves()))
        if not s.is_over:
            return rerooted(s)


def line(start: State, mm: Minimax, policy: str, rnd: random.Random) -> State:
    """Play ``start`` to its end: best moves, worst moves, random moves or a mix of the three."""
    s = start
    while not s.is_over:
        values = mm.moves(s)
        how = rnd.choice(["best", "worst", "random"]) if policy == "mixed" else policy
        if how == "random":
            move = rnd.choice(list(values))
        else:
            target = max(values.values()) if how == "best" else min(values.values())
            move = rnd.choice([m for m, v in values.items() if v == target])
        s = s.play(move)
    return s


def positions(final: State) -> list[State]:
    """The positions before each play of ``final``'s history, from its origin."""
    out = [final.origin]
    for _, move in final.history[:-1]:
        out.append(out[-1].play(move))
    return out


def moves_of(final: State) -> list[Move]:
    """The moves of ``final``'s history (its ``(seat, move)`` pairs)."""
    return [move for _, move in final.history]


def knows_every_card(s: State) -> bool:
    """docs/records.md: the stock out and at most one other hand holding cards."""
    return not s.stock and sum(1 for seat, h in enumerate(s.hands) if h and seat != s.turn) <= 1


def expected_mark(loss: float) -> str | None:
    return "??" if loss > BLUNDER else "?" if loss > MISTAKE else None


# The endgames: 2-player Scopa with the stock out (1-3 cards a hand) and with one refill left;
# 4-player games of 1-3 cards a hand (fewer and smaller on the twin, whose PIMC is slower).
def cases() -> list[tuple[str, dict[str, Any], int, int, int]]:
    out = []
    n2, n4, big4 = (9, 5, 3) if TWIN_RUN else (36, 24, 2)
    for i in range(n2):
        out.append(("scopa", OPTIONS[i % len(OPTIONS)], 100 + i, 3, 0))
    for i in range(2 if TWIN_RUN else 6):
        out.append(("scopa", OPTIONS[(2 * i) % len(OPTIONS)], 200 + i, 3, 6))
    games4 = ["scopa4", "scopone", "scopone_scientifico"]
    for i in range(n4):
        per_hand = 3 if i % big4 == 0 else 2
        out.append((games4[i % 3], OPTIONS[(i + 4) % len(OPTIONS)], 300 + i, per_hand, 0))
    return out


CASES = cases()
POLICIES = ["best", "worst", "random", "mixed"]


def case_id(case: tuple) -> str:
    game, options, seed, per_hand, stock = case
    opts = "+".join(sorted(options)) or "default"
    return f"{game}-{opts}-{seed}-{per_hand}{'-stock' if stock else ''}"


# --- the reference checked first ---------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_the_minimax_agrees_with_the_solver(case):
    # RULES §8: solve's value and analyze's every move, for the team to move
    start = endgame(*case)
    mm = Minimax()
    values = mm.moves(start)
    analysis = scopa.analyze(start)
    assert {m: analysis[m] for m in values} == values and len(analysis.moves) == len(values)
    result = scopa.solve(start)
    assert result.exact and result.value == mm.value(start) == max(values.values())
    assert values[result.best_move] == result.value
    # and a position half-way to the end
    s = start
    rnd = random.Random(case[2])
    for _ in range(sum(len(h) for h in start.hands) // 2):
        s = s.play(rnd.choice(s.legal_moves()))
    if not s.is_over:
        assert scopa.solve(s).value == mm.value(s)


# --- every play of a line against the minimax --------------------------------------------------


def check_play(p: PlayReview, s: State, index: int, move: Move, mm: Minimax, hand: int = 0) -> None:
    """One play's review against the minimax (``s`` the position before it)."""
    exact = mm.moves(s)
    best = max(exact.values())
    where = f"play {index} ({move}) of {s.to_string()}"
    # who and what
    assert (p.hand, p.play, p.seat, p.team, p.move) == (hand, index, s.turn, s.team_to_move, move), where
    assert p.reviewed, where
    # the double-dummy figures: exact, on every play of a position this small
    assert p.dd_values is not None, where
    assert dict(p.dd_values) == exact, where
    assert p.dd_best is not None and exact[p.dd_best] == best, where
    assert p.dd_loss == best - exact[move] >= 0, where
    # (the capture rules written here, for the reasons below, give the legal moves)
    mine = {(c, x) for c in s.hands[s.turn] for x in captures(c, list(s.table), s.rules) or [frozenset()]}
    assert mine == {(m.card, m.captures) for m in s.legal_moves()}, where
    # the fair figures, consistent with one another
    assert set(p.values) == set(s.legal_moves()), where
    assert p.played_value == p.values[move], where
    assert p.best_value == p.values[p.best] == max(p.values.values()), where
    assert p.loss == pytest.approx(p.best_value - p.played_value, abs=1e-9) and p.loss >= 0, where
    assert p.mark == expected_mark(p.loss), where
    # where the mover can know every card, the fair values are the exact ones
    if knows_every_card(s):
        assert dict(p.values) == {m: float(v) for m, v in exact.items()}, where
        assert p.best_value == best and p.played_value == exact[move], where
        assert p.loss == best - exact[move] == p.dd_loss, where
        assert p.mark == expected_mark(best - exact[move]), where
    if len(exact) == 1:  # a forced play is valued too, its loss 0
        assert p.loss == 0 and p.dd_loss == 0 and p.mark is None, where
    check_reason(p, s, where)


def captures(card: Card, table: list[Card], rules: Rules) -> list[frozenset[Card]]:
    """What ``card`` may take from ``table``, written here from the rules (RULES §3, §7)."""
    if rules.ace_takes_all and card.value == 1 and table and all(c.value != 1 for c in table):
        return [frozenset(table)]  # RULES §7: the ace takes the whole table
    equal = [c for c in table if c.value == card.value]
    if equal:  # RULES §3.1: equal rank first, one card
        return [frozenset([c]) for c in equal]
    sums = [
        frozenset(c for bit, c in enumerate(table) if mask >> bit & 1)
        for mask in range(1, 1 << len(table))
        if bin(mask).count("1") >= 2
        and sum(c.value for bit, c in enumerate(table) if mask >> bit & 1) == card.value
    ]  # RULES §3.2
    if sums and rules.capture_rule == "fewest":
        fewest = min(len(x) for x in sums)
        sums = [x for x in sums if len(x) == fewest]
    return sums


def sweeps_for_a_scopa(card: Card, table: list[Card], rules: Rules, last_play: bool) -> bool:
    """RULES §3.6, §7: ``card`` may take the whole table, and that counts as a scopa."""
    if not table or (last_play and not rules.scopa_on_last_play):
        return False
    ace_sweep = rules.ace_takes_all and card.value == 1 and all(c.value != 1 for c in table)
    if ace_sweep and not rules.ace_sweep_is_scopa:
        return False
    return frozenset(table) in captures(card, table, rules)


def unseen(s: State) -> list[Card]:
    """The cards the mover has not seen: the other hands and the stock (the rest is its own hand,
    the table and the piles, which every play showed)."""
    return [c for seat, h in enumerate(s.hands) if seat != s.turn for c in h] + list(s.stock)


def leaves_a_scopa(s: State, after: State) -> bool:
    last = not after.stock and sum(len(h) for h in after.hands) == 1
    return any(sweeps_for_a_scopa(c, list(after.table), s.rules, last) for c in unseen(s))


def gives_up_the_settebello(s: State, after: State) -> bool:
    table = list(after.table)
    return SETTEBELLO in after.table and any(
        SETTEBELLO in x for c in unseen(s) for x in captures(c, table, s.rules)
    )


def check_reason(p: PlayReview, s: State, where: str) -> None:
    """A reason goes with a mark and names something the best move does not do (docs/records.md):
    a scopa or the settebello it takes and the play does not, a scopa or the settebello the play
    leaves to a card the mover has not seen and the best move does not."""
    assert p.reason in REASONS, where
    if p.reason is None:
        return
    assert p.mark is not None, where
    team = s.team_to_move
    after, after_best = s.play(p.move), s.play(p.best)
    if p.reason == "missed a sweep":  # RULES §3.6: the best move makes a scopa, the play none
        assert after_best.scope[team] > s.scope[team] and after.scope[team] == s.scope[team], where
    elif p.reason == "missed the settebello":  # the best move takes it
        assert SETTEBELLO in after_best.captured[team] and SETTEBELLO not in after.captured[team], where
    elif p.reason == "gave up the settebello":
        assert gives_up_the_settebello(s, after) and not gives_up_the_settebello(s, after_best), where
    elif p.reason == "left a scopa":
        assert leaves_a_scopa(s, after) and not leaves_a_scopa(s, after_best), where


def check_summary(r: Review, players: int) -> None:
    """docs/records.md: per seat and team the plays reviewed, the fair loss (in all, per play and
    per hand reviewed), the exact loss over the plays solved exactly, the mistakes and blunders."""
    summary = r.summary()
    # (every play reviewed here: every hand is a hand reviewed, one dealt and not played too)
    assert summary["hands"] == r.hands and summary["hands_reviewed"] == r.hands
    teams = 2
    for key, count, who in (("seats", players, lambda p: p.seat), ("teams", teams, lambda p: p.team)):
        assert len(summary[key]) == count
        for i, row in enumerate(summary[key]):
            mine = [p for p in r.plays if who(p) == i and p.reviewed]
            solved = [p for p in mine if p.dd_values is not None]
            loss = sum(p.loss for p in mine)
            assert row["plays"] == len(mine), (key, i)
            assert row["loss"] == pytest.approx(loss, abs=1e-4), (key, i)
            assert row["loss_per_play"] == pytest.approx(loss / len(mine) if mine else 0.0, abs=1e-4)
            hands = summary["hands_reviewed"]
            assert row["loss_per_hand"] == pytest.approx(loss / hands if hands else 0.0, abs=1e-4)
            assert row["dd_plays"] == len(solved), (key, i)
            assert row["dd_loss"] == sum(p.dd_loss for p in solved), (key, i)
            assert row["mistakes"] == sum(p.mark == "?" for p in mine), (key, i)
            assert row["blunders"] == sum(p.mark == "??" for p in mine), (key, i)
    # the worst plays: plays of the review, the largest losses first, none smaller than a play left out
    worst = summary["worst"]
    plays_json = [p.to_json() for p in r.plays]
    assert all(w in plays_json for w in worst)
    losses = [w["loss"] for w in worst]
    assert losses == sorted(losses, reverse=True)
    if worst:
        left_out = [p["loss"] for p in plays_json if p not in worst]
        assert all(x <= min(losses) for x in left_out)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_every_play_of_an_endgame_is_valued_as_the_minimax_values_it(case):
    start = endgame(*case)
    mm = Minimax()
    rnd = random.Random(case[2])
    for policy in POLICIES if not TWIN_RUN else POLICIES[1:]:
        final = line(start, mm, policy, rnd)
        r = review(final, time_limit=TIME)
        moves = moves_of(final)
        assert len(r.plays) == len(moves) and r.hands == 1 and r.players == start.rules.players
        assert r.rules == start.rules
        for i, (p, s, move) in enumerate(zip(r.plays, positions(final), moves, strict=True)):
            check_play(p, s, i, move, mm)
        # the line's values chain: a play's exact value is the best exact value of the next
        # play (for the mover's team), the last play's the hand's final difference (RULES §8)
        points = final.score().points
        for p, nxt in zip(r.plays, r.plays[1:] + (None,), strict=True):
            if nxt is None:
                assert p.dd_values[p.move] == points[p.team] - points[1 - p.team]
            else:
                sign = 1 if nxt.team == p.team else -1
                assert p.dd_values[p.move] == sign * max(nxt.dd_values.values())
        check_summary(r, start.rules.players)
        # every play of the best line loses nothing, exactly (and, where the mover knows every
        # card, by the fair values too)
        if policy == "best":
            assert all(p.dd_loss == 0 for p in r.plays)
            assert all(
                p.loss == 0 and p.mark is None
                for p, s in zip(r.plays, positions(final), strict=True)
                if knows_every_card(s)
            )


@settings(max_examples=8 if TWIN_RUN else 60, database=None)
@given(
    game=st.sampled_from(["scopa", "scopa", "scopa4", "scopone", "scopone_scientifico"]),
    options=st.sampled_from(OPTIONS),
    seed=st.integers(0, 2**32),
    per_hand=st.integers(1, 2),
)
def test_random_endgames_random_lines(game, options, seed, per_hand):
    start = endgame(game, options, seed, per_hand + (game == "scopa"))
    mm = Minimax()
    final = line(start, mm, "mixed", random.Random(seed))
    r = review(final, time_limit=TIME)
    for i, (p, s, move) in enumerate(zip(r.plays, positions(final), moves_of(final), strict=True)):
        check_play(p, s, i, move, mm)
    check_summary(r, start.rules.players)


def test_the_docs_example_is_the_minimaxs():
    # docs/records.md and scopa.review's docstring: Kc instead of the sweep loses one point
    s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    mm = Minimax()
    assert mm.moves(s) == {Move.parse("7dx3c4s"): 4, Move.parse("Kc"): 3}
    final = s.play("Kc").play("2c").play("7dx3c4s")
    r = review(final, time_limit=TIME)
    for i, (p, before, move) in enumerate(zip(r.plays, positions(final), moves_of(final), strict=True)):
        check_play(p, before, i, move, mm)
    assert [(p.loss, p.mark, p.reason) for p in r.plays] == [
        (1.0, "?", "missed a sweep"),
        (0, None, None),
        (0, None, None),
    ]
    check_summary(r, 2)


# --- properties ---------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES[:: 4 if TWIN_RUN else 2], ids=case_id)
def test_a_review_is_the_same_twice_and_goes_to_json_and_back(case, tmp_path):
    start = endgame(*case)
    final = line(start, Minimax(), "mixed", random.Random(case[2] + 1))
    r = review(final, time_limit=TIME, seed=7)
    again = review(final, time_limit=TIME, seed=7)
    assert again.plays == r.plays and again.summary()["seats"] == r.summary()["seats"]
    # to_json / from_json, as an object, as text and as bytes; and through a file
    js = r.to_json()
    assert js["format"] == "scopa-review" and js["version"] == 1 and len(js["plays"]) == len(final.history)
    text = json.dumps(js)
    for source in (js, text, text.encode()):
        back = Review.from_json(source)
        assert back == r and back.plays == r.plays and back.summary() == r.summary()
    for p in r.plays:
        assert PlayReview.from_json(p.to_json()) == p
        # docs/records.md: values unrounded, the other figures rounded to 4 decimals
        pj = p.to_json()
        assert (pj["value"], pj["best_value"], pj["loss"]) == tuple(
            round(x, 4) for x in (p.played_value, p.best_value, p.loss)
        )
        assert pj["values"] == {str(m): v for m, v in p.values.items()}
        assert p.to_json()["dd_values"] == {str(m): v for m, v in p.dd_values.items()}
    path = tmp_path / "review.json"
    r.save(path)
    assert load_review(path) == r == load_review(path.read_text())


def blundering_hand(game: str, options: dict[str, Any], seed: int) -> State:
    """A whole hand from its deal: random plays, but the last round's moves the worst or the best
    by the minimax (so that the plays the review values exactly hold some losses)."""
    rules = Rules.preset(game, **options)
    rnd = random.Random(seed)
    s = State.deal(rules, seed=seed)
    mm = Minimax()
    while not s.is_over:
        if s.stock or sum(len(h) for h in s.hands) > 2 * rules.players:
            s = s.play(rnd.choice(s.legal_moves()))
        else:
            values = mm.moves(s)
            pick = min if rnd.random() < 0.6 else max
            target = pick(values.values())
            s = s.play(rnd.choice([m for m, v in values.items() if v == target]))
    return s


@pytest.mark.parametrize(
    "game, options, seed",
    [("scopa", {}, 1), ("scopa", {"napola": True, "re_bello": True}, 2), ("scopa4", {}, 3)]
    + ([] if TWIN_RUN else [("scopa", {"scopa_on_last_play": True}, 4), ("scopone", {}, 5)]),
)
def test_a_whole_hands_record_is_reviewed_and_annotated_where_the_losses_are(game, options, seed):
    final = blundering_hand(game, options, seed)
    record = final.record()
    assert isinstance(record, HandRecord)
    r = review(record, time_limit=0.02)
    assert len(r.plays) == len(final.history) and all(p.reviewed for p in r.plays)
    # the last plays, the stock out: exactly as the minimax values them (the fair values too
    # where the mover knows every card)
    mm = Minimax()
    befores = positions(final)
    last = 2 * final.rules.players
    for i in range(len(befores) - last, len(befores)):
        check_play(r.plays[i], befores[i], i, moves_of(final)[i], mm)
    for p in r.plays:  # and every play's figures agree with one another
        assert p.loss >= 0 and p.mark == expected_mark(p.loss) and p.reason in REASONS
        assert p.dd_loss is None or p.dd_loss >= 0
    check_summary(r, final.rules.players)
    # the annotations: a mark on every play that has one, nowhere else, with the loss in its comment
    match = MatchRecord(record.rules, (record,))
    annotated = r.annotate(match)
    notes = annotated.hands[0].annotations
    marked = {p.play: p for p in r.plays if p.mark}
    assert {i: a.mark for i, a in notes.items() if a.mark} == {i: p.mark for i, p in marked.items()}
    for i, p in marked.items():
        assert f"loses {p.loss:.2f}" in notes[i].comment
    assert r.annotations() == [{i: a for i, a in notes.items()}]
    assert load_record(annotated.to_json()) == annotated
    assert [h.plays for h in annotated.hands] == [record.plays]


def next_move(s: State, mm: Minimax, rnd: random.Random) -> Move:
    """At random, but in the last round the minimax's worst or best move."""
    if s.stock or sum(len(h) for h in s.hands) > 2 * s.rules.players:
        return rnd.choice(s.legal_moves())
    values = mm.moves(s)
    target = (min if rnd.random() < 0.6 else max)(values.values())
    return rnd.choice([m for m, v in values.items() if v == target])


@pytest.mark.parametrize("game", ["scopa", "scopa4"])
def test_a_match_records_hands_are_reviewed_in_order_and_summed_per_hand(game):
    # RULES §5: the dealer moves on; each hand's plays are indexed from 0 within it
    m = Match(Rules.preset(game, target=21), seed=11)
    rnd, mm = random.Random(11), Minimax()
    while len(m.hands) < 2:
        m.play(next_move(m.state, mm, rnd))
    # and the next hand, dealt and not played: docs/records.md counts it among the hands reviewed
    # for loss_per_hand (Review.summary's docstring says "the hands with a play reviewed": read
    # here as records.md says, which the review does)
    assert not m.state.history
    record = m.record()
    record = MatchRecord(record.rules, record.hands + (m.state.record(),), record.tags)
    r = review(record, time_limit=0.02)
    assert r.hands == len(record.hands) == 3 and r.summary()["hands_reviewed"] == 3
    expected = [(h, i) for h, hand in enumerate(record.hands) for i in range(len(hand.plays))]
    assert [(p.hand, p.play) for p in r.plays] == expected
    for h, final in enumerate(m.hands):
        plays = [p for p in r.plays if p.hand == h]
        befores, moves = positions(final), moves_of(final)
        assert [p.move for p in plays] == moves
        assert [p.seat for p in plays] == [seat for seat, _ in final.history]
        for i in range(len(befores) - 2 * final.rules.players, len(befores)):  # the stock out
            check_play(plays[i], befores[i], i, moves[i], mm, hand=h)
    check_summary(r, m.rules.players)
    summary = r.summary()
    for row in summary["seats"] + summary["teams"]:
        assert row["loss_per_hand"] == pytest.approx(row["loss"] / r.hands, abs=1e-4)


@pytest.mark.parametrize("budget", [1e-6, 1e-3])
def test_under_a_tight_budget_what_the_review_calls_exact_is_exact(budget):
    # docs/records.md: dd_values where the position "can be solved exactly within the budget";
    # a budget too short may leave them out, but what is there must be the exact values
    mm = Minimax()
    cases = CASES[:: 6 if TWIN_RUN else 2]
    for case in cases:
        start = endgame(*case)
        final = line(start, mm, "random", random.Random(case[2]))
        r = review(final, time_limit=budget)
        for i, (p, s, move) in enumerate(zip(r.plays, positions(final), moves_of(final), strict=True)):
            exact = mm.moves(s)
            assert p.reviewed and set(p.values) == set(exact)
            assert p.loss >= 0 and p.mark == expected_mark(p.loss)
            if p.dd_values is not None:
                assert dict(p.dd_values) == exact, (case, i)
                best = max(exact.values())
                assert p.dd_loss == best - exact[move] and exact[p.dd_best] == best
            else:
                assert p.dd_best is None and p.dd_loss is None
        check_summary(r, start.rules.players)


@pytest.mark.parametrize("cut", [0, 2, 5])
def test_a_review_cut_short_values_the_plays_before_the_cut_as_the_minimax_does(cut):
    # docs/records.md: the play a limit cuts short and those after it are left out, reviewed false,
    # best the move played, values the move at 0, loss 0, no exact values, mark or reason
    start = endgame("scopone_scientifico", {}, 7, 3)
    mm = Minimax()
    final = line(start, mm, "worst", random.Random(7))
    flag = scopa.StopFlag()
    r = review(
        final,
        time_limit=TIME,
        limit=scopa.Limit(stop=flag),
        progress=lambda done, _: done >= cut and flag.set(),
    )
    if cut == 0:
        flag.set()
        r = review(final, time_limit=TIME, limit=scopa.Limit(stop=flag))
    moves = moves_of(final)
    assert len(r.plays) == len(moves)
    for i, (p, s, move) in enumerate(zip(r.plays, positions(final), moves, strict=True)):
        if i < cut:
            check_play(p, s, i, move, mm)
        else:
            assert not p.reviewed and (p.hand, p.play, p.seat, p.team) == (0, i, s.turn, s.team_to_move)
            assert p.move == p.best == move and dict(p.values) == {move: 0.0} and p.loss == 0
            assert (p.dd_values, p.dd_best, p.dd_loss, p.mark, p.reason) == (None,) * 5
    summary = r.summary()
    assert summary["hands_reviewed"] == (1 if cut else 0)
    for key, who in (("seats", lambda p: p.seat), ("teams", lambda p: p.team)):
        for i, row in enumerate(summary[key]):
            mine = [p for p in r.plays[:cut] if who(p) == i]
            assert row["plays"] == len(mine) and row["dd_plays"] == len(mine)
            assert row["loss"] == pytest.approx(sum(p.loss for p in mine), abs=1e-4)
            assert row["dd_loss"] == sum(p.dd_loss for p in mine)
