"""The rebuilt greedy player: its reply odds against enumeration, its rating against a brute
force of the same model, the manuals' rules it encodes, and its arguments."""

from __future__ import annotations

import dataclasses
import random
from itertools import combinations

import pytest

import scopa
import scopa_core as core
from scopa import CardSet, State
from scopa.card import bits
from scopa.players import GreedyPlayer, GreedyWeights, greedy, make_player
from scopa.players.greedy import expected_gain, reply_outcomes
from scopa.rules import PRESETS

W = GreedyWeights()


def scores_scopa(card: int, cap: int, table: int, opts: int, last: bool) -> bool:
    """RULES §3.6 and §7, from the text: a capture of the whole table, not on the hand's last
    play unless scopa_on_last_play, not an ace taking all unless ace_sweep_is_scopa."""
    if cap != table or (last and not opts & core.OPT_SCOPA_ON_LAST_PLAY):
        return False
    aces_on_table = any(table >> (10 * suit) & 1 for suit in range(4))
    ace_took_all = opts & core.OPT_ACE_TAKES_ALL and card % 10 == 0 and not aces_on_table
    return not ace_took_all or bool(opts & core.OPT_ACE_SWEEP_IS_SCOPA)


def worth(mask: int, opts: int) -> float:
    """What greedy's weights say the cards of ``mask`` are worth when taken (RULES §5, and §7:
    the king of coins with re_bello, the ace, two and three of coins with napola)."""
    v = W.value(mask)
    if opts & core.OPT_RE_BELLO and mask & CardSet.parse("Kd").mask:
        v += W.re_bello
    if opts & core.OPT_NAPOLA:
        v += W.napola * len(CardSet._from_mask(mask & CardSet.parse("Ad 2d 3d").mask))
    return v


def best_take(card: int, table: int, opts: int, sweeps: bool) -> tuple[float, int] | None:
    """The most valuable capture of ``card`` (its own value included), first in core order."""
    best = None
    for cap in core.captures(card, table, opts):
        v = worth(cap | 1 << card, opts) + (
            W.sweep if sweeps and scores_scopa(card, cap, table, opts, False) else 0.0
        )
        if best is None or v > best[0]:
            best = (v, cap)
    return best


def enumerate_replies(
    table: int, unseen: int, h: int, opts: int, sweeps: bool
) -> dict[tuple[float, int, int], float]:
    """Every hand of ``h`` unseen cards, equally likely: it plays its most valuable capture (the
    lowest card among equals), else lays down each of its cards with chance 1/h. Returns
    {(value taken, table left, card played): probability}."""
    hands = list(combinations(bits(unseen), h))
    out: dict[tuple[float, int, int], float] = {}
    for hand in hands:
        takes = [(t[0], c, t[1]) for c in hand if (t := best_take(c, table, opts, sweeps)) is not None]
        if takes:
            v, c, cap = max(takes, key=lambda x: (round(x[0], 9), -x[1]))
            key = (round(v, 9), table & ~cap, c)
            out[key] = out.get(key, 0.0) + 1 / len(hands)
        else:
            for c in hand:
                key = (0.0, table | 1 << c, c)
                out[key] = out.get(key, 0.0) + 1 / len(hands) / h
    return out


def random_case(rng: random.Random) -> tuple[int, int, int]:
    cards = rng.sample(range(40), rng.randint(6, 12))
    n_table = rng.randint(1, 4)
    table = sum(1 << c for c in cards[:n_table])
    unseen = sum(1 << c for c in cards[n_table:])
    return table, unseen, rng.randint(1, min(3, len(cards) - n_table))


@pytest.mark.parametrize("opts", [0, 1, 2, 3, 2 | 4, 8, 1 | 2 | 4 | 8])
def test_reply_odds_equal_an_enumeration_of_the_hands(opts):
    # RULES §4 (captures, by the core): the hypergeometric odds are the enumeration's exactly
    rng = random.Random(opts)
    for _ in range(60):
        table, unseen, h = random_case(rng)
        sweeps = rng.random() < 0.8
        got = {
            (round(v, 9), left, c): p for p, v, left, c in reply_outcomes(table, unseen, h, opts, W, sweeps)
        }
        ref = enumerate_replies(table, unseen, h, opts, sweeps)
        assert got.keys() == ref.keys()
        assert all(abs(got[k] - ref[k]) < 1e-9 for k in ref)
        assert abs(sum(got.values()) - 1) < 1e-9
        mean = sum(p * v for (v, _, _), p in ref.items())
        assert expected_gain(table, unseen, h, opts, W, sweeps) == pytest.approx(mean, abs=1e-9)
    assert reply_outcomes(1, 0, 3, 0, W) == [] and expected_gain(1, 0, 3, 0, W) == 0.0
    # a player that holds no card (a hand of 0) takes nothing, whatever is unseen
    assert reply_outcomes(1, 6, 0, 0, W) == [] and expected_gain(1, 6, 0, 0, W) == 0.0
    # a hand larger than the unseen cards holds them all
    table, unseen = CardSet.parse("3c 4s").mask, CardSet.parse("7b Kd").mask
    assert reply_outcomes(table, unseen, 5, 0, W) == reply_outcomes(table, unseen, 2, 0, W)


def brute_force_score(view: scopa.PlayerView, move: scopa.Move) -> float:
    """GreedyPlayer.score for 2 players, by enumerating the opponent's hands."""
    opts = view.rules.core_options
    table, bit = view.table.mask, 1 << move.card.index
    left = sum(view.hand_sizes) + view.stock_size
    if move.is_capture:
        after = table & ~move.capture_mask
        scopa = scores_scopa(move.card.index, move.capture_mask, table, opts, left <= 1)
        s = worth(move.capture_mask | bit, opts) + (W.sweep if scopa else 0.0)
    else:
        after = table | bit
        s = -W.lay_risk * worth(bit, opts)
    if left <= 1:
        return s
    h = view.hand_sizes[1 - view.seat] or min(view.rules.hand_size, view.stock_size // 2)
    mine = view.hand.mask & ~bit
    last_ok = bool(opts & core.OPT_SCOPA_ON_LAST_PLAY)
    for (v, t, _), p in enumerate_replies(after, view.unseen.mask, h, opts, left > 2 or last_ok).items():
        answers = [b[0] for c in bits(mine) if (b := best_take(c, t, opts, left > 3 or last_ok)) is not None]
        s += p * (-v + W.follow * max([0.0, *answers]))
    return s


@pytest.mark.parametrize(
    "rules",
    [
        scopa.Rules("scopa"),
        scopa.Rules("scopa", capture_rule="fewest", ace_takes_all=True),
        scopa.Rules("scopa", ace_takes_all=True, ace_sweep_is_scopa=True, scopa_on_last_play=True),
        scopa.Rules("scopa", re_bello=True, napola=True),
    ],
    ids=["scopa", "fewest-ace", "ace-scopa-last", "re_bello-napola"],
)
def test_two_player_rating_equals_a_brute_force_of_its_model(rules):
    # RULES §4-5 (and the capture options of §4): the rating of every legal move late in a hand
    # (few unseen cards), in played games
    checked = 0
    for seed in range(6):
        s = State.deal(rules, seed=seed)
        g = GreedyPlayer()
        while not s.is_over:
            view = s.view(s.turn)
            if len(view.unseen) <= 12:
                for m in view.legal_moves():
                    assert g.score(view, m) == pytest.approx(brute_force_score(view, m), abs=1e-9)
                    checked += 1
            s = s.play(g.choose(view))
    assert checked > 100


def test_four_player_partner_term_equals_an_enumeration():
    # RULES §2 (four players, partners opposite): the partner's answer to each reply, its hand
    # drawn from the cards the mover cannot see, as the model says
    s = State.deal("scopone_scientifico", seed=4)
    g = GreedyPlayer()
    for _ in range(30):
        s = s.play(g.choose(s.view(s.turn)))
    view = s.view(s.turn)
    opts = view.rules.core_options
    left = sum(view.hand_sizes) + view.stock_size
    nw = dataclasses.replace(W, partner=0.0)
    for m in view.legal_moves():
        after = view.table.mask & ~m.capture_mask if m.is_capture else view.table.mask | 1 << m.card.index
        term = 0.0
        replies = enumerate_replies(
            after, view.unseen.mask, view.hand_sizes[(view.seat + 1) % 4], opts, left > 2
        )
        for (_, t, c), p in replies.items():
            # the opponent's card is no longer unseen: it is on the table or in its pile
            hidden = view.unseen.mask & ~(1 << c)
            mate = enumerate_replies(t, hidden, view.hand_sizes[(view.seat + 2) % 4], opts, left > 3)
            term += p * sum(q * v for (v, _, _), q in mate.items())
        with_mate = g.score(view, m)
        assert with_mate - GreedyPlayer(nw).score(view, m) == pytest.approx(W.partner * term, abs=1e-9)


def test_spariglio_favours_the_leading_team():
    # Saracino's spariglio: a capture of several cards gains for the dealer's opponents, who lead,
    # and costs the dealer's team; nothing when the dealer is unknown (the same view with
    # another dealer cannot occur in play, so the rating is asked without the view's check)
    g = GreedyPlayer()
    found = 0
    for seed in range(20):
        s = State.deal("scopone_scientifico", seed=seed, dealer=3)
        while not s.is_over and found < 6:
            view = s.view(s.turn)
            many = [m for m in view.legal_moves() if core.popcount(m.capture_mask) > 1]
            if many:
                m = many[0]
                lead = dataclasses.replace(view, dealer=(view.seat + 1) % 4)
                dealt = dataclasses.replace(view, dealer=(view.seat + 2) % 4)
                unknown = dataclasses.replace(view, dealer=None)
                for v in (lead, dealt, unknown):  # (taken as checked: a view's legal_moves checks it)
                    object.__setattr__(v, "_from_play", True)
                assert g._score(lead, m) - g._score(unknown, m) == pytest.approx(W.spariglio)
                assert g._score(dealt, m) - g._score(unknown, m) == pytest.approx(-W.spariglio)
                single = [x for x in view.legal_moves() if core.popcount(x.capture_mask) <= 1]
                for x in single:
                    assert g._score(lead, x) == g._score(dealt, x) == g._score(unknown, x)
                found += 1
            s = s.play(g.choose(view))
        if found >= 6:
            break
    assert found >= 6


def test_keeps_a_pair_to_retake():
    # 2 players: with 4c 4s and Qb in hand on Kd, laying a 4 down costs the same now as the queen
    # would (the opponent takes either by its equal) but leaves a 4 to retake it with; the queen
    # is worth keeping for nothing. (RULES §4: a card takes its equal.)
    s = State.from_string("scopa 4c4sQb/5b6s7b Kd - -/- 0/0 0 - 1")
    g = GreedyPlayer()
    scores = {str(m): g.score(s.view(0), m) for m in s.legal_moves()}
    assert str(g.choose(s.view(0)).card)[0] == "4", scores
    no_follow = GreedyPlayer(dataclasses.replace(W, follow=0.0))
    assert no_follow.score(s.view(0), s.resolve("4c")) < scores["4c"]


def test_captures_equal_to_a_billionth_go_to_the_lowest_card():
    # reply_outcomes' order: the most valuable capture first, among values equal to 1e-9 (sums
    # of the weights that differ only in their last bits) the lowest card; a hand of both
    # plays the first. RULES §3.1 (equal rank first): 5b takes 5c, 6b takes 6c.
    table, unseen = CardSet.parse("5c 6c").mask, CardSet.parse("5b 6b").mask
    five, six = (CardSet.parse(c).mask.bit_length() - 1 for c in ("5b", "6b"))

    def played(w: GreedyWeights) -> list[int]:
        return [c for _, _, _, c in reply_outcomes(table, unseen, 2, 0, w)]

    assert played(GreedyWeights(six=2e-10)) == [five]  # (6b takes 4e-10 more: equal)
    assert played(GreedyWeights(six=1e-8)) == [six]  # (2e-8 more: more)
    assert played(W) == [six]


def test_greedy_arguments_and_repr():
    with pytest.raises(scopa.ScopaError, match=r"bad GreedyWeights sweep -1: expected a finite number >= 0"):
        GreedyWeights(sweep=-1)
    with pytest.raises(scopa.ScopaError, match=r"bad GreedyWeights card nan"):
        GreedyWeights(card=float("nan"))
    with pytest.raises(scopa.ScopaError, match=r"bad GreedyWeights follow True"):
        GreedyWeights(follow=True)
    with pytest.raises(
        scopa.ScopaError, match=r"bad GreedyPlayer weights \{'sweep': 1\}: expected a GreedyWeights"
    ):
        GreedyPlayer({"sweep": 1})  # type: ignore[arg-type]
    assert repr(GreedyPlayer()) == "GreedyPlayer()"
    p = GreedyPlayer(GreedyWeights(sweep=1.5))
    again = eval(repr(p), {"GreedyPlayer": GreedyPlayer, "GreedyWeights": GreedyWeights})
    assert again.weights == p.weights
    assert isinstance(make_player("greedy"), GreedyPlayer)
    # the value of cards taken: two cards, a coin, two sevens, the settebello
    assert W.value(CardSet.parse("7d 7c").mask) == pytest.approx(2 * 0.06 + 0.12 + 2 * 0.3 + 1.0)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((-1, 5, 3, 0, W, True), r"bad table -1: expected a card mask"),
        ((1, 1 << 50, 3, 0, W, True), r"bad unseen 1125899906842624: expected a card mask"),
        ((1, 1 << 40, 3, 0, W, True), r"bad unseen 1099511627776: expected a card mask"),  # (40 cards)
        ((1, 3, 3, 0, W, True), r"bad unseen 3: expected no card of the table 1"),
        ((1, 6, -3, 0, W, True), r"bad hand_size -3: expected an int >= 0"),
        ((1, 6, 3.5, 0, W, True), r"bad hand_size 3.5: expected an int >= 0"),
        ((1, 6, 3, 999, W, True), r"bad opts 999: expected rule options"),
        ((1, 6, 3, 0, None, True), r"bad weights None: expected a GreedyWeights"),
        ((1, 6, 3, 0, W, 1), r"bad sweeps 1: expected True or False"),
        (("x", 6, 3, 0, W, True), r"bad table 'x': expected a card mask"),
    ],
)
def test_reply_functions_check_their_arguments(args, message):
    for f in (reply_outcomes, expected_gain):
        with pytest.raises(scopa.ScopaError, match=message):
            f(*args)


def test_the_sweep_bonus_is_for_sweeps_that_score_under_the_rules():
    # an audit: greedy added a scopa's weight to every capture that emptied the table, an ace
    # taking all without ace_sweep_is_scopa too, and never to a last play's sweep with
    # scopa_on_last_play (RULES §3.6, §7); the presets' plays are unchanged
    g = GreedyPlayer()
    sweep = g.weights.sweep

    def rated(position: str, move: str) -> tuple[float, int]:
        s = State.from_string(position)
        return g.score(s.view(0), move), s.play(move).scope[0]

    ace = "AdKc/2cAs 5s6b - 3d/4d 0/0 0 1 1"
    (plain, none), (more, one) = (
        rated(f"scopa;ace_takes_all=true{o} {ace}", "Adx5s6b") for o in ("", ";ace_sweep_is_scopa=true")
    )
    assert (none, one) == (0, 1) and more - plain == pytest.approx(sweep)
    last = "7d/- 3c4s - -/- 0/0 0 - 0"  # (the hand's last play)
    (plain, none), (more, one) = (
        rated(f"scopa{o} {last}", "7dx3c4s") for o in ("", ";scopa_on_last_play=true")
    )
    assert (none, one) == (0, 1) and more - plain == pytest.approx(sweep)
    reply = "4d/7c 3s - -/- 0/0 0 - 1"  # (then 7c sweeps on the last play: certain)
    (plain, _), (less, _) = (rated(f"scopa{o} {reply}", "4d") for o in ("", ";scopa_on_last_play=true"))
    assert plain - less == pytest.approx(sweep)


def test_the_capture_tables_stay_bounded_over_many_weights(monkeypatch):
    # an audit: the tables of best captures were kept per GreedyWeights for ever, so tuning the
    # weights (a new GreedyWeights a trial, as benchmarks/greedy_tune.py does) grew the process
    # by about 7 MB a trial; now the last CAPTURE_WEIGHTS weights' are kept, CAPTURE_ENTRIES
    # entries in all
    monkeypatch.setattr(greedy, "_CAPTURES", {})
    monkeypatch.setattr(greedy, "CAPTURE_ENTRIES", 50)
    rng = random.Random(3)
    positions = []
    for seed in range(4):
        s = State.deal("scopone_scientifico", seed=seed)
        while not s.is_over:
            positions.append(s)
            s = s.play(rng.choice(s.legal_moves()))
    most = 0
    for trial in range(12):
        p = GreedyPlayer(GreedyWeights(sweep=1.5 + trial / 10))
        plain = GreedyPlayer(p.weights)
        for s in positions[trial::9]:
            assert p.choose(s.view(s.turn)) == plain.choose(s.view(s.turn))
            most = max(most, sum(map(len, greedy._CAPTURES.values())))
        assert len(greedy._CAPTURES) <= greedy.CAPTURE_WEIGHTS
    assert 0 < most <= 50
    # a table cleared gives the same ratings as a full one
    s = positions[5]
    before = {m: GreedyPlayer().score(s.view(s.turn), m) for m in s.legal_moves()}
    greedy._CAPTURES.clear()
    assert {m: GreedyPlayer().score(s.view(s.turn), m) for m in s.legal_moves()} == before


def test_the_capture_tables_keep_what_they_computed(monkeypatch):
    # below CAPTURE_ENTRIES a table of captures computed once is looked up again, not
    # computed again: the bound clears the tables only when they are full
    monkeypatch.setattr(greedy, "_CAPTURES", {})
    a, b = CardSet.parse("3c 4s").mask, CardSet.parse("5b Kd").mask
    first = greedy._by_rank(a, 0, W, True)
    greedy._by_rank(b, 0, W, True)
    assert greedy._by_rank(a, 0, W, True) is first
    assert len(greedy._CAPTURES[W]) == 2


def test_the_capture_tables_are_shared_by_threads_safely(monkeypatch):
    # the tables are shared by every thread (a server's): weights dropped and tables cleared by
    # several threads at once (a key dropped twice was a KeyError, a dict grown while another
    # thread summed it a RuntimeError)
    import sys
    import threading

    monkeypatch.setattr(greedy, "_CAPTURES", {})
    monkeypatch.setattr(greedy, "CAPTURE_ENTRIES", 20)
    positions = []
    for seed in range(3):
        s = State.deal("scopa", seed=seed)
        rng = random.Random(seed)
        while not s.is_over:
            positions.append(s)
            s = s.play(rng.choice(s.legal_moves()))
    failures: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for trial in range(200):
                w = GreedyWeights(sweep=1.0 + (k * 40 + trial) % 7 / 10)
                for s in positions[trial % 5 :: 11]:
                    greedy._by_rank(s.table.mask, 0, w, True)
        except BaseException as exc:  # noqa: BLE001 (any failure of a thread is the test's)
            failures.append(exc)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # (threads switch as often as they can: the races show)
    try:
        threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert failures == []
    assert len(greedy._CAPTURES) <= greedy.CAPTURE_WEIGHTS


def test_re_bello_and_napola_are_valued_when_the_rules_score_them():
    # RULES §7: greedy valued the king of coins and the ace, two and three of coins as any coin
    # though re_bello and napola score them (napola: +0.80 points per hand in Scopone
    # scientifico, docs/players.md); the presets score neither, and their values are unchanged
    kd, napola = CardSet.parse("Kd").mask, CardSet.parse("Ad 2d 3d").mask
    both = scopa.Rules("scopa", re_bello=True, napola=True).core_options
    assert W.value(kd, both) == pytest.approx(W.value(kd) + W.re_bello)
    assert W.value(napola, both) == pytest.approx(W.value(napola) + 3 * W.napola)
    for game in PRESETS:
        assert W.values_under(scopa.Rules(game).core_options) == W.card_values
    assert W.values_under(both) == tuple(W.value(1 << c, both) for c in range(40))
    assert W.values_under(0) is W.card_values
    # the options turn choices in played hands, and only while a card they score is in play
    for option, cards in (("re_bello", kd), ("napola", napola)):
        rules, turned = scopa.Rules("scopa", **{option: True}), 0
        for seed in range(30):
            s = State.deal(rules, seed=seed)
            while not s.is_over:
                view = s.view(s.turn)
                move = GreedyPlayer().choose(view)
                plain = GreedyPlayer().choose(dataclasses.replace(view, rules=scopa.Rules("scopa")))
                if move != plain:
                    turned += 1
                    assert cards & ~(view.captured[0].mask | view.captured[1].mask), (s, move, plain)
                s = s.play(move)
        assert turned >= 5
    with pytest.raises(scopa.OptionError, match="bad GreedyWeights napola -1"):
        GreedyWeights(napola=-1)
