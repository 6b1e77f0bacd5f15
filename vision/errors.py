"""User-facing errors of the vision pipeline.

Both are ``ValueError`` subclasses so the CLI prints them as one line without a traceback.
"""

from __future__ import annotations

from typing import Any


class ImageLoadError(ValueError):
    """The bytes are not a photo the pipeline can use (not an image, truncated, too big, ...)."""


class GridNotFoundError(ValueError):
    """No grid of the layout (a terrarium) could be located in the photo.

    Parameters
    ----------
    reason : str
        One line saying why (shown to the user, who is then asked for the four corners).
    attempted_fit : object, optional
        The best grid fit (the game's grid finder's ``GridFit``) that was tried and rejected,
        if any, so a failure gallery or the app can draw it.
    """

    def __init__(self, reason: str, attempted_fit: Any = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.attempted_fit = attempted_fit
