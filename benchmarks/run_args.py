"""The checks of the arguments the benchmark scripts share (the game, the deals, the processes
and the seed), made before anything runs, in one wording: a bad one ended a script in the
arena's traceback, some after an hour of other runs."""

from __future__ import annotations

import argparse

from scopa.arena import MAX_DEALS, MAX_JOBS
from scopa.rules import PRESETS


def check_run_args(
    parser: argparse.ArgumentParser,
    *,
    game: str | None = None,
    deals: int | None = None,
    jobs: int | None = None,
    seed: int | None = None,
    seed_bits: int = 64,
) -> None:
    """``parser.error`` (status 2, the usage) for the first of those given that the arena would
    refuse: ``game`` a preset's name, ``deals`` and ``jobs`` in the arena's bounds, ``seed`` in
    0..2**seed_bits-1."""
    if game is not None and game not in PRESETS:
        parser.error(f"bad --game {game!r}: expected one of {', '.join(PRESETS)}")
    if deals is not None and not 1 <= deals <= MAX_DEALS:
        parser.error(f"bad --deals {deals}: expected an int in 1..{MAX_DEALS:,}")
    if jobs is not None and not 1 <= jobs <= MAX_JOBS:
        parser.error(f"bad --jobs {jobs}: expected an int in 1..{MAX_JOBS} (processes)")
    if seed is not None and not 0 <= seed < 2**seed_bits:
        parser.error(f"bad --seed {seed}: expected an int in 0..2**{seed_bits}-1")
