"""Bad input raises a specific ScopaError subclass whose message quotes the bad value."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

import scopa
from scopa import errors
from scopa.arena import arena
from scopa.batch import solve_many
from scopa.notation import view_from_json
from scopa.players import GreedyPlayer, ISMCTSPlayer, PIMCPlayer, make_player
from scopa.players.greedy import GreedyWeights, reply_outcomes
from scopa.players.inference import OpponentModel
from scopa.review import check_time_per_play, format_text, review
from scopa.scoring import HandScore
from scopa.svg import card, position

SRC = Path(scopa.__file__).parent
W = GreedyWeights()
RULES = scopa.Rules.preset("scopa")

#: the one place the base class itself is raised: not bad input, a missing optional install
BASE_ALLOWED = {("__main__.py", "needs the server extra")}


def test_no_module_raises_the_base_class_for_bad_input():
    found = set()
    for path in sorted(SRC.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"raise ScopaError\(\s*(.{0,80})", text):  # (the message may start a line on)
            name = path.relative_to(SRC).as_posix()
            allowed = [key for file, key in BASE_ALLOWED if file == name and key in m.group(1)]
            found.add((name, allowed[0] if allowed else m.group(1)))
    assert found == BASE_ALLOWED


@pytest.mark.parametrize("core", ["compiled", "twin"])
def test_the_cores_bad_input_is_a_core_error_a_scopa_error(core):
    # the core's own checks raised bare ValueErrors: a user of scopa_core caught them as
    # ValueError only; they are CoreError now, a ScopaError, on both cores
    import pickle

    import scopa_core
    import scopa_core._twin as twin

    if core == "compiled" and scopa_core.IMPLEMENTATION != "cython":
        pytest.skip("the compiled core is not loaded")
    mod = twin if core == "twin" else scopa_core
    calls = [
        lambda: mod.apply_move(((1,),), 0, 0, 0, 3),
        lambda: mod.captures(40, 0, 0),
        lambda: mod.legal_moves(1 << 40, 0, 0),
        lambda: mod.primiera(-1, 0),
        lambda: mod.deal(3, 3, 4, 0, 1),
        lambda: mod.Solver(-1),
        lambda: mod.StopFlag(set=1),
    ]
    for call in calls:
        with pytest.raises(scopa.ScopaError) as info:
            call()
        assert type(info.value) is scopa.CoreError is scopa_core.CoreError is errors.CoreError
        again = pickle.loads(pickle.dumps(info.value))
        assert type(again) is scopa.CoreError and str(again) == str(info.value) and "bad " in str(again)
    assert scopa.ScopaError.__module__ == "scopa.errors" and issubclass(scopa.CoreError, ValueError)


def _score() -> HandScore:
    s = scopa.State.deal("scopa", seed=1)
    while not s.is_over:
        s = s.play(s.legal_moves()[0])
    return s.score()


def _hand() -> scopa.HandRecord:
    s = scopa.State.deal("scopa", seed=1)
    return s.play(s.legal_moves()[0]).record()


def _hand_match() -> scopa.MatchRecord:
    return scopa.MatchRecord(RULES, (_hand(),))


def _review() -> scopa.review.Review:
    return review(_hand(), time_limit=0.01)


def _view(**changes: object) -> scopa.PlayerView:

    return dataclasses.replace(
        scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1").view(0), **changes
    )


@pytest.mark.parametrize(
    ("call", "kind", "quoted"),
    [
        (lambda: PIMCPlayer(samples=0), errors.OptionError, "bad samples 0"),
        (lambda: PIMCPlayer(threads=99), errors.OptionError, "bad threads 99"),
        (lambda: PIMCPlayer(exact_plays=-1), errors.OptionError, "bad exact_plays -1"),
        (lambda: PIMCPlayer(tie=-0.5), errors.OptionError, "bad tie -0.5"),
        (lambda: PIMCPlayer(tie=float("nan")), errors.OptionError, "bad tie nan"),
        (lambda: ISMCTSPlayer(playout="wild"), errors.OptionError, "bad playout 'wild'"),
        (lambda: ISMCTSPlayer(prior=-1), errors.OptionError, "bad prior -1"),
        (lambda: GreedyPlayer(weights=3), errors.OptionError, "bad GreedyPlayer weights 3"),  # type: ignore[arg-type]
        (lambda: GreedyWeights(sweep=-1), errors.OptionError, "bad GreedyWeights sweep -1"),
        (lambda: OpponentModel(temperature=0), errors.OptionError, "bad OpponentModel temperature 0"),
        (lambda: make_player("nobody"), errors.OptionError, "unknown player 'nobody'"),
        (lambda: make_player("level9"), errors.OptionError, "unknown player 'level9'"),
        (lambda: scopa.players.level(9), errors.OptionError, "unknown level 9"),
        (lambda: make_player("level2", samples=3), errors.OptionError, "bad options for player 'level2'"),
        (lambda: arena("scopa", "greedy", "greedy", deals=0), errors.OptionError, "bad deals 0"),
        (lambda: arena("scopa", "greedy", "greedy", deals=1, jobs=0), errors.OptionError, "bad jobs 0"),
        # (an audit: any int was taken, and random.Random(-7) deals as Random(7) does)
        (
            lambda: arena("scopa", "greedy", "greedy", deals=1, seed=-7),
            errors.OptionError,
            "bad seed -7: exp",
        ),
        (
            lambda: arena("scopa", "greedy", "greedy", deals=1, seed=1 << 64),
            errors.OptionError,
            "bad seed 1844",
        ),
        # (an API audit: a NumPy number, which has a choose method, was taken for a player; a
        # NumPy array reached "in" and NumPy's own error; to_json's rules were not checked)
        (
            lambda: arena("scopa", np.int64(1), "random", deals=1),
            errors.OptionError,
            f"bad player {np.int64(1)!r}: expected",
        ),
        (
            lambda: scopa.Rules.preset("scopa", capture_rule=np.array(["a", "b"])),
            errors.RulesError,
            "bad capture_rule array",
        ),
        (
            lambda: scopa.State.deal("scopa", seed=1).score().to_json(1),
            errors.RulesError,
            "bad rules 1: expected",
        ),
        (lambda: scopa.Solver(tt_size_mb=0), errors.OptionError, "bad tt_size_mb 0"),
        (lambda: scopa.Solver(threads=-2), errors.OptionError, "bad threads -2"),
        (lambda: scopa.random_playouts("scopa", -1), errors.OptionError, "bad number of hands -1"),
        (lambda: scopa.random_playouts("scopa", 1, seed=-5), errors.OptionError, "bad seed -5"),
        (lambda: card("7d", deck="tarot"), errors.OptionError, "unknown deck 'tarot'"),
        (lambda: position("7d"), errors.OptionError, "cannot draw '7d'"),  # type: ignore[arg-type]
        (lambda: review(42), errors.OptionError, "cannot review 42 (int)"),  # type: ignore[arg-type]
        # (an API audit: "" and "abc" were taken as hands, "" as none and "abc" hand by letter)
        (
            lambda: scopa.MatchRecord(scopa.Rules.preset("scopa"), ""),
            scopa.RecordError,
            "bad record hands ''",
        ),
        (lambda: scopa.solve([1]), errors.PositionError, "bad state [1]: expected a scopa.State"),  # type: ignore[arg-type]
        (
            lambda: scopa.arena.play_hand("scopa", []),  # type: ignore[arg-type]
            errors.PositionError,
            "bad state 'scopa': expected a scopa.State",
        ),
        (
            lambda: HandScore.from_piles(RULES, [], [], (1, -1)),
            errors.PositionError,
            "bad scope",
        ),
        (lambda: reply_outcomes(1 << 41, 0, 3, 0, W), errors.CardError, "bad table 2199023255552"),
        (lambda: reply_outcomes(1, 1, 3, 0, W), errors.CardError, "bad unseen 1"),
        (lambda: reply_outcomes(1, 2, 3, 999, W), errors.RulesError, "bad opts 999"),
        (lambda: reply_outcomes(1, 2, -3, 0, W), errors.OptionError, "bad hand_size -3"),
        # found by an audit of the server: a view without its fields said "bad turn None"; the
        # viewer's hand given at another seat, that hand "must be a number of cards"; a record
        # without a format named only the match format, though a hand's is taken too
        (
            lambda: view_from_json({"rules": "scopa"}),
            errors.PositionError,
            "view lacks required fields 'hands', 'turn'",
        ),
        (
            lambda: view_from_json(
                {"rules": "scopa", "seat": 1, "turn": 0, "hands": [["7d"], 1], "table": ["Kc"]}
            ),
            errors.PositionError,
            "got ['7d'] (the viewer is seat 1: only its own hand is a list of cards)",
        ),
        (
            lambda: scopa.load_record({"rules": "scopa", "hands": []}),
            scopa.RecordError,
            "expected 'scopa-record' or 'scopa-hand'",
        ),
        # found by an audit of the API's edges: each once a TypeError, a bare ValueError, an
        # AttributeError or a silently broken result
        (lambda: HandScore.from_piles(RULES, [], [], (300, 0)), errors.PositionError, "bad scope (300, 0)"),
        # (an API review: scope on an empty pile was scored, where State.from_cards refuses it)
        (
            lambda: HandScore.from_piles(RULES, ["7d"], [], (0, 2)),
            errors.PositionError,
            "team 1 has 2 scope but an empty pile: each scopa captures cards",
        ),
        (  # (and a score read from JSON, or built by hand, holding it)
            lambda: HandScore.from_json(
                '{"points": [1, 1], "categories": {"carte": {"points": [0, 1], "cards": [0, 3]},'
                ' "denari": {"points": [0, 0], "coins": [0, 1]}, "settebello": {"points": [0, 0]},'
                ' "primiera": {"points": [0, 0], "totals": [null, null]},'
                ' "scope": {"points": [1, 0], "count": [1, 0]}}}'
            ),
            errors.PositionError,
            "team 0 has 1 scopa but an empty pile",
        ),
        (lambda: HandScore.from_piles(RULES, ["7d"], ["7d"]), errors.CardError, "card 7d is in both piles"),
        (
            lambda: HandScore.from_piles(RULES, ["Kc", "7d"], ["7d", "Kc"]),
            errors.CardError,
            "cards 7d, Kc are in both piles",
        ),
        # (an audit: 20 was taken for every rule set; a team of Scopa makes at most 18 plays)
        (
            lambda: HandScore.from_piles(RULES, [], [], (19, 0)),
            errors.PositionError,
            "bad scope (19, 0): expected two ints in 0..18, one per team (a team makes at most 18 plays",
        ),
        (
            lambda: scopa.events.play("scopa 7d/Kc 3c4s - -/- 0/0 0 - -", "7d"),
            errors.PositionError,
            "bad state 'scopa 7d",
        ),  # type: ignore[arg-type]
        (
            lambda: scopa.Match("scopa", seed=1).play_out(None),
            errors.OptionError,
            "bad choose None: expected a function",
        ),  # type: ignore[arg-type]
        (lambda: HandScore.from_piles(RULES, [], [], (True, 0)), errors.PositionError, "bad scope (True, 0)"),
        (lambda: HandScore.from_piles(RULES, [], [], None), errors.PositionError, "bad scope None"),  # type: ignore[arg-type]
        (lambda: HandScore.from_piles("briscola", [], []), errors.RulesError, "unknown game 'briscola'"),
        (lambda: HandScore.from_piles(5, [], []), errors.RulesError, "bad rules 5"),  # type: ignore[arg-type]
        (lambda: _score().to_json(5), errors.RulesError, "bad rules 5"),  # type: ignore[arg-type]
        (lambda: review(scopa.State.deal("scopa", seed=1), limit="x"), errors.LimitError, "bad limit 'x'"),  # type: ignore[arg-type]
        (lambda: review(scopa.State.deal("scopa", seed=1), seed="x"), errors.OptionError, "bad seed 'x'"),  # type: ignore[arg-type]
        (lambda: card("7d", size="x"), errors.OptionError, "bad size 'x'"),  # type: ignore[arg-type]
        (lambda: card("7d", size=float("nan")), errors.OptionError, "bad size nan"),
        (lambda: position(scopa.State.deal("scopa", seed=1), size=-1), errors.OptionError, "bad size -1"),
        (lambda: scopa.random_playouts("scopa", 2**31), errors.OptionError, "bad number of hands 2147483648"),
        (lambda: scopa.jsonio.loads("[1e400]"), errors.ScopaError, "the number 1e400 is too large"),
        # keys of any type in a decoded mapping are named (a sort of mixed keys raised TypeError)
        (
            lambda: scopa.Match.from_json({"format": "scopa-match", 1: 2}),
            errors.PositionError,
            "field 1 in",
        ),
        (
            lambda: scopa.records.load_record({"format": "scopa-record", "version": 1, 1: 2, "z": 0}),
            errors.PositionError,
            "unknown fields 'z', 1 in the record",
        ),
        # found by a second audit of the API's edges: each once an OverflowError, a TypeError, an
        # AttributeError, an IndexError or a silently wrong result
        (lambda: PIMCPlayer(tie=10**400), errors.OptionError, "bad tie <int of 1329 bits>"),
        (lambda: GreedyWeights(card=10**400), errors.OptionError, "bad GreedyWeights card <int"),
        (lambda: OpponentModel(temperature=-(10**400)), errors.OptionError, "bad OpponentModel temperature"),
        (
            lambda: arena("scopa", ("pimc", {"seed": 1}), "random", deals=1),
            errors.OptionError,
            "leave 'seed' out of the options",
        ),
        (lambda: _score().difference(2), errors.OptionError, "bad team 2: expected 0 or 1"),
        (lambda: _score().difference(True), errors.OptionError, "bad team True"),
        (lambda: _score().difference(np.bool_(True)), errors.OptionError, "bad team np.True_"),
        (lambda: scopa.scoring.primiera_total(["7d"], "x"), errors.OptionError, "bad requires_all_suits 'x'"),  # type: ignore[arg-type]
        (
            lambda: scopa.Match.from_record({}),
            errors.OptionError,
            "bad record {}: expected a scopa.MatchRecord",
        ),  # type: ignore[arg-type]
        (lambda: scopa.Match("scopa", seed=1).record(5), errors.OptionError, "bad tags 5"),  # type: ignore[arg-type]
        (lambda: _hand().annotate(None), errors.PositionError, "bad notes None"),  # type: ignore[arg-type]
        # (an AttributeError before: 'NoneType' object has no attribute 'origin')
        (
            lambda: scopa.HandRecord.from_state(None),  # type: ignore[arg-type]
            scopa.RecordError,
            "bad state None: expected a scopa.State",
        ),
        (lambda: scopa.records.annotated(_hand_match(), None), errors.PositionError, "bad notes None"),  # type: ignore[arg-type]
        # (a records audit: notes past the record's hands were dropped; save("") said "Is a directory")
        (
            lambda: scopa.records.annotated(_hand_match(), [{}, {}]),
            errors.PositionError,
            "bad notes: 2 hands' notes for a record of 1 hand",
        ),
        (
            lambda: _hand_match().save(""),
            errors.OptionError,
            "cannot write the record to '': expected a file name",
        ),
        (lambda: format_text(_review(), names=["x"]), errors.OptionError, "bad names ['x']"),
        (lambda: format_text(None), errors.OptionError, "bad review None: expected a scopa.review.Review"),  # type: ignore[arg-type]
        (
            lambda: format_text(_review(), first_hand=0),
            errors.OptionError,
            "bad first_hand 0: expected an int >= 1",
        ),
        (lambda: position(_view(seat=7)), errors.PositionError, "bad view: seat 7"),
        (lambda: position(_view(hand_sizes=(10**6, 10**6))), errors.PositionError, "bad view: hand_sizes"),
        (
            lambda: position(_view(hand_sizes=(2, 11))),  # (a hand holds at most 10 cards)
            errors.PositionError,
            "bad view: hand_sizes (2, 11): expected 2 ints in 0..10",
        ),
        (
            lambda: position(_view(stock_size=1)),  # (the other hand's 2 cards and the stock's 1)
            errors.PositionError,
            "bad view: it hides 3 cards, but only 2 are unaccounted for",
        ),
        (lambda: position(_view(scope=(256, 0))), errors.PositionError, "bad view: scope (256, 0): expected"),
        (lambda: position(_view(table=None)), errors.PositionError, "bad view"),
        (
            lambda: scopa.notation.view_to_dict(_hand().final()),
            errors.PositionError,
            "expected a scopa.PlayerView",
        ),  # type: ignore[arg-type]
        (
            lambda: scopa.notation.state_to_json(5),
            errors.PositionError,
            "bad state 5: expected a scopa.State",
        ),  # type: ignore[arg-type]
        (
            lambda: scopa.HandRecord.from_json(_hand().to_json(), rules=5),  # type: ignore[arg-type]
            errors.RulesError,
            "bad rules 5: expected a preset name",
        ),
        (  # (an API review: a hand record of its own with rules= said "unknown fields 'format', ...")
            lambda: scopa.HandRecord.from_json(_hand().to_json(), rules="scopa"),
            scopa.RecordError,
            "the hand: a hand record of its own (it has its format and rules): expected it without rules=",
        ),
    ],
)
def test_bad_input_raises_its_own_error_quoting_the_value(call, kind, quoted):
    with pytest.raises(kind) as info:
        call()
    assert type(info.value) is not errors.ScopaError and isinstance(info.value, ValueError)
    assert quoted in str(info.value)


@pytest.mark.parametrize("player", [PIMCPlayer(samples=2), ISMCTSPlayer(iterations=2)])
def test_a_bad_limit_is_a_limit_error(player):
    s = scopa.State.deal("scopa", seed=1)
    with pytest.raises(errors.LimitError, match="bad limit 3"):
        player.choose(s.view(s.turn), 3)


def test_a_bad_review_time_is_a_limit_error():
    with pytest.raises(errors.LimitError, match="bad time_limit 0: .*, or None$"):
        review(scopa.State.deal("scopa", seed=1), time_limit=0)
    # (None is the default budget, as review_many takes it: review refused it)
    s = scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1").play("Kc")
    assert review(s, time_limit=None).plays[0].loss == 1.0
    # (None is named among what is expected only where it is taken: batch work's time)
    expected = r"expected seconds per play in \(0, 3600\]"
    for args, message in (
        ((0,), f"^bad time_limit 0: {expected}$"),
        ((0, True), f"^bad time_limit 0: {expected}, or None$"),
        ((None,), f"^bad time_limit None: {expected}$"),
    ):
        with pytest.raises(errors.LimitError, match=message):
            check_time_per_play(*args)


def test_batch_reports_a_bad_position_by_its_own_error():
    (row,) = solve_many([3.5])
    assert row["error"]["type"] == "PositionError"
    assert "bad position 3.5: expected a State" in row["error"]["message"]


def test_playouts_too_many_for_the_memory_are_an_option_error(monkeypatch):
    # the core makes its result arrays before the first hand; when the machine cannot give them
    # (2**31-1 hands need 64 GiB), the error says how much they need, not NumPy's MemoryError
    import scopa.simulate

    def no_memory(*args):
        raise MemoryError

    monkeypatch.setattr(scopa.simulate.core, "playouts", no_memory)
    need = r"bad number of hands 2147483647: their results need 64\.0 GiB"
    with pytest.raises(errors.OptionError, match=need):
        scopa.random_playouts("scopa", 2**31 - 1, seed=1)


def test_a_progress_callback_that_uses_its_own_solver_is_refused_not_a_hang():
    # found by an audit: the callback ran with the solver's lock held, so a call of the same
    # solver from it (or of scopa.solve/analyze, which share this thread's default solver)
    # waited for ever; the default functions now use another solver there
    deal = scopa.State.deal("scopone_scientifico", seed=5)
    small = scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    inner: list[object] = []
    result = scopa.solve(deal, time_limit=0.2, progress=lambda i: inner.append(scopa.analyze(small)))
    assert inner and all({str(m): v for m, v in a.items()} == {"7dx3c4s": 4, "Kc": 3} for a in inner)
    assert result.best_move is not None
    sv = scopa.Solver(tt_size_mb=16)
    for call in (sv.clear, lambda: sv.solve(small), lambda: sv.analyze(small)):
        with pytest.raises(
            errors.OptionError, match="a progress callback cannot use the solver it reports on"
        ):
            sv.solve(deal, time_limit=0.1, progress=lambda i, call=call: call())
    assert sv.solve(small).value == 4  # (free again)


def test_a_table_the_machine_cannot_give_is_an_option_error(monkeypatch):
    # the compiled core allocates the table at once (MemoryError), the twin as it fills
    import scopa.solver

    def no_memory(*args: object) -> None:
        raise MemoryError

    monkeypatch.setattr(scopa.solver.core, "Solver", no_memory)
    for make in (lambda: scopa.Solver(tt_size_mb=65536), lambda: PIMCPlayer(tt_size_mb=65536)):
        with pytest.raises(errors.OptionError, match="cannot give a 65536 MB transposition table"):
            make()


def test_a_node_limit_at_the_top_of_its_range_is_taken():
    # found by an audit: the share of the nodes left was computed in floating point, and
    # 2**62 - 1 rounded up past the core's range (a bare ValueError)
    small = scopa.State.from_string("scopa 7dKc/2cAs 3c4s - -/- 0/0 0 - 1")
    assert scopa.solve(small, node_limit=2**62 - 1).value == 4
    assert scopa.analyze(small, node_limit=2**62 - 1, time_limit=5)[scopa.Move.parse("Kc")] == 3


def test_numpy_integers_are_taken_where_the_python_api_takes_an_int():
    # the open list: a researcher's seeds and counts are often NumPy's (np.arange, a
    # Generator's integers), which are not ints: each was refused ("unknown level
    # np.int64(2)"); they are read as the ints they are, and kept as ints
    i = np.int64
    assert scopa.State.deal("scopa", seed=i(3), dealer=np.uint8(1)) == scopa.State.deal(
        "scopa", seed=3, dealer=1
    )
    assert scopa.Card(i(7)) is scopa.Card(7)
    m = scopa.Match("scopa", seed=i(5), dealer=i(1))
    assert (type(m.seed), type(m.first_dealer)) == (int, int) and m.state == scopa.Match("scopa", 5, 1).state
    limit = scopa.Limit(nodes=i(100))
    assert type(limit.nodes) is int and limit == scopa.Limit(nodes=100) and repr(limit) == "Limit(nodes=100)"
    assert type(scopa.Limit.of(node_limit=i(50)).nodes) is int
    level = scopa.players.level(i(2), seed=i(9))
    assert (level.level, level.seed) == (2, 9) and type(level.level) is int
    # (no time limit: one that cuts the sampling, as on the twin under load, makes the two
    # players' choices differ whatever their arguments)
    pimc = scopa.players.make_player(
        "pimc", seed=i(4), samples=i(8), depth=i(6), exact_plays=i(10), threads=i(1), time_limit=None
    )
    assert [type(x) for x in (pimc.seed, pimc.samples, pimc.depth, pimc.exact_plays, pimc.threads)] == [
        int
    ] * 5
    s = scopa.State.deal("scopa", seed=11)
    assert pimc.choose(s.view(s.turn)) == scopa.players.make_player(
        "pimc", seed=4, samples=8, depth=6, exact_plays=10, time_limit=None
    ).choose(s.view(s.turn))
    assert scopa.players.make_player("ismcts", seed=i(1), iterations=i(50)).iterations == 50
    assert scopa.Solver(tt_size_mb=i(1), threads=i(1)).tt_size_mb == 1
    assert scopa.random_playouts("scopa", i(3), seed=i(2)) == scopa.random_playouts("scopa", 3, seed=2)
    score = scopa.HandScore.from_piles(scopa.Rules.preset("scopa"), ["7d", "7c"], ["Ad"])
    assert score.difference(i(1)) == score.difference(1) == -score.difference(np.uint8(0))  # (was refused)
    # a match's target (RULES §5), e.g. drawn with NumPy: "bad target np.int64(21)" before
    rules = scopa.Rules.preset("scopa", target=i(21))
    assert type(rules.target) is int and rules == scopa.Rules.preset("scopa", target=21)
    assert rules.replace(target=np.uint16(16)).to_json() == {"preset": "scopa", "target": 16}
    assert repr(rules).count("target=21,") == 1 and scopa.Match(rules, seed=1).rules.target == 21
    got, expected = (
        arena("scopa", "random", "greedy", deals=i(2), seed=i(8), jobs=i(1)),
        arena("scopa", "random", "greedy", deals=2, seed=8),
    )
    assert got == expected  # (the times differ: == leaves them out)
    from scopa.batch import thread_pool

    with thread_pool(i(2)) as pool:
        assert pool._max_workers == 2
    # NumPy's bools and floats are not ints, nor is a 1-element array
    for bad in (np.bool_(True), np.float64(2.0), np.array([3])):
        with pytest.raises(errors.OptionError, match="unknown level"):
            scopa.players.level(bad)
        with pytest.raises(errors.PositionError, match="bad seed"):
            scopa.State.deal("scopa", seed=bad)
        with pytest.raises(errors.RulesError, match="bad target"):
            scopa.Rules.preset("scopa", target=bad)


def test_numpy_bools_are_taken_where_the_python_api_takes_a_bool():
    # the open list: NumPy's ints were taken for the target while NumPy's bools were refused
    # for the boolean rule options ("bad napola np.True_"), as for PIMC's and the scoring's
    # flags: an option grid made with NumPy (np.array([True, False])) holds np.bool_. They are
    # read as the bools they are, and kept as bools, so reprs paste back (RULES §7; docs/rules.md §9).
    t, f = np.bool_(True), np.bool_(False)
    rules = scopa.Rules.preset("scopa", napola=t, re_bello=f, primiera_requires_all_suits=f)
    assert rules == scopa.Rules.preset("scopa", napola=True, primiera_requires_all_suits=False)
    assert type(rules.napola) is bool and type(rules.re_bello) is bool
    assert rules.to_json() == {"preset": "scopa", "primiera_requires_all_suits": False, "napola": True}
    assert eval(repr(rules), {"Rules": scopa.Rules}) == rules
    aces = scopa.Rules.preset("scopone").replace(ace_takes_all=t, ace_sweep_is_scopa=t)
    assert aces.ace_sweep_is_scopa is True  # (its check reads the bool: it needs ace_takes_all)
    pimc = scopa.players.PIMCPlayer(4, infer=f, deal_inference=t, time_limit=None)
    assert (pimc.infer, pimc.deal_inference) == (False, True) and type(pimc.infer) is bool
    assert scopa.StopFlag(set=t).is_set() and not scopa.StopFlag(set=f).is_set()
    from scopa.scoring import primiera_total

    cards = scopa.CardSet.parse("7d 6c As")
    assert primiera_total(cards, requires_all_suits=f) == primiera_total(cards, requires_all_suits=False)
    assert primiera_total(cards, requires_all_suits=t) is None
    # NumPy's ints, arrays and other truthy values are not bools
    for bad in (np.int64(1), np.array([True]), 1, "true"):
        with pytest.raises(errors.RulesError, match="bad napola"):
            scopa.Rules.preset("scopa", napola=bad)
        with pytest.raises(errors.OptionError, match="bad infer"):
            scopa.players.PIMCPlayer(infer=bad)
        with pytest.raises(errors.LimitError, match="bad set"):
            scopa.StopFlag(set=bad)


@pytest.mark.parametrize(
    "text",
    [
        '["\\ud800"]',
        '{"a": ["x\\uDFFF"]}',
        '{"\\udc00": 1}',
        '["\ud800"]',
        '{"a": "é\udc00"}',
    ],
)
def test_a_lone_surrogate_is_refused_escaped_or_raw(text):
    # (loads checks the strings only when the text holds a surrogate or its escape: every way)
    with pytest.raises(scopa.jsonio.JSONInputError, match="lone surrogate"):
        scopa.jsonio.loads(text)
    assert scopa.jsonio.loads('["\\ud83d\\ude00", "\\\\ud800", "é"]') == ["\U0001f600", "\\ud800", "é"]


@pytest.mark.parametrize(
    "text, deep",
    [
        ("[" * 33 + "]" * 33, True),
        ("[" * 32 + "]" * 32, False),
        ('["' + "[" * 40 + '"]', False),  # (brackets in a string do not count)
        ('["\\"' + "[" * 40 + '"]', False),  # (nor after an escaped quote)
        ('["\\\\"' + "[" * 40 + '"]', True),  # (an escaped backslash: the string ends)
        ('["abc' + "[" * 40, False),  # (an unterminated string runs to the end)
        ('["abc\\' + "[" * 40, False),
        ("]]]" + "[" * 34, False),  # (a closer first: the depth counts down from 0, as it did)
        ("{" * 20 + "[" * 13, True),
        # (an array or an object closed before: its closer counts one level back, not two)
        ("[" + "[]," * 2 + "[" * 32, True),
        ("{" + '"a":{},' * 2 + "{" * 32, True),
    ],
)
def test_nesting_depth_is_counted_outside_strings(text, deep):
    assert scopa.jsonio._too_deep(text) is deep


def test_objects_nested_too_deep_are_refused_as_arrays_are():
    # (loads looks for the depth only past MAX_DEPTH brackets in all, [ and { counted together)
    deep = '{"a":' * 33 + "1" + "}" * 33
    with pytest.raises(scopa.jsonio.JSONInputError, match="^JSON nested more than 32 levels deep$"):
        scopa.jsonio.loads(deep)
    inner = scopa.jsonio.loads(deep[5:-1])  # (32 deep: read)
    for _ in range(32):
        inner = inner["a"]
    assert inner == 1


def test_loads_takes_max_chars_characters_and_no_more():
    loads = scopa.jsonio.loads
    assert loads("[10]", max_chars=4) == [10] and loads(b"[10]", max_chars=4) == [10]
    with pytest.raises(scopa.jsonio.JSONInputError, match="^JSON text of 5 characters: at most 4 accepted$"):
        loads("[100]", max_chars=4)
    # bytes are decoded up to 4 a character (the most UTF-8 takes), past that refused as bytes
    with pytest.raises(scopa.jsonio.JSONInputError, match="^JSON text of 16 characters: at most 4 accepted$"):
        loads(b"[" + b"1" * 14 + b"]", max_chars=4)
    with pytest.raises(
        scopa.jsonio.JSONInputError, match="^JSON text of 17 bytes: at most 4 characters accepted$"
    ):
        loads(b"[" + b"1" * 15 + b"]", max_chars=4)


def test_an_integer_of_4300_digits_is_read_its_sign_not_counted():
    # (Python's own limit on reading an int, said by loads in its own words)
    assert scopa.jsonio.loads("[-" + "9" * 4300 + "]") == [-int("9" * 4300)]
    with pytest.raises(
        scopa.jsonio.JSONInputError, match="^an integer of 4301 digits: at most 4300 accepted$"
    ):
        scopa.jsonio.loads("[-" + "9" * 4301 + "]")


def test_a_value_json_cannot_hold_is_named_as_python_shows_it():
    # (what was not read from JSON, such as a tuple given to a from_json, has no JSON spelling)
    with pytest.raises(errors.OptionError, match=r"^the thing must be a JSON object, got \('a', 1\)$"):
        scopa.jsonio.check_object(("a", 1), "the thing", ["a"])


def test_the_messages_helpers_name_each_bound_and_keep_what_they_cannot_read():
    # (mutation testing of errors.py: a one-sided bound's message and an unreadable number)
    from fractions import Fraction

    for value, low, high, said in [
        (10, None, 3, "bad depth 10: expected an int <= 3"),
        (1, 4, None, "bad depth 1: expected an int >= 4"),
        (1, 4, 9, "bad depth 1: expected an int in 4..9"),
        ("a", None, None, "bad depth 'a': expected an int"),
    ]:
        with pytest.raises(errors.OptionError, match=f"^{re.escape(said)}$"):
            errors.check_int("depth", value, low, high)
    with pytest.raises(errors.OptionError, match=r"^bad depth -1: expected an int >= 0 or None$"):
        errors.check_int("depth", -1, 0, none=True)
    # a seed's range, both ends (Python's random takes -1 as 1: a deal of seed -1 would be 1's)
    assert errors.check_seed(0, errors.OptionError) == 0
    assert errors.check_seed(2**64 - 1, errors.OptionError) == 2**64 - 1
    assert errors.check_seed(2**127, errors.OptionError, bits=128) == 2**127
    assert errors.check_seed(None, errors.OptionError, none=True) is None
    for seed, said in [
        (-1, "bad seed -1: expected an int in 0..2**64-1"),
        (2**64, f"bad seed {2**64}: expected an int in 0..2**64-1"),
        (None, "bad seed None: expected an int in 0..2**64-1"),
    ]:
        with pytest.raises(errors.PositionError, match=f"^{re.escape(said)}$"):
            errors.check_seed(seed, errors.PositionError)
    # a number past a float's range is kept as it is (a Fraction), not lost
    huge = Fraction(10**400, 3)
    assert errors.plain_number(huge) is huge
    assert type(errors.plain_number(Fraction(1, 4))) is float and errors.plain_number(Fraction(1, 4)) == 0.25
