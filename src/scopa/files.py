"""Files written whole or not at all, and files read up to a limit.

:func:`write_atomic` writes to a temporary file of its own, created next to the target (never
an existing file, never through a symbolic link), and renames it over the target, so a failure
leaves the target as it was and no temporary file behind. :func:`read_limited` reads at most
``limit`` bytes, so a file too large is refused without being read whole.

>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> p = os.path.join(d, "game.json")
>>> write_atomic(p, b"{}")
>>> read_limited(p, 10)
b'{}'
>>> read_limited(p, 1)
Traceback (most recent call last):
...
scopa.files.TooLarge: larger than 1 bytes
>>> sorted(os.listdir(d))
['game.json']
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat

__all__ = ["TooLarge", "read_limited", "write_atomic"]


class TooLarge(OSError):
    """A file holds more bytes than the reader takes (its ``strerror`` says so)."""

    def __init__(self, limit: int) -> None:
        self.reason = f"larger than {limit} bytes"
        super().__init__(self.reason)
        self.strerror = self.reason

    def __str__(self) -> str:
        return self.reason


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all (an OSError leaves ``path`` untouched).

    The temporary file is created with ``O_EXCL`` under a random name in ``path``'s directory
    (another file is never overwritten, a link never followed) and renamed over ``path``; it
    takes the mode of the file it replaces, or the umask's default for a new file."""
    target = os.fspath(path)
    folder, name = os.path.split(target)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(tmp, flags, 0o666)
            break
        except FileExistsError:
            continue
    else:  # (a hundred random names all taken)
        raise FileExistsError(f"no free temporary name next to {target!r}")
    try:
        with open(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(tmp, stat.S_IMODE(os.stat(target).st_mode))
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def read_limited(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of ``path``, read only up to ``limit`` + 1: :class:`TooLarge` (an OSError)
    when it holds more than ``limit``."""
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(limit)
    return data
