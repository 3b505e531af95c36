"""Loading a frame from a file, with a clear error for a missing or corrupt one."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np


class ImageError(ValueError):
    """An image file that cannot be read as a picture."""


def load_frame(path: str | Path) -> np.ndarray:
    """The BGR frame in an image file; raises ImageError saying what is wrong with it."""
    path = Path(path)
    if not path.is_file():
        raise ImageError(f"{path}: no such image file")
    data = np.fromfile(path, dtype=np.uint8)
    frame = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if frame is None:
        raise ImageError(f"{path}: not a readable image (corrupt or not a picture)")
    return frame
