"""Does a set of pip centres form one of the six d6 faces?

Every d6 face puts its pips on a 3x3 grid centred on the face. Two, three, four, five and six
all use the grid's corners, so the two pips farthest apart are diagonal corners: their distance
gives the grid step and their direction gives the face's rotation. Snapping the pips onto that
grid must give exactly the canonical pattern. This check is what rejects glare spots, specks and
pips seen on a side face: those rarely land on the grid of the others.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# Canonical patterns in grid units (x right, y down). Two, three and six also appear turned by
# 90 degrees on real dice; both spellings are accepted.
_CORNERS = {(-1, -1), (1, -1), (-1, 1), (1, 1)}
CANONICAL_PATTERNS: dict[int, tuple[frozenset[tuple[int, int]], ...]] = {
    1: (frozenset({(0, 0)}),),
    2: (frozenset({(-1, -1), (1, 1)}), frozenset({(1, -1), (-1, 1)})),
    3: (frozenset({(-1, -1), (0, 0), (1, 1)}), frozenset({(1, -1), (0, 0), (-1, 1)})),
    4: (frozenset(_CORNERS),),
    5: (frozenset(_CORNERS | {(0, 0)}),),
    6: (frozenset(_CORNERS | {(-1, 0), (1, 0)}), frozenset(_CORNERS | {(0, -1), (0, 1)})),
}

# The grid step of real dice is about a quarter to a third of the face's side.
MIN_STEP_FRACTION = 0.17
MAX_STEP_FRACTION = 0.42


@dataclass(frozen=True)
class LayoutFit:
    """How well pips fit a canonical face: the value and the error in grid steps (0 = perfect)."""

    value: int
    residual: float  # root mean square distance to the snapped grid points, in grid steps
    centre_offset: float  # distance of the pattern's centre from the face's centre, in face sides


def fit_layout(
    points: np.ndarray, face_centre: tuple[float, float], face_side: float
) -> LayoutFit | None:
    """The face value the points spell, or None if they form no d6 face of this size."""
    count = len(points)
    if count < 1 or count > 6 or face_side <= 0:
        return None
    pts = np.asarray(points, dtype=np.float64).reshape(count, 2)
    centre = pts.mean(axis=0)
    offset = float(np.hypot(*(centre - np.asarray(face_centre)))) / face_side
    if count == 1:
        # A lone pip has no grid to fit: it must sit at the face centre.
        return LayoutFit(value=1, residual=0.0, centre_offset=offset)
    diffs = pts[:, None, :] - pts[None, :, :]
    dists = np.hypot(diffs[..., 0], diffs[..., 1])
    i, j = np.unravel_index(int(np.argmax(dists)), dists.shape)
    step = dists[i, j] / (2.0 * math.sqrt(2.0))
    if not MIN_STEP_FRACTION <= step / face_side <= MAX_STEP_FRACTION:
        return None
    dx, dy = pts[j] - pts[i]
    angle = math.atan2(dy, dx) - math.pi / 4.0
    cos_a, sin_a = math.cos(-angle), math.sin(-angle)
    rel = pts - centre
    grid = np.stack(
        [(rel[:, 0] * cos_a - rel[:, 1] * sin_a), (rel[:, 0] * sin_a + rel[:, 1] * cos_a)], axis=1
    ) / step
    snapped = np.clip(np.rint(grid), -1, 1)
    cells = frozenset((int(a), int(b)) for a, b in snapped)
    if len(cells) != count or cells not in CANONICAL_PATTERNS[count]:
        return None
    residual = float(np.sqrt(np.mean(np.sum((grid - snapped) ** 2, axis=1))))
    return LayoutFit(value=count, residual=residual, centre_offset=offset)
