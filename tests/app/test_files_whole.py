"""Files written whole or not at all (issue 29 item 7 and the paths of item 8): a full disk
during either deck enrolment is one clear message and the previous deck is intact; a game
night id with ``../`` or a symlinked deck folder is refused; the write succeeds once space
returns."""

from __future__ import annotations

import errno
import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from common.safe_write import FolderWriteError, child_folder, replace_folder
from scoring.reptile_tank.cards import FACE_LABELS


def full_disk(*_args, **_kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def previous_deck(folder: Path) -> dict[str, bytes]:
    (folder / "faces").mkdir(parents=True)
    (folder / "faces" / "rock.png").write_bytes(b"old rock face")
    (folder / "pack.json").write_text('{"name": "old"}\n')
    return snapshot(folder)


def test_replace_folder_keeps_the_old_folder_on_a_full_disk_then_swaps_whole(tmp_path):
    folder = tmp_path / "deck"
    before = previous_deck(folder)

    def half_then_full(new: Path) -> None:
        new.mkdir()
        (new / "pack.json").write_text("{}")
        full_disk()

    with pytest.raises(FolderWriteError, match="the disk is full; the previous one is kept"):
        replace_folder(folder, half_then_full, what="the deck")
    assert snapshot(folder) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deck"]  # no temporary left

    def whole(new: Path) -> str:
        new.mkdir()
        (new / "pack.json").write_text('{"name": "new"}')
        return "built"

    assert replace_folder(folder, whole, what="the deck") == "built"
    assert snapshot(folder) == {"pack.json": b'{"name": "new"}'}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deck"]


def test_a_night_id_with_dots_or_a_symlinked_deck_folder_is_refused(tmp_path, monkeypatch):
    from ui.nimalia import backend as nimalia_backend
    from ui.reptile_tank import backend

    monkeypatch.setenv("REPTILE_TANK_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("REPTILE_TANK_PACK", raising=False)
    for bad in ("../../etc", "a/b", "..", "", "x" * 81, ".hidden"):
        with pytest.raises(ValueError, match="cannot name a folder"):
            backend.night_pack_path(bad)
        with pytest.raises(ValueError, match="cannot name a folder"):
            nimalia_backend.nimalia_pack_path(bad)
    good = backend.night_pack_path("0123abcd")
    assert good == tmp_path / "home" / "decks" / "night-0123abcd"
    # another night's folder (or a folder outside) linked in: refused, never written through
    other = tmp_path / "home" / "decks" / "night-other"
    other.mkdir(parents=True)
    (tmp_path / "home" / "decks" / "night-linked").symlink_to(other)
    with pytest.raises(ValueError, match="symbolic link"):
        backend.night_pack_path("linked")
    with pytest.raises(FolderWriteError, match="symbolic link"):
        replace_folder(tmp_path / "home" / "decks" / "night-linked", lambda p: p.mkdir())
    (tmp_path / "home" / "nimalia-decks").symlink_to(tmp_path)
    with pytest.raises(ValueError, match="symbolic link"):
        nimalia_backend.nimalia_pack_path("abc")
    with pytest.raises(FolderWriteError):
        child_folder(tmp_path, "..", "x")


def stand_in_faces() -> dict[str, np.ndarray]:
    from vision.reptile_tank.synth.deck import stand_in_deck

    return {k: np.asarray(v) for k, v in stand_in_deck(px_per_mm=2.0).items()}


def test_reptile_tank_enrolment_on_a_full_disk_says_so_and_keeps_the_deck(tmp_path, monkeypatch):
    import cv2

    from ui.reptile_tank import backend

    folder = tmp_path / "decks" / "night-abc"
    before = previous_deck(folder)
    monkeypatch.setattr(cv2, "imwrite", lambda *_a, **_k: False)  # OpenCV's full disk: False
    with pytest.raises(ValueError, match="could not be written.*previous one is kept") as caught:
        backend.enroll_deck(stand_in_faces(), folder)
    assert "\n" not in str(caught.value)
    assert snapshot(folder) == before
    assert sorted(p.name for p in folder.parent.iterdir()) == ["night-abc"]


def _png(rgb: np.ndarray) -> bytes:
    out = io.BytesIO()
    Image.fromarray(rgb).save(out, format="PNG")
    return out.getvalue()


@pytest.fixture(scope="module")
def nimalia_files() -> list[tuple[str, bytes]]:
    from vision.nimalia.deck import STYLES, render_deck

    deck = render_deck(STYLES["variant"], px_per_mm=3.0)
    return [(f"{cid}.png", _png(rgb)) for cid, rgb in sorted(deck.items())]


def test_nimalia_enrolment_on_a_full_disk_says_so_and_keeps_the_deck(
    tmp_path, monkeypatch, nimalia_files
):
    import cv2

    from service.nimalia import deck as D
    from vision.reptile_tank.classifier import DEFAULT_MODEL

    if not DEFAULT_MODEL.exists():
        pytest.skip("the Nimalia reader's model is missing")
    folder = tmp_path / "nimalia-decks" / "night-abc"
    before = previous_deck(folder)
    monkeypatch.setattr(cv2, "imwrite", full_disk)
    with pytest.raises(ValueError) as caught:
        D.enroll(nimalia_files, folder)
    message = str(caught.value)
    assert message.startswith("Cannot enrol this deck:") and "the disk is full" in message
    assert "previous one is kept" in message and "\n" not in message
    assert snapshot(folder) == before


@pytest.mark.slow
def test_both_enrolments_succeed_once_space_returns(tmp_path, monkeypatch, nimalia_files):
    """The real builds after a failed one: the new deck replaces the old one whole."""
    from service.nimalia import deck as D
    from ui.reptile_tank import backend
    from vision.reptile_tank.gallery import DeckPack

    folder = tmp_path / "decks" / "night-abc"
    previous_deck(folder)
    backend.enroll_deck(stand_in_faces(), folder)
    pack = DeckPack.load(folder)
    assert sorted(pack.faces) == sorted(FACE_LABELS) and pack.name == "night-abc"
    nimalia = tmp_path / "nimalia-decks" / "night-abc"
    previous_deck(nimalia)
    D.enroll(nimalia_files, nimalia)
    assert D.has_pack(nimalia) and not (nimalia / "faces" / "rock.png").exists()
