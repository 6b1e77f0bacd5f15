"""common.merge.merge3: the one three-way merge both games resolve conflicts with."""

from __future__ import annotations

from common.merge import changed_paths, merge3


def test_changes_to_different_cells_of_one_board_are_both_kept():
    base = {"rows": [["a", "a"], ["a", "a"]], "corrected": [[0, 0]]}
    mine = {"rows": [["x", "a"], ["a", "a"]], "corrected": [[0, 0], [0, 1]]}
    theirs = {"rows": [["a", "a"], ["a", "y"]], "corrected": [[0, 0], [1, 1]]}
    merged = merge3(base, mine, theirs)
    assert merged.conflicts == []
    assert merged.document["rows"] == [["x", "a"], ["a", "y"]]
    assert sorted(merged.document["corrected"]) == [[0, 0], [0, 1], [1, 1]]


def test_the_same_cell_changed_differently_is_a_conflict_and_theirs_is_kept():
    merged = merge3({"r": [1, 2]}, {"r": [5, 2]}, {"r": [7, 2]})
    assert merged.conflicts == [("r", 0)]
    assert merged.document == {"r": [7, 2]}


def test_a_round_appended_on_one_side_and_a_square_changed_on_the_other():
    base = {"res": [[["."]]]}
    mine = {"res": [[["."]], [["."]]]}  # next round
    theirs = {"res": [[["b"]]]}  # a square of round 1
    merged = merge3(base, mine, theirs)
    assert merged.conflicts == []
    assert merged.document == {"res": [[["b"]], [["."]]]}


def test_keys_added_and_removed_and_identical_changes():
    base = {"a": 1, "b": 2}
    merged = merge3(base, {"a": 1, "c": 3}, {"a": 9, "b": 2})
    assert merged.document == {"a": 9, "c": 3} and merged.conflicts == []
    assert merge3(base, {"a": 5, "b": 2}, {"a": 5, "b": 2}).document == {"a": 5, "b": 2}
    assert changed_paths(base, {"a": 1, "b": 3}) == [("b",)]
