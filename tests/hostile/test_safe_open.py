"""Files that are not regular files, or far too large, given to the command line (issue 16).

A symlink to ``/dev/zero`` or ``/dev/urandom`` was read without end (MemoryError at 7.5 GB), a
FIFO hung forever, a 4 GB sparse file cost 4.2 GB RSS and 11 s before "not an image". Each
is now refused before any byte is read: one line, exit 2, well under a second of CPU.
"""

from __future__ import annotations

import json
import os
import time

import pytest

from common import safe_io
from common.safe_io import SafeFileError
from tests.hostile.conftest import assert_clean_refusal, run_cli
from tests.hostile.fuzzing import VALID

#: CPU seconds a refusal of a special file may cost the CLI child (imports included).
REFUSAL_CPU_S = 5.0


def special_files(tmp_path):
    """name -> (path, fragment of the one-line refusal)."""
    files = {}
    zero = tmp_path / "zero.jpg"
    zero.symlink_to("/dev/zero")
    files["symlink_dev_zero"] = (zero, "character device")
    urandom = tmp_path / "urandom.json"
    urandom.symlink_to("/dev/urandom")
    files["symlink_dev_urandom"] = (urandom, "character device")
    fifo = tmp_path / "fifo.jpg"
    os.mkfifo(fifo)
    files["fifo"] = (fifo, "FIFO")
    sparse = tmp_path / "sparse.jpg"
    with open(sparse, "wb") as handle:
        handle.truncate(4 * 1024**3)  # 4 GB, no block on disk
    files["sparse_4gb"] = (sparse, "limit")
    folder = tmp_path / "folder.jpg"
    folder.mkdir()
    files["folder"] = (folder, "folder")
    return files


NAMES = ["symlink_dev_zero", "symlink_dev_urandom", "fifo", "sparse_4gb", "folder"]


@pytest.mark.parametrize("name", NAMES)
def test_read_bytes_refuses_before_reading(tmp_path, name):
    path, fragment = special_files(tmp_path)[name]
    start = time.process_time()
    with pytest.raises(SafeFileError) as caught:
        safe_io.read_bytes(path, max_bytes=safe_io.MAX_PHOTO_BYTES, what="photo")
    assert time.process_time() - start < 0.5
    message = str(caught.value)
    assert "\n" not in message and str(path) in message and fragment in message


def test_read_bytes_follows_a_link_to_a_regular_file(tmp_path):
    target = tmp_path / "board.json"
    target.write_text("{}")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert safe_io.read_bytes(link) == b"{}"


def test_read_bytes_bounds_a_file_reporting_size_zero():
    # /proc files report st_size 0; the read itself stops at max_bytes + 1.
    with pytest.raises(SafeFileError, match="grew over"):
        safe_io.read_bytes("/proc/self/maps", max_bytes=16)


def test_missing_file_is_one_line(tmp_path):
    with pytest.raises(SafeFileError, match="cannot read the photo: No such file"):
        safe_io.read_bytes(tmp_path / "nope.jpg", what="photo")


@pytest.mark.parametrize("name", NAMES)
def test_score_refuses_special_files_in_one_line(tmp_path, name, embedder):
    path, fragment = special_files(tmp_path)[name]
    run = run_cli("score", str(path), embedder=embedder)
    assert_clean_refusal(run, fragment, str(path))
    assert run.cpu_s < REFUSAL_CPU_S and run.max_rss_mb < 600, run


@pytest.mark.parametrize("command", ["score-grid", "score-game", "solo"])
@pytest.mark.parametrize("name", NAMES)
def test_document_commands_refuse_special_files(tmp_path, command, name):
    path, fragment = special_files(tmp_path)[name]
    run = run_cli(command, str(path))
    assert_clean_refusal(run, fragment, str(path))
    assert run.cpu_s < REFUSAL_CPU_S and run.max_rss_mb < 600, run


@pytest.mark.parametrize("name", ["symlink_dev_zero", "fifo", "sparse_4gb"])
def test_rules_option_refuses_special_files(tmp_path, name):
    path, fragment = special_files(tmp_path)[name]
    board = tmp_path / "board.json"
    board.write_text(json.dumps(VALID["grid"]))
    run = run_cli("score-grid", str(board), "--rules", str(path))
    assert_clean_refusal(run, fragment, str(path))
    assert run.cpu_s < REFUSAL_CPU_S, run


# ----------------------------------------------------------------------------- documents


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("[" * 100_000, "nested too deeply"),
        ("[" * 65 + "]" * 65, "nested 65 deep"),
        ('{"a": ' + "9" * 5000 + "}", "integer of 5000 digits"),
        ('{"a": NaN}', "NaN"),
        ('{"a": 1e999}', "out of range"),
        ("{", "invalid JSON at line 1"),
    ],
)
def test_parse_json_is_bounded(text, fragment):
    with pytest.raises(SafeFileError) as caught:
        safe_io.parse_json(text, where="doc.json")
    assert fragment in str(caught.value) and "doc.json" in str(caught.value)


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("a = " + "[" * 100_000, "nested too deeply"),
        ("a = " + "[" * 65 + "]" * 65, "nested 66 deep"),
        ("a = " + "{b = " * 70 + "1" + "}" * 70, "deep"),
    ],
)
def test_parse_toml_is_bounded(text, fragment):
    with pytest.raises(SafeFileError) as caught:
        safe_io.parse_toml(text, where="rules.toml")
    assert fragment in str(caught.value) and "rules.toml" in str(caught.value)


def test_depth_is_iterative():
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    assert safe_io.depth(deep) == 100_001
