# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""Files: read one someone else named without hanging or filling memory, write one so no reader sees half.

A path may be a symlink to `/dev/zero`, a FIFO whose open waits for a writer forever, or a file of
gigabytes: none of these is a config or a lockfile, and each would stop the reader. Only regular
files are opened, without waiting (`O_NONBLOCK`), and at most `MAX_BYTES` + 1 bytes are read.
Every refusal is an `OSError` whose `strerror` says why, as the system's own errors do.
"""

from __future__ import annotations

import errno
import glob
import os
import stat
from pathlib import Path

MAX_BYTES = 32 * 1024 * 1024  # a lockfile of a thousand tools is a few MiB
TOO_LARGE = f"larger than {MAX_BYTES // (1024 * 1024)} MiB, the most mcpvend reads"
# No wait for a FIFO's writer, no inheritance by child processes, no newline translation (Windows): where defined.
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
_KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a device", stat.S_IFBLK: "a device", stat.S_IFSOCK: "a socket"}


class NotReadable(OSError):
    """A file refused before its content is read: not a regular file, or larger than `MAX_BYTES`."""


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of the regular file at `path` (symlinks followed), refusing one of more than `MAX_BYTES`."""
    _check(path, os.stat(path))  # before opening: opening a FIFO waits for a writer
    fd = os.open(path, _FLAGS)
    try:
        _check(path, os.fstat(fd))  # what was opened, should the path have been replaced since
        chunks: list[bytes] = []
        size = 0
        while size <= MAX_BYTES and (chunk := os.read(fd, min(MAX_BYTES + 1 - size, 1024 * 1024))):
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > MAX_BYTES:  # it grew while being read
        raise NotReadable(errno.EFBIG, TOO_LARGE, os.fspath(path))
    return b"".join(chunks)


def read_text(path: str | os.PathLike[str]) -> str:
    """`read_bytes` as UTF-8 text with `\\n` line endings, as `Path.read_text` reads it (a `UnicodeDecodeError`
    where it is not UTF-8)."""
    return read_bytes(path).decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def _check(path: str | os.PathLike[str], info: os.stat_result) -> None:
    mode = stat.S_IFMT(info.st_mode)
    if mode == stat.S_IFDIR:  # the system's own error, as reading a directory gives
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
    if mode != stat.S_IFREG:
        raise NotReadable(errno.EINVAL, f"it is {_KINDS.get(mode, 'a special file')}, not a file", os.fspath(path))
    if info.st_size > MAX_BYTES:
        raise NotReadable(errno.EFBIG, TOO_LARGE, os.fspath(path))


def write_atomic(path: Path, content: str | bytes) -> None:
    """Replace `path` in one step, synced to disk: readers (and a process killed half-way) see the old file
    or the new one, never a part."""
    import tempfile  # here: the read-only paths (`generate --check` in pre-commit) never pay for its import

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:  # the same error without the name of a temporary file the user never sees
        raise OSError(exc.errno, exc.strerror) from exc
    try:
        os.fchmod(fd, 0o666 & ~umask())
        data = content.encode("utf-8") if isinstance(content, str) else content
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def sweep_temporaries(path: Path) -> None:
    """Remove what a killed `write_atomic` of `path` left: its complete but never renamed temp files.

    They sit in a committed directory, where `git add` would pick them up; nothing else reads them.
    """
    for temp in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        temp.unlink(missing_ok=True)


def umask() -> int:
    """The process umask: mkstemp's 0600 (and mkdtemp's 0700) would hide our files from group and CI users."""
    mask = os.umask(0)
    os.umask(mask)
    return mask
