"""The value objects' serialization contract (docs/api/formats.md): reprs that paste back,
``to_json``/``from_json`` pairs that round-trip and hold to the package's JSON Schemas, text
forms that parse back, pickling and copying; properties over random games (hypothesis), on
whichever core is loaded (``SCOPA_NO_EXTENSIONS=1`` for the twin)."""

from __future__ import annotations

import math

import pytest

from scopa import jsonio


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
