"""Live calibration: automatics settled then frozen, calibration saved with them, check image."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from pi_reader.appliance.live_calibration import calibrate_live
from pi_reader.cli import main
from pi_reader.devices import FakeCamera
from pi_reader.vision import quality
from pi_reader.vision.calibration import Calibration, CalibrationError, ClippedFaces, calibrate
from pi_reader.vision.reader import read_roll

DEMO = Path(__file__).resolve().parent.parent / "data" / "demo-game"
AUTO = {"exposure_time_us": 12000, "analogue_gain": 1.5, "colour_gains": (1.9, 1.6)}


def test_calibrates_from_the_camera_and_stores_the_frozen_settings(tmp_path: Path) -> None:
    frame = cv2.imread(str(DEMO / "calibration.jpg"))
    camera = FakeCamera([frame], loop=True, auto_values=AUTO)  # type: ignore[arg-type]
    out = tmp_path / "calibration.json"
    calibration, check = calibrate_live(camera, out, settle_seconds=0.0, sleep=lambda s: None)
    # Its white dice's faces are clipped white, no coloured one's: the exposure stays.
    assert camera.applied_controls == [AUTO]
    assert json.loads(out.read_text())["camera"] == {
        "exposure_time_us": 12000,
        "analogue_gain": 1.5,
        "colour_gains": [1.9, 1.6],
    }
    assert Calibration.load(out).camera == calibration.camera
    assert check == tmp_path / "calibration-check.jpg" and cv2.imread(str(check)) is not None
    assert not camera.running


class LampCamera(FakeCamera):
    """A camera under a bright lamp, with a sensor's headroom: the scene is ``scene`` (a frame
    of the six dice) lit ``brightness`` times as brightly, seen at the exposure applied (clipped
    at 255, as a sensor would), or ``below`` once the exposure is lower than ``below_under``
    microseconds. Unlike a clipped recording scaled down, a lower exposure brings back what the
    clipping hid."""

    def __init__(self, scene: np.ndarray, brightness: float, below: np.ndarray | None = None,
                 below_under: int = 0) -> None:
        super().__init__([scene], loop=True, auto_values=AUTO)  # type: ignore[arg-type]
        self._scene = scene.astype(np.float32) * brightness
        self._below, self._below_under = below, below_under

    def capture(self) -> np.ndarray:
        super().capture()  # keeps the records and the start check
        if self._below is not None and self.exposure < self._below_under:
            return self._below.copy()
        scaled = self._scene * self.exposure / AUTO["exposure_time_us"]
        return np.clip(scaled, 0, 255).astype(np.uint8)

    @property
    def exposure(self) -> float:
        return float(self.applied_controls[-1]["exposure_time_us"] if self.applied_controls
                     else AUTO["exposure_time_us"])


def coloured_faces_clipped(frame: np.ndarray, calibration: Calibration) -> int:
    reading = read_roll(frame, calibration)
    return sum(1 for d in reading.dice
               if d.colour != "white" and quality.face_washed_out(frame, d.box))


def test_the_exposure_is_lowered_until_no_coloured_face_is_clipped(tmp_path: Path) -> None:
    scene = cv2.imread(str(DEMO / "calibration.jpg"))
    camera = LampCamera(scene, brightness=2.2)
    out = tmp_path / "calibration.json"
    calibration, _ = calibrate_live(camera, out, settle_seconds=0.0, sleep=lambda s: None)
    exposures = [c["exposure_time_us"] for c in camera.applied_controls]
    assert exposures[0] == AUTO["exposure_time_us"] and len(exposures) >= 2
    assert exposures == sorted(exposures, reverse=True)  # lowered step by step
    assert calibration.camera is not None and calibration.camera.exposure_time_us == exposures[-1]
    assert Calibration.load(out).camera == calibration.camera
    # It stopped at the first exposure where no coloured die's face is clipped white.
    seen = calibrate(scene)
    lit = scene.astype(np.float32) * 2.2
    at = [np.clip(lit * e / AUTO["exposure_time_us"], 0, 255).astype(np.uint8) for e in exposures]
    assert coloured_faces_clipped(at[-1], seen) == 0
    assert all(coloured_faces_clipped(frame, seen) > 0 for frame in at[:-1])


def test_a_lower_exposure_that_does_not_calibrate_is_not_taken(tmp_path: Path) -> None:
    empty_tray = np.full((768, 1024, 3), (60, 120, 70), np.uint8)
    scene = cv2.imread(str(DEMO / "calibration.jpg"))
    # Lit 1.8 times as brightly three coloured faces are clipped: calibration refuses the frame,
    # the exposure is lowered once, and that frame (an empty tray) does not calibrate either.
    camera = LampCamera(scene, brightness=1.8, below=empty_tray, below_under=12000)
    out = tmp_path / "c.json"
    with pytest.raises(ClippedFaces):  # the lamp's fault, whichever check saw it first
        calibrate_live(camera, out, 0.0, lambda s: None)
    assert [c["exposure_time_us"] for c in camera.applied_controls] == [12000, 9000, 12000]
    assert not out.exists()


def test_a_frame_without_the_six_dice_writes_nothing(tmp_path: Path) -> None:
    empty_tray = np.full((768, 1024, 3), (60, 120, 70), np.uint8)
    out = tmp_path / "calibration.json"
    out.write_text("the previous calibration")
    with pytest.raises(CalibrationError):
        calibrate_live(FakeCamera([empty_tray], loop=True), out, 0.0, lambda s: None)
    assert out.read_text() == "the previous calibration"


def test_the_calibrate_command_without_image_uses_the_camera(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["calibrate", "--camera", "usb:x", "--out", str(tmp_path / "c.json")])
    assert status != 0
    assert "pi-reader calibrate:" in capsys.readouterr().err
    assert not (tmp_path / "c.json").exists()
