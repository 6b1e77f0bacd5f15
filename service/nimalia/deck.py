"""A game night's own Nimalia deck: enrol a pack from the 60 card images a player uploads.

The Nimalia reader reads with a *pack* (:func:`vision.nimalia.reader.enroll_pack`: one upright
image per card, ``<card id>.png``, ids 1-60, turned into a gallery of square prototypes) or,
without one, with the project's stand-in deck. In the app a pack belongs to a game night (as
Reptile Tank's enrolled deck does): it lives in one folder per night on the server's disk
(:func:`ui.backend.nimalia_pack_path`), and the night's settings say whether it is in use.

Every refusal is one ``ValueError`` whose message lists everything wrong at once; the UI only
shows it.
"""

from __future__ import annotations

import errno
import re
import time
from collections.abc import Sequence
from pathlib import Path

#: Card images a pack needs: one per card id, 1 to ``CARDS``.
CARDS = 60
#: File endings taken as card images (any of them is decoded through ``vision.loading``).
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
#: Long side a card image is decoded to (the gallery cuts its squares from 256 px anyway).
MAX_SIDE = 1024
#: Enrolment time, said in the UI: 8.9 s measured on a 2-core CPU for the 60 rendered variant
#: cards (``render_deck(STYLES["variant"], px_per_mm=3.0)``); a busy server takes longer.
ENROL_SECONDS = "about 10 seconds"

_NAME = re.compile(r"^\s*0*(\d{1,3})\s*$")


def _listed(values: Sequence[object], limit: int = 12) -> str:
    shown = ", ".join(str(v) for v in values[:limit])
    return shown + (f" and {len(values) - limit} more" if len(values) > limit else "")


def card_images(files: Sequence[tuple[str, bytes]]) -> dict[int, object]:
    """The 60 card images ``{id: (H, W, 3) uint8 RGB}`` from uploaded ``(file name, bytes)``.

    Each file is named after its card id (``7.png``, ``07.jpg``) and decoded with
    :func:`vision.loading.load_image` (size and pixel limits, format judged from its bytes).

    Raises
    ------
    ValueError
        One message listing every problem: names that are not a card id 1-60, ids given twice,
        files that are not images, and the ids still missing.
    """
    from vision.loading import ImageLoadError, load_image

    problems: list[str] = []
    unknown: list[str] = []
    duplicates: list[int] = []
    unreadable: list[str] = []
    images: dict[int, object] = {}
    for name, data in files:
        path = Path(name)
        match = _NAME.match(path.stem)
        cid = int(match.group(1)) if match else None
        if path.suffix.lower() not in IMAGE_SUFFIXES or cid is None or not 1 <= cid <= CARDS:
            unknown.append(path.name)
            continue
        if cid in images or cid in duplicates:
            if cid not in duplicates:
                duplicates.append(cid)
            continue
        try:
            images[cid] = load_image(data, max_side=MAX_SIDE).rgb
        except (ImageLoadError, ValueError) as error:
            unreadable.append(f"{path.name} ({error})")
    missing = [cid for cid in range(1, CARDS + 1) if cid not in images]
    if unknown:
        problems.append(f"not named <card id>.png or .jpg with an id 1-{CARDS}: {_listed(unknown)}")
    if duplicates:
        problems.append(f"more than one image for card {_listed(sorted(duplicates))}")
    if unreadable:
        problems.append(f"not an image the app can open: {_listed(unreadable, 4)}")
    if len(missing) == CARDS:
        problems.append(f"no card image among them: all {CARDS} are needed, <id>.png for 1-{CARDS}")
    elif missing:
        problems.append(f"{len(missing)} of {CARDS} cards missing: {_listed(missing)}")
    if problems:
        raise ValueError("Cannot enrol this deck: " + "; ".join(problems) + ".")
    return images


def has_pack(folder: Path | None) -> bool:
    """Whether ``folder`` holds an enrolled Nimalia pack (its ``pack.json`` and gallery)."""
    return (
        folder is not None
        and (folder / "pack.json").is_file()
        and (folder / "gallery.npz").is_file()
    )


#: The night chose its enrolled deck, but this server does not hold it.
PACK_MISSING = (
    "This night reads photos with its enrolled Nimalia deck, but the deck is not on this "
    "server: enrol it again here, or switch to the stand-in deck (Your Nimalia deck)."
)


def pack_to_read(folder: Path | None, choice: str) -> str | None:
    """The pack the reader takes: ``folder`` when the night chose ``"enrolled"``, ``None`` (the
    stand-in deck) when it chose ``"bundled"``.

    Raises ``ValueError`` (:data:`PACK_MISSING`) when the night chose its enrolled deck and the
    pack is not in ``folder`` (another server enrolled it, or it was removed): reading a real
    deck's photo with the stand-in deck's gallery would name squares wrongly without a word.
    A re-enrolment swaps the folder in two renames, so a missing pack is looked for once more.
    """
    if choice != "enrolled" or folder is None:
        return None
    for attempt in range(2):
        if has_pack(folder):
            return str(folder)
        if attempt == 0:
            time.sleep(0.2)
    raise ValueError(PACK_MISSING)


def enroll(
    files: Sequence[tuple[str, bytes]], folder: Path, *, name: str | None = None
) -> tuple[Path, float]:
    """Build the night's Nimalia pack in ``folder`` from the 60 uploaded card images.

    The images are checked first (:func:`card_images`); the pack is built beside ``folder`` in
    a temporary folder and renamed into place, so ``folder`` holds either the old pack or the
    whole new one, never a half-built one. Returns the folder and the seconds enrolment took.

    Raises
    ------
    ValueError
        The images as :func:`card_images` refuses them, or the reader's model is missing.
    """
    import cv2

    images = card_images(files)
    try:
        from vision.nimalia.reader import NimaliaPackError, enroll_pack, square_embedder

        embedder = square_embedder()
    except (ImportError, OSError) as error:
        raise ValueError(f"The Nimalia reader is not installed on this server: {error}") from None
    from common.safe_write import replace_folder

    folder = Path(folder)
    started = time.perf_counter()

    def build(out: Path) -> None:
        src = out.parent / "cards"
        src.mkdir()
        for cid, rgb in images.items():
            if not cv2.imwrite(str(src / f"{cid}.png"), cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)):
                raise OSError(errno.EIO, f"card {cid} could not be written")
        try:
            enroll_pack(src, out, embedder, name=name or "My Nimalia deck")
        except NimaliaPackError as error:
            raise ValueError(f"Cannot enrol this deck: {error}") from None

    try:
        replace_folder(folder, build, what="the night's Nimalia deck")
    except ValueError as error:
        message = str(error)
        if not message.startswith("Cannot enrol"):
            message = f"Cannot enrol this deck: {message}."
        raise ValueError(message) from None
    # the reader cache notices the new gallery itself (vision.nimalia.reader.cached_reader)
    return folder, time.perf_counter() - started


def enroll_folder(src: str | Path, out: str | Path, *, name: str | None = None) -> tuple[Path, int]:
    """Build a Nimalia pack in ``out`` from a folder of ``<card id>.png`` images, ids 1-60
    (the command line's ``nimalia enroll --from-dir``); returns the pack folder and the cards
    enrolled.

    Raises ``ValueError`` (one line) when ``src`` is not a folder or misses card images.
    """
    from scoring.nimalia.cards import cards
    from vision.nimalia.reader import enroll_pack

    src = Path(src)
    if not src.is_dir():
        raise ValueError(f"{src}: not a folder")
    present = [cid for cid in cards() if (src / f"{cid}.png").is_file()]
    if not present:
        raise ValueError(f"{src}: no <card id>.png images (ids 1-{len(cards())})")
    missing = sorted(set(cards()) - set(present))
    if missing:
        raise ValueError(
            f"{src}: missing card images {', '.join(map(str, missing[:12]))}"
            + (" ..." if len(missing) > 12 else "")
        )
    return Path(enroll_pack(src, out, name=name)), len(present)
