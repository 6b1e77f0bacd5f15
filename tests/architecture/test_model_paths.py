"""One folder per model, read through one function (issue 30).

Every shipped model lives in ``models/<name>/`` (``model.onnx``, ``model.json``,
``MODEL_CARD.md``, its galleries, its ``confidence.json`` where one is fitted), and only the
vision core's :mod:`vision.models` builds paths into ``models/``: everything else asks
:func:`vision.models.model_files` (or :func:`vision.models.model_folder` for a folder of the same
layout elsewhere). This test reads every Python file's string literals for a path into
``models/`` or a model file's name, and checks each model folder and the package data.
"""

from __future__ import annotations

import ast
import fnmatch
import hashlib
import io
import json
import re
import tokenize
import tomllib
from pathlib import Path

import numpy as np

from vision import models
from vision.models import MODELS_DIR, model_files, shipped_models

ROOT = Path(__file__).resolve().parents[2]
#: The one module that may name ``models/`` and its files, and this test (it spells them).
CORE = "vision/models.py"
EXEMPT = {CORE, "tests/architecture/test_model_paths.py"}
SKIP_PARTS = {"__pycache__", "node_modules", "build", "dist"}
#: File names of a model folder, and the loose names the folders replaced (issue 30).
MODEL_FILE_NAMES = {
    models.ONNX_FILE,
    models.METADATA_FILE,
    models.CARD_FILE,
    models.CONFIDENCE_FILE,
    "stand_in_gallery.npz",
}
OLD_NAME = re.compile(r"^(card_embedder\w*|nimalia_square_embedder)\.(onnx|json)$|_gallery\.npz$")


def _string_values(source: str) -> list[tuple[int, str]]:
    """(line, value) of every string literal (an f-string: its text as written)."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type != tokenize.STRING:
            continue
        try:
            value = ast.literal_eval(token.string)
        except (ValueError, SyntaxError):  # an f-string
            value = re.sub(r"^[A-Za-z]*(\"\"\"|'''|\"|')|(\"\"\"|'''|\"|')$", "", token.string)
        if isinstance(value, str):
            found.append((token.start[0], value))
    return found


def model_path_literals(source: str) -> list[tuple[int, str]]:
    """The string literals of ``source`` that build a path into ``models/`` or name a model file
    (a recipe's own name, ``models/<recipe>.py``, is not a path to a model)."""
    bad = []
    for line, value in _string_values(source):
        path_into = re.match(r"^models([/\\]|$)", value) and not value.endswith(".py")
        if path_into or value in MODEL_FILE_NAMES or OLD_NAME.search(value):
            bad.append((line, value))
    return bad


def python_files() -> list[Path]:
    return sorted(
        p
        for p in ROOT.rglob("*.py")
        if not any(part.startswith(".") or part in SKIP_PARTS for part in p.relative_to(ROOT).parts)
        and not p.relative_to(ROOT).parts[0].endswith(".egg-info")
    )


def test_the_check_sees_a_path_built_into_models():
    source = (
        'MODEL = Path(__file__).resolve().parents[2] / "models" / "card_embedder.onnx"\n'
        'G = HERE / "models/nimalia_square_embedder/stand_in_gallery.npz"\n'
        'C = folder / f"confidence.json"\n'
        'def f():\n    """Reads ``models/card_embedder_v1/model.onnx`` (a docstring)."""\n'
        'recipe = "models/train_embedder.py"\n'
    )
    assert [line for line, _ in model_path_literals(source)] == [1, 1, 2, 3]


def test_only_the_vision_core_builds_paths_into_models():
    files = python_files()
    assert len(files) > 100 and ROOT / CORE in files
    offenders = [
        f"{path.relative_to(ROOT).as_posix()}:{line}: {value!r}"
        for path in files
        if path.relative_to(ROOT).as_posix() not in EXEMPT
        for line, value in model_path_literals(path.read_text(encoding="utf-8"))
    ]
    assert not offenders, "use vision.models.model_files:\n" + "\n".join(offenders)


def _model_id(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def test_each_model_folder_has_its_network_metadata_and_card():
    names = shipped_models()
    assert {models.DEFAULT_MODEL, models.READER_MODEL} <= set(names)
    for name in names:
        files = model_files(name)
        assert files.onnx.is_file(), name
        assert files.card.is_file() and files.card.read_text().startswith("# "), name
        meta = json.loads(files.metadata.read_text())
        assert {"input", "embedding_dim"} <= set(meta), name
        for npz in files.folder.glob("*.npz"):
            assert npz.name.endswith("_gallery.npz"), npz
            with np.load(npz, allow_pickle=False) as data:
                assert len(str(data["model_id"])) == 16, npz
        if files.confidence.is_file():  # fitted for this folder's model, nothing else
            assert json.loads(files.confidence.read_text())["model_id"] == _model_id(files.onnx)
    # the card embedders' stand-in galleries are built with their own model
    for name in (models.DEFAULT_MODEL, models.READER_MODEL):
        with np.load(model_files(name).gallery(), allow_pickle=False) as data:
            assert str(data["model_id"]) == _model_id(model_files(name).onnx), name
    assert model_files(models.READER_MODEL).confidence.is_file()


def test_no_model_file_is_left_loose_in_models():
    loose = [p.name for p in MODELS_DIR.iterdir() if p.is_file() and p.suffix != ".py"]
    assert not loose, f"model files belong in models/<name>/: {loose}"


def test_the_package_data_ships_every_model_file():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = config["tool"]["setuptools"]["package-data"]["models"]
    for name in shipped_models():
        for path in model_files(name).folder.iterdir():
            rel = path.relative_to(MODELS_DIR).as_posix()
            assert any(fnmatch.fnmatch(rel, g) for g in globs), f"{rel} not in package data"


def test_names_are_folder_names():
    for bad in ("", "../x", "a/b", ".hidden"):
        try:
            model_files(bad)
        except ValueError:
            continue
        raise AssertionError(f"model_files({bad!r}) accepted")
