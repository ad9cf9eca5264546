"""Replace a whole output directory in one step: readers see the old tree or the new one."""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from pathlib import Path

from mcpvend.codegen.state import STATE
from mcpvend.errors import MCPVendError
from mcpvend.runtime.client.files import umask

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def replace_tree(output: Path, files: dict[str, str]) -> None:
    """Write `files` into a fresh directory beside `output`, then swap it in atomically.

    What would stop the swap half-way (a file in the way, a read-only directory) is found before
    anything is written; any other failure leaves the old tree as it was and says why in one line.
    """
    check_writable(output)
    parent = output.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        if output.exists() and any(output.iterdir()) and not (output / STATE).is_file():
            raise MCPVendError(f"{output}: not replaced, it holds files mcpvend did not generate (no {STATE})")
        _clean_leftovers(parent, output.name)
        staging = Path(tempfile.mkdtemp(prefix=f".{output.name}.mcpvend-", dir=parent))
    except OSError as exc:
        raise MCPVendError(f"cannot write {output}: {exc.strerror or exc}") from None
    try:
        os.chmod(staging, 0o777 & ~umask())
        for relative, text in files.items():
            path = staging / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8", newline="\n")
        if not output.exists():
            os.rename(staging, output)
            return
        _exchange(staging, output)  # `staging` now holds the old tree
    except BaseException as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(exc, OSError):
            raise MCPVendError(f"cannot write {output}: {exc.strerror or exc}") from None
        raise
    # The new tree is in place: what cannot be removed of the old one, the next run removes.
    shutil.rmtree(staging, ignore_errors=True)


def check_writable(output: Path) -> None:
    """Refuse a file where a directory must be, and a directory whose entries cannot be replaced."""
    existing = next(p for p in (output, *output.parents) if os.path.lexists(p))
    if not existing.is_dir():
        raise MCPVendError(f"cannot write {output}: {existing} is not a directory")
    # The old tree is removed after the swap: every directory in it must let its entries go.
    old = [d for d in (output, *output.rglob("*")) if d.is_dir() and not d.is_symlink()] if existing == output else []
    for directory in (output.parent if existing == output else existing, *old):
        if not os.access(directory, os.W_OK | os.X_OK):
            where = "it" if directory == output else str(directory)
            raise MCPVendError(f"cannot write {output}: {where} is not writable")


def _exchange(new: Path, old: Path) -> None:
    """Swap two directories: atomically where the system can, else with a backup a later run restores."""
    if _renameat2_exchange(new, old):
        return
    # Two renames; killed between them, the next run finds the backup and puts it back (_clean_leftovers).
    backup = old.with_name(f".{old.name}.mcpvend-backup")
    os.rename(old, backup)
    try:
        os.rename(new, old)
    except BaseException:
        os.rename(backup, old)  # the old tree stays the output
        raise
    os.rename(backup, new)


def _renameat2_exchange(new: Path, old: Path) -> bool:
    """One renameat2(RENAME_EXCHANGE) system call (Linux 3.15+); False where it cannot be made.

    Windows has no C library to ask (`CDLL(None)` raises there), macOS's libc and older musl lack
    the symbol, and an older kernel or some filesystems refuse the flag.
    """
    try:
        import ctypes  # here: `generate --check` never swaps, and the import is a tenth of its time

        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (ImportError, OSError, TypeError, AttributeError):
        return False
    if renameat2(_AT_FDCWD, os.fsencode(new), _AT_FDCWD, os.fsencode(old), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(code, f"cannot swap in {old}: {os.strerror(code)}")


def _clean_leftovers(parent: Path, name: str) -> None:
    """Remove what a killed run left: staging trees, and restore a backup if the swap was cut short."""
    backup = parent / f".{name}.mcpvend-backup"
    if backup.is_dir() and not (parent / name).exists():
        os.rename(backup, parent / name)
    for leftover in parent.glob(f".{name}.mcpvend-*"):
        shutil.rmtree(leftover, ignore_errors=True)
