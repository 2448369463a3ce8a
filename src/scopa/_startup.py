"""Ctrl-C while the ``scopa`` command starts: imported first by the package, before anything
slow (its imports take a few tenths of a second, and the command's parser some more).

Python's own handler raised a :class:`KeyboardInterrupt` in whatever import or parser call was
running then, and the interpreter printed its traceback. When this process is the command
(``scopa ...`` or ``python -m scopa ...``), SIGINT is given to :func:`_stopped` until
:func:`scopa.__main__.main` is ready to take it (:func:`ready`): a line on standard error and
status 130, nothing having been done. A program that imports scopa keeps Python's handler, and
an ignored SIGINT (a job started in the background) stays ignored.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from types import FrameType

#: What the command says when Ctrl-C stops it before it has begun its work.
MESSAGE = b"stopped (Ctrl-C) while scopa was starting: nothing was done\n"


def _stopped(signum: int, frame: FrameType | None) -> None:
    """SIGINT while the command starts: say so and end with status 130 (nothing to undo or
    flush: no command has begun)."""
    try:
        os.write(2, MESSAGE)
    except OSError:  # (standard error closed: the status says it)
        pass
    os._exit(130)


def _module_run(argv: list[str]) -> str | None:
    """The module ``python -m NAME`` runs, from the interpreter's own arguments, else None."""
    args = iter(argv[1:])
    for arg in args:
        if arg == "-m":
            return next(args, None)
        if arg.startswith("-m"):
            return arg[2:]
        if arg in ("-W", "-X"):  # (an option's value: -X dev)
            next(args, None)
        elif not arg.startswith("-") or arg.startswith("-c"):  # (a script, or code: no -m follows)
            return None
    return None


def is_command() -> bool:
    """Whether this process is the ``scopa`` command, its package being imported now: run as
    ``python -m scopa`` (``sys.argv[0]`` is ``-m`` while the module is found), or as the
    ``scopa`` script installed for it (the main module's file is ``sys.argv[0]``)."""
    if sys.argv[:1] == ["-m"]:
        return _module_run(list(getattr(sys, "orig_argv", []))) == "scopa"
    script = getattr(sys.modules.get("__main__"), "__file__", None)
    if not script or not sys.argv or script != sys.argv[0]:
        return False
    name = os.path.basename(script).lower()
    return name in ("scopa", "scopa.exe", "scopa-script.py")


def install() -> None:
    """Give SIGINT to :func:`_stopped` if this process is the command and SIGINT is Python's
    own (not ignored, not a caller's handler)."""
    if threading.current_thread() is not threading.main_thread() or not is_command():
        return
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _stopped)


def ready() -> None:
    """The command is ready to take Ctrl-C itself: SIGINT back to Python's handler (a
    :class:`KeyboardInterrupt`), if :func:`install` took it."""
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is _stopped:
        signal.signal(signal.SIGINT, signal.default_int_handler)


install()
