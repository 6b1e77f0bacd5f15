"""Deck enrolment, without widgets: map uploaded files to card faces."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePath

import numpy as np

from scoring.cards import FACE_LABELS


def faces_from_uploads(uploads: Mapping[str, bytes]) -> tuple[dict[str, np.ndarray], list[str]]:
    """Decode uploaded face images named ``<card id>.<ext>``.

    Parameters
    ----------
    uploads : mapping of file name -> bytes

    Returns
    -------
    faces : dict of card id -> (H, W, 3) uint8 RGB
        One per recognised, decodable file (EXIF orientation applied).
    problems : list of str
        One sentence per file that was not used (unknown name, unreadable, duplicate).
    """
    from vision.loading import load_image

    faces: dict[str, np.ndarray] = {}
    problems: list[str] = []
    for name, data in sorted(uploads.items()):
        label = PurePath(name).stem.lower()
        if label not in FACE_LABELS:
            problems.append(f"{name}: not named after a card id (e.g. rock.png, water.png)")
            continue
        if label in faces:
            problems.append(f"{name}: a second image for {label}; the first one is kept")
            continue
        try:
            faces[label] = load_image(data).rgb
        except ValueError as error:
            problems.append(f"{name}: {error}")
    return faces, problems
