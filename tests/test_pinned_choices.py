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
import platform
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


def decisions(
    case: tuple[str, str, dict[str, Any], str, dict[str, Any], list[int], bool],
    follow: list[str] | None = None,
) -> list[list[str]]:
    """Every decision of the case's hands: the move chosen, then PIMC's values of each move
    (mean, sweep share, to nine decimals) or ISMCTS's root visits. With ``follow`` (the moves of
    a snapshot, in order) the hands go on with those moves, whatever was chosen: a near tie
    decided otherwise on another machine does not change every decision after it."""
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
                move, valued = _pimc_choice(p, view)
                values = sorted(f"{m} {a:.9f} {b:.9f}" for m, (a, b) in valued.items())
            else:
                move = str(p.choose(view))
                values = sorted(f"{m} {v}" for m, v in p.last_visits.items())
            out.append([move, *values])
            s = s.play(follow[len(out) - 1] if follow is not None and len(out) <= len(follow) else move)
    return out


def _pimc_choice(player: PIMCPlayer, view: Any) -> tuple[str, dict[Any, tuple[float, float]]]:
    """``player``'s move and the values it chose it by (its own call of ``evaluate``; none when
    it had one move)."""
    asked: list[dict[Any, tuple[float, float]]] = []
    evaluate = player.evaluate

    def spy(v: Any, limit: Any = None) -> dict[Any, tuple[float, float]]:
        asked.append(evaluate(v, limit))
        return asked[-1]

    player.evaluate = spy  # type: ignore[method-assign]
    try:
        move = str(player.choose(view))
    finally:
        del player.evaluate
    return move, asked[0] if asked else {}


#: How far two of PIMC's values printed to nine decimals may be apart and still be the same:
#: other libms and Python's sum() from 3.12 (compensated) differ in the last bits.
CLOSE = 2e-9


def _pimc_values(row: list[str]) -> dict[str, tuple[float, float]]:
    return {m: (float(a), float(b)) for m, a, b in (item.split() for item in row[1:])}


def _same_pimc_decision(got: list[str], expected: list[str], tie: float) -> str | None:
    """What differs between two of PIMC's decisions beyond the last bits (None: nothing)."""
    g, e = _pimc_values(got), _pimc_values(expected)
    if g.keys() != e.keys():
        return f"moves {sorted(g)} against {sorted(e)}"
    for m in e:
        if abs(g[m][0] - e[m][0]) > CLOSE or abs(g[m][1] - e[m][1]) > CLOSE:
            return f"{m} valued {g[m]} against {e[m]}"
    if got[0] != expected[0]:  # (the last bits may decide only a near tie)
        a, b = e[got[0]], e[expected[0]]
        if tie == 0:  # (the move of the best mean, the least sweep share among equal ones)
            near = abs(a[0] - b[0]) <= CLOSE
        else:  # (the least sweep share among the means within ``tie`` of the best)
            best = max(v for v, _ in e.values())
            edge = any(abs(v - (best - tie)) <= CLOSE for v in (a[0], b[0]))
            near = edge or (abs(a[0] - b[0]) <= CLOSE and abs(a[1] - b[1]) <= CLOSE)
        if not near:
            return f"chose {got[0]} against {expected[0]}"
    return None


def _snapshot() -> dict[str, list[list[str]]]:
    data: dict[str, list[list[str]]] = json.loads(SNAPSHOT.read_text())
    return data


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_the_searching_players_choose_as_they_did(case):
    if TWIN_RUN and not case[-1]:
        pytest.skip("the twin replays the cheap cases only (see the module's docstring)")
    if case[3] == "ismcts" and platform.libc_ver()[0] != "glibc":
        pytest.skip("ISMCTS's visits follow math.log's last bits: the snapshot is glibc's")
    expected = _snapshot()[case[0]]
    got = decisions(case, follow=[row[0] for row in expected])
    assert len(got) == len(expected)
    tie = (
        PIMCPlayer()._tie(scopa.Rules(case[1], **case[2]).players)
        if case[4].get("tie") is None
        else case[4]["tie"]
    )
    for number, (g, e) in enumerate(zip(got, expected, strict=True)):
        if case[3] == "ismcts":
            assert g == e, f"decision {number} of {case[0]} changed"
        else:
            assert _same_pimc_decision(g, e, tie) is None, (
                f"decision {number} of {case[0]}: {_same_pimc_decision(g, e, tie)}"
            )


def test_a_decision_that_differs_is_found():
    # (the comparison must be able to fail: a value moved, a move chosen otherwise)
    row = ["7d", "7d 1.000000000 0.000000000", "Kc 0.500000000 0.250000000"]
    assert _same_pimc_decision(row, row, 0.0) is None
    assert (
        _same_pimc_decision(["7d", "7d 1.000000001 0.000000000", "Kc 0.500000000 0.250000000"], row, 0.0)
        is None
    )
    assert "valued" in str(_same_pimc_decision(["7d", "7d 1.000000100 0.0", "Kc 0.5 0.25"], row, 0.0))
    assert "chose Kc" in str(_same_pimc_decision(["Kc", *row[1:]], row, 0.0))
    tied = ["7d", "7d 1.000000000 0.000000000", "Kc 1.000000000 0.000000000"]
    assert _same_pimc_decision(["Kc", *tied[1:]], tied, 0.0) is None
    window = ["7d", "7d 1.000000000 0.500000000", "Kc 0.960000000 0.250000000", "2s 0.950000000 0.000000000"]
    assert "chose Kc" in str(_same_pimc_decision(["Kc", *window[1:]], window, 0.05))  # (neither near a tie)
    edge = ["Kc", "7d 1.000000000 0.500000000", "Kc 0.960000000 0.250000000", "2s 0.950000001 0.000000000"]
    assert _same_pimc_decision(["2s", *edge[1:]], edge, 0.05) is None  # (2s on the window's edge)


def test_every_case_is_in_the_snapshot():
    assert sorted(_snapshot()) == sorted(c[0] for c in CASES)


if __name__ == "__main__":  # rewrite the snapshot (on purpose: see the docstring)
    SNAPSHOT.write_text(json.dumps({c[0]: decisions(c) for c in CASES}, indent=0) + "\n")
    print(f"wrote {SNAPSHOT}")
