"""The one inference façade: photo bytes in, an upright board read out.

The app, the ``reptile-tank score`` command and ``reptile-tank bench`` all go through
:class:`TerrariumReader`: it loads the embedder and the deck's gallery once, then each
:meth:`TerrariumReader.read` runs load → find the grid (or fit the user's corners) → rectify the
20 cells → classify them in one batch under the deck's facts → vote the board upright.

Errors are the layers' own ``ValueError`` subclasses with one-line messages:
:class:`vision.errors.ImageLoadError` (unusable file) and :class:`vision.errors.GridNotFoundError`
(no terrarium; the app then asks for the four corners).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scoring.cards import COLS, ROWS
from vision.classifier import CardEmbedder, CellRead, classify_cells
from vision.gallery import DeckPack, Gallery, load_gallery
from vision.grid import GridFit, find_grid, fit_from_corners, rectify_cells
from vision.loading import DEFAULT_MAX_SIDE, LoadedImage, load_image
from vision.orientation import Orientation, turn_crops, turn_reads, vote_orientation

#: Cells are rectified at this multiple of the model's input size, then area-downsampled.
RECTIFY_OVERSAMPLE = 2


@dataclass
class BoardRead:
    """One photo, read.

    Attributes
    ----------
    rows : list of 4 lists of 5 str
        The upright board (row 0 farthest from the owner): card ids, ``water`` or ``empty``.
    cells : list of 4 lists of 5 :class:`~vision.classifier.CellRead`
        Per cell: label, rotation, confidence (margin to the runner-up), top scores.
    fit : vision.grid.GridFit
        The grid in the upright board's orientation, in ``image`` pixels.
    orientation : vision.orientation.Orientation
        How the board was turned upright, and whether that was ambiguous.
    timings_ms : dict str → float
        Wall-clock ``load``, ``grid``, ``rectify``, ``classify``, ``orient`` and ``total``.
    cpu_ms : dict str → float
        The same stages in CPU time of this process (what one free core would take; robust to
        other processes sharing the machine).
    image : (H, W, 3) uint8 RGB
        The loaded (possibly downscaled, EXIF-upright) photo the fit refers to.
    scale : float
        ``image`` width over the original photo's width.
    crops : (4, 5, h, w, 3) uint8 RGB
        The rectified cells of the upright board.
    """

    rows: list[list[str]]
    cells: list[list[CellRead]]
    fit: GridFit
    orientation: Orientation
    timings_ms: dict[str, float]
    cpu_ms: dict[str, float]
    image: np.ndarray
    scale: float
    crops: np.ndarray

    def board_json(self) -> dict:
        """The board JSON of ``docs/design.md``: ``{"rows": [[...5 ids], ... 4 rows]}``."""
        return {"rows": [list(row) for row in self.rows]}

    def low_confidence(self, threshold: float = 0.1) -> list[tuple[int, int]]:
        """Cells whose margin to the runner-up is below ``threshold``, as (row, col)."""
        return [
            (r, c)
            for r, row in enumerate(self.cells)
            for c, cell in enumerate(row)
            if cell.confidence < threshold
        ]

    def to_json(self) -> dict:
        """A JSON-ready summary: board, per-cell reads, orientation, grid and timings."""
        return {
            "board": self.board_json(),
            "cells": [
                [
                    {
                        "label": cell.label,
                        "rotation": cell.rotation,
                        "confidence": round(cell.confidence, 4),
                        "occupied": cell.occupied,
                    }
                    for cell in row
                ]
                for row in self.cells
            ],
            "orientation": self.orientation.to_json(),
            "grid": {
                "method": self.fit.method,
                "quality": round(float(self.fit.quality), 4),
                "corners": np.round(self.fit.corners / self.scale, 1).tolist(),
            },
            "timings_ms": {k: round(v, 2) for k, v in self.timings_ms.items()},
            "cpu_ms": {k: round(v, 2) for k, v in self.cpu_ms.items()},
        }


class TerrariumReader:
    """Load the model and a deck's gallery once; read any number of photos.

    Parameters
    ----------
    pack : str or path, optional
        A deck pack folder (``reptile-tank enroll``); the stand-in deck when ``None``.
    copies : mapping card id → int, optional
        Copies of each front in the deck (the rules data's ``copies``); caps how many cells may
        hold a type. The CLI and the app pass the loaded rules' counts.
    model_path : str or path, optional
        Another ``.onnx`` embedder (its ``.json`` metadata beside it).
    threads : int
        onnxruntime threads (1 = one core).
    max_side : int
        Long side the photo is decoded to (the loader's reduced-size JPEG decoding).

    Examples
    --------
    >>> reader = TerrariumReader()  # doctest: +SKIP
    >>> read = reader.read(Path("terrarium.jpg").read_bytes())  # doctest: +SKIP
    >>> read.rows[0]  # doctest: +SKIP
    """

    def __init__(
        self,
        pack: str | Path | None = None,
        *,
        copies: Mapping[str, int] | None = None,
        model_path: str | Path | None = None,
        threads: int = 1,
        max_side: int = DEFAULT_MAX_SIDE,
    ) -> None:
        self.embedder = CardEmbedder(model_path, threads=threads)
        self.pack: DeckPack | None = None
        if pack is not None:
            self.pack = DeckPack.load(pack, self.embedder)
            self.gallery: Gallery = self.pack.gallery
        else:
            self.gallery = load_gallery(None, self.embedder)
        self.copies = dict(copies) if copies is not None else None
        self.max_side = max_side
        #: Let the grid finder's occupancy evidence nudge ``empty`` (see ``OCCUPANCY_WEIGHT``).
        self.use_occupancy = True
        width, height = self.embedder.input_size
        self.cell_size = (width * RECTIFY_OVERSAMPLE, height * RECTIFY_OVERSAMPLE)

    def load(self, photo_bytes: bytes) -> LoadedImage:
        """Decode a photo the way :meth:`read` does (corners are given in its pixels)."""
        return load_image(photo_bytes, max_side=self.max_side)

    def read(
        self,
        photo_bytes: bytes,
        *,
        corners: np.ndarray | None = None,
        star_cards_removed: bool = False,
    ) -> BoardRead:
        """Read a terrarium photo.

        Parameters
        ----------
        photo_bytes : bytes
            The file as uploaded (JPEG, PNG, WebP, HEIC, ...).
        corners : (4, 2) array_like, optional
            The grid's four outer corners, any order, in the pixels of :meth:`load`'s image
            (the user's clicks when grid finding failed); skips grid finding.
        star_cards_removed : bool
            Star cards are out of the game (2–3 players): no cell may read as one.

        Returns
        -------
        BoardRead

        Raises
        ------
        vision.errors.ImageLoadError
            The bytes are not a usable photo.
        vision.errors.GridNotFoundError
            No terrarium was found (give ``corners``).
        """
        start = _Clock()
        loaded = self.load(photo_bytes)
        start.mark("load")
        return self._read_loaded(loaded.rgb, loaded.scale, start, corners, star_cards_removed)

    def read_image(
        self,
        image_rgb: np.ndarray,
        *,
        corners: np.ndarray | None = None,
        star_cards_removed: bool = False,
    ) -> BoardRead:
        """Like :meth:`read` for an already decoded (H, W, 3) uint8 RGB photo."""
        clock = _Clock()
        clock.mark("load")
        return self._read_loaded(image_rgb, 1.0, clock, corners, star_cards_removed)

    def _read_loaded(self, rgb, scale, clock, corners, star_cards_removed) -> BoardRead:
        if corners is None:
            fit = find_grid(rgb)
        else:
            fit = fit_from_corners(rgb.shape, np.asarray(corners, float), image_rgb=rgb)
        clock.mark("grid")
        crops = rectify_cells(rgb, fit, cell_size=self.cell_size)
        clock.mark("rectify")
        reads = classify_cells(
            crops,
            self.embedder,
            self.gallery,
            copies=self.copies,
            star_cards_removed=star_cards_removed,
            occupancy=fit.occupancy if self.use_occupancy else None,
        )
        clock.mark("classify")
        orientation = vote_orientation(reads)
        if orientation.rotation == 180:
            reads = turn_reads(reads)
            crops = turn_crops(crops)
            fit = fit.rotated_180()
        clock.mark("orient")
        return BoardRead(
            rows=reads.rows(),
            cells=reads.cells,
            fit=fit,
            orientation=orientation,
            timings_ms=clock.wall_ms(),
            cpu_ms=clock.cpu_ms(),
            image=rgb,
            scale=scale,
            crops=crops,
        )

    def add_correction(self, board_read: BoardRead, row: int, col: int, label: str) -> None:
        """Add a user-confirmed cell to the deck's gallery (saved when reading a pack).

        Parameters
        ----------
        board_read : BoardRead
            The read the user corrected (its crops are upright).
        row, col : int
            The cell, in the upright board.
        label : str
            The confirmed label.
        """
        if not (0 <= row < ROWS and 0 <= col < COLS):
            raise ValueError(f"cell ({row}, {col}) is outside the 4x5 board")
        crop = board_read.crops[row, col]
        if self.pack is not None:
            self.pack.add_examples(label, crop[None], self.embedder)
        else:
            self.gallery.add_examples(label, crop[None], self.embedder)


class _Clock:
    """Stage timer: wall-clock and process CPU time between marks, in milliseconds."""

    def __init__(self) -> None:
        self._marks = [("", time.perf_counter(), time.process_time())]

    def mark(self, stage: str) -> None:
        self._marks.append((stage, time.perf_counter(), time.process_time()))

    def _ms(self, index: int) -> dict[str, float]:
        out = {}
        for (_, *before), (stage, *after) in zip(self._marks, self._marks[1:], strict=False):
            out[stage] = 1000 * (after[index] - before[index])
        out["total"] = 1000 * (self._marks[-1][index + 1] - self._marks[0][index + 1])
        return out

    def wall_ms(self) -> dict[str, float]:
        return self._ms(0)

    def cpu_ms(self) -> dict[str, float]:
        return self._ms(1)
