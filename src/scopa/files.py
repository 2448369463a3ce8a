"""Files written whole or not at all, and files read up to a limit.

:func:`write_atomic` writes to a temporary file of its own, created next to the target (never
an existing file, never through a symbolic link), and renames it over the target, so a failure
leaves the target as it was and no temporary file behind. :func:`read_limited` reads at most
``limit`` bytes, so a file too large is refused without being read whole; :func:`read_lines`
reads lines of at most ``limit``, a longer one skipped without being held whole.

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
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from typing import IO, Any

__all__ = [
    "IS_A_DIRECTORY",
    "OutputError",
    "TooLarge",
    "check_atomic",
    "failure_reason",
    "read_limited",
    "read_line",
    "read_lines",
    "write_all",
    "write_atomic",
]


IS_A_DIRECTORY = "it is a directory; expected a file"
"""What every reader and writer of a file says of a directory given in its place."""


class OutputError(OSError):
    """Standard output could not be written, for a reason other than its reader going away
    (a full disk, an I/O error): the command line reports it and exits with status 2."""


class TooLarge(OSError):
    """A file holds more bytes than the reader takes (its ``strerror`` says so)."""

    def __init__(self, limit: int) -> None:
        self.reason = f"larger than {limit} bytes"
        super().__init__(self.reason)
        self.strerror = self.reason

    def __str__(self) -> str:
        return self.reason


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to the file descriptor ``fd``, again after a short write (a file
    size limit, a nearly full disk), so that the error shows: Python's buffered files may
    drop the rest of a short write without a word."""
    view = memoryview(data).cast("B")
    done = 0
    while done < len(view):
        done += os.write(fd, view[done:])


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all (an OSError leaves ``path`` untouched).

    A regular file (or a new one) is replaced through a temporary file created with ``O_EXCL``
    under a random name in its directory (another file is never overwritten, a link never
    followed), with the replaced file's mode from the start, then renamed over it; a symbolic
    link to a regular file keeps pointing at it (the file it names is replaced). What is not a
    regular file (a device such as ``/dev/null``, a named pipe, ``/dev/stdout``) is written
    into as it is, not replaced. A file its mode does not let this process write is not
    replaced either (PermissionError), as a shell's redirection would not write it. ``path`` is
    a path: a file descriptor (an int, a bool) is a TypeError, not written into and closed."""
    path = os.fspath(path)  # (a TypeError for an int: os.stat and open would take it as a descriptor)
    mode = _mode(path)
    if mode is not None and not stat.S_ISREG(mode):
        with open(path, "wb") as f:
            f.write(data)
        return
    fd, tmp, target = _temporary(path, mode)
    try:
        with open(fd, "wb") as f:
            f.write(data)
            f.flush()
            if mode is not None:  # (the umask may have taken bits the file had)
                os.fchmod(f.fileno(), stat.S_IMODE(mode))
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def check_atomic(path: str | os.PathLike[str]) -> None:
    """For a regular file or a new one, raise the OSError :func:`write_atomic` would raise for
    ``path`` before it writes a byte (a file this process may not write; a directory that takes
    no new file, ``/proc`` as root, which the permission bits do not tell) by making its
    temporary file and removing it: for a command that checks where it will write before a long
    run. What is not a regular file (a directory, a device, a pipe) is not tried: the caller
    refuses a directory first (:func:`scopa.records.check_writable` does), and a device or a
    pipe is written into as it is.

    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> check_atomic(os.path.join(d, "game.json")), os.listdir(d)
    (None, [])
    """
    path = os.fspath(path)
    mode = _mode(path)
    if mode is None or stat.S_ISREG(mode):
        fd, tmp, _ = _temporary(path, mode)
        try:
            os.close(fd)
        finally:  # (removed whatever happens: Ctrl-C between the two, a failing close)
            os.unlink(tmp)


def _mode(path: str) -> int | None:
    """``path``'s mode through links (``/dev/stdout`` is a pipe's), None for no file; a
    PermissionError for a regular file this process may not write (not replaced, as a shell's
    redirection would not write it)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISREG(mode) and not os.access(path, os.W_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
    return mode


def _temporary(path: str, mode: int | None) -> tuple[int, str, str]:
    """A new temporary file beside the file ``path`` names (a link's: the link stays), no wider
    than ``mode``, the replaced file's: its descriptor, its name and the file it is to replace."""
    target = os.path.realpath(path)  # (the file a link names: the link stays)
    folder, name = os.path.split(target)
    short = os.fsencode(name)[:100].decode("utf-8", "ignore")  # (room for the suffix in 255 bytes)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = os.path.join(folder, f".{short}.{secrets.token_hex(6)}.tmp")
        try:  # (no wider than the file it replaces, even for a moment)
            fd = os.open(tmp, flags, 0o666 if mode is None else stat.S_IMODE(mode))
            break
        except FileExistsError:
            continue
        except OSError as exc:
            # (/proc/version as root: "No such file or directory" of a file that is there, and
            # then of its directory, which is there too: said as what it is, a directory that
            # takes no new file, and why that matters; /proc/new.json as root alike)
            how = "" if mode is None else ", and a file is written whole through a new one beside it"
            if exc.errno == errno.ENOENT and os.path.isdir(folder):
                raise OSError(exc.errno, f"its directory {folder!r} takes no new files{how}", path) from None
            if mode is None:  # (a new file: the directory's error is its own)
                raise
            why = f"no new file can be made in its directory {folder!r} ({exc.strerror}){how}"
            raise OSError(exc.errno, why, path) from None
    else:  # (a hundred random names all taken)
        raise FileExistsError(f"no free temporary name next to {target!r}")
    return fd, tmp, target


def read_limited(path: str | os.PathLike[str] | IO[bytes], limit: int) -> bytes:
    """The bytes of ``path`` (or of a binary stream already open, standard input's: read, not
    closed), read only up to ``limit`` + 1: :class:`TooLarge` (an OSError) when it holds more
    than ``limit``."""
    if isinstance(path, (str, os.PathLike)):
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    else:
        data = path.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(limit)
    return data


def failure_reason(exc: BaseException) -> str:
    """Why reading or writing a file failed, in words for a one-line error: :data:`IS_A_DIRECTORY`
    for a directory (every command names it alike), else an OSError's ``strerror`` (no
    errno, no path: the message names the file itself), else the exception's text (a path
    with a NUL character, a ``PathLike`` giving neither str nor bytes).

    >>> failure_reason(IsADirectoryError(21, "Is a directory"))
    'it is a directory; expected a file'
    >>> failure_reason(FileNotFoundError(2, "No such file or directory", "x.json"))
    'No such file or directory'
    >>> failure_reason(ValueError("embedded null byte"))
    'embedded null byte'
    """
    if isinstance(exc, IsADirectoryError):
        return IS_A_DIRECTORY
    if isinstance(exc, OSError) and exc.strerror:
        return str(exc.strerror)
    return str(exc)


def read_lines(stream: IO[Any], limit: int) -> Iterator[bytes | str | None]:
    """The lines of ``stream`` (bytes or text) without their ends (``\\n`` or ``\\r\\n``), each at
    most ``limit`` long: a longer line is skipped, a chunk at a time (never held whole), and
    comes as ``None``, so that its reader can name it (the engine's one error reply, a batch
    run's bad line).

    >>> import io
    >>> list(read_lines(io.BytesIO(b"ab\\r\\nabcd\\n\\nabc"), 3))
    [b'ab', None, b'', b'abc']
    """
    while True:
        line = stream.readline(limit + 2)  # (a line of ``limit`` and its CR LF)
        if not line:
            return
        newline, ends = (b"\n", b"\r\n") if isinstance(line, bytes) else ("\n", "\r\n")
        if not line.endswith(newline) and len(line) == limit + 2:
            _skip_line(stream, newline)
            yield None
            continue
        body = line.rstrip(ends)
        yield None if len(body) > limit else body


def read_line(stream: IO[str], limit: int) -> str | None:
    """The next line of the text ``stream`` without its ``\\n``, as :func:`input` reads it, but
    at most its first ``limit`` characters: the rest of a longer line is read and dropped, a
    chunk at a time (an endless line, ``< /dev/zero``, is never held whole). None at the end.

    >>> import io
    >>> s = io.StringIO("abcdef\\nab\\n")
    >>> read_line(s, 3), read_line(s, 3), read_line(s, 3)
    ('abc', 'ab', None)
    """
    line = stream.readline(limit + 1)
    if not line:
        return None
    if line.endswith("\n"):
        return line[:-1]
    if len(line) > limit:
        _skip_line(stream, "\n")
    return line[:limit]


def _skip_line(stream: IO[Any], newline: bytes | str) -> None:
    """Read ``stream`` past the end of the line begun, a chunk at a time."""
    while True:
        rest = stream.readline(1 << 16)
        if not rest or rest.endswith(newline):
            return
