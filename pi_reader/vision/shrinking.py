"""Shrinking an image by a whole factor, the one way the reader makes images smaller.

OpenCV averages k x k blocks quickly only when the factor is exactly whole: 2736 / 7 is not, and
its general area resize then took 49 ms for a 2736 px photo instead of 7. So the image is cut to
a multiple of k first, dropping under k pixels off its right and bottom edges.
"""

from __future__ import annotations

import cv2
import numpy as np


def blocks_averaged(image: np.ndarray, factor: int) -> np.ndarray:
    """``image`` shrunk ``factor`` times, each output pixel the mean of a factor x factor block
    (the factor is held to the image's shorter side)."""
    height, width = image.shape[:2]
    k = max(1, min(factor, height, width))
    if k == 1:
        return image
    whole = image[: height - height % k, : width - width % k]
    return cv2.resize(whole, (width // k, height // k), interpolation=cv2.INTER_AREA)


def averaged_to(image: np.ndarray, columns: int, rows: int) -> np.ndarray:
    """``image`` averaged down to ``columns`` x ``rows`` cells (a calibration's tray grid): by
    whole blocks first, then by area from the few cells over. Calibration and every read use it,
    so a frame and the tray it is compared with are averaged alike; the area resize straight from
    a frame took ten times as long."""
    height, width = image.shape[:2]
    blocks = blocks_averaged(image, min(height // max(1, rows), width // max(1, columns)))
    return cv2.resize(blocks, (columns, rows), interpolation=cv2.INTER_AREA)
