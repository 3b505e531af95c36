"""Finding the dice in a frame, and saying which of them are not lying flat.

Two modes share one pipeline (foreground mask -> blobs -> one piece per die):

* calibrated: a :class:`SceneModel` learnt from one frame of the tray with the dice on it gives the
  tray's colour everywhere (a coarse background image with the dice painted out), the tray's own
  pixel noise and one die's size. A die is what differs from that tray in colour or is brighter
  than it; a shadow (same colour, darker) is not. A die the colour of the tray hardly differs
  from it: when the tray model counts too few dice, the learnt detector is asked for the rest.
* generic (no scene): a small learnt detector (``locate_detector``) finds the dice; the same
  pipeline, with the background, the noise and the die size measured from the frame itself (any
  plain surface, any dice size), gives a second opinion whose extra pieces the pips reader must
  confirm, and is the whole search when the detector's weights are missing.

Everything runs on a copy of the frame scaled to :data:`WORK_SIDE` pixels on its long side: a die
is then still 20 or more pixels across, and the whole search costs a few milliseconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import cv2
import numpy as np

from pi_reader.vision import locate_background as bgm
from pi_reader.vision import locate_blobs as blobs
from pi_reader.vision import locate_detector as detector
from pi_reader.vision.types import box_contains

WORK_SIDE = 512
SCENE_VERSION = 1
# The background is a coarse image this many cells wide (8 px cells at the working size): fine
# enough for a light's fall-off and a tray's wall, coarse enough to be a colour model.
BACKGROUND_COLS = 64
# The first background is a median over this many cells square: large against a die, so the
# dice vanish from it while the tray's edges stay.
ROUGH_MEDIAN = 7
# The second background, with the dice painted out, only smooths the surface's grain.
FINE_MEDIAN = 3
# Grid cells whose colour direction is within this angle (radians) of the colour under the
# dice are tray; the rendered trays' light fall-off and hot spots stay under 0.16.
TRAY_ANGLE = 0.25
# A tray outline covering this much of the frame is the whole frame.
WHOLE_FRAME = 0.95
# A calibration blob this many times the median die's area is two dice touching.
TOUCHING_AREA = 1.8
# Generic mode knows nothing of the dice's colours: a pixel darker than this fraction of the
# surface is a (black) die, not a shadow (diffuse room light casts lighter shadows).
GENERIC_DARKER_THAN = 0.55
# Dice whose boxes come within this fraction of a die's side of each other lie in one heap,
# which the learnt detector looks at again from close up.
HEAP_GAP = 0.1


class LocateError(Exception):
    """The dice cannot be found as asked (for example calibration sees 5 dice, not 6)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class SceneModel:
    """What calibration learnt about the tray, in a form that survives a JSON round trip.

    ``tray`` is the tray's outline as polygon corners in fractions of the frame's width and
    height; ``background`` is the empty tray's colour (B, G, R, 0..255) on a grid of
    ``[rows][cols]`` cells covering the frame, with its pixel noise; ``die_side_px`` is one die's
    footprint side (square root of its visible area) in pixels of ``frame_size`` (width, height).
    """

    tray: tuple[tuple[float, float], ...]
    background: tuple[tuple[tuple[float, float, float], ...], ...]
    chroma_noise: float
    brightness_noise: float
    die_side_px: float
    frame_size: tuple[int, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "version": SCENE_VERSION,
            "tray": [[round(x, 4), round(y, 4)] for x, y in self.tray],
            "background": {
                "bgr": [[[round(v, 1) for v in cell] for cell in row] for row in self.background],
                "chroma_noise": round(self.chroma_noise, 3),
                "brightness_noise": round(self.brightness_noise, 3),
            },
            "die_side_px": round(self.die_side_px, 2),
            "frame_size": list(self.frame_size),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SceneModel:
        """Validate and load; a ValueError names the first thing that is wrong."""
        if not isinstance(data, dict):
            raise ValueError("scene model: expected a JSON object")
        if data.get("version") != SCENE_VERSION:
            raise ValueError(f"scene model: unsupported version {data.get('version')!r} "
                             f"(expected {SCENE_VERSION})")
        try:
            tray = tuple((_number(p[0], "tray x", 0, 1), _number(p[1], "tray y", 0, 1))
                         for p in _list(data["tray"], "tray"))
            if len(tray) < 3:
                raise ValueError("scene model: tray needs at least 3 corners")
            bgd = data["background"]
            if not isinstance(bgd, dict):
                raise ValueError("scene model: background must be an object")
            grid = tuple(
                tuple(tuple(_number(v, "background colour", 0, 255)
                            for v in _list(cell, "background cell", 3))
                      for cell in _list(row, "background row"))
                for row in _list(bgd["bgr"], "background.bgr"))
            if not grid or len({len(row) for row in grid}) != 1 or not grid[0]:
                raise ValueError("scene model: background.bgr must be a non-empty rectangle")
            frame_size = _list(data["frame_size"], "frame_size", 2)
            return cls(
                tray=tray,
                background=grid,
                chroma_noise=_number(bgd["chroma_noise"], "chroma_noise", 1e-6, 1e6),
                brightness_noise=_number(bgd["brightness_noise"], "brightness_noise", 1e-6, 1e6),
                die_side_px=_number(data["die_side_px"], "die_side_px", 2, 1e5),
                frame_size=(int(_number(frame_size[0], "frame width", 1, 1e6)),
                            int(_number(frame_size[1], "frame height", 1, 1e6))),
            )
        except KeyError as missing:
            raise ValueError(f"scene model: missing field {missing}") from None
        except (TypeError, IndexError) as bad:
            raise ValueError(f"scene model: malformed ({bad})") from None

    def background_image(self) -> np.ndarray:
        return np.asarray(self.background, np.float32)


def _list(value: Any, name: str, length: int | None = None) -> list[Any]:
    if not isinstance(value, list) or (length is not None and len(value) != length):
        want = f"a list of {length}" if length is not None else "a list"
        raise ValueError(f"scene model: {name} must be {want}, got {value!r:.60}")
    return value


def _number(value: Any, name: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise ValueError(f"scene model: {name} must be a number in [{low}, {high}], got {value!r}")
    return float(value)


@dataclass(frozen=True)
class DieCandidate:
    """One die found in a frame, in the frame's own pixels.

    ``box`` holds the whole visible die (top face and any visible side faces); ``top_face`` is the
    4x2 corners of the footprint's minimum-area rectangle (the top face's best estimate);
    ``side_px`` the die's side; ``score`` (0..1) how much the piece looks like one whole die.
    ``confirmed`` is False for a piece only the classical search found beside the detector's
    dice: the reader counts it as a die only if its top face reads clearly.
    """

    box: tuple[int, int, int, int]
    top_face: np.ndarray
    side_px: float
    mask_area: int
    cocked: bool
    score: float
    confirmed: bool = True
    # The box the first search gave this die, when a closer look at its heap moved it: a face
    # read unsurely in the new box is checked against the first (see the reader).
    first_box: tuple[int, int, int, int] | None = None

    @property
    def centre(self) -> tuple[float, float]:
        x, y, w, h = self.box
        return (x + w / 2.0, y + h / 2.0)


def find_dice(frame_bgr: np.ndarray, scene: SceneModel | None = None, *,
              apart: bool = False, expected: int | None = None) -> list[DieCandidate]:
    """Every die in the frame, largest score first; calibrated when ``scene`` is given.

    ``apart`` says the dice lie apart (the calibration frame): each blob is then one die, never
    split, and the die size is the scene's own rather than re-measured on the frame.
    ``expected`` is how many dice a calibrated frame should hold: when the tray model finds
    fewer, the learnt detector looks for the rest (a die the colour of the tray hardly differs
    from it), and what it finds apart from the others comes back unconfirmed.

    Without a scene the learnt detector (``models/locate-centernet.onnx``) finds the dice when
    its weights are there, and the classical generic search adds what it finds apart from them
    as unconfirmed candidates; without the weights the classical search alone answers.
    """
    shrunk, scale = _shrunk(frame_bgr)  # checks the frame first
    small = _smoothed(shrunk)
    if scene is None:
        if not detector.available():
            return _find_generic(small, scale)
        detected = _detected(frame_bgr, shrunk)
        if len(detected) >= 2:
            detected = _heaps_seen_closer(
                frame_bgr, detected, float(np.median([d.side_px for d in detected])))
        return _with_second_opinion(detected, _find_beside(small, scale, detected))
    background, tray = _scene_at(scene, small.shape[:2])
    noise = (scene.chroma_noise, scene.brightness_noise)
    dist = bgm.distances(small, background, tray > 0, noise)
    side = scene.die_side_px * frame_bgr.shape[1] / scene.frame_size[0] * scale
    fg = bgm.foreground(dist, scene.chroma_noise, scene.brightness_noise)
    mask = blobs.clean_mask(fg & tray, side)
    if apart:
        pieces = blobs.pieces_apart(mask, side * side)
    else:
        pieces = blobs.pieces_from_mask(mask, side * side, refine=True)
    # A tray's wall seen through the coarse background leaves lines, never die-shaped pieces.
    found = _candidates([p for p in pieces if not p.is_a_line()], scale)
    if not detector.available():
        return found
    if not apart:  # dice said to lie apart make no heaps
        found = _heaps_seen_closer(frame_bgr, found, side / scale)
    if expected is None or len(found) >= expected:
        return found
    on_tray = [die for die in _detected(frame_bgr, shrunk)
               if tray[min(tray.shape[0] - 1, round(die.centre[1] * scale)),
                       min(tray.shape[1] - 1, round(die.centre[0] * scale))]]
    return _with_second_opinion(found, on_tray)


@lru_cache(maxsize=4)
def _scene_at(scene: SceneModel, shape: tuple[int, int]) -> tuple[bgm.Background, np.ndarray]:
    """The scene's background and tray mask at the working size (the same for every frame)."""
    h, w = shape
    grid = scene.background_image()
    background = bgm.background(cv2.resize(grid, (w, h), interpolation=cv2.INTER_LINEAR),
                                _cell((h, w)))
    return background, _tray_mask(scene.tray, shape)


def learn_scene(frame_bgr: np.ndarray, expected_dice: int = 6) -> SceneModel:
    """Learn the tray from one frame holding exactly ``expected_dice`` dice, apart and flat.

    The dice are found twice: against a rough background (a median much larger than a die),
    then against the tray modelled with those dice painted out. Calibration
    dice lie apart, so blobs are counted, never split: a blob of two touching dice is refused.
    """
    if expected_dice < 1:
        raise ValueError(f"learn_scene: expected_dice must be at least 1, got {expected_dice}")
    small, scale = _working_copy(frame_bgr)
    rough = _rough_surface(small)
    dice, area = _calibration_blobs(small, rough, None, expected_dice)
    dice_mask = _painted_out(small.shape[:2], dice, np.sqrt(area))
    grid, background = _fine_surface(small, dice_mask)
    seen, area = _calibration_blobs(small, background, dice_mask == 0, expected_dice)
    try:
        dice = _counted_dice(seen, area, expected_dice)
    except LocateError as error:
        # Dice the colour of the tray (white dice on a white tray) barely differ from it; the
        # learnt detector knows a die by its shape and pips instead.
        dice = _detected_dice(frame_bgr, small.shape[:2], scale, expected_dice, error)
        # The dice the tray model does see measure a die's footprint better than the detector's
        # boxes, which are a tenth or so too large.
        if len(seen) < 2:
            area = float(np.median([len(points) for points in dice]))
        dice_mask = _painted_out(small.shape[:2], dice, np.sqrt(area))
        grid, background = _fine_surface(small, dice_mask)
    dist = bgm.distances(small, bgm.background(background, _cell(small.shape)), dice_mask == 0)
    chroma_noise, bright_noise = bgm.noise_levels(dist, dice_mask == 0)
    h, w = frame_bgr.shape[:2]
    size = (small.shape[1], small.shape[0])
    centres = [(float(p[:, 0].mean()) / size[0], float(p[:, 1].mean()) / size[1]) for p in dice]
    return SceneModel(
        tray=tray_outline(grid, centres),
        background=tuple(tuple(tuple(float(v) for v in cell) for cell in row) for row in grid),
        chroma_noise=chroma_noise,
        brightness_noise=bright_noise,
        die_side_px=float(np.sqrt(area)) / scale,
        frame_size=(w, h),
    )


def _painted_out(shape: tuple[int, int], dice: list[np.ndarray], side: float) -> np.ndarray:
    """The dice (x, y point lists) grown by a die's ``side``: what a surface model must not
    see, shadows included."""
    mask = np.zeros(shape, np.uint8)
    for points in dice:
        mask[points[:, 1], points[:, 0]] = 1
    grow = max(3, int(side))
    return cv2.dilate(mask, np.ones((grow, grow), np.uint8))


def _rough_surface(small: np.ndarray) -> np.ndarray:
    """The surface under a median much wider than a die (the dice vanish from it), at the
    working size."""
    grid = bgm.robust_background(small, BACKGROUND_COLS, ROUGH_MEDIAN)
    return cv2.resize(grid, (small.shape[1], small.shape[0]))


def _fine_surface(small: np.ndarray, painted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The surface with the ``painted`` dice left out, closely followed (a small median): as a
    coarse grid, and scaled back to the working size."""
    grid = bgm.robust_background(small, BACKGROUND_COLS, FINE_MEDIAN, ignore=painted > 0)
    size = (small.shape[1], small.shape[0])
    return grid, cv2.resize(grid, size, interpolation=cv2.INTER_LINEAR)


def _detected_dice(frame_bgr: np.ndarray, shape: tuple[int, int], scale: float, expected: int,
                   error: LocateError) -> list[np.ndarray]:
    """The learnt detector's dice as point lists (x, y) of their boxes at the working size,
    when it finds exactly ``expected`` of them; otherwise the tray model's own ``error``."""
    found = detector.detect(frame_bgr) if detector.available() else []
    if len(found) != expected:
        raise error
    dice = []
    for die in found:
        x, y, w, h = die.box
        x0, y0 = max(0, round(x * scale)), max(0, round(y * scale))
        x1 = min(shape[1], max(0, round((x + w) * scale)))
        y1 = min(shape[0], max(0, round((y + h) * scale)))
        xs, ys = np.meshgrid(np.arange(x0, x1), np.arange(y0, y1))
        dice.append(np.stack([xs.ravel(), ys.ravel()], axis=1))
    return dice


def tray_outline(grid: np.ndarray, dice_centres: list[tuple[float, float]]
                 ) -> tuple[tuple[float, float], ...]:
    """The tray's outline (fractions of the frame) from the background grid and where dice lie.

    The tray is the colour under the dice; grid cells whose colour direction stays within
    :data:`TRAY_ANGLE` of it and connect to the dice are tray (a light's hot spot shifts the
    colour by less than that, a wooden table or a tray wall of another colour by more). The
    outline is their convex hull grown by one cell, so a die against the wall stays inside.
    """
    rows, cols = grid.shape[:2]
    colours = grid.astype(np.float64) + 1.0
    under = np.median([colours[min(rows - 1, int(y * rows)), min(cols - 1, int(x * cols))]
                       for x, y in dice_centres], axis=0)
    cosine = (colours @ under) / (np.linalg.norm(colours, axis=2) * np.linalg.norm(under))
    similar = (np.arccos(np.clip(cosine, -1.0, 1.0)) < TRAY_ANGLE).astype(np.uint8)
    _, labels = cv2.connectedComponents(similar, connectivity=8)
    keep = {labels[min(rows - 1, int(y * rows)), min(cols - 1, int(x * cols))]
            for x, y in dice_centres} - {0}
    tray = np.isin(labels, list(keep)).astype(np.uint8)
    tray = cv2.dilate(tray, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero(tray)
    corners = np.concatenate([np.stack([xs + dx, ys + dy], 1) for dx in (0, 1) for dy in (0, 1)])
    hull = cv2.convexHull(corners.astype(np.float32)).reshape(-1, 2)
    outline = tuple((float(x) / cols, float(y) / rows) for x, y in hull)
    if cv2.contourArea(hull) >= WHOLE_FRAME * rows * cols or len(outline) < 3:
        return ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0))
    return outline


def _calibration_blobs(small: np.ndarray, background: np.ndarray, tray: np.ndarray | None,
                       expected: int) -> tuple[list[np.ndarray], float]:
    """Every die-like blob against ``background`` and one die's footprint area, however many
    blobs there are (the rough pass's are painted out whatever their number); LocateError when
    there is none."""
    dist = bgm.distances(small, bgm.background(background, _cell(small.shape)), tray)
    chroma_noise, bright_noise = bgm.noise_levels(dist, tray)
    fg = blobs.fill_holes(bgm.foreground(dist, chroma_noise, bright_noise))
    speck = (max(small.shape[:2]) / 100.0) ** 2
    # Only square, solid blobs are dice: a tray's edge or corner seen through a coarse
    # background makes lines and slivers, which calibration neither counts nor paints out.
    found = sorted((p for p in blobs.component_points(fg, speck) if blobs.is_solid_square(p)),
                   key=len, reverse=True)
    if not found:
        raise LocateError("calibration: no dice found on the tray")
    # Bridge a die's pips and edges with a closing scaled to the dice, then count again.
    area = float(np.median([len(p) for p in found[:expected]]))
    fg = blobs.clean_mask(fg, np.sqrt(area))
    found = [p for p in blobs.component_points(fg, blobs.MIN_PIECE_FRACTION * area)
             if blobs.is_solid_square(p) or blobs.is_dice_chain(p)]
    area = float(np.median([len(p) for p in found])) if found else area
    return found, area


def _counted_dice(found: list[np.ndarray], area: float, expected: int) -> list[np.ndarray]:
    """Exactly ``expected`` calibration dice from the blobs, or LocateError saying what is wrong."""
    if len(found) < expected:
        # Dice laid close together may merge into one blob: split what is clearly several dice.
        found = [part for points in found
                 for part in blobs.split_points(points, blobs.dice_in_blob(points, area))]
    if len(found) != expected:
        raise LocateError(f"calibration: found {len(found)} dice, expected exactly {expected}; "
                          "lay all the dice apart on the empty tray, check the exposure, "
                          "and try again")
    if max(len(p) for p in found) > TOUCHING_AREA * area:
        raise LocateError("calibration: a die seems to lean on another or stand on an edge; "
                          "lay all the dice apart and flat on the tray and try again")
    return found


def _find_generic(small: np.ndarray, scale: float) -> list[DieCandidate]:
    """Dice of unknown colours and size: model the surface from the frame itself, twice.

    First against a median-filtered background whose window is much larger than a die; then,
    with the dice found painted out, against a finer one that follows the surface closely.
    """
    rough = _rough_surface(small)
    first = _generic_pass(small, rough, None)
    if first is None:
        return []
    pieces, side = first
    dice_mask = _painted_out(small.shape[:2], [piece.points for piece in pieces], side)
    _, fine = _fine_surface(small, dice_mask)
    second = _generic_pass(small, fine, dice_mask == 0)
    if second is None:
        return []
    return _plausible_dice(second[0], small.shape, scale)


def _find_beside(small: np.ndarray, scale: float, known: list[DieCandidate]
                 ) -> list[DieCandidate]:
    """The classical search's dice apart from ``known`` ones, in one pass against the rough
    surface (its window is wide enough to lose a die): the detector's second opinion.

    The known dice's boxes are left out of the search, which spares splitting the heaps they lie
    in. A second pass against a finer surface found one die more in 1,662 for 90 ms more CPU per
    7.5 MP photo (real-d6-overhead), so it is not made.
    """
    known_mask = np.zeros(small.shape[:2], np.uint8)
    for die in known:
        x, y, w, h = (round(v * scale) for v in die.box)
        known_mask[max(0, y):max(0, y + h), max(0, x):max(0, x + w)] = 1
    rough = _rough_surface(small)
    found = _generic_pass(small, rough, None, known_mask > 0, shift=0)
    return [] if found is None else _plausible_dice(found[0], small.shape, scale)


def _plausible_dice(pieces: list[blobs.Piece], shape: tuple[int, ...], scale: float
                    ) -> list[DieCandidate]:
    """A die cut by the frame's edge cannot be read; strips, rims and shadows are not square."""
    return _candidates(
        [p for p in pieces if p.looks_like_a_die() and not p.touches_edge(shape)], scale)


def _generic_pass(small: np.ndarray, background: np.ndarray, surface: np.ndarray | None,
                  known: np.ndarray | None = None, shift: int | None = None
                  ) -> tuple[list[blobs.Piece], float] | None:
    """Dice against one background estimate, with noise and die size measured on this frame.

    The die size is measured on every die in view; ``known`` pixels (a boolean mask) are then
    left out of the search for pieces. ``shift`` is how far a pixel looks for its surface
    (default: a cell).
    """
    shift = _cell(small.shape) if shift is None else shift
    dist = bgm.distances(small, bgm.background(background, shift), surface)
    chroma_noise, bright_noise = bgm.noise_levels(dist, surface)
    fg = bgm.foreground(dist, chroma_noise, bright_noise, GENERIC_DARKER_THAN)
    min_area = (max(small.shape[:2]) / 100.0) ** 2
    area = blobs.typical_die_area(blobs.clean_mask(fg, np.sqrt(min_area) * 3), min_area)
    if area is None:
        return None
    side = float(np.sqrt(area))
    mask = blobs.clean_mask(fg, side)
    if known is not None:
        mask[known] = 0
    return blobs.pieces_from_mask(mask, area), side


def _detected(frame_bgr: np.ndarray, shrunk: np.ndarray) -> list[DieCandidate]:
    """Candidates from the learnt detector. ``shrunk`` is the working copy before smoothing,
    which spares the detector its own pass over a large frame."""
    return [_detected_candidate(found) for found in detector.detect(frame_bgr, shrunk=shrunk)]


def _detected_candidate(found: detector.Detection) -> DieCandidate:
    """A detection as a candidate: its box is a tight box of the visible die. The net says
    nothing of a die's tilt, so such a candidate is never marked cocked."""
    x0, y0, w, h = found.box
    corners = np.array([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]], np.float32)
    return DieCandidate(box=(round(x0), round(y0), round(w), round(h)), top_face=corners,
                        side_px=float(np.sqrt(w * h)), mask_area=round(w * h), cocked=False,
                        score=found.score)


def _heaps_seen_closer(frame_bgr: np.ndarray, found: list[DieCandidate], die_side: float
                       ) -> list[DieCandidate]:
    """``found``, with each heap of touching dice (boxes overlapping or within HEAP_GAP of a die
    of each other) replaced by the dice the learnt detector sees in it from close up, when it
    sees at least as many.

    The tray model cuts a blob of touching dice into as many pieces as its area holds dice, by
    position alone: the cuts miss the seams and the shadows join the pieces, so each piece's box
    takes in part of its neighbours (on qwixx-rendered-more a third too large and a fifth of a
    die off), and the pips reader is shown the wrong face. The detector's own look at a whole
    frame shows it dice at the low end of the sizes it learnt, where a heap blurs. A closer look
    (a die at the middle of those sizes) tells touching dice apart. A die it finds where no
    candidate of the heap lay comes back unconfirmed, for the pips reader to accept; one that
    belongs to a die outside the heap (the heap's box may reach over it) is left out. A heap with
    a die not lying flat keeps its pieces: only the tray model sees a die lean.
    """
    out: list[DieCandidate] = []
    for heap in _heaps(found, HEAP_GAP * die_side):
        if len(heap) < 2 or any(c.cocked for c in heap):
            out.extend(heap)
            continue
        x0 = min(c.box[0] for c in heap)
        y0 = min(c.box[1] for c in heap)
        x1 = max(c.box[0] + c.box[2] for c in heap)
        y1 = max(c.box[1] + c.box[3] for c in heap)
        others = [c for c in found if not any(c is h for h in heap)]
        seen = [_detected_candidate(d)
                for d in detector.look_closer(frame_bgr, (x0, y0, x1 - x0, y1 - y0), die_side)]
        seen = [d for d in seen if not any(_one_die(d, c) for c in others)]
        if len(seen) < len(heap):
            out.extend(heap)
            continue
        for die in seen:
            same = [c for c in heap if _one_die(die, c)]
            if not same:
                out.append(replace(die, confirmed=False))
                continue
            first = min(same, key=lambda c: math.dist(c.centre, die.centre))
            out.append(replace(die, first_box=first.box))
    return sorted(out, key=lambda c: -c.score)


def _heaps(found: list[DieCandidate], gap: float) -> list[list[DieCandidate]]:
    """The candidates in groups of boxes that overlap or lie within ``gap`` of each other."""
    def near(a: DieCandidate, b: DieCandidate) -> bool:
        (ax, ay, aw, ah), (bx, by, bw, bh) = a.box, b.box
        return (ax - gap < bx + bw and bx - gap < ax + aw
                and ay - gap < by + bh and by - gap < ay + ah)

    heaps: list[list[DieCandidate]] = []
    for candidate in found:
        near_it = [any(near(candidate, c) for c in heap) for heap in heaps]
        joined = [c for heap, hit in zip(heaps, near_it, strict=True) if hit for c in heap]
        heaps = [heap for heap, hit in zip(heaps, near_it, strict=True) if not hit]
        heaps.append([candidate, *joined])
    return heaps


def _one_die(a: DieCandidate, b: DieCandidate) -> bool:
    """Whether two candidates are one die: either's centre lies in the other's box."""
    return box_contains(a.box, b.centre) or box_contains(b.box, a.centre)


def _with_second_opinion(first: list[DieCandidate], second: list[DieCandidate]
                         ) -> list[DieCandidate]:
    """The ``first`` search's dice, then the ``second``'s that lie apart from all of them,
    unconfirmed.

    Generic mode: the detector misses a few dice its training photos had too few of (pale dice
    on a pale surface, lone pips); the classical search finds most of those but also shadows and
    screw heads. Calibrated mode, the other way round: the tray model misses a die the colour of
    the tray, which the detector sees. Either way the extras are for the pips reader to accept
    or drop.
    """
    return first + [replace(piece, confirmed=False) for piece in second
                    if not any(_one_die(piece, die) for die in first)]


def _cell(shape: tuple[int, ...]) -> int:
    """One background cell's size in working pixels: how far a pixel looks for its surface."""
    return max(1, round(shape[1] / BACKGROUND_COLS))


def _check_frame(frame_bgr: np.ndarray) -> None:
    if not isinstance(frame_bgr, np.ndarray) or frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3:
        raise ValueError("find_dice: expected an HxWx3 BGR image")
    if frame_bgr.dtype != np.uint8:
        raise ValueError(f"find_dice: expected 8-bit pixels, got {frame_bgr.dtype}")
    if min(frame_bgr.shape[:2]) < 16:
        raise ValueError(f"find_dice: frame too small ({frame_bgr.shape[1]}x{frame_bgr.shape[0]})")


def _working_copy(frame_bgr: np.ndarray) -> tuple[np.ndarray, float]:
    shrunk, scale = _shrunk(frame_bgr)
    return _smoothed(shrunk), scale


def _shrunk(frame_bgr: np.ndarray) -> tuple[np.ndarray, float]:
    """The frame scaled to WORK_SIDE on its long side (never up), and the scale."""
    _check_frame(frame_bgr)
    h, w = frame_bgr.shape[:2]
    scale = min(1.0, WORK_SIDE / max(h, w))
    small = frame_bgr if scale == 1.0 else cv2.resize(
        frame_bgr, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    return small, scale


def _smoothed(small: np.ndarray) -> np.ndarray:
    """The working copy the tray and surface models compare: pixel noise smoothed away."""
    return cv2.GaussianBlur(small, (3, 3), 0)


def _tray_mask(tray: tuple[tuple[float, float], ...], shape: tuple[int, int]) -> np.ndarray:
    h, w = shape
    poly = np.array([[x * (w - 1), y * (h - 1)] for x, y in tray], np.float32)
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [np.round(poly).astype(np.int32)], 1)
    return mask


def _candidates(pieces: list[blobs.Piece], scale: float) -> list[DieCandidate]:
    out = []
    for p in pieces:
        x, y, w, h = cv2.boundingRect(p.points)
        box = (int(np.floor(x / scale)), int(np.floor(y / scale)),
               int(np.ceil(w / scale)), int(np.ceil(h / scale)))
        corners = (cv2.boxPoints(p.rect) / scale).astype(np.float32)
        out.append(DieCandidate(box=box, top_face=corners, side_px=float(np.sqrt(p.area) / scale),
                                mask_area=round(p.area / scale / scale), cocked=p.cocked,
                                score=p.score))
    return sorted(out, key=lambda c: -c.score)
