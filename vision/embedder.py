"""The card embedder: a shipped ONNX network (``models/<name>/model.onnx``,
:func:`vision.models.model_files`) run with onnxruntime on the CPU, turning card crops into unit
vectors. Its preprocessing (input size, channel order, normalisation) is read from the metadata
file beside it (``model.json``), never re-typed here. Game-blind: every game's readers and
galleries embed with it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import cv2
import numpy as np

from vision import models
from vision.models import model_files

#: The first shipped embedder's ``.onnx`` file, ``CardEmbedder()``'s default (galleries of
#: several games are built with it); its metadata file has the same stem and a ``.json``. From
#: :func:`vision.models.model_files`, like every path into ``models/``.
DEFAULT_MODEL = model_files(models.DEFAULT_MODEL).onnx


class ModelFileError(OSError):
    """The embedder's ONNX file or its metadata is missing or unreadable."""


class CardEmbedder:
    """The card embedder: (N, H, W, 3) uint8 RGB crops → (N, D) L2-normalised float32.

    Parameters
    ----------
    model_path : path, optional
        The ``.onnx`` file; :data:`DEFAULT_MODEL` (``models/card_embedder_v1/model.onnx``) by
        default. Its metadata ``<stem>.json`` must sit beside it.
    threads : int
        onnxruntime's intra-op threads (1 = one CPU core, as the benchmarks measure).
    """

    def __init__(self, model_path: str | Path | None = None, *, threads: int = 1) -> None:
        import onnxruntime as ort

        path = Path(model_path) if model_path is not None else DEFAULT_MODEL
        meta_path = path.with_suffix(".json")
        if not path.is_file():
            raise ModelFileError(f"embedder model not found: {path}")
        if not meta_path.is_file():
            raise ModelFileError(f"embedder metadata not found: {meta_path}")
        self.path = path
        self.metadata = json.loads(meta_path.read_text())
        spec = self.metadata["input"]
        if spec["channel_order"] != "RGB" or spec["layout"] != "NCHW":
            raise ModelFileError(f"{meta_path}: expected RGB NCHW input, got {spec}")
        self.input_size: tuple[int, int] = (int(spec["width"]), int(spec["height"]))
        self.embedding_dim = int(self.metadata["embedding_dim"])
        self._scale = float(spec["scale"])
        self._mean = np.asarray(spec["mean"], np.float32).reshape(1, 3, 1, 1)
        self._std = np.asarray(spec["std"], np.float32).reshape(1, 3, 1, 1)
        self.model_id = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        options = ort.SessionOptions()
        options.intra_op_num_threads = max(int(threads), 1)
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self._input_name = self.session.get_inputs()[0].name

    def preprocess(self, crops: np.ndarray) -> np.ndarray:
        """(N, H, W, 3) uint8 RGB → (N, 3, h, w) float32 normalised network input.

        Crops of another size are resized (area interpolation) to the model's input size.
        """
        crops = np.asarray(crops)
        if crops.ndim != 4 or crops.shape[-1] != 3:
            raise ValueError(f"crops must be (N, H, W, 3) RGB, got shape {crops.shape}")
        width, height = self.input_size
        if crops.shape[1:3] != (height, width):
            # one resize of the crops stacked into a column: area interpolation never mixes
            # rows across the crops' borders (they map exactly onto output rows), so this equals
            # resizing crop by crop (tested), in one call
            n, h, w = crops.shape[:3]
            column = np.ascontiguousarray(crops).reshape(n * h, w, 3)
            crops = cv2.resize(column, (width, n * height), interpolation=cv2.INTER_AREA).reshape(
                n, height, width, 3
            )
        batch = crops.astype(np.float32).transpose(0, 3, 1, 2) * self._scale
        return (batch - self._mean) / self._std

    def embed(self, crops: np.ndarray) -> np.ndarray:
        """Embed crops in one batch.

        Parameters
        ----------
        crops : (N, H, W, 3) uint8 RGB

        Returns
        -------
        (N, D) float32, each row of unit length
        """
        if len(crops) == 0:
            return np.zeros((0, self.embedding_dim), np.float32)
        (out,) = self.session.run(None, {self._input_name: self.preprocess(crops)})
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return (out / np.maximum(norms, 1e-8)).astype(np.float32)
