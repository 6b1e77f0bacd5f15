"""The in-page camera: ask for the back camera and its largest capture, and judge the size given.

Two cameras, one shown at a time (the player picks):

- :func:`back_camera_ui` (the default): a small component of this app on Streamlit's own
  ``st.components.v2`` (HTML and JavaScript in this file, nothing downloaded). It opens the back
  camera (``facingMode: "environment"``) asking for up to 4096 x 3072, and takes the photo with
  the browser's ``ImageCapture.takePhoto`` at the camera's largest photo size where the browser
  has it (Chrome on Android: the sensor's full photo), else grabs a video frame at the stream's
  full size. Streamlit's widget cannot do either.
- :func:`camera_ui`: Streamlit's ``st.camera_input`` with ``resolution="1080p"`` (its largest
  preset; the snapshot is then made at the camera's frame size, not the widget's width). It
  opens the front camera first and shows a "Switch camera" button on phones.

What a capture size means for the reader (the same 40 unseen boards, issue 17):
4032 x 3024 read 40/40, 1280 x 960 found 36/40 and 640 x 480 31/40. A capture whose short side
is under :data:`SMALL_SHORT_SIDE` is called too small to read reliably, and the player is
pointed to the phone's own camera app (upload).
"""

from __future__ import annotations

import base64
import binascii
import functools
import io
from dataclasses import dataclass

#: The largest capture Streamlit's camera widget can ask for.
CAMERA_RESOLUTION = "1080p"
#: A capture with a shorter side than this (pixels) is too small to read reliably.
SMALL_SHORT_SIDE = 960
#: Largest photo the back camera may send (bytes, decoded).
MAX_SHOT_BYTES = 40 * 1024 * 1024
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
        help="On a phone, the button on the preview switches to the back camera.",
    )
    if shot is not None:
        show_capture(shot.getvalue())
    return shot


def show_capture(data: bytes) -> tuple[int, int] | None:
    """Say how big a capture is, warning when it is too small to read reliably.

    Returns the capture's ``(width, height)``, or None (with an error shown) when it is no image.
    """
    import streamlit as st

    try:
        size = capture_size(data)
    except ValueError as error:
        st.error(f"The camera gave no usable photo ({error}); take it again.")
        return None
    show_size(*size)
    return size


def show_size(width: int, height: int) -> None:
    """The capture size line (a warning when too small), for a ``width`` x ``height`` capture."""
    import streamlit as st

    check = check_capture(width, height)
    if check.small:
        st.warning(check.message, icon="🔍")
    else:
        st.caption(check.message)


def decode_shot(value: object) -> bytes:
    """The photo bytes of the back camera's ``data:image/...;base64,...`` URL.

    Raises
    ------
    ValueError
        Not a data URL of an image, bad base64, empty, or over :data:`MAX_SHOT_BYTES`.
    """
    if not isinstance(value, str) or not value.startswith("data:image/"):
        raise ValueError("the camera sent no image")
    header, _, payload = value.partition(",")
    if not header.endswith(";base64") or not payload:
        raise ValueError("the camera sent no image")
    if len(payload) > MAX_SHOT_BYTES * 4 // 3 + 4:
        raise ValueError("the camera's photo is too large")
    try:
        data = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("the camera's photo arrived damaged") from None
    if not data:
        raise ValueError("the photo is empty (0 bytes)")
    return data


_HTML = """
<div class="rt-cam">
  <button class="rt-open" type="button">📷 Open the back camera</button>
  <video class="rt-video" playsinline muted hidden></video>
  <div class="rt-bar" hidden>
    <button class="rt-shot" type="button">Take photo</button>
    <button class="rt-flip" type="button" title="Switch camera">🔄</button>
    <button class="rt-close" type="button" title="Close the camera">✕</button>
  </div>
  <p class="rt-info"></p>
</div>
"""

_CSS = """
.rt-cam { display: flex; flex-direction: column; gap: 0.5rem; font-family: inherit; }
.rt-cam button {
  font: inherit; padding: 0.55rem 0.9rem; border-radius: 0.5rem; cursor: pointer;
  border: 1px solid var(--st-border-color, #ccc); background: var(--st-background-color, #fff);
  color: var(--st-text-color, #222);
}
.rt-cam .rt-open, .rt-cam .rt-shot {
  background: var(--st-primary-color, #2e7d32); color: #fff; border-color: transparent;
}
.rt-cam .rt-shot { flex: 1; }
.rt-bar { display: flex; gap: 0.5rem; }
.rt-video { width: 100%; max-height: 60vh; object-fit: contain; background: #000;
  border-radius: 0.5rem; }
.rt-info { margin: 0; font-size: 0.85rem; opacity: 0.75; }
[hidden] { display: none !important; }
"""

_JS = """
export default function (component) {
  const { parentElement, setTriggerValue } = component;
  const root = parentElement.querySelector('.rt-cam');
  if (!root) return;
  const q = (s) => root.querySelector(s);
  const video = q('.rt-video'), open = q('.rt-open'), bar = q('.rt-bar'), info = q('.rt-info');
  let stream = null;
  let facing = 'environment';
  const stop = () => {
    if (stream) stream.getTracks().forEach((t) => t.stop());
    stream = null;
    video.srcObject = null;
    video.hidden = true; bar.hidden = true; open.hidden = false;
  };
  async function start() {
    stop();
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      info.textContent = 'This browser gives the page no camera (it needs https): ' +
        'use "Upload a photo".';
      return;
    }
    info.textContent = 'Opening the camera…';
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: false, video: {
        facingMode: { ideal: facing }, width: { ideal: 4096 }, height: { ideal: 3072 } } });
    } catch (e) {
      info.textContent = 'No camera (' + ((e && e.message) || e) + '): use "Upload a photo".';
      return;
    }
    video.srcObject = stream;
    video.hidden = false; bar.hidden = false; open.hidden = true;
    try { await video.play(); } catch (e) { /* a muted inline video plays without a gesture */ }
    if (!video.videoWidth) await new Promise((r) => { video.onloadedmetadata = r; });
    info.textContent = (facing === 'environment' ? 'Back' : 'Front') + ' camera, preview ' +
      video.videoWidth + ' × ' + video.videoHeight + '.';
  }
  async function photo() {
    const track = stream.getVideoTracks()[0];
    if (typeof ImageCapture !== 'undefined') {
      try {
        const capture = new ImageCapture(track);
        const caps = await capture.getPhotoCapabilities();
        const blob = await capture.takePhoto({
          imageWidth: caps.imageWidth.max, imageHeight: caps.imageHeight.max });
        if (blob && blob.size > 0) return blob;
      } catch (e) { /* no photo mode: a full-size video frame instead */ }
    }
    const canvas = document.createElement('canvas');
    canvas.width = video.videoWidth; canvas.height = video.videoHeight;
    canvas.getContext('2d').drawImage(video, 0, 0, canvas.width, canvas.height);
    return await new Promise((r) => canvas.toBlob(r, 'image/jpeg', 0.92));
  }
  async function shoot() {
    if (!stream) return;
    q('.rt-shot').disabled = true;
    info.textContent = 'Taking the photo…';
    try {
      const blob = await photo();
      const url = await new Promise((res, rej) => {
        const reader = new FileReader();
        reader.onload = () => res(reader.result); reader.onerror = rej;
        reader.readAsDataURL(blob);
      });
      stop();
      info.textContent = 'Photo taken.';
      setTriggerValue('shot', url);
    } catch (e) {
      info.textContent = 'The photo failed (' + ((e && e.message) || e) + '); try again.';
    } finally {
      q('.rt-shot').disabled = false;
    }
  }
  open.onclick = start;
  q('.rt-shot').onclick = shoot;
  q('.rt-flip').onclick = () => { facing = facing === 'environment' ? 'user' : 'environment';
    start(); };
  q('.rt-close').onclick = () => { stop(); info.textContent = ''; };
  return () => stop();
}
"""


@functools.cache
def _back_camera():
    import streamlit as st

    return st.components.v2.component("reptile_tank_back_camera", html=_HTML, css=_CSS, js=_JS)


def back_camera_ui(key: str) -> bytes | None:
    """The back camera at its largest; returns a photo's bytes on the run it was taken, else None.

    The last capture's size stays shown (with the too-small warning) until the next one.
    """
    import streamlit as st

    result = _back_camera()(key=key, on_shot_change=lambda: None)
    value = getattr(result, "shot", None)
    size_key = f"{key}_size"
    photo = None
    if value:
        try:
            photo = decode_shot(value)
            st.session_state[size_key] = capture_size(photo)
        except ValueError as error:
            st.error(f"The camera gave no usable photo ({error}); take it again.")
            return None
    size = st.session_state.get(size_key)
    if size:
        show_size(*size)
    return photo
