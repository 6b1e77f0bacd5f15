"""Faces washed out by glare when a deck is enrolled from a photo (issue 28 items 1 and 4).

A sleeve's sheen over a card of the layout photo lifts its darkest ink towards white: the face
enrolled from it keeps the card's outline and colours faintly, and the print that tells it from
its look-alikes (motif, name, numbers) is nearly gone. Every copy of that card on the boards then
matches a look-alike sharing its frame better than its own face, by a margin the read takes for
sure: on two fresh development decks (8101, 9203; BENCHMARKS.md stop 57) 5 of their 8 silent
wrong cells were copies of two such faces.

Nothing in a washed-out face alone says so (a pale card is pale), but its look-alikes do: cards
that share a frame share its contrast, and glare takes most of it away. A face is *washed out*
when its print contrast (:func:`print_contrast`) is under :data:`WASHED_OUT` of one of its two
nearest faces by the embedder (its look-alikes). Such a face is named unsure at enrolment
(:attr:`vision.reptile_tank.gallery.DeckPack.unsure`): the player is told to photograph it again,
and a board's card read as it, or close to it, is flagged until then.
"""

from __future__ import annotations

from collections.abc import Mapping

import cv2
import numpy as np

from vision.reptile_tank.classifier import print_blocks
from vision.reptile_tank.gallery import to_face_size

#: A face is washed out under this share of a look-alike's print contrast. On the development
#: layout photos (13 look-alike decks, 25 photos, 400 faces; stop 57) the 7 faces under 0.36 were
#: all under a broad sheen (cosine 0.27-0.77 to their own image); the lowest of any other face
#: was 0.40 (cosine 0.85), of one cut well (cosine over 0.95) 0.46 (a Water back). One of the 7
#: is like no face (:data:`LOOKALIKE_FLOOR`) and is not judged.
WASHED_OUT = 0.38
#: The look-alikes a face is compared with: its nearest faces by the embedder, at least
#: :data:`LOOKALIKE_FLOOR` alike (cosine). A face like none (the Water back among the fronts,
#: 0.2-0.26 to its nearest on the development decks) is judged by nothing: its contrast is its
#: own design's. The faces under a sheen were 0.47-0.75 to their nearest, but for one (0.16,
#: cosine 0.27 to its own image: read by no card, its reads weak matches).
LOOKALIKES = 2
LOOKALIKE_FLOOR = 0.3


def print_contrast(face: np.ndarray) -> float:
    """The median over the face's blocks of its lightness's spread (CIE L*, 0..255) once light
    that varies slowly is taken away (:func:`vision.reptile_tank.classifier.print_blocks`, the
    fine comparison's blocks): how much print a face shows, whatever its colours."""
    image = to_face_size(np.asarray(face)[..., :3])
    lightness = cv2.cvtColor(image, cv2.COLOR_RGB2LAB)[..., 0].astype(np.float32)
    return float(np.median(print_blocks(lightness)[1]))


def washed_out_faces(faces: Mapping[str, np.ndarray], embedder) -> list[str]:
    """The faces of ``faces`` (label -> (H, W, 3) uint8 RGB, upright) with under
    :data:`WASHED_OUT` of the print contrast of one of their :data:`LOOKALIKES` nearest faces by
    ``embedder`` (a :class:`vision.embedder.CardEmbedder`) at least :data:`LOOKALIKE_FLOOR`
    alike, in ``faces``' order."""
    labels = list(faces)
    if len(labels) < 2:
        return []
    images = np.stack([to_face_size(np.asarray(faces[label])[..., :3]) for label in labels])
    near = lookalikes(dict(zip(labels, embedder.embed(images), strict=True)))
    contrast = {label: print_contrast(faces[label]) for label in labels}
    return [
        label
        for label in labels
        if near[label] and contrast[label] < WASHED_OUT * max(contrast[k] for k in near[label])
    ]


def lookalikes(vectors: Mapping[str, np.ndarray]) -> dict[str, list[str]]:
    """Per label of ``vectors`` (label -> a face's unit embedding), its :data:`LOOKALIKES`
    nearest other labels at least :data:`LOOKALIKE_FLOOR` alike, nearest first."""
    labels = list(vectors)
    if len(labels) < 2:
        return {label: [] for label in labels}
    matrix = np.stack([np.asarray(vectors[label], np.float64) for label in labels])
    similarity = matrix @ matrix.T
    np.fill_diagonal(similarity, -np.inf)
    return {
        label: [
            labels[j]
            for j in np.argsort(-similarity[i])[:LOOKALIKES]
            if similarity[i, j] >= LOOKALIKE_FLOOR
        ]  # fmt: skip
        for i, label in enumerate(labels)
    }
