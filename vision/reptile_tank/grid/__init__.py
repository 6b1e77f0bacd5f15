"""Locate a layout's grid of cards (Reptile Tank's terrarium by default) in a photo, rectify
its cells, and draw the fit (step 2).

One module per stage: :mod:`~vision.reptile_tank.grid.candidates` (card-shaped outlines),
:mod:`~vision.reptile_tank.grid.lattice` (lattice fit and extent), :mod:`~vision.reptile_tank.grid.outline` (outline
refinement), :mod:`~vision.reptile_tank.grid.verification` (is it a grid of cards), put together by
:mod:`~vision.reptile_tank.grid.find`; :mod:`~vision.reptile_tank.grid.model` holds :class:`GridFit` and the board plane.

The board plane is measured in millimetres: origin at the grid's outer top-left corner (the
corner of cell ``(0, 0)``), ``x`` along the 5 columns, ``y`` along the 4 rows. A card is a
63 x 88 mm portrait rectangle; neighbouring cards are ``gap_mm`` apart (possibly zero), so the
board is ``5 * 63 + 4 * gx`` wide and ``4 * 88 + 3 * gy`` high.

Grid finding (:func:`find_grid`) works on a copy of the photo scaled to ~1000 px:

1. *Card candidates*: closed contours of several binarisations (Canny edges, adaptive and Otsu
   thresholds, both polarities) simplified to convex quadrilaterals of plausible size; the
   corners are refined by fitting straight lines to the contour's sides (cards have rounded
   corners).
2. *Lattice*: every candidate, taken as a 63 x 88 card (both ways round), proposes a
   homography; the hypothesis that puts the most other candidates onto an integer lattice of
   card positions wins (RANSAC over candidates). The homography is then re-fitted to all
   corners of all inlier cards, with the gaps between cards estimated alongside.
3. *Extent*: the lattice indices of the inliers must span 5 columns and 4 rows; a wider span
   (stray cards) keeps the 5x4 window with the most cards; a narrower one means the outer
   extent is unknown and grid finding fails with that reason (the user's corners decide).
4. *Fallback for touching cards*: when no lattice of separate cards is found, the largest
   convex quadrilateral blob of the right shape is taken as the outer edge of the grid and
   split by the known lattice; which side holds 5 cards is decided from the rectangle's
   estimated aspect and from the edge evidence along the would-be internal card boundaries.
5. *Occupancy*: a cell is occupied when a card quad was found there, or when its rectified
   patch differs from the table seen around the grid, or shows a card outline.
6. *Card boundaries*: a blob, or a lattice supported by fewer than 6 separate cards, is only a
   grid when most of its internal card boundaries show an edge (a close-up of one card does
   not); a lattice whose cards mostly sit in table-like cells (a checked cloth) is rejected and
   the next plausible lattice tried.
7. *Zoom*: when the cards were small in the ~1000 px copy (or nothing was found), steps 1-6 are
   repeated on a crop around the attempt at up to the photo's full resolution.
8. *Outline fit*: at the photo's resolution, every side of every occupied card is searched
   near the fit for the edge of a card outline, and the homography and both gaps are fitted
   to all of them, so each card's own placement error averages out; occupancy is measured
   again on the re-fitted cells.

9. *Top-down views* (:func:`find_rectified_candidates`, run by the reader when no candidate
   explains the photo): the table's plane, from the card-like outlines, the earlier
   hypotheses or a level camera, is rotated to face the camera and steps 1-7 run on that
   view, where a strongly tilted grid's cards are portrait rectangles again
   (:mod:`~vision.reptile_tank.grid.rectified`).

All images crossing this module's boundary are ``(H, W, 3) uint8 RGB``.
"""

from vision.reptile_tank.grid.find import (
    find_completed_candidates,
    find_grid,
    find_grid_candidates,
    find_rectified_candidates,
    fit_from_corners,
    outlines_across,
    outlines_outside,
    refine_fit,
)
from vision.reptile_tank.grid.model import (
    CELL_SIZE,
    DEFAULT_GAP_MM,
    GAP_RANGE_MM,
    WORK_SIDE,
    GridFit,
    draw_overlay,
    rectify_cells,
    reptile_tank_layout,
    shifted_cell_crops,
    using_layout,
)

__all__ = [
    "CELL_SIZE",
    "DEFAULT_GAP_MM",
    "GAP_RANGE_MM",
    "WORK_SIDE",
    "GridFit",
    "draw_overlay",
    "find_completed_candidates",
    "find_grid",
    "find_grid_candidates",
    "find_rectified_candidates",
    "outlines_across",
    "outlines_outside",
    "fit_from_corners",
    "rectify_cells",
    "refine_fit",
    "reptile_tank_layout",
    "shifted_cell_crops",
    "using_layout",
]
