"""Motion and settle detection: when have the dice stopped?

The measure is deliberately cheap (it runs on every frame at about 10 fps on a Raspberry Pi): each
frame is shrunk to a small blurred grey image and compared with the previous one; a pixel whose
brightness changed by more than a threshold counts as "changed". Shrinking with area averaging
also averages the sensor noise away, so a still tray gives zero changed pixels while a single
rolling die (a few pixels at that size) still shows.

Time comes from the frames' own timestamps, never from the wall clock, so a recorded sequence
gives the same answer every time and tests are deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import cv2
import numpy as np


class TrayState(StrEnum):
    """What the tray looks like now.

    ``EMPTY`` also covers "nothing to read yet": a roll is only read after motion was seen, so a
    roll already lying there when the appliance starts is not read a second time.
    """

    EMPTY = "empty"
    ROLLING = "rolling"
    SETTLED = "settled"


@dataclass(frozen=True)
class MotionSettings:
    """Tuning of the motion measure. Sizes are relative to the shrunk image, not the camera's."""

    width: int = 96  # shrunk image width in pixels; height keeps the frame's aspect ratio
    pixel_threshold: int = 14  # grey levels a shrunk pixel must change by to count as changed
    min_changed_pixels: int = 3  # this many changed pixels (or more) is motion
    settle_seconds: float = 0.4  # still this long after the last motion: the dice have settled

    def __post_init__(self) -> None:
        if self.width < 8:
            raise ValueError(f"motion width must be at least 8 pixels, not {self.width}")
        if not 0 < self.pixel_threshold < 256:
            raise ValueError(f"pixel_threshold must be in 1..255, not {self.pixel_threshold}")
        if self.min_changed_pixels < 1:
            raise ValueError("min_changed_pixels must be at least 1")
        if self.settle_seconds < 0:
            raise ValueError("settle_seconds cannot be negative")


def shrink(frame: np.ndarray, width: int) -> np.ndarray:
    """A small blurred grey copy of a BGR (or grey) frame for cheap comparison."""
    if frame.ndim == 3:
        frame = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    height = max(1, round(frame.shape[0] * width / frame.shape[1]))
    small = cv2.resize(frame, (width, height), interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(small, (3, 3), 0)


def changed_pixels(previous: np.ndarray, current: np.ndarray, pixel_threshold: int) -> int:
    """How many pixels of two shrunk frames differ by more than ``pixel_threshold``."""
    if previous.shape != current.shape:
        return previous.size  # the camera changed resolution: treat it as motion
    difference = cv2.absdiff(previous, current)
    return int(np.count_nonzero(difference > pixel_threshold))


@dataclass(frozen=True)
class Observation:
    """The detector's answer for one frame.

    ``settled_now`` is true for exactly one frame per roll: the one at which the dice have been
    still for ``settle_seconds`` after motion. That is when the roll should be read.
    """

    state: TrayState
    moving: bool
    changed_pixels: int
    settled_now: bool = False


class SettleDetector:
    """Turns a stream of timestamped frames into tray states and one "settled" event per roll."""

    def __init__(self, settings: MotionSettings | None = None) -> None:
        self.settings = settings or MotionSettings()
        self._previous: np.ndarray | None = None
        self._last_motion_at: float | None = None
        self._armed = False  # motion seen since the last settle: the next settle is a new roll
        self._state = TrayState.EMPTY

    @property
    def state(self) -> TrayState:
        return self._state

    def update(self, frame: np.ndarray, timestamp: float) -> Observation:
        """Feed the next frame (timestamps in seconds, increasing) and get the tray state."""
        small = shrink(frame, self.settings.width)
        changed = 0
        if self._previous is not None:
            changed = changed_pixels(self._previous, small, self.settings.pixel_threshold)
        self._previous = small
        moving = changed >= self.settings.min_changed_pixels
        if moving:
            self._last_motion_at = timestamp
            self._armed = True
            self._state = TrayState.ROLLING
            return Observation(self._state, True, changed)
        settled_now = False
        if (
            self._armed
            and self._last_motion_at is not None
            and timestamp - self._last_motion_at >= self.settings.settle_seconds
        ):
            self._armed = False
            self._state = TrayState.SETTLED
            settled_now = True
        return Observation(self._state, False, changed, settled_now)

    @property
    def settling(self) -> bool:
        """True between the end of motion and the settle event: still frames worth reading."""
        return self._armed and self._state is TrayState.ROLLING

    def arm(self, timestamp: float) -> None:
        """Treat ``timestamp`` as motion: the tray is read once still (after a camera outage)."""
        self._last_motion_at = timestamp
        self._armed = True
        self._state = TrayState.ROLLING

    def mark_empty(self) -> None:
        """The settled frame showed no dice (the reader found none): the tray is empty."""
        self._state = TrayState.EMPTY
