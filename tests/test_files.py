"""scopa.files: files written whole or not at all, files and lines read up to a limit, and the
words of a failed read or write (the records', the CLI's and batch's tests use it through them)."""

from __future__ import annotations

import errno
import io
import os
from pathlib import Path
from typing import Any

import pytest

from scopa import files
from scopa.files import IS_A_DIRECTORY, failure_reason, read_lines, write_atomic


def test_a_new_file_gets_the_modes_a_shell_would_give_it(tmp_path):
    # found by mutation testing (0o666 as 0o665 or 0o667 went unseen): a new file is made
    # readable and writable by all the umask lets through, and never executable
    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "a.json", b"{}")
        os.umask(0o002)
        write_atomic(tmp_path / "b.json", b"{}")
    finally:
        os.umask(old)
    assert (tmp_path / "a.json").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "b.json").stat().st_mode & 0o777 == 0o664


def _refuse_temporary_files(monkeypatch: Any) -> None:
    """os.open, as seen by scopa.files, refuses every temporary file (as a directory this
    process may not write would, even as root)."""
    real = os.open

    def refusing(path: Any, flags: int, mode: int = 0o777, **kw: Any) -> int:
        if str(path).endswith(".tmp"):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real(path, flags, mode, **kw)

    monkeypatch.setattr(files.os, "open", refusing)


def test_a_temporary_file_refused_is_the_systems_error_for_a_new_file(tmp_path, monkeypatch):
    # found by mutation testing: a new file's own error, as the system says it (the temporary
    # file is the file's first and only name)
    _refuse_temporary_files(monkeypatch)
    with pytest.raises(PermissionError) as caught:
        write_atomic(tmp_path / "new.json", b"{}")
    assert caught.value.strerror == os.strerror(errno.EACCES)
    assert list(tmp_path.iterdir()) == []


def test_a_temporary_file_refused_beside_a_file_names_its_directory(tmp_path, monkeypatch):
    # found by mutation testing: the file is there, so the error is the directory's, and says
    # so (as root in /proc the system's words would be "No such file or directory")
    path = tmp_path / "old.json"
    path.write_bytes(b"before")
    _refuse_temporary_files(monkeypatch)
    with pytest.raises(PermissionError) as caught:
        write_atomic(path, b"after")
    why = (
        f"no new file can be made in its directory {str(tmp_path)!r} ({os.strerror(errno.EACCES)}), and a"
        " file is written whole through a new one beside it"
    )
    assert caught.value.errno == errno.EACCES and caught.value.strerror == why
    assert path.read_bytes() == b"before" and [p.name for p in tmp_path.iterdir()] == ["old.json"]


def test_every_temporary_name_taken_is_an_error_that_says_so(tmp_path, monkeypatch):
    # found by mutation testing: a hundred names tried, all taken (here, one name drawn again
    # and again), is a FileExistsError naming the file, and nothing is written
    monkeypatch.setattr(files.secrets, "token_hex", lambda n: "0" * (2 * n))
    taken = tmp_path / ".g.json.000000000000.tmp"
    taken.write_bytes(b"someone else's")
    with pytest.raises(FileExistsError, match="no free temporary name next to '.*g.json'"):
        write_atomic(tmp_path / "g.json", b"{}")
    assert taken.read_bytes() == b"someone else's" and not (tmp_path / "g.json").exists()


def test_a_line_longer_than_a_chunk_of_its_rest_is_skipped_whole():
    # found by mutation testing: the rest of an overlong line is read a chunk (64 KiB) at a
    # time up to its end; stopping after one chunk read the line's tail as a line of its own
    for tail in (b"", b"\r"):
        text = b"ok\n" + b"x" * 200_000 + tail + b"\nnext\n" + b"y" * 70_000
        assert list(read_lines(io.BytesIO(text), 10)) == [b"ok", None, b"next", None]
        assert list(read_lines(io.StringIO(text.decode()), 10)) == ["ok", None, "next", None]


def test_the_words_of_a_failed_read_or_write():
    assert failure_reason(IsADirectoryError(errno.EISDIR, "Is a directory")) == IS_A_DIRECTORY
    assert failure_reason(PermissionError(errno.EACCES, "Permission denied", "x")) == "Permission denied"
    assert failure_reason(OSError("no errno")) == "no errno"  # (an OSError without its words)
    assert failure_reason(TypeError("expected str, bytes or os.PathLike object")).startswith("expected")


def test_a_directory_is_refused_by_name_where_a_file_is_written(tmp_path):
    # the same words for a read and for a write
    from scopa.records import check_writable

    with pytest.raises(ValueError, match=f"{IS_A_DIRECTORY}$"):
        check_writable(tmp_path)
    with pytest.raises(IsADirectoryError):
        write_atomic(tmp_path, b"{}")  # (not a regular file: written into as it is, and refused)
    assert list(Path(tmp_path).iterdir()) == []


def test_a_directory_that_takes_no_new_file_is_refused_before_the_work(tmp_path, monkeypatch):
    # check_writable makes the save's temporary file and removes it (as root, /proc's bits say
    # writable but it takes no new file: the save failed after a whole review); here a directory
    # that refuses every new file as a read-only file system does, for any user
    from scopa.records import check_writable

    real_open = os.open

    def no_new_file(code):  # os.open that makes no new file, failing with the errno ``code``
        def refusing(path, flags, *args, **kwargs):
            if flags & os.O_CREAT:
                raise OSError(code, os.strerror(code), path)
            return real_open(path, flags, *args, **kwargs)

        return refusing

    monkeypatch.setattr(files.os, "open", no_new_file(errno.EROFS))
    with pytest.raises(ValueError, match=r"cannot write the record to '.*game\.json': Read-only file system"):
        check_writable(tmp_path / "game.json")
    monkeypatch.undo()
    # (/proc as root: a new file "does not exist")
    monkeypatch.setattr(files.os, "open", no_new_file(errno.ENOENT))
    # (it said "No such file or directory" of a new file in a directory that is there)
    with pytest.raises(ValueError, match=r"game\.json': its directory '.*' takes no new files$"):
        check_writable(tmp_path / "game.json")
    (tmp_path / "old.json").write_text("{}")
    with pytest.raises(
        ValueError, match=r"takes no new files, and a file is written whole through a new one"
    ):
        check_writable(tmp_path / "old.json")
    monkeypatch.undo()
    (tmp_path / "old.json").unlink()
    # a file it may make is made and removed: nothing is left behind, even when closing fails
    check_writable(tmp_path / "game.json")
    real_close = os.close

    def failing_close(fd):
        real_close(fd)
        raise OSError(errno.EIO, "I/O error")

    monkeypatch.setattr(files.os, "close", failing_close)
    with pytest.raises(OSError, match="I/O error"):
        files.check_atomic(tmp_path / "game.json")
    monkeypatch.undo()
    assert list(Path(tmp_path).iterdir()) == []


def test_read_limited_reads_an_open_stream_to_its_limit_and_leaves_it_open():
    # (`scopa solve -` reads standard input through it, with the file's bound and words)
    stream = io.BytesIO(b"x" * 10)
    assert files.read_limited(stream, 10) == b"x" * 10 and not stream.closed
    with pytest.raises(files.TooLarge, match="larger than 9 bytes"):
        files.read_limited(io.BytesIO(b"x" * 10), 9)
