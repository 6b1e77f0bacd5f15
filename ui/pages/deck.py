"""Page 9 — My deck: enrol the real cards, one image per face, so the reader knows them.

Upload 16 images named ``<card id>.<ext>`` (``water.png`` for the card back): a scan or a
straight photo of each face. The deck pack is built with the shipped embedder and used for every
later photo in this app (the reader is reloaded for the new pack).
"""

from __future__ import annotations

import streamlit as st

from scoring.cards import FACE_LABELS
from ui.backend import enroll_deck, face_thumbnail, pack_dir, user_pack_path
from ui.deck import faces_from_uploads
from ui.labels import full_name
from ui.widgets import flash_ui

KEY_FILES = "deck_files"


def deck_ui() -> None:
    st.title("🃏 My deck")
    flash_ui(st.session_state)
    current = pack_dir()
    st.write("In use: **your enrolled deck**" if current else "In use: the bundled stand-in deck.")
    st.caption(
        "Upload one image per face, named after the card id (e.g. `rock.jpg`, `water.png` for "
        "the card back). Scans or straight photos, one card each. The faces below are in the "
        "enrolment order: `reptile-tank enroll --from-layout` reads one photo of all 16 laid "
        "out in a 4 x 5 grid in this order, row by row."
    )
    files = st.file_uploader(
        "Card faces",
        type=["jpg", "jpeg", "png", "webp", "heic"],
        accept_multiple_files=True,
        key=KEY_FILES,
    )
    uploads = {f.name: f.getvalue() for f in files or []}
    faces, problems = faces_from_uploads(uploads)
    for problem in problems:
        st.warning(problem)
    missing = [label for label in FACE_LABELS if label not in faces]
    grid = st.grid("auto", min_column_width=84, gap="small")
    for label in FACE_LABELS:
        with grid.cell():
            if label in faces:
                st.image(faces[label], caption=f"✓ {full_name(label)}", width="stretch")
            else:
                thumb = face_thumbnail(label)
                st.image(thumb, caption=f"missing: {full_name(label)}", width="stretch")
    if st.button("Build my deck", type="primary", key="deck_build", disabled=bool(missing)):
        with st.spinner("Building the deck's gallery…"):
            try:
                enroll_deck(faces, user_pack_path())
            except ValueError as error:
                st.error(str(error))
                return
        st.session_state["rt_flash"] = "Deck enrolled: new photos use your cards."
        st.rerun()
    if missing:
        st.caption(f"{len(missing)} face(s) still missing.")


deck_ui()
