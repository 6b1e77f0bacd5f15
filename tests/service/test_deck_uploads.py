"""The app's uploaded face images (:func:`service.reptile_tank.deck.faces_from_uploads`): named
after their card id, decoded by the one photo loader and cut to the card on the command line's
path (``enroll --from-dir``, :func:`service.reptile_tank.deck.read_face_dir`)."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

from service.reptile_tank.deck import (
    FACE_MIN_SIDE,
    faces_from_uploads,
    read_face_dir,
    stand_in_face,
)


def png(image: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, "PNG")
    return buffer.getvalue()


def card_on_table(label: str = "rock") -> np.ndarray:
    """A photo of one card alone on a plain, contrasting table (a third of the photo)."""
    face = stand_in_face(label, 4.0)
    table = np.full((560, 460, 3), (40, 70, 50), np.uint8)
    table[100 : 100 + face.shape[0], 100 : 100 + face.shape[1]] = face
    return table


def test_deck_uploads_map_file_names_to_faces():
    rng = np.random.default_rng(3)
    scan = png(rng.integers(0, 255, (440, 315, 3), dtype=np.uint8))  # the card's own aspect
    faces, problems = faces_from_uploads(
        {"rock.png": scan, "Water.PNG": scan, "dragon.png": scan, "hollow_log.png": b"junk"}
    )
    assert sorted(faces) == ["rock", "water"]
    assert faces["rock"].shape == (440, 315, 3) and faces["rock"].dtype == np.uint8  # kept
    assert len(problems) == 2
    assert any(p.startswith("hollow_log.png: ") for p in problems)  # one line naming the file


def test_an_uploaded_photo_of_one_card_is_cut_to_the_card_as_the_cli_cuts_it(tmp_path):
    photo = card_on_table()
    faces, problems = faces_from_uploads({"rock.png": png(photo)})
    assert not problems
    height, width = faces["rock"].shape[:2]
    assert (height, width) != photo.shape[:2] and height > width  # the table is cut away
    assert abs(width / height - 63 / 88) < 0.02
    # the same bytes through the command line's folder of faces: the same face
    from scoring.reptile_tank.cards import FACE_LABELS

    for label in FACE_LABELS:
        (tmp_path / f"{label}.png").write_bytes(png(card_on_table(label)))
    assert np.array_equal(read_face_dir(tmp_path)["rock"], faces["rock"])


def test_a_small_scan_of_one_card_is_taken_as_the_cli_takes_it():
    small = np.full((FACE_MIN_SIDE * 88 // 63 + 1, FACE_MIN_SIDE, 3), 180, np.uint8)
    faces, problems = faces_from_uploads({"rock.png": png(small)})
    assert not problems and faces["rock"].shape == small.shape
