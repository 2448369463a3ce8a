"""Matches (RULES §5), random playouts, simulation of whole hands, the loaded core."""

from __future__ import annotations

import copy
import doctest
import importlib
import json
import math
import os
import pickle
import pkgutil
import random
import re

import numpy as np
import pytest
from conftest import TWIN_RUN

import scopa
import scopa_core
from scopa import Match, Rules, State

# ---------------------------------------------------------------- matches, RULES §5


def first_move(state: State) -> scopa.Move:
    return state.legal_moves()[0]


@pytest.mark.parametrize("game", scopa.PRESETS)
def test_match_plays_to_the_target(game):
    m = Match(Rules.preset(game, target=5), seed=3)
    dealers = [m.dealer]
    hands = 0
    while not m.is_over:
        before = len(m.history)
        m.play(first_move(m.state))
        if len(m.history) > before and not m.is_over:
            dealers.append(m.dealer)
        hands = len(m.history)
    a, b = m.scores
    assert max(a, b) >= 5 and a != b and m.winner == (0 if a > b else 1)
    assert (a, b) == tuple(sum(h.points[t] for h in m.history) for t in (0, 1))
    # RULES §5: the dealer moves one seat on after each hand.
    n = m.rules.players
    assert all(dealers[i + 1] == (dealers[i] + 1) % n for i in range(len(dealers) - 1))
    assert hands == len(dealers)
    with pytest.raises(scopa.IllegalMoveError, match="the match is over"):
        m.play("7d")


def test_match_continues_while_level():
    # RULES §5: level at or over the target -> more hands until one leads.
    m = Match(Rules.preset("scopa", target=1), seed=0)
    m._scores = (3, 3)  # as if both reached the target level in one hand
    assert not m.is_over and m.winner is None
    m._scores = (4, 3)
    assert m.is_over and m.winner == 0


def test_match_is_reproducible_and_validates():
    a, b = Match("scopa", seed=11), Match("scopa", seed=11)
    assert a.play_out(first_move) == b.play_out(first_move) and a.scores == b.scores
    with pytest.raises(scopa.PositionError, match="bad dealer 2"):
        Match("scopa", seed=1, dealer=2)
    m = Match("scopa", seed=1, dealer=1)
    assert m.dealer == 1 and m.state.turn == 0
    before = m.state
    with pytest.raises(scopa.InvalidMoveError, match="'Kx'"):
        m.play("Kx")  # unparseable notation is also refused
    assert m.state is before and m.history == ()


def finished_hands(m: Match, n: int) -> Match:
    while len(m.hands) < n:
        m.play(first_move(m.state))
    return m


def test_match_json_deals_must_be_the_seeds():
    # RULES §5: hand i is dealt by the dealer in turn, from the seed and i (Match._deal)
    m = finished_hands(Match(Rules.preset("scopa", target=100), seed=1), 1)
    js = m.to_json()
    forged = dict(js, position=State.deal("scopa", seed=999, dealer=m.dealer).to_dict())
    with pytest.raises(scopa.PositionError, match="hand 2's deal .* is not the one seed 1 deals for it"):
        Match.from_json(forged)
    other = finished_hands(Match(Rules.preset("scopa", target=100), seed=2, dealer=m.first_dealer), 1)
    swapped = dict(js, hands=other.to_json()["hands"])  # a valid hand, its plays and points
    del swapped["scores"]
    with pytest.raises(scopa.PositionError, match="hand 1's deal .* is not the one seed 1 deals for it"):
        Match.from_json(swapped)
    assert Match.from_json(js).to_json() == js


def test_a_match_without_seed_or_first_dealer_takes_its_first_hands_dealer():
    # Match.from_json: without a seed any deal by the dealer in turn is accepted (RULES §5),
    # the first dealer read from the first hand, not drawn at random
    for game in ("scopa", "scopa4"):
        m = finished_hands(Match(Rules.preset(game, target=100), seed=42), 1)
        m.play(first_move(m.state))
        js = m.to_json()
        for key in ("seed", "first_dealer", "dealer"):
            del js[key]
        current = {k: js[k] for k in ("format", "version", "rules", "position")}
        current["position"] = finished_hands(
            Match(Rules.preset(game, target=100), seed=42), 0
        ).state.to_dict()
        for _ in range(12):
            back = Match.from_json(js)
            assert back.first_dealer == m.first_dealer and back.state == m.state
            assert Match.from_json(current).first_dealer == m.first_dealer
            as_text = dict(current, position=json.dumps(current["position"]))  # (a position as JSON text)
            assert Match.from_json(as_text).first_dealer == m.first_dealer


def test_match_json_replays_each_play_once(monkeypatch):
    # match_play sends the whole match back each time: each finished hand is read and
    # replayed once, the current hand's history once (by its position)
    m = finished_hands(Match(Rules.preset("scopa", target=100), seed=3), 3)
    m.play(first_move(m.state))
    js = m.to_json()
    plays = sum(len(h["plays"]) for h in js["hands"]) + len(m.state.history)
    calls = []  # (every play is made by the core's apply_move: through State._after, or by
    # State._replay, which replays a position's JSON history without a State made each play)
    import scopa_core

    real = scopa_core.apply_move
    monkeypatch.setattr(scopa_core, "apply_move", lambda *args: calls.append(args[1:3]) or real(*args))
    parses = []
    real_parse = State.from_string
    monkeypatch.setattr(State, "from_string", lambda text: parses.append(text) or real_parse(text))
    assert Match.from_json(js).to_json() == js
    assert len(calls) == plays and plays == 3 * 36 + 1
    assert len(parses) == 3 + 1  # each hand's deal, the current hand's deal


def test_a_match_without_a_seed_takes_any_deal_and_deals_the_next_from_a_seed_it_writes():
    # Without a seed any deal by the dealer in turn is accepted; a seed is drawn for the hands
    # after the current one and written with seed_from, the first hand it deals. (A protocol
    # review: the JSON left the seed out, so each request that sent such a match back dealt its
    # next hand from a seed drawn anew: the same match_play gave other cards each time.)
    m = finished_hands(Match(Rules.preset("scopa", target=100), seed=1), 1)
    other = finished_hands(Match(Rules.preset("scopa", target=100), seed=2, dealer=m.first_dealer), 1)
    js = dict(m.to_json(), hands=other.to_json()["hands"], scores=list(other.scores))
    del js["seed"]
    back = Match.from_json(js)
    assert back.scores == other.scores and back.seed_from == 2
    assert back.to_json()["seed"] == back.seed and back.to_json()["seed_from"] == 2
    assert Match.from_json(back.to_json()) == back  # and it reads back, going on alike
    finished_hands(back, 2)  # (the current hand played out: the next is the seed's)
    assert back.state.origin == back._deal(2) and Match.from_json(back.to_json()) == back
    # a match resumed from a record of other deals: the same
    resumed = Match.from_record(other.record(), seed=5)
    assert resumed.seed == 5 and resumed.seed_from == 1 and resumed.to_json()["seed_from"] == 1
    assert Match.from_json(resumed.to_json()) == resumed and resumed.state.origin == resumed._deal(1)
    # resumed with the seed that dealt the record, it keeps its seed from the first hand
    same = Match.from_record(m.record(), seed=1)
    assert same.to_json() == m.to_json() and same.seed_from == 0 and "seed_from" not in m.to_json()
    # seed_from: an int in 0..MAX_HANDS, with a seed; the hands from it on are the seed's
    js = resumed.to_json()
    for bad, message in (
        ({"seed_from": -1}, f"bad match: seed_from -1: expected an int in 0..{scopa.match.MAX_HANDS}$"),
        ({"seed_from": True}, "bad match: seed_from True"),
        ({"seed_from": 1, "seed": None}, "bad match: seed_from 1 without a seed"),
        ({"seed_from": 0}, "bad match: hand 1's deal .* is not the one seed 5 deals for it"),
    ):
        with pytest.raises(scopa.PositionError, match=message):
            Match.from_json({**js, **bad})


def test_match_json_numbers_are_ints_and_bad_input_is_quoted():
    m = finished_hands(Match(Rules.preset("scopa", target=100), seed=1), 1)
    js = m.to_json()
    for key, value in (
        ("scores", [float(x) for x in m.scores]),
        ("hands_played", True),
        ("dealer", float(m.dealer)),
        ("winner", False),
        ("target", 100.0),
    ):
        with pytest.raises(scopa.PositionError, match=f"{key} {re.escape(repr(value))}"):
            Match.from_json(dict(js, **{key: value}))
    with pytest.raises(scopa.PositionError, match=r"a match must be a JSON object, got \[1\]"):
        Match.from_json([1])  # type: ignore[arg-type]
    with pytest.raises(scopa.PositionError, match="'hands' must be a list of finished hands, got 'x'"):
        Match.from_json(dict(js, hands="x"))
    # (an engine audit: a position string said "position '...' is not valid JSON")
    text = m.state.to_string()
    expected = r"bad match position '.*': expected a JSON position object \(or its text\), not a position"
    with pytest.raises(scopa.PositionError, match=expected):
        Match.from_json(dict(js, position=text))


@pytest.mark.skipif(TWIN_RUN, reason="slow on the twin (the limit is tested with a small one too)")
def test_a_match_of_more_than_1000_hands_reads_back():
    # RULES §5: a match to the highest target takes thousands of hands (here 1001, about 1 s)
    m = finished_hands(Match(Rules.preset("scopa", target=scopa.rules.MAX_TARGET), seed=1), 1001)
    assert Match.from_json(m.to_json()).to_json() == m.to_json()
    # RULES §4: every hand gives at least the settebello's point, so a match reaches the highest
    # target within 2 * MAX_TARGET - 1 hands; MAX_HANDS leaves room for level hands beyond
    assert scopa.match.MAX_HANDS > 2 * scopa.rules.MAX_TARGET - 1
    assert all(sum(h.points) >= 1 for h in m.history)


def test_a_match_level_after_max_hands_stops_there(monkeypatch):
    # RULES §5 plays on while level; a match holds at most MAX_HANDS hands, then stops
    monkeypatch.setattr(scopa.match, "MAX_HANDS", 2)
    m = Match(Rules.preset("scopa", target=100), seed=1)
    m.play(first_move(m.state))
    js = dict(m.to_json(), hands=[{}, {}, {}])
    with pytest.raises(
        scopa.PositionError, match=r"a match of 3 hands: a match holds at most 2 \(scopa.match"
    ):
        Match.from_json(js)
    finished_hands(m, 1)
    while not m.state.is_over:
        _, events = m.play_events(first_move(m.state))
    assert len(m.hands) == 2 and not m.is_over and m.state is m.hands[-1]
    assert events[-1].type == "hand_over"  # and no next deal
    with pytest.raises(
        scopa.IllegalMoveError, match=r"after 2 hands, the most a match holds \(.*MAX_HANDS = 2\)"
    ):
        m.play("7d")
    # play_out says so too, without asking for a move in the hand over (it asked: the user's
    # function met a finished hand, an IndexError from legal_moves()[0] here)
    asked = []
    with pytest.raises(scopa.IllegalMoveError, match=r"after 2 hands, the most a match holds"):
        m.play_out(lambda s: asked.append(s) or s.legal_moves()[0])
    assert asked == []
    back = Match.from_json(m.to_json())
    assert back.to_json() == m.to_json() and back.state == m.state
    resumed = Match.from_record(m.record(), seed=1)
    assert resumed.to_json() == m.to_json()
    last = m.hands[-1]
    m.undo()
    assert len(m.hands) == 1 and m.state == last.undo()


# ---------------------------------------------------------------- playouts


@pytest.mark.parametrize("game", scopa.PRESETS)
def test_random_playouts(game):
    n = 300 if TWIN_RUN else 5000
    p = scopa.random_playouts(game, n, seed=5)
    assert p.points.shape == (n, 2) and (p.points == p.breakdown.sum(axis=2)).all()
    means = p.mean_points()
    assert set(means) == set(scopa.CATEGORIES) | {"total"}
    # Each hand hands out settebello exactly once; carte/denari/primiera at most once.
    assert means["settebello"][0] + means["settebello"][1] == pytest.approx(1.0)
    assert (
        scopa.random_playouts(game, 50, seed=9).points == scopa.random_playouts(game, 50, seed=9).points
    ).all()
    # equal when their rules and arrays are; unhashable, as the arrays they hold
    assert scopa.random_playouts(game, 50, seed=9) == scopa.random_playouts(game, 50, seed=9)
    assert scopa.random_playouts(game, 50, seed=9) != scopa.random_playouts(game, 50, seed=8) != p
    with pytest.raises(TypeError, match="unhashable"):
        hash(p)
    # read-only (a researcher's audit: p.points[:] = 0 changed the result, its repr and
    # equality); arrays given by hand stay writable, the result's views not
    for array in (p.points, p.breakdown):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 0
        with pytest.raises(ValueError, match="read-only"):  # (nor the array under it: an API audit)
            array.base[0] = 0
    given = p.points.copy()
    made = scopa.simulate.Playouts(p.rules, given, p.breakdown.copy())
    assert made == p and not made.points.flags.writeable and given.flags.writeable
    # (its copies and pickles too: a review of the change found them writable)
    import copy
    import pickle

    for again in (pickle.loads(pickle.dumps(p)), copy.deepcopy(p), copy.copy(p)):
        assert again == p and not again.points.flags.writeable and not again.breakdown.flags.writeable


def test_random_playouts_errors():
    with pytest.raises(scopa.ScopaError, match="bad number of hands -1"):
        scopa.random_playouts("scopa", -1)
    with pytest.raises(scopa.ScopaError, match="bad seed"):
        scopa.random_playouts("scopa", 1, seed=-1)


def test_playouts_of_no_hands_have_no_mean_and_say_nothing(recwarn):
    # a researcher's audit: mean_points() of 0 hands warned "Mean of empty slice" (NumPy's
    # RuntimeWarning) on its way to NaN; the repr says no mean
    p = scopa.random_playouts("scopa", 0, seed=1)
    means = p.mean_points()
    assert set(means) == {*scopa.CATEGORIES, "total"}
    assert all(math.isnan(x) for v in means.values() for x in v)
    assert not recwarn.list and repr(p) == "<Playouts of 0 hands, rules 'scopa'>"


def test_playouts_built_by_hand_are_checked():
    # (Playouts("scopa", [1], [2]) was taken: its repr and mean_points() a TypeError of list indices)
    rules, cats = Rules.preset("scopa"), len(scopa.CATEGORIES)
    points, breakdown = np.zeros((3, 2), np.int16), np.zeros((3, 2, cats), np.int16)
    assert scopa.Playouts(rules, points, breakdown).mean_points()["total"] == (0.0, 0.0)
    # each team's means are its own column's (mutation testing: the total's columns swapped)
    b = np.zeros((2, 2, cats), np.int16)
    b[0, 0, 0], b[1, 0, 0], b[1, 1, 1], b[0, 0, cats - 1] = 1, 1, 1, 3  # (hand 0: 4 to 0; hand 1: 1 to 1)
    two = scopa.Playouts(rules, b.sum(axis=2), b)
    means = two.mean_points()
    assert means["total"] == (2.5, 0.5)
    assert means[scopa.CATEGORIES[0]] == (1.0, 0.0) and means[scopa.CATEGORIES[1]] == (0.0, 0.5)
    assert means[scopa.CATEGORIES[-1]] == (1.5, 0.0)
    # a Playouts is never equal to what is not one (False, not None)
    assert (two == 5) is False and (two != "scopa") is True and two.__eq__(5) is NotImplemented
    for args, message in [
        (("scopa", points, breakdown), "bad rules 'scopa': expected a scopa.Rules"),
        ((rules, [1], breakdown), r"bad points: expected a numpy array of ints of shape \(n, 2\), got \[1\]"),
        ((rules, points.astype(float), breakdown), r"got an array of float64 of shape \(3, 2\)"),
        ((rules, points, breakdown[:2]), rf"bad breakdown: .*\(3, 2, {cats}\) .*got an array of int16"),
        ((rules, points, [2]), r"bad breakdown: .*got \[2\]"),
    ]:
        with pytest.raises(scopa.OptionError, match=message):
            scopa.Playouts(*args)


# ---------------------------------------------------------------- simulation through the Python API


@pytest.mark.parametrize("game", scopa.PRESETS)
def test_simulated_hands_end_in_valid_terminal_states(game):
    rules = Rules.preset(game)
    rnd = random.Random(game)
    hands = 40 if TWIN_RUN else 400
    for _ in range(hands):
        s = State.deal(rules, seed=rnd.getrandbits(64), dealer=rnd.randrange(rules.players))
        plays = 0
        while not s.is_over:
            moves = s.legal_moves()
            assert moves, "a seat with cards always has a legal move"
            s = s.play(rnd.choice(moves))
            plays += 1
        assert plays == 40 - rules.table_size
        assert s.table == set() or s.last_capture is None
        assert len(s.captured[0]) + len(s.captured[1]) + len(s.table) == 40
        sc = s.score()
        assert sum(sc.cards) == 40 - len(s.table) and sc.settebello in ((1, 0), (0, 1))
        assert sc.points == tuple(sum(v[t] for v in sc.breakdown.values()) for t in (0, 1))


# ---------------------------------------------------------------- the loaded core


def test_compiled_core_is_loaded_unless_disabled():
    # A broken build must never hide behind the twin.
    expected = "python" if os.environ.get("SCOPA_NO_EXTENSIONS", "") not in ("", "0") else "cython"
    assert scopa_core.IMPLEMENTATION == expected == scopa.CORE_IMPLEMENTATION
    if expected == "cython":
        assert scopa_core._impl.__file__.endswith((".so", ".pyd"))


def test_all_public_names_exist():
    for name in scopa.__all__:
        assert hasattr(scopa, name), name
    for name in scopa_core.__all__:
        assert hasattr(scopa_core, name), name
    # what the documentation names as a module's API is in its __all__ (format_text, an export
    # of formats.md's table; level_names, in scopa.players' __all__ but not its module's;
    # thread_pool, of the batch tutorial: none was)
    from scopa import batch
    from scopa.players import levels

    review_module = importlib.import_module("scopa.review")  # (scopa.review is the function)
    for module, name in ((review_module, "format_text"), (levels, "level_names"), (batch, "thread_pool")):
        assert name in module.__all__ and hasattr(module, name), (module.__name__, name)


def _modules():
    mods = [importlib.import_module(m.name) for m in pkgutil.walk_packages(scopa.__path__, "scopa.")]
    # the core's Python modules, the twin's parts and the checks: documented too (an audit
    # found a wrong example in _twin_moves, rendered on the API page, never run)
    core = [importlib.import_module(m.name) for m in pkgutil.iter_modules(scopa_core.__path__, "scopa_core.")]
    return [scopa, scopa_core, *(m for m in core if m.__name__ != "scopa_core._core"), *mods]


@pytest.mark.parametrize("module", _modules(), ids=lambda m: m.__name__)
def test_doctests(module):
    # The docstrings' examples are part of the documentation: they must run.
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0


def test_numpy_results_are_arrays():
    p = scopa.random_playouts("scopa", 3, seed=1)
    assert isinstance(p.points, np.ndarray) and p.breakdown.shape == (3, 2, len(scopa.CATEGORIES))


def test_falls_back_to_the_twin_with_a_warning():
    # A missing or broken extension: the twin is used, with a RuntimeWarning that says so.
    import subprocess
    import sys

    code = (
        "import importlib.abc, sys, warnings\n"
        "class Block(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name == 'scopa_core._core':\n"
        "            raise ImportError('blocked for the test')\n"
        "sys.meta_path.insert(0, Block())\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    import scopa\n"
        "print(scopa.CORE_IMPLEMENTATION, [str(x.message) for x in w if x.category is RuntimeWarning])\n"
        "print(scopa.solve(scopa.State.from_string('scopa 7d/Kc 3c4s - -/- 0/0 0 - -')).value)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "SCOPA_NO_EXTENSIONS"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.splitlines()
    assert first.startswith("python [") and "blocked for the test" in first and "pure-Python twin" in first
    assert second == "4"


def test_a_drawn_seed_is_one_javascript_holds_exactly():
    # The browser app sends the match back as JSON: a seed above 2**53 came back rounded, and
    # the match was refused at its first play (a deal not the seed's).
    seeds = [scopa.Match("scopa").seed for _ in range(200)]
    assert all(0 <= s < 2**53 for s in seeds) and len(set(seeds)) == 200


def test_a_copied_match_goes_on_apart_and_its_events_are_event_types():
    # An audit: copy.copy shared the lists of hands, and a hand finished on the copy broke the
    # original (its JSON no longer loaded); the match's own events (deal, match_over) were not
    # in EVENT_TYPES (RULES §5: the dealer moves on, the match ends at the target)
    import copy

    m = Match(Rules.preset("scopa", target=1), seed=3)
    while sum(len(h) for h in m.state.hands) + len(m.state.stock) > 1:
        m.play(first_move(m.state))
    before = m.to_json()
    for c in (copy.copy(m), m.copy()):
        _, events = c.play_events(first_move(c.state))
        assert len(c.hands) == 1 and c.is_over and {e.type for e in events} >= {"hand_over", "match_over"}
        assert all(e.type in scopa.events.EVENT_TYPES for e in events)
        assert m.to_json() == before and Match.from_json(m.to_json()).to_json() == before
    longer = Match(Rules.preset("scopa", target=21), seed=3)
    while len(longer.hands) < 1:
        _, events = longer.play_events(first_move(longer.state))
    assert events[-1].type == "deal" and "deal" in scopa.events.EVENT_TYPES

    class Mine(Match):
        pass

    assert type(copy.copy(Mine("scopa", seed=1))) is Mine is type(Mine("scopa", seed=1).copy())


@pytest.mark.parametrize(
    "rules",
    [
        Rules.preset("scopa", target=11),
        Rules.preset("scopone_scientifico", target=16, re_bello=True, napola=True),
        Rules.preset("scopa4", target=11, napola=True, ace_takes_all=True),
    ],
    ids=["scopa", "scientifico-re_bello-napola", "scopa4-napola-ace"],
)
def test_events_and_hand_scores_read_back_from_their_json(rules):
    # the open list: HandScore and Event had to_json and no from_json (RULES §4, §5, §7)
    rng = random.Random(7)
    seen_types, scores = set(), []
    for seed in range(3):
        m = Match(rules, seed=seed)
        while not m.is_over:
            moves = m.state.legal_moves()
            _, events = m.play_events(moves[rng.randrange(len(moves))])
            for e in events:
                seen_types.add(e.type)
                back = scopa.events.Event.from_json(json.loads(json.dumps(e.to_json())))
                assert back == e and back.to_json() == e.to_json()
        scores += m.history
    assert seen_types >= {"capture", "lay_down", "hand_over", "match_over", "deal", "table_to_last_capturer"}
    for s in scores:
        for shown in (s.to_json(rules), s.to_json()):
            back = scopa.HandScore.from_json(json.loads(json.dumps(shown)))
            assert back == s and back.points == s.points
    if rules.re_bello:  # (the king of coins ends in a pile every hand: its JSON round trip is seen)
        assert all(s.re_bello != (0, 0) for s in scores)


def test_bad_event_and_hand_score_json_is_refused_naming_the_field():
    good = scopa.HandScore.from_piles(Rules.preset("scopa"), ["7d", "7c", "7s", "6b"], ["Ad"], scope=(1, 0))
    js = good.to_json(Rules.preset("scopa"))

    def edited(**categories):
        return dict(js, categories=dict(js["categories"], **categories))

    bad_scores = [
        ("[1, 2]", [1, 2]),
        ("unknown score categories 'bonus'", edited(bonus={"points": [1, 0]})),
        ("bad carte", edited(carte={"points": [1, 0]})),  # (its cards count missing)
        ("bad carte [1, 1]: one team at most", edited(carte={"points": [1, 1], "cards": [20, 20]})),
        (
            "bad cards [30, 30]: the two teams have at most 40",
            edited(carte={"points": [1, 0], "cards": [30, 30]}),
        ),
        ("bad coins [True, 0]", edited(denari={"points": [1, 0], "coins": [True, 0]})),
        ("bad primiera_totals [85, None]", edited(primiera={"points": [1, 0], "totals": [85, None]})),
        ("its count and its points differ", edited(scope={"points": [1, 0], "count": [2, 0]})),
        ("bad napola [2, 0]", edited(napola={"points": [2, 0]})),
        # null is no category: left out, a rule's category scores nothing; null is refused as
        # every other category's is (it was read as left out: the open list)
        ("bad napola None: expected an object with the keys 'points', or napola left", edited(napola=None)),
        ("bad re_bello None", edited(re_bello=None)),
        ("bad carte None: expected an object with the keys 'points', 'cards'", edited(carte=None)),
        ("bad points [5, 0]: the categories sum to [4, 0]", dict(js, points=[5, 0])),
        ("expected the keys 'points' and 'categories', not 'extra'", dict(js, extra=1)),
    ]
    for message, obj in bad_scores:
        with pytest.raises(scopa.PositionError, match=re.escape(message)):
            scopa.HandScore.from_json(obj)
    with pytest.raises(scopa.PositionError, match=re.escape("bad scope (1, 21)")):
        scopa.HandScore(**dict(good.__dict__, scope=(1, 21)))
    bad_events = [
        ("bad event type 'sweep'", {"type": "sweep"}),
        ("bad event {'count': 3, 'seat': 1}: no 'type': expected one of capture,", {"seat": 1, "count": 3}),
        ("bad scopa event: its seat is missing", {"type": "scopa", "team": 0}),
        ("bad deal event: a deal event has no team (got 1)", {"type": "deal", "seat": 0, "team": 1}),
        ("unknown field 'when'", {"type": "deal", "seat": 0, "when": 3}),
        ("unknown fields 'at', 'when'", {"type": "deal", "seat": 0, "when": 3, "at": 1}),
        ("bad deal event's seat 4: expected a seat in 0..3", {"type": "deal", "seat": 4}),
        ("bad hand_over event's points (1, -1)", {"type": "hand_over", "points": [1, -1]}),
        ("bad refill event's count 0", {"type": "refill", "seat": 1, "count": 0}),
        (
            "bad lay_down event: a lay_down event has no cards (got CardSet.parse('3c'))",
            {"type": "lay_down", "seat": 0, "team": 0, "card": "7d", "cards": ["3c"]},
        ),
        ("bad lay_down event: its card is missing", {"type": "lay_down", "seat": 1, "team": 1}),
        (
            "bad table_to_last_capturer event's cards CardSet.parse('')",
            {"type": "table_to_last_capturer", "team": 0, "cards": []},
        ),
        (
            "bad capture event's card 7",
            {"type": "capture", "seat": 0, "team": 0, "card": 7, "cards": ["3c", "4s"]},
        ),
    ]
    bad_events += [
        (
            "bad capture event's team 1: seat 0 plays for team 0",
            {"type": "capture", "seat": 0, "team": 1, "card": "7d", "cards": ["7c"]},
        ),
        (
            "bad capture event: its card 7d is among the cards it takes",
            {"type": "capture", "seat": 0, "team": 0, "card": "7d", "cards": ["7d"]},
        ),
    ]  # (a review)
    bad_events += [  # (mutation testing: the bounds' far ends, a JSON value that is no object)
        (
            "bad match_over event's team 2: expected 0 or 1",
            {"type": "match_over", "team": 2, "points": [11, 3]},
        ),
        ("bad refill event's count 11: expected an int in 1..10", {"type": "refill", "seat": 1, "count": 11}),
        # RULES §5: the winner has more points (a winner behind, or level, was taken; an audit)
        (
            "bad match_over event: team 0 wins with 3 points to 11: expected the winner to have more",
            {"type": "match_over", "team": 0, "points": [3, 11]},
        ),
        (
            "bad match_over event: team 1 wins with 11 points to 11",
            {"type": "match_over", "team": 1, "points": [11, 11]},
        ),
        ("bad event [1, 2]: expected an object with a 'type'", [1, 2]),
        ("bad event 'scopa': expected an object with a 'type'", '"scopa"'),
    ]
    for message, obj in bad_events:
        with pytest.raises(scopa.OptionError, match=re.escape(message)):
            scopa.events.Event.from_json(obj)
    with pytest.raises(scopa.CardError, match="Zz"):
        scopa.events.Event.from_json({"type": "capture", "seat": 0, "team": 0, "card": "Zz", "cards": ["3c"]})
    # each range's ends are taken: a refill of 1 card (the stock's last) or 10, team 1
    for obj in (
        {"type": "refill", "seat": 3, "count": 1},
        {"type": "refill", "seat": 0, "count": 10},
        {"type": "match_over", "team": 1, "points": [3, 11]},
    ):
        assert scopa.events.Event.from_json(obj).to_json() == obj


def test_a_hand_score_built_by_hand_keeps_each_figure_in_the_range_a_hand_allows():
    # RULES §4 and §7: carte, denari, re_bello score at most 1 point a team, napola 0 or 3..10,
    # counts and primiera totals are never negative; a score built by hand (or read from JSON)
    # outside those ranges is refused naming the field (mutation testing: each bound was loose)
    good = scopa.HandScore.from_piles(Rules.preset("scopa"), ["7d", "7c", "7s", "6b"], ["Ad"], scope=(1, 0))
    bad = [
        ("bad carte (2, 0)", {"carte": (2, 0)}),
        ("bad denari (2, 0)", {"denari": (2, 0)}),
        ("bad re_bello (2, 0)", {"re_bello": (2, 0)}),
        ("bad napola (1, 0)", {"napola": (1, 0)}),
        ("bad cards (-1, 1)", {"cards": (-1, 1)}),
        ("bad primiera_totals (-1, None)", {"primiera_totals": (-1, None)}),
        ("bad primiera_totals 81", {"primiera_totals": 81}),
    ]
    for message, fields in bad:
        with pytest.raises(scopa.PositionError, match=re.escape(message)):
            scopa.HandScore(**dict(good.__dict__, **fields))
    # the totals given as NumPy's ints are read as the ints they are
    again = scopa.HandScore(**dict(good.__dict__, primiera_totals=(np.int64(81), None)))
    assert again == good and type(again.primiera_totals[0]) is int


def test_a_hand_score_tells_each_team_its_lead_and_reads_back_its_extremes():
    # RULES §4: team 0 takes settebello, primiera, carte and a scopa, team 1 nothing; the
    # difference is seen from team 0 unless another team is named (mutation testing: it was only
    # checked on a drawn score, where every difference is 0)
    s = scopa.HandScore.from_piles(Rules.preset("scopa"), ["7d", "7c", "7s", "6b"], ["Ad"], scope=(1, 0))
    assert s.points == (4, 0)
    assert s.difference() == s.difference(0) == 4 and s.difference(1) == -4
    # RULES §4 (primiera_requires_all_suits=False): an empty pile's total is 0, not None
    free = Rules.preset("scopa", primiera_requires_all_suits=False)
    deck = [str(c) for c in scopa.card.DECK]
    assert scopa.HandScore.from_piles(free, deck, []).primiera_totals == (84, 0)
    assert scopa.HandScore.from_piles(free, [], deck).primiera_totals == (0, 84)
    # Scopone scientifico deals no table cards: a team can make 20 scope in a hand, which the
    # score's JSON reads back (RULES §2, §4)
    sci = Rules.preset("scopone_scientifico")
    most = scopa.HandScore.from_piles(sci, deck[:20], deck[20:], scope=(20, 0))
    assert scopa.HandScore.from_json(json.loads(json.dumps(most.to_json(sci)))) == most


def test_matches_are_equal_when_they_would_go_on_alike():
    # the open list: Match had no __eq__ (a match read back from its JSON was not equal to it);
    # RULES §5: the deals to come are the seed's, so the seed is part of what is compared
    m = Match("scopa", seed=3)
    assert Match.from_json(m.to_json()) == m == m.copy() and m != Match("scopa", seed=4)
    assert m != Match(Rules.preset("scopa", target=21), seed=3) and m != m.state and m != "x"
    played = m.copy()
    played.play(first_move(played.state))
    assert played != m and Match.from_json(played.to_json()) == played
    m.play(first_move(m.state))
    assert played == m
    with pytest.raises(TypeError, match="unhashable"):
        hash(m)


def test_a_match_changes_only_by_its_own_methods():
    m = Match("scopa", seed=5)
    finished_hands(m, 1)
    for name, value in (("rules", Rules.preset("scopone")), ("seed", 6), ("first_dealer", 1)):
        with pytest.raises(AttributeError):
            setattr(m, name, value)
    assert m.rules == Rules.preset("scopa") and m.seed == 5
    assert isinstance(m.history, tuple) and isinstance(m.hands, tuple) and len(m.hands) == 1
    with pytest.raises(AttributeError):
        m.history.pop()  # type: ignore[attr-defined]
    back = Match.from_json(m.to_json())
    assert back == m and back.history == m.history and back.hands == m.hands
    assert pickle.loads(pickle.dumps(m)) == m and copy.copy(m) == m


def test_play_returns_the_new_current_state():
    m = Match("scopa", seed=8)
    for _ in range(40):  # (past the first hand's end: the next hand's deal is returned)
        assert m.play(m.state.legal_moves()[0]) is m.state
    assert len(m.hands) == 1 and m.state.history != ()


def test_a_match_json_without_seed_or_first_dealer_reads_the_first_dealer_from_its_first_hand():
    # RULES §5: the dealer moves on each hand; a match saved without them (a client that dropped
    # both) is dealt by its first hand's dealer, not by its last one's
    m = finished_hands(Match("scopa", seed=7), 2)
    assert [h.dealer for h in m.hands] == [0, 1]
    bare = {k: v for k, v in m.to_json().items() if k not in ("seed", "first_dealer")}
    back = Match.from_json(bare)
    assert back.first_dealer == 0 and back.hands == m.hands and back.state == m.state


def test_play_out_refuses_what_is_not_a_function_before_any_play():
    m = Match("scopa", seed=9)
    with pytest.raises(scopa.OptionError, match="bad choose 'first': expected a function"):
        m.play_out("first")  # type: ignore[arg-type]
    assert m.state.history == () and m.hands == ()


def test_play_out_keeps_the_plays_made_before_choose_fails_and_undo_takes_them_back():
    # (its docstring: each play is made as play() makes it; the error propagates)
    m = Match("scopa", seed=9)
    asked: list[State] = []

    def choose(s: State) -> str:
        asked.append(s)
        if len(asked) == 4:
            return str(min(s.hands[1 - s.turn]))  # (a card of the other hand)
        return str(s.legal_moves()[0])

    with pytest.raises(scopa.IllegalMoveError):
        m.play_out(choose)
    assert len(m.state.history) == 3 and m.state == asked[-1]
    for _ in range(3):
        m.undo()
    assert m.state == asked[0] and m.state.history == ()

    def fails(s: State) -> str:
        raise KeyError("the player's own error")

    with pytest.raises(KeyError, match="own error"):
        m.play_out(fails)
    assert m.state == asked[0]


def test_a_match_jsons_position_is_checked_against_its_hands():
    # (mutation testing of match.py: each of these was refused by a later check or a NameError)
    m = Match(Rules.preset("scopa", target=1), seed=3)
    while not m.is_over:
        m.play(m.state.legal_moves()[0])
    j = m.to_json()
    without = {k: v for k, v in j.items() if k != "position"}
    for obj, message in [
        (without, "match lacks its 'position' (the current hand)"),
        ({**j, "position": {"rules": "scopa"}}, "bad match position: position lacks required fields"),
        (
            {**j, "position": Match("scopa", seed=3).state.to_dict()},
            "bad match position: the match is over, so it must be the last hand's end",
        ),
    ]:
        with pytest.raises(scopa.PositionError, match=re.escape(message)):
            Match.from_json(obj)
    assert Match.from_json(j) == m


def test_a_match_changed_by_another_thread_refuses_a_play_or_an_undo_meanwhile(monkeypatch):
    # A concurrency audit: a Match played from three threads without a lock was silently broken
    # (13 of 20 could not be read back from their own to_json). A play or an undo while another
    # thread's play changes the match is refused, and the match is the other play's alone.
    import threading

    import scopa.match as module

    m = scopa.Match("scopa", seed=1)
    first = m.state.legal_moves()[0]
    inside, go = threading.Event(), threading.Event()
    real = module.play_events

    def held(state, move):  # type: ignore[no-untyped-def]
        inside.set()
        assert go.wait(30)
        return real(state, move)

    monkeypatch.setattr(module, "play_events", held)
    worker = threading.Thread(target=m.play, args=(first,))
    worker.start()
    try:
        assert inside.wait(30)
        for change in (lambda: m.play(first), m.undo, lambda: m.play_events(first)):
            with pytest.raises(scopa.OptionError, match="being changed by another thread"):
                change()
    finally:
        go.set()
        worker.join(30)
    monkeypatch.setattr(module, "play_events", real)
    assert [move for _, move in m.state.history] == [first]
    second = m.state.legal_moves()[0]
    m.play(second)  # (free again once the play is done)
    assert scopa.Match.from_json(m.to_json()).state == m.state
    m.undo()
    assert len(m.state.history) == 1


def test_a_card_laid_on_the_table_is_an_event():
    # RULES §3: a card that captures nothing is laid on the table; two app audits read
    # "events": [] for it and had to look at the move (the protocol's events come from here)
    s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    after, events = scopa.events.play(s, "Kc")
    assert [e.to_json() for e in events] == [{"type": "lay_down", "seat": 0, "team": 0, "card": "Kc"}]
    assert "Kc" in after.table
    _, taken = scopa.events.play(s, "7dx3c4s")
    assert [e.type for e in taken] == ["capture", "scopa"]  # (a capture is never a lay_down too)
    from scopa.protocol import Protocol

    reply = Protocol().handle(json.dumps({"id": 1, "cmd": "play", "position": s.to_dict(), "move": "Kc"}))
    assert reply["events"] == [{"type": "lay_down", "seat": 0, "team": 0, "card": "Kc"}], reply
