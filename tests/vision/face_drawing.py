"""Die faces drawn with OpenCV, for tests of the pip reader: exact values, any rotation."""

from __future__ import annotations

import cv2
import numpy as np

from training.pip_layouts import PIP_CELLS  # the generator's layout, drawn flat


def draw_face(
    value: int | None,
    *,
    polarity: str = "dark",
    angle_deg: float = 0.0,
    side: int = 60,
    canvas: int = 160,
    face_bgr: tuple[int, int, int] | None = None,
    ground_bgr: tuple[int, int, int] = (60, 110, 40),
) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """A die face seen from above on a plain ground, and its box (x, y, w, h).

    ``value`` None draws a blank face. Dark polarity: white face, black pips; light: the reverse
    on a blue face (or ``face_bgr``).
    """
    if face_bgr is None:
        face_bgr = (235, 235, 235) if polarity == "dark" else (160, 60, 20)
    pip_bgr = (20, 20, 20) if polarity == "dark" else (245, 245, 245)
    image = np.full((canvas, canvas, 3), ground_bgr, np.uint8)
    centre = np.array([canvas / 2.0, canvas / 2.0])
    theta = np.deg2rad(angle_deg)
    rotation = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * side / 2.0
    quad = (corners @ rotation.T + centre).astype(np.int32)
    cv2.fillConvexPoly(image, quad, face_bgr, cv2.LINE_AA)
    for cell in PIP_CELLS.get(value, ()) if value is not None else ():
        pos = np.array(cell, np.float64) * side * 0.28 @ rotation.T + centre
        radius = round(side * (0.11 if value == 1 else 0.08))
        cv2.circle(image, (round(pos[0]), round(pos[1])), radius, pip_bgr, -1,
                   cv2.LINE_AA)
    x0, y0 = quad.min(axis=0)
    x1, y1 = quad.max(axis=0)
    return image, (int(x0), int(y0), int(x1 - x0), int(y1 - y0))
