"""Loading a frame from a file, with a clear error for a missing, corrupt or unusable one."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

# The reader's stages need at least this many pixels on each side of a frame.
MIN_FRAME_SIDE = 16


class ImageError(ValueError):
    """An image file that cannot be read as a picture (or one too small to read dice in)."""


def load_frame(path: str | Path) -> np.ndarray:
    """The BGR frame in an image file; raises ImageError saying what is wrong with it."""
    path = Path(path)
    if path.is_dir():
        raise ImageError(f"{path}: a folder, not an image file")
    if not path.is_file():
        raise ImageError(f"{path}: no such image file")
    try:
        data = np.fromfile(path, dtype=np.uint8)
    except OSError as error:
        raise ImageError(f"{path}: cannot be read ({error.strerror or error})") from None
    frame = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if frame is None:
        raise ImageError(f"{path}: not a readable image (corrupt or not a picture)")
    height, width = frame.shape[:2]
    if min(height, width) < MIN_FRAME_SIDE:
        raise ImageError(
            f"{path}: {width}x{height} pixels is too small to read dice in "
            f"(at least {MIN_FRAME_SIDE} on each side)"
        )
    return frame
