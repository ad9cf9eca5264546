"""Writing files so that a reader, or a process killed half-way, never sees a part of one."""

from __future__ import annotations

import glob
import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` in one step: readers see the old file or the new one, never a part."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:  # the same error without the name of a temporary file the user never sees
        raise OSError(exc.errno, exc.strerror) from exc
    try:
        os.fchmod(fd, 0o666 & ~umask())
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
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
