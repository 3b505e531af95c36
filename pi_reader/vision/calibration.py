"""Calibration: what the reader learns from one still of the six dice, and its JSON file.

From a frame of the six dice lying apart anywhere in the tray (any values) it learns the die's
size in pixels (the detector then looks at every roll at the scale it is surest at), a colour
model per die colour (relative to the tray, so the light's colour cancels out), the frame size,
and the empty tray on a coarse grid (the dice painted out), against which a roll is checked
before it is read (another tray, another camera size: calibrate again) and a tray newly clipped
white is told from a bright die. The file is small, versioned JSON, validated field by field on
load so a corrupt, foreign or out-of-date file fails with a clear :class:`CalibrationError`
rather than a wrong read later. An optional ``camera`` section (exposure time, analogue gain,
colour gains) belongs to the appliance's live calibration; the vision keeps it but does not use
it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import cv2
import numpy as np

from pi_reader.vision import colour, quality
from pi_reader.vision.detector import Detection
from pi_reader.vision.finding import FoundDie, found_dice, trusted_value
from pi_reader.vision.output_files import write_atomically
from pi_reader.vision.shrinking import averaged_to
from pi_reader.vision.stages import Stages, default_stages
from pi_reader.vision.types import (
    DIE_COLOURS,
    WHITE,
    WHITE_DICE,
    expected_colours,
    int_box,
    smaller_box_share,
)

FORMAT = "pi-reader-calibration"
VERSION = 2  # 1 was the classical finder's scene model and pip polarities
EXPECTED_DICE = len(expected_colours())  # the six Qwixx dice
# The empty tray is kept on a grid this many cells wide (rows follow the frame's shape): fine
# enough to see a tray's edge or a new shadow, a few kilobytes in the file.
TRAY_GRID_COLUMNS = 64
# The naming of the six dice (see colour.name_six_dice): a cost above MAX_NAMING_COST means no
# pairing into two whites and four distinct hues fits; a best naming less than MIN_NAMING_GAP
# cheaper than the best different one is ambiguous, and refused. Chosen on the 58 six-dice
# calibration frames of the generated scenes' train and validation splits (label boxes): right
# namings cost at most 2.5 and won by 0.20 or more, the two wrong ones won by 0.17 and 0.06.
# Since the rim's colour leaves out pixels blending into the tray (colour._strongest_chromas),
# the 36 six-dice calibration frames of dr2's validation split name right at a cost of at most
# 1.76, winning by 0.51 or more (two had named wrong on red and magenta felt).
MAX_NAMING_COST = 3.0
MIN_NAMING_GAP = 0.18
# Two dice lying apart share at most their boxes' margins, a tenth of a box for dice pressed
# side by side (a fifth with boxes a tenth of a side loose); a quarter is more than that and less
# than the half of its die's box that a shadow detected beside a die covers (dr2val a00325: 46 %).
APART_OVERLAP = 0.25


class CalibrationError(ValueError):
    """A calibration frame that cannot be used, or a calibration file that cannot be trusted."""


class ClippedFaces(CalibrationError):
    """The frame cannot be calibrated because the lamp clips dice faces white: a lower exposure
    may calibrate (live calibration tries one)."""


@dataclass(frozen=True)
class CameraSettings:
    """The camera settings the appliance's live calibration fixed (unused by the vision)."""

    exposure_time_us: int
    analogue_gain: float
    colour_gains: tuple[float, float]  # red, blue

    def to_json(self) -> dict[str, object]:
        return {
            "exposure_time_us": self.exposure_time_us,
            "analogue_gain": self.analogue_gain,
            "colour_gains": list(self.colour_gains),
        }

    @classmethod
    def from_json(cls, data: object) -> CameraSettings:
        if not isinstance(data, dict):
            raise CalibrationError("'camera' must be an object")
        exposure = data.get("exposure_time_us")
        gain = data.get("analogue_gain")
        gains = data.get("colour_gains")
        if not isinstance(exposure, int) or isinstance(exposure, bool) or exposure <= 0:
            raise CalibrationError("'camera.exposure_time_us' must be a positive whole number")
        if not _positive_number(gain):
            raise CalibrationError("'camera.analogue_gain' must be a positive number")
        if not isinstance(gains, list) or len(gains) != 2 or not all(map(_positive_number, gains)):
            raise CalibrationError("'camera.colour_gains' must be two positive numbers [red, blue]")
        return cls(exposure, float(gain), (float(gains[0]), float(gains[1])))  # type: ignore[arg-type]


def _positive_number(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value > 0
    )


@dataclass(frozen=True)
class Calibration:
    """Everything the reader learnt about one tray, camera and light from one frame."""

    die_side_px: float
    colour_models: dict[str, colour.ColourModel]
    frame_size: tuple[int, int]  # width, height of the calibration frame
    tray_grid: tuple[tuple[tuple[int, int, int], ...], ...]  # rows of BGR cells, dice painted out
    camera: CameraSettings | None = None
    extra: dict[str, object] = field(default_factory=dict)

    @cached_property
    def background_grid(self) -> np.ndarray:
        """The calibrated empty tray as an array (rows x cols x BGR, float32)."""
        return np.asarray(self.tray_grid, dtype=np.float32)

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "format": FORMAT,
            "version": VERSION,
            "die_side_px": round(self.die_side_px, 2),
            "frame_size": list(self.frame_size),
            "colours": {name: {"model": self.colour_models[name].to_json()}
                        for name in DIE_COLOURS},
            "tray_grid": [[list(cell) for cell in row] for row in self.tray_grid],
        }
        if self.camera is not None:
            data["camera"] = self.camera.to_json()
        return data

    @classmethod
    def from_json(cls, data: object) -> Calibration:
        """Validate and build a calibration; raises CalibrationError saying what is wrong."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise CalibrationError(f'not a pi-reader calibration (no "format": "{FORMAT}")')
        if data.get("version") != VERSION:
            raise CalibrationError(
                f"calibration version {data.get('version')!r} is not supported (this reader "
                f"reads version {VERSION}); calibrate again"
            )
        side = data.get("die_side_px")
        if not _positive_number(side):
            raise CalibrationError("'die_side_px' must be a positive number")
        size = data.get("frame_size")
        if (not isinstance(size, list) or len(size) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 16
                           for v in size)):
            raise CalibrationError("'frame_size' must be [width, height], whole numbers >= 16")
        colours = data.get("colours")
        if not isinstance(colours, dict) or set(colours) != set(DIE_COLOURS):
            raise CalibrationError(f"'colours' must have exactly the keys {list(DIE_COLOURS)}")
        models: dict[str, colour.ColourModel] = {}
        for name in DIE_COLOURS:
            entry = colours[name]
            if not isinstance(entry, dict):
                raise CalibrationError(f"'colours.{name}' must be an object")
            try:
                models[name] = colour.ColourModel.from_json(entry.get("model"))
            except ValueError as error:
                raise CalibrationError(f"'colours.{name}.model': {error}") from None
        camera = data.get("camera")
        return cls(
            die_side_px=float(side),  # type: ignore[arg-type]
            colour_models=models,
            frame_size=(size[0], size[1]),
            tray_grid=_tray_grid_from_json(data.get("tray_grid")),
            camera=None if camera is None else CameraSettings.from_json(camera),
        )

    def save(self, path: str | Path) -> None:
        """Write the file whole or not at all (temporary file, fsync, rename): a power cut
        mid-write must not leave a torn file that stops ``pi-reader run``."""
        write_atomically(Path(path), (json.dumps(self.to_json()) + "\n").encode("utf-8"))

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        """Read a calibration file; raises CalibrationError naming the file and the fault."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise CalibrationError(f"{path}: cannot read the calibration file ({error})") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise CalibrationError(
                f"{path}: corrupt calibration file, not JSON ({error.msg})"
            ) from None
        except RecursionError:
            raise CalibrationError(
                f"{path}: corrupt calibration file, nested too deeply to be one"
            ) from None
        try:
            return cls.from_json(data)
        except CalibrationError as error:
            raise CalibrationError(f"{path}: {error}") from None


def _tray_grid_from_json(data: object) -> tuple[tuple[tuple[int, int, int], ...], ...]:
    rows = data if isinstance(data, list) else None
    width = len(rows[0]) if rows and isinstance(rows[0], list) else 0
    if not rows or width == 0 or not all(
        isinstance(row, list) and len(row) == width
        and all(isinstance(cell, list) and len(cell) == 3
                and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 255
                        for v in cell) for cell in row)
        for row in rows
    ):
        raise CalibrationError("'tray_grid' must be rows of equal length of [b, g, r] 0..255")
    return tuple(tuple((cell[0], cell[1], cell[2]) for cell in row) for row in rows)


def empty_tray_grid(frame: np.ndarray, boxes: list[tuple[int, int, int, int]]
                    ) -> tuple[tuple[tuple[int, int, int], ...], ...]:
    """The frame averaged down to TRAY_GRID_COLUMNS cells across, with the dice's cells (and a
    cell round them, for their shadows) filled in from the tray around them."""
    height, width = frame.shape[:2]
    rows = max(1, round(TRAY_GRID_COLUMNS * height / width))
    small = averaged_to(frame, TRAY_GRID_COLUMNS, rows)
    mask = np.zeros((rows, TRAY_GRID_COLUMNS), np.uint8)
    sx, sy = TRAY_GRID_COLUMNS / width, rows / height
    for x, y, w, h in boxes:
        mask[max(0, math.floor(y * sy) - 1) : math.ceil((y + h) * sy) + 1,
             max(0, math.floor(x * sx) - 1) : math.ceil((x + w) * sx) + 1] = 1
    filled = cv2.inpaint(small, mask, 3, cv2.INPAINT_TELEA)
    return tuple(tuple((int(c[0]), int(c[1]), int(c[2])) for c in row) for row in filled)


def _light_problems(frame: np.ndarray) -> str:
    """What is wrong with the frame's exposure or focus, as a clause for a refusal: a tray the
    lamp clips white hides white dice, and the user should fix the light, not the dice."""
    problems = quality.assess(frame, [], None)
    return "".join(f"; {problem.message}" for problem in problems)


def _calibration_dice(found: list[FoundDie]) -> list[Detection]:
    """The dice a calibration learns from. The six dice lie flat and apart, so each is read
    surely and no two share their boxes; when more than six boxes are found, those lying over
    a surer box (a shadow or a reflection detected beside its die) are left out, then those
    whose face is not read surely (a faint detection on the tray), and the frame calibrates
    when that leaves six. The naming that follows still has to find two whites and the four
    colours in them."""
    if len(found) > EXPECTED_DICE:
        apart = [(d, face) for d, face in found
                 if not any(other.score > d.score and _overlapping(d, other) for other, _ in found)]
        sure = [d for d, face in apart if trusted_value(face, calibrated=True) is not None]
        for dice in ([d for d, _ in apart], sure):
            if len(dice) == EXPECTED_DICE:
                return dice
    return [d for d, _ in found]


def _overlapping(a: Detection, b: Detection) -> bool:
    """Whether two boxes share more of the smaller one than two dice lying apart can."""
    return smaller_box_share(a.box, b.box) > APART_OVERLAP


def calibrate(frame: np.ndarray, stages: Stages | None = None, *,
              refuse_clipped_faces: bool = False) -> Calibration:
    """Learn a calibration from one frame of the six dice; refuses a frame it cannot trust.

    Raises CalibrationError saying why: not exactly six dice found, or dice that cannot be named
    as two whites plus red, yellow, green and blue (ClippedFaces when the lamp clipped faces
    too), or ClippedFaces for a frame the lamp clips white almost wholly (a tray already clipped
    leaves the reads' overexposure check nothing to see). A coloured die's colour is learnt from
    its rim when the lamp clips its top face, so such a frame calibrates; a caller that can
    lower the exposure (live calibration) passes ``refuse_clipped_faces`` to be told
    (ClippedFaces), since the die's pips would be lost in every roll where it lies in the same
    light.
    """
    clipped = quality.clipped_share(frame)
    if clipped > quality.MAX_CALIBRATION_CLIPPED:
        raise ClippedFaces(
            f"the frame is overexposed: {clipped:.0%} of it is clipped white, so an overexposed "
            "roll could not be told from this tray; lower the exposure or move the lamp and "
            "calibrate again")
    stages = stages or default_stages(calibrated=True)
    dice = _calibration_dice(found_dice(frame, stages, calibrating=True))
    if len(dice) != EXPECTED_DICE:
        raise CalibrationError(
            f"found {len(dice)} dice, need exactly {EXPECTED_DICE} (two white, red, "
            f"yellow, green, blue) apart from each other on the tray{_light_problems(frame)}"
        )
    boxes = [int_box(d.box) for d in dice]
    chroma = colour.dice_chroma(frame, boxes)
    naming = chroma.named_as_six()
    washed = [name for name, box in zip(naming.names, boxes, strict=True)
              if quality.face_washed_out(frame, box)]
    # A refused naming is the lamp's fault when a face is clipped: say so, and let live
    # calibration lower the exposure.
    refusal = ClippedFaces if washed else CalibrationError
    if naming.cost > MAX_NAMING_COST:
        raise refusal(
            "cannot tell the six dice apart as two white, red, yellow, green and blue "
            f"(best naming costs {naming.cost:.1f}, at most {MAX_NAMING_COST} is trusted); "
            "check the light and that these are the Qwixx dice"
        )
    if naming.gap < MIN_NAMING_GAP:
        raise refusal(
            "the dice's colours are ambiguous: two different namings fit almost equally "
            f"(gap {naming.gap:.2f} < {MIN_NAMING_GAP}); a die may be washed out by the light; "
            "lower the exposure or move the lamp and calibrate again"
        )
    # Only the two white dice may show a face clipped white at calibration: they sit near
    # clipping under any good exposure and their dark pips survive it, while a coloured die's
    # clipped face has lost its colour and its light pips (live calibration lowers the exposure
    # until none is).
    if refuse_clipped_faces and (len(washed) > WHITE_DICE or any(n != WHITE for n in washed)):
        raise ClippedFaces(
            f"the lamp clips the top face of {len(washed)} dice white, "
            f"{'more than the two white dice' if len(washed) > WHITE_DICE else 'a coloured one'}"
            ": a coloured die's colour and pips cannot be learnt from a clipped face; lower the "
            "exposure or move the lamp and calibrate again"
        )
    height, width = frame.shape[:2]
    return Calibration(
        die_side_px=float(np.median([d.side for d in dice])),
        colour_models=colour.learn_models(
            list(zip(naming.names, chroma.relative, strict=True))
        ),
        frame_size=(width, height),
        tray_grid=empty_tray_grid(frame, boxes),
    )
