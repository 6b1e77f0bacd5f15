"""Player names and free text (HTML, script tags, markdown, emoji, 100 characters) through
``score-game`` and ``solo`` files: kept intact in ``--json`` output and printed verbatim as text;
names with control characters (ESC, line breaks, bidi overrides) or over 100 characters are
refused in one line (issue 16); refusals quoting hostile file names stay one escaped line; and
the app never hands user text to an HTML renderer.
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
    "emoji": "🦎🐍🐢 Liz",
    "combining": "Zoe\u0301 Åsa Øyvind",
    "quotes": 'O\'Brien "the" \\backslash\\',
    "long_100": "Ann" + "x" * 97,
}
#: Names with a zero-width joiner: emoji families, and Persian/Indic names (ZWNJ) are written so.
JOINED = {
    "emoji_zwj": "Liz 👩\u200d👩\u200d👧",
    "persian_zwnj": "\u0645\u06cc\u200c\u0631\u0648\u062f",
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


@pytest.mark.parametrize("start", [0, 4])
def test_hostile_names_four_to_a_game(tmp_path, start):
    doc = copy.deepcopy(VALID["game"])
    board = VALID["grid"]
    names = list(NAMES.values())[start : start + 4]
    doc["players"] = [{"name": name, "board": board} for name in names]
    path = tmp_path / "table.json"
    path.write_text(json.dumps(doc), encoding="utf-8")  # ASCII escapes: \\ud83e... in the file
    run = run_cli("score-game", str(path), "--json")
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert sorted(p["name"] for p in result["players"]) == sorted(names)
    # Equal boards: everyone ties, and the ranking still names every player exactly.
    assert sorted(p["name"] for p in result["ranking"]) == sorted(names)


@pytest.mark.parametrize(
    "name, fragment",
    [
        ("\x1b]0;pwned\x07\x1b[2JAnn", "control characters"),
        ("Ann\n  1. Mallory 999 VP", "control characters"),
        ("\u202eeman", "control characters"),
        ("Ann" + "x" * 98, "at most 100"),
        ("x" * 10_000_000, "over the 4.0 MB limit"),  # refused from the file size
    ],
    ids=["ansi", "newline", "rtl_override", "101_chars", "10_MB"],
)
def test_hostile_names_are_refused_in_one_line(tmp_path, name, fragment):
    """ANSI escapes set the terminal title and cleared the screen; a newline forged a ranking
    line; a 100 MB name cost 4.1 GB (column padding)."""
    run = run_cli("score-game", str(game_file(tmp_path, name)))
    assert_clean_refusal(run, fragment)
    assert run.max_rss_mb < 1500, run


def test_twenty_thousand_players_are_refused_quickly(tmp_path):
    doc = copy.deepcopy(VALID["game"])
    doc["players"] = [{"name": f"P{k}", "board": {}} for k in range(20_000)]
    path = tmp_path / "crowd.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    run = run_cli("score-game", str(path))
    assert_clean_refusal(run, "1 to 4 players")
    assert run.cpu_s < 5.0, run


@pytest.mark.parametrize("key", sorted(JOINED))
def test_names_with_joiners_are_accepted(tmp_path, key):
    """Zero-width (non-)joiners are how emoji families and Persian/Indic names are written:
    refused as control characters until 019fd33; other non-printables still are."""
    run = run_cli("score-game", str(game_file(tmp_path, JOINED[key])), "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["players"][0]["name"] == JOINED[key]


@pytest.mark.parametrize("key", ["script", "emoji", "long_100"])
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


def _css_literal(text: str) -> bool:
    """Literal text that opens or closes ``<style>`` blocks and holds no other markup."""
    for k, ch in enumerate(text):
        if ch == "<" and not text.startswith(("<style>", "</style>"), k):
            return False
    return True


def _css_only(
    node: ast.AST, constants: set[str], css_functions: set[str], builder: bool = False
) -> bool:
    """Whether an expression can only produce ``<style>`` blocks: literal CSS, module constants
    of CSS, f-string values inside them (our keys, indexes), joins of such pieces, and calls of
    this module's ``*_css``/``*_rules`` functions whose own results are CSS-only. Inside such a
    builder (``builder=True``) its local lists of rules count as CSS: the name declares it."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and _css_literal(node.value)
    if isinstance(node, ast.JoinedStr):
        return all(
            isinstance(part, ast.FormattedValue)
            or _css_only(part, constants, css_functions, builder)
            for part in node.values
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _css_only(node.left, constants, css_functions, builder) and _css_only(
            node.right, constants, css_functions, builder
        )
    if isinstance(node, ast.Name):
        return node.id in constants or builder
    if isinstance(node, ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        if name in css_functions:
            return True
        if name == "join" and isinstance(func, ast.Attribute) and len(node.args) == 1:
            inner = node.args[0]
            parts = inner.elt if isinstance(inner, ast.GeneratorExp | ast.ListComp) else inner
            return _css_only(func.value, constants, css_functions, builder) and _css_only(
                parts, constants, css_functions, builder
            )
    return False


def _css_functions(tree: ast.Module, constants: set[str]) -> set[str]:
    """This module's ``*_css``/``*_rules`` functions every ``return`` of which is CSS-only."""
    candidates = {
        node.name: node
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name.endswith(("_css", "_rules"))
    }
    accepted: set[str] = set()
    changed = True
    while changed:  # functions may build on each other
        changed = False
        for name, node in candidates.items():
            if name in accepted:
                continue
            returns = [n.value for n in ast.walk(node) if isinstance(n, ast.Return) and n.value]
            branches = []
            for value in returns:
                branches += [value.body, value.orelse] if isinstance(value, ast.IfExp) else [value]
            if returns and all(_css_only(b, constants, accepted, True) for b in branches):
                accepted.add(name)
                changed = True
    return accepted


#: (module, variable) of the one script built from stored values: ``ui/nights.py``'s cookie
#: script, whose builder ``cookie_script`` lets only ``[A-Za-z0-9_-]`` uids through (see
#: :func:`test_the_cookie_script_carries_only_uid_tokens`).
FILTERED_SCRIPTS = {("nights.py", "script")}


def _call_name(arg: ast.AST | None) -> str | None:
    return arg.id if isinstance(arg, ast.Name) else None


def test_the_cookie_script_carries_only_uid_tokens():
    from ui.nights import cookie_script

    hostile = ["</script><script>alert(1)</script>", "a'b", 'x"y', "ok_Night-1", "é", "a b", 7]
    script = cookie_script(hostile)
    from ui.nights import COOKIE

    assert f'const c="{COOKIE}=ok_Night-1"+' in script  # the only uid made of tokens
    body = script.removeprefix("<script>").removesuffix("</script>")
    assert "<" not in body and "alert" not in body and "a'b" not in body


def test_the_app_never_renders_user_text_as_html():
    """No ``unsafe_allow_html=True``; ``st.html`` only with text written in the code: a module
    constant, literal ``<style>`` text, or this module's ``*_css`` builders whose every return
    is CSS built from our own keys (checked here, recursively); never a user's text."""
    problems = []
    for path in _app_sources():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        constants = {  # module-level text written in the code (CSS, the menu's script)
            target.id
            for node in tree.body
            if isinstance(node, ast.Assign)
            and (
                (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str))
                or _css_only(node.value, set(), set())
            )
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        css_functions = _css_functions(tree, constants)
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
                if (path.name, _call_name(arg)) in FILTERED_SCRIPTS:
                    continue  # its builder lets only [A-Za-z0-9_-] tokens through (tested)
                if arg is None or not _css_only(arg, constants, css_functions):
                    problems.append(f"{path.name}:{node.lineno}: st.html with non-CSS text")
    assert problems == []


def test_the_html_check_catches_user_text():
    source = (
        "import streamlit as st\n"
        "BOARD_CSS = '<style>.a{}</style>'\n"
        "def ok_css(key):\n    return f'<style>.st-key-{key}{{}}</style>'\n"
        "def bad_css(name):\n    return '<b>' + name + '</b>'\n"
        "def page(name):\n"
        "    st.html(BOARD_CSS + ok_css('k'))\n"
        "    st.html(bad_css(name))\n"
        "    st.html(f'<div>{name}</div>')\n"
        "    st.html(name)\n"
    )
    tree = ast.parse(source)
    constants = {"BOARD_CSS"}
    functions = _css_functions(tree, constants)
    assert functions == {"ok_css"}
    calls = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "html"
    ]
    assert [_css_only(c.args[0], constants, functions) for c in calls] == [
        True,
        False,
        False,
        False,
    ]


# ----------------------------------------------------------------------------- the error line


@pytest.mark.parametrize(
    "name",
    [
        "bad\nreptile-tank: 1. Mallory 999 VP.json",  # a fake second line
        "\x1b]0;pwned\x07\x1b[2Jclear.json",  # terminal title + clear screen
        "\u202egnp.json",  # right-to-left override
        "x" * 250 + ".json",
    ],
    ids=["newline", "ansi", "rtl", "long"],
)
def test_error_line_shows_hostile_file_names_escaped(tmp_path, name):
    """A refusal naming a hostile path is still one plain line: control characters (ESC, BEL,
    line breaks, bidi overrides) are shown escaped, never sent to the terminal."""
    path = tmp_path / name
    path.write_text("{")  # invalid JSON: the message names the file
    run = run_cli("score-grid", str(path))
    line = assert_clean_refusal(run)
    assert not any(ch in line for ch in "\x1b\x07\r\u202e")
    assert len(line) <= 2000
    if "ansi" in name or "\x1b" in name:
        assert "\\x1b" in line


def test_error_line_is_bounded(tmp_path):
    from reptile_tank.cli import error_line

    line = error_line("y" * 100_000 + "\n" + "z")
    assert len(line) <= 2000 and "\n" not in line and line.endswith("…")
