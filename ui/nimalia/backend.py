"""Nimalia's doors to the backends: the night's enrolled deck pack and the deck choice (the
shared doors, storage and night settings, are :mod:`ui.backend`'s)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ui import state as S
from ui.backend import night_settings, save_night_settings, user_data_dir

#: This game's id in the game list (its deck choice in the night settings).
GAME_ID = "nimalia"


def nimalia_pack_path(session_uid: str) -> Path:
    """Where a game night's enrolled Nimalia deck pack lives (one folder per night, on this
    server's disk under the user data dir; apart from the night's Reptile Tank deck)."""
    from common.safe_write import check_name, child_folder

    check_name(session_uid, what="game night id")
    return child_folder(
        user_data_dir(), "nimalia-decks", f"night-{session_uid}", what="the Nimalia deck folder"
    )


def nimalia_deck_choice() -> str:
    """This night's Nimalia deck choice: ``"enrolled"`` or ``"bundled"`` (the stand-in deck)."""
    return night_settings().deck_of(GAME_ID) if st.session_state.get(S.NIGHT_UID) else "bundled"


def nimalia_pack() -> str | None:
    """The pack the Nimalia reader reads this night's photos with, or ``None`` for the
    stand-in deck (the night's choice, ``nimalia_deck``; an enrolled pack is kept either way).
    ``ValueError`` when the night chose its enrolled deck and this server does not hold it."""
    from service.nimalia.deck import pack_to_read

    session_uid = st.session_state.get(S.NIGHT_UID)
    if session_uid is None:
        return None
    return pack_to_read(nimalia_pack_path(session_uid), night_settings().deck_of(GAME_ID))


def use_nimalia_deck(deck: str) -> None:
    """Switch this game night's Nimalia reads to ``"bundled"`` (stand-in) or ``"enrolled"``."""
    save_night_settings(night_settings().with_deck(GAME_ID, deck))


def enroll_nimalia_deck(files: list[tuple[str, bytes]]) -> float:
    """Enrol this night's Nimalia pack from uploaded ``(name, bytes)`` card images and use it;
    returns the seconds it took. ``ValueError`` (one message) when refused."""
    from service.nimalia.deck import enroll

    session_uid = st.session_state.get(S.NIGHT_UID)
    if session_uid is None:
        raise ValueError("Pick a game night first: a deck belongs to a game night.")
    _folder, seconds = enroll(files, nimalia_pack_path(session_uid))
    use_nimalia_deck("enrolled")
    return seconds
