"""The opponent model fitted to PIMC's own choices by maximum likelihood (2-player Scopa).

PIMC self-play hands (default PIMC on every seat) record every choice among two or more legal
moves: the moves, the table, the cards the mover cannot see and the move it chose. The
parameters of :class:`scopa.players.inference.OpponentModel` are then fitted to those choices
by maximum likelihood (the model is a softmax of a linear score, so the fit is a concave
maximisation; gradient ascent with a step that grows while it pays), at the default
temperature. It prints the mean log-likelihood and the share of choices the model's top move
predicts, for the default model and the fitted one, and the fitted model to paste.

The strength pairing ``scopa-pimc-fitted-model`` (benchmarks/strength.py) plays PIMC with the
model fitted on 600 hands of seeds 11 and 12 against default PIMC.

Usage: python benchmarks/opponent_fit.py [--hands 600] [--seed 11] [--jobs 2]
"""

from __future__ import annotations

import argparse
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import fields
from multiprocessing import get_context

import numpy as np
from baselines import PIMC_BEFORE

import scopa_core as core
from scopa.batch import START_METHOD  # (workers as the batch runs start theirs: no fork)
from scopa.players import PIMCPlayer
from scopa.players.base import sweepers
from scopa.players.inference import OpponentModel
from scopa.state import State

#: the model's parameters in the order of the features below (the temperature is held)
NAMES = ("capture", "card", "coin", "settebello", "seven", "six", "sweep", "risk_lay", "risk_capture")
_SEVENS, _SIXES = core.RANK_MASK[7], core.RANK_MASK[6]

Choice = tuple[list[tuple[int, int]], int, int, int]
Arrays = tuple[np.ndarray, np.ndarray, np.ndarray]


def theta_of(model: OpponentModel) -> np.ndarray:
    """The model's parameters over its temperature, in the order of :data:`NAMES`."""
    return np.array([getattr(model, n) for n in NAMES]) / model.temperature


def features(card: int, capture: int, table: int, unseen: int, opts: int) -> list[int]:
    """The move's score in ``OpponentModel`` is the dot product of these with the parameters
    (over the temperature); checked against ``move_logits`` in :func:`design`."""
    bit = 1 << card
    if capture:
        took = capture | bit
        f = [1, core.popcount(took), core.popcount(took & core.COINS), int(bool(took & core.SETTEBELLO))]
        f += [core.popcount(took & _SEVENS), core.popcount(took & _SIXES), int(not table & ~capture), 0, 0]
        if sweepers(table & ~capture, opts) & unseen:
            f[8] = -1
        return f
    f = [0, 0, -int(bool(bit & core.COINS)), -int(bool(bit & core.SETTEBELLO)), -int(bool(bit & _SEVENS))]
    f += [-int(bool(bit & _SIXES)), 0, -int(bool(sweepers(table | bit, opts) & unseen)), 0]
    return f


def selfplay(args: tuple[str, int, int]) -> list[Choice]:
    """Every choice among two or more moves in ``hands`` hands of default PIMC self-play."""
    game, hands, seed = args
    rng = random.Random(seed)
    out: list[Choice] = []
    for _ in range(hands):
        s = State.deal(game, seed=rng.randrange(1 << 30))
        players = [PIMCPlayer(seed=rng.randrange(1 << 30), **PIMC_BEFORE) for _ in range(s.rules.players)]
        while not s.is_over:
            view = s.view(s.turn)
            move = players[s.turn].choose(view)
            legal = s.legal_moves()
            if len(legal) > 1:
                moves = [(m.card.index, m.capture_mask) for m in legal]
                chosen = moves.index((move.card.index, move.capture_mask))
                out.append((moves, view.table.mask, view.unseen.mask, chosen))
            s = s.play(move)
    return out


def design(choices: list[Choice], opts: int, model: OpponentModel) -> Arrays:
    """Features (choices x moves x parameters), the mask of real moves, the chosen indices."""
    k = max(len(c[0]) for c in choices)
    x = np.zeros((len(choices), k, len(NAMES)))
    real = np.zeros((len(choices), k), bool)
    chosen = np.array([c[3] for c in choices])
    theta = theta_of(model)
    for i, (moves, table, unseen, _) in enumerate(choices):
        logits = model.move_logits(moves, table, opts)
        for j, (c, m) in enumerate(moves):
            x[i, j] = features(c, m, table, unseen, opts)
            real[i, j] = True
            safe, risky, sweep = logits[j]
            assert abs(x[i, j] @ theta - (risky if sweep & unseen else safe)) < 1e-9, "features drifted"
    return x, real, chosen


def loglik(
    theta: np.ndarray, x: np.ndarray, real: np.ndarray, chosen: np.ndarray
) -> tuple[float, np.ndarray]:
    """Mean log-likelihood of the choices and its gradient."""
    z = np.where(real, x @ theta, -np.inf)
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    rows = np.arange(len(chosen))
    value = float(np.log(p[rows, chosen]).mean())
    grad = (x[rows, chosen] - (p[..., None] * x).sum(axis=1)).mean(axis=0)
    return value, grad


def fit(x: np.ndarray, real: np.ndarray, chosen: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Gradient ascent from ``theta`` with a step that grows by 1.2 after a gain and halves after
    a loss, until the gradient's largest entry is below 1e-6."""
    step = 2.0
    value, grad = loglik(theta, x, real, chosen)
    for _ in range(50_000):
        if np.abs(grad).max() < 1e-6:
            break
        trial = theta + step * grad
        v, g = loglik(trial, x, real, chosen)
        if v > value:
            theta, value, grad, step = trial, v, g, step * 1.2
        else:
            step /= 2
    return theta


def top1(theta: np.ndarray, x: np.ndarray, real: np.ndarray, chosen: np.ndarray) -> float:
    z = np.where(real, x @ theta, -np.inf)
    return float((z.argmax(axis=1) == chosen).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="scopa")
    parser.add_argument("--hands", type=int, default=600)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    t0 = time.perf_counter()
    share = -(-args.hands // args.jobs)
    tasks = [(args.game, min(share, args.hands - i * share), args.seed + i) for i in range(args.jobs)]
    with ProcessPoolExecutor(args.jobs, mp_context=get_context(START_METHOD)) as pool:
        choices = [c for part in pool.map(selfplay, [t for t in tasks if t[1] > 0]) for c in part]
    opts = State.deal(args.game, seed=1).rules.core_options
    default = OpponentModel()
    x, real, chosen = design(choices, opts, default)
    theta0 = theta_of(default)
    theta = fit(x, real, chosen, theta0)
    params = {n: round(float(t) * default.temperature, 3) for n, t in zip(NAMES, theta, strict=True)}
    fitted = OpponentModel(temperature=default.temperature, **params)
    print(f"{args.game}: {len(choices)} choices, {args.hands} hands of PIMC self-play, seed {args.seed} on")
    print("| model | mean log-likelihood | top move predicted |")
    print("|---|---:|---:|")
    for name, th in (("default", theta0), ("fitted", theta)):
        print(f"| {name} | {loglik(th, x, real, chosen)[0]:.3f} | {top1(th, x, real, chosen):.3f} |")
    print("| parameter | default | fitted |")
    print("|---|---:|---:|")
    for f in fields(OpponentModel):
        print(f"| {f.name} | {getattr(default, f.name)} | {getattr(fitted, f.name)} |")
    print(repr(fitted))
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
