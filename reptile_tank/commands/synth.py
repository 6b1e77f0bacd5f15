"""``synth`` (synthetic tabletop photos + ground truth), ``deck export`` and ``deck pdf``.

- ``reptile-tank synth --out DIR --n N --seed S [--deck PACK|stand-in|random] [--partial P]
  [--max-size WxH]`` writes ``scene_%05d.jpg`` + ``.json`` + ``manifest.json``; same seed, same
  bytes.
- ``reptile-tank deck export --out DIR [--pack PACK | --random-seed S]`` writes ``<label>.png``
  for the 16 faces (of the stand-in deck, a pack, or a random "unseen" deck).
- ``reptile-tank deck pdf --out FILE`` lays the stand-in deck out on A4 pages at 63 x 88 mm with
  crop marks (one copy of each face), for print-and-play and real photos.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import cv2
import numpy as np

MM_PER_INCH = 25.4
A4_MM = (210.0, 297.0)


def register(subparsers: argparse._SubParsersAction) -> None:
    synth = subparsers.add_parser("synth", help="synthetic phone photos of terrariums + truth")
    synth.add_argument("--out", required=True, help="folder to write the scenes into")
    synth.add_argument("--n", type=int, required=True, help="number of scenes")
    synth.add_argument("--seed", type=int, required=True, help="data set seed")
    synth.add_argument(
        "--deck",
        default="stand-in",
        help="'stand-in' (default), 'random' (a new random deck per scene) or a pack folder",
    )
    synth.add_argument(
        "--partial", type=float, default=0.0, help="probability that a cell is empty (0..1)"
    )
    synth.add_argument(
        "--max-size", default="4032x3024", help="largest photo, long x short side (WxH)"
    )
    synth.add_argument("--start", type=int, default=0, help="index of the first scene")
    synth.add_argument(
        "--size", default=None, help="every photo exactly this size, WxH (overrides --max-size)"
    )
    synth.add_argument(
        "--real-table",
        action="store_true",
        help="a game night: wide lens, cards laid by hand, curled corners, sleeves and glare, "
        "arm shadow, a thumb, a neighbour's cards, phone sharpening",
    )
    synth.set_defaults(func=run_synth)

    deck = subparsers.add_parser("deck", help="export or print the stand-in deck")
    deck_sub = deck.add_subparsers(dest="deck_command", metavar="ACTION")
    deck_sub.required = True
    export = deck_sub.add_parser("export", help="write <card id>.png for the 16 faces")
    export.add_argument("--out", required=True, help="folder to write the faces into")
    export.add_argument("--pack", default=None, help="a deck pack folder (default: stand-in)")
    export.add_argument(
        "--random-seed",
        type=int,
        default=None,
        help="export a random deck drawn from this seed instead (an 'unseen deck' for tests)",
    )
    export.add_argument("--px-per-mm", type=float, default=8.0, help="resolution (drawn decks)")
    export.set_defaults(func=run_deck_export)
    pdf = deck_sub.add_parser("pdf", help="the stand-in deck as a print-and-play PDF (A4)")
    pdf.add_argument("--out", required=True, help="the PDF file to write")
    pdf.add_argument("--dpi", type=int, default=300, help="raster resolution (default 300)")
    pdf.set_defaults(func=run_deck_pdf)


def run_synth(args: argparse.Namespace) -> int:
    from vision.reptile_tank.synth.dataset import parse_size, write_dataset

    max_size = parse_size(args.max_size)
    if args.n < 1:
        raise ValueError(f"--n: must be at least 1, got {args.n}")
    if not 0 <= args.seed < 2**31:
        raise ValueError(f"--seed: must be in [0, 2**31), got {args.seed}")
    if not 0.0 <= args.partial < 1.0:
        raise ValueError(f"--partial: must be in [0, 1), got {args.partial}")
    if args.start < 0:
        raise ValueError(f"--start: must be >= 0, got {args.start}")
    if args.deck not in ("stand-in", "random") and not Path(args.deck).is_dir():
        raise ValueError(f"--deck: not 'stand-in', 'random' or a pack folder: {args.deck!r}")
    manifest = write_dataset(
        args.out,
        args.n,
        args.seed,
        deck=args.deck,
        partial=args.partial,
        max_size=max_size,
        start=args.start,
        **({"real_table": True} if args.real_table else {}),
        **({"size": parse_size(args.size)} if args.size else {}),
    )
    print(f"wrote {manifest['n']} scenes to {args.out}")
    return 0


def run_deck_export(args: argparse.Namespace) -> int:
    from scoring.reptile_tank.cards import FACE_LABELS
    from vision.reptile_tank.synth.deck import load_pack_faces, random_deck, stand_in_deck

    if args.pack is not None and args.random_seed is not None:
        raise ValueError("--pack and --random-seed: give one or the other")
    if not 1.0 <= args.px_per_mm <= 40.0:
        raise ValueError(f"--px-per-mm: must be in [1, 40], got {args.px_per_mm}")
    if args.pack is not None:
        deck = load_pack_faces(args.pack)
    elif args.random_seed is not None:
        if not 0 <= args.random_seed < 2**31:
            raise ValueError(f"--random-seed: must be in [0, 2**31), got {args.random_seed}")
        deck = random_deck(np.random.default_rng(args.random_seed), px_per_mm=args.px_per_mm)
    else:
        deck = stand_in_deck(px_per_mm=args.px_per_mm)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for label in FACE_LABELS:
        path = out / f"{label}.png"
        if not cv2.imwrite(str(path), cv2.cvtColor(deck[label], cv2.COLOR_RGB2BGR)):
            raise OSError(f"could not write {path}")
    print(f"wrote {len(FACE_LABELS)} faces to {out}")
    return 0


def print_sheets(
    faces: list[np.ndarray], *, dpi: int = 300, gap_mm: float = 4.0
) -> list[np.ndarray]:
    """Lay faces out on A4 portrait pages at exactly 63 x 88 mm, with crop marks.

    Parameters
    ----------
    faces : list of (h, w, 3) uint8 RGB
        Resized to 63 x 88 mm at ``dpi``.
    dpi : int
        Pixels per inch of the pages.

    Returns
    -------
    list of (H, W, 3) uint8 RGB pages, H x W = 297 x 210 mm at ``dpi``.
    """
    from vision.reptile_tank.synth.deck import CARD_H_MM, CARD_W_MM

    if not 72 <= dpi <= 1200:
        raise ValueError(f"dpi: must be in [72, 1200], got {dpi}")
    s = dpi / MM_PER_INCH
    page_w, page_h = round(A4_MM[0] * s), round(A4_MM[1] * s)
    cols = int((A4_MM[0] - 10 + gap_mm) // (CARD_W_MM + gap_mm))
    rows = int((A4_MM[1] - 10 + gap_mm) // (CARD_H_MM + gap_mm))
    block_w = cols * CARD_W_MM + (cols - 1) * gap_mm
    block_h = rows * CARD_H_MM + (rows - 1) * gap_mm
    x0_mm, y0_mm = (A4_MM[0] - block_w) / 2, (A4_MM[1] - block_h) / 2
    card_w, card_h = round(CARD_W_MM * s), round(CARD_H_MM * s)
    mark = max(1, round(0.2 * s))
    pages = []
    per_page = cols * rows
    for p in range(math.ceil(len(faces) / per_page)):
        page = np.full((page_h, page_w, 3), 255, np.uint8)
        for k, face in enumerate(faces[p * per_page : (p + 1) * per_page]):
            r, c = divmod(k, cols)
            x_mm = x0_mm + c * (CARD_W_MM + gap_mm)
            y_mm = y0_mm + r * (CARD_H_MM + gap_mm)
            x, y = round(x_mm * s), round(y_mm * s)
            page[y : y + card_h, x : x + card_w] = cv2.resize(
                face, (card_w, card_h), interpolation=cv2.INTER_AREA
            )
            # crop marks: short lines continuing each edge, starting 1 mm outside the corner
            near, far = round(1.0 * s), round(min(gap_mm / 2 + 2.5, 5.0) * s)
            for cx, dx in ((x, -1), (x + card_w - 1, 1)):
                for cy, dy in ((y, -1), (y + card_h - 1, 1)):
                    cv2.line(page, (cx + dx * near, cy), (cx + dx * far, cy), (0, 0, 0), mark)
                    cv2.line(page, (cx, cy + dy * near), (cx, cy + dy * far), (0, 0, 0), mark)
        label = f"Reptile Tank stand-in deck - page {p + 1} - cut on the marks (63 x 88 mm)"
        cv2.putText(
            page,
            label,
            (round(8 * s), page_h - round(3 * s)),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.09 * s,
            (90, 90, 90),
            max(1, round(0.15 * s)),
            cv2.LINE_AA,
        )
        pages.append(page)
    return pages


def run_deck_pdf(args: argparse.Namespace) -> int:
    from PIL import Image

    from scoring.reptile_tank.cards import FACE_LABELS
    from vision.reptile_tank.synth.deck import stand_in_deck

    out = Path(args.out)
    if out.suffix.lower() != ".pdf":
        raise ValueError(f"--out: expected a .pdf file name, got {str(out)!r}")
    if not out.parent.exists():
        raise FileNotFoundError(f"--out: no such folder {str(out.parent)!r}")
    deck = stand_in_deck(px_per_mm=args.dpi / MM_PER_INCH if args.dpi <= 600 else 24.0)
    pages = print_sheets([deck[label] for label in FACE_LABELS], dpi=args.dpi)
    images = [Image.fromarray(p) for p in pages]
    images[0].save(out, "PDF", resolution=float(args.dpi), save_all=True, append_images=images[1:])
    print(f"wrote {len(pages)} A4 pages to {out}")
    return 0
