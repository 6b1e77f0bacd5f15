"""Which cells to check: a calibrated per-cell doubt and a per-read ``needs_check``.

The recogniser's raw margin (best label minus runner-up) alone does not say when a read is wrong:
right cells of a hard photo and wrong cells of a look-alike deck overlap. This module turns what
the read knows about a cell into features (:data:`FEATURES`) and a tiny logistic model, fitted
by ``models/fit_confidence.py`` on held-out synthetic photos (generator seeds of their own,
disjoint from training and evaluation), gives each cell a probability of being wrong. A cell is
to be checked when that probability reaches the fitted threshold (chosen so that the flagged
cells hold at least 95 % of the wrong cells of the fitting data); a read needs a check when any
cell does, or when its orientation is in doubt.

The parameters live in ``confidence.json`` in the folder of the embedder they were fitted for
(``models/card_embedder_v2/``, with its ``model_id``); with another embedder the flags fall back
to flagging every cell, because the fitted numbers would mean nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from scoring.reptile_tank.cards import EMPTY, WATER
from vision import models
from vision.models import model_files

#: The parameters fitted for the reader's embedder (:data:`vision.models.READER_MODEL`).
DEFAULT_CONFIDENCE = model_files(models.READER_MODEL).confidence

#: Per-cell features, in the order of the model's weights.
FEATURES = (
    "top1",  # cosine similarity of the chosen label
    "margin",  # chosen label minus the best other label (negative: a deck fact overrode it)
    "category_margin",  # chosen label minus the best other label of the same category
    "empty_gap",  # |score of empty - best card score|: how clear card-vs-table is
    "occupancy_disagreement",  # |grid's occupancy evidence - (label is a card)|
    "log_cell_px",  # log2 of the cell's width in the photo, pixels
    "grid_quality",  # the lattice fit's quality
    "board_top1",  # median top1 over the board's cells (a misplaced lattice lowers all)
    "log_margin",  # log of the margin (floored at 0.001): close calls spread out
    "low_margin_share",  # share of the board's cells with a margin under 0.1
    "board_low_top1",  # the board's third-lowest top1 (a few cells that match nothing)
)
#: The features measured on a cell alone; the rest are derived by :func:`board_features`.
CELL_FEATURES = 7
#: The reason said when the model's parameters do not fit this embedder (every cell flagged).
NO_CALIBRATION = "no confidence calibration for this model"
#: A margin under this counts as a close call for ``low_margin_share``.
CLOSE_MARGIN = 0.1


@dataclass(frozen=True)
class ReadConfidence:
    """The doubt about one read.

    Attributes
    ----------
    p_wrong : (rows, cols) float
        Probability that each cell's label is wrong.
    check : (rows, cols) bool
        Cells to check (``p_wrong`` at or above the threshold).
    needs_check : bool
        Any cell to check, or the orientation in doubt.
    reasons : tuple of str
        Why the read needs a check, one short phrase each.
    features : (rows, cols, F) float32
        The features the probabilities came from (:data:`FEATURES`).
    own_checks : (rows, cols) bool or None
        The cells flagged by the read's own checks whatever the calibrated model says (a hand
        or glare, a close call, a weak match, a face enrolled unsure, a card found beside its
        place...; :func:`_also_flagged`); None when none was asked. ``check`` includes them.
    """

    p_wrong: np.ndarray
    check: np.ndarray
    needs_check: bool
    reasons: tuple[str, ...]
    features: np.ndarray = field(repr=False)
    own_checks: np.ndarray | None = field(default=None, repr=False)

    def flagged_by_own_checks(self) -> np.ndarray:
        """(rows, cols) bool: :attr:`own_checks`, all False when none was asked."""
        if self.own_checks is None:
            return np.zeros(np.shape(self.check), bool)
        return np.asarray(self.own_checks, bool)


@dataclass(frozen=True)
class ConfidenceModel:
    """Logistic regression on standardised features: ``p = σ(w · (x - mean) / std + b)``.

    Attributes
    ----------
    weights, mean, std : (F,) float
    bias : float
    threshold : float
        A cell is checked when ``p >= threshold``.
    read_threshold : float
        A read needs a check when any of its cells has ``p >= read_threshold`` (at most
        ``threshold``: a read can be in doubt as a whole without one cell standing out).
    model_id : str
        The embedder these parameters were fitted for; ``""`` matches any.
    features : tuple of str
    """

    weights: np.ndarray
    bias: float
    mean: np.ndarray
    std: np.ndarray
    threshold: float
    model_id: str = ""
    features: tuple[str, ...] = FEATURES
    read_threshold: float | None = None

    @property
    def read_limit(self) -> float:
        """:attr:`read_threshold`, or :attr:`threshold` when none was fitted."""
        if self.read_threshold is None:
            return self.threshold
        return min(self.read_threshold, self.threshold)

    @classmethod
    def load(cls, path: str | Path = DEFAULT_CONFIDENCE) -> ConfidenceModel:
        data = json.loads(Path(path).read_text())
        if tuple(data["features"]) != FEATURES:
            raise ValueError(f"{path}: features {data['features']} are not {list(FEATURES)}")
        return cls(
            weights=np.asarray(data["weights"], np.float64),
            bias=float(data["bias"]),
            mean=np.asarray(data["mean"], np.float64),
            std=np.asarray(data["std"], np.float64),
            threshold=float(data["threshold"]),
            model_id=str(data.get("model_id", "")),
            read_threshold=float(data["read_threshold"]) if "read_threshold" in data else None,
        )

    def to_json(self) -> dict:
        return {
            "features": list(self.features),
            "weights": [round(float(w), 6) for w in self.weights],
            "bias": round(float(self.bias), 6),
            "mean": [round(float(m), 6) for m in self.mean],
            "std": [round(float(s), 6) for s in self.std],
            "threshold": round(float(self.threshold), 6),
            "read_threshold": round(float(self.read_limit), 6),
            "model_id": self.model_id,
        }

    def probability(self, features: np.ndarray) -> np.ndarray:
        """P(wrong) for features of shape (..., F)."""
        z = (np.asarray(features, np.float64) - self.mean) / self.std
        logit = z @ self.weights + self.bias
        return 1.0 / (1.0 + np.exp(-np.clip(logit, -40, 40)))


@lru_cache(maxsize=1)
def default_model() -> ConfidenceModel | None:
    """The shipped parameters, or ``None`` when :data:`DEFAULT_CONFIDENCE` is missing."""
    if not DEFAULT_CONFIDENCE.is_file():
        return None
    return ConfidenceModel.load(DEFAULT_CONFIDENCE)


@lru_cache(maxsize=1)
def label_categories() -> dict[str, str]:
    """Card id → category from the default rules data; ``water`` and ``empty`` are their own.

    Only the ``category`` of each ``[cards.<id>]`` table is read (plain TOML, not the rules
    loader: the recogniser needs no house rules and must not fail on a rules option it does
    not use). Labels without a category are their own.
    """
    import tomllib

    from scoring.reptile_tank.rules import DEFAULT_RULES_PATH

    with open(DEFAULT_RULES_PATH, "rb") as handle:
        data = tomllib.load(handle)
    cards = data.get("cards", {})
    out = {
        card: str(entry["category"])
        for card, entry in cards.items()
        if isinstance(entry, dict) and "category" in entry
    }
    out[WATER] = WATER
    out[EMPTY] = EMPTY
    return out


def cell_width_px(corners: np.ndarray, cols: int) -> float:
    """Mean width of a cell in the photo: the grid's top and bottom sides over ``cols``.

    ``corners`` are the lattice's outer corners TL, TR, BR, BL in image pixels.
    """
    c = np.asarray(corners, np.float64).reshape(4, 2)
    top = np.linalg.norm(c[1] - c[0])
    bottom = np.linalg.norm(c[2] - c[3])
    return float((top + bottom) / 2 / max(cols, 1))


def cell_features(
    reads,
    *,
    cell_px: float,
    grid_quality: float,
    occupancy: np.ndarray | None = None,
    categories: dict[str, str] | None = None,
) -> np.ndarray:
    """The :data:`FEATURES` of every cell of a read.

    Parameters
    ----------
    reads : vision.reptile_tank.classifier.CellReads
        The cells as classified (rows and columns from its ``label_scores``' shape).
    cell_px : float
        A cell's width in the photo, pixels (:func:`cell_width_px`).
    grid_quality : float
        ``GridFit.quality``.
    occupancy : (rows, cols) float, optional
        ``GridFit.occupancy`` in the same cell order as ``reads``; 0.5 (no opinion) if missing.
    categories : mapping label → category, optional
        :func:`label_categories` by default.

    Returns
    -------
    (rows, cols, F) float32
    """
    categories = categories if categories is not None else label_categories()
    scores = np.asarray(reads.label_scores, np.float64)
    rows, cols, n_labels = scores.shape
    labels = tuple(reads.labels)
    cat = [categories.get(lab, lab) for lab in labels]
    empty_index = labels.index(EMPTY) if EMPTY in labels else None
    card_mask = np.array([lab != EMPTY for lab in labels])
    occ = (
        np.full((rows, cols), 0.5)
        if occupancy is None
        else np.asarray(occupancy, np.float64).reshape(rows, cols)
    )
    out = np.zeros((rows, cols, CELL_FEATURES), np.float64)
    finite_scores = np.where(np.isfinite(scores), scores, -1.0)
    for r in range(rows):
        for c in range(cols):
            cell = reads.cells[r][c]
            row = finite_scores[r, c]
            choice = labels.index(cell.label)
            top1 = row[choice]
            others = np.delete(row, choice)
            margin = top1 - (others.max() if len(others) else -1.0)
            same = [k for k in range(n_labels) if k != choice and cat[k] == cat[choice]]
            category_margin = top1 - row[same].max() if same else margin
            if empty_index is not None and card_mask.any():
                empty_gap = abs(row[empty_index] - row[card_mask].max())
            else:
                empty_gap = 1.0
            disagreement = abs(occ[r, c] - (0.0 if cell.label == EMPTY else 1.0))
            out[r, c] = (
                top1,
                margin,
                category_margin,
                empty_gap,
                disagreement,
                np.log2(max(cell_px, 1.0)),
                grid_quality,
            )
    full = board_features(out.reshape(rows * cols, CELL_FEATURES))
    return full.reshape(rows, cols, len(FEATURES)).astype(np.float32)


def board_features(cells: np.ndarray) -> np.ndarray:
    """One board's (N, :data:`CELL_FEATURES`) per-cell features → (N, F) with the board's own.

    Adds, in :data:`FEATURES` order: the median top1 over the board, the log margin, the share
    of close calls on the board and the board's third-lowest top1.
    """
    cells = np.asarray(cells, np.float64)[:, :CELL_FEATURES]
    n = len(cells)
    top1, margin = cells[:, 0], cells[:, 1]
    low = np.sort(top1)[min(2, n - 1)] if n else 0.0
    extra = np.column_stack(
        [
            np.full(n, np.median(top1) if n else 0.0),
            np.log(np.maximum(margin, 1e-3)),
            np.full(n, float(np.mean(margin < CLOSE_MARGIN)) if n else 0.0),
            np.full(n, low),
        ]
    )
    return np.hstack([cells, extra])


def assess(
    reads,
    *,
    cell_px: float,
    grid_quality: float,
    occupancy: np.ndarray | None = None,
    orientation=None,
    model: ConfidenceModel | None = None,
    model_id: str | None = None,
) -> ReadConfidence:
    """Which cells of a read to check, and whether the read needs a check at all.

    Parameters
    ----------
    reads : vision.reptile_tank.classifier.CellReads
    cell_px, grid_quality, occupancy
        As for :func:`cell_features`.
    orientation : vision.reptile_tank.orientation.Orientation, optional
        Its doubt (an ambiguous or split vote) makes the read need a check.
    model : ConfidenceModel, optional
        :func:`default_model` by default. Without parameters for this embedder (missing file
        or another ``model_id``) every cell is flagged: unknown confidence is no confidence.
    model_id : str, optional
        The embedder's id, checked against the model's.

    Returns
    -------
    ReadConfidence
    """
    features = cell_features(reads, cell_px=cell_px, grid_quality=grid_quality, occupancy=occupancy)
    model = model if model is not None else default_model()
    reasons: list[str] = []
    usable = model is not None and (
        not model.model_id or model_id is None or model.model_id == model_id
    )
    read_in_doubt = False
    if usable:
        p_wrong = model.probability(features)
        check = p_wrong >= model.threshold
        read_in_doubt = bool((p_wrong >= model.read_limit).any())
    else:
        p_wrong = np.full(features.shape[:2], 0.5)
        check = np.ones(features.shape[:2], bool)
        reasons.append(NO_CALIBRATION)
    if check.any():
        reasons.append(f"{int(check.sum())} cell(s) in doubt")
    elif read_in_doubt:
        r, c = np.unravel_index(int(np.argmax(p_wrong)), p_wrong.shape)
        reasons.append(f"the read is less certain than usual (most of all cell {r},{c})")
    if orientation is not None and orientation_in_doubt(orientation, reads):
        reasons.append("which way is up is unclear")
    return ReadConfidence(
        p_wrong=p_wrong.astype(np.float32),
        check=check,
        needs_check=bool(reasons),
        reasons=tuple(reasons),
        features=features,
    )


def with_hidden(confidence: ReadConfidence, hidden: np.ndarray) -> ReadConfidence:
    """``confidence`` with the cells that do not look like their face (``hidden``, see
    :mod:`vision.reptile_tank.coverage`) flagged too, and the reason said."""
    return _cards_flagged(
        confidence, hidden, "card(s) partly hidden or unlike their face (a hand, glare?)"
    )


def with_cards_off_place(confidence: ReadConfidence, cells: np.ndarray) -> ReadConfidence:
    """``confidence`` with the cards found beside their place (``cells``, see
    :mod:`vision.reptile_tank.off_place`) flagged too, and the reason said."""
    return _cards_flagged(
        confidence,
        cells,
        "card(s) found beside their place (laid off it, or the lens bends the grid there)",
    )


def with_unexplained(confidence: ReadConfidence, cells: np.ndarray) -> ReadConfidence:
    """``confidence`` with the cells that look like neither a face nor the table at the
    reader's card match (``cells``, :func:`vision.reptile_tank.reader.unexplained_cells`)
    flagged too, and the reason said. The reader asks for this when a board leaves more than
    two such cells on a grid no other fit comes close to: on a game night's photos read with a
    deck enrolled from a photo, those are right grids whose cards match their faces poorly
    (BENCHMARKS.md, stop 51), so the doubt is theirs, not the grid's."""
    return _cards_flagged(confidence, cells, "card(s) that match no face well (glare, a bad face?)")


def _cards_flagged(confidence: ReadConfidence, cells, what: str) -> ReadConfidence:
    """:func:`_also_flagged` with the reason ``"<how many> <what>"``."""
    cells = np.asarray(cells, bool)
    return _also_flagged(confidence, cells, f"{int(cells.sum())} {what}")


def _also_flagged(confidence: ReadConfidence, cells: np.ndarray, reason: str) -> ReadConfidence:
    """``confidence`` with ``cells`` flagged too and ``reason`` said (unchanged when none)."""
    if not cells.any():
        return confidence
    check = confidence.check | cells
    reasons = [r for r in confidence.reasons if not r.endswith("cell(s) in doubt")]
    reasons.insert(0, f"{int(check.sum())} cell(s) in doubt")
    reasons.append(reason)
    own = confidence.flagged_by_own_checks() | cells
    return replace(
        confidence, check=check, needs_check=True, reasons=tuple(reasons), own_checks=own
    )


#: The fine comparison lifts no flag from a cell the calibrated model thinks more likely wrong
#: than this: the print settles a close call the model is unsure of, not a read it doubts. On
#: the look-alike development decks' one-photo packs (stop 55) the confirmation lifted the flags
#: of 23 right cells and no wrong one, 1 of them at P(wrong) 0.5 or more; a variant of the
#: layout cut made it lift a wrong look-alike's at P(wrong) 0.74 (margin 0.008) -- a silent wrong
#: cell. On the stand-in deck's development sets (4434, 4435) it lifted none.
CONFIRM_MAX_P_WRONG = 0.5


def without_confirmed(confidence: ReadConfidence, cells: np.ndarray) -> ReadConfidence:
    """``confidence`` with the calibrated model's flags lifted from ``cells``: cards whose own
    face the fine comparison with every enrolled face confirms clearly
    (:func:`vision.reptile_tank.classifier.confirmed_cells`; the reader looks only at cells no
    thumb, glare or face enrolled unsure is behind), except where the model's P(wrong) is at
    least :data:`CONFIRM_MAX_P_WRONG`. The read-level doubt stays as it was."""
    cells = np.asarray(cells, bool) & (np.asarray(confidence.p_wrong) < CONFIRM_MAX_P_WRONG)
    if not (cells & confidence.check).any() or NO_CALIBRATION in confidence.reasons:
        return confidence
    check = confidence.check & ~cells
    reasons = [r for r in confidence.reasons if not r.endswith("cell(s) in doubt")]
    if check.any():
        reasons.insert(0, f"{int(check.sum())} cell(s) in doubt")
    return replace(confidence, check=check, needs_check=bool(reasons), reasons=tuple(reasons))


#: A card read as one face with another face within this (cosine units, or a deck fact
#: overriding its best guess) is a close call whatever the calibrated model says: the reader
#: cannot tell the two apart. On 14 development packs' boards (files and one-photo packs of
#: look-alike decks, stop 43), of the cards the model left unflagged 3 of 1,052 right ones and 4
#: wrong ones had a margin under 0.03 (the wrong ones 0.014-0.024), and none of either under 0.02.
CLOSE_CALL = 0.03


#: A close call nearer a tie than this stays flagged even where the fine comparison confirms the
#: read (:func:`with_doubtful_reads`): the print settles a close call, not a near tie. On four
#: fresh look-alike decks' one-photo packs (1212, 3434, 5656, 7878; BENCHMARKS.md stop 59) the
#: confirmation spared 3 wrong cells, 2 of them at margins 0.013-0.014; on eight development
#: decks' (2811-6903) it confirmed 41 cells, none wrong, 5 of the right ones under 0.02.
CONFIRM_MIN_MARGIN = 0.02


def _cells_where(reads, test) -> np.ndarray:
    """(rows, cols) bool: ``test(cell)`` for every cell of ``reads`` (:class:`CellReads`)."""
    return np.array([[bool(test(cell)) for cell in row] for row in reads.cells], bool).reshape(
        len(reads.cells), -1
    )


def close_call_cells(reads, margin: float = CLOSE_CALL) -> np.ndarray:
    """(rows, cols) bool: the cells read as a face whose runner-up is another face within
    ``margin`` (``reads``: :class:`CellReads`)."""
    return _cells_where(
        reads,
        lambda cell: (
            cell.label != EMPTY
            and cell.confidence < margin
            and len(cell.top) > 1
            and cell.top[1][0] != EMPTY
        ),
    )


def weak_match_cells(reads, floor: float) -> np.ndarray:
    """(rows, cols) bool: the cells read as a face they match by less than ``floor`` (cosine to
    the face's nearest prototype; ``reads``: :class:`CellReads`)."""
    return _cells_where(reads, lambda cell: cell.label != EMPTY and cell.score < floor)


#: A cell read as the table (``empty``) that matches the table by less than this (its ``empty``
#: score, occupancy evidence included) is flagged: on the stand-in real-table development sets
#: (seeds 4431-4433, 120 empty reads) the table's own cells scored 0.88-1.11, the cards read as
#: the table on grids not in doubt 0.50-0.74 (a card under sleeve glare, a curled one).
WEAK_EMPTY_BELOW = 0.8


def weak_empty_cells(reads, floor: float = WEAK_EMPTY_BELOW) -> np.ndarray:
    """(rows, cols) bool: the cells read as the table that match it by less than ``floor``
    (``reads``: :class:`CellReads`)."""
    return _cells_where(reads, lambda cell: cell.label == EMPTY and cell.score < floor)


def with_doubtful_reads(
    confidence: ReadConfidence,
    reads,
    weak_floor: float,
    confirmed: np.ndarray | None = None,
    close_margin: float = CLOSE_CALL,
) -> ReadConfidence:
    """``confidence`` with the close calls (:func:`close_call_cells`), the weak matches
    (:func:`weak_match_cells` under ``weak_floor``) and the weak table reads
    (:func:`weak_empty_cells`) of ``reads`` flagged too, each reason said; cells ``confirmed``
    by their print (:func:`without_confirmed`) are none of the first two, but for a close call
    nearer a tie than :data:`CONFIRM_MIN_MARGIN`."""
    spared = np.zeros(np.shape(confidence.check), bool) if confirmed is None else confirmed
    close = close_call_cells(reads, close_margin)
    close &= ~spared | close_call_cells(reads, min(close_margin, CONFIRM_MIN_MARGIN))
    confidence = _also_flagged(
        confidence, close, f"{int(close.sum())} card(s) between two faces too close to tell apart"
    )
    weak = weak_match_cells(reads, weak_floor) & ~spared
    confidence = _also_flagged(
        confidence, weak, f"{int(weak.sum())} card(s) like no face enough to be sure (covered?)"
    )
    table = weak_empty_cells(reads)
    return _also_flagged(
        confidence,
        table,
        f"{int(table.sum())} cell(s) read as the table but unlike it (a card under glare?)",
    )


#: A cell is close to a face enrolled unsure (:attr:`vision.reptile_tank.gallery.DeckPack.unsure`)
#: when that face scores within this of the cell's read (cosine units): the card a thumb lay
#: over at enrolment matches its own face badly and is read as a look-alike by a margin of
#: 0.1-0.2 (deck 6601's rosy boa, BENCHMARKS.md stop 42) and up to 0.31 (deck 7301's corn snake
#: under a thumb over a third of the card, stop 43: at 0.25, 5 of its 12 wrong cells on 9
#: boards were silent, at 0.35 2; the right cells flagged, averaged over 10 development
#: one-photo packs, rose from 19.1 % to 21.1 %, all on packs the player was told to photograph
#: again).
UNSURE_FACE_MARGIN = 0.35


def unsure_face_cells(reads, unsure, lookalikes: Iterable[str] = ()) -> np.ndarray:
    """(rows, cols) bool: the cells read as a face enrolled unsure, or with such a face within
    :data:`UNSURE_FACE_MARGIN` of the read (``reads``: :class:`CellReads`), or read as one of
    ``lookalikes`` (those faces' look-alikes, :func:`vision.reptile_tank.washed_out.lookalikes`:
    a card whose face was cut washed out can match it too little to come within the margin,
    and is read as the look-alike sharing its frame; fresh development decks, stop 57)."""
    unsure, lookalikes = set(unsure), set(lookalikes)
    return _cells_where(
        reads,
        lambda cell: (
            cell.label in unsure
            or cell.label in lookalikes
            or any(
                label in unsure and label != cell.label and score >= cell.score - UNSURE_FACE_MARGIN
                for label, score in cell.top
            )
        ),
    )


def with_unsure_faces(confidence: ReadConfidence, cells: np.ndarray, faces) -> ReadConfidence:
    """``confidence`` with the cells read as, or close to, a face enrolled unsure (``cells``,
    :func:`unsure_face_cells`; ``faces``: those faces) flagged too, and the reason said."""
    cells = np.asarray(cells, bool)
    named = ", ".join(sorted(label.replace("_", " ") for label in faces))
    return _also_flagged(
        confidence,
        cells,
        f"{int(cells.sum())} card(s) read as, or like, a face enrolled from a card something "
        f"lay over or glare washed out ({named}): photograph the deck again",
    )


def orientation_in_doubt(orientation, reads) -> bool:
    """No front voted while cards lie on the board, or at least a quarter voted the other way."""
    occupied = any(cell.label != EMPTY for row in reads.cells for cell in row)
    votes = orientation.votes_upright + orientation.votes_turned
    if orientation.ambiguous:
        return occupied
    minority = min(orientation.votes_upright, orientation.votes_turned)
    return votes > 0 and minority / votes >= 0.25
