"""``nimalia read`` (photo -> reserve squares) and ``nimalia enroll`` (a deck pack of square
prototypes from one image per card), through the service layer (:mod:`service.nimalia.reading`,
:func:`service.nimalia.deck.enroll_folder`).

Refusals (an unreadable photo, a missing folder, no card images) are ``ValueError`` subclasses
with one line; ``reptile_tank.cli`` prints them and exits with status 2.
"""

from __future__ import annotations

import argparse
import json

from service.photos import PHOTO_SUFFIXES as IMAGE_SUFFIXES  # noqa: F401 - the one list
from service.photos import is_photo_path


def register(inner: argparse._SubParsersAction) -> None:
    """Add ``read`` and ``enroll`` to the ``nimalia`` command group's sub-parsers."""
    read = inner.add_parser("read", help="read a reserve's squares from a photo")
    read.add_argument("photo", help="photo of the reserve from the player's seat")
    read.add_argument("--pack", default=None, help="Nimalia deck pack folder (default: stand-in)")
    read.add_argument("--json", action="store_true", help="print JSON instead of text")
    read.set_defaults(func=run_read)

    enroll = inner.add_parser("enroll", help="build a Nimalia deck pack from one image per card")
    enroll.add_argument(
        "--from-dir",
        required=True,
        help="folder of <card id>.png images, ids 1-60 as the reference numbers "
        "them, each card upright and unturned",
    )
    enroll.add_argument("--out", required=True, help="the pack folder to write")
    enroll.add_argument("--name", default=None, help="the deck's name (default: folder name)")
    enroll.set_defaults(func=run_enroll)

    score = inner.choices.get("score")  # ``nimalia score PHOTO --goals ...`` reads the photo
    if score is not None:
        score.add_argument(
            "--pack", default=None, help="Nimalia deck pack for a photo (default: stand-in deck)"
        )


def is_photo(path: str) -> bool:
    """Whether a command-line argument names a photo (by suffix) rather than a document."""
    return is_photo_path(path)


def read_photo(path: str, pack: str | None = None):
    """``(ReserveRead, scale)`` for a photo file; ``scale`` maps the read's image to the photo."""
    from service.nimalia.reading import read_reserve_photo

    read, photo = read_reserve_photo(path, pack)  # the one loader: decoded and hashed once
    return read, photo.image.scale


def reserve_from_photo(path: str, pack: str | None = None) -> tuple[dict, list[str]]:
    """A reserve document ``{"squares": [...]}`` read from a photo (for ``nimalia score``), and
    the read's check lines (:func:`check_lines`: empty when the read is sure).

    Raises ``ValueError`` (one line) when no reserve is found.
    """
    result, _ = read_photo(path, pack)
    if not result.found:
        raise ValueError(f"{path}: no reserve found ({'; '.join(result.reasons)})")
    return {"squares": result.squares}, check_lines(result)


def check_lines(result) -> list[str]:
    """What ``nimalia read`` says to check: ``check this read: …`` and each flagged square."""
    flagged = [
        f"  row {r + 1}, column {c + 1}: {cell.token} (margin {cell.confidence:.3f}; also "
        + ", ".join(t for t, _ in cell.top[1:3])
        + ")"
        for r, row in enumerate(result.cells)
        for c, cell in enumerate(row)
        if cell.check
    ]
    head = ["check this read: " + "; ".join(result.reasons)] if result.needs_check else []
    return head + flagged


def photo_json(result, scale: float) -> dict:
    """The ``nimalia read --json`` document; lattice quads in the photo's own pixels."""
    doc = result.to_json()
    doc["lattice"] = [
        [[[round(x / scale, 1), round(y / scale, 1)] for x, y in quad] for quad in row]
        for row in doc["lattice"]
    ]
    doc["found"] = result.found
    return doc


def run_read(args: argparse.Namespace) -> int:
    result, scale = read_photo(args.photo, args.pack)
    if args.json:
        print(json.dumps(photo_json(result, scale), indent=2))
        return 0
    if not result.found:
        raise ValueError(f"{args.photo}: no reserve found ({'; '.join(result.reasons)})")
    from reptile_tank.commands.nimalia import format_squares

    print(format_squares(result.squares))
    for line in check_lines(result):
        print(line)
    return 0


def run_enroll(args: argparse.Namespace) -> int:
    from service.nimalia.deck import enroll_folder

    out, count = enroll_folder(args.from_dir, args.out, name=args.name)
    print(f"enrolled {count} cards into {out}")
    return 0
