"""Naming a die's colour among the five Qwixx colours, whatever the light.

Colours are compared in log-chromaticity, ``(log R/G, log B/G)``: a change of light colour or
exposure multiplies each channel by a constant (von Kries), which in this space is a plain shift
that is the same for the tray and for every die. So a die's chroma *relative to the tray's* does
not depend on the light, and the two white dice, being neutral, show where the light itself lies.

* At calibration the six dice are named without any stored colour: the pair of dice that best
  serves as the light's white point is taken as the whites and the other four are matched to red,
  yellow, green and blue by hue (:func:`name_six_dice`). Each colour then gets a model, its chroma
  relative to the tray, learnt from that frame (:class:`ColourModel`).
* Reading with a calibration, a die is given the nearest model; the margin to the runner-up says
  how sure that is.
* Without a calibration (generic mode) a die gets a best guess from its hue, or ``unknown``.

Only pixels that carry colour are used: the top face of a die is often clipped to white by the
light (its colour then shows only on its rounded edges and sides), pips and shadows are too dark
to have a reliable hue, and the tray around a die is not part of it.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cached_property, lru_cache

import cv2
import numpy as np

from pi_reader.rules import COLOURS, Colour
from pi_reader.vision.channels import brightest_channel, darkest_channel
from pi_reader.vision.types import UNKNOWN_COLOUR, WHITE, Box

Chroma = tuple[float, float]  # (log R/G, log B/G)

# Hue angles of the four coloured dice in (log R/G, log B/G), balanced by the white dice: the
# circular means over the 48 calibration frames of the generated scenes' train split (circular
# spread 14, 13, 12 and 21 degrees; training/render_scenes.py draws each die from the shades
# of several editions under lamps of 2700-6500 K). Only their order round the circle and their
# rough places matter for naming the dice of a calibration frame.
NOMINAL_HUES_DEG: dict[Colour, float] = {
    Colour.RED: -1.0, Colour.YELLOW: -83.0, Colour.GREEN: -144.0, Colour.BLUE: 125.0
}

# A channel at or above this is clipped: its ratio to the others no longer measures colour.
_CLIPPED = 250
# Pixels darker than this fraction of the die's bright level are pips or shadow: too noisy a hue.
# At double, lit pixels of a shaded die go too: 4 dice of the dr2val validation rolls are named
# wrong against 1; at half none is named otherwise.
_DARK_FRACTION = 0.35
# Generic mode: below this chroma a die is called white; a hue further than this from every
# nominal hue is "unknown". Both are in log-chroma units / degrees, far from any one data set: on
# the dr2val validation rolls' dice, named without a calibration, 94 % of the white ones lie
# under 0.18 and 0.5 % of the coloured ones; 1.2 % of the coloured ones lie 40 degrees or more
# from their nominal hue (9.9 % 20 or more).
_GENERIC_WHITE_CHROMA = 0.18
_GENERIC_MAX_HUE_ERROR_DEG = 40.0
# The tray's colour is sampled on a grid of this step (pixels).
_TRAY_STEP = 8
# Pixels this close to the tray's chroma are taken for tray (between dice, in shadows). Neither
# half nor double names a dr2val validation die otherwise (one fewer wrong, 1 -> 0, at both).
_TRAY_RADIUS = 0.12


class ColourError(ValueError):
    """The dice of a frame cannot be named as two whites plus red, yellow, green and blue."""


def log_chroma(bgr: np.ndarray) -> np.ndarray:
    """Per-pixel ``(log R/G, log B/G)`` of an ``(..., 3)`` BGR array (uint8 or float)."""
    pixels = np.asarray(bgr, dtype=np.float32) + 1.0
    log = np.log(pixels)
    return np.stack((log[..., 2] - log[..., 1], log[..., 0] - log[..., 1]), axis=-1)


def tray_chroma(frame: np.ndarray, boxes: list[tuple[int, int, int, int]]) -> Chroma:
    """The tray's chroma: the median over unclipped pixels outside every die box.

    Sampled on a grid of about 128 points along the long side (at least every _TRAY_STEP
    pixels): the tray fills most of the frame, so that is plenty at any resolution.
    """
    step = max(_TRAY_STEP, max(frame.shape[:2]) // 128)
    sample = frame[::step, ::step]
    keep = np.ones(sample.shape[:2], dtype=bool)
    for x, y, w, h in boxes:
        keep[max(0, y) // step : (y + h) // step + 1, max(0, x) // step : (x + w) // step + 1] = (
            False
        )
    pixels = sample[keep]
    brightest = brightest_channel(pixels) if len(pixels) else np.zeros(0)
    usable = pixels[(brightest < _CLIPPED) & (brightest > 8)]
    if len(usable) < 16:
        usable = pixels if len(pixels) else frame.reshape(-1, 3)
    chroma = log_chroma(usable)
    return (float(np.median(chroma[:, 0])), float(np.median(chroma[:, 1])))


# Colour needs a few thousand pixels per die at most: larger dice (high-resolution photos) are
# sampled on a grid so that about this many pixels lie along the die's side.
_SAMPLES_PER_SIDE = 48
# A die's box is the whole visible die, sides included; its colour is read from the box's
# middle, this share of it across, which is die whatever the die's turn (an inscribed square of
# a die turned 45 degrees is 0.71 of its box). Less is fewer pixels, more of them pips: at half,
# 10 dice of the dr2val validation rolls are named wrong against 1 (at double 75).
_DIE_MIDDLE = 0.7


def die_pixels(frame: np.ndarray, box: Box) -> tuple[np.ndarray, np.ndarray]:
    """The BGR patch under a die's box (sampled on a grid for large dice) and the mask of the
    die's middle, whose pixels name its colour."""
    x, y, w, h = box
    height, width = frame.shape[:2]
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(width, x + w), min(height, y + h)
    step = max(1, min(w, h) // _SAMPLES_PER_SIDE)
    patch = frame[y0:y1:step, x0:x1:step]
    mask = np.zeros(patch.shape[:2], dtype=bool)
    if patch.size == 0:
        return patch, mask
    cx, cy = (x + w / 2 - x0) / step, (y + h / 2 - y0) / step
    half_w, half_h = w * _DIE_MIDDLE / 2 / step, h * _DIE_MIDDLE / 2 / step
    rows, cols = patch.shape[:2]
    mask[max(0, round(cy - half_h)) : min(rows, round(cy + half_h) + 1),
         max(0, round(cx - half_w)) : min(cols, round(cx + half_w) + 1)] = True
    return patch, mask


@dataclass(frozen=True, eq=False)
class ColourPixels:
    """The pixels of one die that carry its colour (die_colour_pixels), in the patch's order:
    their chroma relative to the tray, and each one's brightest channel. Kept unordered because
    naming wants them in two orders (see name_six_dice) and filtering them once serves both."""

    chroma: np.ndarray
    level: np.ndarray

    def ordered(self, *, clipped_last: bool = False) -> np.ndarray:
        """The chromas brightest first; with ``clipped_last`` every pixel with a channel clipped
        comes after every pixel without one."""
        order = (
            np.lexsort((-self.level, self.level >= _CLIPPED)) if clipped_last
            else np.argsort(-self.level, kind="stable")
        )
        return self.chroma[order]


@dataclass(frozen=True, eq=False)
class DiceChroma:
    """What the colours of a frame's dice are named from: the tray's chroma, each die's colour
    pixels (die_colour_pixels) and their chroma brightest first (die_pixel_chroma). A step of
    one read, not a value: it has no equality (its arrays have none that == could give)."""

    tray: Chroma
    pixels: list[ColourPixels]

    @cached_property
    def relative(self) -> list[np.ndarray]:
        """Each die's chroma brightest first: sorted only when asked, since naming six dice
        wants the order and a calibrated read's colour models do not."""
        return [p.ordered() for p in self.pixels]

    def named_as_six(self) -> SixDiceNaming:
        """The dice named as the six Qwixx dice (name_six_dice), clipped pixels last."""
        return name_six_dice(self.relative, [p.ordered(clipped_last=True) for p in self.pixels])


def dice_chroma(frame: np.ndarray, boxes: list[Box]) -> DiceChroma:
    """The tray's and every die's chroma in the frame, the dice in ``boxes``."""
    tray = tray_chroma(frame, boxes)
    pixels = [die_colour_pixels(*die_pixels(frame, box), tray) for box in boxes]
    return DiceChroma(tray, pixels)


def die_pixel_chroma(
    patch: np.ndarray, mask: np.ndarray | None, tray: Chroma, *, clipped_last: bool = False
) -> np.ndarray:
    """The chroma, relative to the tray, of the pixels of one die that carry its colour
    (die_colour_pixels): an ``(N, 2)`` array, brightest pixels first (a white die's lit face is
    its best white reference, see name_six_dice); with ``clipped_last`` every pixel with a
    channel clipped comes after every pixel without one."""
    return die_colour_pixels(patch, mask, tray).ordered(clipped_last=clipped_last)


def die_colour_pixels(patch: np.ndarray, mask: np.ndarray | None, tray: Chroma) -> ColourPixels:
    """The pixels of one die that carry its colour.

    ``patch`` is BGR and ``mask`` is true on the die. Keeps pixels that are not clipped in all
    three channels and not dark (pips, shadow), then drops tray-like ones unless the die itself
    is tray-like (a die the colour of the tray). That is judged on the middle of the die's
    region, which is die whatever else the region holds: a region made loose by a long shadow
    is mostly tray, yet its tray pixels must not colour the die.
    """
    if mask is None:
        mask = np.ones(patch.shape[:2], dtype=bool)
    pixels = patch[mask]
    if len(pixels) == 0:
        return ColourPixels(np.zeros((1, 2), dtype=np.float32), np.zeros(1, dtype=np.float32))
    middle = _middle_of(mask)[mask]
    brightest = brightest_channel(pixels).astype(np.float32)
    k = int(0.9 * (len(brightest) - 1))
    bright_level = float(np.partition(brightest, k)[k])
    # A pixel with one or two channels clipped still shows which way its hue lies (a bright
    # yellow is 255, 255, 140); only a pixel clipped in all three has lost its colour.
    keep = (darkest_channel(pixels) < _CLIPPED) & (brightest >= _DARK_FRACTION * bright_level)
    if np.count_nonzero(keep) < 8:
        keep = np.ones(len(pixels), dtype=bool)
    level, middle = brightest[keep], middle[keep]
    chroma = log_chroma(pixels[keep]) - np.asarray(tray, dtype=np.float32)
    off_tray = np.hypot(chroma[:, 0], chroma[:, 1]) > _TRAY_RADIUS
    # Tray-like pixels are kept only when most of the die's middle looks like the tray: a die of
    # the tray's colour, whose tray-like pixels are its colour.
    tray_coloured = np.count_nonzero(off_tray[middle]) < np.count_nonzero(middle) / 2
    if np.count_nonzero(off_tray) >= 8 and not tray_coloured:
        return ColourPixels(chroma[off_tray], level[off_tray])
    return ColourPixels(chroma, level)


def _middle_of(mask: np.ndarray) -> np.ndarray:
    """The middle of a region: its pixels at least half as deep inside it as its deepest one
    (for a square, the middle square of half its side)."""
    # Padded with a border of zeros: the patch's edge is the region's edge too.
    padded = cv2.copyMakeBorder(mask.astype(np.uint8), 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    depth = cv2.distanceTransform(padded, cv2.DIST_L2, 3)[1:-1, 1:-1]
    return depth >= 0.5 * float(depth.max())


def summary_chroma(relative: np.ndarray, tray: Chroma) -> Chroma:
    """One absolute chroma for a die: the median of its pixels' (tray-relative) chroma."""
    return (float(np.median(relative[:, 0]) + tray[0]), float(np.median(relative[:, 1]) + tray[1]))


def _hue_deg(chroma: Chroma) -> float:
    return math.degrees(math.atan2(chroma[1], chroma[0]))


def _angle_between(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


# For a die taken as coloured, its colour is read from this share of its pixels that lie furthest
# from both the white point and the tray: a die with a clipped top face shows its colour only on
# its rim, and the rim's pixels that blend into a strongly coloured tray carry the tray's hue.
_RIM_SHARE = 0.3


# The share of a die's pixels (brightest first) that stands for its lit face.
_LIT_SHARE = 0.3


def _strongest_chromas(relative: np.ndarray, white_points: np.ndarray) -> np.ndarray:
    """For each of ``white_points`` (``(P, 2)``), the mean chroma balanced by it of a die's most
    strongly coloured pixels: ``(P, 2)``, every white point in one pass over the pixels.

    A pixel's strength is its distance from the nearer of the white point and the tray (the
    origin of ``relative``): on a red or magenta felt a die's edge pixels, half die and half
    tray, lie far from the white point in the tray's direction, and taken as the die's colour
    they turned a calibration's red, yellow and green one place round the hue circle.
    """
    # Squared distances rank the pixels as the distances do, without a square root per pixel
    # and white point; the chosen pixels' mean is balanced once, after the gather.
    pixels = relative.astype(np.float64)
    across = pixels[None, :, 0] - white_points[:, 0, None]
    down = pixels[None, :, 1] - white_points[:, 1, None]
    from_tray = pixels[:, 0] ** 2 + pixels[:, 1] ** 2
    strength = np.minimum(across * across + down * down, from_tray[None, :])
    count = strength.shape[1]
    keep = max(1, int(count * _RIM_SHARE))
    strongest = np.argpartition(strength, count - keep, axis=1)[:, -keep:]
    means: np.ndarray = pixels[strongest].mean(axis=1) - white_points
    return means


# How far the four hues may turn together from their nominal places: a white point a little off
# (or a camera's own colour rendering) turns every hue the same way. Well under the 61 degrees or
# more between neighbouring nominal hues: at 60, 26 dice of the dr2val validation rolls are named
# one colour round the circle (calibrations such as a00905's named so); at 15 none is named
# otherwise.
_MAX_HUE_TURN_DEG = 30.0


# Every order of the four colours, and their nominal hues in that order (radians).
_ORDERS = tuple(itertools.permutations(COLOURS))
_ORDER_HUES = np.radians([[NOMINAL_HUES_DEG[c] for c in order] for order in _ORDERS])
# Every pair of the six dice that may be the whites, in itertools.combinations order, and the
# four dice each leaves to be coloured, in die order.
_WHITE_PAIRS = tuple(itertools.combinations(range(6), 2))
_COLOURED_DICE = np.array([[i for i in range(6) if i not in pair] for pair in _WHITE_PAIRS])


def _hue_errors(hues: np.ndarray) -> np.ndarray:
    """Sum of hue errors (degrees) of each order in _ORDERS for each row of four dice hues
    (``(P, 4)`` degrees, giving ``(P, len(_ORDERS))``), after the best common turn of all four
    hues (at most _MAX_HUE_TURN_DEG)."""
    offsets = _wrapped(np.radians(hues)[:, None, :] - _ORDER_HUES[None, :, :])
    turn = np.arctan2(np.sin(offsets).sum(axis=2), np.cos(offsets).sum(axis=2))
    limit = math.radians(_MAX_HUE_TURN_DEG)
    turn = np.clip(turn, -limit, limit)
    errors: np.ndarray = np.degrees(np.abs(_wrapped(offsets - turn[..., None])).sum(axis=2))
    return errors


def _wrapped(radians: np.ndarray) -> np.ndarray:
    """Angles folded into [-pi, pi)."""
    return (radians + math.pi) % (2 * math.pi) - math.pi


@dataclass(frozen=True)
class SixDiceNaming:
    """The best naming of six dice, its cost, and how much worse the best different naming is."""

    names: list[str]
    cost: float
    gap: float


def name_six_dice(
    relative: list[np.ndarray], unclipped_first: list[np.ndarray] | None = None
) -> SixDiceNaming:
    """Name six dice as white, white, red, yellow, green, blue, with a cost and a gap.

    ``relative`` holds each die's pixel chromas (tray-relative, from die_pixel_chroma). Every
    pair is tried as the whites: the mean of their median chromas is taken as the light's white
    point, the other four are balanced by it and matched one-to-one to the nominal hues by the
    colour of their most strongly coloured pixels (furthest from the white point and the tray).
    The naming with the lowest cost (whites' disagreement + hue errors + too little colour in a
    "coloured" die) wins; ``gap`` is how much more the best *different* naming costs, so a
    caller can refuse a frame where two namings fit almost equally (a white die and a blue die
    clipped white on top, say).

    ``unclipped_first`` is the same dice's chromas with clipped pixels last (die_pixel_chroma's
    ``clipped_last``); the white point is then also read from those, and the cheaper naming
    wins. A white die's lit face is the best white reference unless a channel is clipped there
    (a warm lamp clips red first, and the face then looks bluish); its unclipped pixels are
    then the better one, though on a face clipped all over they are its shaded sides, tinted by
    the tray: neither reference is right in every frame.
    Raises ColourError unless exactly six dice are given.
    """
    for dice in (relative, unclipped_first or relative):
        if len(dice) != 6:
            raise ColourError(f"naming needs exactly six dice, got {len(dice)}")
    references = [_lit_chromas(r) for r in (relative, unclipped_first or []) if r]
    pairs, white_points, spreads = _white_points(references)
    others = _COLOURED_DICE[pairs]
    balanced = np.empty((len(pairs), 4, 2))  # the four coloured dice's chromas, per white point
    for die, pixels in enumerate(relative):
        points, place = np.nonzero(others == die)
        balanced[points, place] = _strongest_chromas(pixels, white_points[points])
    weak = np.maximum(0.0, 0.3 - np.hypot(balanced[..., 0], balanced[..., 1])).sum(axis=1)
    hues = np.degrees(np.arctan2(balanced[..., 1], balanced[..., 0]))
    point_costs = 4.0 * spreads[:, None] + _hue_errors(hues) / 90.0 + 4.0 * weak[:, None]
    # A naming is its white pair and the order of the other four: its cost is the lowest over
    # that pair's white points. Ranked stably in pair, then order, sequence.
    costs = np.full((len(_WHITE_PAIRS), len(_ORDERS)), np.inf)
    np.minimum.at(costs, np.asarray(pairs), point_costs)
    ranked = np.argsort(costs, axis=None, kind="stable")[:2]
    best, runner_up = (np.unravel_index(i, costs.shape) for i in ranked)
    cost = float(costs[best])
    return SixDiceNaming(names=_naming(*best), cost=cost, gap=float(costs[runner_up]) - cost)


def _white_points(
    references: list[list[np.ndarray]],
) -> tuple[list[int], np.ndarray, np.ndarray]:
    """Every white pair's white points from the lit-face references: the pair (an index into
    _WHITE_PAIRS) of each, the point (the mean of the pair's chromas) and the pair's spread.

    A pair's white point differs between the references only when one of the pair has clipped
    pixels: the same white point need not be costed twice.
    """
    pairs, points, spreads = [], [], []
    for pair, (a, b) in enumerate(_WHITE_PAIRS):
        distinct = {(m[a].tobytes(), m[b].tobytes()): m for m in references}
        for medians in distinct.values():
            pairs.append(pair)
            points.append((medians[a] + medians[b]) / 2.0)
            spreads.append(float(np.hypot(*(medians[a] - medians[b]))))
    return pairs, np.asarray(points), np.asarray(spreads)


def _naming(pair: int, order: int) -> list[str]:
    """The names of the six dice with _WHITE_PAIRS[pair] white and the others in _ORDERS[order]."""
    names: list[str] = [WHITE] * 6
    for i, name in zip(_COLOURED_DICE[pair], _ORDERS[order], strict=True):
        names[i] = name
    return names


def _lit_chromas(relative: list[np.ndarray]) -> list[np.ndarray]:
    """Each die's lit-face chroma: the median of its first (brightest) pixels, not the shaded
    sides that pick up the tray's colour."""
    return [np.median(r[: max(1, int(len(r) * _LIT_SHARE))], axis=0) for r in relative]


def generic_colour(chroma: Chroma, white_point: Chroma = (0.0, 0.0)) -> tuple[str, float]:
    """A best-guess name without a calibration, and a 0..1 confidence; may be ``unknown``.

    ``white_point`` is the light's chroma when known; by default the camera's white balance is
    trusted.
    """
    balanced = (chroma[0] - white_point[0], chroma[1] - white_point[1])
    strength = math.hypot(*balanced)
    if strength < _GENERIC_WHITE_CHROMA:
        return WHITE, 1.0 - strength / _GENERIC_WHITE_CHROMA * 0.5
    hue = _hue_deg(balanced)
    name, error = min(
        ((n, _angle_between(hue, h)) for n, h in NOMINAL_HUES_DEG.items()), key=lambda t: t[1]
    )
    if error > _GENERIC_MAX_HUE_ERROR_DEG:
        return UNKNOWN_COLOUR, 0.0
    return name, 1.0 - error / _GENERIC_MAX_HUE_ERROR_DEG


# Colour models are 2-D histograms of tray-relative chroma over +-_HIST_RANGE in _HIST_BINS bins,
# smoothed because one calibration frame holds only a few hundred pixels per die.
_HIST_BINS = 24
_HIST_RANGE = 2.0
_HIST_SMOOTHING_BINS = 1.0
_HIST_FLOOR = 1e-4


@dataclass(frozen=True, eq=False)
class ColourModel:
    """One die colour as seen at calibration: how often each tray-relative chroma occurs on it.

    A die is scored by the mean log-likelihood of its pixels, so a die whose edges are red but
    whose top face is clipped white still matches "red" rather than the white die's model.
    A value: its histogram is read-only, and two models are equal when their histograms are.
    """

    histogram: np.ndarray  # (_HIST_BINS, _HIST_BINS), sums to 1

    def __post_init__(self) -> None:
        frozen = np.array(self.histogram, dtype=np.float32)
        frozen.flags.writeable = False
        object.__setattr__(self, "histogram", frozen)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ColourModel):
            return NotImplemented
        return bool(np.array_equal(self.histogram, other.histogram))

    def __hash__(self) -> int:
        return hash(self.histogram.tobytes())

    @classmethod
    def learn(cls, relative_chroma: np.ndarray) -> ColourModel:
        counts, _, _ = np.histogram2d(
            relative_chroma[:, 0],
            relative_chroma[:, 1],
            bins=_HIST_BINS,
            range=[[-_HIST_RANGE, _HIST_RANGE], [-_HIST_RANGE, _HIST_RANGE]],
        )
        smooth = cv2.GaussianBlur(counts.astype(np.float32), (0, 0), _HIST_SMOOTHING_BINS)
        return cls(histogram=smooth / max(float(smooth.sum()), 1e-9))

    @cached_property
    def log_histogram(self) -> np.ndarray:
        """log(probability + floor) per bin, flattened: what a die's pixel counts are scored by."""
        return np.log(self.histogram.ravel().astype(np.float64) + _HIST_FLOOR)

    def to_json(self) -> dict[str, object]:
        return {
            "bins": _HIST_BINS,
            "range": _HIST_RANGE,
            "histogram": np.round(self.histogram, 6).tolist(),
        }

    @classmethod
    def from_json(cls, data: object) -> ColourModel:
        if not isinstance(data, dict):
            raise ValueError("a colour model must be an object")
        if data.get("bins") != _HIST_BINS or data.get("range") != _HIST_RANGE:
            raise ValueError(f"a colour model must have bins={_HIST_BINS} and range={_HIST_RANGE}")
        try:
            histogram = np.asarray(data.get("histogram"), dtype=np.float32)
        except (TypeError, ValueError):
            raise ValueError("'histogram' must be a grid of numbers") from None
        if histogram.shape != (_HIST_BINS, _HIST_BINS) or not np.all(np.isfinite(histogram)):
            raise ValueError(f"'histogram' must be {_HIST_BINS}x{_HIST_BINS} finite numbers")
        if np.any(histogram < 0) or not histogram.sum() > 0:
            raise ValueError("'histogram' must be non-negative and not all zero")
        return cls(histogram=histogram / histogram.sum())


def learn_models(named: list[tuple[str, np.ndarray]]) -> dict[str, ColourModel]:
    """Colour models from the named dice of a calibration frame (two whites share one model)."""
    by_name: dict[str, list[np.ndarray]] = {}
    for name, relative in named:
        by_name.setdefault(name, []).append(relative)
    return {name: ColourModel.learn(np.vstack(parts)) for name, parts in by_name.items()}


def _bin_shares(relative_chroma: np.ndarray) -> np.ndarray:
    """The share of a die's pixels in each histogram bin, flattened (sums to 1)."""
    index = ((relative_chroma + _HIST_RANGE) / (2 * _HIST_RANGE) * _HIST_BINS).astype(int)
    index = np.clip(index, 0, _HIST_BINS - 1)
    counts = np.bincount(index[:, 0] * _HIST_BINS + index[:, 1], minlength=_HIST_BINS**2)
    return counts / max(len(index), 1)


def likelihoods(relative_chroma: np.ndarray, models: dict[str, ColourModel]) -> dict[str, float]:
    """Each colour's mean log-likelihood for one die's pixels (binned once for all colours)."""
    shares = _bin_shares(relative_chroma)
    return {name: float(shares @ m.log_histogram) for name, m in models.items()}


def margin_confidence(scores: dict[str, float], name: str) -> float:
    """0..1: how much better ``name`` explains the die than the best other colour (0.5 = tie)."""
    others = [v for k, v in scores.items() if k != name]
    if not others:
        return 1.0
    return float(1.0 / (1.0 + math.exp(-2.0 * (scores[name] - max(others)))))


def classify(relative_chroma: np.ndarray, models: dict[str, ColourModel]) -> tuple[str, float]:
    """The most likely colour and its confidence (see :func:`margin_confidence`)."""
    scores = likelihoods(relative_chroma, models)
    best = max(scores, key=scores.__getitem__)
    return best, margin_confidence(scores, best)


# Naming a roll's dice jointly (one die per expected colour) may overrule a die's own best colour
# only when that costs at most this much log-likelihood in all: enough for a white die tinted by
# a green tray, far too little to hide a real second red die. On the 300 calibrated dr2val
# validation rolls the four dice overruled cost 0.31 to 1.03 (dice of the wrong colour 4 -> 1),
# and a coloured die's colour beats its second by under 1.5 for 6 % of the dice, under 3 for 31 %.
MAX_JOINT_LOSS = 1.5


def name_jointly(scores: list[dict[str, float]], expected: list[str]) -> list[str] | None:
    """Names giving each die a different expected colour, if that is nearly as likely.

    ``expected`` lists the colours that must be in the roll (two "white"s). With fewer dice than
    expected (one missing), each die still gets a different one, so the colour left over is the
    missing one. Returns None with more dice than expected, or when the best such naming loses
    more than MAX_JOINT_LOSS against naming each die on its own, so that a real extra or
    duplicate die is still reported. Of namings equally likely the first in _namings' order
    wins, so a roll is named the same way in every run.
    """
    if not scores or len(scores) > len(expected):
        return None
    names = list(dict.fromkeys(expected))
    table = np.array([[s[name] for name in names] for s in scores])
    namings = _namings(tuple(names.index(name) for name in expected), len(scores))
    totals = table[np.arange(len(scores)), namings].sum(axis=1)
    best = int(np.argmax(totals))
    independent = sum(max(s.values()) for s in scores)
    if independent - float(totals[best]) > MAX_JOINT_LOSS:
        return None
    return [names[k] for k in namings[best]]


@lru_cache(maxsize=16)
def _namings(expected: tuple[int, ...], dice: int) -> np.ndarray:
    """Every distinct way to give ``dice`` dice different places of ``expected`` (colours as
    indices, the whites' index twice), sorted: ``(namings, dice)``. A roll has at most six dice
    and a few sets of removed dice, so each table is built once."""
    table = np.array(sorted(set(itertools.permutations(expected, dice))), dtype=np.intp)
    table.flags.writeable = False  # shared by every later call
    return table
