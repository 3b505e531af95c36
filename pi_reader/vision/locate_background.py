"""Telling dice from tray: a smooth background model and a shadow-blind foreground mask.

Each pixel's colour vector is compared with the tray's colour vector at that place. The part of
the pixel orthogonal to the tray's colour direction is a change of hue or saturation (a die); the
part along it says how bright the pixel is against the tray. A shadow only scales the tray's
colour down, so it has no orthogonal part and is darker, never brighter: testing "other colour"
or "brighter", and never "darker", leaves shadows out. Distances are divided by the tray's own
pixel noise so one threshold fits a glossy white board and a grainy dark felt alike.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

# A pixel is foreground this many noise units away from the tray (a lower level with
# hysteresis was tried: it grows dice into their tinted shadows and merges neighbours).
FOREGROUND_Z = 7.0
# Noise floors (in 0..255 units) so a perfectly clean synthetic tray does not turn every JPEG
# ripple into a die.
MIN_NOISE = 1.5

_SUM = np.ones((1, 3), np.float32)


def robust_background(image_bgr: np.ndarray, cols: int, median: int,
                      ignore: np.ndarray | None = None) -> np.ndarray:
    """The surface without the dice, as a coarse image ``cols`` cells wide (float32 BGR).

    The image is averaged down to cells, ``ignore`` cells (the dice found so far) are painted
    over from their surroundings, and a ``median`` x ``median`` cell median filter removes what
    is left of anything smaller than half its window. A median keeps a tray's edge sharp, where
    a mean or a coarse grid would smear the tray wall into a band of false dice.
    """
    h, w = image_bgr.shape[:2]
    rows = max(2, round(cols * h / w))
    cells = cv2.resize(image_bgr, (cols, rows), interpolation=cv2.INTER_AREA)
    if ignore is not None:
        covered = cv2.resize(ignore.astype(np.float32), (cols, rows), interpolation=cv2.INTER_AREA)
        holes = (covered > 0.2).astype(np.uint8)
        if holes.all():
            raise ValueError("no surface left to model the background")
        if holes.any():
            cells = cv2.inpaint(cells, holes, 2, cv2.INPAINT_TELEA)
    if median > 1:
        cells = cv2.medianBlur(cells, median)
    return cells.astype(np.float32)


@dataclass(frozen=True)
class Background:
    """The tray's colour at every pixel, split into a unit colour direction and a brightness.

    Built once per scene and frame size (see :func:`background`), then reused for every frame.
    """

    bgr: np.ndarray  # HxWx3 float32 (+1, so never zero)
    unit: np.ndarray  # HxWx3 float32, bgr / |bgr|
    level: np.ndarray  # HxW float32, |bgr|
    neighbours: tuple[Background, ...] = ()  # the same shifted by a cell up, down, left, right


def background(background_bgr: np.ndarray, shift: int = 0) -> Background:
    """Prepare a background for comparisons; with ``shift`` also its four shifted copies.

    A pixel is then compared with the surface at its place and a ``shift`` away, and counts as
    surface if it matches any of them: where the coarse background blurs a tray's wall or edge,
    or a light's hot spot, one of the neighbours matches the pixel's own side, so the edge does
    not show up as a band of foreground. (Looking a shift away only at strong edges was tried:
    cheaper, but it lost dice and made phantoms under hot spots.)
    """
    bgr = background_bgr.astype(np.float32) + 1.0
    level = cv2.sqrt(cv2.transform(cv2.multiply(bgr, bgr), _SUM))
    unit = bgr / level[..., None]
    neighbours: tuple[Background, ...] = ()
    if shift > 0:
        h, w = bgr.shape[:2]
        neighbours = tuple(
            background(cv2.warpAffine(background_bgr.astype(np.float32),
                                      np.float32([[1, 0, dx], [0, 1, dy]]), (w, h),
                                      borderMode=cv2.BORDER_REPLICATE))
            for dx, dy in ((shift, 0), (-shift, 0), (0, shift), (0, -shift)))
    return Background(bgr, unit, level, neighbours)


@dataclass(frozen=True)
class Distances:
    """Per pixel: colour change orthogonal to the tray colour, and brightness above the tray."""

    other_colour: np.ndarray  # HxW float32, >= 0
    brighter: np.ndarray  # HxW float32, signed
    background_level: np.ndarray  # HxW float32, the tray's own brightness (same units)


def distances(image_bgr: np.ndarray, bg: Background, sample: np.ndarray | None = None,
              noise: tuple[float, float] | None = None) -> Distances:
    """Compare a frame with the tray background (same size).

    Exposure and white-balance drift since calibration is removed first: the frame is divided by
    a per-channel gain, the median ratio frame / background over ``sample`` pixels (dice cover
    little of a tray). With the scene's ``noise`` known, the neighbours are only consulted where
    the pixel is foreground against its own place (they can only take foreground away), which
    gives the same foreground for a fraction of the work.
    """
    step = 4
    ratios = (image_bgr[::step, ::step].astype(np.float32) + 1.0) / bg.bgr[::step, ::step]
    if sample is not None:
        ratios = ratios[sample[::step, ::step]]
    gains = np.median(ratios.reshape(-1, 3), axis=0)
    if not np.all(np.isfinite(gains)) or np.any(gains <= 0):
        gains = np.ones(3)
    img = cv2.multiply(image_bgr.astype(np.float32), (*(float(1.0 / g) for g in gains), 0.0))
    total = cv2.transform(cv2.multiply(img, img), _SUM)
    if noise is not None:
        return _distances_where_needed(img, total, bg, noise)
    across, brighter = None, None
    for surface in (bg, *bg.neighbours):
        along = cv2.transform(cv2.multiply(img, surface.unit), _SUM)
        other = cv2.sqrt(cv2.max(total - cv2.multiply(along, along), 0.0))
        bright = along - surface.level
        across = other if across is None else cv2.min(across, other)
        brighter = bright if brighter is None else cv2.min(brighter, bright)
    return Distances(across, brighter, bg.level)


def _distances_where_needed(img: np.ndarray, total: np.ndarray, bg: Background,
                            noise: tuple[float, float]) -> Distances:
    along = cv2.transform(cv2.multiply(img, bg.unit), _SUM)
    across = cv2.sqrt(cv2.max(total - cv2.multiply(along, along), 0.0))
    brighter = along - bg.level
    ys, xs = np.nonzero((across > FOREGROUND_Z * noise[0]) | (brighter > FOREGROUND_Z * noise[1]))
    if len(ys) and bg.neighbours:
        pixels, energy = img[ys, xs], total[ys, xs]
        for surface in bg.neighbours:
            near = np.einsum("ni,ni->n", pixels, surface.unit[ys, xs])
            across[ys, xs] = np.minimum(across[ys, xs],
                                        np.sqrt(np.maximum(energy - near * near, 0.0)))
            brighter[ys, xs] = np.minimum(brighter[ys, xs], near - surface.level[ys, xs])
    return Distances(across, brighter, bg.level)


def noise_levels(dist: Distances, tray: np.ndarray | None = None) -> tuple[float, float]:
    """Robust spread (1.4826 MAD) of the two distances over tray pixels: the scene's own noise."""
    step = 2
    across = dist.other_colour[::step, ::step]
    bright = dist.brighter[::step, ::step]
    if tray is not None:
        across = across[tray[::step, ::step]]
        bright = bright[tray[::step, ::step]]
    # ``across`` is a length, so its median is already a spread.
    colour_noise = 1.4826 * float(np.median(across))
    bright_noise = 1.4826 * float(np.median(np.abs(bright - np.median(bright))))
    return max(colour_noise, MIN_NOISE), max(bright_noise, MIN_NOISE)


def foreground(dist: Distances, colour_noise: float, bright_noise: float,
               darker_than: float | None = None) -> np.ndarray:
    """Pixels that are not tray (nor shadow on the tray): 1 where a die may be, else 0.

    ``darker_than`` (a fraction of the tray's brightness) also takes pixels darker than any
    shadow: needed for black dice on a pale surface when the dice's colours are unknown.
    """
    score = cv2.max(dist.other_colour * (1.0 / colour_noise), dist.brighter * (1.0 / bright_noise))
    mask = (score > FOREGROUND_Z).astype(np.uint8)
    if darker_than is not None:
        dark = dist.brighter + dist.background_level < dist.background_level * darker_than
        mask |= dark.astype(np.uint8)
    return mask
