"""Hostile board/game/solo files through the real ``reptile-tank`` process: one line, exit 2."""

from __future__ import annotations

import json

import pytest

from tests.hostile.conftest import assert_clean_refusal, run_cli
from tests.hostile.fuzzing import VALID

HOSTILE = [
    ("deep_nesting", "[" * 100_000, "nested too deeply"),
    ("huge_integer", '{"rows": ' + "9" * 5000 + "}", "unreadable JSON value"),
    ("binary", bytes(range(256)).decode("latin-1"), ""),
    ("not_json", "rows: [a, b]", "invalid JSON"),
    ("empty", "", "invalid JSON"),
    ("nan_cells", '{"rows": [[NaN, 1, 2, 3, 4]]}', ""),
    ("board_is_list", json.dumps(VALID["grid"]["rows"]), "rows"),
    ("one_row", json.dumps({"rows": VALID["grid"]["rows"][:1]}), "4 rows"),
    ("unknown_id", json.dumps({"rows": [["gecko"] * 5] * 4}), "gecko"),
]


@pytest.mark.parametrize("command", ["score-grid", "score-game", "solo"])
@pytest.mark.parametrize("name, text, fragment", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_document_files_are_one_line(tmp_path, command, name, text, fragment):
    path = tmp_path / f"{name}.json"
    path.write_bytes(text.encode("latin-1") if name == "binary" else text.encode("utf-8"))
    run = run_cli(command, str(path))
    line = assert_clean_refusal(run)
    if command == "score-grid" or fragment in ("nested too deeply", "unreadable JSON value"):
        assert fragment in line
    assert run.cpu_s < 5.0


@pytest.mark.parametrize(
    "doc, fragment",
    [
        ({**VALID["solo"], "master": {"cards": {"rock": 10**18}}}, "copies"),
        ({**VALID["solo"], "master": {"cards": {"corn_snake": 500}}}, "copies"),
        ({**VALID["solo"], "master": {"cards": {}, "level": []}}, "level"),
        ({**VALID["solo"], "objectives": 9}, "objectives"),
    ],
    ids=["count_1e18", "count_500", "level_list", "objectives_number"],
)
def test_solo_regressions_are_one_line_and_fast(tmp_path, doc, fragment):
    """Each of these once hung, ran out of memory or raised a traceback (see RELIABILITY.md)."""
    path = tmp_path / "solo.json"
    path.write_text(json.dumps(doc))
    run = run_cli("solo", str(path))
    assert_clean_refusal(run, fragment)
    assert run.cpu_s < 5.0


def test_board_from_stdin(tmp_path):
    run = run_cli("score-grid", "-", "--json", stdin=json.dumps(VALID["grid"]))
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["board"] == VALID["grid"]
    bad = run_cli("score-grid", "-", stdin="{" * 50_000)
    assert_clean_refusal(bad, "-")
