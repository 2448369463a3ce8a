"""Build the Cython core. Set SCOPA_DEBUG=1 for a debug build with bounds and index checks on."""

import os

from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("SCOPA_DEBUG", "") not in ("", "0")

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "cdivision": not DEBUG,
    "initializedcheck": DEBUG,
}
if os.name == "nt":
    compile_args = ["/Od", "/Zi"] if DEBUG else ["/O2"]
else:
    compile_args = ["-O0", "-g"] if DEBUG else ["-O3"]

extensions = [
    Extension(
        "scopa_core._core",
        ["scopa_core/_core.pyx"],
        include_dirs=["scopa_core"],
        extra_compile_args=compile_args,
    ),
]

setup(ext_modules=cythonize(extensions, compiler_directives=directives, annotate=False))
