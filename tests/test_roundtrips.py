"""The value objects' serialization contract (docs/api/formats.md): reprs that paste back,
``to_json``/``from_json`` pairs that round-trip and hold to the package's JSON Schemas, text
forms that parse back, pickling and copying; properties over random games (hypothesis), on
whichever core is loaded (``SCOPA_NO_EXTENSIONS=1`` for the twin)."""

from __future__ import annotations

import math

import pytest

from scopa import Annotation, Card, CardSet, Match, Rules, ScopaError, State, jsonio
from scopa.arena import arena
from scopa.events import Event
from scopa.review import review


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
