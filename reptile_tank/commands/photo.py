"""``score`` (photo → board → score pad) and ``enroll`` (build a deck pack).

Both go through :class:`vision.reptile_tank.reader.TerrariumReader` / :class:`vision.reptile_tank.gallery.DeckPack`.
Refusals of the loader and the grid finder are ``ValueError`` subclasses with one-line messages;
``reptile_tank.cli`` prints them and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from scoring.reptile_tank.cards import CARD_IDS, FACE_LABELS
from scoring.reptile_tank.rules import Rules, load_rules

# Photos are read through the service layer's one loader and one list of accepted types.
from service.photos import PHOTO_SUFFIXES as IMAGE_SUFFIXES  # noqa: E402,I001
from service.photos import PhotoInputError, read_photo_bytes, read_photo_file  # noqa: E402,F401

# The card cropping of enrolment lives in vision.reptile_tank.enrol (the app enrols the same way).
from vision.reptile_tank.enrol import CARD_ASPECT, crop_to_card  # noqa: E402,F401,I001  (re-exported)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``score`` and ``enroll`` sub-commands."""
    score = subparsers.add_parser("score", help="score a terrarium from a photo")
    score.add_argument("photo", help="photo of the terrarium (JPEG, PNG, WebP, HEIC)")
    score.add_argument("--pack", default=None, help="deck pack folder (default: stand-in deck)")
    score.add_argument("--objectives", default=None, help="objective numbers in play, e.g. 3,11")
    score.add_argument(
        "--corners",
        default=None,
        help="the grid's outer corners x1,y1,...,x4,y4 in photo pixels (skips grid finding)",
    )
    score.add_argument(
        "--stars-removed", action="store_true", help="star cards are out (2-3 player game)"
    )
    score.add_argument("--rules", default=None, help="a rules TOML overriding the defaults")
    score.add_argument("--json", action="store_true", help="print JSON instead of text")
    score.set_defaults(func=run_score)

    enroll = subparsers.add_parser("enroll", help="build a deck pack from one image per face")
    source = enroll.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--from-dir", default=None, help="folder of <card id>.<ext> images (water.png = back)"
    )
    source.add_argument(
        "--from-layout",
        nargs="+",
        default=None,
        metavar="PHOTO",
        help="photo(s) of the faces laid out: the 16 in the terrarium's grid, row by row in the "
        "enrolment order: " + ", ".join(FACE_LABELS) + " (the last 4 cells empty); or cards "
        "laid anywhere, named with --names. Each card is cut by its own outline; a face seen "
        "in a second photo adds a view of it",
    )
    enroll.add_argument(
        "--names",
        default=None,
        help="with --from-layout: the card id of every card found, comma-separated, photo after "
        "photo, each row by row from the far side (skip leaves a card out)",
    )
    enroll.add_argument("--out", required=True, help="the pack folder to write")
    enroll.add_argument("--name", default=None, help="the deck's name (default: folder name)")
    enroll.add_argument("--seed", type=int, default=0, help="augmentation seed")
    enroll.set_defaults(func=run_enroll)


# ------------------------------------------------------------------------------ score


def copies_from_rules(rules: Rules) -> dict[str, int]:
    """Copies of each front in the deck, from the rules data."""
    return {card: rules.cards[card].copies for card in CARD_IDS if card in rules.cards}


def parse_corners(text: str | None) -> np.ndarray | None:
    """``"x1,y1,...,x4,y4"`` → (4, 2) float array."""
    if text is None:
        return None
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise PhotoInputError(
            f"--corners must be 8 numbers x1,y1,...,x4,y4, got {text!r}"
        ) from None
    if len(values) != 8:
        raise PhotoInputError(f"--corners must be 8 numbers x1,y1,...,x4,y4, got {len(values)}")
    return np.array(values, float).reshape(4, 2)


def format_read(read) -> str:
    """The board as a table of labels with confidences, then orientation and timings."""
    width = max(len(cell.label) for row in read.cells for cell in row) + 8
    check = read.check
    lines = [
        "Board (row 0 = farthest from the owner; confidence = margin to runner-up; "
        "? = check this cell)"
    ]
    for r, row in enumerate(read.cells):
        items = [
            f"{'?' if check[r, c] else ' '}{cell.label} {cell.confidence:.2f}".ljust(width)
            for c, cell in enumerate(row)
        ]
        lines.append(f"  {r}: " + "".join(items).rstrip())
    to_check = [(r, c) for r in range(check.shape[0]) for c in range(check.shape[1]) if check[r, c]]
    if read.needs_check:
        reasons = "; ".join(read.check_reasons) or "unknown confidence"
        lines.append(f"NEEDS A CHECK: {reasons}")
        if to_check:
            lines.append("Check these cells: " + " ".join(f"({r},{c})" for r, c in to_check))
    else:
        lines.append("No cell in doubt.")
    o = read.orientation
    turned = "turned 180 degrees" if o.rotation == 180 else "as photographed"
    note = " (ambiguous: no card front voted; kept as photographed)" if o.ambiguous else ""
    lines.append(
        f"Orientation: {turned}; votes {o.votes_upright} up / {o.votes_turned} turned{note}"
    )
    lines.append(f"Grid: {read.fit.method}, quality {read.fit.quality:.2f}")
    times = ", ".join(f"{k} {v:.0f}" for k, v in read.timings_ms.items())
    lines.append(f"Timings (ms): {times}")
    return "\n".join(lines)


def run_score(args: argparse.Namespace) -> int:
    from scoring.reptile_tank.board import Board
    from scoring.reptile_tank.engine import Variant, score_board
    from scoring.reptile_tank.objectives import parse_objectives
    from vision.loading import DEFAULT_MAX_SIDE
    from vision.reptile_tank.reader import TerrariumReader

    from .score_grid import format_pad

    rules = load_rules(args.rules)
    objectives = parse_objectives(args.objectives, rules)
    corners = parse_corners(args.corners)
    started = (time.perf_counter(), time.process_time())
    # decoded once, and a bad photo refused before the model and gallery load (time, memory)
    photo = read_photo_file(args.photo, max_side=DEFAULT_MAX_SIDE)
    reader = TerrariumReader(args.pack, copies=copies_from_rules(rules), max_side=DEFAULT_MAX_SIDE)
    read = reader.read_loaded(
        photo.image, corners=corners, star_cards_removed=args.stars_removed, started=started
    )
    start = time.perf_counter()
    board = Board.from_json(read.board_json())
    variant = Variant(star_cards_removed=True) if args.stars_removed else None
    pad = score_board(board, rules, objectives=objectives, variant=variant)
    read.timings_ms["score"] = 1000 * (time.perf_counter() - start)
    read.timings_ms["total"] = read.timings_ms.pop("total") + read.timings_ms["score"]
    if args.json:
        summary = read.to_json()
        out = {"board": summary.pop("board"), **pad.to_json(), **summary}
        print(json.dumps(out, indent=2))
    else:
        print(format_read(read))
        print(format_pad(pad))
    return 0


# ----------------------------------------------------------------------------- enroll


def read_face_image(path: Path) -> np.ndarray:
    """Decode one face image (EXIF orientation applied) to (H, W, 3) uint8 RGB.

    Face images may be small scans, so the photo loader's minimum size does not apply here.
    """
    import io
    import warnings

    from PIL import Image, ImageOps

    from common.safe_io import MAX_PHOTO_BYTES, SafeFileError, read_bytes
    from vision.errors import ImageLoadError
    from vision.loading import pillow_formats

    try:  # a regular file, size checked first; then the photo format allow-list
        data = read_bytes(path, max_bytes=MAX_PHOTO_BYTES, what="face image")
        formats = pillow_formats(data)
    except (SafeFileError, ImageLoadError) as error:
        message = str(error) if str(path) in str(error) else f"{path}: {error}"
        raise PhotoInputError(message) from None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with Image.open(io.BytesIO(data), formats=formats) as image:
                if image.width * image.height > 50_000_000:
                    raise PhotoInputError(f"{path}: image too large for a card face")
                image = ImageOps.exif_transpose(image)
                rgb = np.asarray(image.convert("RGB"))
    except PhotoInputError:
        raise
    except Exception as error:  # any decoder error on hostile bytes: one line
        raise PhotoInputError(f"{path}: not a readable image ({error})") from None
    if min(rgb.shape[:2]) < 32:
        raise PhotoInputError(f"{path}: {rgb.shape[1]}x{rgb.shape[0]} px is too small for a face")
    return np.ascontiguousarray(rgb)


def read_face_dir(directory: str | Path) -> dict[str, np.ndarray]:
    """One upright (H, W, 3) uint8 RGB face per label from ``<card id>.<ext>`` files."""
    directory = Path(directory)
    if not directory.is_dir():
        raise PhotoInputError(f"{directory}: not a folder")
    faces: dict[str, np.ndarray] = {}
    unknown = []
    for path in sorted(directory.iterdir()):
        if path.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        label = path.stem.lower()
        if label not in FACE_LABELS:
            unknown.append(path.name)
            continue
        if label in faces:
            raise PhotoInputError(f"{directory}: two images for {label}")
        faces[label] = crop_to_card(read_face_image(path))
    if unknown:
        raise PhotoInputError(
            f"{directory}: file names must be card ids; unknown: {', '.join(unknown[:5])}"
        )
    missing = [label for label in FACE_LABELS if label not in faces]
    if missing:
        raise PhotoInputError(f"{directory}: missing a face image for: {', '.join(missing)}")
    return faces


def faces_from_layout(photo: str | Path) -> dict[str, np.ndarray]:
    """The 16 faces from a photo laid out in the terrarium's grid (see :mod:`vision.reptile_tank.enrol`)."""
    faces, _ = faces_from_layouts([photo])
    return faces


def faces_from_layouts(
    photos: list[str | Path], names: str | None = None
) -> tuple[dict[str, np.ndarray], dict[str, list[np.ndarray]]]:
    """Faces and extra views from layout photos (:func:`vision.reptile_tank.enrol.named_faces`);
    ``names`` as ``--names`` gives them. One :class:`PhotoInputError` per unusable photo."""
    from vision.errors import GridNotFoundError
    from vision.reptile_tank.enrol import layout_cards, named_faces

    layouts = []
    for photo in photos:
        loaded = read_photo_file(photo, max_side=2400).image
        try:
            layouts.append(layout_cards(loaded.rgb))
        except GridNotFoundError as error:
            raise PhotoInputError(f"{photo}: {error}") from None
    listed = None if names is None else [n.strip().lower() for n in names.split(",")]
    try:
        return named_faces(layouts, listed)
    except ValueError as error:
        raise PhotoInputError(str(error)) from None


def run_enroll(args: argparse.Namespace) -> int:
    from service.reptile_tank.deck import create_pack, reader_embedder

    views: dict[str, list[np.ndarray]] = {}
    if args.names is not None and args.from_layout is None:
        raise PhotoInputError("--names names the cards of --from-layout photos")
    if args.from_dir is not None:
        faces = read_face_dir(args.from_dir)
    else:
        faces, views = faces_from_layouts(args.from_layout, args.names)
    missing = [label for label in FACE_LABELS if label not in faces]
    if missing:
        raise PhotoInputError(f"no card named {', '.join(missing)}: a deck needs every face")
    embedder = reader_embedder()
    start = time.perf_counter()
    pack, added = create_pack(
        args.out, faces, views=views, seed=args.seed, name=args.name, embedder=embedder
    )
    seconds = time.perf_counter() - start
    print(
        f"wrote deck pack {pack.path} ({len(pack.faces)} faces"
        + (f", {added} extra view(s)" if added else "")
        + f", {len(pack.gallery.embeddings)} prototypes, {seconds:.1f} s)"
    )
    return 0
