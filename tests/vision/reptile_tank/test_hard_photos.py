"""Regression tests on photos the reader once got wrong, and on photos with no terrarium.

The hard photos come from an independent renderer (a copy of ``../shared/hard-photos`` in
``tests/vision/data/hard_photos``, or ``$REPTILE_TANK_HARD_PHOTOS``): each must be read right,
refused with a reason, or read with the grid flagged as doubtful (never a silent wrong board).
They are a sample of a larger acceptance set, not something to tune to.

Bare tables (the generator's table kinds, hard ones included, with no card on them) must be
refused as "no terrarium", whatever the table looks like.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.errors import GridNotFoundError
from vision.reptile_tank.reader import TerrariumReader
from vision.reptile_tank.synth.deck import stand_in_deck
from vision.reptile_tank.synth.scene import HARD_TABLE_KINDS, encode_jpeg, render_scene

HARD_DIR = Path(
    os.environ.get(
        "REPTILE_TANK_HARD_PHOTOS", Path(__file__).resolve().parent / "data" / "hard_photos"
    )
)
#: hard_* (issue 17) and real_* (issue 28: sleeves, hand-laid cards, a thumb, an empty edge
#: column); real_deck_layout is an enrolment photo, not a board.
HARD = (
    sorted([*HARD_DIR.glob("hard_*.json"), *HARD_DIR.glob("real_0*.json")])
    if HARD_DIR.is_dir()
    else []
)
needs_hard = pytest.mark.skipif(not HARD, reason=f"no hard photos at {HARD_DIR}")


@pytest.fixture(scope="module")
def reader() -> TerrariumReader:
    return TerrariumReader()


def _outcome(reader: TerrariumReader, payload: bytes, rows: list[list[str]]) -> str:
    """``right``, ``refused``, ``flagged`` (wrong but the grid or every wrong cell flagged) or
    ``silent``."""
    try:
        read = reader.read(payload)
    except GridNotFoundError as error:
        assert str(error).startswith("no terrarium found: ")
        assert "\n" not in str(error)
        return "refused"
    if read.rows == rows:
        return "right"
    # flagged: the grid is in doubt, or the read needs a check and every wrong cell is flagged
    wrong = [(r, c) for r in range(len(rows)) for c in range(len(rows[0]))
             if read.rows[r][c] != rows[r][c]]  # fmt: skip
    if read.grid_doubt or (read.needs_check and all(read.check[r, c] for r, c in wrong)):
        return "flagged"
    return "silent"


@needs_hard
def test_hard_photos_are_read_right_or_say_why(reader: TerrariumReader) -> None:
    outcomes = {}
    for path in HARD:
        truth = json.loads(path.read_text())
        outcomes[path.stem] = _outcome(reader, path.with_suffix(".jpg").read_bytes(), truth["rows"])
    assert "silent" not in outcomes.values(), outcomes
    # before grid hypotheses were judged by the recogniser: 0 of 6 hard_* right, 2 silently
    # wrong; now all six are right; one may turn flagged without failing (a model or threshold
    # change). real_04 (an empty edge column) was read one column off, silently (issue 28).
    hard = [outcome for name, outcome in outcomes.items() if name.startswith("hard_")]
    assert hard.count("right") >= 5, outcomes
    # real_02 (a corner card at the distorted frame edge) and real_05 (a curled corner card)
    # were read as the table until the reader looked around such cells (stop 50): five of the
    # six real_* are right now (real_01's glared card stays flagged); one may turn flagged.
    # (The real_* photos are read where REPTILE_TANK_HARD_PHOTOS points at them.)
    real = [outcome for name, outcome in outcomes.items() if name.startswith("real_")]
    assert not real or real.count("right") >= len(real) - 2, outcomes


def _resized_jpeg(path: Path, long_side: int) -> bytes:
    rgb = cv2.imread(str(path), cv2.IMREAD_COLOR)
    scale = long_side / max(rgb.shape[:2])
    size = (round(rgb.shape[1] * scale), round(rgb.shape[0] * scale))
    small = cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert ok
    return data.tobytes()


@needs_hard
@pytest.mark.slow
def test_a_hard_photo_at_three_resolutions_never_gives_a_silent_wrong_board(
    reader: TerrariumReader,
) -> None:
    for path in HARD:
        truth = json.loads(path.read_text())["rows"]
        for side in (1600, 2016):
            outcome = _outcome(reader, _resized_jpeg(path.with_suffix(".jpg"), side), truth)
            assert outcome != "silent", (path.stem, side)


@pytest.mark.parametrize("kind", HARD_TABLE_KINDS)
def test_a_bare_table_is_no_terrarium(reader: TerrariumReader, kind: str) -> None:
    empty = [["empty"] * 5 for _ in range(4)]
    seed = 7100 + HARD_TABLE_KINDS.index(kind)
    image, truth = render_scene(
        seed, stand_in_deck(), board=empty, distractors=False, size=(1024, 768), tables=(kind,)
    )
    assert truth["params"]["table"] == kind
    with pytest.raises(GridNotFoundError, match=r"^no terrarium found: "):
        reader.read(encode_jpeg(image, 90))


def test_a_board_on_a_hard_table_is_still_read(reader: TerrariumReader) -> None:
    """The bare-table refusals are not bought by refusing boards on the same tables."""
    rng = np.random.default_rng(7200)
    read_right = 0
    kinds = ("checks", "stripes", "card_mat")
    for kind in kinds:
        image, truth = render_scene(
            int(rng.integers(1 << 30)),
            stand_in_deck(),
            size=(1600, 1200),
            tables=(kind,),
            fill=(0.6, 0.8),
            tilt_deg=(0.0, 30.0),
        )
        try:
            read = reader.read(encode_jpeg(image, 90))
        except GridNotFoundError:
            continue
        read_right += read.rows == truth["board"]["rows"]
    assert read_right >= 2, read_right


@pytest.mark.parametrize("size", [(640, 480), (1280, 960)])
def test_an_in_page_camera_photo_is_read(reader: TerrariumReader, size: tuple[int, int]) -> None:
    """Issue 17: at 640 x 480 a card of a grid filling most of the frame is ~50 px wide."""
    right = 0
    for seed in (7300, 7301, 7302):
        image, truth = render_scene(
            seed, stand_in_deck(), size=size, fill=(0.55, 0.8), tilt_deg=(0.0, 40.0)
        )
        try:
            read = reader.read(encode_jpeg(image, 90))
        except GridNotFoundError:
            continue
        right += read.rows == truth["board"]["rows"]
    assert right == 3, right
