"""The service layer is the only door to vision (issue 30): the app (``ui/``, ``app.py``) and the
command line (``reptile_tank/``) read photos, score, save and enrol through ``service/``, never
by importing ``vision`` themselves. Every ``import`` counts, lazy ones too (the edges of
:mod:`test_import_graph`).

:data:`KNOWN` lists the CLI modules that still import vision, each with why: tools whose
subject is the vision pipeline itself (measuring it, or generating its synthetic data), not a
service job. The test fails when a module not listed imports vision, and when a listed one
stops (shorten the list).
"""

from __future__ import annotations

from test_import_graph import edges

#: The app's and the command line's folders (and ``app.py``), as paths from the project root.
APP_FOLDERS = ("ui/", "reptile_tank/")

#: CLI modules allowed to import vision, and why.
KNOWN: dict[str, str] = {
    "reptile_tank/commands/bench.py": "a measurement tool: it builds its reader "
    "(service.reptile_tank.reading.make_reader) and scores (service.reptile_tank.scoring) "
    "through service and reads each photo with that reader (the step it times), then "
    "measures the vision pipeline itself against synthetic ground truth "
    "(corner errors, visible lattice), with classical baselines (largest-contour grid, colour "
    "histograms on augmented crops) and a reference reader with another embedder: none of it "
    "is a job the app or the CLI does for a player",
    "reptile_tank/commands/synth.py": "the synthetic data generator (reptile-tank synth, deck "
    "export, deck pdf): its subject is vision's renderer of synthetic photos and stand-in "
    "faces (vision.reptile_tank.synth), a developer's data tool, not a read, score, save or "
    "enrolment",
    "reptile_tank/commands/train.py": "the training command (reptile-tank train): it names the "
    "model folder the recipe writes (vision.models.model_files), a developer's tool, not a "
    "player's read, score, save or enrolment",
}


def _in_app_or_cli(rel: str) -> bool:
    return rel == "app.py" or rel.startswith(APP_FOLDERS)


def vision_imports() -> dict[str, list[str]]:
    """``{module path: [vision modules it imports]}`` for the app's and the CLI's modules."""
    out: dict[str, set[str]] = {}
    for rel, module in edges():
        if _in_app_or_cli(rel) and (module == "vision" or module.startswith("vision.")):
            out.setdefault(rel, set()).add(module)
    return {rel: sorted(modules) for rel, modules in sorted(out.items())}


def test_the_app_and_the_cli_reach_vision_only_through_service():
    new = {rel: mods for rel, mods in vision_imports().items() if rel not in KNOWN}
    assert not new, f"import vision through service/, not directly: {new}"


def test_the_known_list_is_no_longer_than_it_must_be():
    stale = sorted(set(KNOWN) - set(vision_imports()))
    assert not stale, f"drop from KNOWN: {stale}"


def test_the_check_sees_the_app_and_the_cli():
    assert _in_app_or_cli("ui/nimalia/page.py") and _in_app_or_cli("app.py")
    assert _in_app_or_cli("reptile_tank/commands/nimalia_photo.py")
    assert not _in_app_or_cli("service/nimalia/reading.py")
    assert not _in_app_or_cli("vision/loading.py")
    seen = {rel for rel, _module in edges()}
    assert {"app.py", "ui/nimalia/page.py", "reptile_tank/commands/photo.py"} <= seen
    # the service modules the app and the CLI now go through do import vision (the door is
    # real, not a rename)
    assert ("service/nimalia/reading.py", "vision.nimalia.reader") in edges()
