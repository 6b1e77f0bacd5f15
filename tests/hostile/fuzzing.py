"""Shared pieces of the fuzz tests: hypothesis strategies and the CLI's document pipelines.

``run_document(kind, obj)`` does with a parsed JSON value exactly what ``score-grid``,
``score-game`` and ``solo`` do with the file's content (parse, score, render text and JSON), so
a fuzz test of it is a fuzz test of the commands without a process per example.
"""

from __future__ import annotations

import copy
import json
import os
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from scoring.reptile_tank.cards import CELL_LABELS

#: Examples per fast fuzz test (``HOSTILE_FUZZ_EXAMPLES`` overrides; the slow tests run 20x).
FAST_EXAMPLES = int(os.environ.get("HOSTILE_FUZZ_EXAMPLES", "150"))
SLOW_EXAMPLES = 20 * FAST_EXAMPLES

FAST = settings(
    max_examples=FAST_EXAMPLES,
    deadline=2000,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SLOW = settings(
    max_examples=SLOW_EXAMPLES,
    deadline=2000,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

#: Everything ``json.loads`` can produce (NaN and infinities included: Python's reader takes them).
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30)
    | st.sampled_from(CELL_LABELS)
    | st.sampled_from(["rows", "players", "name", "board", "master", "cards", "level", "pairs"])
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=6)
        | st.dictionaries(
            st.text(max_size=10)
            | st.sampled_from(
                ["rows", "players", "name", "board", "objectives", "player", "master", "cards"]
            )
            | st.sampled_from(["pairs", "level"]),
            children,
            max_size=6,
        )
    ),
    max_leaves=40,
)


def valid_board() -> dict:
    return {
        "rows": [
            ["blue_tongued_skink", "blue_tongued_skink", "rock", "water", "corn_snake"],
            ["golden_pothos", "dubia_roach", "dubia_roach", "hollow_log", "rosy_boa"],
            ["common_box_turtle", "water", "empty", "scarlet_star", "ringneck_snake"],
            ["silver_inch_plant", "brown_anole", "red_footed_tortoise", "rock", "water"],
        ]
    }


VALID = {
    "grid": valid_board(),
    "game": {
        "players": [
            {"name": "Ann", "board": valid_board()},
            {"name": "Ben", "board": valid_board()},
        ],
        "objectives": [3, 11],
    },
    "solo": {
        "player": {"name": "Ann", "board": valid_board()},
        "master": {
            "cards": {"corn_snake": 3, "rock": 1, "hollow_log": 1, "dubia_roach": 2},
            "pairs": [["rock", "hollow_log"]],
            "level": "normal",
        },
        "objectives": [3, 11, 17],
    },
}


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (tuple of keys/indices) into a JSON value, the root included."""
    out = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            out += _paths(child, prefix + (key,))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            out += _paths(child, prefix + (index,))
    return out


def near_valid(kind: str) -> st.SearchStrategy:
    """A valid document of ``kind`` with 1-4 random edits (replace, delete, duplicate, retype)."""
    return mutations(VALID[kind])


@st.composite
def mutations(draw, valid: Any) -> Any:
    """``valid`` (a JSON-like value) with 1-4 random edits at depth-balanced places."""
    doc = copy.deepcopy(valid)
    for _ in range(draw(st.integers(1, 4))):
        paths = _paths(doc)
        # Depth first, then a path at that depth: the few structural keys near the root are
        # hit as often as the many board cells.
        depth = draw(st.sampled_from(sorted({len(p) for p in paths})))
        path = draw(st.sampled_from([p for p in paths if len(p) == depth]))
        if not path:
            doc = draw(json_values)
            continue
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        key = path[-1]
        action = draw(st.sampled_from(["replace", "delete", "duplicate", "label", "number"]))
        if action == "replace":
            parent[key] = draw(json_values)
        elif action == "delete":
            del parent[key]
        elif action == "duplicate" and isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
        elif action == "label":
            parent[key] = draw(st.sampled_from([*CELL_LABELS, "Rock", "rock ", "", "lizard"]))
        else:
            parent[key] = draw(
                st.sampled_from([0, -1, 1, 2, 9, 10, 21, 1000, 10**6, 10**18, 2.5, True, None])
            )
    return doc


def run_document(kind: str, obj: Any, rules) -> str:
    """Score ``obj`` as the ``kind`` command does and render both outputs; returns the text."""
    from reptile_tank.commands import score_grid as cmd
    from scoring.reptile_tank.engine import score_board
    from scoring.reptile_tank.game import score_game
    from scoring.reptile_tank.solo import score_solo

    if kind == "grid":
        board = cmd._board(obj, "fuzz.json")
        pad = score_board(board, rules)
        json.dumps({"board": board.to_json(), **pad.to_json()})
        return cmd.format_pad(pad)
    if kind == "game":
        players, objectives = cmd.parse_game(obj, "fuzz.json", rules)
        result = score_game(players, rules, objectives=objectives)
        json.dumps(result.to_json())
        return cmd.format_game(result)
    kwargs = cmd.parse_solo(obj, "fuzz.json", rules)
    result = score_solo(rules=rules, **kwargs)
    json.dumps(result.to_json())
    return cmd.format_solo(result)
