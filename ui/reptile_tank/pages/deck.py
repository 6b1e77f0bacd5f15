"""Page 9 — My deck: enrol the real cards from the phone, so the reader knows this printing.

Lay the 16 different faces out in the terrarium grid (any order, all at once or a few at a
time), photograph them, and tap a name under each card found; the cards are cut out
(:mod:`service.reptile_tank.deck`) and the night's deck pack is built with the shipped
embedder. Files named after a card id (``rock.jpg``) come named. Going back to the bundled deck
is one tap, and so is returning to the enrolled one (the pack is kept).
"""

from __future__ import annotations

import streamlit as st

from scoring.reptile_tank.cards import FACE_LABELS
from service.reptile_tank.deck import (
    PhotoCards,
    cards_in_photo,
    faces_from_names,
    label_from_file_name,
    unsure_named,
)
from ui.reptile_tank import state as S
from ui.reptile_tank.backend import (
    enroll_deck,
    face_thumbnail,
    get_reader,
    night_pack_path,
    pack_dir,
    reader_available,
    use_deck,
    user_pack_path,
)
from ui.reptile_tank.labels import full_name
from ui.reptile_tank.widgets import flash_ui

KEY_FILES = "deck_files"
KEY_BUILD = "deck_build"
KEY_BUNDLED = "deck_use_bundled"
KEY_ENROLLED = "deck_use_enrolled"
PHOTO_TYPES = ["jpg", "jpeg", "png", "webp", "heic", "heif"]


@st.cache_data(show_spinner=False, max_entries=32)
def _cards_in_photo(name: str, data: bytes) -> PhotoCards:
    try:  # the grid Photograph reads, for photos where the grid finder alone finds none
        reader = get_reader() if reader_available() else None
    except OSError:  # no model installed: the cards' own outlines and the grid finder only
        reader = None
    return cards_in_photo(name, data, reader=reader)


def name_key(photo: PhotoCards, index: int) -> str:
    """Widget key of the name picker under card ``index`` of ``photo``."""
    return f"deck_name_{photo.digest[:16]}_{index}"


def deck_switch_ui() -> None:
    """Which deck the night uses, and the one tap that switches."""
    enrolled = pack_dir() is not None
    uid = st.session_state.get(S.NIGHT_UID)
    has_pack = uid is not None and (night_pack_path(uid) / "pack.json").is_file()
    if enrolled:
        st.write("In use: **your enrolled deck**.")
        if st.button("Use the bundled deck", key=KEY_BUNDLED, icon="↩"):
            use_deck("bundled")
            st.session_state[S.FLASH] = "Back to the bundled deck (your enrolled deck is kept)."
            st.rerun()
    else:
        st.write("In use: the bundled stand-in deck.")
        if has_pack and st.button("Use my enrolled deck", key=KEY_ENROLLED, icon="🃏"):
            use_deck("enrolled")
            st.session_state[S.FLASH] = "Your enrolled deck is in use again."
            st.rerun()


def card_names_ui(photos: list[PhotoCards]) -> dict[tuple[str, int], str | None]:
    """Each card found, with a name picker under it; returns the names chosen."""
    names: dict[tuple[str, int], str | None] = {}
    grid = st.grid("auto", min_column_width=96, gap="small")
    for photo in photos:
        for i, card in enumerate(photo.cards):
            key = name_key(photo, i)
            suggested = photo.suggested[i] if i < len(photo.suggested) else None
            crossed = i < len(photo.crossed) and photo.crossed[i]
            with grid.cell():
                st.image(card, width="stretch", caption="⚠ covered?" if crossed else None)
                names[(photo.digest, i)] = st.selectbox(
                    f"Card {i + 1} of {photo.name}",
                    FACE_LABELS,
                    index=FACE_LABELS.index(suggested) if suggested else None,
                    format_func=full_name,
                    placeholder="Name?",
                    label_visibility="collapsed",
                    filter_mode=None,
                    key=key,
                )
    return names


def deck_ui() -> None:
    st.title("🃏 My deck")
    flash_ui(st.session_state)
    try:
        target = user_pack_path()
    except ValueError:
        st.info("Pick a game night on Game setup first: a deck belongs to a game night.")
        return
    deck_switch_ui()
    st.markdown(
        "**Enrol your own cards:** lay the 16 different faces (15 cards and one Water back) "
        "face up in the terrarium's 4 × 5 grid, in any order, and photograph them from "
        "above. A few at a time works too: several photos, each with the grid's four corner "
        "places filled, or one card per photo. Then tap a name under each card."
    )
    files = st.file_uploader(
        "Photos of your cards", type=PHOTO_TYPES, accept_multiple_files=True, key=KEY_FILES
    )
    photos: list[PhotoCards] = []
    seen: dict[str, str] = {}
    with st.spinner("Finding the cards…"):
        for upload in files or []:
            photo = _cards_in_photo(upload.name, upload.getvalue())
            if photo.digest in seen:
                st.caption(f"{upload.name}: the same photo as {seen[photo.digest]}; skipped.")
                continue
            seen[photo.digest] = upload.name
            photos.append(photo)
    for photo in photos:
        if photo.problem:
            st.warning(photo.problem)
        else:
            st.caption(photo.how)
    photos = [p for p in photos if p.cards]
    if not photos:
        faces_in_use_ui()
        return
    names = card_names_ui(photos)
    faces, views, unnamed = faces_from_names(photos, names)
    for label, more in views.items():
        n = len(more)
        others = "the other is another view" if n == 1 else f"the other {n} are views"
        st.caption(
            f"{full_name(label)} is chosen for {len(more) + 1} cards: the first is its face, "
            f"{others} of it."
        )
    missing = [label for label in FACE_LABELS if label not in faces]
    if missing:
        st.info(
            f"{len(faces)} of {len(FACE_LABELS)} faces named. Still to name: "
            + ", ".join(full_name(label) for label in missing)
            + "."
        )
    elif unnamed:  # every face is named: the cards left without a name are extras
        for photo in photos:
            left = sum(1 for i in range(len(photo.cards)) if names.get((photo.digest, i)) is None)
            if left and label_from_file_name(photo.name) is None:
                st.warning(
                    f"{photo.name}: not named after a card id and no name tapped: "
                    f"{left} card(s) left out."
                )
    if st.button("Build my deck", type="primary", key=KEY_BUILD, disabled=bool(missing)):
        with st.spinner("Building the deck's gallery…"):
            try:
                unsure = enroll_deck(faces, target, views=views, unsure=unsure_named(photos, faces))
            except ValueError as error:
                st.error(str(error))
                return
        st.session_state[S.FLASH] = "Deck enrolled: new photos use your cards." + _unsure_note(
            unsure
        )
        st.rerun()


def _unsure_note(unsure: list[str]) -> str:
    """What the player is told after enrolling about the faces named unsure (a thumb over the
    card, glare washing it out): photograph them again; their reads are flagged until then."""
    if not unsure:
        return ""
    them = "it" if len(unsure) == 1 else "them"
    return (
        f" {', '.join(full_name(label) for label in unsure)}: covered or washed out by glare in "
        f"the photo; photograph {them} again (light from the side, no shine on the sleeves). "
        f"Until then, cards read as or close to {them} are marked to check."
    )


def faces_in_use_ui() -> None:
    """The 16 faces of the deck in use (the enrolled ones, or the stand-in deck's)."""
    with st.expander("Faces of the deck in use"):
        grid = st.grid("auto", min_column_width=84, gap="small")
        for label in FACE_LABELS:
            with grid.cell():
                st.image(face_thumbnail(label), caption=full_name(label), width="stretch")


deck_ui()
