"""Folders written whole or not at all, at paths built only from checked names.

A deck pack (Reptile Tank's or Nimalia's) is a folder of images, a gallery and a ``pack.json``.
:func:`replace_folder` builds the new folder beside the old one under a temporary name and swaps
it in with renames, so the folder holds the old deck or the whole new one — never a half-written
one, whatever fails (a full disk, a write refused, an exception in the builder). Every failure is
one :class:`FolderWriteError` (a ``ValueError``) whose message says what could not be written,
why (``the disk is full``, …) and that the previous one is kept.

:func:`child_folder` builds ``root / name / …`` from names that are plain file names (no ``/``,
no ``..``, no leading dot, a bounded safe alphabet) and refuses a path through a symbolic link
below ``root``, so one night's enrolment cannot write into another's folder or out of the user
data folder.

Pure standard library, like :mod:`common.safe_io`.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

#: A name a folder may be built from: letters, digits, ``-`` and ``_`` (1-80 characters).
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,79}")


class FolderWriteError(ValueError):
    """A folder could not be written (or may not be written there); the previous one is kept."""


def reason(error: OSError) -> str:
    """An ``OSError`` as a few plain words."""
    code = getattr(error, "errno", None)
    if code == errno.ENOSPC or code == getattr(errno, "EDQUOT", -1):
        return "the disk is full"
    if code in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if code == errno.EROFS:
        return "the disk is read-only"
    text = (error.strerror or str(error) or type(error).__name__).strip().splitlines()
    return text[0][:120] if text else type(error).__name__


def check_name(name: object, *, what: str = "name") -> str:
    """``name`` if it is a safe folder name (:data:`SAFE_NAME`); else :class:`FolderWriteError`."""
    if not isinstance(name, str) or not SAFE_NAME.fullmatch(name):
        shown = repr(name)[:40]
        raise FolderWriteError(
            f"the {what} {shown} cannot name a folder (letters, digits, '-' and '_' only)"
        )
    return name


def _no_links_below(root: Path, path: Path, what: str) -> None:
    current = root
    for part in path.relative_to(root).parts:
        current = current / part
        if current.is_symlink():
            raise FolderWriteError(f"{what}: {current.name} is a symbolic link; refused")


def child_folder(root: Path, *names: str, what: str = "folder") -> Path:
    """``root / names…`` built from checked names, with no symbolic link below ``root``.

    Raises
    ------
    FolderWriteError
        A name is not a safe folder name, or a part of the path below ``root`` is a link.
    """
    root = Path(root)
    for name in names:
        check_name(name, what=what)
    path = root.joinpath(*names)
    _no_links_below(root, path, what)
    return path


def replace_folder(folder: Path, build: Callable[[Path], T], *, what: str = "the folder") -> T:
    """Build a new ``folder`` with ``build(path)`` and swap it in; returns what ``build`` did.

    ``build`` gets a path that does not exist yet, beside ``folder`` (same file system), and
    writes the whole new folder there. Then the old folder (if any) is renamed aside, the new
    one renamed into place, and the old one removed; if the second rename fails the old one is
    renamed back. Anything ``build`` leaves is removed on failure.

    Raises
    ------
    FolderWriteError
        ``folder`` is a symbolic link (or not a folder), or writing failed (an ``OSError``:
        a full disk, permissions), with the reason; the previous folder is intact.
    """
    folder = Path(folder)
    if folder.is_symlink():
        raise FolderWriteError(f"{what} is a symbolic link ({folder.name}); refused")
    if folder.exists() and not folder.is_dir():
        raise FolderWriteError(f"{what} ({folder.name}) is not a folder; refused")
    kept = "the previous one is kept" if folder.exists() else "nothing was written"
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{folder.name}.new-", dir=folder.parent))
    except OSError as error:
        raise FolderWriteError(
            f"{what} could not be written: {reason(error)}; {kept}"
        ) from None
    try:
        try:
            result = build(work / "new")
        except OSError as error:
            raise FolderWriteError(
                f"{what} could not be written: {reason(error)}; {kept}"
            ) from None
        if not (work / "new").is_dir():
            raise FolderWriteError(f"{what} could not be written: nothing was built; {kept}")
        old = folder.parent / f".{folder.name}.old-{uuid.uuid4().hex[:8]}"
        try:
            moved = False
            if folder.exists():
                os.rename(folder, old)
                moved = True
            try:
                os.rename(work / "new", folder)
            except OSError:
                if moved:
                    os.rename(old, folder)
                raise
        except OSError as error:
            raise FolderWriteError(
                f"{what} could not be put in place: {reason(error)}; {kept}"
            ) from None
        shutil.rmtree(old, ignore_errors=True)
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)
