"""``score`` (photo → board → score pad) and ``enroll`` (build a deck pack).

Both go through :class:`vision.reader.TerrariumReader` / :class:`vision.gallery.DeckPack`.
Refusals of the loader and the grid finder are ``ValueError`` subclasses with one-line messages;
``reptile_tank.cli`` prints them and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import cv2
import numpy as np

from scoring.cards import CARD_IDS, FACE_LABELS
from scoring.rules import Rules, load_rules

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".heic", ".heif")
#: A card's width over its height (63 × 88 mm).
CARD_ASPECT = 63.0 / 88.0


class PhotoInputError(ValueError):
    """A photo or folder given on the command line cannot be used."""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``score`` and ``enroll`` sub-commands."""
    score = subparsers.add_parser("score", help="score a terrarium from a photo")
    score.add_argument("photo", help="photo of the 4x5 terrarium (JPEG, PNG, WebP, HEIC)")
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
        default=None,
        help="photo of the 16 faces laid out in a 4x5 grid, row by row in the enrolment order: "
        + ", ".join(FACE_LABELS)
        + " (the last 4 cells empty)",
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


def read_photo_bytes(path: str) -> bytes:
    """The photo file's bytes: a regular file of at most ``MAX_PHOTO_BYTES``, else one line.

    Devices, FIFOs, folders and links to them are refused before any byte is read (see
    :mod:`reptile_tank.safe_io`).
    """
    from reptile_tank.safe_io import MAX_PHOTO_BYTES, SafeFileError, read_bytes

    try:
        return read_bytes(path, max_bytes=MAX_PHOTO_BYTES, what="photo")
    except SafeFileError as error:
        raise PhotoInputError(str(error)) from None


def format_read(read) -> str:
    """The board as a table of labels with confidences, then orientation and timings."""
    width = max(len(cell.label) for row in read.cells for cell in row) + 7
    lines = ["Board (row 0 = farthest from the owner; confidence = margin to runner-up)"]
    for r, row in enumerate(read.cells):
        items = [f"{cell.label} {cell.confidence:.2f}".ljust(width) for cell in row]
        lines.append(f"  {r}: " + "".join(items).rstrip())
    low = read.low_confidence()
    if low:
        lines.append("Check these cells: " + " ".join(f"({r},{c})" for r, c in low))
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
    from scoring.board import Board
    from scoring.engine import Variant, score_board
    from scoring.objectives import parse_objectives
    from vision.reader import TerrariumReader

    from .score_grid import format_pad

    rules = load_rules(args.rules)
    objectives = parse_objectives(args.objectives, rules)
    corners = parse_corners(args.corners)
    data = read_photo_bytes(args.photo)
    reader = TerrariumReader(args.pack, copies=copies_from_rules(rules))
    read = reader.read(data, corners=corners, star_cards_removed=args.stars_removed)
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


def crop_to_card(image_rgb: np.ndarray) -> np.ndarray:
    """Cut the card out of a photo or scan of one card, upright and portrait.

    An image with the card's own aspect (63 × 88 mm, within 3 %) is taken as already cropped (a
    scan or an exported face). Otherwise the largest convex four-sided outline with a card-like
    aspect covering 15–98 % of the image is taken as the card and warped to a 63 × 88 mm
    portrait rectangle; without one the whole image is used. Landscape results are turned 90°
    clockwise.

    Parameters
    ----------
    image_rgb : (H, W, 3) uint8 RGB

    Returns
    -------
    (H', W', 3) uint8 RGB, portrait
    """
    h, w = image_rgb.shape[:2]
    aspect = min(h, w) / max(h, w)
    quad = None
    if abs(aspect - CARD_ASPECT) > 0.03 * CARD_ASPECT:
        quad = _largest_card_quad(image_rgb)
    if quad is not None:
        from vision.geometry import order_quad_clockwise

        q = order_quad_clockwise(quad.astype(np.float64)).astype(np.float32)
        top = np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])
        side = np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])
        if top > side:  # the card lies landscape: start from the next corner
            q = np.roll(q, -1, axis=0)
        out_w, out_h = 504, 704
        target = np.array([[0, 0], [out_w, 0], [out_w, out_h], [0, out_h]], np.float32)
        matrix = cv2.getPerspectiveTransform(q, target)
        return cv2.warpPerspective(image_rgb, matrix, (out_w, out_h), flags=cv2.INTER_AREA)
    if w > h:
        image_rgb = np.ascontiguousarray(np.rot90(image_rgb, k=-1))
    return image_rgb


def _card_like(quad: np.ndarray) -> bool:
    """Whether a quad's mean side lengths have roughly a card's aspect (perspective allowed)."""
    from vision.geometry import order_quad_clockwise

    q = order_quad_clockwise(quad)
    a = (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2
    b = (np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2
    ratio = min(a, b) / max(a, b, 1e-9)
    return 0.55 <= ratio <= 0.85


def _largest_card_quad(image_rgb: np.ndarray) -> np.ndarray | None:
    h, w = image_rgb.shape[:2]
    factor = min(1.0, 800 / max(h, w))
    small = cv2.resize(image_rgb, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    gray = cv2.cvtColor(small, cv2.COLOR_RGB2GRAY)
    area = gray.shape[0] * gray.shape[1]
    edges = cv2.dilate(cv2.Canny(cv2.GaussianBlur(gray, (5, 5), 0), 40, 120), np.ones((3, 3)))
    _, otsu = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    best, best_area = None, 0.0
    for binary in (edges, otsu, 255 - otsu):
        contours, _ = cv2.findContours(binary, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            hull = cv2.convexHull(contour)
            a = cv2.contourArea(hull)
            if not (0.15 * area <= a <= 0.98 * area) or a <= best_area:
                continue
            approx = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True)
            if len(approx) == 4 and _card_like(approx.reshape(4, 2).astype(np.float64)):
                best, best_area = approx.reshape(4, 2) / factor, a
    return best


def read_face_image(path: Path) -> np.ndarray:
    """Decode one face image (EXIF orientation applied) to (H, W, 3) uint8 RGB.

    Face images may be small scans, so the photo loader's minimum size does not apply here.
    """
    from PIL import Image, ImageOps, UnidentifiedImageError

    if path.suffix.lower() in (".heic", ".heif"):
        import pillow_heif

        pillow_heif.register_heif_opener()
    try:
        with Image.open(path) as image:
            image = ImageOps.exif_transpose(image)
            if image.width * image.height > 50_000_000:
                raise PhotoInputError(f"{path}: image too large for a card face")
            rgb = np.asarray(image.convert("RGB"))
    except (UnidentifiedImageError, OSError, SyntaxError) as error:
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
    """The 16 faces from a photo of them laid out in a 4x5 grid, row by row in label order.

    The order is :data:`scoring.cards.FACE_LABELS` (the 15 fronts, then the Water back), the
    first 16 cells of the grid read row by row from the top-left; the last 4 cells stay empty.
    """
    from vision.grid import find_grid, rectify_cells
    from vision.loading import load_image

    loaded = load_image(read_photo_bytes(str(photo)), max_side=2400)
    fit = find_grid(loaded.rgb)
    crops = rectify_cells(loaded.rgb, fit, cell_size=(252, 352))
    flat = crops.reshape((-1,) + crops.shape[2:])
    return {label: flat[k] for k, label in enumerate(FACE_LABELS)}


def run_enroll(args: argparse.Namespace) -> int:
    from vision.classifier import CardEmbedder
    from vision.gallery import DeckPack

    if args.from_dir is not None:
        faces = read_face_dir(args.from_dir)
    else:
        faces = faces_from_layout(args.from_layout)
    embedder = CardEmbedder()
    start = time.perf_counter()
    pack = DeckPack.create(
        args.out, faces, embedder, np.random.default_rng(args.seed), name=args.name
    )
    seconds = time.perf_counter() - start
    print(
        f"wrote deck pack {pack.path} ({len(pack.faces)} faces, "
        f"{len(pack.gallery.embeddings)} prototypes, {seconds:.1f} s)"
    )
    return 0
