"""The measuring tools of benchmarks/ that the strength figures rest on: the opponent model's
maximum-likelihood fit (opponent_fit.py), the references that see hidden cards
(information.py), the levels' ratings and move times (levels.py), mutation testing of the tests
(mutation.py), the PIMC variants
screened against PIMC (pimc_variants.py), how fast the searches stop (stopping.py), what a
stop flag alone costs a search (flag_only.py), the server's memory over many requests
(soak.py), its slow clients (load.py) and its long replies (loop_gap.py)."""

from __future__ import annotations

import argparse
import functools
import json
import math
import random
import sys
from pathlib import Path

import numpy as np
import pytest

import scopa
import scopa_core
from scopa.players.base import determinize
from scopa.players.inference import OpponentModel

# (after tests/, not before: its conftest is not the tests' one, test_batch.py)
sys.path.append(str(Path(__file__).resolve().parent.parent / "benchmarks"))

import anytime  # noqa: E402
import flag_only  # noqa: E402
import fuzz  # noqa: E402
import greedy_tune  # noqa: E402
import information  # noqa: E402
import levels  # noqa: E402
import load  # noqa: E402
import loop_gap  # noqa: E402
import mutation  # noqa: E402
import opponent_fit  # noqa: E402
import pimc_variants  # noqa: E402
import report  # noqa: E402
import review as review_bench  # noqa: E402  (benchmarks/review.py)
import soak  # noqa: E402
import stopping  # noqa: E402
import strength  # noqa: E402


def test_opponent_fit_features_are_the_models_and_the_fit_raises_the_likelihood(monkeypatch):
    choices = opponent_fit.selfplay(("scopa", 3, 5))
    assert len(choices) > 20 and all(len(m) > 1 and 0 <= i < len(m) for m, _, _, i in choices)
    opts = scopa.Rules.preset("scopa").core_options
    default = OpponentModel()
    # design() checks every move's features against OpponentModel.move_logits
    x, real, chosen = opponent_fit.design(choices, opts, default)
    theta0 = opponent_fit.theta_of(default)
    theta = opponent_fit.fit(x, real, chosen, theta0)
    before, _ = opponent_fit.loglik(theta0, x, real, chosen)
    after, grad = opponent_fit.loglik(theta, x, real, chosen)
    assert after > before and np.abs(grad).max() < 1e-3  # near the maximum (1e-6 unless the data separate)
    # features that no longer match the model's scores are caught
    real_features = opponent_fit.features

    def drifted(*args):
        f = real_features(*args)
        return [f[0] + 1, *f[1:]]

    monkeypatch.setattr(opponent_fit, "features", drifted)
    with pytest.raises(AssertionError, match="features drifted"):
        opponent_fit.design(choices, opts, default)


def test_sees_played_sees_a_hand_once_it_has_been_played_from():
    rules = scopa.Rules.preset("scopa")
    ref = information.Reference("sees-played", rules, samples=1, exact=0, depth=1, seed=3)
    s = scopa.State.deal("scopa", seed=8)
    me, opp = s.turn, 1 - s.turn
    # before the opponent has played from its hand it is sampled, so it varies
    assert len({ref._sample(s)[0][opp] for _ in range(20)}) > 1
    s = s.play(s.legal_moves()[0])  # this seat plays
    s = s.play(s.legal_moves()[0])  # the opponent plays from its three cards
    assert s.turn == me and len(s.hands[opp]) == 2
    # now this seat sees the opponent's two cards; only the stock order is sampled
    for _ in range(5):
        pos = ref._sample(s)
        assert pos[0] == s.masks[0] and sorted(pos[2]) == sorted(s.masks[2])
    honest = information.Reference("honest", rules, samples=1, exact=0, depth=1, seed=3)
    assert len({honest._sample(s)[0][opp] for _ in range(20)}) > 1


def test_information_against_pimc_is_reproducible(monkeypatch):
    # --opponent pimc: default PIMC without its time cap, seeded per game, so a run repeats
    rules = scopa.Rules.preset("scopa")
    other = information.opponent_for("pimc", 5)
    assert isinstance(other, scopa.players.PIMCPlayer) and other.time_limit is None
    assert isinstance(information.opponent_for("greedy", 5), scopa.players.GreedyPlayer)
    with pytest.raises(ValueError, match="unknown opponent 'ismcts'"):
        information.opponent_for("ismcts", 5)
    # (8 samples a move, not 128, for the test's time: 74 s in the twin)
    monkeypatch.setattr(information, "PIMCPlayer", functools.partial(scopa.players.PIMCPlayer, samples=8))
    runs = [information.run("honest", rules, 2, 2, 6, 2, 9, opponent="pimc") for _ in range(2)]
    assert runs[0] == runs[1] and len(runs[0]) == 2


def test_the_levels_fit_orders_and_anchors_the_ratings():
    # level 2 beats level 1 three deals in four, level 3 beats level 2 as often: Bradley-Terry
    # puts them about 190 Elo apart each (400 log10 3), level 1 at 1000
    r = levels.fit({(2, 1): (75, 25, 0), (3, 2): (75, 25, 0)}, 3)
    assert r[0] == 1000 and 150 < r[1] - r[0] < 200 and 150 < r[2] - r[1] < 200
    level_pair = levels.fit({(2, 1): (10, 10, 80)}, 2)
    assert abs(level_pair[1] - 1000) < 1


def test_move_times_time_every_move_of_the_hands(capsys):
    times = levels.move_times("scopa", 1, [1, 2])
    assert set(times) == {1, 2} and all(len(t) == 36 and min(t) >= 0 for t in times.values())
    assert levels.main(["--game", "scopa", "--move-times", "1", "--levels", "1"]) == 0
    out = capsys.readouterr().out
    assert "| 1 | 36 |" in out and "longest" in out


def test_round_pimc_searches_no_further_than_the_next_refill():
    rules = scopa.Rules.preset("scopa")
    s = scopa.State.deal("scopa", seed=4)
    round_pimc = pimc_variants.RoundPIMC(seed=1)
    for _ in range(3):  # six, five and four cards in the hands, stock left: as deep as the round
        left = sum(len(h) for h in s.hands)
        plain = scopa.players.PIMCPlayer(seed=1, depth=left).sample_values(s.masks, rules)
        assert round_pimc.sample_values(s.masks, rules) == plain
        assert plain != scopa.players.PIMCPlayer(seed=1).sample_values(s.masks, rules)  # depth 8 differs
        s = s.play(s.legal_moves()[0])
    while s.stock:  # the last round: no stock left, PIMC's own values
        s = s.play(s.legal_moves()[0])
    last_round = scopa.players.PIMCPlayer().sample_values(s.masks, rules)
    assert round_pimc.sample_values(s.masks, rules) == last_round


def test_opponent_records_rebuild_the_position_before_each_play():
    s = scopa.State.deal("scopa", seed=11)
    states = []
    for _ in range(4):
        states.append(s)
        s = s.play(s.legal_moves()[-1])
    view = s.view(s.turn)
    opp = 1 - s.turn
    records = pimc_variants.opponent_records(view, opp, 2)
    assert records is not None and len(records) == 2
    plays = [i for i, (seat, _) in enumerate(view.history) if seat == opp]
    for rec, idx in zip(records, reversed(plays), strict=True):
        i, c, cap, table, piles, later, _ = rec
        before = states[idx]
        assert i == idx and (c, cap) == (view.history[idx][1].card.index, view.history[idx][1].capture_mask)
        assert table == before.table.mask and piles == (before.captured[0].mask, before.captured[1].mask)
        assert before.hands[opp].mask == s.hands[opp].mask | later | 1 << c
    assert pimc_variants.opponent_records(view, opp, 9) is None  # the history is shorter


def test_the_simulated_inference_doubts_hands_that_would_have_swept():
    # RULES §3.6 (a scopa): the opponent laid 7d (the settebello) on 2b 6b, where a jack would have swept both
    s = scopa.State.deal("scopa", seed=8)
    me = s.turn
    s = s.play(s.legal_moves()[0])
    assert str(s.table) == "2b 6b"
    s = s.play(scopa.Move.parse("7d"))
    view = s.view(me)
    player = pimc_variants.SimulatedInferencePIMC(seed=3)
    hands, cum = player._posterior(view)
    weights = [b - a for a, b in zip([0.0, *cum[:-1]], cum, strict=True)]
    assert abs(cum[-1] - 1) < 1e-9 and len(hands) == math.comb(len(view.unseen), 2)
    jacks = scopa.CardSet.parse("Jd Jc Js Jb").mask
    with_jack = [w for h, w in zip(hands, weights, strict=True) if h[1 - me] & jacks]
    without = [w for h, w in zip(hands, weights, strict=True) if not h[1 - me] & jacks]
    assert with_jack and without
    assert sum(with_jack) / len(with_jack) < 0.25 * sum(without) / len(without)  # 0.12 here
    # the likelihoods are kept per play: a second call draws nothing new and agrees
    assert player._posterior(view) == (hands, cum)


def test_the_simulated_opponent_predicts_pimc_better_than_chance():
    # (PIMC without its time cap, which cut its samples on a loaded machine: other moves, and
    # once a likelihood below the uniform one in a CI run; smaller, so the twin is quick)
    fixed = {"time_limit": None, "samples": 16, "exact_plays": 6, "depth": 4}
    r = pimc_variants.predict(hands=1, samples=2, depth=2, seed=5, temperatures=(0.2, 1.0), pimc=fixed)
    assert r["choices"] > 5 and r["top"] > r["chance"] > 0  # better than a uniform guess
    assert 0 > r["loglik"][1.0] > r["uniform"]  # and the softmax than the uniform likelihood


def _fusion_view(seed: int) -> scopa.PlayerView:
    s = scopa.State.deal("scopa", seed=seed)
    for _ in range(7):  # into the second round: stock left, depth-limited searches
        s = s.play(s.legal_moves()[0])
    return s.view(s.turn)


def test_fusion_pimc_is_pimc_when_no_two_samples_share_a_choice():
    # one sample: every group has one member, so its next move is the sample's best one, as
    # PIMC's search takes it; every reply grouped (min_reply=0)
    view = _fusion_view(21)
    fusion = pimc_variants.FusionPIMC(min_reply=0.0, samples=1, time_limit=None, seed=4).evaluate(view)
    plain = scopa.players.PIMCPlayer(samples=1, time_limit=None, seed=4).evaluate(view)
    assert fusion.keys() == plain.keys()
    for move, (value, risk) in plain.items():
        assert math.isclose(fusion[move][0], value, abs_tol=1e-9) and fusion[move][1] == risk


def test_blind_reply_pimc_values_lie_between_the_best_and_the_worst_reply():
    # the opponent's blind reply is one of its replies: each move is worth at least its value
    # against the best reply (PIMC without reply weighing) and at most against the worst; with
    # blind=0 it is PIMC exactly; and somewhere here the blind reply is not the best one
    view = _fusion_view(21)
    pos = determinize(view, random.Random(5)).masks
    rules = view.rules
    plain = scopa.players.PIMCPlayer(seed=4)
    assert pimc_variants.BlindReplyPIMC(blind=0.0, seed=4).sample_values(pos, rules) == plain.sample_values(
        pos, rules
    )
    minimax = {
        (c, m): v for c, m, v in scopa.players.PIMCPlayer(reply_weight=0, seed=4).sample_values(pos, rules)
    }
    blind = pimc_variants.BlindReplyPIMC(worlds=8, seed=4).sample_values(pos, rules)
    opts, block = rules.core_options, rules.hand_size
    gains = []
    for c, m, v in blind:
        child = scopa_core.apply_move(pos, c, m, opts, block)
        replies = plain._minimax_values(child, rules, False, plain._depth(2) - 1)
        worst = -min(r for _, _, r in replies)
        assert minimax[(c, m)] - 1e-9 <= v <= worst + 1e-9
        gains.append(v - minimax[(c, m)])
    assert max(gains) > 0.01


def test_fusion_pimc_chooses_once_per_information_set():
    # the same samples (same seed): choosing the next move once for every sample that sees the
    # same reply and hand can only lower a move's mean, never raise it, and here it does lower one
    view = _fusion_view(21)
    fusion = pimc_variants.FusionPIMC(min_reply=0.0, samples=48, time_limit=None, seed=4).evaluate(view)
    plain = scopa.players.PIMCPlayer(samples=48, time_limit=None, seed=4).evaluate(view)
    gaps = [plain[m][0] - fusion[m][0] for m in plain]
    assert min(gaps) > -1e-9 and max(gaps) > 0.01


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is a POSIX thing")
def test_stopping_times_each_call_and_judges_the_one_second_bound(monkeypatch, capsys):
    # RULES §8: one Ctrl-C row a long call, one row a time-limited call of each set (solve and
    # analyze on three positions), each judged against the 1 s.
    monkeypatch.setattr(stopping, "LONG_CALLS", {"rollouts": stopping.LONG_CALLS["rollouts"]})
    assert stopping.main(["--quick"]) == 0
    rows = [line.split(" | ") for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    data = [r for r in rows if r[1].strip().isdigit()]
    limited = [f"| {c}, {s}" for s in ("full deal", "scopa deal", "k = 8") for c in ("solve", "analyze")]
    assert [r[0] for r in data] == ["| rollouts", *limited]
    for r in data:
        assert int(r[1]) == 1 and float(r[2]) <= float(r[3]) and r[4] in ("yes |", "NO |")
    monkeypatch.setattr(stopping, "LONG_CALLS", {"none": "pass"})  # exits before the Ctrl-C
    with pytest.raises(RuntimeError, match="none: no KeyboardInterrupt"):
        stopping.main(["--quick"])


def test_report_turns_a_benchmark_file_into_the_tables(tmp_path, capsys):
    data = {
        "machine_info": {"cpu": {"brand_raw": "Test CPU"}, "python_version": "3.11.7"},
        "benchmarks": [
            {
                "name": f"test_playouts[{core}]",
                "params": {"core": core, "game": "scopa"},
                "extra_info": {"calls": 100},
                "stats": {"median": median},
            }
            for core, median in (("cython", 0.01), ("python", 0.5))
        ],
    }
    path = tmp_path / "bench.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    report.main([str(path)])
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "machine: Test CPU, Python 3.11.7"
    assert "| playouts (scopa) | hands/s | 10,000 | 200 | 50x |" in out
    with pytest.raises(SystemExit) as done:
        report.main(["--help"])
    assert done.value.code == 0 and "pytest-benchmark JSON" in capsys.readouterr().out


def test_flag_only_times_both_ways_and_finds_every_search_exact(monkeypatch, capsys):
    monkeypatch.setattr(flag_only, "KINDS", (("scopa", 2),))
    assert flag_only.main(["--count", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:2] == ["call", "endgames"] and len(lines) == 3
    assert [line.split()[0] for line in lines[1:]] == ["solve", "analyze"]
    assert all(line.split()[1:5] == ["2", "of", "scopa,", "2"] for line in lines[1:])


def _refused_before_any_run(module, monkeypatch, capsys, argv, *say, runs="arena"):
    """``module.main(argv)`` ends with argparse's status 2 and a message naming the bad value,
    before any arena runs (an audit: the scripts ran hours of earlier work before the arena
    refused a bad setting, or ran nonsense)."""

    def no_arena(*args, **kwargs):
        raise AssertionError("an arena ran")

    monkeypatch.setattr(module, runs, no_arena)
    with pytest.raises(SystemExit) as exc:
        module.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert all(s in err for s in say), err


@pytest.mark.parametrize(
    ("argv", "say"),
    [
        (["--scale", "0"], "bad --scale 0.0"),
        (["--scale", "-1"], "bad --scale -1.0"),
        (["--scale", "nan"], "bad --scale nan"),
        (["--scale", "inf"], "bad --scale inf"),
        (["scopa-greedy-random", "--scale", "600"], "at most 1,000,000 deals"),
        (["--jobs", "0"], "bad --jobs 0"),
        (["--seed", "-1"], "bad --seed -1"),
    ],
)
def test_strength_refuses_a_bad_setting_before_the_first_pairing(monkeypatch, capsys, argv, say):
    # --scale 0 or -1 ran every pairing on 2 deals, NaN and inf ended in a traceback, a bad
    # --jobs or --seed in the arena's (before the fix: main() took no argv either)
    _refused_before_any_run(strength, monkeypatch, capsys, argv, say)


@pytest.mark.parametrize(
    ("argv", "say"),
    [
        (["--levels", "7"], "bad --levels 7: expected an int in 2..6"),
        (["--levels", "0"], "bad --levels 0"),
        (["--levels", "1"], "bad --levels 1"),
        (["--move-times", "0"], "bad --move-times 0"),
        (["--move-times", "-1"], "bad --move-times -1"),
        (["--deals", "0"], "bad --deals 0"),
        (["--jobs", "0"], "bad --jobs 0"),
        (["--seed", "-1"], "bad --seed -1"),
        (["--game", "scopa2"], "bad --game 'scopa2'"),
    ],
)
def test_levels_refuses_a_bad_setting_before_the_first_pair(monkeypatch, capsys, argv, say):
    # --levels 7 played every other pair (hours at 1,000 deals) before the arena refused
    # 'level7'; 0 ended in a KeyError of the fit, --move-times 0 ran the ratings instead and -1
    # a ZeroDivisionError
    _refused_before_any_run(levels, monkeypatch, capsys, argv, say)


@pytest.mark.parametrize(
    ("argv", "say"),
    [
        (["honest", "bogus"], "unknown mode 'bogus'"),
        (["--samples", "0"], "bad --samples 0"),
        (["--samples", "-2"], "bad --samples -2"),
        (["--deals", "1"], "bad --deals 1: expected an int in 2..1,000,000 (an interval needs two)"),
        (["--deals", "0"], "bad --deals 0"),
        (["--exact", "-1"], "bad --exact -1"),
        (["--depth", "0"], "bad --depth 0"),
        (["--seed", "-1"], "bad --seed -1"),
        (["--game", "scopa2"], "bad --game 'scopa2'"),
    ],
)
def test_information_refuses_a_bad_setting_before_the_first_mode(monkeypatch, capsys, argv, say):
    # 'honest bogus' ran honest (1,000 deals by default) before refusing bogus; --samples 0 played
    # the first legal move every time and printed its figures; --deals 1 ended in a StatisticsError
    _refused_before_any_run(information, monkeypatch, capsys, argv, say, runs="run")


@pytest.mark.parametrize(
    ("argv", "say"),
    [
        (["sweep=2.5", "swep=1"], ("bad variant 'swep=1'", "spariglio")),
        (["sweep"], ("bad variant 'sweep'", "without '=value'")),
        (["sweep=x"], ("bad variant 'sweep=x'",)),
        (["sweep=-1"], ("bad variant 'sweep=-1'", "bad GreedyWeights sweep -1.0")),
        (["default", "--deals", "0"], ("bad --deals 0",)),
        (["default", "--jobs", "0"], ("bad --jobs 0",)),
        (["default", "--seed", "-1"], ("bad --seed -1",)),
        (["default", "--game", "scopa2"], ("bad --game 'scopa2'",)),
        (["default", "--option", "bogus"], ("invalid choice: 'bogus'",)),
        (
            ["default", "--option", "ace_sweep_is_scopa"],
            ("bad --option for scopa", "needs ace_takes_all=True"),
        ),
    ],
)
def test_greedy_tune_refuses_a_bad_setting_before_the_first_variant(monkeypatch, capsys, argv, say):
    # 'sweep=2.5 swep=1' ran sweep=2.5 (1,000 deals) and then ended in GreedyWeights' TypeError;
    # 'sweep' alone in dict()'s "dictionary update sequence element #0 has length 1"
    _refused_before_any_run(greedy_tune, monkeypatch, capsys, argv, *say)


def test_report_refuses_a_file_that_is_not_a_benchmark_file(tmp_path, capsys):
    # a missing file, one that is not JSON and one of other JSON ended in tracebacks (of open,
    # json and a KeyError of 'machine_info')
    (tmp_path / "text.json").write_text("not json", encoding="utf-8")
    (tmp_path / "other.json").write_text('{"hands": []}', encoding="utf-8")
    for name, say in (
        ("missing.json", "cannot read"),
        ("text.json", "cannot read"),
        ("other.json", "is not a pytest-benchmark file"),
    ):
        with pytest.raises(SystemExit) as exc:
            report.main([str(tmp_path / name)])
        err = capsys.readouterr().err
        assert exc.value.code == 2 and say in err and name in err


@pytest.mark.parametrize(
    ("argv", "say"),
    [
        (["--inputs", "0"], "bad --inputs 0"),
        (["--inputs", "-5"], "bad --inputs -5"),
        (["--jobs", "0"], "bad --jobs 0"),
        (["--hang", "0"], "bad --hang 0.0"),
        (["--hang", "nan"], "bad --hang nan"),
        (["--show", "-1"], "bad --show -1"),
        (["--replay", "bogus"], "bad --replay 'bogus': expected TARGET:SEED:INDEX"),
        (["--replay", "core:1:x"], "bad --replay 'core:1:x'"),
        (["--replay", "core:1:2:3"], "bad --replay 'core:1:2:3'"),
        (["--replay", "engine:1:2:0"], "bad --replay 'engine:1:2:0'"),
    ],
)
def test_fuzz_refuses_a_bad_setting_before_the_campaign(monkeypatch, capsys, argv, say):
    # --inputs 0 or -5 ran some 250 inputs under a header of 0, --jobs 0 ended in the thread
    # pool's ValueError, --hang 0 made every input a hang, --replay bogus an unpacking's ValueError
    _refused_before_any_run(fuzz, monkeypatch, capsys, argv, say, runs="supervise")


@pytest.mark.parametrize(
    ("argv", "say"),
    [
        (["--times", "abc"], "bad --times 'abc'"),
        (["--times", "0.1,0"], "bad --times '0.1,0'"),
        (["--times", "nan"], "bad --times 'nan'"),
        (["--deals", "-1"], "bad --deals -1"),
        (["--jobs", "0"], "bad --jobs 0"),
    ],
)
def test_anytime_refuses_a_bad_setting_before_the_pool_starts(monkeypatch, capsys, argv, say):
    # a word in --times ended in float()'s ValueError, a time of 0 in the solver's LimitError
    # raised in a worker, --jobs 0 in the process pool's ValueError
    _refused_before_any_run(anytime, monkeypatch, capsys, argv, say, runs="ProcessPoolExecutor")


@pytest.mark.parametrize(
    ("argv", "say"),
    [
        (["--deals", "0"], "bad --deals 0"),
        (["--speed-hands", "0"], "bad --speed-hands 0"),
        (["--time", "0"], "bad --time 0.0: expected seconds per play in (0, 3600]"),
        (["--time", "nan"], "bad --time nan"),
        (["--jobs", "0"], "bad --jobs 0"),
    ],
)
def test_review_benchmark_refuses_a_bad_setting_before_the_speed_rows(monkeypatch, capsys, argv, say):
    # each failed only after the speed rows (a minute of reviews): --deals 0 in a StatisticsError,
    # --time 0 in the review's LimitError from a worker, --speed-hands 0 in an IndexError
    _refused_before_any_run(review_bench, monkeypatch, capsys, argv, say, runs="speed")


@pytest.mark.parametrize(("inputs", "sessions"), [("10", [1]), ("1000", [130]), ("3000", [250, 140])])
def test_fuzz_plays_as_many_engine_lines_as_its_share_of_the_inputs(monkeypatch, capsys, inputs, sessions):
    # the open list: `fuzz.py --inputs N` played at least one engine session of 250 lines whatever
    # N (--inputs 10: 250 engine lines, a table of 250-odd inputs under a header of 10); the last
    # session now takes what is left of the engine's share, and its --replay names its length
    played: list[int] = []

    def run_engine(lines, name="engine", timeout=None):
        played.append(len(lines))
        return fuzz.fz.EngineRun(fuzz.fz.Tally(name), 0.0, "")

    monkeypatch.setattr(fuzz, "supervise", lambda *args: {})  # (the other targets: not run here)
    monkeypatch.setattr(fuzz.fz, "run_engine", run_engine)
    assert fuzz.main(["--inputs", inputs, "--jobs", "1"]) == 0
    assert sorted(played, reverse=True) == sessions
    assert fuzz.session_repro(1, 1, 140) == "--replay engine:1:1:140"
    assert fuzz.session_repro(1, 0, fuzz.ENGINE_SESSION) == "--replay engine:1:0"
    played.clear()
    assert fuzz.main(["--replay", "engine:1:1:140"]) == 0 and played == [140]
    capsys.readouterr()


def test_mutation_testing_finds_one_change_at_a_time_and_leaves_messages_alone(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        "def f(x):\n"
        "    if x > 1 and not x == 5:\n"
        "        return x + 1\n"
        "    raise ValueError(f'bad x {x - 1}')\n"
        "\n"
        "class C:\n"
        "    def __repr__(self):\n"
        "        return 'C(' + str(1) + ')'\n"
    )
    found = mutation.mutants(module)
    assert [m.id for m in found] == list(range(len(found)))
    whats = sorted(m.what for m in found)
    assert whats == sorted(
        [
            "negate the if `x > 1 and (not x == 5)`",
            "And -> Or in `x > 1 and (not x == 5)`",
            "Gt -> GtE in `x > 1`",
            "1 -> 2",
            "1 -> 0",
            "drop the not of `not x == 5`",
            "Eq -> NotEq in `x == 5`",
            "5 -> 6",
            "5 -> 4",
            "return x + 1 -> return None",
            "Add -> Sub in `x + 1`",
            "1 -> 2",
            "1 -> 0",
            "raise -> pass",
        ]
    ), whats  # (nothing in the message's f-string, nothing in __repr__)
    source = module.read_bytes()
    for m in found:
        compile(m.apply(source), "m.py", "exec")
    assert mutation.spread(found, 3) == [found[0], found[len(found) // 3], found[2 * len(found) // 3]]


def test_mutation_testing_runs_the_tests_on_a_copy_and_tells_killed_from_survived():
    # a history leading elsewhere is refused (raise -> pass lets it through: killed); the view's
    # stock bound is not what that test reads (survived); the checkout is never written to
    path = mutation.ROOT / "src" / "scopa" / "notation.py"
    before = path.read_bytes()
    found = mutation.mutants(path)

    def span(m):
        return before[m.start : m.end].decode()

    refuse = next(m for m in found if m.what == "raise -> pass" and "its plays lead to" in span(m))
    bound = next(
        m for m in found if m.what == "40 -> 41" and "stock <= 40" in before.decode().splitlines()[m.line - 1]
    )
    test = "tests/test_state.py::test_a_json_positions_history_must_lead_to_it_from_a_start_of_either_form"
    results = list(mutation.run("src/scopa/notation.py", [test], [refuse, bound], 300, {}))
    assert [(m, status) for m, status, _, _ in results] == [(refuse, "killed"), (bound, "survived")], results
    assert "1 passed" in results[1][3]
    assert path.read_bytes() == before


def test_mutation_testing_gives_its_copy_the_compiled_core_this_python_imports(tmp_path):
    # CI installs a wheel and builds nothing in the checkout: the copy's tests found no
    # scopa_core._core (tests/conftest.py asks for it unless SCOPA_NO_EXTENSIONS is set)
    mutation._with_compiled_core(tmp_path)
    built = [p.name for p in tmp_path.iterdir()]
    if scopa_core.IMPLEMENTATION == "cython":
        assert len(built) == 1 and built[0].startswith("_core.") and built[0].endswith((".so", ".pyd"))
        before = (tmp_path / built[0]).stat().st_mtime_ns
        mutation._with_compiled_core(tmp_path)  # (one there already: kept)
        assert (tmp_path / built[0]).stat().st_mtime_ns == before
    else:
        assert built == [] or all(name.startswith("_core.") for name in built)


def test_the_slope_is_the_least_squares_one():
    assert soak.slope([(0, 100), (10, 120), (20, 140)]) == pytest.approx(2.0)
    assert soak.slope([(0, 5), (1, 7), (2, 5), (3, 7)]) == pytest.approx(0.4)
    assert soak.slope([(0, 100)]) == 0.0 and soak.slope([(3, 1), (3, 9)]) == 0.0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize(("cmd", "via"), [("solve", "http"), ("bestmove", "ws")])
def test_the_soak_reads_the_servers_memory_between_whole_requests(cmd, via, capsys):
    pytest.importorskip("uvicorn")
    settings = argparse.Namespace(requests=60, warmup=10, every=20, cmd=cmd, via=via)
    readings = soak.soak(settings)
    assert [n for n, _ in readings] == [0, 20, 40, 60]
    assert all(20 * 2**20 < b < 2**31 for _, b in readings), readings  # (a Python server's RSS)
    out = capsys.readouterr().out
    assert f"60 {cmd} requests over {via} (after 10 to warm up)" in out and "bytes a request" in out


@pytest.mark.parametrize(
    ("argv", "say"),
    [(["--requests", "0"], "bad --requests 0"), (["--every", "-1"], "bad --every -1"),
     (["--warmup", "-1"], "bad --warmup -1"), (["--cmd", "quit"], "invalid choice: 'quit'")],
)  # fmt: skip
def test_soak_refuses_a_bad_setting_before_the_server_starts(argv, say, capsys):
    with pytest.raises(SystemExit) as stopped:
        soak.main(argv)
    assert stopped.value.code == 2 and say in capsys.readouterr().err


def test_load_ends_its_slow_clients_through_the_servers_request_timeout(capsys):
    pytest.importorskip("uvicorn")
    assert load.main(["--clients", "0", "--slow-clients", "3", "--request-timeout", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "3 clients sending half a request line: {'HTTP/1.1 408 Request Timeout': 3}" in out, out


def test_loop_gap_times_both_writers_on_the_same_text(capsys):
    assert loop_gap.main(["--plays", "300", "--runs", "2"]) == 0
    out = capsys.readouterr().out
    assert "a reply of 300 plays" in out and "| `dumps` |" in out and "| `dumps_in_pieces` |" in out
    assert len(scopa.jsonio.dumps(loop_gap.reply(300))) > 300 * 100  # (about 113 characters a play)
    with pytest.raises(SystemExit) as stopped:
        loop_gap.main(["--runs", "0"])
    assert stopped.value.code == 2 and "bad --runs 0" in capsys.readouterr().err
    # the table's mode: a solver's table made in a thread
    assert loop_gap.main(["--table", "4", "--runs", "2"]) == 0
    out = capsys.readouterr().out
    assert "a solver's table of 4 MB made in a thread" in out and "the loop's longest wait" in out, out
    with pytest.raises(SystemExit) as stopped:
        loop_gap.main(["--table", "0"])
    assert stopped.value.code == 2 and "bad --table 0" in capsys.readouterr().err
