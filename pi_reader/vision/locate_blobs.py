"""From a foreground mask to one candidate per die: clean, label, split touching dice, judge.

Touching dice make one blob; the known footprint area of one die says how many dice it holds, and
k-means on the blob's pixel positions cuts it into that many compact pieces (a chain of square
dice splits along the seams). A single piece that is elongated or oversized for one die but too
small for two is a die standing on an edge or leaning: it is reported as cocked.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

# A piece smaller than this fraction of one die's footprint is a speck, a pip or glare.
MIN_PIECE_FRACTION = 0.35
# Rounding of a blob's area in dice: a single flat die's footprint measures up to about 1.4 dice
# (shadow fringes, side faces on a tilted view), two touching dice at least about 1.6.
AREA_ROUNDING = 0.45
# Blobs at least this many dice in area are checked for length too (a chain of two small dice).
LENGTH_CHECK_AREA = 1.3
# A flat die's footprint (top face plus thin side slivers) is close to square and about one die
# side long; a die leaning on another shows two faces: longer than wide, longer than a die and
# bigger than one (all three must hold, as single cues also fire on flat dice with shadows).
COCKED_ASPECT = 1.4
COCKED_LENGTH = 1.35
COCKED_AREA = 1.15
# With the dice apart (calibration) no die can lean on another; one standing on an edge shows
# two faces side by side, at least one and a half footprints of the dice around it, while a
# flat die far off the camera's axis shows its side faces too, up to about a third more.
APART_COCKED_AREA = 1.5
# A blob that would hold more dice than this is something else lying in view.
MAX_DICE_PER_BLOB = 16
# A piece this elongated is a line (a leaning die's footprint is at most about 1.7).
LINE_ASPECT = 2.5
# The longest straight chain of touching dice looked for.
MAX_CHAIN = 4
# A heap of several dice fills at least this much of its minimum-area rectangle (a ring or a
# thin line, such as a tray's rim, does not).
MIN_HEAP_FILL = 0.4
# Generic mode knows neither the dice nor the surface, so it only believes pieces that are at
# most this elongated, at least this solid and at least this fraction of the typical die.
PLAUSIBLE_ASPECT = 1.8
PLAUSIBLE_FILL = 0.55
PLAUSIBLE_AREA = 0.45
# A frame re-measures one die's footprint from blobs within this band around the expected one.
REFINE_BAND = (0.6, 1.25)


@dataclass(frozen=True)
class Piece:
    """One die-sized part of the foreground, at the working scale."""

    points: np.ndarray  # Nx2 int32 (x, y)
    rect: tuple[tuple[float, float], tuple[float, float], float]  # cv2.minAreaRect
    area: int
    die_count_estimate: float  # area / one die's footprint
    cocked: bool
    score: float
    aspect: float  # long / short side of the minimum-area rectangle
    fill: float  # area / minimum-area rectangle's area

    def touches_edge(self, shape: tuple[int, ...]) -> bool:
        h, w = shape[:2]
        xs, ys = self.points[:, 0], self.points[:, 1]
        return bool(xs.min() == 0 or ys.min() == 0 or xs.max() == w - 1 or ys.max() == h - 1)

    def is_a_line(self) -> bool:
        """Far longer than wide or hollow: an edge or a rim, not a die even a leaning one."""
        return self.aspect > LINE_ASPECT or self.fill < MIN_HEAP_FILL

    def looks_like_a_die(self) -> bool:
        """Square-ish and solid: what generic mode asks before it believes a piece is a die."""
        return (self.aspect <= PLAUSIBLE_ASPECT and self.fill >= PLAUSIBLE_FILL
                and self.die_count_estimate >= PLAUSIBLE_AREA)


def clean_mask(mask: np.ndarray, die_side: float | None) -> np.ndarray:
    """Remove specks, bridge a die's dark pips and edges, fill holes."""
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    if die_side is not None:
        k = max(3, round(die_side / 6) | 1)
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE,
                                cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    return fill_holes(mask, None if die_side is None else 1.5 * die_side * die_side)


def fill_holes(mask: np.ndarray, max_hole: float | None = None) -> np.ndarray:
    """Fill holes (a die's pips, a glare spot) up to ``max_hole`` pixels.

    The bound keeps a ring-shaped thing (a tray's dark rim) from turning the whole tray into
    one blob; by default it is a hundredth of the image, larger than any die a frame can hold
    dozens of. The holes are the inner contours of the mask (a hole's size is its outline's
    area): tracing outlines costs a twentieth of labelling every pixel of a frame-sized mask.
    """
    if max_hole is None:
        max_hole = mask.size / 100.0
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    out = mask.copy()
    if hierarchy is None:
        return out
    holes = [
        contour
        for contour, (_, _, _, parent) in zip(contours, hierarchy[0], strict=True)
        if parent >= 0 and cv2.contourArea(contour) <= max_hole
    ]
    cv2.drawContours(out, holes, -1, 1, thickness=cv2.FILLED)
    return out


def component_points(mask: np.ndarray, min_area: float) -> list[np.ndarray]:
    """Pixel positions (x, y) of each connected component at least ``min_area`` big."""
    # Grana's block-based labelling: the same components, three times faster with statistics
    # than the default algorithm on a frame-sized mask.
    count, labels, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(
        mask, 8, cv2.CV_32S, cv2.CCL_GRANA
    )
    out = []
    for i in range(1, count):
        if stats[i, cv2.CC_STAT_AREA] < min_area:
            continue
        x, y, w, h = stats[i, :4]
        ys, xs = np.nonzero(labels[y:y + h, x:x + w] == i)
        out.append(np.stack([xs + x, ys + y], axis=1).astype(np.int32))
    return out


def split_points(points: np.ndarray, k: int) -> list[np.ndarray]:
    """Cut a blob of ``k`` touching dice into ``k`` compact pieces."""
    if k <= 1:
        return [points]
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    cv2.setRNGSeed(7)  # the same frame always splits the same way
    _, labels, _ = cv2.kmeans(points.astype(np.float32), k, None, criteria, 3,
                              cv2.KMEANS_PP_CENTERS)
    labels = labels.ravel()
    return [points[labels == i] for i in range(k) if np.any(labels == i)]


def judge_piece(points: np.ndarray, die_area: float, cocked_area: float = COCKED_AREA) -> Piece:
    """How much ``points`` look like one flat die of footprint ``die_area``, or a cocked one."""
    rect = cv2.minAreaRect(points.astype(np.float32))
    (_, _), (rw, rh), _ = rect
    area = len(points)
    ratio = area / die_area
    aspect = max(rw, rh) / max(1.0, min(rw, rh))
    fill = area / max(1.0, (rw + 1) * (rh + 1))
    length = max(rw, rh) / np.sqrt(die_area)
    cocked = aspect > COCKED_ASPECT and length > COCKED_LENGTH and ratio > cocked_area
    size_fit = float(np.exp(-abs(np.log(max(ratio, 1e-3)))))  # 1 at one die's footprint
    shape_fit = float(np.clip(fill, 0, 1)) * float(np.clip(2.0 - aspect, 0, 1))
    score = float(np.clip(0.5 * size_fit + 0.5 * shape_fit, 0, 1))
    return Piece(points, rect, area, ratio, cocked, score, aspect, fill)


def pieces_from_mask(mask: np.ndarray, die_area: float, refine: bool = False) -> list[Piece]:
    """Label the mask, split every blob that holds several dice, and judge each piece.

    With ``refine`` the expected footprint is re-measured on this frame's single, square blobs
    (within a band around ``die_area``): the light and the view at the die's place change its
    footprint, and the frame's own dice say so better than the calibration frame.
    """
    pieces: list[Piece] = []
    found = component_points(mask, MIN_PIECE_FRACTION * die_area)
    if refine:
        singles = [len(p) for p in found if REFINE_BAND[0] * die_area < len(p)
                   < REFINE_BAND[1] * die_area and _is_square(p)]
        if len(singles) >= 2:
            die_area = float(np.median(singles))
    for points in found:
        for part in best_split(points, die_area):
            if len(part) >= MIN_PIECE_FRACTION * die_area:
                pieces.append(judge_piece(part, die_area))
    return pieces


def pieces_apart(mask: np.ndarray, die_area: float) -> list[Piece]:
    """One piece per blob, for dice known to lie apart (calibration): nothing is split.

    A die with a large side face in view (far off a tilted camera's axis) is as long as two
    small dice touching; only the knowledge that the dice lie apart tells them apart.
    """
    return [judge_piece(points, die_area, APART_COCKED_AREA)
            for points in component_points(mask, MIN_PIECE_FRACTION * die_area)]


def best_split(points: np.ndarray, die_area: float) -> list[np.ndarray]:
    """Split a blob into the number of dice whose pieces look most like single dice.

    The count from area and length is a first guess that can be one off (dice in one frame
    differ in footprint by up to a fifth); each neighbouring count is tried and the one whose
    pieces are closest to square, die-sized and compact wins.
    """
    guess = dice_in_blob(points, die_area)
    if guess > MAX_DICE_PER_BLOB or (guess > 3 and fill(points) < MIN_HEAP_FILL):
        return []  # a rim, a hand, a sheet of paper: not a heap of dice
    if guess == 1 and len(points) < LENGTH_CHECK_AREA * die_area:
        return [points]
    best: tuple[float, list[np.ndarray]] | None = None
    for k in range(max(1, guess - 1), guess + 2):
        parts = split_points(points, k)
        cost = float(np.mean([single_die_misfit(part, die_area) for part in parts]))
        if best is None or cost < best[0]:
            best = (cost, parts)
    assert best is not None
    return best[1]


def single_die_misfit(points: np.ndarray, die_area: float) -> float:
    """0 for a square, compact piece of one die's footprint; grows as it looks less so."""
    (_, _), (rw, rh), _ = cv2.minAreaRect(points.astype(np.float32))
    aspect = max(rw, rh) / max(1.0, min(rw, rh))
    fill = len(points) / max(1.0, (rw + 1) * (rh + 1))
    return (abs(np.log(len(points) / die_area)) + 2.0 * np.log(aspect)
            + max(0.0, 0.8 - fill))


def dice_in_blob(points: np.ndarray, die_area: float) -> int:
    """How many dice a blob holds, from its area and, for a blob big enough for two, its length.

    Footprints vary by a fifth with the view angle and the light, so two small-looking touching
    dice can have the area of one and a half; a chain of dice is however as long as its dice.
    """
    by_area = len(points) / die_area
    count = int(np.floor(by_area + AREA_ROUNDING))
    if by_area >= LENGTH_CHECK_AREA:
        (_, _), (rw, rh), _ = cv2.minAreaRect(points.astype(np.float32))
        by_length = max(rw, rh) / max(1.0, min(rw, rh))
        count = max(count, int(np.floor(by_length + 0.3)))
    return max(1, count)


def fill(points: np.ndarray) -> float:
    (_, _), (rw, rh), _ = cv2.minAreaRect(points.astype(np.float32))
    return len(points) / max(1.0, (rw + 1) * (rh + 1))


def is_solid_square(points: np.ndarray) -> bool:
    """Loosely die-shaped: not longer than two dice side by side, and mostly filled."""
    (_, _), (rw, rh), _ = cv2.minAreaRect(points.astype(np.float32))
    aspect = max(rw, rh) / max(1.0, min(rw, rh))
    return aspect <= PLAUSIBLE_ASPECT and len(points) >= PLAUSIBLE_FILL * (rw + 1) * (rh + 1)


def is_dice_chain(points: np.ndarray) -> bool:
    """Solid and at most as long as a chain of :data:`MAX_CHAIN` dice (a line is not)."""
    (_, _), (rw, rh), _ = cv2.minAreaRect(points.astype(np.float32))
    aspect = max(rw, rh) / max(1.0, min(rw, rh))
    return aspect <= MAX_CHAIN + 0.5 and len(points) >= MIN_HEAP_FILL * (rw + 1) * (rh + 1)


def _is_square(points: np.ndarray) -> bool:
    (_, _), (rw, rh), _ = cv2.minAreaRect(points.astype(np.float32))
    return max(rw, rh) / max(1.0, min(rw, rh)) < 1.3 and len(points) > 0.7 * (rw + 1) * (rh + 1)


def typical_die_area(mask: np.ndarray, min_area: float) -> float | None:
    """One die's footprint measured from the frame: the median area of compact square blobs."""
    areas = []
    for points in component_points(mask, min_area):
        rect = cv2.minAreaRect(points.astype(np.float32))
        (_, _), (rw, rh), _ = rect
        aspect = max(rw, rh) / max(1.0, min(rw, rh))
        fill = len(points) / max(1.0, (rw + 1) * (rh + 1))
        if aspect < 1.3 and fill > 0.7:
            areas.append(len(points))
    if not areas:
        return None
    # Area-weighted median: pips and specks are many but small, the dice dominate the weight.
    areas_sorted = np.sort(np.array(areas, np.float64))
    cumulative = np.cumsum(areas_sorted)
    return float(areas_sorted[np.searchsorted(cumulative, cumulative[-1] / 2)])
