"""Read the top face of one die: how many pips, where they are, and how sure we are.

The patch around the die's box is first scaled so the box is ``NORMALIZED_BOX_PX`` pixels across:
real photos (dice 150 px wide) and rendered frames (dice 55 px wide) then look alike, and the work
per die is small and fixed. The classical reader then

1. takes the face colour as the median colour near the box centre (pips cover far less of it),
2. marks the pixels close to that colour (Otsu threshold on the colour distance): the face,
3. keeps the face region at the centre and takes its *holes* as pip candidates, so pips on side
   faces (outside the top face's region) and the tray around the die are never candidates,
4. keeps round candidates of one polarity and similar size, and
5. accepts them only if they form one of the six canonical layouts (``face_layout``).

The confidence says how cleanly that happened; below ``MIN_CONFIDENCE`` the value is None so the
appliance refuses the roll rather than guessing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np

from pi_reader.vision import face_cnn
from pi_reader.vision.face_layout import LayoutFit, fit_layout

POLARITIES: tuple[str, ...] = ("dark", "light")
NORMALIZED_BOX_PX = 64.0  # the box's longer side after scaling
# A die's box is its side (seen square-on) up to its diagonal (turned 45 degrees), plus any side
# face in view; with a known side the patch is scaled as for a box this much bigger.
SIDE_TO_BOX = 1.3
LOOSE_BOX_SLACK = 1.15  # a box this much bigger than a known die's is not considered loose
PATCH_MARGIN = 0.25  # context kept around the box, as a fraction of its longer side
MIN_CONFIDENCE = 0.6  # below this the reading's value is None (chosen on held-out dice)
NO_LAYOUT_FACTOR = 0.9  # trust left in the classifier when no pip layout backs it up
LAYOUT_WEIGHT = 5.0  # how strongly a clean canonical layout backs its value (held-out choice)
SURE_WITHOUT_LAYOUT = 0.9  # with a known polarity, a classifier this sure needs no layout check
MIN_FACE_CONTRAST = 12.0  # Lab distance below which face and pips are indistinguishable
FACE_SPREAD_FACTOR = 3.0  # face pixels lie within this many times the face's own colour spread
BOX_SLACK = 1.1  # how far outside the box (as a factor of its half size) the face may reach


@dataclass(frozen=True)
class FaceReading:
    """The top face of one die as read from an image."""

    value: int | None  # 1..6, or None when it cannot be read with confidence
    confidence: float  # 0..1: high only when the read is clearly right
    pip_centres: tuple[tuple[float, float], ...]  # in the coordinates of the input image
    polarity: str  # "dark" (dark pips on a light face) or "light" (light pips on a dark face)
    # The classifier's best answer is "no readable top face" (tray, a die's edge, a screw head):
    # not a die that cannot be read, no die at all.
    no_face: bool = False
    # The middle of the top face's region, in input coordinates, when the layout pass measured it:
    # a box off the die's centre can be moved there to read the face again (see the reader).
    face_centre: tuple[float, float] | None = None


@dataclass(frozen=True)
class _Patch:
    """The die scaled to the normalized size, and how to map its pixels back to the input."""

    bgr: np.ndarray
    scale: float  # normalized pixels per input pixel
    origin: tuple[float, float]  # input coordinates of the patch's top-left pixel
    box_centre: tuple[float, float]  # box centre in patch pixels
    box_half: tuple[float, float]  # half the box's width and height in patch pixels

    def to_input(self, point: tuple[float, float]) -> tuple[float, float]:
        return (
            self.origin[0] + point[0] / self.scale,
            self.origin[1] + point[1] / self.scale,
        )


@dataclass(frozen=True)
class _Blob:
    centre: tuple[float, float]
    area: float
    circularity: float
    polarity: str


@dataclass(frozen=True)
class _Candidate:
    fit: LayoutFit
    blobs: tuple[_Blob, ...]
    polarity: str
    confidence: float


def read_face(
    image_bgr: np.ndarray,
    box: tuple[float, float, float, float],
    *,
    polarity: str | None = None,
    die_side_px: float | None = None,
    min_confidence: float = MIN_CONFIDENCE,
) -> FaceReading:
    """Read the top face of the die in ``box`` (x, y, w, h) of ``image_bgr``.

    ``polarity`` ("dark" or "light") is the die's pip polarity when calibration knows it; None
    means try both. ``die_side_px`` is the die's side in input pixels when known; it reins in a
    box much looser than such a die needs (a tight box is kept as it is). Below
    ``min_confidence`` the value is None (benchmarks pass 0 to see every would-be value).

    The trained classifier (``face_cnn``) and the classical layout reader read the same patch; a
    clean layout raises its value's probability, and a value without a layout backing it keeps
    only NO_LAYOUT_FACTOR of its probability as confidence.
    Without the classifier's weights the classical reader answers alone. With a known polarity
    (calibrated mode) and a classifier at least ``SURE_WITHOUT_LAYOUT`` sure, the layout pass is
    skipped for speed and ``pip_centres`` is empty and ``face_centre`` None.
    """
    _check_polarity(polarity)
    patch = normalized_patch(image_bgr, box, die_side_px)
    if not face_cnn.model_available():
        return _classical_reading(patch, polarity, min_confidence)
    probabilities = face_cnn.class_probabilities(patch.bgr)
    value = int(np.argmax(probabilities))
    sure = float(probabilities[value])
    if value != 0 and sure >= SURE_WITHOUT_LAYOUT and polarity is not None:
        # Calibrated and the classifier is sure: on held-out dice no such reading was wrong, so
        # the classical pass (most of the time per die) is skipped; no pip centres then.
        return FaceReading(value if sure >= min_confidence else None, round(sure, 4), (), polarity)
    face_centre, candidate = _face_and_layout(patch, polarity)
    centre = None if face_centre is None else patch.to_input(face_centre)
    # A canonical layout is evidence for its value: it multiplies that value's probability by
    # up to 1 + LAYOUT_WEIGHT (a clean layout tips an unsure classifier, a doubtful one barely).
    combined = probabilities.astype(np.float64)
    if candidate is not None:
        combined[candidate.fit.value] *= 1.0 + LAYOUT_WEIGHT * candidate.confidence
    combined /= combined.sum()
    value = int(np.argmax(combined))
    polarity_read = _polarity_of(patch, candidate, polarity)
    if value == 0:
        # No readable face (tray, a die's edge, glare over the pips).
        return FaceReading(None, round(1.0 - float(combined[0]), 4), (), polarity_read, True,
                           centre)
    agrees = candidate is not None and candidate.fit.value == value
    confidence = float(combined[value]) * (1.0 if agrees else NO_LAYOUT_FACTOR)
    centres = (
        tuple(patch.to_input(b.centre) for b in candidate.blobs)  # type: ignore[union-attr]
        if agrees
        else ()
    )
    return FaceReading(
        value if confidence >= min_confidence else None,
        round(confidence, 4),
        centres,
        polarity_read,
        face_centre=centre,
    )


def read_face_classical(
    image_bgr: np.ndarray,
    box: tuple[float, float, float, float],
    *,
    polarity: str | None = None,
    die_side_px: float | None = None,
    min_confidence: float = MIN_CONFIDENCE,
) -> FaceReading:
    """The classical reader alone (pip blobs and layout check), without the trained classifier."""
    _check_polarity(polarity)
    patch = normalized_patch(image_bgr, box, die_side_px)
    return _classical_reading(patch, polarity, min_confidence)


def _classical_reading(patch: _Patch, polarity: str | None, min_confidence: float) -> FaceReading:
    face_centre, candidate = _face_and_layout(patch, polarity)
    centre = None if face_centre is None else patch.to_input(face_centre)
    if candidate is None:
        return FaceReading(None, 0.0, (), polarity or _polarity_of(patch, None, None),
                           face_centre=centre)
    centres = tuple(patch.to_input(b.centre) for b in candidate.blobs)
    value = candidate.fit.value if candidate.confidence >= min_confidence else None
    return FaceReading(value, round(candidate.confidence, 4), centres, candidate.polarity,
                       face_centre=centre)


def _polarity_of(patch: _Patch, candidate: _Candidate | None, polarity: str | None) -> str:
    """The given polarity, else the layout's, else whether the patch's extremes are dark spots."""
    if polarity is not None:
        return polarity
    if candidate is not None:
        return candidate.polarity
    gray = cv2.cvtColor(patch.bgr, cv2.COLOR_BGR2GRAY).astype(np.float32)
    median = float(np.median(gray))
    return "dark" if median - gray.min() >= gray.max() - median else "light"


def estimate_polarity(image_bgr: np.ndarray, box: tuple[float, float, float, float]) -> str:
    """The pip polarity of the die in ``box``, for calibration to learn once per die colour.

    The classical reader tries both polarities and keeps the one whose pips form a face; with no
    face found it falls back to whether the patch's extremes are dark or light spots.
    """
    patch = normalized_patch(image_bgr, box, None)
    return _polarity_of(patch, _face_and_layout(patch, None)[1], None)


def _check_polarity(polarity: str | None) -> None:
    if polarity is not None and polarity not in POLARITIES:
        raise ValueError(f"polarity must be one of {POLARITIES} or None, not {polarity!r}")


def _check_inputs(image_bgr: np.ndarray, box: tuple[float, float, float, float]) -> None:
    if not isinstance(image_bgr, np.ndarray) or image_bgr.dtype != np.uint8:
        raise ValueError("image_bgr must be a uint8 numpy array")
    if image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
        raise ValueError(f"image_bgr must be H x W x 3 (BGR), not shape {image_bgr.shape}")
    if len(box) != 4 or not all(math.isfinite(float(v)) for v in box):
        raise ValueError(f"box must be four finite numbers (x, y, w, h), not {box!r}")
    x, y, w, h = (float(v) for v in box)
    if w < 2 or h < 2:
        raise ValueError(f"box {box!r} is empty: width and height must be at least 2 pixels")
    height, width = image_bgr.shape[:2]
    if x >= width or y >= height or x + w <= 0 or y + h <= 0:
        raise ValueError(f"box {box!r} lies outside the {width}x{height} image")


def normalized_patch(
    image_bgr: np.ndarray, box: tuple[float, float, float, float], die_side_px: float | None
) -> _Patch:
    """The box and a margin around it, scaled so the die is NORMALIZED_BOX_PX across."""
    _check_inputs(image_bgr, box)
    if die_side_px is not None and not (math.isfinite(die_side_px) and die_side_px > 1):
        raise ValueError(f"die_side_px must be a positive number, not {die_side_px!r}")
    x, y, w, h = (float(v) for v in box)
    size = max(w, h)
    if die_side_px is not None:
        # The known size only reins in a box too loose for the die; a tight box is kept, so a
        # side underestimated by a quarter or so does not zoom the die out of the patch.
        size = min(size, float(die_side_px) * SIDE_TO_BOX * LOOSE_BOX_SLACK)
    scale = NORMALIZED_BOX_PX / size
    side_px = round(NORMALIZED_BOX_PX * (1.0 + 2.0 * PATCH_MARGIN))
    cx, cy = x + w / 2.0, y + h / 2.0
    origin = (cx - side_px / 2.0 / scale, cy - side_px / 2.0 / scale)
    matrix = np.array(
        [[scale, 0.0, -origin[0] * scale], [0.0, scale, -origin[1] * scale]], dtype=np.float64
    )
    # Area averaging when shrinking keeps small pips from aliasing away.
    source = image_bgr
    if scale < 0.5:
        x0 = max(int(origin[0]), 0)
        y0 = max(int(origin[1]), 0)
        x1 = min(int(origin[0] + side_px / scale) + 2, image_bgr.shape[1])
        y1 = min(int(origin[1] + side_px / scale) + 2, image_bgr.shape[0])
        crop = image_bgr[y0:y1, x0:x1]
        shrunk = cv2.resize(
            crop,
            (max(1, round(crop.shape[1] * scale)), max(1, round(crop.shape[0] * scale))),
            interpolation=cv2.INTER_AREA,
        )
        fx = shrunk.shape[1] / crop.shape[1]
        fy = shrunk.shape[0] / crop.shape[0]
        matrix = np.array(
            [
                [scale / fx, 0.0, (x0 - origin[0]) * scale],
                [0.0, scale / fy, (y0 - origin[1]) * scale],
            ],
            dtype=np.float64,
        )
        source = shrunk
    bgr = cv2.warpAffine(
        source, matrix, (side_px, side_px), flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return _Patch(
        bgr=bgr,
        scale=scale,
        origin=origin,
        box_centre=(side_px / 2.0, side_px / 2.0),
        box_half=(w * scale / 2.0, h * scale / 2.0),
    )


def _face_and_layout(
    patch: _Patch, polarity: str | None
) -> tuple[tuple[float, float] | None, _Candidate | None]:
    """The centre of the top face's region (patch pixels) and the best pip layout on it."""
    lab = cv2.cvtColor(cv2.GaussianBlur(patch.bgr, (3, 3), 0), cv2.COLOR_BGR2LAB)
    lab = lab.astype(np.float32)
    face = _face_region(lab, patch.box_centre, patch.box_half)
    if face is None:
        return None, None
    face_mask, face_lab, contrast, distance = face
    holes = _pip_blobs(distance, lab, face_mask, face_lab)
    moments = cv2.moments(face_mask, binaryImage=True)
    if moments["m00"] <= 0:
        return None, None
    face_centre = (moments["m10"] / moments["m00"], moments["m01"] / moments["m00"])
    face_side = math.sqrt(moments["m00"])
    best: _Candidate | None = None
    for pol in (polarity,) if polarity else POLARITIES:
        blobs = [b for b in holes if b.polarity == pol]
        candidate = _fit_blobs(blobs, face_centre, face_side, pol, contrast)
        if candidate is not None and (best is None or candidate.confidence > best.confidence):
            best = candidate
    return face_centre, best


@cache
def _pixel_grid(size: int) -> tuple[np.ndarray, np.ndarray]:
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    return yy, xx


def _face_region(
    lab: np.ndarray, centre: tuple[float, float], box_half: tuple[float, float]
) -> tuple[np.ndarray, np.ndarray, float, np.ndarray] | None:
    """The filled top-face mask, the face colour, the face/pip contrast and the colour distance.

    The mask is cut to the box (with a little slack for an imprecise detector) so a tray of the
    die's own colour does not join the face.
    """
    yy, xx = _pixel_grid(lab.shape[0])
    in_box = (np.abs(xx - centre[0]) <= box_half[0] * BOX_SLACK) & (
        np.abs(yy - centre[1]) <= box_half[1] * BOX_SLACK
    )
    radius2 = (xx - centre[0]) ** 2 + (yy - centre[1]) ** 2
    inner = radius2 <= (0.22 * NORMALIZED_BOX_PX) ** 2
    face_lab = np.median(lab[inner], axis=0)
    distance = np.sqrt(np.sum((lab - face_lab) ** 2, axis=2))
    disk = radius2 <= (0.38 * NORMALIZED_BOX_PX) ** 2
    values = np.clip(distance[disk], 0, 255).astype(np.uint8)
    otsu, _ = cv2.threshold(values.reshape(-1, 1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    # The face's own spread of colour (texture, shading) sets how far the face may stray from
    # its median; a side face, shaded differently, usually lies beyond that.
    near = distance[inner]
    near = near[near < otsu]
    spread = float(np.percentile(near, 90)) if near.size else 0.0
    threshold = max(min(float(otsu), FACE_SPREAD_FACTOR * spread + 6.0), MIN_FACE_CONTRAST)
    body = (distance < threshold) & in_box
    # The ring outside the box is mostly the tray. Where the tray's colour differs from the face,
    # a pixel nearer the tray's colour than the face's is tray, not face: a pale tray must not
    # join a white face round the die and swallow its side faces.
    ring = ~(
        (np.abs(xx - centre[0]) <= box_half[0]) & (np.abs(yy - centre[1]) <= box_half[1])
    )
    if ring.any():
        tray_lab = np.median(lab[ring], axis=0)
        if float(np.linalg.norm(tray_lab - face_lab)) >= 2 * MIN_FACE_CONTRAST:
            body &= distance < np.sqrt(np.sum((lab - tray_lab) ** 2, axis=2))
    body = body.astype(np.uint8)
    count, labels, _stats, _ = cv2.connectedComponentsWithStats(body, connectivity=4)
    if count <= 1:
        return None
    overlap = np.bincount(labels[inner], minlength=count)
    overlap[0] = 0  # label 0 is everything that is not face-coloured
    component = int(np.argmax(overlap))
    if overlap[component] == 0:
        return None
    region = (labels == component).astype(np.uint8)
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(region)
    cv2.drawContours(filled, contours, -1, 1, thickness=cv2.FILLED)
    contrast = float(np.percentile(values, 95))
    return filled, face_lab, contrast, distance


def _pip_blobs(distance: np.ndarray, lab: np.ndarray, face_mask: np.ndarray,
               face_lab: np.ndarray) -> list[_Blob]:
    """Holes in the face region: spots that differ from the face colour, with their roundness."""
    inside = distance[face_mask > 0]
    values = np.clip(inside, 0, 255).astype(np.uint8).reshape(-1, 1)
    otsu, _ = cv2.threshold(values, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    threshold = max(float(otsu), MIN_FACE_CONTRAST)
    spots = ((distance >= threshold) & (face_mask > 0)).astype(np.uint8)
    count, labels, stats, centroids = cv2.connectedComponentsWithStats(spots, connectivity=8)
    blobs: list[_Blob] = []
    for index in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[index])
        if area < 4:
            continue
        # A disc fills pi/4 of its bounding square; a streak or a crescent fills far less.
        circularity = min(1.0, area / (math.pi / 4.0 * max(w, h) ** 2))
        own = labels[y : y + h, x : x + w] == index
        lightness = float(lab[y : y + h, x : x + w, 0][own].mean())
        blobs.append(
            _Blob(
                centre=(float(centroids[index][0]), float(centroids[index][1])),
                area=float(area),
                circularity=circularity,
                polarity="light" if lightness > face_lab[0] else "dark",
            )
        )
    return blobs


def _fit_blobs(
    blobs: list[_Blob],
    face_centre: tuple[float, float],
    face_side: float,
    polarity: str,
    contrast: float,
) -> _Candidate | None:
    """The best canonical layout among the round, similar-sized blobs."""
    face_area = face_side**2
    round_blobs = [
        b
        for b in blobs
        if b.circularity >= 0.55 and 0.004 * face_area <= b.area <= 0.12 * face_area
    ]
    if not round_blobs:
        return None
    round_blobs.sort(key=lambda b: -b.area)
    best: _Candidate | None = None
    # Try the biggest blobs as the reference size: side-face pips are foreshortened (smaller),
    # specks are smaller still.
    for reference in round_blobs[:3]:
        similar = [b for b in round_blobs if 0.4 * reference.area <= b.area <= 2.2 * reference.area]
        similar.sort(
            key=lambda b: math.hypot(b.centre[0] - face_centre[0], b.centre[1] - face_centre[1])
        )
        for keep in range(min(len(similar), 6), 0, -1):
            chosen = tuple(similar[:keep])
            fit = fit_layout(np.array([b.centre for b in chosen]), face_centre, face_side)
            if fit is None:
                continue
            confidence = _confidence(fit, chosen, len(similar) - keep, contrast)
            if best is None or confidence > best.confidence:
                best = _Candidate(fit, chosen, polarity, confidence)
            break
    return best


def _confidence(fit: LayoutFit, blobs: tuple[_Blob, ...], dropped: int, contrast: float) -> float:
    """How sure the layout is right: grid fit, centring, equal sizes, roundness, contrast."""
    areas = np.array([b.area for b in blobs])
    size_spread = float(areas.std() / areas.mean()) if len(blobs) > 1 else 0.0
    roundness = float(np.mean([b.circularity for b in blobs]))
    score = math.exp(-((fit.residual / 0.2) ** 2))
    # A lone pip must sit right at the centre: a two whose other pip was missed is off-centre.
    centring = 0.08 if fit.value == 1 else 0.15
    score *= math.exp(-((fit.centre_offset / centring) ** 2))
    score *= math.exp(-((size_spread / 0.35) ** 2))
    score *= min(1.0, roundness / 0.75)
    score *= min(1.0, contrast / 25.0)
    score *= 0.25**dropped  # blobs left out are usually pips missed, not noise
    return float(max(0.0, min(1.0, score)))
