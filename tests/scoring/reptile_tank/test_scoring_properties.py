"""Property tests: the maximising partitions against brute-force oracles, and invariants."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.reptile_tank.board import Board
from scoring.reptile_tank.cards import DRY_LAND_IDS, FACE_LABELS, WATER
from scoring.reptile_tank.engine import score_board
from scoring.reptile_tank.packing import Candidate, best_packing, brute_force_packing
from scoring.reptile_tank.rules import load_rules

RULES = load_rules()
ROWS, COLS = RULES.layout.rows, RULES.layout.cols
PAD_COLUMNS = RULES.column_keys
ENVIRONMENTS = set(DRY_LAND_IDS) | {WATER}
SETTINGS = settings(max_examples=120, deadline=None, derandomize=True)

# the 8 symmetries of the square as integer matrices (an independent way to get orientations)
SYMMETRIES = [(a, b, c, d) for a, b, c, d in [
    (1, 0, 0, 1), (0, -1, 1, 0), (-1, 0, 0, -1), (0, 1, -1, 0),
    (1, 0, 0, -1), (-1, 0, 0, 1), (0, 1, 1, 0), (0, -1, -1, 0),
]]  # fmt: skip


def normalise(cells):
    top = min(r for r, _ in cells)
    left = min(c for _, c in cells)
    return frozenset((r - top, c - left) for r, c in cells)


def shape_forms(shape):
    return {
        normalise([(a * r + b * c, cc * r + d * c) for r, c in shape]) for a, b, cc, d in SYMMETRIES
    }


def edge_neighbours(cell):
    r, c = cell
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        if 0 <= r + dr < ROWS and 0 <= c + dc < COLS:
            yield (r + dr, c + dc)


def bit(cell):
    return 1 << (cell[0] * COLS + cell[1])


def oracle_shape_vp(board: Board, card_id: str) -> int:
    """Try every subset of the type's cards against every tier; brute-force the packing."""
    rule = RULES.cards[card_id]
    own = [cell for cell, label in board.cells() if label == card_id]
    candidates = []
    for tier in rule.tiers:
        forms = shape_forms(tier.shape)
        for subset in combinations(own, tier.count):
            if normalise(subset) not in forms:
                continue
            kinds = {
                board[n] for cell in subset for n in edge_neighbours(cell) if n not in subset
            } & ENVIRONMENTS
            if len(kinds) >= tier.min_env_kinds:
                candidates.append(Candidate(sum(bit(x) for x in subset), tier.vp))
    return brute_force_packing(candidates)


def oracle_enclosure_vp(board: Board, card_id: str) -> int:
    rule = RULES.cards[card_id]
    own = [cell for cell, label in board.cells() if label == card_id]
    envs = [cell for cell, label in board.cells() if label in ENVIRONMENTS]
    candidates = []
    for size in range(2, 5):
        for subset in combinations(own, size):
            if any(all(e in set(edge_neighbours(t)) for t in subset) for e in envs):
                vp = max(t.vp for t in rule.tiers if t.count <= size)
                candidates.append(Candidate(sum(bit(x) for x in subset), vp))
    return brute_force_packing(candidates)


def type_vp(pad, card_id):
    return sum(g.vp for g in pad.groups if g.card_type == card_id)


def boards_of(alphabet, max_of=None, limit=9):
    cells = st.lists(st.sampled_from(alphabet), min_size=ROWS * COLS, max_size=ROWS * COLS)
    if max_of:
        cells = cells.filter(lambda xs: xs.count(max_of) <= limit)
    return cells.map(
        lambda xs: Board.from_rows([xs[r * COLS : (r + 1) * COLS] for r in range(ROWS)])
    )


SHAPE_TYPES = ["blue_tongued_skink", "corn_snake", "neon_day_gecko"]


@SETTINGS
@given(st.sampled_from(SHAPE_TYPES), st.data())
def test_shape_sets_match_the_brute_force_oracle(card_id, data):
    alphabet = [card_id] * 4 + ["empty", "rock", "water", "golden_pothos", "rosy_boa"]
    board = data.draw(boards_of(alphabet, card_id))
    assert type_vp(score_board(board, RULES), card_id) == oracle_shape_vp(board, card_id)


@SETTINGS
@given(boards_of(["three_toed_box_turtle"] * 3 + ["empty", "rock", "water", "corn_snake"],
                 "three_toed_box_turtle", 10))  # fmt: skip
def test_enclosures_match_the_brute_force_oracle(board):
    pad = score_board(board, RULES)
    expected = oracle_enclosure_vp(board, "three_toed_box_turtle")
    assert type_vp(pad, "three_toed_box_turtle") == expected


@SETTINGS
@given(
    st.lists(
        st.tuples(st.lists(st.integers(0, 11), min_size=1, max_size=3), st.integers(0, 20)),
        max_size=14,
    )
)
def test_packing_matches_brute_force(raw):
    candidates = [Candidate(sum(1 << b for b in set(bits)), w) for bits, w in raw]
    total, chosen = best_packing(candidates)
    assert total == brute_force_packing(candidates)
    assert sum(c.weight for c in chosen) == total
    used = 0
    for c in chosen:
        assert not c.mask & used
        used |= c.mask


ANY_BOARD = boards_of(list(FACE_LABELS) + ["empty"] * 3)


@SETTINGS
@given(ANY_BOARD, st.sampled_from([None, True, False]))
def test_pad_columns_and_groups_sum_to_the_total(board, majority):
    pad = score_board(board, RULES, objectives=range(1, 20), roach_majority=majority)
    assert sum(getattr(pad, c) for c in PAD_COLUMNS) == pad.total
    assert sum(g.vp for g in pad.groups) == pad.total
    for column in PAD_COLUMNS:
        assert sum(g.vp for g in pad.groups if g.column == column) == getattr(pad, column)
    assert sorted(pad.objectives_met + pad.objectives_failed) == list(range(1, 20))
    # every card group only uses cells that hold a card (objectives may name inspected cells)
    cards = [g for g in pad.groups if g.column != "objectives"]
    assert all(board[cell] != "empty" for g in cards for cell in g.cells)


def mirrored(board: Board, lr: bool, ud: bool) -> Board:
    rows = [list(reversed(r)) if lr else list(r) for r in board.rows]
    return Board.from_rows(rows[::-1] if ud else rows)


@SETTINGS
@given(ANY_BOARD, st.booleans(), st.booleans())
def test_score_is_invariant_under_the_symmetries_of_the_default_masks(board, lr, ud):
    # the default masks are symmetric left-right and top-bottom; shapes may take any
    # orientation; so without objectives the pad cannot change under a mirror
    a = score_board(board, RULES)
    b = score_board(mirrored(board, lr, ud), RULES)
    assert a.column_totals() == b.column_totals()
    assert a.three_card_sets == b.three_card_sets


NOT_WATER_OR_ROACH = [x for x in FACE_LABELS if x not in ("water", "dubia_roach")]


@SETTINGS
@given(ANY_BOARD, st.sampled_from(NOT_WATER_OR_ROACH), st.integers(0, ROWS * COLS - 1))
def test_placing_a_card_on_an_empty_cell_never_lowers_the_score(board, card, index):
    cell = divmod(index, COLS)
    if board[cell] != "empty":
        board = board.replace(cell, "empty")
    before = score_board(board, RULES)
    after = score_board(board.replace(cell, card), RULES)
    assert after.total >= before.total
    assert after.water == before.water and after.cockroach == before.cockroach
