"""Calibration: what the reader learns from one still of the six dice, and its JSON file.

From a frame of the six dice anywhere in the tray (any values) it learns the scene (``locate``'s
``SceneModel``: tray region and background), the die size in pixels, a colour model per die
colour and whether each colour's pips are dark or light. The file is small, versioned JSON,
validated field by field on load so a corrupt, foreign or out-of-date file fails with a clear
:class:`CalibrationError` rather than a wrong read later. An optional ``camera`` section
(exposure time, analogue gain, colour gains) belongs to the appliance's live calibration; the
vision keeps it but does not use it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from pi_reader.vision import colour, quality
from pi_reader.vision.output_files import write_atomically
from pi_reader.vision.stages import Stages, default_stages, die_pixels, face_box, int_box
from pi_reader.vision.types import DIE_COLOURS

FORMAT = "pi-reader-calibration"
VERSION = 1
POLARITIES = ("dark", "light")
EXPECTED_DICE = 6
# A face read at calibration with less confidence than this does not fix its colour's polarity.
MIN_POLARITY_CONFIDENCE = 0.5
# The naming of the six dice (see colour.name_six_dice) costs about 0.2..1.5 on good frames; a
# cost above this means no pairing into two whites and four distinct hues fits.
MAX_NAMING_COST = 3.0
# On the 25 shared calibration frames the finder gives six dice, the right naming beats the best
# different one by 0.14 or more; the wrong namings seen while developing won by 0.06 or less.
# Below this gap the frame is refused as ambiguous.
MIN_NAMING_GAP = 0.1


class CalibrationError(ValueError):
    """A calibration frame that cannot be used, or a calibration file that cannot be trusted."""


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
    pip_polarity: dict[str, str | None]  # "dark", "light", or None: decided per frame
    scene: Any = None  # locate.SceneModel, or None when locate keeps no scene
    camera: CameraSettings | None = None
    extra: dict[str, object] = field(default_factory=dict)

    @cached_property
    def background_grid(self) -> np.ndarray | None:
        """The calibrated empty tray's colour grid (rows x cols x BGR), when the scene has one."""
        grid = getattr(self.scene, "background", None)
        return None if grid is None else np.asarray(grid, dtype=np.float32)

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "format": FORMAT,
            "version": VERSION,
            "die_side_px": round(self.die_side_px, 2),
            "colours": {
                name: {
                    "model": self.colour_models[name].to_json(),
                    "pip_polarity": self.pip_polarity[name],
                }
                for name in DIE_COLOURS
            },
            "scene": None if self.scene is None else self.scene.to_json(),
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
        colours = data.get("colours")
        if not isinstance(colours, dict) or set(colours) != set(DIE_COLOURS):
            raise CalibrationError(f"'colours' must have exactly the keys {list(DIE_COLOURS)}")
        models: dict[str, colour.ColourModel] = {}
        polarity: dict[str, str] = {}
        for name in DIE_COLOURS:
            entry = colours[name]
            if not isinstance(entry, dict):
                raise CalibrationError(f"'colours.{name}' must be an object")
            try:
                models[name] = colour.ColourModel.from_json(entry.get("model"))
            except ValueError as error:
                raise CalibrationError(f"'colours.{name}.model': {error}") from None
            if entry.get("pip_polarity") not in (*POLARITIES, None):
                raise CalibrationError(
                    f"'colours.{name}.pip_polarity' must be one of {POLARITIES} or null"
                )
            polarity[name] = entry["pip_polarity"]
        camera = data.get("camera")
        return cls(
            die_side_px=float(side),  # type: ignore[arg-type]
            colour_models=models,
            pip_polarity=polarity,
            scene=_scene_from_json(data.get("scene")),
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


def _scene_from_json(data: object) -> Any:
    if data is None:
        return None
    from pi_reader.vision import locate

    try:
        return locate.SceneModel.from_json(data)
    except (ValueError, TypeError, KeyError) as error:
        raise CalibrationError(f"'scene': {error}") from None


def _light_problems(frame: np.ndarray) -> str:
    """What is wrong with the frame's exposure or focus, as a clause for a refusal: a tray the
    lamp clips white hides white dice, and the user should fix the light, not the dice."""
    problems = quality.assess(frame, [], None)
    return "".join(f"; {problem.message}" for problem in problems)


def calibrate(frame: np.ndarray, stages: Stages | None = None) -> Calibration:
    """Learn a calibration from one frame of the six dice; refuses a frame it cannot trust.

    Raises CalibrationError saying why: not exactly six dice found, a die not lying flat, or dice
    that cannot be named as two whites plus red, yellow, green and blue.
    """
    stages = stages or default_stages()
    try:
        scene = stages.learn_scene(frame, expected_dice=EXPECTED_DICE)
        # The dice should lie apart, and then a blob is one die however long its side faces
        # make it; two dice laid touching all the same are split as a roll's would be.
        candidates = list(stages.find_dice(frame, scene, apart=True, expected=EXPECTED_DICE))
        if len(candidates) != EXPECTED_DICE:
            candidates = list(stages.find_dice(frame, scene, expected=EXPECTED_DICE))
    except stages.locate_error as error:
        raise CalibrationError(f"cannot find the dice: {error}{_light_problems(frame)}") from None
    if len(candidates) != EXPECTED_DICE:
        raise CalibrationError(
            f"found {len(candidates)} dice, need exactly {EXPECTED_DICE} (two white, red, "
            f"yellow, green, blue) apart from each other on the tray{_light_problems(frame)}"
        )
    cocked = [c for c in candidates if c.cocked]
    if cocked:
        raise CalibrationError(f"{len(cocked)} die(s) not lying flat; lay every die flat")
    boxes = [int_box(c.box) for c in candidates]
    tray = colour.tray_chroma(frame, boxes)
    pixels = [die_pixels(frame, c) for c in candidates]
    relative = [colour.die_pixel_chroma(*p, tray) for p in pixels]
    naming = colour.name_six_dice(
        relative, [colour.die_pixel_chroma(*p, tray, clipped_last=True) for p in pixels]
    )
    if naming.cost > MAX_NAMING_COST:
        raise CalibrationError(
            "cannot tell the six dice apart as two white, red, yellow, green and blue "
            f"(best naming costs {naming.cost:.1f}, at most {MAX_NAMING_COST} is trusted); "
            "check the light and that these are the Qwixx dice"
        )
    if naming.gap < MIN_NAMING_GAP:
        raise CalibrationError(
            "the dice's colours are ambiguous: two different namings fit almost equally "
            f"(gap {naming.gap:.2f} < {MIN_NAMING_GAP}); a die may be washed out by the light; "
            "lower the exposure or move the lamp and calibrate again"
        )
    names = naming.names
    side = float(np.median([c.side_px for c in candidates]))
    polarity: dict[str, tuple[float, str | None]] = {}
    for name, candidate in zip(names, candidates, strict=True):
        reading = stages.read_face(frame, face_box(candidate), polarity=None, die_side_px=side)
        # A polarity is learnt only from a face read with confidence; otherwise the pips reader
        # keeps deciding it per frame ("auto", stored as null).
        learnt = reading.polarity if reading.confidence >= MIN_POLARITY_CONFIDENCE else None
        if name not in polarity or reading.confidence > polarity[name][0]:
            polarity[name] = (reading.confidence, learnt)
    return Calibration(
        die_side_px=side,
        colour_models=colour.learn_models(list(zip(names, relative, strict=True))),
        pip_polarity={name: p for name, (_, p) in polarity.items()},
        scene=scene,
    )
