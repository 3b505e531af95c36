"""Pictures for the pages: the read frame as a JPEG with the dice drawn, and the join QR codes."""

from __future__ import annotations

import io
from functools import lru_cache

import cv2
import numpy as np
import segno

from pi_reader.vision.annotate import annotate
from pi_reader.vision.types import RollReading

MAX_WIDTH = 800  # phones and table screens need no more; a 1024x768 frame is scaled down
JPEG_QUALITY = 80


def jpeg(frame: np.ndarray, reading: RollReading | None = None) -> bytes:
    """``frame`` (BGR) as a JPEG, with what ``reading`` found drawn on it when given."""
    picture = annotate(frame, reading) if reading is not None else frame
    height, width = picture.shape[:2]
    if width > MAX_WIDTH:
        picture = cv2.resize(
            picture, (MAX_WIDTH, round(height * MAX_WIDTH / width)), interpolation=cv2.INTER_AREA
        )
    ok, encoded = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:  # pragma: no cover - OpenCV encodes any BGR uint8 image
        raise ValueError("the frame cannot be encoded as JPEG")
    return encoded.tobytes()


@lru_cache(maxsize=64)
def qr_svg(url: str) -> str:
    """A QR code of ``url`` as an SVG element (to put in a page), dark on light."""
    buffer = io.BytesIO()
    segno.make(url, error="m").save(
        buffer, kind="svg", scale=4, border=2, xmldecl=False, svgns=True, nl=False
    )
    return buffer.getvalue().decode("ascii")
