"""The value objects' serialization contract (docs/api/formats.md): reprs that paste back,
``to_json``/``from_json`` pairs that round-trip and hold to the package's JSON Schemas, text
forms that parse back, pickling and copying; properties over random games (hypothesis), on
whichever core is loaded (``SCOPA_NO_EXTENSIONS=1`` for the twin)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from scopa import (  # noqa: F401  (the reprs' names, for eval)
    Analysis,
    Annotation,
    Card,
    CardSet,
    HandRecord,
    HandScore,
    Match,
    Move,
    MoveValue,
    Rules,
    ScopaError,
    SearchInfo,
    SolveResult,
    State,
    jsonio,
)
from scopa.arena import (
    ArenaResult,  # noqa: F401
    arena,
)
from scopa.events import Event
from scopa.review import PlayReview, Review, review  # noqa: F401


@pytest.mark.parametrize(
    ("value", "named", "where"),
    [
        (float("nan"), "nan", ""),
        ({"points": [1.5, float("inf")]}, "inf", '(at ["points"][1])'),
        ([{"x": -math.inf}], "-inf", '(at [0]["x"])'),
        ({float("nan"): 1}, "nan", "(a key of the object at the top)"),
    ],
)
def test_dumps_refuses_a_non_finite_number_by_a_scopa_error_naming_it(value, named, where):
    # jsonio.dumps(float("nan")) raised json's bare ValueError ("Out of range float values are
    # not JSON compliant"), naming neither the value nor where it was
    with pytest.raises(jsonio.JSONOutputError) as info:
        jsonio.dumps(value)
    assert isinstance(info.value, ValueError)
    assert f"cannot write {named} as strict JSON {where}".replace("  ", " ").rstrip() in str(info.value)


def test_dumps_refuses_a_container_holding_itself_by_a_scopa_error():
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(jsonio.JSONOutputError, match="holds itself"):
        jsonio.dumps({"a": loop})


# ------------------------------------------------------------------ from_json's input kinds


def _examples() -> list[tuple[str, object]]:
    """One value of each class with a ``from_json``, small enough to build for every test."""
    s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    m = Match("scopa", seed=1)
    while not m.history:
        m.play(m.state.legal_moves()[0])
    hand = m.hands[0].record().annotate({0: Annotation("first", "!")})
    rv = review(s.play("Kc"), time_limit=0.5)
    return [
        ("Rules", Rules.preset("scopa", napola=True, target=21)),
        ("Rules", Rules.preset("scopone")),
        ("State", s.play("Kc")),
        ("PlayerView", s.play("Kc").view(1)),
        ("HandScore", m.history[0]),
        ("Match", m),
        ("HandRecord", hand),
        ("MatchRecord", m.record({"Event": "test"})),
        ("PlayReview", rv.plays[0]),
        ("Review", rv),
        ("ArenaResult", arena("scopa", "random", "greedy", deals=2, seed=3)),
        ("Event", Event("capture", seat=0, team=0, card=Card.parse("7d"), cards=CardSet.parse("3c 4s"))),
    ]


EXAMPLES = _examples()


def _dict_form(x: object) -> object:
    """The decoded JSON of ``x``: its ``to_json()`` (a State's text is decoded: ``to_dict()``)."""
    return x.to_dict() if isinstance(x, State) else x.to_json()  # type: ignore[attr-defined]


@pytest.mark.parametrize(("name", "x"), EXAMPLES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(EXAMPLES)])
def test_every_from_json_takes_the_object_its_text_and_its_bytes(name, x):
    # State.from_json and PlayerView.from_json took JSON text and bytes as well as the decoded
    # object; Rules, HandScore, Match, HandRecord, MatchRecord, PlayReview, Review, ArenaResult
    # and Event took the decoded object only ("a record must be a JSON object, got '{...'")
    obj = _dict_form(x)
    text = jsonio.dumps(obj)
    cls = type(x)
    for given in (obj, text, text.encode(), bytearray(text.encode()), " \n" + text):
        assert cls.from_json(given) == x, (name, type(given).__name__)


@pytest.mark.parametrize(("name", "x"), EXAMPLES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(EXAMPLES)])
def test_from_json_of_bad_text_is_its_own_error_naming_it(name, x):
    cls = type(x)
    for bad in ("{nope", b"\xff{}", b"[1, 2"):
        with pytest.raises(ScopaError) as info:
            cls.from_json(bad)
        assert type(info.value) is not ScopaError and ("nope" in str(info.value) or "b'" in str(info.value))


# ------------------------------------------------------------------ NumPy's integers


def _ints_in(x: object) -> list[object]:
    """Every number a value's fields hold (through tuples, lists and dicts), to check their types."""
    if isinstance(x, (bool, str)) or x is None:
        return []
    if isinstance(x, (int, float)) or type(x).__module__ == "numpy":
        return [x]
    if isinstance(x, dict):
        return [n for k, v in x.items() for n in (*_ints_in(k), *_ints_in(v))]
    if isinstance(x, (tuple, list)):
        return [n for v in x for n in _ints_in(v)]
    if dataclasses.is_dataclass(x):
        return [n for f in dataclasses.fields(x) for n in _ints_in(getattr(x, f.name))]
    return []


def test_numpy_integers_are_read_as_ints_by_every_value_built_by_hand():
    # a researcher's figures are often NumPy's: each constructor below refused np.int64(3)
    # where it took 3 ("bad value np.int64(3): expected an int or None", "bad scope
    # (np.int64(1), np.int64(0))", "bad seat np.int64(0)", ...); each now reads them as the ints
    # they are and keeps ints, so that its repr pastes back
    i, f = np.int64, np.float64
    s = State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    assert s.view(i(1)) == s.view(1) and CardSet(i(3)) == CardSet(3)
    swept = s.play("7dx3c4s")  # (a scopa: team 0 has 1)
    given = dict(table=(), stock=(), captured=[list(p) for p in swept.captured], dealer=swept.dealer)
    built = State.from_cards("scopa", swept.hands, **given, turn=i(1), scope=(i(1), i(0)), last_capture=i(0))
    assert built == State.from_cards("scopa", swept.hands, **given, turn=1, scope=(1, 0), last_capture=0)
    assert built == swept and [type(x) for x in (built.turn, *built.scope)] == [int] * 3
    rules = Rules.preset("scopa")
    score = HandScore.from_piles(rules, ["7d", "7c"], ["Ad"], scope=(i(1), i(0)))
    assert score == HandScore.from_piles(rules, ["7d", "7c"], ["Ad"], scope=(1, 0))
    deal = State.deal("scopa", seed=1)
    end = deal
    while not end.is_over:
        end = end.play(end.legal_moves()[0])
    hand = end.record()
    rv = review(s.play("Kc"), time_limit=0.5)
    play = rv.plays[0]
    ar = arena("scopa", "random", "greedy", deals=2, seed=3)
    values = {
        dataclasses.replace(score, scope=(i(1), i(0)), primiera_totals=(i(42), None)): None,
        SolveResult(
            value=i(3),
            best_move=None,
            pv=(),
            nodes=i(5),
            seconds=f(0.5),
            exact=True,
            lower=i(3),
            upper=i(3),
            tt_hit_rate=0.0,
            estimate=i(3),
            depth=i(2),
        ): None,
        MoveValue(value=None, lower=i(-2), upper=i(5), estimate=f(1.5)): None,
        SearchInfo(
            depth=i(1),
            nodes=i(9),
            seconds=0.0,
            estimate=1.0,
            best_move=None,
            lower=i(0),
            upper=i(2),
            exact=False,
        ): None,
        HandRecord(deal, (Move.parse("3dx3c"),), None, {i(0): Annotation("x")}): None,
        HandRecord(hand.deal, hand.plays, (i(hand.score[0]), i(hand.score[1]))): None,  # type: ignore[index]
        dataclasses.replace(
            ar, deals=i(2), games=i(4), hand_wins=tuple(map(i, ar.hand_wins)), points=tuple(map(f, ar.points))
        ): None,
        dataclasses.replace(
            play,
            hand=i(0),
            play=i(0),
            seat=i(0),
            team=i(0),
            dd_loss=i(play.dd_loss),
            loss=f(play.loss),
            dd_values={m: i(v) for m, v in play.dd_values.items()},  # type: ignore[union-attr]
        ): None,
        dataclasses.replace(rv, hands=i(1), players=i(2), seconds=f(rv.seconds)): None,
        Event("hand_over", points=(i(4), i(0))): None,
        Event("refill", seat=i(1), count=i(3)): None,
    }
    for x in values:
        assert all(type(n) in (int, float) for n in _ints_in(x)), x
        assert eval(repr(x)) == x, repr(x)
    analysis = Analysis({}, nodes=i(1), seconds=f(0.0), depth=i(0))
    assert (type(analysis.nodes), type(analysis.depth), type(analysis.seconds)) == (int, int, float)
