"""Property tests (hypothesis) on whole games through the public API."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import scopa
from scopa import Rules, State

GAMES = st.sampled_from(scopa.PRESETS)
OPTIONS = st.fixed_dictionaries(
    {
        "capture_rule": st.sampled_from(["free", "fewest"]),
        "primiera_requires_all_suits": st.booleans(),
        "ace_takes_all": st.booleans(),
        "re_bello": st.booleans(),
        "napola": st.booleans(),
        "scopa_on_last_play": st.booleans(),
    }
)


@st.composite
def games(draw):
    """A random rules set, a deal, and a random number of random plays into the hand."""
    opts = draw(OPTIONS)
    if opts["ace_takes_all"]:
        opts["ace_sweep_is_scopa"] = draw(st.booleans())
    rules = Rules.preset(draw(GAMES), **opts)
    s = State.deal(
        rules, seed=draw(st.integers(0, 2**64 - 1)), dealer=draw(st.integers(0, rules.players - 1))
    )
    steps = draw(st.integers(0, 40))
    choices = draw(st.lists(st.integers(0, 10**6), min_size=40, max_size=40))
    trail = [s]
    for i in range(steps):
        if s.is_over:
            break
        moves = s.legal_moves()
        s = s.play(moves[choices[i] % len(moves)])
        trail.append(s)
    return trail


def cards_in(s: State) -> int:
    total = s.table.mask | s.captured[0].mask | s.captured[1].mask
    n = len(s.table) + len(s.captured[0]) + len(s.captured[1]) + len(s.stock)
    for h in s.hands:
        total |= h.mask
        n += len(h)
    for c in s.stock:
        total |= c.mask
    return total if n == 40 else -1


@settings(max_examples=150)
@given(games())
def test_forty_cards_are_conserved(trail):
    for s in trail:
        assert cards_in(s) == (1 << 40) - 1


@settings(max_examples=150)
@given(games())
def test_points_equal_the_breakdown(trail):
    sc = trail[-1].score()
    assert sc.points == tuple(sum(v[t] for v in sc.breakdown.values()) for t in (0, 1))
    for name, (a, b) in sc.breakdown.items():
        if name in ("carte", "denari", "settebello", "primiera", "re_bello"):
            assert a + b <= 1


@settings(max_examples=150)
@given(games())
def test_json_and_string_round_trip(trail):
    for s in trail:
        assert State.from_json(s.to_json()) == s
        assert State.from_json(s.to_dict()) == s
        assert State.from_string(s.to_string()) == s


@settings(max_examples=100)
@given(games(), st.text(max_size=8))
def test_failed_play_leaves_state_unchanged(trail, junk):
    s = trail[-1]
    before = (s.to_json(), hash(s))
    for bad in (junk, "Kx", "7dx7d"):
        try:
            s.play(bad)
        except scopa.ScopaError:
            pass
    assert (s.to_json(), hash(s)) == before


@settings(max_examples=100)
@given(games())
def test_every_legal_move_plays(trail):
    s = trail[-1]
    for m in s.legal_moves():
        nxt = s.play(m)
        assert nxt.turn == (s.turn + 1) % s.rules.players
        assert m.card not in nxt.hands[s.turn]
        assert s.play(str(m)) == nxt
