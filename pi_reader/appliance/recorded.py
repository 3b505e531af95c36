"""A recorded game: still photos of rolls played back as a camera stream with motion between them.

Storing a real 10 fps video of a game would take megabytes; a game is told just as well by one
still frame per roll. :class:`RecordedGame` turns the stills into a stream at run time: a few
frames of synthetic motion (the next roll, shifted about, as dice tumbling in), then the still
roll held for a while, then the next. It also plays what the players did at the table after each
roll (button presses, typed marks), so a recording exercises the whole appliance end to end.

A recorded game is a folder with the images and ``recorded-game.json``::

    {"fps": 10, "calibration": "calibration.jpg",
     "rolls": [{"image": "roll_001.jpg", "then": ["penalty"]},
               {"image": "roll_002.jpg", "paint_out": [[492, 135, 52, 60]]},   # a die missing
               {"image": "roll_002.jpg", "then": ["bob red 7", "ann pass"]}]}

``paint_out`` boxes are inpainted with the tray around them, to make a frame with a problem.
``then`` entries are button names (red, yellow, green, blue, penalty, undo) or typed lines; they
happen once the roll has had time to settle and be announced. An optional ``hold_seconds`` (1.5 by
default) sets how long each roll lies still: long enough for people to tap their phones when the
game plays at real pace (``pi-reader run --web``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from pi_reader.devices.camera import Camera, CameraBase, ExposureControls, as_bgr_frame
from pi_reader.devices.errors import CameraExhausted, CameraNotStarted, CameraSpecError

MANIFEST = "recorded-game.json"
MOTION_FRAMES = 4
HOLD_SECONDS = 1.5
ACTIONS_AFTER_SECONDS = 1.0  # well after the settle (0.4 s) and the announcement
MAX_SHIFT = 40  # pixels the dice appear to jump between motion frames
MAX_HOLD_SECONDS = 600.0


class RecordedGameError(CameraSpecError):
    """The folder's recorded-game.json is missing, not JSON, or names missing images."""


@dataclass(frozen=True)
class RecordedRoll:
    image: Path
    then: tuple[str, ...] = ()
    paint_out: tuple[tuple[int, int, int, int], ...] = ()


@dataclass(frozen=True)
class Recording:
    """A recorded game as read from its folder."""

    folder: Path
    fps: float
    calibration: Path | None
    rolls: tuple[RecordedRoll, ...]
    hold_seconds: float = HOLD_SECONDS

    @classmethod
    def load(cls, folder: Path) -> Recording:
        path = folder / MANIFEST
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as error:
            raise RecordedGameError(f"no recorded game at {path}: {error.strerror}") from None
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise RecordedGameError(f"{path} is not JSON: {error}") from None
        except RecursionError:
            raise RecordedGameError(f"{path} is nested too deeply to be a recorded game") from None
        try:
            rolls = tuple(
                RecordedRoll(
                    folder / str(item["image"]),
                    tuple(str(action) for action in item.get("then", ())),
                    tuple(
                        (int(x), int(y), int(w), int(h))
                        for x, y, w, h in item.get("paint_out", ())
                    ),
                )
                for item in data["rolls"]
            )
            fps = float(data.get("fps", 10))
            hold = float(data.get("hold_seconds", HOLD_SECONDS))
            calibration = data.get("calibration")
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise RecordedGameError(f"{path}: malformed ({error!r})") from None
        for roll in rolls:
            if not roll.image.is_file():
                raise RecordedGameError(f"{path} names {roll.image.name}, which is not there")
        if not rolls or fps <= 0 or not 0 < hold <= MAX_HOLD_SECONDS:
            raise RecordedGameError(
                f"{path}: needs at least one roll, a positive fps and a hold_seconds above 0 "
                f"and at most {MAX_HOLD_SECONDS:g}"
            )
        return cls(folder, fps, folder / calibration if calibration else None, rolls, hold)

    @staticmethod
    def is_recording(folder: Path) -> bool:
        return (folder / MANIFEST).is_file()


def _read_image(path: Path) -> np.ndarray:
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise RecordedGameError(f"{path} is not an image OpenCV can read")
    return as_bgr_frame(image)


def paint_out(frame: np.ndarray, boxes: tuple[tuple[int, int, int, int], ...]) -> np.ndarray:
    """The frame with each box filled in from the tray around it (OpenCV inpainting)."""
    mask = np.zeros(frame.shape[:2], np.uint8)
    for x, y, w, h in boxes:
        margin = max(w, h) // 6
        mask[max(0, y - margin) : y + h + margin, max(0, x - margin) : x + w + margin] = 255
    return cv2.inpaint(frame, mask, 5, cv2.INPAINT_TELEA)


def motion_frame(still: np.ndarray, step: int) -> np.ndarray:
    """``still`` jumbled as by tumbling dice: shifted by a different offset at every step."""
    rng = np.random.default_rng(step)
    dx, dy = (int(v) for v in rng.integers(-MAX_SHIFT, MAX_SHIFT + 1, size=2))
    return np.roll(still, (dy or 7, dx or 11), axis=(0, 1))


class RecordedGame(CameraBase):
    """Plays a :class:`Recording` as a camera; ``on_action`` receives the players' actions.

    ``frames_served`` counts frames (skipped ones not included); CameraExhausted after the last
    roll's hold. ``hold_while`` (asked after each roll's hold) keeps the roll in view for as long
    as it answers True: people typing their marks at a terminal hold the game up as they would
    at a table, where nobody rolls before everyone has marked.
    """

    def __init__(
        self,
        recording: Recording,
        on_action: Callable[[str], None],
        skip_frames: int = 0,
        hold_while: Callable[[], bool] | None = None,
    ) -> None:
        self.recording = recording
        self.on_action = on_action
        self.hold_while = hold_while
        self.skip_frames = skip_frames  # resume a recording part-way: skipped frames do nothing
        self.frames_served = 0
        self._stream: Iterator[tuple[np.ndarray, tuple[str, ...]]] | None = None

    def start(self) -> None:
        if self._stream is None:
            self._stream = self._frames()
            for _ in range(self.skip_frames):
                next(self._stream, None)

    def stop(self) -> None:
        """Nothing to release; playing on after a restart continues where it was."""

    def capture(self) -> np.ndarray:
        if self._stream is None:
            raise CameraNotStarted("recorded game: capture() before start()")
        try:
            frame, actions = next(self._stream)
        except StopIteration:
            raise CameraExhausted(
                f"recorded game {self.recording.folder}: all {self.frames_served} frames served"
            ) from None
        for action in actions:
            self.on_action(action)
        self.frames_served += 1
        return frame

    def _frames(self) -> Iterator[tuple[np.ndarray, tuple[str, ...]]]:
        fps = self.recording.fps
        hold = max(1, round(self.recording.hold_seconds * fps))
        act_at = min(hold - 1, round(ACTIONS_AFTER_SECONDS * fps))
        step = 0
        for roll in self.recording.rolls:
            still = _read_image(roll.image)
            if roll.paint_out:
                still = paint_out(still, roll.paint_out)
            for _ in range(MOTION_FRAMES):
                step += 1
                yield motion_frame(still, step), ()
            for index in range(hold):
                yield still, roll.then if index == act_at else ()
            while self.hold_while is not None and self.hold_while():
                yield still, ()


class RealPace(CameraBase):
    """A recorded camera served at its frame rate, as a live one would (``pi-reader run --web``:
    people tap their phones while the game plays). Each start begins the count afresh."""

    def __init__(
        self,
        camera: Camera,
        fps: float,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.camera = camera
        self.fps = fps
        self._sleep = sleep
        self._clock = clock
        self._started_at: float | None = None
        self._served = 0

    def start(self) -> None:
        self.camera.start()
        self._started_at, self._served = None, 0

    def stop(self) -> None:
        self.camera.stop()

    def apply_controls(
        self, exposure_time_us: int, analogue_gain: float, colour_gains: tuple[float, float]
    ) -> None:
        self.camera.apply_controls(exposure_time_us, analogue_gain, colour_gains)

    def auto_controls(self) -> ExposureControls | None:
        return self.camera.auto_controls()

    def capture(self) -> np.ndarray:
        now = self._clock()
        if self._started_at is None:
            self._started_at = now
        due = self._started_at + self._served / self.fps
        if due > now:
            self._sleep(due - now)
        self._served += 1
        return self.camera.capture()
