"""Build the Cython core. Set SCOPA_DEBUG=1 for a debug build with bounds and index checks on.

On x86-64 (GCC or Clang) the core counts bits with the POPCNT instruction, which every
x86-64 CPU since 2008-2009 has (the x86-64-v2 level, NumPy's baseline too): 14% faster
solving at k = 7 than the shift-and-add count. The module refuses to import on a CPU
without it (the package then falls back to the Python twin with a warning). Set
SCOPA_PORTABLE=1 to build for the plain x86-64 baseline instead.

Without a C compiler the build fails with a message that says so; SCOPA_NO_EXTENSIONS=1 then
builds without the core (a pure-Python wheel): the package runs on the pure-Python twin, the same
engine about 100 times slower (SCOPA_NO_EXTENSIONS=1 at run time too selects it without the
warning that the compiled core is missing).
"""

import os
import sysconfig

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import CCompilerError, ExecError, PlatformError

DEBUG = os.environ.get("SCOPA_DEBUG", "") not in ("", "0")
PORTABLE = os.environ.get("SCOPA_PORTABLE", "") not in ("", "0")
NO_EXTENSIONS = os.environ.get("SCOPA_NO_EXTENSIONS", "") not in ("", "0")


def compiler_directives(debug: bool) -> dict[str, object]:
    """Cython's directives for a release or a debug build (tests/test_core.py compiles the
    debug build's C with them)."""
    return {
        "language_level": 3,
        "boundscheck": debug,
        "wraparound": debug,
        "cdivision": not debug,
        "initializedcheck": debug,
    }


directives = compiler_directives(DEBUG)
if os.name == "nt":
    compile_args = ["/Od", "/Zi"] if DEBUG else ["/O2"]
else:
    compile_args = ["-O0", "-g"] if DEBUG else ["-O3"]


def hardware_popcount() -> bool:
    """Whether to build for x86-64 CPUs with POPCNT: a GCC or Clang build whose target is
    x86-64 only (not a universal2 or arm64 macOS build), unless SCOPA_PORTABLE=1."""
    if PORTABLE or os.name == "nt":
        return False
    platform = sysconfig.get_platform()
    if "universal2" in platform or "arm64" in os.environ.get("ARCHFLAGS", ""):
        return False
    return platform.endswith("x86_64")


if hardware_popcount():
    compile_args.append("-mpopcnt")

extensions = [
    Extension(
        "scopa_core._core",
        ["scopa_core/_core.pyx"],
        include_dirs=["scopa_core"],
        extra_compile_args=compile_args,
    ),
]


def mode_changed(mode: str, path: str = os.path.join("build", "scopa-core-mode")) -> bool:
    """Whether this build's ``mode`` ("debug" or "release") differs from the last build's
    here, noted in ``path`` (then ``mode`` is noted; True when it cannot be). cythonize and
    build_ext compare file dates only: a switch without this kept the other mode's C
    (``--force`` too) and module."""
    try:
        with open(path, encoding="utf-8") as f:
            last = f.read()
    except OSError:
        last = None
    if last == mode:
        return False
    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(mode)
    except OSError:  # (a build/ that cannot be written: the mode not noted, the C regenerated each time)
        pass
    return True


def build_mode() -> str:
    """This build's mode: "debug" or "release", then " portable" with SCOPA_PORTABLE=1 (which
    changes the compiler's flags, not the C: a switch kept the other build's module)."""
    return ("debug" if DEBUG else "release") + (" portable" if PORTABLE else "")


NO_COMPILER = (
    "scopa: the compiled core (scopa_core._core) could not be built: {error}. It needs a C compiler "
    "(GCC or Clang; on Windows, Microsoft C++ Build Tools) and Python's headers. Without them, "
    "SCOPA_NO_EXTENSIONS=1 pip install ... installs scopa with the pure-Python twin alone: the same "
    "engine, about 100 times slower."
)


class BuildCore(build_ext):
    """build_ext whose failure to compile the core says what is needed, and how to install
    without it (the compiler's own error alone named neither)."""

    def run(self) -> None:
        try:
            super().run()
        except (CCompilerError, ExecError, PlatformError) as exc:
            raise PlatformError(NO_COMPILER.format(error=str(exc).rstrip("."))) from exc


if __name__ == "__main__":  # (tests read compiler_directives without building)
    if NO_EXTENSIONS:  # the pure-Python twin alone: no C, no compiler
        setup(ext_modules=[])
    else:
        # (a new mode's C is newer than the module, which build_ext then rebuilds)
        force = mode_changed(build_mode())
        setup(
            ext_modules=cythonize(extensions, compiler_directives=directives, annotate=False, force=force),
            cmdclass={"build_ext": BuildCore},
        )
