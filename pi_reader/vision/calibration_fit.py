"""Does a frame still fit its calibration? Another camera size or another tray means recalibrate.

Everything calibration learnt is tied to one picture of one tray: the scene model's grid and die
size are in pixels of the calibration frame, its colour models relative to that tray's colour.
Read against a frame of another size or another tray, the finder sees dice everywhere and the
reader answers with a heap of problems (a 2048x1536 frame of the same tray: "clipped white";
another tray: 16 dice and 20 problems), none of which says what to do. So before reading, the
frame is checked against the calibration and a misfit is one problem: calibrate again.

The tray check compares colours only, never brightness: a shadow, a dimmer lamp or another
exposure scale every channel alike, and the reader copes with those. On the calibration's
64-cell grid, each cell's chroma (log B/G, log R/G) is compared with the calibrated empty tray's,
after the shift that a white-balance change gives every cell alike (the median) is taken out.
``MOVED_SHARE`` was chosen on the generated scenes' train and validation splits
(``training/render_scenes.py``; 256 rolls of 50 appliance scenes, each against its own scene's
calibration, where the dice, a hand, coins and pencils move and the lamp stays): at most 26 % of
the cells moved (99th percentile 23 %), while a roll against another scene's calibration moved
35 % or more in 94 % of the 2,450 pairs (trays of one colour under another light or camera pose
are left to the reader's own problems).
"""

from __future__ import annotations

import numpy as np

from pi_reader.vision.calibration import Calibration
from pi_reader.vision.tray_grid import TrayView
from pi_reader.vision.types import Problem, ProblemKind

# A cell's chroma (log-ratio units, about a tenth of a hue step) moved by more than this...
MOVED_CHROMA = 0.1
# ...over this share of the tray means another tray (dice cover a few percent of it).
MOVED_SHARE = 0.35
RECALIBRATE = "calibrate again with the tray and camera as they are now (pi-reader calibrate)"


def calibration_mismatch(frame: np.ndarray, calibration: Calibration,
                         tray: TrayView) -> Problem | None:
    """The problem that the frame does not fit ``calibration`` (size or tray), or None;
    ``tray`` is the frame on the calibration's tray grid."""
    height, width = frame.shape[:2]
    expected_width, expected_height = calibration.frame_size
    if (width, height) != (expected_width, expected_height):
        return Problem(
            ProblemKind.CALIBRATION_MISMATCH,
            f"the frame is {width}x{height} pixels but the calibration was made on "
            f"{expected_width}x{expected_height} frames; {RECALIBRATE}",
        )
    moved = moved_tray_share(tray)
    if moved >= MOVED_SHARE:
        return Problem(
            ProblemKind.CALIBRATION_MISMATCH,
            f"the tray does not look as it did at calibration ({moved:.0%} of it has another "
            f"colour): another tray or another camera; {RECALIBRATE}",
        )
    return None


def moved_tray_share(tray: TrayView) -> float:
    """The share of grid cells whose chroma moved by more than MOVED_CHROMA since calibration."""
    change = _chroma(tray.now.astype(np.float32)) - _chroma(tray.calibrated.astype(np.float32))
    change -= np.median(change.reshape(-1, 2), axis=0)  # a white-balance change moves all alike
    distance = np.hypot(change[..., 0], change[..., 1])
    return float(np.mean(distance > MOVED_CHROMA))


def _chroma(bgr: np.ndarray) -> np.ndarray:
    """Per pixel (log B/G, log R/G): brightness cancels out, so shadows leave it alone."""
    logs = np.log(bgr + 1.0)
    return np.stack([logs[..., 0] - logs[..., 1], logs[..., 2] - logs[..., 1]], axis=-1)
