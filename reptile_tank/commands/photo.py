"""``score`` (photo → board → score pad) and ``enroll`` (build a deck pack).

Both go through the service layer, as the app does: the photo is read by
:mod:`service.photos`' one loader, the board by :func:`service.reptile_tank.reading.read_board`
with :func:`~service.reptile_tank.reading.make_reader`'s reader, the pad by
:func:`service.reptile_tank.scoring.score_rows`, the pack by
:func:`service.reptile_tank.deck.create_pack`. Refusals are ``ValueError`` subclasses with
one-line messages; ``reptile_tank.cli`` prints them and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from scoring.reptile_tank.cards import FACE_LABELS
from scoring.reptile_tank.rules import load_rules

# Photos are read through the service layer's one loader and one list of accepted types.
from service.photos import PHOTO_SUFFIXES as IMAGE_SUFFIXES  # noqa: F401 (the commands' name)
from service.photos import PhotoInputError, read_photo_file
from service.reptile_tank.deck import faces_from_layouts, read_face_dir
from service.reptile_tank.deck import read_face_file as read_face_image  # noqa: F401


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
    from scoring.reptile_tank.objectives import parse_objectives
    from service.photos import DEFAULT_MAX_SIDE
    from service.reptile_tank.reading import make_reader, read_board
    from service.reptile_tank.scoring import score_rows

    from .score_grid import format_pad

    rules = load_rules(args.rules)
    objectives = parse_objectives(args.objectives, rules)
    corners = parse_corners(args.corners)
    started = (time.perf_counter(), time.process_time())
    # decoded once, and a bad photo refused before the model and gallery load (time, memory)
    photo = read_photo_file(args.photo, max_side=DEFAULT_MAX_SIDE)
    reader = make_reader(args.pack, rules, max_side=DEFAULT_MAX_SIDE)
    read = read_board(
        photo, reader, corners=corners, star_cards_removed=args.stars_removed, started=started
    )
    start = time.perf_counter()
    pad = score_rows(
        read.rows,
        rules,
        objectives=objectives,
        star_cards_out=True if args.stars_removed else None,
    )
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


def run_enroll(args: argparse.Namespace) -> int:
    from service.reptile_tank.deck import create_pack, reader_embedder

    views: dict[str, list[np.ndarray]] = {}
    unsure: list[str] = []
    if args.names is not None and args.from_layout is None:
        raise PhotoInputError("--names names the cards of --from-layout photos")
    if args.from_dir is not None:
        faces = read_face_dir(args.from_dir)
    else:
        faces, views, unsure = faces_from_layouts(args.from_layout, args.names)
    missing = [label for label in FACE_LABELS if label not in faces]
    if missing:
        raise PhotoInputError(f"no card named {', '.join(missing)}: a deck needs every face")
    embedder = reader_embedder()
    start = time.perf_counter()
    pack, added = create_pack(
        args.out,
        faces,
        views=views,
        seed=args.seed,
        name=args.name,
        embedder=embedder,
        unsure=unsure,
    )
    seconds = time.perf_counter() - start
    print(
        f"wrote deck pack {pack.path} ({len(pack.faces)} faces"
        + (f", {added} extra view(s)" if added else "")
        + f", {len(pack.gallery.embeddings)} prototypes, {seconds:.1f} s)"
    )
    if unsure:
        print(
            f"note: {', '.join(unsure)} could not be seen whole or clearly (something over the "
            "card's edge, a thumb? a sleeve's shine washing it out, or no card seen where it "
            "should lie: glare?); look at faces/ in the pack, and photograph the layout again "
            "(or add a second photo: --from-layout A B) if a face is not the whole card or is "
            "washed out; until then a board's card read as that face, close to it or like it, "
            "is marked to check"
        )
    return 0
