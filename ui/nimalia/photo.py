"""The photo mode: a photo of the reserve (uploaded or taken) read square by square through
:mod:`service.nimalia.reading`, or around one card whose 4 corners the player taps; the read is
merged onto the reserve (only squares newly covered this round change) and the page says
which."""

from __future__ import annotations

import hashlib

import streamlit as st

from service.nimalia import game as N
from service.nimalia import reading
from service.photos import PHOTO_TYPES
from ui.nimalia.backend import nimalia_pack
from ui.nimalia.board import remember_change, snapshot
from ui.nimalia.deck import nimalia_deck_ui
from ui.text import escape_markdown

#: Session keys: the photo being read (decoded) and whether its card corners are asked for.
KEY_CARD_PHOTO = "nim_card_photo"
KEY_TAP_CARD = "nim_tap_card"
CARD_PROMPT = (
    "**Tap the {ordinal} corner of one card** ({placed} of 4 placed, any order): any card whose "
    "4 squares all show, such as the last one laid."
)


def _decode(data: bytes, digest: str):
    """The photo as the reader takes it (:func:`service.nimalia.reading.load_reserve_photo`:
    full size, EXIF orientation applied, decoded once), or None when it is not a picture (the
    page then says so in one error).

    The same photos as Reptile Tank's (JPEG, PNG, WebP, HEIC/HEIF, AVIF, TIFF, up to 64 MB),
    through the same loader; one over its pixel cap is reduced first."""
    try:
        return reading.load_reserve_photo(data, sha256=digest)
    except Exception:  # noqa: BLE001 - a file that is not a picture
        st.error("This file is not a photo the app can open.")
        return None


def put_read(game: dict, player: str, read, where: str, digest: str, text: str) -> None:
    """A photo read (automatic or from a card's corners) onto the player's reserve: only the
    squares newly covered this round change, and the page says which."""
    game.setdefault("photos", {})[where] = digest
    flagged = N.flagged_squares(read)
    before = snapshot(game, player)
    merged = N.merge_read(game, player, read.squares, flagged)
    down, right = merged["offset"]
    game.setdefault("likely", {})[player] = {
        f"{r + down},{c + right}": [t for t, _s in read.cells[r][c].top][:3] for r, c in flagged
    }
    card = [r for r in read.reasons if "card tapped" in r]
    changes = merged["changed"]
    what = "; ".join(
        f"{N.position_name(r, c)}: {N.square_text(old)} → {N.square_text(new)}"
        for r, c, old, new in changes[:8]
    )
    more = f" and {len(changes) - 8} more" if len(changes) > 8 else ""
    text = (
        f"{text}: {len(changes)} square(s) newly covered this round"
        + (f" ({what}{more})" if changes else "")
        + f", {len(N.checks_of(game, player))} to check"
    )
    notes = list(merged["warnings"])
    if merged["kept"]:
        notes.append(
            f"{len(merged['kept'])} square(s) laid in earlier rounds read differently and were "
            "kept as they were (tap one to change it)"
        )
    remember_change(game, player, "; ".join([text, *card, *notes]), before)


def _read_or_explain(label: str, read_photo):
    """Run one photo read under a spinner; on failure say why in one error (the squares can
    still be tapped) and return ``None``."""
    try:
        with st.spinner(label):
            return read_photo()
    except ValueError as error:  # the corners, the night's deck or its pack refused
        st.error(escape_markdown(str(error)))
    except Exception as error:  # noqa: BLE001 - the reader failed: the squares can be tapped
        st.error(f"This photo could not be read ({type(error).__name__}): tap the squares.")
    return None


def card_corners_ui(game: dict, player: str, seat: str, data: bytes, digest: str) -> None:
    """Tap the 4 corners of one card on the photo; the reserve is then read around that card."""
    from ui.corners import corners_ui

    where = f"{player}/{game['round']}"
    kept = st.session_state.get(KEY_CARD_PHOTO)
    if not kept or kept[0] != digest:  # decoded once per photo, not on every tap
        photo = _decode(data, digest)
        if photo is None:
            return
        kept = (digest, N.card_photo(photo.image.rgb, digest))
        st.session_state[KEY_CARD_PHOTO] = kept
    photo = kept[1]
    corners = corners_ui(
        photo,
        key=f"nim_corners_{seat}",
        prompt=CARD_PROMPT,
        done_label="Done: read the reserve",
        check=N.check_card_corners,
        typed_check=N.check_card_corners,
    )
    if corners is None:
        return
    photo = _decode(data, digest)
    if photo is None:
        return
    read = _read_or_explain(
        "Reading the reserve around that card…",
        lambda: N.read_from_card(photo.image.rgb, corners, nimalia_pack()),
    )
    if read is None:
        return
    if not read.found:
        st.warning("No squares read around that card: check its corners, or tap the squares.")
        return
    put_read(game, player, read, where, digest, "Photo read from one card's corners")
    st.session_state.pop(KEY_TAP_CARD, None)
    st.rerun()


def upload_limit_text() -> str:
    """The upload limit and what to do over it, said under the upload box (a file over it never
    reaches the page: the browser shows a red icon only)."""
    from common.safe_io import MAX_PHOTO_BYTES

    return (
        f"Up to {MAX_PHOTO_BYTES // 2**20} MB a photo. A bigger file is refused with a red ⚠ "
        "and never read: choose a lower resolution in your camera's settings (12 MP is "
        "plenty), send a smaller copy of the photo, or use Camera above."
    )


def photo_ui(game: dict, player: str) -> None:
    """Upload (or take) a photo of the reserve from your seat; flagged squares are outlined.
    When the reserve is not found, or its squares are in the wrong place, the player taps the
    corners of one card and the reserve is read around it."""
    if not reading.reader_available():
        st.info("The photo reader is not available on this server: tap the squares instead.")
        return
    nimalia_deck_ui()
    seat = f"{game['players'].index(player)}_{game['round']}"
    source = st.segmented_control(
        "Photo from", ["Upload", "Camera"], key="nim_photo_source", default="Upload", required=True
    )
    if source == "Camera":  # the capture helper's back camera (largest photo the phone gives)
        from ui.camera import back_camera_ui

        data = back_camera_ui(f"nim_camera_{seat}")
        if data is None:
            st.caption("Take it from your seat, the whole reserve in view.")
            return
    else:
        upload = st.file_uploader(
            "Photo of the reserve, from your seat",
            type=PHOTO_TYPES,
            key=f"nim_photo_{seat}",
        )
        st.caption(upload_limit_text())
        if upload is None:
            return
        data = upload.getvalue()
    digest = hashlib.sha256(data).hexdigest()
    seen = game.setdefault("photos", {})
    where = f"{player}/{game['round']}"
    tap_card = f"{where}/{digest}"
    if seen.get(where) == digest:
        st.caption("Photo read. Fix any square by tapping it (outlined squares first).")
        if st.session_state.get(KEY_TAP_CARD) != tap_card:
            if st.button(
                "Squares in the wrong place? Tap the corners of one card",
                key=f"nim_tap_card_{seat}",
                icon="📐",
            ):
                st.session_state[KEY_TAP_CARD] = tap_card
                st.rerun()
            return
        if st.button("Cancel: keep the read", key=f"nim_tap_card_cancel_{seat}", icon="✖️"):
            st.session_state.pop(KEY_TAP_CARD, None)
            st.rerun()
        card_corners_ui(game, player, seat, data, digest)
        return
    if seen.get(where) == f"none:{digest}":
        st.warning(
            "No reserve found in this photo: tap the 4 corners of one card below, take it again "
            "from above, or tap the squares."
        )
        card_corners_ui(game, player, seat, data, digest)
        return
    photo = _decode(data, digest)
    if photo is None:
        return
    read = _read_or_explain(
        "Reading the reserve…", lambda: reading.read_reserve_photo(photo, nimalia_pack())[0]
    )
    if read is None:
        return
    if not read.found:
        seen[where] = f"none:{digest}"
        st.rerun()
    put_read(game, player, read, where, digest, "Photo read")
    st.rerun()
