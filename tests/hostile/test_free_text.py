"""Player names and free text (HTML, script tags, markdown, emoji, RTL, 10 000 characters) through
``score-game`` and ``solo`` files: kept intact in ``--json`` output and printed verbatim as text;
and the app never hands user text to an HTML renderer.
"""

from __future__ import annotations

import ast
import copy
import json
from pathlib import Path

import pytest

from tests.hostile.conftest import REPO, assert_clean_refusal, run_cli
from tests.hostile.fuzzing import VALID

NAMES = {
    "html": "<b>Zoë</b> & <i>Ann</i>",
    "script": '<script>alert("x")</script>',
    "img_onerror": '<img src=x onerror="alert(1)">',
    "markdown": "**Bo** :red[x] [link](javascript:alert(1)) `code`",
    "emoji": "🦎🐍🐢 Liz 👩‍👩‍👧",
    "rtl_and_zero_width": "\u202eeman\u202c\u200b\u200dAnn",
    "combining": "Zoe\u0301 Åsa Øyvind",
    "quotes": 'O\'Brien "the" \\backslash\\',
    "long_10000": "Ann" + "x" * 9997,
}


def game_file(tmp_path: Path, first: str, second: str = "Ben") -> Path:
    doc = copy.deepcopy(VALID["game"])
    doc["players"][0]["name"] = first
    doc["players"][1]["name"] = second
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.parametrize("key", sorted(NAMES))
def test_game_names_come_back_intact(tmp_path, key):
    name = NAMES[key]
    path = game_file(tmp_path, name)
    run = run_cli("score-game", str(path), "--json")
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    names = [p["name"] for p in result["players"]]
    assert names == [name, "Ben"]
    plain = run_cli("score-game", str(path))
    assert plain.returncode == 0, plain.stderr
    assert name in plain.stdout  # printed as typed, not escaped or marked up


def test_all_hostile_names_in_one_game(tmp_path):
    doc = copy.deepcopy(VALID["game"])
    board = VALID["grid"]
    doc["players"] = [{"name": name, "board": board} for name in NAMES.values()]
    path = tmp_path / "table.json"
    path.write_text(json.dumps(doc), encoding="utf-8")  # ASCII escapes: \\ud83e... in the file
    run = run_cli("score-game", str(path), "--json")
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert sorted(p["name"] for p in result["players"]) == sorted(NAMES.values())
    # Equal boards: everyone ties, and the ranking still names every player exactly.
    assert sorted(p["name"] for p in result["ranking"]) == sorted(NAMES.values())


@pytest.mark.parametrize("key", ["script", "emoji", "long_10000"])
def test_solo_name_comes_back_intact(tmp_path, key):
    doc = copy.deepcopy(VALID["solo"])
    doc["player"]["name"] = NAMES[key]
    path = tmp_path / "solo.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    run = run_cli("solo", str(path), "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["player"]["name"] == NAMES[key]


@pytest.mark.parametrize(
    "first, second, fragment",
    [
        ("   ", "Ben", "name"),
        ("Ann", "Ann", "unique"),
        (12, "Ben", "name"),
    ],
)
def test_bad_names_are_one_line(tmp_path, first, second, fragment):
    run = run_cli("score-game", str(game_file(tmp_path, first, second)))
    assert_clean_refusal(run, fragment)


def test_file_not_utf8_is_one_line(tmp_path):
    path = tmp_path / "game.json"
    path.write_bytes(b'{"players": [{"name": "Zo\xeb"}]}')
    assert_clean_refusal(run_cli("score-game", str(path)), "UTF-8")


def _app_sources() -> list[Path]:
    return [REPO / "app.py", *sorted((REPO / "ui").rglob("*.py"))]


def test_the_app_never_renders_user_text_as_html():
    """No ``unsafe_allow_html=True``; ``st.html`` only with a module-level constant."""
    problems = []
    for path in _app_sources():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        constants = {
            target.id
            for node in tree.body
            if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            for keyword in node.keywords:
                if keyword.arg == "unsafe_allow_html" and not (
                    isinstance(keyword.value, ast.Constant) and keyword.value.value is False
                ):
                    problems.append(f"{path.name}:{node.lineno}: unsafe_allow_html")
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "html":
                arg = node.args[0] if node.args else None
                literal = isinstance(arg, ast.Constant) and isinstance(arg.value, str)
                if not (literal or (isinstance(arg, ast.Name) and arg.id in constants)):
                    problems.append(f"{path.name}:{node.lineno}: st.html with non-constant text")
    assert problems == []
