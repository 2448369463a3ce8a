"""The searching players' choices, pinned: every decision's values of seeded PIMC players and
the moves and root visits of seeded ISMCTS players, over whole hands, as they were when the
strength figures of docs/benchmarks.md were measured. A change meant to make them faster (or
to tidy them) must leave every one of these as it is; a change meant to make them play
differently rewrites the snapshot on purpose (``python tests/test_pinned_choices.py``) and
measures the players again.

The players' Python layer is the same on both cores and the core's values are the same on both
(test_core, test_solver): the twin, about 60 times slower here, replays the cases marked cheap.
"""

from __future__ import annotations

import json
import pathlib
import sys
from typing import Any

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))  # (run as a script: conftest's folder)
from conftest import TWIN_RUN  # noqa: E402

import scopa  # noqa: E402
from scopa.players import ISMCTSPlayer, PIMCPlayer  # noqa: E402

SNAPSHOT = pathlib.Path(__file__).parent / "snapshots" / "pinned-choices.json"

#: (name, game, rule options, player, its options, deal seeds, cheap enough for the twin)
CASES: list[tuple[str, str, dict[str, Any], str, dict[str, Any], list[int], bool]] = [
    ("pimc-scopa", "scopa", {}, "pimc", {}, [1, 2, 3], False),
    ("pimc-scopa-one-hand", "scopa", {}, "pimc", {"samples": 16}, [13], True),
    ("pimc-scopa-no-reply-weight", "scopa", {}, "pimc", {"reply_weight": 0.0}, [4], False),
    ("pimc-scopa-no-inference", "scopa", {}, "pimc", {"infer": False}, [5], False),
    ("pimc-scopa-threads", "scopa", {}, "pimc", {"threads": 2}, [6], False),
    ("pimc-scopa-variants", "scopa", {"re_bello": True, "napola": True}, "pimc", {}, [7], False),
    ("pimc-scientifico", "scopone_scientifico", {}, "pimc", {"samples": 24}, [8], False),
    ("pimc-scientifico-uniform", "scopone_scientifico", {}, "pimc", {"samples": 16, "deal_inference": False},
     [9], False),
    ("ismcts-scopa", "scopa", {}, "ismcts", {"iterations": 300}, [11], True),
    ("ismcts-scientifico", "scopone_scientifico", {}, "ismcts", {"iterations": 300}, [12], False),
]  # fmt: skip


def decisions(case: tuple[str, str, dict[str, Any], str, dict[str, Any], list[int], bool]) -> list[list[str]]:
    """Every decision of the case's hands: PIMC's values of each move (mean, sweep share) and
    the move it chose; ISMCTS's move and its root visits."""
    _, game, options, kind, player_options, seeds, _ = case
    rules = scopa.Rules(game, **options)
    out = []
    for seed in seeds:
        kind_of = PIMCPlayer if kind == "pimc" else ISMCTSPlayer
        players: list[Any] = [
            kind_of(seed=seed * 10 + i, time_limit=None, **player_options) for i in range(rules.players)
        ]
        s = scopa.State.deal(rules, seed=seed)
        while not s.is_over:
            p, view = players[s.turn], s.view(s.turn)
            if kind == "pimc":
                values = sorted(f"{m} {a:.9f} {b:.9f}" for m, (a, b) in p.evaluate(view).items())
                move = p.choose(view)
            else:
                move = p.choose(view)
                values = sorted(f"{m} {v}" for m, v in p.last_visits.items())
            out.append([str(move), *values])
            s = s.play(move)
    return out


def _snapshot() -> dict[str, list[list[str]]]:
    data: dict[str, list[list[str]]] = json.loads(SNAPSHOT.read_text())
    return data


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_the_searching_players_choose_as_they_did(case):
    if TWIN_RUN and not case[-1]:
        pytest.skip("the twin replays the cheap cases only (see the module's docstring)")
    expected = _snapshot()[case[0]]
    got = decisions(case)
    assert len(got) == len(expected)
    for number, (g, e) in enumerate(zip(got, expected, strict=True)):
        assert g == e, f"decision {number} of {case[0]} changed"


def test_every_case_is_in_the_snapshot():
    assert sorted(_snapshot()) == sorted(c[0] for c in CASES)


if __name__ == "__main__":  # rewrite the snapshot (on purpose: see the docstring)
    SNAPSHOT.write_text(json.dumps({c[0]: decisions(c) for c in CASES}, indent=0) + "\n")
    print(f"wrote {SNAPSHOT}")
