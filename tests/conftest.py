"""Shared fixtures: every core test runs against both the compiled core and the Python twin."""

from __future__ import annotations

import importlib
import os
import signal
from types import ModuleType

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("default")

# Tests send Ctrl-C (SIGINT) and a closed terminal's SIGHUP to this process and to the programs
# it starts, and check what they do. A run started under nohup (SIGHUP ignored) or as a
# background job of a script (SIGINT ignored) hands those signals down ignored, and Python
# keeps them so: such tests then failed for want of the signal, not for the code (a mutation
# run under nohup counted its mutants killed). The suite takes them back as a shell gives them.
if hasattr(signal, "SIGHUP") and signal.getsignal(signal.SIGHUP) == signal.SIG_IGN:
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

NO_EXT = os.environ.get("SCOPA_NO_EXTENSIONS", "") not in ("", "0")
TWIN_RUN = NO_EXT  # the whole suite runs on the twin: keep heavy loops smaller


def _core_modules() -> list[ModuleType]:
    mods = [importlib.import_module("scopa_core._twin")]
    if not NO_EXT:
        # No skip: a missing compiled core must fail here, not hide behind the twin.
        mods.append(importlib.import_module("scopa_core._core"))
    return mods


CORES = _core_modules()


@pytest.fixture(params=CORES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def core(request: pytest.FixtureRequest) -> ModuleType:
    """Each core implementation in turn."""
    return request.param


@pytest.fixture
def twin() -> ModuleType:
    return importlib.import_module("scopa_core._twin")
