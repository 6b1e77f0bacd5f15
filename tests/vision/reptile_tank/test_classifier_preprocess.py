"""The embedder's input: crops of another size are area-resized exactly as one by one."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.embedder import DEFAULT_MODEL, CardEmbedder


@pytest.mark.parametrize("n", [1, 5, 97])
@pytest.mark.parametrize("side", [64, 57])
def test_batched_resize_equals_crop_by_crop(n, side):
    if not DEFAULT_MODEL.exists():
        pytest.skip("no shipped embedder")
    emb = CardEmbedder(DEFAULT_MODEL)
    width, height = emb.input_size
    rng = np.random.default_rng(n * side)
    crops = rng.integers(0, 256, (n, side, side, 3), dtype=np.uint8)
    one_by_one = np.stack(
        [cv2.resize(c, (width, height), interpolation=cv2.INTER_AREA) for c in crops]
    )
    expected = one_by_one.astype(np.float32).transpose(0, 3, 1, 2) * emb._scale
    expected = (expected - emb._mean) / emb._std
    assert np.array_equal(emb.preprocess(crops), expected)
