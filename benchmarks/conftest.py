"""Benchmark fixtures: each benchmark runs once per core (compiled, Python twin)."""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest

CORES = {"cython": "scopa_core._core", "python": "scopa_core._twin"}


@pytest.fixture(params=list(CORES))
def core(request: pytest.FixtureRequest) -> ModuleType:
    mod = importlib.import_module(CORES[request.param])
    request.node.user_properties.append(("core", request.param))
    return mod
