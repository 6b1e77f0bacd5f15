"""Where a model's files are: one folder per model under ``models/`` (issue 30).

Every shipped model has a folder ``models/<name>/`` holding

- ``model.onnx``: the network;
- ``model.json``: its metadata (input contract, training run, evaluation), read at load time by
  the embedder that runs the network (``CardEmbedder``: the ``.onnx`` file's stem, ``.json``);
- ``MODEL_CARD.md``: its card (what it is, how it was trained, what it measured);
- its galleries, ``<name>_gallery.npz`` (the stand-in deck's: ``stand_in_gallery.npz``), each
  built with this model (or with a pair whose distinctive part it is) and tagged with its id;
- ``confidence.json`` where a per-cell confidence was fitted for it.

:func:`model_files` is the one way into that folder: no other module builds a path into
``models/`` (``tests/architecture/test_model_paths.py``). :func:`model_folder` reads a folder of
the same layout elsewhere (a training run's output, a model to compare).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

#: The folder of the shipped models (inside the ``models`` package, so it ships with it).
MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
#: ``CardEmbedder()``'s default: the first card embedder (other games' galleries are built with it).
DEFAULT_MODEL = "card_embedder_v1"
#: The Reptile Tank reader's embedder (second generation: look-alike faces, quarter turns, small
#: photos); the reader, enrolment and the fitted confidence use it.
READER_MODEL = "card_embedder_v2"

ONNX_FILE = "model.onnx"
METADATA_FILE = "model.json"
CARD_FILE = "MODEL_CARD.md"
CONFIDENCE_FILE = "confidence.json"
STAND_IN = "stand_in"


@dataclass(frozen=True)
class ModelFiles:
    """The files of one model folder (they need not exist: a recipe writes them here)."""

    folder: Path

    @property
    def name(self) -> str:
        return self.folder.name

    @property
    def onnx(self) -> Path:
        return self.folder / ONNX_FILE

    @property
    def metadata(self) -> Path:
        return self.folder / METADATA_FILE

    @property
    def card(self) -> Path:
        return self.folder / CARD_FILE

    @property
    def confidence(self) -> Path:
        return self.folder / CONFIDENCE_FILE

    def gallery(self, deck: str = STAND_IN) -> Path:
        """The gallery of ``deck`` built with this model (default: the stand-in deck's)."""
        if not deck or "/" in deck or "\\" in deck or deck.startswith("."):
            raise ValueError(f"not a gallery name: {deck!r}")
        return self.folder / f"{deck}_gallery.npz"


def model_files(name: str) -> ModelFiles:
    """The files of the shipped model ``name`` (a folder name under :data:`MODELS_DIR`)."""
    if not name or "/" in name or "\\" in name or name.startswith("."):
        raise ValueError(f"not a model name: {name!r}")
    return ModelFiles(MODELS_DIR / name)


def model_folder(folder: str | Path) -> ModelFiles:
    """The files of a model folder of the same layout anywhere (a training run's ``--out``)."""
    return ModelFiles(Path(folder))


def shipped_models() -> list[str]:
    """The names of the model folders under :data:`MODELS_DIR`, sorted."""
    return sorted(
        p.name for p in MODELS_DIR.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))
    )
