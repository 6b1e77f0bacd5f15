"""``reptile-tank score``, ``enroll``, ``bench`` and ``train`` through the real CLI entry point."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from reptile_tank.cli import main
from scoring.reptile_tank.cards import FACE_LABELS

SAMPLES = Path(__file__).resolve().parents[1] / "reptile_tank" / "samples"


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code: int, err: str, *fragments: str) -> None:
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("reptile-tank: error: ")
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0]


def test_score_photo_json_gives_board_pad_and_timings(capsys):
    truth = json.loads((SAMPLES / "sample_1.json").read_text())
    code, out, _ = run_cli(
        capsys, "score", str(SAMPLES / "sample_1.jpg"), "--objectives", "3,11", "--json"
    )
    assert code == 0
    result = json.loads(out)
    assert result["board"] == truth["board"]
    assert result["total"] == sum(
        result[k]
        for k in ("lizards", "snakes", "turtles", "cockroach", "water", "dry_land", "objectives")
    )
    assert len(result["cells"]) == 4 and len(result["cells"][0]) == 5
    assert {"grid", "classify", "score", "total"} <= set(result["timings_ms"])
    assert result["orientation"]["ambiguous"] is False


def test_score_photo_text_shows_board_and_pad(capsys):
    code, out, _ = run_cli(capsys, "score", str(SAMPLES / "sample_2.jpg"))
    assert code == 0
    assert "Orientation: turned 180 degrees" in out
    assert "Total" in out and "Timings (ms)" in out


def test_score_refuses_a_non_image_in_one_line(capsys, tmp_path):
    bad = tmp_path / "notes.jpg"
    bad.write_text("not a photo at all")
    code, _, err = run_cli(capsys, "score", str(bad))
    assert_one_line_error(code, err)


def test_score_refuses_a_missing_file_in_one_line(capsys, tmp_path):
    code, _, err = run_cli(capsys, "score", str(tmp_path / "nope.jpg"))
    assert_one_line_error(code, err, "nope.jpg")


def test_score_says_when_no_terrarium_is_found(capsys, tmp_path):
    rng = np.random.default_rng(0)
    blank = cv2.GaussianBlur(rng.integers(90, 110, size=(600, 800, 3), dtype=np.uint8), (0, 0), 3)
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), blank)
    code, _, err = run_cli(capsys, "score", str(path))
    assert_one_line_error(code, err, "no terrarium found")


def test_score_json_says_whether_and_where_to_check(capsys):
    """The contract: top-level ``needs_check`` (bool), ``check`` (bool) on every cell."""
    code, out, _ = run_cli(capsys, "score", str(SAMPLES / "sample_1.jpg"), "--json")
    assert code == 0
    result = json.loads(out)
    assert isinstance(result["needs_check"], bool)
    flags = [cell["check"] for row in result["cells"] for cell in row]
    assert len(flags) == 20 and all(isinstance(flag, bool) for flag in flags)
    assert all(0.0 <= cell["p_wrong"] <= 1.0 for row in result["cells"] for cell in row)
    assert result["needs_check"] == (any(flags) or bool(result["check_reasons"]))
    # a clean photo read right is not flagged all over
    assert sum(flags) <= 2


def test_score_flags_a_read_from_misplaced_corners(capsys):
    """Corners half a card off give a wrong board: it must come back flagged, in text and JSON."""
    truth = json.loads((SAMPLES / "sample_1.json").read_text())
    corners = np.asarray(truth["grid_corners"], float)
    corners += (corners[1] - corners[0]) / 10
    text = ",".join(f"{v:.1f}" for v in corners.ravel())
    code, out, _ = run_cli(capsys, "score", str(SAMPLES / "sample_1.jpg"), "--corners", text,
                           "--json")  # fmt: skip
    assert code == 0
    result = json.loads(out)
    assert result["board"] != truth["board"]
    assert result["needs_check"] is True
    wrong = [
        cell["check"]
        for row, true_row in zip(result["cells"], truth["board"]["rows"], strict=True)
        for cell, label in zip(row, true_row, strict=True)
        if cell["label"] != label
    ]
    assert sum(wrong) >= 0.8 * len(wrong)
    code, out, _ = run_cli(capsys, "score", str(SAMPLES / "sample_1.jpg"), "--corners", text)
    assert code == 0
    assert "NEEDS A CHECK" in out and "Check these cells:" in out and "?" in out


def test_score_refuses_bad_corners_in_one_line(capsys):
    code, _, err = run_cli(capsys, "score", str(SAMPLES / "sample_1.jpg"), "--corners", "1,2,3")
    assert_one_line_error(code, err, "--corners")


def test_score_refuses_a_missing_pack_in_one_line(capsys, tmp_path):
    code, _, err = run_cli(
        capsys, "score", str(SAMPLES / "sample_1.jpg"), "--pack", str(tmp_path / "nopack")
    )
    assert_one_line_error(code, err, "not a deck pack")


def test_enroll_refuses_an_incomplete_folder_in_one_line(capsys, tmp_path):
    faces = tmp_path / "faces"
    faces.mkdir()
    cv2.imwrite(str(faces / "rock.png"), np.full((88, 63, 3), 120, np.uint8))
    code, _, err = run_cli(capsys, "enroll", "--from-dir", str(faces), "--out", str(tmp_path / "p"))
    assert_one_line_error(code, err, "missing a face image for", "water")


def test_enroll_refuses_unknown_file_names_in_one_line(capsys, tmp_path):
    faces = tmp_path / "faces"
    faces.mkdir()
    cv2.imwrite(str(faces / "dragon.png"), np.full((88, 63, 3), 120, np.uint8))
    code, _, err = run_cli(capsys, "enroll", "--from-dir", str(faces), "--out", str(tmp_path / "p"))
    assert_one_line_error(code, err, "dragon.png")


@pytest.mark.slow
def test_enroll_then_score_with_the_pack(capsys, tmp_path):
    from vision.reptile_tank.synth.deck import stand_in_deck

    faces = tmp_path / "faces"
    faces.mkdir()
    for label, face in stand_in_deck(px_per_mm=4.0).items():
        # a photo of the single card on a table: enroll must crop it out
        canvas = np.full((520, 420, 3), (40, 90, 60), np.uint8)
        canvas[80:432, 84:336] = face
        cv2.imwrite(str(faces / f"{label}.jpg"), canvas[..., ::-1])
    code, out, _ = run_cli(
        capsys, "enroll", "--from-dir", str(faces), "--out", str(tmp_path / "pack")
    )
    assert code == 0 and "wrote deck pack" in out
    assert sorted(p.stem for p in (tmp_path / "pack" / "faces").glob("*.png")) == sorted(
        FACE_LABELS
    )
    truth = json.loads((SAMPLES / "sample_1.json").read_text())
    code, out, _ = run_cli(
        capsys, "score", str(SAMPLES / "sample_1.jpg"), "--pack", str(tmp_path / "pack"), "--json"
    )
    assert code == 0
    assert json.loads(out)["board"] == truth["board"]


def test_bench_on_the_samples(capsys, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    for name in ("sample_1", "sample_2"):
        shutil.copy(SAMPLES / f"{name}.jpg", data)
        shutil.copy(SAMPLES / f"{name}.json", data)
    code, out, _ = run_cli(capsys, "bench", "--data", str(data), "--json")
    assert code == 0
    report = json.loads(out)
    assert report["scenes"] == 2
    assert report["grid_found_pct"] == 100.0
    assert report["per_card_error_pct"] == 0.0
    assert report["whole_board_right_pct"] == 100.0
    assert "baseline" in report
    assert report["median_cpu_ms"]["classify"] > 0
    grid = report["grid"]
    assert grid["found_within_quarter_card_pct"] == 100.0
    assert grid["corner_error_mean_pct_card_width"] < 5.0
    assert grid["median_cpu_ms_photo_to_crops"] > 0
    assert grid["baseline"]["median_cpu_ms_photo_to_crops"] > 0


def test_bench_refuses_a_folder_without_scenes_in_one_line(capsys, tmp_path):
    code, _, err = run_cli(capsys, "bench", "--data", str(tmp_path))
    assert_one_line_error(code, err, "no scenes")


def test_train_without_torch_says_install_the_extra(capsys, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_torch(name, *args, **kwargs):
        if name == "torch" or name.startswith("torch."):
            raise ImportError("No module named 'torch'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_torch)
    code, _, err = run_cli(capsys, "train", "--steps", "1")
    assert_one_line_error(code, err, "install the train extra")


@pytest.mark.slow
def test_enroll_from_a_photo_of_the_layout(capsys, tmp_path):
    from vision.reptile_tank.synth.deck import stand_in_deck
    from vision.reptile_tank.synth.scene import encode_jpeg, render_scene

    labels = list(FACE_LABELS) + ["empty"] * 4
    rows = [labels[r * 5 : (r + 1) * 5] for r in range(4)]
    deck = stand_in_deck(px_per_mm=6.0)
    for attempt in range(20):  # a scene seen from the owner's side (the layout's top is up)
        image, truth = render_scene(
            np.random.default_rng([7, attempt]), deck, board={"rows": rows},
            max_size=(1600, 1200), fill=(0.7, 0.9), distractors=False,
        )  # fmt: skip
        if truth["rotation_deg"] < 30 or truth["rotation_deg"] > 330:
            break
    photo = tmp_path / "layout.jpg"
    photo.write_bytes(encode_jpeg(image, 90))
    code, out, _ = run_cli(
        capsys, "enroll", "--from-layout", str(photo), "--out", str(tmp_path / "pack")
    )
    assert code == 0, out
    assert "note:" not in out  # every card seen: no face to look at
    truth_sample = json.loads((SAMPLES / "sample_1.json").read_text())
    code, out, _ = run_cli(
        capsys, "score", str(SAMPLES / "sample_1.jpg"), "--pack", str(tmp_path / "pack"), "--json"
    )
    assert code == 0
    assert json.loads(out)["board"] == truth_sample["board"]


@pytest.mark.slow
def test_enroll_from_two_loose_photos_named_on_the_command_line(capsys, tmp_path):
    """Cards laid anywhere (two photos, no full grid), named with --names in reading order;
    wrong name counts and a missing face are one clear line each."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent / "app"))
    from test_deck_enrol import FIRST, laid, layout_photo, second_layout

    photos = []
    for name, rows, seed in (("a.jpg", FIRST, 7), ("b.jpg", second_layout(), 9)):
        photos.append(tmp_path / name)
        photos[-1].write_bytes(layout_photo(rows, seed=seed))
    names = laid(FIRST) + laid(second_layout())
    pack = tmp_path / "pack"
    code, _, err = run_cli(capsys, "enroll", "--from-layout", *map(str, photos),
                           "--names", ",".join(names[:-1]), "--out", str(pack))  # fmt: skip
    assert_one_line_error(code, err, "15 name(s) given for 16 card(s) found", "9 + 7")
    code, _, err = run_cli(capsys, "enroll", "--from-layout", str(photos[0]), "--out", str(pack))
    assert_one_line_error(code, err, "not the documented layout")
    names[0] = "skip"  # left out: the deck then lacks a face
    code, _, err = run_cli(capsys, "enroll", "--from-layout", *map(str, photos),
                           "--names", ",".join(names), "--out", str(pack))  # fmt: skip
    assert_one_line_error(code, err, "no card named rock")
    names = laid(FIRST) + laid(second_layout())
    code, out, _ = run_cli(capsys, "enroll", "--from-layout", *map(str, photos),
                           "--names", ",".join(names), "--out", str(pack))  # fmt: skip
    assert code == 0 and "16 faces" in out, out
    truth_sample = json.loads((SAMPLES / "sample_1.json").read_text())
    code, out, _ = run_cli(
        capsys, "score", str(SAMPLES / "sample_1.jpg"), "--pack", str(pack), "--json"
    )
    assert code == 0 and json.loads(out)["board"] == truth_sample["board"]


def test_crop_to_card_keeps_a_scan_and_cuts_a_photo():
    from vision.reptile_tank.enrol import crop_to_card
    from vision.reptile_tank.synth.deck import render_face

    face = render_face("rosy_boa", px_per_mm=4.0)  # 252 x 352, the card's aspect: a scan
    assert np.array_equal(crop_to_card(face), face)
    canvas = np.full((600, 480, 3), (40, 90, 60), np.uint8)  # the card on a green table
    canvas[120:472, 114:366] = face
    cut = cv2.resize(crop_to_card(canvas), (252, 352), interpolation=cv2.INTER_AREA)
    assert np.abs(cut.astype(int) - face).mean() < 12


def test_enroll_help_names_the_layout_order(capsys):
    """A player laying out the 16 faces for ``--from-layout`` needs the order in the help."""
    from scoring.reptile_tank.cards import FACE_LABELS

    with pytest.raises(SystemExit):
        main(["enroll", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert ", ".join(FACE_LABELS) in out
