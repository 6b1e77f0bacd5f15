"""Fixtures of the hostile-input tests: the generated corpus, an embedder, and a bounded CLI run.

The photo pipeline needs the trained embedder (``models/card_embedder_v1/``). Where it has not
been trained yet, a *stand-in embedder* is built here: a real ONNX network (one random
convolution, pooled) with the same input contract, plus its gallery of the stand-in deck. It
cannot name cards, but the loader and the grid finder (what hostile files exercise) run for real;
tests that need correct card names skip with a visible reason instead.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from tests.hostile.corpus import build_corpus
from vision.models import DEFAULT_MODEL, model_files, model_folder

REPO = Path(__file__).resolve().parents[2]
TRAINED_MODEL = model_files(DEFAULT_MODEL).onnx
TRAINED_GALLERY = model_files(DEFAULT_MODEL).gallery()

#: Address-space cap of every CLI child (bytes): a decoded bomb would need ~2.7 GB more.
MEMORY_LIMIT = 3 * 1024**3
#: Wall-clock cap of one CLI child (s). Generous because the test machine's CPUs are shared;
#: the per-child CPU time, which load does not inflate, is what the tests bound tightly.
WALL_LIMIT_S = float(os.environ.get("HOSTILE_WALL_LIMIT_S", "60"))
#: CPU seconds one CLI child may use (import + load + grid + classify + score).
CPU_LIMIT_S = 8.0


def trained_model_available() -> bool:
    return TRAINED_MODEL.is_file() and TRAINED_GALLERY.is_file()


def build_stand_in_embedder(out_dir: Path) -> tuple[Path, Path]:
    """Write a random-weight ONNX embedder (input contract of the real one) and its gallery.

    Returns
    -------
    model_path, gallery_path : Path
    """
    onnx = pytest.importorskip("onnx", reason="building the stand-in embedder needs onnx")
    from onnx import TensorProto, helper, numpy_helper

    from vision.embedder import CardEmbedder
    from vision.reptile_tank.gallery import Gallery
    from vision.reptile_tank.synth.deck import stand_in_deck

    width, height, dim = 48, 64, 32
    rng = np.random.default_rng(1234)
    weight = rng.normal(0, 0.2, size=(dim, 3, 8, 8)).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["crops", "w"], ["c"], strides=[4, 4]),
            helper.make_node("Relu", ["c"], ["r"]),
            helper.make_node("GlobalAveragePool", ["r"], ["p"]),
            helper.make_node("Flatten", ["p"], ["embedding"]),
        ],
        "stand_in_embedder",
        [helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["batch", 3, height, width])],
        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", dim])],
        [numpy_helper.from_array(weight, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    files = model_folder(out_dir)  # the shipped models' layout (vision.models)
    model_path = files.onnx
    onnx.save(model, str(model_path))
    meta = {
        "input": {
            "name": "crops",
            "layout": "NCHW",
            "channel_order": "RGB",
            "width": width,
            "height": height,
            "dtype": "float32",
            "scale": 1 / 255,
            "mean": [0.5, 0.5, 0.5],
            "std": [0.25, 0.25, 0.25],
        },
        "embedding_dim": dim,
        "note": "random-weight stand-in built by tests/hostile/conftest.py",
    }
    files.metadata.write_text(json.dumps(meta))
    embedder = CardEmbedder(model_path)
    faces = dict(stand_in_deck(px_per_mm=4.0))
    gallery = Gallery.build(embedder, faces, np.random.default_rng(5), views=1, empties=8)
    gallery_path = files.gallery()
    gallery.save(gallery_path)
    return model_path, gallery_path


@dataclass(frozen=True)
class Embedder:
    """Where the CLI and the reader find the embedder; ``trained`` says if it can name cards."""

    model: Path
    gallery: Path
    trained: bool


@pytest.fixture(scope="session")
def embedder(tmp_path_factory) -> Embedder:
    if trained_model_available():
        return Embedder(TRAINED_MODEL, TRAINED_GALLERY, True)
    model, gallery = build_stand_in_embedder(tmp_path_factory.mktemp("stand_in_model"))
    return Embedder(model, gallery, False)


@pytest.fixture(scope="session")
def corpus(tmp_path_factory) -> dict[str, Path]:
    """The hostile corpus (``tests/hostile/corpus.py``), written once per session."""
    return build_corpus(tmp_path_factory.mktemp("hostile_corpus"))


@pytest.fixture(scope="session")
def reader(embedder):
    """A :class:`vision.reptile_tank.reader.TerrariumReader` on ``embedder`` (one per session)."""
    from vision.reptile_tank.reader import TerrariumReader

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("vision.reptile_tank.gallery.DEFAULT_GALLERY", embedder.gallery)
        return TerrariumReader(model_path=embedder.model)


@dataclass(frozen=True)
class CliRun:
    """One finished CLI child: exit status, output and what it cost."""

    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    cpu_s: float
    max_rss_mb: float


#: Every CLI run of the session: (argv tail, CliRun); read by the summary hook.
CLI_RUNS: list[tuple[tuple[str, ...], CliRun]] = []


def _limit_memory() -> None:  # runs in the child between fork and exec
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


#: Prologue of every CLI child: at exit it writes its own peak RSS (``VmHWM``, kB) to the file
#: named by ``PEAK_FILE_ENV``. ``ru_maxrss`` from ``wait4`` cannot be used for this: Linux carries
#: the high-water mark of the address space a child was forked with into ``ru_maxrss`` across
#: ``exec``, so a child of a large pytest process reports the parent's size (the same refusal
#: measured 675 MB late in a full run and ~150 MB alone). ``VmHWM`` belongs to the child's
#: post-``exec`` address space only.
PEAK_FILE_ENV = "REPTILE_TANK_TEST_PEAK_FILE"
_REPORT_PEAK = (
    "import atexit, os, sys\n"
    "def _report_peak():\n"
    "    try:\n"
    "        with open('/proc/self/status') as status:\n"
    "            peak = next(line.split()[1] for line in status if line.startswith('VmHWM:'))\n"
    f"        with open(os.environ['{PEAK_FILE_ENV}'], 'w') as out:\n"
    "            out.write(peak)\n"
    "    except Exception:\n"
    "        pass\n"
    "atexit.register(_report_peak)\n"
)


def cli_command(embedder: Embedder | None) -> list[str]:
    """``reptile-tank``'s ``main`` on the trained model, or on the stand-in model; reports its
    peak."""
    code = _REPORT_PEAK
    if embedder is not None and not embedder.trained:
        code += (
            "import vision.embedder as c, vision.reptile_tank.gallery as g\n"
            "from pathlib import Path\n"
            f"c.DEFAULT_MODEL = Path({str(embedder.model)!r})\n"
            f"g.DEFAULT_GALLERY = Path({str(embedder.gallery)!r})\n"
        )
    code += "from reptile_tank.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    return [sys.executable, "-c", code]


def _vm_hwm_kb(pid: int) -> int:
    """A running child's peak resident memory so far (``VmHWM``), 0 when it is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _reported_peak_kb(path: str) -> int:
    try:
        with open(path, encoding="ascii") as reported:
            return int(reported.read().strip() or 0)
    except (OSError, ValueError):
        return 0


def run_cli(*argv: str, embedder: Embedder | None = None, stdin: str | None = None) -> CliRun:
    """Run ``reptile-tank ARGV`` as a child with a memory cap and a wall-clock limit.

    The child's own CPU time comes from ``os.wait4``; its peak RSS is what it reports at exit,
    or the highest ``VmHWM`` polled while it ran when it was killed first. Output goes through
    files so the child is reaped by ``wait4`` (and not by ``communicate``) without a pipe stall.
    """
    peak_file = tempfile.NamedTemporaryFile(prefix="cli-peak-", delete=False)
    peak_file.close()
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "OMP_NUM_THREADS": "1",
        PEAK_FILE_ENV: peak_file.name,
    }
    env.pop("REPTILE_TANK_DEBUG", None)
    with tempfile.TemporaryFile("w+b") as out, tempfile.TemporaryFile("w+b") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [*cli_command(embedder), *argv],
            cwd=REPO,
            env=env,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            preexec_fn=_limit_memory,
        )
        if stdin is not None:
            proc.stdin.write(stdin.encode("utf-8"))
            proc.stdin.close()
        deadline = start + WALL_LIMIT_S
        peak_kb = 0
        while True:
            peak_kb = max(peak_kb, _vm_hwm_kb(proc.pid))
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                os.wait4(proc.pid, 0)
                proc.returncode = -9
                pytest.fail(f"reptile-tank {' '.join(argv)} did not finish in {WALL_LIMIT_S} s")
            time.sleep(0.02)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", errors="replace")
        stderr = err.read().decode("utf-8", errors="replace")
    peak_kb = max(peak_kb, _reported_peak_kb(peak_file.name))
    os.unlink(peak_file.name)
    run = CliRun(
        proc.returncode,
        stdout,
        stderr,
        wall,
        usage.ru_utime + usage.ru_stime,
        (peak_kb or usage.ru_maxrss) / 1024,
    )
    CLI_RUNS.append((tuple(argv), run))
    return run


def assert_clean_refusal(run: CliRun, *fragments: str) -> str:
    """Exit status 2 and exactly one stderr line ``reptile-tank: error: ...``; returns it."""
    assert "Traceback" not in run.stderr, run.stderr
    assert run.returncode == 2, (run.returncode, run.stderr[-2000:])
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith("reptile-tank: error: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


@pytest.fixture(scope="session", autouse=True)
def cli_cost_report():
    """At the end of the session, write the worst CLI child (wall, CPU, RSS) to the JSON file
    named by ``HOSTILE_REPORT`` (the numbers of RELIABILITY.md)."""
    yield
    import tests.hostile.conftest as shared  # pytest may load this file under another name

    runs = shared.CLI_RUNS
    target = os.environ.get("HOSTILE_REPORT")
    if not target or not runs:
        return
    report = {"cli_runs": len(runs)}
    for field in ("wall_s", "cpu_s", "max_rss_mb"):
        argv, run = max(runs, key=lambda item: getattr(item[1], field))
        report[field] = {"max": round(getattr(run, field), 3), "argv": list(argv)}
    Path(target).write_text(json.dumps(report, indent=1))
