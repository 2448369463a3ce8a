# Type stub of the compiled core (scopa_core._core); scopa_core re-exports it.
import numpy as np
import numpy.typing as npt

Position = tuple[tuple[int, ...], int, tuple[int, ...], tuple[int, int], tuple[int, int], int, int]

OPT_FEWEST: int
OPT_ACE_TAKES_ALL: int
OPT_ACE_SWEEP_IS_SCOPA: int
OPT_SCOPA_ON_LAST_PLAY: int
OPT_RE_BELLO: int
OPT_NAPOLA: int
OPT_PRIMIERA_ALL_SUITS: int
OPT_REDEAL_ON_KINGS: int
CATEGORIES: tuple[str, ...]
NCAT: int
FULL: int
COINS: int
SETTEBELLO: int
RE_BELLO: int
ACES: int
KINGS: int
PRIMIERA_VALUES: tuple[int, ...]
RANK_MASK: tuple[int, ...]
HARDWARE_POPCOUNT: bool

class StopFlag:
    def __init__(self, set: bool = False) -> None: ...
    def set(self) -> None: ...
    def clear(self) -> None: ...
    def is_set(self) -> bool: ...

def popcount(mask: int) -> int: ...
def _popcount_portable(mask: int) -> int: ...
def captures(card: int, table: int, opts: int) -> list[int]: ...
def legal_moves(hand: int, table: int, opts: int) -> list[tuple[int, int]]: ...
def apply_move(pos: Position, card: int, capture: int, opts: int, block: int) -> Position: ...
def primiera(mask: int, opts: int) -> int: ...
def score(
    cap0: int, cap1: int, scope0: int, scope1: int, opts: int
) -> tuple[tuple[int, ...], tuple[int, ...]]: ...
def shuffle(seed: int) -> list[int]: ...
def deal(
    nplayers: int, hand_size: int, table_size: int, opts: int, seed: int
) -> tuple[tuple[int, ...], int, tuple[int, ...]]: ...
def playouts(
    nplayers: int, hand_size: int, table_size: int, opts: int, n: int, seed: int
) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int16]]: ...
def rollouts(pos: Position, opts: int, block: int, n: int, seed: int, policy: int = 0) -> list[int]: ...

PARALLEL_MIN_PLAYS: int

class Solver:
    @property
    def tt_size_mb(self) -> int: ...
    @property
    def nodes(self) -> int: ...
    @property
    def main_nodes(self) -> int: ...
    @property
    def iterations(self) -> int: ...
    @property
    def tt_hits(self) -> int: ...
    @property
    def tt_probes(self) -> int: ...
    @property
    def leaf_tt_hits(self) -> int: ...
    leaf_depth: int
    leaf_tt_min: int
    leaf_tt_max: int
    etc_depth: int
    iid_depth: int
    iid_plies: int
    guess_plies: int
    guess_min: int
    defer_depth: int
    def __init__(self, tt_size_mb: int = 64) -> None: ...
    def clear(self) -> None: ...
    def _captures(self, card: int, table: int, opts: int) -> list[int]: ...
    def tt_entries(self) -> int: ...
    def solve(
        self,
        pos: Position,
        opts: int,
        block: int,
        node_limit: int = 0,
        time_limit: float = 0.0,
        stop: StopFlag | None = None,
        guess: int | None = None,
        pv: bool = True,
        threads: int = 1,
    ) -> tuple[bool, int, int, int, int, list[tuple[int, int]], int]: ...
    def analyze(
        self,
        pos: Position,
        opts: int,
        block: int,
        node_limit: int = 0,
        time_limit: float = 0.0,
        stop: StopFlag | None = None,
    ) -> list[tuple[int, int, int]] | None: ...
    def horizon(
        self,
        pos: Position,
        opts: int,
        block: int,
        plies: int,
        node_limit: int = 0,
        time_limit: float = 0.0,
        stop: StopFlag | None = None,
        first: tuple[int, int] | None = None,
    ) -> tuple[float, int, int] | None: ...
    def analyze_depth(
        self,
        pos: Position,
        opts: int,
        block: int,
        plies: int,
        node_limit: int = 0,
        time_limit: float = 0.0,
        stop: StopFlag | None = None,
    ) -> list[tuple[int, int, float]] | None: ...
