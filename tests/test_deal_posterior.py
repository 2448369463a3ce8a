"""PIMC's inference with four players: the weights of the deal posterior against the model's
likelihoods, what it reads from a play, and how PIMC samples from it. The games are the greedy
player's, which give the plays to infer from."""

from __future__ import annotations

import math
import random

import pytest

import scopa
import scopa_core as core
from scopa import State
from scopa.players import GreedyPlayer, PIMCPlayer
from scopa.players.inference import OpponentModel, deal_posterior, hand_posterior
from scopa.players.pimc import FOUR_PLAYER_MODEL


def forward_records(game: str, seed: int, plays: int) -> tuple[State, list[tuple[int, int, int, int, int]]]:
    """A game of greedy players after ``plays`` plays, and every play as (seat, card, capture,
    table before, both piles before), recorded going forward."""
    s = State.deal(game, seed=seed)
    g = GreedyPlayer()
    out = []
    for _ in range(plays):
        m = g.choose(s.view(s.turn))
        out.append(
            (s.turn, m.card.index, m.capture_mask, s.table.mask, s.captured[0].mask | s.captured[1].mask)
        )
        s = s.play(m)
    return s, out


@pytest.mark.parametrize(("game", "seed", "plays"), [("scopone_scientifico", 3, 13), ("scopone", 1, 9)])
def test_deal_posterior_weights_equal_the_models_likelihoods(game, seed, plays):
    # RULES §2 (four players, every card dealt in Scopone scientifico): each candidate deal's
    # weight is the product over the other seats' plays of the model's probability of each play,
    # computed here from a forward replay with reply_probabilities over all the held cards' moves
    s, played = forward_records(game, seed, plays)
    view = s.view(s.turn)
    model = OpponentModel(temperature=0.3)
    deals, weights = deal_posterior(view, model, random.Random(9), candidates=48)
    opts = view.rules.core_options
    logs = []
    for deal in deals:
        assert sorted(deal) == sorted(j for j in range(4) if j != view.seat)
        assert all(
            core.popcount(deal[j]) == view.hand_sizes[j] and not deal[j] & ~view.unseen.mask for j in deal
        )
        total = 0.0
        for i, (seat, c, cap, table, piles) in enumerate(played):
            if seat == view.seat:
                continue
            later = sum(1 << x for j, x, *_ in played[i + 1 :] if j == seat)
            known = later | 1 << c
            held = deal[seat] | known
            hidden = core.FULL & ~(known | table | piles)
            moves = core.legal_moves(held, table, opts)
            probs = model.reply_probabilities(moves, table, hidden, opts)
            total += math.log(probs[moves.index((c, cap))])
        logs.append(total)
    top = max(logs)
    ref = [math.exp(x - top) for x in logs]
    norm = sum(ref)
    assert weights == pytest.approx([r / norm for r in ref], rel=1e-6, abs=1e-12)


def test_deal_posterior_reads_a_refused_settebello():
    # A seat that laid a card down while the settebello lay on the table (RULES §4: a seven
    # would have taken it) probably holds no seven: less likely in the posterior than uniformly.
    checked = 0
    for seed in range(40):
        s = State.deal("scopone_scientifico", seed=seed)
        rng = random.Random(seed)
        while not s.is_over and checked < 3:
            m = rng.choice(s.legal_moves())
            refused = not m.is_capture and s.table.mask & core.SETTEBELLO and m.card.index % 10 != 6
            seat = s.turn
            s = s.play(m)
            if refused and s.turn != seat and not s.is_over:
                view = s.view(s.turn)
                if seat == view.seat or view.hand_sizes[seat] < 3:
                    continue
                deals, weights = deal_posterior(view, OpponentModel(), random.Random(1), candidates=4000)
                has_seven = [bool(d[seat] & core.RANK_MASK[7]) for d in deals]
                uniform = sum(has_seven) / len(deals)
                posterior = sum(w for w, h in zip(weights, has_seven, strict=True) if h)
                assert posterior < 0.5 * uniform, (seed, posterior, uniform)
                checked += 1
                break
        if checked >= 3:
            break
    assert checked == 3


def test_deal_posterior_when_there_is_nothing_to_read():
    s = State.deal("scopone_scientifico", seed=2)
    assert deal_posterior(s.view(s.turn), OpponentModel(), random.Random(1)) is None  # no play yet
    two = State.deal("scopa", seed=2)
    assert deal_posterior(two.view(two.turn), OpponentModel(), random.Random(1)) is None  # 2 players
    # (two players after a play too, when hand_posterior reads it: a mutation run found only the
    # deal checked, where no seat has played)
    two = two.play(two.legal_moves()[0])
    assert hand_posterior(two.view(two.turn), OpponentModel()) is not None
    assert deal_posterior(two.view(two.turn), OpponentModel(), random.Random(1)) is None
    # the last play of the deal: every other seat has played its cards, none is held to read
    # (a seat with no card is not read, not even its last play)
    last, _ = forward_records("scopone_scientifico", 3, 39)
    assert [len(h) for h in last.hands].count(0) == 3 and not last.is_over
    assert deal_posterior(last.view(last.turn), OpponentModel(), random.Random(1)) is None
    s = s.play(s.legal_moves()[0])
    composed = State.from_string(s.to_string())  # the same position without its history
    assert deal_posterior(composed.view(composed.turn), OpponentModel(), random.Random(1)) is None
    with pytest.raises(scopa.ScopaError, match=r"bad candidates 0: expected an int >= 1"):
        deal_posterior(s.view(s.turn), OpponentModel(), random.Random(1), candidates=0)


def test_pimc_with_four_players_samples_from_the_deal_posterior():
    s, _ = forward_records("scopone_scientifico", 5, 14)
    view = s.view(s.turn)
    kw = {"samples": 6, "time_limit": None, "depth": 2}
    a = PIMCPlayer(seed=3, **kw).evaluate(view)  # on by default
    assert a == PIMCPlayer(seed=3, deal_inference=True, **kw).evaluate(view)
    plain = PIMCPlayer(seed=3, deal_inference=False, **kw).evaluate(view)  # uniform samples
    assert plain == PIMCPlayer(seed=3, infer=False, **kw).evaluate(view) != a
    assert PIMCPlayer().deal_model == FOUR_PLAYER_MODEL == OpponentModel(temperature=0.5)
    assert PIMCPlayer(model=OpponentModel(temperature=0.2)).deal_model.temperature == 0.2
    # the samples come from the posterior's deals: reproduce the first sample's draw
    assert PIMCPlayer(seed=3, deal_inference=False, **kw)._posterior(view) is None
    p = PIMCPlayer(seed=3, candidates=32, **kw)
    post = p._posterior(view)
    assert post is not None and len(post[0]) == 32 and post[1][-1] == pytest.approx(1.0)
    with pytest.raises(scopa.ScopaError, match=r"bad candidates 0: expected an int >= 1"):
        PIMCPlayer(candidates=0)
    with pytest.raises(scopa.ScopaError, match=r"bad deal_inference 1: expected True or False"):
        PIMCPlayer(deal_inference=1)  # type: ignore[arg-type]


def test_the_inference_of_four_hands_keeps_a_searchers_limit(monkeypatch):
    # an audit: with many candidates it ran whole before the sampling, past the time limit and
    # an already set stop flag (100,000 candidates: 266 ms for a 50 ms move)
    s, _ = forward_records("scopone_scientifico", 21, 14)
    view, model = s.view(s.turn), OpponentModel()
    whole = deal_posterior(view, model, random.Random(1), 20_000)
    asked = []

    def after(n):  # (gives up at its n-th asking)
        def give_up():
            asked.append(1)
            return len(asked) >= n

        return give_up

    assert deal_posterior(view, model, random.Random(1), 20_000, give_up=lambda: False) == whole
    for n in range(1, 40):  # (asked before the draw, between chunks, at each play, at the end)
        asked.clear()
        if deal_posterior(view, model, random.Random(1), 20_000, give_up=after(n)) is not None:
            break
    assert whole is not None and n > 5 and len(asked) == n - 1  # (asked n - 1 times, never yes)
    with pytest.raises(scopa.OptionError, match="bad give_up 3: expected a function"):
        deal_posterior(view, model, random.Random(1), 64, give_up=3)
    # between chunks of the candidates made into deals too, and after each seat's hands: an
    # audit found 100,000 candidates ran 9 times past a 20 ms limit, 70 ms of deals made after
    # the last asking (and 60 ms of hands before the first play weighed)
    from scopa.players.inference import _CHUNK

    def askings(candidates):
        asked.clear()
        assert deal_posterior(view, model, random.Random(1), candidates, give_up=after(10**9)) is not None
        return len(asked)

    seats = sum(1 for j in range(4) if j != view.seat)
    assert askings(2 * _CHUNK + 1) - askings(1) == 2 + 2  # (2 between chunks drawn, 2 between deals made)
    assert askings(1) >= 1 + seats + 1  # (before the draw, after each seat's hands, before the deals)
    # PIMC asks it with its limit: a flag already set, no deal weighed; a time, weighed within it
    import scopa.players.pimc as pimc_module

    seen = []
    real = pimc_module.deal_posterior

    def watched(*args, **kwargs):
        seen.append(real(*args, **kwargs))
        return seen[-1]

    monkeypatch.setattr(pimc_module, "deal_posterior", watched)
    PIMCPlayer(samples=50, time_limit=None, seed=1, candidates=100_000).choose(
        view, scopa.Limit(stop=scopa.StopFlag(True))
    )
    PIMCPlayer(samples=2, time_limit=None, seed=1, candidates=512).choose(view)
    assert seen[0] is None and seen[1] is not None
