"""The Nimalia bench's command line: frozen sets and fresh seeds."""

from __future__ import annotations

import argparse
import json

import pytest

from vision.nimalia.bench import fresh_set, main


def test_a_fresh_set_is_a_style_and_a_seed_range():
    spec = fresh_set("painted:1200000:80")
    assert (spec.style, spec.seeds, spec.pack) == ("painted", range(1200000, 1200080), "enrolled")
    assert fresh_set("stand-in:7:3").pack is None  # the stand-in deck's own gallery
    for bad in ("painted:1200000", "oils:1:2", "painted:a:2", "painted:5:0"):
        with pytest.raises(argparse.ArgumentTypeError):
            fresh_set(bad)


@pytest.mark.slow
def test_the_bench_reads_fresh_seeds(tmp_path):
    out = tmp_path / "r.json"
    assert main(["--fresh", "stand-in:3:1", "--out", str(out)]) == 0
    result = json.loads(out.read_text())["fresh-stand-in-3"]
    assert [scene["seed"] for scene in result["scenes"]] == [3]
    assert result["summary"]["found"] == 1.0  # seed 3 is read right (test_reader's SEEDS)


def test_the_bench_needs_a_set(capsys):
    with pytest.raises(SystemExit):
        main(["--out", "r.json"])
    assert "give at least one --set or --fresh" in capsys.readouterr().err
