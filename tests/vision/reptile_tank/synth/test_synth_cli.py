"""``synth``, ``deck export`` and ``deck pdf`` through their own parser (cli.py's error path)."""

from __future__ import annotations

import argparse
import json
import re

import cv2
import numpy as np
import pytest

from reptile_tank.commands.synth import print_sheets, register
from scoring.reptile_tank.cards import FACE_LABELS


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    """Parse with this module's register() only and handle errors the way cli.main does."""
    parser = argparse.ArgumentParser(prog="reptile-tank")
    sub = parser.add_subparsers(dest="command")
    sub.required = True
    register(sub)
    try:
        args = parser.parse_args(argv)
        code = int(args.func(args) or 0)
    except SystemExit as stop:  # argparse usage errors
        code = int(stop.code)
    except (ValueError, OSError) as error:
        print(f"reptile-tank: error: {error}", file=__import__("sys").stderr)
        code = 2
    out, err = capsys.readouterr()
    return code, out, err


def test_synth_writes_scenes_and_manifest(tmp_path, capsys):
    code, out, _ = _run(
        ["synth", "--out", str(tmp_path), "--n", "2", "--seed", "5", "--max-size", "320x240"],
        capsys,
    )
    assert code == 0 and "2 scenes" in out
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["n"] == 2 and manifest["seed"] == 5
    assert [e["image"] for e in manifest["scenes"]] == ["scene_00000.jpg", "scene_00001.jpg"]
    truth = json.loads((tmp_path / "scene_00001.json").read_text())
    assert max(truth["size"]) <= 320


def test_synth_real_table_option_writes_real_table_scenes(tmp_path, capsys):
    code, out, _ = _run(
        ["synth", "--out", str(tmp_path), "--n", "1", "--seed", "5", "--max-size", "320x240",
         "--real-table", "--size", "400x300"],
        capsys,
    )  # fmt: skip
    assert code == 0
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["options"] == {"real_table": True, "size": [400, 300]}
    truth = json.loads((tmp_path / "scene_00000.json").read_text())
    assert truth["params"]["real_table"] is True
    assert "covered_cells" in truth and "glared_cells" in truth
    assert truth["size"] == [400, 300]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["synth", "--out", "X", "--n", "0", "--seed", "1"], "--n"),
        (["synth", "--out", "X", "--n", "1", "--seed", "-3"], "--seed"),
        (["synth", "--out", "X", "--n", "1", "--seed", "1", "--partial", "1.5"], "--partial"),
        (["synth", "--out", "X", "--n", "1", "--seed", "1", "--max-size", "huge"], "size"),
        (["synth", "--out", "X", "--n", "1", "--seed", "1", "--deck", "/no/such/pack"], "--deck"),
        (["deck", "export", "--out", "X", "--pack", "/no/such/pack"], "no such directory"),
        (["deck", "pdf", "--out", "deck.png"], ".pdf"),
        (["deck", "export", "--out", "X", "--pack", ".", "--random-seed", "1"], "one or the other"),
        (["deck", "pdf", "--out", "/no/such/dir/deck.pdf"], "no such folder"),
    ],
)
def test_bad_arguments_give_one_clear_line(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(argv, capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("reptile-tank: error: ")
    assert message in lines[0]
    assert not (tmp_path / "X").exists() or not any((tmp_path / "X").iterdir())


def test_argparse_errors_exit_2(capsys):
    code, _, err = _run(["synth", "--out", "X", "--n", "two", "--seed", "1"], capsys)
    assert code == 2 and "--n" in err


def test_deck_export_writes_16_faces_that_load_back(tmp_path, capsys):
    code, _, _ = _run(["deck", "export", "--out", str(tmp_path), "--px-per-mm", "3"], capsys)
    assert code == 0
    assert sorted(p.stem for p in tmp_path.glob("*.png")) == sorted(FACE_LABELS)
    water = cv2.imread(str(tmp_path / "water.png"))
    assert water.shape == (264, 189, 3)
    again = tmp_path / "again"
    code, _, _ = _run(["deck", "export", "--out", str(again), "--pack", str(tmp_path)], capsys)
    assert code == 0
    assert np.array_equal(
        cv2.imread(str(again / "rock.png")), cv2.imread(str(tmp_path / "rock.png"))
    )


def test_deck_export_of_a_random_deck_is_seeded(tmp_path, capsys):
    for name in ("a", "b", "c"):
        seed = "7" if name != "c" else "8"
        argv = ["deck", "export", "--out", str(tmp_path / name), "--random-seed", seed]
        assert _run([*argv, "--px-per-mm", "2"], capsys)[0] == 0
    a, b, c = (cv2.imread(str(tmp_path / n / "golden_pothos.png")) for n in "abc")
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_print_sheets_put_63_by_88_mm_cards_on_a4_pages():
    faces = [np.full((88, 63, 3), 40 + 10 * k, np.uint8) for k in range(16)]
    pages = print_sheets(faces, dpi=100)
    assert len(pages) == 2
    for page in pages:
        assert page.shape == (round(297 / 25.4 * 100), round(210 / 25.4 * 100), 3)
    # measure one card on the page: a dark rectangle 63 x 88 mm
    mask = (pages[0] == 40).all(-1).astype(np.uint8)
    x, y, w, h = cv2.boundingRect(mask)
    assert abs(w - 63 / 25.4 * 100) <= 1 and abs(h - 88 / 25.4 * 100) <= 1
    with pytest.raises(ValueError, match="dpi"):
        print_sheets(faces, dpi=10)


def test_deck_pdf_is_a4_with_the_whole_deck(tmp_path, capsys):
    out = tmp_path / "deck.pdf"
    code, text, _ = _run(["deck", "pdf", "--out", str(out), "--dpi", "100"], capsys)
    assert code == 0 and "2 A4 pages" in text
    data = out.read_bytes()
    boxes = re.findall(rb"/MediaBox \[ ?0 0 ([\d.]+) ([\d.]+) ?\]", data)
    assert len(boxes) == 2
    for w, h in boxes:
        assert abs(float(w) - 595.3) < 1.5 and abs(float(h) - 841.9) < 1.5
    assert data.startswith(b"%PDF-")
    assert len(re.findall(rb"/Subtype ?/Image", data)) == 2  # one raster per page
