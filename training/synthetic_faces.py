"""Dice drawn with OpenCV for training the pip classifier: any colours, pip sizes and side faces.

The recorded sets hold a few dozen die designs; drawn dice add every colour pair, pip size and
spacing, rounded or sharp corners, and a visible side face with its own pips (which must not be
counted), so the classifier learns "count the pips on the top face" rather than the designs.
"""

from __future__ import annotations

import random

import cv2
import numpy as np

from pi_reader.vision.face_samples import DieSample

_CELLS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


def _colour(rng: random.Random) -> np.ndarray:
    return np.array([rng.randint(0, 255) for _ in range(3)], np.float64)


def _contrasting_pair(rng: random.Random) -> tuple[np.ndarray, np.ndarray]:
    """A face colour and a pip colour that a camera can tell apart."""
    while True:
        face, pip = _colour(rng), _colour(rng)
        if np.abs(face - pip).max() > 90:
            return face, pip


def _draw_pips(image: np.ndarray, to_image: np.ndarray, value: int, pip: np.ndarray,
               radius: float, spacing: float, rng: random.Random) -> None:
    """Pips on a face whose unit square [-1, 1]^2 maps to the image by the 2x3 matrix to_image."""
    cells = _CELLS[value]
    if value in (2, 3, 6) and rng.random() < 0.5:
        cells = [(-y, x) for x, y in cells]  # the same face turned by 90 degrees
    for cx, cy in cells:
        ring = []
        for angle in np.linspace(0, 2 * np.pi, 20, endpoint=False):
            u = cx * spacing + radius * np.cos(angle)
            v = cy * spacing + radius * np.sin(angle)
            ring.append(to_image @ np.array([u, v, 1.0]))
        cv2.fillPoly(image, [np.round(np.array(ring) * 4).astype(np.int32)], pip.tolist(),
                     cv2.LINE_AA, shift=2)


def synthetic_die(value: int, rng: random.Random) -> DieSample:
    """One drawn die, seen from above or tilted to show a side face, as a context crop."""
    size = 128
    image = np.zeros((size, size, 3), np.uint8)
    image[:] = _colour(rng)
    if rng.random() < 0.5:  # a textured tray
        noise = np.random.default_rng(rng.randint(0, 1 << 30)).normal(0, 12, image.shape)
        image = np.clip(image + noise, 0, 255).astype(np.uint8)
    face, pip = _contrasting_pair(rng)
    half = rng.uniform(22, 30)
    angle = rng.uniform(0, 2 * np.pi)
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    centre = np.array([size / 2, size / 2]) + rng.uniform(-4, 4)
    top = np.hstack([rot * half, centre[:, None]])  # unit face square -> image
    # A side face: the strip below one edge of the top face, foreshortened, shaded darker.
    side_depth = rng.uniform(0.0, 0.45) if rng.random() < 0.6 else 0.0
    outline = []
    if side_depth > 0:
        shade = rng.uniform(0.45, 0.85)
        side = np.array([[half, 0.0], [0.0, half * side_depth]])
        offset = centre + rot @ np.array([0.0, half * (1 + side_depth)])
        side_map = np.hstack([rot @ side, offset[:, None]])
        corners = np.array([[-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]], np.float64)
        strip = (side_map @ corners.T).T
        outline.append(strip)
        cv2.fillConvexPoly(image, np.round(strip * 4).astype(np.int32), (face * shade).tolist(),
                           cv2.LINE_AA, shift=2)
        _draw_pips(image, side_map, rng.randint(1, 6), pip * shade, 0.16, 0.55, rng)
    corners = np.array([[-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]], np.float64)
    quad = (top @ corners.T).T
    outline.append(quad)
    rounding = rng.uniform(0, 6)
    cv2.fillConvexPoly(image, np.round(quad * 4).astype(np.int32), face.tolist(), cv2.LINE_AA,
                       shift=2)
    if rounding > 1:
        cv2.polylines(image, [np.round(quad * 4).astype(np.int32)], True, face.tolist(),
                      int(rounding), cv2.LINE_AA, shift=2)
    radius = rng.uniform(0.12, 0.2) if value != 1 else rng.uniform(0.14, 0.3)
    _draw_pips(image, top, value, pip, radius, rng.uniform(0.5, 0.62), rng)
    if rng.random() < 0.2:  # a glare streak: bright, but long and thin, unlike a pip
        spot = centre + np.array([rng.uniform(-half, half), rng.uniform(-half, half)])
        cv2.ellipse(image, (int(spot[0]), int(spot[1])), (rng.randint(5, 12), rng.randint(1, 2)),
                    rng.uniform(0, 180), 0, 360, (255, 255, 255), -1, cv2.LINE_AA)
    if rng.random() < 0.5:
        image = cv2.GaussianBlur(image, (0, 0), rng.uniform(0.4, 1.2))
    points = np.vstack(outline)
    x0, y0 = points.min(axis=0)
    w, h = points.max(axis=0) - points.min(axis=0)
    return DieSample("synthetic", "", "", value, image, (float(x0), float(y0), float(w), float(h)))
