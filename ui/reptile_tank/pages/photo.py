"""Page 2 — Photograph each terrarium: camera or file upload (or the sample photo, or by hand).

The page walks the table: it opens on the first player whose terrarium is not in, and a photo
read with its grid moves straight on to the next one (named on the upload box), then to the
table's check once everyone is in; a photo that needs its corners stays until they are given.

The photo goes through :func:`ui.reptile_tank.backend.read_photo` (one call into the vision pipeline). The
Camera tab opens the back camera at its largest photo size, or Streamlit's 1080p camera
(:mod:`ui.camera`), and says when a capture is too small to read reliably. When no terrarium is
found, or the player says the grid found is in the wrong place, they tap its four outer corners
on the photo (:mod:`ui.corners`) and the read continues. A file that cannot be read (or is
empty) says so in place of the previous read.
"""

from __future__ import annotations

import streamlit as st

from service.reptile_tank.reading import corner_request, fit_pixel_cap
from ui.camera import back_camera_ui, camera_ui
from ui.corners import corners_ui
from ui.kit import night_link
from ui.navigation import page_path
from ui.reptile_tank import state as S
from ui.reptile_tank.backend import get_reader, read_photo_cached, reader_available, sample_photos
from ui.reptile_tank.journey import escape_markdown, why_check
from ui.reptile_tank.page_helpers import PHOTO_TYPES, player_picker_ui, require_game

KEY_CAMERA = "photo_camera"
KEY_BACK_CAMERA = "photo_back_camera"
KEY_CAMERA_KIND = "photo_camera_kind"
#: The two in-page cameras (ui/camera.py): ours (back camera, largest photo) and Streamlit's.
CAMERA_KINDS = {
    "back": "Back camera, full size",
    "browser": "Simple camera (1080p)",
}
KEY_UPLOAD = "photo_upload"
KEY_SAMPLE = "photo_sample"
KEY_MANUAL = "photo_manual"
#: Per-player key of the last photo that could not be read (its message replaces the old read).
KEY_FAILED = "photo_failed"
#: Per-player button: the grid found is in the wrong place, give its corners instead.
KEY_REGRID = "photo_regrid"
#: What was done to the last photo before reading it ("reduced from 51 MP"), or "".
KEY_REDUCED = "photo_reduced"
#: The player whose photo was read last (shown small under the next player's upload box).
KEY_LAST_READ = "photo_last_read"
#: The corner request's reason when the player asked for it.
REGRID_REASON = "You said the grid is in the wrong place: tap its four outer corners."
#: The largest photo the server takes (``server.maxUploadSize`` in .streamlit/config.toml, and
#: the loader's ``common.safe_io.MAX_PHOTO_BYTES``), as the page says it.
UPLOAD_LIMIT_MB = 64
#: Said under the upload box: a file over the limit never reaches the app (the browser refuses
#: it with a small red icon only), so the page says the limit and what to do beforehand.
UPLOAD_LIMIT_TEXT = (
    f"Up to {UPLOAD_LIMIT_MB} MB a photo. A bigger file is refused with a red ⚠ and never "
    "read: choose a lower resolution in your camera's settings (12 MP is plenty), send a "
    "smaller copy of the photo, or take it in the Camera tab."
)


def fresh_file(uploaded, widget_key: str) -> bytes | None:
    """The bytes of ``uploaded`` the first time this file shows up in the widget, else None."""
    if uploaded is None:
        return None
    seen = st.session_state.setdefault(S.SEEN_FILES, {})
    if seen.get(widget_key) == uploaded.file_id:
        return None
    seen[widget_key] = uploaded.file_id
    return uploaded.getvalue()


def empty_photo_message(source: str) -> str:
    """What to say when the browser handed over a photo of 0 bytes."""
    return (
        f"That {source} is empty (0 bytes): nothing was read. Choose the photo again, or "
        "take a new one."
    )


def no_grid_message(reason: str) -> str:
    """The reader's reason, as one sentence that starts by saying what happened."""
    reason = reason.strip()
    if reason == REGRID_REASON:
        return reason
    if reason.lower().startswith("no terrarium found"):
        return reason[0].upper() + reason[1:]
    return f"No terrarium found: {reason}"


def take_read(player: str, photo: bytes, corners=None) -> None:
    """Read ``photo`` for ``player`` and store the result (or the corner request) in the state.

    A photo over the reader's pixel cap (a 50-108 MP phone photo) is reduced first, and the
    page says so."""
    with st.spinner("Reading the terrarium…", show_time=True):
        photo, note = fit_pixel_cap(photo)
        st.session_state[KEY_REDUCED] = note
        try:
            read = read_photo_cached(
                photo,
                tuple(corners) if corners else None,
                st.session_state[S.STAR_CARDS_OUT],
            )
        except ValueError as error:
            st.session_state[f"{KEY_FAILED}_{player}"] = f"That photo cannot be used: {error}"
            st.session_state[S.PENDING].pop(player, None)  # its corner taps belonged to the old one
            return
        except OSError as error:
            st.session_state[f"{KEY_FAILED}_{player}"] = (
                f"The card reader cannot start ({error}); enter the board by hand."
            )
            return
    S.store_read(st.session_state, player, photo, read)


def arrived() -> bool:
    """True when this run opened the page (from the menu or another page), not a rerun of it."""
    return st.session_state.get(S.LAST_PAGE) != "photo"


def read_summary(player: str) -> str:
    """``"Ann's terrarium is read (1 cell to check)"``."""
    entry = st.session_state[S.ENTRIES][player]
    flags = len(entry.cells_to_check())
    what = "nothing to check" if not flags else f"{flags} cell{'s' * (flags != 1)} to check"
    return f"{player}'s terrarium is read ({what})."


def capture_line(photo: bytes) -> str:
    """The camera's "Camera photo: 1600 × 1200 px (1.9 MP)." line for a capture."""
    from ui.camera import capture_size, check_capture

    try:
        return check_capture(*capture_size(photo)).message
    except ValueError:
        return ""


def camera_too_small(photo: bytes) -> bool:
    from ui.camera import capture_size, check_capture

    try:
        return check_capture(*capture_size(photo)).small
    except ValueError:
        return False


def move_on(player: str, *, capture: str = "") -> None:
    """After a read with its grid: the next player's photo, or the table's check when everyone
    is in (this ends the run). ``capture`` is the camera's size line, said in the message."""
    st.session_state[KEY_LAST_READ] = player
    reduced = st.session_state.pop(KEY_REDUCED, "")
    summary = " ".join(x for x in (capture, reduced, read_summary(player)) if x)
    following = S.next_missing(st.session_state, player)
    if following is None:
        st.session_state[S.FLASH] = summary + " Everyone is in: check the table."
        st.switch_page(page_path("check.py"), query_params=S.night_params(st.session_state))
    st.session_state[S.ACTIVE_PLAYER] = following
    st.session_state[S.SELECTED_CELL] = None
    st.session_state[S.FLASH] = summary + f" Now {following}'s."
    st.rerun()


def photo_ui() -> None:
    st.title("📷 Photograph")
    if not require_game():
        return
    active = st.session_state[S.ACTIVE_PLAYER]
    if (
        arrived()
        and active in st.session_state[S.ENTRIES]
        and S.pending_corners(st.session_state, active) is None
    ):  # opened from the menu or another page: the next terrarium not in yet
        following = S.next_missing(st.session_state, active)
        if following is not None:
            st.session_state[S.ACTIVE_PLAYER] = following
    player = player_picker_ui(key="photo_player")
    players = st.session_state[S.PLAYERS]
    st.caption(
        "Photograph the whole terrarium from your seat; the next player's photo comes up by "
        "itself. Your phone's own camera (via upload) gives the sharpest photos; the in-page "
        "camera is quicker."
    )
    if not reader_available():
        st.warning("The photo reader is not installed here; enter the board by hand below.")
    tab_upload, tab_camera = st.tabs(["Upload a photo", "Camera"])
    with tab_upload:
        upload = st.file_uploader(
            escape_markdown(
                f"📷 Photo of {player}'s terrarium ({players.index(player) + 1} of {len(players)})"
            ),
            type=PHOTO_TYPES,
            key=f"{KEY_UPLOAD}_{player}",
        )
        st.caption(UPLOAD_LIMIT_TEXT)
    with tab_camera:
        kind = st.radio(
            "Camera",
            list(CAMERA_KINDS),
            format_func=CAMERA_KINDS.get,
            horizontal=True,
            key=KEY_CAMERA_KIND,
            label_visibility="collapsed",
        )
        shot, back_shot = None, None
        if kind == "browser":
            shot = camera_ui(f"{KEY_CAMERA}_{player}")
        else:
            back_shot = back_camera_ui(f"{KEY_BACK_CAMERA}_{player}")
    samples = sample_photos()
    cols = st.columns(2)
    use_sample = cols[0].button(
        "Try the sample photo", key=KEY_SAMPLE, disabled=not samples, width="stretch"
    )
    if cols[1].button("Enter the board by hand", key=KEY_MANUAL, width="stretch"):
        S.start_manual(st.session_state, player)
        st.switch_page(page_path("check.py"), query_params=S.night_params(st.session_state))
    photo, source = None, "file"
    if use_sample and samples:
        photo = samples[0].read_bytes()
    else:  # only a newly uploaded or taken photo counts: a kept upload must not win again
        candidates = (
            (fresh_file(upload, f"{KEY_UPLOAD}_{player}"), "file"),
            (fresh_file(shot, f"{KEY_CAMERA}_{player}"), "photo"),
            (back_shot, "photo"),
        )
        for data, source in candidates:
            if data is None:
                continue
            if not data:  # a 0-byte file: say so, and stop showing the previous read
                st.session_state[f"{KEY_FAILED}_{player}"] = empty_photo_message(source)
                continue
            photo = data
            break
    if photo is not None:
        st.session_state.pop(f"{KEY_FAILED}_{player}", None)
        if S.photo_is_new(st.session_state, player, photo):
            take_read(player, photo)
            small = source == "photo" and camera_too_small(photo)
            if (
                not small
                and f"{KEY_FAILED}_{player}" not in st.session_state
                and S.pending_corners(st.session_state, player) is None
            ):  # a capture too small to trust stays here, its warning beside the read
                move_on(player, capture=capture_line(photo) if source == "photo" else "")
    if st.session_state.get(KEY_REDUCED):  # the photo stayed on this page (corners, refusal)
        st.info(st.session_state[KEY_REDUCED])
    failed = st.session_state.get(f"{KEY_FAILED}_{player}")
    if failed:  # shown instead of the previous read, which belongs to another photo
        st.error(failed)
    pending = S.pending_corners(st.session_state, player)
    if pending is not None:
        st.warning(no_grid_message(pending.read.message))
        corners = corners_ui(pending.read, key=f"corners_{player}")
        if corners is not None:
            take_read(player, pending.photo, corners)
            if (
                S.pending_corners(st.session_state, player) is None
                and player in (st.session_state[S.ENTRIES])
            ):
                move_on(player)
            st.rerun()
        return
    entry = st.session_state[S.ENTRIES].get(player)
    if entry is not None and entry.source == "photo" and not failed:
        read_ui(player, entry)
        if S.missing_players(st.session_state):
            still = ", ".join(S.missing_players(st.session_state))
            st.caption(escape_markdown(f"Still to photograph: {still}."))
        else:
            night_link("check.py", "Next: check the table", "🔎")
    last = st.session_state.get(KEY_LAST_READ)
    if last != player and last in st.session_state[S.ENTRIES]:
        previous = st.session_state[S.ENTRIES][last]
        if previous.source == "photo":  # a glance at the read before: is its grid right?
            with st.container(border=True, key="photo_previous"):
                read_ui(last, previous, width=220)


def read_ui(player: str, entry, *, width: int | str = "stretch") -> None:
    """A photo read: how long, how many cells to check, the photo with its grid drawn, and
    "Grid in the wrong place?" (the player's corners instead)."""
    flags = len(S.low_confidence_cells(entry, S.LOW_CONFIDENCE))
    st.success(
        escape_markdown(f"{player}: read in {entry.read_ms:.0f} ms, {flags} cell(s) to check.")
    )
    reasons = why_check(entry)
    if reasons:
        st.caption(escape_markdown(reasons), help="What the reader could not be sure of.")
    st.image(entry.overlay_jpeg, width=width)
    photo_read = S.read_photo_of(st.session_state, player)
    if photo_read is not None and st.button(
        "Grid in the wrong place? Tap its corners", key=f"{KEY_REGRID}_{player}", icon="📐"
    ):
        S.ask_corners(
            st.session_state, player, corner_request(photo_read, get_reader(), REGRID_REASON)
        )
        st.session_state[S.ACTIVE_PLAYER] = player
        st.rerun()


photo_ui()
