"""The in-page camera: ask the browser for its largest capture, and judge the size it gave.

Streamlit's ``st.camera_input`` asks for a resolution when given ``resolution``: its largest
preset, ``"1080p"``, asks for a 1080-pixel-high frame and makes the snapshot at the camera's
frame size (without it the snapshot is as wide as the widget on screen: ~360 px on a phone).
It opens the front camera first; on a phone it shows a "Switch camera" button (see
``docs/decisions.md``, "Capture").

What a capture size means for the reader (the same 40 unseen boards, issue 17):
4032 x 3024 read 40/40, 1280 x 960 found 36/40 and 640 x 480 31/40. A capture whose short side
is under :data:`SMALL_SHORT_SIDE` is called too small to read reliably, and the player is
pointed to the phone's own camera app (upload).
"""

from __future__ import annotations

import io
from dataclasses import dataclass

#: The largest capture Streamlit's camera widget can ask for.
CAMERA_RESOLUTION = "1080p"
#: A capture with a shorter side than this (pixels) is too small to read reliably.
SMALL_SHORT_SIDE = 960
#: EXIF orientations that swap width and height (rotated by 90 or 270 degrees).
_SWAPPING_ORIENTATIONS = {5, 6, 7, 8}


@dataclass(frozen=True)
class CaptureCheck:
    """What the page says about one capture's size.

    Attributes
    ----------
    width, height : int
        The capture's size in pixels, as shown upright.
    small : bool
        True when the short side is under :data:`SMALL_SHORT_SIDE`.
    message : str
        One or two sentences for the player.
    """

    width: int
    height: int
    small: bool
    message: str


def capture_size(photo: bytes) -> tuple[int, int]:
    """``(width, height)`` of a photo as shown upright (EXIF orientation applied), from its header.

    Raises
    ------
    ValueError
        The bytes are empty or not an image Pillow can read.
    """
    from PIL import Image, UnidentifiedImageError

    if not photo:
        raise ValueError("the photo is empty (0 bytes)")
    try:
        with Image.open(io.BytesIO(photo)) as image:
            width, height = image.size
            orientation = image.getexif().get(0x0112, 1)
    except (UnidentifiedImageError, OSError) as error:
        raise ValueError(f"not an image: {error}") from None
    if orientation in _SWAPPING_ORIENTATIONS:
        width, height = height, width
    return int(width), int(height)


def check_capture(width: int, height: int) -> CaptureCheck:
    """Say whether a ``width`` x ``height`` capture is big enough to read reliably."""
    short = min(width, height)
    megapixels = width * height / 1e6
    size = f"{width} × {height} px ({megapixels:.1f} MP)"
    if short < SMALL_SHORT_SIDE:
        return CaptureCheck(
            width,
            height,
            True,
            f"Camera photo: {size}. That is too small to read reliably: cards may be "
            "missed or misread. For a sharper photo use your phone's camera app, then "
            "upload it under **Upload a photo**.",
        )
    return CaptureCheck(width, height, False, f"Camera photo: {size}.")


def camera_ui(key: str):
    """The camera widget asking for the largest capture; returns Streamlit's ``UploadedFile``.

    After a shot its size is shown, with a warning when it is too small to read reliably.
    """
    import streamlit as st

    shot = st.camera_input(
        "Take a photo",
        key=key,
        resolution=CAMERA_RESOLUTION,
        help="Uses your back camera when you switch to it (the button on the preview).",
    )
    if shot is not None:
        data = shot.getvalue()
        try:
            check = check_capture(*capture_size(data))
        except ValueError as error:
            st.error(f"The camera gave no usable photo ({error}); take it again.")
            return shot
        if check.small:
            st.warning(check.message, icon="🔍")
        else:
            st.caption(check.message)
    return shot
