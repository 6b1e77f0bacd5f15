"""The night's own Nimalia deck section: which deck photos are read with, the one tap that
switches, and enrolling the 60 card images (:mod:`service.nimalia.deck`)."""

from __future__ import annotations

import streamlit as st

from ui import state as S
from ui.nimalia.backend import (
    enroll_nimalia_deck,
    nimalia_deck_choice,
    nimalia_pack_path,
    use_nimalia_deck,
)
from ui.text import escape_markdown

#: Widget keys of the night's Nimalia deck section.
KEY_DECK_FILES = "nim_deck_files"
KEY_DECK_ENROL = "nim_deck_enrol"
KEY_DECK_BUNDLED = "nim_deck_bundled"
KEY_DECK_ENROLLED = "nim_deck_enrolled"


def nimalia_deck_ui() -> None:
    """The night's own Nimalia deck: which deck photos are read with, the one tap that
    switches, and enrolling the 60 card images (:mod:`service.nimalia.deck`)."""
    from service.nimalia.deck import CARDS, ENROL_SECONDS, PACK_MISSING, has_pack

    uid = st.session_state.get(S.NIGHT_UID)
    if uid is None:
        return
    with st.expander("Your Nimalia deck"):
        if nimalia_deck_choice() == "enrolled":
            st.write("Photos are read with **your enrolled Nimalia deck**.")
            if not has_pack(nimalia_pack_path(uid)):
                st.warning(PACK_MISSING)
            if st.button("Use the stand-in deck", key=KEY_DECK_BUNDLED, icon="↩"):
                use_nimalia_deck("bundled")
                st.session_state[S.FLASH] = "Back to the stand-in deck (your deck is kept)."
                st.rerun()
        else:
            st.write("Photos are read with the stand-in deck.")
            if has_pack(nimalia_pack_path(uid)) and st.button(
                "Use my enrolled deck", key=KEY_DECK_ENROLLED, icon="🃏"
            ):
                use_nimalia_deck("enrolled")
                st.session_state[S.FLASH] = "Your enrolled Nimalia deck is in use again."
                st.rerun()
        st.caption(
            f"Enrol your printing: one upright, unturned image of each of the {CARDS} cards, "
            f"named after its id as the rules' reference numbers them (`1.png` … `{CARDS}.png`, "
            f"or .jpg): a scan cropped to the card, or a photo of the card alone on a plain, "
            f"contrasting surface. Building the deck takes {ENROL_SECONDS}."
        )
        files = st.file_uploader(
            f"The {CARDS} card images",
            type=["png", "jpg", "jpeg"],
            accept_multiple_files=True,
            key=KEY_DECK_FILES,
        )
        if st.button("Enrol my deck", key=KEY_DECK_ENROL, disabled=not files):
            try:
                with st.spinner(f"Building your deck's gallery ({ENROL_SECONDS})…"):
                    seconds = enroll_nimalia_deck([(f.name, f.getvalue()) for f in files])
            except ValueError as error:
                st.error(escape_markdown(str(error)))
                return
            st.session_state[S.FLASH] = (
                f"Deck enrolled in {seconds:.0f} s: new photos are read with your cards."
            )
            st.rerun()
