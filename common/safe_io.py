"""Bounded, safe reading of the files and documents the command line and the app are given.

Pure standard library (no NumPy, OpenCV, Streamlit or scoring import), so any layer may use it:
each game's rules loader for rules files, the command line for documents and photos, the app
for uploaded documents.

What it guarantees, whatever the path or the bytes:

- **Regular files only.** A FIFO, a character or block device (``/dev/zero``, ``/dev/urandom``),
  a socket, a folder, or a symbolic link to any of them is refused *before* a single byte is
  read. The file is opened with ``O_NONBLOCK`` so that opening a FIFO cannot block; the check is
  ``fstat`` on the opened descriptor, so a link swapped between check and read changes nothing.
- **Size checked before reading.** A file over ``max_bytes`` (a 4 GB sparse file, say) is
  refused from its ``st_size``; the read itself stops at ``max_bytes + 1`` bytes, so a file that
  grows while being read (or a ``/proc`` file reporting size 0) is still bounded.
- **Depth and numbers bounded.** JSON and TOML documents nested deeper than ``max_depth`` are
  refused (never a ``RecursionError``); JSON integers are limited to ``max_int_digits`` digits
  and ``NaN``/``Infinity`` are refused.

Every refusal is a :class:`SafeFileError` (a ``ValueError``) whose message is one line and
names the file.

Examples
--------
>>> from common.safe_io import parse_json
>>> parse_json('{"rows": [[1, 2]]}', where="board.json")
{'rows': [[1, 2]]}
"""

from __future__ import annotations

import errno
import json
import os
import stat
import sys
import tomllib
from typing import Any, BinaryIO

#: Largest photo file accepted (bytes). A 12 MP PNG is ~36 MB; phone JPEG/HEIC are 2-15 MB.
MAX_PHOTO_BYTES = 64 * 1024 * 1024
#: Largest JSON/TOML document file accepted (bytes): board, game, solo and rules files are
#: a few kilobytes.
MAX_DOCUMENT_BYTES = 4 * 1024 * 1024
#: Deepest nesting of a JSON/TOML document (a game file is 5 deep, the rules data 6).
MAX_DEPTH = 64
#: Most digits of a JSON integer (2**63 has 19).
MAX_INT_DIGITS = 20

_KIND_NAMES = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class SafeFileError(ValueError):
    """A file or document refused by this module; the message is one line naming it."""


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _size_text(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):.1f} MB"
    if n >= 1024:
        return f"{n / 1024:.0f} KB"
    return f"{n} bytes"


def _kind(mode: int) -> str:
    for test, name in _KIND_NAMES:
        if test(mode):
            return name
    return "not a regular file"


def _read_bounded(handle: BinaryIO | int, limit: int) -> bytes:
    """Read at most ``limit`` bytes from a descriptor or binary stream."""
    chunks = []
    left = limit
    while left > 0:
        if isinstance(handle, int):
            chunk = os.read(handle, min(left, 1 << 20))
        else:
            chunk = handle.read(min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_bytes(
    path: str | os.PathLike[str], *, max_bytes: int = MAX_DOCUMENT_BYTES, what: str = "file"
) -> bytes:
    """Read a regular file of at most ``max_bytes`` bytes (``-`` reads standard input).

    Parameters
    ----------
    path : str or path
        The file; a symbolic link is followed, but what it points to must be a regular file.
    max_bytes : int
        Largest size accepted.
    what : str
        What the file is, for the message (``"photo"``, ``"rules file"``, ...).

    Raises
    ------
    SafeFileError
        Missing, unreadable, not a regular file (folder, FIFO, device, socket) or too large.
    """
    name = os.fspath(path)
    if name == "-":
        data = _read_bounded(sys.stdin.buffer, max_bytes + 1)
        if len(data) > max_bytes:
            raise SafeFileError(f"-: standard input is over the {_size_text(max_bytes)} limit")
        return data
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(name, flags)
    except OSError as error:
        if error.errno == errno.ENXIO:  # a FIFO or socket nobody writes to
            raise SafeFileError(f"{name}: not a regular {what} (a FIFO or socket)") from None
        reason = error.strerror or _one_line(error)
        raise SafeFileError(f"{name}: cannot read the {what}: {reason}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = _kind(info.st_mode)
            if stat.S_ISDIR(info.st_mode):
                raise SafeFileError(f"{name}: is a folder, not a {what}")
            raise SafeFileError(f"{name}: is {kind}, not a regular {what} file")
        if info.st_size > max_bytes:
            raise SafeFileError(
                f"{name}: the {what} is {_size_text(info.st_size)}, over the "
                f"{_size_text(max_bytes)} limit"
            )
        try:
            data = _read_bounded(fd, max_bytes + 1)
        except OSError as error:
            reason = error.strerror or _one_line(error)
            raise SafeFileError(f"{name}: cannot read the {what}: {reason}") from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise SafeFileError(f"{name}: the {what} grew over the {_size_text(max_bytes)} limit")
    return data


def read_text(
    path: str | os.PathLike[str], *, max_bytes: int = MAX_DOCUMENT_BYTES, what: str = "file"
) -> str:
    """:func:`read_bytes`, then UTF-8 (a leading BOM is dropped); not UTF-8 is refused."""
    data = read_bytes(path, max_bytes=max_bytes, what=what)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise SafeFileError(
            f"{os.fspath(path)}: not a UTF-8 text file (byte {error.start})"
        ) from None


def depth(value: Any) -> int:
    """Nesting depth of JSON-like data (a scalar is 0, ``[]`` is 1), computed without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            deepest = max(deepest, level)
            continue
        deepest = max(deepest, level + 1)
        stack.extend((child, level + 1) for child in children)
    return deepest


def _check_depth(value: Any, where: str, max_depth: int, kind: str) -> Any:
    found = depth(value)
    if found > max_depth:
        raise SafeFileError(f"{where}: {kind} nested {found} deep, at most {max_depth} allowed")
    return value


def parse_json(
    text: str | bytes,
    *,
    where: str = "document",
    max_depth: int = MAX_DEPTH,
    max_int_digits: int = MAX_INT_DIGITS,
) -> Any:
    """Parse JSON strictly: depth, integer size bounded; ``NaN``/``Infinity`` and a key given
    twice in one object (JSON would silently keep the last) refused.

    Raises
    ------
    SafeFileError
        Not JSON (line and column named), nested deeper than ``max_depth``, an integer of more
        than ``max_int_digits`` digits, or a non-finite number.
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise SafeFileError(f"{where}: not UTF-8 text (byte {error.start})") from None

    def parse_int(digits: str) -> int:
        if len(digits.lstrip("-")) > max_int_digits:
            raise SafeFileError(
                f"{where}: unreadable JSON value (an integer of {len(digits.lstrip('-'))} "
                f"digits, at most {max_int_digits} allowed)"
            )
        return int(digits)

    def parse_constant(name: str) -> Any:
        raise SafeFileError(f"{where}: {name} is not a number JSON allows")

    def parse_float(digits: str) -> float:
        value = float(digits)
        if value in (float("inf"), float("-inf")):
            raise SafeFileError(f"{where}: the number {digits[:30]} is out of range")
        return value

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for key, item in items:
            if key in seen:
                raise SafeFileError(
                    f"{where}: the key {key[:40]!r} appears twice in one object (which one "
                    "is meant?)"
                )
            seen[key] = item
        return seen

    try:
        value = json.loads(
            text,
            parse_int=parse_int,
            parse_constant=parse_constant,
            parse_float=parse_float,
            object_pairs_hook=pairs,
        )
    except json.JSONDecodeError as error:
        raise SafeFileError(
            f"{where}: invalid JSON at line {error.lineno}, column {error.colno}: {error.msg}"
        ) from None
    except RecursionError:
        raise SafeFileError(f"{where}: JSON nested too deeply (at most {max_depth})") from None
    return _check_depth(value, where, max_depth, "JSON")


def parse_toml(text: str, *, where: str = "document", max_depth: int = MAX_DEPTH) -> dict:
    """Parse TOML with its nesting bounded (deep arrays/inline tables never recurse unbounded).

    Raises
    ------
    SafeFileError
        Nested deeper than ``max_depth`` (including input deep enough to exhaust the
        parser's recursion).

    ``tomllib.TOMLDecodeError`` (a ``ValueError``) is left to the caller, who knows how to
    name the line (see a game's rules loader).
    """
    try:
        value = tomllib.loads(text)
    except RecursionError:
        raise SafeFileError(f"{where}: TOML nested too deeply (at most {max_depth})") from None
    return _check_depth(value, where, max_depth, "TOML")


def load_json_file(
    path: str | os.PathLike[str],
    *,
    max_bytes: int = MAX_DOCUMENT_BYTES,
    max_depth: int = MAX_DEPTH,
    what: str = "JSON file",
) -> Any:
    """:func:`read_text` then :func:`parse_json`, the messages naming ``path``."""
    text = read_text(path, max_bytes=max_bytes, what=what)
    return parse_json(text, where=os.fspath(path), max_depth=max_depth)


def load_toml_file(
    path: str | os.PathLike[str],
    *,
    max_bytes: int = MAX_DOCUMENT_BYTES,
    max_depth: int = MAX_DEPTH,
    what: str = "TOML file",
) -> dict:
    """:func:`read_text` then :func:`parse_toml`, the messages naming ``path``."""
    text = read_text(path, max_bytes=max_bytes, what=what)
    return parse_toml(text, where=os.fspath(path), max_depth=max_depth)
