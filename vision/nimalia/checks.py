"""The thresholds a Nimalia read is checked by, and the reasons it gives: each calibrated
on held-out scenes (the comments say which).

Split out of :mod:`vision.nimalia.reader` (no behaviour change).
"""

from __future__ import annotations

from vision.nimalia.gallery import (
    CLASSES,
)

#: A square is flagged for checking when the head's probability margin to the next class is
#: below this, or its cosine margin between table and the best square is below
#: CHECK_EMPTY_MARGIN (both calibrated on the dev set and fresh seeds, see
#: docs/nimalia-vision.md; the empty margin raised from 0.035 when fresh seed 700093 showed a
#: savannah square read as a wood table at 0.036).
CHECK_MARGIN = 0.905
CHECK_EMPTY_MARGIN = 0.041
#: A cell read as table is flagged when its cosine margin is below this: savannah squares on a
#: wood table were read as table at 0.036 (fresh seed 700093) and 0.053 (fresh seed 1090042,
#: silent at 0.041); of 2,688 cells rightly read as table (dev set, fresh stand-in seeds
#: 1060000-1060159 and 1090000-1090159, variant-style 1070000-1070119, painted
#: 1080000-1080079) none was under 0.06 and 4 under 0.07.
CHECK_TABLE_MARGIN = 0.06
#: A square whose cosine to its nearest kind is more than this under the median of the read's
#: squares is checked: a glare or shadow on one square (a gorilla whitened into a panda, fresh
#: painted seed 1140077: 0.196 under, the head 0.929 sure). Of 12,027 squares read on fresh
#: seeds (stand-in 1060000-1060159 and 1120000-1120159, variant-style 1070000-1070119 and
#: 1130000-1130119, painted 1080000-1080079, 1110000-1110059 and 1140000-1140079) it flags 13
#: right squares not flagged otherwise (7 reserves); the 13 wrong squares were 0.02-0.23 under.
SQUARE_OUTLIER_MARGIN = 0.15
#: A square read where the table model's foreground covers less than this share of the cell,
#: its nearest-kind cosine more than :data:`SQUARE_OUTLIER_MARGIN` under the median of the
#: cells read as squares, is read as table (checked). Of 5,907 squares read on fresh seeds
#: (stand-in 1180000-1180159, variant-style 1190000-1190119, painted 1200000-1200079), 4 cells
#: met both, all table; 7 more only 0.10-0.15 under were all squares, and the squares more
#: than 0.15 under (glare, shadow) had foreground shares of 0.25 or more.
FAINT_FG = 0.05
FAINT_SQUARE = "a weak square where the table model sees no card was read as table"
#: The grid finder's foreground share nudges the empty score: + FG_WEIGHT * (0.5 - share)
#: (cosine) and + FG_LOGIT * (0.5 - share) (head logit).
FG_WEIGHT = 0.15
FG_LOGIT = 1.5
MAX_SIDE = 6


#: Squares a read beyond 6 x 6 may leave out and not be in doubt for it (:func:`decide`).
TRIM_SQUARES_MAX = 2

#: The reason a read gives when a table cell beside its squares looks like a square.
MISSED_SQUARE = "a cell beside the squares may be a square read as table"

#: The reasons a clean read of one card's squares may carry and still settle the search.
ONE_CARD_REASONS = {
    "only one card's worth of squares was read",
    MISSED_SQUARE,
}


EDGE_TABLE_MIN = 0.8
#: A table cell beside a square is checked when its cosine to the nearest crop of the photo's
#: own table is under this (:meth:`ReserveReader._photo_table`): calibrated on dev, fresh
#: stand-in seeds 400000-400079 and fresh variant-style seeds 500000-500059 / 610000-610059
#: (squares missed as table there: 0.61-0.91; table cells beside squares: 5 % under 0.93).
PHOTO_TABLE_MIN = 0.93
#: A cell read as a square is read as table when its cosine to the nearest crop of the photo's
#: own table is at least this and its margin over the table prototypes under
#: :data:`LIKE_TABLE_MARGIN`: on fresh stand-in seeds 810000-810149 and 830000-830149 the
#: squares read on the table (a pale wooden table or its glare as the savannah giraffe) scored
#: 0.997-0.998 with margins 0.026-0.03; of 4,752 true squares none scored over 0.977.
PHOTO_TABLE_SQUARE_MAX = 0.99
LIKE_TABLE_MARGIN = 0.1
#: ... or when, by that small margin, it is more like this photo's table than like any kind
#: by this much (cosine): fresh variant-style seed 990057, a table of round dots like the
#: deck's badges, read as giraffe squares all round the reserve (0.68-0.74 to the giraffe,
#: 0.91-1.0 to the photo's table); right squares of fresh seeds stayed 0.056 or more *under*.
PHOTO_TABLE_LEAD = 0.1
#: Crops of the photo's own table (cells at least this many cells from every square read).
PHOTO_TABLE_CELLS = 8
PHOTO_TABLE_GAP = 2
#: Squares read by a cosine margin over the table under this do not keep the photo's table
#: crops away (:meth:`ReserveReader._photo_table`).
PHOTO_TABLE_CLEAR_MARGIN = 0.1
#: Columns of a cell's scores before its embedding: 15 cosines, 15 head probabilities.
SCORE_COLUMNS = 2 * len(CLASSES)
#: Median best similarity of the occupied squares under which the lattice itself is doubted.
LATTICE_MIN_MEDIAN = 0.75
#: A table cell completing a card (:func:`complete_cards`) is read as a square only when its
#: cosine margin to the nearest square is under this.
COMPLETE_MAX_MARGIN = 0.12
#: A read with at most this many squares is checked (a reserve is at least 3 cards).
MIN_SQUARES = 4
#: A read whose squares are checked at least this share is in doubt (the reader's wider search
#: runs): right reads of dev and fresh seeds stay under 0.19, wrong lattices gave 0.69-0.73.
DOUBT_CHECKED_SHARE = 0.35
